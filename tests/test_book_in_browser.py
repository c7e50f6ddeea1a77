"""The built book in a real browser: offline, math rendered, figures loaded, sliders working.

The book is built into a temporary directory from the notebooks *as committed*
(execution switched off by a copy of ``_config.yml``): the same test run
re-executes every notebook with nbval and compares it with those committed
outputs, so executing them a second time here would add a minute and check
nothing new. The build keeps ``-W --keep-going`` (any Sphinx warning fails).

Every page is then served on 127.0.0.1 by a local ``http.server`` thread and
opened in headless Chromium (Debian's ``chromium``, driven by Playwright's
Python package; no browser is ever downloaded). A request to any other host
is blocked and fails the test. A screenshot of chapter 5's de-noising lab is
saved to ``_build/screenshots/denoising_explorer.png``. Every lab computed in
the browser (``kpca_lib.explorers.labs``) is checked against kpca_lib on its page
(``tests/lab_parity.py``).
"""

import contextlib
import functools
import json
import os
import re
import subprocess
import sys
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from toc_pages import CHAPTER_PAGES, SECTIONS

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("KPCA_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOT = ROOT / "_build" / "screenshots" / "denoising_explorer.png"
EXPLORER_PAGE = "chapters/05_preimages_denoising.html"
# resolves once two animation frames have passed: what the page drew by now is painted
TWO_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
# no background traffic of the browser itself (updates, sync, QUIC probes)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not CHROMIUM.exists():
    pytest.skip(
        f"no Chromium at {CHROMIUM}: install it with `apt-get install chromium` "
        "(Debian/Ubuntu; or point KPCA_CHROMIUM at a Chromium binary) to run the browser test",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is missing: pip install -r requirements.txt"
)


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The book built from the committed notebooks; the path of its HTML. KPCA_BOOK_HTML
    names a book already built (its _build/html) to test instead, when iterating locally."""
    if os.environ.get("KPCA_BOOK_HTML"):
        return Path(os.environ["KPCA_BOOK_HTML"]).resolve()
    return shared_build(tmp_path_factory, "book")


def run_folder(tmp_path_factory):
    """The temporary folder of this test run, shared by its pytest-xdist workers."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of this run
    return root


def shared_build(tmp_path_factory, name, environment=None):
    """build_book, once per test run: every module that asks for the same build, on any
    pytest-xdist worker, gets the one build (a build takes minutes; the browser tests are
    split over several modules). The first worker to ask builds under a lock."""
    import fcntl

    root = run_folder(tmp_path_factory)
    out = root / f"shared-{name}"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = out / "built"
        if not done.exists():
            build_book(out, environment=environment)
            done.touch()
    return out / "_build" / "html"


BUILD_TIMEOUT = 1800  # seconds


def build_book(out, checkout=ROOT, environment=None):
    """Build a checkout's book from its committed notebooks (execution off) into out, with
    environment variables added (e.g. KPCA_REMOVE_SOLUTIONS); the path of its HTML."""
    checkout, out = Path(checkout).resolve(), Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((checkout / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"
    # jupyter-book resolves local extensions against the config file's folder
    local = config["sphinx"].get("local_extensions") or {}
    for extension, path in local.items():
        local[extension] = str((checkout / path).resolve())
    config_path = out / "_config.yml"
    config_path.write_text(yaml.safe_dump(config))
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    command = [str(jupyter_book), "build", str(checkout), "--path-output", str(out),
               "--config", str(config_path), "-W", "--keep-going"]
    # a build takes 30-40 s on a quiet 2-core machine, and ran past 600 s once with both books
    # building at a load of ~20: the limit only stops a build that hangs, never a slow one
    result = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT,
                            env={**os.environ, **(environment or {})})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out / "_build" / "html"


@contextlib.contextmanager
def local_server(directory):
    """Serve a directory on 127.0.0.1 (a free port) from a thread; yields the base URL."""

    class QuietHandler(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=directory))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def server(book):
    """Base URL of a local HTTP server of the book."""
    with local_server(book) as url:
        yield url


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory):
    """A Chromium context with a fresh profile that records and blocks foreign requests."""
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        context.foreign_requests = []

        def only_local(route):
            url = route.request.url
            if urlsplit(url).scheme in ("data", "blob", "about") or urlsplit(url).hostname == "127.0.0.1":
                route.continue_()
            else:
                context.foreign_requests.append(url)
                route.abort()

        context.route("**/*", only_local)
        yield context
        context.close()


@pytest.fixture(scope="module")
def page_visits(book, server, browser_context, tmp_path_factory):
    """``page_visits(name, width)``: the facts of the run's one visit of a page at "1280px"
    or "390px" (tests/page_visits.py), read by every page-wide check of this module and of
    tests/test_rendered_pages.py."""
    from page_visits import PageVisits

    pages = [name for name in book_pages(book) if name != "index.html"]
    return PageVisits(run_folder(tmp_path_factory), pages, server, browser_context)


def book_pages(book):
    pages = sorted(p.relative_to(book).as_posix() for p in book.rglob("*.html"))
    # theme templates copied into _static are not pages
    return [page for page in pages if not page.startswith(("_static/", "_sources/"))]


def open_page(context, url):
    """Open url; return the page and the problems seen while loading it."""
    page = context.new_page()
    problems = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url} {r.failure}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))
    page.goto(url, wait_until="load")
    if page.locator("script[src*='mathjax']").count():
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
    return page, problems


# text outside code, where no TeX source may be left (navigation included)
VISIBLE_PROSE = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container, .kpca-explorer').forEach(e => e.remove());
  return copy.textContent;
}"""

BROKEN_IMAGES = """() => Array.from(document.images)
  .filter(img => !(img.complete && img.naturalWidth > 0))
  .map(img => img.src.slice(0, 80))"""


def test_every_page_renders_offline_with_math_figures_and_no_errors(book, server, browser_context,
                                                                    page_visits):
    """Every page as loaded at 1280 px (its facts from the run's one visit, page_visits)."""
    pages = book_pages(book)
    assert EXPLORER_PAGE in pages and "intro.html" in pages
    # index.html only redirects (meta refresh) to intro.html, which is checked itself
    page, problems = open_page(browser_context, server + "index.html")
    page.wait_for_url("**/intro.html")
    page.close()
    report = {"index.html": problems} if problems else {}
    n_math, foreign = 0, []
    for name in pages:
        if name == "index.html":
            continue
        visit = page_visits(name, "1280px")
        facts = visit["offline"]
        foreign += visit["foreign"]
        problems = facts["problems"] + [f"image not loaded: {src}" for src in facts["broken"]]
        if facts["has_mathjax"]:
            n_math += facts["rendered"]
            # MathJax is on every page (book_html.py); a page with maths must show it typeset
            if facts["rendered"] == 0 and facts["math"]:
                problems.append("MathJax loaded but rendered nothing")
            if facts["merror"]:
                problems.append("MathJax error (mjx-merror) on the page")
            for raw in ("$$", "\\[", "\\(", "\\begin{"):
                if raw in facts["prose"]:
                    problems.append(f"raw TeX {raw!r} left in the text")
        if problems:
            report[name] = problems
    assert not report, report
    assert not foreign and not browser_context.foreign_requests, (foreign, browser_context.foreign_requests)
    assert n_math > 100  # the chapters are full of equations


def test_scripts_styles_and_fonts_come_from_the_book(book):
    # sphinx-thebe names unpkg.com in an inline script, but fetches it only when
    # a reader presses its "live code" button, which this book does not show
    external = re.compile(r"""(?:<script[^>]*\ssrc|<link[^>]*\shref|<img[^>]*\ssrc)=["'](?:https?:)?//""")
    for html in sorted(book.rglob("*.html")):
        text = html.read_text()
        assert not external.search(text), (html.name, external.search(text).group(0))
    for name in book_pages(book):
        if name == "index.html":
            continue  # a redirect to intro.html
        # MathJax on every page: chapter titles with math are in every page's navigation
        depth = "../" * name.count("/")
        assert f'src="{depth}_static/mathjax/tex-chtml.js"' in (book / name).read_text(), name
    for css in book.rglob("*.css"):
        assert not re.search(r"""(?:@import|url\()\s*["']?(?:https?:)?//""", css.read_text()), css
    assert (book / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()


def test_the_denoising_page_has_the_browser_lab(server, browser_context):
    """Chapter 5 shows the browser-computed lab (not precomputed frames); its parity with
    kpca_lib is checked by test_every_lab_in_the_book_matches_kpca_lib."""
    page, problems = open_page(browser_context, server + EXPLORER_PAGE)
    assert page.locator(".kpca-explorer").count() == 0  # no precomputed frames any more
    labs = page.locator(".kpca-lab")
    assert labs.count() == 1
    lab = labs.first
    lab.locator("input[type=range]").first.wait_for()  # built by the page's JavaScript
    # noise, width, components, iterations (the width rule is a toggle, not a range)
    assert lab.locator("input[type=range]").count() == 4
    assert lab.locator("input[type=checkbox]").count() >= 1
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    # the theme scrolls smoothly (over about a second): a screenshot taken on the way is of
    # whatever the page passes, often not yet painted; so jump there, with the lab computed
    page.evaluate("() => window.kpcaLabs[0].whenIdle()")
    lab.evaluate("el => el.scrollIntoView({block: 'center', behavior: 'instant'})")
    page.evaluate(TWO_FRAMES)
    top, bottom = lab.evaluate("el => [el.getBoundingClientRect().top, el.getBoundingClientRect().bottom]")
    assert top < 450 < bottom, (top, bottom)  # there already, not on the way
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000
    assert not problems, problems
    assert not browser_context.foreign_requests, browser_context.foreign_requests
    page.close()


PAGE_WEIGHT = """() => performance.getEntriesByType('navigation')
  .concat(performance.getEntriesByType('resource'))
  .reduce((total, entry) => total + (entry.encodedBodySize || 0), 0)"""


def test_every_lab_in_the_book_matches_kpca_lib(book, server, browser_context):
    """Every lab computed in the browser (kpca_lib.explorers.labs) agrees with kpca_lib on its page.

    The checks are those of tests/test_labs_in_browser.py (tests/lab_parity.py),
    run on the data each page was sent. Prints the errors and the page weights.
    """
    from lab_parity import check_every_lab, format_report

    n_labs = 0
    for name in book_pages(book):
        if name == "index.html" or 'class="kpca-lab ' not in (book / name).read_text():
            continue
        page, problems = open_page(browser_context, server + name)
        for index, (kind, report) in check_every_lab(page).items():
            n_labs += 1
            print("\n" + format_report(f"{name}, lab {index} ({kind}) against kpca_lib:", report))
        print(f"{name}: page weight {page.evaluate(PAGE_WEIGHT) / 1e6:.2f} MB")
        assert not problems, problems
        page.close()
    assert not browser_context.foreign_requests, browser_context.foreign_requests
    if n_labs == 0:
        pytest.skip("no lab computed in the browser is embedded in the book's chapters yet")


# ------------------------------------------------------------ every screen (issue 30)

PHONE = {"width": 390, "height": 800}
SCREEN_FACTS = """() => {
  const width = document.documentElement.clientWidth;
  const display = [...document.querySelectorAll('mjx-container[display="true"]')];
  const scrolls = display.filter(e => e.scrollWidth > e.clientWidth + 1);
  const cue = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)
                   && getComputedStyle(e).backgroundImage.includes('gradient');
  // a retina PNG is drawn at half its pixels: myst-nb writes that width as an inline
  // style (a lab frame as a width attribute); other images are drawn at their pixels
  const drawn = img => parseFloat(img.style.width) || parseFloat(img.getAttribute('width'))
                       || img.naturalWidth;
  const figures = [...document.querySelectorAll('.bd-article img')]
    .filter(img => img.naturalWidth > 0 && img.closest('.cell_output, figure'))
    .map(img => img.getBoundingClientRect().width / drawn(img));
  return {
    pageWidth: document.documentElement.scrollWidth, width,
    displayEquations: display.length,
    scrolling: scrolls.length,
    clippedWithoutCue: scrolls.filter(e => !cue(e)).length,
    mathTabStops: [...document.querySelectorAll('mjx-container')].filter(e => e.tabIndex >= 0).length,
    smallestFigureScale: figures.length ? Math.min(...figures) : null,
  };
}"""


def visible_link_to(page, href_end):
    """Is a link to href_end on screen (inside the viewport, not hidden)?"""
    return page.evaluate("""(end) => [...document.querySelectorAll('.bd-sidebar-primary a')]
      .filter(a => a.getAttribute('href').endsWith(end))
      .some(a => { const r = a.getBoundingClientRect(), s = getComputedStyle(a);
                   return r.width > 0 && r.left >= 0 && r.right <= innerWidth + 1 && s.visibility === 'visible'; })""",
                         href_end)


def click_visible(page, selector):
    buttons = page.locator(selector)
    for i in range(buttons.count()):
        if buttons.nth(i).is_visible():
            buttons.nth(i).click()
            page.wait_for_timeout(400)  # the sidebar's slide-in transition
            return True
    return False


def test_phone_width_navigation_opens_and_nothing_is_wider_than_the_screen(book, page_visits):
    """At 390 px every page: the navigation button opens the chapter list; no page is wider than
    the screen; a display equation that scrolls shows that it does; no equation is a tab stop.
    Prints per page the page width, the scrolling equations and the smallest figure scale.
    (The facts of the run's one visit of each page at 390 px, page_visits.)"""
    report = {}
    for name in book_pages(book):
        if name == "index.html":
            continue
        visit = page_visits(name, "390px")
        facts, navigation = visit["screen"], visit["navigation"]
        problems = navigation["problems"] + [f"foreign request: {url}" for url in visit["foreign"]]
        print(f"\n{name} at 390 px: {facts}")
        if facts["pageWidth"] > facts["width"] + 1:
            problems.append(f"page {facts['pageWidth']} px wide on a {facts['width']} px screen")
        if facts["clippedWithoutCue"]:
            problems.append(f"{facts['clippedWithoutCue']} display equations scroll with no cue")
        if facts["mathTabStops"]:
            problems.append(f"{facts['mathTabStops']} equations are tab stops")
        # a chapter's link (the current page's own link is "#"): tests/page_visits.py
        if navigation["shown_before"]:
            problems.append("the chapter list shows before the navigation button is pressed")
        if not navigation["pressed"] or not navigation["shown_after"]:
            problems.append("the navigation button does not open the chapter list")
        if problems:
            report[name] = problems
    assert not report, report


def test_sidebars_toggle_on_a_desktop_and_the_contents_open_on_a_phone(server, browser_context):
    page, problems = open_page(browser_context, server + "chapters/04_kernel_pca.html")
    page.set_viewport_size({"width": 1280, "height": 900})
    assert visible_link_to(page, "01_pca.html")
    assert click_visible(page, ".primary-toggle") and not visible_link_to(page, "01_pca.html")
    assert click_visible(page, ".primary-toggle") and visible_link_to(page, "01_pca.html")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(400)  # the sidebars' transition to the phone layout
    contents = page.locator(".bd-sidebar-secondary").first
    assert not contents.is_visible() or contents.bounding_box()["x"] >= PHONE["width"]
    assert click_visible(page, ".secondary-toggle")
    box = contents.bounding_box()
    assert contents.is_visible() and 0 <= box["x"] < PHONE["width"]
    assert not problems, problems
    page.close()


def test_the_reading_order_ends_with_the_last_appendix(book):
    # the last page of the reading order: appendix C's last evidence section (_toc.yml)
    last_page = (SECTIONS[CHAPTER_PAGES[-1]] or [CHAPTER_PAGES[-1]])[-1]
    last_appendix = (book / "chapters" / f"{last_page.stem}.html").read_text()
    assert 'class="right-next"' not in last_appendix
    for outside in ("api.html", "instructor_guide.html"):
        text = (book / outside).read_text()
        assert 'class="left-prev"' not in text and 'class="right-next"' not in text, outside
    # the chapters still lead from one to the next
    assert 'class="right-next"' in (book / "chapters" / "B_robust_pca.html").read_text()


# build and tooling words a student should not meet in the text, and the doubled word a
# "exercise {ref}`label`" renders ("exercise Exercise 4"): sphinx-exercise's {ref} already
# says "Exercise"
TOOLING_WORDS = ("exercise exercise", "nbval", "ignores the output", "running kernel",
                 "hidden check", "build machine")


class ProseText(HTMLParser):
    """The text a reader sees on a page, without scripts, styles and code-cell inputs (the
    code itself; its comments are the instructors' concern and the outputs are kept), and
    the inline code of the prose on its own."""

    SKIPPED = ("script", "style")

    def __init__(self):
        super().__init__()
        self.text, self.inline_code = [], []
        self.stack = []  # (tag, skipped, inline code) of every open element

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "hr", "meta", "link", "input", "wbr", "source"):
            return
        classes = (dict(attrs).get("class") or "").split()
        skipped = tag in self.SKIPPED or "cell_input" in classes
        code = tag == "code" and "literal" in classes
        self.stack.append((tag, skipped, code))

    def handle_endtag(self, tag):
        if any(open_tag == tag for open_tag, _, _ in self.stack):
            while self.stack.pop()[0] != tag:
                pass

    def handle_data(self, data):
        if any(skipped for _, skipped, _ in self.stack):
            return
        self.text.append(data)
        if any(code for _, _, code in self.stack):
            self.inline_code.append(data)


def test_the_chapters_speak_to_students_and_search_finds_nystrom(book):
    """No build or tooling words in the chapters' text (no "nbval", "running kernel", "hidden
    check", "build machine", no private names in inline code), no "exercise Exercise 4", and
    the search finds "nystrom", the spelling without an umlaut, on appendix C."""
    found = {}
    for page in sorted((book / "chapters").glob("*.html")):
        prose = ProseText()
        prose.feed(page.read_text())
        text = re.sub(r"\s+", " ", " ".join(prose.text)).lower()
        words = [word for word in TOOLING_WORDS if word in text]
        code = " ".join(prose.inline_code)
        words += sorted(set(re.findall(r"(?<![\w.])_[A-Za-z]\w*|\b\w+\._[A-Za-z]\w*", code)))
        if words:
            found[page.name] = words
    assert not found, found
    index = (book / "searchindex.js").read_text()
    index = json.loads(index[index.index("(") + 1 : index.rindex(")")])
    hits = index["terms"].get("nystrom", [])
    hits = [index["docnames"][i] for i in (hits if isinstance(hits, list) else [hits])]
    assert "chapters/C_kernel_pca_at_scale" in hits and "api" in hits, hits


def test_one_search_box_on_a_desktop(server, browser_context):
    page, problems = open_page(browser_context, server + "chapters/C_kernel_pca_at_scale.html")
    page.set_viewport_size({"width": 1280, "height": 900})
    shown = page.evaluate("""() => [...document.querySelectorAll('.search-button__button')]
        .filter(e => e.getBoundingClientRect().width > 0 && getComputedStyle(e).visibility !== 'hidden')
        .length""")
    assert shown == 1, f"{shown} search boxes at 1280 px"
    assert not problems, problems
    page.close()


# ------------------------------------------------- numbers per chapter, labels like citations
# (issue 30, item 11; _ext/chapter_numbers.py and _ext/author_year_labels.py)

CHAPTER_NOTEBOOKS = CHAPTER_PAGES  # the chapter pages (their sections hold no exercises)
# sphinx-exercise's title of a numbered exercise: its id and "Exercise 4.2"
EXERCISE_TITLE = re.compile(r'<div class="exercise[^"]*" id="([^"]+)">\s*'
                            r'<p class="admonition-title"><span class="caption-number">Exercise (\S+) ')
# "Solution to Exercise 4.2", linked to its exercise
SOLUTION_TITLE = re.compile(r'Solution to<a class="reference internal" href="#([^"]+)"> Exercise (\S+)</a>')
EQUATION_NUMBER = re.compile(r'<div class="math notranslate nohighlight" id="([^"]+)">\s*'
                             r'<span class="eqno">\(([^)]+)\)')
# {numref}/{ref} to an exercise, and {eq}: the link's target and text
NUMREF_LINK = re.compile(r'<a class="reference internal" href="([^"]*)#([^"]+)">'
                         r'<span class="std std-numref">([^<]*)</span></a>')
EQ_LINK = re.compile(r'<a class="reference internal" href="([^"]*)#(equation-[^"]+)">\(([^)<]*)\)</a>')
CITATION = re.compile(r'<span class="bibtex-citation"[^>]*>\[<a class="reference internal" '
                      r'href="#([^"]+)"[^>]*>(.*?)</a>')
BIBLIOGRAPHY_LABEL = re.compile(r'<div class="citation" id="([^"]+)" role="doc-biblioentry">\s*'
                                r'<span class="label"><span class="fn-bracket">\[</span>(.*?)'
                                r'<span class="fn-bracket">\]</span>')


def html_text(fragment):
    """The text of an HTML fragment (tags dropped, entities decoded, spaces as a reader sees
    them: the citations tie "Van&nbsp;Loan" with a no-break space)."""
    import html
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


def chapter_html(book, notebook):
    return (book / "chapters" / f"{notebook.stem}.html").read_text()


def test_exercises_are_numbered_per_chapter_as_the_grader_numbers_them(book):
    """Exercise 4.1, 4.2, ... in the order of the page, the numbers of
    coursework's exercise_numbers() in every chapter, and each solution's title
    names its exercise's number; the search index has the same titles."""
    import nbformat

    from coursework.authoring.exercises import chapter_token, exercise_numbers

    index = (book / "searchindex.js").read_text()
    index = json.loads(index[index.index("(") + 1: index.rindex(")")])
    assert len(CHAPTER_NOTEBOOKS) == 8
    for notebook in CHAPTER_NOTEBOOKS:
        token, html = chapter_token(notebook.name), chapter_html(book, notebook)
        titles = EXERCISE_TITLE.findall(html)
        assert titles, notebook.name
        shown = dict(titles)
        assert [number for _, number in titles] == [f"{token}.{k}" for k in range(1, len(titles) + 1)]
        expected = exercise_numbers(nbformat.read(notebook, as_version=4), notebook.name)
        assert {label: shown.get(label) for label in expected} == expected, notebook.name
        solutions = SOLUTION_TITLE.findall(html)
        assert solutions and all(shown[label] == number for label, number in solutions), solutions
        # the search finds "Solution to Exercise 4.2" on chapter 4, with no number of another page
        docname = index["docnames"].index(f"chapters/{notebook.stem}")
        in_index = {title.removeprefix("Solution to Exercise ")
                    for title, places in index["alltitles"].items()
                    if title.startswith("Solution to Exercise ") and docname in [p[0] for p in places]}
        assert in_index == {number for _, number in solutions}, notebook.name
    first = EXERCISE_TITLE.findall(chapter_html(book, ROOT / "chapters" / "04_kernel_pca.ipynb"))
    assert [number for _, number in first[:2]] == ["4.1", "4.2"]


def test_equations_are_numbered_per_chapter(book):
    """(5.1), (5.2), ... in page order, and the handouts number them as the book does
    (coursework.authoring.myst_markdown.equation_numbers)."""
    import nbformat

    from coursework.authoring.exercises import chapter_token
    from coursework.authoring.myst_markdown import equation_numbers

    for notebook in CHAPTER_NOTEBOOKS:
        token = chapter_token(notebook.name)
        found = EQUATION_NUMBER.findall(chapter_html(book, notebook))
        numbers = [number for _, number in found]
        assert numbers == [f"{token}.{k}" for k in range(1, len(numbers) + 1)], notebook.name
        handout = equation_numbers(nbformat.read(notebook, as_version=4), notebook.name)
        assert len(handout) == len(numbers), (notebook.name, len(handout), len(numbers))
        shown = dict(found)
        labelled = {label: number for label, number in handout.items() if f"equation-{label}" in shown}
        assert labelled and all(shown[f"equation-{label}"] == number
                                for label, number in labelled.items()), notebook.name
        # the chapter's evidence sections number on from the chapter page, in reading order
        for section in SECTIONS[notebook]:
            found = [number for _, number in EQUATION_NUMBER.findall(chapter_html(book, section))]
            assert found == [f"{token}.{k}" for k in range(len(numbers) + 1, len(numbers) + len(found) + 1)], \
                section.name
            numbers += found
    chapter_5 = EQUATION_NUMBER.findall(chapter_html(book, ROOT / "chapters" / "05_preimages_denoising.ipynb"))
    assert len(chapter_5) > 5 and chapter_5[0][1] == "5.1"
    # pages outside the chapters are numbered on their own, without a chapter token
    for page in ("intro.html", "instructor_guide.html", "api.html"):
        numbers = [number for _, number in EQUATION_NUMBER.findall((book / page).read_text())]
        assert numbers == [str(k) for k in range(1, len(numbers) + 1)], page


def test_cross_references_show_their_targets_numbers(book):
    """Every {numref}/{ref} to an exercise and every {eq} reads the number its target shows,
    on its own page or another chapter's."""
    exercises, equations = {}, {}  # (page, id) -> number the target shows
    for path in sorted(book.rglob("*.html")):
        page = path.relative_to(book).as_posix()
        html = path.read_text()
        exercises.update({(page, id_): number for id_, number in EXERCISE_TITLE.findall(html)})
        equations.update({(page, id_): number for id_, number in EQUATION_NUMBER.findall(html)})
    n_links = {"exercise": 0, "equation": 0}
    for path in sorted((book / "chapters").glob("*.html")):
        page, html = path.relative_to(book).as_posix(), path.read_text()

        def target(href, id_):
            return (page if not href else (path.parent / href).resolve().relative_to(book.resolve()).as_posix(), id_)

        for href, id_, text in NUMREF_LINK.findall(html):
            if (key := target(href, id_)) in exercises:
                n_links["exercise"] += 1
                assert text == f"Exercise {exercises[key]}", (page, id_, text)
        for href, id_, text in EQ_LINK.findall(html):
            n_links["equation"] += 1
            assert text == equations[target(href, id_)], (page, id_, text)
    assert n_links["exercise"] > 50 and n_links["equation"] > 100, n_links


def test_bibliography_labels_read_like_the_citations(book):
    """The label of each bibliography entry is the author-year text of its citations
    ("Schölkopf et al., 1998"), not an alpha code ("Sch98"); two works cited alike
    get "1999a" and "1999b"."""
    n_citations, labels_seen = 0, {}
    for path in sorted(book.rglob("*.html")):
        html = path.read_text()
        labels = {id_: html_text(label) for id_, label in BIBLIOGRAPHY_LABEL.findall(html)}
        for label in labels.values():
            assert re.fullmatch(r"[^\[\]]+, (?:\d{4}[a-z]?|n\.d\.)", label), (path.name, label)
        for target, text in CITATION.findall(html):
            n_citations += 1
            assert labels[target] == html_text(text), (path.name, target, text)
        for id_, label in labels.items():
            entry = re.search(rf'id="{id_}" role="doc-biblioentry">.*?<p>(.*?)</p>', html, re.S)
            labels_seen.setdefault(label, set()).add(html_text(entry.group(1)))
    assert n_citations > 100
    # one label, one work (the same work's entry may differ by its page's links only)
    assert all(len({text[:60] for text in texts}) == 1 for texts in labels_seen.values()), {
        label: texts for label, texts in labels_seen.items() if len({t[:60] for t in texts}) > 1}
    assert "Schölkopf et al., 1998" in labels_seen and "Bishop, 2006" in labels_seen
    assert {"Mika et al., 1999a", "Mika et al., 1999b"} <= set(labels_seen)




# ------------------------------------------------- figures: size, alt text, enlarging (issue 30)

DESKTOP = {"width": 1280, "height": 900}
# the book's figures: images in code-cell outputs and figure elements, not the labs' own
FIGURE_FACTS = """() => [...document.querySelectorAll('.bd-article img')]
  .filter(img => img.closest('.cell_output, figure') && !img.closest('.kpca-lab, .kpca-explorer'))
  .map(img => ({
    // a retina PNG's drawn width (half its pixels) is in its inline style (myst-nb)
    drawn: parseFloat(img.style.width) || parseFloat(img.getAttribute('width')) || img.naturalWidth,
    ratio: img.getBoundingClientRect().height / img.getBoundingClientRect().width
           * img.naturalWidth / (img.naturalHeight || 1),
    shown: img.getBoundingClientRect().width,
    alt: (img.getAttribute('alt') || '').trim(),
    loaded: img.complete && img.naturalWidth > 0,
  }))"""


def test_figures_are_shown_at_their_drawn_size_with_alt_text_on_a_desktop(book, page_visits):
    """At 1280 px no figure of a chapter is shown below 0.9 of its drawn width (a retina PNG
    is drawn at half its pixels, the width myst-nb writes in its style) nor stretched, and
    every figure has alt text that says what it shows, not a file name. Prints per page the
    smallest scale. (The run's one visit of each page at 1280 px, page_visits.)"""
    report = {}
    for name in book_pages(book):
        if not name.startswith("chapters/"):
            continue
        visit = page_visits(name, "1280px")
        problems = list(visit["figures_problems"])
        figures = [f for f in visit["figures"] if f["loaded"]]
        scales = [f["shown"] / f["drawn"] for f in figures]
        smallest = min(scales) if scales else None
        print(f"\n{name} at 1280 px: {len(figures)} figures, smallest figure scale "
              f"{smallest if smallest is None else round(smallest, 3)}")
        for figure, scale in zip(figures, scales):
            if scale < 0.9:
                problems.append(f"a figure {figure['drawn']:.0f} px wide is shown at {scale:.2f}")
            if abs(figure["ratio"] - 1) > 0.02:
                problems.append(f"a figure is shown stretched (aspect ratio x{figure['ratio']:.2f})")
            alt = figure["alt"]
            if len(alt.split()) < 4 or re.search(r"_images/|\.(png|svg|jpe?g)$", alt):
                problems.append(f"alt text {alt[:60]!r} does not say what the figure shows")
        if problems:
            report[name] = problems
    assert not report, report


def test_a_figure_opens_full_screen_on_a_tap_or_enter_and_closes(server, browser_context):
    page, problems = open_page(browser_context, server + "chapters/01_pca.html")
    page.set_viewport_size(DESKTOP)
    figure = page.locator(".bd-article .cell_output img.kpca-zoomable").first
    figure.wait_for()
    assert figure.get_attribute("tabindex") == "0"
    assert figure.get_attribute("role") == "button"
    assert figure.get_attribute("aria-label").startswith("Enlarge figure: ")
    dialog = page.locator("dialog.kpca-figure-zoom")

    def is_open():
        return page.evaluate("() => !!document.querySelector('dialog.kpca-figure-zoom[open]')")

    # a click (a tap) opens it, full-screen, showing the same image
    figure.scroll_into_view_if_needed()
    figure.click()
    assert is_open()
    box = dialog.bounding_box()
    assert box["width"] >= DESKTOP["width"] - 2 and box["height"] >= DESKTOP["height"] - 2
    assert dialog.locator("img").evaluate("i => i.src") == figure.evaluate("i => i.src")
    enlarged = dialog.locator("img").bounding_box()["width"]
    assert enlarged > figure.bounding_box()["width"]
    # Escape closes it and gives the focus back to the figure
    page.keyboard.press("Escape")
    assert not is_open()
    assert page.evaluate("() => document.activeElement.classList.contains('kpca-zoomable')")
    # the keyboard: Enter on the focused figure opens it; a tap anywhere closes it
    page.keyboard.press("Enter")
    assert is_open()
    page.mouse.click(DESKTOP["width"] // 2, DESKTOP["height"] // 2)
    assert not is_open()
    # on a phone too
    page.set_viewport_size(PHONE)
    figure.scroll_into_view_if_needed()
    figure.click()
    assert is_open() and dialog.bounding_box()["width"] >= PHONE["width"] - 2
    page.keyboard.press("Escape")
    assert not is_open()
    # the labs' own images are not made zoomable
    assert page.locator(".kpca-lab img.kpca-zoomable, .kpca-explorer img.kpca-zoomable").count() == 0
    assert not problems, problems
    page.close()




# the sizes matplotlib gives a named font size, relative to font.size
NAMED_FONT_SIZES = {"xx-small": 0.579, "x-small": 0.694, "small": 0.833, "medium": 1.0,
                    "large": 1.2, "x-large": 1.44, "xx-large": 1.728}


def smallest_figure_text_pt(notebook):
    """The smallest text a notebook's figures draw, in points: the book style's sizes
    (kpca_lib/book.mplstyle) and every fontsize= its code cells pass."""
    style = {}
    for line in (ROOT / "kpca_lib" / "book.mplstyle").read_text().splitlines():
        key, _, value = line.partition(":")
        if key.strip().endswith(("size", "labelsize", "fontsize")) and value.strip():
            with contextlib.suppress(ValueError):
                style[key.strip()] = float(value.split("#")[0])
    base = style["font.size"]
    sizes = list(style.values())
    source = "\n".join("".join(cell["source"]) for cell in
                       json.loads(notebook.read_text())["cells"] if cell["cell_type"] == "code")
    for value in re.findall(r"fontsize=([0-9.]+|\"[a-z-]+\"|'[a-z-]+')", source):
        value = value.strip("\"'")
        sizes.append(base * NAMED_FONT_SIZES[value] if value in NAMED_FONT_SIZES else float(value))
    return min(sizes)


ENLARGED_FIGURES = """() => [...document.querySelectorAll('.bd-article img.kpca-zoomable')]
  .filter(img => img.complete && img.naturalWidth > 0).map(img => {
    window.kpcaFigureZoom.open(img);
    const d = document.querySelector('dialog.kpca-figure-zoom[open]');
    const big = d.querySelector('img');
    const cue = d.querySelector('.kpca-figure-zoom__cue');
    const facts = {
      drawn: parseFloat(img.style.width) || parseFloat(img.getAttribute('width')) || img.naturalWidth,
      column: img.getBoundingClientRect().width,
      shown: big.getBoundingClientRect().width, scroll: d.scrollWidth, seen: d.clientWidth,
      cue: !!cue && cue.offsetParent !== null};
    window.kpcaFigureZoom.close();
    return facts;
  })"""


def test_every_figure_is_legible_on_a_phone_when_enlarged(book, page_visits):
    """Issue 40, item 4. At 390 px a figure in the column is about half its drawn size (its
    9.5 pt ticks at about 7 px). A tap enlarges it to text of at least 9 CSS px: for every
    figure of every page, the enlarged figure's scale times its smallest text (the book
    style's sizes and the notebook's own fontsize=, at 100 dpi) is >= 9 px; a figure wider
    than the screen can be panned to its edges, with a cue. Prints per page the smallest.
    (The run's one visit of each page at 390 px, page_visits.)"""
    report = {}
    for name in book_pages(book):
        if not name.startswith("chapters/"):
            continue
        notebook = ROOT / Path(name).with_suffix(".ipynb")
        text_px = smallest_figure_text_pt(notebook) * 100 / 72
        visit = page_visits(name, "390px")
        problems = list(visit["screen_problems"])
        figures = visit["enlarged"]
        smallest = None
        for index, figure in enumerate(figures):
            px = text_px * figure["shown"] / figure["drawn"]
            smallest = px if smallest is None else min(smallest, px)
            if px < 9:
                problems.append(f"figure {index + 1}: its smallest text is {px:.1f} px enlarged")
            if figure["shown"] > figure["seen"] + 1:
                if figure["scroll"] < figure["shown"]:
                    problems.append(f"figure {index + 1} is cut off, not panned")
                if not figure["cue"]:
                    problems.append(f"figure {index + 1} pans with no cue")
        if figures:
            print(f"\n{name} at 390 px: {len(figures)} figures, smallest text enlarged "
                  f"{smallest:.1f} px (in the column "
                  f"{min(text_px * f['column'] / f['drawn'] for f in figures):.1f} px)")
        if problems:
            report[name] = problems
    assert not report, report

# ------------------------------------------------------------ code cells (issue 30, item 6)

CLIPPED_CODE = """() => [...document.querySelectorAll('.cell_input pre')]
  .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1).length"""


def test_no_code_cell_scrolls_sideways_on_a_desktop(book, page_visits):
    """The chapters keep code lines within 88 characters (tests/test_chapter_layout.py), and the
    book's code font fits 88 characters in the text column at 1280 px: no code cell scrolls.
    (The run's one visit of each page at 1280 px, page_visits.)"""
    clipped = {}
    for notebook in CHAPTER_NOTEBOOKS:
        visit = page_visits(f"chapters/{notebook.stem}.html", "1280px")
        n_clipped, problems = visit["clipped_code"], visit["figures_problems"]
        print(f"\n{notebook.stem} at 1280 px: {n_clipped} code cells scroll sideways")
        if n_clipped or problems:
            clipped[notebook.stem] = (n_clipped, problems)
    assert not clipped, clipped


# ------------------------------------------------- page weight and labs' themes (issue 27)

CHAPTER_HTML_LIMIT = 600_000  # bytes of a chapter's HTML (its assets apart)


def test_every_chapter_html_is_at_most_600_kB_and_carries_no_frames_or_widget_state(book):
    """Sizes are deterministic; benchmarks/bench_page_weight.py reports them with the assets."""
    sizes = {page.name: page.stat().st_size for page in sorted((book / "chapters").glob("*.html"))}
    print("\n" + "\n".join(f"{name}: {size / 1e3:.1f} kB" for name, size in sizes.items()))
    assert len(sizes) >= 8
    assert all(size <= CHAPTER_HTML_LIMIT for size in sizes.values()), sizes
    for page in (book / "chapters").glob("*.html"):
        text = page.read_text()
        # no precomputed frames, and no ipywidgets state for scripts the book does not load
        assert "kpca-explorer" not in text and "widget-state+json" not in text, page.name


# every lab's box colour and its canvases' corner pixels (in the dark theme)
LAB_COLOURS = """() => Array.from(document.querySelectorAll('.kpca-lab')).map((lab) => ({
  box: getComputedStyle(lab).backgroundColor,
  corners: Array.from(lab.querySelectorAll('canvas')).map((canvas) =>
    Array.from(canvas.getContext('2d').getImageData(0, 0, 1, 1).data.slice(0, 3))),
}))"""


def dark_theme_facts(page):
    """The labs' colours once mounted and switched to dark (then back to light), and the
    page's problems by then: taken in the run's one visit of a lab page (page_visits)."""
    page.wait_for_function("() => window.kpcaLabs && window.kpcaLabs.length === "
                           "document.querySelectorAll('.kpca-lab[data-kind]').length")
    page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
    page.evaluate(TWO_FRAMES)
    facts = page.evaluate(LAB_COLOURS)
    page.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")
    return facts


def test_every_lab_of_the_book_follows_the_dark_theme(book, page_visits):
    """On every page with labs, a switch to dark leaves no white canvas and no light lab box.
    (The run's one visit of each page at 1280 px, page_visits.)"""
    n_labs = 0
    for name in book_pages(book):
        if name == "index.html" or 'class="kpca-lab ' not in (book / name).read_text():
            continue
        visit = page_visits(name, "1280px")
        facts, problems = visit["dark"], visit["dark_problems"]
        for lab in facts:
            n_labs += 1
            channels = [float(v) for v in lab["box"][lab["box"].index("(") + 1:-1].split(",")[:3]]
            assert max(channels) < 60, (name, lab["box"])
            assert lab["corners"] and all(max(corner) < 60 for corner in lab["corners"]), (name, lab)
        assert not problems, problems
    assert n_labs >= 3
