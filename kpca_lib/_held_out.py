"""The held-out choice without clean data, shared by the de-noising baselines.

A setting (a number of components, of neighbours, of clusters) is scored on
validation points against a second, independent noisy copy of each, and
:func:`one_standard_error_choice` (documented in
:mod:`kpca_lib.denoising_baselines`) keeps the simplest setting within one
standard error of the best. :func:`check_points` checks the training and
noisy points every baseline takes.
"""

import numpy as np
from sklearn.utils import check_array

__all__ = ["check_points", "one_standard_error_choice"]


def check_points(X_fit, X):
    """X_fit and X as float64 arrays with the same number of features."""
    X_fit = check_array(X_fit, dtype=np.float64, input_name="X_fit")
    X = check_array(X, dtype=np.float64, input_name="X")
    if X.shape[1] != X_fit.shape[1]:
        raise ValueError(f"X must have {X_fit.shape[1]} features like X_fit, got {X.shape[1]}.")
    return X_fit, X


def one_standard_error_choice(errors):
    """Index of the simplest setting within one standard error of the best.

    The held-out rule of chapter 5, a paired variant of the one-standard-error
    rule of Hastie et al. (2009): with ``e_s`` the errors of setting s on the
    validation points and ``s*`` the setting of least mean error, keep s if

        mean(e_s - e_{s*}) <= sd(e_s - e_{s*}) / sqrt(m),

    and return the first kept one: order the settings simplest first.

    Parameters
    ----------
    errors : array-like of shape (n_settings, n_points)
        One error per setting and validation point (m >= 2 points), e.g. the
        squared distance of each de-noised point to a second, independent
        noisy copy of it: no clean data needed.

    Returns
    -------
    index : int
        The chosen row.

    Examples
    --------
    >>> one_standard_error_choice([[1.0, 1.3, 0.8], [0.9, 1.0, 0.9], [3.0, 3.0, 3.0]])
    0
    """
    errors = check_array(errors, dtype=np.float64, input_name="errors")
    if errors.shape[1] < 2:
        raise ValueError(f"errors needs at least 2 validation points (columns), got {errors.shape[1]}.")
    best = np.argmin(errors.mean(axis=1))
    excess = errors - errors[best]
    standard_error = excess.std(axis=1, ddof=1) / np.sqrt(errors.shape[1])
    return int(np.flatnonzero(excess.mean(axis=1) <= standard_error)[0])
