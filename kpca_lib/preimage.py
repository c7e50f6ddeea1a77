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

The learned pre-image of Bakir et al. (2004), the other way back, is in
:mod:`kpca_lib.learned_preimage`.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array, check_random_state

from ._validation import check_int, check_real
from .kernels import Gaussian

__all__ = ["PreimageResult", "gamma_weights", "gaussian_fixed_point"]


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


# One vectorised loop whose per-point state (active, converged, restarts, history) every
# long: step updates; split into parts, that state would have to travel through each of them
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
    X_fit = check_array(X_fit, dtype=np.float64, input_name="X_fit")
    Z0 = check_array(Z0, dtype=np.float64, input_name="Z0")
    gamma = check_array(gamma, dtype=np.float64, input_name="gamma")
    n, d = X_fit.shape
    m = Z0.shape[0]
    if Z0.shape[1] != d:
        raise ValueError(f"Z0 must have {d} features like X_fit, got {Z0.shape[1]}.")
    if gamma.shape != (m, n):
        raise ValueError(
            f"gamma must have shape (n_points, n_samples) = {(m, n)}, got {gamma.shape}."
        )
    kernel = Gaussian(c=c)  # validates c
    c = kernel.c
    max_iter = check_int(max_iter, "max_iter", minimum=0)
    tol = check_real(tol, "tol", minimum=0)
    max_restarts = check_int(max_restarts, "max_restarts", minimum=0)
    rng = check_random_state(random_state)

    # the iteration commutes with a shift: run it about the data's mean
    offset = X_fit.mean(axis=0)
    X_fit = X_fit - offset
    Z0_given = Z0
    Z0 = Z0 - offset
    scale = np.sqrt(np.mean(np.sum(X_fit**2, axis=1)))
    step_tol = tol * (scale if scale > 0 else 1.0)

    gamma_l1 = np.abs(gamma).sum(axis=1)
    X_fit_and_ones = np.hstack([X_fit, np.ones((n, 1))])
    # the exponent -||z - x_i||^2 / c = (2 z.x_i - ||x_i||^2 - ||z||^2) / c
    # comes from one matrix product, [z, 1, ||z||^2] . [2 x_i, -||x_i||^2, -1] / c
    X_fit_augmented = np.hstack(
        [2.0 * X_fit, -np.einsum("ij,ij->i", X_fit, X_fit)[:, np.newaxis], -np.ones((n, 1))]
    ) / c

    def exponents(Z_rows):
        squared_norms = np.einsum("ij,ij->i", Z_rows, Z_rows)[:, np.newaxis]
        Z_augmented = np.hstack([Z_rows, np.ones_like(squared_norms), squared_norms])
        return Z_augmented @ X_fit_augmented.T

    def weights(Z_rows, gamma_rows, rescale):
        """w_i = gamma_i k(z, x_i); with rescale, up to a factor per row.

        The kernel values of a point enter only through the ratio, so any
        factor per row cancels. Rescaling makes the largest value 1: a z far
        from the data then keeps its weights instead of underflowing to 0.
        """
        exponent = exponents(Z_rows)
        if rescale:
            exponent -= exponent.max(axis=1, keepdims=True)
        W = np.exp(exponent, out=exponent)
        W *= gamma_rows
        return W

    Z = Z0.copy()
    start = Z0.copy()
    active = np.ones(m, dtype=bool)
    converged = np.zeros(m, dtype=bool)
    gave_up = np.zeros(m, dtype=bool)
    n_iter = np.zeros(m, dtype=int)
    n_restarts = np.zeros(m, dtype=int)
    Z_history, rho_history = [], []

    def shifted_back():
        # points at their start (not yet moved, or given up) are returned
        # exactly there, not off by the round-off of the shift
        Z_out = Z + offset
        at_start = gave_up | (n_iter == 0)
        Z_out[at_start] = Z0_given[at_start]
        return Z_out

    def record():
        Z_history.append(shifted_back())
        # rho(z) = sum_i gamma_i k(z, x_i), from the iteration's own exponents:
        # the kernel's public call validates its inputs, which cost more than
        # the iteration itself when the explorers record every step
        rho_history.append(np.einsum("ij,ij->i", gamma, np.exp(exponents(Z))))

    if return_history:
        record()
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        # while every point is active, use the arrays as they are, uncopied
        rows = slice(None) if idx.size == m else idx
        gamma_rows = gamma[rows]
        W = weights(Z[rows], gamma_rows, rescale=False)
        # one product gives the numerators and, in the last column, the denominators
        products = W @ X_fit_and_ones
        denominator = products[:, -1]
        # k <= 1, so sum_i |w_i| <= ||gamma||_1: only rows under that cheap
        # bound can have vanished (or underflowed), and only they are redone,
        # rescaled, for the exact test
        vanished = np.abs(denominator) <= 1e-12 * gamma_l1[rows]
        if vanished.any():
            suspects = np.flatnonzero(vanished)
            W = weights(Z[idx[suspects]], gamma_rows[suspects], rescale=True)
            products[suspects] = W @ X_fit_and_ones
            vanished[suspects] = np.abs(denominator[suspects]) <= 1e-12 * np.abs(W).sum(axis=1)

        moving = idx
        if vanished.any():
            products, denominator, moving = products[~vanished], denominator[~vanished], idx[~vanished]
        Z_new = products[:, :-1] / denominator[:, np.newaxis]
        step = np.linalg.norm(Z_new - Z[moving], axis=1)
        Z[moving] = Z_new
        n_iter[idx] += 1
        done = moving[step <= step_tol]
        converged[done] = True
        active[done] = False

        # restart from a perturbed start, a bounded number of times
        lost = idx[vanished]
        can_retry = n_restarts[lost] < max_restarts
        retry, given_up = lost[can_retry], lost[~can_retry]
        n_restarts[retry] += 1
        Z[retry] = start[retry] + rng.normal(scale=np.sqrt(c / 2), size=(retry.size, d))
        Z[given_up] = start[given_up]
        active[given_up] = False
        gave_up[given_up] = True
        if return_history:
            record()

    n_unconverged = int(np.count_nonzero(~converged))
    if n_unconverged:
        n_lost = int(np.count_nonzero(gave_up))
        warnings.warn(
            f"{n_unconverged} of {m} pre-images did not converge: "
            f"{n_unconverged - n_lost} reached max_iter={max_iter} and {n_lost} "
            f"lost their denominator after {max_restarts} restarts. See the "
            "converged field of the result.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return PreimageResult(
        Z=shifted_back(),
        converged=converged,
        n_iter=n_iter,
        n_restarts=n_restarts,
        Z_history=np.array(Z_history) if return_history else None,
        rho_history=np.array(rho_history) if return_history else None,
    )

