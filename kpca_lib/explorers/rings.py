"""Chapter 4: kernel PCA of concentric rings, as the width c and the component q move.

The rings are split, once and seeded, into a training half (kernel PCA is
fitted on it) and a held-out half (projected with the centred test kernel).
How well the first q components separate the rings is measured on the
held-out half, by a linear classifier fitted on the training half
(:func:`held_out_accuracy`). A nearest-centroid score would not do: the three
rings share one centre, so their centroids coincide in the plane, and a
score on the points it was fitted to says nothing about new points.
"""

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import Bunch
from threadpoolctl import threadpool_limits

from .. import datasets
from .._validation import check_int, check_real
from ..kernel_pca import KernelPCA
from ..kernels import Gaussian
from .explorer import Explorer
from .sliders import LiveRange, Slider

__all__ = ["held_out_accuracy", "rings_components", "draw_rings", "rings_explorer"]


def _as_features(Z, name):
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim != 2 or Z.shape[0] == 0 or Z.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty array of shape (n_samples, q), got shape {Z.shape}.")
    if not np.all(np.isfinite(Z)):
        raise ValueError(f"{name} must hold finite values only.")
    return Z


def held_out_accuracy(Z_train, y_train, Z_test, y_test):
    """Accuracy on held-out points of a linear classifier on projections.

    A multinomial logistic regression on the standardised projections is
    fitted to the training points and scored on the held-out points. It is
    linear in the projections, so a high score says that the classes are
    linearly separable *in the components*: for concentric rings, that
    some component (or combination) carries the radius.

    Parameters
    ----------
    Z_train : array-like of shape (n_train, q) or (n_train,)
        Projections of the training points on the first q components.
    y_train : array-like of shape (n_train,)
        Their classes (at least two distinct values).
    Z_test : array-like of shape (n_test, q) or (n_test,)
        Projections of the held-out points on the same components.
    y_test : array-like of shape (n_test,)
        Their classes.

    Returns
    -------
    float
        The fraction of held-out points classified correctly.

    Examples
    --------
    >>> X, y = datasets.concentric_rings(50, noise=0.1, random_state=0)
    >>> radius = np.linalg.norm(X, axis=1)
    >>> held_out_accuracy(radius[::2], y[::2], radius[1::2], y[1::2])
    1.0
    """
    Z_train = _as_features(Z_train, "Z_train")
    Z_test = _as_features(Z_test, "Z_test")
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if y_train.shape != (Z_train.shape[0],):
        raise ValueError(f"y_train must have shape ({Z_train.shape[0]},) to match Z_train, got {y_train.shape}.")
    if y_test.shape != (Z_test.shape[0],):
        raise ValueError(f"y_test must have shape ({Z_test.shape[0]},) to match Z_test, got {y_test.shape}.")
    if Z_test.shape[1] != Z_train.shape[1]:
        raise ValueError(
            f"Z_test must have as many columns as Z_train ({Z_train.shape[1]}), got {Z_test.shape[1]}.")
    if np.unique(y_train).size < 2:
        raise ValueError("y_train must hold at least two classes.")
    # Newton's method to a tight tolerance: the regularised problem has one
    # optimum, and the decisions on held-out points must be its decisions, not
    # those of wherever an iterative solver happened to stop
    classifier = make_pipeline(
        StandardScaler(), LogisticRegression(solver="newton-cholesky", tol=1e-10, max_iter=1000))
    classifier.fit(Z_train, y_train)
    return float(classifier.score(Z_test, y_test))


def rings_components(c, n_components, n_grid=50, random_state=0):
    """Kernel PCA of three noisy rings: projections, one component's map, a held-out score.

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
        Seed of :func:`kpca_lib.datasets.concentric_rings` (200 points per
        ring, radii 1, 2, 3, noise 0.1) and of the split into halves.

    Returns
    -------
    result : sklearn.utils.Bunch
        ``X_train``, ``y_train``, ``X_test``, ``y_test``: the two halves
        (300 points each, 100 per ring); ``Z_train``, ``Z_test`` of shape
        (300, max(q, 2)): their projections (kernel PCA fitted on the
        training half); ``grid_x``, ``grid_y`` and ``component_map``
        (n_grid, n_grid): the projection of every grid point on component
        q; ``explained``: the share of the centred kernel matrix's trace in
        the first q eigenvalues; ``accuracy``: :func:`held_out_accuracy` on
        the first q components.

    Examples
    --------
    >>> result = rings_components(c=1.0, n_components=2, n_grid=10)
    >>> result.Z_train.shape, result.Z_test.shape, result.component_map.shape
    ((300, 2), (300, 2), (10, 10))
    """
    c = check_real(c, "c", minimum=0, strict=True)
    q = check_int(n_components, "n_components", minimum=1, maximum=20)
    n_grid = check_int(n_grid, "n_grid", minimum=2)
    # 300 x 300 problems: a second BLAS thread only adds synchronisation, and on a
    # busy machine it can double the time of an explorer's 35 settings
    # (benchmarks/bench_rings_explorer.py)
    with threadpool_limits(limits=1, user_api="blas"):
        return _rings_components(c, q, n_grid, random_state)


def _rings_components(c, q, n_grid, random_state):
    """:func:`rings_components` for checked arguments."""
    X, y = datasets.concentric_rings(200, noise=0.1, random_state=random_state)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=random_state)
    # 300 points: a dense eigensolver costs milliseconds, and every frame of
    # the explorer solves the same way
    # arrays whatever the caller's set_output: the columns are sliced below
    kpca = KernelPCA(n_components=max(q, 2), kernel=Gaussian(c=c), eigen_solver="dense").set_output(
        transform="default")
    Z_train = kpca.fit_transform(X_train)  # projections of the training points
    Z_test = kpca.transform(X_test)  # centred test kernel, training means
    # the trace of the centred kernel matrix is the total variance (times n):
    # (K_c)_ii = k(x_i, x_i) - 2 mean_j K_ij + mean(K), with k(x, x) = 1 here,
    # so trace(K_c) = n (1 - mean(K)), from the centring's stored mean
    total = X_train.shape[0] * (1.0 - kpca.centerer_.K_fit_all_)
    explained = float(kpca.eigenvalues_[:q].sum() / total)

    edge = np.abs(X).max() * 1.1
    axis = np.linspace(-edge, edge, n_grid)
    grid_x, grid_y = np.meshgrid(axis, axis)
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    component_map = kpca.transform(grid)[:, q - 1].reshape(n_grid, n_grid)
    accuracy = held_out_accuracy(Z_train[:, :q], y_train, Z_test[:, :q], y_test)
    return Bunch(
        X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test,
        Z_train=Z_train, Z_test=Z_test,
        grid_x=grid_x, grid_y=grid_y, component_map=component_map,
        explained=explained, accuracy=accuracy,
    )


def draw_rings(axes, c, n_components, n_grid=40):
    """Draw the training points on components 1 and 2, and the map of component q.

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
        and the held-out accuracy on them.
    """
    ax_projection, ax_map = axes
    q = n_components
    result = rings_components(c, q, n_grid=n_grid)
    ax_projection.scatter(result.Z_train[:, 0], result.Z_train[:, 1], c=result.y_train,
                          cmap="viridis", s=6)
    ax_projection.set(title="training points on components 1 and 2",
                      xlabel="component 1", ylabel="component 2")
    # a signed map: symmetric colour limits, so that white is zero
    limit = float(np.abs(result.component_map).max()) or 1.0
    image = ax_map.contourf(result.grid_x, result.grid_y, result.component_map, levels=12,
                            cmap="coolwarm", vmin=-limit, vmax=limit)
    ax_map.scatter(result.X_train[:, 0], result.X_train[:, 1], c="k", s=2)
    ax_map.set(title=f"value of component {q} over the plane", xlabel="$x_1$", ylabel="$x_2$",
               aspect="equal")
    # the colour bar in an inset of the map: ``ax.clear()`` removes it with the
    # map, so that a precomputed explorer redrawing these axes adds no axes
    ax_map.figure.colorbar(image, cax=ax_map.inset_axes([1.04, 0.0, 0.05, 1.0]))
    return f"c = {c:.3g}: " + _caption_numbers(q, result.explained, result.accuracy)


def _caption_numbers(q, explained, accuracy):
    """The share of the variance in components 1..q and the held-out accuracy on them, in words."""
    if q == 1:
        return (f"component 1 holds {explained:.2f} of the feature-space variance; "
                f"held-out accuracy on it {accuracy:.2f}")
    return (f"components 1-{q} hold {explained:.2f} of the feature-space variance; "
            f"held-out accuracy on them {accuracy:.2f}")


def rings_explorer(c=10.0, n_components=3, c_values=None, max_components=5):
    """The rings explorer of chapter 4, live, from :func:`draw_rings`.

    Parameters
    ----------
    c : float, default=10.0
        Initial width, one of ``c_values``.
    n_components : int, default=3
        Initial component q.
    c_values : sequence of float, optional
        The slider's listed widths. Default: 0.1, 0.3, 1, 3, 10, 30
        and 100 (two per decade). The live slider moves continuously.
    max_components : int, default=5
        The largest q of the slider.

    Returns
    -------
    Explorer
    """
    if c_values is None:
        c_values = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]
    max_components = check_int(max_components, "max_components", minimum=1)
    sliders = [
        Slider("c", c_values, initial=c, label="kernel width c", format="{:.3g}",
               live=LiveRange(min(c_values), max(c_values), log=True)),
        Slider("n_components", range(1, max_components + 1), initial=n_components,
               label="component q", live=LiveRange(1, max_components, integer=True)),
    ]
    return Explorer(draw_rings, sliders, name="rings", subplots=(1, 2), figsize=(9, 4))
