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
import sys
from pathlib import Path

import nbformat

from .expected import write_expected
from .exercises import (ANSWER_PLACEHOLDER, METADATA_KEY, SOLUTION_TAG, exercise_numbers, has_exercises,
                        solution_cells)
from .handout import book_index, chapter_version, markdown_cells, recorded_entry
from .points import annotate_student, declared_written_parts, points_line
from .stubs import function_stub, plain_stub

__all__ = ["make_student_notebook", "make_student", "notebooks_in"]


def make_student_notebook(nb, name="notebook", book=None):
    """Return the student version of a notebook (the input is not changed).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter, with its outputs (or a student version: the result is then
        the same notebook, so the function is idempotent).
    name : str, default="notebook"
        The notebook's file name, recorded in the metadata (``grade`` finds the
        reference notebook by it), which gives the chapter's number, and used
        in error messages.
    book : coursework.authoring.myst_markdown.BookIndex, optional
        What references resolve to (:func:`.handout.book_index`); by default,
        the chapter's own numbers and titles only.

    Returns
    -------
    student : nbformat.NotebookNode
        The text in Jupyter Markdown with the book's numbers, each exercise
        statement in a cell of its own (:mod:`.handout`); solution code cells
        stubbed (graded ones keep their reference outputs and start with
        ``# NBVAL_CHECK_OUTPUT``; the stub of an exercise with hidden checks
        keeps the signatures and docstrings of its functions and its visible
        check), hidden checks removed, solution text replaced by answer cells
        ("Write your answer here.", metadata ``kpca_coursework: {exercise,
        number, written: true}``), markdown cells left empty removed, every
        other cell unchanged. Each solution cell carries the metadata
        ``kpca_coursework: {exercise, part, graded}``; the notebook,
        ``kpca_coursework: {source, exercises, version}``.

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
    >>> answer = make_student_notebook(nb, name="07_syn.ipynb").cells[0]
    >>> print(answer.source)
    *Your answer to Exercise ex1:*
    <BLANKLINE>
    Write your answer here.
    >>> answer.metadata["kpca_coursework"]
    {'exercise': 'ex1', 'number': None, 'written': True}
    """
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise TypeError(f"nb must be a notebook read with nbformat, got {type(nb).__name__}")
    previous = recorded_entry(nb)
    source = previous.get("source", name) if isinstance(previous.get("source", name), str) else name
    roles = {found.index: found for found in solution_cells(nb, name)}
    with_hidden_checks = {found.exercise for found in roles.values() if found.hidden}
    book = book or book_index(nb, source)
    student = copy.deepcopy(nb)
    written_parts = set(declared_written_parts(nb, name))
    state = {"gated": None, "written_parts": written_parts}
    cells, stubs = [], []
    for index, cell in enumerate(student.cells):
        if cell.cell_type == "markdown":
            cells += markdown_cells(cell, state, book, f"{name}, cell {index}")
            continue
        role = roles.get(index)
        if role is not None and role.hidden:
            continue  # instructor-only: the grader appends it after the student's cell
        if role is not None and METADATA_KEY not in cell.metadata:  # not yet a stub
            _stub_cell(cell, role, role.exercise in with_hidden_checks, book)
        if role is not None:
            stubs.append((role.exercise, role.part, cell.source, cell.outputs))
        cells.append(cell)
    student.cells = _with_written_parts(cells, written_parts, book)
    annotate_student(nb, student)  # each exercise's points, for the handout
    entry = {"source": source}
    numbers = previous.get("exercises") or _numbers(nb, source)
    points_line(nb, student, {**book.exercises, **(numbers or {})}, name)  # and shown in each statement
    if numbers:
        entry["exercises"] = numbers
    entry["version"] = previous.get("version") or chapter_version(nb, stubs)
    student.metadata[METADATA_KEY] = entry
    return student


def _with_written_parts(cells, written_parts, book):
    """The cells, with an answer cell for each written part that its solution gave no place to.

    A code exercise that declares a written part and whose gated solution holds
    no prose (where its answer cells would be) gets one answer cell after its
    last stub, where its solution ends.
    """
    def entry(cell):
        info = cell.metadata.get(METADATA_KEY)
        return info if isinstance(info, dict) else {}

    answered = {entry(cell).get("exercise") for cell in cells
                if cell.cell_type == "markdown" and entry(cell).get("written")}
    for label in sorted(written_parts - answered):
        last = [k for k, cell in enumerate(cells) if cell.cell_type == "code" and entry(cell).get("exercise") == label]
        if not last:
            continue  # no stub either: the solution was empty, and the statement's cell is where to answer
        stub = cells[last[-1]]
        number = book.exercises.get(label)
        answer = nbformat.v4.new_markdown_cell(
            f"*Your answer to Exercise {number or label}:*\n\n{ANSWER_PLACEHOLDER}",
            metadata={METADATA_KEY: {"exercise": label, "number": number, "written": True}})
        if "id" in stub:  # made from the stub's: the same on every run
            answer["id"] = f"{stub['id']}-answer"[-64:]
        else:  # a notebook of nbformat < 4.5 has no cell ids
            del answer["id"]
        cells.insert(last[-1] + 1, answer)
    return cells


def _numbers(nb, name):
    """The book's numbers of the chapter's exercises ({} for a notebook that is not a chapter)."""
    try:
        return exercise_numbers(nb, name)
    except ValueError:
        return {}


def _stub_cell(cell, role, in_function_convention, book):
    """Replace a solution cell's code by its stub, in place."""
    shown = book.exercises.get(role.exercise) or role.exercise  # "1.3", as the book numbers it
    stub = function_stub(shown, cell.source) if in_function_convention and role.graded else None
    cell.source = stub or plain_stub(shown, role.graded)
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


# the repository this package was installed from (an editable install, a checkout): the book itself
_PACKAGE_BOOK = Path(__file__).resolve().parents[2]


def _book_sources(root, book):
    """The book's references.bib and its folder of chapters, for what a handout cites and refers to.

    Looked for in the chapters' folder and the one above it (a checkout's
    ``chapters/``), else in ``book`` (``--book``), else in the repository this
    package comes from; (None, None) if none of them holds a references.bib.
    """
    for folder in (root, root.parent, book, _PACKAGE_BOOK):
        if folder is not None and (Path(folder) / "references.bib").is_file():
            folder = Path(folder)
            chapters = folder / "chapters"
            # a book without chapters/ holds them itself; the chapters' parent, only references.bib
            if not chapters.is_dir():
                chapters = root if folder == root.parent else folder
            return folder / "references.bib", chapters
    return None, None


def _unresolved_warning(name, unresolved):
    """The warning for a handout with references it could not resolve (None if there are none).

    >>> print(_unresolved_warning("01_pca.ipynb", {"citation a", "citation b", "label ch2-ex3"}))
    WARNING: 01_pca.ipynb: not resolved, shown as typed in the handout: 2 citations (a, b), 1 label (ch2-ex3); \
give the book's folder (the one that holds references.bib and chapters/) with --book DIR
    """
    if not unresolved:
        return None
    kinds = {}
    for item in sorted(unresolved):
        kind, _, key = item.partition(" ")
        kinds.setdefault(kind, []).append(key)
    shown = ", ".join(f"{len(keys)} {kind}{'s' if len(keys) > 1 else ''} ({', '.join(keys[:4])}"
                      + (", ..." if len(keys) > 4 else "") + ")" for kind, keys in kinds.items())
    return (f"WARNING: {name}: not resolved, shown as typed in the handout: {shown}; give the book's folder "
            "(the one that holds references.bib and chapters/) with --book DIR")


def make_student(source, destination, book=None, notes=None):  # long: read, resolve, write, warn
    """Write the student version of every notebook of ``source`` into ``destination``.

    References across chapters are resolved with every notebook of
    ``source`` (for a single notebook, of its folder), and citations with the
    book's ``references.bib``. Beside the notebooks, ``destination/.expected/``
    receives a read-only copy of each notebook's expected visible outputs
    (:mod:`coursework.authoring.expected`), which the self-check compares
    with, whatever the student's copy of the notebook holds.

    Parameters
    ----------
    source : str or Path
        A notebook, or a folder of notebooks (searched recursively).
    destination : str or Path
        The folder to write to (created if needed), keeping the file names.
    book : str or Path, optional
        The book's folder (its ``references.bib`` and ``chapters/``), for a
        chapter copied alone elsewhere; by default the chapters' folder or the
        one above it, else the repository this package comes from.
    notes : file, optional
        Where to warn about citations and references left unresolved (shown
        as typed in the handout); default: standard error.

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
    for notebook in notebooks:
        if (destination / notebook.relative_to(root)).resolve() == notebook.resolve():
            raise ValueError(f"destination would overwrite the source notebook {notebook}")
    chapters = {path: nbformat.read(path, as_version=4) for path in notebooks}
    for path in notebooks_in(root, "source") if Path(source).is_file() else ():
        try:  # the book's other chapters, for references across chapters
            chapters.setdefault(path, nbformat.read(path, as_version=4))
        except Exception:  # noqa: BLE001 -- a sibling that is not a chapter is no reference
            continue
    bib, chapters_folder = _book_sources(root, Path(book) if book is not None else None)
    known = {path.name for path in chapters}
    for path in sorted(Path(chapters_folder).glob("*.ipynb")) if chapters_folder is not None else ():
        if path.name not in known:  # the book's other chapters, for a chapter copied alone
            try:
                chapters[path] = nbformat.read(path, as_version=4)
            except Exception:  # noqa: BLE001 -- a file that is not a chapter is no reference
                continue
    written = []
    for notebook in notebooks:
        target = destination / notebook.relative_to(root)
        chapter = chapters[notebook]
        if not has_exercises(chapter):  # an evidence section: a page to read, not a handout
            continue
        others = [(nb, path.name) for path, nb in chapters.items() if path != notebook]
        index = book_index(chapter, notebook.name, others, bib)
        student = make_student_notebook(chapter, name=notebook.name, book=index)
        warning = _unresolved_warning(notebook.name, index.unresolved)
        if warning:
            print(warning, file=notes or sys.stderr)
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(student, target)
        write_expected(student, destination / ".expected", notebook.name)
        info = [c.metadata[METADATA_KEY] for c in student.cells
                if c.cell_type == "code" and METADATA_KEY in c.metadata]
        written.append((target, sum(i["graded"] for i in info), len(info)))
    return written
