"""Chapter 4: kernel PCA of concentric rings, as the width c and the component q move."""

import numpy as np
from sklearn.neighbors import NearestCentroid
from sklearn.utils import Bunch

from .. import datasets
from .._validation import check_int, check_real
from ..kernel_pca import KernelPCA
from ..kernels import Gaussian
from .explorer import Explorer
from .static import LiveRange, Slider

__all__ = ["rings_components", "draw_rings", "rings_explorer"]


def rings_components(c, n_components, n_grid=50, random_state=0):
    """Kernel PCA of three noisy rings: projections and one component's map.

    Parameters
    ----------
    c : float
        Width of the Gaussian kernel ``exp(-||x - y||^2 / c)``, > 0.
    n_components : int
        The component q to map over the plane (1-based), 1 <= q <= 20; the
        projections on components 1 .. max(q, 2) are returned.
    n_grid : int, default=50
        Grid points per axis of the map.
    random_state : int, default=0
        Seed of :func:`kpca_lib.datasets.concentric_rings`.

    Returns
    -------
    result : sklearn.utils.Bunch
        ``X``, ``y`` (the rings, 100 points each, radii 1, 2, 3, noise
        0.1); ``Z`` (n, max(q, 2)), the projections; ``grid_x``, ``grid_y``
        and ``component_map`` (n_grid, n_grid), the projection of every grid point
        on component q; ``explained`` the share of the centred kernel
        matrix's trace in the first q eigenvalues; ``accuracy`` of a
        nearest-centroid classifier of the rings on the first q projections
        (trained and scored on the same points: a separability score).

    Examples
    --------
    >>> result = rings_components(c=1.0, n_components=2, n_grid=10)
    >>> result.Z.shape, result.component_map.shape
    ((300, 2), (10, 10))
    """
    c = check_real(c, "c", minimum=0, strict=True)
    q = check_int(n_components, "n_components", minimum=1)
    if q > 20:
        raise ValueError(f"n_components must be at most 20, got n_components={q}.")
    n_grid = check_int(n_grid, "n_grid", minimum=2)
    X, y = datasets.concentric_rings(100, noise=0.1, random_state=random_state)
    kpca = KernelPCA(n_components=max(q, 2), kernel=Gaussian(c=c))
    Z = kpca.fit_transform(X)  # projections of the training points
    # the trace of the centred kernel matrix is the total variance (times n):
    # (K_c)_ii = k(x_i, x_i) - 2 mean_j K_ij + mean(K), with k(x, x) = 1 here,
    # so trace(K_c) = n (1 - mean(K)), from the centring's stored mean
    total = X.shape[0] * (1.0 - kpca.centerer_.K_fit_all_)
    explained = float(kpca.eigenvalues_[:q].sum() / total)

    edge = np.abs(X).max() * 1.1
    axis = np.linspace(-edge, edge, n_grid)
    grid_x, grid_y = np.meshgrid(axis, axis)
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    component_map = kpca.transform(grid)[:, q - 1].reshape(n_grid, n_grid)
    accuracy = float(NearestCentroid().fit(Z[:, :q], y).score(Z[:, :q], y))
    return Bunch(
        X=X,
        y=y,
        Z=Z,
        grid_x=grid_x,
        grid_y=grid_y,
        component_map=component_map,
        explained=explained,
        accuracy=accuracy,
    )


def draw_rings(axes, c, n_components, n_grid=40):
    """Draw the first two projections of the rings and the map of component q.

    Parameters
    ----------
    axes : sequence of two matplotlib Axes
        The projections (left) and the map of component q (right).
    c : float
        Kernel width.
    n_components : int
        The component q whose map is drawn.
    n_grid : int, default=40
        Grid points per axis of the map.

    Returns
    -------
    str
        The share of the feature-space variance in the first q components
        and the separation score on them.
    """
    ax_projection, ax_map = axes
    q = n_components
    result = rings_components(c, q, n_grid=n_grid)
    ax_projection.scatter(result.Z[:, 0], result.Z[:, 1], c=result.y, cmap="viridis", s=5)
    ax_projection.set_title(f"c = {c:.3g}: components 1-2", fontsize=9)
    ax_projection.set(xticks=[], yticks=[])
    ax_map.contourf(result.grid_x, result.grid_y, result.component_map, levels=15, cmap="coolwarm")
    ax_map.scatter(result.X[:, 0], result.X[:, 1], c="k", s=2)
    ax_map.set_title(f"component {q}: share {result.explained:.2f}, sep. {result.accuracy:.2f}",
                     fontsize=9)
    ax_map.set(xticks=[], yticks=[], aspect="equal")
    return (f"c = {c:.3g}, component {q}: share of the variance {result.explained:.2f}, "
            f"separation {result.accuracy:.2f}")


def rings_explorer(c=10.0, n_components=3, c_values=None, max_components=8, dpi=60):
    """The rings explorer of chapter 4: live or precomputed, from :func:`draw_rings`.

    Parameters
    ----------
    c : float, default=10.0
        Initial width, one of ``c_values``.
    n_components : int, default=3
        Initial component q.
    c_values : sequence of float, optional
        Widths of the precomputed explorer. Default: 13 widths from 0.1 to
        100, four per decade. The live slider moves continuously.
    max_components : int, default=8
        The largest q of the slider.
    dpi : int, default=60
        Resolution at which the precomputed frames are shown.

    Returns
    -------
    Explorer
    """
    if c_values is None:
        c_values = [float(f"{10 ** (k / 4):.3g}") for k in range(-4, 9)]
    max_components = check_int(max_components, "max_components", minimum=1)
    sliders = [
        Slider("c", c_values, initial=c, label="kernel width c", format="{:.3g}",
               live=LiveRange(min(c_values), max(c_values), log=True)),
        Slider("n_components", range(1, max_components + 1), initial=n_components,
               label="component q", live=LiveRange(1, max_components, integer=True)),
    ]
    return Explorer(draw_rings, sliders, name="rings", subplots=(1, 2), figsize=(8, 3.6), dpi=dpi)
