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
from pathlib import Path

import nbformat

from ..authoring.exercises import METADATA_KEY

__all__ = ["SubmissionProblem", "find_submissions", "read_submission", "reference_name", "short",
           "MAX_NOTEBOOK_BYTES"]

MAX_NOTEBOOK_BYTES = 50 * 2**20


class SubmissionProblem(Exception):
    """A submission that cannot be graded; the message is the reason shown to the instructor."""


def find_submissions(submissions):
    """Every ``.ipynb`` under ``submissions`` (symbolic links listed, never followed), and the base folder."""
    path = Path(submissions)
    if path.is_file() or path.is_symlink() and not path.is_dir():
        if path.suffix != ".ipynb":
            raise ValueError(f"submissions must be a notebook (.ipynb) or a folder of them, got {path}")
        return [path], path.parent
    if not path.is_dir():
        raise FileNotFoundError(f"submissions {path} does not exist")
    found = []
    for folder, folders, files in os.walk(path, followlinks=False):
        folders[:] = sorted(name for name in folders if name != ".ipynb_checkpoints")
        found += [Path(folder) / name for name in sorted(files) if name.endswith(".ipynb")]
    if not found:
        raise ValueError(f"submissions {path} holds no notebook (.ipynb)")
    return found, path


def read_submission(path, max_bytes=MAX_NOTEBOOK_BYTES):
    """Read and validate a submitted notebook, or raise :class:`SubmissionProblem` saying why not."""
    path = Path(path)
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        raise SubmissionProblem("is a symbolic link, not a notebook file")
    if not stat.S_ISREG(info.st_mode):
        raise SubmissionProblem("is not a regular file")
    if info.st_size > max_bytes:
        raise SubmissionProblem(f"is too large ({info.st_size / 2**20:.1f} MB; the limit is "
                                f"{max_bytes / 2**20:.0f} MB)")
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(descriptor, "rb") as file:
        data = file.read(max_bytes + 1)
    try:
        text = data.decode("utf-8")
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception as error:  # anything a file can hold: one reason, no traceback
        message = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
        raise SubmissionProblem(f"not a readable notebook ({type(error).__name__}"
                                + (f": {message})" if message else ")")) from None
    return nb


def reference_name(nb, path):
    """The chapter a submission was made from: recorded by make-student, else its file name."""
    recorded = nb.metadata.get(METADATA_KEY)
    if recorded is None:
        return Path(path).name
    if not isinstance(recorded, dict) or not isinstance(recorded.get("source", ""), str):
        raise SubmissionProblem(f"malformed metadata: the notebook's {METADATA_KEY} must be a mapping "
                                f"with a 'source' file name, got {short(recorded)}")
    return recorded.get("source") or Path(path).name


def short(value, limit=60):
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."
