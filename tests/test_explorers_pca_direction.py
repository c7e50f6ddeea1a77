"""Tests of kpca_lib.explorers.pca_direction, chapter 1's explorer: its computing, drawing and live widget."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from matplotlib.collections import LineCollection, PathCollection
from sklearn.decomposition import PCA as SklearnPCA

from kpca_lib import PCA
from kpca_lib.explorers import (
    captured_variance,
    draw_pca_direction,
    pca_direction,
    pca_direction_explorer,
)

clouds = arrays(
    np.float64,
    st.tuples(st.integers(2, 30), st.just(2)),
    elements=st.floats(-100, 100, allow_nan=False, allow_infinity=False, allow_subnormal=False),
)
angles = st.floats(-720, 720, allow_nan=False, allow_infinity=False)


@pytest.fixture(scope="module")
def cloud():
    rng = np.random.default_rng(0)
    return rng.multivariate_normal([1.0, 0.5], [[1.0, 0.8], [0.8, 2.0]], size=100)


def distance_to_line_squared(X, point, w):
    """Squared distance of each row of X to the line point + t w (w a unit vector): a 2-D cross product."""
    d = X - point
    return (d[:, 0] * w[1] - d[:, 1] * w[0]) ** 2


@given(X=clouds, angle=angles)
def test_variance_and_error_add_up_to_the_total_variance(X, angle):
    result = pca_direction(X, angle)
    C = np.cov(X.T, bias=True)  # 1/n, as in the book
    scale = max(1.0, np.trace(C))
    assert result.total == pytest.approx(np.trace(C), abs=1e-9 * scale)
    assert result.variance + result.error == pytest.approx(result.total, abs=1e-9 * scale)
    assert result.variance == pytest.approx(result.w @ C @ result.w, abs=1e-9 * scale)
    assert np.linalg.norm(result.w) == pytest.approx(1.0)


def test_error_is_the_mean_squared_distance_to_the_line(cloud):
    for angle in [0.0, 33.0, 90.0, 151.5]:
        result = pca_direction(cloud, angle)
        expected = np.mean(distance_to_line_squared(cloud, cloud.mean(axis=0), result.w))
        assert result.error == pytest.approx(expected, rel=1e-12)
        # the reconstructions lie on the line, and each residual is perpendicular to it
        assert np.max(distance_to_line_squared(result.reconstructions, result.mean, result.w)) < 1e-20
        np.testing.assert_allclose((cloud - result.reconstructions) @ result.w, 0, atol=1e-12)


def test_principal_axes_are_sklearns_and_maximise_the_variance(cloud):
    result = pca_direction(cloud, 0.0)
    n = cloud.shape[0]
    sklearn_pca = SklearnPCA(n_components=2, svd_solver="full").fit(cloud)
    # scikit-learn divides by n - 1, the book by n
    np.testing.assert_allclose(result.eigenvalues, sklearn_pca.explained_variance_ * (n - 1) / n, rtol=1e-12)
    np.testing.assert_allclose(np.abs(result.components @ sklearn_pca.components_.T), np.eye(2), atol=1e-12)
    first, second = result.component_angles
    assert abs(abs(first - second) - 90) < 1e-9
    # w_1 captures lambda_1, the largest variance of any direction; w_2 the smallest, lambda_2
    grid = np.linspace(0, 180, 3601)
    curve = captured_variance(cloud, grid)
    assert pca_direction(cloud, first).variance == pytest.approx(result.eigenvalues[0], rel=1e-12)
    assert pca_direction(cloud, second).variance == pytest.approx(result.eigenvalues[1], rel=1e-12)
    assert curve.max() <= result.eigenvalues[0] * (1 + 1e-12)
    assert curve.min() >= result.eigenvalues[1] * (1 - 1e-12)
    assert abs(grid[np.argmax(curve)] - first) <= 0.05


def test_components_are_kpca_libs_with_their_signs(cloud):
    result = pca_direction(cloud, 0.0)
    pca = PCA(n_components=2).fit(cloud)
    np.testing.assert_allclose(result.components, pca.components_, atol=1e-12)
    np.testing.assert_allclose(result.eigenvalues, pca.explained_variance_, rtol=1e-12)
    # the convention: the entry largest in absolute value of each component is positive
    largest = result.components[np.arange(2), np.argmax(np.abs(result.components), axis=1)]
    assert np.all(largest > 0)


def test_a_cloud_on_a_line_has_its_axes_and_a_zero_error_along_them():
    t = np.linspace(-1, 1, 9)
    X = np.column_stack([t, 2 * t]) + 3.0
    along = pca_direction(X, np.degrees(np.arctan2(2, 1)))
    assert along.error == pytest.approx(0, abs=1e-12)
    assert along.variance == pytest.approx(along.total)
    assert along.eigenvalues[1] == pytest.approx(0, abs=1e-12)
    np.testing.assert_allclose(along.component_angles, [np.degrees(np.arctan2(2, 1)), np.degrees(np.arctan2(2, 1)) + 90])


def test_captured_variance_is_periodic_and_matches_pca_direction(cloud):
    grid = np.array([0.0, 17.0, 45.0, 90.0, 133.0])
    curve = captured_variance(cloud, grid)
    np.testing.assert_allclose(curve, [pca_direction(cloud, a).variance for a in grid], rtol=1e-12)
    # w and -w span the same line
    np.testing.assert_allclose(captured_variance(cloud, grid + 180), curve, rtol=1e-12)


@pytest.mark.parametrize(
    "X, match",
    [(np.zeros((5, 3)), "2 features"), (np.zeros((1, 2)), "sample"), (np.array([[0.0, np.nan], [1.0, 1.0]]), "NaN")],
)
def test_bad_clouds_raise_value_errors(X, match):
    with pytest.raises(ValueError, match=match):
        pca_direction(X, 0.0)
    with pytest.raises(ValueError, match=match):
        captured_variance(X, [0.0])


def test_bad_angles_raise_clear_errors(cloud):
    with pytest.raises(TypeError, match="angle"):
        pca_direction(cloud, "north")
    with pytest.raises(ValueError, match="angle"):
        pca_direction(cloud, np.nan)
    with pytest.raises(ValueError, match=r"angle_values must be in \[0, 180\)"):
        pca_direction_explorer(cloud, angle=0.0, angle_values=[0.0, 180.0])
    with pytest.raises(ValueError, match="angle_values"):
        pca_direction_explorer(cloud, angle=0.0, angle_values=[-10.0, 0.0])


def test_drawing_shows_the_computed_projections_residuals_and_curves(cloud):
    fig, axes = plt.subplots(1, 2)
    caption = draw_pca_direction(axes, cloud, 40.0)
    result = pca_direction(cloud, 40.0)
    scatters = [c for c in axes[0].get_children() if isinstance(c, PathCollection)]
    np.testing.assert_allclose(scatters[0].get_offsets(), cloud)
    np.testing.assert_allclose(scatters[1].get_offsets(), result.reconstructions)
    residuals = next(c for c in axes[0].get_children() if isinstance(c, LineCollection))
    segments = residuals.get_segments()
    assert len(segments) == cloud.shape[0]
    np.testing.assert_allclose(segments[5], [cloud[5], result.reconstructions[5]])
    variance_line, error_line = [line for line in axes[1].get_lines() if len(line.get_xdata()) == 181]
    np.testing.assert_allclose(variance_line.get_ydata(), captured_variance(cloud, variance_line.get_xdata()))
    np.testing.assert_allclose(error_line.get_ydata() + variance_line.get_ydata(), result.total)
    assert axes[0].get_xlabel() and axes[0].get_ylabel() and axes[1].get_xlabel() and axes[1].get_ylabel()
    assert caption == (f"angle 40°: variance captured {result.variance:.3f}, reconstruction error "
                       f"{result.error:.3f}, sum {result.total:.3f} = tr(C)")
    plt.close(fig)


def test_figures_map_to_their_angles(cloud):
    angle_values = [0.0, 60.0, 120.0]
    explorer = pca_direction_explorer(cloud, angle=60.0, angle_values=angle_values)
    for angle in angle_values:
        fig, caption = explorer.figure(angle=angle)
        result = pca_direction(cloud, angle)
        assert caption.startswith(f"angle {angle:g}°: variance captured {result.variance:.3f}")
        plt.close(fig)
    # the default grid: every 10 degrees, 18 values, starting at the given angle
    default = pca_direction_explorer(cloud, angle=30.0)
    assert default.sliders[0].values == tuple(float(a) for a in range(0, 180, 10))
    assert default.sliders[0].initial_value == 30.0


def test_live_widget_redraws_with_the_slider(cloud):
    widget = pca_direction_explorer(cloud, angle=30.0, angle_values=[0.0, 30.0]).live()
    title, slider, output, caption = widget.children
    assert slider.value == 30.0 and "angle 30°" in caption.value
    slider.value = 75.5  # the live slider is finer than the listed values
    expected = pca_direction(cloud, 75.5)
    assert f"variance captured {expected.variance:.3f}" in caption.value
    plt.close("all")
