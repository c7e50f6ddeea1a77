"""Read a notebook a student hands in as Jupyter opens it: cell ids given, no warning meant for its author.

A notebook of format 4.5 or later whose cells have no ``id`` (written by an
older tool, or edited by hand) makes nbformat warn on standard error
(``MissingIDFieldWarning``, "use normalize()") at every read: in a grading
run or a self-check that warning reaches the instructor or the student, who
can do nothing about it. Jupyter gives such cells ids when it opens the
notebook; so does :func:`read_notebook_text`, with nbformat's own
``normalize``, and nothing is said.
"""

import warnings

import nbformat
from nbformat.validator import normalize
from nbformat.warnings import MissingIDFieldWarning

__all__ = ["read_notebook_text"]


def read_notebook_text(text):
    """The notebook ``text`` holds, as version 4, each cell without an id given one (as Jupyter does).

    Parameters
    ----------
    text : str
        The notebook's JSON.

    Returns
    -------
    nb : nbformat.NotebookNode
        Validation errors are not raised here (validate it as its caller needs).

    Raises
    ------
    nbformat.reader.NotJSONError, ValueError
        If ``text`` is no notebook.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingIDFieldWarning)
        nb = nbformat.reads(text, as_version=4, capture_validation_error={})
        if nb.get("nbformat_minor", 0) >= 5 and any("id" not in cell for cell in nb.get("cells", [])):
            _, normalized = normalize(nb)
            nb = nbformat.from_dict(normalized)
    return nb
