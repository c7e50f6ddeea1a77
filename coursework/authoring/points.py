"""How an author declares what an exercise is worth: cell metadata beside the solution.

Two keys of a cell's metadata, set in the chapter (JupyterLab: the property
inspector, "Cell Metadata"), never shown in the book:

``kpca_points``
    On the (first) graded solution cell of a code exercise: the exercise's
    points. On the markdown cell holding a derivation's ``{solution} LABEL``:
    the points of that written answer, which the instructor gives by hand;
    when one markdown cell holds several derivations' solutions, a mapping
    ``{"ch1-ex1": 4, "ch1-ex2": 3}`` gives each its own (a label it does not
    name gets the default). Default :data:`DEFAULT_POINTS`.
    On the markdown cell opening a gated solution (``{solution-start} LABEL``):
    the points of the exercise's *written part* (the derivation or the "why"
    it asks beside its code), given by hand and kept apart from the points of
    its checks (:func:`declared_written_parts`). Without it, the written part
    of a code exercise is worth nothing and is not collected. When that cell
    also holds a derivation's ``{solution}``, a number there is the
    derivation's: the written part then needs the mapping form, naming it.
``kpca_share``
    On a graded solution cell (its *visible check*: the output it prints on the
    chapter's data) and on each hidden check: its share of the exercise's
    points. Default :data:`DEFAULT_SHARE`. A check worth ``share / sum of the
    exercise's shares`` of the points earns them when it passes, and nothing
    when it fails: that is the partial credit. A share of 0 makes a check
    count for the notebook-level verdict only (e.g. a visible check whose
    output a student could copy from the handout).

For example, ``{"kpca_points": 4, "kpca_share": 1}`` on the solution cell and
``{"kpca_share": 3}`` on its one hidden check: the visible check is worth 1
point and the hidden check 3.

make-student copies the exercise's points into the stub's ``kpca_coursework``
metadata (``"points"``), so that a handout can show them; the grader reads
them from the reference chapter only, never from a submission.
"""

import math
import numbers

__all__ = ["POINTS_KEY", "SHARE_KEY", "DEFAULT_POINTS", "DEFAULT_SHARE", "WRITTEN_PART_SUFFIX", "declared",
           "declared_written", "declared_written_parts", "written_part_key", "annotate_student", "points_line"]

POINTS_KEY = "kpca_points"
SHARE_KEY = "kpca_share"
DEFAULT_POINTS = 1
DEFAULT_SHARE = 1
# the written part of code exercise LABEL is graded in its own gradebook column, LABEL + this suffix, so that
# points given by hand and points earned by the checks never share a cell
WRITTEN_PART_SUFFIX = "-written"


def declared(cell, key, where):
    """The number a cell declares under ``key`` (:data:`POINTS_KEY` or :data:`SHARE_KEY`), or its default.

    Parameters
    ----------
    cell : dict
        A notebook cell.
    key : str
        ``"kpca_points"`` or ``"kpca_share"``.
    where : str
        The notebook and cell, for the error message.

    Returns
    -------
    value : int or float
        A finite number >= 0.

    Raises
    ------
    ValueError
        If ``key`` is not one of the two, or the declared value is not a finite
        number >= 0 (a bool, a string, a negative number, NaN).

    Examples
    --------
    >>> declared({"metadata": {"kpca_points": 3}}, POINTS_KEY, "ch, cell 4")
    3
    >>> declared({"metadata": {}}, SHARE_KEY, "ch, cell 5")
    1
    """
    defaults = {POINTS_KEY: DEFAULT_POINTS, SHARE_KEY: DEFAULT_SHARE}
    if key not in defaults:
        raise ValueError(f"key must be {POINTS_KEY!r} or {SHARE_KEY!r}, got {key!r}")
    metadata = cell.get("metadata", {})
    if key not in metadata:
        return defaults[key]
    value = metadata[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{where}: the cell metadata {key} must be a number >= 0, got {value!r}")
    return value


def declared_written(cell, label, where):
    """The points a markdown cell declares for the derivation ``label`` whose solution it holds.

    ``kpca_points`` is a number (every derivation of the cell is worth it) or a
    mapping from label to number (a cell holding several derivations'
    solutions); a label the mapping does not name gets :data:`DEFAULT_POINTS`.

    Raises
    ------
    ValueError
        If a declared value is not a finite number >= 0.

    Examples
    --------
    >>> declared_written({"metadata": {"kpca_points": {"ch1-ex1": 4, "ch1-ex2": 3}}}, "ch1-ex2", "ch 1")
    3
    >>> declared_written({"metadata": {"kpca_points": 2}}, "ch1-ex1", "ch 1")
    2
    """
    value = cell.get("metadata", {}).get(POINTS_KEY)
    if not isinstance(value, dict):
        return declared(cell, POINTS_KEY, where)
    if label not in value:
        return DEFAULT_POINTS
    return declared({"metadata": {POINTS_KEY: value[label]}}, POINTS_KEY, f"{where} ({label})")


def written_part_key(label):
    """The key of the written part of code exercise ``label``: its gradebook column, hand-points row and file.

    >>> written_part_key("ch1-ex3")
    'ch1-ex3-written'
    """
    return f"{label}{WRITTEN_PART_SUFFIX}"


def declared_written_parts(nb, name="notebook"):
    """The written parts of a chapter's code exercises: ``{label: points}``.

    A code exercise has a written part when the markdown cell holding its
    ``{solution-start} LABEL`` declares ``kpca_points``: a number, or a mapping
    that names ``LABEL``. A number on a cell that also holds a derivation's
    ``{solution}`` is that derivation's (:func:`declared_written`), not the
    written part's.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter (a handout has no directives left: it gives ``{}``).
    name : str, default="notebook"
        For error messages.

    Returns
    -------
    dict of str to number

    Raises
    ------
    ValueError
        If a declared value is not a finite number >= 0.

    Examples
    --------
    >>> import nbformat
    >>> start = nbformat.v4.new_markdown_cell("```{solution-start} ch1-ex3\\n```", metadata={"kpca_points": 3})
    >>> declared_written_parts(nbformat.v4.new_notebook(cells=[start]))
    {'ch1-ex3': 3}
    >>> start.metadata["kpca_points"] = {"ch1-ex2": 4}  # a mapping that does not name it: no written part
    >>> declared_written_parts(nbformat.v4.new_notebook(cells=[start]))
    {}
    """
    from .exercises import _DIRECTIVE_FENCE

    parts = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or POINTS_KEY not in cell.get("metadata", {}):
            continue
        directives = [match for match in map(_DIRECTIVE_FENCE.match, cell.source.splitlines()) if match]
        starts = [match["argument"] for match in directives if match["name"] == "solution-start"]
        holds_derivation = any(match["name"] == "solution" for match in directives)
        value = cell.metadata[POINTS_KEY]
        for label in starts:
            where = f"{name}, cell {index} (the solution of {label})"
            if isinstance(value, dict):
                if label in value:
                    parts[label] = declared({"metadata": {POINTS_KEY: value[label]}}, POINTS_KEY, f"{where}")
            elif not holds_derivation:
                parts[label] = declared(cell, POINTS_KEY, where)
    return parts


def annotate_student(chapter, student):
    """Carry the points into a student version, in place: make-student's only grading step.

    The first graded stub of each exercise gets ``"points"`` in its
    ``kpca_coursework``: those its chapter cell (same cell id) declares.

    Parameters
    ----------
    chapter, student : nbformat.NotebookNode
        The chapter and the student version made from it (cells keep their ids).
    """
    from .exercises import METADATA_KEY

    by_id = {cell.get("id"): cell for cell in chapter.cells if cell.get("id")}
    seen = set()
    for cell in student.cells:
        source, info = by_id.get(cell.get("id")), cell.metadata.get(METADATA_KEY)
        if source is None or not isinstance(info, dict) or not info.get("graded") or info.get("exercise") in seen:
            continue
        seen.add(info.get("exercise"))
        info["points"] = declared(source, POINTS_KEY, f"cell {cell.get('id')}")


def points_line(chapter, student, numbers, name="notebook"):
    """Show each exercise's points in a handout, in place: ``**Exercise 1.3** (5 points: ...)``.

    The statement cell of each exercise (made by make-student, starting with
    ``**Exercise N**``) gets what the exercise is worth: a code exercise's
    points (from its stub, :func:`annotate_student`) and its written part's,
    a derivation's points, marked by hand. A statement that already says it
    is left as it is, so that make-student stays idempotent. ``numbers`` maps
    each label to the book's number.
    """
    import re

    from .exercises import METADATA_KEY

    code = {}
    for cell in student.cells:
        info = cell.metadata.get(METADATA_KEY) if cell.cell_type == "code" else None
        if isinstance(info, dict) and "points" in info:
            code.setdefault(info["exercise"], info["points"])
    written = {}
    for index, cell in enumerate(chapter.cells):
        if cell.cell_type == "markdown":
            for label in re.findall(r"\{solution\}\s+(\S+)", cell.source):
                written[label] = declared_written(cell, label, f"{name}, cell {index}")
    parts = declared_written_parts(chapter, name)
    label_of = {number: label for label, number in numbers.items() if number}

    def worth(points):
        return f"{points:g} point{'' if points == 1 else 's'}"

    for cell in student.cells:
        match = re.match(r"\*\*Exercise (?P<number>[\w.-]+)\*\*(?! \()", cell.source) \
            if cell.cell_type == "markdown" else None
        label = label_of.get(match["number"], match["number"]) if match else None
        if label in code:
            text = worth(code[label]) + " by the checks of your code"
            if parts.get(label):
                text += f", and {worth(parts[label])} for the written part, marked by hand"
        elif label in written:
            text = worth(written[label]) + ", marked by hand"
        else:
            continue
        cell.source = cell.source[:match.end()] + f" ({text})" + cell.source[match.end():]
