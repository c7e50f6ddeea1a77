"""scikit-learn's own PCA tests, ported to kpca_lib.PCA.

From ``sklearn/decomposition/tests/test_pca.py`` (scikit-learn 1.9), adapted
to the book's conventions: the covariance divides by n (scikit-learn's by
n - 1), so ``explained_variance_`` is ``(n - 1) / n`` times scikit-learn's
and whitened projections have unit variance with ``ddof=0``; the routes
are ``method="covariance" | "gram" | "svd" | "auto"`` instead of
``svd_solver``; q is at most ``min(n - 1, d)`` and never more than the rank
(scikit-learn also returns components of zero variance).

Ported: test_pca, test_no_empty_slice_warning, test_whitening,
test_pca_solver_equivalence, test_pca_explained_variance_empirical,
test_pca_singular_values_consistency, test_pca_singular_values,
test_pca_check_projection, test_pca_check_projection_list, test_pca_inverse,
test_pca_validation, test_n_components_none,
test_infer_dim_by_explained_variance, test_pca_deterministic_output,
test_pca_dtype_preservation, test_pca_n_components_mostly_explained_variance_ratio,
test_feature_names_out, test_variance_correctness.

Not ported, for features kpca_lib does not have: sparse input (test_pca_sparse,
test_pca_sparse_fit_transform, test_sparse_pca_*), get_covariance /
get_precision (that part of test_pca), n_components="mle" and the
dimension inference (test_n_components_mle*, test_pca_dim, test_infer_dim_1/2/3,
test_mle_*, test_assess_dimension_*, test_small_eigenvalues_mle,
test_fit_mle_too_few_samples), probabilistic PCA scores and noise_variance_
(test_pca_score*, test_pca_sanity_noise_variance,
test_pca_zero_noise_variance_edge_cases), scikit-learn's solver selection
and its randomized solver (test_pca_svd_solver_auto,
test_pca_randomized_svd_n_oversamples), and the array API
(test_pca_array_api_compliance, test_pca_mle_array_api_compliance,
test_array_api_error_and_warnings_on_unsupported_params).
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import datasets
from sklearn.datasets import load_iris, make_low_rank_matrix

from kpca_lib import PCA

iris = datasets.load_iris()
METHODS = ["covariance", "gram", "svd", "auto"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n_components", range(1, iris.data.shape[1]))
def test_pca(method, n_components):
    X = iris.data
    pca = PCA(n_components=n_components, method=method)
    X_r = pca.fit(X).transform(X)
    assert X_r.shape[1] == n_components
    X_r2 = pca.fit_transform(X)
    assert_allclose(X_r, X_r2)
    assert_allclose(pca.transform(X), X_r2)


def test_no_empty_slice_warning():
    # q at most min(n - 1, d): 9 for 10 samples (scikit-learn: 10)
    X = np.random.RandomState(0).uniform(-1, 1, size=(10, 12))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        PCA(n_components=9).fit(X)


@pytest.mark.parametrize("method", METHODS)
def test_whitening(method):
    rng = np.random.RandomState(0)
    n_samples, n_features, n_components, rank = 100, 80, 30, 50
    X = np.dot(
        rng.randn(n_samples, rank),
        np.dot(np.diag(np.linspace(10.0, 1.0, rank)), rng.randn(rank, n_features)),
    )
    X[:, :50] *= 3
    assert X.std(axis=0).std() > 43.8
    X_ = X.copy()
    pca = PCA(n_components=n_components, whiten=True, method=method)
    X_whitened = pca.fit_transform(X_.copy())
    assert X_whitened.shape == (n_samples, n_components)
    assert_allclose(X_whitened, pca.transform(X_), rtol=5e-4)
    # unit variance in the book's convention: ddof=0 (scikit-learn: ddof=1)
    assert_allclose(X_whitened.std(ddof=0, axis=0), np.ones(n_components))
    assert_allclose(X_whitened.mean(axis=0), np.zeros(n_components), atol=1e-12)
    X_unwhitened = PCA(n_components=n_components, method=method).fit(X).transform(X)
    assert X_unwhitened.std(axis=0).std() == pytest.approx(74.1, rel=1e-1)


@pytest.mark.parametrize("other", ["covariance", "gram"])
@pytest.mark.parametrize("data_shape", ["tall", "wide"])
@pytest.mark.parametrize("rank_deficient", [False, True])
@pytest.mark.parametrize("whiten", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pca_solver_equivalence(other, data_shape, rank_deficient, whiten, dtype):
    # the SVD route plays scikit-learn's "full" solver
    n_samples, n_features = (100, 30) if data_shape == "tall" else (30, 100)
    n_test = 10
    if rank_deficient:
        rng = np.random.default_rng(0)
        rank = min(n_samples, n_features) // 2
        X = rng.standard_normal((n_samples + n_test, rank)) @ rng.standard_normal((rank, n_features))
    else:
        X = make_low_rank_matrix(n_samples + n_test, n_features, tail_strength=0.5, random_state=0)
        rank = min(n_samples - 1, n_features)
    X = X.astype(dtype, copy=False)
    X_train, X_test = X[:n_samples], X[n_samples:]
    tols = dict(atol=3e-2, rtol=1e-5) if dtype == np.float32 else dict(atol=1e-10, rtol=1e-10)

    full = PCA(method="svd", whiten=whiten)
    route = PCA(method=other, whiten=whiten)
    Z_full, Z_route = full.fit_transform(X_train), route.fit_transform(X_train)
    assert Z_full.dtype == Z_route.dtype == dtype
    # n_components=None keeps exactly the rank (scikit-learn keeps min(n, d))
    assert full.n_components_ == route.n_components_ == rank
    assert (full.explained_variance_ > 0).all()
    assert_allclose(full.explained_variance_, route.explained_variance_, **tols)
    assert_allclose(full.explained_variance_ratio_, route.explained_variance_ratio_, **tols)
    assert_allclose(full.components_, route.components_, **tols)
    assert_allclose(Z_route, Z_full, **tols)
    assert_allclose(route.transform(X_test), full.transform(X_test), **tols)
    X_back = full.inverse_transform(full.transform(X_test))
    assert X_back.dtype == dtype
    assert_allclose(route.inverse_transform(route.transform(X_test)), X_back, **tols)


@pytest.mark.parametrize(
    "X",
    [
        np.random.RandomState(0).randn(100, 80),
        datasets.make_classification(100, 80, n_informative=78, random_state=0)[0],
        np.random.RandomState(0).randn(10, 100),
    ],
    ids=["random-tall", "correlated-tall", "random-wide"],
)
@pytest.mark.parametrize("method", METHODS)
def test_pca_explained_variance_empirical(X, method):
    pca = PCA(n_components=2, method=method)
    X_pca = pca.fit_transform(X)
    assert_allclose(pca.explained_variance_, np.var(X_pca, ddof=0, axis=0))
    expected = sorted(np.linalg.eigvalsh(np.cov(X, rowvar=False, bias=True)), reverse=True)[:2]
    assert_allclose(pca.explained_variance_, expected, rtol=5e-3)


@pytest.mark.parametrize("method", ["covariance", "gram"])
def test_pca_singular_values_consistency(method):
    X = np.random.RandomState(0).randn(100, 80)
    full = PCA(n_components=2, method="svd").fit(X)
    other = PCA(n_components=2, method=method).fit(X)
    assert_allclose(full.singular_values_, other.singular_values_, rtol=5e-3)


@pytest.mark.parametrize("method", METHODS)
def test_pca_singular_values(method):
    rng = np.random.RandomState(0)
    X = rng.randn(100, 80)
    pca = PCA(n_components=2, method=method)
    X_trans = pca.fit_transform(X)
    assert_allclose(np.sum(pca.singular_values_**2), np.linalg.norm(X_trans, "fro") ** 2)
    assert_allclose(pca.singular_values_, np.sqrt(np.sum(X_trans**2, axis=0)))

    X = rng.randn(100, 110)
    pca = PCA(n_components=3, method=method)
    X_trans = pca.fit_transform(X)
    X_trans /= np.sqrt(np.sum(X_trans**2, axis=0))
    X_trans[:, 0] *= 3.142
    X_trans[:, 1] *= 2.718
    X_hat = np.dot(X_trans, pca.components_)
    pca.fit(X_hat)
    assert_allclose(pca.singular_values_, [3.142, 2.718, 1.0])


@pytest.mark.parametrize("method", METHODS)
def test_pca_check_projection(method):
    rng = np.random.RandomState(0)
    n, p = 100, 3
    X = rng.randn(n, p) * 0.1
    X[:10] += np.array([3, 4, 5])
    Xt = 0.1 * rng.randn(1, p) + np.array([3, 4, 5])
    Yt = PCA(n_components=2, method=method).fit(X).transform(Xt)
    Yt /= np.sqrt((Yt**2).sum())
    assert_allclose(np.abs(Yt[0][0]), 1.0, rtol=5e-3)


@pytest.mark.parametrize("method", METHODS)
def test_pca_check_projection_list(method):
    X = [[1.0, 0.0], [0.0, 1.0]]
    X_trans = PCA(n_components=1, method=method).fit_transform(X)
    assert X_trans.shape == (2, 1)
    assert_allclose(X_trans.mean(), 0.00, atol=1e-12)
    assert_allclose(X_trans.std(), 0.71, rtol=5e-3)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("whiten", [False, True])
def test_pca_inverse(method, whiten):
    rng = np.random.RandomState(0)
    X = rng.randn(50, 3)
    X[:, 1] *= 0.00001  # a relatively small middle component
    X += [5, 4, 3]  # a large mean
    pca = PCA(n_components=2, method=method, whiten=whiten).fit(X)
    assert_allclose(X, pca.inverse_transform(pca.transform(X)), rtol=5e-6)


@pytest.mark.parametrize(
    ("data", "n_components", "match"),
    [
        (np.array([[0, 1, 0], [1, 0, 0]]), 0, "n_components must be at least 1"),
        # two samples centre to rank 1 (scikit-learn refuses only above 2)
        (np.array([[0, 1, 0], [1, 0, 0]]), 2, r"larger than the rank allows: at most 1 \(min\(n_samples - 1, n_features\)"),
        (np.array([[0, 1, 0], [1, 0, 0]]), 3, "larger than the rank allows"),
        (np.array([[0, 1, 0], [1, 0, 0]]).T, 0, "n_components must be at least 1"),
        (np.array([[0, 1, 0], [1, 0, 0]]).T, 3, r"larger than the rank allows: at most 2"),
    ],
)
def test_pca_validation(data, n_components, match):
    with pytest.raises(ValueError, match=match):
        PCA(n_components).fit(data)
    if data.shape[0] == 3:  # three samples in the plane: two components
        assert PCA(2).fit(data).n_components_ == 2


@pytest.mark.parametrize(("data", "expected"), [(iris.data, 4), (iris.data.T, 3)], ids=["tall", "wide"])
@pytest.mark.parametrize("method", METHODS)
def test_n_components_none(data, expected, method):
    # the rank: min(n - 1, d) for these full-rank data (scikit-learn: min(n, d))
    assert PCA(method=method).fit(data).n_components_ == expected


@pytest.mark.parametrize(
    ("X", "n_components", "n_components_validated"),
    [
        (iris.data, 0.95, 2),
        (iris.data, 0.01, 1),
        (np.random.RandomState(0).rand(5, 20), 0.5, 2),
    ],
)
def test_infer_dim_by_explained_variance(X, n_components, n_components_validated):
    pca = PCA(n_components=n_components).fit(X)
    assert pca.n_components == pytest.approx(n_components)
    assert pca.n_components_ == n_components_validated


@pytest.mark.parametrize("method", METHODS)
def test_pca_deterministic_output(method):
    X = np.random.RandomState(0).rand(10, 10)
    transformed = np.array([PCA(n_components=2, method=method).fit_transform(X)[0] for _ in range(20)])
    assert_allclose(transformed, np.tile(transformed[0], (20, 1)))


@pytest.mark.parametrize("method", METHODS)
def test_pca_dtype_preservation(method):
    # the Gram route on 1000 x 4 data is an n x n problem: 200 samples there
    n = 200 if method == "gram" else 1000
    X = np.random.RandomState(0).rand(n, 4)
    pca_64 = PCA(n_components=3, method=method).fit(X)
    pca_32 = PCA(n_components=3, method=method).fit(X.astype(np.float32))
    assert pca_64.components_.dtype == np.float64
    assert pca_32.components_.dtype == np.float32
    assert pca_64.transform(X).dtype == np.float64
    assert pca_32.transform(X.astype(np.float32)).dtype == np.float32
    assert_allclose(pca_64.components_, pca_32.components_, rtol=1e-3, atol=1e-3)

    X_i64 = np.random.RandomState(0).randint(0, 1000, (n, 4)).astype(np.int64)
    X_i32 = X_i64.astype(np.int32)
    pca_64 = PCA(n_components=3, method=method).fit(X_i64)
    pca_32 = PCA(n_components=3, method=method).fit(X_i32)
    assert pca_64.components_.dtype == pca_32.components_.dtype == np.float64
    assert pca_64.transform(X_i64).dtype == pca_32.transform(X_i32).dtype == np.float64
    assert_allclose(pca_64.components_, pca_32.components_, rtol=1e-4)


def test_pca_n_components_mostly_explained_variance_ratio():
    X, y = load_iris(return_X_y=True)
    n_components = PCA().fit(X, y).explained_variance_ratio_.cumsum()[-2]
    assert PCA(n_components=n_components).fit(X, y).n_components_ == X.shape[1]


def test_feature_names_out():
    names = PCA(n_components=2).fit(iris.data).get_feature_names_out()
    assert_array_equal([f"pca{i}" for i in range(2)], names)


def test_variance_correctness():
    X = np.random.RandomState(0).randn(1000, 200)
    pca = PCA().fit(X)
    # the total variance, dividing by n
    assert_allclose(pca.explained_variance_ / pca.explained_variance_ratio_, np.var(X, ddof=0, axis=0).sum())
