"""Student notebooks from the chapters: solution cells stubbed, solution text removed.

The chapters are the single source of every exercise. An exercise's solution is
either a derivation in a ``{solution}`` directive, or a *gated* solution: the
markdown cells and code cells between ``{solution-start} LABEL`` and
``{solution-end}``, whose code cells carry the cell tag ``solution``.
:func:`make_student_notebook` stubs every solution code cell (graded ones keep
the reference output, which nbval compares) and replaces the solution text by
"Write your answer here."

Examples
--------
>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_markdown_cell("```{solution-start} ex1\\n```"),
...     nbformat.v4.new_code_cell("print(6 * 7)", metadata={"tags": ["solution"]}),
...     nbformat.v4.new_markdown_cell("```{solution-end}\\n```"),
... ])
>>> student = make_student_notebook(nb)
>>> print(student.cells[1].source)
# NBVAL_CHECK_OUTPUT
# Exercise ex1: replace the two lines below by your code, which prints the answer.
# YOUR CODE HERE
raise NotImplementedError
"""

import copy
from pathlib import Path

import nbformat

from .exercises import (METADATA_KEY, SOLUTION_TAG,
                        solution_cells, strip_solution_text)
from .points import annotate_student
from .stubs import function_stub, plain_stub

__all__ = ["make_student_notebook", "make_student", "notebooks_in"]


def make_student_notebook(nb, name="notebook"):
    """Return the student version of a notebook (the input is not changed).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter, with its outputs (or a student version: the result is then
        the same notebook, so the function is idempotent).
    name : str, default="notebook"
        The notebook's file name, recorded in the metadata (``grade`` finds the
        reference notebook by it) and used in error messages.

    Returns
    -------
    student : nbformat.NotebookNode
        Solution code cells stubbed (graded ones keep their reference outputs
        and start with ``# NBVAL_CHECK_OUTPUT``; the stub of an exercise with
        hidden checks keeps the signatures and docstrings of its functions and
        its visible check), hidden checks removed, solution text replaced by
        "Write your answer here.", markdown cells left empty removed, every
        other cell unchanged. Each solution cell carries the metadata
        ``kpca_coursework: {exercise, part, graded}``.

    Raises
    ------
    TypeError
        If ``nb`` is not a notebook.
    ValueError
        If the gated solutions or hidden checks are not well formed (a start
        without an end, an end without a start, a start inside another, a
        hidden check outside a gated solution or without ``remove-cell``).

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("```{solution} ex1\\n:class: dropdown\\n\\nBecause.\\n```"),
    ... ])
    >>> print(make_student_notebook(nb).cells[0].source)
    *Your answer to exercise ex1:*
    <BLANKLINE>
    Write your answer here.
    """
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise TypeError(f"nb must be a notebook read with nbformat, got {type(nb).__name__}")
    roles = {found.index: found for found in solution_cells(nb, name)}
    with_hidden_checks = {found.exercise for found in roles.values() if found.hidden}
    student = copy.deepcopy(nb)
    state = {"gated": None}
    cells = []
    for index, cell in enumerate(student.cells):
        if cell.cell_type == "markdown":
            had_text = bool(cell.source.strip())
            cell.source = strip_solution_text(cell.source, state, f"{name}, cell {index}")
            if cell.source or not had_text:
                cells.append(cell)
            continue
        role = roles.get(index)
        if role is not None and role.hidden:
            continue  # instructor-only: the grader appends it after the student's cell
        if role is not None and METADATA_KEY not in cell.metadata:  # not yet a stub
            _stub_cell(cell, role, role.exercise in with_hidden_checks)
        cells.append(cell)
    student.cells = cells
    annotate_student(nb, student)  # each exercise's points, for the handout
    previous = nb.metadata.get(METADATA_KEY)
    source = previous.get("source", name) if isinstance(previous, dict) else name
    student.metadata[METADATA_KEY] = {"source": source}
    return student


def _stub_cell(cell, role, in_function_convention):
    """Replace a solution cell's code by its stub, in place."""
    stub = function_stub(role.exercise, cell.source) if in_function_convention and role.graded else None
    cell.source = stub or plain_stub(role.exercise, role.graded)
    tags = cell.metadata.get("tags", [])
    if SOLUTION_TAG not in tags:
        cell.metadata["tags"] = [*tags, SOLUTION_TAG]
    cell.metadata[METADATA_KEY] = {"exercise": role.exercise, "part": role.part, "graded": role.graded}
    if not role.graded:
        cell.outputs = []
        cell.execution_count = None


def notebooks_in(path, argument):
    path = Path(path)
    if path.is_file():
        if path.suffix != ".ipynb":
            raise ValueError(f"{argument} must be a notebook (.ipynb) or a folder of them, got {path}")
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"{argument} {path} does not exist")
    found = sorted(
        p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )
    if not found:
        raise ValueError(f"{argument} {path} holds no notebook (.ipynb)")
    return found


def make_student(source, destination):
    """Write the student version of every notebook of ``source`` into ``destination``.

    Parameters
    ----------
    source : str or Path
        A notebook, or a folder of notebooks (searched recursively).
    destination : str or Path
        The folder to write to (created if needed), keeping the file names.

    Returns
    -------
    written : list of (Path, int, int)
        Each written notebook, its number of graded cells and of solution
        cells.
    """
    notebooks = notebooks_in(source, "source")
    destination = Path(destination)
    if destination.exists() and not destination.is_dir():
        raise ValueError(f"destination must be a folder, got the file {destination}")
    root = Path(source) if Path(source).is_dir() else Path(source).parent
    written = []
    for notebook in notebooks:
        target = destination / notebook.relative_to(root)
        if target.resolve() == notebook.resolve():
            raise ValueError(f"destination would overwrite the source notebook {notebook}")
        student = make_student_notebook(nbformat.read(notebook, as_version=4), name=notebook.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(student, target)
        info = [c.metadata[METADATA_KEY] for c in student.cells if METADATA_KEY in c.metadata]
        written.append((target, sum(i["graded"] for i in info), len(info)))
    return written


