"""What the instructor reads: one line per notebook, and a CSV report for the gradebook.

File names come from students: they may hold spaces, any Unicode, ``::``,
``[``, even newlines or bytes that are not UTF-8. :func:`shown_name` makes
each printable on one line, so that no name can forge or break a line.
"""

import csv
import os
import tempfile
from pathlib import Path

__all__ = ["shown_name", "student_of", "summary_line", "write_report", "csv_cell", "REPORT_COLUMNS"]

REPORT_COLUMNS = ["file", "student", "exercise", "result", "reason"]
NOTEBOOK_ROW = "(notebook)"


def shown_name(text):
    """``text`` with every non-printable character escaped (a newline becomes ``\\n``).

    >>> shown_name("ann/01 pca::v2[1]\\nPASS.ipynb")
    'ann/01 pca::v2[1]\\\\nPASS.ipynb'
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def student_of(path, base):
    """The student a submission belongs to: its first folder under ``base``, else its file name."""
    relative = Path(path).relative_to(base) if Path(path) != Path(base) else Path(Path(path).name)
    return shown_name(relative.parts[0] if len(relative.parts) > 1 else relative.stem)


def summary_line(name, verdict):
    """``PASS  name`` or ``FAIL  name  reason; reason``."""
    if verdict.passed:
        return f"PASS  {name}"
    return f"FAIL  {name}  " + "; ".join(shown_name(reason) for reason in verdict.reasons)


def csv_cell(text):
    """``text`` safe in a spreadsheet: control characters removed, a formula turned into text.

    As the OWASP rules on CSV injection say: a cell that starts with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``
    (quotes and separators are the ``csv`` module's job).

    >>> csv_cell("=HYPERLINK('http://x')\\x1b[31m.ipynb")
    "'=HYPERLINK('http://x')[31m.ipynb"
    >>> csv_cell("ann/01_pca.ipynb")
    'ann/01_pca.ipynb'
    """
    text = "".join(c for c in str(text) if c.isprintable() or c == " ")
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _rows(outcome):
    result = "PASS" if outcome.verdict.passed else "FAIL"
    yield [outcome.name, outcome.student, NOTEBOOK_ROW, result, "; ".join(outcome.verdict.reasons)]
    for exercise, reasons in outcome.verdict.exercises.items():
        yield [outcome.name, outcome.student, exercise, "FAIL" if reasons else "PASS", "; ".join(reasons)]


def write_report(path, outcomes):
    """Write the CSV report: a row per notebook (exercise ``(notebook)``) and a row per exercise.

    Written to a temporary file and renamed, so that a report is whole or absent.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".grading-", suffix=".csv", dir=path.parent)
    with os.fdopen(descriptor, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(REPORT_COLUMNS)
        for outcome in outcomes:
            writer.writerows([csv_cell(cell) for cell in row] for row in _rows(outcome))
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)
