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
from scipy.linalg import norm as scipy_norm
from scipy.linalg import svd
from scipy.sparse import issparse
from scipy.sparse.linalg import svds
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.extmath import randomized_svd, svd_flip
from sklearn.utils.validation import check_is_fitted, validate_data

from ._linalg import numerical_rank
from ._pca_routes import (
    SparseCentred,
    centred_scaled,
    eigen_route,
    sparse_eigen_route,
    sparse_svd_route,
    svd_route,
)
from ._validation import check_n_components, check_projections
from .probabilistic_pca import ProbabilisticPCAMixin, minka_n_components, noise_variance

__all__ = ["PCA"]

_METHODS = ("auto", "covariance", "gram", "svd")
# scikit-learn's svd_solver, and the route each one takes here
_SVD_SOLVERS = {"auto": None, "full": "svd", "covariance_eigh": "covariance", "arpack": "arpack",
                "randomized": "randomized"}
# the routes that compute singular values of X_c rather than eigenvalues of its square
_SVD_ROUTES = ("svd", "arpack", "randomized")
# variances (relative to the largest) below which the covariance and Gram
# routes keep fewer than about half of the 16 digits: eigenvalues of C carry
# an absolute error of about size * eps * lambda_1
_SQUARED_ROUTE_LIMIT = 1e-8
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


class PCA(ProbabilisticPCAMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
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

    def _route(self, sparse):
        """The route asked for by ``method`` and ``svd_solver`` ("auto" when both leave it open)."""
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {self.method!r}.")
        if not isinstance(self.svd_solver, str) or self.svd_solver not in _SVD_SOLVERS:
            raise ValueError(f"svd_solver must be one of {tuple(_SVD_SOLVERS)}, got {self.svd_solver!r}.")
        route = _SVD_SOLVERS[self.svd_solver]
        if route is None:
            return self.method
        if self.method not in ("auto", route):
            raise ValueError(
                f"svd_solver={self.svd_solver!r} takes the {route!r} route, but method={self.method!r} "
                "asks for another: set one of the two to 'auto'."
            )
        if sparse and self.svd_solver in ("full", "randomized"):
            # as scikit-learn: these solvers factor the dense, explicitly centred X
            raise TypeError(
                f"svd_solver={self.svd_solver!r} needs a dense X; a scipy.sparse X is centred "
                "implicitly by svd_solver='arpack', 'covariance_eigh' or 'auto'."
            )
        return route

    def _check_truncated(self, q, n, d):
        """ARPACK and the randomized SVD compute a given number of components."""
        limit = min(n, d) - 1 if self.svd_solver == "arpack" else min(n - 1, d)
        if not isinstance(self.n_components, Integral) or not 1 <= q <= limit:
            raise ValueError(
                f"svd_solver={self.svd_solver!r} computes a given number of components: n_components "
                f"must be an int in [1, {limit}] for n_samples={n}, n_features={d}, got "
                f"{self.n_components!r}. svd_solver='full' or 'auto' take None, a fraction or 'mle'."
            )

    def _truncated_svd(self, X_c, q, method):
        """The q largest variances and unit components of dense ``X_c`` by ARPACK or a randomized SVD."""
        n, d = X_c.shape
        random_state = check_random_state(0 if self.random_state is None else self.random_state)
        if method == "arpack":
            # the start vector scikit-learn draws (_init_arpack_v0), so equal seeds agree
            v0 = random_state.uniform(-1.0, 1.0, min(n, d))
            _, singular_values, Wt = svds(X_c, k=q, tol=0.0, v0=v0)
            order = np.argsort(singular_values)[::-1]
            singular_values, Wt = singular_values[order], Wt[order]
        else:
            # scikit-learn's defaults: 10 oversamples, 7 power iterations when q < 0.1 min(n, d), else 4
            _, singular_values, Wt = randomized_svd(X_c, q, n_oversamples=10, n_iter="auto",
                                                    flip_sign=False, random_state=random_state)
        return singular_values**2 / n, Wt.T

    def _fit_dense(self, X, mean, q, method):
        """Routes on the dense, centred, scaled samples; returns the fit's numbers."""
        X64 = np.asarray(X, dtype=np.float64)  # one copy at most, for float32 input
        # X is known to its dtype's precision relative to its own size, offset
        # included: the centred data carry that round-off, and so their rank
        # scipy's norm (BLAS nrm2) scales as it sums; numpy's squares, and overflows
        data_norm = scipy_norm(X64.ravel(), check_finite=False)
        # copy=False: centre X itself when it is already float64 (scikit-learn's meaning)
        X_c, scale = centred_scaled(X64, mean, in_place=not self.copy and X64 is X)
        if scale == 0:
            raise ValueError("X has zero variance: every sample is the same point.")
        total = np.sum(X_c**2) / X_c.shape[0]
        if method == "svd":
            lambdas, W = svd_route(X_c)
        elif method in _SVD_ROUTES:
            lambdas, W = self._truncated_svd(X_c, q, method)
        else:
            lambdas, W = eigen_route(X_c, q, method)
        precision = (np.finfo(X.dtype).eps, data_norm / scale)
        lambdas, W, q, method = self._settle_rank(X_c, lambdas, W, q, method, total, precision)
        return lambdas, W, q, method, total, scale, X_c

    def _fit_sparse(self, X, mean, q, method):
        """Routes on sparse samples, centred implicitly; the squared routes cannot fall back on a dense SVD."""
        n, d = X.shape
        X_cs = SparseCentred(X, mean)  # columns with a large offset are centred explicitly
        scale = X_cs.scale
        if scale == 0:
            raise ValueError("X has zero variance: every sample is the same point.")
        if method in ("svd", "arpack"):
            if not isinstance(self.n_components, Integral) or q >= min(n, d):
                raise ValueError(
                    "method='svd' on a scipy.sparse X computes q < min(n_samples, n_features) "
                    f"components by ARPACK, so n_components must be such an integer, got "
                    f"{self.n_components!r}; method='covariance' or 'gram' compute all of them."
                )
            if method == "svd" and self.random_state is None:
                v0 = np.random.default_rng(0).uniform(-1.0, 1.0, min(n, d))  # fixed: refits are identical
            else:  # as scikit-learn draws it
                v0 = check_random_state(0 if self.random_state is None else self.random_state).uniform(
                    -1.0, 1.0, min(n, d))
            lambdas, W, total = sparse_svd_route(X_cs, q, v0)
        else:
            lambdas, W, total = sparse_eigen_route(X_cs, q, method)
        # the squared routes know a variance to about max(n, d) eps lambda_1
        rank = numerical_rank(lambdas, max(n, d), eps=np.finfo(X.dtype).eps)
        q = self._final_q(rank, q, lambdas, total, n)
        if method not in _SVD_ROUTES and lambdas[q - 1] <= _SQUARED_ROUTE_LIMIT * lambdas[0]:
            self._warn_squared_route(lambdas, q, method, rank)
        return lambdas, W, q, method, total, scale, None

    def _settle_rank(self, X_c, lambdas, W, q, method, total, precision):
        """The final q, from the rank of X_c, and the route that computes it.

        The rank test is on the singular values of ``X_c``: an eigenvalue
        route cannot tell a variance below its round-off from zero. When
        every variance under consideration (the first q) is far above that,
        they are all non-zero and no SVD is needed.
        """
        n, d = X_c.shape
        eps, data_norm = precision
        if method in _SVD_ROUTES:
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
        q = self._final_q(rank, q, lambdas, total, n)
        if method not in _SVD_ROUTES and lambdas[q - 1] <= _SQUARED_ROUTE_LIMIT * lambdas[0]:
            if self.method == "auto" and self.svd_solver == "auto":
                lambdas, W = svd_route(X_c)
                return lambdas, W, q, "svd"
            self._warn_squared_route(lambdas, q, method, numerical_rank(lambdas, max(n, d)))
        return lambdas, W, q, method

    def _final_q(self, rank, q, lambdas, total, n):
        """q from the numerical rank and the request (count, fraction, None or "mle")."""
        if rank == 0:
            raise ValueError("X has zero variance: every sample is the same point.")
        if self.n_components is None:
            return rank
        if isinstance(self.n_components, str):  # "mle", checked by _requested
            spectrum = np.zeros(self.n_features_in_)
            spectrum[: lambdas.size] = np.maximum(lambdas, 0.0)
            return min(minka_n_components(spectrum, n), rank)
        if not isinstance(self.n_components, Integral):
            # a fraction of the variance: the fewest components that exceed it
            ratios = np.cumsum(lambdas[:rank] / total)
            return min(int(np.searchsorted(ratios, self.n_components, side="right")) + 1, rank)
        if rank < q:
            raise ValueError(
                f"n_components={q} is larger than the rank allows: the centred "
                f"data have rank {rank}, so only {rank} components have non-zero "
                "variance."
            )
        return q

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
