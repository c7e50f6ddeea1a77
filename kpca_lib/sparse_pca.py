"""Sparse PCA by alternating block coordinate descent.

The dictionary-learning (reconstruction) formulation of sparse PCA, the
objective of Mairal et al. (2010) with the sparse factor on the loadings,
which is also scikit-learn's ``SparsePCA``. (Zou, Hastie and Tibshirani's
SPCA (2006) is a different problem: an elastic-net regression whose codes
are a linear function ``X_c B`` of the data.) With the centred data
``X_c`` (n x d), find codes
``Y`` (n x q) and loadings ``D`` (d x q) minimising

    f(Y, D) = 1/2 ||X_c - Y D^T||_F^2 + alpha ||D||_1

subject to ``||y_k||_2 <= 1`` for every column ``y_k`` of ``Y``. The l1
penalty makes the loadings sparse; the unit-ball constraint stops the
solver from shrinking ``D`` by inflating ``Y``. With ``alpha = 0`` the
minimisers span the same subspace as the first q principal components.

Each sweep updates the columns of ``D`` one at a time (each an exact
minimisation, a soft thresholding), then the columns of ``Y`` (a least
squares step followed by a projection onto the unit ball). With
``A = Y^T Y`` and ``B = X_c^T Y`` computed once per sweep,

    d_k <- S_alpha(B_k - D A_k + A_kk d_k) / A_kk,

and with ``E = X_c D`` and ``F = D^T D``,

    y_k <- P_ball((E_k - Y F_k + F_kk y_k) / F_kk).

Every step minimises f exactly over one block, so f never increases.
The non-smooth part is separable over the blocks and each block minimiser
is unique (when ``A_kk > 0`` and ``F_kk > 0``), so limit points of the
sweeps are stationary points (Tseng, 2001): coordinatewise minima, not
necessarily global ones, since f is not jointly convex in (Y, D).

A component whose loadings are all zero (a dead component) is a trap of
the block updates: ``y_k`` then does not enter f, and ``d_k = 0`` stays
optimal for it. At the end of every sweep each dead component is re-seeded
(as scikit-learn's dictionary learning re-seeds an unused atom): with the
residual ``R = X_c - Y D^T``, ``y_k`` becomes the unit column ``R_j /
||R_j||`` of largest norm (the first of equal ones, ties within round-off
included) and ``d_k`` its exact minimiser
``S_alpha(R^T y_k)``, which lowers f by ``1/2 ||d_k||^2 > 0`` whenever
``||R_j|| > alpha``. When no column of R is longer than alpha, no pair
``(y_k, d_k)`` with ``||y_k|| <= 1`` lowers f (``|R^T y| <= ||R_j||``
entrywise), so a component that stays dead is optimal given the others.
The re-seeding is deterministic and never raises f.

The solver works on ``X_c / s`` with ``alpha / s``, where s is the power
of two that brings the largest entry of ``X_c`` into [1/2, 1) (as
:class:`kpca_lib.PCA` does), and multiplies the loadings back by s and the
objective by ``s^2``: f is homogeneous, ``f(Y, s D; s X_c, s alpha) = s^2
f(Y, D; X_c, alpha)``, so the minimisers are the same, and data of size
1e-170 or 1e170, whose squares would under- or overflow, are solved as
well as data of size 1.
In this appendix alpha is the weight of the l1 penalty, not the dual
coefficients alpha_k of kernel PCA.
"""

import warnings

import numpy as np
from scipy.linalg import svd
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ._pca_routes import centred_scaled
from ._sparse_pca_steps import reseed_dead_components as _reseed_dead_components
from ._sparse_pca_steps import update_codes as _update_codes
from ._sparse_pca_steps import update_loadings as _update_loadings
from ._validation import check_int, check_n_components, check_real
from .proximal import project_unit_ball

__all__ = ["SparsePCA", "sparse_pca_objective"]

_INITS = ("svd", "random")


def sparse_pca_objective(X_c, Y, D, alpha):
    """The objective ``1/2 ||X_c - Y D^T||_F^2 + alpha ||D||_1``.

    Parameters
    ----------
    X_c : ndarray of shape (n_samples, n_features)
        Centred data.
    Y : ndarray of shape (n_samples, n_components)
        Codes.
    D : ndarray of shape (n_features, n_components)
        Loadings.
    alpha : float
        Weight of the l1 penalty.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> sparse_pca_objective(np.eye(2), np.eye(2), np.eye(2), 0.5)
    1.0
    """
    l1 = np.sum(np.abs(D))
    # alpha * 0 is 0 even for an alpha that overflowed to inf (a huge alpha on tiny data)
    return float(0.5 * np.sum((X_c - Y @ D.T) ** 2) + (alpha * l1 if l1 else 0.0))


def _unscaled_objective(history, scale):
    """Objectives of the scaled problem times scale^2, with a warning if float64 cannot hold them."""
    with np.errstate(over="ignore", under="ignore"):
        result = history * scale * scale
    if np.any(np.isinf(result) & np.isfinite(history)) or np.any((result == 0) & (history > 0)):
        warnings.warn(
            f"The objective of X (about {float(history.max()):.3g} * {scale:.3g}^2) lies outside "
            "float64's range: objective_history_ holds 0 or inf. The loadings, codes and "
            "components, computed on X scaled by a power of two, are exact.",
            RuntimeWarning,
            stacklevel=3,
        )
    return result


class SparsePCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Sparse principal components by alternating block coordinate descent.

    Minimises ``1/2 ||X_c - Y D^T||_F^2 + alpha ||D||_1`` over the codes
    ``Y`` (columns in the unit ball) and the loadings ``D``.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components q, ``1 <= q <= min(n_samples, n_features)``;
        ``None`` means ``min(n_samples, n_features)``.
    alpha : float, default=1.0
        Weight of the l1 penalty, ``>= 0``. Larger means sparser loadings.
        It is in the units of the data times sqrt(n_samples), like the
        singular values of ``X_c``, so it is not scale-invariant: scaling
        X by ``c > 0`` and alpha by c gives the same components and codes,
        the loadings times c and the objective times ``c^2``. (Inside, the
        fit solves ``X_c / s`` with ``alpha / s`` for a power of two s, an
        exact change of units: see the module's notes.) Two
        thresholds guide the choice: the first update of the loadings from
        ``init="svd"`` empties component k exactly when
        ``alpha >= sigma_k max_j |V_jk|`` (singular value times the largest
        entry of the k-th principal loading; the re-seeding at the end of
        the sweep may then revive it in another direction), and ``D = 0``
        is a global minimiser exactly when ``alpha >= max_j ||X_c[:, j]||``
        (the largest centred column norm); below it the fit never returns
        ``D = 0``, whatever the start (a dead fit is re-seeded).
    max_iter : int, default=1000
        Maximum number of sweeps; a ``ConvergenceWarning`` is emitted when
        it is reached before ``tol``.
    tol : float, default=1e-8
        Stop when a sweep lowers the objective by at most
        ``tol * objective``.
    init : {"svd", "random"} or ndarray of shape (n_samples, n_components), default="svd"
        Starting codes: the first q left singular vectors of ``X_c`` (the
        PCA solution), random unit columns drawn with ``random_state``, or
        given codes (a warm start, e.g. the ``codes_`` of a fit at another
        alpha), each column projected onto the unit ball. Whatever the
        start, a component whose loadings all fall to zero is re-seeded
        from the residual when that lowers the objective (the module's
        notes), so a random start at an alpha where some loading survives
        does not stop at ``D = 0``.
    random_state : int, RandomState instance or None, default=None
        Seed for ``init="random"``.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The loadings ``d_k`` as rows, scaled to unit norm (a row of zeros
        stays zero: it is left only when no column of the residual
        ``X_c - Y D^T`` is longer than alpha, where no non-zero loading of
        that component would lower the objective). Signs are fixed so that the largest entry in absolute
        value of each row is positive.
    loadings_ : ndarray of shape (n_features, n_components)
        The loadings ``D`` as found, before scaling.
    codes_ : ndarray of shape (n_samples, n_components)
        The codes ``Y`` of the training samples.
    objective_history_ : ndarray of shape (``n_iter_ + 1``,)
        The objective before the first sweep and after each sweep
        (re-seeding included); it never increases. For data whose squares
        lie outside float64's range (entries beyond about 1e154 or below
        about 1e-154) it holds inf or 0, with a ``RuntimeWarning``; the
        fit itself is computed on scaled data and is unaffected.
    mean_ : ndarray of shape (n_features,)
        The mean of the training samples.
    n_components_ : int
        The number of components q.
    n_iter_ : int
        Number of sweeps taken.
    n_features_in_ : int
        Number of features seen during fit.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 6)) * [5.0, 5.0, 0.1, 0.1, 0.1, 0.1]
    >>> spca = SparsePCA(n_components=2, alpha=5.0).fit(X)
    >>> np.count_nonzero(spca.components_, axis=1)
    array([1, 1])
    """

    def __init__(self, n_components=None, alpha=1.0, max_iter=1000, tol=1e-8, init="svd",
                 random_state=None):
        self.n_components = n_components
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def fit(self, X, y=None):
        """Fit the sparse loadings on the samples X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples as rows, all finite. float32 input is fitted in
        float64 and the fitted attributes are stored as float32.
        y : None
            Ignored.

        Returns
        -------
        self : SparsePCA
            The fitted estimator.
        """
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        dtype = X.dtype
        # computed in float64, stored in the input's dtype (float32 stays float32)
        X = np.asarray(X, dtype=np.float64)
        n, d = X.shape
        q = check_n_components(
            self.n_components, min(n, d), f"min(n_samples, n_features) = {min(n, d)}"
        )
        alpha = check_real(self.alpha, "alpha", minimum=0.0)
        max_iter = check_int(self.max_iter, "max_iter", minimum=1)
        tol = check_real(self.tol, "tol", minimum=0.0)
        if isinstance(self.init, str):
            if self.init not in _INITS:
                raise ValueError(f"init must be one of {_INITS} or an array, got {self.init!r}.")
        else:
            Y0 = np.array(self.init, dtype=np.float64)
            if Y0.shape != (n, q) or not np.all(np.isfinite(Y0)):
                raise ValueError(f"init as an array must be finite, of shape (n_samples, n_components) "
                                 f"= {(n, q)}, got shape {Y0.shape}.")

        self.mean_ = X.mean(axis=0)
        # X_c / scale, scale a power of two: exact, and no square under- or overflows
        X_c, scale = centred_scaled(X, self.mean_)
        scale = scale or 1.0  # every sample equal: X_c = 0, nothing to scale
        with np.errstate(over="ignore"):
            alpha_s = alpha / scale  # the same problem in the scaled units
        if not isinstance(self.init, str):
            Y = project_unit_ball(Y0)
        elif self.init == "svd":
            Y = svd(X_c, full_matrices=False)[0][:, :q].copy()
        else:
            Y = check_random_state(self.random_state).standard_normal((n, q))
            Y /= np.linalg.norm(Y, axis=0)
        D = X_c.T @ Y
        history = [sparse_pca_objective(X_c, Y, D, alpha_s)]
        converged = False
        for n_iter in range(1, max_iter + 1):
            D = _update_loadings(D, Y.T @ Y, X_c.T @ Y, alpha_s)
            F = D.T @ D
            Y = _update_codes(Y, X_c @ D, F)
            if not np.all(np.diag(F)):  # a column of D is (numerically) zero: cheap to test
                _reseed_dead_components(X_c, Y, D, alpha_s)
            history.append(sparse_pca_objective(X_c, Y, D, alpha_s))
            if history[-2] - history[-1] <= tol * abs(history[-2]):
                converged = True
                break
        history = _unscaled_objective(np.array(history), scale)
        if not converged:
            warnings.warn(
                f"SparsePCA did not converge in max_iter={max_iter} sweeps; the last "
                f"sweep lowered the objective by {history[-2] - history[-1]:.3g}. "
                "Increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )

        # unit rows from the scaled loadings, whose norms do not overflow
        norms = np.linalg.norm(D, axis=0)
        components = (D / np.where(norms > 0, norms, 1.0)).T
        D = D * scale
        # deterministic signs: the largest entry of each row is positive (as
        # svd_flip, which would also zero the codes of an all-zero component)
        largest = components[np.arange(q), np.argmax(np.abs(components), axis=1)]
        signs = np.where(largest < 0, -1.0, 1.0)
        self.components_ = (components * signs[:, None]).astype(dtype, copy=False)
        self.loadings_ = (D * signs).astype(dtype, copy=False)
        self.codes_ = (Y * signs).astype(dtype, copy=False)
        self.mean_ = self.mean_.astype(dtype, copy=False)
        self.objective_history_ = history
        self.n_components_ = q
        self._n_features_out = q
        self.n_iter_ = n_iter
        return self

    def transform(self, X):
        """Codes of samples: least squares fit by the components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples as rows.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            In the dtype of X (float32 or float64). The minimiser of ``||X - mean_ - Z components_||_F`` (of least
            norm when components are zero or dependent).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        components = self.components_.astype(np.float64)
        X_c = np.asarray(X, dtype=np.float64) - self.mean_
        Z = np.linalg.lstsq(components.T, X_c.T, rcond=None)[0].T
        return Z.astype(X.dtype, copy=False)

    def inverse_transform(self, Z):
        """Map codes back to input space: ``Z @ components_ + mean_``.

        Parameters
        ----------
        Z : array-like of shape (n_samples, n_components)
            Codes, as returned by :meth:`transform`.

        Returns
        -------
        X_hat : ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        Z = np.asarray(Z)
        dtype = np.float32 if Z.dtype == np.float32 else np.float64
        Z = Z.astype(dtype, copy=False)
        if Z.ndim != 2 or Z.shape[1] != self.n_components_:
            raise ValueError(
                f"Z must have shape (n_samples, {self.n_components_}), got {Z.shape}."
            )
        if not np.all(np.isfinite(Z)):
            raise ValueError("Z contains NaN or infinity.")
        return (Z @ self.components_ + self.mean_).astype(dtype, copy=False)
