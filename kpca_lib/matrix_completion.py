"""Matrix completion by nuclear norm minimisation (Candes and Recht, 2009).

Fill in the missing entries of a matrix of low rank from the observed ones,
the set Omega, by the convex programme

    minimise  ||L||_*   subject to  L_ij = M_ij  for every (i, j) in Omega.

The solver is the ADMM of :func:`kpca_lib.robust_pca` (Lin, Chen and Ma,
2010) with its sparse part replaced by a part E that is free on the missing
entries and zero on the observed ones, so that ``L + E = P_Omega(M)``:

    L <- D_{1/eta}(P_Omega(M) - E + Y / eta)       singular value thresholding
    E <- P_missing(Y / eta - L)                     the best E: free off Omega
    Y <- Y + eta (P_Omega(M) - L - E),   eta <- min(rho eta, eta_max)

Y stays zero on the missing entries, so the primal residual
``P_Omega(M) - L - E`` is the misfit ``P_Omega(M - L)`` on the observed
entries. Feasibility alone does not make a minimiser (the L-step is optimal
for the previous E only), so the iteration also waits for the dual residual
``eta ||E_k - E_{k-1}||_F`` (Boyd et al., 2011, section 3.3) to be small.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array

from ._threads import one_blas_thread
from ._validation import check_int, check_real
from .proximal import singular_value_threshold

__all__ = ["MatrixCompletionResult", "complete_matrix"]

# the penalty grows from eta_0 = 1 / ||P_Omega(M)||_2 up to this multiple of it
_ETA_CAP = 30.0


@dataclass
class MatrixCompletionResult:
    """What :func:`complete_matrix` returns.

    Attributes
    ----------
    L : ndarray of shape (n1, n2)
        The completed matrix.
    n_iter : int
        Number of sweeps taken.
    converged : bool
        Whether both residuals fell below ``tol`` within ``max_iter`` sweeps.
    residual_history : ndarray of shape (n_iter,)
        The relative misfit ``||P_Omega(M - L)||_F / ||P_Omega(M)||_F`` after
        each sweep.
    rank : int
        The rank of ``L`` (singular values kept by the last thresholding).
    """

    L: np.ndarray
    n_iter: int
    converged: bool
    residual_history: np.ndarray
    rank: int


def complete_matrix(M, observed, *, tol=1e-6, max_iter=1000, rho=1.05):
    """Complete a low-rank matrix from some of its entries.

    Solves ``min ||L||_*  s.t.  L_ij = M_ij for observed (i, j)`` by an
    ADMM (inexact augmented Lagrangian) with penalty ``eta`` starting at
    ``1 / ||P_Omega(M)||_2`` and growing by the factor ``rho`` per sweep up to
    30 times that.

    Parameters
    ----------
    M : array-like of shape (n1, n2)
        The matrix, at least 2 x 2; only its observed entries are read (they
        must be finite; the others may be anything, e.g. 0 or NaN).
    observed : array-like of bool, shape (n1, n2)
        True where the entry of ``M`` is observed; at least one.
    tol : float, default=1e-6
        Stop when the misfit on the observed entries and the dual residual
        ``eta ||E_k - E_{k-1}||_F`` are both at most ``tol ||P_Omega(M)||_F``.
    max_iter : int, default=1000
        Maximum number of sweeps; a ``ConvergenceWarning`` says when it is
        reached first.
    rho : float, default=1.05
        Growth factor of the penalty, ``> 1``.

    Returns
    -------
    MatrixCompletionResult
        ``L``, ``n_iter``, ``converged``, ``residual_history`` and ``rank``.

    Notes
    -----
    The sweeps run BLAS on one thread (``threadpoolctl``, as
    :func:`~kpca_lib.robust_pca`); the caller's limits come back on return.
    On a machine whose cores are busy with other processes a second thread
    makes each SVD many times slower (``benchmarks/bench_robust_pca.py``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> L0 = rng.standard_normal((40, 2)) @ rng.standard_normal((2, 30))
    >>> observed = rng.uniform(size=L0.shape) < 0.6
    >>> result = complete_matrix(np.where(observed, L0, np.nan), observed)
    >>> result.converged, result.rank
    (True, 2)
    >>> bool(np.linalg.norm(result.L - L0) / np.linalg.norm(L0) < 1e-4)
    True
    """
    M = check_array(M, dtype=np.float64, input_name="M", ensure_min_samples=2,
                    ensure_min_features=2, ensure_all_finite=False)
    observed = np.asarray(observed)
    if observed.shape != M.shape or observed.dtype != bool:
        raise ValueError(
            f"observed must be a boolean array of the shape of M, {M.shape}; got dtype "
            f"{observed.dtype} and shape {observed.shape}."
        )
    if not np.all(np.isfinite(M[observed])):
        raise ValueError("M has NaN or infinite values at observed entries.")
    tol = check_real(tol, "tol", minimum=0.0, strict=True)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    rho = check_real(rho, "rho", minimum=1.0, strict=True)

    M_observed = np.where(observed, M, 0.0)
    scale = np.max(np.abs(M_observed))
    if scale == 0.0:
        raise ValueError("the observed entries of M are all zero (or none is observed): "
                         "the completion is the zero matrix.")
    # the programme is homogeneous: solve it for entries in [-1, 1], so that
    # no norm over- or underflows (data of size 1e-170 are not zero)
    M_observed = M_observed / scale
    norm_M = np.linalg.norm(M_observed)
    eta = 1.0 / np.linalg.norm(M_observed, 2)
    eta_max = _ETA_CAP * eta
    Y = np.zeros_like(M_observed)
    E = np.zeros_like(M_observed)
    history = []
    converged = False
    # one BLAS thread, as robust_pca: at a load average of 26 on 2 cores one 100 x 100 completion
    # took 107.9 s with 2 threads and 3.1 s with 1 (issue 35; benchmarks/bench_robust_pca.py, table (c))
    with one_blas_thread():
        for n_iter in range(1, max_iter + 1):
            L, rank = singular_value_threshold(M_observed - E + Y / eta, 1.0 / eta, return_rank=True)
            E_previous = E
            E = np.where(observed, 0.0, Y / eta - L)
            Z = M_observed - L - E
            Y += eta * Z
            history.append(np.linalg.norm(Z) / norm_M)
            dual = eta * np.linalg.norm(E - E_previous) / norm_M
            eta = min(eta * rho, eta_max)
            if history[-1] <= tol and dual <= tol:
                converged = True
                break
    if not converged:
        warnings.warn(
            f"complete_matrix did not converge in max_iter={max_iter} sweeps: the relative "
            f"misfit is {history[-1]:.3g} and the dual residual {dual:.3g} (tol={tol:g}). "
            "Increase max_iter or tol; too few observed entries can also be the cause.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return MatrixCompletionResult(
        L=L * scale, n_iter=n_iter, converged=converged, residual_history=np.array(history), rank=rank,
    )
