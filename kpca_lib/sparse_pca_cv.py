"""Choosing sparse PCA's alpha on held-out entries (element-wise cross-validation).

Row-wise cross-validation of a factorisation fits the codes of each held-out
row on that row itself, so the row is not really unseen, and it cannot choose
the number of components. Holding out *entries* avoids both (Bro et al. 2008,
"the EM variant"): the entries of one fold are hidden, filled in by the current
fit, the fit is redone on the filled matrix, and so on a few times (an
expectation-maximisation style imputation); the error is then measured on the
hidden entries only, which the fit never saw. Every fit keeps all n rows; the
fill still moves the scale of the data a little, so compare alphas as fractions
of the data's own threshold rather than as raw values.
"""

import numpy as np
from sklearn.utils import check_array, check_random_state

from ._validation import check_int, check_real
from .sparse_pca import SparsePCA

__all__ = ["held_out_entries_error"]


def held_out_entries_error(X, alpha, n_components, n_folds=5, n_em=10, random_state=0):
    """Relative error of sparse PCA on held-out entries of X.

    The entries of X are split at random into ``n_folds`` folds. For each
    fold, its entries are hidden and first filled with the column means of
    the visible entries; then ``n_em`` times, :class:`SparsePCA` is fitted
    to the filled matrix (warm-started from the previous codes) and the
    hidden entries are replaced by the fit's reconstruction
    ``Y D^T + mean``. The hidden entries' squared errors, summed over the
    folds, are divided by their squared deviations from the visible column
    means, summed likewise: 0 is perfect, 1 is no better than the means.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data, at least 2 x 2, all finite.
    alpha : float
        Weight of the l1 penalty, ``>= 0``, in the units of X (as for
        :class:`SparsePCA`: every fit keeps all n rows, so no rescaling).
    n_components : int
        Number of components q, ``1 <= q <= min(n_samples, n_features)``.
    n_folds : int, default=5
        Number of folds of entries, ``>= 2``.
    n_em : int, default=10
        Number of fit-and-fill rounds per fold, ``>= 1``.
    random_state : int, RandomState instance or None, default=0
        Seed of the split into folds.

    Returns
    -------
    error : float
        Held-out squared error relative to the column means' (0 perfect).

    References
    ----------
    R. Bro, K. Kjeldahl, A. K. Smilde and H. A. L. Kiers (2008),
    "Cross-validation of component models: a critical look at current
    methods", Analytical and Bioanalytical Chemistry 390, 1241-1251.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((40, 2)) @ rng.standard_normal((2, 8))
    >>> held_out_entries_error(X, alpha=0.0, n_components=2, n_em=300) < 1e-3
    True
    """
    X = check_array(X, dtype=np.float64, input_name="X", ensure_min_samples=2, ensure_min_features=2)
    alpha = check_real(alpha, "alpha", minimum=0.0)
    n_samples, n_features = X.shape
    q = check_int(n_components, "n_components", minimum=1, maximum=min(n_samples, n_features))
    n_folds = check_int(n_folds, "n_folds", minimum=2, maximum=X.size)
    n_em = check_int(n_em, "n_em", minimum=1)
    rng = check_random_state(random_state)

    fold_of = rng.permutation(X.size) % n_folds
    fold_of = fold_of.reshape(X.shape)
    error = total = 0.0
    for fold in range(n_folds):
        hidden = fold_of == fold
        visible_counts = np.maximum(np.sum(~hidden, axis=0), 1)
        # column means of the visible entries: the first fill, and the baseline
        visible_means = np.where(hidden, 0.0, X).sum(axis=0) / visible_counts
        filled = np.where(hidden, visible_means, X)
        init = "svd"
        for _ in range(n_em):
            model = SparsePCA(n_components=q, alpha=alpha, init=init).fit(filled)
            reconstruction = model.codes_ @ model.loadings_.T + model.mean_
            filled = np.where(hidden, reconstruction, X)
            init = model.codes_
        error += np.sum((X - filled)[hidden] ** 2)
        total += np.sum((X - visible_means)[hidden] ** 2)
    if total == 0.0:
        raise ValueError("X is constant in every column on the held-out entries: the error is undefined.")
    return float(error / total)
