"""The limits of one submission, and what enforces them here.

:class:`Limits` is what the instructor sets (seconds, output, memory,
processes, scratch space). Three of them need the kernel's help:

memory and processes of the whole submission
    A control group per submission (:class:`SubmissionGroup`): cgroup v2
    (``memory.max``, ``pids.max``) where this process may create one, else
    the v1 ``memory`` and ``pids`` hierarchies. The runner moves itself into
    it before pytest starts, so the runner, its kernel and everything they
    start are counted together, and the grader kills whatever is left in it.
    Without a cgroup (a normal user, most often) the fallback is per process:
    ``RLIMIT_AS`` on the kernel and each process it starts, and
    ``RLIMIT_NPROC``, which counts every process of the kernel's user (the
    instructor's, or ``nobody``'s, shared by submissions graded at the same
    time); several processes may then together use several times the memory
    limit (:func:`describe_fallback`).
scratch space
    Run as root, each submission's folder is a size-limited tmpfs
    (:func:`mount_scratch`), unmounted (freed) as soon as the submission is
    graded; in the sandbox the kernel's working folder, ``/tmp`` and
    ``/dev/shm`` are size-limited tmpfs as well. Otherwise the folder is on
    the disk of the temporary folder and only the size of each file is
    limited (``RLIMIT_FSIZE``).
"""

import ctypes
import os
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Limits", "SubmissionGroup", "cgroup_support", "scratch_support", "mount_scratch", "unmount_scratch",
           "describe_fallback"]

_V2 = Path("/sys/fs/cgroup")
_V1 = {"memory": Path("/sys/fs/cgroup/memory"), "pids": Path("/sys/fs/cgroup/pids")}
_MS_NOSUID, _MS_NODEV = 2, 4
_MNT_DETACH = 2


@dataclass(frozen=True)
class Limits:
    """Per-submission limits.

    Attributes
    ----------
    timeout : float
        Seconds of wall clock for the whole submission, its preparation included:
        the grader's backstop, far above what a notebook needs.
    exercise : float
        Seconds each exercise may take (its graded cells and its hidden checks
        together), and each other cell; past them the kernel is interrupted
        and grading goes on with the next cell.
    max_output : int
        Bytes of output the kernel may send (counted as they arrive).
    memory : int
        Bytes of memory for the whole submission (with a cgroup), else per process.
    file_bytes : int
        Bytes of scratch space (each tmpfs), and the largest file the kernel may write.
    processes : int
        Processes and threads the submission may have at once.
    """

    timeout: float = 900.0
    exercise: float = 60.0
    max_output: int = 20 * 2**20
    memory: int = 8 * 2**30
    file_bytes: int = 256 * 2**20
    processes: int = 256


def _own_v2_group():
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                return _V2 / line[3:].lstrip("/")
    except OSError:
        pass
    return None


def _try_v2(name):
    parent = _own_v2_group()
    if parent is None or not (parent / "cgroup.subtree_control").exists():
        return None
    wanted = {"memory", "pids"}
    try:
        if not wanted <= set((parent / "cgroup.controllers").read_text().split()):
            return None
        group = parent / name
        group.mkdir()
    except OSError:
        return None
    if not all((group / f).exists() for f in ("memory.max", "pids.max")):
        group.rmdir()
        return None
    return {"v2": group}


def _try_v1(name):
    made = {}
    for controller, root in _V1.items():
        try:
            (root / name).mkdir()
            made[controller] = root / name
        except OSError:
            for path in made.values():
                path.rmdir()
            return None
    return made


class SubmissionGroup:
    """A control group holding one submission's runner, kernel and their descendants.

    Use :func:`SubmissionGroup.create`; None when no cgroup can be made here.
    """

    def __init__(self, groups):
        self.groups = groups  # {"v2": path} or {"memory": path, "pids": path}

    @classmethod
    def create(cls, name, limits):
        groups = _try_v2(name) or _try_v1(name)
        if groups is None:
            return None
        group = cls(groups)
        try:
            if "v2" in groups:
                (groups["v2"] / "memory.max").write_text(str(limits.memory))
                (groups["v2"] / "memory.swap.max").exists() and (groups["v2"] / "memory.swap.max").write_text("0")
                (groups["v2"] / "pids.max").write_text(str(limits.processes))
            else:
                (groups["memory"] / "memory.limit_in_bytes").write_text(str(limits.memory))
                swap = groups["memory"] / "memory.memsw.limit_in_bytes"
                if swap.exists():
                    swap.write_text(str(limits.memory))
                (groups["pids"] / "pids.max").write_text(str(limits.processes))
        except OSError:
            group.remove()
            return None
        return group

    def procs_files(self):
        """The ``cgroup.procs`` files a process writes its pid into to join the group."""
        return [str(path / "cgroup.procs") for path in self.groups.values()]

    def _members(self):
        members = set()
        for path in self.groups.values():
            try:
                members |= {int(pid) for pid in (path / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                pass
        return members

    def events(self):
        """(memory limit hit, process limit hit): what stopped the submission, if anything."""
        memory = processes = False
        if "v2" in self.groups:
            memory = _count(self.groups["v2"] / "memory.events", "oom_kill") > 0
            processes = _count(self.groups["v2"] / "pids.events", "max") > 0
        else:
            memory = _count(self.groups["memory"] / "memory.oom_control", "oom_kill") > 0 or \
                _number(self.groups["memory"] / "memory.failcnt") > 0
            processes = _count(self.groups["pids"] / "pids.events", "max") > 0
        return memory, processes

    def kill_all(self, rounds=200):
        """SIGKILL every process of the group until none is left (a fork bomb cannot outrun pids.max)."""
        for _ in range(rounds):
            members = self._members()
            if not members:
                return True
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.01)
        return False

    def remove(self):
        self.kill_all()
        for path in self.groups.values():
            for _ in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # killed processes not yet gone
                    time.sleep(0.02)


def _count(path, key):
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _number(path):
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return 0


def cgroup_support():
    """Whether a submission's control group can be made here (tried once, then removed)."""
    group = SubmissionGroup.create(f"kpca-grade-probe-{os.getpid()}", Limits())
    if group is None:
        return False
    group.remove()
    return True


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def mount_scratch(folder, size):
    """Mount a private tmpfs of ``size`` bytes on ``folder`` (root only); whether it worked."""
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        return False
    try:
        options = f"size={int(size)},mode=0700".encode()
        return _libc().mount(b"tmpfs", str(folder).encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) == 0
    except (OSError, AttributeError):
        return False


def unmount_scratch(folder):
    """Detach the tmpfs on ``folder``: its space is freed at once."""
    try:
        return _libc().umount2(str(folder).encode(), _MNT_DETACH) == 0
    except (OSError, AttributeError):
        return False


def scratch_support():
    """Whether a private scratch tmpfs can be mounted here (root allowed to mount; tried once, then freed)."""
    with tempfile.TemporaryDirectory(prefix="kpca-grade-probe-") as folder:
        if not mount_scratch(folder, 2**20):
            return False
        unmount_scratch(folder)
        return True


def describe_fallback(cgroup, scratch):
    """What is not bounded here, in words for the instructor.

    Parameters
    ----------
    cgroup : bool
        Whether a control group per submission can be made (:func:`cgroup_support`).
    scratch : bool
        Whether a private scratch tmpfs can be mounted (:func:`scratch_support`).

    Returns
    -------
    notes : list of str
        One sentence per weaker limit; empty when everything is bounded.
    """
    if not (isinstance(cgroup, bool) and isinstance(scratch, bool)):
        raise TypeError(f"cgroup and scratch must be True or False, got {cgroup!r} and {scratch!r}")
    notes = []
    if not cgroup:
        notes.append("no cgroup: memory is limited per process (RLIMIT_AS), so several processes "
                     "of one submission may together use several times --memory-mb; the process "
                     "count (RLIMIT_NPROC) is shared by every process of the kernel's user")
    if not scratch:
        notes.append("no private scratch space (not root, or mounting is not allowed): the scratch folder "
                     "of each submission is on the disk of the temporary folder, where only the size of "
                     "each file is limited")
    return notes
