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
import re
from pathlib import Path

import nbformat

__all__ = ["make_student_notebook", "make_student", "notebooks_in"]

SOLUTION_TAG = "solution"
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"
ANSWER_PLACEHOLDER = "Write your answer here."
# cell and notebook metadata written by make-student, read by grade
METADATA_KEY = "kpca_coursework"

_IGNORE_TAGS = {"nbval-ignore-output", "nbval-skip"}
_IGNORE_MARKERS = {"NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP"}
# an opening MyST fence: ``` or ::: (three or more), a {directive} and its argument
_DIRECTIVE_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|:{3,})\{(?P<name>[^}\s]+)\}\s*(?P<argument>.*?)\s*$")
_ANY_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,}|:{3,})")


def _stub(label, graded):
    lines = [CHECK_MARKER] if graded else []
    what = "prints the answer" if graded else "does the exercise"
    lines += [
        f"# Exercise {label}: replace the two lines below by your code, which {what}.",
        "# YOUR CODE HERE",
        "raise NotImplementedError",
    ]
    return "\n".join(lines)


def _is_graded(cell):
    """A solution cell is graded unless its output is marked as unstable."""
    previous = cell.metadata.get(METADATA_KEY)
    if previous is not None:  # already a stub: its source no longer holds the markers
        return bool(previous["graded"])
    if _IGNORE_TAGS & set(cell.metadata.get("tags", [])):
        return False
    comments = {line.strip().lstrip("#").strip() for line in cell.source.splitlines()}
    return not (_IGNORE_MARKERS & comments)


def _closes(line, fence):
    """Whether ``line`` closes a fence opened by ``fence`` (same character, no shorter)."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _strip_solution_text(source, state, where):
    """Remove the solution text of one markdown cell.

    ``state`` carries the label of the open gated solution (or None) from cell
    to cell. Returns the new source.
    """
    lines = source.splitlines()
    if state["gated"] is None and not any(
        (match := _DIRECTIVE_FENCE.match(line)) and match["name"].startswith("solution") for line in lines
    ):
        return source  # no solution in this cell: leave it exactly as it is
    out = []
    placeholder_written = False
    i = 0

    def drop_text():
        nonlocal placeholder_written
        if not placeholder_written:
            out.extend([ANSWER_PLACEHOLDER, ""])
            placeholder_written = True

    def skip_block(start, fence):
        """Index just past the fenced block opened at ``start``."""
        j = start + 1
        while j < len(lines) and not _closes(lines[j], fence):
            j += 1
        if j == len(lines):
            raise ValueError(f"{where}: the fence {lines[start].strip()!r} is never closed")
        return j + 1

    while i < len(lines):
        line = lines[i]
        directive = _DIRECTIVE_FENCE.match(line)
        fence = _ANY_FENCE.match(line)
        if directive and directive["name"] == "solution":
            i = skip_block(i, directive["fence"])
            if state["gated"] is None:
                out.extend([f"*Your answer to exercise {directive['argument']}:*", "", ANSWER_PLACEHOLDER, ""])
            else:
                drop_text()
        elif directive and directive["name"] == "solution-start":
            if state["gated"] is not None:
                raise ValueError(
                    f"{where}: solution-start {directive['argument']} opens inside the gated "
                    f"solution of {state['gated']}, which has no solution-end before it"
                )
            i = skip_block(i, directive["fence"])
            state["gated"] = directive["argument"]
            out.extend([f"*Your solution to exercise {state['gated']}:*", ""])
        elif directive and directive["name"] == "solution-end":
            if state["gated"] is None:
                raise ValueError(f"{where}: solution-end without a solution-start before it")
            i = skip_block(i, directive["fence"])
            state["gated"] = None
        elif fence:
            end = skip_block(i, fence["fence"])
            if state["gated"] is None:
                out.extend(lines[i:end])
            else:
                drop_text()
            i = end
        else:
            if state["gated"] is None:
                out.append(line)
            elif line.strip():
                drop_text()
            i += 1
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


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
        and start with ``# NBVAL_CHECK_OUTPUT``), solution text replaced by
        "Write your answer here.", markdown cells left empty removed, every
        other cell unchanged. Each solution cell carries the metadata
        ``kpca_coursework: {exercise, part, graded}``.

    Raises
    ------
    TypeError
        If ``nb`` is not a notebook.
    ValueError
        If the gated solutions are not well formed (a start without an end,
        an end without a start, a start inside another).

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
    if not isinstance(nb, dict) or "cells" not in nb:
        raise TypeError(f"nb must be a notebook read with nbformat, got {type(nb).__name__}")
    student = copy.deepcopy(nb)
    state = {"gated": None}
    parts = {}
    cells = []
    for index, cell in enumerate(student.cells):
        where = f"{name}, cell {index}"
        if cell.cell_type == "markdown":
            had_text = bool(cell.source.strip())
            cell.source = _strip_solution_text(cell.source, state, where)
            if cell.source or not had_text:
                cells.append(cell)
            continue
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "code" and (SOLUTION_TAG in tags or state["gated"] is not None):
            previous = cell.metadata.get(METADATA_KEY)
            label = previous["exercise"] if previous else (state["gated"] or "unlabelled")
            graded = _is_graded(cell)
            part = parts.get(label, 0)
            parts[label] = part + 1
            cell.source = _stub(label, graded)
            if SOLUTION_TAG not in tags:
                cell.metadata["tags"] = [*tags, SOLUTION_TAG]
            cell.metadata[METADATA_KEY] = {"exercise": label, "part": part, "graded": graded}
            if not graded:
                cell.outputs = []
                cell.execution_count = None
        cells.append(cell)
    if state["gated"] is not None:
        raise ValueError(f"{name}: solution-start {state['gated']} has no solution-end")
    student.cells = cells
    source = nb.metadata.get(METADATA_KEY, {}).get("source", name)
    student.metadata[METADATA_KEY] = {"source": source}
    return student


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


