"""Settings for every test session: the notebooks (``chapters/``) and the tests (``tests/``).

Under pytest-xdist the workers share the machine's cores, and OpenBLAS threads of two
processes on the same cores spin-wait on each other: beside a second worker, chapter 5
(many small products in loops) took 180 s to check, against 32 s alone. So each worker,
and every kernel or subprocess it starts (nbval's kernels, the grader's), gets its share
of the cores, ``cores // workers`` BLAS threads, unless the environment already says
how many (as CI's second BLAS configuration does). A run in one process (``-n 0``, or
``pytest --nbval <notebook>``) keeps the machine's default threads.
"""

import os

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def blas_threads_per_worker(workers, cores):
    """BLAS threads for each of ``workers`` processes sharing ``cores`` cores (at least 1)."""
    return max(1, cores // workers)


def pytest_configure(config):
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:  # not an xdist worker
        return
    cores = len(os.sched_getaffinity(0))
    threads = blas_threads_per_worker(int(workerinput["workercount"]), cores)
    if threads >= cores or any(name in os.environ for name in THREAD_VARIABLES):
        return
    for name in THREAD_VARIABLES:  # for the kernels and subprocesses this worker starts
        os.environ[name] = str(threads)
    # numpy may already be loaded in this process: limit its BLAS directly as well
    from threadpoolctl import threadpool_limits

    config._kpca_blas_limit = threadpool_limits(limits=threads, user_api="blas")
