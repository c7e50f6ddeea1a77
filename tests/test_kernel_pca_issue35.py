"""KernelPCA after issue 35 (items 2, 7, 8, 9, 11, 13): no silent answer from a
non-symmetric kernel matrix, the randomized solver on a kernel that is not PSD, an
underflowed kernel matrix named as such, a refit from a clean slate, and scikit-learn's
remove_zero_eig, copy_X and n_jobs. Checked against scikit-learn's KernelPCA and
derived identities (centring as H K H, eigenvalues of a scaled linear kernel)."""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import load_iris
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.preprocessing import KernelCenterer, StandardScaler

import kpca_lib as kl
from kpca_lib.kernels import NotPSDWarning
from test_pca import assert_equal_up_to_sign


@pytest.fixture(scope="module")
def iris():
    return load_iris().data


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(0)
    return rng.normal(size=(40, 3)) + np.repeat(rng.normal(scale=3.0, size=(4, 3)), 10, axis=0)


def centred(K):
    """H K H with H = I - 1 1^T / n, written out (independent of KernelCenterer)."""
    n = K.shape[0]
    H = np.eye(n) - np.full((n, n), 1.0 / n)
    return H @ K @ H


# item 2: a non-symmetric kernel matrix ------------------------------------------------------


def test_a_clearly_non_symmetric_precomputed_kernel_is_refused_with_its_asymmetry(blobs):
    rng = np.random.default_rng(1)
    K = kl.Gaussian(c=4.0)(blobs)
    K_bad = K * (1 + 0.05 * rng.uniform(-1, 1, K.shape))  # 5 % asymmetric, as in the issue
    K_c = centred(K_bad)
    asymmetry = np.abs(K_c - K_c.T).max() / np.abs(K_bad).max()
    assert asymmetry > 0.01
    with pytest.raises(ValueError, match=rf"not symmetric: .* = {asymmetry:.3g} \(above 1.49e-08"):
        kl.KernelPCA(3, kernel="precomputed").fit(K_bad)


def test_a_kernel_function_that_is_not_symmetric_is_refused_exact_and_nystroem(blobs):
    W = np.array([[1.0, 0.3, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # not symmetric

    def skewed(A, B):
        return (A @ W @ B.T + 10.0) ** 2

    with pytest.raises(ValueError, match="kernel matrix of <function .*skewed.* is not symmetric"):
        kl.KernelPCA(3, kernel=skewed).fit(blobs)
    with pytest.raises(ValueError, match="kernel matrix of <function .*skewed.* is not symmetric"):
        kl.KernelPCA(3, kernel=skewed, approximation="nystroem", n_landmarks=10, random_state=0).fit(blobs)


def test_round_off_asymmetry_is_averaged_away(blobs):
    rng = np.random.default_rng(2)
    K = kl.Gaussian(c=4.0)(blobs)
    noise = 1e-9 * rng.uniform(-1, 1, K.shape)  # below sqrt(eps) = 1.5e-8 relative
    K_noisy = K + noise
    ours = kl.KernelPCA(3, kernel="precomputed")
    Z_fit = ours.fit_transform(K_noisy)
    K_sym = (K_noisy + K_noisy.T) / 2
    theirs = SklearnKernelPCA(3, kernel="precomputed", eigen_solver="dense").fit(K_sym)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-12)
    assert_equal_up_to_sign(Z_fit, theirs.transform(K_sym), atol=1e-12)
    # transform centres the matrix as given: it agrees to the asymmetry's size
    assert np.abs(ours.transform(K_noisy) - Z_fit).max() < 1e-7 * np.abs(Z_fit).max()


def test_an_asymmetry_that_centring_removes_is_accepted_as_scikit_learn_accepts_it(blobs):
    K = kl.Gaussian(c=4.0)(blobs)
    u = np.linspace(0.0, 1.0, K.shape[0])
    K_shifted = K + np.outer(u, np.ones_like(u))  # u 1^T: not symmetric, same centred matrix
    ours = kl.KernelPCA(3, kernel="precomputed").fit(K_shifted)
    theirs = SklearnKernelPCA(3, kernel="precomputed").fit(K_shifted)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)


def test_float32_round_off_asymmetry_is_accepted(blobs):
    X32 = blobs.astype(np.float32)
    K32 = X32 @ X32.T  # float32 products: asymmetric at float32 round-off, if at all
    K32 = K32 + np.float32(1e-6) * np.triu(np.abs(K32), 1)  # well above float64's sqrt(eps)
    Z = kl.KernelPCA(2, kernel="precomputed").fit_transform(K32)
    assert Z.dtype == np.float32


# item 7: the randomized solver on a kernel that is not PSD ---------------------------------


@pytest.mark.filterwarnings("ignore:The centred kernel matrix of Sigmoid:kpca_lib.kernels.NotPSDWarning")
def test_randomized_solver_on_sigmoid_iris_finds_the_largest_algebraic_eigenvalues(iris):
    with pytest.warns(NotPSDWarning, match="largest in modulus: 2 of the 4 it found are negative"):
        randomized = kl.KernelPCA(4, kernel="sigmoid", eigen_solver="randomized").fit(iris)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotPSDWarning)
        dense = kl.KernelPCA(4, kernel="sigmoid", eigen_solver="dense").fit(iris)
    theirs = SklearnKernelPCA(4, kernel="sigmoid", eigen_solver="dense").fit(iris)
    np.testing.assert_allclose(randomized.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    np.testing.assert_array_equal(randomized.eigenvalues_, dense.eigenvalues_)
    assert_equal_up_to_sign(randomized.transform(iris[:9]), theirs.transform(iris[:9]), atol=1e-10)


def test_randomized_solver_on_a_psd_kernel_does_not_fall_back(iris):
    X = StandardScaler().fit_transform(iris)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = kl.KernelPCA(3, kernel="rbf", eigen_solver="randomized", random_state=0).fit(X)
    theirs = SklearnKernelPCA(3, kernel="rbf", eigen_solver="randomized", random_state=0).fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)


# item 8: an underflowed kernel matrix --------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: kl.KernelPCA(2, kernel="linear"),
    lambda: kl.KernelPCA(2, kernel=kl.Polynomial(degree=2, coef0=0.0)),
    lambda: kl.KernelPCA(2, kernel="linear", approximation="nystroem", n_landmarks=20, random_state=0),
], ids=["linear", "homogeneous-poly", "linear-nystroem"])
def test_an_underflowed_kernel_matrix_is_named_as_such(iris, make):
    scale = 1e-170 if "linear" in repr(make().kernel) else 1e-100  # poly: (1e-200)^2 underflows
    with pytest.raises(ValueError, match="underflowed: the samples differ.*multiply X by a constant s"):
        make().fit(iris * scale)
    with pytest.raises(ValueError, match="underflowed"):
        make().fit(sparse.csr_matrix(iris * scale))


def test_float32_samples_underflow_at_float32s_threshold(iris):
    # float32 kernels (scikit-learn keeps float32) underflow at 1e-38, not 1e-308
    with pytest.raises(ValueError, match="underflowed: .* below 9.86e-32, where float32"):
        kl.KernelPCA(2, kernel="linear").fit((iris * 1e-20).astype(np.float32))


def test_the_rescale_the_underflow_error_recommends_is_exact_for_the_linear_kernel(iris):
    # eigenvalues(s X) = s^2 eigenvalues(X), projections(s X) = s projections(X)
    s = 2.0**-300  # a power of two: the scaled kernel is the exact multiple, but above the threshold
    small = kl.KernelPCA(3, kernel="linear").fit(iris * s)
    plain = kl.KernelPCA(3, kernel="linear").fit(iris)
    np.testing.assert_allclose(small.eigenvalues_ / s**2, plain.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(small.transform(iris[:5] * s) / s, plain.transform(iris[:5]), rtol=1e-10)


def test_identical_samples_keep_the_same_point_error(iris):
    with pytest.raises(ValueError, match="all samples are the same point"):
        kl.KernelPCA(2, kernel="linear").fit(np.tile(iris[:1] * 1e-170, (5, 1)))
    with pytest.raises(ValueError, match="all samples are the same point"):
        kl.KernelPCA(2, kernel="precomputed").fit(np.zeros((5, 5)))


# items 9 and 11: a fit starts from a clean slate ----------------------------------------------


def assert_same_state(a, b, path="est"):
    """vars(a) equals vars(b): the same names, arrays equal, objects equal by their own vars."""
    if isinstance(a, np.ndarray) or sparse.issparse(a):
        assert type(a) is type(b) and a.shape == b.shape, path
        a, b = (a.toarray(), b.toarray()) if sparse.issparse(a) else (a, b)
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_state(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert sorted(a) == sorted(b), f"{path}: {sorted(set(a) ^ set(b))}"
        for key in a:
            assert_same_state(a[key], b[key], f"{path}.{key}")
    elif hasattr(a, "__dict__") and not callable(a) or isinstance(a, KernelCenterer):
        assert type(a) is type(b), path
        assert_same_state(vars(a), vars(b), path)
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} != {b!r}"


def fitted(params, X):
    return kl.KernelPCA(**params).fit(X)


SWITCHES = {
    "named kernel -> kernel object": ({"n_components": 2, "kernel": "rbf"},
                                      {"n_components": 2, "kernel": kl.Gaussian(c=3.0)}),
    "exact -> nystroem": ({"n_components": 2, "kernel": kl.Gaussian(c=3.0)},
                          {"n_components": 2, "kernel": kl.Gaussian(c=3.0), "approximation": "nystroem",
                           "n_landmarks": 20, "random_state": 0}),
    "nystroem -> exact": ({"n_components": 2, "approximation": "nystroem", "n_landmarks": 20, "random_state": 0},
                          {"n_components": 2}),
    "learned pre-image -> none": ({"n_components": 2, "fit_inverse_transform": True}, {"n_components": 2}),
    "precomputed -> kernel": ({"n_components": 2, "kernel": "precomputed"}, {"n_components": 2, "kernel": "linear"}),
    "kernel -> precomputed": ({"n_components": 2, "kernel": "linear"}, {"n_components": 2, "kernel": "precomputed"}),
}


@pytest.mark.parametrize("switch", SWITCHES)
def test_a_refit_after_a_configuration_switch_equals_a_fresh_fit(iris, switch):
    before, after = SWITCHES[switch]

    def data(params):
        return iris @ iris.T if params.get("kernel") == "precomputed" else iris

    est = fitted(before, data(before))
    defaults = kl.KernelPCA().get_params()
    est.set_params(**{name: defaults[name] for name in before if name not in after}, **after)
    est.fit(data(after))
    assert_same_state(vars(est), vars(fitted(after, data(after))))


def test_a_refit_on_an_ndarray_forgets_the_dataframe_feature_names(iris):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(iris, columns=[f"f{i}" for i in range(4)])
    est = kl.KernelPCA(2).fit(frame)
    assert list(est.feature_names_in_) == list(frame.columns)
    est.fit(iris)
    assert_same_state(vars(est), vars(kl.KernelPCA(2).fit(iris)))


def test_a_refit_on_a_dask_array_forgets_the_dataframe_feature_names(iris):
    pd = pytest.importorskip("pandas")
    da = pytest.importorskip("dask.array")
    import dask

    params = {"n_components": 2, "approximation": "nystroem", "n_landmarks": 20, "random_state": 0}
    frame = pd.DataFrame(iris, columns=[f"f{i}" for i in range(4)])
    X = da.from_array(iris, chunks=(50, 4))
    with dask.config.set(scheduler="synchronous"):
        est = kl.KernelPCA(**params).fit(frame).fit(X)
        fresh = kl.KernelPCA(**params).fit(X)
    assert not hasattr(est, "feature_names_in_")
    assert_same_state(vars(est), vars(fresh))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # before: "X does not have valid feature names"
        np.testing.assert_array_equal(est.transform(iris[:5]), fresh.transform(iris[:5]))
    # a DataFrame now meets the same answer as for a fresh Dask fit (scikit-learn's warning), not
    # "feature names should match"
    with pytest.warns(UserWarning, match="fitted without feature names"):
        Z = est.transform(frame.iloc[:5])
    np.testing.assert_array_equal(Z, fresh.transform(iris[:5]))


def test_a_failed_refit_leaves_no_stale_model(iris):
    est = kl.KernelPCA(2).fit(iris)
    with pytest.raises(ValueError):
        est.set_params(n_components=500).fit(iris)
    assert not hasattr(est, "alphas_") and not hasattr(est, "X_fit_")


# item 13: scikit-learn's remove_zero_eig, copy_X and n_jobs -----------------------------------


def test_remove_zero_eig_true_is_accepted_and_false_is_explained(iris):
    ours = kl.KernelPCA(2, kernel="linear", remove_zero_eig=True).fit(iris)
    theirs = SklearnKernelPCA(2, kernel="linear", remove_zero_eig=True).fit(iris)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    with pytest.raises(ValueError, match=r"remove_zero_eig must be True, got False: .* always dropped"):
        kl.KernelPCA(2, remove_zero_eig=False).fit(iris)


def test_copy_x_has_scikit_learns_meaning(iris):
    X = iris.copy()
    by_reference = kl.KernelPCA(2, kernel="linear", copy_X=False).fit(X)
    theirs = SklearnKernelPCA(2, kernel="linear", copy_X=False).fit(X)
    assert by_reference.X_fit_ is X and theirs.X_fit_ is X
    copied = kl.KernelPCA(2, kernel="linear", copy_X=True).fit(X)
    assert not np.shares_memory(copied.X_fit_, X)
    with pytest.raises(TypeError, match="copy_X must be True or False, got 'yes'"):
        kl.KernelPCA(copy_X="yes").fit(X)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_n_jobs_computes_the_same_kernel_as_scikit_learn(iris, kernel):
    X = StandardScaler().fit_transform(iris)
    ours = kl.KernelPCA(3, kernel=kernel, n_jobs=2).fit(X)
    one_job = kl.KernelPCA(3, kernel=kernel).fit(X)
    theirs = SklearnKernelPCA(3, kernel=kernel, n_jobs=2).fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(ours.eigenvalues_, one_job.eigenvalues_, rtol=1e-12)
    assert_equal_up_to_sign(ours.transform(X[:7]), theirs.transform(X[:7]), atol=1e-9)
    Z = kl.KernelPCA(3, kernel=kernel, n_jobs=-1, approximation="nystroem", n_landmarks=30,
                     random_state=0).fit_transform(X)
    Z_one = kl.KernelPCA(3, kernel=kernel, approximation="nystroem", n_landmarks=30,
                         random_state=0).fit_transform(X)
    np.testing.assert_allclose(Z, Z_one, atol=1e-10)


@pytest.mark.parametrize(("n_jobs", "error", "match"), [
    (0, ValueError, "n_jobs must not be 0"),
    (1.5, TypeError, "n_jobs must be an integer or None, got 1.5"),
    (True, TypeError, "n_jobs must be an integer or None, got True"),
])
def test_bad_n_jobs(iris, n_jobs, error, match):
    with pytest.raises(error, match=match):
        kl.KernelPCA(n_jobs=n_jobs).fit(iris)


def test_the_new_parameters_are_parameters(iris):
    est = kl.KernelPCA(remove_zero_eig=True, copy_X=False, n_jobs=2)
    params = est.get_params()
    assert (params["remove_zero_eig"], params["copy_X"], params["n_jobs"]) == (True, False, 2)
    assert est.set_params(n_jobs=None).n_jobs is None
