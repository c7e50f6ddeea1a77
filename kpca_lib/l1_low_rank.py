"""A rank-r fit under the l1 loss: the robust non-convex rival told only the rank.

``l1_low_rank(M, rank)`` looks for ``L = A B^T`` of rank ``rank`` that minimises
``sum_ij |M_ij - L_ij|`` (alternating least absolute deviations, Ke & Kanade
2005), by iteratively reweighted least squares (IRLS): each half-sweep solves,
for every row of ``A`` (then of ``B``), the weighted least-squares problem whose
weights ``1 / max(|residual|, eps)`` make it a quadratic majoriser of the
(eps-smoothed) l1 loss at the current point, so the smoothed loss never
increases. Unlike GoDec (:func:`kpca_lib.godec`) it needs no count of corrupted
entries; unlike PCP (:func:`kpca_lib.robust_pca`) it needs the rank, and it is
non-convex: it returns no certificate. Appendix B uses it as a baseline.

``l1_regression(X, y)`` is the single step it is made of, iterated to
convergence: the least-absolute-deviations regression of ``y`` on ``X``.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array

from ._threads import one_blas_thread
from ._validation import check_int, check_real

__all__ = ["L1LowRankResult", "l1_low_rank", "l1_regression"]


@dataclass
class L1LowRankResult:
    """The rank-r fit found by :func:`l1_low_rank`.

    Attributes
    ----------
    L : ndarray of shape (n1, n2)
        The fit ``A @ B.T``, of rank at most ``rank``.
    A : ndarray of shape (n1, rank)
        The left factor.
    B : ndarray of shape (n2, rank)
        The right factor.
    n_iter : int
        The number of sweeps (one update of ``A`` and one of ``B`` each).
    converged : bool
        Whether the last sweep moved ``L`` by at most ``tol * ||M||_F``.
    loss_history : ndarray of shape (n_iter,)
        ``sum |M - L| / sum |M|`` after each sweep.
    """

    L: np.ndarray
    A: np.ndarray
    B: np.ndarray
    n_iter: int
    converged: bool
    loss_history: np.ndarray


def _reweighted_rows(M, B, eps, A):
    """Each row of A: the weighted least-squares fit of the row of M on B, with
    the IRLS weights of the current residual M - A B^T (vectorised over rows)."""
    W = 1.0 / np.maximum(np.abs(M - A @ B.T), eps)
    G = np.einsum("ij,jk,jl->ikl", W, B, B, optimize=True)
    h = (W * M) @ B
    # a tiny ridge, relative to each Gram matrix's scale, keeps solve defined
    # when B is rank deficient (the fit is then not unique anyway)
    scale = np.trace(G, axis1=1, axis2=2)[:, None, None] / B.shape[1]
    G = G + 1e-13 * np.maximum(scale, np.finfo(float).tiny) * np.eye(B.shape[1])
    return np.linalg.solve(G, h[..., None])[..., 0]


def l1_regression(X, y, *, max_iter=1000, tol=1e-12, eps=1e-8):
    """Least-absolute-deviations regression ``argmin_b sum_i |y_i - X_i b|`` (IRLS).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The design matrix, of full column rank for a unique solution.
    y : array-like of shape (n_samples,)
        The response.
    max_iter : int, default=1000
        The largest number of reweighted least-squares steps.
    tol : float, default=1e-12
        Stop when a step moves the coefficients by at most ``tol * (1 + ||b||)``.
    eps : float, default=1e-8
        Residuals below ``eps * max |y|`` in size get the largest weight
        (smoothing; much smaller values make the weighted steps ill-conditioned).

    Returns
    -------
    ndarray of shape (n_features,)
        The coefficients.

    Raises
    ------
    ValueError
        If ``X`` or ``y`` is not finite, their lengths differ, or ``max_iter``,
        ``tol`` or ``eps`` is out of range.
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    y = check_array(y, dtype=np.float64, ensure_2d=False, input_name="y")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-d with X.shape[0]={X.shape[0]} entries, got shape {y.shape}")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    eps = check_real(eps, "eps", minimum=0.0, strict=True)
    b = np.linalg.lstsq(X, y, rcond=None)[0]
    for _ in range(max_iter):
        b_next = _reweighted_rows(y[None, :], X, eps * max(np.abs(y).max(), np.finfo(float).tiny), b[None, :])[0]
        moved = np.linalg.norm(b_next - b)
        b = b_next
        if moved <= tol * (1.0 + np.linalg.norm(b)):
            break
    return b


def l1_low_rank(M, rank, *, max_iter=300, tol=1e-10, eps=1e-10):
    """Rank-``rank`` fit of ``M`` under the l1 loss (alternating IRLS).

    Parameters
    ----------
    M : array-like of shape (n1, n2)
        The data matrix (finite entries).
    rank : int
        The rank r of the fit, ``1 <= rank <= min(n1, n2)``.
    max_iter : int, default=300
        The largest number of sweeps; a :class:`ConvergenceWarning` is issued
        when it is reached.
    tol : float, default=1e-10
        Stop when a sweep moves ``L`` by at most ``tol * ||M||_F``.
    eps : float, default=1e-10
        Residuals below ``eps * max |M|`` get the largest weight (smoothing of
        the l1 loss at zero, which an exact fit reaches).

    Returns
    -------
    L1LowRankResult
        ``L``, ``A``, ``B``, ``n_iter``, ``converged`` and ``loss_history``.

    Raises
    ------
    ValueError
        If ``M`` is not a finite 2-d array, or ``rank``, ``max_iter``, ``tol``
        or ``eps`` is out of range.

    References
    ----------
    Q. Ke and T. Kanade, "Robust L1 norm factorization in the presence of
    outliers and missing data by alternative convex programming", CVPR 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca_lib import l1_low_rank
    >>> rng = np.random.default_rng(0)
    >>> L0 = rng.standard_normal((40, 2)) @ rng.standard_normal((2, 30))
    >>> M = L0.copy(); M[3, 4] += 5.0; M[10, 20] -= 4.0
    >>> fit = l1_low_rank(M, rank=2)
    >>> bool(np.allclose(fit.L, L0, atol=1e-6))
    True
    """
    M = check_array(M, dtype=np.float64, ensure_min_samples=1, ensure_min_features=1,
                    input_name="M")
    rank = check_int(rank, "rank", minimum=1, maximum=min(M.shape))
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    eps = check_real(eps, "eps", minimum=0.0, strict=True)
    norm_M, scale = np.linalg.norm(M), np.abs(M).max()
    if norm_M == 0.0:
        zeros = np.zeros_like(M)
        return L1LowRankResult(L=zeros, A=np.zeros((M.shape[0], rank)),
                               B=np.zeros((M.shape[1], rank)), n_iter=0,
                               converged=True, loss_history=np.zeros(0))
    losses, converged = [], False
    with one_blas_thread():
        # start from the truncated SVD (the l2 fit)
        U, s, Vt = np.linalg.svd(M, full_matrices=False)
        A, B = U[:, :rank] * s[:rank], Vt[:rank].T
        L = A @ B.T
        for n_iter in range(1, max_iter + 1):
            A = _reweighted_rows(M, B, eps * scale, A)
            B = _reweighted_rows(M.T, A, eps * scale, B)
            L_next = A @ B.T
            losses.append(np.abs(M - L_next).sum() / np.abs(M).sum())
            moved = np.linalg.norm(L_next - L)
            L = L_next
            if moved <= tol * norm_M:
                converged = True
                break
    if not converged:
        warnings.warn(
            f"l1_low_rank did not converge in max_iter={max_iter} sweeps: the last sweep "
            f"moved L by {moved / norm_M:.3g} relative (tol={tol:g}). Increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return L1LowRankResult(L=L, A=A, B=B, n_iter=n_iter, converged=converged,
                           loss_history=np.array(losses))
