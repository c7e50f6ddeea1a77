"""The gradebook in the CSV layouts that Canvas and Moodle import: one row per student, one column per chapter.

**Canvas** (Grades, Import): the columns ``Student``, ``ID``, ``SIS User ID``,
``SIS Login ID``, ``Section`` identify the student (Canvas matches a row by
``ID``, ``SIS User ID`` or ``SIS Login ID``), then one column per assignment,
named as in Canvas's own export (``Chapter 1 (12345)``: the assignment's name
and its id; a new name creates an assignment). The second row,
``Points Possible``, gives each assignment's points, as in Canvas's export.
The identity columns come from a roster made from Canvas's own gradebook
export (:func:`coursework.grading.gradebook.read_roster` reads it as it is).

**Moodle** (Grades, Import, CSV file): ``Username`` (the roster's ``login``,
else its ``id``), ``ID number`` (``sis_id``), ``Email address`` and ``Full
name``, then one column per grade item. At import, under "Identify user by",
map "Email address" (or "Username", "ID number") to the user field of the same
name, and each chapter column to its grade item.

A chapter's column holds the student's points (code exercises, and written
ones given by hand); a missing notebook counts 0, so that no cell is left
empty (Canvas would keep the old grade).
"""

import csv
import os
import tempfile
from pathlib import Path

from .gradebook import read_gradebook
from .report import csv_cell

__all__ = ["CANVAS_COLUMNS", "MOODLE_COLUMNS", "export"]

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_COLUMNS = ["Username", "ID number", "Email address", "Full name"]


def _students(rows, roster):
    """Each student of the gradebook, with their roster entry (or what the gradebook knows)."""
    by_id = {entry["id"]: entry for entry in roster or []}
    students = {}
    for row in rows:
        entry = by_id.get(row["student"], {"id": row["student"], "name": row["name"], "email": row["email"]})
        students.setdefault(row["student"], {**entry, "points": {}})["points"][row["chapter"]] = row["points"]
    return [students[key] for key in sorted(students)]


def export(gradebook, destination, lms, roster=None, names=None):
    """Write the gradebook in the import layout of ``lms`` (``"canvas"`` or ``"moodle"``).

    Parameters
    ----------
    gradebook, destination : str or Path
    lms : {"canvas", "moodle"}
    roster : list of dict, optional
        :func:`coursework.grading.gradebook.read_roster`: Canvas's ids, Moodle's id numbers and emails.
    names : dict, optional
        The column name of each chapter (default: its file name without ``.ipynb``).

    Returns
    -------
    int
        The number of students written.

    Raises
    ------
    ValueError
        If ``lms`` is unknown, or the gradebook is empty.
    """
    if lms not in ("canvas", "moodle"):
        raise ValueError(f"lms must be 'canvas' or 'moodle', got {lms!r}")
    rows, columns = read_gradebook(gradebook)
    if not rows:
        raise ValueError(f"gradebook {gradebook} does not exist or is empty: grade the notebooks first")
    chapters = sorted({row["chapter"] for row in rows if row["chapter"] != "(unknown)"})
    names = {chapter: (names or {}).get(chapter, Path(chapter).stem) for chapter in chapters}
    possible = {chapter: sum(points or 0 for points, of in columns.values() if of == chapter) for chapter in chapters}
    if lms == "canvas":
        header = CANVAS_COLUMNS + [names[c] for c in chapters]
        table = [["Points Possible", "", "", "", "", *[f"{possible[c]:g}" for c in chapters]]]
        table += [[s.get("name") or s["id"], s.get("canvas_id", ""), s.get("sis_id", ""), s.get("login") or s["id"],
                   s.get("section", ""), *[s["points"].get(c) or "0" for c in chapters]]
                  for s in _students(rows, roster)]
    else:
        header = MOODLE_COLUMNS + [names[c] for c in chapters]
        table = [[s.get("login") or s["id"], s.get("sis_id", ""), s.get("email", ""), s.get("name", ""),
                  *[s["points"].get(c) or "0" for c in chapters]] for s in _students(rows, roster)]
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".export-", suffix=".csv", dir=destination.parent)
    with os.fdopen(descriptor, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows([csv_cell(cell) for cell in line] for line in table)
    os.chmod(temporary, 0o644)
    os.replace(temporary, destination)
    return len(table) - (lms == "canvas")
