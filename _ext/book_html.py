"""Sphinx extension of this book: pages that load without errors, math everywhere.

Four small fixes of the HTML that Jupyter Book 1.x (Sphinx 7.4,
pydata-sphinx-theme) writes, found by ``tests/test_book_in_browser.py``:

- Sphinx 7.4 registers an inline script that an extension adds after the
  builder has started (sphinx-thebe's ``const THEBE_JS_URL = ...``,
  sphinx-togglebutton's selector) twice, once with the file name None and
  once with ''. Every page then declares ``THEBE_JS_URL`` twice and the
  browser reports a SyntaxError. We keep each script once.
- Sphinx loads MathJax only on pages with math in their body, but chapter
  titles with math (the Gram trick's ``d >> n``) are in every page's
  navigation: without MathJax they show as raw TeX. MathJax goes on every page.
- With no ``default_mode``, the theme's script logs "Got invalid theme
  mode" on a reader's first visit and falls back to "auto"; we say "auto".
- myst-nb copies a notebook's saved ipywidgets state (its metadata
  "widgets", 100-150 kB per chapter) into the page, for widget scripts the
  book does not load (``nb_ipywidgets_js: {}``): the live widgets need
  Python, and the HTML shows the labs instead. We leave the state out.

And one of reading order: the pages after the last appendix (the library's
reference, the instructor guide) are not the next chapter of a student's
reading, so "Next" at the end of appendix C leads nowhere, and those pages
have no "Previous" and "Next" between them and the chapters.
"""

# pages outside the students' reading order (see _toc.yml)
OUTSIDE_READING_ORDER = ("api", "instructor_guide")


def drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    """Keep the first of each (file, priority, attributes) in the page's scripts."""
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen, unique = set(), []
    for script in scripts:
        attributes = getattr(script, "attributes", {})
        key = (
            getattr(script, "filename", script) or "",
            getattr(script, "priority", None),
            tuple(sorted((name, str(value)) for name, value in attributes.items())),
        )
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def drop_widget_state(app, pagename, templatename, context, doctree):
    """Leave out the ipywidgets state that myst-nb embeds as an inline script."""
    scripts = context.get("script_files")
    if isinstance(scripts, list):
        scripts[:] = [script for script in scripts
                      if getattr(script, "attributes", {}).get("type") != WIDGET_STATE]


def _page_of(link):
    """The page name a relative link of the navigation points to ('../api.html' -> 'api')."""
    return link.rsplit("/", 1)[-1].split("#", 1)[0].removesuffix(".html")


def keep_reading_order(app, pagename, templatename, context, doctree):
    """No prev/next link between a chapter and a page outside the reading order."""
    here = pagename in OUTSIDE_READING_ORDER
    for key in ("prev", "next"):
        neighbour = context.get(key)
        if neighbour and (here or _page_of(neighbour.get("link", "")) in OUTSIDE_READING_ORDER):
            context[key] = None


def default_colour_mode(app, config):
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "auto")
    config.html_context = context


def setup(app):
    app.set_html_assets_policy("always")
    app.connect("config-inited", default_colour_mode)
    app.connect("html-page-context", drop_duplicate_scripts)
    app.connect("html-page-context", drop_widget_state)
    app.connect("html-page-context", keep_reading_order)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
