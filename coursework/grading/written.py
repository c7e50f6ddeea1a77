"""Written answers (derivations), collected for grading by hand.

In a student notebook, a derivation's answer goes in the answer cell that
make-student writes in place of its solution: a markdown cell marked
``kpca_coursework: {"exercise": LABEL, "written": true}``, or, in a handout
without that mark, the text under the line ``*Your answer to exercise
LABEL:*`` (or ``... to Exercise 1.2:``, in the book's numbering) up to the
next exercise, answer line or heading. The answer goes on into the cells the
student added after it (markdown, or code shown as code).

:func:`export_written` writes, for each chapter, one Markdown file per
derivation with every student's answer (``<destination>/<chapter>/<label>.md``),
and one per written part of a code exercise that declares one
(``<chapter>/<label>-written.md``: the answer cells of that exercise,
:mod:`coursework.authoring.points`), and a ``hand-points.csv``
(``student,exercise,points,comment``, points left empty; ``exercise`` is the
derivation's label, or ``LABEL-written``: the written part's own gradebook
column, apart from the points of the exercise's checks) for the instructor to
fill; ``python -m coursework hand-points`` adds it to the gradebook
(:func:`coursework.grading.hand.add_hand_points`).
"""

import csv
import re
from pathlib import Path

import nbformat

from ..authoring.student import make_student_notebook
from ..authoring.exercises import ANSWER_PLACEHOLDER, METADATA_KEY
from .reference import load_references
from .report import csv_cell, shown_name, student_of
from .submissions import SubmissionProblem, claimed_chapter, find_submissions, read_submission

__all__ = ["written_answers", "export_written", "NO_ANSWER"]

NO_ANSWER = "(no answer)"

_ANSWER = re.compile(r"^\s*\*?\s*Your answer to (?:exercise|Exercise)\s+(?P<id>[\w.-]+?)\s*:?\s*\*?\s*$")
# where an answer ends: another exercise (a directive, or a handout's "**Exercise 4.2**" line) or answer, a
# solution of a code exercise, a heading
_BOUNDARY = re.compile(r"^\s*(?:\*?\s*Your (?:answer|solution) to |(?:`{3,}|:{3,})\{exercise\}"
                       r"|\*\*Exercise(?: [\w.-]+)?\*\*(?:\s|$)|#{1,6}\s)")


def _cell_text(cell):
    if cell.cell_type == "code":
        return f"```python\n{cell.source.rstrip()}\n```"
    return cell.source.rstrip()


def written_answers(nb, labels, handout_ids=None):
    """Each written answer of a student notebook: ``{label: text}`` for the labels found.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The student's notebook.
    labels : dict
        The derivations' labels, each mapped to its book number (``"1.2"``) or None:
        an answer line may use either.
    handout_ids : set of str, optional
        The cell ids of the handed-out notebook: an answer goes on into the
        cells the student added (ids not in it), and stops at a cell of the
        handout. Without them, it stops at any code cell.

    Returns
    -------
    dict of str to str
        The answer text; "(no answer)" when the placeholder was left as it was.
        An exercise with several answer cells (the written part of a code
        exercise whose solution had prose before and after its code) gets
        their texts, in order.
    """
    by_id = {label: label for label in labels}
    by_id.update({number: label for label, number in labels.items() if number})
    answers, current, parts = {}, None, []

    def close():
        if current is not None:
            text = "\n\n".join(part for part in parts if part.strip()).replace(ANSWER_PLACEHOLDER, "").strip()
            earlier = answers.get(current, NO_ANSWER)
            if earlier != NO_ANSWER:  # a second answer cell of the same exercise (a written part in two places)
                text = f"{earlier}\n\n{text}" if text else earlier
            answers[current] = text or NO_ANSWER

    for cell in nb.cells:
        handed_out = cell.cell_type == "code" if handout_ids is None else cell.get("id") in handout_ids
        marked = cell.metadata.get(METADATA_KEY) if cell.cell_type == "markdown" else None
        if handed_out or marked is not None or (cell.cell_type == "code" and METADATA_KEY in cell.metadata):
            close()
            current, parts = None, []
        if cell.cell_type == "code" and (handed_out or METADATA_KEY in cell.metadata):
            continue
        if isinstance(marked, dict) and marked.get("written"):  # an answer cell, as make-student marks it
            current = marked.get("exercise") if marked.get("exercise") in labels else None
            parts = [line for line in cell.source.split("\n") if not _ANSWER.match(line)]
            parts = ["\n".join(parts)] if current else []
            continue
        lines, kept = (cell.source.split("\n") if cell.cell_type == "markdown" else []), []
        for line in lines:
            match = _ANSWER.match(line)
            if match or _BOUNDARY.match(line):
                if current is not None:
                    parts.append("\n".join(kept))
                close()
                current, parts, kept = (by_id.get(match["id"].rstrip(".")) if match else None), [], []
            elif current is not None:
                kept.append(line)
        if current is not None:
            parts.append("\n".join(kept) if cell.cell_type == "markdown" else _cell_text(cell))
    close()
    return answers


def _write_chapter(destination, reference, answers):
    folder = Path(destination) / Path(reference.name).stem
    folder.mkdir(parents=True, exist_ok=True)
    for key, points in reference.written.items():
        label = reference.exercise_of(key)  # a written part's answers are its code exercise's answer cells
        heading = reference.headings.get(label)
        what = "written part" if key in reference.written_parts else "written answers"
        lines = [f"# {reference.title(label)}" + (f" ({heading})" if heading else "")
                 + f": {what} ({points:g} point{'s' if points != 1 else ''})", ""]
        for student, found in sorted(answers.items()):
            lines += [f"## {student}", "", found.get(label, "(no answer line found in the notebook)"), "", "---", ""]
        (folder / f"{key}.md").write_text("\n".join(lines), encoding="utf-8")


UNREADABLE = "(the notebook could not be read: no answer collected; see the student's feedback)"


def _unreadable(path, problem, student, references, per_chapter, notes):
    """Say that a notebook could not be read; under its chapter (if its file name tells it), its answers are so."""
    chapter = references.get(path.name) or next(
        (references[name] for name in references if Path(name).stem in path.name), None)
    if chapter is not None:
        per_chapter.setdefault(chapter.name, {})[student] = {chapter.exercise_of(key): UNREADABLE
                                                             for key in chapter.written}
    if notes is not None:
        print(f"WARNING: {path}: not read ({problem}): its written answers are not collected", file=notes)


def export_written(submissions, reference, destination, notes=None):
    """Write every student's written answers, one file per derivation, and a hand-points sheet.

    A notebook that cannot be read is said on ``notes``; its student's answers read as :data:`UNREADABLE`.

    Returns
    -------
    written : list of Path
        The files written (the sheet last, unless it existed: a sheet being filled is never overwritten).
    """
    references = load_references(reference)
    found = find_submissions(submissions)
    per_chapter, handouts = {}, {}
    for path in found.notebooks:
        student = student_of(path, found.base) if path != found.base else shown_name(path.absolute().parent.name)
        try:
            nb = read_submission(path)
            chapter = claimed_chapter(nb, path, references, shown_name)
        except SubmissionProblem as problem:  # a broken upload: said, and its student's answers marked as unread
            _unreadable(path, problem, student, references, per_chapter, notes)
            continue
        labels = {chapter.exercise_of(key): chapter.numbers.get(chapter.exercise_of(key)) for key in chapter.written}
        if chapter.name not in handouts:
            source = nbformat.read(Path(reference) / chapter.name, as_version=4)
            handouts[chapter.name] = {cell.get("id") for cell in make_student_notebook(source, chapter.name).cells}
        per_chapter.setdefault(chapter.name, {})[student] = written_answers(nb, labels, handouts[chapter.name])
    written = []
    for name, answers in sorted(per_chapter.items()):
        _write_chapter(destination, references[name], answers)
        written += [Path(destination) / Path(name).stem / f"{key}.md" for key in references[name].written]
    sheet = Path(destination) / "hand-points.csv"
    if not sheet.exists():
        with sheet.open("w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(["student", "exercise", "points", "comment"])
            for name, answers in sorted(per_chapter.items()):
                for key in references[name].written:  # a derivation's label, or LABEL-written for a written part
                    writer.writerows([csv_cell(student), key, "", ""] for student in sorted(answers))
        written.append(sheet)
    return written
