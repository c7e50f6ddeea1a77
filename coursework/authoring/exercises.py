"""The exercises of a chapter: which code cells are solutions, graded cells and hidden checks.

The convention (``EXERCISES.md`` of the authors' briefing, summarised in the
instructor guide): a *gated* solution is the run of cells between a markdown
cell with ``{solution-start} LABEL`` and one with ``{solution-end}``. Its code
cells are *solution cells* (tagged ``solution``); a solution cell is *graded*
unless its output is marked as unstable. A code cell of a gated solution
tagged both ``hidden-check`` and ``remove-cell``, whose first line is
``# hidden check for LABEL``, is a *hidden check*: instructor-only code that
calls the student's functions on unseen inputs. It belongs to the solution
cell before it.

:func:`solution_cells` walks a chapter (or a student version made from one)
and returns one :class:`SolutionCell` per solution cell and hidden check;
:func:`strip_solution_text` removes the text of solutions from a markdown
cell. Both raise ``ValueError`` naming the notebook and cell when the
directives are not well formed.
"""

import re
from dataclasses import dataclass

__all__ = ["has_exercises", "SolutionCell", "solution_cells", "strip_solution_text", "solution_pieces", "cell_tags",
           "chapter_token", "exercise_numbers",
           "SOLUTION_TAG", "HIDDEN_CHECK_TAG", "REMOVE_CELL_TAG", "METADATA_KEY", "CHECK_MARKER"]

SOLUTION_TAG = "solution"
HIDDEN_CHECK_TAG = "hidden-check"
REMOVE_CELL_TAG = "remove-cell"
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"
ANSWER_PLACEHOLDER = "Write your answer here."
# cell and notebook metadata written by make-student
METADATA_KEY = "kpca_coursework"

_IGNORE_TAGS = {"nbval-ignore-output", "nbval-skip"}
_IGNORE_MARKERS = {"NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP"}
# an opening MyST fence: ``` or ::: (three or more), a {directive} and its argument
_DIRECTIVE_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|:{3,})\{(?P<name>[^}\s]+)\}\s*(?P<argument>.*?)\s*$")
_ANY_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,}|:{3,})")


@dataclass(frozen=True)
class SolutionCell:
    """A solution code cell or a hidden check of a chapter.

    Attributes
    ----------
    index : int
        Position of the cell in ``nb.cells``.
    exercise : str
        The exercise label, e.g. ``"ch1-ex3"``.
    part : int
        For a solution cell, its number among the solution cells of the
        exercise (0, 1, ...); for a hidden check, the part of the solution
        cell it follows.
    graded : bool
        Whether nbval compares the cell's output (always true for a hidden check).
    hidden : bool
        Whether the cell is a hidden check.
    """

    index: int
    exercise: str
    part: int
    graded: bool
    hidden: bool = False


def cell_tags(cell, where):
    """The cell's tags, checked to be a list of strings."""
    tags = cell.get("metadata", {}).get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise ValueError(f"{where}: the cell tags must be a list of strings, got {tags!r}")
    return tags


def _is_graded(cell):
    """A solution cell is graded unless its output is marked as unstable."""
    if _IGNORE_TAGS & set(cell.metadata.get("tags", [])):
        return False
    comments = {line.strip().lstrip("#").strip() for line in cell.source.splitlines()}
    return not (_IGNORE_MARKERS & comments)


def _recorded(cell, where):
    """The ``kpca_coursework`` entry make-student wrote on a stub, checked; None if absent."""
    info = cell.metadata.get(METADATA_KEY)
    if info is None:
        return None
    if not (isinstance(info, dict) and isinstance(info.get("exercise"), str)
            and isinstance(info.get("graded"), bool)):
        raise ValueError(f"{where}: {METADATA_KEY} must hold 'exercise' (text) and 'graded' "
                         f"(true or false), got {info!r}")
    return info


def solution_cells(nb, name="notebook"):
    """Every solution cell and hidden check of a chapter, in order.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter, or a student version made from one (its stubs carry the
        exercise label and graded flag in their metadata).
    name : str, default="notebook"
        The notebook's name, for error messages.

    Returns
    -------
    cells : list of SolutionCell

    Raises
    ------
    ValueError
        If the gated solutions or the hidden checks are not well formed.
    """
    state = {"gated": None}
    parts, last_part, found = {}, {}, []
    for index, cell in enumerate(nb.cells):
        where = f"{name}, cell {index}"
        if cell.cell_type == "markdown":
            strip_solution_text(cell.source, state, where)
            continue
        if cell.cell_type != "code":
            continue
        tags = cell_tags(cell, where)
        label = state["gated"]
        if HIDDEN_CHECK_TAG in tags:
            _check_hidden(cell, tags, label, last_part, where)
            found.append(SolutionCell(index, label, last_part[label], graded=True, hidden=True))
        elif SOLUTION_TAG in tags or label is not None:
            recorded = _recorded(cell, where)
            label = recorded["exercise"] if recorded else (label or "unlabelled")
            part = parts.get(label, 0)
            parts[label], last_part[label] = part + 1, part
            graded = recorded["graded"] if recorded else _is_graded(cell)
            found.append(SolutionCell(index, label, part, graded=graded))
    if state["gated"] is not None:
        raise ValueError(f"{name}: solution-start {state['gated']} has no solution-end")
    return found


def _check_hidden(cell, tags, label, last_part, where):
    if label is None:
        raise ValueError(f"{where}: a hidden-check cell must be inside a gated solution "
                         "({solution-start} ... {solution-end})")
    if REMOVE_CELL_TAG not in tags:
        raise ValueError(f"{where}: the hidden check of {label} must also be tagged "
                         f"{REMOVE_CELL_TAG!r}, or the book would show it")
    first_line = (cell.source.splitlines() or [""])[0].strip()
    if first_line != f"# hidden check for {label}":
        raise ValueError(f"{where}: a hidden check of {label} must start with the line "
                         f"'# hidden check for {label}', got {first_line!r}")
    if label not in last_part:
        raise ValueError(f"{where}: the hidden check of {label} must follow its solution cell")


def _closes(line, fence):
    """Whether ``line`` closes a fence opened by ``fence`` (same character, no shorter)."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def strip_solution_text(source, state, where):
    """Remove the solution text of one markdown cell.

    ``state`` carries the label of the open gated solution (or None) from cell
    to cell, and is updated. Returns the new source: solution directives and
    the text inside a gated solution are replaced by a placeholder.
    """
    pieces = solution_pieces(source, state, where)
    if pieces is None:
        return source  # no solution in this cell: leave it exactly as it is
    out = []
    for piece in pieces:
        if piece[0] == "text":
            out.extend(piece[1])
        elif piece[0] == "start":
            out.extend([f"*Your solution to exercise {piece[1]}:*", ""])
        elif piece[2] == "derivation":
            out.extend([f"*Your answer to exercise {piece[1]}:*", "", ANSWER_PLACEHOLDER, ""])
        else:
            out.extend([ANSWER_PLACEHOLDER, ""])
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def solution_pieces(source, state, where):
    """One markdown cell cut where its solutions were: what a student keeps, and where answers go.

    ``state`` carries the label of the open gated solution (or None) from cell
    to cell, and is updated. Returns None when the cell holds no solution (and
    none is open), else a list of pieces, in order:

    * ``("text", lines)``: text outside any solution, kept;
    * ``("start", label)``: a gated solution of ``label`` opens here;
    * ``("answer", label, kind)``: solution text was here (``kind`` is
      ``"derivation"`` for a ``{solution}`` directive, ``"gated"`` for prose
      inside a gated solution; one piece for a run of such prose).
    """
    lines = source.splitlines()
    if state["gated"] is None and not any(
        (match := _DIRECTIVE_FENCE.match(line)) and match["name"].startswith("solution") for line in lines
    ):
        return None
    pieces = []

    def keep(kept):
        if pieces and pieces[-1][0] == "text":
            pieces[-1][1].extend(kept)
        else:
            pieces.append(("text", list(kept)))

    def drop_text():
        if not (pieces and pieces[-1][0] == "answer"):
            pieces.append(("answer", state["gated"], "gated"))

    def skip_block(start, fence):
        """Index just past the fenced block opened at ``start``."""
        j = start + 1
        while j < len(lines) and not _closes(lines[j], fence):
            j += 1
        if j == len(lines):
            raise ValueError(f"{where}: the fence {lines[start].strip()!r} is never closed")
        return j + 1

    i = 0
    while i < len(lines):
        line = lines[i]
        directive = _DIRECTIVE_FENCE.match(line)
        fence = _ANY_FENCE.match(line)
        if directive and directive["name"] == "solution":
            i = skip_block(i, directive["fence"])
            if state["gated"] is None:
                pieces.append(("answer", directive["argument"], "derivation"))
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
            pieces.append(("start", state["gated"]))
        elif directive and directive["name"] == "solution-end":
            if state["gated"] is None:
                raise ValueError(f"{where}: solution-end without a solution-start before it")
            i = skip_block(i, directive["fence"])
            state["gated"] = None
        elif fence:
            end = skip_block(i, fence["fence"])
            if state["gated"] is None:
                keep(lines[i:end])
            else:
                drop_text()
            i = end
        else:
            if state["gated"] is None:
                keep([line])
            elif line.strip():
                drop_text()
            i += 1
    return pieces


def chapter_token(name):
    """The chapter's number as the book prints it: ``"4"`` for ``04_kernel_pca``, ``"A"`` for
    ``A_sparse_pca`` (the part of the file name before the first ``_``, without leading zeros).

    Raises
    ------
    ValueError
        If the name does not start with a chapter number or an appendix letter.
    """
    stem = name.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]
    head = stem.split("_", 1)[0]
    if head.isdigit() and int(head) > 0:
        return str(int(head))
    if len(head) == 1 and head.isalpha() and head.isupper():
        return head
    raise ValueError(f"name must start with a chapter number or an appendix letter and '_' "
                     f"(e.g. '04_kernel_pca', 'A_sparse_pca'), got {name!r}")


_OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*?)\s*$")


def directive_options(lines):
    """The ``:key: value`` lines at the top of a directive's body (as a dict), and the rest of
    the body without its leading blank lines."""
    options, i = {}, 0
    while i < len(lines) and (option := _OPTION.match(lines[i])):
        options[option["key"]] = option["value"]
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    return options, lines[i:]


def has_exercises(nb):
    """Whether a notebook holds an ``{exercise}`` (a chapter page), or is a page without coursework.

    A chapter's evidence sections (``_toc.yml`` ``sections:``) hold no
    exercise: the coursework tools (``check``, ``make-student``, the grader's
    reference) pass them over, so that no student is asked for a handout of
    a section, while handouts still resolve references to them.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter or a section, or a handout made from a chapter.

    Returns
    -------
    bool

    Examples
    --------
    >>> import nbformat
    >>> page = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A section")])
    >>> has_exercises(page)
    False
    >>> page.cells.append(nbformat.v4.new_markdown_cell("```{exercise}\\n:label: ch1-ex1\\nProve it.\\n```"))
    >>> has_exercises(page)
    True
    """
    for cell in nb.cells:
        if cell.cell_type == "markdown" and any(
                (directive := _DIRECTIVE_FENCE.match(line)) and directive["name"] == "exercise"
                for line in cell.source.splitlines()):
            return True
    recorded = nb.get("metadata", {}).get(METADATA_KEY)
    return isinstance(recorded, dict) and bool(recorded.get("exercises"))


def exercise_numbers(nb, name):
    """The book's number of every labelled exercise of a chapter: ``{"ch4-ex2": "4.2", ...}``.

    The book numbers exercises per chapter, in the order of the ``{exercise}``
    directives of the page (those with ``:nonumber:`` are not counted): the
    second exercise of chapter 4 is Exercise 4.2, the first of appendix A is
    Exercise A.1. The grader and the handouts use these numbers too.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter, or a student version made from one.
    name : str
        The notebook's file name or stem (``"04_kernel_pca.ipynb"``), which gives the
        chapter's number (:func:`chapter_token`).

    Returns
    -------
    numbers : dict of str to str
        For a handout made by ``make-student`` (whose statements are no longer
        directives), the numbers it recorded in its metadata.
    """
    token = chapter_token(name)
    numbers, count = {}, 0
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        for i, line in enumerate(lines):
            directive = _DIRECTIVE_FENCE.match(line)
            if not directive or directive["name"] != "exercise":
                continue
            options, _ = directive_options(lines[i + 1:])
            if "nonumber" in options:
                continue
            count += 1
            if options.get("label"):
                numbers[options["label"]] = f"{token}.{count}"
    recorded = nb.get("metadata", {}).get(METADATA_KEY)
    if not count and isinstance(recorded, dict) and isinstance(recorded.get("exercises"), dict):
        # a handout: make-student turned the directives into text and recorded the numbers
        return {str(label): str(number) for label, number in recorded["exercises"].items()}
    return numbers
