"""The instructors' book without solutions (KPCA_REMOVE_SOLUTIONS=1) numbers what it keeps
as the full book does. A module of its own so that pytest-xdist (--dist loadfile) builds it
on one worker while the other builds the full book (tests/test_book_in_browser.py)."""

import pytest

import test_book_in_browser as browser_tests
from test_book_in_browser import (  # noqa: F401  (book: a pytest fixture)
    CHAPTER_NOTEBOOKS,
    EQUATION_NUMBER,
    EXERCISE_TITLE,
    SOLUTION_TITLE,
    book,
    chapter_html,
    shared_build,
)


@pytest.fixture(scope="module")
def book_without_solutions(tmp_path_factory):
    """The instructors' book without any solution (KPCA_REMOVE_SOLUTIONS=1; see
    _ext/remove_solutions.py), built as `book` is; the path of its HTML."""
    return shared_build(tmp_path_factory, "book-without-solutions",
                        environment={"KPCA_REMOVE_SOLUTIONS": "1"})


def test_the_book_without_solutions_has_the_same_numbers(book_without_solutions, book):
    """Taking the solutions out changes no exercise's or equation's number: a class with the
    instructors' book and one with the students' say the same "Exercise 4.2", "(5.3)".
    (book_without_solutions first: it is built here while another worker builds book.)"""
    for notebook in CHAPTER_NOTEBOOKS:
        html = chapter_html(book_without_solutions, notebook)
        assert "Solution to" not in html and SOLUTION_TITLE.search(html) is None, notebook.name
        full = chapter_html(book, notebook)
        assert EXERCISE_TITLE.findall(html) == EXERCISE_TITLE.findall(full), notebook.name
        equations = dict(EQUATION_NUMBER.findall(full))
        assert all(equations.get(id_) == number for id_, number in EQUATION_NUMBER.findall(html))
    browser_tests.test_cross_references_show_their_targets_numbers(book_without_solutions)
