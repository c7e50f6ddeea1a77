"""The student's time: what a kernel would take on an idle machine, whatever else the machine runs.

A submission's time limit is on the student's code, not on the machine's
load. On a loaded machine a running kernel spends much of its wall-clock
time waiting in the scheduler's run queue for a processor; Linux counts that
wait for each thread (the second field of ``/proc/<pid>/schedstat``). The
student's time over an interval is its wall-clock time less the time the
kernel's main thread (the one that runs the cells) waited for a processor:
computing and sleeping count, waiting for a processor does not. Without
schedstat (an old or restricted kernel) it is the wall-clock time.

The kernel is found among the runner's descendants by its command line
(:data:`coursework.isolation.kernel_launcher.KERNEL_START`), the one nearest
the runner (a process a submission starts with the same command line is
deeper).
"""

import os

from .kernel_launcher import KERNEL_START
from .processes import _parents

__all__ = ["find_kernel", "waited_seconds", "StudentClock"]


def _command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read().split(b"\0")
    except OSError:
        return []


def find_kernel(root=None):
    """The pid of the kernel started under ``root`` (default: this process), or None."""
    root = os.getpid() if root is None else root
    parents = _parents()
    start = KERNEL_START.encode()
    found = []
    for pid in parents:
        argv = _command_line(pid)
        if len(argv) > 3 and argv[1:3] == [b"-I", b"-c"] and argv[3] == start:
            depth, up = 0, pid
            while up in parents and up != root and depth < 64:
                up, depth = parents[up], depth + 1
            if up == root:
                found.append((depth, pid))
    return min(found)[1] if found else None


def waited_seconds(pid):
    """Seconds the main thread of ``pid`` has waited in the run queue since it started, or None."""
    try:
        with open(f"/proc/{pid}/schedstat") as file:
            return int(file.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class StudentClock:
    """Counts the student's time of one kernel: call :meth:`tick` with each elapsed wall-clock interval."""

    def __init__(self, root=None):
        self.root = root
        self.kernel = None
        self.last_wait = None

    def tick(self, wall):
        """The student's share of ``wall`` seconds (and the seconds waited for a processor)."""
        if self.kernel is None or waited_seconds(self.kernel) is None:
            self.kernel, self.last_wait = find_kernel(self.root), None
        wait = waited_seconds(self.kernel) if self.kernel is not None else None
        if wait is None:
            return wall, 0.0
        waited = 0.0 if self.last_wait is None else max(0.0, min(wall, wait - self.last_wait))
        self.last_wait = wait
        return wall - waited, waited
