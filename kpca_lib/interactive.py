"""The computing behind the chapters' widgets, apart from drawing and wiring.

Each widget has a pure function (parameters -> arrays and numbers) that the
tests call directly; the figure is drawn by a helper of
:mod:`kpca_lib.plotting`, and a small ``*_widget`` function wires sliders to
both. ipywidgets is imported only inside the wiring functions.
"""

import numpy as np
from scipy.linalg import eigvalsh
from sklearn.utils import check_array

from ._validation import check_real
from .datasets import planted_topics
from .kernels import Gaussian
from .sparse_pca import SparsePCA

__all__ = ["gram_spectrum", "gram_spectrum_widget", "sparse_pca_topics"]


# ---------------------------------------------------------------------------
# Chapter 3: Gram matrix and eigenvalue spectrum of the Gaussian kernel
# ---------------------------------------------------------------------------


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


def gram_spectrum_widget(X, c_min=1e-3, c_max=1e2, c=1.0):
    """A slider for the width c that redraws the Gram matrix and its spectrum.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows; order them (e.g. by cluster) to see blocks in K.
    c_min, c_max : float, default=1e-3, 1e2
        Range of the logarithmic slider, 0 < c_min < c_max.
    c : float, default=1.0
        Initial width.

    Returns
    -------
    widget : ipywidgets.VBox
        The slider above the figure; display it in a notebook.

    Examples
    --------
    >>> import numpy as np
    >>> widget = gram_spectrum_widget(np.eye(3))  # doctest: +SKIP
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .plotting import plot_gram_spectrum

    c_min = check_real(c_min, "c_min", minimum=0, strict=True)
    c_max = check_real(c_max, "c_max", minimum=c_min, strict=True)
    c = check_real(c, "c", minimum=c_min)
    X = check_array(X, dtype=np.float64, input_name="X")
    slider = widgets.FloatLogSlider(
        value=c, base=10, min=np.log10(c_min), max=np.log10(c_max), step=0.05,
        description="c", continuous_update=False, readout_format=".3g",
    )
    output = widgets.Output()

    def redraw(change=None):
        K, eigenvalues = gram_spectrum(X, slider.value)
        with output:
            output.clear_output(wait=True)
            fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
            plot_gram_spectrum(K, eigenvalues, axes, title=f"c = {slider.value:.3g}")
            plt.show()

    slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([slider, output])


# ---------------------------------------------------------------------------
# Appendix A: sparse PCA on the planted-topics data
# ---------------------------------------------------------------------------


def sparse_pca_topics(alpha, n_components, n_documents=400, random_state=0):
    """Sparse PCA of the planted-topics data for one (alpha, q) setting.

    Parameters
    ----------
    alpha : float
        Weight of the l1 penalty, ``>= 0``.
    n_components : int
        Number of components q, between 1 and 56.
    n_documents : int, default=400
        Number of documents of :func:`kpca_lib.datasets.planted_topics`.
    random_state : int, default=0
        Seed of the data.

    Returns
    -------
    dict
        ``components`` (q, 56), the unit loadings; ``words`` (the column
        names); ``n_nonzero`` (q,), the number of words of each component;
        ``explained_variance_ratio``, the fraction of the variance of the
        centred data that the rank-q reconstruction keeps; ``objective``,
        the final value of the objective.

    Examples
    --------
    >>> out = sparse_pca_topics(alpha=3.0, n_components=4)
    >>> out["n_nonzero"]
    array([8, 8, 8, 8])
    """
    data = planted_topics(n_documents=n_documents, random_state=random_state)
    spca = SparsePCA(n_components=n_components, alpha=alpha).fit(data.X)
    X_c = data.X - spca.mean_
    X_hat = spca.inverse_transform(spca.transform(data.X)) - spca.mean_
    return {
        "components": spca.components_,
        "words": data.words,
        "n_nonzero": np.count_nonzero(spca.components_, axis=1),
        "explained_variance_ratio": float(1.0 - np.sum((X_c - X_hat) ** 2) / np.sum(X_c**2)),
        "objective": float(spca.objective_history_[-1]),
    }
