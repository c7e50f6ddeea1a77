"""What the grader takes from the reference chapters, read once before any submission runs.

A :class:`Reference` holds, for one chapter, everything grading needs and
nothing else: the expected outputs of each graded cell and the hidden checks
(their code and expected outputs). It is extracted in the grader's own
process; the student's kernel never sees the reference folder (with
``--sandbox``) nor a file holding these outputs.
"""

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..authoring.exercises import exercise_numbers, solution_cells
from ..authoring.points import (DEFAULT_POINTS, POINTS_KEY, SHARE_KEY, declared, declared_written,
                                declared_written_parts, written_part_key)

__all__ = ["Expected", "HiddenCheck", "Reference", "extract_reference", "load_references", "check_key",
           "exercise_places"]

# a heading line of a markdown cell, and the MyST fences whose lines are not headings
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}|:{3,})")
_DIRECTIVE = re.compile(r"^ {0,3}(`{3,}|:{3,})\{(?P<name>[^}\s]+)\}\s*(?P<argument>.*?)\s*$")
_LABEL = re.compile(r"^\s*:label:\s*(?P<label>\S+)\s*$")
_BOLD_LEAD = re.compile(r"^\s*\*\*(?P<title>[^*]+?)\.?\*\*")


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
    written : dict
        What the instructor grades by hand, each under its key (its gradebook
        column and hand-points row): a derivation under its label, the written
        part of a code exercise under :func:`~coursework.authoring.points.written_part_key`
        (``ch1-ex3-written``), apart from the points of that exercise's checks.
        Maps each key to its points.
    written_parts : dict
        Maps the key of each written part of a code exercise to the exercise's label.
    """

    name: str
    exercises: list = field(default_factory=list)
    graded: dict = field(default_factory=dict)
    hidden: dict = field(default_factory=dict)
    # points of each graded exercise, and the share of each of its checks (keys: check_key)
    points: dict = field(default_factory=dict)
    shares: dict = field(default_factory=dict)
    # the book's number ("4.2") and the heading above each exercise, for the student's feedback
    numbers: dict = field(default_factory=dict)
    headings: dict = field(default_factory=dict)
    # the written answers, graded by hand: key -> points (a derivation: its label; a written part: LABEL-written)
    written: dict = field(default_factory=dict)
    # the written parts of code exercises: key -> the exercise's label
    written_parts: dict = field(default_factory=dict)
    # the sources of the chapter's own code cells (neither solutions nor hidden checks): a submission's
    # cell with one of these sources is the book's, which grading may leave out (preparation.needed_cells)
    book_sources: tuple = ()

    def hidden_count(self, exercise):
        """The number of hidden checks of an exercise."""
        return sum(len(checks) for (label, _), checks in self.hidden.items() if label == exercise)

    def checks(self, exercise):
        """The keys (:func:`check_key`) of an exercise's checks: its visible checks, then its hidden checks."""
        return [key for key in self.shares if key[1] == exercise]

    def title(self, exercise):
        """How the student's book names an exercise: ``Exercise 4.2`` (its label if the book gives no number)."""
        number = self.numbers.get(exercise)
        return f"Exercise {number}" if number else f"exercise {exercise}"

    def exercise_of(self, key):
        """The exercise a written answer belongs to: its label (for a written part, that of its code exercise)."""
        return self.written_parts.get(key, key)

    def written_title(self, key):
        """How a written answer is named: ``Exercise 1.1``, or ``the written part of Exercise 1.3``."""
        title = self.title(self.exercise_of(key))
        return f"the written part of {title}" if key in self.written_parts else title


def check_key(kind, exercise, number):
    """The key of one check: ``("visible", label, part)`` or ``("hidden", label, number)``."""
    if kind not in ("visible", "hidden"):
        raise ValueError(f"kind must be 'visible' or 'hidden', got {kind!r}")
    return kind, exercise, number


def exercise_places(nb):
    """The heading above each labelled exercise, and the derivations' labels (``{solution} LABEL``).

    Returns
    -------
    headings : dict of str to str
        The section heading above each exercise, followed by the exercise's own
        bold title when its statement starts with one (``Exercises: Units``).
    derivations : dict of str to int
        The index of the markdown cell holding each derivation's solution.
    """
    headings, derivations, heading = {}, {}, None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        lines, fence = cell.source.splitlines(), None
        for i, line in enumerate(lines):
            directive = _DIRECTIVE.match(line)
            if directive and directive["name"] == "exercise":
                label = next((m["label"] for m in map(_LABEL.match, lines[i + 1:i + 8]) if m), None)
                lead = next((m["title"] for m in map(_BOLD_LEAD.match, lines[i + 1:i + 12]) if m), None)
                if label:  # the section, and the exercise's own bold title when it has one
                    headings[label] = f"{heading}: {lead}" if heading and lead else (lead or heading)
            elif directive and directive["name"] == "solution" and directive["argument"]:
                derivations[directive["argument"]] = index
            opened = _FENCE.match(line)
            if fence is None and opened:
                fence = opened.group(1)
            elif fence is not None and line.strip().startswith(fence[0] * len(fence)) and not directive:
                fence = None
            elif fence is None and (match := _HEADING.match(line)):
                heading = match["title"]
    return headings, derivations


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
    found_cells = list(solution_cells(nb, name))
    taken = {found.index for found in found_cells}
    reference.book_sources = tuple(cell.source for index, cell in enumerate(nb.cells)
                                   if cell.cell_type == "code" and index not in taken)
    for found in found_cells:
        if found.exercise not in reference.exercises:
            reference.exercises.append(found.exercise)
        cell = nb.cells[found.index]
        key = (found.exercise, found.part)
        if found.hidden:
            number = counts[found.exercise] = counts.get(found.exercise, 0) + 1
            where = f"{name}: hidden check {number} of {found.exercise}"
            check = HiddenCheck(found.exercise, number, cell.source, _expected(cell, where))
            reference.hidden.setdefault(key, []).append(check)
            reference.shares[check_key("hidden", found.exercise, number)] = declared(cell, SHARE_KEY, where)
        elif found.graded:
            where = f"{name}: the graded cell of {found.exercise}"
            reference.graded[key] = _expected(cell, where)
            reference.shares[check_key("visible", found.exercise, found.part)] = declared(cell, SHARE_KEY, where)
            reference.points.setdefault(found.exercise, declared(cell, POINTS_KEY, where))
    _describe_exercises(reference, nb, name)
    return reference


def _describe_exercises(reference, nb, name):
    """The book's numbers, the headings, and the points of the derivations and written parts of a chapter."""
    try:
        reference.numbers = exercise_numbers(nb, name)
    except ValueError:  # a file name without a chapter number: the labels name the exercises
        reference.numbers = {}
    for label, _ in reference.hidden:  # an exercise checked by hidden checks alone
        reference.points.setdefault(label, DEFAULT_POINTS)
    reference.headings, derivations = exercise_places(nb)
    graded = {label for label, _ in [*reference.graded, *reference.hidden]}
    for label, index in derivations.items():
        if label not in graded:
            where = f"{name}, cell {index} (the solution of {label})"
            reference.written[label] = declared_written(nb.cells[index], label, where)
    # the written part of a code exercise (its solution-start cell declares kpca_points): graded by hand under a
    # key of its own, so that its hand points and the points of the exercise's checks never share a column
    labels = {*reference.numbers, *reference.exercises, *derivations}
    for label, points in declared_written_parts(nb, name).items():
        if label in derivations:
            continue  # a derivation's solution: its points are already there
        key = written_part_key(label)
        if key in labels:
            raise ValueError(f"{name}: the written part of {label} is graded under {key!r}, which is also the "
                             "label of an exercise: rename that exercise")
        reference.written[key], reference.written_parts[key] = points, label
    order = list(reference.numbers)  # in the book's order (a written part after its derivations' neighbours)
    reference.written = dict(sorted(reference.written.items(), key=lambda item: (
        order.index(reference.exercise_of(item[0])) if reference.exercise_of(item[0]) in order else len(order))))


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
