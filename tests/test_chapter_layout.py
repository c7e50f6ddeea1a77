"""Every chapter follows the book's conventions for notebooks (issue 30).

- the first code cell is the set-up cell: tagged ``hide-input`` (collapsed in
  the HTML), it calls ``use_book_style()``, and no cell sets its own dpi;
- no code line is longer than 88 characters;
- figures are drawn for the text column: no ``figsize`` wider than
  ``kpca_lib.plotting.COLUMN_INCHES``, no PNG output wider than the column at
  100 dpi plus the margin of a tight bounding box (retina PNGs carry their drawn
  width in the output metadata);
- every cell with a figure output has alt text in its metadata
  (``{"mystnb": {"image": {"alt": ...}}}``, the key myst-nb reads), a sentence
  about the figure, not a file name;
- the live ipywidgets cells (``*_explorer(``) are removed from the HTML
  (``remove-cell``): the book shows each explorer once, as its browser lab;
- the markdown cell right after the title is the install note, word for word;
- the code cells of a "Going further: ..." section carry the tag
  ``going-further``, and only detours carry it.
"""

import json
import re
from pathlib import Path

import pytest

from kpca_lib.plotting import COLUMN_INCHES

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
MAX_LINE = 88
# the inline backend saves figures with bbox_inches="tight": the drawn area plus a margin
# of savefig.pad_inches (0.1 in) on each side
TIGHT_PAD_INCHES = 0.1
INSTALL_NOTE = """:::{admonition} Running this notebook yourself
:class: dropdown
This page is a Jupyter notebook: download it with the button at the top of the page. It
imports `kpca_lib`, the book's small library, with NumPy, SciPy, scikit-learn and matplotlib
(and ipywidgets for the live widgets). In a copy of the book's repository, install them all
with `pip install -r requirements.txt`; if your course hands out the library as a wheel file,
`pip install "kpca_lib-0.1.0-py3-none-any.whl[explorers]"` does it. The README says more.
:::"""
GOING_FURTHER = re.compile(r"^(#+) Going further:", re.MULTILINE)
HEADING = re.compile(r"^(#+) ", re.MULTILINE)


def source(cell):
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def code_cells(notebook):
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def has_figure(cell):
    return any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))


@pytest.fixture(scope="module", params=CHAPTERS, ids=lambda path: path.stem)
def chapter(request):
    return request.param.stem, json.loads(request.param.read_text())


def test_there_are_eight_chapters():
    # a chapter's evidence sections are notebooks named after it, NN_<stem>_<topic>
    pages = [p for p in CHAPTERS if not any(p.stem.startswith(q.stem + "_") for q in CHAPTERS)]
    assert len(pages) == 8


def test_the_setup_cell_is_collapsed_and_uses_the_book_style(chapter):
    name, notebook = chapter
    setup = code_cells(notebook)[0]
    assert "hide-input" in tags(setup), f"{name}: the set-up cell is not tagged hide-input"
    assert "use_book_style()" in source(setup), f"{name}: the set-up cell has no use_book_style()"
    for cell in code_cells(notebook):
        assert "figure.dpi" not in source(cell), f"{name}: a cell sets its own dpi"


def test_no_code_line_is_longer_than_88_characters(chapter):
    name, notebook = chapter
    long = [
        (cell.get("id"), len(line))
        for cell in code_cells(notebook)
        for line in source(cell).splitlines()
        if len(line) > MAX_LINE
    ]
    assert not long, f"{name}: {len(long)} lines over {MAX_LINE} characters (cell id, length): {long}"


def test_figures_are_drawn_for_the_text_column(chapter):
    name, notebook = chapter
    too_wide = []
    for cell in code_cells(notebook):
        for match in re.finditer(r"figsize=\(\s*([0-9.]+)", source(cell)):
            if float(match.group(1)) > COLUMN_INCHES:
                too_wide.append((cell.get("id"), f"figsize width {match.group(1)} in"))
        for output in cell.get("outputs", []):
            if "image/png" not in output.get("data", {}):
                continue
            width = output.get("metadata", {}).get("image/png", {}).get("width")
            # no width: a plain (not retina) PNG, drawn without use_book_style()
            limit = 100 * (COLUMN_INCHES + 2 * TIGHT_PAD_INCHES)
            if width is None or float(width) > limit:
                too_wide.append((cell.get("id"), f"PNG shown {width} px wide"))
    assert not too_wide, f"{name}: {too_wide}"


def test_every_figure_has_alt_text(chapter):
    name, notebook = chapter
    missing = []
    for cell in code_cells(notebook):
        if not has_figure(cell):
            continue
        alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt", "")
        # a sentence about the figure: several words, not a file name
        if len(alt.split()) < 6 or re.search(r"\.(png|svg|jpe?g)\b", alt):
            missing.append(cell.get("id"))
    assert not missing, f"{name}: figure cells without alt text: {missing}"


def test_live_widget_cells_are_removed_from_the_html(chapter):
    name, notebook = chapter
    shown = [
        cell.get("id")
        for cell in code_cells(notebook)
        if re.search(r"\w_explorer\(", source(cell)) and "remove-cell" not in tags(cell)
    ]
    assert not shown, f"{name}: live-widget cells not tagged remove-cell: {shown}"


def test_the_install_note_follows_the_title(chapter):
    name, notebook = chapter
    title, note = notebook["cells"][0], notebook["cells"][1]
    assert source(title).startswith("# "), f"{name}: the first cell is not the title"
    assert note["cell_type"] == "markdown" and source(note).strip() == INSTALL_NOTE, (
        f"{name}: the cell after the title is not the install note"
    )


def going_further_code_cells(notebook):
    """The ids of the code cells inside a section headed "Going further: ..."."""
    inside, level, found = False, 0, set()
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            for match in HEADING.finditer(source(cell)):
                depth = len(match.group(1))
                if inside and depth <= level:
                    inside = False
                detour = GOING_FURTHER.match(source(cell), match.start())
                if detour and not inside:
                    inside, level = True, depth
        elif inside:
            found.add(cell.get("id"))
    return found


def test_going_further_code_cells_are_tagged(chapter):
    name, notebook = chapter
    expected = going_further_code_cells(notebook)
    untagged = [
        cell.get("id")
        for cell in code_cells(notebook)
        if cell.get("id") in expected and "going-further" not in tags(cell)
    ]
    assert not untagged, f"{name}: code cells of a going-further section untagged: {untagged}"
    # a tagged cell is a detour: in such a section, or right after a "Going further" box
    previous = None
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code" and "going-further" in tags(cell):
            after_box = previous is not None and "Going further:" in source(previous)
            assert cell.get("id") in expected or after_box, (
                f"{name}: cell {cell.get('id')} is tagged going-further outside a detour"
            )
        if cell["cell_type"] == "markdown":
            previous = cell


def test_the_section_finder_sees_a_detour():
    notebook = {"cells": [
        {"cell_type": "markdown", "source": "## Main line"},
        {"cell_type": "code", "id": "a", "source": ""},
        {"cell_type": "markdown", "source": "## Going further: solvers\n### Details"},
        {"cell_type": "code", "id": "b", "source": ""},
        {"cell_type": "markdown", "source": "## Summary"},
        {"cell_type": "code", "id": "c", "source": ""},
    ]}
    assert going_further_code_cells(notebook) == {"b"}
