"""Chapter 3: the Gram matrix of the Gaussian kernel and its spectrum, as the width c moves."""

import numpy as np
from scipy.linalg import eigvalsh
from scipy.spatial.distance import pdist, squareform
from sklearn.utils import check_array

from .._validation import check_real
from ..kernels import Gaussian
from ..plotting import plot_gram_spectrum, plot_kernel_profile
from .explorer import Explorer
from .sliders import LiveRange, Slider

__all__ = ["gram_spectrum", "squared_distance_scales", "draw_gram_spectrum", "gram_spectrum_explorer"]


def gram_spectrum(X, c):
    """Gaussian Gram matrix of X and its eigenvalues, largest first.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows.
    c : float
        Width of the Gaussian kernel ``exp(-||x - y||^2 / c)``, > 0.

    Returns
    -------
    K : ndarray of shape (n_samples, n_samples)
        The Gram matrix ``K[i, j] = exp(-||x_i - x_j||^2 / c)``.
    eigenvalues : ndarray of shape (n_samples,)
        The eigenvalues of K in descending order. They are >= 0 up to
        round-off (the Gaussian kernel is PSD) and sum to ``trace(K) = n``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> K, eigenvalues = gram_spectrum(X, c=1.0)
    >>> K.round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    >>> eigenvalues.round(4)
    array([1.3679, 0.6321])
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    c = check_real(c, "c", minimum=0, strict=True)
    K = Gaussian(c=c)(X)
    eigenvalues = eigvalsh(K)[::-1]
    return K, eigenvalues


def squared_distance_scales(X):
    """The two squared distances that bracket a sensible Gaussian width c.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows, at least two.

    Returns
    -------
    nearest_neighbour : float
        The median, over the samples, of the squared distance to the nearest
        other sample. For c well below it, most points are alone and K is
        close to the identity.
    median : float
        The median of the squared distances over all pairs ``i < j``: the
        *median heuristic* for c. For c well above the largest squared
        distance, K is close to the all-ones matrix.

    Examples
    --------
    >>> squared_distance_scales([[0.0], [1.0], [3.0]])
    (1.0, 4.0)
    """
    X = check_array(X, dtype=np.float64, input_name="X", ensure_min_samples=2)
    pair_distances = pdist(X, "sqeuclidean")
    to_others = squareform(pair_distances)
    np.fill_diagonal(to_others, np.inf)
    return float(np.median(to_others.min(axis=1))), float(np.median(pair_distances))


def draw_gram_spectrum(axes, X, c, scales=None):
    """Draw the Gram matrix of X at width c, its spectrum and the kernel profile; return the caption.

    Parameters
    ----------
    axes : sequence of three matplotlib Axes
        The matrix, the spectrum, and the kernel against the squared
        distance (over the histogram of the data's squared distances).
    X : ndarray of shape (n_samples, n_features)
        Samples as rows (ordered, e.g. by cluster, so that K shows blocks).
    c : float
        Kernel width.
    scales : tuple of two floats, optional
        ``squared_distance_scales(X)``, if already computed.

    Returns
    -------
    str
        The width relative to the median heuristic, the largest eigenvalue
        and how many exceed 0.01 (a threshold far above round-off, so the
        count is the same on every machine).
    """
    K, eigenvalues = gram_spectrum(X, c)
    if scales is None:
        scales = squared_distance_scales(X)
    nearest_neighbour, median = scales
    plot_gram_spectrum(K, eigenvalues, axes[:2], title=f"c = {c:.3g}")
    plot_kernel_profile(axes[2], c, pdist(X, "sqeuclidean"), nearest_neighbour, median)
    # two significant digits, written out (100, not 1e+02)
    relative = f" = {float(f'{c / median:.2g}'):g} x median squared distance" if median > 0 else ""
    return (
        f"c = {c:.3g}{relative}: largest eigenvalue {eigenvalues[0]:.3f}, eigenvalues above "
        f"0.01: {int(np.sum(eigenvalues > 0.01))} of {len(eigenvalues)}"
    )


def gram_spectrum_explorer(X, c=0.1, c_values=None):
    """The width explorer of chapter 3: live (:meth:`~Explorer.live`) or as a figure (:meth:`~Explorer.figure`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows.
    c : float, default=0.1
        Initial width, one of ``c_values``.
    c_values : sequence of float, optional
        The slider's listed widths. Default: 21 widths from 0.001 to 100,
        four per decade, rounded to three digits. The live slider moves
        continuously over the same range.

    Returns
    -------
    Explorer

    Examples
    --------
    >>> import numpy as np
    >>> explorer = gram_spectrum_explorer(np.eye(3), c_values=[0.1, 1.0], c=1.0)
    >>> fig, caption = explorer.figure(c=1.0)
    >>> caption
    'c = 1 = 0.5 x median squared distance: largest eigenvalue 1.271, eigenvalues above 0.01: 3 of 3'
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    if c_values is None:
        c_values = [float(f"{10 ** (quarter / 4):.3g}") for quarter in range(-12, 9)]
    c_values = [check_real(value, "c_values", minimum=0, strict=True) for value in c_values]
    slider = Slider(
        "c", c_values, initial=c, label="kernel width c", format="{:.3g}",
        live=LiveRange(min(c_values), max(c_values), log=True),
    )

    scales = squared_distance_scales(X)

    def draw(axes, c):
        return draw_gram_spectrum(axes, X, c, scales)

    return Explorer(draw, [slider], name="gram-spectrum", subplots=(1, 3), figsize=(9, 3.3))
