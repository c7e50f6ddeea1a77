"""Code that does not stop when interrupted costs its exercise, not the rest of the notebook.

Past an exercise's time limit the runner interrupts the kernel (a
``KeyboardInterrupt`` in the running cell). A submission that swallows it (a
loop around a bare ``except: pass``, or ``except BaseException``) keeps
running; the runner then ends the run (an ``uninterruptible`` record), and
every later exercise would be lost with it. Here, as nbgrader and otter do,
that exercise is timed out instead: the notebook is run again from a fresh
kernel with the stuck cell, and the later cells of its exercise, replaced by
a comment (:data:`STUCK_SOURCE`), and a ``cell-timeout`` record marked
``stuck`` tells :func:`coursework.grading.results.interpret` why they failed.
Every other cell, the later exercises' included, runs as usual.

Bounded: a run is repeated only for a time unit (an exercise, or a cell of
the student's own) that has not been stuck before, so a notebook runs at most
once more per exercise, and always within the notebook's backstop
(``Limits.timeout``, which counts every run).
"""

import copy
import time
from dataclasses import replace

from .preparation import time_units

__all__ = ["STUCK_SOURCE", "stuck_role", "without_stuck", "run_past_stuck"]

# what runs instead of the cell that did not stop, and of its exercise's later cells
STUCK_SOURCE = "# not run: its exercise did not stop when interrupted"


def stuck_role(plan, result):
    """The role of the cell that did not stop when interrupted, and its time unit; (None, None) if none."""
    units = time_units(plan.roles)
    for record in result.events("uninterruptible"):
        cell = record.get("cell")
        if isinstance(cell, int) and 0 <= cell < len(plan.roles) and units[cell] is not None:
            return plan.roles[cell], units[cell]
    return None, None


def without_stuck(plan, stuck):
    """The plan's notebook with the stuck cells left out, and the records that say so.

    Parameters
    ----------
    plan : coursework.grading.preparation.RunPlan
    stuck : dict
        The role of each cell that did not stop when interrupted, by its time unit
        (roles, not cell numbers: the same cell in a pruned plan and in the whole one).

    Returns
    -------
    notebook : nbformat.NotebookNode
        A copy in which each stuck cell and the later cells of its unit hold
        :data:`STUCK_SOURCE` (their expected outputs stay: they fail).
    records : list of dict
        One ``cell-timeout`` record marked ``stuck`` for each stuck cell of this plan.
    """
    if not stuck:
        return plan.notebook, []
    units = time_units(plan.roles)
    notebook = copy.deepcopy(plan.notebook)
    records, first = [], {}
    for number, (role, unit) in enumerate(zip(plan.roles, units)):
        if unit in stuck and (unit in first or stuck[unit] == role):
            if unit not in first:
                first[unit] = number
                records.append({"event": "cell-timeout", "cell": number, "unit": unit, "stuck": True})
            notebook.cells[number].source = STUCK_SOURCE
    return notebook, records


def run_past_stuck(plan, run, limits, start, stuck):
    """Run ``plan``, and again without each cell that does not stop when interrupted; the last run's result.

    Parameters
    ----------
    plan : coursework.grading.preparation.RunPlan
    run : callable
        ``run(notebook, limits)`` -> :class:`coursework.isolation.execution.RunResult`.
    limits : coursework.isolation.execution.Limits
    start : float
        ``time.monotonic()`` when the submission's grading began (the backstop counts every run).
    stuck : dict
        Filled in place (see :func:`without_stuck`), and shared by the runs of one submission.

    Returns
    -------
    result : RunResult
        With the ``stuck`` records of the cells left out before its own.
    """
    while True:
        notebook, records = without_stuck(plan, stuck)
        result = run(notebook, replace(limits, timeout=limits.timeout - (time.monotonic() - start)))
        result.records = records + result.records
        role, unit = stuck_role(plan, result)
        if role is None or unit in stuck or limits.timeout - (time.monotonic() - start) < 1:
            return result
        stuck[unit] = role
