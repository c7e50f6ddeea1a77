"""Stein's unbiased risk estimate (SURE) of a de-noiser, by Monte Carlo.

:func:`monte_carlo_sure` estimates a de-noiser's error against the clean
points from one noisy copy and the noise level, with no clean data: the
score of chapter 5 for a de-noiser whose settings are chosen without a
second noisy copy. It is also importable from
:mod:`kpca_lib.denoising_baselines`, where it lived first.
"""

import numpy as np
from sklearn.utils import check_array

from ._validation import check_real

__all__ = ["monte_carlo_sure"]


def monte_carlo_sure(denoiser, X, sigma, *, epsilon=None, random_state=0):
    """Stein's unbiased risk estimate of a de-noiser from one noisy copy (Monte-Carlo SURE).

    For ``x = x_clean + e`` with Gaussian noise ``e ~ N(0, sigma^2 I)`` in d
    dimensions and a weakly differentiable de-noiser f (Stein, 1981),

        E ||f(x) - x_clean||^2 = E [ ||f(x) - x||^2 - d sigma^2 + 2 sigma^2 div f(x) ],

    so the bracket, computable without the clean point, estimates the clean
    error. The divergence is estimated as Ramani, Blu & Unser (2008) do, from
    one more evaluation of the de-noiser per point: with b a standard normal
    vector, ``div f(x) ~ b . (f(x + epsilon b) - f(x)) / epsilon``. It needs
    the noise level and evaluations of f only; f must be a function of each
    point alone (fitted without the points it de-noises) and smooth enough
    for a finite difference.

    Parameters
    ----------
    denoiser : callable
        Maps an array of shape (n_points, n_features) to one of the same
        shape, point by point.
    X : array-like of shape (n_points, n_features)
        The noisy points, one copy each.
    sigma : float
        The noise's standard deviation per coordinate, sigma > 0.
    epsilon : float or None, default=None
        The finite-difference step; None uses ``0.01 * sigma``.
    random_state : int, default=0
        Seed of the probe vectors b.

    Returns
    -------
    sure : ndarray of shape (n_points,)
        One estimate of ``||f(x) - x_clean||^2`` per point; their mean
        estimates the mean squared error.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(20000, 3))
    >>> # doing nothing has error d sigma^2 = 3 * 0.5^2 = 0.75, whatever the data
    >>> bool(abs(monte_carlo_sure(lambda A: A, X, sigma=0.5).mean() - 0.75) < 0.02)
    True
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    sigma = check_real(sigma, "sigma", minimum=0, strict=True)
    epsilon = 0.01 * sigma if epsilon is None else check_real(epsilon, "epsilon", minimum=0, strict=True)
    if not callable(denoiser):
        raise TypeError(f"denoiser must be callable, got {type(denoiser).__name__}.")
    b = np.random.default_rng(random_state).standard_normal(X.shape)
    Z = np.asarray(denoiser(X), dtype=np.float64)
    if Z.shape != X.shape:
        raise ValueError(f"denoiser must return the shape of X {X.shape}, got {Z.shape}.")
    Z_moved = np.asarray(denoiser(X + epsilon * b), dtype=np.float64)
    divergence = np.sum(b * (Z_moved - Z), axis=1) / epsilon
    d = X.shape[1]
    return np.sum((Z - X) ** 2, axis=1) - d * sigma**2 + 2 * sigma**2 * divergence
