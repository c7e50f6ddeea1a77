"""Orthogonal rotation of loadings towards simple structure: varimax.

Kaiser's (1958) varimax criterion of a d x q loading matrix L is the sum
over its columns of the variance of the squared loadings,

    V(L) = sum_k [ 1/d sum_j L_jk^4 - (1/d sum_j L_jk^2)^2 ],

large when each column has a few large entries and many near zero.
Varimax looks for the orthogonal q x q matrix R that maximises V(L R):
the rotated loadings span the same subspace as L, so a rotation of the
principal loadings keeps PCA's reconstruction error, and only the basis
changes. This module uses Kaiser's own algorithm: sweeps over the pairs
of columns, each pair turned by the planar angle that maximises V exactly
(a closed form), so V never decreases. It stops at a rotation that no
planar turn improves, which need not be the global maximiser. (The
Procrustes fixed-point iteration of scikit-learn's
``FactorAnalysis(rotation="varimax")`` is faster per step but can cycle:
on the 4 x 2 example below it jumps between the angles +0.3 and -0.3.)

In Appendix A, varimax of the principal loadings is the rotation a sceptic
tries before sparse PCA.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._validation import check_int, check_real

__all__ = ["varimax", "varimax_criterion"]


def _check_loadings(loadings):
    L = np.asarray(loadings, dtype=np.float64)
    if L.ndim != 2 or L.shape[0] < 1 or L.shape[1] < 1:
        raise ValueError(f"loadings must be a non-empty 2-D array (d x q), got shape {L.shape}.")
    if not np.all(np.isfinite(L)):
        raise ValueError("loadings contain NaN or infinity.")
    return L


def varimax_criterion(loadings):
    """Kaiser's raw varimax criterion of a loading matrix.

    Parameters
    ----------
    loadings : array-like of shape (n_features, n_components)
        Loadings as columns.

    Returns
    -------
    float
        The sum over the columns of the variance (over the rows) of the
        squared loadings.

    Examples
    --------
    >>> round(varimax_criterion([[1.0, 0.0], [0.0, 1.0]]), 3)
    0.5
    """
    L = _check_loadings(loadings)
    return float(np.sum(np.var(L**2, axis=0)))


def varimax(loadings, max_iter=500, tol=1e-10):
    """Rotate loadings orthogonally to maximise the varimax criterion.

    Parameters
    ----------
    loadings : array-like of shape (n_features, n_components)
        Loadings as columns, e.g. ``PCA(...).components_.T``.
    max_iter : int, default=500
        Maximum number of sweeps over the pairs of columns; a ``ConvergenceWarning`` is emitted
        when it is reached before ``tol``.
    tol : float, default=1e-10
        Stop after a sweep over all pairs of columns in which no planar
        turn exceeds ``tol`` radians.

    Returns
    -------
    rotated : ndarray of shape (n_features, n_components)
        ``loadings @ rotation``.
    rotation : ndarray of shape (n_components, n_components)
        The orthogonal rotation found.

    Examples
    --------
    >>> import numpy as np
    >>> angle = 0.3
    >>> turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    >>> simple = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]) / np.sqrt(2)
    >>> rotated, _ = varimax(simple @ turn)
    >>> np.round(np.abs(rotated), 3)
    array([[0.707, 0.   ],
           [0.707, 0.   ],
           [0.   , 0.707],
           [0.   , 0.707]])
    """
    L = _check_loadings(loadings)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    d, q = L.shape
    rotated = L.copy()
    rotation = np.eye(q)
    for _ in range(max_iter):
        largest_turn = 0.0
        for j in range(q - 1):
            for k in range(j + 1, q):
                phi = _best_planar_angle(rotated[:, j], rotated[:, k])
                largest_turn = max(largest_turn, abs(phi))
                turn = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
                rotated[:, [j, k]] = rotated[:, [j, k]] @ turn
                rotation[:, [j, k]] = rotation[:, [j, k]] @ turn
        if largest_turn <= tol:
            break
    else:
        warnings.warn(
            f"varimax did not converge in max_iter={max_iter} sweeps (last turn "
            f"{largest_turn:.3g} rad). Increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return rotated, rotation


def _best_planar_angle(x, y):
    """Kaiser's (1958) closed form: the turn of the columns (x, y) that maximises V.

    Turning by phi gives (x cos phi + y sin phi, -x sin phi + y cos phi); with
    u = x^2 - y^2 and v = 2xy the criterion of the pair is, up to a constant,
    a cos(4 phi) + b sin(4 phi), maximal at 4 phi = atan2(b, a).
    """
    d = x.size
    u, v = x**2 - y**2, 2.0 * x * y
    A, B = np.sum(u), np.sum(v)
    C, D = np.sum(u**2 - v**2), 2.0 * np.sum(u * v)
    return 0.25 * np.arctan2(D - 2.0 * A * B / d, C - (A**2 - B**2) / d)
