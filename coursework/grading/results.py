"""From the runner's records to reasons: what failed, in the student's own numbering, and for which exercise.

A graded cell or hidden check passes only if the runner reports that it ran,
passed, and that nbval really compared its output with the reference (a
check independent of the cleaning in :mod:`coursework.grading.preparation`). A cell
that never reported (the notebook timed out, went over the output cap, or
its kernel or runner was killed) fails with the notebook's reason.

From the first hidden check on, the kernel has seen hidden-check code, and
whatever a submission raises may carry it (a seed, a snippet, a hex dump,
even the exception's name): such a failure is reported by an allow-listed
exception name alone (:func:`exception_kind`), never with its value.
"""

import re
from dataclasses import dataclass, field

from ..authoring.extra_output import extra_output
from .exception_names import _printable, exception_kind, exception_text

__all__ = ["Verdict", "Check", "interpret", "where", "exception_text", "exception_kind", "withhold_hidden_source",
           "extra_output"]

# a reason that shares this many characters in a row with a hidden check's code quotes it,
# unless they are one name (an error may well name the function a hidden check calls)
_QUOTE_CHARACTERS = 20
_ONE_NAME = re.compile(r"[A-Za-z0-9_.]*")
@dataclass
class Check:
    """How one check of an exercise went: a visible check (a graded cell) or a hidden check.

    ``key`` is :func:`coursework.grading.reference.check_key`; ``reason`` is
    None when it passed; ``cell`` is the student's code cell it ran in (None if
    it is not in the notebook); ``actual`` is what a visible check printed,
    kept only when no hidden check ran before it (so that it cannot carry what
    a submission saw of one), for the student's feedback.
    """

    key: tuple
    passed: bool
    reason: str = None
    cell: int = None
    actual: str = None


@dataclass
class Verdict:
    """The reasons a submission failed (empty: it passed), overall and per exercise, and each check.

    ``reasons`` make the notebook-level verdict (PASS needs none); ``checks``
    (by check key) make the points (:mod:`coursework.grading.scores`); a reason
    in no exercise (an error in a cell of the student's own) fails the
    notebook and costs no point.
    """

    reasons: list = field(default_factory=list)
    exercises: dict = field(default_factory=dict)
    checks: dict = field(default_factory=dict)
    # what cost nothing but the student should know: a correct function that also printed or warned
    remarks: list = field(default_factory=list)
    # the grader's trouble, not the student's (the notebook's backstop, the grader's own setup cell):
    # the submission is graded again alone, and is an error if the trouble comes back
    trouble: str = None
    # the option that gives the trouble more time (a book cell's is the per-cell limit)
    option: str = "--timeout"

    @property
    def passed(self):
        return not self.reasons


# how a cell of the submission that is the book's own, unchanged, is named (never "a cell you wrote")
BOOK_CELL = "the book's cell, unchanged from the handout"


def where(role, numbers=None):
    """How a cell of the run notebook is named to the instructor (``numbers``: the book's exercise numbers).

    >>> from coursework.grading.preparation import Role
    >>> where(Role("graded", "ch1-ex3", 22), {"ch1-ex3": "1.3"})
    'Cell 22 (Exercise 1.3, ch1-ex3)'
    >>> where(Role("hidden", "ch1-ex3", 22, 1), {"ch1-ex3": "1.3"})
    'hidden check 1 of Exercise 1.3 (ch1-ex3)'
    >>> where(Role("book", None, 21))
    "Cell 21 (the book's cell, unchanged from the handout)"
    """
    if role.kind == "setup":
        return "the grader's setup cell"
    if role.kind == "book":
        return f"Cell {role.cell} ({BOOK_CELL})"
    number = (numbers or {}).get(role.exercise)
    if role.kind == "hidden":
        return f"hidden check {role.number} of " + (f"Exercise {number} ({role.exercise})" if number
                                                      else role.exercise)
    if not role.exercise:
        return f"Cell {role.cell}"
    return f"Cell {role.cell} (" + (f"Exercise {number}, {role.exercise})" if number else f"exercise {role.exercise})")


def withhold_hidden_source(reason, sources):
    """``reason``, unless it quotes the code of a hidden check (``sources``): then a placeholder.

    >>> withhold_hidden_source("raised KeyError: values = rng.integers(0", ["values = rng.integers(0, 100)"])
    'a reason that quotes a hidden check (withheld)'
    >>> withhold_hidden_source("raised KeyError: 'x'", ["values = rng.integers(0, 100)"])
    "raised KeyError: 'x'"
    >>> withhold_hidden_source("raised NameError: name 'projection_covariance' is not defined",
    ...                        ["print(projection_covariance(X, w))"])
    "raised NameError: name 'projection_covariance' is not defined"
    """
    squeezed = " ".join(reason.split())
    windows = {squeezed[i:i + _QUOTE_CHARACTERS] for i in range(len(squeezed) - _QUOTE_CHARACTERS + 1)}
    windows = {window for window in windows if not _ONE_NAME.fullmatch(window)}
    for source in sources:
        code = " ".join(source.split())
        if any(window in code for window in windows):
            return "a reason that quotes a hidden check (withheld)"
    return reason


# a hidden check's output that holds more than the check printed: said without telling what matched
HIDDEN_EXTRA = ("output that is not the check's own (something else was printed into it, from outside "
                "the check's calls)")


def _text(outputs):
    return "".join(output.get("text", "") if output.get("output_type") == "stream"
                   else (output.get("data") or {}).get("text/plain", "") for output in outputs or [])


def _cell_reason(record, after_hidden=False, expected=None):
    """Why a cell failed; ``after_hidden``: hidden-check code may have been seen, so no free text."""
    message = record.get("message") or ""
    if record["outcome"] == "skipped":
        return "was skipped"
    if record.get("when") == "setup":
        return "the kernel could not start" + (f": {message}" if message and not after_hidden else "")
    if "Cell outputs differ" in message:
        if expected is not None and extra_output(_text(expected), record.get("actual")):
            return "extra output (the expected output, and more: a print left in a function?)"
        return "output differs from the reference"
    if message.startswith("Timeout") or "Timeout of" in message:
        return "timed out"
    if "Kernel dead" in message or "Kernel died" in message or "dead kernel" in message.lower():
        return "the kernel died"
    if "caused an exception" in message:
        if after_hidden:
            return f"raised {exception_kind(record.get('exception'))}"
        return f"raised {exception_text(record.get('exception'))}"
    if after_hidden:
        return "failed"
    return _printable(message.split("\n")[0][:200]) if message else "failed"


def _extra_remark(role, record, reference, shown):
    """The note on a visible check that printed its expected output and more (passed, no point lost)."""
    title = reference.title(role.exercise) if hasattr(reference, "title") else role.exercise
    text = (record.get("actual") or "").strip()
    if not shown:  # after a hidden check, what a cell prints may carry what it saw of one
        return (f"{title}: your solution cell printed the expected output and more (a print left in a "
                "function, or a warning); it passed, but remove the extra output")
    lines = text.split("\n")[:12]
    return (f"{title}: your solution cell printed the expected output and more (a print left in a function, "
            "or a warning); it passed, but remove the extra output. It printed:\n" + "\n".join(lines))


def _hidden_remark(role, note, reference):
    """The note on what the student's code printed or warned during a hidden check: counts and kinds only."""
    title = reference.title(role.exercise) if hasattr(reference, "title") else role.exercise
    lines = note.get("lines") if isinstance(note.get("lines"), int) else 0
    kinds = [str(kind)[:60] for kind in note.get("warnings") or [] if isinstance(kind, str)][:5]
    said = []
    if lines:
        said.append(f"printed {lines} line{'s' if lines != 1 else ''}")
    if kinds:
        said.append("warned (" + ", ".join(kinds) + ")")
    return (f"{title}, hidden check {role.number}: your code {' and '.join(said) or 'printed'} while it was "
            "checked; that output is not compared and cost nothing, but remove stray prints and look into "
            "warnings")


def _blank(source):
    """Whether a cell holds no code: only blank lines and comments (the grader's markers among them).

    >>> _blank("# NBVAL_CHECK_OUTPUT\\n\\n# YOUR CODE HERE\\n"), _blank("x = 1")
    (True, False)
    """
    return not any(line.strip() and not line.strip().startswith("#") for line in source.split("\n"))


def _notebook_reason(run, roles, limits, numbers=None):
    """Why the run stopped early, or None if it finished normally."""
    def at(cell):
        return f" (in {where(roles[cell], numbers)})" if isinstance(cell, int) and 0 <= cell < len(roles) else ""

    for record in run.records:
        if record.get("event") == "timeout":
            return f"timed out after {limits.timeout:g} s" + at(record.get("cell"))
        if record.get("event") == "uninterruptible":
            return (f"did not stop when interrupted at the end of its {limits.exercise:g} s: the run was ended"
                    + at(record.get("cell")))
        if record.get("event") == "output-cap":
            return f"output exceeds the cap of {limits.max_output / 2**20:g} MB" + at(record.get("cell"))
        if record.get("event") == "kernel-died":
            cause = (" (over the memory limit of " f"{limits.memory / 2**20:g} MB)") if run.memory_exceeded else ""
            return "the kernel died" + cause + at(record.get("cell"))
    if run.memory_exceeded:
        return f"went over the memory limit of {limits.memory / 2**20:g} MB"
    if run.processes_exceeded and not run.events("finished"):
        return f"went over the limit of {limits.processes} processes"
    if run.events("finished"):
        return None
    started = run.events("start")
    cell = started[-1]["cell"] if started else None
    if not run.events("collected"):
        last = [line for line in run.tail.strip().splitlines() if line.strip()][-1:]
        return "pytest could not run it" + (f": {last[0][:200]}" if last else "")
    return f"the grading run was killed (exit status {run.returncode})" + at(cell)


def _timed_out(role, limits):
    """Why a cell was interrupted: its exercise (or the cell itself) used up its time."""
    if role.kind in ("graded", "hidden"):
        return (f"timed out: stopped after {limits.exercise:g} s (the time of each exercise, its graded cell "
                "and hidden checks together); the exercise's checks that did not finish lost their points, "
                "and grading went on with the next exercise")
    return f"timed out: stopped after {limits.exercise:g} s, and grading went on with the next cell"


# the reason of a cell that did not stop when interrupted (coursework.grading.stuck): it never passes
STUCK = "timed out: did not stop when interrupted"


def _stuck(role, limits):
    """Why a cell that did not stop when interrupted failed (it was left out of a fresh run)."""
    said = (f"{STUCK} after {limits.exercise:g} s (code that catches KeyboardInterrupt, such as a bare "
            "`except:` or `except BaseException:` in a loop, keeps running when stopped)")
    if role.kind in ("graded", "hidden"):
        return (f"{said}; the exercise's checks from here on lost their points, and grading went on with "
                "the next exercise")
    return f"{said}; grading went on with the next cell"


def _time_reasons(plan, run, limits):
    """The reason of each cell stopped by its time limit, or not run because its exercise had none left."""
    from .preparation import time_units  # preparation imports nbval: records, which imports this, need not

    first, stuck = {}, set()
    for record in run.events("cell-timeout"):
        if isinstance(record.get("cell"), int):
            first.setdefault(record.get("unit"), record["cell"])
            if record.get("stuck") and first[record.get("unit")] == record["cell"]:
                stuck.add(record.get("unit"))
    reasons = {}
    for number, unit in enumerate(time_units(plan.roles)):
        if unit in first and number == first[unit]:
            reasons[number] = (_stuck if unit in stuck else _timed_out)(plan.roles[number], limits)
        elif unit in first and number > first[unit]:
            reasons[number] = ("not run: its exercise did not stop when interrupted" if unit in stuck
                               else f"not run: its exercise had used up its {limits.exercise:g} s")
    return reasons


def _book_timeout(plan, out_of_time, reference, limits):
    """Why a book cell's timeout is the grader's trouble (the machine too busy?), or None.

    A cell of the book, unchanged from the handout, is not the student's time:
    when it runs out of its time the submission is graded again alone
    (:mod:`coursework.grading.session`). Unless an exercise of the same run ran
    out of its own time too: then the book cell may well be running the
    student's slow code (a figure that calls their function), and the run
    stands, the exercise's timeout costing its points as usual.
    """
    from .preparation import time_units

    units = time_units(plan.roles)
    if any(units[number].startswith("exercise ") and not reason.startswith("not run")
           for number, reason in out_of_time.items() if units[number]):
        return None
    late = [number for number, reason in out_of_time.items()
            if plan.roles[number].kind == "book" and not reason.startswith(("not run", STUCK))]
    if not late:
        return None
    return (f"{where(plan.roles[late[0]], reference.numbers)}: timed out after {limits.exercise:g} s "
            "(the book's code: its time is not the student's)")


def interpret(plan, run, limits, reference):
    """The :class:`Verdict` of a submission from its plan and what its runner reported."""
    verdict = Verdict(exercises={label: [] for label in reference.exercises
                                 if any(key[0] == label for key in [*reference.graded, *reference.hidden])})
    for exercise, reason in plan.problems:
        verdict.reasons.append(reason)
        verdict.exercises.setdefault(exercise, []).append(reason)
    stopped = _notebook_reason(run, plan.roles, limits, reference.numbers)
    results = {}
    for record in run.events("cell"):
        if record.get("outcome") != "passed" or record.get("when") == "call":
            results.setdefault(record.get("cell"), record)
    first_hidden = next((number for number, role in enumerate(plan.roles) if role.kind == "hidden"), len(plan.roles))
    out_of_time = _time_reasons(plan, run, limits)
    for number, role in enumerate(plan.roles):
        record = results.get(number)
        checked = role.kind in ("graded", "hidden")
        if record is None:
            reason = "was not run" if checked and stopped is None else None
        elif number in out_of_time and (record["outcome"] != "passed"
                                        or out_of_time[number].startswith(("not run", STUCK))):
            reason = out_of_time[number]  # a cell that finished as it was interrupted keeps its result
        elif record["outcome"] != "passed":
            reason = _cell_reason(record, after_hidden=number >= first_hidden,
                                  expected=plan.notebook.cells[number].get("outputs") if checked else None)
            if role.kind == "graded" and reason.startswith("output differs") and \
                    _blank(plan.notebook.cells[number].source):
                reason = "empty: the cell has no code (write your solution in it)"
            if role.kind == "hidden" and reason.startswith("extra output"):  # never hint that a part matched
                reason = HIDDEN_EXTRA
            if role.kind == "graded" and reason.startswith("extra output"):  # the answer is there: it passes
                verdict.remarks.append(_extra_remark(role, record, reference, shown=number < first_hidden))
                reason = None
        elif checked and not record.get("compared"):
            reason = "was not compared with the reference"
        else:
            reason = None
        if checked:
            _note_check(verdict, role, record, reason or (f"not reached, {stopped}" if record is None else None),
                        shown=number < first_hidden)
        if role.kind == "hidden" and record is not None:
            verdict.remarks += [_hidden_remark(role, note, reference) for note in record.get("notes") or []
                                if isinstance(note, dict)]
        if reason is None:
            if record is None and checked and role.exercise in verdict.exercises:
                verdict.exercises[role.exercise].append(f"{where(role, reference.numbers)}: not reached, {stopped}")
            continue
        text = f"{where(role, reference.numbers)}: {reason}"
        verdict.reasons.append(text)
        if role.exercise in verdict.exercises:
            verdict.exercises[role.exercise].append(text)
    if stopped is not None:
        verdict.reasons.append(stopped)
    book_timeout = _book_timeout(plan, out_of_time, reference, limits)
    if run.events("timeout"):  # the backstop: the exercises have their own limits, on the student's time
        verdict.trouble = stopped
    elif book_timeout:
        verdict.trouble, verdict.option = book_timeout, "--exercise-timeout"
    elif plan.roles and plan.roles[0].kind == "setup" and (results.get(0) or {}).get("outcome", "passed") != "passed":
        verdict.trouble = "the grader's setup cell failed (its kernel did not start in time?)"
    _require_every_exercise(plan, results, verdict, reference)
    _missing_checks(plan, verdict, reference)
    sources = [check.source for checks in reference.hidden.values() for check in checks]
    verdict.reasons = [withhold_hidden_source(reason, sources) for reason in verdict.reasons]
    verdict.exercises = {label: [withhold_hidden_source(reason, sources) for reason in reasons]
                         for label, reasons in verdict.exercises.items()}
    for check in verdict.checks.values():
        check.reason = check.reason and withhold_hidden_source(check.reason, sources)
        if check.actual is not None and withhold_hidden_source(check.actual, sources) != check.actual:
            check.actual = None
    return verdict


def _note_check(verdict, role, record, reason, shown):
    """Record how a visible or hidden check went (``shown``: no hidden check ran before it)."""
    kind, number = ("visible", role.part) if role.kind == "graded" else ("hidden", role.number)
    key = (kind, role.exercise, number)
    stopped = reason is not None and reason.startswith(("timed out", "not run"))  # its output was cut short
    actual = record.get("actual") if record is not None and kind == "visible" and shown and not stopped else None
    verdict.checks[key] = Check(key, reason is None, reason, role.cell, actual)


def _missing_checks(plan, verdict, reference):
    """Every check of the reference gets a result: one that never ran fails, with the exercise's problem."""
    problems = {}
    for exercise, reason in plan.problems:
        problems.setdefault(exercise, reason)
    for key in reference.shares:
        if key not in verdict.checks:
            verdict.checks[key] = Check(key, False, problems.get(key[1], "was not run"))


def _require_every_exercise(plan, results, verdict, reference):
    """A PASS needs every graded exercise of the chapter, each run, passed and compared."""
    if not verdict.exercises:
        verdict.reasons.append(f"{reference.name} has no graded exercise: there is nothing to grade")
        return
    for label, reasons in verdict.exercises.items():
        proved = [number for number, role in enumerate(plan.roles)
                  if role.kind in ("graded", "hidden") and role.exercise == label
                  and (results.get(number) or {}).get("outcome") == "passed" and results[number].get("compared")]
        if not proved and not reasons:
            reason = f"{label}: no graded cell of it was run and compared"
            reasons.append(reason)
            verdict.reasons.append(reason)
