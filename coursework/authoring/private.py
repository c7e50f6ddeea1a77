"""``python -m coursework private-reference``: the private reference of a graded course, in one command.

The chapters are public, hidden checks included: their inputs and expected
outputs are in the repository. A graded course grades against a private copy
whose hidden checks draw other inputs: this command

1. copies every chapter with exercises from ``source`` into ``destination``
   (created readable by you alone, ``0o700``);
2. adds the course's secret offset to the seed of every ``default_rng(SEED)``
   of the hidden checks (the offset is drawn once, with :mod:`secrets`, and
   kept in ``destination/.secret-offset``, readable by you alone, so that the
   copy can be made again with the same inputs);
3. executes each copy (its hidden checks print their new expected outputs),
   with the chapters' folder as working folder, with a limit per cell and a
   watch for a kernel that stopped answering; a chapter that stalls is run
   once more from a fresh kernel (:mod:`coursework.authoring.private_run`);
4. compares each re-seeded hidden check's output with the public chapter's: a
   check that prints the same with the course's seed prints a verdict or
   fixed values, which a forged function can print too (exit status 1);
5. runs ``check --strict`` on the copy: exit status 1 if a graded exercise has
   no hidden check, or a hidden check has fixed inputs (which no seed changes).

The student notebooks stay those made from the public chapters: hidden checks
are not in them, and the handout's version ignores them.
"""

import re
import secrets
import stat
import time
from pathlib import Path

import nbformat

from .check import SEEDED, check
from .exercises import has_exercises
from .student import notebooks_in

__all__ = ["make_private_reference", "SECRET_FILE"]

SECRET_FILE = ".secret-offset"


def _secret(destination):
    path = Path(destination) / SECRET_FILE
    if path.is_file():
        text = path.read_text().strip()
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"{path} must hold the course's secret offset, a whole number >= 1, got {text!r}")
        return int(text)
    offset = secrets.randbelow(10**6) + 1
    path.write_text(f"{offset}\n")
    path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return offset


def _reseed(nb, offset, execute):
    """Add ``offset`` to every ``default_rng(SEED)`` of the hidden checks; (seeds changed, checks, checks changed).

    Without ``execute``, a re-seeded check's outputs (the public seed's) are removed: ``check`` then says it
    prints nothing until the copy is executed, rather than grading against the public expected output.
    """
    seeds, checks, changed = 0, 0, 0
    for cell in nb.cells:
        if cell.cell_type == "code" and "hidden-check" in cell.metadata.get("tags", []):
            checks += 1
            cell.source, n = re.subn(r"default_rng\(\s*(\d+)\s*\)",
                                     lambda seed: f"default_rng({int(seed[1]) + offset})", cell.source)
            seeds, changed = seeds + n, changed + bool(n and SEEDED.search(cell.source))
            if n and not execute:
                cell.outputs, cell.execution_count = [], None
    return seeds, checks, changed


def make_private_reference(source, destination, stream, execute=True, timeout=900, stall=120, client_class=None):
    """Make the private reference (see the module docstring); return the exit status (0, or 1 as ``check --strict``).

    ``timeout`` bounds each cell; ``stall`` is how long a kernel may sit idle while a cell waits for its reply;
    ``client_class`` makes the notebook client (nbclient's ``NotebookClient``; tests pass a fake).
    """
    from .private_run import ChapterStalled, execute_chapter, unchanged_checks

    status = 0
    source, destination = Path(source), Path(destination)
    root = source if source.is_dir() else source.parent
    if destination.resolve() == root.resolve():
        raise ValueError(f"destination must not be the chapters' folder, got {destination}")
    destination.mkdir(parents=True, exist_ok=True)
    destination.chmod(stat.S_IRWXU)
    offset = _secret(destination)
    for path in notebooks_in(source, "source"):
        nb = nbformat.read(path, as_version=4)
        if not has_exercises(nb):
            continue
        seeds, checks, changed = _reseed(nb, offset, execute)
        target = destination / path.name
        if target.resolve() == path.resolve():
            raise ValueError(f"destination would overwrite the chapter {path}")
        started, same = time.monotonic(), []
        if execute:
            try:
                runs = execute_chapter(nb, path.parent, stream, str(target), timeout, stall, client_class)
            except ChapterStalled as error:
                print(str(error), file=stream)
                target.unlink(missing_ok=True)  # never grade against an earlier copy's outputs
                status = 1
                continue
            same = unchanged_checks(nbformat.read(path, as_version=4), nb, path.name)
        nbformat.write(nb, target)
        ran = (f"; executed in {time.monotonic() - started:.0f} s" + (" (2 runs)" if runs == 2 else "")
               if execute else
               "; NOT executed: execute it (python -m coursework execute) before grading")
        print(f"{target}: {changed} of {checks} hidden checks re-seeded ({seeds} seeds){ran}", file=stream)
        for line in same:
            print(f"  WEAK: {line}", file=stream)
        status = max(status, int(bool(same)))
    print(f"secret offset: {destination / SECRET_FILE} (keep it private; it makes the same copy again)",
          file=stream)
    if not any(destination.glob("*.ipynb")):  # every chapter stalled: nothing to check
        return max(status, 1)
    return max(status, check(destination, stream, strict=True))


def execute_in_place(notebooks, stream, timeout=900, stall=120, client_class=None):
    """Execute each notebook in place as ``private-reference`` executes its copies; the exit status (0 or 1).

    The run leaves out the top-level ``x.live()`` statements of the book's live
    widgets (:func:`coursework.authoring.private_run.without_live_widget`: under
    nbclient, chapter 4's left the client waiting on an idle kernel), and runs a
    stalled notebook once more from a fresh kernel; the file keeps its code.
    A notebook that stalls twice is left as it was, and the status is 1.
    """
    from .private_run import ChapterStalled, execute_chapter

    status = 0
    for path in map(Path, notebooks):
        nb = nbformat.read(path, as_version=4)
        try:
            runs = execute_chapter(nb, path.parent, stream, str(path), timeout, stall, client_class)
        except ChapterStalled as error:
            print(str(error), file=stream)
            status = 1
            continue
        nbformat.write(nb, path)
        print(f"{path}: executed" + (" (2 runs)" if runs == 2 else "") + ", its live widgets left out of the run",
              file=stream)
    return status
