"""Handouts students can read: MyST turned into Jupyter Markdown, one exercise per cell, the book's
numbers, answer cells for written exercises, the handout's version and its expected outputs.

No kernel runs here (the self-check is in ``test_self_check.py``). The numbers are checked against
facts found independently in the chapters' text: the k-th ``{exercise}`` and the k-th ``{math}``
fence of chapter T are Exercise T.k and equation (T.k).
"""

import copy
import json
import re
import stat
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell, new_notebook, new_output

from coursework import make_student_notebook
from coursework.__main__ import main
from coursework.authoring.exercises import ANSWER_PLACEHOLDER, METADATA_KEY, chapter_token, exercise_numbers
from coursework.authoring.expected import read_expected
from coursework.authoring.version import check_handout_version
from coursework.authoring.myst_markdown import BookIndex, read_citations, to_markdown
from coursework_notebooks import graded_chapter
from toc_pages import CHAPTER_PAGES

ROOT = Path(__file__).resolve().parents[1]
ALL_CHAPTERS = CHAPTER_PAGES  # the chapter pages (their sections hold no exercises)
MYST_LEFT = re.compile(r"\{[\w:-]+\}`|^\s*(`{3,}|:{3,})\{|^\s*\([\w.:-]+\)=\s*$", re.M)

BOOK = BookIndex(token="4", exercises={"ch4-ex2": "4.2", "ch2-ex3": "2.3"},
                 equations={"eq-a": "4.1", "eq-b": "4.2", "x^2 = 1": "4.3"},
                 sections={"sec-rings": ("Three rings", "4")}, titles={"03_kernels": "Kernel functions"},
                 citations={"mika1999kernel": ("Mika et al.", "1999", "Kernel PCA")},
                 cited=["ch4-mika1999kernel"])


@pytest.fixture(scope="module")
def handouts(tmp_path_factory):
    """The book's handouts, written by the make-student command: {name: (chapter, handout)}."""
    folder = tmp_path_factory.mktemp("student_notebooks")
    assert main(["make-student", str(ROOT / "chapters"), str(folder)]) == 0
    return {path.name: (nbformat.read(path, as_version=4), nbformat.read(folder / path.name, as_version=4))
            for path in ALL_CHAPTERS} | {"folder": folder}


# ---------------------------------------------------------------- small cases


@pytest.mark.parametrize("myst, markdown", [
    ("See {eq}`eq-b` and {ref}`ch4-ex2`.", "See (4.2) and Exercise 4.2."),
    ("{numref}`ch2-ex3`, {numref}`Problem %s <ch4-ex2>`", "Exercise 2.3, Problem 4.2"),
    ("In {ref}`sec-rings` of {doc}`03_kernels`; {ref}`the rings <sec-rings>`",
     "In Three rings of Kernel functions; the rings"),
    ("As shown {cite}`ch4-mika1999kernel`, and {cite:t}`mika1999kernel`.",
     "As shown (Mika et al., 1999), and Mika et al. (1999)."),
    ("{math}`x^2` and $y$ and **bold**", "$x^2$ and $y$ and **bold**"),
    ("(sec-rings)=\n## Three rings", "## Three rings"),
    ("```python\nprint('{eq}`eq-a`')\n```", "```python\nprint('{eq}`eq-a`')\n```"),
])
def test_roles_targets_and_code_blocks(myst, markdown):
    assert to_markdown(myst, BOOK) == markdown


def test_display_maths_is_numbered_as_in_the_book():
    labelled = to_markdown("```{math}\n:label: eq-a\nK = X X^\\top\n```", BOOK)
    assert labelled == "$$\nK = X X^\\top\n\\tag{4.1}\n$$"
    # every {math} block is numbered (math_number_all), an unlabelled one by its text
    assert to_markdown("```{math}\nx^2 = 1\n```", BOOK).endswith("\\tag{4.3}\n$$")
    # $$ ... $$ (label) too; a plain $$ block is left as it is
    assert to_markdown("$$\na = b\n$$ (eq-b)", BOOK) == "$$\na = b\n\\tag{4.2}\n$$"
    assert to_markdown("$$\na = b\n$$", BOOK) == "$$\na = b\n$$"
    # line breaks and alignment need an environment outside Sphinx
    aligned = to_markdown("```{math}\n:label: eq-a\na &= b \\\\\nc &= d\n```", BOOK)
    assert aligned.splitlines()[1:5] == ["\\begin{aligned}", "a &= b \\\\", "c &= d", "\\end{aligned}"]


def test_exercises_and_admonitions():
    text = "````{exercise}\n:label: ch4-ex2\n\nShow\n\n```{math}\n:label: eq-a\nx\n```\n````"
    assert to_markdown(text, BOOK) == "**Exercise 4.2**\n\nShow\n\n$$\nx\n\\tag{4.1}\n$$"
    assert to_markdown("```{exercise} Bounds\n:nonumber:\nText.\n```", BOOK) == "**Exercise** (Bounds)\n\nText."
    admonition = ":::{admonition} Going further: norms\n:class: dropdown\nOne {eq}`eq-a`.\n\nTwo.\n:::"
    assert to_markdown(admonition, BOOK) == "> **Going further: norms**\n>\n> One (4.1).\n>\n> Two."
    assert to_markdown("```{warning}\nCareful.\n```", BOOK) == "> **Warning**\n>\n> Careful."
    bibliography = to_markdown("```{bibliography}\n:filter: docname in docnames\n:keyprefix: ch4-\n```", BOOK)
    assert bibliography == "- Mika et al. (1999). *Kernel PCA*."


def test_conversion_is_idempotent_and_plain_markdown_unchanged():
    for text in ["```{exercise}\n:label: ch4-ex2\n\nShow {eq}`eq-a`.\n```", "```{math}\n:label: eq-a\na &= b\n```",
                 ":::{note}\nA **note**.\n:::", "# Title\n\n- a list, $x$\n\n> quoted"]:
        once = to_markdown(text, BOOK)
        assert to_markdown(once, BOOK) == once
    assert to_markdown("# Title\n\n- a list, $x$\n\n> quoted", BOOK) == "# Title\n\n- a list, $x$\n\n> quoted"


def test_citations_from_bibtex():
    bib = ('@article{a2001x,\n  author = {Sch{\\"o}lkopf, Bernhard and Smola, Alex},\n  title = {Kernel {PCA}},\n'
           '  year = {2001}\n}\n\n@book{b1999y,\n  author = {Ng, A and Li, B and Wu, C},\n  title = {T},\n'
           '  year = {1999}\n}\n')
    assert read_citations(bib) == {"a2001x": ("Schölkopf and Smola", "2001", "Kernel PCA"),
                                   "b1999y": ("Ng et al.", "1999", "T")}


# ---------------------------------------------------------------- the book's chapters


def fence_facts(chapter, token):
    """Independently of the converter: {exercise label: T.k}, {equation label: T.k} from the raw text."""
    text = "\n".join(cell.source for cell in chapter.cells if cell.cell_type == "markdown")
    exercises = re.findall(r"^ {0,3}(?:`{3,}|:{3,})\{exercise\}[^\n]*\n((?::[^\n]*\n)*)", text, re.M)
    maths = re.findall(r"^ {0,3}(?:`{3,}|:{3,})\{math\}[^\n]*\n((?::[^\n]*\n)*)", text, re.M)
    numbered = [options for options in exercises if ":nonumber:" not in options]

    def labels(blocks):
        return {m[1]: f"{token}.{k}" for k, options in enumerate(blocks, 1)
                if (m := re.search(r":label:\s*(\S+)", options))}
    return labels(numbered), labels(maths), len(numbered)


@pytest.mark.parametrize("path", ALL_CHAPTERS, ids=lambda p: p.stem)
def test_handout_text_is_markdown_with_the_books_numbers(handouts, path):
    chapter, handout = handouts[path.name]
    token = chapter_token(path.name)
    exercises, equations, count = fence_facts(chapter, token)
    markdown = [cell for cell in handout.cells if cell.cell_type == "markdown"]
    assert [cell.source for cell in markdown if MYST_LEFT.search(cell.source)] == []
    # one exercise per cell, numbered T.1, T.2, ... as the book numbers them
    statements = [cell for cell in markdown if re.match(r"\*\*Exercise ", cell.source)]
    assert [re.match(r"\*\*Exercise (\S+)\*\*", cell.source)[1] for cell in statements] == \
        [f"{token}.{k}" for k in range(1, count + 1)]
    assert all(cell.source.count("**Exercise ") <= 1 for cell in markdown)
    assert exercise_numbers(chapter, path.name) == exercises == exercise_numbers(handout, path.name)
    # every equation that a chapter's own text references shows the number the book gives it
    text = "\n".join(cell.source for cell in markdown)
    tags = re.findall(r"\\tag\{([^}]+)\}", text)
    for label in set(re.findall(r"\{eq\}`([^`]+)`", "\n".join(c.source for c in chapter.cells))) & set(equations):
        assert equations[label] in tags, label
    assert len(tags) == len(set(tags))  # solutions' equations are gone, the others keep their numbers
    for cell in markdown:  # maths JupyterLab can render: balanced $$ and $ (outside code blocks)
        prose = re.sub(r"^```.*?^```", "", cell.source, flags=re.M | re.S).replace("\\$", "")
        assert prose.count("$$") % 2 == 0 and prose.count("$") % 2 == 0


@pytest.mark.parametrize("path", ALL_CHAPTERS, ids=lambda p: p.stem)
def test_written_answers_are_marked_for_export(handouts, path):
    chapter, handout = handouts[path.name]
    numbers = exercise_numbers(chapter, path.name)
    derivations = re.findall(r"\{solution\} (\S+)", "\n".join(c.source for c in chapter.cells))
    written = [cell.metadata[METADATA_KEY] for cell in handout.cells
               if cell.cell_type == "markdown" and METADATA_KEY in cell.metadata]
    assert all(entry["written"] is True and entry["number"] == numbers[entry["exercise"]] for entry in written)
    for label in derivations:  # each derivation has exactly one answer cell, which says where to write
        cells = [c for c in handout.cells if c.metadata.get(METADATA_KEY, {}).get("exercise") == label]
        assert len(cells) == 1 and cells[0].cell_type == "markdown"
        assert cells[0].source == f"*Your answer to Exercise {numbers[label]}:*\n\n{ANSWER_PLACEHOLDER}"
    ids = [cell.get("id") for cell in handout.cells]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)
    nbformat.validate(handout)
    assert make_student_notebook(handout, name=path.name) == handout  # idempotent


# ---------------------------------------------------------------- versions and expected outputs


def test_a_handout_of_another_version_warns():
    chapter = graded_chapter()
    handout = make_student_notebook(chapter, name="07_syn.ipynb")
    version = handout.metadata[METADATA_KEY]["version"]
    assert set(version) == {"exercises", "kpca_lib"} and check_handout_version(handout, chapter) is None
    assert check_handout_version(handout, handout) is None and check_handout_version(handout, version) is None
    reseeded = copy.deepcopy(chapter)  # a private reference: other hidden inputs, the same handout
    reseeded.cells[4].source = reseeded.cells[4].source.replace("default_rng(5)", "default_rng(55)")
    assert check_handout_version(handout, reseeded) is None
    reworded, output = copy.deepcopy(chapter), copy.deepcopy(chapter)
    reworded.cells[2].source = reworded.cells[2].source.replace("Write `double(values)`", "Write `double(v)`")
    output.cells[3].outputs[0]["text"] = "[43]\n"
    for changed in (reworded, output):
        warning = check_handout_version(handout, changed, "07_syn.ipynb")
        assert warning.startswith("WARNING: 07_syn.ipynb was made from another version of its chapter")
    older = copy.deepcopy(handout)
    older.metadata[METADATA_KEY]["version"]["kpca_lib"] = "0.0.1"
    assert "made with kpca_lib 0.0.1" in check_handout_version(older, chapter)
    del older.metadata[METADATA_KEY]["version"]
    assert "records no handout version" in check_handout_version(older, chapter)


def test_the_version_ignores_how_the_kernel_chunked_the_printed_text():
    # issue 39, item 9: nbconvert --execute of a private copy split the same stdout into other
    # stream chunks, and every submission was warned about "another version of its chapter"
    chapter = graded_chapter()
    handout = make_student_notebook(chapter, name="07_syn.ipynb")
    rerun = copy.deepcopy(chapter)
    rerun.cells[3].outputs = [new_output("stream", name="stdout", text="[4"),
                              new_output("stream", name="stdout", text="2]\n")]
    assert check_handout_version(handout, rerun, "07_syn.ipynb") is None
    for other in ([new_output("stream", name="stdout", text="[4"), new_output("stream", name="stderr", text="2]\n")],
                  [new_output("stream", name="stdout", text="[4"), new_output("stream", name="stdout", text="3]\n")]):
        rerun.cells[3].outputs = other  # what students see differs: still a warning
        assert check_handout_version(handout, rerun, "07_syn.ipynb") is not None


def test_make_student_writes_a_read_only_copy_of_the_expected_outputs(handouts):
    folder = handouts["folder"]
    for path in ALL_CHAPTERS:
        chapter, handout = handouts[path.name]
        copy_path = folder / ".expected" / f"{path.stem}.json"
        assert not copy_path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
        expected = read_expected(copy_path)
        assert expected["version"] == handout.metadata[METADATA_KEY]["version"]
        by_id = {cell.get("id"): cell for cell in chapter.cells}
        graded = [c for c in handout.cells if c.cell_type == "code" and c.metadata.get(METADATA_KEY, {}).get("graded")]
        assert [entry["outputs"] for entry in expected["graded"]] == [by_id[c.id].outputs for c in graded]
        assert [entry["exercise"] for entry in expected["graded"]] == \
            [c.metadata[METADATA_KEY]["exercise"] for c in graded]
        assert "hidden check" not in json.dumps(expected)
    # make-student runs again over its own read-only files
    assert main(["make-student", str(ALL_CHAPTERS[0]), str(folder)]) == 0


def test_a_notebook_that_is_not_a_chapter_keeps_its_labels():
    nb = new_notebook(cells=[new_markdown_cell("```{exercise}\n:label: ex1\n\nDo it.\n```")])
    assert make_student_notebook(nb).cells[0].source == "**Exercise ex1**\n\nDo it."


# ------------------------------------------------- a chapter copied alone (issue 39, third walkthrough, item 2)

def _handout_text(folder):
    nb = nbformat.read(folder / "01_pca.ipynb", as_version=4)
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


def test_a_chapter_copied_alone_still_gets_the_books_citations_and_exercise_numbers(tmp_path, capsys):
    """The walkthrough copied chapter 1 into a folder of its own: its handout said "(aeberhard1992comparison)"
    and "ch2-ex3", silently. The book's references.bib and chapters are found (here: the repository the
    package comes from), and the numbers and authors are those of references.bib and chapter 2's exercises."""
    import shutil

    from coursework.authoring.myst_markdown import read_citations

    (tmp_path / "ch1").mkdir()
    shutil.copy(ROOT / "chapters" / "01_pca.ipynb", tmp_path / "ch1")
    assert main(["make-student", str(tmp_path / "ch1"), str(tmp_path / "out")]) == 0
    text = _handout_text(tmp_path / "out")
    authors, year, _ = read_citations((ROOT / "references.bib").read_text())["aeberhard1992comparison"]
    assert f"{authors}, {year}" in text and "aeberhard1992comparison" not in text
    number = exercise_numbers(nbformat.read(ROOT / "chapters" / "02_gram_trick.ipynb", as_version=4),
                              "02_gram_trick.ipynb")["ch2-ex3"]
    assert f"Exercise {number}" in text and "ch2-ex3" not in text
    assert "not resolved" not in capsys.readouterr().err


def test_a_chapter_whose_book_cannot_be_found_warns_and_book_dir_resolves_it(tmp_path, monkeypatch):
    import io
    import shutil

    from coursework.authoring import student

    monkeypatch.setattr(student, "_PACKAGE_BOOK", tmp_path / "nowhere")  # an installed package: no book beside it
    (tmp_path / "ch1").mkdir()
    shutil.copy(ROOT / "chapters" / "01_pca.ipynb", tmp_path / "ch1")
    notes = io.StringIO()
    student.make_student(tmp_path / "ch1", tmp_path / "out", notes=notes)
    warning = notes.getvalue()
    assert "01_pca.ipynb: not resolved" in warning and "citations (aeberhard1992comparison," in warning, warning
    assert "ch2-ex3" in warning.split(" label")[1] and "--book DIR" in warning, warning
    notes = io.StringIO()
    student.make_student(tmp_path / "ch1", tmp_path / "again", book=ROOT, notes=notes)
    assert notes.getvalue() == "" and "ch2-ex3" not in _handout_text(tmp_path / "again")
