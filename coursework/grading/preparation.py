"""A submission as the grader runs it: read defensively, cleaned, graded cells locked, hidden checks added.

Nothing of the submission is trusted beyond the code of its cells and the
``kpca_coursework`` label that says which cell answers which exercise:

* every nbval marker (``# NBVAL_SKIP``, ``# PYTEST_VALIDATE_IGNORE_OUTPUT``,
  ...) and every nbval tag is removed from every cell, and all other metadata
  and outputs are dropped;
* which cells are graded, and what they must print, comes from the
  :class:`~coursework.grading.reference.Reference`: each graded cell gets
  ``# NBVAL_CHECK_OUTPUT`` as its first line and the reference's outputs;
* the reference's hidden checks are appended after the student's cell, each
  through the ``_kpca_grader`` helpers (:mod:`coursework.grading.in_kernel`) that a
  first setup cell installs.
* with ``prune``, the book's own cells that nothing graded needs (its figures,
  tables and benchmarks) are left out (:func:`needed_cells`);
* each cell's time unit (its exercise, or itself) goes into the run notebook's
  metadata (:func:`time_units`), for the runner's time limits.

The run notebook only holds code cells. :class:`Role` says what each of them
is, so that a failure can be reported in the student's own numbering.
"""

from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from ..authoring.exercises import CHECK_MARKER, METADATA_KEY
from ..isolation.kernel_launcher import KERNEL_NAME
from .nbval_markers import strip_nbval_markers
from .module_guard import modules_to_import
from .needed_cells import needed_cells, normal_source
from .submissions import SubmissionProblem, short

__all__ = ["Role", "RunPlan", "time_units", "UNITS_KEY", "needed_cells", "strip_nbval_markers", "build_run_notebook",
           "setup_source", "student_places",
           "KERNEL_NAME"]


@dataclass(frozen=True)
class Role:
    """What a code cell of the run notebook is.

    ``kind`` is ``"setup"`` (the grader's first cell), ``"student"`` (a cell
    of the submission), ``"book"`` (a cell of the submission that is one of the
    book's own, unchanged from the handout: its time is not the student's),
    ``"graded"`` (the submission's cell for a graded part
    of an exercise) or ``"hidden"`` (hidden check ``number`` of ``exercise``).
    ``cell`` is the number of the submission's code cell (nbval's ``Cell N``
    in the student's own notebook).
    """

    kind: str
    exercise: str = None
    cell: int = None
    number: int = None
    part: int = None


@dataclass
class RunPlan:
    """The notebook to run, the role of each of its code cells, and problems found on the way.

    ``problems`` are (exercise, reason) pairs: a graded cell deleted or duplicated.
    """

    notebook: object
    roles: list
    problems: list
    # how the student finds each of their code cells (by its number): see student_places
    places: list = None


_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


def student_places(submission):
    """How a student finds each code cell of their notebook: the heading above it, and which code cell under it.

    >>> from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
    >>> nb = new_notebook(cells=[new_code_cell("1"), new_markdown_cell("## Two limits\\n\\nText"),
    ...                          new_code_cell("2"), new_code_cell("3")])
    >>> student_places(nb)
    ['the first code cell of the notebook', 'the first code cell under "Two limits"', \
'the second code cell under "Two limits"']
    """
    places, heading, count = [], None, 0
    for cell in submission.cells:
        if cell.cell_type == "markdown":
            titles = [line.lstrip("#").strip() for line in cell.source.split("\n")
                      if line.startswith("#") and line.lstrip("#")[:1] == " "]
            if titles:
                heading, count = titles[-1][:80], 0
        elif cell.cell_type == "code":
            count += 1
            nth = _ORDINALS[count - 1] if count <= len(_ORDINALS) else f"{count}th"
            places.append(f"the {nth} code cell " + (f'under "{heading}"' if heading else "of the notebook"))
    return places


def _exercise_key(cell, number):
    """The (exercise, part) a submission's code cell claims to answer, or None."""
    info = cell.metadata.get(METADATA_KEY)
    if info is None:
        return None
    if not (isinstance(info, dict) and isinstance(info.get("exercise"), str)
            and type(info.get("part")) is int):
        raise SubmissionProblem(f"malformed metadata in Cell {number}: {METADATA_KEY} must hold "
                                f"'exercise' (text) and 'part' (a whole number), got {short(info)}")
    return info["exercise"], info["part"]


def _locate(submission):
    """The submission's code cells, and the (exercise, part) each claims to answer (or None)."""
    code_cells = [cell for cell in submission.cells if cell.cell_type == "code"]
    return code_cells, [_exercise_key(cell, number) for number, cell in enumerate(code_cells)]


def _describe(key):
    exercise, part = key
    return f"{exercise} (part {part + 1})" if part else exercise


def _hidden_cell(check):
    source = "\n".join([
        CHECK_MARKER,
        f"# hidden check {check.number} of {check.exercise}, run by the grader",
        f'__import__("sys").modules["_kpca_grader"].run_hidden_check('
        f"{check.exercise!r}, {check.number}, {check.source!r})",
    ])
    expected = check.expected
    return new_code_cell(source, outputs=nbformat.from_dict(expected.outputs),
                         execution_count=expected.execution_count)


def setup_source(modules=()):
    """The grader's first cell: install the ``_kpca_grader`` helpers and save the pristine state.

    ``modules`` are the library modules the book's cells import
    (:func:`~coursework.grading.module_guard.modules_to_import`): imported here,
    before any student code, so that they are saved as they come.
    """
    code = (Path(__file__).with_name("in_kernel.py")).read_text(encoding="utf-8")
    guard = (Path(__file__).with_name("module_guard.py")).read_text(encoding="utf-8")
    return "\n".join([
        "# grader setup: saves what the hidden checks restore (coursework.grading.in_kernel, module_guard)",
        "import sys as _sys, types as _types",
        '_guard = _types.ModuleType("_kpca_grader_guard")',
        f"exec({guard!r}, _guard.__dict__)",
        f"_guard.snapshot({list(modules)!r})",
        '_module = _types.ModuleType("_kpca_grader")',
        f"exec({code!r}, _module.__dict__)",
        '_sys.modules["_kpca_grader"] = _module',
        "_module.snapshot(_guard)",
        "del _sys, _types, _module, _guard",
    ])


# the run notebook's metadata key for the time units of its cells (read by coursework.isolation.execution)
UNITS_KEY = "kpca_grader_units"


def time_units(roles):
    """The time limit each cell of the run notebook counts against: its exercise, or its own.

    An exercise's graded cells and hidden checks share one limit (the exercise
    is one answer); every other cell of the submission has its own; the
    grader's setup cell has none (the notebook's limit alone bounds it).

    >>> time_units([Role("setup"), Role("student", None, 0), Role("graded", "e1", 1), Role("hidden", "e1", 1, 1)])
    [None, 'cell 0', 'exercise e1', 'exercise e1']
    """
    return [None if role.kind == "setup" else f"exercise {role.exercise}" if role.kind in ("graded", "hidden")
            else f"cell {role.cell}" for role in roles]


def build_run_notebook(submission, reference, prune=False):
    """The notebook that nbval runs for a submission.

    Parameters
    ----------
    submission : nbformat.NotebookNode
        The student's notebook, as read by :func:`read_submission`.
    reference : coursework.grading.reference.Reference
        The chapter it was made from.
    prune : bool, default=False
        Leave out the book's cells that the graded cells and hidden checks do
        not need (:func:`needed_cells`): the chapter's figures and benchmarks.

    Returns
    -------
    plan : RunPlan

    Raises
    ------
    SubmissionProblem
        If the submission's exercise labels are malformed.
    """
    wanted = list(reference.graded) + [key for key in reference.hidden if key not in reference.graded]
    code_cells, keys = _locate(submission)
    problems, owner = [], {}
    for key in wanted:
        numbers = [number for number, claimed in enumerate(keys) if claimed == key]
        if not numbers:
            problems.append((key[0], f"graded cell of {_describe(key)} deleted"))
        elif len(numbers) > 1:
            shown = " and ".join(f"Cell {number}" for number in numbers)
            problems.append((key[0], f"the graded cell of {_describe(key)} appears {len(numbers)} times "
                                     f"({shown}): keep one (a copied cell keeps its exercise label)"))
        else:
            owner[numbers[0]] = key
    needed = set(range(len(code_cells)))
    book = {normal_source(source) for source in reference.book_sources}
    if prune:
        sources = [strip_nbval_markers(cell.source) + "".join(
            "\n" + check.source for check in (reference.hidden.get(owner[number], []) if number in owner else []))
            for number, cell in enumerate(code_cells)]
        labelled = {number for number, key in enumerate(keys) if key is not None} | set(owner)
        needed = needed_cells(sources, labelled, reference.book_sources)
    book_code = [*reference.book_sources, *(check.source for checks in reference.hidden.values() for check in checks)]
    cells, roles = [new_code_cell(setup_source(modules_to_import(book_code)))], [Role("setup")]
    for number, cell in enumerate(code_cells):
        if number not in needed:
            continue
        source = strip_nbval_markers(cell.source)
        key = owner.get(number)
        if key in reference.graded:
            expected = reference.graded[key]
            cells.append(new_code_cell(f"{CHECK_MARKER}\n{source}", outputs=nbformat.from_dict(expected.outputs),
                                       execution_count=expected.execution_count))
            roles.append(Role("graded", key[0], number, part=key[1]))
        else:
            cells.append(new_code_cell(source))
            claimed = keys[number]
            unchanged = claimed is None and normal_source(cell.source) in book
            roles.append(Role("book" if unchanged else "student", claimed[0] if claimed else None, number))
        for check in reference.hidden.get(key, []) if key else []:
            cells.append(_hidden_cell(check))
            roles.append(Role("hidden", check.exercise, number, check.number, part=key[1]))
    metadata = {"kernelspec": {"name": KERNEL_NAME, "display_name": "grader", "language": "python"},
                UNITS_KEY: time_units(roles)}
    return RunPlan(new_notebook(cells=cells, metadata=metadata), roles, problems, student_places(submission))
