"""Where and as whom a submission's kernel runs: the isolation modes.

Three modes (:func:`choose_isolation` picks one):

``plain``
    The kernel runs as the grader's user, in an empty working folder, with a
    clean environment. It could read any file that user can read.
``user``
    The grader runs as root without ``--sandbox``, and bubblewrap is missing
    or does not work: the
    kernel runs as the unprivileged user ``nobody``. It can still read files
    that every user may read, and it has the network.
``bwrap``
    The kernel runs in a bubblewrap sandbox: new user, pid, network, IPC and
    UTS namespaces (so no network and no view of other processes), a root
    file system built from read-only binds of the system and of the Python
    installation and the packages it imports (so no view of the reference,
    the submissions, the grader's folders or home folders), a fresh ``/tmp``
    and a size-limited, writable working folder. Run as root, the sandbox
    drops the kernel to a user
    of its own inside (see :func:`kernel_user`).

The environment of the kernel is built from scratch
(:func:`kernel_environment`); only the variables that choose BLAS kernels and
thread counts are passed through, so that ``OPENBLAS_CORETYPE=Nehalem
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1`` reach the student's code.
"""

import importlib.metadata
import importlib.util
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

__all__ = ["Isolation", "choose_isolation", "grader_library", "LIBRARY_MOUNT", "kernel_environment", "passed_through", "bwrap_arguments",
           "GraderError", "NOBODY", "drop_command", "kernel_user", "private_keyring"]

NOBODY = 65534
# variables that choose BLAS kernels and thread counts: the student's kernel must see them
_PASSED_PREFIXES = ("OPENBLAS_", "OMP_", "MKL_", "GOTO", "BLIS_", "VECLIB_", "NUMEXPR_", "KMP_")
_PASSED_NAMES = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
_SYSTEM_DIRECTORIES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


class GraderError(Exception):
    """The grader itself cannot run (exit status 2)."""


@dataclass(frozen=True)
class Isolation:
    """How a kernel is isolated: ``mode`` is ``"plain"``, ``"user"`` or ``"bwrap"``."""

    mode: str
    bwrap: str = None
    # the user the kernel runs as, when the grader is root (None: the grader's user)
    uid: int = None
    gid: int = None
    # what the sandbox shows, read-only (found once by the grader: it takes a second)
    sources: tuple = ()
    # the optional bubblewrap options this bwrap knows (--size: 0.7, --disable-userns: 0.8)
    features: tuple = ("--size", "--disable-userns")
    # the folder of the kpca_lib package the grader's Python imports (None: none)
    library: str = None

    def describe(self):
        if self.mode == "bwrap":
            who = "as a user of its own, " if self.uid is not None else ""
            return f"bubblewrap sandbox ({who}no network, read-only system, no view of the reference)"
        if self.mode == "user":
            return ("kernel run as a user of its own (no bubblewrap: the network and world-readable files "
                    "are visible)")
        return "no sandbox: the kernel runs as you and can read your files, the reference included"

    def warnings(self):
        """What this isolation leaves open, one sentence each (none for the sandbox)."""
        if self.mode == "bwrap":
            return []
        shared = ("the network is reachable", "other processes are visible (their command lines too)",
                  "world-readable files are readable (the reference too, if it is)")
        if self.mode == "user":
            return [f"kernels run as a user of their own without a sandbox: {', '.join(shared)} "
                    "(use --sandbox)"]
        return [f"kernels run as you without a sandbox: {', '.join(shared)}, every file you can read "
                "is readable, the reference and the other submissions included (use --sandbox)"]


def passed_through(environ=None):
    """The variables of ``environ`` that reach the kernel (BLAS, threads, locale)."""
    environ = os.environ if environ is None else environ
    return {name: value for name, value in environ.items()
            if name.startswith(_PASSED_PREFIXES) or name in _PASSED_NAMES}


def kernel_environment(work_dir, python=sys.executable):
    """The kernel's whole environment: a home in its working folder, and the passed-through variables."""
    work_dir = str(work_dir)
    environment = {
        "PATH": os.pathsep.join([str(Path(python).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": work_dir,
        "TMPDIR": work_dir,
        "LANG": "C.UTF-8",
        "MPLCONFIGDIR": f"{work_dir}/.config/matplotlib",
        "IPYTHONDIR": f"{work_dir}/.ipython",
        "JUPYTER_CONFIG_DIR": f"{work_dir}/.jupyter",
        "JUPYTER_DATA_DIR": f"{work_dir}/.local/share/jupyter",
        "XDG_CACHE_HOME": f"{work_dir}/.cache",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    environment.update(passed_through())
    return environment


def _package_directories():
    """Where the installed packages outside the Python installation live (editable installs)."""
    prefixes = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    found = set()
    for name in importlib.metadata.packages_distributions():
        if name == "coursework" or not name.isidentifier():
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
            continue
        location = Path(spec.origin).resolve()
        if spec.submodule_search_locations:
            location = location.parent
        if not any(prefix == location or prefix in location.parents for prefix in prefixes):
            found.add(location)
    return sorted(found)


def _read_only_sources():
    """The host paths the sandbox shows, read-only, at the same place."""
    paths = [Path(p) for p in _SYSTEM_DIRECTORIES if Path(p).exists()]
    paths += [Path(sys.base_prefix), Path(sys.prefix), Path(sys.executable).parent]
    paths += _package_directories()
    # a symbolic link (a venv reached through a link) is recreated as a link in the sandbox:
    # what it points to must be there too
    paths += [path.resolve() for path in paths if path.is_symlink()]
    unique = []
    for path in paths:
        if not any(kept == path or kept in path.parents for kept in unique):
            unique.append(path)
    return unique


def _mount_point_parents(paths, arguments, created):
    """Create the parents of each mount point, readable by all (bubblewrap makes them 0700)."""
    for path in paths:
        for parent in reversed(path.parents[:-1]):
            if parent not in created:
                created.add(parent)
                arguments += ["--perms", "0755", "--dir", str(parent)]


LIBRARY_MOUNT = "/run/kpca-grader-lib"


def bwrap_arguments(isolation, work_dir, socket_dir, hidden, work_bytes):
    """The bubblewrap command line up to ``--``: the sandbox of one kernel.

    ``hidden`` are host paths that must stay invisible even when they lie
    inside a bound folder (the reference, the submissions, the grader's
    folders): each is covered by an empty tmpfs.
    """
    arguments = [isolation.bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                 "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "grader"]
    if isolation.uid is None:  # unprivileged bubblewrap: its own user namespace, and no nested ones
        arguments += ["--unshare-user"] + (["--disable-userns"] if "--disable-userns" in isolation.features else [])
    size = ["--size", str(work_bytes)] if "--size" in isolation.features else []
    arguments += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", *size, "--tmpfs", "/dev/shm",
                  "--perms", "1777", *size, "--tmpfs", "/tmp"]
    sources = [Path(source) for source in isolation.sources] or _read_only_sources()
    work_dir, socket_dir = Path(work_dir), Path(socket_dir)
    created = set()
    _mount_point_parents(sources + [socket_dir, work_dir], arguments, created)
    for path in sources:
        if path.is_symlink():
            arguments += ["--symlink", os.readlink(path), str(path)]
        else:
            arguments += ["--ro-bind", str(path), str(path)]
    for path in map(Path, hidden):
        if any(source == path or source in path.parents for source in sources):
            arguments += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    if isolation.library:  # the grader's kpca_lib, alone in a folder the kernel puts first on its path
        arguments += ["--perms", "0755", "--dir", LIBRARY_MOUNT,
                      "--ro-bind", isolation.library, f"{LIBRARY_MOUNT}/kpca_lib"]
    arguments += ["--bind", str(socket_dir), str(socket_dir),
                  "--perms", "0777", *size, "--tmpfs", str(work_dir),
                  "--chdir", str(work_dir)]
    return arguments


def _features(bwrap):
    """The optional options among ``--size`` and ``--disable-userns`` that this bubblewrap knows."""
    try:
        completed = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    text = completed.stdout + completed.stderr
    return tuple(option for option in ("--size", "--disable-userns") if option in text)


def _probe(command):
    """None if ``command`` runs and exits 0, else what went wrong."""
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=60,
                                   stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if completed.returncode != 0:
        return (completed.stderr.strip() or f"exit status {completed.returncode}").splitlines()[-1]
    return None


# a new, anonymous session keyring (nothing of the grader's, nothing shared with another kernel)
_JOIN_KEYRING = (
    "import ctypes, platform; n = {'x86_64': 250, 'aarch64': 219}.get(platform.machine())\n"
    "c = ctypes.CDLL(None, use_errno=True) if n else None\n"
    "if n: c.syscall(n, 1, None)\n"
)
# and, for a user of the kernel's own only (never the instructor's), its user keyrings emptied:
# nothing left by an earlier run that drew the same uid
_CLEAR_USER_KEYRINGS = "if n: c.syscall(n, 7, -4); c.syscall(n, 7, -5)\n"


def private_keyring():
    """Join a new, anonymous session keyring (Linux; elsewhere nothing). The user's keyrings are kept."""
    exec(_JOIN_KEYRING, {})  # noqa: S102 (our own constant)


def drop_command(uid, gid, command):
    """``command`` run as ``uid``/``gid`` with no supplementary groups and a private keyring (started as root)."""
    code = ("import os, sys; os.setgroups([]); os.setgid(int(sys.argv[1])); os.setuid(int(sys.argv[2]))\n"
            + _JOIN_KEYRING + _CLEAR_USER_KEYRINGS + "os.execv(sys.argv[3], sys.argv[3:])")
    return [sys.executable, "-I", "-c", code, str(gid), str(uid), *command]


def kernel_user(isolation):
    """A user of its own for one submission's kernel (root only): its keyrings and process count are its own.

    A random, unused-looking uid far above any real user's; ``nobody`` where
    such a uid cannot be used (a user namespace that maps few uids).
    """
    if isolation.uid is None:
        return isolation
    uid = 3_000_000_000 + secrets.randbelow(2**28)
    try:
        with open("/proc/self/uid_map") as file:
            mapped = any(int(inside) <= uid < int(inside) + int(count)
                         for inside, _, count in (line.split() for line in file))
    except (OSError, ValueError):
        mapped = False
    return replace(isolation, uid=uid, gid=uid) if mapped else isolation


def grader_library():
    """The folder of the ``kpca_lib`` package this Python imports, or None."""
    try:
        spec = importlib.util.find_spec("kpca_lib")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(Path(list(spec.submodule_search_locations)[0]).resolve())


def choose_isolation(sandbox):
    """The isolation the grader uses.

    Parameters
    ----------
    sandbox : bool
        Whether ``--sandbox`` was given: then the bubblewrap sandbox, or a
        :class:`GraderError` saying why it cannot be made (never a weaker
        isolation). Without it, a grader run by a normal user runs kernels as
        that user (``plain``); a grader run by root never runs a kernel as
        root, and uses the sandbox when it works, else ``nobody``.

    Raises
    ------
    GraderError
        If the requested isolation is not available here.
    """
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not sandbox and not root:
        return Isolation("plain")
    owner = (NOBODY, NOBODY) if root else (None, None)
    bwrap = shutil.which("bwrap")
    problem = "bubblewrap is not installed (apt-get install bubblewrap)"
    if bwrap:
        candidate = Isolation("bwrap", bwrap, *owner, sources=tuple(map(str, _read_only_sources())),
                              features=_features(bwrap))
        # the kernel's Python must start, and write in its working folder
        check = [sys.executable, "-I", "-c", "open('probe', 'w').write('written')"]
        with tempfile.TemporaryDirectory(prefix="kpca-probe-") as scratch:
            sockets = Path(scratch) / "sockets"
            sockets.mkdir()
            check = drop_command(NOBODY, NOBODY, check) if root else check
            problem = _probe(bwrap_arguments(candidate, Path(scratch) / "work", sockets, [], 2**20) + ["--", *check])
        if problem is None:
            return candidate
        problem = f"bubblewrap cannot make a sandbox here: {problem}"
    if sandbox:  # asked for: never less
        raise GraderError(f"--sandbox: {problem}; nothing was graded")
    # the kernel's Python must start as an unprivileged user, and import its standard library
    problem_as_nobody = _probe(drop_command(NOBODY, NOBODY, [sys.executable, "-I", "-c", "import json"]))
    if problem_as_nobody is not None:
        # bubblewrap is there but failed: installing it is not the remedy
        remedy = ("make bubblewrap work (its error is above)" if bwrap
                  else "install bubblewrap (apt-get install bubblewrap)")
        raise GraderError(f"run as root without --sandbox, the grader runs kernels as a user of their own, "
                          f"but {problem}, and such a user cannot run {sys.executable} ({problem_as_nobody}): "
                          f"{remedy}, or use a Python installation that every user can read")
    return Isolation("user", None, NOBODY, NOBODY)
