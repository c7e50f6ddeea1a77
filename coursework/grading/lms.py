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
ones given by hand, less the late penalty); a missing notebook counts 0, so
that no cell is left empty (Canvas would keep the old grade).

Lateness travels with the points: the penalty is already taken off. Moodle
also gets, after a chapter's column, a column ``<chapter> feedback`` (at
import, map it to the grade item's feedback) saying "late by 2 days: 5 points
taken off" or "could not be graded", when some row of that chapter says so.
Canvas's import has no column for it (an unknown column becomes a new
assignment): the export says on ``notes`` how many late notebooks it holds, and
warns when students have no Canvas ``ID`` nor ``SIS User ID`` (no roster, or a
roster without them), which Canvas needs to match a row.

Every export also warns, on ``notes``, about what is not final: a notebook
that could not be graded (status ``error``: exported as 0 until it is
re-graded) and written answers not marked yet (a blank cell of a part given
by hand, counted 0), naming the students.
"""

import csv
import os
import tempfile
from pathlib import Path

from .gradebook import read_gradebook, row_record
from .report import csv_cell

__all__ = ["CANVAS_COLUMNS", "MOODLE_COLUMNS", "export", "unmarked"]

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_COLUMNS = ["Username", "ID number", "Email address", "Full name"]


def unmarked(row, columns):
    """The parts of a graded row's chapter given by hand whose cell is still blank (none for a missing or broken one)."""
    if row.get("status") not in ("graded", "late"):
        return []
    checked = row_record(row).get("checked", ())
    return [label for label, (_, chapter) in columns.items()
            if chapter == row["chapter"] and label not in checked and (row.get(label) or "") == ""]


def _remark(row):
    """What a chapter's feedback column says of a row: lateness, or a notebook that could not be graded."""
    remarks = []
    if row.get("status") == "late":
        days = row.get("late_days") or "?"
        late = f"late by {days} day{'' if days == '1' else 's'}"
        remarks.append(f"{late}: {row['penalty']} points taken off" if row.get("penalty") else f"{late} (no penalty)")
    if row.get("status") == "error":
        remarks.append("could not be graded: see the feedback file")
    return "; ".join(remarks)


def _students(rows, roster, columns):
    """Each student of the gradebook, with their roster entry (or what the gradebook knows)."""
    by_id = {entry["id"]: entry for entry in roster or []}
    students = {}
    for row in rows:
        entry = by_id.get(row["student"], {"id": row["student"], "name": row["name"], "email": row["email"]})
        student = students.setdefault(row["student"], {**entry, "points": {}, "remarks": {}, "errors": [],
                                                       "unmarked": []})
        student["points"][row["chapter"]] = row["points"]
        student["remarks"][row["chapter"]] = _remark(row)
        student["unmarked"] += unmarked(row, columns)
        if row.get("status") == "error":
            student["errors"].append(row["chapter"])
    return [students[key] for key in sorted(students)]


def _listed(names):
    return ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")


def _pending_warnings(students, notes):
    """Warn about what the export holds that is not final: notebooks not graded, answers not marked."""
    if notes is None:
        return
    broken = [f"{s['id']} ({', '.join(Path(c).stem for c in s['errors'])})" for s in students if s["errors"]]
    if broken:
        print(f"WARNING: {len(broken)} students have a notebook that could not be graded (status error): "
              f"{_listed(broken)}; exported as 0 points: re-grade them (or give points by hand) before importing",
              file=notes)
    blank = [f"{s['id']} ({len(s['unmarked'])})" for s in students if s["unmarked"]]
    if blank:
        count = sum(len(s["unmarked"]) for s in students)
        print(f"WARNING: {count} written answers of {len(blank)} students are not marked yet: {_listed(blank)}; "
              "exported counting 0 for them: give their points with hand-points before importing", file=notes)


def export(gradebook, destination, lms, roster=None, names=None, notes=None):
    """Write the gradebook in the import layout of ``lms`` (``"canvas"`` or ``"moodle"``).

    Parameters
    ----------
    gradebook, destination : str or Path
    lms : {"canvas", "moodle"}
    roster : list of dict, optional
        :func:`coursework.grading.gradebook.read_roster`: Canvas's ids, Moodle's id numbers and emails.
    names : dict, optional
        The column name of each chapter (default: its file name without ``.ipynb``).
    notes : file, optional
        Where the warnings go (Canvas: students without ids, late notebooks).

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
    students = _students(rows, roster, columns)
    _pending_warnings(students, notes)
    if lms == "canvas":
        header = CANVAS_COLUMNS + [names[c] for c in chapters]
        table = [["Points Possible", "", "", "", "", *[f"{possible[c]:g}" for c in chapters]]]
        table += [[s.get("name") or s["id"], s.get("canvas_id", ""), s.get("sis_id", ""), s.get("login") or s["id"],
                   s.get("section", ""), *[s["points"].get(c) or "0" for c in chapters]] for s in students]
        _canvas_warnings(students, notes)
    else:
        remarked = [c for c in chapters if any(s["remarks"].get(c) for s in students)]
        header = MOODLE_COLUMNS + [name for c in chapters
                                   for name in [names[c], *([f"{names[c]} feedback"] if c in remarked else [])]]
        table = [[s.get("login") or s["id"], s.get("sis_id", ""), s.get("email", ""), s.get("name", ""),
                  *[value for c in chapters for value in [s["points"].get(c) or "0",
                                                         *([s["remarks"].get(c, "")] if c in remarked else [])]]]
                 for s in students]
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


def _canvas_warnings(students, notes):
    if notes is None:
        return
    without = [s["id"] for s in students if not (s.get("canvas_id") or s.get("sis_id"))]
    if without:
        print(f"WARNING: {len(without)} of {len(students)} students have no Canvas ID nor SIS User ID "
              f"({', '.join(without[:5])}{', ...' if len(without) > 5 else ''}): Canvas matches them by SIS "
              "Login ID only; pass --roster with Canvas's own gradebook export", file=notes)
    late = sum(remark.startswith("late") for s in students for remark in s["remarks"].values())
    if late:
        # "with the penalty taken off" only where one was: under --late-penalty none nothing was
        taken = "with the late penalty taken off" if any("no penalty" not in remark for s in students
                                                          for remark in s["remarks"].values()
                                                          if remark.startswith("late")) else "unchanged (no penalty)"
        print(f"note: {late} late notebook{'s' if late != 1 else ''}: their points are exported {taken}; "
              "Canvas's import has no column for lateness (see late_days and penalty in the gradebook)", file=notes)
