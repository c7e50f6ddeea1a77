"""The steps of sparse PCA's alternating sweeps: the block updates and the re-seeding.

One sweep of :class:`kpca_lib.sparse_pca.SparsePCA` updates the loadings D
column by column (:func:`update_loadings`, exact soft-thresholding), then the
codes Y (:func:`update_codes`, least squares projected on the unit ball), and
revives the components whose loadings all became zero from the residual
(:func:`reseed_dead_components`).
"""

import numpy as np

from .proximal import project_unit_ball, soft_threshold

__all__ = ["reseed_dead_components", "update_codes", "update_loadings"]


def update_loadings(D, A, B, alpha):
    """One pass over the columns of D: exact minimisation in each column."""
    for k in range(D.shape[1]):
        if A[k, k] == 0.0:
            # y_k = 0 leaves d_k out of the fit: the penalty alone sets it to 0
            D[:, k] = 0.0
            continue
        D[:, k] = soft_threshold(B[:, k] - D @ A[:, k] + A[k, k] * D[:, k], alpha) / A[k, k]
    return D


def update_codes(Y, E, F):
    """One pass over the columns of Y: least squares, then the unit ball."""
    for k in range(Y.shape[1]):
        if F[k, k] == 0.0:
            # d_k = 0: y_k does not enter the fit, keep it
            continue
        y = (E[:, k] - Y @ F[:, k] + F[k, k] * Y[:, k]) / F[k, k]
        Y[:, k] = project_unit_ball(y[:, None])[:, 0]
    return Y


# relative difference of residual column norms below which they count as equal
_TIE_RTOL = 1e-10


def reseed_dead_components(X_c, Y, D, alpha):
    """Revive the all-zero columns of D from the residual; returns how many.

    For a dead component k, ``y_k`` becomes the unit residual column
    ``R_j / ||R_j||`` of largest norm (the first, when several are equal to
    within ``_TIE_RTOL``) and ``d_k = S_alpha(R^T y_k)``, the
    exact minimiser over ``d_k``, which lowers the objective by
    ``1/2 ||d_k||^2``. Only columns longer than alpha by more than
    ``_TIE_RTOL`` relative (and longer than round-off) are used: below alpha
    no unit ``y_k`` gives a non-zero ``d_k``, and within round-off of it
    ``d_k`` would be round-off.
    """
    dead = np.flatnonzero(~np.any(D, axis=0))
    if dead.size == 0:
        return 0
    # d_k = 0 for the dead columns: R is the residual of the live ones
    R = X_c - Y @ D.T
    # a residual made of round-off would revive a component of noise
    round_off = 10 * max(X_c.shape) * np.finfo(np.float64).eps * np.linalg.norm(X_c)
    revived = 0
    for k in dead:
        norms = np.linalg.norm(R, axis=0)
        # the first of the longest columns, ties within round-off included: columns of
        # equal norm (equal counts of 0/1 data) must not be told apart by summation order
        j = int(np.argmax(norms >= norms.max() * (1 - _TIE_RTOL)))
        # a column longer than alpha only by round-off would revive a component with a
        # loading of round-off (normalised to a unit "word"), for a gain of its square
        if norms[j] <= max(alpha * (1 + _TIE_RTOL), round_off):
            break
        Y[:, k] = R[:, j] / norms[j]
        D[:, k] = soft_threshold(R.T @ Y[:, k], alpha)
        R -= np.outer(Y[:, k], D[:, k])
        revived += 1
    return revived
