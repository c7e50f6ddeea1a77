"""Figure helpers the chapters share (matplotlib only, no computing)."""

import numpy as np

__all__ = ["plot_gram_spectrum"]


# ---------------------------------------------------------------------------
# Chapter 3: a Gram matrix beside its eigenvalue spectrum
# ---------------------------------------------------------------------------


def plot_gram_spectrum(K, eigenvalues, axes, title=None):
    """Draw a Gram matrix as an image and its eigenvalues on a log scale.

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
        Put in front of both panel titles.

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
    prefix = f"{title}: " if title else ""
    ax_matrix.imshow(K, cmap="viridis", vmin=min(0.0, K.min()), vmax=max(1.0, K.max()))
    ax_matrix.set_title(prefix + "Gram matrix K")
    ax_matrix.set_xticks([])
    ax_matrix.set_yticks([])
    # round-off makes some eigenvalues tiny or slightly negative: floor them for the log axis
    floor = 1e-16 * max(1.0, np.abs(eigenvalues).max())
    index = np.arange(1, len(eigenvalues) + 1)
    ax_spectrum.semilogy(index, np.maximum(eigenvalues, floor), ".-")
    ax_spectrum.set_ylim(floor, 2 * max(1.0, np.abs(eigenvalues).max()))
    ax_spectrum.set_xlabel("k")
    ax_spectrum.set_ylabel("eigenvalue")
    ax_spectrum.set_title(prefix + "spectrum")
    return axes
