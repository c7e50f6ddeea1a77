"""Linear PCA by the covariance route and by the Gram route (d >> n).

Notation of the book: X is n x d with samples as rows, centred as
``X_c = X - mean``; the covariance is ``C = X_c^T X_c / n`` with eigenpairs
``(lambda_k, w_k)``.

*Covariance route*: ``C w_k = lambda_k w_k``, a d x d eigenproblem,
O(d^3).

*Gram route*: with samples as rows the Gram matrix is ``K = X_c X_c^T``
(n x n). Its non-zero eigenvalues are ``n lambda_k``; with unit
eigenvectors ``beta_k`` the dual coefficients
``alpha_k = beta_k / sqrt(n lambda_k)`` give ``w_k = X_c^T alpha_k`` of unit
norm (``alpha_k^T K alpha_k = 1``). An n x n problem: O(n^3) plus O(n^2 d)
to build K, far cheaper when d >> n.

Both routes square the singular values ``s_k = sqrt(n lambda_k)`` of
``X_c``: a variance below about ``1e-8`` of the largest keeps few accurate
digits, and one below the round-off of C is lost. The *SVD route*,
``X_c = U S W^T``, works on the data themselves, as scikit-learn does;
``method="auto"`` takes it when the squared route would lose accuracy.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.linalg import svd
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.extmath import svd_flip
from sklearn.utils.validation import check_is_fitted, validate_data

from ._linalg import numerical_rank, top_eigh
from ._validation import check_n_components, check_projections

__all__ = ["PCA"]

_METHODS = ("auto", "covariance", "gram", "svd")
# variances (relative to the largest) below which the covariance and Gram
# routes keep fewer than about half of the 16 digits: eigenvalues of C carry
# an absolute error of about size * eps * lambda_1
_SQUARED_ROUTE_LIMIT = 1e-8


def _eigen_route(X_c, q, method):
    """The q largest variances and unit components by the covariance or Gram route."""
    n = X_c.shape[0]
    if method == "covariance":
        lambdas, W = top_eigh(X_c.T @ X_c / n, q)
        return lambdas, W
    n_lambdas, betas = top_eigh(X_c @ X_c.T, q)
    lambdas = n_lambdas / n
    # alpha_k = beta_k / sqrt(n lambda_k) makes w_k = X_c^T alpha_k unit;
    # components of (numerically) zero variance get no direction here
    positive = n_lambdas > 0
    alphas = np.zeros_like(betas)
    alphas[:, positive] = betas[:, positive] / np.sqrt(n_lambdas[positive])
    return lambdas, X_c.T @ alphas


def _svd_route(X_c):
    """All variances and unit components from the SVD of X_c."""
    _, singular_values, Wt = svd(X_c, full_matrices=False)
    return singular_values**2 / X_c.shape[0], Wt.T


class PCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Principal component analysis by the covariance, Gram or SVD route.

    Parameters
    ----------
    n_components : int, float or None, default=None
        An int is the number of components q, with
        ``1 <= q <= rank(X_c)``. A float in (0, 1) keeps the fewest
        components whose variances add up to more than that fraction of the
        total, as scikit-learn does. ``None`` keeps every component of
        non-zero variance.
    method : {"auto", "covariance", "gram", "svd"}, default="auto"
        ``"covariance"`` solves the d x d eigenproblem of C;
        ``"gram"`` solves the n x n eigenproblem of ``K = X_c X_c^T``;
        ``"svd"`` takes the SVD of ``X_c``; ``"auto"`` takes the smaller of
        the first two (Gram when d > n), and the SVD when a kept variance is
        below ``1e-8`` of the largest, where squaring loses accuracy.
    whiten : bool, default=False
        Divide each projection by ``sqrt(lambda_k)``, so that the whitened
        projections of the training samples have unit variance in the book's
        convention (dividing by n). scikit-learn divides by
        ``sqrt(n lambda_k / (n - 1))`` (unit variance dividing by n - 1):
        its whitened projections are ``sqrt((n - 1) / n)`` times ours.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The principal directions ``w_k`` as unit rows, by decreasing
        variance. Signs are fixed so that the largest entry in absolute
        value of each row is positive.
    explained_variance_ : ndarray of shape (n_components,)
        The eigenvalues ``lambda_k`` of ``C = X_c^T X_c / n``. scikit-learn
        divides by ``n - 1`` instead, so its values are ``n / (n - 1)``
        times these.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``lambda_k / trace(C)``, the fraction of the total variance.
    singular_values_ : ndarray of shape (n_components,)
        The singular values ``s_k = sqrt(n lambda_k)`` of ``X_c``, the same
        as scikit-learn's whatever the convention for the variance.
    mean_ : ndarray of shape (n_features,)
        The mean of the training samples.
    n_components_ : int
        The number of components q.
    n_samples_ : int
        The number of training samples n.
    method_ : str
        The route taken, ``"covariance"``, ``"gram"`` or ``"svd"``.
    n_features_in_ : int
        Number of features seen during fit.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> pca = PCA(n_components=1).fit(X)
    >>> pca.components_.round(4)
    array([[0.7071, 0.7071]])
    >>> pca.explained_variance_.round(4)
    array([1.3333])
    """

    def __init__(self, n_components=None, method="auto", whiten=False):
        self.n_components = n_components
        self.method = method
        self.whiten = whiten

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _requested(self, q_max):
        """The requested count q (or q_max for None and fractions), checked."""
        n_components = self.n_components
        if isinstance(n_components, Real) and not isinstance(n_components, (Integral, bool)):
            if not 0 < n_components < 1:
                raise ValueError(
                    "n_components must be an integer >= 1 or a fraction of the "
                    f"variance in (0, 1), got n_components={n_components!r}."
                )
            return q_max
        return check_n_components(n_components, q_max, f"min(n_samples - 1, n_features) = {q_max}")

    def fit(self, X, y=None):
        """Fit the model on the samples X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples as rows; at least two, all finite.
        y : None
            Ignored.

        Returns
        -------
        self : PCA
            The fitted estimator.
        """
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        n, d = X.shape
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {self.method!r}.")
        # centring removes one dimension, so the rank is at most n - 1
        q_max = min(n - 1, d)
        q = self._requested(q_max)  # q_max for None and fractions: all are needed
        method = self.method
        if method == "auto":
            method = "gram" if d > n else "covariance"

        mean = X.mean(axis=0, dtype=np.float64)
        X64 = np.asarray(X, dtype=np.float64)  # one copy at most, for float32 input
        X_c = X64 - mean
        total = np.sum(X_c**2) / n
        if method == "svd":
            lambdas, W = _svd_route(X_c)
        else:
            lambdas, W = _eigen_route(X_c, q, method)
        # X is known to its dtype's precision relative to its own size, offset
        # included: the centred data carry that round-off, and so their rank
        precision = (np.finfo(X.dtype).eps, np.linalg.norm(X64))
        lambdas, W, q, method = self._settle_rank(X_c, lambdas, W, q, method, total, precision)

        # flip signs so that refits and all routes give the same components
        _, components = svd_flip(None, np.ascontiguousarray(W[:, :q].T), u_based_decision=False)
        lambdas = lambdas[:q]
        dtype = X.dtype
        self.components_ = components.astype(dtype, copy=False)
        self.explained_variance_ = lambdas.astype(dtype, copy=False)
        self.explained_variance_ratio_ = (lambdas / total).astype(dtype, copy=False)
        self.singular_values_ = np.sqrt(n * lambdas).astype(dtype, copy=False)
        self.mean_ = mean.astype(dtype, copy=False)
        self.n_components_ = q
        self.n_samples_ = n
        self._n_features_out = q
        self.method_ = method
        return self

    def _settle_rank(self, X_c, lambdas, W, q, method, total, precision):
        """The final q, from the rank of X_c, and the route that computes it.

        The rank test is on the singular values of ``X_c``: an eigenvalue
        route cannot tell a variance below its round-off from zero. When
        every variance under consideration (the first q) is far above that,
        they are all non-zero and no SVD is needed.
        """
        n, d = X_c.shape
        eps, data_norm = precision
        if method == "svd":
            singular_values = np.sqrt(n * lambdas)
        elif lambdas[q - 1] > _SQUARED_ROUTE_LIMIT * lambdas[0]:
            singular_values = None  # all q far above round-off: rank >= q
        else:
            singular_values = svd(X_c, compute_uv=False)
        if singular_values is None:
            rank = q
        else:
            scale = max(singular_values[0], data_norm)
            rank = numerical_rank(singular_values, max(n, d), scale=scale, eps=eps)
        if rank == 0:
            raise ValueError("X has zero variance: every sample is the same point.")
        if self.n_components is None:
            q = rank
        elif not isinstance(self.n_components, Integral):
            # a fraction of the variance: the fewest components that exceed it
            ratios = np.cumsum(lambdas[:rank] / total)
            q = min(int(np.searchsorted(ratios, self.n_components, side="right")) + 1, rank)
        elif rank < q:
            raise ValueError(
                f"n_components={q} is larger than the rank allows: the centred "
                f"data have rank {rank}, so only {rank} components have non-zero "
                "variance."
            )
        if method != "svd" and lambdas[q - 1] <= _SQUARED_ROUTE_LIMIT * lambdas[0]:
            if self.method == "auto":
                lambdas, W = _svd_route(X_c)
                return lambdas, W, q, "svd"
            self._warn_squared_route(lambdas, q, method, numerical_rank(lambdas, max(n, d)))
        return lambdas, W, q, method

    @staticmethod
    def _warn_squared_route(lambdas, q, method, route_rank):
        """Explain what the covariance or Gram route loses on these data."""
        if route_rank < q:
            raise ValueError(
                f"The {method} route cannot compute component {route_rank + 1}: "
                f"its variance is below the round-off of the squared data "
                f"(lambda_{route_rank + 1} / lambda_1 = {lambdas[route_rank] / lambdas[0]:.1e}), "
                "although the singular values of the centred data show it. "
                "method='svd' (or 'auto') computes it from the data."
            )
        warnings.warn(
            f"The {method} route squares the singular values: lambda_{q} / lambda_1 "
            f"= {lambdas[q - 1] / lambdas[0]:.1e}, so component {q} keeps only about "
            f"{max(0, int(-np.log10(np.finfo(np.float64).eps * lambdas[0] / lambdas[q - 1]))):d} "
            "accurate digits. method='svd' (or 'auto') computes it from the data.",
            UserWarning,
            stacklevel=4,
        )

    def transform(self, X):
        """Project samples on the principal components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples as rows.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            ``Z = (X - mean_) @ components_.T``, divided by
            ``sqrt(explained_variance_)`` when whitening; float32 when X and
            the fit are float32.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        Z = (X - self.mean_) @ self.components_.T
        if self.whiten:
            Z /= np.sqrt(self.explained_variance_)
        return Z

    def inverse_transform(self, Z):
        """Map projections back to input space: the reconstruction.

        Parameters
        ----------
        Z : array-like of shape (n_samples, n_components)
            Projections, as returned by :meth:`transform`.

        Returns
        -------
        X_hat : ndarray of shape (n_samples, n_features)
            ``X_hat = Z @ components_ + mean_`` (with Z first multiplied by
            ``sqrt(explained_variance_)`` when whitening).
        """
        check_is_fitted(self)
        Z = check_projections(Z, self.n_components_)
        if self.whiten:
            Z = Z * np.sqrt(self.explained_variance_)
        return Z @ self.components_ + self.mean_
