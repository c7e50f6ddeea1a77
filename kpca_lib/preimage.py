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
needs no iteration (it is in :mod:`kpca_lib.preimage_kwok_tsang`); the
quasi-Newton pre-image :func:`gradient_preimage` is in
:mod:`kpca_lib.preimage_gradient`. Both are importable from here too, where
they lived first. The learned pre-image of Bakir et al. (2004), the other
way back, is in :mod:`kpca_lib.learned_preimage`; the simple baselines are
in :mod:`kpca_lib.denoising_baselines`.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_array

from ._fixed_point import FixedPointRun, GaussianExpansion, check_fixed_point_problem
from .kernels import Gaussian

# moved to modules of their own; imported here so that the imports of the chapters keep working
# (not in __all__: the reference documents each in its own module, once)
from .preimage_gradient import gradient_preimage  # noqa: F401
from .preimage_kwok_tsang import kwok_tsang  # noqa: F401
from .preimage_kwok_tsang import _feature_distances

__all__ = [
    "PreimageResult",
    "gamma_weights",
    "gaussian_fixed_point",
    "nearest_in_feature_space",
]


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
