"""scikit-learn's own tests of probabilistic PCA, "mle" and sparse input, ported to kpca_lib.PCA.

From ``sklearn/decomposition/tests/test_pca.py`` (scikit-learn 1.9.1, read in
the installed package), adapted to our names and conventions: the SVD route
plays the "full" solver, the covariance route "covariance_eigh"; variances
divide by n (scikit-learn's by n - 1), which changes no ratio, no score
ordering and no "mle" choice; q is at most the numerical rank and at most
n - 1 (scikit-learn allows min(n, d)).

Ported: test_pca (get_covariance and get_precision), test_pca_score,
test_pca_score3, test_pca_sanity_noise_variance,
test_pca_score_consistency_solvers (between our routes),
test_pca_zero_noise_variance_edge_cases (adapted: q = n - 1 at most),
test_n_components_mle, test_pca_dim, test_infer_dim_1, test_infer_dim_2,
test_infer_dim_3, test_small_eigenvalues_mle, test_mle_redundant_data,
test_fit_mle_too_few_samples, test_mle_simple_case,
test_assess_dimension_rank_one, test_pca_sparse and
test_pca_sparse_fit_transform (covariance, Gram and ARPACK routes),
test_sparse_pca_solver_error (adapted: our sparse SVD route needs an int q).

Not ported: the randomized and arpack solvers of dense data (we have
neither), test_n_components_mle_error (no such solvers),
test_assess_dimension_bad_rank (our evidence function is internal and only
called with valid ranks), the array-API tests.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_almost_equal
from scipy import sparse
from sklearn import datasets
from sklearn.decomposition import PCA as SklearnPCA

from kpca_lib import PCA
from kpca_lib.probabilistic_pca import minka_log_evidence, minka_n_components

iris = datasets.load_iris()
METHODS = ["svd", "covariance", "gram", "auto"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n_components", range(1, iris.data.shape[1]))
def test_pca_covariance_and_precision(method, n_components):
    X = iris.data
    pca = PCA(n_components=n_components, method=method).fit(X)
    assert_allclose(pca.get_covariance() @ pca.get_precision(), np.eye(X.shape[1]), atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_pca_score(method):
    n, p = 1000, 3
    rng = np.random.RandomState(0)
    X = rng.randn(n, p) * 0.1 + np.array([3, 4, 5])
    pca = PCA(n_components=2, method=method).fit(X)
    ll1 = pca.score(X)
    h = -0.5 * np.log(2 * np.pi * np.exp(1) * 0.1**2) * p
    assert_allclose(ll1 / h, 1, rtol=5e-2)
    ll2 = pca.score(rng.randn(n, p) * 0.2 + np.array([3, 4, 5]))
    assert ll1 > ll2
    # adapted: whitening changes the projections, not the model (scikit-learn's
    # whitened model scores lower, its covariance being scaled once more)
    assert PCA(n_components=2, whiten=True, method=method).fit(X).score(X) == pytest.approx(ll1, rel=1e-12)


def test_pca_score3():
    n, p = 200, 3
    rng = np.random.RandomState(0)
    Xl = rng.randn(n, p) + rng.randn(n, 1) * np.array([3, 4, 5]) + np.array([1, 0, 7])
    Xt = rng.randn(n, p) + rng.randn(n, 1) * np.array([3, 4, 5]) + np.array([1, 0, 7])
    # adapted: q = 0 (a spherical Gaussian) is no PCA here; q = 1 beats q = 2
    ll = [PCA(n_components=k, method="svd").fit(Xl).score(Xt) for k in (1, 2)]
    assert np.argmax(ll) == 0


@pytest.mark.parametrize("method", METHODS)
def test_pca_sanity_noise_variance(method):
    X, _ = datasets.load_digits(return_X_y=True)
    pca = PCA(n_components=30, method=method).fit(X)
    assert np.all((pca.explained_variance_ - pca.noise_variance_) >= 0)


@pytest.mark.parametrize("method", ["covariance", "gram"])
def test_pca_score_consistency_routes(method):
    X, _ = datasets.load_digits(return_X_y=True)
    X = X[:300]
    full = PCA(n_components=30, method="svd").fit(X)
    other = PCA(n_components=30, method=method).fit(X)
    assert_allclose(full.score(X), other.score(X), rtol=5e-6)


@pytest.mark.parametrize("method", ["svd", "covariance"])
def test_pca_zero_noise_variance_edge_cases(method):
    n, p = 100, 3
    rng = np.random.RandomState(0)
    X = rng.randn(n, p) * 0.1 + np.array([3, 4, 5])
    pca = PCA(n_components=p, method=method).fit(X)
    assert pca.noise_variance_ == 0
    pca.score(X)  # no division by zero with q = d
    # adapted: with n = 3 < d, q is at most n - 1 = 2; the model then has no
    # variance outside its 2 directions, and a density needs some
    pca = PCA(n_components=2, method="svd").fit(X.T[:, :10])
    assert pca.noise_variance_ == 0
    with pytest.raises(ValueError, match="noise_variance_ = 0"):
        pca.score(X.T[:, :10])


@pytest.mark.parametrize("method", ["auto", "svd"])
def test_n_components_mle(method):
    X = np.random.RandomState(0).randn(600, 10)
    assert PCA(n_components="mle", method=method).fit(X).n_components_ == 1


def test_pca_dim():
    rng = np.random.RandomState(0)
    X = rng.randn(100, 5) * 0.1
    X[:10] += np.array([3, 4, 5, 1, 2])
    pca = PCA(n_components="mle", method="svd").fit(X)
    assert pca.n_components == "mle"
    assert pca.n_components_ == 1


def test_infer_dim_1():
    n, p = 1000, 5
    rng = np.random.RandomState(0)
    X = rng.randn(n, p) * 0.1 + rng.randn(n, 1) * np.array([3, 4, 5, 1, 2]) + np.array([1, 0, 7, 4, 6])
    spect = PCA(n_components=p, method="svd").fit(X).explained_variance_
    ll = np.array([minka_log_evidence(spect, k, n) for k in range(1, p)])
    assert ll[1] > ll.max() - 0.01 * n


def test_infer_dim_2():
    n, p = 1000, 5
    rng = np.random.RandomState(0)
    X = rng.randn(n, p) * 0.1
    X[:10] += np.array([3, 4, 5, 1, 2])
    X[10:20] += np.array([6, 0, 7, 2, -1])
    assert minka_n_components(PCA(n_components=p, method="svd").fit(X).explained_variance_, n) > 1


def test_infer_dim_3():
    n, p = 100, 5
    rng = np.random.RandomState(0)
    X = rng.randn(n, p) * 0.1
    X[:10] += np.array([3, 4, 5, 1, 2])
    X[10:20] += np.array([6, 0, 7, 2, -1])
    X[30:40] += 2 * np.array([-1, 1, -1, 1, -1])
    assert minka_n_components(PCA(n_components=p, method="svd").fit(X).explained_variance_, n) > 2


def test_small_eigenvalues_mle():
    spectrum = np.array([1, 1e-30, 1e-30, 1e-30])
    assert minka_log_evidence(spectrum, 1, 10) > -np.inf
    for rank in (2, 3):
        assert minka_log_evidence(spectrum, rank, 10) == -np.inf
    assert minka_n_components(spectrum, 10) == 1


def test_mle_redundant_data():
    X, _ = datasets.make_classification(n_features=20, n_informative=1, n_repeated=18, n_redundant=1,
                                        n_clusters_per_class=1, random_state=42)
    assert PCA(n_components="mle").fit(X).n_components_ == 1


def test_fit_mle_too_few_samples():
    X, _ = datasets.make_classification(n_samples=20, n_features=21, random_state=42)
    with pytest.raises(ValueError, match="n_components='mle' is only supported if n_samples >= n_features"):
        PCA(n_components="mle", method="svd").fit(X)


def test_mle_simple_case():
    n_samples, n_dim = 1000, 10
    X = np.random.RandomState(0).randn(n_samples, n_dim)
    X[:, -1] = np.mean(X[:, :-1], axis=-1)  # true X dim is ndim - 1
    assert PCA("mle", method="svd").fit(X).n_components_ == n_dim - 1


def test_assess_dimension_rank_one():
    n_samples, n_features = 9, 6
    X = np.ones((n_samples, n_features))
    _, s, _ = np.linalg.svd(X, full_matrices=True)
    assert_allclose(s[1:], np.zeros(n_features - 1), atol=1e-12)
    assert np.isfinite(minka_log_evidence(s, 1, n_samples))
    for rank in range(2, n_features):
        assert minka_log_evidence(s, rank, n_samples) == -np.inf


@pytest.mark.parametrize("density", [0.01, 0.1, 0.30])
@pytest.mark.parametrize("n_components", [1, 2, 10])
@pytest.mark.parametrize("container", [sparse.csr_matrix, sparse.csc_matrix])
@pytest.mark.parametrize("method", ["svd", "covariance", "gram"])
@pytest.mark.parametrize("scale", [1, 10, 100])
def test_pca_sparse(density, n_components, container, method, scale):
    # as scikit-learn: the sparse fit against the dense fit
    atol = 1e-12
    transform_atol = 1e-10
    rng = np.random.RandomState(0)
    X = container(sparse.random(50, 60, density=density, random_state=rng))
    X = X @ sparse.diags(np.repeat(float(scale), 60))  # scale the columns
    pca = PCA(n_components=n_components, method=method).fit(X)
    dense = PCA(n_components=n_components, method="svd").fit(X.toarray())
    assert_allclose(pca.components_, dense.components_, atol=atol * 10 * scale)
    assert_allclose(pca.explained_variance_, dense.explained_variance_, rtol=1e-9)
    assert_allclose(pca.explained_variance_ratio_, dense.explained_variance_ratio_, rtol=1e-9)
    assert_allclose(pca.singular_values_, dense.singular_values_, rtol=1e-9)
    X2 = container(sparse.random(50, 60, density=density, random_state=rng))
    assert_allclose(pca.transform(X2), dense.transform(X2.toarray()), atol=transform_atol * scale)
    assert_allclose(pca.transform(X2), pca.transform(X2.toarray()), atol=transform_atol * scale)
    # and scikit-learn's own sparse PCA
    theirs = SklearnPCA(n_components=n_components, svd_solver="arpack", random_state=0).fit(X)
    assert_allclose(pca.explained_variance_ratio_, theirs.explained_variance_ratio_, rtol=1e-8)
    assert_allclose(pca.explained_variance_ * 50 / 49, theirs.explained_variance_, rtol=1e-8)


@pytest.mark.parametrize("container", [sparse.csr_matrix, sparse.csc_matrix])
def test_pca_sparse_fit_transform(container):
    rng = np.random.RandomState(0)
    X = container(sparse.random(50, 60, density=0.01, random_state=rng))
    X2 = container(sparse.random(50, 60, density=0.01, random_state=rng))
    pca_fit = PCA(n_components=10, method="svd").fit(X)
    pca_fit_transform = PCA(n_components=10, method="svd")
    X_fit_transformed = pca_fit_transform.fit_transform(X)
    assert_allclose(pca_fit_transform.components_, pca_fit.components_)
    assert_array_almost_equal(pca_fit.transform(X2), pca_fit_transform.transform(X2))
    assert_allclose(X_fit_transformed, pca_fit.transform(X), atol=1e-12)


def test_sparse_pca_svd_route_error():
    X = sparse.csr_matrix(sparse.random(50, 60, density=0.3, random_state=0))
    with pytest.raises(ValueError, match="method='svd' on a scipy.sparse X computes q < min"):
        PCA(method="svd").fit(X)
