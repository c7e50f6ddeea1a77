"""PCA: both routes agree with each other and with scikit-learn."""

import numpy as np
import pytest
from hypothesis import assume, given
from sklearn.datasets import load_iris
from sklearn.decomposition import PCA as SklearnPCA

import kpca_lib as kl
from strategies import data_matrices


def assert_equal_up_to_sign(A, B, atol=1e-8):
    """Columns of A and B agree up to one sign per column."""
    signs = np.sign(np.sum(A * B, axis=0))
    signs[signs == 0] = 1
    np.testing.assert_allclose(A * signs, B, atol=atol, rtol=1e-7)


def well_separated(eigenvalues, q):
    """Whether the q leading eigenvalues are distinct enough to fix the components."""
    lam = np.asarray(eigenvalues)
    scale = lam[0]
    gaps = -np.diff(lam[: q + 1]) if lam.size > q else -np.diff(np.append(lam[:q], 0.0))
    return scale > 1e-6 and np.all(gaps > 1e-3 * scale)


@given(X=data_matrices(min_samples=3, max_samples=10, max_features=8))
def test_gram_route_equals_covariance_route(X):
    lam = np.sort(np.linalg.eigvalsh(np.cov(X.T, bias=True).reshape(X.shape[1], -1)))[::-1]
    q = min(2, X.shape[0] - 1, X.shape[1])
    assume(well_separated(lam, q))
    cov = kl.PCA(n_components=q, method="covariance").fit(X)
    gram = kl.PCA(n_components=q, method="gram").fit(X)
    # up to sign: ties in the largest entry leave the sign to round-off
    assert_equal_up_to_sign(gram.components_.T, cov.components_.T, atol=1e-6)
    np.testing.assert_allclose(gram.explained_variance_, cov.explained_variance_, rtol=1e-7, atol=1e-9 * lam[0])
    assert_equal_up_to_sign(gram.transform(X), cov.transform(X), atol=1e-6 * (1 + np.abs(X).max()))


def test_matches_sklearn_on_iris():
    X = load_iris().data
    n = X.shape[0]
    ours = kl.PCA(n_components=3).fit(X)
    theirs = SklearnPCA(n_components=3).fit(X)
    assert ours.method_ == "covariance"
    assert_equal_up_to_sign(ours.components_.T, theirs.components_.T)
    # scikit-learn divides the covariance by n - 1, the book by n
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_ * (n - 1) / n)
    np.testing.assert_allclose(ours.explained_variance_ratio_, theirs.explained_variance_ratio_)
    np.testing.assert_allclose(ours.mean_, theirs.mean_)
    assert_equal_up_to_sign(ours.transform(X), theirs.transform(X))
    # the reconstruction does not depend on the signs at all
    np.testing.assert_allclose(
        ours.inverse_transform(ours.transform(X)),
        theirs.inverse_transform(theirs.transform(X)),
        atol=1e-10,
    )


def test_gram_route_on_wide_data_matches_sklearn():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2000)) @ np.diag(np.linspace(3, 0.1, 2000))
    ours = kl.PCA(n_components=5).fit(X)
    assert ours.method_ == "gram"
    theirs = SklearnPCA(n_components=5, svd_solver="full").fit(X)
    assert_equal_up_to_sign(ours.components_.T, theirs.components_.T, atol=1e-8)
    n = X.shape[0]
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_ * (n - 1) / n)
    norms = np.linalg.norm(ours.components_, axis=1)
    np.testing.assert_allclose(norms, 1.0)


def test_all_components_reconstruct_exactly():
    X = np.random.default_rng(2).normal(size=(12, 4))
    pca = kl.PCA().fit(X)
    assert pca.n_components_ == 4
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(X)), X, atol=1e-12)
    np.testing.assert_allclose(pca.explained_variance_ratio_.sum(), 1.0)


def test_default_keeps_only_components_of_non_zero_variance():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(10, 2)) @ rng.normal(size=(2, 5))  # rank 2 in R^5
    for method in ("covariance", "gram"):
        assert kl.PCA(method=method).fit(X).n_components_ == 2


def test_refit_is_deterministic_and_fit_copies_nothing_it_needs():
    X = np.random.default_rng(4).normal(size=(20, 3))
    a = kl.PCA(2).fit(X)
    b = kl.PCA(2).fit(X.copy())
    np.testing.assert_array_equal(a.components_, b.components_)
    Z = a.transform(X)
    X[:] = 0.0  # changing X after fit changes nothing
    np.testing.assert_array_equal(a.transform(b.mean_ + Z @ b.components_), a.transform(b.inverse_transform(Z)))
    np.testing.assert_array_equal(a.mean_, b.mean_)


@pytest.mark.parametrize(
    ("X", "kwargs", "error", "match"),
    [
        (np.array([[np.nan, 1.0], [1.0, 2.0]]), {}, ValueError, "NaN"),
        (np.array([[np.inf, 1.0], [1.0, 2.0]]), {}, ValueError, "infinity"),
        (np.empty((0, 3)), {}, ValueError, "0 sample"),
        (np.ones((1, 3)), {}, ValueError, "1 sample"),
        (np.eye(3), {"n_components": 0}, ValueError, "n_components must be at least 1"),
        (np.eye(3), {"n_components": 3}, ValueError, "larger than the rank allows"),
        (np.eye(3), {"n_components": 1.5}, ValueError, r"an integer >= 1 or a fraction of the variance in \(0, 1\)"),
        (np.eye(3), {"n_components": 0.0}, ValueError, r"fraction of the variance in \(0, 1\), got n_components=0.0"),
        (np.eye(3), {"n_components": "auto"}, TypeError, "n_components must be an int, a float, None or 'mle'"),
        (np.ones((2, 3)), {"n_components": "mle"}, ValueError, "only supported if n_samples >= n_features"),
        (np.eye(3), {"method": "lanczos"}, ValueError, "method must be one of"),
        (np.ones((4, 3)), {}, ValueError, "zero variance"),
        # rank 1: the second component would have zero variance
        (np.outer(np.arange(5.0), [1.0, 2.0, 3.0]), {"n_components": 2}, ValueError, "rank 1"),
        (np.outer(np.arange(5.0), [1.0, 2.0, 3.0]), {"n_components": 2, "method": "gram"}, ValueError, "rank 1"),
    ],
)
def test_bad_input_at_fit(X, kwargs, error, match):
    with pytest.raises(error, match=match):
        kl.PCA(**kwargs).fit(X)


def test_bad_input_at_transform():
    pca = kl.PCA(2).fit(np.random.default_rng(5).normal(size=(10, 3)))
    with pytest.raises(ValueError, match="3 features"):
        pca.transform(np.ones((2, 4)))
    with pytest.raises(ValueError, match="NaN"):
        pca.transform(np.array([[np.nan, 0.0, 0.0]]))
    with pytest.raises(ValueError, match=r"shape \(n_samples, 2\)"):
        pca.inverse_transform(np.ones((2, 3)))


# Regression of issue 12: squaring the condition number


def ill_conditioned(ratio, n=50, offset=5.0):
    """Centred data with singular values 1, 1e-2 and ratio, plus an offset."""
    rng = np.random.default_rng(0)
    U = np.linalg.qr(rng.standard_normal((n, 3)))[0]
    U -= U.mean(axis=0)  # nearly orthonormal and centred
    W = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    return (U * [1.0, 1e-2, ratio]) @ W.T + offset


def test_singular_values_down_to_1e_minus_7_give_full_rank_as_sklearn_svd():
    X = ill_conditioned(1e-7)
    ours = kl.PCA(3).fit(X)
    theirs = SklearnPCA(3, svd_solver="full").fit(X)
    assert ours.n_components_ == 3 and ours.method_ == "svd"
    np.testing.assert_allclose(ours.singular_values_, theirs.singular_values_, rtol=1e-7)
    assert_equal_up_to_sign(ours.components_.T, theirs.components_.T, atol=1e-7)
    # and the default keeps all three
    assert kl.PCA().fit(X).n_components_ == 3


@pytest.mark.parametrize("method", ["covariance", "gram"])
def test_the_squared_routes_say_what_they_lose(method):
    # 1e-6: lambda_3 / lambda_1 = 1e-12, computed to a few digits only
    with pytest.warns(UserWarning, match=f"The {method} route squares the singular values"):
        pca = kl.PCA(3, method=method).fit(ill_conditioned(1e-6))
    assert pca.method_ == method
    np.testing.assert_allclose(pca.singular_values_[2], SklearnPCA(3, svd_solver="full").fit(
        ill_conditioned(1e-6)).singular_values_[2], rtol=1e-2)
    # 1e-9: below the round-off of C, the route cannot compute the component
    with pytest.raises(ValueError, match=f"The {method} route cannot compute component 3"):
        kl.PCA(3, method=method).fit(ill_conditioned(1e-9))


def test_rank_deficient_data_keep_their_rank_on_every_route():
    X = ill_conditioned(0.0)  # exactly rank 2, round-off in the third direction
    for method in ("auto", "covariance", "gram", "svd"):
        assert kl.PCA(method=method).fit(X).n_components_ == 2, method
        with pytest.raises(ValueError, match="rank 2"):
            kl.PCA(3, method=method).fit(X)


# What a scikit-learn user expects (issue 12)


def test_svd_route_equals_sklearn_full_solver():
    X = load_iris().data
    ours = kl.PCA(3, method="svd").fit(X)
    theirs = SklearnPCA(3, svd_solver="full").fit(X)
    n = X.shape[0]
    assert_equal_up_to_sign(ours.components_.T, theirs.components_.T)
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_ * (n - 1) / n)
    np.testing.assert_allclose(ours.singular_values_, theirs.singular_values_)
    assert ours.n_samples_ == theirs.n_samples_ == n


@pytest.mark.parametrize("fraction", [0.5, 0.9, 0.95, 0.99, 0.999])
@pytest.mark.parametrize("data", ["iris", "wide"])
def test_a_variance_fraction_keeps_as_many_components_as_sklearn(fraction, data):
    if data == "iris":
        X = load_iris().data
    else:
        X = np.random.default_rng(0).normal(size=(20, 60)) * np.linspace(3, 0.1, 60)
    ours = kl.PCA(fraction).fit(X)
    theirs = SklearnPCA(fraction, svd_solver="full").fit(X)
    assert ours.n_components_ == theirs.n_components_
    assert ours.explained_variance_ratio_.sum() > fraction
    assert ours.explained_variance_ratio_[:-1].sum() <= fraction


@pytest.mark.parametrize("method", ["covariance", "gram", "svd"])
def test_whitening_relates_to_sklearn_by_the_factor_of_the_convention(method):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6)) @ rng.normal(size=(6, 6)) + 3.0
    X_new = rng.normal(size=(5, 6))
    n = X.shape[0]
    ours = kl.PCA(4, method=method, whiten=True).fit(X)
    theirs = SklearnPCA(4, whiten=True, svd_solver="full").fit(X)
    # unit variance in the book's convention (divide by n): ddof=0
    np.testing.assert_allclose(ours.transform(X).std(axis=0), 1.0)
    # scikit-learn's are unit with ddof=1, so ours are sqrt(n / (n - 1)) times theirs
    assert_equal_up_to_sign(ours.transform(X_new), theirs.transform(X_new) * np.sqrt(n / (n - 1)))
    np.testing.assert_allclose(ours.singular_values_, theirs.singular_values_)
    # whitening is undone by inverse_transform
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(X)),
                               kl.PCA(4, method=method).fit(X).inverse_transform(
                                   kl.PCA(4, method=method).fit(X).transform(X)), atol=1e-10)


def test_singular_values_are_the_norms_of_the_projections():
    X = np.random.default_rng(1).normal(size=(30, 5))
    pca = kl.PCA(3).fit(X)
    np.testing.assert_allclose(pca.singular_values_, np.linalg.norm(pca.transform(X), axis=0))
    np.testing.assert_allclose(pca.singular_values_**2, X.shape[0] * pca.explained_variance_)


@pytest.mark.parametrize("method", ["covariance", "gram", "svd"])
def test_float32_stays_float32(method):
    X = np.random.default_rng(2).normal(size=(30, 8))
    pca_64 = kl.PCA(3, method=method).fit(X)
    pca_32 = kl.PCA(3, method=method).fit(X.astype(np.float32))
    assert pca_32.components_.dtype == np.float32
    assert pca_32.transform(X.astype(np.float32)).dtype == np.float32
    assert pca_64.transform(X).dtype == np.float64
    np.testing.assert_allclose(pca_32.components_, pca_64.components_, atol=1e-5)


def _peak_bytes(function):
    """The largest memory traced (numpy's arrays included) while ``function`` runs."""
    import tracemalloc

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("shape", "method"),
    [((10000, 200), "auto"), ((10000, 200), "covariance"), ((10000, 200), "svd"), ((200, 10000), "gram")],
)
def test_sparse_samples_are_never_made_dense(shape, method):
    # issue 22: sparse X is centred implicitly, never densified. X as a dense array takes
    # 16 MB, its CSR form 0.1 MB. The fit and the transform may form the min(n, d)^2
    # covariance or Gram matrix (0.3 MB) and a few vectors (peaks of 0.9-1.7 MB measured),
    # nothing near the size of X
    import scipy.sparse as sp

    X = sp.random(*shape, density=0.005, format="csr", random_state=0, dtype=np.float64)
    bound = X.shape[0] * X.shape[1] * 8 // 4  # a quarter of dense X
    # the measure sees numpy's arrays: making X dense shows
    assert _peak_bytes(X.toarray) > 4 * bound
    assert _peak_bytes(lambda: kl.PCA(5, method=method).fit(X).transform(X)) < bound


def _offset_sample(offset, n=100, d=8, seed=0):
    """Four near-constant columns (``offset`` plus a spread of 1) beside four half-sparse ones."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[:, :4] += offset
    X[:, 4:][rng.random((n, d - 4)) < 0.5] = 0.0
    return X


@pytest.mark.parametrize("offset", [1e6, 1e8])
@pytest.mark.parametrize("method", ["covariance", "gram", "svd"])
def test_sparse_columns_with_a_large_offset_do_not_cancel(method, offset):
    # issue 35, item 6: implicit centring (X^T X - n mean mean^T) cancelled on columns of
    # mean 1e8 and spread 1: variances 1e-3 off at offset 1e6, up to inf (a zero) at 1e8,
    # and a false rank 6 of 8 from the covariance route, all without a word. The
    # reference centres explicitly, then takes the SVD (scikit-learn's "full"); the data
    # are known to eps * offset = 1.5e-8 of a spread of 1, so 1e-10 relative on the
    # variances is far below anything the data can tell apart (measured: 4e-15), and the
    # components (eigenvalue gaps >= 0.05) agree to 1e-8, signs included
    import scipy.sparse as sp

    X = _offset_sample(offset)
    n = X.shape[0]
    pca = kl.PCA(n_components=4 if method == "svd" else None, method=method).fit(sp.csr_matrix(X))
    assert pca.n_components_ == (4 if method == "svd" else 8)  # the data have full rank 8
    reference = SklearnPCA(n_components=pca.n_components_, svd_solver="full").fit(X)
    np.testing.assert_allclose(pca.explained_variance_, reference.explained_variance_ * (n - 1) / n, rtol=1e-10)
    np.testing.assert_allclose(pca.components_, reference.components_, atol=1e-8)
    np.testing.assert_allclose(pca.explained_variance_ratio_, reference.explained_variance_ratio_, rtol=1e-10)
    # a derived identity: all the variances add up to the trace of C, the columns' variances
    if method != "svd":
        np.testing.assert_allclose(pca.explained_variance_.sum(), X.var(axis=0).sum(), rtol=1e-12)


def test_sparse_offset_columns_alone_are_made_dense():
    # issue 35, item 6: the columns centred explicitly (mean above spread) store more than
    # half their entries; the others stay sparse. 10000 x 200 at density 0.005 with two
    # columns of offset 1e8: dense X takes 16 MB, the two dense columns 0.16 MB
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    near_constant = 1e8 + rng.standard_normal((10000, 2))
    X = sp.hstack([sp.csr_matrix(near_constant),
                   sp.random(10000, 198, density=0.005, format="csr", random_state=0)]).tocsr()
    bound = X.shape[0] * X.shape[1] * 8 // 4  # a quarter of dense X
    pca = kl.PCA(3, method="covariance")
    assert _peak_bytes(lambda: pca.fit(X)) < bound
    # against the covariance of the explicitly centred, dense samples (after the measure)
    X_c = X.toarray() - X.toarray().mean(axis=0)
    reference = np.linalg.eigvalsh(X_c.T @ X_c / X.shape[0])[::-1][:3]
    np.testing.assert_allclose(pca.explained_variance_, reference, rtol=1e-10)


@pytest.mark.parametrize("solver", ["full", "covariance_eigh", "arpack", "randomized"])
def test_svd_solver_matches_full_and_sklearn(solver):
    # issue 35, item 13: PCA(svd_solver=..., random_state=...) raised TypeError. On digits
    # (1797 x 64), q = 5: every solver agrees with scikit-learn's PCA with the same solver
    # and seed (the same algorithm on the same numbers, the centred data scaled by a power
    # of two, exact: measured 0 to 5e-15), signs included, and with LAPACK's SVD ("full"):
    # ARPACK and the eigen-solver to round-off; the randomized SVD (10 oversamples, 7 power
    # iterations) to within its error factor (s_{q+11} / s_q)^(2 * 7 + 1) = 2.5e-5 on
    # these data (Halko, Martinsson and Tropp 2011, Cor. 10.10; measured 8e-6 on the
    # components, 1.3e-9 on the variances)
    from sklearn.datasets import load_digits

    X = load_digits().data
    n, q = X.shape[0], 5
    pca = kl.PCA(q, svd_solver=solver, random_state=0).fit(X)
    reference = SklearnPCA(q, svd_solver=solver, random_state=0).fit(X)
    np.testing.assert_allclose(pca.explained_variance_, reference.explained_variance_ * (n - 1) / n, rtol=1e-12)
    np.testing.assert_allclose(pca.components_, reference.components_, atol=1e-12)
    np.testing.assert_allclose(pca.transform(X), reference.transform(X), atol=1e-10)
    full = SklearnPCA(q, svd_solver="full").fit(X)
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    tolerance = (s[q + 10] / s[q - 1]) ** 15 if solver == "randomized" else 1e-12
    np.testing.assert_allclose(pca.explained_variance_, full.explained_variance_ * (n - 1) / n, rtol=tolerance)
    np.testing.assert_allclose(pca.components_, full.components_, atol=tolerance)
    assert pca.method_ == {"full": "svd", "covariance_eigh": "covariance"}.get(solver, solver)


def test_svd_solver_arpack_on_sparse_samples_matches_sklearn():
    # issue 35, item 13: ARPACK on the implicitly centred sparse X, scikit-learn's start vector
    import scipy.sparse as sp

    X = sp.random(300, 40, density=0.2, format="csr", random_state=0)
    pca = kl.PCA(4, svd_solver="arpack", random_state=3).fit(X)
    reference = SklearnPCA(4, svd_solver="arpack", random_state=3).fit(X)
    np.testing.assert_allclose(pca.singular_values_, reference.singular_values_, rtol=1e-12)
    np.testing.assert_allclose(pca.components_, reference.components_, atol=1e-12)


def test_copy_false_centres_in_place_and_copy_true_does_not():
    # issue 35, item 13: scikit-learn's meaning of copy=False: X may be overwritten
    X = load_iris().data
    kept = X.copy()
    expected = kl.PCA(2).fit_transform(X)
    np.testing.assert_array_equal(X, kept)  # copy=True (default) leaves X alone
    np.testing.assert_allclose(kl.PCA(2, copy=False).fit_transform(X), expected, atol=1e-12)
    assert not np.allclose(X, kept)  # centred (and scaled) in place
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    # whitened, and against scikit-learn's (whose whitening divides by n - 1: sqrt((n - 1) / n))
    X = kept.copy()
    Z = kl.PCA(2, whiten=True, copy=False).fit_transform(X)
    n = X.shape[0]
    np.testing.assert_allclose(Z * np.sqrt((n - 1) / n),
                               SklearnPCA(2, whiten=True, svd_solver="full").fit_transform(kept), atol=1e-12)


@pytest.mark.parametrize(
    ("params", "sparse", "error", "match"),
    [
        ({"svd_solver": "lobpcg"}, False, ValueError, r"svd_solver must be one of .*'lobpcg'"),
        ({"svd_solver": "full", "method": "gram"}, False, ValueError, r"svd_solver='full'.*method='gram'"),
        ({"svd_solver": "arpack"}, False, ValueError, r"svd_solver='arpack'.*n_components must be an int in \[1, 3\]"),
        ({"svd_solver": "arpack", "n_components": 4}, False, ValueError, r"in \[1, 3\].*got 4"),
        ({"svd_solver": "randomized", "n_components": 0.9}, False, ValueError, r"svd_solver='randomized'.*got 0.9"),
        ({"svd_solver": "randomized", "n_components": 2}, True, TypeError, r"svd_solver='randomized' needs a dense X"),
        ({"svd_solver": "full"}, True, TypeError, r"svd_solver='full' needs a dense X"),
    ],
)
def test_unsupported_svd_solver_settings_are_named(params, sparse, error, match):
    # issue 35, item 13: a clear error naming the unsupported value
    import scipy.sparse as sp

    X = load_iris().data
    with pytest.raises(error, match=match):
        kl.PCA(**params).fit(sp.csr_matrix(X) if sparse else X)


@pytest.mark.parametrize("method", ["covariance", "gram"])
def test_float32_sparse_columns_with_a_large_offset(method):
    # issue 35, item 6: in float32, 1e8 + N(0, 1) rounds to 1e8 (the spacing there is 8),
    # so two columns are constant; scipy's mean of a float32 sparse matrix, summed in
    # float32, came out 32 below 1e8, a false variance of 2 * 32^2 = 2048 on top of the
    # three real ones. Reference: scikit-learn's full SVD of the same float32 values in
    # float64; rtol 1e-5 is float32's precision of the result
    import scipy.sparse as sp

    X = _offset_sample(1e8, n=60, d=6, seed=1)
    X[:, 2:4] = X[:, 4:]  # two half-sparse columns beside two near-constant ones
    X = X[:, :4]
    X32 = sp.csr_matrix(X).astype(np.float32)
    X64 = X32.toarray().astype(np.float64)
    assert np.ptp(X64[:, :2]) == 0  # the offset columns are constant in float32
    pca = kl.PCA(method=method).fit(X32)
    reference = SklearnPCA(2, svd_solver="full").fit(X64)
    n = X.shape[0]
    assert pca.n_components_ == 2
    np.testing.assert_allclose(pca.explained_variance_, reference.explained_variance_ * (n - 1) / n, rtol=1e-5)
