"""Tests of the de-noising widget's computing (kpca_lib.explorers)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import PCA, Gaussian, KernelPCA, datasets
from kpca_lib.explorers import ToyDenoiser, mean_squared_distance

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


def test_linear_denoising_and_distances(explorer, direct):
    data, _ = direct
    state = explorer.compute(SIGMA, C, n_components=1, max_iter=10)
    pca = PCA(n_components=1).fit(data.X_train)
    Z_linear = pca.inverse_transform(pca.transform(data.X_test))
    np.testing.assert_allclose(state.Z_linear, Z_linear, atol=1e-12)
    expected = np.mean(np.sum((Z_linear - data.X_test_clean) ** 2, axis=1))
    assert state.mse_linear == pytest.approx(expected)
    assert state.ratio == pytest.approx(state.mse_linear / state.mse_kernel)
    # linear PCA keeps at most d - 1 = 1 component, whatever q
    state_q3 = explorer.compute(SIGMA, C, n_components=3, max_iter=10)
    np.testing.assert_array_equal(state_q3.Z_linear, state.Z_linear)
    assert not np.allclose(state_q3.Z_linear, data.X_test)


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

    gamma = gamma_weights(fitted.kpca.alphas_[:, :q], fitted.beta[:1, :q])[0]
    squared = np.sum((state.trajectories[:, :, None, :] - state.X_train[None, None]) ** 2, axis=-1)
    np.testing.assert_allclose(state.rho, np.exp(-squared / c) @ gamma, rtol=1e-9, atol=1e-12)
    if sigma == 0.4:  # the slider setting where an increase was wrongly assumed
        assert np.diff(state.rho, axis=0).min() < -1e-3


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"sigma": 0.0}, ValueError),
        ({"c": -1.0}, ValueError),
        ({"n_components": 5}, ValueError),
        ({"n_components": 0}, ValueError),
        ({"n_components": 1.5}, TypeError),
        ({"max_iter": 0}, ValueError),
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
