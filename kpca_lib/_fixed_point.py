"""The bookkeeping of :func:`kpca_lib.preimage.gaussian_fixed_point`.

The update itself lives there, a few lines beside eq-fixed-point. What it
needs around it is here: checking the arguments, the kernel values of the
training points measured from their mean (:class:`GaussianExpansion`), and
the state of every point (:class:`FixedPointRun`): which are still moving,
which have converged, restarts after a vanishing denominator, histories and
the warning at the end.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array, check_random_state

from ._validation import check_int, check_real
from .kernels import Gaussian

# a denominator counts as vanished when |sum_i w_i| <= VANISHED sum_i |w_i|
VANISHED = 1e-12


def check_fixed_point_problem(X_fit, gamma, c, Z0, max_iter, tol, max_restarts):
    """Validated arrays and options of the iteration; c from :class:`~kpca_lib.kernels.Gaussian`."""
    X_fit = check_array(X_fit, dtype=np.float64, input_name="X_fit")
    Z0 = check_array(Z0, dtype=np.float64, input_name="Z0")
    gamma = check_array(gamma, dtype=np.float64, input_name="gamma")
    (n, d), m = X_fit.shape, Z0.shape[0]
    if Z0.shape[1] != d:
        raise ValueError(f"Z0 must have {d} features like X_fit, got {Z0.shape[1]}.")
    if gamma.shape != (m, n):
        raise ValueError(
            f"gamma must have shape (n_points, n_samples) = {(m, n)}, got {gamma.shape}."
        )
    c = Gaussian(c=c).c  # validates c
    max_iter = check_int(max_iter, "max_iter", minimum=0)
    tol = check_real(tol, "tol", minimum=0)
    max_restarts = check_int(max_restarts, "max_restarts", minimum=0)
    return X_fit, gamma, c, Z0, max_iter, tol, max_restarts


class GaussianExpansion:
    """The training points x_i, measured from their mean, and k(z, x_i) from them.

    The iteration is unchanged by a shift of the points and the starts
    together, so it runs about the mean of ``X_fit``: far from the origin
    the expansion of ``||z - x_i||^2`` would otherwise cancel.

    Parameters
    ----------
    X_fit : ndarray of shape (n_samples, n_features)
        The training points.
    c : float
        Width of the Gaussian kernel.
    """

    def __init__(self, X_fit, c):
        n = X_fit.shape[0]
        self.offset = X_fit.mean(axis=0)
        X = X_fit - self.offset
        self.scale = np.sqrt(np.mean(np.sum(X**2, axis=1)))
        self.X_and_ones = np.hstack([X, np.ones((n, 1))])
        # the exponent -||z - x_i||^2 / c = (2 z.x_i - ||x_i||^2 - ||z||^2) / c
        # comes from one matrix product, [z, 1, ||z||^2] . [2 x_i, -||x_i||^2, -1] / c
        self.X_augmented = np.hstack(
            [2.0 * X, -np.einsum("ij,ij->i", X, X)[:, np.newaxis], -np.ones((n, 1))]
        ) / c

    def exponents(self, Z):
        """``-||z - x_i||^2 / c``, one row per point z (measured from the mean)."""
        squared_norms = np.einsum("ij,ij->i", Z, Z)[:, np.newaxis]
        return np.hstack([Z, np.ones_like(squared_norms), squared_norms]) @ self.X_augmented.T

    def kernel(self, Z, rescale=False):
        """``k(z, x_i)``; with rescale, up to a factor per row that makes the largest 1.

        The kernel values of a point enter the iteration only through a
        ratio, so a factor per row cancels; rescaled, a z far from the data
        keeps its weights instead of underflowing to 0.
        """
        exponent = self.exponents(Z)
        if rescale:
            exponent -= exponent.max(axis=1, keepdims=True)
        return np.exp(exponent, out=exponent)

    def weighted_sums(self, W):
        """``sum_i w_i x_i`` and ``sum_i w_i`` per row of W, from one product."""
        products = W @ self.X_and_ones
        return products[:, :-1], products[:, -1]


class FixedPointRun:
    """Per-point state of the iteration: moving, converged, restarted, given up.

    Parameters
    ----------
    expansion : GaussianExpansion
        The training points.
    gamma : ndarray of shape (n_points, n_samples)
        The weights.
    Z0 : ndarray of shape (n_points, n_features)
        The starts, as given (not shifted).
    c, tol, max_restarts, random_state, return_history
        As in :func:`kpca_lib.preimage.gaussian_fixed_point`.
    """

    def __init__(self, expansion, gamma, Z0, c, tol, max_restarts, random_state, return_history):
        m = Z0.shape[0]
        self.expansion, self.gamma, self.Z0_given = expansion, gamma, Z0
        self.gamma_l1 = np.abs(gamma).sum(axis=1)
        self.start = Z0 - expansion.offset
        self.Z = self.start.copy()
        # a point stops when its step is at most tol times the data's scale
        self.step_tol = tol * (expansion.scale if expansion.scale > 0 else 1.0)
        self.restart_scale, self.max_restarts = np.sqrt(c / 2), max_restarts
        self.rng = check_random_state(random_state)
        self.active = np.ones(m, dtype=bool)
        self.converged = np.zeros(m, dtype=bool)
        self.gave_up = np.zeros(m, dtype=bool)
        self.n_iter = np.zeros(m, dtype=int)
        self.n_restarts = np.zeros(m, dtype=int)
        self.history = ([], []) if return_history else None
        self.record()

    def moving_rows(self):
        """Index (or, while every point moves, an uncopying slice) of the moving points; None when none is left."""
        self._idx = np.flatnonzero(self.active)
        if self._idx.size == 0:
            return None
        return slice(None) if self._idx.size == self.Z.shape[0] else self._idx

    def vanished(self, rows, numerator, denominator):
        """Which denominators ``sum_i gamma_i k(z, x_i)`` have vanished (gamma has both signs).

        k <= 1, so ``sum_i |w_i| <= ||gamma||_1``: only rows under that cheap
        bound can have vanished (or underflowed), and only they are redone,
        rescaled, for the exact test; numerator and denominator are updated
        in place for them.
        """
        vanished = np.abs(denominator) <= VANISHED * self.gamma_l1[rows]
        if vanished.any():
            suspects = np.flatnonzero(vanished)
            points = self._idx[suspects]
            W = self.gamma[points] * self.expansion.kernel(self.Z[points], rescale=True)
            numerator[suspects], denominator[suspects] = self.expansion.weighted_sums(W)
            vanished[suspects] = np.abs(denominator[suspects]) <= VANISHED * np.abs(W).sum(axis=1)
        return vanished

    def advance(self, Z_new, vanished):
        """Move the points whose denominator held; test convergence; restart the others."""
        idx = self._idx
        moving = idx[~vanished] if vanished.any() else idx
        step = np.linalg.norm(Z_new - self.Z[moving], axis=1)
        self.Z[moving] = Z_new
        self.n_iter[idx] += 1
        done = moving[step <= self.step_tol]
        self.converged[done] = True
        self.active[done] = False
        self._restart(idx[vanished])
        self.record()

    def _restart(self, lost):
        """Restart from the start plus noise of the kernel's length scale, a bounded number of times."""
        can_retry = self.n_restarts[lost] < self.max_restarts
        retry, given_up = lost[can_retry], lost[~can_retry]
        self.n_restarts[retry] += 1
        noise = self.rng.normal(scale=self.restart_scale, size=(retry.size, self.Z.shape[1]))
        self.Z[retry] = self.start[retry] + noise
        self.Z[given_up] = self.start[given_up]
        self.active[given_up] = False
        self.gave_up[given_up] = True

    def shifted_back(self):
        """The points in the caller's coordinates; those at their start exactly there."""
        Z_out = self.Z + self.expansion.offset
        # not off by the round-off of the shift
        at_start = self.gave_up | (self.n_iter == 0)
        Z_out[at_start] = self.Z0_given[at_start]
        return Z_out

    def record(self):
        """Append the iterates and rho(z) = sum_i gamma_i k(z, x_i) to the history, if kept."""
        if self.history is None:
            return
        # rho from the iteration's own exponents: the kernel's public call
        # validates its inputs, which cost more than the iteration itself
        # when the explorers record every step
        self.history[0].append(self.shifted_back())
        self.history[1].append(np.einsum("ij,ij->i", self.gamma, np.exp(self.expansion.exponents(self.Z))))

    def outcome(self, max_iter):
        """The fields of :class:`~kpca_lib.preimage.PreimageResult`; warns about unconverged points."""
        n_unconverged = int(np.count_nonzero(~self.converged))
        if n_unconverged:
            n_lost = int(np.count_nonzero(self.gave_up))
            warnings.warn(
                f"{n_unconverged} of {self.Z.shape[0]} pre-images did not converge: "
                f"{n_unconverged - n_lost} reached max_iter={max_iter} and {n_lost} "
                f"lost their denominator after {self.max_restarts} restarts. See the "
                "converged field of the result.",
                ConvergenceWarning,
                stacklevel=3,
            )
        history = (None, None) if self.history is None else map(np.array, self.history)
        return dict(zip(("Z_history", "rho_history"), history),
                    Z=self.shifted_back(), converged=self.converged, n_iter=self.n_iter, n_restarts=self.n_restarts)
