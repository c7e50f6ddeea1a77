"""The routes of linear PCA (covariance, Gram, SVD), for dense and for sparse samples.

Every route works on the centred data divided by a power of two, ``scale``,
that brings their largest entry into [1/2, 1): the squares of data of size
1e-170 (or 1e170) would underflow (overflow) in float64, and a power of two
changes no digit. The caller multiplies variances back by ``scale**2``.

Sparse samples are centred implicitly, as scikit-learn centres them with
``svd_solver="arpack"`` and ``"covariance_eigh"``: ``X_c v = X v - 1 (mean . v)``
and ``X_c^T X_c = X^T X - n mean mean^T`` (:class:`SparseCentred`). That
subtraction cancels for a column whose mean is far above its spread (an
offset of 1e8 on values that vary by 1 leaves about no correct digit of its
variance), so such columns, which store nearly all their entries anyway,
are centred explicitly as a dense block; the sparse part is never made
dense.
"""

import numpy as np
from scipy.linalg import svd
from scipy.sparse.linalg import LinearOperator, svds

from ._linalg import top_eigh

__all__ = ["SparseCentred", "centred_scaled", "eigen_route", "power_of_two_scale",
           "sparse_eigen_route", "sparse_svd_route", "svd_route"]


def power_of_two_scale(largest):
    """The power of two in (largest, 2 largest]; 0 for 0."""
    if largest == 0:
        return 0.0
    return float(np.ldexp(1.0, int(np.frexp(largest)[1])))


def centred_scaled(X64, mean, in_place=False):
    """``(X - mean) / scale``, and ``scale`` (0 when every sample is the mean).

    A new array, or X64 itself, overwritten, when ``in_place``.
    """
    X_c = np.subtract(X64, mean, out=X64) if in_place else X64 - mean
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


# a column whose mean exceeds its spread (root-mean-square deviation) is
# centred explicitly, as a dense column: implicit centring subtracts
# n mean_j mean_k from sums of products of size n (mean_j^2 + var_j), which
# loses about log10(mean_j^2 / var_j) digits. Below the limit it loses less
# than one bit, the round-off of any dense computation. Such a column stores
# more than half of its n entries, so its dense copy takes no more memory
# than its sparse form (8 bytes an entry against 12).
OFFSET_LIMIT = 1.0


class SparseCentred:
    """``(X - mean) / scale`` for sparse X, centred implicitly where that is stable.

    Columns whose mean exceeds ``OFFSET_LIMIT`` times their spread (a large
    offset, near-constant values) are subtracted their mean explicitly and
    kept as a dense block ``D``; the others stay sparse, ``X_r``, and are
    centred implicitly: ``X_rc v = X_r v - 1 (mean_r . v)``. Sums of
    products then never cancel: the implicit part's means are at most its
    spreads, the dense part is centred.

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n, d)
        The samples.
    mean : ndarray of shape (d,)
        Their mean.

    Attributes
    ----------
    X_r : scipy.sparse matrix of shape (n, d_r)
        The implicitly centred columns ``rest``, divided by ``scale``.
    mean_r : ndarray of shape (d_r,)
        Their mean, divided by ``scale``.
    D : ndarray of shape (n, d_d)
        The explicitly centred columns ``dense``, divided by ``scale``.
    rest, dense : ndarray of int
        Column indices of the two blocks.
    scale : float
        A power of two above the centred entries (0 when X has no variance).
    variances : ndarray of shape (d,)
        The variance of each column of ``X / scale``, from the deviations of
        the stored entries and of the zeros: a sum of squares, no
        cancellation.
    """

    def __init__(self, X, mean):
        n, d = X.shape
        X = X.astype(np.float64, copy=False)
        # the column of each stored entry
        columns = X.indices if X.format == "csr" else np.repeat(np.arange(d), np.diff(X.indptr))
        counts = np.bincount(columns, minlength=d)
        deviations = X.data - mean[columns]
        sums = np.bincount(columns, weights=deviations**2, minlength=d)
        # the zeros deviate by -mean
        variances = (sums + (n - counts) * mean**2) / n
        offset = mean**2 > OFFSET_LIMIT**2 * variances
        self.rest, self.dense = np.flatnonzero(~offset), np.flatnonzero(offset)
        # no offset column (the common case): X as it is, no copy
        X_r, mean_r = (X[:, self.rest], mean[self.rest]) if self.dense.size else (X, mean)
        D = X[:, self.dense].toarray() - mean[self.dense]
        largest = max(np.abs(X_r.data).max(initial=0.0), np.abs(mean_r).max(initial=0.0),
                      np.abs(D).max(initial=0.0))
        self.scale = scale = power_of_two_scale(largest)
        if scale:  # a power of two: exact
            X_r, mean_r, D, variances = X_r / scale, mean_r / scale, D / scale, variances / scale / scale
        self.X_r, self.mean_r, self.D, self.variances = X_r, mean_r, D, variances
        self.shape = (n, d)
        self.X_rt = None  # X_r^T in CSR, made by the ARPACK route for fast products

    def transpose_products(self):
        """Keep ``X_r^T`` in CSR, for fast ``rmatvec`` (costs one copy of the sparse part)."""
        self.X_rt = self.X_r.T.tocsr()

    def matvec(self, V):
        """``X_c V`` for V of shape (d,) or (d, k)."""
        if not self.dense.size:
            return self.X_r @ V - self.mean_r @ V
        V_r = V[self.rest]
        return self.X_r @ V_r - self.mean_r @ V_r + self.D @ V[self.dense]

    def rmatvec(self, U):
        """``X_c^T U`` for U of shape (n,) or (n, k)."""
        result = np.empty((self.shape[1],) + U.shape[1:])
        X_rt = self.X_r.T if self.X_rt is None else self.X_rt
        if not self.dense.size:
            return X_rt @ U - np.multiply.outer(self.mean_r, U.sum(axis=0))
        result[self.rest] = X_rt @ U - np.multiply.outer(self.mean_r, U.sum(axis=0))
        result[self.dense] = self.D.T @ U
        return result

    def covariance(self):
        """``C = X_c^T X_c / n`` (d x d)."""
        n = self.shape[0]
        C_rr = (self.X_r.T @ self.X_r).toarray() / n - np.outer(self.mean_r, self.mean_r)
        if not self.dense.size:
            return C_rr
        r, k = self.rest, self.dense
        C = np.empty((self.shape[1],) * 2)
        C[np.ix_(r, r)] = C_rr
        # X_rc^T D = X_r^T D - mean_r (1^T D), where 1^T D is round-off of 0
        C_rk = (self.X_r.T @ self.D - np.outer(self.mean_r, self.D.sum(axis=0))) / n
        C[np.ix_(r, k)] = C_rk
        C[np.ix_(k, r)] = C_rk.T
        C[np.ix_(k, k)] = self.D.T @ self.D / n
        return C

    def gram(self):
        """``K = X_c X_c^T`` (n x n): ``H X_r X_r^T H + D D^T``, H the centring matrix."""
        K = (self.X_r @ self.X_r.T).toarray()
        row_means = K.mean(axis=1)
        K -= row_means[:, None]
        K -= row_means[None, :]
        K += row_means.mean()
        K += self.D @ self.D.T
        return K


def sparse_eigen_route(X_cs, q, method):
    """Covariance or Gram route on a :class:`SparseCentred` ``X_cs``.

    Returns the q largest variances, the unit components and the total
    variance, all of ``X_c / scale``.
    """
    n = X_cs.shape[0]
    total = float(X_cs.variances.sum())
    if method == "covariance":
        lambdas, W = top_eigh(X_cs.covariance(), q)
        return lambdas, W, total
    n_lambdas, betas = top_eigh(X_cs.gram(), q)
    W = X_cs.rmatvec(_gram_alphas(n_lambdas, betas))
    return n_lambdas / n, W, total


def sparse_svd_route(X_cs, q, v0):
    """The q < min(n, d) largest variances by ARPACK (``svds``) on a :class:`SparseCentred` ``X_cs``."""
    n, d = X_cs.shape
    X_cs.transpose_products()
    operator = LinearOperator((n, d), matvec=lambda v: X_cs.matvec(np.ravel(v)),
                              rmatvec=lambda u: X_cs.rmatvec(np.ravel(u)), dtype=np.float64)
    _, singular_values, Wt = svds(operator, k=q, v0=v0)
    order = np.argsort(singular_values)[::-1]
    return singular_values[order] ** 2 / n, Wt[order].T, float(X_cs.variances.sum())
