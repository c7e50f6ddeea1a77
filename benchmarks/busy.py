"""CPU-bound processes beside a benchmark: the figures of a machine that another job shares.

The issues ask for speed "quiet and with two CPU-bound processes beside it";
``with busy(2): ...`` runs two Python processes that spin until the block ends.
"""

import contextlib
import os
import subprocess
import sys
import time


@contextlib.contextmanager
def busy(count):
    """Run ``count`` CPU-bound processes for the duration of the block (0: none, a quiet run)."""
    if not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be a whole number >= 0, got {count!r}")
    spin = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(1.0 if count else 0.0)  # let the load average see them
        yield
    finally:
        for process in spin:
            process.kill()
            process.wait()


def load():
    """The load averages over 1, 5 and 15 minutes, as printed beside a table."""
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())
