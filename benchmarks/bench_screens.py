"""What the phone-width browser test measures, per page of a built book, as one table.

For every page of the book (``--html DIR``, a built ``_build/html``) it opens
the page in headless Chromium (Debian's, through Playwright, as
``tests/test_book_in_browser.py`` does; only 127.0.0.1 is reached) and
evaluates that test's ``SCREEN_FACTS``:

- at 390 px (a phone): the page's width, the display equations, those that
  scroll sideways inside their box, those of them with no visible cue
  (a scroll shadow), and the equations that are tab stops;
- at 1280 px (a desktop): the smallest scale at which a figure of the page is
  shown, its displayed width over its drawn width (1.0: shown at its drawn
  size; retina PNGs count at their drawn width, half their pixels).

With ``--build CHECKOUT`` it first builds that checkout's book as the browser
test's ``book`` fixture does (execution off, the committed outputs,
``-W --keep-going``) into ``--html``'s parent folders, so that two commits
can be compared on the same machine, e.g. (issue 30's "before" and "after")::

    git worktree add --detach /tmp/before <commit>
    PYTHONPATH=. .venv/bin/python benchmarks/bench_screens.py --build /tmp/before --html /tmp/b
    PYTHONPATH=. .venv/bin/python benchmarks/bench_screens.py --html _build/html

The JavaScript is this checkout's ``SCREEN_FACTS``, whatever the book measured.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_book_in_browser import (  # noqa: E402
    CHROMIUM, CHROMIUM_ARGS, PHONE, SCREEN_FACTS, book_pages, build_book, local_server, sync_api,
)

DESKTOP = {"width": 1280, "height": 900}
COLUMNS = ("page", "width px", "display eqs", "scrolling", "no cue", "math tab stops",
           "smallest fig scale")


def measure(context, url):
    """SCREEN_FACTS at 390 px, and the smallest figure scale at 1280 px, of one page."""
    page = context.new_page()
    page.set_viewport_size(DESKTOP)
    page.goto(url, wait_until="load")
    if page.locator("script[src*='mathjax']").count():
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
    desktop = page.evaluate(SCREEN_FACTS)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(200)
    phone = page.evaluate(SCREEN_FACTS)
    page.close()
    return phone, desktop["smallestFigureScale"]


def table(html):
    """One row per page: the columns of COLUMNS."""
    rows = []
    with local_server(html) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context()
        # nothing but the local server (the book is offline)
        context.route("**/*", lambda route: route.continue_()
                      if route.request.url.startswith((base, "data:", "blob:", "about:"))
                      else route.abort())
        for name in book_pages(Path(html)):
            if name == "index.html":
                continue  # a redirect to intro.html
            phone, scale = measure(context, base + name)
            rows.append((name.removeprefix("chapters/").removesuffix(".html"),
                         phone["pageWidth"], phone["displayEquations"], phone["scrolling"],
                         phone["clippedWithoutCue"], phone["mathTabStops"],
                         "-" if scale is None else f"{scale:.2f}"))
        browser.close()
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", required=True, help="a built book's HTML folder (or, with "
                        "--build, the folder to build into)")
    parser.add_argument("--build", help="a checkout to build first, execution off")
    args = parser.parse_args(argv)
    html = build_book(Path(args.html), checkout=args.build) if args.build else Path(args.html)
    if not (html / "intro.html").is_file():
        sys.exit(f"--html: no built book (intro.html) in {html}")
    rows = table(html)
    widths = [max(len(str(row[i])) for row in rows + [COLUMNS]) for i in range(len(COLUMNS))]
    print(f"{html}: phone 390 px, figures at {DESKTOP['width']} px")
    for row in [COLUMNS] + rows:
        print("  ".join(str(cell).rjust(width) if i else str(cell).ljust(width)
                        for i, (cell, width) in enumerate(zip(row, widths))))


if __name__ == "__main__":
    main()
