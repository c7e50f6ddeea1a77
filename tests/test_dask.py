"""Nystroem kernel PCA of Dask arrays, on a LocalCluster of two worker processes.

The reference is the in-memory fit of the same data with the same seed
(itself checked against scikit-learn in tests/test_nystroem.py): the same
landmarks, and eigenvalues and projections equal to round-off.
"""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import kpca_lib as kl  # noqa: E402

N, D, M, Q = 3001, 5, 60, 4


def params(**extra):
    return dict(n_components=Q, kernel=kl.Gaussian(c=4.0), approximation="nystroem", n_landmarks=M,
                random_state=7, **extra)


def name_of(key):
    """The task's function name: delayed keys are 'name-token', array keys ('name-token', i, j)."""
    return (key[0] if isinstance(key, tuple) else key).rsplit("-", 1)[0]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=50)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=3.0, size=(6, D))
    return centres[rng.integers(0, 6, N)] + rng.normal(size=(N, D))


@pytest.fixture(scope="module")
def reference(X):
    return kl.KernelPCA(**params()).fit(X)


def test_dask_fit_equals_in_memory_fit_and_runs_on_the_workers(client, X, reference):
    X_dask = da.from_array(X, chunks=(400, D))  # 400 does not divide 3001: a last block of 201 rows
    with distributed.get_task_stream(client) as stream:
        model = kl.KernelPCA(**params()).fit(X_dask)
    np.testing.assert_array_equal(model.landmarks_, reference.landmarks_)
    np.testing.assert_allclose(model.eigenvalues_, reference.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(model.kernel_mean_, reference.kernel_mean_, rtol=1e-10)
    moments = [task for task in stream.data if name_of(task["key"]) == "block_moments"]
    assert len(moments) == len(X_dask.chunks[0]) == 8  # one task per block
    workers = set(client.scheduler_info()["workers"])
    assert {task["worker"] for task in moments} == workers and len(workers) == 2
    merges = [task for task in stream.data if name_of(task["key"]) == "merge_moments"]
    assert len(merges) == 7  # a binary tree over 8 blocks


def test_transform_is_lazy_and_equal_up_to_sign(client, X, reference):
    X_dask = da.from_array(X, chunks=(1000, D))
    model = kl.KernelPCA(**params()).fit(X_dask)
    Z_dask = model.transform(X_dask)
    assert isinstance(Z_dask, da.Array)
    assert Z_dask.chunks == ((1000, 1000, 1000, 1), (Q,))
    Z, Z_ref = Z_dask.compute(), reference.transform(X)
    signs = np.sign(np.sum(Z * Z_ref, axis=0))
    assert np.max(np.abs(Z * signs - Z_ref)) <= 1e-8 * np.max(np.abs(Z_ref))
    Z_fit = model.fit_transform(X_dask)
    assert isinstance(Z_fit, da.Array)
    np.testing.assert_allclose(Z_fit.compute(), Z, atol=1e-12)


def test_the_result_does_not_depend_on_the_chunking(client, X):
    columns_split = da.from_array(X, chunks=(257, 2))  # also split across the columns
    a = kl.KernelPCA(**params()).fit(columns_split)
    b = kl.KernelPCA(**params()).fit(da.from_array(X, chunks=(N, D)))
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-10)


def test_the_threaded_scheduler_gives_the_same_fit(X, reference):
    import dask

    with dask.config.set(scheduler="threads"):
        model = kl.KernelPCA(**params()).fit(da.from_array(X, chunks=(999, D)))
    np.testing.assert_allclose(model.eigenvalues_, reference.eigenvalues_, rtol=1e-10)


def test_float32_dask_input_gives_float32_projections(client, X):
    X32 = da.from_array(X.astype(np.float32), chunks=(1500, D))
    model = kl.KernelPCA(**params()).fit(X32)
    assert model.transform(X32).dtype == np.float32


def test_unknown_chunk_sizes_are_refused(client, X):
    X_dask = da.from_array(X, chunks=(500, D))
    unknown = X_dask[X_dask[:, 0] > 0]
    with pytest.raises(ValueError, match="unknown chunk sizes.*compute_chunk_sizes"):
        kl.KernelPCA(**params()).fit(unknown)


def test_nan_in_a_block_names_the_row(client, X):
    X_nan = X.copy()
    X_nan[2345, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity .*row 2345"):
        kl.KernelPCA(**params()).fit(da.from_array(X_nan, chunks=(500, D)))
    model = kl.KernelPCA(**params()).fit(da.from_array(X, chunks=(500, D)))
    lazy = model.transform(da.from_array(X_nan, chunks=(500, D)))  # lazy: the error comes at compute
    with pytest.raises(ValueError, match="row 2345"):
        lazy.compute()


def test_bad_dask_input(client, X):
    with pytest.raises(ValueError, match="landmarks='kmeans' is not supported for a Dask array"):
        kl.KernelPCA(**params(landmarks="kmeans")).fit(da.from_array(X, chunks=(500, D)))
    with pytest.raises(TypeError, match="approximation='nystroem'"):
        kl.KernelPCA(Q, kernel=kl.Gaussian(c=4.0)).fit(da.from_array(X, chunks=(500, D)))
    with pytest.raises(ValueError, match="2-D"):
        kl.KernelPCA(**params()).fit(da.from_array(X[:, 0], chunks=500))
    with pytest.raises(ValueError, match="n_landmarks=60 is larger"):
        kl.KernelPCA(**params()).fit(da.from_array(X[:50], chunks=(20, D)))
    model = kl.KernelPCA(**params()).fit(da.from_array(X, chunks=(1500, D)))
    with pytest.raises(ValueError, match="features"):
        model.transform(da.from_array(X[:, :3], chunks=(1500, 3)))


def test_above_the_permutation_limit_the_landmarks_are_drawn_in_o_m_and_still_agree(client, X, monkeypatch):
    # the client never permutes all n row numbers above PERMUTATION_MAX_ROWS (8 GB at n = 10**9);
    # lowering the limit below N exercises that sampler on both paths: the same landmarks, the same fit
    import kpca_lib.nystroem as nystroem

    monkeypatch.setattr(nystroem, "PERMUTATION_MAX_ROWS", 1000)
    in_memory = kl.KernelPCA(**params()).fit(X)
    model = kl.KernelPCA(**params()).fit(da.from_array(X, chunks=(400, D)))
    np.testing.assert_array_equal(model.landmarks_, in_memory.landmarks_)
    np.testing.assert_allclose(model.eigenvalues_, in_memory.eigenvalues_, rtol=1e-10)
    index = nystroem.uniform_landmark_indices(N, M, 7)
    assert len(set(index.tolist())) == M and index.min() >= 0 and index.max() < N
    np.testing.assert_array_equal(nystroem.uniform_landmark_indices(N, 2 * M, 7)[:M], index)  # nested


def test_transform_puts_the_model_in_the_graph_once(client, X):
    import pickle

    model = kl.KernelPCA(**{**params(), "n_landmarks": 400}).fit(X)  # landmarks, alphas: 16 kB + 12.8 kB
    Z_dask = model.transform(da.from_array(X, chunks=(100, D)))  # 31 tasks
    tasks = dict(Z_dask.dask.layers[Z_dask.name]).values()  # each is sent to a worker on its own
    assert len(tasks) == 31 and max(len(pickle.dumps(task)) for task in tasks) < model.landmarks_.nbytes / 4
