"""Sphinx extension of this book: the library's reference page (api.md) shows kpca_lib only.

scikit-learn attaches methods to every estimator class (``set_output``,
``set_fit_request`` and the other metadata-routing setters); their
docstrings point into scikit-learn's own documentation, which this book does
not have. The reference documents what kpca_lib defines; scikit-learn's
conventions are named once, in the text of the page.
"""


def skip_foreign_members(app, what, name, obj, skip, options):
    """Skip a member that another package defines (True), else leave autodoc's choice."""
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("sklearn"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", skip_foreign_members)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
