"""Feedback a student can act on: one Markdown file per student and chapter.

For each exercise, in the book's numbering (``Exercise 1.3``, and the heading
above it), the points earned by its checks and each check, and the points of its
written part when it has one (graded by hand, apart):

* a **visible check** (what the graded cell prints on the chapter's data,
  which the handed-out notebook shows) passes, or says why not, with the
  expected output; the student's own output is shown beside it when no hidden
  check ran before it (after one, a submission's output could carry what it
  saw of a hidden check, so it is left out: the student's notebook shows it);
* a **hidden check** is named by its number and the reason alone ("output
  differs from the expected output", "raised ValueError"): never its inputs,
  its code or its expected output;
* a reason names the cell as the student finds it: the exercise, or "the
  second code cell under 'Two limits'", never nbval's ``Cell 20``.

A leftover print or a warning in a correct function costs nothing: a visible
check whose cell printed the expected output and more passes, and a hidden
check compares only what the check itself prints; what the student's code
printed or warned is told in "Notes on your output (no points lost)" (for a
hidden check, only how many lines and which kinds of warning). Problems of the notebook outside the exercises (an error in
a scratch cell) come last, as notes that cost no point.
"""

import re

from .results import BOOK_CELL
from .scores import earns, notes

__all__ = ["feedback_markdown", "written_part_line", "written_answers_line"]

# "Cell 12 (exercise ch1-ex3)" or "Cell 12" in an instructor's reason
_CELL = re.compile(r"\bCell (?P<number>\d+)(?: \((?:exercise|Exercise) [^)]*\))?")


def _fence(text):
    text = text if text.endswith("\n") else text + "\n"
    ticks = "`" * max(3, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks}text\n{text}{ticks}"


def _for_student(reason, places):
    """An instructor's reason with nbval's cell numbers replaced by where the student finds the cell."""
    def place(match):
        number = int(match["number"])
        return places[number] if places and number < len(places) else f"code cell {number + 1}"

    text = _CELL.sub(place, reason)
    return text.replace("differs from the reference", "differs from the expected output")


def _expected_text(expected):
    return "".join(output.get("text", "") if output.get("output_type") == "stream"
                   else (output.get("data") or {}).get("text/plain", "") for output in expected.outputs)


def _worth(passed, worth):
    return f"{worth if passed else 0:g} of {worth:g} point{'' if worth == 1 else 's'}"


def _visible_lines(check, reference, places, worth, earned=True):
    label, part = check.key[1], check.key[2]
    name = f"Visible check{f' (part {part + 1})' if part else ''} (what your solution cell prints)"
    if check.passed and not earned:
        return [f"- {name}: passed, but it earns its points only when the hidden checks pass too "
                f"({_worth(False, worth)})."]
    if check.passed:
        return [f"- {name}: passed ({_worth(True, worth)})."]
    lines = [f"- {name}: {_for_student(check.reason, places)} ({_worth(False, worth)})."]
    expected = reference.graded.get((label, part))
    if expected is not None and "raised" not in check.reason:
        lines += ["", "  Expected (as in the notebook you were given):", "",
                  *["  " + line for line in _fence(_expected_text(expected)).split("\n")]]
        if check.actual is not None:
            lines += ["", "  Your cell printed:", "", *["  " + line for line in _fence(check.actual).split("\n")]]
    return lines


def _hidden_line(check, places, worth):
    name = f"Hidden check {check.key[2]} (your functions called on inputs you have not seen)"
    if check.passed:
        return f"- {name}: passed ({_worth(True, worth)})."
    return f"- {name}: {_for_student(check.reason, places)} ({_worth(False, worth)})."


def written_part_line(points, mark=None):
    """An exercise's line for its written part: graded by hand, or the marks once given."""
    if mark not in (None, ""):
        return f"- Written part (your answer cells): {mark} of {points:g} points, marked by hand."
    return f"- Written part (your answer cells): {points:g} point{'' if points == 1 else 's'}, graded by hand, separately."


def written_answers_line(pending, marked):
    """The line at the top about the written answers: which are still to be marked by hand, and whether some are."""
    done = "Marked by hand: see the section \"Marked by hand\" at the end."
    if not pending:
        return done
    return f"Written answers ({', '.join(pending)}) are graded by hand, separately." + (f" {done}" if marked else "")


def _exercise_section(label, reference, verdict, points, places, marks):
    earned, possible = points
    heading = reference.headings.get(label)
    title = reference.title(label) + (f" ({heading})" if heading else "")
    lines = [f"## {title}: {earned:g} of {possible:g} point{'' if possible == 1 else 's'}", ""]
    keys = reference.checks(label)
    total = sum(reference.shares[key] for key in keys)
    for key in keys:
        check = verdict.checks.get(key)
        worth = round(possible * reference.shares[key] / total, 2) if total else 0
        if check is None:
            continue
        if key[0] == "visible":
            lines += _visible_lines(check, reference, places, worth, earns(verdict, keys, key))
        else:
            lines.append(_hidden_line(check, places, worth))
    for key, points in reference.written.items():  # its written part: not in the points above
        if reference.written_parts.get(key) == label:
            lines.append(written_part_line(points, marks.get(key)))
    return lines + [""]


def feedback_markdown(student, chapter, verdict, reference, score, places=None, status="graded", submitted=None,
                      late=None, marks=None):
    """The feedback file of one student for one chapter, as Markdown text.

    Parameters
    ----------
    student : str
        The student's name or identity, for the title.
    chapter : str
        The chapter's file name.
    verdict : coursework.grading.results.Verdict
    reference : coursework.grading.reference.Reference
    score : coursework.grading.scores.Score
    places : list of str, optional
        Where the student finds each of their code cells
        (:func:`coursework.grading.preparation.student_places`).
    status : str, default="graded"
    submitted : str, optional
        The submission time, as the gradebook shows it.
    late : str, optional
        What the late policy did to this notebook, in a sentence.
    marks : dict, optional
        The points already given by hand to the written answers, by key.

    Returns
    -------
    str
    """
    lines = [f"# Feedback on {chapter}: {student}", "",
             f"Points: {score.earned:g} of {score.possible:g} for the code exercises"
             + (f" (status: {status}" + (f", submitted {submitted})" if submitted else ")")) + ".", ""]
    if late:
        lines += [late, ""]
    marks = {key: value for key, value in (marks or {}).items() if value not in (None, "")}
    if reference.written and status == "error":
        numbers = ", ".join(reference.written_title(key) for key in reference.written)
        lines += [f"Written answers ({numbers}): this notebook could not be read, so they were not collected "
                  "either; hand in a notebook that opens, and they will be marked with the others.", ""]
    elif reference.written:
        pending = [reference.written_title(key) for key in reference.written if key not in marks]
        lines += [written_answers_line(pending, bool(marks)), ""]
    if status == "error":
        lines += ["Your notebook could not be graded:", ""] + [f"- {_for_student(r, places)}" for r in verdict.reasons]
        return "\n".join(lines) + "\n"
    for label, points in score.exercises.items():
        lines += _exercise_section(label, reference, verdict, points, places, marks)
    extra, book = [], []
    for reason in notes(verdict):
        (book if BOOK_CELL in reason else extra).append(reason)
    if extra:
        lines += ["## Notes on the notebook (no points lost)", "",
                  "The grader runs every cell you wrote or changed; these cells failed. Fix them so that the "
                  "notebook runs from top to bottom:", ""]
        lines += [f"- {_for_student(reason, places)}" for reason in extra]
    if book:  # the book's own cells are not the student's work: never listed as cells they wrote
        lines += ["", "## The book's cells (no points lost)", "",
                  "These cells are the book's, unchanged from your handout, and they failed: not your code, "
                  "but they may run your functions or use what your cells define:", ""]
        lines += [f"- {_for_student(reason, places)}" for reason in book]
    if verdict.remarks:  # a correct answer that also printed or warned: passed, and the student should know
        lines += ["", "## Notes on your output (no points lost)", ""]
        for remark in verdict.remarks:
            head, _, printed = remark.partition("\n")
            lines.append(f"- {head}")
            if printed:
                lines += ["", *["  " + line for line in _fence(printed).split("\n")]]
    return "\n".join(lines).rstrip("\n") + "\n"

