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

__all__ = ["POINTS_KEY", "SHARE_KEY", "DEFAULT_POINTS", "DEFAULT_SHARE", "declared", "declared_written",
           "annotate_student"]

POINTS_KEY = "kpca_points"
SHARE_KEY = "kpca_share"
DEFAULT_POINTS = 1
DEFAULT_SHARE = 1


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
