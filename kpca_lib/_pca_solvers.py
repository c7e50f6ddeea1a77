"""The routes of linear PCA's fit: which one a configuration takes, and the fit along it.

:class:`PCARoutesMixin` gives :class:`~kpca_lib.PCA` the choice of route from
``method`` and scikit-learn's ``svd_solver`` (with ``svd_solver``'s
mapping onto the routes), the fit of dense samples (centred and scaled
explicitly: SVD, ARPACK, randomized SVD, covariance or Gram route) and of
sparse ones (centred implicitly), and the final number of components from
the numerical rank and the request, with the warning of what a squared
route loses. The linear algebra of each route is in ``_pca_routes.py``.
"""

import warnings
from numbers import Integral

import numpy as np
from scipy.linalg import norm as scipy_norm
from scipy.linalg import svd
from scipy.sparse.linalg import svds
from sklearn.utils import check_random_state
from sklearn.utils.extmath import randomized_svd

from ._linalg import numerical_rank
from ._pca_routes import (
    SparseCentred,
    centred_scaled,
    eigen_route,
    sparse_eigen_route,
    sparse_svd_route,
    svd_route,
)
from .probabilistic_pca import minka_n_components

__all__ = ["PCARoutesMixin"]

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


class PCARoutesMixin:
    """The route of a PCA fit and the fit along it, up to the final number of components."""

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
