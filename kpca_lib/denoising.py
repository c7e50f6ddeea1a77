"""De-noising with a fitted kernel PCA: from projections back to input space.

Three ways back, through one API (:meth:`PreimageMixin.denoise`):

* the fixed-point iteration of Mika et al. (1999) for the Gaussian kernel,
  solved per point (:mod:`kpca_lib.preimage`);
* the distance-based, non-iterative pre-image of Kwok & Tsang (2004) for
  the Gaussian kernel (:mod:`kpca_lib.preimage`);
* the learned pre-image map of Bakir et al. (2004), fitted once, for any
  kernel (:mod:`kpca_lib.learned_preimage`), which is also
  ``inverse_transform``.
"""

from contextlib import nullcontext

import numpy as np
from scipy.sparse import issparse
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted, validate_data

from . import preimage
from ._threads import one_blas_thread
from ._validation import check_n_components, check_projections
from .kernels import Gaussian
from .learned_preimage import fit_learned_preimage, learned_preimage
from .nystroem import landmark_gamma_weights
from .preimage import gamma_weights

__all__ = ["PreimageMixin"]

_METHODS = ("fixed_point", "kwok_tsang", "learned")
_FLOAT_DTYPES = [np.float64, np.float32]
# multiply-adds per iteration (points x expansion points x (d + 1)) below which
# de-noising runs its BLAS on one thread: a few milliseconds of work on one
# core, where waking and synchronising BLAS threads costs as much, and, on a
# machine whose cores are busy with other processes, many times more: with two
# core-burning processes on 2 cores the toy takes about 1.9x its idle time with the
# limit, 2.7x to 6.5x without, while BLAS's second thread spins (benchmarks/bench_core.py,
# table 4)
SMALL_PRODUCT = 2**24


def small_product_threads(size):
    """One BLAS thread for a small product, as scikit-learn limits its own small-block loops.

    Parameters
    ----------
    size : int
        Multiply-adds of the product.

    Returns
    -------
    context manager
        ``threadpoolctl``'s limit to one BLAS thread when ``size <
        SMALL_PRODUCT``, else one that changes nothing.
    """
    if size < SMALL_PRODUCT:
        return one_blas_thread()
    return nullcontext()


def _check_starts(Z0, shape):
    """The starts Z0 of the fixed-point iteration: finite, one row per sample of X, as float64."""
    Z0 = np.asarray(Z0)
    if Z0.shape != shape:
        raise ValueError(
            f"Z0 must have the shape of X, (n_samples, n_features) = {shape}: one start per "
            f"sample; got shape {Z0.shape}."
        )
    if not np.issubdtype(Z0.dtype, np.number) or np.issubdtype(Z0.dtype, np.complexfloating):
        raise TypeError(f"Z0 must be an array of real numbers, got dtype {Z0.dtype}.")
    Z0 = Z0.astype(np.float64, copy=False)
    if not np.all(np.isfinite(Z0)):
        raise ValueError(
            f"Z0 has {np.count_nonzero(~np.isfinite(Z0))} NaN or infinite entries: the starts "
            "must be finite."
        )
    return Z0


class PreimageMixin:
    """``inverse_transform`` and ``denoise`` for :class:`~kpca_lib.KernelPCA`.

    Uses the estimator's ``_project``, the expansion of a projection by
    ``_preimage_expansion`` below (the expansion points, training points or
    landmarks, and their weights gamma), the fitted ``n_components_`` and, for the learned
    map, ``X_fit_``, ``X_transformed_fit_`` and ``dual_coef_``.
    """

    def _preimage_expansion(self, Y):
        """Expansion points and weights gamma of ``P_q phi(x)``, q = Y.shape[1] projections."""
        q = Y.shape[1]
        if self._nystroem:
            return self.landmarks_, landmark_gamma_weights(self.alphas_[:, :q], Y, self.mean_coef_)
        points = self.X_fit_.toarray() if issparse(self.X_fit_) else self.X_fit_
        return points, gamma_weights(self.alphas_[:, :q], Y)

    def inverse_transform(self, Z):
        """Map projections back to input space by the learned pre-image map.

        Kernel ridge regression from projections to points (Bakir et al.,
        2004), fitted with ``fit_inverse_transform=True``: the same as
        scikit-learn's ``KernelPCA.inverse_transform`` with the same kernel
        and ridge ``alpha``.

        Parameters
        ----------
        Z : array-like of shape (n_samples, n_components)
            Projections, as returned by :meth:`transform`.

        Returns
        -------
        X_hat : ndarray of shape (n_samples, n_features)
            The pre-images; float32 when Z is float32.
        """
        check_is_fitted(self)
        self._check_learned()
        Z = check_projections(Z, self.n_components_)
        dtype = Z.dtype
        X_hat = learned_preimage(Z, self.X_transformed_fit_, self.dual_coef_, self.kernel_)
        return X_hat.astype(dtype, copy=False)

    def _check_learned(self):
        if getattr(self, "_nystroem", False):
            raise ValueError(
                "The learned pre-image map needs an n x n solve, which "
                "approximation='nystroem' avoids: use method='fixed_point'."
            )
        if not self.fit_inverse_transform or not hasattr(self, "dual_coef_"):
            raise NotFittedError(
                "The learned pre-image map was not fitted: construct the model "
                "with fit_inverse_transform=True (and a ridge alpha) and fit it."
            )

    def denoise(
        self,
        X,
        n_components=None,
        max_iter=100,
        tol=1e-6,
        Z0=None,
        max_restarts=3,
        random_state=0,
        return_result=False,
        return_history=False,
        method="fixed_point",
        n_neighbors=10,
    ):
        """De-noise samples: project them, then find pre-images in input space.

        The projection ``P phi(x)`` on the first q components is mapped back
        to input space by one of three methods:

        * ``"fixed_point"``: the fixed-point iteration of Mika et al. (1999),
          see :func:`kpca_lib.preimage.gaussian_fixed_point`. Needs the
          Gaussian kernel.
        * ``"kwok_tsang"``: the distance-based pre-image of Kwok & Tsang
          (2004) from the ``n_neighbors`` nearest expansion points, see
          :func:`kpca_lib.preimage_kwok_tsang.kwok_tsang`. Gaussian kernel, no
          iteration. A least-squares point that leaves its neighbours
          (farther from their mean than the farthest of them and than its
          estimated distances put it) is pulled back, with a
          ``RuntimeWarning`` saying how many.
        * ``"learned"``: the learned pre-image map of Bakir et al. (2004),
          see :meth:`inverse_transform`. Needs ``fit_inverse_transform=True``;
          with q below ``n_components_`` the map is fitted anew on the first
          q projections (one n x n solve).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The noisy samples.
        n_components : int or None, default=None
            Use the first q <= ``n_components_`` components, so that one fit
            serves every q. ``None`` uses all of them.
        max_iter, tol, Z0, max_restarts, random_state
            Options of the fixed-point iteration, as in
            :func:`~kpca_lib.preimage.gaussian_fixed_point`; ``Z0=None``
            starts from ``X`` itself, else ``Z0`` is an array of the shape
            of ``X``, finite (checked before any work, whatever the
            method). Unused by the other methods.
        return_result : bool, default=False
            Return the full :class:`~kpca_lib.preimage.PreimageResult`
            instead of the pre-images only (fixed point only).
        return_history : bool, default=False
            Record the iterates and the objective rho in the result, for
            convergence plots; implies ``return_result`` (fixed point only).
        method : {"fixed_point", "kwok_tsang", "learned"}, default="fixed_point"
            How the pre-images are found.
        n_neighbors : int, default=10
            Neighbours of the Kwok-Tsang pre-image (``method="kwok_tsang"``
            only).

        Returns
        -------
        Z : ndarray of shape (n_samples, n_features)
            The pre-images (or the full result, see ``return_result``).

        Notes
        -----
        When the products are small (fewer than ``SMALL_PRODUCT``
        multiply-adds per iteration), BLAS runs on one thread during the
        call (``threadpoolctl``): extra threads gain nothing there and, on a
        machine busy with other processes, cost several times the work.
        """
        check_is_fitted(self)
        if method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {method!r}.")
        q = check_n_components(n_components, self.n_components_, "the number of fitted components")
        X = validate_data(self, X, dtype=_FLOAT_DTYPES, reset=False)
        Z0 = X if Z0 is None else _check_starts(Z0, X.shape)
        # the products are points x expansion points (training points or landmarks) x d
        with small_product_threads(X.shape[0] * self.alphas_.shape[0] * (X.shape[1] + 1)):
            if method == "learned":
                return self._denoise_learned(X, q, return_result or return_history)
            if method == "kwok_tsang":
                return self._denoise_kwok_tsang(X, q, n_neighbors, return_result or return_history)
            options = dict(max_iter=max_iter, tol=tol, max_restarts=max_restarts, random_state=random_state)
            result = self._denoise_fixed_point(X, q, Z0, options, return_history)
        if return_result or return_history:
            return result
        return result.Z.astype(X.dtype, copy=False)

    def _check_gaussian(self, what):
        if not isinstance(self.kernel_, Gaussian):
            raise TypeError(
                f"denoise needs the Gaussian kernel: {what} "
                f"is derived for it, and this model uses {self.kernel_!r}. "
                "method='learned' works for every kernel."
            )

    def _denoise_fixed_point(self, X, q, Z0, options, return_history):
        """Pre-images of the first q projections by the fixed-point iteration."""
        self._check_gaussian("the fixed-point iteration")
        # the training points (exact) or the landmarks (Nystroem), and their weights
        points, gamma = self._preimage_expansion(self._project(X)[:, :q])
        return preimage.gaussian_fixed_point(
            points, gamma, self.kernel_.c, Z0, return_history=return_history, **options
        )

    def _denoise_kwok_tsang(self, X, q, n_neighbors, wants_result):
        """Pre-images of the first q projections by Kwok and Tsang's distance method."""
        if wants_result:
            raise ValueError(
                "return_result and return_history describe the fixed-point "
                "iteration; method='kwok_tsang' returns the pre-images only."
            )
        self._check_gaussian("the Kwok-Tsang pre-image")
        points, gamma = self._preimage_expansion(self._project(X)[:, :q])
        Z = preimage.kwok_tsang(points, gamma, self.kernel_.c, n_neighbors=n_neighbors)
        return Z.astype(X.dtype, copy=False)

    def _denoise_learned(self, X, q, wants_result):
        """Pre-images of the first q projections by the learned map."""
        if wants_result:
            raise ValueError(
                "return_result and return_history describe the fixed-point "
                "iteration; method='learned' returns the pre-images only."
            )
        self._check_learned()
        Y = self._project(X)[:, :q]
        Z_fit = self.X_transformed_fit_[:, :q]
        if q == self.n_components_:
            dual_coef = self.dual_coef_
        else:
            dual_coef = fit_learned_preimage(Z_fit, np.asarray(self.X_fit_, dtype=np.float64), self.kernel_, self.alpha)
        return learned_preimage(Y, Z_fit, dual_coef, self.kernel_).astype(X.dtype, copy=False)
