"""Argument checks shared by the estimators."""

from numbers import Integral, Real

import numpy as np


def check_n_components(n_components, upper, why):
    """Check ``1 <= n_components <= upper``; ``None`` means ``upper``.

    Parameters
    ----------
    n_components : int or None
        The requested number of components q.
    upper : int
        The largest q the data allow.
    why : str
        What limits q, for the error message.

    Returns
    -------
    int
        The number of components to compute.
    """
    if n_components is None:
        return upper
    n_components = check_int(n_components, "n_components", minimum=1)
    if n_components > upper:
        raise ValueError(
            f"n_components={n_components} is larger than the rank allows: "
            f"at most {upper} ({why})."
        )
    return n_components


def check_rank(rank, q, empty, what):
    """Check that q components fit a numerical rank; return q.

    Parameters
    ----------
    rank : int
        The number of positive eigenvalues found.
    q : int
        The number of components wanted.
    empty : str
        The error message when the rank is 0.
    what : str
        The matrix whose eigenvalues these are, for the error message.
    """
    if rank == 0:
        raise ValueError(empty)
    if rank < q:
        raise ValueError(
            f"n_components={q} is larger than the rank allows: {what} has only "
            f"{rank} positive eigenvalues."
        )
    return q


def check_int(value, name, minimum, maximum=None):
    """Return ``value`` if it is an integer in [minimum, maximum], else raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {name}={value}.")
    _check_maximum(value, name, maximum)
    return int(value)


def _check_maximum(value, name, maximum):
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {name}={value!r}.")


def check_real(value, name, *, minimum=None, strict=False, maximum=None):
    """Return ``value`` as a float if it is a finite real number in range.

    Parameters
    ----------
    value : object
        The argument to check.
    name : str
        Its name, for the error message.
    minimum : float or None, default=None
        Lower bound, if any.
    strict : bool, default=False
        Whether the bound excludes ``minimum`` itself.
    maximum : float or None, default=None
        Upper bound (included), if any.
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {name}={value!r}.")
    if minimum is not None and (value < minimum or strict and value == minimum):
        relation = ">" if strict else ">="
        raise ValueError(f"{name} must be {relation} {minimum}, got {name}={value!r}.")
    _check_maximum(value, name, maximum)
    return float(value)


def check_projections(Z, q):
    """Projections Z as a 2-D float array with q columns, all finite.

    float32 stays float32 (as scikit-learn keeps it); anything else becomes
    float64.
    """
    Z = np.asarray(Z)
    Z = Z.astype(np.float32 if Z.dtype == np.float32 else np.float64, copy=False)
    if Z.ndim != 2 or Z.shape[1] != q:
        raise ValueError(f"Z must have shape (n_samples, {q}), got {Z.shape}.")
    if not np.all(np.isfinite(Z)):
        raise ValueError("Z contains NaN or infinity.")
    return Z


def known_psd(kernel):
    """Whether the kernel declares every Gram matrix PSD (numpy booleans count)."""
    flag = getattr(kernel, "is_psd", False)
    return isinstance(flag, (bool, np.bool_)) and bool(flag)
