"""Start a submission's kernel: the command of the grader's kernelspec.

Jupyter's kernel manager runs ``python -I -c <bootstrap> SETTINGS CONNECTION_FILE``
(see :func:`kernel_argv`); :func:`main` then

1. sets the resource limits the kernel inherits (address space, size of any
   file it writes, no core dumps);
2. points the standard streams at ``/dev/null``: the kernel's output goes
   through Jupyter's messages, never into the pipes of the grader's process;
3. gives the working folder and the sockets folder to the kernel's user, when
   the grader is root;
4. replaces itself (``exec``) by the kernel: as the grader's user (``plain``),
   dropped to ``nobody`` (``user``), or inside bubblewrap (``bwrap``), always
   with the environment of :func:`coursework.isolation.sandbox.kernel_environment`.
"""

import json
import os
import resource
import sys
from pathlib import Path

from .processes import forbid_new_privileges
from .sandbox import NOBODY, Isolation, bwrap_arguments, drop_command, kernel_environment

__all__ = ["kernel_argv", "main"]

_BOOTSTRAP = "import sys; sys.path.insert(0, sys.argv.pop(1)); from coursework.isolation.kernel_launcher import main; main()"


def kernel_argv(settings):
    """The kernelspec command line (Jupyter fills in ``{connection_file}``)."""
    parent = str(Path(__file__).resolve().parents[2])
    return [sys.executable, "-I", "-c", _BOOTSTRAP, parent, json.dumps(settings), "{connection_file}"]


def _limit(name, value):
    if value:
        try:
            resource.setrlimit(name, (value, value))
        except (ValueError, OSError):  # already lower
            pass


def _silence_standard_streams():
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)
    os.close(null)


def _give_to(uid, gid, paths):
    for path in paths:
        os.chown(path, uid, gid)


def _drop(uid, gid):
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)


def main(argv=None):
    """Apply the limits and isolation in ``argv`` (settings, connection file), then exec the kernel."""
    argv = sys.argv[1:] if argv is None else argv
    settings, connection_file = json.loads(argv[0]), argv[1]
    isolation = Isolation(**settings["isolation"])
    work_dir, socket_dir = Path(settings["work_dir"]), Path(settings["socket_dir"])
    _limit(resource.RLIMIT_AS, settings.get("memory_bytes"))
    _limit(resource.RLIMIT_FSIZE, settings.get("file_bytes"))
    _limit(resource.RLIMIT_CORE, 0)
    _silence_standard_streams()
    environment = kernel_environment(work_dir)
    kernel = [sys.executable, "-I", "-m", "ipykernel_launcher", "-f", connection_file,
              "--HistoryManager.enabled=False"]
    if isolation.uid is not None:  # root: the kernel's user must own its folders and connection file
        _give_to(isolation.uid, isolation.gid, [socket_dir, connection_file]
                 + ([work_dir] if isolation.mode != "bwrap" else []))
    if isolation.mode == "bwrap":
        command = bwrap_arguments(isolation, work_dir, socket_dir, settings["hidden"],
                                  settings["work_bytes"]) + ["--"]
        if isolation.uid is not None:  # bubblewrap as root: drop to nobody inside the sandbox
            kernel = drop_command(isolation.uid, isolation.gid, kernel)
        os.execve(isolation.bwrap, command + kernel, environment)
    os.chdir(work_dir)
    forbid_new_privileges()
    if isolation.mode == "user":
        _drop(isolation.uid or NOBODY, isolation.gid or NOBODY)
    os.execve(sys.executable, kernel, environment)
