"""What the grader takes from the reference chapters, read once before any submission runs.

A :class:`Reference` holds, for one chapter, everything grading needs and
nothing else: the expected outputs of each graded cell and the hidden checks
(their code and expected outputs). It is extracted in the grader's own
process; the student's kernel never sees the reference folder (with
``--sandbox``) nor a file holding these outputs.
"""

import copy
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..authoring.exercises import solution_cells

__all__ = ["Expected", "HiddenCheck", "Reference", "extract_reference", "load_references"]


@dataclass(frozen=True)
class Expected:
    """What a cell of the reference printed: its outputs and execution count."""

    outputs: list
    execution_count: int


@dataclass(frozen=True)
class HiddenCheck:
    """One hidden check: its code, and what it printed on the reference solution."""

    exercise: str
    number: int  # 1, 2, ... within the exercise
    source: str
    expected: Expected


@dataclass
class Reference:
    """The grading data of one chapter.

    Attributes
    ----------
    name : str
        The chapter's file name, e.g. ``"01_pca.ipynb"``.
    exercises : list of str
        The code exercises, in order of appearance.
    graded : dict
        Maps ``(exercise, part)`` of each graded solution cell to its :class:`Expected`.
    hidden : dict
        Maps ``(exercise, part)`` to the list of :class:`HiddenCheck` that follow that cell.
    """

    name: str
    exercises: list = field(default_factory=list)
    graded: dict = field(default_factory=dict)
    hidden: dict = field(default_factory=dict)

    def hidden_count(self, exercise):
        """The number of hidden checks of an exercise."""
        return sum(len(checks) for (label, _), checks in self.hidden.items() if label == exercise)


def _expected(cell, where):
    if cell.execution_count is None or not isinstance(cell.execution_count, int):
        raise ValueError(f"{where} was not executed (no execution count): execute the chapter "
                         "before grading with it")
    return Expected(copy.deepcopy(cell.outputs), cell.execution_count)


def extract_reference(nb, name):
    """The grading data of one chapter (or of a student version made from it).

    Raises
    ------
    ValueError
        If the chapter's exercises are not well formed, or a graded cell or
        hidden check has not been executed.
    """
    reference = Reference(name)
    counts = {}
    for found in solution_cells(nb, name):
        if found.exercise not in reference.exercises:
            reference.exercises.append(found.exercise)
        cell = nb.cells[found.index]
        key = (found.exercise, found.part)
        if found.hidden:
            number = counts[found.exercise] = counts.get(found.exercise, 0) + 1
            where = f"{name}: hidden check {number} of {found.exercise}"
            check = HiddenCheck(found.exercise, number, cell.source, _expected(cell, where))
            reference.hidden.setdefault(key, []).append(check)
        elif found.graded:
            where = f"{name}: the graded cell of {found.exercise}"
            reference.graded[key] = _expected(cell, where)
    return reference


def load_references(folder):
    """Extract every chapter of a folder (not of its sub-folders), keyed by file name.

    Raises
    ------
    FileNotFoundError
        If ``folder`` is not a folder.
    ValueError
        If it holds no notebook, or a chapter cannot be read or is not well formed.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"reference {folder} is not a folder of notebooks")
    paths = sorted(folder.glob("*.ipynb"))
    if not paths:
        raise ValueError(f"reference {folder} holds no notebook (.ipynb)")
    references = {}
    for path in paths:
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception as error:  # the instructor's file: say which and why
            raise ValueError(f"reference {path} is not a readable notebook: {error}") from None
        reference = extract_reference(nb, str(path))  # errors name the whole path
        reference.name = path.name
        references[path.name] = reference
    return references
