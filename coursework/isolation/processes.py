"""Process control on Linux: private processes, orphans that come back to us, and killing a whole tree.

A submission's code can start processes that leave its process group and
session (``setsid``, a double fork). A *child subreaper* (``prctl``
``PR_SET_CHILD_SUBREAPER``) becomes the parent of every orphan among its
descendants, so that :func:`kill_descendants` finds them all through
``/proc`` and kills them. A process that is not *dumpable* (``prctl``
``PR_SET_DUMPABLE``) cannot be traced, and its memory and file descriptors
under ``/proc`` cannot be opened by other processes of the same user: the
grader and its runners hold the expected outputs and the result pipe.

Elsewhere than on Linux these calls do nothing (and the instructor guide says
that the limits then rest on the process group alone).
"""

import ctypes
import os
import signal
import time

__all__ = ["make_private", "become_subreaper", "is_subreaper", "forbid_new_privileges", "descendants",
           "kill_descendants", "kill_orphans", "kill_group"]

_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_PR_SET_NO_NEW_PRIVS = 38


def _prctl(option, value):
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux
        return False


def make_private():
    """Make this process non-dumpable: its memory and open files are hidden from same-user processes."""
    return _prctl(_PR_SET_DUMPABLE, 0)


def become_subreaper():
    """Become the parent of every orphaned descendant."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def is_subreaper():
    """Whether this process is a child subreaper."""
    value = ctypes.c_int(0)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0) == 0 and value.value == 1
    except (OSError, AttributeError):
        return False


def forbid_new_privileges():
    """No setuid program run from here on can gain privileges."""
    return _prctl(_PR_SET_NO_NEW_PRIVS, 1)


def _parents():
    """Map every visible pid to its parent pid, read from /proc."""
    parents = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return parents
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue  # gone meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            parents[int(entry)] = int(fields[1])
    return parents


def descendants(pid=None):
    """The pids of every descendant of ``pid`` (default: this process)."""
    root = os.getpid() if pid is None else pid
    children = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _reap():
    """Collect the exit status of every finished child, so that none stays a zombie."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants(pid=None, rounds=100, pause=0.02):
    """SIGKILL every descendant of ``pid`` (default: this process), again until none is left.

    Returns
    -------
    cleared : bool
        Whether no descendant was left (a fork bomb may outrun ``rounds``).
    """
    for _ in range(rounds):
        found = descendants(pid)
        if pid is None:
            _reap()
            found = [child for child in descendants(pid) if _state(child) != "Z"]
        if not found:
            return True
        for child in found:
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(pause)
    return False


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
        return stat[stat.rfind(b")") + 2:].split()[0].decode()
    except (OSError, IndexError):
        return "gone"


def kill_orphans(keep):
    """Kill every child of this process not in ``keep``, with all its descendants, and reap it.

    The children of a subreaper that it did not start itself are orphans
    adopted from a dead descendant: what a killed runner left behind.
    Only those pids are waited for, so the exit status of a child in
    ``keep`` is never taken from its owner.
    """
    me = os.getpid()
    for _ in range(100):
        parents = _parents()
        orphans = [pid for pid, parent in parents.items() if parent == me and pid not in keep]
        living = [pid for pid in orphans if _state(pid) != "Z"]
        for pid in living:
            for member in [pid, *descendants(pid)]:
                try:
                    os.kill(member, signal.SIGKILL)
                except OSError:
                    pass
        for pid in orphans:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not orphans:
            return True
        time.sleep(0.02)
    return False


def kill_group(pgid):
    """SIGKILL a process group, if it still exists."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
