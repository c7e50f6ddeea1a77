"""One visit of each page of the built book per width, serving every check that only reads it.

The page-wide checks of ``tests/test_book_in_browser.py`` and ``tests/test_rendered_pages.py``
(renders offline, figures, code cells, phone navigation and widths, TeX left as text, wide
formulas and outputs, equation labels in code) each loaded every page again: over 300 page
loads, each typesetting the page's mathematics, for facts that one load per page and width
gives. Here a page is opened once at a desktop's width and once at a phone's; the facts
every check reads are collected in an order that gives each the state its own load gave it
(the reading checks first, on the page as loaded; then the checks that open the
solutions; the navigation button, which opens the sidebar, last), and each check is still
its own test, reading its facts, so that a failure is named.

A visit's facts are written as JSON to the run's shared folder (the folder of the shared
build, ``test_book_in_browser.shared_build``) under a lock per page and width: the test
modules that read them, on one pytest-xdist worker or two, visit each page once in the run,
and two workers that need the same width at the same time share its pages between them
(each takes the pages no other worker holds, then waits for the rest).
"""

import fcntl
import json
import os

# the screens are the checks' own: test_book_in_browser's DESKTOP and PHONE (390 x 800 px) and
# test_rendered_pages' WIDTHS (its phone is 390 x 844 px): the page is resized between them


def visit_desktop(context, url, name):
    """The facts of one load of a page at 1280 px, in the order of the checks' own loads."""
    import test_book_in_browser as browser
    import test_rendered_pages as rendered

    foreign_before = len(context.foreign_requests)
    page, problems = browser.open_page(context, url + name)
    facts = {}
    # test_every_page_renders_offline_with_math_figures_and_no_errors: the page as loaded
    has_mathjax = page.locator("script[src*='mathjax']").count() > 0
    facts["offline"] = {
        "broken": page.evaluate(browser.BROKEN_IMAGES),
        "has_mathjax": has_mathjax,
        "rendered": page.locator("mjx-container").count() if has_mathjax else 0,
        "math": page.locator(".math").count() if has_mathjax else 0,
        "merror": page.locator("mjx-merror").count() if has_mathjax else 0,
        "prose": page.evaluate(browser.VISIBLE_PROSE) if has_mathjax else "",
        "problems": list(problems),
    }
    # test_code_and_outputs_name_equations_by_their_numbers: the text of code and outputs;
    # test_a_keyboard_reader_reaches_every_lab_from_the_first_tab_stops: the page's labs
    facts["code_and_output"] = page.evaluate(rendered.CODE_AND_OUTPUT)
    facts["labs"] = page.evaluate(rendered.LABS)
    # the figure and code-cell checks at 1280 px
    page.set_viewport_size(browser.DESKTOP)
    page.wait_for_timeout(200)
    facts["figures"] = page.evaluate(browser.FIGURE_FACTS)
    facts["clipped_code"] = page.evaluate(browser.CLIPPED_CODE)
    facts["figures_problems"] = list(problems)
    # test_rendered_pages: every solution and box opened
    facts["opened"] = opened_facts(page, problems, "1280px")
    # test_every_lab_of_the_book_follows_the_dark_theme, on a page with labs
    if facts["labs"]:
        facts["dark"] = browser.dark_theme_facts(page)
        facts["dark_problems"] = list(problems)
    page.close()
    facts["foreign"] = context.foreign_requests[foreign_before:]
    return facts


def visit_phone(context, url, name):
    """The facts of one load of a page at 390 px, in the order of the checks' own loads."""
    import test_book_in_browser as browser

    foreign_before = len(context.foreign_requests)
    page, problems = browser.open_page(context, url + name)
    facts = {}
    # test_phone_width_navigation_opens_and_nothing_is_wider_than_the_screen: the screen
    page.set_viewport_size(browser.PHONE)
    page.wait_for_timeout(200)
    facts["screen"] = page.evaluate(browser.SCREEN_FACTS)
    # test_every_figure_is_legible_on_a_phone_when_enlarged (opens and closes each figure)
    facts["enlarged"] = page.evaluate(browser.ENLARGED_FIGURES)
    facts["screen_problems"] = list(problems)
    # test_rendered_pages at its phone: every solution and box opened
    facts["opened"] = opened_facts(page, problems, "390px")
    # the navigation button last: it opens the sidebar over the page
    page.set_viewport_size(browser.PHONE)
    page.wait_for_timeout(200)
    chapter = "02_gram_trick.html" if name.endswith("01_pca.html") else "01_pca.html"
    first_chapter = chapter if "/" in name else "chapters/" + chapter
    before = browser.visible_link_to(page, first_chapter)
    pressed = browser.click_visible(page, ".primary-toggle")
    facts["navigation"] = {"shown_before": before, "pressed": pressed,
                           "shown_after": pressed and browser.visible_link_to(page, first_chapter),
                           "problems": list(problems)}
    page.close()
    facts["foreign"] = context.foreign_requests[foreign_before:]
    return facts


def opened_facts(page, problems, width):
    """test_rendered_pages' facts (its ``page_facts``) at its width: every solution and box
    opened, then the closed ones left, raw TeX, MathJax errors, wide formulas, wide outputs."""
    import test_rendered_pages as rendered

    page.set_viewport_size(rendered.WIDTHS[width])
    still_closed = page.evaluate(rendered.OPEN_EVERYTHING)
    page.wait_for_timeout(200)  # the width check of kpca-reading-aids.js after a resize
    return {"still_closed": still_closed, "raw": page.evaluate(rendered.RAW_SOURCE),
            "errors": page.locator("mjx-merror").count(),
            "formulas": page.evaluate(rendered.WIDE_INLINE_FORMULAS),
            "wide": page.evaluate(rendered.WIDE_OUTPUTS), "problems": list(problems)}


VISITS = {"1280px": visit_desktop, "390px": visit_phone}


class PageVisits:
    """``visits(name, width)``: the facts of the run's one visit of a page at a width.

    The first request for a width visits every page (those no other worker is visiting
    first, then waits for those), so that the facts are there for every check after it.
    """

    def __init__(self, root, pages, url, context):
        self.folder = root / "page-visits"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.pages, self.url, self.context = list(pages), url, context
        self.facts = {}

    def __call__(self, name, width):
        if (name, width) not in self.facts:
            self.visit_all(width)
            if (name, width) not in self.facts:  # a page outside the book's pages
                self.visit(name, width, wait=True)
        return self.facts[(name, width)]

    def visit_all(self, width):
        waiting = [name for name in self.pages if not self.visit(name, width, wait=False)]
        for name in waiting:
            self.visit(name, width, wait=True)

    def visit(self, name, width, wait):
        """Read the page's facts, visiting it first if no one has; False if another worker
        holds the page (and wait is False)."""
        stem = f"{width}-{name.replace('/', '--')}"
        done = self.folder / f"{stem}.json"
        with open(self.folder / f"{stem}.lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                return False
            if not done.exists():
                facts = VISITS[width](self.context, self.url, name)
                partial = done.with_suffix(".partial")
                partial.write_text(json.dumps(facts))
                os.replace(partial, done)
            self.facts[(name, width)] = json.loads(done.read_text())
        return True
