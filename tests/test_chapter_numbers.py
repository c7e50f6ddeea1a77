"""The book's local extensions for numbers and labels, without building the book.

_ext/chapter_numbers.py must number exactly as the grader and the handouts
(coursework's exercise_numbers); _ext/author_year_labels.py must label an
entry with the text of its citation. tests/test_book_in_browser.py checks the
built book itself.
"""

import importlib.util
from pathlib import Path

import pytest
from pybtex.database import parse_file

from coursework.authoring.exercises import chapter_token

ROOT = Path(__file__).resolve().parents[1]


def load_extension(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


chapter_numbers = load_extension("chapter_numbers")
author_year_labels = load_extension("author_year_labels")


@pytest.mark.parametrize("notebook", sorted((ROOT / "chapters").glob("*.ipynb")), ids=lambda p: p.stem)
def test_the_extension_names_each_chapter_as_coursework_does(notebook):
    assert chapter_numbers.chapter_token(f"chapters/{notebook.stem}") == chapter_token(notebook.name)


@pytest.mark.parametrize("docname", ["intro", "api", "instructor_guide", "chapters/00_zero",
                                     "chapters/a_lower", "genindex"])
def test_pages_outside_the_chapters_have_no_token(docname):
    assert chapter_numbers.chapter_token(docname) is None


def test_numbers_restart_on_each_page_in_the_order_of_the_page():
    # Sphinx's numbers, counted through the book: this page's items are the 16th to 18th
    numbers = {"ch4-ex2": (17,), "ch4-ex1": (16,), "ch4-ex3": (18,)}
    assert chapter_numbers.per_chapter(numbers, "4") == {
        "ch4-ex1": ("4", 1), "ch4-ex2": ("4", 2), "ch4-ex3": ("4", 3)}
    assert chapter_numbers.per_chapter({"eq-a": (40,), "eq-b": (41,)}, None) == {
        "eq-a": (1,), "eq-b": (2,)}
    assert chapter_numbers.per_chapter({}, "A") == {}


def test_labels_are_the_author_year_citation_text():
    entries = parse_file(str(ROOT / "references.bib")).entries
    label = author_year_labels.citation_text
    assert label(entries["bishop2006pattern"]) == "Bishop, 2006"
    assert label(entries["scholkopf2002learning"]) == "Schölkopf and Smola, 2002"
    assert label(entries["scholkopf1998nonlinear"]) == "Schölkopf et al., 1998"
    style = author_year_labels.AuthorYearLabelStyle()
    keys = ["pearson1901lines", "hotelling1933analysis"]
    assert list(style.format_labels([entries[key] for key in keys])) == ["Pearson, 1901", "Hotelling, 1933"]


def test_works_cited_alike_get_a_letter_after_their_year_by_title():
    from types import SimpleNamespace

    entries = parse_file(str(ROOT / "references.bib")).entries
    bibdata = SimpleNamespace(data=SimpleNamespace(entries=entries))
    domain = SimpleNamespace(bibdata=bibdata)
    app = SimpleNamespace(env=SimpleNamespace(get_domain=lambda name: domain))
    author_year_labels.tell_apart_same_author_year(app)
    label = author_year_labels.citation_text
    # "Fisher discriminant analysis with kernels" before "Kernel PCA and de-noising ..."
    assert label(entries["mika1999fisher"]) == "Mika et al., 1999a"
    assert label(entries["mika1999kernel"]) == "Mika et al., 1999b"
    assert label(entries["bishop2006pattern"]) == "Bishop, 2006"
    labels = [label(entry) for entry in entries.values()]
    assert len(set(labels)) == len(labels)
    # a second pass (a rebuild with the parsed .bib kept) changes nothing
    author_year_labels.tell_apart_same_author_year(app)
    assert [label(entry) for entry in entries.values()] == labels


def test_numbers_run_on_from_a_chapter_page_through_its_sections():
    # Sphinx counts through the book in the order of the table of contents: the chapter
    # page's equations are the 30th and 31st, its section's the 32nd, the next chapter's the 33rd
    pages = {"chapters/02_gram_trick": {"eq-a": (31,), "eq-b": (30,)},
             "chapters/02_gram_trick_accuracy": {"eq-c": (32,)}}
    assert chapter_numbers.per_chapter_pages(pages, "2") == {
        "chapters/02_gram_trick": {"eq-b": ("2", 1), "eq-a": ("2", 2)},
        "chapters/02_gram_trick_accuracy": {"eq-c": ("2", 3)}}
    # the renumbering of a built environment: sections share their chapter's count, other
    # chapters and the pages outside the chapters count on their own
    from types import SimpleNamespace

    env = SimpleNamespace(toc_fignumbers={
        "intro": {"math": {"eq-i": (1,)}},
        "chapters/02_gram_trick": {"math": {"eq-a": (30,), "eq-b": (31,)}, "exercise": {"ch2-ex1": (9,)}},
        "chapters/02_gram_trick_accuracy": {"math": {"eq-c": (32,)}},
        "chapters/03_kernels": {"math": {"eq-d": (33,)}},
        "api": {"math": {"eq-e": (40,)}},
        "instructor_guide": {"math": {"eq-f": (41,)}},
    })
    chapter_numbers.renumber(None, env)
    assert env.toc_fignumbers == {
        "intro": {"math": {"eq-i": (1,)}},
        "chapters/02_gram_trick": {"math": {"eq-a": ("2", 1), "eq-b": ("2", 2)},
                                   "exercise": {"ch2-ex1": ("2", 1)}},
        "chapters/02_gram_trick_accuracy": {"math": {"eq-c": ("2", 3)}},
        "chapters/03_kernels": {"math": {"eq-d": ("3", 1)}},
        "api": {"math": {"eq-e": (1,)}},
        "instructor_guide": {"math": {"eq-f": (1,)}},
    }
