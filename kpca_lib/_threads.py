"""One BLAS thread for the library's small products and iterative solvers.

On the 2-core machines this book targets, a second BLAS thread gains little
on the products of one sweep of an iterative solver, and on a machine whose
cores are busy with other processes it costs many times the work: BLAS's
threads spin while they wait for each other (``benchmarks/bench_core.py``,
``benchmarks/bench_robust_pca.py``). The solvers therefore run their sweeps
under :func:`one_blas_thread`; the limit ends with the ``with`` block.
"""

from functools import cache

from threadpoolctl import ThreadpoolController

__all__ = ["blas_controller", "one_blas_thread", "one_thread"]


@cache
def blas_controller():
    """The process's ``threadpoolctl`` controller, built once (building it inspects every loaded library)."""
    return ThreadpoolController()


def one_blas_thread():
    """A context manager that runs BLAS on one thread inside its ``with`` block.

    Returns
    -------
    context manager
        ``threadpoolctl``'s limit of the BLAS libraries to one thread; the
        previous limits come back when the block ends.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> with one_blas_thread():
    ...     {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}
    {1}
    """
    return blas_controller().limit(limits=1, user_api="blas")


def one_thread():
    """A context manager that runs every thread pool (BLAS and OpenMP) on one thread.

    scikit-learn's k-means and Gaussian mixtures also run OpenMP loops, whose
    threads spin like BLAS's on a busy machine; a fit on a few thousand points
    gains nothing from them.

    Returns
    -------
    context manager
        ``threadpoolctl``'s limit of every pool to one thread, undone when the
        block ends.
    """
    return blas_controller().limit(limits=1)
