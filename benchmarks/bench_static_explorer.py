"""Time and weight of the static explorers' frames (kpca_lib.explorers.StaticExplorer).

A static explorer draws every slider setting once when the notebook runs. The
baseline, measured in the same run, is the plain way: a new constrained-layout
figure per setting, saved with ``savefig(format="png")``. StaticExplorer
reuses one figure whose layout is frozen after the first frame, and stores
palette PNGs. Both draw the same 20 settings of chapter 5's de-noising explorer
(the computing is done once beforehand, so only drawing and encoding are timed).

Run: .venv/bin/python benchmarks/bench_static_explorer.py
"""

import io
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from kpca_lib.explorers import Slider, StaticExplorer, ToyDenoiser  # noqa: E402

SIGMAS = (0.05, 0.1, 0.2, 0.4, 0.8)
COMPONENTS = (1, 2, 4, 8)
FIGSIZE, DPI = (9, 4), 60


def draw(axes, state):
    ax_points, ax_rho = axes
    ax_points.scatter(*state.X_test.T, s=4, c="0.7")
    ax_points.scatter(*state.Z_linear.T, s=5, c="tab:blue")
    ax_points.scatter(*state.Z_kernel.T, s=5, c="tab:red")
    ax_points.set(xlim=(-1.8, 1.8), ylim=(-1.8, 1.8), aspect="equal", xticks=[], yticks=[],
                  title=f"sigma={state.sigma:.3g}, q={state.n_components}")
    ax_rho.plot(state.rho)
    ax_rho.set(title="rho(z_t)", xlabel="iteration t")


def main():
    denoiser = ToyDenoiser(n_features=2, max_components=8)
    states = {(s, q): denoiser.compute(s, 4 * s**2, q, 30) for s in SIGMAS for q in COMPONENTS}

    start = time.perf_counter()
    sizes = []
    for state in states.values():
        fig, axes = plt.subplots(1, 2, figsize=FIGSIZE, dpi=DPI, layout="constrained")
        draw(axes, state)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", metadata={"Software": None})
        sizes.append(len(buffer.getvalue()))
        plt.close(fig)
    baseline = (time.perf_counter() - start) / len(states)
    baseline_kb = sum(sizes) / len(sizes) / 1e3

    start = time.perf_counter()
    static = StaticExplorer(
        lambda axes, sigma, q: draw(axes, states[sigma, q]),
        [Slider("sigma", SIGMAS), Slider("q", COMPONENTS)],
        name="bench", subplots=(1, 2), figsize=FIGSIZE, dpi=DPI, pixel_ratio=1,
    ).render()
    ours = (time.perf_counter() - start) / len(states)
    ours_kb = sum(len(png) for png in static.frames_) / len(static.frames_) / 1e3

    print(f"{len(states)} frames of {FIGSIZE[0] * DPI} x {FIGSIZE[1] * DPI} pixels")
    print(f"{'method':<44}{'ms/frame':>10}{'kB/frame':>10}{'time ratio':>12}")
    print(f"{'baseline: new figure + savefig (RGBA PNG)':<44}{1e3 * baseline:>10.1f}"
          f"{baseline_kb:>10.1f}{1.0:>12.2f}")
    print(f"{'StaticExplorer: frozen layout, palette PNG':<44}{1e3 * ours:>10.1f}"
          f"{ours_kb:>10.1f}{ours / baseline:>12.2f}")


if __name__ == "__main__":
    main()
