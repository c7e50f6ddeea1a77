"""KernelPCA: agreement with PCA and scikit-learn, centring, validity."""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sklearn.datasets import make_moons
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

import kpca_lib as kl
from strategies import data_matrices
from test_pca import assert_equal_up_to_sign
from test_sklearn_ported_kernel_pca import NOT_PSD


@pytest.fixture(scope="module")
def moons():
    X, _ = make_moons(n_samples=120, noise=0.05, random_state=0)
    X_new, _ = make_moons(n_samples=30, noise=0.05, random_state=1)
    return X, X_new


def test_linear_kernel_equals_pca_up_to_sign():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5)) * [5.0, 3.0, 2.0, 1.0, 0.5]
    X_new = rng.normal(size=(10, 5))
    kpca = kl.KernelPCA(n_components=3, kernel=kl.Linear()).fit(X)
    pca = kl.PCA(n_components=3).fit(X)
    assert_equal_up_to_sign(kpca.transform(X), pca.transform(X))
    assert_equal_up_to_sign(kpca.transform(X_new), pca.transform(X_new))
    # the eigenvalues of the centred Gram matrix are n lambda_k
    np.testing.assert_allclose(kpca.eigenvalues_, X.shape[0] * pca.explained_variance_)


@pytest.mark.parametrize("eigen_solver", ["dense", "arpack"])
@pytest.mark.parametrize("c", [0.1, 1.0])
def test_gaussian_kernel_equals_sklearn_rbf(moons, eigen_solver, c):
    X, X_new = moons
    ours = kl.KernelPCA(n_components=4, kernel=kl.Gaussian(c=c), eigen_solver=eigen_solver).fit(X)
    theirs = SklearnKernelPCA(n_components=4, kernel="rbf", gamma=1.0 / c).fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-9)
    assert_equal_up_to_sign(ours.transform(X), theirs.transform(X))
    assert_equal_up_to_sign(ours.transform(X_new), theirs.transform(X_new))
    assert_equal_up_to_sign(ours.fit_transform(X), theirs.transform(X))


def test_solvers_agree_and_auto_uses_arpack_for_large_n():
    X = np.random.default_rng(1).uniform(-1, 1, size=(300, 3))
    dense = kl.KernelPCA(5, kernel=kl.Gaussian(c=0.5), eigen_solver="dense").fit(X)
    auto = kl.KernelPCA(5, kernel=kl.Gaussian(c=0.5)).fit(X)
    np.testing.assert_allclose(auto.eigenvalues_, dense.eigenvalues_, rtol=1e-10)
    # deterministic signs: the same alphas from either solver
    np.testing.assert_allclose(auto.alphas_, dense.alphas_, atol=1e-9)


def test_custom_callable_kernel_equals_builtin(moons):
    X, X_new = moons

    def gaussian(A, B):
        sq = np.sum(A**2, 1)[:, None] + np.sum(B**2, 1)[None, :] - 2 * A @ B.T
        return np.exp(-sq / 0.5)

    custom = kl.KernelPCA(3, kernel=gaussian).fit(X)
    builtin = kl.KernelPCA(3, kernel=kl.Gaussian(c=0.5)).fit(X)
    np.testing.assert_allclose(custom.transform(X_new), builtin.transform(X_new), atol=1e-8)


def test_components_have_unit_norm_in_feature_space(moons):
    X, _ = moons
    kpca = kl.KernelPCA(5, kernel=kl.Gaussian(c=0.3)).fit(X)
    K_c = kpca.centerer_.transform(kl.Gaussian(c=0.3)(X))
    # ||V_k||^2 = alpha_k^T K_c alpha_k, and the V_k are orthonormal
    np.testing.assert_allclose(kpca.alphas_.T @ K_c @ kpca.alphas_, np.eye(5), atol=1e-10)


@given(X=data_matrices(min_samples=3, max_samples=10, max_features=3), c=st.floats(0.2, 20))
def test_centred_kernel_rows_and_columns_sum_to_zero(X, c):
    kernel = kl.Gaussian(c=c)
    kpca = kl.KernelPCA(n_components=1, kernel=kernel, eigen_solver="dense")
    try:
        kpca.fit(X)
    except ValueError:  # e.g. all samples equal: no positive eigenvalue
        return
    K = kernel(X)
    K_c = kpca.centerer_.transform(K)
    n = X.shape[0]
    one = np.full((n, n), 1.0 / n)
    np.testing.assert_allclose(K_c, K - one @ K - K @ one + one @ K @ one, atol=1e-12)
    np.testing.assert_allclose(K_c.sum(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(K_c.sum(axis=1), 0.0, atol=1e-10)
    # centred features have zero mean, so the projections do too; the
    # eigenvector carries round-off of order n eps / mu_1 (K's entries are
    # at most 1), so the check needs mu_1 well above that
    assume(kpca.eigenvalues_[0] > 1e-6)
    np.testing.assert_allclose(kpca.fit_transform(X).sum(axis=0), 0.0, atol=1e-9)


def test_test_kernel_centring_is_consistent_with_training(moons):
    X, _ = moons
    kpca = kl.KernelPCA(4, kernel=kl.Gaussian(c=0.5))
    np.testing.assert_allclose(kpca.fit_transform(X), kpca.transform(X), atol=1e-10)


def test_refit_is_deterministic_and_changing_X_after_fit_changes_nothing(moons):
    X, X_new = moons
    X = X.copy()
    a = kl.KernelPCA(3, kernel=kl.Gaussian(c=0.5)).fit(X)
    before = a.transform(X_new)
    b = kl.KernelPCA(3, kernel=kl.Gaussian(c=0.5)).fit(X)
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    X[:] = 0.0
    np.testing.assert_array_equal(a.transform(X_new), before)


def test_sigmoid_kernel_warns_that_it_is_not_psd():
    X = np.random.default_rng(0).normal(size=(40, 3))
    with pytest.warns(kl.NotPSDWarning, match="significant negative eigenvalues"):
        kl.KernelPCA(2, kernel=kl.Sigmoid(gamma=1.0, coef0=1.0)).fit(X)


def test_psd_kernel_does_not_warn(moons):
    X, _ = moons
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kl.KernelPCA(3, kernel=kl.Polynomial(degree=2)).fit(X)
        kl.KernelPCA(2, kernel=lambda A, B: A @ B.T).fit(X)  # checked, and PSD


def test_components_beyond_the_positive_eigenvalues_are_refused():
    X = np.random.default_rng(0).normal(size=(40, 3))
    # a rank-deficient (linear) kernel: only 3 positive eigenvalues
    with pytest.raises(ValueError, match="only 3 positive eigenvalues"):
        kl.KernelPCA(4, kernel=kl.Linear()).fit(X)
    assert kl.KernelPCA(kernel=kl.Linear()).fit(X).n_components_ == 3


@pytest.mark.parametrize(
    ("X", "kwargs", "error", "match"),
    [
        (np.array([[np.nan, 1.0], [1.0, 2.0]]), {}, ValueError, "NaN"),
        (np.array([[np.inf, 1.0], [1.0, 2.0]]), {}, ValueError, "infinity"),
        (np.empty((0, 2)), {}, ValueError, "0 sample"),
        (np.ones((1, 2)), {}, ValueError, "1 sample"),
        (np.eye(4), {"n_components": 0}, ValueError, "n_components must be at least 1"),
        (np.eye(4), {"n_components": 4}, ValueError, "larger than the rank allows"),
        (np.eye(4), {"kernel": "gaussian"}, TypeError, "kernel must be a callable.*'rbf'"),
        (np.eye(4), {"kernel": 2.0}, TypeError, "kernel must be a callable"),
        (np.eye(4), {"kernel": "rbf", "gamma": -1.0}, ValueError, "gamma must be > 0"),
        (np.eye(4), {"kernel": "rbf", "kernel_params": {"c": 1.0}}, ValueError, "kernel_params are"),
        (np.eye(4), {"kernel": lambda A, B: A @ B.T, "kernel_params": [1.0]}, TypeError,
         "kernel_params must be a dict"),
        (np.eye(4), {"eigen_solver": "randomized", "iterated_power": -1}, ValueError,
         "iterated_power must be at least 0"),
        (np.eye(4), {"eigen_solver": "lobpcg"}, ValueError, "eigen_solver must be one of"),
        (np.ones((4, 2)), {}, ValueError, "no positive eigenvalue"),
        (np.eye(4), {"kernel": lambda A, B: np.full((len(A), len(B)), np.nan)}, ValueError, "NaN"),
        (np.eye(4), {"kernel": lambda A, B: np.ones((2, 2))}, ValueError, "shape"),
    ],
)
def test_bad_input_at_fit(X, kwargs, error, match):
    with pytest.raises(error, match=match):
        kl.KernelPCA(**kwargs).fit(X)


def test_bad_input_after_fit(moons):
    X, _ = moons
    kpca = kl.KernelPCA(2, kernel=kl.Gaussian(c=0.5)).fit(X)
    with pytest.raises(ValueError, match="2 features"):
        kpca.transform(np.ones((3, 5)))
    with pytest.raises(ValueError, match="larger than the rank allows"):
        kpca.denoise(X, n_components=3)
    with pytest.raises(TypeError, match="needs the Gaussian kernel"):
        kl.KernelPCA(2, kernel=kl.Linear()).fit(X).denoise(X)


# Regressions of issue 12: hard inputs


def test_a_callable_returning_a_stored_matrix_is_left_unchanged(moons):
    # the natural way to pass a precomputed kernel as a callable: look it up
    X, X_new = moons
    stored = kl.Gaussian(c=0.5)(X)
    before = stored.copy()

    def lookup(A, B):
        if np.array_equal(A, X) and np.array_equal(B, X):
            return stored
        return kl.Gaussian(c=0.5)(A, B)

    kpca = kl.KernelPCA(3, kernel=lookup).fit(X)
    np.testing.assert_array_equal(stored, before)
    # and it gives what the kernel itself gives
    reference = kl.KernelPCA(3, kernel=kl.Gaussian(c=0.5)).fit(X)
    np.testing.assert_allclose(kpca.transform(X_new), reference.transform(X_new), atol=1e-10)


def test_transform_does_not_change_a_returned_matrix(moons):
    X, X_new = moons
    K_new = kl.Gaussian(c=0.5)(X_new, X)
    before = K_new.copy()
    kernel = lambda A, B: K_new if A.shape[0] == len(X_new) else kl.Gaussian(c=0.5)(A, B)  # noqa: E731
    kl.KernelPCA(3, kernel=kernel).fit(X).transform(X_new)
    np.testing.assert_array_equal(K_new, before)


@pytest.fixture
def pandas_frames(moons):
    pd = pytest.importorskip("pandas")
    X, X_new = moons
    columns = ["x1", "x2"]
    train = pd.DataFrame(X, columns=columns, index=[f"train{i}" for i in range(len(X))])
    test = pd.DataFrame(X_new, columns=columns, index=100 + 3 * np.arange(len(X_new)))
    return train, test


@pytest.mark.parametrize("how", ["global", "estimator"])
@pytest.mark.parametrize("eigen_solver", ["dense", "arpack"])
def test_pandas_output_keeps_the_index_and_denoise_works(pandas_frames, how, eigen_solver):
    from sklearn import config_context

    train, test = pandas_frames
    plain = kl.KernelPCA(3, kernel=kl.Gaussian(c=0.5), eigen_solver=eigen_solver).fit(train.to_numpy())
    kpca = kl.KernelPCA(3, kernel=kl.Gaussian(c=0.5), eigen_solver=eigen_solver)
    with config_context(transform_output="pandas" if how == "global" else "default"):
        if how == "estimator":
            kpca.set_output(transform="pandas")
        Z_train = kpca.fit_transform(train)
        Z = kpca.transform(test)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            denoised = kpca.denoise(test, max_iter=5)
        # the centring inside is never a DataFrame (an n x n one slows arpack)
        assert isinstance(kpca.centerer_.transform(kl.Gaussian(c=0.5)(test, train)), np.ndarray)
    assert list(Z.index) == list(test.index)
    assert list(Z_train.index) == list(train.index)
    assert list(Z.columns) == ["kernelpca0", "kernelpca1", "kernelpca2"]
    np.testing.assert_allclose(Z.to_numpy(), plain.transform(test.to_numpy()), atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        np.testing.assert_allclose(denoised, plain.denoise(test.to_numpy(), max_iter=5), atol=1e-12)


class _TanhByHand:
    """A tanh kernel (not PSD) whose is_psd flag the test chooses."""

    def __init__(self, flag):
        self.is_psd = flag

    def __call__(self, A, B):
        return np.tanh(A @ B.T + 1.0)


def test_a_numpy_true_psd_flag_counts_as_true():
    # np.bool_(True) is not `True`: an `is True` test ran the full check
    X = np.random.default_rng(0).normal(size=(40, 3))
    assert kl.Polynomial(coef0=np.float64(1.0)).is_psd is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kl.KernelPCA(2, kernel=_TanhByHand(np.bool_(True))).fit(X)  # trusted: no check
    with pytest.warns(kl.NotPSDWarning):
        kl.KernelPCA(2, kernel=_TanhByHand(np.bool_(False))).fit(X)


def test_the_base_class_does_not_claim_psd():
    class TanhKernel(kl.Kernel):
        def _gram(self, X, Y):
            return np.tanh(X @ (X if Y is None else Y).T + 1.0)

    assert not TanhKernel().is_psd
    X = np.random.default_rng(0).normal(size=(40, 3))
    with pytest.warns(kl.NotPSDWarning, match="significant negative eigenvalues"):
        kl.KernelPCA(2, kernel=TanhKernel()).fit(X)


@pytest.fixture
def dense_eigensolver_calls(monkeypatch):
    """Record every dense eigenvalue call (O(n^3)) that kpca_lib makes."""
    import importlib

    import scipy.linalg

    calls = []
    for module_name in ("kpca_lib.kernel_pca", "kpca_lib._linalg", "kpca_lib.kernels"):
        module = importlib.import_module(module_name)
        for name in ("eigh", "eigvalsh"):
            original = getattr(scipy.linalg, name)

            def spy(A, *args, _original=original, **kwargs):
                calls.append(np.shape(A))
                return _original(A, *args, **kwargs)

            monkeypatch.setattr(module, name, spy, raising=False)
    return calls


@pytest.mark.parametrize(
    "kernel",
    [lambda A, B: kl.Gaussian(c=0.5)(A, B), kl.Polynomial(degree=2, coef0=np.float64(1.0)), _TanhByHand(None)],
    ids=["callable", "polynomial-numpy-coef0", "tanh-unknown"],
)
def test_the_psd_check_of_an_unknown_kernel_is_not_a_full_eigendecomposition(kernel, dense_eigensolver_calls):
    X = np.random.default_rng(0).uniform(-1, 1, size=(300, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kl.NotPSDWarning)
        kl.KernelPCA(2, kernel=kernel, eigen_solver="arpack").fit(X)
    # arpack computes the components; an n x n dense call is the old full check
    assert (300, 300) not in dense_eigensolver_calls


def test_psd_check_finds_negative_eigenvalues_beyond_the_computed_ones():
    # the isomap kernel of scikit-learn's tests: eigenvalues
    # 52.72, 7.65, 7.65, 5.02, 0, 0, -6.13, -15.11; q = 2 computes none of the negative ones
    K = np.array(NOT_PSD)
    with pytest.warns(kl.NotPSDWarning, match="at most -"):
        kl.KernelPCA(2, kernel="precomputed").fit(K)
    # the bound it reports is a true bound on the smallest eigenvalue
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kl.KernelPCA(2, kernel="precomputed").fit(K)
    bound = float(str(caught[0].message).split("at most ")[1].split(" ")[0])
    from sklearn.preprocessing import KernelCenterer

    assert np.linalg.eigvalsh(KernelCenterer().fit_transform(K))[0] <= bound < 0


def test_arpack_non_convergence_is_reported_and_answered_by_the_dense_solver():
    X = np.random.default_rng(1).uniform(-1, 1, size=(300, 3))
    dense = kl.KernelPCA(5, kernel=kl.Gaussian(c=0.5), eigen_solver="dense").fit(X)
    with pytest.warns(ConvergenceWarning, match=r"eigen_solver='arpack' did not converge.*max_iter=1"):
        arpack = kl.KernelPCA(5, kernel=kl.Gaussian(c=0.5), eigen_solver="arpack", max_iter=1).fit(X)
    np.testing.assert_allclose(arpack.eigenvalues_, dense.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(arpack.alphas_, dense.alphas_, atol=1e-10)


# What a scikit-learn user expects (issue 12)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # Perceptron(max_iter=5)
def test_grid_search_over_the_kernel_width_in_a_pipeline():
    from sklearn.datasets import make_circles
    from sklearn.linear_model import Perceptron
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    X, y = make_circles(n_samples=200, factor=0.3, noise=0.05, random_state=0)
    default = kl.KernelPCA(n_components=2)
    pipeline = make_pipeline(default, Perceptron(max_iter=5))
    search = GridSearchCV(pipeline, {"kernelpca__kernel__c": [0.02, 0.5, 100.0]}, cv=3).fit(X, y)
    assert search.best_params_ == {"kernelpca__kernel__c": 0.5}
    assert search.best_score_ == 1.0
    assert search.best_estimator_[0].kernel == kl.Gaussian(c=0.5)
    # the kernel of the estimator in the pipeline, and the shared default, are untouched
    assert default.kernel is None and kl.KernelPCA().kernel is None
    assert search.best_estimator_[0].kernel_ == kl.Gaussian(c=0.5)


def test_set_params_of_the_kernel_changes_a_copy():
    shared = kl.Gaussian(c=1.0)
    a, b = kl.KernelPCA(kernel=shared), kl.KernelPCA(kernel=shared)
    a.set_params(kernel__c=0.3, n_components=2)
    assert a.kernel == kl.Gaussian(c=0.3) and a.n_components == 2
    assert b.kernel is shared and shared == kl.Gaussian(c=1.0)
    assert a.get_params()["kernel__c"] == 0.3
    with pytest.raises(ValueError, match="Invalid parameter 'width'"):
        a.set_params(kernel__width=1.0)
    with pytest.raises(ValueError, match="has no parameters to set"):
        kl.KernelPCA(kernel=lambda A, B: A @ B.T).set_params(kernel__c=1.0)


def test_clone_copies_the_kernel():
    from sklearn.base import clone

    kpca = kl.KernelPCA(3, kernel=kl.Polynomial(degree=3, coef0=0.5), alpha=0.1)
    copy = clone(kpca)
    assert copy.kernel == kpca.kernel and copy.kernel is not kpca.kernel
    assert repr(copy) == repr(kpca)


@pytest.mark.parametrize("eigen_solver", ["dense", "arpack"])
def test_precomputed_kernel_equals_the_builtin_kernel(moons, eigen_solver):
    X, X_new = moons
    kernel = kl.Gaussian(c=0.3)
    builtin = kl.KernelPCA(4, kernel=kernel, eigen_solver=eigen_solver).fit(X)
    K = kernel(X)
    K_copy = K.copy()
    precomputed = kl.KernelPCA(4, kernel="precomputed", eigen_solver=eigen_solver).fit(K)
    np.testing.assert_array_equal(K, K_copy)  # the caller's matrix is not centred in place
    np.testing.assert_allclose(precomputed.eigenvalues_, builtin.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(precomputed.transform(kernel(X_new, X)), builtin.transform(X_new), atol=1e-10)
    np.testing.assert_allclose(precomputed.fit_transform(K), builtin.fit_transform(X), atol=1e-10)
    assert precomputed.__sklearn_tags__().input_tags.pairwise
    assert not hasattr(precomputed, "X_fit_")


def test_precomputed_kernel_needs_a_square_matrix_and_no_denoising(moons):
    X, _ = moons
    with pytest.raises(ValueError, match="must be square"):
        kl.KernelPCA(2, kernel="precomputed").fit(np.ones((5, 4)))
    with pytest.raises(ValueError, match="Cannot fit_inverse_transform with a precomputed kernel"):
        kl.KernelPCA(2, kernel="precomputed", fit_inverse_transform=True).fit(np.eye(5))
    kpca = kl.KernelPCA(2, kernel="precomputed").fit(kl.Gaussian()(X))
    with pytest.raises(TypeError, match="needs the Gaussian kernel"):
        kpca.denoise(kl.Gaussian()(X))


@pytest.mark.parametrize(
    ("kernel", "sklearn_kwargs"),
    [
        (kl.Gaussian(c=0.5), {"kernel": "rbf", "gamma": 2.0}),
        (kl.Polynomial(degree=3, coef0=1.0), {"kernel": "poly", "degree": 3, "gamma": 1.0, "coef0": 1.0}),
        (kl.Linear(), {"kernel": "linear"}),
    ],
    ids=["gaussian", "polynomial", "linear"],
)
@pytest.mark.parametrize("alpha", [1e-3, 1.0])
def test_inverse_transform_equals_sklearn(moons, kernel, sklearn_kwargs, alpha):
    X, X_new = moons
    q = 2 if isinstance(kernel, kl.Linear) else 5
    ours = kl.KernelPCA(q, kernel=kernel, fit_inverse_transform=True, alpha=alpha).fit(X)
    theirs = SklearnKernelPCA(q, fit_inverse_transform=True, alpha=alpha, **sklearn_kwargs).fit(X)
    # the regression kernel on projections does not see the components' signs
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(X_new)),
                               theirs.inverse_transform(theirs.transform(X_new)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.denoise(X_new, method="learned"),
                               ours.inverse_transform(ours.transform(X_new)), atol=1e-12)


def test_learned_denoising_with_fewer_components_fits_the_map_for_them(moons):
    X, X_new = moons
    kernel = kl.Gaussian(c=0.5)
    full = kl.KernelPCA(6, kernel=kernel, fit_inverse_transform=True, alpha=0.01).fit(X)
    three = kl.KernelPCA(3, kernel=kernel, fit_inverse_transform=True, alpha=0.01).fit(X)
    np.testing.assert_allclose(full.denoise(X_new, n_components=3, method="learned"),
                               three.denoise(X_new, method="learned"), atol=1e-8)


def test_learned_and_fixed_point_denoising_through_one_api():
    from kpca_lib.datasets import denoising_toy

    data = denoising_toy(sigma=0.1, random_state=0)
    kpca = kl.KernelPCA(10, kernel=kl.Gaussian(c=0.04), fit_inverse_transform=True, alpha=0.1).fit(data.X_train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        results = {method: kpca.denoise(data.X_test, method=method) for method in ("fixed_point", "learned")}

    def mse(Z):
        return np.mean(np.sum((Z - data.X_test_clean) ** 2, axis=1))

    # both de-noise, and the learned map, trained on noisy points, smooths
    # less (chapter 5 prints 0.0033 and 0.0122 against 0.0178)
    assert mse(results["fixed_point"]) < 0.5 * mse(results["learned"])
    assert mse(results["learned"]) < 0.8 * mse(data.X_test)


def test_learned_preimage_needs_the_fitted_map(moons):
    from sklearn.exceptions import NotFittedError

    X, _ = moons
    kpca = kl.KernelPCA(2, kernel=kl.Gaussian(c=0.5)).fit(X)
    with pytest.raises(NotFittedError, match="fit_inverse_transform=True"):
        kpca.inverse_transform(np.zeros((1, 2)))
    with pytest.raises(NotFittedError, match="fit_inverse_transform=True"):
        kpca.denoise(X, method="learned")
    learned = kl.KernelPCA(2, kernel=kl.Gaussian(c=0.5), fit_inverse_transform=True).fit(X)
    with pytest.raises(ValueError, match="method must be one of"):
        learned.denoise(X, method="mika")
    with pytest.raises(ValueError, match="return_result and return_history describe the fixed-point"):
        learned.denoise(X, method="learned", return_result=True)
    with pytest.raises(ValueError, match=r"Z must have shape \(n_samples, 2\)"):
        learned.inverse_transform(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        kl.KernelPCA(2, fit_inverse_transform=True, alpha=-1.0).fit(X)
    with pytest.raises(ValueError, match="increase alpha"):
        # a linear kernel on 2 projections is singular: no ridge, no inverse
        kl.KernelPCA(2, kernel=kl.Linear(), fit_inverse_transform=True, alpha=0.0).fit(X)


@pytest.mark.parametrize("kernel", [kl.Gaussian(c=0.5), "precomputed"], ids=["gaussian", "precomputed"])
def test_float32_stays_float32(moons, kernel):
    X, X_new = moons
    if kernel == "precomputed":
        X, X_new = kl.Gaussian(c=0.5)(X), kl.Gaussian(c=0.5)(X_new, X)
    X32, X_new32 = X.astype(np.float32), X_new.astype(np.float32)
    kpca = kl.KernelPCA(3, kernel=kernel, fit_inverse_transform=kernel != "precomputed")
    assert kpca.fit_transform(X32).dtype == np.float32
    assert kpca.transform(X_new32).dtype == np.float32
    assert kpca.transform(X_new).dtype == np.float64
    reference = kl.KernelPCA(3, kernel=kernel).fit(X)
    np.testing.assert_allclose(kpca.transform(X_new32), reference.transform(X_new), atol=1e-5)
    if kernel != "precomputed":
        assert kpca.inverse_transform(kpca.transform(X_new32)).dtype == np.float32
        assert kpca.denoise(X_new32, max_iter=200).dtype == np.float32


# Issue 22, defects 1 and 2: no shared default kernel; a fit keeps its own kernel


def test_the_default_kernel_is_never_shared():
    # defect 1: KernelPCA().kernel.set_params(c=7.0) changed every later
    # KernelPCA(), whose default was one shared Gaussian object
    first = kl.KernelPCA(2)
    assert first.kernel is None  # resolved at fit, like scikit-learn's defaults
    first.set_params(kernel__c=7.0)
    assert first.kernel == kl.Gaussian(c=7.0)
    later = kl.KernelPCA(2)
    assert later.kernel is None
    X = np.random.default_rng(0).normal(size=(20, 2))
    assert later.fit(X).kernel_ == kl.Gaussian(c=1.0)
    assert later.kernel_ is not kl.KernelPCA(2).fit(X).kernel_


@pytest.mark.parametrize("approximation", [None, "nystroem"])
@pytest.mark.parametrize("change", ["the kernel object", "set_params"])
def test_a_fitted_model_does_not_read_the_live_kernel(moons, approximation, change):
    # defect 2: changing the kernel after fit changed transform by up to 0.5
    X = moons[0][:60]
    kernel = kl.Gaussian(c=2.0)
    options = dict(approximation=approximation, n_landmarks=30, random_state=0) if approximation else {}
    model = kl.KernelPCA(2, kernel=kernel, **options).fit(X)
    Z, X_denoised = model.transform(X), model.denoise(X[:5], max_iter=20)
    if change == "the kernel object":
        kernel.set_params(c=30.0)
    else:
        model.set_params(kernel__c=30.0)
    assert model.kernel_ == kl.Gaussian(c=2.0)
    np.testing.assert_array_equal(model.transform(X), Z)
    np.testing.assert_array_equal(model.denoise(X[:5], max_iter=20), X_denoised)
    # a refit takes the new width
    assert model.fit(X).kernel_ == kl.Gaussian(c=30.0)
    assert np.abs(model.transform(X) - Z).max() > 1e-3


def test_inverse_transform_uses_the_fitted_kernel(moons):
    X = moons[0][:60]
    kernel = kl.Polynomial(degree=2)
    model = kl.KernelPCA(2, kernel=kernel, fit_inverse_transform=True, alpha=0.1).fit(X)
    Z = model.transform(X[:5])
    X_hat = model.inverse_transform(Z)
    kernel.set_params(degree=5, coef0=3.0)
    np.testing.assert_array_equal(model.inverse_transform(Z), X_hat)
    np.testing.assert_array_equal(model.denoise(X[:5], method="learned"), X_hat)


# Issue 22, defect 7: small de-noising products run BLAS on one thread


def blas_threads():
    from threadpoolctl import threadpool_info

    return {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}


@pytest.mark.parametrize("method", ["fixed_point", "learned"])
def test_small_denoising_runs_blas_on_one_thread(moons, monkeypatch, method):
    import kpca_lib.denoising as denoising
    from kpca_lib import preimage

    X = moons[0]
    model = kl.KernelPCA(2, kernel=kl.Gaussian(c=0.5), fit_inverse_transform=True).fit(X)
    seen = []
    target, name = (preimage, "gaussian_fixed_point") if method == "fixed_point" else (denoising, "learned_preimage")
    real = getattr(target, name)

    def recording(*args, **kwargs):
        seen.append(blas_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, recording)
    # two threads outside, whatever the test session gave this process (conftest.py)
    with threadpool_limits(limits=2, user_api="blas"):
        outside = blas_threads()
        assert outside == {2}
        model.denoise(X[:10], method=method)
        assert blas_threads() == outside  # the limit ends with the call
    assert seen == [{1}]


def test_large_products_keep_every_blas_thread():
    from kpca_lib.denoising import SMALL_PRODUCT, small_product_threads

    with threadpool_limits(limits=2, user_api="blas"):
        outside = blas_threads()
        assert outside == {2}
        with small_product_threads(SMALL_PRODUCT):
            assert blas_threads() == outside
        with small_product_threads(SMALL_PRODUCT - 1):
            assert blas_threads() == {1}
