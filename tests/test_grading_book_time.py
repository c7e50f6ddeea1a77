"""A book cell that runs out of time is the grader's trouble, not the student's (issue 39, item 2).

A cell of the submission that is the book's own, unchanged from the handout
(a figure, the chapter's set-up), is not the student's time: when it runs
out of its per-cell limit, under a busy machine say, the submission is graded
again alone at the end, and what the first run made of the later checks does
not count; if it runs out again when alone, the status is ``error`` (grade it
again with a larger ``--exercise-timeout``), never a ``graded`` 0, and the
report and the feedback name it as the book's cell, never as one the student
wrote or changed.

One exception, decided so: a book cell that runs the student's code (a figure
calling their function) is slowed by that code. When an exercise of the same
run ran out of its own time too, the run stands: the exercise loses its
points as usual, the book cell costs nothing and is named as the book's.

The chapter is the synthetic one of ``test_grading_course_runs`` (syn-ex1: 4
points, syn-ex2: 1 point), its set-up cell made slow. The three classes are
graded at once (kernels are slow on a shared machine); the tests read the outputs.
"""

import csv

import nbformat
import pytest

from coursework import make_student_notebook
from coursework_notebooks import code, solved, with_sources
from test_grading_course_runs import chapter_7, finish, grade_command, start
from test_grading_time import LOOPS

LIMIT = 4  # --exercise-timeout: the time of each exercise and of each other cell
# the chapter's set-up cell, slow in the first run only (the stand-in for a busy machine: the run
# graded again alone works in a folder of its own, named ...-alone/work, and sandboxed kernels can write nowhere
# else), or in every run
SLOW_ONCE = ("import os, time\nimport numpy as np\n\nif not os.path.dirname(os.getcwd()).endswith('-alone'):\n"
             "    time.sleep(60)\n\nx = 21")
SLOW_ALWAYS = "import time\nimport numpy as np\n\ntime.sleep(60)\nx = 21"
# a book cell after syn-ex1 that runs the student's double() (x stays 21 when double is right)
CALLS_DOUBLE = "x = int(double([x])[0]) // 2"


def _class(base, name, chapter, answers):
    """Write the reference chapter and one submission per student, and start grading them with --jobs 2."""
    (base / name / "reference").mkdir(parents=True)
    nbformat.write(chapter, base / name / "reference" / "07_syn.ipynb")
    student = make_student_notebook(chapter, name="07_syn.ipynb")
    for who, sources in answers.items():
        (base / name / "submissions" / who).mkdir(parents=True)
        nb = with_sources(solved(student, chapter), *sources)
        nbformat.write(nb, base / name / "submissions" / who / "07_syn.ipynb")
    return start(grade_command("submissions", "--reference", "reference", "--report", "report.csv",
                               "--gradebook", "gradebook.csv", "--feedback", "feedback",
                               "--exercise-timeout", str(LIMIT), "--jobs", "2"), base / name)


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    base = tmp_path_factory.mktemp("book-time")
    once, always, calls = chapter_7(), chapter_7(), chapter_7()
    once.cells[1].source = SLOW_ONCE
    always.cells[1].source = SLOW_ALWAYS
    calls.cells.insert(6, code(CALLS_DOUBLE, count=5))
    processes = {"once": _class(base, "once", once, {"ann": ()}),
                 "always": _class(base, "always", always, {"bob": ()}),
                 "calls": _class(base, "calls", calls, {"cy": (LOOPS,)})}
    results = {}
    for name, process in processes.items():
        returncode, stdout, stderr = finish(process)
        with open(base / name / "gradebook.csv", newline="") as file:
            rows = {row["student"]: row for row in csv.DictReader(file)}
        results[name] = (base / name, returncode, stdout, stderr, rows)
    return results


def test_a_book_cell_slow_in_a_busy_run_costs_the_student_nothing(classes):
    folder, returncode, stdout, stderr, rows = classes["once"]
    assert (rows["ann"]["status"], rows["ann"]["points"]) == ("graded", "5"), stdout + stderr
    assert "graded again alone at the end" in stderr and "the book's cell, unchanged from the handout" in stderr
    assert returncode == 0 and stdout.splitlines()[-1] == "1 notebooks: 1 passed, 0 failed", stdout
    feedback = (folder / "feedback" / "ann" / "07_syn.md").read_text()
    assert "wrote or changed" not in feedback and "timed out" not in feedback, feedback


def test_a_book_cell_too_slow_even_alone_is_an_error_named_as_the_books(classes):
    folder, returncode, stdout, stderr, rows = classes["always"]
    assert rows["bob"]["status"] == "error", stdout + stderr
    line = next(line for line in stdout.splitlines() if "bob/" in line)
    assert f"Cell 0 (the book's cell, unchanged from the handout): timed out after {LIMIT} s" in line, line
    assert "again when graded alone" in line and "--exercise-timeout" in line, line
    feedback = (folder / "feedback" / "bob" / "07_syn.md").read_text()
    assert "wrote or changed" not in feedback and "the book's cell, unchanged from the handout" in feedback
    assert "not the student's fault" in feedback, feedback


def test_a_book_cell_slowed_by_the_students_looping_function_is_named_as_the_books(classes):
    folder, returncode, stdout, stderr, rows = classes["calls"]
    assert (rows["cy"]["status"], rows["cy"]["syn-ex1"], rows["cy"]["syn-ex2"]) == ("graded", "0", "1"), \
        stdout + stderr
    assert "graded again alone" not in stderr, stderr  # the student's own exercise timed out in the same run
    feedback = (folder / "feedback" / "cy" / "07_syn.md").read_text()
    assert "wrote or changed" not in feedback, feedback
    book = feedback.split("## The book's cells (no points lost)")[1]
    assert "(the book's cell, unchanged from the handout): timed out" in book, feedback
