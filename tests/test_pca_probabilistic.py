"""PCA as a density (probabilistic PCA) against scikit-learn and scipy, and PCA of data at
the edges of float64's range (issue 22, defect 6)."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.decomposition import PCA as SklearnPCA

import kpca_lib as kl


@pytest.mark.parametrize("method", ["svd", "covariance", "gram"])
@pytest.mark.parametrize("q", [1, 4, 9])
def test_probabilistic_pca_relates_to_sklearn_by_the_factor_of_the_convention(method, q):
    X = load_wine().data  # n = 178 > d = 13
    n = X.shape[0]
    ours = kl.PCA(q, method=method).fit(X)
    theirs = SklearnPCA(q, svd_solver="full").fit(X)
    # scikit-learn divides by n - 1, the book (and maximum likelihood) by n
    assert ours.noise_variance_ * n / (n - 1) == pytest.approx(theirs.noise_variance_, rel=1e-9)
    np.testing.assert_allclose(ours.get_covariance() * n / (n - 1), theirs.get_covariance(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ours.get_precision() * (n - 1) / n, theirs.get_precision(), rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("q", [2, 10])
def test_score_samples_is_the_gaussian_log_density_of_the_model(q):
    X = load_breast_cancer().data
    model = kl.PCA(q).fit(X[:400])
    density = multivariate_normal(mean=model.mean_, cov=model.get_covariance())
    np.testing.assert_allclose(model.score_samples(X[400:]), density.logpdf(X[400:]), rtol=1e-9, atol=1e-7)
    assert model.score(X[400:]) == pytest.approx(density.logpdf(X[400:]).mean(), rel=1e-9)


def test_score_equals_sklearn_when_given_the_same_covariance():
    # one density, two conventions: with the training set scaled by
    # sqrt((n - 1) / n) about its mean... simpler: compare the densities each
    # library gives for its own covariance, through scipy
    X = load_wine().data
    theirs = SklearnPCA(5, svd_solver="full").fit(X)
    ours = kl.PCA(5).fit(X)
    n = X.shape[0]
    theirs_by_scipy = multivariate_normal(mean=theirs.mean_, cov=theirs.get_covariance()).logpdf(X)
    np.testing.assert_allclose(theirs.score_samples(X), theirs_by_scipy, rtol=1e-9, atol=1e-7)
    ours_as_theirs = multivariate_normal(mean=ours.mean_, cov=ours.get_covariance() * n / (n - 1)).logpdf(X)
    np.testing.assert_allclose(ours_as_theirs, theirs.score_samples(X), rtol=1e-9, atol=1e-7)


def test_mle_agrees_with_sklearn_on_the_datasets():
    for X in (load_wine().data, load_breast_cancer().data, load_digits().data[:, 10:30]):
        assert kl.PCA("mle").fit(X).n_components_ == SklearnPCA("mle", svd_solver="full").fit(X).n_components_


# issue 22, defect 6: underflow and overflow


@pytest.mark.parametrize("method", ["auto", "svd", "covariance", "gram"])
@pytest.mark.parametrize("size", [1e-170, 1e-300, 1e170])
def test_tiny_and_huge_data_are_not_zero_variance(method, size):
    X = load_wine().data[:40, :6]
    reference = kl.PCA(3, method=method).fit(X)
    with np.errstate(over="raise", invalid="raise", divide="raise"), \
            pytest.warns(RuntimeWarning, match="outside float64's range"):
        scaled = kl.PCA(3, method=method).fit(X * size)
    np.testing.assert_allclose(scaled.explained_variance_ratio_, reference.explained_variance_ratio_, rtol=1e-12)
    np.testing.assert_allclose(scaled.components_, reference.components_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(scaled.singular_values_, reference.singular_values_ * size, rtol=1e-12)
    np.testing.assert_allclose(scaled.transform(X * size), reference.transform(X) * size, rtol=1e-10,
                               atol=1e-10 * size)
    with pytest.warns(RuntimeWarning, match="outside float64's range"):
        white = kl.PCA(3, method=method, whiten=True).fit(X * size)
    np.testing.assert_allclose(white.transform(X * size), kl.PCA(3, method=method, whiten=True).fit(X).transform(X),
                               rtol=1e-9, atol=1e-9)
    assert np.all(np.isfinite(scaled.explained_variance_ratio_))


def test_a_tiny_non_zero_matrix_is_not_zero_but_a_constant_one_is():
    X = np.random.default_rng(0).normal(size=(10, 3)) * 1e-170
    with pytest.warns(RuntimeWarning, match="outside float64's range"):
        assert kl.PCA().fit(X).n_components_ == 3
    with pytest.raises(ValueError, match="zero variance"):
        kl.PCA().fit(np.full((4, 3), 1e-170))


def test_a_density_of_underflowed_variances_is_refused_clearly():
    X = load_wine().data[:40, :6] * 1e-170
    with pytest.warns(RuntimeWarning, match="outside float64's range"):
        model = kl.PCA(3).fit(X)
    assert np.all(model.explained_variance_ == 0)  # below float64's smallest number
    with pytest.raises(ValueError, match="underflowed"):
        model.score(X)
