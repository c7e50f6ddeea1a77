"""Start a submission's kernel: the command of the grader's kernelspec.

Jupyter's kernel manager runs ``python -I -c <bootstrap> SETTINGS CONNECTION_FILE``
(see :func:`kernel_argv`); :func:`main` then

1. sets the resource limits the kernel inherits (address space, size of any
   file it writes, no core dumps; without a control group, the number of
   processes);
2. points the standard streams at ``/dev/null``: the kernel's output goes
   through Jupyter's messages, never into the pipes of the grader's process;
3. gives the working folder and the sockets folder to the kernel's user, when
   the grader is root;
4. drops to the submission's own user when the grader is root
   (:func:`coursework.isolation.sandbox.kernel_user`), and joins a new,
   anonymous session keyring (no key of the grader's, none shared with
   other submissions);
5. replaces itself (``exec``) by the kernel: as the grader's user (``plain``),
   as ``nobody`` (``user``), or inside bubblewrap (``bwrap``, started
   unprivileged), always with the environment of
   :func:`coursework.isolation.sandbox.kernel_environment`, and the grader's
   ``kpca_lib`` first on the kernel's path.
"""

import json
import os
import resource
import sys
from pathlib import Path

from .processes import forbid_new_privileges
from .sandbox import (LIBRARY_MOUNT, NOBODY, Isolation, bwrap_arguments, drop_command, kernel_environment,
                      private_keyring)

__all__ = ["KERNEL_NAME", "kernel_argv", "main"]

# the kernelspec name of a run notebook: the runner knows this kernel only (isolation's own
# constant, which the grading side writes into run notebooks)
KERNEL_NAME = "kpca-grader"

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


def _user_process_count(uid):
    """How many processes ``uid`` has now (RLIMIT_NPROC counts them all)."""
    count = 0
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == uid:
                count += 1
        except OSError:
            continue
    return count


def _limit_processes(settings, uid):
    """The fallback without a control group: RLIMIT_NPROC, above what the kernel's user already runs."""
    if settings.get("in_cgroup") or not settings.get("processes"):
        return
    _limit(resource.RLIMIT_NPROC, _user_process_count(uid) + settings["processes"])


# the kernel's code on its command line: how the runner finds the kernel's process (coursework.isolation.clock)
KERNEL_START = ("import sys; sys.path.insert(0, sys.argv.pop(1)) if sys.argv[1] else sys.argv.pop(1); "
                "from ipykernel import kernelapp; kernelapp.launch_new_instance()")


def _kernel_command(connection_file, library):
    """The kernel's command: ipykernel, with the grader's kpca_lib first on its path when given."""
    start = KERNEL_START
    return [sys.executable, "-I", "-c", start, library or "", "-f", connection_file,
            "--HistoryManager.enabled=False"]


def _library_folder(isolation, socket_dir):
    """A folder that holds only the grader's kpca_lib (a link to it), for the kernel's path."""
    if not isolation.library:
        return None
    if isolation.mode == "bwrap":
        return LIBRARY_MOUNT
    folder = socket_dir.parent / "lib"
    folder.mkdir(mode=0o755)
    (folder / "kpca_lib").symlink_to(isolation.library)
    return str(folder)


def main(argv=None):
    """Apply the limits and isolation in ``argv`` (settings, connection file), then exec the kernel."""
    argv = sys.argv[1:] if argv is None else argv
    settings, connection_file = json.loads(argv[0]), argv[1]
    isolation = Isolation(**settings["isolation"], library=settings.get("library"))
    work_dir, socket_dir = Path(settings["work_dir"]), Path(settings["socket_dir"])
    _limit(resource.RLIMIT_AS, settings.get("memory_bytes"))
    _limit(resource.RLIMIT_FSIZE, settings.get("file_bytes"))
    _limit(resource.RLIMIT_CORE, 0)
    _silence_standard_streams()
    environment = kernel_environment(work_dir)
    kernel = _kernel_command(connection_file, _library_folder(isolation, socket_dir))
    if isolation.uid is not None:  # root: the kernel's user must own its folders and connection file
        _give_to(isolation.uid, isolation.gid, [socket_dir, connection_file]
                 + ([work_dir] if isolation.mode != "bwrap" else []))
    _limit_processes(settings, os.getuid() if isolation.uid is None else isolation.uid)
    if isolation.mode == "bwrap":
        command = bwrap_arguments(isolation, work_dir, socket_dir, settings["hidden"],
                                  settings["work_bytes"]) + ["--"]
        if isolation.uid is not None:  # bubblewrap as root: drop to the kernel's user inside the sandbox
            kernel = drop_command(isolation.uid, isolation.gid, kernel)
        else:
            private_keyring()
        os.execve(isolation.bwrap, command + kernel, environment)
    os.chdir(work_dir)
    forbid_new_privileges()
    if isolation.mode == "user":  # a user of the kernel's own: through drop_command, which clears its keyrings
        os.execve(sys.executable, drop_command(isolation.uid or NOBODY, isolation.gid or NOBODY, kernel),
                  environment)
    private_keyring()
    os.execve(sys.executable, kernel, environment)
