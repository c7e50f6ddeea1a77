"""KernelPCA: agreement with PCA and scikit-learn, centring, validity."""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sklearn.datasets import make_moons
from sklearn.decomposition import KernelPCA as SklearnKernelPCA

import kpca_lib as kl
from strategies import data_matrices
from test_pca import assert_equal_up_to_sign


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
        (np.eye(4), {"kernel": "rbf"}, TypeError, "kernel must be a callable"),
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
