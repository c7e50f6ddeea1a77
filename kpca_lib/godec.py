"""GoDec: low rank plus sparse by alternating projections (Zhou and Tao, 2011).

The non-convex rival of principal component pursuit, told what PCP is not:
the rank r of the low-rank part and the number k of corrupted entries. It
minimises the squared misfit

    ||M - L - S||_F^2   over rank(L) <= r and at most k non-zero entries of S

by exact block minimisation (a projection for each block):

    L <- the best rank-r approximation of M - S   (truncated SVD, Eckart-Young)
    S <- M - L on its k largest entries in size, 0 elsewhere

Each step minimises the misfit over its block with the other fixed, so the
misfit never increases. The method of Zhou and Tao replaces the SVD by a
randomised approximation ("bilateral random projections"); this version uses
the exact truncated SVD, which is what a small example needs.

Appendix B compares it with :func:`kpca_lib.robust_pca`: told the true rank
and cardinality it recovers the planted split too; PCP needs neither, and
returns a certificate (a lower bound from the dual).
"""

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array

from ._threads import one_blas_thread
from ._validation import check_int, check_real

__all__ = ["GoDecResult", "godec"]


@dataclass
class GoDecResult:
    """The split ``M ~ L + S`` found by :func:`godec`.

    Attributes
    ----------
    L : ndarray of shape (n1, n2)
        The low-rank part, of rank at most ``rank``.
    S : ndarray of shape (n1, n2)
        The sparse part, with at most ``cardinality`` non-zero entries.
    n_iter : int
        The number of sweeps (one L-step and one S-step each).
    converged : bool
        Whether the last sweep moved ``L`` by at most ``tol * ||M||_F``.
    misfit_history : ndarray of shape (n_iter,)
        ``||M - L - S||_F / ||M||_F`` after each sweep (non-increasing).
    """

    L: np.ndarray
    S: np.ndarray
    n_iter: int
    converged: bool
    misfit_history: np.ndarray


def _truncated_svd(A, rank):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return (U[:, :rank] * s[:rank]) @ Vt[:rank]


def _keep_largest(R, cardinality):
    # exactly `cardinality` entries kept (argpartition breaks ties), so that S
    # is the best k-sparse approximation of R whatever the ties
    S = np.zeros_like(R)
    if cardinality > 0:
        flat = np.argpartition(np.abs(R).ravel(), R.size - cardinality)[R.size - cardinality:]
        S.ravel()[flat] = R.ravel()[flat]
    return S


def godec(M, rank, cardinality, *, tol=1e-12, max_iter=1000, callback=None):
    """Split ``M`` into rank ``rank`` plus ``cardinality`` sparse entries (GoDec).

    Parameters
    ----------
    M : array-like of shape (n1, n2)
        The data matrix (finite entries).
    rank : int
        The rank r of the low-rank part, ``1 <= rank <= min(n1, n2)``.
    cardinality : int
        The number k of entries of the sparse part, ``0 <= k <= n1 n2``.
    tol : float, default=1e-12
        Stop when a sweep moves ``L`` by at most ``tol * ||M||_F``.
    max_iter : int, default=1000
        The largest number of sweeps; a :class:`ConvergenceWarning` is issued
        when it is reached.
    callback : callable or None, default=None
        Called as ``callback(n_iter, L, S)`` after each sweep (e.g. to record
        the error against a known ``L0`` sweep by sweep without re-running).

    Returns
    -------
    GoDecResult
        ``L``, ``S``, ``n_iter``, ``converged`` and ``misfit_history``.

    Raises
    ------
    ValueError
        If ``M`` is not a finite 2-d array, or ``rank``, ``cardinality``,
        ``tol`` or ``max_iter`` is out of range.
    TypeError
        If ``callback`` is neither callable nor None.

    References
    ----------
    T. Zhou and D. Tao, "GoDec: randomized low-rank & sparse matrix
    decomposition in noisy case", ICML 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca_lib import godec
    >>> rng = np.random.default_rng(0)
    >>> L0 = rng.standard_normal((30, 2)) @ rng.standard_normal((2, 30))
    >>> S0 = np.zeros((30, 30)); S0[3, 4], S0[10, 20] = 5.0, -4.0
    >>> fit = godec(L0 + S0, rank=2, cardinality=2)
    >>> bool(np.allclose(fit.L, L0, atol=1e-8)), sorted(zip(*np.nonzero(fit.S)))
    (True, [(np.int64(3), np.int64(4)), (np.int64(10), np.int64(20))])
    """
    M = check_array(M, dtype=np.float64, ensure_min_samples=1, ensure_min_features=1,
                    input_name="M")
    rank = check_int(rank, "rank", minimum=1, maximum=min(M.shape))
    cardinality = check_int(cardinality, "cardinality", minimum=0, maximum=M.size)
    tol = check_real(tol, "tol", minimum=0.0)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None, got {type(callback).__name__}")
    norm_M = np.linalg.norm(M)
    if norm_M == 0.0:
        zeros = np.zeros_like(M)
        return GoDecResult(L=zeros, S=zeros.copy(), n_iter=0, converged=True,
                           misfit_history=np.zeros(0))
    S = np.zeros_like(M)
    L_previous = np.zeros_like(M)
    misfit, converged = [], False
    with one_blas_thread():
        for n_iter in range(1, max_iter + 1):
            L = _truncated_svd(M - S, rank)
            S = _keep_largest(M - L, cardinality)
            misfit.append(np.linalg.norm(M - L - S) / norm_M)
            if callback is not None:
                callback(n_iter, L, S)
            if np.linalg.norm(L - L_previous) <= tol * norm_M:
                converged = True
                break
            L_previous = L
    if not converged:
        warnings.warn(
            f"godec did not converge in max_iter={max_iter} sweeps: the last sweep moved L by "
            f"{np.linalg.norm(L - L_previous) / norm_M:.3g} relative (tol={tol:g}). Increase "
            "max_iter or tol.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return GoDecResult(L=L, S=S, n_iter=n_iter, converged=converged,
                       misfit_history=np.array(misfit))
