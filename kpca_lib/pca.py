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
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.extmath import svd_flip
from sklearn.utils.validation import check_is_fitted, validate_data

from ._linalg import numerical_rank, top_eigh
from ._validation import check_n_components

__all__ = ["PCA"]

_METHODS = ("auto", "covariance", "gram")


class PCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Principal component analysis by the covariance or the Gram route.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components q, with ``1 <= q <= rank(X_c)``. ``None`` keeps
        every component of non-zero variance.
    method : {"auto", "covariance", "gram"}, default="auto"
        ``"covariance"`` solves the d x d eigenproblem of C;
        ``"gram"`` solves the n x n eigenproblem of ``K = X_c X_c^T``;
        ``"auto"`` takes the smaller of the two (Gram when d > n).

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
    mean_ : ndarray of shape (n_features,)
        The mean of the training samples.
    n_components_ : int
        The number of components q.
    method_ : str
        The route taken, ``"covariance"`` or ``"gram"``.
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

    def __init__(self, n_components=None, method="auto"):
        self.n_components = n_components
        self.method = method

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
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        n, d = X.shape
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {self.method!r}.")
        method = self.method
        if method == "auto":
            method = "gram" if d > n else "covariance"
        # centring removes one dimension, so the rank is at most n - 1
        q_max = min(n - 1, d)
        q = check_n_components(
            self.n_components, q_max, f"min(n_samples - 1, n_features) = {q_max}"
        )

        self.mean_ = X.mean(axis=0)
        X_c = X - self.mean_
        if method == "covariance":
            lambdas, W = top_eigh(X_c.T @ X_c / n, q)
        else:
            n_lambdas, betas = top_eigh(X_c @ X_c.T, q)
            lambdas = n_lambdas / n
        rank = numerical_rank(lambdas, max(n, d))
        if self.n_components is None:
            q = max(rank, 1)
        elif rank < q:
            raise ValueError(
                f"n_components={q} is larger than the rank allows: the centred "
                f"data have rank {rank}, so only {rank} components have non-zero "
                "variance."
            )
        if rank == 0:
            raise ValueError("X has zero variance: every sample is the same point.")
        if method == "gram":
            # alpha_k = beta_k / sqrt(n lambda_k) makes w_k = X_c^T alpha_k unit
            alphas = betas[:, :q] / np.sqrt(n_lambdas[:q])
            W = X_c.T @ alphas
        # flip signs so that refits and both routes give the same components
        _, components = svd_flip(None, np.ascontiguousarray(W[:, :q].T), u_based_decision=False)

        self.components_ = components
        self.explained_variance_ = lambdas[:q]
        self.explained_variance_ratio_ = lambdas[:q] / (np.sum(X_c**2) / n)
        self.n_components_ = q
        self._n_features_out = q
        self.method_ = method
        return self

    def transform(self, X):
        """Project samples on the principal components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples as rows.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            ``Z = (X - mean_) @ components_.T``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return (X - self.mean_) @ self.components_.T

    def inverse_transform(self, Z):
        """Map projections back to input space: the reconstruction.

        Parameters
        ----------
        Z : array-like of shape (n_samples, n_components)
            Projections, as returned by :meth:`transform`.

        Returns
        -------
        X_hat : ndarray of shape (n_samples, n_features)
            ``X_hat = Z @ components_ + mean_``.
        """
        check_is_fitted(self)
        Z = np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[1] != self.n_components_:
            raise ValueError(
                f"Z must have shape (n_samples, {self.n_components_}), got {Z.shape}."
            )
        if not np.all(np.isfinite(Z)):
            raise ValueError("Z contains NaN or infinity.")
        return Z @ self.components_ + self.mean_
