"""Explicit feature maps of chapter 3: the kernel trick checked by hand."""

from itertools import combinations

import numpy as np
from sklearn.utils import check_array

from ._validation import check_real

__all__ = ["degree2_feature_map"]


def degree2_feature_map(X, coef0=1.0):
    """Explicit feature map of the kernel ``(x . y + coef0) ** 2``.

    For ``x`` in R^d the map lists every monomial of degree at most 2,
    weighted so that ``phi(x) . phi(y) = (x . y + coef0) ** 2``::

        phi(x) = (x_1^2, ..., x_d^2,
                  sqrt(2) x_i x_j for i < j,
                  sqrt(2 coef0) x_1, ..., sqrt(2 coef0) x_d,
                  coef0)

    which has C(d + 2, 2) coordinates: 6 for d = 2.

    Parameters
    ----------
    X : array-like of shape (n_samples, d)
        Samples as rows.
    coef0 : float, default=1.0
        The constant of the kernel, >= 0.

    Returns
    -------
    Phi : ndarray of shape (n_samples, (d + 1) * (d + 2) // 2)
        The mapped samples as rows.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 2.0]])
    >>> degree2_feature_map(x).round(4)
    array([[1.    , 4.    , 2.8284, 1.4142, 2.8284, 1.    ]])
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    coef0 = check_real(coef0, "coef0", minimum=0)
    n_samples, d = X.shape
    pairs = list(combinations(range(d), 2))
    i, j = (np.array(index, dtype=int) for index in zip(*pairs)) if pairs else ([], [])
    return np.hstack(
        [
            X**2,
            np.sqrt(2.0) * X[:, i] * X[:, j],
            np.sqrt(2.0 * coef0) * X,
            np.full((n_samples, 1), coef0),
        ]
    )
