"""Executing a private reference's chapter, and what its re-seeded hidden checks print.

:func:`execute_chapter` runs a chapter in a fresh kernel with two limits: the
per-cell ``timeout`` (nbclient's), and ``stall``: while a cell runs, the
kernel and its child processes must use some CPU time. A kernel idle for
``stall`` seconds while the client waits for its reply has lost a message
(seen under load: an nbconvert run of chapter 1 waited 14 minutes on an idle
kernel); the kernel is then stopped, and the chapter is run once more from a
fresh kernel, which the output says.

:func:`unchanged_checks` compares each re-seeded hidden check's output with
the public chapter's: a check that prints the same whatever its seed prints a
verdict or fixed values, which a forged function can print too.
"""

import ast
import copy
import os
import shutil
import tempfile
import threading
import time

__all__ = ["execute_chapter", "unchanged_checks", "ChapterStalled", "cpu_seconds", "without_live_widget"]

# a kernel that used less than this share of one CPU over the stall window is idle
IDLE_SHARE = 0.01


def without_live_widget(source):
    """``source`` without its top-level ``something.live()`` statements (the book's live widgets).

    A live widget needs a person at the keyboard and prints nothing a hidden
    check reads; under nbclient its ``Output`` widget can leave the client
    waiting for a message the idle kernel never sends (chapter 4's cell 39
    did, in one run of two). The statement that makes the widget is left out
    of the run; what the cell binds is still bound.

    >>> without_live_widget("rings = explorer(c=1.0)\\nrings.live()")
    'rings = explorer(c=1.0)'
    >>> without_live_widget("x.live(3)")  # not the book's widget call: kept
    'x.live(3)'
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    lines, drop = source.split("\n"), set()
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "live" \
                and not call.args and not call.keywords:
            drop.update(range(statement.lineno - 1, statement.end_lineno))
    return "\n".join(line for number, line in enumerate(lines) if number not in drop).rstrip("\n")


class ChapterStalled(RuntimeError):
    """The kernel stopped answering (or the cell timed out) twice: the chapter was not executed."""


def _stdout(outputs):
    """What a cell printed, however the text was split into stream chunks."""
    return "".join(output.get("text", "") for output in outputs
                   if output.get("output_type") == "stream" and output.get("name") == "stdout")


def unchanged_checks(public, private, name):
    """One line per re-seeded hidden check that prints the same in ``private`` as in ``public`` (both executed)."""
    from ..grading.reference import extract_reference
    from .check import SEEDED

    before, after = extract_reference(public, name), extract_reference(private, name)
    lines = []
    for key, checks in after.hidden.items():
        for check, old in zip(checks, before.hidden.get(key, [])):
            if SEEDED.search(check.source) and _stdout(check.expected.outputs) == _stdout(old.expected.outputs):
                lines.append(f"hidden check {check.number} of {check.exercise} prints the same with the course's "
                             "seed: it checks fixed values or a verdict, which a forged function can print; "
                             "make it print values of its seeded inputs")
    return lines


def cpu_seconds(pid):
    """The CPU time of process ``pid`` and of its descendants, in seconds (0 if it is gone)."""
    from ..isolation.processes import descendants

    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for process in [pid, *descendants(pid)]:
        try:
            fields = open(f"/proc/{process}/stat").read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime and stime
    return total


class _Watch:
    """While a cell runs, kill the kernel if it uses (almost) no CPU for ``stall`` seconds."""

    def __init__(self, stall, cpu=cpu_seconds, poll=1.0):
        self.stall, self.cpu, self.poll = stall, cpu, poll
        self.pid, self.cell, self.stalled = None, None, None
        self._since, self._stop = None, threading.Event()

    def started(self, cell, pid):
        self.pid = pid
        self.cell, self._since = cell, (time.monotonic(), self.cpu(pid) if pid else 0.0)

    def finished(self):
        self.cell = None

    def run(self, kill):
        while not self._stop.wait(self.poll):
            if self.cell is None or self.pid is None or self._since is None:
                continue
            began, used = self._since
            now, cpu = time.monotonic(), self.cpu(self.pid)
            if cpu - used > IDLE_SHARE * max(now - began, self.poll):
                self._since = (now, cpu)  # progress: the window starts again
            elif now - began >= self.stall:
                self.stalled = self.cell
                kill(self.pid)
                return

    def stop(self):
        self._stop.set()


def _kill(pid):
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _kernel_pid(client):
    """The process id of the client's local kernel (None if there is none to watch)."""
    provisioner = getattr(getattr(client, "km", None), "provisioner", None)
    return getattr(getattr(provisioner, "process", None), "pid", None)


def _run_once(nb, folder, timeout, stall, client_class, cpu, kill):
    watch = _Watch(stall, cpu, poll=min(1.0, stall / 4))
    client = client_class(nb, timeout=timeout, resources={"metadata": {"path": str(folder)}},
                          on_cell_execute=lambda cell, cell_index: watch.started(cell_index, _kernel_pid(client)),
                          on_cell_executed=lambda cell, cell_index, execute_reply: watch.finished())
    watcher = threading.Thread(target=watch.run, args=(kill,), daemon=True)
    watcher.start()
    try:
        client.execute()
        return None
    except Exception as error:
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        if watch.stalled is not None:
            return f"the kernel stopped answering in cell {watch.stalled} (no CPU time used for {stall:g} s)"
        if isinstance(error, CellTimeoutError):
            return f"a cell ran past the timeout of {timeout:g} s"
        if isinstance(error, DeadKernelError):
            return "the kernel died"
        raise
    finally:
        watch.stop()


def _ipc_client_class(sockets):
    """nbclient's NotebookClient whose kernel talks over Unix sockets in ``sockets`` (a private folder).

    Over TCP, a recent ipykernel prints "Kernel is running over TCP without
    encryption" on the instructor's terminal for every chapter; over Unix
    sockets it has no such thing to say, no port is open to other users, and
    the kernel's real errors still reach the terminal.
    """
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    class Manager(KernelManager):
        def __init__(self, **kwargs):
            super().__init__(transport="ipc", ip=os.path.join(sockets, "kernel"), **kwargs)

    def client(nb, **kwargs):
        return NotebookClient(nb, kernel_manager_class=Manager, **kwargs)

    return client


def execute_chapter(nb, folder, stream, label, timeout=900, stall=120, client_class=None, cpu=None, kill=None):
    """Execute ``nb`` in place (working folder ``folder``), once more from a fresh kernel if it stalls.

    Returns the number of runs it took (1 or 2). Raises :class:`ChapterStalled`
    if the second run stalls too; an error raised by a cell propagates as nbclient raises it.
    """
    sockets = tempfile.mkdtemp(prefix="kpca-kernel-")  # private (0700): the kernel's sockets
    client_class, cpu, kill = client_class or _ipc_client_class(sockets), cpu or cpu_seconds, kill or _kill
    pristine = copy.deepcopy(nb)
    sources = [cell.source for cell in nb.cells]

    def leave_out_live_widgets():  # the run leaves them out; the copy keeps the chapter's code
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.source = without_live_widget(cell.source)

    try:
        leave_out_live_widgets()
        problem = _run_once(nb, folder, timeout, stall, client_class, cpu, kill)
        if problem is None:
            return 1
        print(f"{label}: {problem}; running the chapter again from a fresh kernel", file=stream)
        nb.cells = copy.deepcopy(pristine.cells)
        leave_out_live_widgets()
        again = _run_once(nb, folder, timeout, stall, client_class, cpu, kill)
        if again is None:
            return 2
        raise ChapterStalled(f"{label}: {again}, twice: not executed (run private-reference again on a quieter "
                             "machine, or with a larger --stall)")
    finally:
        for cell, source in zip(nb.cells, sources):
            cell.source = source
        shutil.rmtree(sockets, ignore_errors=True)
