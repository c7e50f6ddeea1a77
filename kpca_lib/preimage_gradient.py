"""Gaussian pre-images by gradient descent: a quasi-Newton method, optionally regularised.

:func:`gradient_preimage` minimises ``||phi(z) - Psi||^2`` (plus an optional
pull towards an anchor) by L-BFGS with a line search, the iteration that
cannot oscillate as the fixed point of :mod:`kpca_lib.preimage` can. It is
also importable from :mod:`kpca_lib.preimage`, where it lived first.
"""

import warnings

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances
from sklearn.utils import check_array

from ._validation import check_int, check_real

__all__ = ["gradient_preimage"]


def gradient_preimage(X_fit, gamma, c, Z0, *, penalty=0.0, anchor=None, max_iter=500, gtol=1e-9):
    """Gaussian pre-images by a quasi-Newton method with a line search, optionally regularised.

    Minimises, for each point (one row of ``gamma``)::

        f(z) = ||phi(z) - Psi||^2 + penalty ||z - a||^2
             = const - 2 rho(z) + penalty ||z - a||^2,
        rho(z) = sum_i gamma_i exp(-||z - x_i||^2 / c),

    with L-BFGS (scipy's ``minimize(method="L-BFGS-B")``, whose line search
    meets the Wolfe conditions, so every step lowers f). Unlike the
    fixed-point iteration it has no denominator that can vanish, and it
    needs only the gradient, so it also serves kernels without a fixed
    point. With ``penalty > 0`` it is the regularised pre-image of
    Abrahamsen & Hansen (2011): the input-space term pulls z towards the
    anchor a (by default the start, the noisy point), and its stationary
    points satisfy::

        z = ((2/c) sum_i w_i x_i + penalty a) / ((2/c) sum_i w_i + penalty),

    with ``w_i = gamma_i k(z, x_i)``: the fixed point of Mika et al. pulled
    towards a. The points are independent; they are optimised together as
    one sum, vectorised.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i.
    gamma : array-like of shape (n_points, n_samples)
        The weights, one row per point, as from :func:`~kpca_lib.preimage.gamma_weights`.
    c : float
        Width of the Gaussian kernel ``exp(-||x - y||^2 / c)``, c > 0.
    Z0 : array-like of shape (n_points, n_features)
        The starts (for de-noising, the noisy points).
    penalty : float, default=0.0
        Weight lambda >= 0 of the input-space term.
    anchor : array-like of shape (n_points, n_features) or None, default=None
        The points a; None uses ``Z0``.
    max_iter : int, default=500
        Iterations of L-BFGS at most.
    gtol : float, default=1e-9
        The largest gradient entry at which L-BFGS stops.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        The pre-images.

    Warns
    -----
    ConvergenceWarning
        When L-BFGS stops with a gradient entry above ``1000 gtol``.

    Examples
    --------
    >>> import numpy as np
    >>> X_fit = np.array([[0.0], [1.0]])
    >>> gradient_preimage(X_fit, [[0.5, 0.5]], 10.0, [[0.9]]).round(6)
    array([[0.5]])
    """
    X_fit = check_array(X_fit, dtype=np.float64, input_name="X_fit")
    gamma = check_array(gamma, dtype=np.float64, input_name="gamma")
    Z0 = check_array(Z0, dtype=np.float64, input_name="Z0")
    c = check_real(c, "c", minimum=0, strict=True)
    if gamma.shape[1] != X_fit.shape[0]:
        raise ValueError(f"gamma must have one column per training point ({X_fit.shape[0]}), "
                         f"got {gamma.shape[1]}.")
    if Z0.shape != (gamma.shape[0], X_fit.shape[1]):
        raise ValueError(f"Z0 must have shape {(gamma.shape[0], X_fit.shape[1])} (one start per row "
                         f"of gamma), got {Z0.shape}.")
    if not (np.isfinite(penalty) and penalty >= 0):
        raise ValueError(f"penalty must be a finite number >= 0, got penalty={penalty!r}.")
    anchor = Z0 if anchor is None else check_array(anchor, dtype=np.float64, input_name="anchor")
    if anchor.shape != Z0.shape:
        raise ValueError(f"anchor must have the shape of Z0 {Z0.shape}, got {anchor.shape}.")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    shape = Z0.shape

    def objective(flat):
        Z = flat.reshape(shape)
        W = gamma * np.exp(-pairwise_distances(Z, X_fit, metric="sqeuclidean") / c)
        rho = W.sum(axis=1)
        offsets = Z - anchor
        value = np.sum(-2 * rho + penalty * np.sum(offsets**2, axis=1))
        # d(-2 rho)/dz = (4/c) sum_i w_i (z - x_i)
        gradient = 4 / c * (rho[:, None] * Z - W @ X_fit) + 2 * penalty * offsets
        return value, gradient.ravel()

    result = minimize(objective, Z0.ravel(), jac=True, method="L-BFGS-B",
                      options={"maxiter": max_iter, "gtol": gtol, "ftol": 0.0})
    # L-BFGS-B can end "ABNORMAL" when round-off stops its line search at the optimum; that is
    # no failure if the gradient there is small
    if not result.success and np.max(np.abs(objective(result.x)[1])) > 1e3 * gtol:
        warnings.warn(f"gradient_preimage: L-BFGS stopped before its gradient test ({result.message}).",
                      ConvergenceWarning, stacklevel=2)
    return result.x.reshape(shape)
