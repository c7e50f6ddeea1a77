"""Appendix A: sparse PCA of the planted-topics data, as alpha and q move."""

import numpy as np

from .._validation import check_int
from ..datasets import TOPIC_WORDS, planted_topics
from ..sparse_pca import SparsePCA
from .explorer import Explorer
from .sliders import LiveRange, Slider

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
        ``reconstruction_r2``, the reconstruction R^2: the fraction
        of the squared norm of the centred data that its least-squares
        projection onto the span of the q loadings keeps (the loadings are
        not orthogonal in general, so their separate variances must not be
        added); ``objective``,
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
        "reconstruction_r2": float(1.0 - np.sum((X_c - X_hat) ** 2) / np.sum(X_c**2)),
        "objective": float(spca.objective_history_[-1]),
    }


def draw_topics(ax, alpha, n_components, colorbar=True):
    """Draw the absolute loadings of sparse PCA as a heat map (components x words).

    One row per component, one column per word: the four topics' words in
    blocks of 8 (separated by lines, named below the axis), then the
    filler words. Each cell is one loading, drawn without interpolation.

    Parameters
    ----------
    ax : matplotlib Axes
    alpha : float
        Weight of the l1 penalty.
    n_components : int
        Number of components q.
    colorbar : bool, default=True
        Draw a colour bar beside the map (in an inset of ``ax``, so that
        clearing ``ax`` removes it too).

    Returns
    -------
    str
        The number of words of each component.
    """
    out = sparse_pca_topics(alpha, n_components)
    image = ax.imshow(np.abs(out["components"]), aspect="auto", cmap="Greys", vmin=0, vmax=0.5,
                      interpolation="nearest")
    topics = list(TOPIC_WORDS)
    size = len(TOPIC_WORDS[topics[0]])
    for edge in range(size, size * len(topics) + 1, size):
        ax.axvline(edge - 0.5, color="C1", lw=1)
    n_words = len(out["words"])
    # a label at the middle of each topic's block and of the filler words
    centres = [size * k + (size - 1) / 2 for k in range(len(topics))]
    centres.append((size * len(topics) + n_words - 1) / 2)
    ax.set_xticks(centres, topics + ["filler words"], fontsize=8)
    ax.tick_params(axis="x", length=0)
    q = out["components"].shape[0]
    ax.set_yticks(range(q), [str(k + 1) for k in range(q)] if q <= 8 else [""] * q, fontsize=8)
    ax.set_ylabel("component", fontsize=8)
    ax.set_title(rf"$\alpha$ = {alpha:g}, q = {n_components}: "
                 f"$R^2$ = {out['reconstruction_r2']:.2f}", fontsize=9)
    if colorbar:
        cax = ax.inset_axes([1.02, 0.0, 0.025, 1.0])
        bar = ax.figure.colorbar(image, cax=cax)
        bar.set_label("|loading|", fontsize=8)
        bar.ax.tick_params(labelsize=7)
    return f"words per component: {out['n_nonzero']}"


def topics_explorer(alpha=3.0, n_components=4, max_components=6):
    """The sparse PCA explorer of Appendix A, live, from :func:`draw_topics`.

    Parameters
    ----------
    alpha : float, default=3.0
        Initial l1 weight, one of 0, 0.5, 1, 2, 3, 4, 5, 6 (the slider's
        listed values; the live slider moves by 0.5 up to 10, where every loading is
        zero).
    n_components : int, default=4
        Initial number of components q.
    max_components : int, default=6
        The largest q of the slider.

    Returns
    -------
    Explorer
    """
    max_components = check_int(max_components, "max_components", minimum=1)
    sliders = [
        Slider("alpha", [0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], initial=alpha, label="alpha",
               format="{:g}", live=LiveRange(0.0, 10.0, step=0.5)),
        Slider("n_components", range(1, max_components + 1), initial=n_components,
               label="components q", live=LiveRange(1, max_components, integer=True)),
    ]
    return Explorer(draw_topics, sliders, name="sparse-pca-topics", figsize=(9.5, 2.8))
