"""Tests of the de-noising widget's computing (kpca_lib.explorers)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import PCA, Gaussian, KernelPCA, datasets, preimage
from kpca_lib import denoising_baselines as baselines
from kpca_lib.explorers import ToyDenoiser, mean_squared_distance
from kpca_lib.explorers.denoising_baselines import K_VALUES, KWOK_TSANG_NEIGHBORS, validation_noise

SIGMA, C = 0.1, 0.04  # c = 2 d sigma^2 with d = 2


@pytest.fixture(scope="module")
def explorer():
    return ToyDenoiser(max_components=4, n_starts=3)


@pytest.fixture(scope="module")
def direct():
    """The same computation written out with the library's public API."""
    data = datasets.denoising_toy(sigma=SIGMA, random_state=0)
    kpca = KernelPCA(n_components=4, kernel=Gaussian(c=C)).fit(data.X_train)
    return data, kpca


def test_kernel_denoising_equals_direct_kernel_pca(explorer, direct):
    data, kpca = direct
    for q, max_iter in [(4, 30), (2, 30), (1, 5)]:
        state = explorer.compute(SIGMA, C, n_components=q, max_iter=max_iter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            result = kpca.denoise(data.X_test, n_components=q, max_iter=max_iter, return_result=True)
        np.testing.assert_allclose(state.Z_kernel, result.Z, rtol=1e-10, atol=1e-12)
        assert state.converged_fraction == pytest.approx(np.mean(result.converged))
        np.testing.assert_array_equal(state.X_test, data.X_test)


def test_baselines_are_the_library_baselines_at_held_out_settings(explorer, direct):
    # the widget's baselines: linear PCA at its held-out q, the kNN average at its held-out k,
    # mean shift with the same c and iterations, each as kpca_lib.denoising_baselines computes it
    data, _ = direct
    state = explorer.compute(SIGMA, C, n_components=1, max_iter=10)
    clean = np.repeat(data.centres, 11, axis=0)
    noise = validation_noise(0, 11, 2)
    first, second = clean + SIGMA * noise[0], clean + SIGMA * noise[1]
    assert state.linear_q == baselines.linear_pca_best_q(data.X_train, first, second)
    assert state.n_neighbors == baselines.knn_best_k(data.X_train, first, second, K_VALUES)
    pca = PCA(n_components=2).fit(data.X_train)
    components = pca.components_[: state.linear_q]
    Z_linear = (data.X_test - pca.mean_) @ components.T @ components + pca.mean_
    np.testing.assert_allclose(state.Z_linear, Z_linear, atol=1e-12)
    expected = np.mean(np.sum((Z_linear - data.X_test_clean) ** 2, axis=1))
    assert state.mse_linear == pytest.approx(expected)
    assert state.ratio == pytest.approx(state.mse_linear / state.mse_kernel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        np.testing.assert_allclose(state.Z_mean_shift, baselines.mean_shift(data.X_train, data.X_test, C, max_iter=10))
    knn = baselines.knn_average(data.X_train, data.X_test, state.n_neighbors)
    expected = {"noisy points": data.X_test, "training mean": np.tile(data.X_train.mean(axis=0), (363, 1)),
                "kNN": knn, "linear PCA": Z_linear, "mean shift": state.Z_mean_shift}
    for name, Z in expected.items():
        [label] = [label for label in state.mse_baselines if label.startswith(name)]
        assert state.mse_baselines[label] == pytest.approx(mean_squared_distance(Z, data.X_test_clean))
    assert len(state.mse_baselines) == 6
    # none of them depends on q
    state_q3 = explorer.compute(SIGMA, C, n_components=3, max_iter=10)
    assert state_q3.mse_baselines == state.mse_baselines


def test_kwok_tsang_is_the_library_pre_image_of_the_same_projections(explorer, direct):
    # the widget's Kwok-Tsang: chapter 5's 2-D call, KernelPCA.denoise(method="kwok_tsang", n_neighbors=10),
    # on the projections of kernel PCA's fixed point, that is kpca_lib.preimage.kwok_tsang of their weights
    data, kpca = direct
    assert KWOK_TSANG_NEIGHBORS == 10
    for q, max_iter in [(4, 30), (2, 0), (1, 5)]:
        state = explorer.compute(SIGMA, C, n_components=q, max_iter=max_iter)
        gamma = preimage.gamma_weights(kpca.alphas_[:, :q], kpca.transform(data.X_test)[:, :q])
        expected = preimage.kwok_tsang(data.X_train, gamma, C, n_neighbors=10)
        np.testing.assert_allclose(state.Z_kwok_tsang, expected, rtol=0, atol=1e-10)
        np.testing.assert_allclose(
            state.Z_kwok_tsang, kpca.denoise(data.X_test, n_components=q, method="kwok_tsang", n_neighbors=10),
            rtol=0, atol=1e-10)
        assert state.kwok_tsang_neighbors == 10
        assert state.mse_kwok_tsang == pytest.approx(mean_squared_distance(expected, data.X_test_clean), rel=1e-10)
    # it depends on q, not on the iterations
    assert not np.allclose(explorer.compute(SIGMA, C, 4, 30).Z_kwok_tsang, explorer.compute(SIGMA, C, 1, 30).Z_kwok_tsang)
    np.testing.assert_array_equal(explorer.compute(SIGMA, C, 4, 3).Z_kwok_tsang, explorer.compute(SIGMA, C, 4, 30).Z_kwok_tsang)


def test_changing_components_or_iterations_does_not_refit():
    explorer = ToyDenoiser(max_components=4, n_starts=2)
    explorer.compute(SIGMA, C, n_components=4, max_iter=10)
    model = explorer.fitted(SIGMA, C).kpca
    for q in (1, 2, 3):
        for max_iter in (1, 5, 20):
            explorer.compute(SIGMA, C, n_components=q, max_iter=max_iter)
    assert explorer.n_fits_ == 1
    assert explorer.fitted(SIGMA, C).kpca is model
    explorer.compute(0.2, C, n_components=2, max_iter=5)
    explorer.compute(SIGMA, 0.08, n_components=2, max_iter=5)
    assert explorer.n_fits_ == 3
    explorer.compute(SIGMA, C, n_components=2, max_iter=5)
    assert explorer.n_fits_ == 3  # still cached


def test_cache_is_bounded():
    explorer = ToyDenoiser(max_components=2, n_starts=1, cache_size=2)
    for c in (0.04, 0.08, 0.16):
        explorer.fitted(SIGMA, c)
    explorer.fitted(SIGMA, 0.04)  # dropped as least recently used: fitted again
    assert explorer.n_fits_ == 4


def test_short_runs_report_instead_of_warning(explorer):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        short = explorer.compute(SIGMA, C, n_components=2, max_iter=1)
    long = explorer.compute(SIGMA, C, n_components=2, max_iter=100)
    assert short.converged_fraction < long.converged_fraction
    assert long.converged_fraction > 0.9


@pytest.mark.parametrize(("sigma", "c", "q"), [(SIGMA, C, 4), (0.4, 0.64, 2)])
def test_trajectories_and_their_objective(explorer, sigma, c, q):
    state = explorer.compute(sigma, c, n_components=q, max_iter=15)
    assert state.trajectories.shape == (16, 3, 2)
    assert state.rho.shape == (16, 3)
    # each start is the first row
    fitted = explorer.fitted(sigma, c)
    np.testing.assert_allclose(state.trajectories[0], fitted.starts)
    np.testing.assert_array_equal(state.trajectory_point, state.X_test[0])
    # rho is the objective at every iterate: sum_i gamma_i k(z, x_i). It need
    # not increase: the weights gamma have both signs (see test_preimage)
    from kpca_lib.preimage import gamma_weights

    gamma = gamma_weights(fitted.kpca.alphas_[:, :q], fitted.Y[:1, :q])[0]
    squared = np.sum((state.trajectories[:, :, None, :] - state.X_train[None, None]) ** 2, axis=-1)
    np.testing.assert_allclose(state.rho, np.exp(-squared / c) @ gamma, rtol=1e-9, atol=1e-12)
    if sigma == 0.4:  # the slider setting where an increase was wrongly assumed
        assert np.diff(state.rho, axis=0).min() < -1e-3


def test_noisy_trajectories_are_the_denoising_iteration(explorer, direct):
    """The trajectories from the noisy starts are the iterates that de-noising itself makes."""
    data, kpca = direct
    from kpca_lib.preimage import gamma_weights

    q, max_iter = 2, 12
    state = explorer.compute(SIGMA, C, n_components=q, max_iter=max_iter)
    points = list(explorer.trajectory_points)
    assert state.trajectory_indices == (0, 66, 132, 198, 264)
    assert state.noisy_trajectories.shape == (max_iter + 1, 5, 2)
    np.testing.assert_allclose(state.noisy_trajectories[0], data.X_test[points])
    # the last iterate is the de-noised point, for a run of max_iter iterations
    np.testing.assert_allclose(state.noisy_trajectories[-1], state.Z_kernel[points], rtol=1e-10, atol=1e-12)
    # one step by hand, eq. (fixed point): z_1 = sum_i w_i x_i / sum_i w_i, w_i = gamma_i k(x, x_i)
    gamma = gamma_weights(kpca.alphas_[:, :q], kpca.transform(data.X_test[points])[:, :q])
    W = gamma * np.exp(-np.sum((data.X_test[points][:, None] - data.X_train[None]) ** 2, axis=2) / C)
    np.testing.assert_allclose(state.noisy_trajectories[1], W @ data.X_train / W.sum(axis=1, keepdims=True),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(state.noisy_rho[0], W.sum(axis=1), rtol=1e-9, atol=1e-12)


def test_zero_iterations_leave_the_noisy_points(explorer):
    state = explorer.compute(SIGMA, C, n_components=2, max_iter=0)
    np.testing.assert_array_equal(state.Z_kernel, state.X_test)
    assert state.converged_fraction == 0.0
    assert state.noisy_trajectories.shape == (1, 5, 2) and state.trajectories.shape == (1, 3, 2)
    assert state.mse_kernel == pytest.approx(mean_squared_distance(state.X_test, state.X_test_clean))


@pytest.mark.parametrize(
    ("points", "error"),
    [((), ValueError), ((0, 363), ValueError), ((0, -1), ValueError), ("0", TypeError), (3, TypeError)],
)
def test_trajectory_points_are_checked(points, error):
    with pytest.raises(error, match="trajectory_points"):
        ToyDenoiser(trajectory_points=points)


def test_default_trajectory_points_fit_any_test_set():
    assert ToyDenoiser().trajectory_points == (0, 66, 132, 198, 264)  # the browser lab's
    assert ToyDenoiser(n_test_per_cluster=10).trajectory_points == (0, 20, 40, 60, 80)
    assert ToyDenoiser(n_test_per_cluster=1).trajectory_points == (0, 2, 4, 6, 8)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"sigma": 0.0}, ValueError),
        ({"c": -1.0}, ValueError),
        ({"n_components": 5}, ValueError),
        ({"n_components": 0}, ValueError),
        ({"n_components": 1.5}, TypeError),
        ({"max_iter": -1}, ValueError),
    ],
)
def test_bad_arguments(explorer, kwargs, error):
    arguments = {"sigma": SIGMA, "c": C, "n_components": 2, "max_iter": 5} | kwargs
    name = next(iter(kwargs))
    with pytest.raises(error, match=name):
        explorer.compute(**arguments)


def test_mean_squared_distance():
    rng = np.random.default_rng(0)
    Z, X = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    assert mean_squared_distance(Z, X) == pytest.approx(np.sum((Z - X) ** 2) / 5)
    with pytest.raises(ValueError, match="same shape"):
        mean_squared_distance(Z, X[:4])


def test_rings_components_match_sklearn():
    from sklearn.decomposition import KernelPCA as SklearnKernelPCA

    from kpca_lib.datasets import concentric_rings
    from kpca_lib.explorers import held_out_accuracy, rings_components

    result = rings_components(c=2.0, n_components=3, n_grid=5)
    # the two halves are the 600 seeded ring points, 100 per ring in each half
    X, _ = concentric_rings(200, noise=0.1, random_state=0)
    both = np.vstack([result.X_train, result.X_test])
    np.testing.assert_allclose(both[np.lexsort(both.T)], X[np.lexsort(X.T)])
    assert np.bincount(result.y_train).tolist() == np.bincount(result.y_test).tolist() == [100] * 3
    # kernel PCA fitted on the training half only; the held-out half projected
    theirs = SklearnKernelPCA(n_components=3, kernel="rbf", gamma=0.5).fit(result.X_train)
    Z_train, Z_test = theirs.transform(result.X_train), theirs.transform(result.X_test)
    signs = np.sign(np.sum(result.Z_train * Z_train, axis=0))
    np.testing.assert_allclose(result.Z_train, Z_train * signs, atol=1e-8)
    np.testing.assert_allclose(result.Z_test, Z_test * signs, atol=1e-8)
    # the score does not see the signs of the components
    assert result.accuracy == held_out_accuracy(Z_train, result.y_train, Z_test, result.y_test)
    assert 0 < result.explained < 1
    assert result.component_map.shape == (5, 5)
    with pytest.raises(ValueError, match="n_components"):
        rings_components(c=2.0, n_components=21)


def test_held_out_accuracy_sees_the_radius_not_the_plane():
    from kpca_lib.datasets import concentric_rings
    from kpca_lib.explorers import held_out_accuracy

    X, y = concentric_rings(100, noise=0.1, random_state=3)
    train, test = slice(0, None, 2), slice(1, None, 2)
    # no line separates concentric rings: a linear rule in the plane is near chance (1/3)
    assert held_out_accuracy(X[train], y[train], X[test], y[test]) < 0.5
    # the squared radius separates them with a margin of many noise widths
    lifted = np.column_stack([X, np.sum(X**2, axis=1)])
    assert held_out_accuracy(lifted[train], y[train], lifted[test], y[test]) == 1.0
    # standardised inside: the units of a component do not matter
    radius = np.linalg.norm(X, axis=1)
    assert held_out_accuracy(radius[train], y[train], radius[test], y[test]) == held_out_accuracy(
        1e3 * radius[train], y[train], 1e3 * radius[test], y[test]) == 1.0


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((np.ones((4, 2)), [0, 1, 0], np.ones((2, 2)), [0, 1]), "y_train"),
        ((np.ones((4, 2)), [0, 1, 0, 1], np.ones((2, 3)), [0, 1]), "Z_test must have as many columns"),
        ((np.ones((4, 2)), [0, 1, 0, 1], np.ones((2, 2)), [0]), "y_test"),
        ((np.ones((4, 2)), [0, 0, 0, 0], np.ones((2, 2)), [0, 1]), "two classes"),
        ((np.full((4, 2), np.nan), [0, 1, 0, 1], np.ones((2, 2)), [0, 1]), "Z_train must hold finite"),
        ((np.ones((0, 2)), [], np.ones((2, 2)), [0, 1]), "Z_train must be a non-empty"),
    ],
)
def test_held_out_accuracy_bad_input(arguments, message):
    from kpca_lib.explorers import held_out_accuracy

    with pytest.raises(ValueError, match=message):
        held_out_accuracy(*arguments)


def test_the_computing_ignores_a_global_pandas_output():
    pytest.importorskip("pandas")
    from sklearn import config_context

    with config_context(transform_output="pandas"):
        state = ToyDenoiser(max_components=3, n_starts=2).compute(SIGMA, C, n_components=2, max_iter=5)
    assert isinstance(state.Z_kernel, np.ndarray) and state.Z_kernel.shape == (363, 2)


def test_rings_components_ignore_a_global_pandas_output():
    pytest.importorskip("pandas")
    from sklearn import config_context

    from kpca_lib.explorers import rings_components

    expected = rings_components(c=2.0, n_components=3, n_grid=5)
    with config_context(transform_output="pandas"):
        result = rings_components(c=2.0, n_components=3, n_grid=5)
    assert isinstance(result.Z_train, np.ndarray)
    np.testing.assert_allclose(result.Z_test, expected.Z_test)
    assert result.accuracy == expected.accuracy


def test_the_browser_lab_is_sent_the_widgets_validation_noise():
    # the lab chooses k and q in the page from this noise; the widget from validation_noise itself
    from kpca_lib.explorers import denoising_lab

    payload = denoising_lab().payload
    np.testing.assert_array_equal(payload["validation_noise"], validation_noise(0, 11, 2).ravel())
    assert payload["validation_per_cluster"] == 11 and payload["knn_k_values"] == list(K_VALUES)
    assert payload["kwok_tsang_neighbors"] == KWOK_TSANG_NEIGHBORS  # the widget's, chapter 5's in 2-D
