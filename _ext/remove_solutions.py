"""Sphinx extension: build the book with every solution removed.

Set the environment variable ``KPCA_REMOVE_SOLUTIONS=1`` when building::

    KPCA_REMOVE_SOLUTIONS=1 jupyter-book build . -W --keep-going --path-output _build/no_solutions

Every ``{solution}`` directive and every gated solution (``{solution-start}`` to
``{solution-end}``: its text, code cells and their outputs) is taken out of the
pages; the instructor guide (``instructor_guide.md``, with its grading examples)
is left out of the book and of its table of contents; and the notebook that
each chapter's download button serves (``_sources/chapters/<chapter>.ipynb``)
is the student version of the chapter, as ``make-student`` writes it
(:func:`coursework.make_student_notebook`: solutions stubbed, hidden checks
removed, the text in Jupyter Markdown), so that the button works and gives
nothing away.

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
import re
import sys
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


INSTRUCTOR_GUIDE = "instructor_guide"


def _configure(app, config):
    if config.kpca_remove_solutions:
        # pages can leave out what shows a solution: ```{only} not no_solutions
        app.tags.add("no_solutions")
        _drop_instructor_guide(config)


def _drop_instructor_guide(config):
    """Take the instructor guide out of the table of contents (read by sphinx-external-toc
    at config-inited, before this runs) and out of the documents read."""
    site_map = getattr(config, "external_site_map", None)
    if site_map is not None and INSTRUCTOR_GUIDE in site_map:
        for docname in site_map:
            document = site_map[docname]
            for tree in document.subtrees:
                tree.items = [item for item in tree.items if str(item) != INSTRUCTOR_GUIDE]
            document.subtrees = [tree for tree in document.subtrees if tree.items]
        del site_map[INSTRUCTOR_GUIDE]
    config.exclude_patterns = [*config.exclude_patterns, f"{INSTRUCTOR_GUIDE}.md"]


# a block of a Markdown page that only the book with solutions shows; it is cut from the
# source itself, because Sphinx resolves the references inside an {only} block (e.g. to the
# instructor guide, which this book has not) before it drops the block
_ONLY_WITH_SOLUTIONS = re.compile(r"^(`{3,}|:{3,})\{only\} not no_solutions[ \t]*\n.*?^\1[ \t]*$\n?",
                                  re.MULTILINE | re.DOTALL)


def _cut_blocks_with_solutions(app, docname, source):
    if app.config.kpca_remove_solutions and str(app.env.doc2path(docname)).endswith(".md"):
        source[0] = _ONLY_WITH_SOLUTIONS.sub("", source[0])


HIDDEN_CHECK_TAG = "hidden-check"


def _copied_notebooks(outdir):
    for path in sorted(Path(outdir).rglob("*")):
        if path.is_file() and (path.name.endswith(".ipynb") or path.name.endswith(".ipynb.txt")):
            try:
                nb = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                continue
            if isinstance(nb, dict) and isinstance(nb.get("cells"), list):
                yield path, nb


def strip_hidden_checks(app, exception):
    """Remove the hidden-check cells from every notebook copied into the HTML output."""
    if exception is not None:
        return
    for path, nb in _copied_notebooks(app.outdir):
        cells = nb["cells"]
        kept = [cell for cell in cells if HIDDEN_CHECK_TAG not in cell.get("metadata", {}).get("tags", [])]
        if len(kept) != len(cells):
            nb["cells"] = kept
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def publish_student_notebooks(app, exception):
    """Replace every notebook copied into the HTML output by its student version (book without solutions)."""
    if exception is not None:
        return
    import nbformat

    try:
        from coursework.authoring.handout import book_index
        from coursework.authoring.student import make_student_notebook
    except ImportError:  # the book's own checkout, when coursework is not installed
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from coursework.authoring.handout import book_index
        from coursework.authoring.student import make_student_notebook

    found = [(path, nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))
             for path, _ in _copied_notebooks(app.outdir)]
    bib = Path(app.srcdir) / "references.bib"
    for path, nb in found:
        name = path.name.removesuffix(".txt")
        others = [(other, other_path.name.removesuffix(".txt")) for other_path, other in found if other is not nb]
        student = make_student_notebook(nb, name=name, book=book_index(nb, name, others, bib))
        path.write_text(nbformat.writes(student) + "\n", encoding="utf-8")


def _publish(app, exception):
    if app.config.kpca_remove_solutions:
        publish_student_notebooks(app, exception)
    else:
        strip_hidden_checks(app, exception)


def setup(app):
    requested = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()
    app.add_config_value("kpca_remove_solutions", requested not in ("", "0", "false", "no"), "env")
    # after sphinx-external-toc has read the table of contents (priority 500)
    app.connect("config-inited", _configure, priority=900)
    app.add_transform(RemoveSolutions)
    app.connect("source-read", _cut_blocks_with_solutions)
    app.connect("build-finished", _publish)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
