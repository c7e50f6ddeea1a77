"""The book's exercise numbers, as the grader and the handouts name them (Exercise 4.2)."""

import nbformat
import pytest

from coursework.authoring.exercises import chapter_token, exercise_numbers


@pytest.mark.parametrize("name, token", [("04_kernel_pca.ipynb", "4"), ("chapters/01_pca", "1"),
                                         ("A_sparse_pca.ipynb", "A"), ("12_more.ipynb", "12")])
def test_chapter_token(name, token):
    assert chapter_token(name) == token


@pytest.mark.parametrize("name", ["intro.ipynb", "00_zero.ipynb", "a_lower.ipynb", "AB_two.ipynb"])
def test_chapter_token_names_the_argument(name):
    with pytest.raises(ValueError, match="name must start with a chapter number"):
        chapter_token(name)


def test_numbers_count_every_numbered_exercise_in_order():
    md = nbformat.v4.new_markdown_cell
    nb = nbformat.v4.new_notebook(cells=[
        md("```{exercise}\n:label: first\n\nText.\n```"),
        nbformat.v4.new_code_cell("x = 1"),
        # an unlabelled exercise still takes a number; an unnumbered one does not
        md("````{exercise}\nNo label.\n````\n\n:::{exercise}\n:nonumber:\n:label: aside\nAside.\n:::"),
        md("```{exercise} With a title\n:class: dropdown\n:label: third\n```"),
    ])
    assert exercise_numbers(nb, "05_preimages_denoising.ipynb") == {"first": "5.1", "third": "5.3"}
