"""The session's retry of nbval's kernel start (conftest.py): when, and only when, a kernel dies starting."""

import importlib.util
from pathlib import Path

import nbval.kernel
import pytest

# the repository's root conftest.py (tests/ has a conftest.py of its own)
_spec = importlib.util.spec_from_file_location("root_conftest", Path(__file__).resolve().parents[1] / "conftest.py")
root_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(root_conftest)
DIED_STARTING, KERNEL_STARTS = root_conftest.DIED_STARTING, root_conftest.KERNEL_STARTS
start_kernel_with_retries = root_conftest.start_kernel_with_retries


def flaky(failures, error=DIED_STARTING):
    """A start that fails ``failures`` times with RuntimeError(error), then returns its arguments."""
    calls = []

    def start(*args, **kwargs):
        calls.append(args)
        if len(calls) <= failures:
            raise RuntimeError(error)
        return args, kwargs

    return start, calls


def test_a_kernel_that_died_starting_is_started_again():
    start, calls = flaky(KERNEL_STARTS - 1)
    assert start_kernel_with_retries(start)(60, kernel_name="python3") == ((60,), {"kernel_name": "python3"})
    assert len(calls) == KERNEL_STARTS


def test_the_last_failure_and_other_errors_are_raised():
    start, calls = flaky(KERNEL_STARTS)
    with pytest.raises(RuntimeError, match="Kernel died"):
        start_kernel_with_retries(start)()
    assert len(calls) == KERNEL_STARTS
    start, calls = flaky(1, error="Kernel didn't respond in 60 seconds")
    with pytest.raises(RuntimeError, match="didn't respond"):
        start_kernel_with_retries(start)()
    assert len(calls) == 1  # a kernel that does not answer in time is not waited for three times


def test_nbval_starts_kernels_through_the_retry_once():
    assert getattr(nbval.kernel.start_new_kernel, "_kpca_retries", False)
    assert start_kernel_with_retries(nbval.kernel.start_new_kernel) is nbval.kernel.start_new_kernel
