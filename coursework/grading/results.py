"""From the runner's records to reasons: what failed, in the student's own numbering, and for which exercise.

A graded cell or hidden check passes only if the runner reports that it ran,
passed, and that nbval really compared its output with the reference (a
check independent of the cleaning in :mod:`coursework.grading.preparation`). A cell
that never reported (the notebook timed out, went over the output cap, or
its kernel or runner was killed) fails with the notebook's reason.
"""

from dataclasses import dataclass, field

__all__ = ["Verdict", "interpret", "where"]


@dataclass
class Verdict:
    """The reasons a submission failed (empty: it passed), overall and per exercise."""

    reasons: list = field(default_factory=list)
    exercises: dict = field(default_factory=dict)

    @property
    def passed(self):
        return not self.reasons


def where(role):
    """How a cell of the run notebook is named to the instructor."""
    if role.kind == "setup":
        return "the grader's setup cell"
    if role.kind == "hidden":
        return f"hidden check {role.number} of {role.exercise}"
    return f"Cell {role.cell}" + (f" (exercise {role.exercise})" if role.exercise else "")


def _cell_reason(record):
    message = record.get("message") or ""
    if record["outcome"] == "skipped":
        return "was skipped"
    if record.get("when") == "setup":
        return "the kernel could not start" + (f": {message}" if message else "")
    if "Cell outputs differ" in message:
        return "output differs from the reference"
    if message.startswith("Timeout") or "Timeout of" in message:
        return "timed out"
    if "Kernel dead" in message or "Kernel died" in message or "dead kernel" in message.lower():
        return "the kernel died"
    if "caused an exception" in message:
        return f"raised {record.get('exception') or 'an exception'}"
    return message.splitlines()[0] if message else "failed"


def _notebook_reason(run, roles, limits):
    """Why the run stopped early, or None if it finished normally."""
    def at(cell):
        return f" (in {where(roles[cell])})" if isinstance(cell, int) and 0 <= cell < len(roles) else ""

    for record in run.records:
        if record.get("event") == "timeout":
            return f"timed out after {limits.timeout:g} s" + at(record.get("cell"))
        if record.get("event") == "output-cap":
            return f"output exceeds the cap of {limits.max_output / 2**20:g} MB" + at(record.get("cell"))
    if run.events("finished"):
        return None
    started = run.events("start")
    cell = started[-1]["cell"] if started else None
    if not run.events("collected"):
        last = [line for line in run.tail.strip().splitlines() if line.strip()][-1:]
        return "pytest could not run it" + (f": {last[0][:200]}" if last else "")
    return f"the grading run was killed (exit status {run.returncode})" + at(cell)


def interpret(plan, run, limits, reference):
    """The :class:`Verdict` of a submission from its plan and what its runner reported."""
    verdict = Verdict(exercises={label: [] for label in reference.exercises
                                 if any(key[0] == label for key in [*reference.graded, *reference.hidden])})
    for exercise, reason in plan.problems:
        verdict.reasons.append(reason)
        verdict.exercises.setdefault(exercise, []).append(reason)
    stopped = _notebook_reason(run, plan.roles, limits)
    results = {}
    for record in run.events("cell"):
        if record.get("outcome") != "passed" or record.get("when") == "call":
            results.setdefault(record.get("cell"), record)
    for number, role in enumerate(plan.roles):
        record = results.get(number)
        checked = role.kind in ("graded", "hidden")
        if record is None:
            reason = "was not run" if checked and stopped is None else None
        elif record["outcome"] != "passed":
            reason = _cell_reason(record)
        elif checked and not record.get("compared"):
            reason = "was not compared with the reference"
        else:
            reason = None
        if reason is None:
            if record is None and checked and role.exercise in verdict.exercises:
                verdict.exercises[role.exercise].append(f"{where(role)}: not reached, {stopped}")
            continue
        text = f"{where(role)}: {reason}"
        verdict.reasons.append(text)
        if role.exercise in verdict.exercises:
            verdict.exercises[role.exercise].append(text)
    if stopped is not None:
        verdict.reasons.append(stopped)
    return verdict
