"""The simple de-noisers kernel PCA is compared with, against independent facts."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import kpca_lib as kl
from kpca_lib import denoising_baselines as baselines
from kpca_lib.datasets import denoising_toy
from kpca_lib.preimage import gaussian_fixed_point


@pytest.fixture(scope="module")
def toy():
    return denoising_toy(sigma=0.1, n_train_per_cluster=20, n_test_per_cluster=5, random_state=3)


def test_knn_with_every_point_is_the_training_mean(toy):
    n = toy.X_train.shape[0]
    np.testing.assert_allclose(
        baselines.knn_average(toy.X_train, toy.X_test, n_neighbors=n), baselines.training_mean(toy.X_train, toy.X_test)
    )
    np.testing.assert_allclose(baselines.training_mean(toy.X_train, toy.X_test[:2]), [toy.X_train.mean(axis=0)] * 2)


def test_nearest_point_and_knn_average_by_brute_force():
    rng = np.random.default_rng(0)
    X_fit, X = rng.normal(size=(7, 3)), rng.normal(size=(4, 3))
    for k in (1, 3):
        expected = []
        for x in X:
            distances = [np.sqrt(np.sum((x - x_i) ** 2)) for x_i in X_fit]
            expected.append(np.mean([X_fit[i] for i in np.argsort(distances)[:k]], axis=0))
        np.testing.assert_allclose(baselines.knn_average(X_fit, X, n_neighbors=k), expected)
    np.testing.assert_allclose(baselines.nearest_training_point(X_fit, X), baselines.knn_average(X_fit, X, 1))


def test_mean_shift_is_the_fixed_point_with_uniform_weights(toy):
    c = 0.04
    n = toy.X_train.shape[0]
    uniform = np.full((toy.X_test.shape[0], n), 1.0 / n)
    fixed_point = gaussian_fixed_point(toy.X_train, uniform, c, toy.X_test, max_iter=500, tol=1e-12)
    assert fixed_point.converged.all()
    Z = baselines.mean_shift(toy.X_train, toy.X_test, c, max_iter=500, tol=1e-12)
    np.testing.assert_allclose(Z, fixed_point.Z, atol=1e-9)
    # and it is a fixed point of the kernel-weighted mean
    K = kl.Gaussian(c=c)(Z, toy.X_train)
    np.testing.assert_allclose(K @ toy.X_train / K.sum(axis=1, keepdims=True), Z, atol=1e-9)


def test_mean_shift_from_far_away_does_not_underflow(toy):
    far = np.array([[50.0, 50.0]])
    assert np.all(kl.Gaussian(c=0.01)(far, toy.X_train) == 0)
    Z = baselines.mean_shift(toy.X_train, far, 0.01)
    assert np.isfinite(Z).all() and np.linalg.norm(Z - toy.X_train, axis=1).min() < 0.5


def test_mean_shift_warns_when_it_runs_out_of_iterations(toy):
    with pytest.warns(ConvergenceWarning, match="still moving after max_iter=1"):
        baselines.mean_shift(toy.X_train, toy.X_test, 0.04, max_iter=1)


def test_linear_pca_denoise_is_the_projection_on_the_leading_directions():
    rng = np.random.default_rng(1)
    X_fit = rng.normal(size=(40, 3)) * [3.0, 1.0, 0.2] + [5.0, -1.0, 2.0]
    X = rng.normal(size=(5, 3))
    mean = X_fit.mean(axis=0)
    _, _, Vt = np.linalg.svd(X_fit - mean)
    for q in range(4):
        W = Vt[:q]
        np.testing.assert_allclose(baselines.linear_pca_denoise(X_fit, X, q), mean + (X - mean) @ W.T @ W, atol=1e-12)
    np.testing.assert_allclose(baselines.linear_pca_denoise(X_fit, X, 3), X, atol=1e-12)


def test_one_standard_error_choice_takes_the_simplest_setting_near_the_best():
    rng = np.random.default_rng(2)
    base = rng.uniform(1.0, 2.0, size=50)
    errors = np.array([base + 1.0, base + 0.01 * rng.standard_normal(50), base, base + 0.5])
    assert baselines.one_standard_error_choice(errors) == 1          # within noise of the best
    errors[1] += 0.2                                                   # now clearly worse
    assert baselines.one_standard_error_choice(errors) == 2


def test_linear_pca_best_q_finds_the_dimension_of_the_signal():
    rng = np.random.default_rng(3)
    plane = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])

    def noisy(A):
        return A + 0.2 * rng.standard_normal(A.shape)

    train, val = rng.uniform(-3, 3, (300, 2)) @ plane, rng.uniform(-3, 3, (200, 2)) @ plane
    assert baselines.linear_pca_best_q(noisy(train), noisy(val), noisy(val)) == 2
    # pure noise around one point: nothing to keep but the mean
    blob, centre = noisy(np.zeros((300, 4))), np.zeros((200, 4))
    assert baselines.linear_pca_best_q(blob, noisy(centre), noisy(centre)) == 0


def test_knn_best_k_never_averages_across_separated_clusters():
    # two clusters of 100 points: k = 150 mixes them, k = 50 averages within one, k = 1 keeps the noise
    rng = np.random.default_rng(4)
    centres = np.repeat([[0.0, 0.0], [5.0, 5.0]], 100, axis=0)

    def noisy(A):
        return A + 0.3 * rng.standard_normal(A.shape)

    val = centres[::2]
    assert baselines.knn_best_k(noisy(centres), noisy(val), noisy(val), k_values=(150, 50, 1)) == 50


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda X: baselines.training_mean(X, X[:, :1]), ValueError, "X must have 2 features"),
        (lambda X: baselines.knn_average(X, X, n_neighbors=0), ValueError, "n_neighbors"),
        (lambda X: baselines.knn_average(X, X, n_neighbors=6), ValueError, "n_neighbors"),
        (lambda X: baselines.mean_shift(X, X, c=0.0), ValueError, "c"),
        (lambda X: baselines.mean_shift(X, X, c=1.0, max_iter=-1), ValueError, "max_iter"),
        (lambda X: baselines.linear_pca_denoise(X, X, 3), ValueError, "n_components"),
        (lambda X: baselines.linear_pca_best_q(X, X, X[:2]), ValueError, "X_val_second"),
        (lambda X: baselines.linear_pca_best_q(X, X, X, q_values=[1, 0]), ValueError, "increasing"),
        (lambda X: baselines.one_standard_error_choice([[1.0], [2.0]]), ValueError, "at least 2"),
        (lambda X: baselines.knn_best_k(X, X, X, k_values=(1, 3)), ValueError, "decreasing"),
    ],
)
def test_bad_input(call, error, match):
    X = np.arange(10.0).reshape(5, 2)
    with pytest.raises(error, match=match), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        call(X)


def test_mean_shift_history_holds_every_shorter_run(toy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        Z, history = baselines.mean_shift(toy.X_train, toy.X_test, 0.04, max_iter=12, return_history=True)
        np.testing.assert_array_equal(history[-1], Z)
        np.testing.assert_array_equal(history[0], toy.X_test)
        for t in (1, 5):
            np.testing.assert_array_equal(history[t], baselines.mean_shift(toy.X_train, toy.X_test, 0.04, max_iter=t))
