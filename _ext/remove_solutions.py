"""Sphinx extension: build the book with every solution removed.

Set the environment variable ``KPCA_REMOVE_SOLUTIONS=1`` when building::

    KPCA_REMOVE_SOLUTIONS=1 jupyter-book build . -W --keep-going --path-output _build/no_solutions

Every ``{solution}`` directive and every gated solution (``{solution-start}`` to
``{solution-end}``: its text, code cells and their outputs) is taken out of the
pages, and the notebook sources, which hold the solutions, are not copied into
the HTML output.

sphinx-exercise's own switch, ``hide_solutions: true``, is not used: in
sphinx-exercise 1.2.1 it crashes the build on gated solutions ("departing
unknown node type: solution_end_node", executablebooks/sphinx-exercise#89), and
it would leave the gated code cells in the page.

In every build, the *hidden checks* of the coursework (code cells tagged
``hidden-check``; see the instructor guide) stay out of the book: their tag
``remove-cell`` keeps them out of the pages, and :func:`strip_hidden_checks`
takes them out of the notebook sources that the HTML output offers for
download, so that the grader's unseen inputs stay unseen.
"""

import json
import os
from pathlib import Path

from sphinx.transforms import SphinxTransform
from sphinx_exercise.nodes import solution_node
from sphinx_exercise.transforms import MergeGatedSolutions

ENVIRONMENT_VARIABLE = "KPCA_REMOVE_SOLUTIONS"


class RemoveSolutions(SphinxTransform):
    """Remove every solution node, after the gated ones have been merged into one."""

    default_priority = MergeGatedSolutions.default_priority + 1

    def apply(self):
        if not self.config.kpca_remove_solutions:
            return
        for node in list(self.document.findall(solution_node)):
            node.parent.remove(node)


def _configure(app, config):
    if config.kpca_remove_solutions:
        # the copied notebook sources (the page's download button) hold the solutions
        config.html_copy_source = False
        # pages can leave out what shows a solution: ```{only} not no_solutions
        app.tags.add("no_solutions")


HIDDEN_CHECK_TAG = "hidden-check"


def strip_hidden_checks(app, exception):
    """Remove the hidden-check cells from every notebook copied into the HTML output."""
    if exception is not None:
        return
    for path in Path(app.outdir).rglob("*"):
        if not (path.name.endswith(".ipynb") or path.name.endswith(".ipynb.txt")) or not path.is_file():
            continue
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        cells = nb.get("cells", []) if isinstance(nb, dict) else []
        kept = [cell for cell in cells if HIDDEN_CHECK_TAG not in cell.get("metadata", {}).get("tags", [])]
        if len(kept) != len(cells):
            nb["cells"] = kept
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def setup(app):
    requested = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()
    app.add_config_value("kpca_remove_solutions", requested not in ("", "0", "false", "no"), "env")
    app.connect("config-inited", _configure)
    app.add_transform(RemoveSolutions)
    app.connect("build-finished", strip_hidden_checks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
