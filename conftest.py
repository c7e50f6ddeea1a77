"""Settings for every test session: the notebooks (``chapters/``) and the tests (``tests/``).

Under pytest-xdist the workers share the machine's cores, and OpenBLAS threads of two
processes on the same cores spin-wait on each other: beside a second worker, chapter 5
(many small products in loops) took 180 s to check, against 32 s alone. So each worker,
and every kernel or subprocess it starts (nbval's kernels, the grader's), gets its share
of the cores, ``cores // workers`` BLAS threads, unless the environment already says
how many (as CI's second BLAS configuration does). A run in one process (``-n 0``, or
``pytest --nbval <notebook>``) keeps the machine's default threads.

Two workers starting kernels at the same moment can draw the same free TCP port (the
kernel's ports are found free, closed, then bound by the kernel): the loser dies before
it replies ("Kernel died before replying to kernel_info") and every cell of its notebook
errors. That happened once in CI's second pass (chapter 4, 45 errors). So nbval's kernel
start is tried up to ``KERNEL_STARTS`` times when a kernel dies while starting, and only
then.
"""

import functools
import os

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def blas_threads_per_worker(workers, cores):
    """BLAS threads for each of ``workers`` processes sharing ``cores`` cores (at least 1)."""
    return max(1, cores // workers)


KERNEL_STARTS = 3
DIED_STARTING = "Kernel died before replying to kernel_info"


def start_kernel_with_retries(start):
    """``start`` (nbval's ``start_new_kernel``), tried again when the kernel dies while starting."""
    if getattr(start, "_kpca_retries", False):
        return start

    @functools.wraps(start)
    def start_new_kernel(*args, **kwargs):
        for attempt in range(1, KERNEL_STARTS + 1):
            try:
                return start(*args, **kwargs)
            except RuntimeError as error:
                if DIED_STARTING not in str(error) or attempt == KERNEL_STARTS:
                    raise  # a kernel that does not answer in time is not retried: no triple wait

    start_new_kernel._kpca_retries = True
    return start_new_kernel


# The files that take longest, in the order a worker should start them. pytest-xdist's
# --dist loadfile gives a whole file to one worker, and by default starts the files with the
# most tests first (--loadscope-reorder): the book's builds (one test in
# test_book_without_solutions.py) and the browser checks then started last, and the run
# ended with one worker building and browsing while the other had nothing left. Longest
# first keeps both busy to the end: the two builds at once (one per worker), the browser
# modules that share the build and its page visits (tests/page_visits.py), then the other
# long files; every other file follows in the order collected. Only the order changes.
# (The order of a profile of the whole suite, --durations=60, 2026-11-28; the chapter 5 lab's
# drags (75 s at load 10), the estimator checks, the labs' node tests and the grading guard
# (30-50 s each) added from a second profile: collected last, they ran last, and one of them
# alone at the end is one worker's time with the other idle; the appendices' lab drags and the
# stuck-cell grading (about 45 s each, alone) likewise.)
LONGEST_FIRST = (
    "tests/test_book_in_browser.py",
    "tests/test_book_without_solutions.py",
    "tests/test_rendered_pages.py",
    "tests/test_labs_rendered.py",
    "tests/test_labs_in_browser.py",
    "chapters/05_*.ipynb",
    "tests/test_grading_time.py",
    "tests/test_grading.py",
    "tests/test_self_check.py",
    "tests/test_packaging.py",
    "tests/test_grading_speed.py",
    "tests/test_denoising_lab_drags.py",
    "tests/test_appendix_lab_drags.py",
    "tests/test_grading_stuck.py",
    "tests/test_grading_course_runs.py",
    "tests/test_grading_course.py",
    "tests/test_explorers_browser.py",
    "chapters/A_sparse_pca_high_dim.ipynb",
    "chapters/B_robust_pca*.ipynb",
    "tests/test_chapter_numbers.py",
    "tests/test_kwok_tsang.py",
    "tests/test_coursework.py",
    "tests/test_dask.py",
    "tests/test_estimator_checks.py",
    "tests/test_labs_numerics.py",
    "tests/test_grading_guard.py",
)


def longest_first_rank(relative_path):
    """Where a file (its path from the project's root) comes in LONGEST_FIRST; after them all if not there."""
    import fnmatch

    for rank, pattern in enumerate(LONGEST_FIRST):
        if fnmatch.fnmatch(relative_path, pattern):
            return rank
    return len(LONGEST_FIRST)


def pytest_collection_modifyitems(session, config, items):
    root = str(config.rootpath)

    def rank(item):
        path = os.path.relpath(str(item.path), root).replace(os.sep, "/")
        return longest_first_rank(path)

    items.sort(key=rank)  # stable: each file's tests keep their order


def pytest_configure(config):
    if getattr(config.option, "loadscopereorder", False):
        config.option.loadscopereorder = False  # the order of the files is LONGEST_FIRST's
    try:
        import nbval.kernel
    except ImportError:
        pass
    else:
        nbval.kernel.start_new_kernel = start_kernel_with_retries(nbval.kernel.start_new_kernel)
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
