"""What :func:`kpca_lib.robust_pca` returns (in a module of its own to keep the solver's short)."""

from dataclasses import dataclass

import numpy as np

__all__ = ["RobustPCAResult"]


@dataclass
class RobustPCAResult:
    """What :func:`~kpca_lib.robust_pca` returns.

    Attributes
    ----------
    L : ndarray of shape (n1, n2)
        The low-rank part.
    S : ndarray of shape (n1, n2)
        The sparse part.
    n_iter : int
        Number of sweeps taken.
    converged : bool
        Whether both residuals fell to ``tol`` within ``max_iter`` sweeps.
    residual_history : ndarray of shape (n_iter,)
        The relative primal residual ``||M - L - S||_F / ||M||_F`` after
        each sweep.
    rank : int
        The rank of ``L`` (number of singular values kept by the last
        thresholding).
    lam : float
        The weight of the l1 term that was used.
    dual_residual_history : ndarray of shape (n_iter,)
        The relative dual residual ``mu_k ||S_k - S_{k-1}||_F / ||M||_F``
        after each sweep (the L-step's optimality condition misses by it).
    objective : float
        ``||L||_* + lam ||S||_1`` at the returned point.
    lower_bound : float
        A lower bound on the optimal value of the programme, by weak
        duality: ``<Y, M>`` for the last multiplier ``Y`` scaled to be
        dual feasible (``||Y||_2 <= 1``, ``|Y_ij| <= lam``). The
        feasible point ``(L, M - L)`` is within
        ``||L||_* + lam ||M - L||_1 - lower_bound`` of the minimum.

    Notes
    -----
    ``residual_history[-1]`` and ``dual_residual_history[-1]`` are the
    final primal and dual residuals.
    """

    L: np.ndarray
    S: np.ndarray
    n_iter: int
    converged: bool
    residual_history: np.ndarray
    rank: int
    lam: float
    dual_residual_history: np.ndarray
    objective: float
    lower_bound: float
