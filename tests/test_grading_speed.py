"""Grading a class fast (issue 39, item 3): a run leaves out the book's cells that no graded cell needs.

The rule is :func:`coursework.grading.preparation.needed_cells`; a run that
fails is repeated whole, so leaving cells out can never cost a point. These
tests show that a correct notebook of every chapter gets full marks from the
short run alone (no second, whole run), and what the rule leaves out.
"""

import copy
import io
from pathlib import Path

import nbformat
import pytest

from coursework import make_student_notebook
from coursework.authoring.exercises import CHECK_MARKER, METADATA_KEY, solution_cells
from coursework.grading import session
from coursework.grading.preparation import build_run_notebook, needed_cells
from coursework.grading.reference import load_references

ROOT = Path(__file__).resolve().parents[1]
GRADED = sorted(name for name, reference in load_references(ROOT / "chapters").items()
                if reference.graded or reference.hidden)


def solved(name):
    """The handout of chapter ``name`` with the book's solution in every graded cell."""
    chapter = nbformat.read(ROOT / "chapters" / name, as_version=4)
    answer = make_student_notebook(chapter, name=name)
    solutions = [chapter.cells[found.index] for found in solution_cells(chapter) if not found.hidden]
    stubs = [cell for cell in answer.cells if cell.cell_type == "code" and METADATA_KEY in cell.metadata]
    for stub, solution in zip(stubs, solutions, strict=True):
        stub.source = f"{CHECK_MARKER}\n{solution.source}"
    return answer


def test_the_rule_keeps_what_a_later_cell_reads_or_what_changes_it_and_drops_the_rest():
    book = ["import numpy as np", "rng = np.random.default_rng(0)", "X = rng.normal(size=3)",
            "fig = plot(X)", "noise = rng.normal(size=3)", "table = [f(X) for f in fs]\nprint(table)",
            "np.set_printoptions(precision=3)", "%timeit f(X)"]
    student = ["def g(values):\n    return values + X", "print(g(1))"]
    # the figure and the table are left out; the draw from rng before the answer changes rng: it is kept
    assert needed_cells(book[:7] + student, {8}, book) == {0, 1, 2, 6, 7, 8}
    assert needed_cells(book[:7] + student + ["print(rng.normal())"], {9}, book) >= {4}
    # a cell that is not plain Python: what it reads cannot be told, so it and all before it run
    assert needed_cells(book + student, {9}, book) == set(range(10))
    # a book cell the student changed is the student's: always run
    assert 3 in needed_cells(book[:3] + ["fig = plot(X * 2)"] + book[4:7] + student, {8}, book)


def test_a_loops_target_and_a_comprehensions_variable_are_their_own_and_a_rebinding_ends_a_need():
    book = ["import numpy as np", "ax = 1\nring = 2", "X = np.ones(3)", "fig, axes = subplots()\nfor ax in axes:\n"
            "    ax.plot(X)", "centres = [X[ring] for ring in range(3)]", "X = np.zeros(3)"]
    student = ["print(X.sum(), centres)"]
    # the figure's loop reads its own ax, the comprehension its own ring: cell 1 is not needed; the
    # last X = ... rebinds X, so cell 2 is needed only through the comprehension (cell 4)
    assert needed_cells(book + student, {6}, book) == {0, 2, 4, 5, 6}
    assert needed_cells(book[:4] + book[5:] + ["print(X.sum())"], {5}, book) == {0, 4, 5}
    # a book cell that imports everything of a module binds what cannot be told: always run
    assert 0 in needed_cells(["from numpy import *", "print(1)"], {1}, ["from numpy import *"])


def test_a_name_bound_before_it_is_read_in_a_loops_body_or_a_with_block_needs_no_earlier_cell():
    book = ["import numpy as np", "Z = np.ones(3)\nfits = {}", "fig = plot(Z)\nZ = fig.data"]
    # each pass of the loop binds Z before it reads it; the with block's body always runs
    loop = "for Y in [1, 2]:\n    Z = np.full(3, Y)\n    print(Z.sum())"
    block = "with np.errstate(all='ignore'):\n    Z = np.zeros(3)\nprint(Z.sum())"
    assert needed_cells(book + [loop], {3}, book) == {0, 3}
    assert needed_cells(book + [block], {3}, book) == {0, 3}
    # read before it is bound in the loop's body, or bound only in a branch: the earlier Z is needed
    early = "for Y in [1, 2]:\n    print(Z.sum())\n    Z = np.full(3, Y)"
    branch = "if flag:\n    Z = np.zeros(3)\nprint(Z.sum())"
    assert needed_cells(book + [early], {3}, book) == {0, 1, 2, 3}
    assert needed_cells(book + [branch], {3}, book) == {0, 1, 2, 3}
    # a loop that may run no pass leaves the earlier Z needed after it
    after = "for Y in items:\n    Z = np.full(3, Y)\nprint(Z.sum())"
    assert needed_cells(book + [after], {3}, book) == {0, 1, 2, 3}


def test_chapter_4s_benchmarks_and_figures_are_left_out_and_its_graded_cells_kept():
    reference = load_references(ROOT / "chapters")["04_kernel_pca.ipynb"]
    answer = solved("04_kernel_pca.ipynb")
    whole, short = build_run_notebook(answer, reference), build_run_notebook(answer, reference, prune=True)
    sources = [cell.source for cell in short.notebook.cells]
    assert not any("def refit_agreement(" in source for source in sources)  # a 5 s benchmark
    # nor the held-out accuracy over ten draws, nor a figure (their names are bound again, in a loop's
    # body, by exercise 4.7's solution before it reads them)
    assert not any("over ten draws" in source or "plt.subplots" in source for source in sources)
    # the grader's setup, every graded cell and every hidden check: kept, in the same order
    kept = ("setup", "graded", "hidden")
    assert [role for role in whole.roles if role.kind in kept] == [role for role in short.roles if role.kind in kept]
    assert len(short.roles) < len(whole.roles)


@pytest.fixture(scope="module")
def every_chapter(tmp_path_factory):
    base = tmp_path_factory.mktemp("every_chapter")
    for name in GRADED:
        (base / "submissions" / Path(name).stem).mkdir(parents=True)
        nbformat.write(solved(name), base / "submissions" / Path(name).stem / name)
    folders = []
    real = session.run_notebook

    def counted(notebook, folder, *arguments):
        folders.append(Path(folder).name)
        return real(notebook, folder, *arguments)

    patch = pytest.MonkeyPatch()
    patch.setattr(session, "run_notebook", counted)
    try:
        stream, notes = io.StringIO(), io.StringIO()
        outcomes = session.grade(base / "submissions", ROOT / "chapters", jobs=2, stream=stream, notes=notes)
    finally:
        patch.undo()
    return outcomes, folders, stream.getvalue(), notes.getvalue()


def test_a_correct_notebook_of_every_chapter_gets_full_marks_from_the_short_run_alone(every_chapter):
    outcomes, folders, stdout, notes = every_chapter
    assert sorted(outcome.chapter for outcome in outcomes) == GRADED
    # full marks: every check of every exercise passed
    assert all(outcome.ran and outcome.verdict.checks for outcome in outcomes), stdout
    assert [outcome.name for outcome in outcomes if not all(check.passed for check in outcome.verdict.checks.values())
            or any(reasons for reasons in outcome.verdict.exercises.values())] == [], stdout
    assert sorted(folders) == [f"{number:03d}" for number in range(len(GRADED))], folders  # never run whole
