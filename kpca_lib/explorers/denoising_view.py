"""Chapter 5's de-noising explorer: the drawing of a :class:`~.denoising.DenoisingState`.

:func:`draw_denoising` draws one state (the plane with the pre-images and the
trajectories from the noisy starts, the objective rho(z_t) and the step sizes
along them); :func:`denoising_explorer` makes the live widget from it (the
HTML book shows the lab of :func:`~.labs.denoising_lab`). The computing is :class:`~.denoising.ToyDenoiser`.
"""

import numpy as np

from .denoising import SIGMAS, ToyDenoiser
from .explorer import Explorer
from .sliders import LiveRange, Slider

__all__ = ["draw_denoising", "denoising_caption", "denoising_explorer", "WIDTH_CHOICES"]

# the width toggle: c from its slider, or the rule c = 2 d sigma^2 of Mika et al.
WIDTH_CHOICES = ("slider", "2 d σ²")
_COLOURS = ("tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan", "tab:gray")


def draw_denoising(axes, state):
    """Draw one state of the de-noising: pre-images, trajectories, rho and step sizes.

    Parameters
    ----------
    axes : sequence of three matplotlib Axes
        The plane (noisy points, linear PCA at its held-out q, kernel PCA
        pre-images by the fixed point and by Kwok-Tsang, true centres, mean
        shift from the noisy points, and the
        trajectories from the noisy starts of
        ``state.trajectory_indices``); ``rho(z_t)`` along those
        trajectories (solid) and along the random starts of the first test
        point (dotted); the step sizes ``||z_{t+1} - z_t||`` of the noisy
        starts, on a log scale.
    state : DenoisingState
        What :meth:`ToyDenoiser.compute` returned.

    Returns
    -------
    str
        The mean squared distances of kernel PCA and the baselines, and the
        fraction converged (:func:`denoising_caption`).
    """
    ax_points, ax_rho, ax_steps = axes
    ax_points.scatter(*state.X_test.T, s=4, c="0.7", label="noisy test points")
    ax_points.scatter(*state.Z_linear.T, s=5, c="tab:blue", label=f"linear PCA, q = {state.linear_q}")
    ax_points.scatter(*state.Z_kernel.T, s=5, c="tab:red", label="kernel PCA")
    ax_points.scatter(*np.unique(state.X_test_clean, axis=0).T, marker="x", s=30, c="k",
                      label="true centres")
    ax_points.scatter(*state.Z_mean_shift.T, s=9, marker="+", lw=0.6, c="tab:orange",
                      label="mean shift (γ = 1/n)")
    ax_points.scatter(*state.Z_kwok_tsang.T, s=12, facecolors="none", edgecolors="#0b6e4f", lw=0.6,
                      label=f"Kwok–Tsang ({state.kwok_tsang_neighbors} neighbours)")
    for j, colour in zip(range(state.noisy_trajectories.shape[1]), _COLOURS):
        path = state.noisy_trajectories[:, j]
        ax_points.plot(*path.T, "-", c=colour, lw=1.2, label="from noisy starts" if j == 0 else None)
        ax_points.plot(*path[0], "o", mfc="none", c=colour, ms=5)
    ax_points.set(xlim=(-1.8, 1.8), ylim=(-1.8, 1.8), aspect="equal", xticks=[], yticks=[],
                  title=f"$\\sigma$={state.sigma:.3g}, c={state.c:.3g}, q={state.n_components}, "
                        f"{state.max_iter} it.")
    ax_points.set_xlabel(denoising_caption(state).replace("; ", "\n"), fontsize=8)
    # the legend below the plane, never over the data
    ax_points.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=2, fontsize=7,
                     markerscale=2, frameon=False)

    t = np.arange(state.rho.shape[0])
    for j, colour in zip(range(state.noisy_rho.shape[1]), _COLOURS):
        ax_rho.plot(t, state.noisy_rho[:, j], "-", c=colour)
    ax_rho.plot(t, state.rho, ":", c="0.4", lw=1)
    ax_rho.set(title="$\\rho(z_t)$: noisy starts (solid), random (dotted)", xlabel="iteration t")
    ax_rho.title.set_fontsize(9)

    steps = np.linalg.norm(np.diff(state.noisy_trajectories, axis=0), axis=-1)
    for j, colour in zip(range(steps.shape[1]), _COLOURS):
        moving = steps[:, j] > 0  # a stopped point makes no more steps
        ax_steps.semilogy(t[1:][moving], steps[moving, j], "-", c=colour)
    ax_steps.set(title="step size $\\|z_{t+1} - z_t\\|$, noisy starts", xlabel="iteration t",
                 ylim=(1e-8, 10), xlim=(0, max(state.max_iter, 1)))
    ax_steps.title.set_fontsize(9)
    return denoising_caption(state)


def denoising_caption(state):
    """The MSEs to the true centres: kernel PCA (fixed point, Kwok-Tsang), every baseline; the fraction converged.

    Examples
    --------
    >>> from kpca_lib.explorers import ToyDenoiser
    >>> state = ToyDenoiser(max_components=2, n_starts=1).compute(0.1, 0.04, 2, 0)
    >>> print(denoising_caption(state))  # doctest: +ELLIPSIS
    MSE kernel PCA 0.0178, Kwok–Tsang ...; mean shift 0.0178, kNN (k = ...) 0.0..., linear (q = 2) 0.0178; ...
    """
    mse = dict(zip(("noisy", "mean", "nearest", "knn", "linear", "mean shift"), state.mse_baselines.values()))
    return (f"MSE kernel PCA {state.mse_kernel:.4f}, Kwok–Tsang {state.mse_kwok_tsang:.4f}; "
            f"mean shift {mse['mean shift']:.4f}, "
            f"kNN (k = {state.n_neighbors}) {mse['knn']:.4f}, linear (q = {state.linear_q}) {mse['linear']:.4f}; "
            f"nearest point {mse['nearest']:.4f}, training mean {mse['mean']:.4f}, noisy {mse['noisy']:.4f}; "
            f"converged {state.converged_fraction:.2f}")


def denoising_explorer(
    denoiser=None,
    sigma=0.1,
    c=0.04,
    n_components=10,
    max_iter=30,
    c_values=(0.01, 0.04, 0.16, 0.64),
    component_values=(1, 2, 4, 8, 10, 12),
    iteration_values=(0, 1, 2, 5, 10, 30),
    width="slider",
):
    """The de-noising explorer of chapter 5, live, from :func:`draw_denoising`.

    Parameters
    ----------
    denoiser : ToyDenoiser or None, default=None
        The computing (and its cache); ``None`` makes a new one with 12
        components and 6 random starts.
    sigma, c, n_components, max_iter : default=0.1, 0.04, 10, 30
        The initial setting; each one of its slider's values.
    c_values, component_values, iteration_values : sequence
        The sliders' listed values (sigma steps over
        :data:`SIGMAS`). The live sliders move over finer ranges: c on a log
        scale from 0.001 to 10, q over every integer, the iterations over
        every integer from 0 to 50.
    width : {"slider", "2 d σ²"}, default="slider"
        The initial state of the width toggle: c from its slider, or the
        rule c = 2 d sigma^2 of Mika et al. (which overrides the c slider).

    Returns
    -------
    Explorer
    """
    if denoiser is None:
        denoiser = ToyDenoiser(n_features=2, max_components=12, n_starts=6)
    if not isinstance(denoiser, ToyDenoiser):
        raise TypeError(f"denoiser must be a ToyDenoiser, got {denoiser!r}.")
    if width not in WIDTH_CHOICES:
        raise ValueError(f"width must be one of {WIDTH_CHOICES}, got width={width!r}.")
    sliders = [
        Slider("sigma", SIGMAS, initial=sigma, label="noise σ"),
        Slider("c", c_values, initial=c, label="kernel width c", format="{:.3g}",
               live=LiveRange(0.001, 10.0, log=True)),
        Slider("width", WIDTH_CHOICES, initial=width, label="width from"),
        Slider("n_components", component_values, initial=n_components, label="components q",
               live=LiveRange(1, denoiser.max_components, integer=True)),
        Slider("max_iter", iteration_values, initial=max_iter, label="iterations",
               live=LiveRange(0, 50, integer=True)),
    ]

    def draw(axes, sigma, c, width, n_components, max_iter):
        if width == WIDTH_CHOICES[1]:
            c = 2 * denoiser.n_features * sigma**2
        return draw_denoising(axes, denoiser.compute(sigma, c, n_components, max_iter))

    return Explorer(draw, sliders, name="denoising", subplots=(1, 3), figsize=(13, 4.6))
