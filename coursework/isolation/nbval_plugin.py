"""The grader's pytest plugin: nbval as usual, with the kernel, the notebook file and the results in our hands.

Loaded by the runner (:mod:`coursework.isolation.nbval_runner`) into ``pytest --nbval-lax``, it

* starts every kernel through the grader's kernelspec (:mod:`coursework.isolation.kernel_launcher`)
  and over Unix sockets in a private folder (a sandboxed kernel has no network);
* deletes the notebook file as soon as pytest has read it, before any kernel
  starts: the expected outputs it holds are then only in the memory of this
  (non-dumpable) process;
* counts the bytes a kernel sends as they arrive, and stops the run past the cap
  or as soon as the kernel dies;
* gives each exercise (its graded cells and hidden checks) and each other cell
  its own time limit (``unit_seconds``) of the student's time (wall-clock time
  less the time the kernel waited for a processor: :mod:`coursework.isolation.clock`,
  so that the machine's load costs no student anything): past it, the kernel is interrupted, the
  run goes on with the next cell, and the exercise's remaining cells are not
  run (a ``cell-timeout`` record says which cell); a kernel that does not stop
  when interrupted ends the run (``uninterruptible``), and the grader runs the
  notebook again without that cell (:mod:`coursework.grading.stuck`);
* writes one JSON record per cell (which cell, passed or not, why, and
  whether its output was really compared) to the result pipe, which only this
  process holds. The grader reads nothing else.
"""

import os
import resource
import signal
import threading
import time

import nbval.kernel
import pytest
import zmq
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbval.plugin import IPyNbCell, NbCellError

from ..authoring.cell_outputs import printed_text
from .clock import StudentClock
from .kernel_launcher import KERNEL_NAME, kernel_argv
from .processes import kill_descendants

__all__ = ["GraderPlugin", "peak_memory_kb", "output_text"]

# the mime type of a hidden check's note (coursework.grading.in_kernel.NOTE_MIME: isolation imports
# nothing of grading, so it is written here too)
NOTE_MIME = "application/vnd.kpca-grader.note+json"
# after the output connection drops, how long the kernel has to show it died (a dead kernel
# drops it too) before the drop counts as a message over the cap; the watcher keeps counting
_DROP_GRACE = 1.0
# how often the time of the running cell is taken, and how long an interrupted cell has to stop
_TICK = 0.1
_INTERRUPT_GRACE = 10.0
# what runs instead of a cell whose exercise has used up its time (it fails: nothing printed)
SKIPPED_SOURCE = "# not run: its exercise used up its time"


def peak_memory_kb():
    """The peak resident memory of this process since it started, in KiB.

    ``VmHWM`` of ``/proc/self/status``: ``ru_maxrss`` would also count the
    grader's memory, which the runner had between fork and exec.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class _GraderKernelSpecs(KernelSpecManager):
    """Knows one kernel: the grader's launcher with this run's settings."""

    launcher_settings = None

    def get_kernel_spec(self, kernel_name):
        # interrupted by a message: ipykernel then signals itself, inside the sandbox too
        return KernelSpec(argv=kernel_argv(self.launcher_settings), display_name="grader",
                          language="python", env={}, interrupt_mode="message")


class GraderPlugin:
    """See the module docstring; ``report`` writes one record to the result pipe."""

    def __init__(self, settings, report):
        self.settings = settings
        self.report = report
        self.received = 0
        self.current = None
        self.stopping = False  # the last cell is done: the kernel's end is expected
        self.dropped = False  # the kernel's output connection dropped while a cell could still run
        self._stop = None  # set by _watch: report why and end the run
        self._kernel = None
        self._manager = None
        self.units = [unit if isinstance(unit, str) else None for unit in settings.get("units") or []]
        self.unit_seconds = settings.get("unit_seconds")
        self.running = None  # the cell whose code the kernel runs now (its call), or None
        self.spent = {}  # the student's seconds used by each time unit (coursework.isolation.clock)
        self.waited = {}  # and the seconds its kernel waited for a processor meanwhile
        self.timed_out = set()  # the time units that used up their time

    # -- the kernel ------------------------------------------------------------

    def _start_kernel(self, startup_timeout=60, kernel_name=None, **kwargs):
        sockets = self.settings["kernel"]["socket_dir"]
        specs = _GraderKernelSpecs()
        specs.launcher_settings = self.settings["kernel"]
        context = zmq.Context()
        # one message larger than the whole output cap is refused by every socket of this
        # context, nbval's own included (the client below): it is never held in memory
        context.setsockopt(zmq.MAXMSGSIZE, int(self.settings["max_output"]) + 2**16)
        manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs, context=context,
                                transport="ipc", ip=os.path.join(sockets, "kernel"),
                                connection_file=os.path.join(sockets, "kernel.json"))
        manager.start_kernel(**kwargs)
        self._manager = manager
        self._watch(manager, context)
        # nbval reads a cell's output only after the cell: its queue must hold a whole cell's
        # messages (no small RCVHWM, which would drop an honest cell's), each under the
        # cap by MAXMSGSIZE, and all of them under it by the watcher, which stops the run
        client = manager.client(context=context)
        client.start_channels()
        try:
            client.wait_for_ready(timeout=startup_timeout)
        except RuntimeError:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
            raise
        return manager, client

    def _watch(self, manager, context):
        """Count the kernel's output as it arrives, and notice its death at once.

        nbval reads a cell's output only once the cell has finished: a cell
        that prints forever would fill this process's memory first. A second
        subscriber to the kernel's output counts the bytes of every message as
        it arrives (a message larger than the cap is refused by the socket);
        past the cap, or when the kernel process ends while a cell runs, the
        run stops at once with a record saying why.
        """
        cap = int(self.settings["max_output"])
        monitor = context.socket(zmq.SUB)
        monitor.setsockopt(zmq.SUBSCRIBE, b"")
        monitor.setsockopt(zmq.MAXMSGSIZE, cap + 2**16)
        monitor.setsockopt(zmq.RCVHWM, 64)
        # a message over the cap is refused by dropping the connection: that is over the cap too
        dropped = monitor.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        monitor.connect(manager._make_url("iopub"))
        kernel = manager.provisioner.process  # the launcher's process: it becomes the kernel, or bwrap
        poller = zmq.Poller()
        poller.register(monitor, zmq.POLLIN)
        poller.register(dropped, zmq.POLLIN)

        def stop(event, status):
            self.report({"event": event, "cell": self.current, "peak_kb": peak_memory_kb()})
            kill_descendants()
            os._exit(status)

        self._stop, self._kernel = stop, kernel

        def watch():
            dropped_at = None
            while True:
                ready = dict(poller.poll(50 if dropped_at is not None else 100))
                if monitor in ready:
                    frames = monitor.recv_multipart(copy=False)
                    self.received += sum(len(frame) for frame in frames)
                    if self.received > cap:
                        stop("output-cap", 3)
                if dropped in ready:
                    dropped.recv_multipart()
                    if not self.stopping:
                        self.dropped = True
                        dropped_at = dropped_at or time.monotonic()
                # a dead kernel drops the connection too: it has _DROP_GRACE to show it, while this
                # loop goes on counting (never a pause in which output piles up uncounted); a short
                # notebook may reach its last teardown first: that checks it too
                if dropped_at is not None and (kernel.poll() is not None
                                               or time.monotonic() - dropped_at > _DROP_GRACE):
                    dropped_at = None
                    if self.dropped and kernel.poll() is None:
                        stop("output-cap", 3)
                if kernel.poll() is not None and not self.stopping:
                    stop("kernel-died", 5)

        threading.Thread(target=watch, daemon=True).start()

    # -- the time of each exercise -------------------------------------------------

    def unit(self, cell):
        return self.units[cell] if isinstance(cell, int) and 0 <= cell < len(self.units) else None

    def _interrupt(self):
        """SIGINT to the kernel's process (a KeyboardInterrupt in the cell it runs)."""
        kernel = self._kernel
        if kernel is None or kernel.poll() is not None:
            return
        try:
            self._manager.interrupt_kernel()
        except Exception:  # noqa: BLE001 (the uninterruptible check below ends the run)
            pass

    def _clock(self):
        """Count the time of each unit while its cells run; interrupt a cell whose unit used up its time."""
        if not self.unit_seconds:
            return
        interrupted = None  # (cell, when)
        clock = StudentClock()  # wall-clock time less the kernel's wait for a processor
        last = time.monotonic()
        while True:
            time.sleep(_TICK)
            now = time.monotonic()
            used, waited = clock.tick(now - last)
            last = now
            cell = self.running
            unit = self.unit(cell)
            if cell is None or unit is None:
                continue
            if interrupted is not None and interrupted[0] == cell:
                if now - interrupted[1] > _INTERRUPT_GRACE and self._stop is not None:
                    self._stop("uninterruptible", 4)
                continue
            interrupted = None
            if unit in self.timed_out:
                continue
            self.spent[unit] = self.spent.get(unit, 0.0) + used
            self.waited[unit] = self.waited.get(unit, 0.0) + waited
            if self.spent[unit] > self.unit_seconds:
                self.timed_out.add(unit)
                self.report({"event": "cell-timeout", "cell": cell, "unit": unit,
                             "spent": round(self.spent[unit], 1), "waited": round(self.waited[unit], 1)})
                interrupted = (cell, now)
                self._interrupt()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        cell = getattr(item, "cell_num", None)
        if self.unit(cell) in self.timed_out and getattr(item, "cell", None) is not None:
            item.cell.source = SKIPPED_SOURCE  # its exercise has no time left: it fails at once
        self.running = cell
        try:
            yield
        finally:
            self.running = None

    def pytest_configure(self, config):
        nbval.kernel.start_new_kernel = self._start_kernel
        compare = IPyNbCell.compare_outputs
        if not getattr(compare, "drops_grader_notes", False):
            def compare_without_notes(cell, test, ref, skip_compare=None):
                # a hidden check's note on what the student's code printed or warned is not compared
                cell.grader_notes = [o["data"][NOTE_MIME] for o in test if NOTE_MIME in (o.get("data") or {})]
                kept = [o for o in test if NOTE_MIME not in (o.get("data") or {})]
                return compare(cell, kept, ref, skip_compare)

            compare_without_notes.drops_grader_notes = True
            IPyNbCell.compare_outputs = compare_without_notes

    # -- the notebook file -------------------------------------------------------

    def pytest_collection_finish(self, session):
        # the kernel starts later, at the first cell's setup: by then the file is gone
        os.unlink(self.settings["notebook"])
        self.report({"event": "collected", "cells": len(session.items)})
        threading.Thread(target=self._clock, daemon=True).start()

    # -- the results -------------------------------------------------------------

    def pytest_runtest_logstart(self, nodeid, location):
        self.current = _cell_number(nodeid)
        self.report({"event": "start", "cell": self.current})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item, nextitem):
        if nextitem is None:
            # a dropped connection while the kernel lives on was a message over the cap
            if self.dropped and self._kernel is not None and self._kernel.poll() is None:
                self._stop("output-cap", 3)
            self.stopping = True  # nbval shuts the kernel down in this teardown
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when != "call" and report.outcome == "passed":
            return
        options = getattr(item, "options", {})
        cell = getattr(item, "cell", None)
        checked = bool(options.get("check"))
        self.report({
            "event": "cell", "cell": getattr(item, "cell_num", None), "when": report.when,
            "outcome": report.outcome, "message": _message(call.excinfo),
            "exception": _exception(getattr(item, "test_outputs", None)),
            # compared against the reference: checked, not skipped, not allowed to raise
            "compared": checked and not options.get("skip")
            and not options.get("check_exception") and cell is not None and cell.execution_count is not None,
            # what a compared cell printed: the grader tells "extra output" from a wrong one, and shows
            # a visible check's output to the student when no hidden check has run before it
            "actual": output_text(getattr(item, "test_outputs", None)) if checked else None,
            "notes": [note for note in getattr(item, "grader_notes", [])[:5] if isinstance(note, dict)],
        })


def _cell_number(nodeid):
    try:
        return int(nodeid.rsplit("Cell ", 1)[1])
    except (IndexError, ValueError):
        return None


def _message(excinfo):
    if excinfo is None:
        return ""
    error = excinfo.value
    if isinstance(error, NbCellError):
        return str(error)[:2000]
    return f"{type(error).__name__}: {error}"[:300]


_ACTUAL_CHARACTERS = 4000


def output_text(outputs):
    """The text a cell printed (streams, and plain text of results), cut to a few thousand characters."""
    return printed_text(outputs)[:_ACTUAL_CHARACTERS]


def _exception(outputs):
    """``Name: value`` of the last exception a cell raised (the value cut short), or None."""
    errors = [output for output in outputs or [] if output.get("output_type") == "error"]
    if not errors:
        return None
    # both are the submission's choice: cut short here, checked by the grader (results.exception_text)
    name, value = str(errors[-1].get("ename", ""))[:200], str(errors[-1].get("evalue", "")).strip()
    value = value.split("\n")[0][:200] if value else ""
    return f"{name}: {value}" if value else name
