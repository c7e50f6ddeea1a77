"""Eigen-decomposition helpers shared by PCA and kernel PCA."""

import numpy as np
from scipy.linalg import eigh


def top_eigh(A, q):
    """The q largest eigenpairs of the symmetric matrix A, in descending order.

    Parameters
    ----------
    A : ndarray of shape (m, m)
        A symmetric matrix (LAPACK reads one triangle).
    q : int
        How many eigenpairs, 1 <= q <= m.

    Returns
    -------
    eigenvalues : ndarray of shape (q,)
        Largest first.
    eigenvectors : ndarray of shape (m, q)
        The matching unit eigenvectors as columns.
    """
    m = A.shape[0]
    eigenvalues, eigenvectors = eigh(A, subset_by_index=[m - q, m - 1])
    return eigenvalues[::-1], eigenvectors[:, ::-1]


def numerical_rank(eigenvalues, size, scale=None):
    """Number of eigenvalues that are not round-off of a zero.

    Parameters
    ----------
    eigenvalues : ndarray of shape (m,)
        Eigenvalues of a PSD matrix, in descending order.
    size : int
        The matrix size, which scales the round-off.
    scale : float or None, default=None
        Size of the entries the matrix was computed from: a centred kernel
        matrix carries the round-off of the uncentred one. ``None`` means
        the largest eigenvalue.

    Returns
    -------
    int
        How many eigenvalues exceed ``size * eps * scale``.
    """
    if eigenvalues.size == 0 or eigenvalues[0] <= 0:
        return 0
    if scale is None:
        scale = eigenvalues[0]
    threshold = size * np.finfo(np.float64).eps * scale
    return int(np.count_nonzero(eigenvalues > threshold))
