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
Every route scales the centred data by a power of two before squaring, so
that data of any size (1e-170 or 1e170) keep their variances' digits.
scikit-learn's truncated solvers are there too (``svd_solver="arpack"`` and
``"randomized"``), with its names for the others (``"full"``,
``"covariance_eigh"``).

Sparse samples are centred implicitly, except for the columns whose mean
exceeds their spread: there ``X^T X - n mean mean^T`` would cancel (an offset
of 1e8 on values that vary by 1 leaves no correct digit), so those columns,
which store most of their entries anyway, are centred explicitly.

The fitted model is also a density, probabilistic PCA
(:mod:`kpca_lib.probabilistic_pca`): ``noise_variance_``, ``score``.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.extmath import svd_flip
from sklearn.utils.validation import check_is_fitted, validate_data

from ._pca_solvers import PCARoutesMixin
from ._validation import check_n_components, check_projections
from .probabilistic_pca import ProbabilisticPCAMixin, noise_variance

__all__ = ["PCA"]

_EPS = np.finfo(np.float64).eps


def _unscaled(variances, scale):
    """Variances of the scaled data times scale^2, with a warning if float64 cannot hold them."""
    variances = np.asarray(variances, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        result = variances * np.float64(scale) * np.float64(scale)
    if np.any(np.isinf(result)) or np.any((result == 0) & (variances > 0)):
        warnings.warn(
            f"The variances of X (about {float(variances.max()):.3g} * {scale:.3g}^2) lie outside "
            "float64's range: explained_variance_ and noise_variance_ hold 0 or inf. The "
            "components, ratios, singular values and projections, computed on X scaled by a "
            "power of two, are exact.",
            RuntimeWarning,
            stacklevel=3,
        )
    return result


class PCA(PCARoutesMixin, ProbabilisticPCAMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
          BaseEstimator):
    """Principal component analysis by the covariance, Gram or SVD route.

    Parameters
    ----------
    n_components : int, float, "mle" or None, default=None
        An int is the number of components q, with
        ``1 <= q <= rank(X_c)``. A float in (0, 1) keeps the fewest
        components whose variances add up to more than that fraction of the
        total, as scikit-learn does. ``"mle"``: Minka's choice (needs
        n >= d, as in scikit-learn; see :mod:`kpca_lib.probabilistic_pca`).
        ``None`` keeps every component of non-zero variance. q is capped at
        the numerical rank on purpose: scikit-learn returns components of
        zero variance (arbitrary directions, and ``inf`` when whitened);
        here an int above the rank is an error that says the rank.
    method : {"auto", "covariance", "gram", "svd"}, default="auto"
        ``"covariance"`` solves the d x d eigenproblem of C;
        ``"gram"`` solves the n x n eigenproblem of ``K = X_c X_c^T``;
        ``"svd"`` takes the SVD of ``X_c``; ``"auto"`` takes the smaller of
        the first two (Gram when d > n), and the SVD when a kept variance is
        below ``1e-8`` of the largest, where squaring loses accuracy. With
        a ``scipy.sparse`` X the data are centred implicitly: the
        covariance route forms ``X^T X - n mean mean^T`` (d x d), the Gram
        route ``H X X^T H`` (n x n), and ``"svd"`` runs ARPACK on the
        implicitly centred X (an int ``n_components < min(n, d)``), as
        scikit-learn's ``covariance_eigh`` and ``arpack`` solvers do.
        Implicit centring subtracts ``n mean mean^T`` from ``X^T X``, which
        cancels on a column whose mean is far above its spread: an offset
        of 1e8 on values that vary by 1 leaves no correct digit of their
        variance (scikit-learn's ``covariance_eigh`` is 8x off on such
        sparse data, 18x on dense). Here a column whose mean exceeds its
        root-mean-square deviation is centred explicitly, as a dense
        column; such a column stores more than half of its entries, so
        its dense copy takes no more memory than its sparse form. The
        other columns are never made dense, and the variances agree with
        those of the explicitly centred data to round-off.
    whiten : bool, default=False
        Divide each projection by ``sqrt(lambda_k)``, so that the whitened
        projections of the training samples have unit variance in the book's
        convention (dividing by n). scikit-learn divides by
        ``sqrt(n lambda_k / (n - 1))`` (unit variance dividing by n - 1):
        its whitened projections are ``sqrt((n - 1) / n)`` times ours.
    svd_solver : {"auto", "full", "covariance_eigh", "arpack", "randomized"}, default="auto"
        scikit-learn's name for the route, accepted with its meaning:
        ``"full"`` is ``method="svd"`` (LAPACK's SVD of the dense ``X_c``),
        ``"covariance_eigh"`` is ``method="covariance"``; ``"arpack"``
        computes the q largest singular triplets of ``X_c`` by ARPACK
        (``scipy.sparse.linalg.svds``, an int ``n_components <
        min(n, d)``, dense or sparse X); ``"randomized"`` by Halko et al.'s
        randomized SVD (``sklearn.utils.extmath.randomized_svd`` with
        scikit-learn's defaults: 10 oversamples, 7 power iterations when
        q < 0.1 min(n, d), else 4; an int ``n_components``, dense X).
        ARPACK converges to round-off; the randomized SVD is exact to
        round-off only when ``q + 10 >= min(n, d)``, otherwise its error
        falls with the gap between the q-th and the (q + 11)-th singular
        values. ``"auto"`` leaves the choice to ``method``; a
        ``method`` other than ``"auto"`` that asks for another route is
        an error, and so are ``"full"`` and ``"randomized"`` with sparse X
        (as in scikit-learn).
    copy : bool, default=True
        ``False`` lets ``fit`` centre a float64 ndarray X in place (it is
        overwritten, as in scikit-learn: use ``fit_transform(X)``, not
        ``fit(X).transform(X)``), saving one copy of X. Other X (float32,
        lists, sparse matrices) are never overwritten.
    random_state : int, RandomState instance or None, default=None
        Seed of ARPACK's start vector (drawn in [-1, 1]^min(n, d) as
        scikit-learn draws it) and of the randomized SVD's random block.
        ``None`` means a fixed seed, 0, so that refits are identical
        (scikit-learn's ``None`` draws from numpy's global generator).

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
        Data of size 1e-170 have variances below float64's range: they
        come out 0, while the ratios, singular values and components, which
        are computed on the data scaled by a power of two, stay exact.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``lambda_k / trace(C)``, the fraction of the total variance.
    noise_variance_ : float
        The noise variance of probabilistic PCA, ``sigma^2 = (trace(C) -
        sum_k lambda_k) / (d - q)``: the variance the q components leave
        out, per left-out dimension (Tipping and Bishop's maximum-likelihood
        estimate, PRML 12.46), in the book's 1/n convention. scikit-learn's
        is ``n / (n - 1)`` times this when n > d; when n <= d it divides by
        ``min(n, d) - q`` instead of ``d - q``. 0 when q = d, or when the
        left-out variance is round-off (rank-deficient data), where
        scikit-learn reports that round-off.
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
        The route taken, ``"covariance"``, ``"gram"``, ``"svd"``,
        ``"arpack"`` or ``"randomized"``.
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

    def __init__(self, n_components=None, method="auto", whiten=False, *, svd_solver="auto", copy=True,
                 random_state=None):
        self.n_components = n_components
        self.method = method
        self.whiten = whiten
        self.svd_solver = svd_solver
        self.copy = copy
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        # "full" and "randomized" need dense X; sparse "svd" and "arpack" an int n_components
        if self.svd_solver in ("full", "randomized"):
            tags.input_tags.sparse = False
        elif self.method == "svd" or self.svd_solver == "arpack":
            tags.input_tags.sparse = isinstance(self.n_components, Integral)
        else:
            tags.input_tags.sparse = True
        return tags

    def _requested(self, q_max, n_samples, n_features):
        """The requested count q (or q_max for None and fractions), checked."""
        n_components = self.n_components
        if isinstance(n_components, Real) and not isinstance(n_components, (Integral, bool)):
            if not 0 < n_components < 1:
                raise ValueError(
                    "n_components must be an integer >= 1 or a fraction of the "
                    f"variance in (0, 1), got n_components={n_components!r}."
                )
            return q_max
        if isinstance(n_components, str):
            if n_components != "mle":
                raise TypeError(f"n_components must be an int, a float, None or 'mle', got {n_components!r}.")
            if n_samples < n_features:
                raise ValueError(
                    "n_components='mle' is only supported if n_samples >= n_features "
                    f"(as in scikit-learn), got n_samples={n_samples}, n_features={n_features}."
                )
            return q_max
        return check_n_components(n_components, q_max, f"min(n_samples - 1, n_features) = {q_max}")

    def fit(self, X, y=None):
        """Fit the model on the samples X.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features)
            Training samples as rows; at least two, all finite. A sparse
            matrix (CSR or CSC) is centred implicitly, except for its
            columns whose mean exceeds their spread (see ``method``), which
            are centred explicitly as dense columns.
        y : None
            Ignored.

        Returns
        -------
        self : PCA
            The fitted estimator.
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit the model on X and project X on the components.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features)
            Training samples as rows (see :meth:`fit`).
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            ``transform(X)`` of the fitted model. With ``copy=False`` the
            projections are those of the centred X that ``fit`` left in
            place of X, as in scikit-learn.
        """
        X_c = self._fit(X)
        if self.copy or X_c is None:
            return self.transform(X)
        X_c, scale = X_c  # X itself, centred and divided by scale in place
        Z = (X_c @ self.components_.T.astype(np.float64)) * scale
        if self.whiten:
            Z /= self._whitening_scale()
        return Z

    def _fit(self, X):
        """Fit; return the dense centred samples and their scale when X was overwritten, else None."""
        # copy=False: the dense X may be centred in place (then it must be writeable)
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2,
                          accept_sparse=("csr", "csc"), force_writeable=not self.copy)
        n, d = X.shape
        method = self._route(issparse(X))
        # centring removes one dimension, so the rank is at most n - 1
        q_max = min(n - 1, d)
        q = self._requested(q_max, n, d)  # q_max for None, fractions and "mle": all are needed
        if method in ("arpack", "randomized"):
            self._check_truncated(q, n, d)
        if method == "auto":
            method = "gram" if d > n else "covariance"
        if issparse(X):
            # scipy sums a float32 sparse matrix in float32 whatever the dtype asked for
            # (a mean of 1e8 came out 32 off): sum in float64
            mean = np.asarray(X.astype(np.float64, copy=False).mean(axis=0)).ravel()
        else:
            mean = np.asarray(X.mean(axis=0, dtype=np.float64)).ravel()
        fit_route = self._fit_sparse if issparse(X) else self._fit_dense
        lambdas, W, q, method, total, scale, X_c = fit_route(X, mean, q, method)

        # flip signs so that refits and all routes give the same components
        _, components = svd_flip(None, np.ascontiguousarray(W[:, :q].T), u_based_decision=False)
        dtype = X.dtype
        self.components_ = components.astype(dtype, copy=False)
        # variances of the scaled data, times scale^2: 0 (inf) when below (above) float64's range
        self.explained_variance_ = _unscaled(lambdas[:q], scale).astype(dtype, copy=False)
        self.explained_variance_ratio_ = (lambdas[:q] / total).astype(dtype, copy=False)
        self.singular_values_ = (np.sqrt(n * lambdas[:q]) * scale).astype(dtype, copy=False)
        self.noise_variance_ = float(_unscaled(noise_variance(total, lambdas, q, d, max(n, d) * _EPS * total), scale))
        self.mean_ = mean.astype(dtype, copy=False)
        self.n_components_ = q
        self.n_samples_ = n
        self._n_features_out = q
        self.method_ = method
        return (X_c, scale) if X_c is not None and X_c is X else None

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
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False, accept_sparse=("csr", "csc"))
        # sparse X is centred implicitly: X w - mean . w
        Z = np.asarray(X @ self.components_.T - self.mean_ @ self.components_.T)
        if self.whiten:
            Z /= self._whitening_scale()
        return Z

    def _whitening_scale(self):
        # sqrt(lambda_k) = s_k / sqrt(n): representable whenever the data are,
        # where lambda_k itself may underflow
        return self.singular_values_ / self.n_samples_**0.5  # a Python float keeps float32

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
            Z = Z * self._whitening_scale()
        return Z @ self.components_ + self.mean_
