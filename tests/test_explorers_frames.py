"""The chapters' explorers, tested where their pictures are made.

nbval compares the explorers' HTML with the embedded frames replaced by a
placeholder (tests/nbval_sanitize.cfg): the pixels move with the round-off
of the machine. So the frames are tested here: how many there are, their
size, that they differ, and that every setting of the sliders maps to the
frame and caption of that setting. The drawing functions themselves are
tested against the computations they draw.
"""

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.contour import ContourSet
from PIL import Image

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
    rings_explorer,
    sparse_pca_topics,
    topics_explorer,
)


def frame_size(png):
    return Image.open(io.BytesIO(png)).size


def check_frames(explorer, static):
    """Count, size and distinctness of the frames of a rendered explorer."""
    n_settings = int(np.prod([len(slider.values) for slider in explorer.sliders]))
    assert static.n_settings == n_settings
    assert len(static.frame_of_setting_) == n_settings
    assert len(static.captions_) == n_settings
    # drawn at twice the resolution at which they are shown (sharp on high-DPI screens)
    width = round(explorer.figsize[0] * explorer.dpi * 2)
    height = round(explorer.figsize[1] * explorer.dpi * 2)
    for png in static.frames_:
        assert frame_size(png) == (width, height)
    # every setting differs from the others, so every frame does
    assert len(set(static.frames_)) == len(static.frames_) == n_settings
    assert f'width="{round(explorer.figsize[0] * explorer.dpi)}"' in static.html_


def test_gram_spectrum_frames_map_to_their_widths():
    X = np.random.default_rng(0).normal(size=(20, 2))
    widths = [0.01, 0.1, 1.0, 10.0]
    explorer = gram_spectrum_explorer(X, c=0.1, c_values=widths, dpi=30)
    static = explorer.static()
    check_frames(explorer, static)
    for setting, c in enumerate(widths):
        _, eigenvalues = gram_spectrum(X, c)
        assert f"largest eigenvalue {eigenvalues[0]:.3f}" in static.captions_[setting]
        assert static.captions_[setting].startswith(f"c = {c:.3g} = ")


def test_rings_frames_map_to_their_width_and_component():
    widths = [0.5, 10.0]
    explorer = rings_explorer(c=10.0, n_components=2, c_values=widths, max_components=3, dpi=20)
    static = explorer.static()
    check_frames(explorer, static)
    # row-major: the last slider (q) moves fastest
    for setting, (c, q) in enumerate([(c, q) for c in widths for q in (1, 2, 3)]):
        result = rings_components(c, q, n_grid=40)
        which = "component 1 holds" if q == 1 else f"components 1-{q} hold"
        on = "it" if q == 1 else "them"
        assert static.captions_[setting] == (
            f"c = {c:.3g}: {which} {result.explained:.2f} of the feature-space variance; "
            f"held-out accuracy on {on} {result.accuracy:.2f}")


def test_denoising_frames_map_to_their_setting():
    denoiser = ToyDenoiser(max_components=4, n_starts=2)
    # widths unlike every 2 d sigma^2 = 4 sigma^2, so that no rule frame equals a slider frame
    explorer = denoising_explorer(denoiser, sigma=0.1, c=0.03, n_components=2, max_iter=5,
                                  c_values=(0.03, 0.3), component_values=(1, 2),
                                  iteration_values=(5,), dpi=20)
    static = explorer.static()
    n_settings = 5 * 2 * 2 * 2  # sigma, c, the width toggle, q
    assert static.n_settings == n_settings and len(static.captions_) == n_settings
    # with the rule c = 2 d sigma^2 on, the c slider changes nothing: 5 * 2 frames fewer
    assert len(set(static.frames_)) == n_settings - 5 * 2
    settings = [(s, c, w, q) for s in (0.05, 0.1, 0.2, 0.4, 0.8) for c in (0.03, 0.3)
                for w in ("slider", "rule") for q in (1, 2)]
    for index in [0, 7, 30, n_settings - 1]:
        sigma, c, width, q = settings[index]
        state = denoiser.compute(sigma, 4 * sigma**2 if width == "rule" else c, q, 5)
        mse = list(state.mse_baselines.values())
        assert static.captions_[index] == (
            f"MSE kernel PCA {state.mse_kernel:.4f}, Kwok–Tsang {state.mse_kwok_tsang:.4f}; "
            f"mean shift {mse[5]:.4f}, kNN (k = {state.n_neighbors}) {mse[3]:.4f}, "
            f"linear (q = {state.linear_q}) {state.mse_linear:.4f}; nearest point {mse[2]:.4f}, training mean {mse[1]:.4f}, "
            f"noisy {mse[0]:.4f}; converged {state.converged_fraction:.2f}")


def test_topics_frames_map_to_their_setting():
    explorer = topics_explorer(alpha=3.0, n_components=2, max_components=2, dpi=20)
    explorer.sliders = (Slider("alpha", [0.0, 3.0], initial=3.0), explorer.sliders[1])
    static = explorer.static()
    check_frames(explorer, static)
    for setting, (alpha, q) in enumerate([(0.0, 1), (0.0, 2), (3.0, 1), (3.0, 2)]):
        out = sparse_pca_topics(alpha, q)
        assert static.captions_[setting] == f"words per component: {out['n_nonzero']}"


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
                                  component_values=(2,), iteration_values=(5,), dpi=20)
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
    return Explorer(draw, sliders, name="line", figsize=(2, 1), dpi=20)


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
