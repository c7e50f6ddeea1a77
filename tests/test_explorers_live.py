"""The chapters' live explorers: their sliders, drawing functions and ipywidgets.

The HTML book shows each explorer as a lab computed in the browser
(tests/test_labs_in_browser.py); in a notebook, :class:`Explorer` wires the
chapter's drawing function to ipywidgets. The drawing functions are tested
against the computations they draw, the live widget against its sliders.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.contour import ContourSet

from kpca_lib.explorers import (
    Explorer,
    LiveRange,
    Slider,
    ToyDenoiser,
    denoising_explorer,
    draw_denoising,
    draw_rings,
    draw_topics,
    gram_spectrum,
    gram_spectrum_explorer,
    rings_components,
    sparse_pca_topics,
)


def test_draw_rings_draws_the_projections_and_the_component_map():
    fig, axes = plt.subplots(1, 2)
    caption = draw_rings(axes, c=2.0, n_components=3, n_grid=12)
    result = rings_components(2.0, 3, n_grid=12)
    scatter = next(child for child in axes[0].get_children() if isinstance(child, PathCollection))
    np.testing.assert_allclose(scatter.get_offsets(), result.Z_train[:, :2])
    # the map of component 3, in symmetric colour limits (a signed image)
    contour = next(child for child in axes[1].get_children() if isinstance(child, ContourSet))
    low, high = contour.get_clim()
    assert low == pytest.approx(-high) and high == pytest.approx(np.abs(result.component_map).max())
    assert "component 3" in axes[1].get_title()
    assert caption == (f"c = 2: components 1-3 hold {result.explained:.2f} of the feature-space "
                       f"variance; held-out accuracy on them {result.accuracy:.2f}")
    plt.close(fig)


def test_draw_denoising_draws_the_state():
    state = ToyDenoiser(max_components=3, n_starts=2, trajectory_points=(0, 40)).compute(0.1, 0.04, 3, 10)
    fig, axes = plt.subplots(1, 3)
    caption = draw_denoising(axes, state)
    offsets = [c.get_offsets() for c in axes[0].get_children() if isinstance(c, PathCollection)]
    np.testing.assert_allclose(offsets[0], state.X_test)
    np.testing.assert_allclose(offsets[1], state.Z_linear)
    np.testing.assert_allclose(offsets[2], state.Z_kernel)
    # the 11 true centres, once each
    np.testing.assert_allclose(np.sort(offsets[3], axis=0), np.sort(np.unique(state.X_test_clean, axis=0), axis=0))
    np.testing.assert_allclose(offsets[4], state.Z_mean_shift)
    np.testing.assert_allclose(offsets[5], state.Z_kwok_tsang)
    # the trajectories from the noisy starts, which start at the noisy points
    paths = [line for line in axes[0].get_lines() if len(line.get_xdata()) > 1]
    assert len(paths) == 2
    np.testing.assert_allclose(paths[1].get_xydata(), state.noisy_trajectories[:, 1])
    np.testing.assert_allclose(paths[1].get_xydata()[0], state.X_test[40])
    # a legend, outside the plane (below it)
    legend = axes[0].get_legend()
    labels = [text.get_text() for text in legend.get_texts()]
    assert labels == ["noisy test points", f"linear PCA, q = {state.linear_q}", "kernel PCA", "true centres",
                      "mean shift (γ = 1/n)", "Kwok–Tsang (10 neighbours)", "from noisy starts"]
    fig.canvas.draw()
    assert legend.get_window_extent().y1 <= axes[0].get_window_extent().y0
    # rho: one solid line per noisy start, then one dotted line per random start
    lines = axes[1].get_lines()
    assert len(lines) == 2 + state.rho.shape[1]
    np.testing.assert_allclose(lines[0].get_ydata(), state.noisy_rho[:, 0])
    np.testing.assert_allclose(lines[2].get_ydata(), state.rho[:, 0])
    # step sizes: ||z_{t+1} - z_t|| of the first noisy start, while it moves
    steps = np.linalg.norm(np.diff(state.noisy_trajectories[:, 0], axis=0), axis=1)
    np.testing.assert_allclose(axes[2].get_lines()[0].get_ydata(), steps[steps > 0])
    assert axes[2].get_yscale() == "log"
    assert f"kernel PCA {state.mse_kernel:.4f}" in caption and "mean shift " in caption
    assert f"Kwok–Tsang {state.mse_kwok_tsang:.4f}" in caption
    plt.close(fig)


def test_denoising_width_toggle_uses_the_rule():
    denoiser = ToyDenoiser(max_components=3, n_starts=1)
    explorer = denoising_explorer(denoiser, sigma=0.2, c=0.04, n_components=2, max_iter=5,
                                  component_values=(2,), iteration_values=(5,))
    _, free = explorer.figure(sigma=0.2, c=0.04, width="slider", n_components=2, max_iter=5)
    _, rule = explorer.figure(sigma=0.2, c=0.04, width="2 d σ²", n_components=2, max_iter=5)
    assert free == draw_denoising_caption(denoiser.compute(0.2, 0.04, 2, 5))
    assert rule == draw_denoising_caption(denoiser.compute(0.2, 2 * 2 * 0.2**2, 2, 5))
    assert free != rule
    with pytest.raises(ValueError, match="width must be one of"):
        denoising_explorer(denoiser, width="median")
    plt.close("all")


def draw_denoising_caption(state):
    mse = list(state.mse_baselines.values())
    return (f"MSE kernel PCA {state.mse_kernel:.4f}, Kwok–Tsang {state.mse_kwok_tsang:.4f}; "
            f"mean shift {mse[5]:.4f}, kNN (k = {state.n_neighbors}) {mse[3]:.4f}, "
            f"linear (q = {state.linear_q}) {state.mse_linear:.4f}; nearest point {mse[2]:.4f}, training mean {mse[1]:.4f}, "
            f"noisy {mse[0]:.4f}; converged {state.converged_fraction:.2f}")


def test_draw_topics_shows_the_absolute_loadings():
    fig, ax = plt.subplots()
    caption = draw_topics(ax, alpha=3.0, n_components=4)
    out = sparse_pca_topics(3.0, 4)
    np.testing.assert_allclose(ax.get_images()[0].get_array(), np.abs(out["components"]))
    assert caption == f"words per component: {out['n_nonzero']}"
    plt.close(fig)


def recording_explorer(calls):
    def draw(ax, slope, offset):
        calls.append((slope, offset))
        ax.plot([0, 1], [offset, offset + slope])
        return f"slope {slope:g}, offset {offset}"

    sliders = [Slider("slope", [1.0, 2.0], live=LiveRange(0.5, 8.0, log=True)),
               Slider("offset", [0, 1, 2], initial=1, live=LiveRange(0, 5, integer=True))]
    return Explorer(draw, sliders, name="line", figsize=(2, 1))


def test_live_widget_redraws_with_the_slider_values():
    pytest.importorskip("ipywidgets")
    calls = []
    widget = recording_explorer(calls).live()
    title, slope, offset, output, caption = widget.children
    assert "Live" in title.value
    assert calls == [(1.0, 1)] and "slope 1, offset 1" in caption.value
    assert (slope.min, slope.max) == pytest.approx((np.log10(0.5), np.log10(8.0)))
    assert (offset.min, offset.max) == (0, 5)
    offset.value = 4
    slope.value = 4.0
    assert calls[-2:] == [(1.0, 4), (4.0, 4)]
    assert "slope 4, offset 4" in caption.value


def test_live_widget_steps_over_the_values_without_a_live_range():
    pytest.importorskip("ipywidgets")
    calls = []
    explorer = Explorer(lambda ax, q: calls.append(q), [Slider("q", [1, 2, 4], initial=2)],
                        name="q", figsize=(2, 1))
    control = explorer.live().children[1]
    assert control.options == (("1", 1), ("2", 2), ("4", 4)) and control.value == 2
    control.value = 4
    assert calls == [2, 4]


def test_figure_draws_one_setting_and_rejects_unknown_sliders():
    calls = []
    explorer = recording_explorer(calls)
    fig, caption = explorer.figure(slope=2.0)
    assert calls == [(2.0, 1)] and caption == "slope 2, offset 1"
    plt.close(fig)
    with pytest.raises(TypeError, match="no slider named"):
        explorer.figure(width=3)


@pytest.mark.parametrize("live, error", [
    (dict(min=0.0, max=1.0, log=True), ValueError),
    (dict(min=2.0, max=1.0), ValueError),
    (dict(min=0.0, max=1.0, step=0.0), ValueError),
])
def test_invalid_live_range_raises(live, error):
    with pytest.raises(error):
        LiveRange(**live)


def test_slider_live_must_be_a_live_range():
    with pytest.raises(TypeError, match="LiveRange"):
        Slider("c", [1.0], live=(0.1, 10.0))


def test_denoising_explorer_needs_a_toy_denoiser():
    with pytest.raises(TypeError, match="denoiser"):
        denoising_explorer(denoiser="not a denoiser")


def test_slider_values_are_formatted_for_the_page():
    slider = Slider("c", [0.001, 0.0316, 10.0], initial=10.0, format="{:.3g}")
    assert slider.value_labels == ["0.001", "0.0316", "10"]
    assert slider.initial_index == 2
    assert Slider("q", range(1, 4)).values == (1, 2, 3)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(name="x", values=[1], initial=2), ValueError, "initial"),
        (dict(name="x", values=[]), ValueError, "values"),
        (dict(name="not a name", values=[1]), ValueError, "name"),
    ],
)
def test_invalid_slider_raises(kwargs, error, match):
    with pytest.raises(error, match=match):
        Slider(**kwargs)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(draw=None), TypeError, "draw"),
        (dict(sliders=[("x", [1])]), TypeError, "sliders"),
        (dict(sliders=[Slider("x", [1]), Slider("x", [2])]), ValueError, "distinct"),
    ],
)
def test_invalid_explorer_raises(kwargs, error, match):
    options = dict(draw=lambda ax, x: None, sliders=[Slider("x", [1])], name="bad")
    options.update(kwargs)
    with pytest.raises(error, match=match):
        Explorer(**options)


def test_gram_spectrum_explorer_reports_the_spectrum_of_each_width():
    X = np.random.default_rng(0).normal(size=(12, 2))
    explorer = gram_spectrum_explorer(X, c_values=[0.01, 1.0, 100.0], c=1.0)
    median = np.median([np.sum((X[i] - X[j]) ** 2) for i in range(12) for j in range(i + 1, 12)])
    for c in [0.01, 1.0, 100.0]:
        fig, caption = explorer.figure(c=c)
        plt.close(fig)
        _, eigenvalues = gram_spectrum(X, c)
        assert caption == (
            f"c = {c:.3g} = {float(f'{c / median:.2g}'):g} x median squared distance: largest "
            f"eigenvalue {eigenvalues[0]:.3f}, eigenvalues above 0.01: "
            f"{int(np.sum(eigenvalues > 0.01))} of 12"
        )
    assert explorer.sliders[0].initial_value == 1.0


def test_gram_spectrum_explorer_default_widths_span_five_decades():
    X = np.zeros((2, 1))
    explorer = gram_spectrum_explorer(X)
    values = explorer.sliders[0].values
    assert len(values) == 21 and values[0] == 0.001 and values[-1] == 100.0 and 0.1 in values
