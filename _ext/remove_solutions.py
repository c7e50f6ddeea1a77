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
"""

import os

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


def setup(app):
    requested = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()
    app.add_config_value("kpca_remove_solutions", requested not in ("", "0", "false", "no"), "env")
    app.connect("config-inited", _configure)
    app.add_transform(RemoveSolutions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
