"""Appendix A: sparse PCA of the planted-topics data, as alpha and q move."""

import numpy as np

from .._validation import check_int
from ..datasets import planted_topics
from ..sparse_pca import SparsePCA
from .explorer import Explorer
from .static import LiveRange, Slider

__all__ = ["sparse_pca_topics", "draw_topics", "topics_explorer"]


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


def draw_topics(ax, alpha, n_components):
    """Draw the absolute loadings of sparse PCA as a heat map (components x words).

    Parameters
    ----------
    ax : matplotlib Axes
    alpha : float
        Weight of the l1 penalty.
    n_components : int
        Number of components q.

    Returns
    -------
    str
        The number of words of each component.
    """
    out = sparse_pca_topics(alpha, n_components)
    ax.imshow(np.abs(out["components"]), aspect="auto", cmap="Greys", vmin=0, vmax=0.5)
    ax.set_title(f"alpha={alpha:g}, q={n_components}\nvar kept {out['explained_variance_ratio']:.2f}",
                 fontsize=8)
    ax.set_xticks([0, 8, 16, 24, 32])
    ax.set_yticks([])
    return f"words per component: {out['n_nonzero']}"


def topics_explorer(alpha=3.0, n_components=4, max_components=8, dpi=72):
    """The sparse PCA explorer of Appendix A: live or precomputed, from :func:`draw_topics`.

    Parameters
    ----------
    alpha : float, default=3.0
        Initial l1 weight, a multiple of 0.5 in [0, 10].
    n_components : int, default=4
        Initial number of components q.
    max_components : int, default=8
        The largest q of the slider.
    dpi : int, default=72
        Resolution at which the precomputed frames are shown.

    Returns
    -------
    Explorer
    """
    max_components = check_int(max_components, "max_components", minimum=1)
    sliders = [
        Slider("alpha", [k / 2 for k in range(21)], initial=alpha, label="alpha", format="{:g}",
               live=LiveRange(0.0, 10.0, step=0.5)),
        Slider("n_components", range(1, max_components + 1), initial=n_components,
               label="components q", live=LiveRange(1, max_components, integer=True)),
    ]
    return Explorer(draw_topics, sliders, name="sparse-pca-topics", figsize=(5, 2), dpi=dpi)
