"""The routes of linear PCA (covariance, Gram, SVD), for dense and for sparse samples.

Every route works on the centred data divided by a power of two, ``scale``,
that brings their largest entry into [1/2, 1): the squares of data of size
1e-170 (or 1e170) would underflow (overflow) in float64, and a power of two
changes no digit. The caller multiplies variances back by ``scale**2``.

Sparse samples are centred implicitly, as scikit-learn centres them with
``svd_solver="arpack"`` and ``"covariance_eigh"``: ``X_c v = X v - 1 (mean . v)``
and ``X_c^T X_c = X^T X - n mean mean^T``; X is never made dense.
"""

import numpy as np
from scipy.linalg import svd
from scipy.sparse.linalg import LinearOperator, svds

from ._linalg import top_eigh

__all__ = ["centred_scaled", "eigen_route", "power_of_two_scale", "sparse_eigen_route",
           "sparse_svd_route", "svd_route"]


def power_of_two_scale(largest):
    """The power of two in (largest, 2 largest]; 0 for 0."""
    if largest == 0:
        return 0.0
    return float(np.ldexp(1.0, int(np.frexp(largest)[1])))


def centred_scaled(X64, mean):
    """``(X - mean) / scale`` as a new array, and ``scale`` (0 when every sample is the mean)."""
    X_c = X64 - mean
    scale = power_of_two_scale(np.abs(X_c).max())
    if scale:
        X_c /= scale
    return X_c, scale


def eigen_route(X_c, q, method):
    """The q largest variances and unit components by the covariance or Gram route."""
    n = X_c.shape[0]
    if method == "covariance":
        return top_eigh(X_c.T @ X_c / n, q)
    n_lambdas, betas = top_eigh(X_c @ X_c.T, q)
    return n_lambdas / n, X_c.T @ _gram_alphas(n_lambdas, betas)


def _gram_alphas(n_lambdas, betas):
    # alpha_k = beta_k / sqrt(n lambda_k) makes w_k = X_c^T alpha_k unit;
    # components of (numerically) zero variance get no direction here
    positive = n_lambdas > 0
    alphas = np.zeros_like(betas)
    alphas[:, positive] = betas[:, positive] / np.sqrt(n_lambdas[positive])
    return alphas


def svd_route(X_c):
    """All variances and unit components from the SVD of X_c."""
    _, singular_values, Wt = svd(X_c, full_matrices=False)
    return singular_values**2 / X_c.shape[0], Wt.T


def sparse_scale(X, mean):
    """A power of two above the entries of X and of its mean (so above those of X_c / 2)."""
    largest = max(np.abs(X.data).max(initial=0.0), np.abs(mean).max())
    return power_of_two_scale(largest)


def sparse_eigen_route(X_s, mean_s, q, method):
    """Covariance or Gram route on sparse ``X_s = X / scale``, centred implicitly.

    Returns the q largest variances, the unit components and the total
    variance, all of ``X_c / scale``.
    """
    n = X_s.shape[0]
    if method == "covariance":
        C = (X_s.T @ X_s).toarray() / n - np.outer(mean_s, mean_s)
        lambdas, W = top_eigh(C, q)
        return lambdas, W, float(np.trace(C))
    K = (X_s @ X_s.T).toarray()
    # K_c = H K H with H = I - 1 1^T / n: the Gram matrix of the centred samples
    row_means = K.mean(axis=1)
    K -= row_means[:, None]
    K -= row_means[None, :]
    K += row_means.mean()
    n_lambdas, betas = top_eigh(K, q)
    alphas = _gram_alphas(n_lambdas, betas)
    W = X_s.T @ alphas - np.outer(mean_s, alphas.sum(axis=0))
    return n_lambdas / n, W, float(np.trace(K)) / n


def sparse_svd_route(X_s, mean_s, q):
    """The q < min(n, d) largest variances by ARPACK on the implicitly centred ``X_s``."""
    n, d = X_s.shape
    X_t = X_s.T.tocsr()

    def matvec(v):
        v = np.ravel(v)
        return X_s @ v - mean_s @ v

    def rmatvec(u):
        u = np.ravel(u)
        return X_t @ u - mean_s * u.sum()

    operator = LinearOperator((n, d), matvec=matvec, rmatvec=rmatvec, dtype=np.float64)
    # a fixed start vector keeps refits identical
    v0 = np.random.default_rng(0).uniform(-1.0, 1.0, min(n, d))
    _, singular_values, Wt = svds(operator, k=q, v0=v0)
    order = np.argsort(singular_values)[::-1]
    total = float(X_s.multiply(X_s).sum()) / n - float(mean_s @ mean_s)
    return singular_values[order] ** 2 / n, Wt[order].T, total
