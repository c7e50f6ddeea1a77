"""Chapter 5's cluster baselines and the gradient (and regularised) pre-image, against independent facts."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.exceptions import ConvergenceWarning

import kpca_lib as kl
from kpca_lib import denoising_baselines as baselines
from kpca_lib.datasets import denoising_toy
from kpca_lib.preimage import gamma_weights, gaussian_fixed_point, gradient_preimage


@pytest.fixture(scope="module")
def separated():
    # three tight clusters far apart: every clustering recovers them
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    labels = np.repeat(np.arange(3), 40)
    X_fit = centres[labels] + 0.2 * rng.standard_normal((120, 2))
    X = centres[[0, 1, 2, 1]] + 0.2 * rng.standard_normal((4, 2))
    group_means = np.array([X_fit[labels == j].mean(axis=0) for j in range(3)])
    return X_fit, X, group_means[[0, 1, 2, 1]]


def test_kmeans_and_mixture_give_the_group_means_of_separated_clusters(separated):
    X_fit, X, expected = separated
    np.testing.assert_allclose(baselines.kmeans_denoise(X_fit, X, 3), expected, atol=1e-10)
    # the posterior is 0/1 this far apart, and the mixture's means are the group means
    np.testing.assert_allclose(baselines.gaussian_mixture_denoise(X_fit, X, 3), expected, atol=1e-6)


def test_one_cluster_is_the_training_mean(separated):
    X_fit, X, _ = separated
    for denoiser in (baselines.kmeans_denoise, baselines.gaussian_mixture_denoise):
        np.testing.assert_allclose(denoiser(X_fit, X, 1), baselines.training_mean(X_fit, X), atol=1e-10)


def test_mixture_is_soft_between_overlapping_components():
    # a point half-way between two equal overlapping clusters: the posterior mean lies between
    rng = np.random.default_rng(1)
    X_fit = np.vstack([rng.normal(-1, 0.8, (300, 1)), rng.normal(1, 0.8, (300, 1))])
    z = baselines.gaussian_mixture_denoise(X_fit, [[0.0]], 2)[0, 0]
    hard = baselines.kmeans_denoise(X_fit, [[0.0]], 2)[0, 0]
    assert abs(z) < 0.5 * abs(hard)


def test_cluster_best_k_finds_the_number_of_clusters(separated):
    X_fit, _, _ = separated
    rng = np.random.default_rng(2)
    clean = np.repeat(np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]]), 10, axis=0)
    first, second = (clean + 0.2 * rng.standard_normal(clean.shape) for _ in range(2))
    # fewer clusters than three merge two of them: far worse; more only split
    assert baselines.cluster_best_k(X_fit, first, second, k_values=(1, 2, 3, 6, 12)) == 3
    assert baselines.cluster_best_k(X_fit, first, second, k_values=(1, 2, 3, 6), soft=True) == 3


@pytest.mark.parametrize(
    "call, error, phrase",
    [
        (lambda: baselines.kmeans_denoise([[0.0], [1.0]], [[0.0]], 3), ValueError, "n_clusters"),
        (lambda: baselines.kmeans_denoise([[0.0], [1.0]], [[0.0]], 1.5), TypeError, "n_clusters"),
        (lambda: baselines.gaussian_mixture_denoise([[0.0], [1.0]], [[0.0, 1.0]], 1), ValueError, "features"),
        (lambda: baselines.cluster_best_k([[0.0], [1.0]], [[0.0], [1.0]], [[0.0]]), ValueError, "X_val_second"),
        (lambda: baselines.cluster_best_k([[0.0], [1.0]], [[0.0], [1.0]], [[0.0], [1.0]], k_values=()),
         ValueError, "k_values"),
    ],
)
def test_cluster_baselines_bad_input(call, error, phrase):
    with pytest.raises(error, match=phrase):
        call()


@pytest.fixture(scope="module")
def fitted():
    data = denoising_toy(sigma=0.1, n_train_per_cluster=30, n_test_per_cluster=2, random_state=4)
    c = 0.04
    kpca = kl.KernelPCA(n_components=10, kernel=kl.Gaussian(c=c)).fit(data.X_train)
    gamma = gamma_weights(kpca.alphas_, kpca.transform(data.X_test))
    return data, c, gamma


def rho(X_fit, gamma, c, Z):
    return np.sum(gamma * kl.Gaussian(c=c)(Z, X_fit), axis=1)


def test_gradient_preimage_reaches_the_fixed_points_stationary_point(fitted):
    data, c, gamma = fitted
    fixed = gaussian_fixed_point(data.X_train, gamma, c, Z0=data.X_test, max_iter=2000, tol=1e-12)
    assert fixed.converged.all()
    Z = gradient_preimage(data.X_train, gamma, c, data.X_test)
    # both methods stop at a stationary point of rho; from the same starts, mostly the same one
    same = np.linalg.norm(Z - fixed.Z, axis=1) < 1e-5
    assert same.mean() > 0.9
    # and the line search only goes up rho: never below its start
    assert np.all(rho(data.X_train, gamma, c, Z) >= rho(data.X_train, gamma, c, data.X_test) - 1e-12)


def test_regularised_preimage_satisfies_its_fixed_point_equation(fitted):
    data, c, gamma = fitted
    penalty = 0.5
    Z = gradient_preimage(data.X_train, gamma, c, data.X_test, penalty=penalty)
    W = gamma * kl.Gaussian(c=c)(Z, data.X_train)
    # derived by setting the gradient of -2 rho + penalty ||z - x||^2 to zero
    expected = (2 / c * W @ data.X_train + penalty * data.X_test) / (2 / c * W.sum(axis=1, keepdims=True) + penalty)
    np.testing.assert_allclose(Z, expected, atol=1e-6)


def test_regularised_preimage_limits_and_one_dimension():
    X_fit = np.array([[0.0], [1.0]])
    gamma = np.array([[0.5, 0.5]])
    # a huge penalty keeps the anchor; none gives the mode of rho, found independently
    np.testing.assert_allclose(gradient_preimage(X_fit, gamma, 0.3, [[0.9]], penalty=1e8), [[0.9]], atol=1e-6)
    best = minimize_scalar(lambda z: -np.sum(gamma[0] * np.exp(-(z - X_fit[:, 0]) ** 2 / 0.3)) + 0.05 * (z - 0.9) ** 2,
                           bounds=(-1, 2), method="bounded", options={"xatol": 1e-10})
    np.testing.assert_allclose(gradient_preimage(X_fit, gamma, 0.3, [[0.9]], penalty=0.1), [[best.x]], atol=1e-5)


@pytest.mark.parametrize(
    "kwargs, error, phrase",
    [
        (dict(c=0.0), ValueError, "c"),
        (dict(penalty=-1.0), ValueError, "penalty"),
        (dict(penalty=np.nan), ValueError, "penalty"),
        (dict(Z0=[[0.0, 1.0]]), ValueError, "Z0"),
        (dict(gamma=[[1.0, 0.0, 0.0]]), ValueError, "gamma"),
        (dict(anchor=[[0.0], [1.0]]), ValueError, "anchor"),
        (dict(max_iter=0), ValueError, "max_iter"),
    ],
)
def test_gradient_preimage_bad_input(kwargs, error, phrase):
    arguments = dict(X_fit=[[0.0], [1.0]], gamma=[[0.5, 0.5]], c=1.0, Z0=[[0.2]])
    arguments.update(kwargs)
    with pytest.raises(error, match=phrase):
        gradient_preimage(**arguments)


def test_gradient_preimage_warns_when_cut_short(fitted):
    data, c, gamma = fitted
    with pytest.warns(ConvergenceWarning, match="L-BFGS"):
        gradient_preimage(data.X_train, gamma, c, data.X_test, max_iter=1)


def test_monte_carlo_sure_of_a_linear_shrinker_is_unbiased():
    # f(x) = a x + (1 - a) m: div f = a d exactly, and the finite difference is exact for linear f
    rng = np.random.default_rng(5)
    d, sigma, a, m = 4, 0.3, 0.6, np.full(4, 0.2)
    clean = rng.normal(size=(20000, d))
    X = clean + sigma * rng.standard_normal(clean.shape)
    shrink = lambda A: a * A + (1 - a) * m
    sure = baselines.monte_carlo_sure(shrink, X, sigma)
    # for linear f the probe's divergence is exactly b' (a I) b = a ||b||^2, with b the
    # function's own probes (seed 0)
    b = np.random.default_rng(0).standard_normal(X.shape)
    exact = np.sum((shrink(X) - X) ** 2, axis=1) - d * sigma**2 + 2 * sigma**2 * a * np.sum(b**2, axis=1)
    np.testing.assert_allclose(sure, exact, rtol=1e-6, atol=1e-9)
    true_error = np.sum((shrink(X) - clean) ** 2, axis=1)
    # unbiased: the means agree within a few standard errors
    gap = sure.mean() - true_error.mean()
    assert abs(gap) < 4 * (sure - true_error).std() / np.sqrt(len(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_monte_carlo_sure_tracks_the_error_of_mean_shift():
    # a non-linear de-noiser: SURE's mean is close to the clean error
    data = denoising_toy(sigma=0.1, n_train_per_cluster=30, n_test_per_cluster=60, random_state=6)
    f = lambda A: baselines.mean_shift(data.X_train, A, 0.04, max_iter=1)
    sure = baselines.monte_carlo_sure(f, data.X_test, 0.1)
    true_error = np.sum((f(data.X_test) - data.X_test_clean) ** 2, axis=1)
    assert abs(sure.mean() - true_error.mean()) < 0.2 * true_error.mean()


@pytest.mark.parametrize(
    "kwargs, error, phrase",
    [
        (dict(sigma=0.0), ValueError, "sigma"),
        (dict(epsilon=-1.0), ValueError, "epsilon"),
        (dict(denoiser=3), TypeError, "denoiser"),
        (dict(denoiser=lambda A: A[:, :1]), ValueError, "denoiser"),
    ],
)
def test_monte_carlo_sure_bad_input(kwargs, error, phrase):
    arguments = dict(denoiser=lambda A: A, X=[[0.0, 1.0], [2.0, 3.0]], sigma=0.5)
    arguments.update(kwargs)
    with pytest.raises(error, match=phrase):
        baselines.monte_carlo_sure(**arguments)


def test_denoising_curve_lies_on_its_curve_in_a_random_plane():
    from kpca_lib.datasets import denoising_curve

    data = denoising_curve(n_features=10, sigma=0.2, random_state=3)
    # the frame is orthonormal, and the clean points lie in its plane on the unit circle
    np.testing.assert_allclose(data.frame.T @ data.frame, np.eye(2), atol=1e-12)
    in_plane = data.X_test_clean @ data.frame
    np.testing.assert_allclose(in_plane @ data.frame.T, data.X_test_clean, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(in_plane, axis=1), 1.0)
    # the noise has variance sigma^2 in every coordinate
    noise = data.X_train - data.X_train_clean
    assert abs(noise.var() - 0.04) < 0.004
    flower = denoising_curve(sigma=0.0, shape="flower", random_state=1)
    radius = np.linalg.norm(flower.X_train, axis=1)
    angle = np.arctan2(flower.X_train @ flower.frame[:, 1], flower.X_train @ flower.frame[:, 0])
    np.testing.assert_allclose(radius, 1 + 0.3 * np.cos(5 * angle), atol=1e-12)


@pytest.mark.parametrize(
    "kwargs, error, phrase",
    [(dict(n_features=1), ValueError, "n_features"), (dict(sigma=-1.0), ValueError, "sigma"),
     (dict(shape="square"), ValueError, "shape"), (dict(n_train=0), ValueError, "n_train")],
)
def test_denoising_curve_bad_input(kwargs, error, phrase):
    from kpca_lib.datasets import denoising_curve

    with pytest.raises(error, match=phrase):
        denoising_curve(**kwargs)
