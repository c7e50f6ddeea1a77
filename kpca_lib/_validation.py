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


def symmetric_kernel_matrix(K, rtol, what="The kernel matrix", scale=None, measure="max |K - K^T| / max |K|"):
    """K made exactly symmetric if its asymmetry is round-off; a ValueError if it is more.

    The eigen-solvers read one triangle of a (centred) kernel matrix while
    ``transform`` reads all of it: a non-symmetric one would give
    projections of the training samples that ``transform`` does not
    reproduce. The asymmetry is measured as ``max |K - K^T| / scale``; up
    to ``rtol`` it is taken for round-off and K is replaced, in place, by
    ``(K + K^T) / 2``. (scikit-learn's ``check_symmetric`` compares entries
    with ``np.allclose``, whose hidden relative tolerance of 1e-5 per entry
    would average away an asymmetry far above round-off, and its absolute
    ``tol`` does not scale with K.)

    Parameters
    ----------
    K : ndarray of shape (n, n), float64
        The kernel matrix; changed in place when symmetrised.
    rtol : float
        The largest asymmetry taken for round-off.
    what : str, default="The kernel matrix"
        What K is, for the error message.
    scale : float or None, default=None
        The size of the entries K was computed from, which sets its
        round-off (for a centred kernel matrix, that of the uncentred one);
        ``None`` means ``max |K|``.
    measure : str, default="max |K - K^T| / max |K|"
        How the asymmetry is written in the error message.

    Returns
    -------
    K : ndarray of shape (n, n)
        The same array, symmetric.

    Examples
    --------
    >>> import numpy as np
    >>> symmetric_kernel_matrix(np.array([[1.0, 0.5], [0.5 + 1e-12, 1.0]]), rtol=1e-8)
    array([[1. , 0.5],
           [0.5, 1. ]])
    >>> symmetric_kernel_matrix(np.array([[1.0, 0.5], [0.4, 1.0]]), rtol=1e-8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: The kernel matrix is not symmetric: max |K - K^T| / max |K| = 0.1 (above 1e-08, taken for round-off)...
    """
    if scale is None:
        scale = np.abs(K).max() if K.size else 0.0
    asymmetry = np.abs(K - K.T).max() / scale if scale > 0 else 0.0
    if asymmetry > rtol:
        raise ValueError(
            f"{what} is not symmetric: {measure} = {asymmetry:.3g} (above "
            f"{rtol:.3g}, taken for round-off). A kernel matrix k(x_i, x_j) is symmetric; "
            "the eigen-solver would read one triangle of it and transform all of it, so "
            "the projections of fit_transform and transform would disagree. Check how it was "
            "computed, or pass (K + K.T) / 2 if that is the kernel you mean."
        )
    K += K.T  # numpy buffers the overlapping transpose
    K *= 0.5
    return K
