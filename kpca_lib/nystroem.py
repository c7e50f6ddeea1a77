"""Nystroem kernel PCA: n samples through m landmarks, in O(n m) time and O(m^2) memory.

Exact kernel PCA needs the n x n kernel matrix. The Nystroem method
(Williams and Seeger, 2001) keeps m << n *landmarks* l_1, ..., l_m and
replaces ``phi(x)`` by its orthogonal projection ``P phi(x)`` onto the span of
``phi(l_1), ..., phi(l_m)``. In an orthonormal basis of that span, the
coordinates of ``P phi(x)`` are the landmark features

    psi(x) = K_mm^{-1/2} k_m(x),   k_m(x) = (k(x, l_1), ..., k(x, l_m)),

with ``K_mm^{-1/2}`` a pseudo-inverse square root, so that
``psi(x) . psi(y) = k_m(x)^T K_mm^+ k_m(y)`` approximates ``k(x, y)`` and
``K ~ K_nm K_mm^+ K_mn``. Kernel PCA of the projected images is linear PCA of
the features: the eigenvalues ``mu_k`` of the centred approximate n x n kernel
are those of the m x m matrix

    M = sum_i (psi_i - psi_bar)(psi_i - psi_bar)^T
      = K_mm^{-1/2} S K_mm^{-1/2},   S = sum_i (k_m(x_i) - k_bar)(k_m(x_i) - k_bar)^T,

where ``S`` is accumulated over chunks of rows: the n x m matrix is never
stored. Accumulating ``S`` (one symmetric rank-b update per chunk, n m^2
flops) instead of the features (3 n m^2 flops) costs one thing: the
round-off of ``S``, relative eps, is divided by the kept eigenvalues of
``K_mm``. Eigenvalues of ``K_mm`` below ``sqrt(eps)`` times the largest are
therefore treated as zero: dropping them changes the approximate kernel by
about that fraction, and the round-off left is of the same size. (scikit-learn's
``Nystroem`` clamps them at 1e-12 instead, and forms the features.)

With ``M w_k = mu_k w_k``, the component ``V_k = sum_j a_jk phi(l_j)`` has
``a_k = K_mm^{-1/2} w_k`` and unit norm, and a point projects to

    y_k(x) = sum_j a_jk (k(x, l_j) - k_bar_j),

the same form as exact kernel PCA with the landmarks as expansion points (the
exact dual coefficients sum to zero, so ``k_c`` reduces to this). Adding the
mean back, the projection is ``sum_k y_k V_k + P m = sum_j gamma_j phi(l_j)``
with

    gamma_j = sum_k y_k a_jk + b_j,   b = K_mm^+ k_bar,

since ``P m = (1/n) sum_i P phi(x_i)`` has coefficients
``(1/n) sum_i K_mm^+ k_m(x_i)``. With every training point a landmark and
``K`` invertible, ``b_j = 1/n``: the centring term of the exact weights.
"""

import warnings

import numpy as np
from scipy.linalg import eigh
from scipy.sparse import issparse
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state
from sklearn.utils.extmath import svd_flip

from ._linalg import NEGATIVE_EIGENVALUE_RTOL
from ._validation import check_int, check_n_components, check_rank, known_psd
from .kernels import NotPSDWarning

__all__ = [
    "LANDMARK_METHODS",
    "NystroemMixin",
    "check_n_landmarks",
    "chunk_rows",
    "choose_landmarks",
    "dense_rows",
    "kernel_column_moments",
    "landmark_gamma_weights",
    "pinv_sqrt_factor",
    "uniform_landmark_indices",
]

LANDMARK_METHODS = ("uniform", "kmeans")
# eigenvalues of K_mm below CUTOFF_RTOL times the largest count as zero (see above)
CUTOFF_RTOL = float(np.sqrt(np.finfo(np.float64).eps))
# rows per chunk: a block of kernel values of about 64 MiB
_CHUNK_ENTRIES = 2**23


def check_n_landmarks(n_landmarks, n_components, n_samples):
    """Check ``n_components <= n_landmarks <= n_samples`` and return it as an int."""
    n_landmarks = check_int(n_landmarks, "n_landmarks", minimum=1)
    if n_landmarks > n_samples:
        raise ValueError(
            f"n_landmarks={n_landmarks} is larger than the number of samples "
            f"n_samples={n_samples}: the landmarks are chosen among (or, with "
            "k-means, summarise) the training samples."
        )
    if n_components is not None and n_landmarks < n_components:
        raise ValueError(
            f"n_landmarks={n_landmarks} is smaller than n_components={n_components}: "
            "the Nystroem approximation of the kernel has rank at most n_landmarks."
        )
    return n_landmarks


def chunk_rows(n_landmarks, chunk_size=None):
    """Rows per chunk: ``chunk_size``, or a block of about 2^23 kernel values (64 MiB).

    Examples
    --------
    >>> chunk_rows(2048), chunk_rows(2048, chunk_size=100)
    (4096, 100)
    """
    if chunk_size is None:
        return max(1, _CHUNK_ENTRIES // n_landmarks)
    return check_int(chunk_size, "chunk_size", minimum=1)


PERMUTATION_MAX_ROWS = 10_000_000


def uniform_landmark_indices(n, n_landmarks, random_state=None):
    """m distinct row numbers out of n, drawn uniformly; the same rule for in-memory and Dask input.

    Up to ``PERMUTATION_MAX_ROWS`` rows (a permutation of 8n bytes, 80 MB at
    the limit) this is ``random_state.permutation(n)[:m]``, scikit-learn's
    ``Nystroem`` draw, so that one seed gives scikit-learn's landmarks. Above
    it, a permutation of all n row numbers would be the largest object of a
    distributed fit's client (8 GB at n = 10**9), so the first m steps of a
    Fisher-Yates shuffle are run instead, with the swapped positions in a
    dictionary: O(m) time and memory. Both are nested: the indices for m are
    the first m of those for any larger m.

    Examples
    --------
    >>> uniform_landmark_indices(5, 2, random_state=0)  # rows 2 and 0
    array([2, 0])
    >>> index = uniform_landmark_indices(10**12, 3, random_state=0)  # no 8 TB permutation
    >>> index.shape, bool(np.all(index < 10**12)), len(set(index.tolist()))
    ((3,), True, 3)
    """
    rng = check_random_state(random_state)
    if n <= PERMUTATION_MAX_ROWS:
        return rng.permutation(n)[:n_landmarks]
    index = np.empty(n_landmarks, dtype=np.int64)
    moved = {}  # position -> the row number a swap put there (positions not in it hold their own number)
    for i in range(n_landmarks):
        j = i + int(rng.randint(n - i))
        index[i] = moved.get(j, j)
        moved[j] = moved.pop(i, i)
    return index


def choose_landmarks(X, n_landmarks, method="uniform", random_state=None):
    """The landmarks: m training samples drawn uniformly, or k-means centres.

    ``"uniform"`` takes the rows :func:`uniform_landmark_indices` draws: the
    first m entries of a random permutation of the rows, as scikit-learn's
    ``Nystroem`` does (above ``PERMUTATION_MAX_ROWS`` rows, the first m of a
    partial shuffle, in O(m) memory), so that for one seed the landmarks for
    m are among those for any larger m (nested sets).
    ``"kmeans"`` runs scikit-learn's ``KMeans`` with m clusters (one
    initialisation; O(n m d) per iteration) and takes its centres.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    n_landmarks : int
        m, at most n_samples.
    method : {"uniform", "kmeans"}, default="uniform"
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    landmarks : ndarray of shape (n_landmarks, n_features), float64

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(10.0).reshape(5, 2)
    >>> choose_landmarks(X, 2, random_state=0)  # rows 2 and 0
    array([[4., 5.],
           [0., 1.]])
    """
    if method not in LANDMARK_METHODS:
        raise ValueError(f"landmarks must be one of {LANDMARK_METHODS}, got {method!r}.")
    rng = check_random_state(random_state)
    if method == "uniform":
        return np.array(dense_rows(X[uniform_landmark_indices(X.shape[0], n_landmarks, rng)]), dtype=np.float64)
    kmeans = KMeans(n_clusters=n_landmarks, n_init=1, random_state=rng)
    return np.asarray(kmeans.fit(X).cluster_centers_, dtype=np.float64)


def dense_rows(X):
    """A block of rows as a dense array: sparse input is densified one chunk at a time."""
    return X.toarray() if issparse(X) else X


def pinv_sqrt_factor(K_mm, rtol=CUTOFF_RTOL):
    """P with ``P P^T = K_mm^+``: the pseudo-inverse square root, truncated.

    ``K_mm = U diag(s) U^T``; eigenvalues ``s_r <= rtol * s_1`` count as
    zero, and ``P = U_r diag(s_r)^{-1/2}`` keeps the others, so that the
    landmark features are ``psi(x) = P^T k_m(x)``.

    Parameters
    ----------
    K_mm : ndarray of shape (m, m)
        The kernel matrix of the landmarks, symmetric.
    rtol : float, default=sqrt(eps)
        The relative cut-off.

    Returns
    -------
    P : ndarray of shape (m, r)
    s : ndarray of shape (m,)
        All eigenvalues of ``K_mm``, largest first.

    Examples
    --------
    >>> import numpy as np
    >>> P, s = pinv_sqrt_factor(np.array([[2.0, 0.0], [0.0, 1e-20]]))
    >>> P.shape, s  # 1e-20 is below the cut-off
    ((2, 1), array([2.e+00, 1.e-20]))
    >>> (P @ P.T).round(4) + 0.0  # the pseudo-inverse
    array([[0.5, 0. ],
           [0. , 0. ]])
    """
    s, U = eigh(K_mm, driver="evd")  # every eigenpair: divide and conquer is fastest
    s, U = s[::-1], U[:, ::-1]
    keep = s > rtol * s[0] if s[0] > 0 else np.zeros(s.size, dtype=bool)
    return U[:, keep] / np.sqrt(s[keep]), s


def kernel_column_moments(kernel_rows, X, rows):
    """Mean and scatter of the rows ``k_m(x_i)`` of K_nm, accumulated by chunks.

    Each chunk is centred on its own mean and the chunks are merged by the
    update of Chan, Golub and LeVeque (1979), so that the result does not
    depend on the chunking beyond round-off, and no large mean is subtracted
    after the sums.

    Parameters
    ----------
    kernel_rows : callable
        ``kernel_rows(X_chunk)`` returns the kernel matrix between the chunk
        and the landmarks as a new float64 array (it is centred in place).
    X : ndarray of shape (n_samples, n_features)
    rows : int
        Rows per chunk.

    Returns
    -------
    mean : ndarray of shape (m,)
        ``k_bar = (1/n) sum_i k_m(x_i)``.
    scatter : ndarray of shape (m, m)
        ``S = sum_i (k_m(x_i) - k_bar)(k_m(x_i) - k_bar)^T``.
    """
    count, mean, scatter = 0, None, None
    for start in range(0, X.shape[0], rows):
        block = kernel_rows(X[start : start + rows])
        size = block.shape[0]
        block_mean = block.mean(axis=0)
        block -= block_mean
        block_scatter = block.T @ block  # a symmetric rank-k update (syrk)
        if count == 0:
            mean, scatter = block_mean, block_scatter
        else:
            delta = block_mean - mean
            scatter += block_scatter
            scatter += np.outer(delta, delta * (count * size / (count + size)))
            mean += delta * (size / (count + size))
        count += size
    return mean, scatter


def landmark_gamma_weights(alphas, Y, mean_coef):
    """Weights over the landmarks of the projection ``sum_k y_k V_k + P m``.

    ``gamma_j = sum_k y_k a_jk + b_j`` (see the module docstring): the
    component term, and ``b = K_mm^+ k_bar``, the landmark coefficients of
    the projected mean of the training images.

    Parameters
    ----------
    alphas : ndarray of shape (n_landmarks, n_components)
        The coefficients ``a_k`` of the components over the landmarks.
    Y : ndarray of shape (n_points, n_components)
        Projections ``y_k`` of the points (beta names the eigenvectors in
        this library, as in the book).
    mean_coef : ndarray of shape (n_landmarks,)
        ``b``.

    Returns
    -------
    gamma : ndarray of shape (n_points, n_landmarks)

    Examples
    --------
    >>> import numpy as np
    >>> landmark_gamma_weights(np.array([[1.0], [-1.0]]), np.array([[0.5]]), np.array([0.5, 0.5]))
    array([[1., 0.]])
    """
    return Y @ alphas.T + mean_coef


def project_on_landmarks(kernel_rows, X, kernel_mean, alphas, rows):
    """The projections ``Y = (K(X, landmarks) - k_bar) @ alphas``, by chunks of rows."""
    Z = np.empty((X.shape[0], alphas.shape[1]))
    for start in range(0, X.shape[0], rows):
        block = kernel_rows(X[start : start + rows])
        block -= kernel_mean
        Z[start : start + rows] = block @ alphas
    return Z


class NystroemMixin:
    """Fit and projection of :class:`~kpca_lib.KernelPCA` with ``approximation="nystroem"``.

    Uses the estimator's ``_gram`` and ``_solve`` and its
    parameters ``n_components``, ``n_landmarks``, ``landmarks``,
    ``chunk_size`` and ``random_state``.
    """

    def _check_nystroem_params(self):
        if self._precomputed:
            raise ValueError(
                "approximation='nystroem' evaluates the kernel on landmarks and "
                "new points, so it needs the kernel function: a precomputed "
                "n x n matrix has already paid the cost it avoids."
            )
        if self.fit_inverse_transform:
            raise ValueError(
                "fit_inverse_transform=True needs an n x n solve, which "
                "approximation='nystroem' exists to avoid: use "
                "denoise(method='fixed_point'), which works with the landmarks."
            )
        if self.landmarks not in LANDMARK_METHODS:
            raise ValueError(f"landmarks must be one of {LANDMARK_METHODS}, got {self.landmarks!r}.")
        if self.chunk_size is not None:
            check_int(self.chunk_size, "chunk_size", minimum=1)

    def _nystroem_sizes(self, n):
        """m and q for n samples, checked."""
        m = check_n_landmarks(self.n_landmarks, self.n_components, n)
        q = check_n_components(self.n_components, min(m, n - 1), f"min(n_landmarks, n_samples - 1) = {min(m, n - 1)}")
        return m, q

    def _fit_nystroem(self, X):
        """Choose the landmarks, accumulate M by chunks, solve its eigenproblem.

        X is a dense array or a CSR matrix (densified one chunk of rows at a time).
        """
        m, q = self._nystroem_sizes(X.shape[0])
        landmarks = choose_landmarks(X, m, self.landmarks, self.random_state)
        P, K_mm = self._landmark_factor(landmarks)
        kernel_mean, scatter = kernel_column_moments(
            lambda rows_X: self._gram(dense_rows(rows_X), landmarks), X, chunk_rows(m, self.chunk_size))
        return self._solve_landmark_problem(landmarks, P, K_mm, kernel_mean, scatter, X.shape[0], q, X.dtype)

    def _landmark_factor(self, landmarks):
        """K_mm and its truncated pseudo-inverse square root P (warns if K_mm is not PSD)."""
        K_mm = self._check_symmetric(self._gram(landmarks), np.float64)  # the landmarks are float64
        self._check_underflow(np.abs(K_mm).max(), landmarks)
        P, s = pinv_sqrt_factor(K_mm)
        self._warn_if_landmarks_not_psd(s, landmarks.shape[0])
        if P.shape[1] == 0:
            raise ValueError("The kernel matrix of the landmarks has no positive eigenvalue.")
        return P, K_mm

    def _solve_landmark_problem(self, landmarks, P, K_mm, kernel_mean, scatter, n, q, dtype):
        """The m x m eigenproblem of M = P^T S P; sets the fitted attributes, returns q."""
        m = landmarks.shape[0]
        M = P.T @ scatter @ P  # the scatter of the centred landmark features
        eigenvalues, W = self._solve(M, min(q, M.shape[0]))
        # eigenvalues below the cut-off's error level, or the data's precision, are zero
        threshold = max(10 * CUTOFF_RTOL * eigenvalues[0], n * np.finfo(dtype).eps * np.abs(K_mm).max())
        rank = int(np.count_nonzero(eigenvalues > threshold)) if eigenvalues[0] > 0 else 0
        q = check_rank(
            rank, rank if self.n_components is None else q,
            "The approximate centred kernel matrix has no positive eigenvalue: "
            "all samples are the same point in the landmarks' feature space.",
            f"the Nystroem approximation with n_landmarks={m}",
        )
        alphas, _ = svd_flip(np.ascontiguousarray(P @ W[:, :q]), None)
        self.eigenvalues_ = eigenvalues[:q]
        self.alphas_ = alphas
        self.landmarks_ = landmarks
        self.kernel_mean_ = kernel_mean
        self.mean_coef_ = P @ (P.T @ kernel_mean)
        return q

    def _warn_if_landmarks_not_psd(self, s, m):
        if known_psd(self.kernel_) or s[-1] >= -NEGATIVE_EIGENVALUE_RTOL * max(abs(s[0]), abs(s[-1])):
            return
        warnings.warn(
            f"The kernel matrix of the {m} landmarks under {self.kernel_!r} has a "
            f"significant negative eigenvalue ({s[-1]:.4g}, largest {s[0]:.4g}): "
            "the kernel is not positive semi-definite on these data. Its "
            "pseudo-inverse square root keeps the positive eigenvalues only.",
            NotPSDWarning,
            stacklevel=4,
        )

    def _project_nystroem(self, X):
        rows = chunk_rows(self.landmarks_.shape[0], self.chunk_size)
        return project_on_landmarks(
            lambda rows_X: self._gram(dense_rows(rows_X), self.landmarks_), X, self.kernel_mean_, self.alphas_, rows
        )
