"""Kernel PCA at scale: accuracy against exact kernel PCA, and time and peak memory against n.

Data: 10 Gaussian clusters in d = 10 dimensions (the de-noising toy of
chapter 5, ``denoising_toy(n_clusters=10, n_features=10, sigma=0.1)``), the
Gaussian kernel of width c = 2 d sigma^2 = 0.2 (chapter 5's rule), q = 9
components (the ten centred cluster means span nine directions).

Prints three tables:

(a) ``accuracy``: at n = 2000, 4000 and 8000, against exact kernel PCA
    (``kpca_lib.KernelPCA``, n x n kernel) fitted in the same run, on the
    same clusters with unequal sizes (cluster j holds a share j / 55 of the
    points, j = 1..10), so that the top eigenvalues are distinct and the
    top-5 and top-8 subspaces are well defined (their eigengaps are printed;
    with equal clusters the nine leading eigenvalues nearly coincide and only
    their span is): the smallest cosine of the principal angles between the
    top-5 and the top-8 subspaces of the projections of the training points
    (1 = the same subspace), and the largest relative error of the 8 leading
    eigenvalues of the centred kernel, for
    - Nystroem (ours, uniform and k-means landmarks) against m,
    - random Fourier features (scikit-learn's ``RBFSampler``, then PCA)
      against the number of features D,
    - scikit-learn's ``KernelPCA(eigen_solver="randomized")``, which still
      forms the n x n kernel but solves for q eigenpairs by a randomized
      range finder,
    with the time of fit + transform and its ratio to the exact fit.
(b) ``scale``: fit + transform of all n points at n = 10 000, 50 000 and
    100 000, each configuration in a fresh process (peak resident memory is
    the child's own high-water mark, VmHWM; "data" is the peak before
    fitting, after the imports and the data), repeated, with the median time and the largest
    peak, and ratios against scikit-learn's ``Nystroem`` + ``PCA`` pipeline
    (which stores the n x m features) with the same m measured in the same
    run; also the careful scikit-learn route, ``Nystroem`` by batches with the
    scatter accumulated by hand and the two linear maps of ``transform``
    folded into one (``BatchedSklearnNystroem``). Exact kernel PCA runs where its n x n
    kernel fits comfortably (n = 10 000: 0.8 GB; n = 50 000 would need 20 GB).
(c) ``dask``: n = 4 000 000, d = 10, m = 400 (``--n``, ``--m``, ``--workers``):
    ``kpca_lib.KernelPCA(approximation="nystroem")`` fitted on a Dask array
    whose 40 blocks are made on the workers of a LocalCluster (2 worker
    processes x 1 thread; the data never reach the client), then
    ``transform`` reduced on the workers, against the chunked in-memory fit
    of the same blocks in one fresh process; the peak memory of the client
    and of the workers, the agreement of the two (eigenvalues, first 1000
    projections, column sums of squares of all projections), the per-block
    CPU cost of fit and transform (load-independent), and an on-paper
    estimate for n = 1e9 on a cluster, in blocks of 1 000 000 rows. Targets of issue 26: <= 150 s, client
    peak <= 450 MB, equal results.

The targets of issue 17: n = 100 000, m = 2000: fit + transform under 30 s
and peak memory under 1.5 GB; top-5 cosine at least 0.99 with m = 1000 at
n = 4000. The machine's load average is printed before each table: timings
on a shared machine are noisy, so run it when the load is low, and more than
once.

Run from the repository root::

    .venv/bin/python benchmarks/bench_scale.py                 # (a) and (b)
    .venv/bin/python benchmarks/bench_scale.py accuracy        # (a) only
    .venv/bin/python benchmarks/bench_scale.py scale --repeats 3
    .venv/bin/python benchmarks/bench_scale.py dask                # (c)
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np
from scipy.linalg import subspace_angles

SIGMA, N_CLUSTERS, N_FEATURES, Q = 0.1, 10, 10, 9
C = 2 * N_FEATURES * SIGMA**2  # the width rule of chapter 5


def clustered(n, random_state=0):
    """n points in 10 clusters in 10-D (n a multiple of 10)."""
    from kpca_lib.datasets import denoising_toy

    data = denoising_toy(n_clusters=N_CLUSTERS, n_features=N_FEATURES, sigma=SIGMA,
                         n_train_per_cluster=n // N_CLUSTERS, n_test_per_cluster=1, random_state=random_state)
    return data.X_train


def unequal_clusters(n, random_state=0):
    """About n points in the same 10 clusters, cluster j (j = 1..10) holding a share j / 55."""
    from kpca_lib.datasets import denoising_toy

    data = denoising_toy(n_clusters=N_CLUSTERS, n_features=N_FEATURES, sigma=SIGMA,
                         n_train_per_cluster=n // 5, n_test_per_cluster=1, random_state=random_state)
    sizes = np.round(n * np.arange(1, N_CLUSTERS + 1) / 55).astype(int)
    keep = np.concatenate([np.flatnonzero(data.y_train == j)[:size] for j, size in enumerate(sizes)])
    return data.X_train[keep]


def load():
    return "load average (1, 5, 15 min): " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


def smallest_cosine(A, B):
    """Cosine of the largest principal angle between the column spans of A and B."""
    return float(np.cos(subspace_angles(A, B)).min())


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


# --------------------------------------------------------------------------- (a)

def nystroem_method(m, landmarks):
    def run(X):
        import kpca_lib as kl

        model = kl.KernelPCA(Q, kernel=kl.Gaussian(c=C), approximation="nystroem", n_landmarks=m,
                             landmarks=landmarks, random_state=0)
        return model.fit_transform(X), model.eigenvalues_
    return run


def rff_method(D):
    def run(X):
        from sklearn.decomposition import PCA
        from sklearn.kernel_approximation import RBFSampler

        features = RBFSampler(gamma=1 / C, n_components=D, random_state=0).fit_transform(X)
        pca = PCA(n_components=Q, svd_solver="arpack", random_state=0)
        Z = pca.fit_transform(features)
        # PCA's variances are sigma^2 / (n - 1); the centred kernel's eigenvalues are sigma^2
        return Z, pca.explained_variance_ * (X.shape[0] - 1)
    return run


def randomized_method(X):
    from sklearn.decomposition import KernelPCA as SklearnKernelPCA

    model = SklearnKernelPCA(Q, kernel="rbf", gamma=1 / C, eigen_solver="randomized", random_state=0)
    return model.fit_transform(X), model.eigenvalues_


def accuracy_table(sizes, ms, ds):
    import kpca_lib as kl

    print("(a) accuracy against exact kernel PCA; 10 clusters of unequal sizes in 10-D, c = 0.2, q = 9; "
          "cosines of the top-5 and top-8 subspaces, largest relative error of the top 8 eigenvalues")
    print(load())
    header = (f"{'n':>6} {'method':<26} {'m or D':>7} {'time (s)':>9} {'/ exact':>8} "
              f"{'cos top-5':>10} {'cos top-8':>10} {'eig. error':>11}")
    print(header)
    for n in sizes:
        X = unequal_clusters(n)
        exact_time, exact = timed(lambda: kl.KernelPCA(Q, kernel=kl.Gaussian(c=C)).fit(X))
        Z_exact, mu = (exact.alphas_ * exact.eigenvalues_)[:, :8], exact.eigenvalues_[:8]
        gaps = f"mu_5 / mu_6 = {mu[4] / mu[5]:.2f}, mu_8 / mu_9 = {mu[7] / exact.eigenvalues_[8]:.2f}"
        print(f"{X.shape[0]:>6} {'exact (ours, arpack)':<26} {'':>7} {exact_time:>9.2f} {1:>8.2f}   {gaps}")
        rows = [("Nystroem, uniform (ours)", m, nystroem_method(m, "uniform")) for m in ms if m <= n]
        rows += [("Nystroem, k-means (ours)", m, nystroem_method(m, "kmeans")) for m in ms if m <= min(n, 1000)]
        rows += [("random Fourier + PCA", D, rff_method(D)) for D in ds]
        rows += [("sklearn randomized eigsh", None, randomized_method)]
        for name, parameter, method in rows:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                elapsed, (Z, eigenvalues) = timed(lambda: method(X))
            error = np.max(np.abs(eigenvalues[:8] - mu) / mu)
            print(f"{X.shape[0]:>6} {name:<26} {parameter or '':>7} {elapsed:>9.2f} {elapsed / exact_time:>8.2f} "
                  f"{smallest_cosine(Z_exact[:, :5], Z[:, :5]):>10.5f} {smallest_cosine(Z_exact, Z[:, :8]):>10.5f} "
                  f"{error:>11.2e}", flush=True)
        print()


# --------------------------------------------------------------------------- (b)

def peak_rss_mb():
    """Peak resident memory of this process in MB.

    Linux: VmHWM of /proc/self/status, the high-water mark of this process's
    own address space. ``ru_maxrss`` is not used there: the kernel carries it
    over from the parent's address space through fork and exec, so a child of
    a large parent would report the parent's peak.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux, bytes on macOS


def child(config):
    """Run one configuration in this (fresh) process; print a JSON line."""
    if config["method"] == "dask-reference":
        return dask_child(config)
    X = clustered(config["n"])
    import kpca_lib as kl
    from sklearn.decomposition import PCA
    from sklearn.kernel_approximation import Nystroem
    from sklearn.pipeline import make_pipeline

    method, m = config["method"], config.get("m")
    if method == "ours":
        model = kl.KernelPCA(Q, kernel=kl.Gaussian(c=C), approximation="nystroem", n_landmarks=m, random_state=0)
    elif method == "sklearn":
        model = make_pipeline(Nystroem(kernel="rbf", gamma=1 / C, n_components=m, random_state=0),
                              PCA(n_components=Q, random_state=0))
    elif method == "exact":
        model = kl.KernelPCA(Q, kernel=kl.Gaussian(c=C))
    elif method == "sklearn-batched":
        model = BatchedSklearnNystroem(m)
    else:
        raise ValueError(method)
    baseline = peak_rss_mb()
    fit_time, _ = timed(lambda: model.fit(X))
    transform_time, Z = timed(lambda: model.transform(X))
    peak = peak_rss_mb()
    print(json.dumps(dict(fit=fit_time, transform=transform_time, peak_mb=peak, data_mb=baseline,
                          checksum=float(np.abs(Z).sum()))))


class BatchedSklearnNystroem:
    """The careful scikit-learn route (Appendix C): ``Nystroem`` features by batches of rows, their sum and
    F^T F accumulated (never the n x m features), the top-q eigenvectors of the m x m scatter, and a folded
    transform: ``rbf_kernel(X, landmarks) @ (normalization_.T @ V) - mean @ V``, by batches."""

    def __init__(self, m, batch=4096):
        self.m, self.batch = m, batch

    def fit(self, X):
        from scipy.linalg import eigh
        from sklearn.kernel_approximation import Nystroem

        self.map_ = Nystroem(kernel="rbf", gamma=1 / C, n_components=self.m, random_state=0).fit(X)
        total, FtF = np.zeros(self.m), np.zeros((self.m, self.m))
        for start in range(0, X.shape[0], self.batch):
            F = self.map_.transform(X[start:start + self.batch])
            total += F.sum(axis=0)
            FtF += F.T @ F
        self.mean_ = total / X.shape[0]
        eigenvalues, V = eigh(FtF - X.shape[0] * np.outer(self.mean_, self.mean_),
                              subset_by_index=[self.m - Q, self.m - 1])
        self.eigenvalues_, self.components_ = eigenvalues[::-1], V[:, ::-1]
        self.folded_ = self.map_.normalization_.T @ self.components_  # m x q: two linear maps folded into one
        return self

    def transform(self, X):
        from sklearn.metrics.pairwise import rbf_kernel

        shift = self.mean_ @ self.components_
        return np.concatenate([rbf_kernel(X[start:start + self.batch], self.map_.components_, gamma=1 / C)
                               @ self.folded_ - shift for start in range(0, X.shape[0], self.batch)])


def run_child(config):
    output = subprocess.run([sys.executable, __file__, "_child", json.dumps(config)],
                            capture_output=True, text=True, check=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def scale_table(sizes, m, repeats, exact_sizes, methods=("sklearn", "sklearn-batched", "ours", "exact")):
    print(f"(b) time and peak memory of fit + transform; 10 clusters in 10-D, q = 9, m = {m}; "
          f"median time and largest peak of {repeats} fresh processes per row")
    print(load())
    print(f"{'n':>7} {'method':<28} {'fit (s)':>8} {'transform':>10} {'total (s)':>10} {'/ pipeline':>10} "
          f"{'peak (MB)':>10} {'/ pipeline':>10} {'data (MB)':>10}   (pipeline: Nystroem + PCA, features stored)")
    for n in sizes:
        configs = [("sklearn Nystroem + PCA", dict(method="sklearn", n=n, m=m)),
                   ("sklearn Nystroem, batched", dict(method="sklearn-batched", n=n, m=m)),
                   ("Nystroem (ours)", dict(method="ours", n=n, m=m))]
        configs = [(name, config) for name, config in configs if config["method"] in methods]
        if n in exact_sizes and "exact" in methods:
            configs.append(("exact (ours, arpack)", dict(method="exact", n=n)))
        baseline, checksums = None, {}
        for name, config in configs:
            runs = [run_child(config) for _ in range(repeats)]
            checksums[name] = runs[0]["checksum"]
            fit = float(np.median([run["fit"] for run in runs]))
            transform = float(np.median([run["transform"] for run in runs]))
            total = float(np.median([run["fit"] + run["transform"] for run in runs]))
            peak = max(run["peak_mb"] for run in runs)
            baseline = baseline or (total, peak)  # the first row run: the pipeline, unless --methods drops it
            print(f"{n:>7} {name:<28} {fit:>8.2f} {transform:>10.2f} {total:>10.2f} {total / baseline[0]:>10.2f} "
                  f"{peak:>10.0f} {peak / baseline[1]:>10.2f} {max(run['data_mb'] for run in runs):>10.0f}",
                  flush=True)
        reference = checksums.get("sklearn Nystroem + PCA")
        if reference is not None:
            print(f"{n:>7} agreement of the timed runs, sum |Z| relative to the pipeline's (sign-free): " + ", ".join(
                f"{name} {abs(value - reference) / reference:.1e}" for name, value in checksums.items()
                if name != "sklearn Nystroem + PCA" and not name.startswith("exact")))
        if n not in exact_sizes and "exact" in methods:
            print(f"{n:>7} {'exact':<28} not run: the n x n kernel alone needs {8 * n * n / 1e9:.0f} GB")
    print(load())
    print()


# --------------------------------------------------------------------------- (c)

BLOCK_ROWS = 100_000  # rows per Dask block (8 MB of data at d = 10)


def make_block(index, rows):
    """Block ``index`` of the Dask benchmark's data, made where it is needed (seeded by its index).

    The same 10 clusters in 10-D as (a) and (b) (centres uniform in the unit
    cube, sigma = 0.1, cluster j holding a share j / 55 of the points).
    """
    centres = np.random.default_rng(0).uniform(size=(N_CLUSTERS, N_FEATURES))
    rng = np.random.default_rng([1, index])
    labels = rng.choice(N_CLUSTERS, size=rows, p=np.arange(1, N_CLUSTERS + 1) / 55)
    return centres[labels] + SIGMA * rng.standard_normal((rows, N_FEATURES))


def dask_summary(Z):
    """What the timed runs return and compare: the column sums of squares and the first 1000 projections."""
    return (Z**2).sum(axis=0), Z[:1000]


def dask_child(config):
    """The single-process chunked fit + transform of the same blocks (run in a fresh process)."""
    import kpca_lib as kl

    n, m = config["n"], config["m"]
    X = np.concatenate([make_block(i, BLOCK_ROWS) for i in range(n // BLOCK_ROWS)])
    model = kl.KernelPCA(Q, kernel=kl.Gaussian(c=C), approximation="nystroem", n_landmarks=m, random_state=0)
    fit_time, _ = timed(lambda: model.fit(X))
    transform_time, Z = timed(lambda: model.transform(X))
    squares, head = dask_summary(Z)
    print(json.dumps(dict(fit=fit_time, transform=transform_time, peak_mb=peak_rss_mb(),
                          eigenvalues=model.eigenvalues_.tolist(), squares=squares.tolist(), head=head.tolist())))


def block_cpu_seconds(m, repeats=3):
    """CPU seconds of the map step on one block (the median of a few), on one BLAS thread: (fit, transform)."""
    import kpca_lib as kl
    from kpca_lib.nystroem_dask import block_moments, project_block
    from threadpoolctl import threadpool_limits

    X = make_block(0, BLOCK_ROWS)
    landmarks = X[:m].copy()
    alphas = np.random.default_rng(0).standard_normal((m, Q))
    steps = [lambda: block_moments(X, 0, landmarks, kl.Gaussian(c=C), 2**23 // m),
             lambda: project_block(X, landmarks, np.zeros(m), alphas, kl.Gaussian(c=C), 2**23 // m)]
    seconds = []
    with threadpool_limits(1):
        for step in steps:
            times = []
            for _ in range(repeats):
                start = time.process_time()
                step()
                times.append(time.process_time() - start)
            seconds.append(float(np.median(times)))
    return tuple(seconds)


def dask_table(n, m, workers):
    """Fit + transform on a LocalCluster (data made on the workers) against one process, same blocks."""
    import dask
    import dask.array as da
    import distributed
    import kpca_lib as kl

    blocks = n // BLOCK_ROWS
    print(f"(c) Dask {dask.__version__}, distributed {distributed.__version__}: n = {blocks * BLOCK_ROWS:,}, "
          f"d = {N_FEATURES}, m = {m}, q = {Q}; {blocks} blocks of {BLOCK_ROWS:,} rows made on the workers; "
          f"LocalCluster of {workers} worker processes x 1 thread")
    print(load())
    reference = run_child(dict(method="dask-reference", n=blocks * BLOCK_ROWS, m=m))
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=50)
    client = distributed.Client(cluster)
    start = time.perf_counter()
    X = da.concatenate([da.from_delayed(dask.delayed(make_block)(i, BLOCK_ROWS), shape=(BLOCK_ROWS, N_FEATURES),
                                        dtype=np.float64) for i in range(blocks)])
    model = kl.KernelPCA(Q, kernel=kl.Gaussian(c=C), approximation="nystroem", n_landmarks=m, random_state=0)
    with distributed.get_task_stream(client) as stream:
        model.fit(X)
        fit_time = time.perf_counter() - start
        squares, head = dask.compute(*dask_summary(model.transform(X)))
    total = time.perf_counter() - start
    client_peak = peak_rss_mb()
    worker_peaks = sorted(client.run(peak_rss_mb).values())
    block_cost = np.median([sum(t["stop"] - t["start"] for t in task["startstops"] if t["action"] == "compute")
                            for task in stream.data if "block_moments" in str(task["key"])])
    client.close()
    cluster.close()

    ref_total = reference["fit"] + reference["transform"]
    print(f"{'method':<36} {'fit (s)':>8} {'transform':>10} {'total (s)':>10} {'/ 1 process':>12} {'peak (MB)':>10}")
    print(f"{'one process, chunked (in memory)':<36} {reference['fit']:>8.1f} {reference['transform']:>10.1f} "
          f"{ref_total:>10.1f} {1.0:>12.2f} {reference['peak_mb']:>10.0f}")
    print(f"{'Dask LocalCluster, ' + str(workers) + ' workers':<36} {fit_time:>8.1f} {total - fit_time:>10.1f} "
          f"{total:>10.1f} {total / ref_total:>12.2f} {client_peak:>10.0f}  (client process, with the scheduler)")
    print(f"{'':<36} {'':>8} {'':>10} {'':>10} {'':>12} {sum(worker_peaks):>10.0f}  (the {workers} workers together: "
          + ", ".join(f"{peak:.0f}" for peak in worker_peaks) + " MB)")
    eigen_error = np.max(np.abs(model.eigenvalues_ - reference["eigenvalues"]) / reference["eigenvalues"])
    head_ref = np.array(reference["head"])
    signs = np.sign(np.sum(head * head_ref, axis=0))
    print(f"agreement: eigenvalues {eigen_error:.1e} relative; first 1000 projections, up to sign, "
          f"{np.max(np.abs(head * signs - head_ref)) / np.max(np.abs(head_ref)):.1e} relative; column sums of "
          f"squares {np.max(np.abs(squares - reference['squares']) / np.array(reference['squares'])):.1e} relative")
    print(f"per-block wall time of the fit on the workers (median of {blocks} tasks, {BLOCK_ROWS:,} rows, kernel "
          f"block + scatter): {block_cost:.2f} s under this load")
    fit_cost, transform_cost = block_cpu_seconds(m)
    print(f"per-block CPU time, one block of {BLOCK_ROWS:,} rows on one BLAS thread in this process "
          f"(load-independent, up to cache contention): fit {fit_cost:.2f} s, transform {transform_cost:.2f} s; "
          f"on two quiet cores the {blocks} blocks would take about {blocks * fit_cost / 2:.1f} s + "
          f"{blocks * transform_cost / 2:.1f} s = {blocks * (fit_cost + transform_cost) / 2:.1f} s")
    big_rows = 10 * BLOCK_ROWS  # blocks of 80 MB at d = 10, near Dask's advice of about 100 MB per block
    for n_big, n_workers, cores in [(10**9, 16, 16), (10**9, 64, 16)]:
        blocks_big = n_big // big_rows
        seconds = blocks_big * 10 * fit_cost / (n_workers * cores)
        print(f"on paper, n = {n_big:.0e}: {blocks_big:,} blocks of {big_rows:,} rows x {10 * fit_cost:.1f} s / "
              f"({n_workers} workers x {cores} cores) = {seconds:.0f} s for the fit "
              f"({blocks_big * 10 * transform_cost / (n_workers * cores):.0f} s more for a transform), plus reading "
              f"the blocks that hold the {m} landmarks; {8 * n_big * N_FEATURES / 1e9 / n_workers:.0f} GB of data "
              f"per worker if held in memory, about "
              f"{(8 * m * m + 8 * (2**23 // m) * m * 2 + 8 * big_rows * N_FEATURES) / 1e6 * cores:.0f} MB "
              f"of working memory per worker (a block and one 64 MiB kernel block per core)")
    print(load())
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", nargs="?", default="all", choices=["all", "accuracy", "scale", "dask", "_child"])
    parser.add_argument("config", nargs="?", help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--methods", nargs="+", default=["sklearn", "sklearn-batched", "ours", "exact"],
                        choices=["sklearn", "sklearn-batched", "ours", "exact"], help="(b) only")
    parser.add_argument("--m", type=int, default=None, help="landmarks: 2000 for (b), 400 for (c)")
    parser.add_argument("--n", type=int, default=4_000_000, help="(c) only")
    parser.add_argument("--workers", type=int, default=2, help="(c) only")
    parser.add_argument("--accuracy-sizes", type=int, nargs="+", default=[2000, 4000, 8000])
    args = parser.parse_args()
    if args.part == "_child":
        return child(json.loads(args.config))
    if args.part in ("all", "accuracy"):
        accuracy_table(args.accuracy_sizes, ms=[100, 250, 500, 1000, 2000], ds=[500, 1000, 2000, 4000, 8000])
    if args.part in ("all", "scale"):
        scale_table(args.sizes, args.m or 2000, args.repeats, exact_sizes={10_000}, methods=args.methods)
    if args.part == "dask":
        dask_table(args.n, args.m or 400, args.workers)


if __name__ == "__main__":
    main()
