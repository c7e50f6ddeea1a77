"""Widgets of the book: the computing, as pure functions the tests call.

Each section belongs to one chapter. A function here maps parameters to
arrays and numbers; the drawing and the ipywidgets wiring live in the
chapter, so that the rendered book can show a static grid of the same
function's outputs.
"""

import numpy as np


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
    from .datasets import planted_topics
    from .sparse_pca import SparsePCA

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
