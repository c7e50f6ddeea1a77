"""Figure helpers the chapters share (matplotlib only, no computing)."""

import numpy as np
from matplotlib.ticker import LogLocator, NullFormatter

__all__ = ["plot_gram_spectrum", "plot_kernel_profile", "roundoff_level", "use_book_style"]

# the width of the book's text column on a desktop, in CSS pixels at 100 dpi: a figure
# this wide is shown at its drawn size (kpca_lib/book.mplstyle's figure.figsize)
COLUMN_INCHES = 7.0


def use_book_style():
    """Draw every figure that follows in the book's style.

    Applies ``kpca_lib/book.mplstyle`` (sizes for the text column, one colour
    cycle, text of at least 10 px as shown) and, inside IPython, renders the
    inline PNGs at twice their size for high-DPI screens ("retina": the image
    is shown at its drawn size, with twice the pixels).
    """
    import matplotlib.pyplot as plt

    plt.style.use("kpca_lib.book")
    try:
        from IPython import get_ipython
    except ImportError:  # matplotlib without IPython: nothing inline to configure
        return
    shell = get_ipython()
    if shell is not None and "IPKernelApp" in shell.config:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("retina")


# ---------------------------------------------------------------------------
# Chapter 3: a Gram matrix beside its eigenvalue spectrum
# ---------------------------------------------------------------------------


def roundoff_level(eigenvalues):
    """The size below which eigenvalues of a symmetric matrix are round-off.

    A backward-stable eigensolver returns the eigenvalues of a matrix within
    about ``n * eps * max |eigenvalue|`` of the exact ones, so smaller values
    (and their signs) carry no information.

    Parameters
    ----------
    eigenvalues : ndarray of shape (n,)
        The eigenvalues.

    Returns
    -------
    float
        ``n * eps * max(1, max |eigenvalue|)``.

    Examples
    --------
    >>> float(roundoff_level(np.array([100.0, 1.0])) / np.finfo(float).eps)
    200.0
    """
    eigenvalues = np.asarray(eigenvalues, dtype=float)
    scale = max(1.0, float(np.abs(eigenvalues).max())) if eigenvalues.size else 1.0
    return eigenvalues.size * np.finfo(np.float64).eps * scale


def plot_gram_spectrum(K, eigenvalues, axes, title=None):
    """Draw a Gram matrix as an image (with a colorbar) and its eigenvalues on a log scale.

    The colour scale runs from ``min(0, K.min())`` to ``max(1, K.max())``,
    symmetric about 0 when K has negative entries. Eigenvalues below the
    round-off level (:func:`roundoff_level`) are drawn on the floor of the
    log axis, inside a grey band that marks the level: their size and sign
    are not facts about the matrix.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The Gram matrix.
    eigenvalues : ndarray of shape (n,)
        Its eigenvalues, largest first (as returned by
        :func:`kpca_lib.explorers.gram_spectrum`).
    axes : sequence of two matplotlib Axes
        Where to draw the matrix and the spectrum.
    title : str, optional
        Added to the matrix panel's title (e.g. the kernel width).

    Returns
    -------
    axes : sequence of two matplotlib Axes
        The axes drawn on.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> fig, axes = plt.subplots(1, 2)
    >>> _ = plot_gram_spectrum(np.eye(3), np.ones(3), axes)
    >>> plt.close(fig)
    """
    ax_matrix, ax_spectrum = axes
    high = max(1.0, float(K.max()))
    low = 0.0 if K.min() >= 0 else -max(high, float(-K.min()))
    if low < 0:
        high = -low  # signed entries: colour limits symmetric about 0
    image = ax_matrix.imshow(K, cmap="viridis" if low == 0 else "RdBu_r", vmin=low, vmax=high)
    # an inset axes is cleared with its parent, so redrawing a frame adds no second colorbar
    colorbar_axes = ax_matrix.inset_axes([1.03, 0.0, 0.05, 1.0])
    ax_matrix.figure.colorbar(image, cax=colorbar_axes)
    ax_matrix.set_title(f"Gram matrix K, {title}" if title else "Gram matrix K")
    ax_matrix.set_xticks([])
    ax_matrix.set_yticks([])

    floor = roundoff_level(eigenvalues)
    top = 2 * max(1.0, float(np.abs(eigenvalues).max()))
    index = np.arange(1, len(eigenvalues) + 1)
    # a band under the round-off level, its label low enough to stay clear of the floored points
    ax_spectrum.axhspan(floor / 1000, floor, color="0.85")
    ax_spectrum.text(0.02, 0.015, "round-off level", transform=ax_spectrum.transAxes, fontsize="small")
    ax_spectrum.semilogy(index, np.maximum(eigenvalues, floor), ".-")
    ax_spectrum.set_ylim(floor / 1000, top)
    _readable_log_ticks(ax_spectrum.yaxis)
    ax_spectrum.set_xlabel("eigenvalue number j")
    ax_spectrum.set_ylabel("eigenvalue")
    ax_spectrum.set_title("its eigenvalues")
    return axes


def plot_kernel_profile(ax, c, squared_distances, nearest_neighbour=None, median=None):
    """Draw the Gaussian kernel against the squared distance, over the data's squared distances.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    c : float
        Kernel width: the curve is ``exp(-r / c)`` against ``r = ||x - y||^2``.
    squared_distances : ndarray of shape (m,)
        The squared distances between pairs of samples; their histogram is
        drawn in grey (log-spaced bins, scaled so that the tallest bar is 1).
    nearest_neighbour : float, optional
        Median squared distance to the nearest neighbour: a dashed line.
    median : float, optional
        Median squared distance over all pairs (the median heuristic's c):
        a dotted line. Both are labelled above the panel (no legend over
        the data); a dot marks the curve at ``r = c``, where it is ``1/e``.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = plot_kernel_profile(ax, 1.0, np.array([0.5, 1.0, 2.0]), 0.5, 1.0)
    >>> plt.close(fig)
    """
    positive = np.asarray(squared_distances, dtype=float)
    positive = positive[positive > 0]
    if positive.size == 0:  # every pair coincides: no distances to show
        positive = np.array([c])
    # the same range for every c that fits in it, so that frames of an explorer compare
    low = min(float(positive.min()) / 10, c / 3)
    high = max(float(positive.max()) * 100, 3 * c)
    bins = np.geomspace(low, high, 41)
    counts, _ = np.histogram(positive, bins=bins)
    ax.bar(bins[:-1], counts / max(1, counts.max()), width=np.diff(bins), align="edge", color="0.85")
    r = np.geomspace(low, high, 200)
    ax.semilogx(r, np.exp(-r / c), color="C0")
    # at r = c the kernel has fallen to 1/e: that is what the width means
    ax.plot([c], [np.exp(-1)], "o", color="C0")
    ax.annotate("r = c ", (c, np.exp(-1)), xytext=(-4, 0), textcoords="offset points",
                ha="right", va="center", fontsize="small", color="C0")
    # label the reference lines above the panel, rather than with a legend over the data
    top = ax.get_xaxis_transform()
    for value, name, color, style, align in [
            (nearest_neighbour, "nearest neighbour", "C1", "--", "right"),
            (median, "median", "C3", ":", "left")]:
        if value is not None:
            ax.axvline(value, color=color, linestyle=style, linewidth=1)
            ax.text(value, 1.02, name, transform=top, ha=align, va="bottom",
                    fontsize="small", color=color)
    ax.set_xlim(low, high)
    ax.set_ylim(0, 1.05)
    _readable_log_ticks(ax.xaxis)
    ax.set_xlabel(r"squared distance $r = \|x - y\|^2$")
    ax.set_ylabel(r"kernel value $e^{-r/c}$ (blue)")
    return ax


def _readable_log_ticks(axis, max_labels=6):
    """Label at most ``max_labels`` powers of ten on a log axis; unlabelled minor ticks per decade."""
    axis.set_major_locator(LogLocator(base=10.0, numticks=max_labels))
    axis.set_minor_locator(LogLocator(base=10.0, subs=(1.0,), numticks=100))
    axis.set_minor_formatter(NullFormatter())
