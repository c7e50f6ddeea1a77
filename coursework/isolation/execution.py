"""Run one prepared submission in its own fresh folder, and collect what the runner reports.

Each submission gets a new folder under the grading run's private folder:

``NNN/notebook.ipynb``
    the run notebook (deleted by the runner once pytest has read it);
``NNN/sockets/``
    the kernel's connection file and Unix sockets;
``NNN/work/``
    the kernel's working folder, empty (in the sandbox, a size-limited tmpfs
    mounted over it).

The runner (:mod:`coursework.isolation.nbval_runner`) reports through a pipe that only it
holds; its standard output is drained into a bounded buffer, used only to
explain a run that failed before reaching any cell.
"""

import json
import os
import selectors
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .limits import Limits, SubmissionGroup, mount_scratch, unmount_scratch
from .processes import is_subreaper, kill_group, kill_orphans
from .nbval_runner import runner_command
from .sandbox import kernel_environment, kernel_user, passed_through

__all__ = ["Limits", "RunResult", "run_notebook"]

# the runner's own wall-clock limit fires first; this is the backstop for a runner that hangs
_GRACE_SECONDS = 30
_TAIL_BYTES = 4096
_RESULT_BYTES = 16 * 2**20
# the runner's address space without a control group: pytest, nbval, jupyter_client and their
# threads (about 0.6 GiB of it is reserved, not used), and twice what its notebook may print
_RUNNER_BASE_BYTES = 2**30
# the run notebook's time units (coursework.grading.preparation.UNITS_KEY: isolation imports nothing of grading)
UNITS_KEY = "kpca_grader_units"


@dataclass
class RunResult:
    """What the runner reported: its records, its exit status, the tail of its output."""

    records: list = field(default_factory=list)
    returncode: int = None
    tail: str = ""
    seconds: float = 0.0
    memory_exceeded: bool = False
    processes_exceeded: bool = False

    def events(self, name):
        return [record for record in self.records if record.get("event") == name]


def _prepare_folder(folder, notebook, isolation):
    folder.chmod(0o700)
    for name in ("sockets", "work"):
        (folder / name).mkdir(mode=0o700)
    if isolation.uid is not None:
        folder.chmod(0o711)  # the kernel's user must reach work/ and sockets/, not list the folder
    (folder / "notebook.ipynb").write_text(notebook, encoding="utf-8")
    (folder / "notebook.ipynb").chmod(0o600)


def _runner_environment(folder):
    environment = kernel_environment(folder)
    environment.update({
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "JUPYTER_RUNTIME_DIR": str(folder / "sockets"),
        "TMPDIR": str(folder),
    })
    environment.update(passed_through())
    return environment


def _settings(folder, isolation, limits, hidden, descriptor, group, units=()):
    return {
        # the time limit each cell counts against (coursework.grading.preparation.time_units)
        "units": list(units), "unit_seconds": limits.exercise,
        "cgroup_procs": group.procs_files() if group else [],
        "notebook": str(folder / "notebook.ipynb"),
        "results_fd": descriptor,
        "timeout": limits.timeout,
        "max_output": limits.max_output,
        "runner_memory": None if group else _RUNNER_BASE_BYTES + 2 * limits.max_output,
        "kernel": {
            "isolation": {"mode": isolation.mode, "bwrap": isolation.bwrap, "uid": isolation.uid,
                          "gid": isolation.gid, "sources": list(isolation.sources),
                          "features": list(isolation.features)},
            "work_dir": str(folder / "work"), "socket_dir": str(folder / "sockets"),
            "hidden": [str(path) for path in hidden], "memory_bytes": limits.memory,
            "file_bytes": limits.file_bytes, "work_bytes": limits.file_bytes,
            "processes": limits.processes, "in_cgroup": group is not None,
            "library": isolation.library,
        },
    }


def _drain(process, results, deadline):
    """Read the result pipe and the runner's output until both close or the deadline passes."""
    selector = selectors.DefaultSelector()
    selector.register(results, selectors.EVENT_READ, "results")
    selector.register(process.stdout, selectors.EVENT_READ, "output")
    data = {"results": bytearray(), "output": bytearray()}
    open_streams = 2
    while open_streams and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=max(0.0, deadline - time.monotonic())):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                selector.unregister(key.fileobj)
                open_streams -= 1
                continue
            buffer = data[key.data]
            buffer += chunk
            limit = _RESULT_BYTES if key.data == "results" else _TAIL_BYTES
            if len(buffer) > limit:
                del buffer[:len(buffer) - limit]
    selector.close()
    return bytes(data["results"]), bytes(data["output"])


class Supervisor:
    """Starts runners, possibly from several threads, and kills what a dead runner left behind.

    The grader's command line makes itself a child subreaper: an orphan of a
    runner (its kernel, or a process that left the kernel's session) then
    becomes the grader's child, and :meth:`finished` kills it, without touching
    the runners still at work.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.active = set()

    def start(self, command, **options):
        with self.lock:  # a child of ours is either registered here or an orphan
            process = subprocess.Popen(command, **options)
            self.active.add(process.pid)
        return process

    def finished(self, process):
        with self.lock:
            self.active.discard(process.pid)
            if is_subreaper():
                kill_orphans(keep=self.active)


_SUPERVISOR = Supervisor()


def run_notebook(notebook, folder, isolation, limits, hidden):
    """Run a prepared notebook in a new ``folder``; never raises for what the notebook does.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        The run notebook (:func:`coursework.grading.preparation.build_run_notebook`); its
        metadata's ``kpca_grader_units`` say which time limit each cell counts against.
    folder : pathlib.Path
        A path that does not exist yet, inside the grading run's private folder.
    isolation : coursework.isolation.sandbox.Isolation
    limits : Limits
    hidden : list of Path
        Host paths the sandbox must hide (reference, submissions, grading folders).

    Returns
    -------
    result : RunResult
    """
    folder = Path(folder)
    folder.mkdir(mode=0o700)
    units = [unit if isinstance(unit, str) else None
             for unit in (notebook.get("metadata") or {}).get(UNITS_KEY) or []]
    notebook = nbformat.writes(notebook)
    # a private, bounded scratch space (root): the notebook, the sockets and, outside the
    # sandbox, the working folder; freed at once by the unmount below
    scratch = mount_scratch(folder, limits.file_bytes + len(notebook.encode()) + 2**20)
    group = SubmissionGroup.create(f"kpca-grade-{os.getpid()}-{folder.name}", limits)
    try:
        return _run(notebook, folder, isolation, limits, hidden, group, units)
    finally:
        if group is not None:
            group.remove()
        if scratch:
            unmount_scratch(folder)


def _run(notebook, folder, isolation, limits, hidden, group, units):
    isolation = kernel_user(isolation)
    _prepare_folder(folder, notebook, isolation)
    read_end, write_end = os.pipe()
    settings = _settings(folder, isolation, limits, hidden, write_end, group, units)
    start = time.monotonic()
    try:
        process = _SUPERVISOR.start(
            runner_command(settings), pass_fds=(write_end,), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=folder,
            env=_runner_environment(folder), start_new_session=True,
        )
    finally:
        os.close(write_end)
    with os.fdopen(read_end, "rb") as results:
        raw, output = _drain(process, results, start + limits.timeout + _GRACE_SECONDS)
    kill_group(process.pid)  # a runner past the backstop, or anything left in its group
    if group is not None:
        group.kill_all()
    process.wait()
    process.stdout.close()
    _SUPERVISOR.finished(process)
    records = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    tail = output.decode("utf-8", "replace")
    memory, processes = group.events() if group is not None else (False, False)
    return RunResult(records, process.returncode, tail, time.monotonic() - start, memory, processes)
