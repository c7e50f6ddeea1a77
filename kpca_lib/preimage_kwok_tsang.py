"""The distance-based pre-image of Kwok & Tsang (2004), for the Gaussian kernel.

:func:`kwok_tsang` needs no iteration: from the feature-space distances of
the projection ``Psi`` to the images of its nearest training points it
derives input-space distances, and places the pre-image at those distances
in the span of the neighbours (kept where the data put it). It is also
importable from :mod:`kpca_lib.preimage`, where it lived first.
"""

import warnings

import numpy as np
from sklearn.utils import check_array

from ._validation import check_int
from .kernels import Gaussian

__all__ = ["kwok_tsang"]

# Kwok-Tsang: singular values of the centred neighbours at most this fraction of the largest are
# round-off (the neighbours do not span that direction)
RANK_TOL = 1e-10
# a least-squares pre-image farther from the neighbours' mean than (1 + RADIUS_SLACK) times its
# radius max(R, rho) is pulled back to that radius (step 4 of kwok_tsang); the slack keeps an exact
# answer on the sphere (a recovered neighbour that is the farthest one) from being moved by round-off
RADIUS_SLACK = 1e-8
_NEWTON_STEPS = 100


def kwok_tsang(X_fit, gamma, c, *, n_neighbors=10):
    """Pre-images for the Gaussian kernel from distances (Kwok & Tsang, 2004).

    Non-iterative, so free of starts and local optima. For each point:

    1. The feature-space distances of ``Psi = sum_i gamma_i phi(x_i)`` to
       the training images, ``d~_i^2 = ||Psi||^2 + 1 - 2 (K gamma)_i``.
    2. The n training points nearest in feature space, and their
       input-space distances to the pre-image: ``d~^2 = 2 - 2 k`` and
       ``k = exp(-d^2 / c)`` give ``d_i^2 = -c log(1 - d~_i^2 / 2)``.
    3. The point whose distances to those neighbours best match the d_i:
       with ``X H = U Lambda V^T`` the SVD of the centred neighbours
       (columns ``x_i - xbar``), ``Z = Lambda V^T`` are their coordinates
       and ``d0_i^2 = ||z_i||^2``; the pre-image is
       ``xbar + U z`` with ``z = -1/2 Lambda^-1 V^T (d^2 - d0^2)``, the
       least-squares solution of ``||z - z_i||^2 = d_i^2``, in the span of
       the neighbours. Directions whose singular value is at most
       ``RANK_TOL`` (1e-10) times the largest are round-off and get no
       coordinate.
    4. Only the significant directions, as far as the data tell: the
       linear system of step 3 fixes the differences of the d_i^2 only,
       and along a direction in which the neighbours barely spread (a small
       lambda_r, as when they straddle two clusters in many dimensions)
       small errors of the distances move z a long way: in 10-D it put
       pre-images of the de-noising toy 6 away from their cluster's
       centre, in clusters of radius about 0.3. The
       level of the d_i^2 says how far the pre-image is from the
       neighbours' mean, since ``mean_i ||z - x_i||^2 = ||z - xbar||^2 +
       mean_i d0_i^2``: ``rho = sqrt(mean d^2 - mean d0^2)`` (0 when
       negative: the distances are too short for any point). When the
       least-squares z is farther from ``xbar`` than both rho and the
       farthest neighbour, ``R = max_i ||z_i||``, the distances fit no
       point near the neighbours, and z is taken as the best fit of step 3
       on the ball of radius ``max(R, rho)``: ``z_r = lambda_r b_r /
       (lambda_r^2 + mu)`` with ``b = -1/2 V^T (d^2 - d0^2)`` and the
       smallest mu >= 0 that puts it on the sphere (Tikhonov damping of
       the weakest directions first; a trust-region problem, solved by
       Newton's method). A least-squares z within the ball is left as it
       is, so exact distances of a point give that point back wherever it
       is, and the usual 2-D cases are unchanged.

    Honeine & Richard (2011) review this and the other pre-image methods.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i (or the landmarks of a Nystroem fit).
    gamma : array-like of shape (n_points, n_samples)
        The weights, one row per point, as from :func:`~kpca_lib.preimage.gamma_weights`.
    c : float
        Width of the Gaussian kernel ``exp(-||x - y||^2 / c)``, c > 0.
    n_neighbors : int, default=10
        The number n of neighbours, 1 <= n <= n_samples; Kwok & Tsang use 10.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        The pre-images.

    Warns
    -----
    RuntimeWarning
        When ``Psi`` is so far from a neighbour's image (``d~^2 >= 2``) that
        no input distance matches; the distance is then taken very large.
        When pre-images were pulled back in step 4, saying how many. When
        pre-images lie farther from their neighbours' mean than any two
        neighbours are from each other (where rho puts them), saying how
        many: a point that far is an extrapolation, never returned in
        silence.

    Examples
    --------
    >>> import numpy as np
    >>> X_fit = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> gamma = np.eye(3)[[1]]                      # Psi = phi(x_2)
    >>> kwok_tsang(X_fit, gamma, 1.0, n_neighbors=3).round(6) + 0.0
    array([[1., 0.]])
    """
    X_fit = check_array(X_fit, dtype=np.float64, input_name="X_fit")
    gamma = check_array(gamma, dtype=np.float64, input_name="gamma")
    n = X_fit.shape[0]
    if gamma.shape[1] != n:
        raise ValueError(f"gamma must have one column per training point ({n}), got shape {gamma.shape}.")
    kernel = Gaussian(c=c)  # validates c
    n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1, maximum=n)

    # 1. feature-space distances of Psi to every phi(x_i)
    feature_d2 = _feature_distances(X_fit, gamma, kernel)
    # 2. the nearest n, and their input-space distances
    index = np.argpartition(feature_d2, n_neighbors - 1, axis=1)[:, :n_neighbors]
    d2 = _input_distances(np.take_along_axis(feature_d2, index, axis=1), kernel.c)
    # 3. the point with those distances, in the span of the centred neighbours
    neighbours = X_fit[index]
    xbar = neighbours.mean(axis=1)
    U, Lambda, Vt = np.linalg.svd(np.swapaxes(neighbours - xbar[:, np.newaxis], 1, 2), full_matrices=False)
    d0_2 = np.sum((Lambda[:, :, np.newaxis] * Vt) ** 2, axis=1)
    # directions the neighbours do not span get no coordinate: centring leaves at most n - 1, and
    # a singular value of round-off size (~1e-16 of the largest) would multiply the pre-image's error
    spanned = Lambda > RANK_TOL * Lambda[:, :1]
    # the least-squares coordinates z_r = b_r / lambda_r, with b = -1/2 V^T (d^2 - d0^2)
    b = np.where(spanned, -0.5 * np.einsum("prk,pk->pr", Vt, d2 - d0_2), 0.0)
    Lambda = np.where(spanned, Lambda, 0.0)
    # 4. keep it where the data put it: no farther from the neighbours' mean than the farthest
    # neighbour (R), or than its estimated distances place it (rho), whichever is larger
    farthest = np.sqrt(np.max(d0_2, axis=1))
    estimated = np.sqrt(np.maximum(np.mean(d2, axis=1) - np.mean(d0_2, axis=1), 0.0))
    z, pulled_back = _within_radius(Lambda, b, np.maximum(farthest, estimated))
    if pulled_back.any():
        warnings.warn(
            f"{np.count_nonzero(pulled_back)} Kwok-Tsang pre-images were pulled back towards their "
            "neighbours: the least-squares point was farther from the neighbours' mean than both the "
            "farthest neighbour and the distances estimated from the projection put it (those "
            "distances fit no point near the neighbours; too few components can do this), so its "
            "weakest directions were damped until it lies at the larger of the two.",
            RuntimeWarning,
            stacklevel=2,
        )
    far = _beyond_diameter(Lambda[:, :, np.newaxis] * Vt, np.linalg.norm(z, axis=1), farthest)
    if far.any():
        warnings.warn(
            f"{np.count_nonzero(far)} Kwok-Tsang pre-images lie farther from their neighbours' mean "
            "than any two of the neighbours are from each other, where the distances estimated from "
            "the projection put them: an extrapolation from neighbours whose images are far from "
            "the projection.",
            RuntimeWarning,
            stacklevel=2,
        )
    return xbar + np.einsum("pdr,pr->pd", U, z)


def _beyond_diameter(coordinates, distance, farthest):
    """Which points are farther from their neighbours' mean than the neighbours' diameter.

    ``coordinates`` (n_points, r, n): the neighbours' coordinates about their
    mean; ``distance``: each point's distance from that mean; ``farthest``:
    the farthest neighbour's distance from it. The diameter D is at least
    ``farthest``, so only the points beyond that are looked at, in chunks of
    n x n Gram matrices.
    """
    far = np.zeros(distance.shape, dtype=bool)
    rows = np.flatnonzero(distance > (1.0 + RADIUS_SLACK) * farthest)
    n = coordinates.shape[2]
    chunk = max(1, 2**22 // (n * n))
    for start in range(0, rows.size, chunk):
        at = rows[start : start + chunk]
        gram = np.einsum("prk,prl->pkl", coordinates[at], coordinates[at])
        squares = np.einsum("pkk->pk", gram)
        diameter2 = np.max(squares[:, :, np.newaxis] + squares[:, np.newaxis, :] - 2.0 * gram, axis=(1, 2))
        far[at] = distance[at] ** 2 > (1.0 + RADIUS_SLACK) ** 2 * np.maximum(diameter2, 0.0)
    return far


def _within_radius(Lambda, b, radius):
    """The coordinates z minimising ``||Lambda z - b||`` with ``||z|| <= radius``, row by row.

    The trust-region problem in the neighbours' SVD coordinates. Where the
    least-squares point ``z_r = b_r / lambda_r`` is within the radius (up
    to ``RADIUS_SLACK`` relative, for round-off), it is the answer;
    otherwise ``z_r(mu) = lambda_r b_r / (lambda_r^2 + mu)`` (Tikhonov
    damping, strongest on the smallest lambda_r) with the mu >= 0 that puts
    z on the sphere, found by Newton's method on ``1 / ||z(mu)|| - 1 /
    radius`` (concave and increasing in mu, so the iteration from mu = 0
    rises to the root without overshooting; Moré & Sorensen, 1983).
    Entries with lambda_r = 0 get z_r = 0. Returns ``(z, pulled_back)``.
    """
    spanned = Lambda > 0.0
    z = np.divide(b, Lambda, out=np.zeros_like(b), where=spanned)
    norm = np.linalg.norm(z, axis=1)
    pulled_back = norm > (1.0 + RADIUS_SLACK) * radius
    if not pulled_back.any():
        return z, pulled_back
    L2, lb, R = Lambda[pulled_back] ** 2, Lambda[pulled_back] * b[pulled_back], radius[pulled_back]
    mu = np.zeros(R.shape)
    for _ in range(_NEWTON_STEPS):
        denominator = np.where(L2 > 0.0, L2 + mu[:, np.newaxis], 1.0)
        z_mu = lb / denominator
        norm2 = np.sum(z_mu**2, axis=1)
        # psi(mu) = 1/||z|| - 1/R, psi'(mu) = sum_r z_r^2 / (lambda_r^2 + mu) / ||z||^3
        slope = np.sum(z_mu**2 / denominator, axis=1) / norm2**1.5
        step = (1.0 / np.sqrt(norm2) - 1.0 / R) / slope
        mu -= step
        if np.all(np.abs(step) <= 1e-15 * mu):
            break
    z[pulled_back] = lb / np.where(L2 > 0.0, L2 + mu[:, np.newaxis], 1.0)
    return z, pulled_back


def _feature_distances(X_fit, gamma, kernel):
    """``||Psi - phi(x_i)||^2 = ||Psi||^2 + 1 - 2 (K gamma)_i`` for every point (rows) and x_i (columns)."""
    K_gamma = gamma @ kernel(X_fit)
    return np.einsum("ij,ij->i", K_gamma, gamma)[:, np.newaxis] + 1.0 - 2.0 * K_gamma


def _input_distances(feature_d2, c):
    """Input-space squared distances from Gaussian feature-space ones, d^2 = -c log(1 - d~^2 / 2)."""
    # d~^2 is a squared norm: negative only by round-off
    feature_d2 = np.maximum(feature_d2, 0.0)
    too_far = feature_d2 >= 2.0
    if too_far.any():
        warnings.warn(
            f"{np.count_nonzero(too_far.any(axis=1))} projections are at feature-space distance >= sqrt(2) "
            "from a neighbour's image, which no input distance gives; that distance is taken "
            "as that of k = 1e-300.",
            RuntimeWarning,
            stacklevel=3,
        )
    return -c * np.log(np.maximum(1.0 - feature_d2 / 2.0, 1e-300))
