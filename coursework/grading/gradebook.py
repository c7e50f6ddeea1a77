"""The gradebook: one CSV row per student and chapter, kept up to date from run to run.

Columns (:data:`FIXED_COLUMNS`, then one per exercise label, code and written;
the written part of a code exercise has a column of its own, ``ch1-ex3-written``
beside ``ch1-ex3``, so that points given by hand never land in, nor are
overwritten by, the points the checks earned):

``student``
    The student's identity: the first folder under the submissions folder
    (``submissions/alice/01_pca.ipynb``: ``alice``), matched against the
    roster's ``id`` (or ``email``, or a Moodle download folder ``Full Name_123_
    assignsubmission_file_``, by the name in it). Grading one notebook, it is
    the notebook's folder (or ``--student``).
``name``, ``email``
    From the roster (kept from the gradebook when a run has none).
``chapter``, ``file``
    The chapter graded, and the notebook as the grader names it.
``status``
    ``graded``, ``late`` (graded, submitted after ``--deadline``), ``missing``
    (in the roster or the gradebook, no notebook for a chapter of this run) or
    ``error`` (the notebook could not be run: unreadable, the wrong chapter...).
``submitted``
    When it was submitted (:func:`submission_time`), ISO 8601; followed by
    `` (file time)`` when it is the notebook's modification time (no
    ``submitted.txt``), which may be when it was copied, not submitted.
``late_days``, ``penalty``
    Days late (started days after the deadline, beyond the grace period) and
    the points the late policy takes off (:mod:`coursework.grading.lateness`).
``points``, ``possible``
    Points earned (the code exercises, plus the written ones once given by
    hand, less the late penalty) and possible (every exercise of the chapter,
    written ones included).
``notes``
    Notebook-level problems that cost no point (an error in a scratch cell).
``record``
    The grader's bookkeeping, as JSON: the late policy the row was graded
    under, its feedback file, which columns its checks filled, the comments and
    answers of the points given by hand (:mod:`coursework.grading.hand`).

The first two data rows, ``(points possible)`` and ``(chapter)`` in
``student``, hold each exercise's points and the chapter it belongs to.
Re-grading replaces only the rows of the notebooks graded
(and keeps their name, email, hand-given points, late policy and feedback
file); every other row stays. A gradebook written before ``late_days``,
``penalty`` and ``record`` existed is read as it is.
"""

import csv
import json
import math
import os
import re
import tempfile
from datetime import datetime
from pathlib import Path

from .report import csv_cell

__all__ = ["FIXED_COLUMNS", "POSSIBLE_ROW", "CHAPTER_ROW", "total", "read_roster", "read_gradebook",
           "write_gradebook", "submitted_at", "submission_time", "parse_deadline", "identify", "merge",
           "TIMESTAMP_FILES", "row_record"]

FIXED_COLUMNS = ["student", "name", "email", "chapter", "file", "status", "submitted", "late_days", "penalty",
                 "points", "possible", "notes", "record"]
# the columns of a gradebook written before late_days, penalty and record: read as they are
_REQUIRED_COLUMNS = ["student", "name", "email", "chapter", "file", "status", "submitted", "points", "possible",
                     "notes"]
POSSIBLE_ROW = "(points possible)"
CHAPTER_ROW = "(chapter)"
# a file an LMS download or the instructor puts beside a notebook: its first line is the submission time
TIMESTAMP_FILES = ("submitted.txt", "timestamp.txt")
_MOODLE_FOLDER = re.compile(r"^(?P<name>.+?)_\d+_assign(submission|feedback)_\w+?_?$")
_ROSTER_KEYS = {"id", "name", "email", "sis_id", "login", "section", "canvas_id"}


def _read_csv(path, what):
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what} {path} does not exist")
    with path.open(newline="", encoding="utf-8-sig") as file:
        return list(csv.DictReader(file))


def read_roster(path):
    """The students of a roster CSV: a list of dicts with ``id``, ``name``, ``email`` (and any of
    ``sis_id``, ``login``, ``section``, ``canvas_id``).

    Two layouts are read: this project's (header ``id,name,email,...``) and
    Canvas's gradebook export (``Student,ID,SIS User ID,SIS Login ID,Section,...``:
    the identity is the SIS Login ID, and its "Points Possible" row is skipped).

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    ValueError
        If it has no ``id`` column (nor Canvas's ``SIS Login ID``), an empty or repeated id.
    """
    rows = _read_csv(path, "roster")
    if rows and "SIS Login ID" in rows[0]:
        rows = [{"id": r.get("SIS Login ID", ""), "name": r.get("Student", ""), "canvas_id": r.get("ID", ""),
                 "sis_id": r.get("SIS User ID", ""), "login": r.get("SIS Login ID", ""),
                 "section": r.get("Section", "")} for r in rows
                if "Points Possible" not in (r.get("Student") or "") and r.get("Student") != "Student, Test"]
    elif rows and "id" not in rows[0]:
        raise ValueError(f"roster {path} must have a column 'id' (and may have name, email, sis_id, login, "
                         f"section, canvas_id), got {sorted(rows[0])}")
    students, seen = [], set()
    for number, row in enumerate(rows, start=2):
        student = {key: (row.get(key) or "").strip() for key in _ROSTER_KEYS}
        if not student["id"]:
            raise ValueError(f"roster {path}, line {number}: the id is empty")
        if student["id"] in seen:
            raise ValueError(f"roster {path}, line {number}: the id {student['id']!r} is repeated")
        seen.add(student["id"])
        students.append(student)
    return students


def identify(folder, roster):
    """The roster entry of a submission folder (by id, email or login; a Moodle folder by name), or None."""
    wanted = folder.casefold()
    moodle = _MOODLE_FOLDER.match(folder)
    for student in roster:
        if wanted in {student[key].casefold() for key in ("id", "email", "login") if student[key]}:
            return student
    if moodle:
        name = moodle["name"].casefold()
        return next((student for student in roster if student["name"].casefold() == name), None)
    return None


def submitted_at(notebook):
    """When a notebook was submitted: :func:`submission_time` without saying where the time came from."""
    return submission_time(notebook)[0]


def submission_time(notebook):
    """When a notebook was submitted, and whether that is only the file's modification time.

    The time is the first line of a timestamp file beside it, else its
    modification time (then ``from_file`` is True).

    A timestamp file (``submitted.txt`` or ``timestamp.txt`` in the notebook's
    folder) holds an ISO 8601 time (``2026-03-01T23:12:00+01:00``; without an
    offset, the grader's local time). Without one, the file's modification
    time counts: unpacking an archive keeps the times stored in it, which may be
    the time of the download rather than of the submission.

    Raises
    ------
    ValueError
        If a timestamp file does not start with an ISO 8601 time.
    """
    notebook = Path(notebook)
    for name in TIMESTAMP_FILES:
        stamp = notebook.parent / name
        if stamp.is_file() and not stamp.is_symlink():
            text = stamp.read_text(encoding="utf-8", errors="replace").strip().split("\n")[0][:64]
            try:
                return datetime.fromisoformat(text.strip()).astimezone(), False
            except ValueError:
                raise ValueError(f"{stamp} must start with an ISO 8601 time (2026-03-01T23:12:00), "
                                 f"got {text!r}") from None
    return datetime.fromtimestamp(notebook.lstat().st_mtime).astimezone(), True


def parse_deadline(text):
    """``--deadline``: an ISO 8601 time (a date alone means its end, 23:59:59), in local time without an offset.

    >>> parse_deadline("2026-03-01").strftime("%Y-%m-%d %H:%M:%S")
    '2026-03-01 23:59:59'
    """
    try:
        deadline = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError(f"--deadline must be an ISO 8601 date or time (2026-03-01 or 2026-03-01T12:00), "
                         f"got {text!r}") from None
    if len(text) == 10:
        deadline = deadline.replace(hour=23, minute=59, second=59)
    return deadline.astimezone()


def read_gradebook(path):
    """The rows of a gradebook (none if the file does not exist), and its exercise columns.

    Returns
    -------
    rows : list of dict
    columns : dict
        Exercise label -> ``(points possible, chapter)``.
    """
    path = Path(path)
    if not path.exists():
        return [], {}
    rows = _read_csv(path, "gradebook")
    if rows and not set(_REQUIRED_COLUMNS) <= set(rows[0]):
        raise ValueError(f"gradebook {path} is not a gradebook of this grader: its columns must start with "
                         f"{','.join(FIXED_COLUMNS)}")
    for row in rows:  # undo csv_cell's guard against formulas, which write_gradebook puts back
        for key, value in row.items():
            if isinstance(value, str) and value[:1] == "'" and value[1:2] in ("=", "+", "-", "@", "\t", "\r"):
                row[key] = value[1:]
    possible = next((row for row in rows if row["student"] == POSSIBLE_ROW), {})
    chapters = next((row for row in rows if row["student"] == CHAPTER_ROW), {})
    columns = {key: (_number(value), chapters.get(key, "")) for key, value in possible.items()
               if key not in FIXED_COLUMNS}
    return [row for row in rows if row["student"] not in (POSSIBLE_ROW, CHAPTER_ROW)], columns


def _number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _format(value):
    return "" if value is None else f"{value:g}"


def total(row, columns):
    """Recompute a row's ``points``: the sum of its chapter's exercise columns (``columns`` as
    :func:`read_gradebook` returns them), less its late ``penalty`` (never below 0)."""
    values = [_number(row.get(label)) for label, (_, chapter) in columns.items() if chapter == row["chapter"]]
    earned = sum(value for value in values if value is not None) - (_number(row.get("penalty")) or 0)
    row["points"] = _format(round(max(earned, 0), 2))
    return row


def row_record(row):
    """A row's ``record`` column as a dict ({} if empty or not JSON)."""
    try:
        record = json.loads(row.get("record") or "{}")
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


def merge(old_rows, new_rows, columns):
    """The gradebook after a run: ``new_rows`` replace the old rows of the same student and chapter.

    Hand-given points (columns a new row leaves empty) and the name and email
    are kept from the old row, and so are the comments and answers of the
    points given by hand, and the points an instructor put by hand, with
    ``--override-autograded``, in place of what the checks earned.
    """
    by_key = {(row["student"], row["chapter"]): row for row in old_rows}
    for row in new_rows:
        old = by_key.get((row["student"], row["chapter"]), {})
        if row["status"] == "missing" and old and old.get("status") != "missing":
            continue  # a student graded earlier, who is not in this run: keep the earlier grade
        for key in ["name", "email", *columns]:
            if not row.get(key) and old.get(key):
                row[key] = old[key]
        record, earlier = row_record(row), row_record(old)
        for key in ("comments", "marked", "overridden"):
            if earlier.get(key):
                record[key] = {**earlier[key], **record.get(key, {})}
        for label, value in record.get("overridden", {}).items():  # the instructor's word stands
            row[label] = value
        if record:
            row["record"] = json.dumps(record, sort_keys=True)
        by_key[(row["student"], row["chapter"])] = total(row, columns)
    return sorted(by_key.values(), key=lambda row: (row["chapter"], row["student"]))


def write_gradebook(path, rows, columns):
    """Write the gradebook (``columns``: label -> (points possible, chapter)), whole or not at all."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = FIXED_COLUMNS + list(columns)
    possible = {"student": POSSIBLE_ROW, **{label: _format(points) for label, (points, _) in columns.items()}}
    chapters = {"student": CHAPTER_ROW, **{label: chapter for label, (_, chapter) in columns.items()}}
    descriptor, temporary = tempfile.mkstemp(prefix=".gradebook-", suffix=".csv", dir=path.parent)
    with os.fdopen(descriptor, "w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, header, extrasaction="ignore")
        writer.writeheader()
        for row in [possible, chapters, *rows]:
            writer.writerow({key: csv_cell(row.get(key, "")) for key in header})
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)
