"""Chapter 1: turn a unit vector w in the plane; the variance it captures and the error it leaves.

For a centred 2-D cloud and ``w = (cos angle, sin angle)``, the variance of
the projections ``w^T C w`` and the mean squared residual (the reconstruction
error from one component) always add up to ``tr(C)``: the direction of
largest variance is the direction of smallest error.
"""

import numpy as np
from matplotlib import patheffects
from matplotlib.collections import LineCollection
from scipy.linalg import eigh
from sklearn.utils import Bunch, check_array
from sklearn.utils.extmath import svd_flip

from .._validation import check_real
from .explorer import Explorer
from .sliders import LiveRange, Slider

__all__ = ["pca_direction", "captured_variance", "draw_pca_plane", "draw_pca_direction",
           "pca_direction_explorer"]

# colours shared by the two panels: projections and variance in blue, residuals and error in red
_VARIANCE, _ERROR, _POINTS, _W = "C0", "C3", "0.6", "C1"


def _check_cloud(X):
    X = check_array(X, dtype=np.float64, input_name="X", ensure_min_samples=2)
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 features (columns), a cloud in the plane; got {X.shape[1]}.")
    return X


def _unit_vector(angle):
    radians = np.radians(angle)
    return np.array([np.cos(radians), np.sin(radians)])


def captured_variance(X, angles):
    """The variance ``w^T C w`` captured by ``w = (cos a, sin a)`` for each angle a.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        The cloud, samples as rows (centred here).
    angles : array-like of shape (m,)
        Angles of w in degrees.

    Returns
    -------
    ndarray of shape (m,)
        ``w^T C w`` with ``C = X~^T X~ / n``. The reconstruction error of
        each w is ``tr(C)`` minus this.

    Examples
    --------
    >>> X = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 0.5], [0.0, -0.5]])
    >>> captured_variance(X, [0.0, 90.0]).round(4)
    array([0.5  , 0.125])
    """
    X = _check_cloud(X)
    angles = check_array(np.atleast_1d(angles), dtype=np.float64, ensure_2d=False, input_name="angles")
    X_centred = X - X.mean(axis=0)
    C = X_centred.T @ X_centred / X.shape[0]
    W = _unit_vector(angles)  # 2 x m, one direction per column
    return np.einsum("im,ij,jm->m", W, C, W)


def pca_direction(X, angle):
    """Projections of a 2-D cloud on ``w = (cos angle, sin angle)``, their variance and the error left.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        The cloud, samples as rows, at least two.
    angle : float
        Angle of w in degrees (w and -w, 180 degrees apart, span the same line).

    Returns
    -------
    result : sklearn.utils.Bunch
        ``mean`` (2,); ``w`` (2,), the unit vector; ``projections`` (n,),
        ``w^T (x_i - mean)``; ``reconstructions`` (n, 2),
        ``mean + w w^T (x_i - mean)``; ``variance``, the variance of the
        projections ``w^T C w``; ``error``, the mean squared distance of the
        points to their reconstructions; ``total``, ``tr(C)``, which the two
        add up to; ``eigenvalues`` (2,) and ``components`` (2, 2) (rows),
        the principal axes, eigenpairs of ``C = X~^T X~ / n`` with the
        sign convention of :class:`kpca_lib.PCA` (as it finds them, and
        also for a cloud on a line, where ``lambda_2 = 0``);
        ``component_angles`` (2,), their angles in degrees in [0, 180).

    Examples
    --------
    >>> X = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 0.5], [0.0, -0.5]])
    >>> result = pca_direction(X, angle=0.0)
    >>> float(result.variance), float(result.error), float(result.total)
    (0.5, 0.125, 0.625)
    >>> result.component_angles.round(1)
    array([ 0., 90.])
    """
    X = _check_cloud(X)
    angle = check_real(angle, "angle")
    mean = X.mean(axis=0)
    X_centred = X - mean
    w = _unit_vector(angle)
    projections = X_centred @ w
    reconstructions = mean + np.outer(projections, w)
    C = X_centred.T @ X_centred / X.shape[0]
    eigenvalues, W = eigh(C)
    # largest first, and kpca_lib.PCA's sign convention: each axis's entry largest in absolute
    # value is positive (eigh, not PCA, so that a cloud on a line still has its two axes)
    _, components = svd_flip(None, np.ascontiguousarray(W[:, ::-1].T), u_based_decision=False)
    return Bunch(
        mean=mean,
        w=w,
        projections=projections,
        reconstructions=reconstructions,
        variance=float(np.mean(projections**2)),
        error=float(np.mean(np.sum((X - reconstructions) ** 2, axis=1))),
        total=float(np.sum(X_centred**2) / X.shape[0]),
        eigenvalues=eigenvalues[::-1],
        components=components,
        component_angles=np.degrees(np.arctan2(components[:, 1], components[:, 0])) % 180,
    )


def draw_pca_plane(ax, X, angle, result=None, limits=None, show_w=True):
    """Draw the cloud, the line through its mean along w, the projections, the residuals and the axes.

    The principal axes are drawn as arrows ``sqrt(lambda_k) w_k`` from the
    mean (one standard deviation of the projections on each), the unit
    vector w as a blue arrow; the projections are blue dots on the line and
    the residuals red segments from each point to its projection.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    X : ndarray of shape (n_samples, 2)
        The cloud.
    angle : float
        Angle of w in degrees.
    result : Bunch, optional
        ``pca_direction(X, angle)``, if already computed.
    limits : tuple of two pairs, optional
        ``((x_min, x_max), (y_min, y_max))``; default: the cloud's, with a margin.
    show_w : bool, default=True
        Whether to draw the arrow of w (leave it out where w is a principal
        axis, whose arrow it would hide).

    Returns
    -------
    result : Bunch
        What :func:`pca_direction` returned.
    """
    X = _check_cloud(X)
    if result is None:
        result = pca_direction(X, angle)
    mean, w = result.mean, result.w
    if limits is None:
        half = 1.1 * np.abs(X - mean).max()
        limits = ((mean[0] - half, mean[0] + half), (mean[1] - half, mean[1] + half))
    reach = 2 * (limits[0][1] - limits[0][0] + limits[1][1] - limits[1][0])
    ax.plot(*np.column_stack([mean - reach * w, mean + reach * w]), color=_VARIANCE, linewidth=1,
            zorder=1)
    segments = np.stack([X, result.reconstructions], axis=1)
    ax.add_collection(LineCollection(segments, colors=_ERROR, linewidths=0.7, alpha=0.8, zorder=2))
    ax.scatter(*X.T, s=9, color=_POINTS, zorder=3)
    ax.scatter(*result.reconstructions.T, s=5, color=_VARIANCE, zorder=4)
    # a white rim keeps the arrows readable over the points and the projections
    rim = [patheffects.withStroke(linewidth=4.5, foreground="white")]
    for k in range(2):
        tip = np.sqrt(max(result.eigenvalues[k], 0.0)) * result.components[k]
        arrow = ax.annotate("", xy=mean + tip, xytext=mean, zorder=5,
                            arrowprops=dict(arrowstyle="-|>", color="black", linewidth=2, mutation_scale=14))
        arrow.arrow_patch.set_path_effects(rim)
        # the label beyond the tip, on a white box so that points and residuals don't hide it
        ax.annotate(rf"$\sqrt{{\lambda_{k + 1}}}\, w_{k + 1}$", mean + tip, xytext=18 * result.components[k],
                    textcoords="offset points", ha="center", va="center", fontsize=10, zorder=6,
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85))
    if show_w:
        arrow = ax.annotate("", xy=mean + w, xytext=mean, zorder=5,
                            arrowprops=dict(arrowstyle="-|>", color=_W, linewidth=2.5, mutation_scale=16))
        arrow.arrow_patch.set_path_effects(rim)
        ax.annotate("$w$", mean + w, xytext=12 * w, textcoords="offset points",
                    ha="center", va="center", fontsize=12, color=_W, zorder=6,
                    bbox=dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.85))
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return result


def draw_pca_direction(axes, X, angle, limits=None):
    """Draw the plane (:func:`draw_pca_plane`) and the variance and error over every angle; return the caption.

    Parameters
    ----------
    axes : sequence of two matplotlib Axes
        The plane, and the curves ``w^T C w`` and ``tr(C) - w^T C w``
        against the angle of w with the current angle marked.
    X : ndarray of shape (n_samples, 2)
        The cloud.
    angle : float
        Angle of w in degrees.
    limits : tuple of two pairs, optional
        The plane's limits (fixed, so that the live widget's pictures compare as w turns).

    Returns
    -------
    str
        The angle, the variance captured, the reconstruction error and their
        sum, to three decimals.
    """
    ax_plane, ax_curves = axes
    result = draw_pca_plane(ax_plane, X, angle, limits=limits)
    ax_plane.set_title(f"w at {angle:g}°: projections (blue), residuals (red)", fontsize=10)

    grid = np.linspace(0, 180, 181)
    variance = captured_variance(X, grid)
    ax_curves.axhline(result.total, color="black", linestyle="--", linewidth=1)
    ax_curves.plot(grid, variance, color=_VARIANCE, linewidth=2, label=r"variance captured $w^\top C w$")
    ax_curves.plot(grid, result.total - variance, color=_ERROR, linewidth=2, label="reconstruction error")
    ax_curves.axvline(angle % 180, color="0.5", linewidth=1)
    ax_curves.plot([angle % 180] * 2, [result.variance, result.error], "o", color="black", markersize=5)
    ax_curves.set_xlim(0, 180)
    ax_curves.set_ylim(0, 1.3 * result.total)
    ax_curves.set_xticks([0, 45, 90, 135, 180])
    ax_curves.set_xlabel("angle of w (degrees)")
    ax_curves.set_ylabel("variance, squared distance")
    ax_curves.text(2, result.total, r" tr$(C)$ = their sum", va="bottom", fontsize=9)
    # the band above tr(C) holds no curve: the legend goes there
    ax_curves.legend(loc="upper right", fontsize=8, ncols=2, frameon=False)
    ax_curves.set_title("over every angle of w", fontsize=10)
    return (f"angle {angle:g}°: variance captured {result.variance:.3f}, reconstruction error "
            f"{result.error:.3f}, sum {result.variance + result.error:.3f} = tr(C)")


def pca_direction_explorer(X, angle=30.0, angle_values=None):
    """The explorer of chapter 1: turn w, live (:meth:`~Explorer.live`) or as a figure (:meth:`~Explorer.figure`).

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        The cloud.
    angle : float, default=30.0
        Initial angle of w in degrees, one of ``angle_values``.
    angle_values : sequence of float, optional
        The slider's listed angles. Default: 0 to 170 degrees in steps of
        10. The live slider moves over [0, 180) in steps of 0.5.

    Returns
    -------
    Explorer

    Examples
    --------
    >>> X = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 0.5], [0.0, -0.5]])
    >>> explorer = pca_direction_explorer(X, angle=0.0, angle_values=[0.0, 90.0])
    >>> fig, caption = explorer.figure(angle=90.0)
    >>> caption
    'angle 90°: variance captured 0.125, reconstruction error 0.500, sum 0.625 = tr(C)'
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    X = _check_cloud(X)
    if angle_values is None:
        angle_values = [float(a) for a in range(0, 180, 10)]
    angle_values = [check_real(value, "angle_values", minimum=0) for value in angle_values]
    if max(angle_values) >= 180:
        raise ValueError(f"angle_values must be in [0, 180) degrees, got {max(angle_values)!r}.")
    slider = Slider("angle", angle_values, initial=angle, label="angle of w (degrees)", format="{:g}",
                    live=LiveRange(0.0, 179.5, step=0.5))
    mean = X.mean(axis=0)
    half = 1.1 * np.abs(X - mean).max()
    limits = ((mean[0] - half, mean[0] + half), (mean[1] - half, mean[1] + half))

    def draw(axes, angle):
        return draw_pca_direction(axes, X, angle, limits=limits)

    return Explorer(draw, [slider], name="pca-direction", subplots=(1, 2), figsize=(9.5, 4.2))
