"""Pre-images: from a point of feature space back to input space.

Kernel PCA projects ``phi(x)`` on q components of feature space. The
projection ``Psi = P_q phi(x)`` is in general the image of no input point, so
the pre-image is defined as the z that makes ``phi(z)`` closest to ``Psi``.
For the Gaussian kernel ``k(z, z) = 1``, and minimising
``||phi(z) - Psi||^2 = 1 - 2 rho(z) + ||Psi||^2`` is maximising

    rho(z) = sum_i gamma_i k(z, x_i).

Setting the gradient of rho to zero gives the fixed-point iteration of
Mika et al. (1999),

    z_{t+1} = sum_i gamma_i k(z_t, x_i) x_i / sum_i gamma_i k(z_t, x_i).

The distance-based pre-image of Kwok & Tsang (2004), :func:`kwok_tsang`,
needs no iteration. The learned pre-image of Bakir et al. (2004), the other
way back, is in :mod:`kpca_lib.learned_preimage`; the simple baselines are
in :mod:`kpca_lib.denoising_baselines`.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances
from sklearn.utils import check_array

from ._fixed_point import FixedPointRun, GaussianExpansion, check_fixed_point_problem
from ._validation import check_int, check_real
from .kernels import Gaussian

__all__ = [
    "PreimageResult",
    "gamma_weights",
    "gaussian_fixed_point",
    "gradient_preimage",
    "kwok_tsang",
    "nearest_in_feature_space",
]

# Kwok-Tsang: singular values of the centred neighbours at most this fraction of the largest are
# round-off (the neighbours do not span that direction)
RANK_TOL = 1e-10
# a least-squares pre-image farther from the neighbours' mean than (1 + RADIUS_SLACK) times its
# radius max(R, rho) is pulled back to that radius (step 4 of kwok_tsang); the slack keeps an exact
# answer on the sphere (a recovered neighbour that is the farthest one) from being moved by round-off
RADIUS_SLACK = 1e-8
_NEWTON_STEPS = 100


def gamma_weights(alphas, Y):
    """Weights gamma_i of the training points in the projection ``P_q phi(x)``.

    The components are expansions in the *centred* training images
    ``phi(x_i) - m``, with ``m = (1/n) sum_j phi(x_j)``:
    ``V_k = sum_i alpha_i^k (phi(x_i) - m)``. The projection of a test point,
    with the mean added back, is ``Psi = sum_k y_k V_k + m``, with
    ``y_k = <V_k, phi(x) - m>`` its projections. Expanding ``m`` gives
    ``Psi = sum_i gamma_i phi(x_i)`` with

        gamma_i = sum_k y_k alpha_i^k
                  + (1/n) (1 - sum_j sum_k y_k alpha_j^k).

    The second term is the centring correction. For the components of a
    centred kernel PCA every column of ``alphas`` sums to 0, so the
    correction is exactly 1/n: it adds ``(1/n) sum_i k(z, x_i)``, a kernel
    density estimate of the training points, to the objective ``rho(z)`` of
    the pre-image. Derivations that assume uncentred data leave it out.
    (The projections are ``beta`` in Mika et al. (1999); here beta names the
    unit eigenvectors of the centred kernel matrix, as in
    :mod:`kpca_lib.kernel_pca`.)

    Parameters
    ----------
    alphas : array-like of shape (n_samples, n_components)
        Normalised dual coefficients, as ``KernelPCA.alphas_``.
    Y : array-like of shape (n_points, n_components)
        Projections y_k of the points on the components, one row per
        point, as ``KernelPCA.transform`` returns them.

    Returns
    -------
    gamma : ndarray of shape (n_points, n_samples)
        One row of weights per point; each row sums to 1.

    Examples
    --------
    >>> import numpy as np
    >>> gamma_weights(np.array([[1.0], [-1.0]]), np.array([[0.5]]))
    array([[1., 0.]])
    """
    alphas = check_array(alphas, dtype=np.float64, input_name="alphas")
    Y = check_array(Y, dtype=np.float64, input_name="Y")
    if Y.shape[1] != alphas.shape[1]:
        raise ValueError(
            f"Y must have one column per component ({alphas.shape[1]}), "
            f"got shape {Y.shape}."
        )
    n = alphas.shape[0]
    gamma = Y @ alphas.T
    gamma += (1.0 - gamma.sum(axis=1, keepdims=True)) / n
    return gamma


@dataclass
class PreimageResult:
    """Outcome of :func:`gaussian_fixed_point`.

    Attributes
    ----------
    Z : ndarray of shape (n_points, n_features)
        The pre-images. A point whose denominator vanished after every
        restart is returned at its start.
    converged : ndarray of shape (n_points,), dtype bool
        Whether each point met the convergence test.
    n_iter : ndarray of shape (n_points,), dtype int
        Iterations done per point, restarts included.
    n_restarts : ndarray of shape (n_points,), dtype int
        Restarts per point after a vanishing denominator.
    Z_history : ndarray of shape (n_steps + 1, n_points, n_features) or None
        The iterates, the start first; a point that has stopped keeps its
        last value. Only with ``return_history=True``.
    rho_history : ndarray of shape (n_steps + 1, n_points) or None
        The objective ``rho(z) = sum_i gamma_i k(z, x_i)`` at each iterate.
        Only with ``return_history=True``.
    """

    Z: np.ndarray
    converged: np.ndarray
    n_iter: np.ndarray
    n_restarts: np.ndarray
    Z_history: np.ndarray | None = None
    rho_history: np.ndarray | None = None


def gaussian_fixed_point(
    X_fit,
    gamma,
    c,
    Z0,
    *,
    max_iter=100,
    tol=1e-6,
    max_restarts=3,
    random_state=0,
    return_history=False,
):
    """Pre-images for the Gaussian kernel by the fixed-point iteration.

    Iterates ``z <- sum_i w_i x_i / sum_i w_i`` with
    ``w_i = gamma_i exp(-||z - x_i||^2 / c)``, for all points at once: one
    kernel matrix between the active points and the training set per
    iteration, no loop over points. The kernel values of one point enter
    only through the ratio, so they are computed up to a common factor,
    chosen to make the largest of them 1: a z far from the data then does
    not underflow every ``k(z, x_i)`` to 0. The iteration is unchanged by a
    shift of the points and the starts together, so it runs on them
    measured from the mean of ``X_fit``: far from the origin the expansion
    of ``||z - x_i||^2`` would otherwise cancel. A point stops when its step
    ``||z_{t+1} - z_t||`` is at most ``tol * s``, with s the root mean square
    distance of the training points to their mean.

    The denominator ``sum_i gamma_i k(z, x_i)`` can vanish, because gamma has
    negative entries that cancel the positive ones. It counts as vanished when
    ``|sum_i w_i| <= 1e-12 sum_i |w_i|``. The point then restarts from its
    start plus Gaussian noise of standard deviation ``sqrt(c / 2)`` (the
    kernel's length scale), at most ``max_restarts`` times; after that it is
    reported as not converged and returned at its start.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i.
    gamma : array-like of shape (n_points, n_samples)
        The weights, one row per point, as from :func:`gamma_weights`.
    c : float
        Width of the Gaussian kernel ``exp(-||x - y||^2 / c)``, c > 0.
    Z0 : array-like of shape (n_points, n_features)
        The starting points, usually the noisy points themselves.
    max_iter : int, default=100
        Iterations at most per point (restarts included); 0 returns the
        starts, as not converged.
    tol : float, default=1e-6
        Relative step size below which a point has converged; 0 runs every
        point for ``max_iter`` iterations.
    max_restarts : int, default=3
        Restarts allowed per point after a vanishing denominator.
    random_state : int, RandomState instance or None, default=0
        Seed of the restart perturbations.
    return_history : bool, default=False
        Also record every iterate and the objective rho, for convergence
        plots (costs one more kernel evaluation per iteration).

    Returns
    -------
    PreimageResult
        The pre-images, per-point convergence flags, iteration and restart
        counts, and the history when asked for.

    Warns
    -----
    ConvergenceWarning
        When some points have not converged, saying how many ran out of
        iterations and how many lost their denominator.

    Examples
    --------
    >>> import numpy as np
    >>> X_fit = np.array([[0.0], [1.0]])
    >>> gamma = np.array([[0.5, 0.5]])
    >>> result = gaussian_fixed_point(X_fit, gamma, 1.0, np.array([[0.9]]))
    >>> result.Z.round(6), bool(result.converged[0])
    (array([[0.5]]), True)
    """
    X_fit, gamma, c, Z0, max_iter, tol, max_restarts = check_fixed_point_problem(
        X_fit, gamma, c, Z0, max_iter, tol, max_restarts
    )
    expansion = GaussianExpansion(X_fit, c)  # the x_i, measured from their mean
    run = FixedPointRun(expansion, gamma, Z0, c, tol, max_restarts, random_state, return_history)
    for _ in range(max_iter):
        rows = run.moving_rows()
        if rows is None:
            break
        # eq-fixed-point: z <- sum_i w_i x_i / sum_i w_i, with w_i = gamma_i k(z, x_i)
        W = gamma[rows] * expansion.kernel(run.Z[rows])
        numerator, denominator = expansion.weighted_sums(W)
        vanished = run.vanished(rows, numerator, denominator)  # restarted below
        run.advance(numerator[~vanished] / denominator[~vanished, np.newaxis], vanished)
    return PreimageResult(**run.outcome(max_iter))


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
        The weights, one row per point, as from :func:`gamma_weights`.
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


def nearest_in_feature_space(X_fit, gamma, c):
    """The training point whose image is nearest to the projection: a pre-image baseline.

    ``argmin_i ||phi(x_i) - Psi||^2 = ||Psi||^2 + 1 - 2 (K gamma)_i`` with
    ``Psi = sum_j gamma_j phi(x_j)`` (Gaussian kernel). Cheap, free of
    iterations, and the usual start of the iterative pre-images; it can only
    return training points.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i.
    gamma : array-like of shape (n_points, n_samples)
        The weights, one row per point, as from :func:`gamma_weights`.
    c : float
        Width of the Gaussian kernel, c > 0.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        One training point per row.

    Examples
    --------
    >>> import numpy as np
    >>> nearest_in_feature_space([[0.0], [1.0], [5.0]], [[0.4, 0.6, 0.0]], 1.0)
    array([[1.]])
    """
    X_fit = check_array(X_fit, dtype=np.float64, input_name="X_fit")
    gamma = check_array(gamma, dtype=np.float64, input_name="gamma")
    if gamma.shape[1] != X_fit.shape[0]:
        raise ValueError(f"gamma must have one column per training point ({X_fit.shape[0]}), got shape {gamma.shape}.")
    return X_fit[np.argmin(_feature_distances(X_fit, gamma, Gaussian(c=c)), axis=1)]


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
        The weights, one row per point, as from :func:`gamma_weights`.
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
