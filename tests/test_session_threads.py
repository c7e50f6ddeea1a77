"""The test session's BLAS threads (conftest.py at the root): xdist workers share the cores."""

import os

import numpy  # noqa: F401  (loads OpenBLAS in this process)
import pytest
from threadpoolctl import threadpool_info

THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def test_each_xdist_worker_gets_its_share_of_the_cores(request):
    workerinput = getattr(request.config, "workerinput", None)
    if workerinput is None:
        pytest.skip("one process: the machine's default BLAS threads")
    cores = len(os.sched_getaffinity(0))
    share = max(1, cores // int(workerinput["workercount"]))
    blas = {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}
    if getattr(request.config, "_kpca_blas_limit", None) is None:
        # one worker has the machine, or the environment chose the threads (CI's second pass)
        assert share >= cores or any(name in os.environ for name in THREADS)
        return
    # in this process, and in the environment of every kernel it starts
    assert blas == {share}
    assert all(os.environ[name] == str(share) for name in THREADS)
