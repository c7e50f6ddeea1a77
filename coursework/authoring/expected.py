"""The read-only copy of a handout's expected visible outputs, which the self-check compares with.

A student who edits the handout in place, runs it and saves it overwrites
the outputs of its graded cells with their own: a check that read the
expected outputs from that notebook would compare the student's outputs
with themselves. ``make-student`` therefore writes, beside the notebooks,
``.expected/<chapter>.json``, made read-only: for each graded cell, its
exercise, part and book number, and the outputs and execution count that
nbval compares; and the handout's version (:mod:`.handout`).
"""

import json
import stat
from pathlib import Path

from .exercises import METADATA_KEY
from .handout import recorded_entry

__all__ = ["write_expected", "read_expected", "expected_path"]

FORMAT = 1


def expected_path(folder, chapter):
    """``folder/<chapter stem>.json``."""
    return Path(folder) / f"{Path(chapter).stem}.json"


def write_expected(student, folder, chapter):
    """Write the expected visible outputs of a handout into ``folder``, read-only; return the path."""
    entry = recorded_entry(student)
    graded = []
    for cell in student.cells:
        info = cell.metadata.get(METADATA_KEY) if cell.cell_type == "code" else None
        if isinstance(info, dict) and info.get("graded"):
            graded.append({"exercise": info["exercise"], "part": info["part"],
                           "number": entry.get("exercises", {}).get(info["exercise"]),
                           "execution_count": cell.execution_count, "outputs": cell.outputs})
    data = {"format": FORMAT, "chapter": entry.get("source", Path(chapter).name),
            "version": entry.get("version"), "graded": graded}
    path = expected_path(folder, chapter)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():  # our own read-only file, from an earlier run
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    return path


def read_expected(path):
    """The expected outputs written by :func:`write_expected`.

    Raises
    ------
    ValueError
        If the file is not such a copy.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"expected {path} is not readable: {error}") from None
    graded = data.get("graded") if isinstance(data, dict) else None
    if data.get("format") != FORMAT or not isinstance(graded, list) or not all(
            isinstance(item, dict) and {"exercise", "part", "outputs"} <= set(item) for item in graded):
        raise ValueError(f"expected {path} is not a copy of expected outputs written by make-student")
    return data


