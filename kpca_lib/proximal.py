"""Proximal operators shared by sparse PCA and robust PCA.

The proximal operator of a convex function ``g`` with step ``t`` is

    prox_{t g}(v) = argmin_x  g(x) + ||x - v||^2 / (2 t).

Two of them have closed forms that the appendices derive:

* ``g = ||.||_1`` (entrywise): soft thresholding,
  ``S_t(x) = sign(x) max(|x| - t, 0)``;
* ``g = ||.||_*`` (nuclear norm, sum of singular values): singular value
  thresholding, ``D_t(A) = U S_t(Sigma) V^T`` for ``A = U Sigma V^T``
  (Cai, Candes and Shen, 2010).

A third, used by sparse PCA, is the projection onto the unit ball (the
proximal operator of the ball's indicator function).
"""

import numpy as np
from scipy.linalg import svd

__all__ = ["soft_threshold", "singular_value_threshold", "project_unit_ball"]


def soft_threshold(x, t):
    """Soft thresholding ``S_t(x) = sign(x) max(|x| - t, 0)``, entrywise.

    The proximal operator of ``t ||x||_1``: it shrinks every entry towards
    zero by ``t`` and sets the entries with ``|x| <= t`` to exactly zero.

    Parameters
    ----------
    x : array-like
        The values to shrink.
    t : float or array-like
        The threshold, ``>= 0`` (broadcast against ``x``); a negative or
        NaN threshold raises ``ValueError``.

    Returns
    -------
    ndarray
        ``S_t(x)``, of the broadcast shape of ``x`` and ``t``.

    Examples
    --------
    >>> soft_threshold([-2.0, -0.5, 0.0, 0.3, 1.5], 1.0)
    array([-1. ,  0. ,  0. ,  0. ,  0.5])
    """
    x = np.asarray(x, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    if not np.all(t >= 0):  # also refuses NaN
        raise ValueError(f"t must be >= 0 (a threshold), got t={t.tolist()!r}.")
    # x - clip(x, -t, t) is sign(x) max(|x| - t, 0) without the -0.0 entries
    return x - np.clip(x, -t, t)


def singular_value_threshold(A, tau, *, return_rank=False):
    """Singular value thresholding ``D_tau(A) = U S_tau(Sigma) V^T``.

    The proximal operator of ``tau ||A||_*``: soft thresholding applied to
    the singular values, which keeps the singular vectors and drops every
    singular value ``<= tau``, so the result has low rank.

    Parameters
    ----------
    A : array-like of shape (n1, n2)
        The matrix to shrink.
    tau : float
        The threshold, ``>= 0``.
    return_rank : bool, default=False
        Whether to also return the rank of the result (the number of
        singular values above ``tau``).

    Returns
    -------
    ndarray of shape (n1, n2)
        ``D_tau(A)``.
    rank : int
        Only if ``return_rank``.

    Examples
    --------
    >>> import numpy as np
    >>> singular_value_threshold(np.diag([3.0, 1.0]), 2.0)
    array([[1., 0.],
           [0., 0.]])
    """
    if not np.all(np.asarray(tau, dtype=np.float64) >= 0):
        raise ValueError(f"tau must be >= 0 (a threshold), got tau={tau!r}.")
    U, sigma, Vt = svd(np.asarray(A, dtype=np.float64), full_matrices=False)
    sigma = soft_threshold(sigma, tau)
    rank = int(np.count_nonzero(sigma))
    result = (U[:, :rank] * sigma[:rank]) @ Vt[:rank]
    return (result, rank) if return_rank else result


def project_unit_ball(Y):
    """Project each column of ``Y`` onto the Euclidean unit ball.

    Columns of norm at most 1 are left alone; longer ones are scaled to
    norm 1. This is the closest point of the ball, column by column.

    Parameters
    ----------
    Y : array-like of shape (n, q)
        The columns to project.

    Returns
    -------
    ndarray of shape (n, q)

    Examples
    --------
    >>> project_unit_ball([[3.0, 0.5], [4.0, 0.0]])
    array([[0.6, 0.5],
           [0.8, 0. ]])
    """
    Y = np.asarray(Y, dtype=np.float64)
    return Y / np.maximum(np.linalg.norm(Y, axis=0), 1.0)
