"""Finding the submissions in a folder, and reading each one defensively.

A submission is untrusted input: any file name, any size, any content.
:func:`find_submissions` lists the notebooks of a folder (never following a
symbolic link); :func:`read_submission` reads one under a size limit and
returns a notebook or raises :class:`SubmissionProblem`, whose message is the
reason the instructor reads; :func:`reference_name` is the chapter the
submission says it answers.
"""

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..authoring.exercises import METADATA_KEY
from ..authoring.quiet_read import read_notebook_text

__all__ = ["SubmissionProblem", "Found", "find_submissions", "read_submission", "reference_name",
           "claimed_chapter", "short", "MAX_NOTEBOOK_BYTES", "MAX_CELLS", "MAX_DEPTH"]

# the book's largest chapter, with its figures, is 2.5 MB and 160 cells: far below both
MAX_NOTEBOOK_BYTES = 20 * 2**20
MAX_CELLS = 2000
# folders deeper than this under the submissions folder are not searched
MAX_DEPTH = 16


class SubmissionProblem(Exception):
    """A submission that cannot be graded; the message is the reason shown to the instructor."""


@dataclass
class Found:
    """What a submissions folder holds: the notebooks, what was left aside and why.

    ``too_deep`` are folders not searched (deeper than ``MAX_DEPTH``): each
    gets a FAIL line of its own. ``mac_leftovers`` are the ``__MACOSX/``
    folders and ``._*`` files that macOS adds to a zip archive: ignored.
    """

    notebooks: list
    base: Path
    too_deep: list = field(default_factory=list)
    mac_leftovers: list = field(default_factory=list)


def _is_mac_leftover(name):
    return name == "__MACOSX" or name.startswith("._")


def find_submissions(submissions):
    """Every ``.ipynb`` under ``submissions`` (symbolic links listed, never followed), as a :class:`Found`.

    The walk is iterative and stops ``MAX_DEPTH`` folders down, so that no
    upload (a thousand nested folders, say) can stop the grading of the others.
    """
    path = Path(submissions)
    if path.is_file() or path.is_symlink() and not path.is_dir():
        if path.suffix != ".ipynb":
            raise ValueError(f"submissions must be a notebook (.ipynb) or a folder of them, got {path}")
        return Found([path], path.parent)
    if not path.is_dir():
        raise FileNotFoundError(f"submissions {path} does not exist")
    found = Found([], path)
    stack = [(path, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            found.too_deep.append(folder)
            continue
        folders = []
        for entry in entries:
            if _is_mac_leftover(entry.name):
                found.mac_leftovers.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False):
                if entry.name != ".ipynb_checkpoints":
                    folders.append(Path(entry.path))
            elif entry.name.endswith(".ipynb"):
                found.notebooks.append(Path(entry.path))
        if depth + 1 > MAX_DEPTH and folders:
            found.too_deep += folders
            continue
        stack += [(sub, depth + 1) for sub in reversed(folders)]
    found.notebooks.sort(key=lambda p: p.relative_to(path).parts)
    if not found.notebooks and not found.too_deep:
        raise ValueError(f"submissions {path} holds no notebook (.ipynb)")
    return found


def _problem(error):
    message = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
    return SubmissionProblem(f"not a readable notebook ({type(error).__name__}" + (f": {message})" if message else ")"))


def _repair(nb):
    """Repair what Jupyter accepts but the schema refuses, as Jupyter does (nbformat's ``normalize``)."""
    from nbformat.validator import normalize

    _, repaired = normalize(nb, strip_invalid_metadata=True)
    nb = nbformat.from_dict(repaired)
    if nb.get("nbformat_minor", 0) < 5 and any("id" in cell for cell in nb.cells):
        nb.nbformat_minor = 5  # cell ids: Jupyter writes them from 4.5 on
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags")
        if isinstance(tags, list) and all(isinstance(tag, str) for tag in tags):
            cell.metadata["tags"] = list(dict.fromkeys(tags))
        if cell.get("cell_type") in ("markdown", "raw"):
            cell.pop("execution_count", None)
            cell.pop("outputs", None)
    return nb


def read_submission(path, max_bytes=MAX_NOTEBOOK_BYTES, max_cells=MAX_CELLS):
    """Read and validate a submitted notebook, or raise :class:`SubmissionProblem` saying why not.

    At most ``max_bytes`` are read and at most ``max_cells`` cells accepted,
    counted on the JSON before nbformat validates anything (validation time
    grows with the cells). What Jupyter opens but the schema refuses (cell ids
    in 4.4, a repeated tag, an execution count on a markdown cell) is repaired.
    """
    path = Path(path)
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        raise SubmissionProblem("is a symbolic link, not a notebook file")
    if not stat.S_ISREG(info.st_mode):
        raise SubmissionProblem("is not a regular file")
    def too_large(size):
        return SubmissionProblem(f"is too large ({size / 2**20:.1f} MB; the limit is {max_bytes / 2**20:.0f} MB)")

    if info.st_size > max_bytes:
        raise too_large(info.st_size)
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(descriptor, "rb") as file:
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew since lstat
        raise too_large(len(data))
    try:
        raw = json.loads(data.decode("utf-8"))
    except Exception as error:  # anything a file can hold: one reason, no traceback
        kind = "NotJSONError" if isinstance(error, json.JSONDecodeError) else type(error).__name__
        raise SubmissionProblem(f"not a readable notebook ({kind}: {str(error).split(chr(10))[0][:200]})") from None
    cells = raw.get("cells") if isinstance(raw, dict) else None
    if isinstance(cells, list) and len(cells) > max_cells:
        raise SubmissionProblem(f"has too many cells ({len(cells)}; the limit is {max_cells})")
    try:
        nb = read_notebook_text(data.decode("utf-8"))  # cell ids given, no warning on stderr
        nb = _repair(nb)
        nbformat.validate(nb)
    except Exception as error:  # anything a file can hold: one reason, no traceback
        raise _problem(error) from None
    return nb


def reference_name(nb, path):
    """The chapter a submission was made from: recorded by make-student, else its file name."""
    recorded = recorded_name(nb)
    return recorded or Path(path).name


def recorded_name(nb):
    """The chapter recorded in the notebook's metadata by make-student (None if absent)."""
    recorded = nb.metadata.get(METADATA_KEY)
    if recorded is None:
        return None
    if not isinstance(recorded, dict) or not isinstance(recorded.get("source", ""), str):
        raise SubmissionProblem(f"malformed metadata: the notebook's {METADATA_KEY} must be a mapping "
                                f"with a 'source' file name, got {short(recorded)}")
    return recorded.get("source") or None


def claimed_chapter(nb, path, references, shown):
    """The reference a submission is graded against: the chapter its file name *and* metadata name.

    A file name that is not a chapter's (``01 pca (2).ipynb``) names none, and
    the metadata decides; a file named like one chapter whose metadata names
    another (a chapter handed in for another) is refused, as is a notebook
    that names no chapter of the reference folder.

    Raises
    ------
    SubmissionProblem
        With the reason, when the two disagree or name no known chapter.
    """
    recorded = recorded_name(nb)
    by_file = Path(path).name if Path(path).name in references else None
    if recorded is not None and by_file is not None and recorded != by_file:
        raise SubmissionProblem(f"its file name says {shown(by_file)} but its metadata says it was made "
                                f"from {shown(recorded)}: hand in each chapter under its own name")
    name = recorded or by_file
    if name is None:
        raise SubmissionProblem(f"names no chapter of the reference: its file name {shown(Path(path).name)} "
                                "is not a chapter's, and its metadata records none")
    if name not in references:
        raise SubmissionProblem(f"no reference notebook named {shown(name)}")
    return references[name]


def short(value, limit=60):
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."
