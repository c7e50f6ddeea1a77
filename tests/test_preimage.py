"""Pre-images: the weights gamma, the fixed-point iteration, de-noising."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import kpca_lib as kl
from kpca_lib.datasets import denoising_toy
from kpca_lib.preimage import gamma_weights, gaussian_fixed_point


def quiet(function, *args, **kwargs):
    """Call function with the ConvergenceWarning of short runs silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return function(*args, **kwargs)


def test_gamma_with_centring_correction_gives_the_pca_reconstruction():
    # with the linear kernel, feature space is input space, so
    # sum_i gamma_i x_i must be the PCA reconstruction mean + sum_k y_k w_k
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)) + [3.0, -2.0, 1.0, 5.0]  # far from the origin
    X_new = rng.normal(size=(6, 4)) + [3.0, -2.0, 1.0, 5.0]
    kpca = kl.KernelPCA(2, kernel=kl.Linear()).fit(X)
    pca = kl.PCA(2).fit(X)
    Y = kpca.transform(X_new)
    gamma = gamma_weights(kpca.alphas_, Y)
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0)
    reconstruction = pca.inverse_transform(pca.transform(X_new))
    np.testing.assert_allclose(gamma @ X, reconstruction, atol=1e-10)
    # without the correction the mean is lost: the check above can fail
    uncorrected = Y @ kpca.alphas_.T
    assert np.abs(uncorrected @ X - reconstruction).max() > 1.0


def test_centring_correction_of_a_centred_fit_is_one_over_n():
    # the columns of alphas are eigenvectors of the centred kernel matrix, which
    # has the constant vector in its null space: each sums to 0, so the
    # correction (1/n)(1 - sum_j sum_k y_k alpha_j^k) is exactly 1/n, and rho(z)
    # is the component term plus the density (1/n) sum_i k(z, x_i)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3)) + 4.0
    kernel = kl.Gaussian(c=2.0)
    kpca = kl.KernelPCA(6, kernel=kernel).fit(X)
    np.testing.assert_allclose(kpca.alphas_.sum(axis=0), 0.0, atol=1e-12)
    Y = kpca.transform(rng.normal(size=(7, 3)) + 4.0)
    gamma = gamma_weights(kpca.alphas_, Y)
    np.testing.assert_allclose(gamma - Y @ kpca.alphas_.T, 1 / 40, rtol=0, atol=1e-14)
    Z = rng.normal(size=(7, 3)) + 4.0
    K_z = kernel(Z, X)
    rho = np.einsum("ij,ij->i", gamma, K_z)
    component = np.einsum("ik,ik->i", K_z @ kpca.alphas_, Y)
    np.testing.assert_allclose(rho, component + K_z.mean(axis=1), atol=1e-13)


def test_preimages_of_training_points_with_all_components_are_the_points():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(60, 2))
    kpca = kl.KernelPCA(kernel=kl.Gaussian(c=0.5)).fit(X)  # every positive eigenvalue
    result = kpca.denoise(X, return_result=True)
    assert result.converged.all()
    np.testing.assert_allclose(result.Z, X, atol=1e-4)
    # from a perturbed start too: phi(x_i) projects onto itself
    Z = kpca.denoise(X, Z0=X + rng.normal(scale=0.05, size=X.shape))
    np.testing.assert_allclose(Z, X, atol=1e-4)


def mean_squared_distance(A, B):
    return np.mean(np.sum((A - B) ** 2, axis=1))


@pytest.mark.parametrize("n_features", [2, 10])
def test_denoising_the_toy_beats_linear_pca_at_small_sigma(n_features):
    sigma = 0.05
    data = denoising_toy(n_features=n_features, sigma=sigma, random_state=0)
    q = 1 if n_features == 2 else 4
    c = 2 * n_features * sigma**2  # Mika et al.'s width, in the book's notation
    kpca = kl.KernelPCA(q, kernel=kl.Gaussian(c=c)).fit(data.X_train)
    Z_kernel = quiet(kpca.denoise, data.X_test)
    pca = kl.PCA(q).fit(data.X_train)
    Z_linear = pca.inverse_transform(pca.transform(data.X_test))
    ratio = mean_squared_distance(Z_linear, data.X_test_clean) / mean_squared_distance(
        Z_kernel, data.X_test_clean
    )
    # Mika et al. (1999), Table 1, report ratios in the hundreds to thousands here
    assert ratio > 100
    # and kernel PCA de-noises: closer to the centres than the noisy points
    assert mean_squared_distance(Z_kernel, data.X_test_clean) < 0.1 * mean_squared_distance(
        data.X_test, data.X_test_clean
    )


@pytest.fixture(scope="module")
def toy_problem():
    data = denoising_toy(n_clusters=5, n_features=3, sigma=0.2, n_train_per_cluster=30,
                         n_test_per_cluster=8, random_state=3)
    kpca = kl.KernelPCA(4, kernel=kl.Gaussian(c=0.5)).fit(data.X_train)
    gamma = gamma_weights(kpca.alphas_, kpca.transform(data.X_test))
    return data.X_train, gamma, 0.5, data.X_test


def one_step(X_fit, gamma_row, c, z):
    """One fixed-point step for one point, written from the formula."""
    w = gamma_row * np.exp(-np.sum((X_fit - z) ** 2, axis=1) / c)
    return w @ X_fit / w.sum()


def test_vectorised_iteration_equals_point_by_point(toy_problem):
    X_fit, gamma, c, Z0 = toy_problem
    together = quiet(gaussian_fixed_point, X_fit, gamma, c, Z0, max_iter=50, tol=1e-8)
    for j in range(Z0.shape[0]):
        alone = quiet(gaussian_fixed_point, X_fit, gamma[j : j + 1], c, Z0[j : j + 1], max_iter=50, tol=1e-8)
        np.testing.assert_allclose(together.Z[j], alone.Z[0], atol=1e-12)
        assert together.n_iter[j] == alone.n_iter[0]
        assert together.converged[j] == alone.converged[0]


def test_iterates_follow_the_fixed_point_formula(toy_problem):
    X_fit, gamma, c, Z0 = toy_problem
    result = quiet(gaussian_fixed_point, X_fit, gamma, c, Z0, max_iter=3, tol=0.0, return_history=True)
    assert result.Z_history.shape == (4,) + Z0.shape
    assert result.rho_history.shape == (4, Z0.shape[0])
    np.testing.assert_array_equal(result.Z_history[0], Z0)
    np.testing.assert_array_equal(result.Z_history[-1], result.Z)
    for t in range(3):
        for j in range(Z0.shape[0]):
            expected = one_step(X_fit, gamma[j], c, result.Z_history[t, j])
            np.testing.assert_allclose(result.Z_history[t + 1, j], expected, atol=1e-12)
    rho0 = np.sum(gamma * np.exp(-((Z0[:, None, :] - X_fit[None]) ** 2).sum(-1) / c), axis=1)
    np.testing.assert_allclose(result.rho_history[0], rho0)


def test_denoise_records_the_history_on_request():
    data = denoising_toy(n_clusters=3, sigma=0.1, n_train_per_cluster=20, n_test_per_cluster=4)
    kpca = kl.KernelPCA(3, kernel=kl.Gaussian(c=0.04)).fit(data.X_train)
    result = kpca.denoise(data.X_test, max_iter=40, return_history=True)
    assert result.Z_history.shape[1:] == data.X_test.shape
    np.testing.assert_array_equal(result.Z_history[0], data.X_test)
    np.testing.assert_array_equal(result.Z_history[-1], result.Z)
    np.testing.assert_array_equal(result.Z, kpca.denoise(data.X_test, max_iter=40))


def test_converged_points_are_fixed_points(toy_problem):
    X_fit, gamma, c, Z0 = toy_problem
    result = gaussian_fixed_point(X_fit, gamma, c, Z0, max_iter=500, tol=1e-10)
    assert result.converged.all()
    for j in range(Z0.shape[0]):
        np.testing.assert_allclose(one_step(X_fit, gamma[j], c, result.Z[j]), result.Z[j], atol=1e-8)


def test_zero_iterations_return_the_starts(toy_problem):
    X_fit, gamma, c, Z0 = toy_problem
    with pytest.warns(ConvergenceWarning, match=r"reached max_iter=0"):
        result = gaussian_fixed_point(X_fit, gamma, c, Z0, max_iter=0, return_history=True)
    np.testing.assert_array_equal(result.Z, Z0)
    assert not result.converged.any() and (result.n_iter == 0).all()
    assert result.Z_history.shape == (1, *Z0.shape)
    # rho at the starts, sum_i gamma_i k(z, x_i), from its definition
    K = np.exp(-np.sum((Z0[:, None] - X_fit[None]) ** 2, axis=2) / c)
    np.testing.assert_allclose(result.rho_history[0], np.sum(gamma * K, axis=1), rtol=1e-10)


def test_max_iter_is_reported_as_not_converged(toy_problem):
    X_fit, gamma, c, Z0 = toy_problem
    with pytest.warns(ConvergenceWarning, match=r"reached max_iter=2"):
        result = gaussian_fixed_point(X_fit, gamma, c, Z0, max_iter=2, tol=0.0)
    assert not result.converged.any()
    assert (result.n_iter == 2).all()


@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_vanishing_denominator_restarts_and_can_then_converge(random_state):
    # gamma = (1/2, -1/2) on x = -1, 1: at z = 0 the two terms cancel exactly
    X_fit = np.array([[-1.0], [1.0]])
    gamma = np.array([[0.5, -0.5]])
    result = gaussian_fixed_point(
        X_fit, gamma, 1.0, np.array([[0.0]]), max_iter=500, random_state=random_state
    )
    assert result.n_restarts[0] == 1
    assert result.converged[0]
    # it stopped at a stationary point of rho, away from the cancellation
    np.testing.assert_allclose(one_step(X_fit, gamma[0], 1.0, result.Z[0]), result.Z[0], atol=1e-5)
    assert abs(result.Z[0, 0]) > 0.5


def test_start_far_from_the_data_still_converges():
    # every k(z, x_i) underflows to 0 in floating point, but only their
    # ratios matter: the iteration moves to the data and converges
    X_fit = np.array([[0.0], [1.0]])
    gamma = np.array([[0.5, 0.5]])
    assert np.all(kl.Gaussian(c=1.0)(np.array([[1e3]]), X_fit) == 0.0)
    result = gaussian_fixed_point(X_fit, gamma, 1.0, np.array([[1e3]]), max_iter=1000)
    assert result.converged[0] and result.n_restarts[0] == 0
    np.testing.assert_allclose(result.Z, [[0.5]], atol=1e-6)


def test_a_denominator_that_always_vanishes_is_reported_not_looped_on():
    X_fit = np.array([[0.0], [1.0]])
    gamma = np.array([[0.0, 0.0], [0.5, 0.5]])  # no weight at all on the first point
    start = np.array([[0.2], [0.9]])
    with pytest.warns(ConvergenceWarning, match="1 lost their denominator after 3 restarts"):
        result = gaussian_fixed_point(X_fit, gamma, 1.0, start, max_iter=1000, max_restarts=3)
    assert not result.converged[0] and result.converged[1]
    assert result.n_restarts[0] == 3
    assert result.n_iter[0] == 4  # the first try and three restarts, not 1000
    np.testing.assert_array_equal(result.Z[0], start[0])
    assert np.all(np.isfinite(result.Z))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"c": 0.0}, ValueError, "c must be > 0"),
        ({"max_iter": -1}, ValueError, "max_iter must be at least 0"),
        ({"max_iter": 2.5}, TypeError, "max_iter must be an integer"),
        ({"tol": -1.0}, ValueError, "tol must be >= 0"),
        ({"max_restarts": -1}, ValueError, "max_restarts must be at least 0"),
        ({"gamma": np.ones((2, 3))}, ValueError, "gamma must have shape"),
        ({"Z0": np.ones((1, 2))}, ValueError, "Z0 must have 1 features"),
        ({"Z0": np.array([[np.nan]])}, ValueError, "NaN"),
        ({"gamma": np.array([[np.inf, 1.0]])}, ValueError, "infinity"),
    ],
)
def test_bad_input(kwargs, error, match):
    arguments = {"X_fit": np.array([[0.0], [1.0]]), "gamma": np.array([[0.5, 0.5]]), "c": 1.0, "Z0": np.array([[0.3]])}
    arguments.update(kwargs)
    with pytest.raises(error, match=match):
        gaussian_fixed_point(**arguments)


def test_gamma_weights_bad_input():
    with pytest.raises(ValueError, match="one column per component"):
        gamma_weights(np.ones((4, 2)), np.ones((3, 3)))


# Regressions of issue 12: far from the origin, and the objective's path


@pytest.fixture(scope="module")
def three_clusters():
    data = denoising_toy(n_clusters=3, sigma=0.1, random_state=0)
    c = 0.01
    kpca = kl.KernelPCA(3, kernel=kl.Gaussian(c=c)).fit(data.X_train)
    gamma = gamma_weights(kpca.alphas_, kpca.transform(data.X_test))
    return data, gamma, c


def test_the_iteration_is_invariant_to_a_shift(three_clusters):
    # z -> z + s, x_i -> x_i + s leaves every step unchanged; expanding
    # ||z - x_i||^2 about the origin lost that 1e5 away (88 % converged, in
    # twice the iterations)
    data, gamma, c = three_clusters
    here = gaussian_fixed_point(data.X_train, gamma, c, data.X_test)
    shift = np.array([1e5, -3e4])
    there = gaussian_fixed_point(data.X_train + shift, gamma, c, data.X_test + shift)
    assert here.converged.all()
    np.testing.assert_array_equal(there.converged, here.converged)
    np.testing.assert_array_equal(there.n_iter, here.n_iter)
    np.testing.assert_allclose(there.Z - shift, here.Z, atol=1e-9)


def test_denoise_is_invariant_to_a_shift_of_the_data(three_clusters):
    # the Gaussian kernel itself is computed about the data's mean
    data, _, c = three_clusters
    shift = np.array([1e5, -3e4])
    here = kl.KernelPCA(3, kernel=kl.Gaussian(c=c)).fit(data.X_train)
    there = kl.KernelPCA(3, kernel=kl.Gaussian(c=c)).fit(data.X_train + shift)
    np.testing.assert_allclose(there.eigenvalues_, here.eigenvalues_, rtol=1e-9)
    result_here = here.denoise(data.X_test, return_result=True)
    result_there = there.denoise(data.X_test + shift, return_result=True)
    np.testing.assert_array_equal(result_there.converged, result_here.converged)
    np.testing.assert_allclose(result_there.Z - shift, result_here.Z, atol=1e-8)


def test_rho_can_decrease_when_weights_have_both_signs():
    # the fixed point climbs rho only for non-negative weights (it is then
    # the mean-shift iteration); kernel PCA's weights have both signs
    X_fit = np.array([[-1.0], [0.0], [1.0]])
    gamma = np.array([[-0.25, 2.4, -1.15]])
    result = quiet(gaussian_fixed_point, X_fit, gamma, 1.0, np.array([[0.6]]), max_iter=3, tol=0.0,
                   max_restarts=0, return_history=True)
    assert result.rho_history[1, 0] < result.rho_history[0, 0] - 0.1


def test_rho_never_decreases_when_weights_are_non_negative():
    rng = np.random.default_rng(0)
    X_fit = rng.normal(size=(30, 2))
    gamma = rng.uniform(0, 1, size=(10, 30))
    gamma /= gamma.sum(axis=1, keepdims=True)
    result = quiet(gaussian_fixed_point, X_fit, gamma, 0.5, rng.normal(size=(10, 2)) * 2, max_iter=20,
                   tol=0.0, return_history=True)
    assert np.all(np.diff(result.rho_history, axis=0) >= -1e-12)


# Issue 35, item 10: denoise checks its starts Z0 before any work, and names them


@pytest.mark.parametrize(
    "make_Z0, error, match",
    [
        (lambda X: X[:-1], ValueError, r"Z0 must have the shape of X, \(n_samples, n_features\) = \(12, 2\).*\(11, 2\)"),
        (lambda X: np.c_[X, X[:, :1]], ValueError, r"Z0 must have the shape of X.*= \(12, 2\).*\(12, 3\)"),
        (lambda X: X[0], ValueError, r"Z0 must have the shape of X.*\(2,\)"),
        (lambda X: np.where(np.arange(12)[:, None] == 3, np.nan, X), ValueError, "Z0 has 2 NaN or infinite"),
        (lambda X: np.where(np.arange(12)[:, None] == 5, np.inf, X), ValueError, "Z0 has 2 NaN or infinite"),
        (lambda X: X.astype(str), TypeError, "Z0 must be an array of real numbers"),
    ],
)
def test_denoise_checks_the_starts(make_Z0, error, match):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(30, 2))
    kpca = kl.KernelPCA(4, kernel=kl.Gaussian(c=0.5)).fit(X)
    with pytest.raises(error, match=match):
        kpca.denoise(X[:12], Z0=make_Z0(X[:12]))


def test_denoise_takes_starts_of_any_real_dtype():
    # a list, float32 or int starts: the same iteration as from float64 ones
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(30, 2))
    kpca = kl.KernelPCA(4, kernel=kl.Gaussian(c=0.5)).fit(X)
    starts = np.round(X[:5] * 4)
    expected = kpca.denoise(X[:5], Z0=starts)
    np.testing.assert_array_equal(kpca.denoise(X[:5], Z0=starts.astype(int).tolist()), expected)
