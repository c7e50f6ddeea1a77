"""Tests of kpca_lib.plotting: what the figures show, checked on the drawn artists."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from kpca_lib.explorers import gram_spectrum
from kpca_lib.plotting import plot_gram_spectrum, plot_kernel_profile, roundoff_level


@pytest.fixture
def two_axes():
    fig, axes = plt.subplots(1, 2)
    yield axes
    plt.close(fig)


def colorbars(ax):
    return [child for child in ax.child_axes if getattr(child, "_colorbar", None) is not None]


def test_gram_matrix_has_one_colorbar_from_zero_to_one(two_axes):
    X = np.random.default_rng(0).normal(size=(10, 2))
    K, eigenvalues = gram_spectrum(X, 1.0)
    plot_gram_spectrum(K, eigenvalues, two_axes)
    (image,) = two_axes[0].get_images()
    assert image.get_clim() == (0.0, 1.0)
    assert len(two_axes[0].child_axes) == 1
    assert len(colorbars(two_axes[0])) == 1


def test_redrawing_after_clear_keeps_one_colorbar(two_axes):
    # the live widget clears the axes and draws the next setting on them
    for c in (0.1, 1.0, 10.0):
        for ax in two_axes:
            ax.clear()
        X = np.random.default_rng(1).normal(size=(8, 2))
        plot_gram_spectrum(*gram_spectrum(X, c), two_axes)
    assert len(two_axes[0].child_axes) == 1


def test_signed_matrix_gets_symmetric_colour_limits(two_axes):
    K = np.array([[1.0, -3.0], [-3.0, 2.0]])
    plot_gram_spectrum(K, np.linalg.eigvalsh(K)[::-1], two_axes)
    low, high = two_axes[0].get_images()[0].get_clim()
    assert low == -high == -3.0


def test_eigenvalues_below_roundoff_are_drawn_on_the_floor(two_axes):
    eigenvalues = np.array([50.0, 1.0, 1e-20, -1e-15])
    plot_gram_spectrum(np.eye(4), eigenvalues, two_axes)
    floor = roundoff_level(eigenvalues)
    assert floor == pytest.approx(4 * np.finfo(float).eps * 50.0)
    (line,) = two_axes[1].get_lines()
    np.testing.assert_allclose(line.get_ydata(), [50.0, 1.0, floor, floor])
    # the band that marks the level ends at the floor
    (band,) = two_axes[1].patches
    assert band.get_extents().y1 == pytest.approx(
        two_axes[1].transData.transform((0, floor))[1], abs=1.0)


def test_log_axis_over_many_decades_labels_few_ticks(two_axes):
    eigenvalues = np.logspace(2, -20, 30)
    plot_gram_spectrum(np.eye(30), eigenvalues, two_axes)
    two_axes[1].figure.canvas.draw()
    low, high = two_axes[1].get_ylim()
    ticks = [t for t in two_axes[1].get_yticks() if low <= t <= high]
    assert 2 <= len(ticks) <= 7
    # labelled ticks are powers of ten
    np.testing.assert_allclose(np.log10(ticks), np.round(np.log10(ticks)))


def test_kernel_profile_marks_the_width_and_the_scales():
    fig, ax = plt.subplots()
    try:
        squared = np.array([0.01, 0.5, 1.0, 2.0, 4.0])
        plot_kernel_profile(ax, c=0.3, squared_distances=squared, nearest_neighbour=0.05, median=1.0)
        curve, dot, nearest_line, median_line = ax.get_lines()
        r, value = curve.get_data()
        np.testing.assert_allclose(value, np.exp(-r / 0.3))
        np.testing.assert_allclose(dot.get_xydata(), [[0.3, np.exp(-1)]])
        assert nearest_line.get_xdata()[0] == 0.05 and median_line.get_xdata()[0] == 1.0
        # the histogram is scaled so that its tallest bar (0.5, 1, 2 and 4 share none) is 1
        heights = np.array([bar.get_height() for bar in ax.patches])
        assert heights.max() == 1.0
        np.testing.assert_allclose(np.sort(heights[heights > 0]), [1, 1, 1, 1, 1])
        assert {text.get_text().strip() for text in ax.texts} == {"nearest neighbour", "median", "r = c"}
    finally:
        plt.close(fig)


def test_kernel_profile_range_does_not_move_with_c_inside_it():
    squared = np.array([0.01, 0.5, 4.0])
    limits = []
    for c in (0.01, 1.0, 100.0):
        fig, ax = plt.subplots()
        plot_kernel_profile(ax, c, squared)
        limits.append(ax.get_xlim())
        plt.close(fig)
    assert limits[0] == limits[1] == limits[2]


def test_kernel_profile_of_coinciding_points_draws_without_error():
    fig, ax = plt.subplots()
    try:
        plot_kernel_profile(ax, 1.0, np.zeros(3))
        assert ax.get_xlim()[0] < 1.0 < ax.get_xlim()[1]
    finally:
        plt.close(fig)
