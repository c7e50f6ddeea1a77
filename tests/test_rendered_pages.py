"""The rendered book as a student reads it (issue 40): every page, solutions opened, at a
phone's width (390 px) and a desktop's (1280 px).

- no TeX source or MyST role left as text, with every solution and box opened;
- no inline formula cut at the edge of its line: at 1280 px none is wider than its line
  (long formulas are broken or displayed), at 390 px one that is scrolls inside its own box,
  with a shadow at the edge that has more to show (``_static/kpca-reading-aids.js``);
- no printed output scrolls sideways at 1280 px (outputs are printed within the 88
  characters of the text column), and at 390 px an output that scrolls shows a shadow;
- code comments and printed lines name equations by the numbers a reader sees, (4.4), not
  by their internal labels (``eq-kpca-dual``);
- the link inside "Solution to Exercise N.M" opens the solution;
- a keyboard reader reaches every lab from the first Tab stops of its page (skip links);
- the intro links to every page with a lab; no page shows a builtin's docstring.

The book is built once from the committed notebooks (``tests/test_book_in_browser.py``,
whose fixtures and build these tests share; or ``KPCA_BOOK_HTML=<its html folder>``) and served on
127.0.0.1; every page of the table of
contents is a test case, so a page that fails is named by its own test.
"""

import os
import re
from pathlib import Path

import pytest
from toc_pages import CHAPTER_PAGES as CHAPTER_NOTEBOOKS
from toc_pages import toc_files

from test_book_in_browser import (  # noqa: F401  (fixtures)
    browser_context,
    open_page,
    page_visits,
    server,
    shared_build,
)

ROOT = Path(__file__).resolve().parents[1]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
WIDTHS = {"390px": PHONE, "1280px": DESKTOP}


# every page of the table of contents, as HTML paths
PAGES = [f"{page}.html" for page in toc_files()]
CHAPTER_PAGES = [page for page in PAGES if page.startswith("chapters/")]
# the chapter pages, where the exercises and their solutions are (their sections have none)
EXERCISE_PAGES = [f"chapters/{notebook.stem}.html" for notebook in CHAPTER_NOTEBOOKS]


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The run's one build of the book (shared with tests/test_book_in_browser.py), or the
    HTML folder named by KPCA_BOOK_HTML (a book built already, e.g. of another branch)."""
    built = os.environ.get("KPCA_BOOK_HTML")
    return Path(built).resolve() if built else shared_build(tmp_path_factory, "book")


def cases(names):
    return [pytest.param(name, id=page_id(name)) for name in names]


# one load of a page per width for the checks that only read it, the run's one visit of the
# page at that width (tests/page_visits.py, shared with test_book_in_browser's page-wide
# checks): (every solution and box opened, at WIDTHS) the closed ones left, raw TeX,
# MathJax errors, wide formulas, wide outputs
def page_facts(name, width, page_visits):
    return page_visits(name, width)["opened"]


def page_id(name):
    return Path(name).stem


# open every collapsed solution and box (sphinx-togglebutton, <details>), then wait two frames
OPEN_EVERYTHING = """async () => {
  document.querySelectorAll('.toggle-button[aria-expanded="false"]').forEach(b => b.click());
  document.querySelectorAll('details:not([open])').forEach(d => { d.open = true; });
  const closed = () => document.querySelectorAll('.toggle-hidden, details:not([open])').length;
  for (let i = 0; i < 30 && closed(); i++) await new Promise(r => setTimeout(r, 100));
  await new Promise(r => setTimeout(r, 150));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return closed();
}"""

# the text of the article outside code, outputs, formulas and labs: where TeX source or a
# MyST role would be a rendering error
RAW_SOURCE = r"""() => {
  const article = document.querySelector('.bd-article') || document.body;
  const copy = article.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container, .kpca-lab, .kpca-explorer, '
                        + '.cell_output, .kpca-skip-links').forEach(e => e.remove());
  const text = copy.textContent;
  const patterns = [
    /\$[^$\s][^$]{0,60}?\\[A-Za-z]+/g,          // $\rho ... : an inline formula left as TeX
    /\\[A-Za-z]{2,}(?=[\s{(_^\\:;,.)]|$)/g,     // \alpha, \frac{, \lVert, \alpha: (a link's text)
    /\$\$|\\\(|\\\[|\\begin\{/g,                // display delimiters
    /\{(?:eq|cite|doc|ref|numref|math|term|download|prf:ref)\}`?/g,   // a MyST role
  ];
  const found = [];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      found.push(text.slice(Math.max(0, match.index - 40), match.index + 40).replace(/\s+/g, ' '));
    }
  }
  return found;
}"""


@pytest.mark.parametrize("name", cases(PAGES))
def test_no_tex_source_or_myst_role_is_left_as_text_with_every_solution_open(name, page_visits):
    facts = page_facts(name, "1280px", page_visits)
    still_closed, raw, errors, problems = (facts[k] for k in ("still_closed", "raw", "errors", "problems"))
    print(f"\n{name}: {len(raw)} raw TeX or MyST roles, {errors} MathJax errors")
    assert still_closed == 0, f"{still_closed} solutions or boxes stayed closed"
    assert not raw and not errors and not problems, (raw, errors, problems)


# inline formulas (all dropdowns open) wider than their line: [cut with no scroll box,
# scrolling in a box of their own with the shadows' background, the formulas' text]
WIDE_INLINE_FORMULAS = r"""() => {
  const cut = [], boxed = [];
  const article = document.querySelector('.bd-article');
  if (!article) return {cut, boxed};
  for (const formula of article.querySelectorAll('mjx-container[jax="CHTML"]:not([display="true"])')) {
    if (!formula.offsetParent || formula.closest('.kpca-lab, .kpca-explorer')) continue;
    let block = formula.parentElement;
    while (block && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
    const style = getComputedStyle(block);
    const box = block.getBoundingClientRect();
    const left = box.left + parseFloat(style.paddingLeft) + parseFloat(style.borderLeftWidth);
    const right = box.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
    const own = getComputedStyle(formula);
    const text = (formula.querySelector('mjx-assistive-mml') || formula).textContent.slice(0, 70);
    if (/(auto|scroll)/.test(own.overflowX)) {
      if (formula.scrollWidth > formula.clientWidth + 1) {
        boxed.push([text, own.backgroundAttachment.includes('local')]);
      }
      continue;
    }
    const r = formula.getBoundingClientRect();
    if (r.right > right + 1 || r.left < left - 1) cut.push([Math.round(r.width), Math.round(right - left), text]);
  }
  return {cut, boxed};
}"""


@pytest.mark.parametrize("width", WIDTHS, ids=str)
@pytest.mark.parametrize("name", cases(PAGES))
def test_no_inline_formula_is_cut_at_the_edge_of_its_line(name, width, page_visits):
    """At 1280 px no inline formula is wider than its line (the long ones are broken or
    displayed); at 390 px one that is scrolls in its own box with a shadow, not cut."""
    facts = page_facts(name, width, page_visits)
    found, problems = facts["formulas"], facts["problems"]
    cut, boxed = found["cut"], found["boxed"]
    print(f"\n{name} at {width}: {len(cut)} inline formulas cut, {len(boxed)} scroll in a box")
    assert not cut, cut
    assert all(shadow for _, shadow in boxed), boxed
    if width == "1280px":
        assert not boxed, boxed
    assert not problems, problems


# printed output blocks that scroll sideways: [hidden pixels, shadow shown, longest line]
WIDE_OUTPUTS = r"""() => [...document.querySelectorAll('.bd-article .cell_output pre')]
  .filter(e => e.offsetParent && !e.closest('.kpca-lab, .kpca-explorer'))
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => [e.scrollWidth - e.clientWidth,
             getComputedStyle(e).backgroundAttachment.includes('local'),
             e.textContent.split('\n').reduce((a, l) => (l.length > a.length ? l : a), '').slice(0, 90)])"""


@pytest.mark.parametrize("width", WIDTHS, ids=str)
@pytest.mark.parametrize("name", cases(PAGES))
def test_no_printed_output_is_cut_without_a_cue(name, width, page_visits):
    """At 1280 px no printed output scrolls sideways: the chapters print within the 88
    characters the text column holds. At 390 px a line of 88 characters is wider than the
    screen: an output that scrolls shows a shadow at the edge that has more to show."""
    facts = page_facts(name, width, page_visits)
    wide, problems = facts["wide"], facts["problems"]
    print(f"\n{name} at {width}: {len(wide)} printed outputs scroll sideways")
    if width == "1280px":
        assert not wide, wide
    else:
        assert all(shadow for _, shadow, _ in wide), [w for w in wide if not w[1]]
    assert not problems, problems


# ------------------------------------------------------------------ reading aids (item 8)

EQUATION_ID = re.compile(r'id="equation-(eq-[A-Za-z0-9-]+)"')
# the labels of exercises and sections, which a reader sees as "Exercise 4.2" or a title
TARGET_ID = re.compile(r'id="((?:ch\d|[A-C])-ex\d+|sec-[A-Za-z0-9-]+)"')
CODE_AND_OUTPUT = """() => [...document.querySelectorAll('.bd-article .cell_input pre, .bd-article .cell_output pre')]
  .map(e => e.textContent).join('\\n')"""


@pytest.fixture(scope="module")
def equation_labels(book):
    """The labels of every numbered equation of the book."""
    labels = set()
    for page in (book / "chapters").glob("*.html"):
        labels.update(EQUATION_ID.findall(page.read_text()))
        labels.update(TARGET_ID.findall(page.read_text()))
    return labels


@pytest.mark.parametrize("name", cases(CHAPTER_PAGES))
def test_code_and_outputs_name_equations_by_their_numbers(name, page_visits, equation_labels):
    """A reader sees (4.4), not eq-kpca-dual, and "Exercise 4.2", not ch4-ex2: no code line or
    printed line names an equation, an exercise or a section by its label. (The text of the
    run's one visit of the page at 1280 px.)"""
    assert len(equation_labels) > 50 and {"ch4-ex2", "sec-spca-alpha"} <= equation_labels
    text = page_visits(name, "1280px")["code_and_output"]
    named = sorted({label for label in re.findall(r"\b(?:eq-|sec-|(?:ch\d|[A-C])-ex)[A-Za-z0-9-]+", text)
                    if label.rstrip("-") in equation_labels})
    print(f"\n{name}: {len(named)} labels of equations, exercises or sections in code and outputs")
    assert not named, named


SOLUTION_STATE = """(id) => {
  const solution = document.getElementById(id);
  return {hidden: solution.classList.contains('toggle-hidden'),
          top: Math.round(solution.getBoundingClientRect().top), hash: location.hash};
}"""


# the clicks of test_the_link_in_a_solution_title_opens_the_solution, per page and width: one
# load of a page serves both widths, 1280 px first (the context's own width: the page as a
# load of its own gave it) and then 390 px, after the two clicks at 1280 px have closed the
# solution again (each width's facts are read before, between and after its own two clicks)
SOLUTION_CLICK_WIDTHS = ("1280px", "390px")
_solution_clicks = {}


def solution_clicks(name, width, server, browser_context):
    """What a click, and a second one, on the first "Exercise N.M" link of a solution's title
    did at ``width``; None if the page has no solution."""
    if name not in _solution_clicks:
        page, problems = open_page(browser_context, server + name)
        facts = {}
        for each_width in SOLUTION_CLICK_WIDTHS:
            page.set_viewport_size(WIDTHS[each_width])
            links = page.locator(".solution.toggle > .admonition-title a.reference")
            if links.count() == 0:
                facts[each_width] = None
                continue
            link = links.first
            solution_id = link.evaluate("a => a.closest('.solution').id")
            link.scroll_into_view_if_needed()
            # drawn as the title's own text (a link that does not go must not look like one), and
            # out of the Tab order, where the title's toggle button is
            looks = link.evaluate("""a => { const t = a.closest('.admonition-title'), s = getComputedStyle(a);
              return {same: s.color === getComputedStyle(t).color, line: s.textDecorationLine,
                      tab: a.tabIndex}; }""")
            before = page.evaluate(SOLUTION_STATE, solution_id)
            link.click()
            page.wait_for_timeout(300)
            opened = page.evaluate(SOLUTION_STATE, solution_id)
            link.click()
            page.wait_for_timeout(300)
            closed = page.evaluate(SOLUTION_STATE, solution_id)
            facts[each_width] = {"looks": looks, "before": before, "opened": opened, "closed": closed,
                                 "problems": list(problems)}
        page.close()
        _solution_clicks[name] = facts
    return _solution_clicks[name][width]


@pytest.mark.parametrize("width", WIDTHS, ids=str)
@pytest.mark.parametrize("name", EXERCISE_PAGES, ids=page_id)
def test_the_link_in_a_solution_title_opens_the_solution(name, width, server, browser_context):
    """"Solution to Exercise N.M": a click on the link "Exercise N.M" opens the solution (and
    a second click closes it), as a click on the rest of the title does; the page stays.
    (One load of the page for both widths: solution_clicks.)"""
    clicks = solution_clicks(name, width, server, browser_context)
    if clicks is None:
        pytest.skip(f"{name} has no solution")
    before, opened, closed, looks = clicks["before"], clicks["opened"], clicks["closed"], clicks["looks"]
    print(f"\n{name} at {width}: before {before}, after a click {opened}, after two {closed}")
    assert before["hidden"] and not opened["hidden"] and closed["hidden"]
    assert looks == {"same": True, "line": "none", "tab": -1}, looks
    # no jump to the exercise: the solution's title stays where it was
    assert abs(opened["top"] - before["top"]) < 5 and not opened["hash"]
    assert not clicks["problems"], clicks["problems"]


FOCUS = """() => {
  const e = document.activeElement;
  const lab = e && e.closest('.kpca-lab');
  return {tag: e ? e.tagName : null, text: e ? (e.textContent || '').trim().slice(0, 80) : '',
          lab: lab ? lab.id : null, skip: e ? e.classList.contains('kpca-skip-link') : false};
}"""
LABS = "() => [...document.querySelectorAll('.kpca-lab')].map(lab => lab.id)"
MAX_TABS_TO_A_SKIP_LINK = 3


@pytest.mark.parametrize("name", CHAPTER_PAGES, ids=page_id)
def test_a_keyboard_reader_reaches_every_lab_from_the_first_tab_stops(name, server,
                                                                      browser_context, page_visits):
    """A skip link per lab among the first Tab stops of the page: Enter on it, then Tab,
    puts the focus on the lab's first control (instead of 100 to 190 Tab stops). A page
    without a lab (its LABS in the run's one visit of it at 1280 px) is not loaded again;
    a page with labs is loaded once per lab (it was loaded once more, to count its labs)."""
    if not page_visits(name, "1280px")["labs"]:
        pytest.skip(f"{name} has no lab")
    page, problems = open_page(browser_context, server + name)
    labs = page.evaluate(LABS)
    reached = {}
    for index, lab in enumerate(labs):
        if index:  # the first lab from the page as opened (no key pressed yet), the others from a new load
            page.goto(server + name, wait_until="load")
            page.wait_for_timeout(200)
        tabs, focus = 0, None
        while tabs < MAX_TABS_TO_A_SKIP_LINK + index:
            page.keyboard.press("Tab")
            tabs += 1
            focus = page.evaluate(FOCUS)
            if focus["skip"] and lab in page.evaluate(
                "() => document.activeElement.getAttribute('href')"
            ):
                break
        else:
            reached[lab] = f"no skip link within {tabs} Tab stops (last focus: {focus})"
            continue
        page.keyboard.press("Enter")
        page.wait_for_timeout(100)
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS)
        print(f"\n{name}: {tabs} Tab stops to the skip link of {lab}; then in the lab on "
              f"{focus['tag']}")
        if focus["lab"] != lab:
            reached[lab] = f"Enter then Tab left the focus outside the lab: {focus}"
    page.close()
    assert not reached, reached
    assert not problems, problems


def test_every_page_names_the_books_own_icon(book):
    """A page without an icon makes the browser ask for /favicon.ico, a 404 in the console."""
    for name in PAGES:
        html = (book / name).read_text()
        icon = re.search(r'<link rel="icon" href="([^"]+)"', html)
        assert icon, f"{name} names no icon"
        assert (book / name).parent.joinpath(icon[1]).resolve().is_file(), (name, icon[1])


def test_the_intro_says_where_the_labs_are(book):
    """The intro tells a reader that the pages hold labs, with a link to every page that has
    one (found in the built pages, so a new lab needs a new link)."""
    with_labs = sorted(page.relative_to(book).as_posix() for page in (book / "chapters").glob("*.html")
                       if 'class="kpca-lab ' in page.read_text())
    assert len(with_labs) >= 6, with_labs
    intro = (book / "intro.html").read_text()
    linked = set(re.findall(r'href="(chapters/[^"#]+\.html)"', intro))
    assert set(with_labs) <= linked, sorted(set(with_labs) - linked)
    assert re.search(r"\blabs?\b", re.sub(r"<[^>]+>", " ", intro))


# the first line of a builtin type's docstring, which autodoc shows for an undocumented
# property or attribute that overrides a class attribute of that type
BUILTIN_DOCSTRINGS = ("bool(x) -&gt; bool", "bool(x) -> bool", "int([x]) -&gt; integer",
                      "int([x]) -> integer", "float(x=0, /)", "str(object=&#39;&#39;)",
                      "The builtins True and False")


@pytest.mark.parametrize("name", PAGES, ids=page_id)
def test_no_page_documents_a_name_with_a_builtins_docstring(name, book):
    html = (book / name).read_text()
    found = [text for text in BUILTIN_DOCSTRINGS if text in html]
    assert not found, found
