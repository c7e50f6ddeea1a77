"""Chapter 3: the Gram matrix of the Gaussian kernel and its spectrum, as the width c moves."""

import numpy as np
from scipy.linalg import eigvalsh
from sklearn.utils import check_array

from .._validation import check_real
from ..kernels import Gaussian
from ..plotting import plot_gram_spectrum
from .explorer import Explorer
from .static import LiveRange, Slider

__all__ = ["gram_spectrum", "draw_gram_spectrum", "gram_spectrum_explorer"]


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


def draw_gram_spectrum(axes, X, c):
    """Draw the Gram matrix of X at width c and its spectrum; return the caption.

    Parameters
    ----------
    axes : sequence of two matplotlib Axes
        The matrix and the spectrum.
    X : ndarray of shape (n_samples, n_features)
        Samples as rows (ordered, e.g. by cluster, so that K shows blocks).
    c : float
        Kernel width.

    Returns
    -------
    str
        The largest eigenvalue and how many exceed 0.01 (a threshold far
        above round-off, so the count is the same on every machine).
    """
    K, eigenvalues = gram_spectrum(X, c)
    plot_gram_spectrum(K, eigenvalues, axes, title=f"c = {c:.3g}")
    return (
        f"c = {c:.3g}: largest eigenvalue {eigenvalues[0]:.3f}, eigenvalues above 0.01: "
        f"{int(np.sum(eigenvalues > 0.01))} of {len(eigenvalues)}"
    )


def gram_spectrum_explorer(X, c=0.1, c_values=None, dpi=80):
    """The width explorer of chapter 3: live (:meth:`~Explorer.live`) or precomputed (:meth:`~Explorer.static`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows.
    c : float, default=0.1
        Initial width, one of ``c_values``.
    c_values : sequence of float, optional
        Widths of the precomputed explorer. Default: 21 widths from 0.001
        to 100, four per decade, rounded to three digits. The live slider
        moves continuously over the same range.
    dpi : int, default=80
        Resolution at which the precomputed frames are shown.

    Returns
    -------
    Explorer

    Examples
    --------
    >>> import numpy as np
    >>> explorer = gram_spectrum_explorer(np.eye(3), c_values=[0.1, 1.0], c=1.0, dpi=20)
    >>> explorer.static().captions_[1]
    'c = 1: largest eigenvalue 1.271, eigenvalues above 0.01: 3 of 3'
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    if c_values is None:
        c_values = [float(f"{10 ** (k / 4):.3g}") for k in range(-12, 9)]
    c_values = [check_real(value, "c_values", minimum=0, strict=True) for value in c_values]
    slider = Slider(
        "c", c_values, initial=c, label="kernel width c", format="{:.3g}",
        live=LiveRange(min(c_values), max(c_values), log=True),
    )

    def draw(axes, c):
        return draw_gram_spectrum(axes, X, c)

    return Explorer(draw, [slider], name="gram-spectrum", subplots=(1, 2), figsize=(8, 3.2), dpi=dpi)
