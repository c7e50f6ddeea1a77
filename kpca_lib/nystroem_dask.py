"""Nystroem kernel PCA of a Dask array: one task per block of rows, a tree of merges.

The fit of :mod:`kpca_lib.nystroem` is a map-reduce. Each block of rows of
X maps to its count b, the mean of its kernel rows and their scatter about
that mean; two such triples merge exactly (Chan, Golub and LeVeque, 1979)::

    n = n_a + n_b,  delta = mean_b - mean_a,
    mean = mean_a + delta n_b / n,
    S = S_a + S_b + delta delta^T n_a n_b / n.

Here every block is one Dask task, and the merges form a binary tree of
depth log2(number of blocks), so that no task receives more than two m x m
matrices. Only the m x d landmarks travel to the workers, and only
(count, m-vector, m x m matrix) travel back: O(m^2) per task, whatever n.
The client draws the m landmark row numbers in O(m) memory above
``PERMUTATION_MAX_ROWS`` rows (below it, in a permutation of 8n bytes), and
fetches those rows, which reads the blocks that hold them before the pass.
``compute`` runs the graph on whatever scheduler is active: Dask's threads
by default, or a ``dask.distributed.Client`` (a LocalCluster or a real
cluster). ``transform`` is lazy: ``map_blocks`` of the in-memory projection,
with the landmarks and coefficients in the graph once (``delayed``), not in
every task.

The landmarks are drawn by index exactly as for an in-memory X (by
:func:`~kpca_lib.nystroem.uniform_landmark_indices`), so one seed gives
the same landmarks, and the same model up to round-off, whether X is a
NumPy array or a Dask array. Dask is imported only when a Dask array is
passed: ``import kpca_lib`` never imports it.
"""

import sys

import numpy as np
from sklearn.utils import check_random_state

from .nystroem import chunk_rows, kernel_column_moments, project_on_landmarks, uniform_landmark_indices

__all__ = ["DaskNystroemMixin", "is_dask_array", "merge_moments"]


def is_dask_array(X):
    """True if X is a ``dask.array.Array`` (without importing Dask: if it is not loaded, X is not one)."""
    dask_array = sys.modules.get("dask.array")
    return dask_array is not None and isinstance(X, dask_array.Array)


def kernel_block(kernel, X, landmarks):
    """``kernel(X, landmarks)`` as a new float64 array, checked (the workers' ``_gram``)."""
    K = np.array(kernel(X, landmarks), dtype=np.float64, order="C")
    if K.shape != (X.shape[0], landmarks.shape[0]):
        raise ValueError(f"kernel returned a matrix of shape {K.shape}, expected {(X.shape[0], landmarks.shape[0])}.")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"kernel {kernel!r} returned NaN or infinity.")
    return K


def check_finite_block(X_block, start):
    """A clear error for NaN or infinity in a block (raised on the worker, re-raised by ``compute``)."""
    if not np.all(np.isfinite(X_block)):
        row = start + int(np.flatnonzero(~np.all(np.isfinite(X_block), axis=1))[0])
        raise ValueError(f"X contains NaN or infinity (first at row {row}, in the Dask block starting at row {start}).")


def block_moments(X_block, start, landmarks, kernel, rows):
    """(count, mean, scatter) of the kernel rows of one block; the map step."""
    check_finite_block(X_block, start)
    mean, scatter = kernel_column_moments(lambda X_rows: kernel_block(kernel, X_rows, landmarks), X_block, rows)
    return X_block.shape[0], mean, scatter


def merge_moments(a, b):
    """Merge two (count, mean, scatter) triples exactly; the reduce step.

    Examples
    --------
    >>> import numpy as np
    >>> rows = np.array([[0.0], [2.0], [7.0]])
    >>> merged = merge_moments((2, rows[:2].mean(0), np.array([[2.0]])), (1, rows[2:].mean(0), np.array([[0.0]])))
    >>> merged[0], merged[1], merged[2]  # the scatter of 0, 2, 7 about their mean 3: 9 + 1 + 16
    (3, array([3.]), array([[26.]]))
    """
    (n_a, mean_a, scatter_a), (n_b, mean_b, scatter_b) = a, b
    n = n_a + n_b
    delta = mean_b - mean_a
    scatter = scatter_a + scatter_b + np.outer(delta, delta * (n_a * n_b / n))
    return n, mean_a + delta * (n_b / n), scatter


def tree_reduce(parts, merge):
    """Merge delayed parts pairwise, level by level: a tree of depth ceil(log2(len(parts)))."""
    from dask import delayed

    merge = delayed(merge, pure=True)
    while len(parts) > 1:
        parts = [merge(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def check_dask_array(X, what="X"):
    """A 2-D float Dask array with known chunk sizes, one chunk across the columns."""
    if X.ndim != 2:
        raise ValueError(f"{what} must be a 2-D Dask array (samples as rows), got {X.ndim} dimensions.")
    if any(np.isnan(size) for sizes in X.chunks for size in sizes):
        raise ValueError(
            f"{what} is a Dask array with unknown chunk sizes (from boolean indexing or a "
            "DataFrame's .values, for example): call X.compute_chunk_sizes() first, so that "
            "the landmarks can be drawn by index."
        )
    if X.dtype.kind not in "fiub":
        raise TypeError(f"{what} must hold real numbers, got a Dask array of dtype {X.dtype}.")
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return X.rechunk({1: -1}) if len(X.chunks[1]) > 1 else X


def dask_landmarks(X, n_landmarks, method, random_state):
    """The m landmark rows by the in-memory rule (``uniform_landmark_indices``), fetched by index."""
    if method != "uniform":
        raise ValueError(
            f"landmarks={method!r} is not supported for a Dask array: k-means would pass over "
            "the distributed data many times. Use landmarks='uniform', or compute centres with "
            "dask_ml.cluster.KMeans and fit an in-memory sample."
        )
    index = uniform_landmark_indices(X.shape[0], n_landmarks, check_random_state(random_state))
    order = np.argsort(index)
    landmarks = np.empty((n_landmarks, X.shape[1]), dtype=np.float64)
    landmarks[order] = np.asarray(X[index[order]].compute(), dtype=np.float64)  # sorted: one slice per block
    if not np.all(np.isfinite(landmarks)):
        raise ValueError("X contains NaN or infinity (in a row drawn as a landmark).")
    return landmarks


class DaskNystroemMixin:
    """``fit`` and ``transform`` of :class:`~kpca_lib.KernelPCA` for a ``dask.array.Array``."""

    def _nystroem_kernel(self):
        """The fit's own kernel, ``kernel_`` (sent to the workers)."""
        return self.kernel_

    def _fit_dask(self, X):
        """Fit on a Dask array: landmarks by index, moments by a tree of tasks, the m x m solve here."""
        from dask import delayed

        if self.approximation != "nystroem":
            raise TypeError(
                "A Dask array needs approximation='nystroem' (exact kernel PCA forms the "
                "n x n kernel matrix in memory); or pass X.compute() if it fits."
            )
        X = check_dask_array(X)
        self._resolve_kernel(X.shape[1])
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"X has {n} sample(s); at least 2 are required.")
        m, q = self._nystroem_sizes(n)
        landmarks = dask_landmarks(X, m, self.landmarks, self.random_state)
        P, K_mm = self._landmark_factor(landmarks)
        rows = chunk_rows(m, self.chunk_size)
        starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]])
        shared = delayed(landmarks, pure=True), delayed(self._nystroem_kernel(), pure=True)
        parts = [delayed(block_moments, pure=True)(block, int(start), *shared, rows)
                 for block, start in zip(X.to_delayed().ravel(), starts)]
        count, kernel_mean, scatter = tree_reduce(parts, merge_moments).compute()
        self.n_features_in_ = X.shape[1]
        self._nystroem = True
        q = self._solve_landmark_problem(landmarks, P, K_mm, kernel_mean, scatter, count, q, X.dtype)
        self.n_components_ = self._n_features_out = q
        self._fit_dtype = X.dtype
        return self

    def _transform_dask(self, X):
        """The projections as a lazy Dask array, one task per block of rows."""
        if not getattr(self, "_nystroem", False):
            raise TypeError("A Dask array can be projected by a model fitted with approximation='nystroem' only.")
        X = check_dask_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but KernelPCA was fitted with {self.n_features_in_}.")
        from dask import delayed

        rows = chunk_rows(self.landmarks_.shape[0], self.chunk_size)
        shared = {name: delayed(value, pure=True) for name, value in [  # once in the graph, not once per task
            ("landmarks", self.landmarks_), ("kernel_mean", self.kernel_mean_), ("alphas", self.alphas_),
            ("kernel", self._nystroem_kernel())]}
        return X.map_blocks(
            project_block, **shared, rows=rows, dtype=X.dtype, chunks=(X.chunks[0], (self.alphas_.shape[1],)),
            meta=np.empty((0, 0), dtype=X.dtype),
        )


def project_block(X_block, landmarks, kernel_mean, alphas, kernel, rows, block_info=None):
    """The projections of one block (the ``map_blocks`` function of ``transform``)."""
    start = block_info[0]["array-location"][0][0] if block_info else 0
    check_finite_block(X_block, start)
    Z = project_on_landmarks(lambda X_rows: kernel_block(kernel, X_rows, landmarks), X_block, kernel_mean, alphas, rows)
    return Z.astype(X_block.dtype, copy=False)
