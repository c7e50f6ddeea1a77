"""Robust PCA by principal component pursuit (Candes et al., 2011).

Split a matrix ``M`` (n1 x n2) into a low-rank part and a sparse part,
``M = L + S``, by solving the convex programme

    minimise  ||L||_* + lam ||S||_1   subject to  L + S = M,

where ``||L||_*`` is the nuclear norm (the sum of the singular values) and
``||S||_1`` the sum of the absolute entries. The solver is the inexact
augmented Lagrange multiplier method of Lin, Chen and Ma (2010), an ADMM
on the augmented Lagrangian

    l(L, S, Y) = ||L||_* + lam ||S||_1 + <Y, M - L - S> + mu/2 ||M - L - S||_F^2.

Each sweep minimises over L (singular value thresholding), then over S
(soft thresholding), then takes a dual ascent step on Y and increases mu:

    L <- D_{1/mu}(M - S + Y / mu)
    S <- S_{lam/mu}(M - L + Y / mu)
    Y <- Y + mu (M - L - S),   mu <- min(rho mu, mu_max)

In the book's notation lam is the weight of the l1 term, not an eigenvalue.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import qr, svd
from scipy.sparse.linalg import ArpackNoConvergence, svds
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array
from threadpoolctl import threadpool_limits

from ._validation import check_int, check_real
from .proximal import soft_threshold

__all__ = ["RobustPCAResult", "robust_pca"]

_SVD_METHODS = ("auto", "full", "partial")
# columns beyond the rank in the block of the partial SVD
_BLOCK_MARGIN = 10


@dataclass
class RobustPCAResult:
    """What :func:`robust_pca` returns.

    Attributes
    ----------
    L : ndarray of shape (n1, n2)
        The low-rank part.
    S : ndarray of shape (n1, n2)
        The sparse part.
    n_iter : int
        Number of sweeps taken.
    converged : bool
        Whether ``||M - L - S||_F <= tol ||M||_F`` was reached within
        ``max_iter`` sweeps.
    residual_history : ndarray of shape (n_iter,)
        The relative residual ``||M - L - S||_F / ||M||_F`` after each sweep.
    rank : int
        The rank of ``L`` (number of singular values kept by the last
        thresholding).
    lam : float
        The weight of the l1 term that was used.
    """

    L: np.ndarray
    S: np.ndarray
    n_iter: int
    converged: bool
    residual_history: np.ndarray
    rank: int
    lam: float


def _partial_svt(A, tau, V, rng=None, rtol=1e-10, max_steps=8):
    """``D_tau(A)`` by subspace iteration started from the columns of ``V``.

    Block power steps ``Q <- orth(A A^T Q)`` followed by a Rayleigh-Ritz
    projection ``B = Q^T A = U_B Sigma V^T``. The step is accepted only when

    * every computed triplet above ``tau`` has a residual
      ``||A v_i - sigma_i u_i|| <= rtol sigma_1``;
    * the smallest computed singular value is below ``tau`` (so the block is
      wider than the rank);
    * nothing else reaches ``tau``: the largest singular value of
      ``A - U_r Sigma_r V_r^T``, what is left of A without the r triplets
      kept, is below ``tau`` (a randomised bound, see
      :func:`_largest_is_below`).

    A warm start that misses a large singular direction entirely never
    finds it by power steps; the third test catches it. Otherwise ``None``
    is returned and the caller takes a full SVD.

    Returns
    -------
    (result, rank, V_next) or None
        ``V_next`` are the right singular vectors of this step, to start the
        next one from.
    """
    rng = np.random.default_rng(0) if rng is None else rng
    Q = qr(A @ V, mode="economic")[0]
    for _ in range(max_steps):
        B = Q.T @ A
        U_B, sigma, Vt = svd(B, full_matrices=False)
        if sigma[-1] < tau:
            rank = int(np.count_nonzero(sigma > tau))
            U = Q @ U_B[:, :rank]
            residual = np.linalg.norm(A @ Vt[:rank].T - U * sigma[:rank], axis=0)
            if np.all(residual <= rtol * sigma[0]) and _largest_is_below(
                A, U * sigma[:rank], Vt[:rank], tau, rng
            ):
                shrunk = sigma[:rank] - tau
                return (U * shrunk) @ Vt[:rank], rank, Vt.T
        Q = qr(A @ (A.T @ Q), mode="economic")[0]
    return None


def _largest_is_below(A, US, Vt, tau, rng, max_steps=40, failure=1e-12):
    """Whether ``||A - US Vt||_2 <= tau``, by Lanczos from a random start.

    Lanczos on ``R^T R`` with ``R = A - US Vt`` (never formed: each step
    costs two products with A) gives Ritz values theta_k below its largest
    eigenvalue lambda = ||R||_2^2. A Ritz value above ``tau^2`` proves that
    R has a singular value above tau. The other way needs a bound from
    above: for a start uniform on the sphere, Kuczynski and Wozniakowski
    (1992) show ``P(theta_k < (1 - e) lambda) <= 1.648 sqrt(m) exp(-sqrt(e)
    (2k - 1))``, so ``theta_k / (1 - e_k) <= tau^2``, with e_k making that
    probability ``failure``, accepts wrongly with probability at most
    ``failure``. Undecided after ``max_steps`` steps means no.
    """
    m = A.shape[1]
    bound = tau**2
    log_term = np.log(1.648 * np.sqrt(m) / failure)

    def normal_operator(v):  # R^T R v
        w = A @ v - US @ (Vt @ v)
        return A.T @ w - Vt.T @ (US.T @ w)

    basis = np.zeros((max_steps + 1, m))
    start = rng.standard_normal(m)
    basis[0] = start / np.linalg.norm(start)
    diagonal, off_diagonal = [], []
    for k in range(1, max_steps + 1):
        w = normal_operator(basis[k - 1])
        diagonal.append(basis[k - 1] @ w)
        # full re-orthogonalisation (twice is enough): k is small
        w -= basis[:k].T @ (basis[:k] @ w)
        w -= basis[:k].T @ (basis[:k] @ w)
        T = np.diag(diagonal) + np.diag(off_diagonal, 1) + np.diag(off_diagonal, -1)
        theta = np.linalg.eigvalsh(T)[-1]
        if theta > bound:
            return False
        e = (log_term / (2 * k - 1)) ** 2
        if e < 1 and theta / (1 - e) <= bound:
            return True
        norm = np.linalg.norm(w)
        if norm <= 1e-14 * max(theta, np.finfo(np.float64).tiny):
            return True  # an invariant subspace: theta is exact on the start's span
        off_diagonal.append(norm)
        basis[k] = w / norm
    return False


def _spectral_norm(M):
    """Largest singular value of M (deterministic Lanczos start).

    Should ARPACK not converge, a ``ConvergenceWarning`` says so and a full
    SVD gives the norm.
    """
    try:
        return float(svds(M, k=1, solver="arpack", random_state=0, return_singular_vectors=False)[0])
    except ArpackNoConvergence:
        warnings.warn(
            "ARPACK did not converge on the spectral norm ||M||_2 that sets "
            "robust_pca's initial penalty; it was computed by a full SVD instead.",
            ConvergenceWarning,
            stacklevel=3,
        )
        return float(np.linalg.norm(M, 2))


def robust_pca(M, lam=None, *, tol=1e-7, max_iter=500, rho=1.5, svd_method="auto"):
    """Split ``M`` into low-rank plus sparse by principal component pursuit.

    Solves ``min ||L||_* + lam ||S||_1  s.t.  L + S = M`` by the inexact
    augmented Lagrange multiplier method (ADMM) of Lin, Chen and Ma
    (2010), with their initialisation ``Y_0 = M / max(||M||_2,
    ||M||_max / lam)``, ``mu_0 = 1.25 / ||M||_2`` and ``mu`` growing by the
    factor ``rho`` per sweep up to ``1e7 mu_0``.

    Parameters
    ----------
    M : array-like of shape (n1, n2)
        The observed matrix, finite, at least 2 x 2 and not all zero.
    lam : float or None, default=None
        Weight of the l1 term, ``> 0``. ``None`` means
        ``1 / sqrt(max(n1, n2))``, the choice of Candes et al. (2011).
    tol : float, default=1e-7
        Stop when ``||M - L - S||_F <= tol ||M||_F``.
    max_iter : int, default=500
        Maximum number of sweeps; a ``ConvergenceWarning`` is emitted when
        it is reached before ``tol``.
    rho : float, default=1.5
        Growth factor of the penalty ``mu``, ``> 1``.
    svd_method : {"auto", "full", "partial"}, default="auto"
        How the singular value thresholding is computed. ``"full"`` takes a
        full SVD every sweep. ``"partial"`` computes only a block of the
        largest singular triplets, of width the previous rank plus a margin,
        by subspace iteration started from the previous sweep's right
        singular vectors, and takes a full SVD whenever that block does not
        reach below the threshold, its triplets are not accurate to
        ``1e-10`` relative, or a randomised Lanczos bound cannot show that
        nothing outside the block reaches the threshold (the bound is wrong
        with probability at most 1e-12), so the result is the same as with
        a full SVD.
        ``"auto"`` is ``"partial"`` when ``min(n1, n2) >= 100`` and
        ``"full"`` otherwise (for small matrices the full SVD is faster).

    Returns
    -------
    RobustPCAResult
        ``L``, ``S``, ``n_iter``, ``converged``, ``residual_history``,
        ``rank`` and ``lam``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> L0 = np.outer(rng.standard_normal(40), rng.standard_normal(30))
    >>> S0 = np.zeros((40, 30)); S0[3, 7] = 10.0; S0[20, 1] = -8.0
    >>> result = robust_pca(L0 + S0)
    >>> result.converged, result.rank
    (True, 1)
    >>> bool(np.linalg.norm(result.L - L0) / np.linalg.norm(L0) < 1e-5)
    True
    """
    M = check_array(M, dtype=np.float64, input_name="M", ensure_min_samples=2, ensure_min_features=2)
    n1, n2 = M.shape
    if lam is None:
        lam = 1.0 / np.sqrt(max(n1, n2))
    lam = check_real(lam, "lam", minimum=0.0, strict=True)
    tol = check_real(tol, "tol", minimum=0.0, strict=True)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    rho = check_real(rho, "rho", minimum=1.0, strict=True)
    if svd_method not in _SVD_METHODS:
        raise ValueError(f"svd_method must be one of {_SVD_METHODS}, got {svd_method!r}.")
    if svd_method == "auto":
        svd_method = "partial" if min(n1, n2) >= 100 else "full"

    norm_M = np.linalg.norm(M)
    if norm_M == 0.0:
        raise ValueError("M is all zeros: there is nothing to split.")
    norm_two = _spectral_norm(M)
    # Y_0 scaled so that it is dual feasible: ||Y||_2 <= 1, ||Y||_max <= lam
    Y = M / max(norm_two, np.max(np.abs(M)) / lam)
    mu = 1.25 / norm_two
    mu_max = mu * 1e7
    S = np.zeros_like(M)
    n_small = min(n1, n2)
    V = None  # right singular vectors of the last sweep, for warm starts
    rng = np.random.default_rng(0)  # starts of the outside-block checks
    history = []
    converged = False
    # one BLAS thread: on the 2-core machines this book targets, threaded
    # LAPACK made every sweep about twice slower at n = 200 to 1000
    # (measured by benchmarks/bench_robust_pca.py)
    with threadpool_limits(limits=1, user_api="blas"):
        for n_iter in range(1, max_iter + 1):
            A = M - S + Y / mu
            step = None
            if svd_method == "partial" and V is not None:
                step = _partial_svt(A, 1.0 / mu, V, rng)
            if step is None:
                U, sigma, Vt = svd(A, full_matrices=False)
                rank = int(np.count_nonzero(sigma > 1.0 / mu))
                L = (U[:, :rank] * (sigma[:rank] - 1.0 / mu)) @ Vt[:rank]
                V_all = Vt.T
            else:
                L, rank, V_all = step
            # the next block: the rank plus a margin, if this sweep computed that many
            width = rank + _BLOCK_MARGIN
            use_partial = svd_method == "partial" and width <= n_small // 4
            V = V_all[:, :width] if use_partial and V_all.shape[1] >= width else None
            S = soft_threshold(M - L + Y / mu, lam / mu)
            Z = M - L - S
            Y += mu * Z
            mu = min(mu * rho, mu_max)
            history.append(np.linalg.norm(Z) / norm_M)
            if history[-1] <= tol:
                converged = True
                break
    if not converged:
        warnings.warn(
            f"robust_pca did not converge in max_iter={max_iter} sweeps: the relative "
            f"residual is {history[-1]:.3g} > tol={tol:g}. Increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return RobustPCAResult(
        L=L, S=S, n_iter=n_iter, converged=converged,
        residual_history=np.array(history), rank=rank, lam=lam,
    )
