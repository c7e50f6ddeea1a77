"""Appendices A and B: documents with planted topics, low-rank plus sparse matrices, a video."""

import numpy as np
from sklearn.utils import Bunch, check_random_state

from .._validation import check_int, check_real

__all__ = ["TOPIC_WORDS", "FILLER_WORDS", "planted_topics", "sparse_spiked", "low_rank_plus_sparse",
           "synthetic_video"]


#: The planted topics of :func:`planted_topics` and their words.
TOPIC_WORDS = {
    "sport": ["goal", "match", "team", "player", "score", "coach", "league", "season"],
    "cooking": ["oven", "flour", "sugar", "recipe", "bake", "butter", "salt", "dough"],
    "space": ["orbit", "rocket", "planet", "star", "launch", "moon", "galaxy", "comet"],
    "music": ["guitar", "melody", "chord", "band", "song", "drum", "tempo", "rhythm"],
}

#: Words that belong to no topic and appear at random in every document.
FILLER_WORDS = [
    "today", "people", "new", "time", "year", "good", "great", "city", "day", "week",
    "young", "small", "long", "first", "last", "house", "friend", "story", "water", "light",
    "night", "world", "school", "morning",
]


def planted_topics(n_documents=400, p_topic=0.3, p_word=0.7, p_filler=0.1, random_state=0):
    """Binary word-occurrence data with four planted topics.

    Each document switches on every topic of :data:`TOPIC_WORDS`
    independently with probability ``p_topic``. A word of a topic that is
    on appears with probability ``p_word``; every other word (filler words,
    and words of topics that are off) appears with probability
    ``p_filler``. The topics are independent and of equal strength, so
    their variances are tied in the population and close in a sample:
    dense PCA may mix them, sparse PCA should find each topic's word set.

    Parameters
    ----------
    n_documents : int, default=400
        Number of documents n.
    p_topic : float, default=0.3
        Probability that a topic is on in a document, in [0, 1].
    p_word : float, default=0.7
        Probability of a word of a topic that is on, in [0, 1].
    p_filler : float, default=0.1
        Probability of any other word, in [0, 1].
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X`` (n_documents, 56) of 0.0 and 1.0 (document ``i`` uses word
        ``j``), ``words`` (the 56 column names: the topic words, then the
        filler words), ``topics`` (the topic names), ``topic_of_word``
        (the topic index of each word, -1 for filler words) and
        ``topics_on`` (n_documents, 4) booleans.

    Examples
    --------
    >>> data = planted_topics(n_documents=10)
    >>> data.X.shape, data.words[:3], data.topics
    ((10, 56), ['goal', 'match', 'team'], ['sport', 'cooking', 'space', 'music'])
    """
    n_documents = check_int(n_documents, "n_documents", minimum=1)
    for name, value in (("p_topic", p_topic), ("p_word", p_word), ("p_filler", p_filler)):
        check_real(value, name, minimum=0.0, maximum=1.0)
    rng = check_random_state(random_state)

    topics = list(TOPIC_WORDS)
    words = [word for topic in topics for word in TOPIC_WORDS[topic]] + FILLER_WORDS
    topic_of_word = np.concatenate(
        [np.full(len(TOPIC_WORDS[topic]), k) for k, topic in enumerate(topics)]
        + [np.full(len(FILLER_WORDS), -1)]
    )
    topics_on = rng.uniform(size=(n_documents, len(topics))) < p_topic
    # probability of each word in each document: p_word where its topic is on
    word_on = np.zeros((n_documents, len(words)), dtype=bool)
    word_on[:, topic_of_word >= 0] = topics_on[:, topic_of_word[topic_of_word >= 0]]
    probability = np.where(word_on, p_word, p_filler)
    X = (rng.uniform(size=probability.shape) < probability).astype(np.float64)
    return Bunch(X=X, words=words, topics=topics, topic_of_word=topic_of_word,
                 topics_on=topics_on)


def sparse_spiked(n_samples=50, n_features=500, n_nonzero=10, strengths=(8.0, 8.0),
                  random_state=0):
    """Gaussian samples from a spiked covariance with sparse spikes.

    The covariance is ``I + sum_k strengths[k] v_k v_k^T`` (Johnstone and
    Lu, 2009): the q = ``len(strengths)`` unit loadings ``v_k`` have
    disjoint supports of ``n_nonzero`` consecutive features each (the
    first block for ``v_1``, the next for ``v_2``, ...), with equal entries
    ``1 / sqrt(n_nonzero)``, so they are orthonormal. Each sample is
    ``sum_k sqrt(strengths[k]) z_k v_k + e`` with independent standard
    normal ``z_k`` and ``e`` (n_features). When ``n_features`` is large
    against ``n_samples``, the sample principal loadings are far from the
    ``v_k``: the setting where sparsity is needed for estimation.

    Parameters
    ----------
    n_samples : int, default=50
        Number of samples n.
    n_features : int, default=500
        Number of features d, at least ``n_nonzero * len(strengths)``.
    n_nonzero : int, default=10
        Number of non-zero entries of each loading.
    strengths : sequence of float, default=(8.0, 8.0)
        The spike strengths, each ``> 0`` (the variance added along
        ``v_k``; the noise has variance 1 per feature).
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X`` (n_samples, n_features) and ``loadings`` (n_features, q),
        the true unit loadings as columns.

    Examples
    --------
    >>> data = sparse_spiked(n_samples=5, n_features=40, n_nonzero=4, strengths=(3.0,))
    >>> data.X.shape, np.flatnonzero(data.loadings[:, 0]).tolist()
    ((5, 40), [0, 1, 2, 3])
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    n_nonzero = check_int(n_nonzero, "n_nonzero", minimum=1)
    strengths = np.asarray(strengths, dtype=np.float64)
    if strengths.ndim != 1 or strengths.size < 1 or not np.all(np.isfinite(strengths)) \
            or np.any(strengths <= 0):
        raise ValueError(f"strengths must be a non-empty sequence of positive numbers, got "
                         f"{strengths.tolist()}.")
    q = strengths.size
    n_features = check_int(n_features, "n_features", minimum=n_nonzero * q)
    rng = check_random_state(random_state)

    loadings = np.zeros((n_features, q))
    for k in range(q):
        loadings[k * n_nonzero:(k + 1) * n_nonzero, k] = 1.0 / np.sqrt(n_nonzero)
    factors = rng.standard_normal((n_samples, q)) * np.sqrt(strengths)
    X = factors @ loadings.T + rng.standard_normal((n_samples, n_features))
    return Bunch(X=X, loadings=loadings)


def low_rank_plus_sparse(n=200, rank=10, corruption=0.05, n_cols=None, random_state=0):
    """The exact-recovery test matrices of Candes et al. (2011).

    ``M = L0 + S0`` with ``L0 = A B^T``, where A (n x r) and B (n_cols x r)
    have independent N(0, 1/n) entries, and ``S0`` has
    ``round(corruption * n * n_cols)`` entries of value +-1 (random signs)
    at uniformly random positions, zero elsewhere.

    Parameters
    ----------
    n : int, default=200
        Number of rows n1.
    rank : int, default=10
        The rank r of L0, ``1 <= r <= min(n, n_cols)``.
    corruption : float, default=0.05
        The fraction of corrupted entries, in [0, 1].
    n_cols : int or None, default=None
        Number of columns n2; ``None`` means n (square).
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``M``, ``L0``, ``S0`` (all n x n_cols).

    Examples
    --------
    >>> data = low_rank_plus_sparse(n=50, rank=3, corruption=0.1)
    >>> int(np.linalg.matrix_rank(data.L0)), int(np.count_nonzero(data.S0))
    (3, 250)
    """
    n = check_int(n, "n", minimum=1)
    n_cols = n if n_cols is None else check_int(n_cols, "n_cols", minimum=1)
    rank = check_int(rank, "rank", minimum=1)
    if rank > min(n, n_cols):
        raise ValueError(f"rank must be at most min(n, n_cols) = {min(n, n_cols)}, got {rank}.")
    corruption = check_real(corruption, "corruption", minimum=0.0, maximum=1.0)
    rng = check_random_state(random_state)

    scale = np.sqrt(1.0 / n)
    L0 = rng.normal(0.0, scale, (n, rank)) @ rng.normal(0.0, scale, (n_cols, rank)).T
    n_corrupted = int(round(corruption * n * n_cols))
    positions = rng.choice(n * n_cols, size=n_corrupted, replace=False)
    S0 = np.zeros(n * n_cols)
    S0[positions] = rng.choice([-1.0, 1.0], size=n_corrupted)
    S0 = S0.reshape(n, n_cols)
    return Bunch(M=L0 + S0, L0=L0, S0=S0)


def synthetic_video(n_frames=60, height=36, width=48, n_objects=3, object_size=6,
                    random_state=0):
    """A static textured background with bright squares moving across it.

    The background is smoothed Gaussian noise plus a gentle gradient,
    scaled to [0, 0.6]. Each object is a square of side ``object_size``
    and brightness 1, entering at a random height and moving at constant
    velocity (bouncing off the top and bottom edges), so that the frames
    are "low rank (the background) plus sparse (the objects)".

    Parameters
    ----------
    n_frames : int, default=60
        Number of frames.
    height, width : int, default=36, 48
        Frame size in pixels (at least ``object_size``).
    n_objects : int, default=3
        Number of moving squares.
    object_size : int, default=6
        Side of each square, in pixels.
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frames`` (n_frames, height, width), ``background`` (height,
        width) and ``mask`` (n_frames, height, width), True where an object
        covers the background. ``frames.reshape(n_frames, -1)`` is the
        data matrix with one frame per row.

    Examples
    --------
    >>> video = synthetic_video(n_frames=5)
    >>> video.frames.shape, bool(video.mask.any())
    ((5, 36, 48), True)
    """
    from scipy.ndimage import gaussian_filter

    n_frames = check_int(n_frames, "n_frames", minimum=1)
    object_size = check_int(object_size, "object_size", minimum=1)
    height = check_int(height, "height", minimum=object_size)
    width = check_int(width, "width", minimum=object_size)
    n_objects = check_int(n_objects, "n_objects", minimum=0)
    rng = check_random_state(random_state)

    texture = gaussian_filter(rng.standard_normal((height, width)), sigma=1.5)
    gradient = np.linspace(0.0, 1.0, width)[None, :] * np.linspace(0.5, 1.0, height)[:, None]
    background = texture / np.max(np.abs(texture)) + 2.0 * gradient
    background = 0.6 * (background - background.min()) / np.ptp(background)

    t = np.arange(n_frames)
    # start positions and velocities (pixels per frame) of the objects
    rows0 = rng.uniform(0, height - object_size, n_objects)
    cols0 = rng.uniform(-object_size, width, n_objects)
    row_speed = rng.uniform(-1.0, 1.0, n_objects)
    col_speed = rng.choice([-1.0, 1.0], n_objects) * rng.uniform(0.8, 1.6, n_objects)
    span = height - object_size
    # bounce off the top and bottom: reflect the unbounded path into [0, span]
    rows = rows0[None, :] + row_speed[None, :] * t[:, None]
    rows = span - np.abs(np.mod(rows, 2 * span) - span) if span > 0 else 0 * rows
    # wrap around left and right
    cols = np.mod(cols0[None, :] + col_speed[None, :] * t[:, None], width + object_size)
    cols -= object_size

    pixel_rows = np.arange(height)[None, None, :]
    pixel_cols = np.arange(width)[None, None, :]
    top = np.round(rows)[:, :, None]
    left = np.round(cols)[:, :, None]
    in_rows = (pixel_rows >= top) & (pixel_rows < top + object_size)  # (frames, objects, h)
    in_cols = (pixel_cols >= left) & (pixel_cols < left + object_size)  # (frames, objects, w)
    mask = np.any(in_rows[:, :, :, None] & in_cols[:, :, None, :], axis=1)
    frames = np.where(mask, 1.0, background[None, :, :])
    return Bunch(frames=frames, background=background, mask=mask)
