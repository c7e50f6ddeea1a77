"""Time limits per exercise (issue 39, items 1 and 2), end to end with ``python -m coursework grade``.

Each exercise (its graded cell and its hidden checks) has its own time limit:
past it the kernel is interrupted, the exercise's unfinished checks earn
nothing, and grading goes on with the next exercise, whose points are earned
as usual. The feedback says which exercise timed out and that it cost its
points (not "no points lost").

The chapter is the synthetic one of ``test_grading_course_runs`` (syn-ex1: 4
points, a visible and a hidden check; syn-ex2: 1 point). Every run of this
module starts at once (kernels are slow on a shared machine); the tests read
the outputs.
"""

import csv
import subprocess
import sys

import nbformat
import pytest

from coursework import make_student_notebook
from coursework_notebooks import solved, stubs, with_sources
from test_grading_course_runs import chapter_7, finish, grade_command, start

# double() loops for ever: in the visible check already, or only on the hidden check's inputs
LOOPS = "def double(values):\n    while True:\n        pass\n\n\nprint(double([x]).tolist())"
LOOPS_ON_HIDDEN = ("def double(values):\n    while len(values) > 1:\n        pass\n    return 2 * np.asarray(values)"
                   "\n\n\nprint(double([x]).tolist())")
# a loop in a cell of the student's own, outside any exercise
SCRATCH_LOOP = "while True:\n    pass"


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    base = tmp_path_factory.mktemp("time")
    chapter = chapter_7()
    student = make_student_notebook(chapter, name="07_syn.ipynb")
    (base / "reference").mkdir()
    nbformat.write(chapter, base / "reference" / "07_syn.ipynb")
    done = solved(student, chapter)
    scratch = with_sources(done)
    scratch.cells.insert(2, nbformat.v4.new_code_cell(SCRATCH_LOOP))
    class_ = {"ann": with_sources(done, LOOPS), "ben": with_sources(done, LOOPS_ON_HIDDEN), "cat": scratch}
    for who, nb in class_.items():
        (base / "submissions" / who).mkdir(parents=True)
        nbformat.write(nb, base / "submissions" / who / "07_syn.ipynb")
    process = start(grade_command("submissions", "--reference", "reference", "--report", "report.csv",
                                  "--gradebook", "gradebook.csv", "--feedback", "feedback",
                                  "--exercise-timeout", "6", "--jobs", "2"), base)
    returncode, stdout, stderr = finish(process)
    with open(base / "gradebook.csv", newline="") as file:
        rows = {row["student"]: row for row in csv.DictReader(file)}
    return base, returncode, stdout, stderr, rows


def test_a_looping_exercise_loses_its_points_and_the_next_exercise_is_graded(loops):
    base, returncode, stdout, stderr, rows = loops
    assert returncode == 1, stdout + stderr
    for who in ("ann", "ben"):  # syn-ex1 timed out (0 of 4); syn-ex2, after it, earned its point
        assert rows[who]["status"] == "graded", rows[who]
        assert rows[who]["syn-ex1"] == "0", rows[who]
        assert rows[who]["syn-ex2"] == "1" and rows[who]["points"] == "1", rows[who]
    line = next(line for line in stdout.splitlines() if "ann/" in line)
    assert "timed out: stopped after 6 s" in line and "not reached" not in line, line


def test_a_loop_in_a_scratch_cell_is_stopped_and_costs_no_point(loops):
    base, returncode, stdout, stderr, rows = loops
    assert rows["cat"]["status"] == "graded" and rows["cat"]["points"] == "5", rows["cat"]
    feedback = (base / "feedback" / "cat" / "07_syn.md").read_text()
    notes = feedback.split("## Notes on the notebook (no points lost)")[1]
    assert "timed out: stopped after 6 s, and grading went on with the next cell" in notes


def test_the_feedback_says_which_exercise_timed_out_and_that_it_cost_its_points(loops):
    base, returncode, stdout, stderr, rows = loops
    for who in ("ann", "ben"):
        feedback = (base / "feedback" / who / "07_syn.md").read_text()
        section = next(part for part in feedback.split("\n## ") if part.startswith("Exercise 7.1"))
        assert ": 0 of 4 points" in section.split("\n")[0], section
        assert "timed out: stopped after 6 s" in section and "lost their points" in section, section
        assert "no points lost" not in feedback.split("timed out")[0].rsplit("\n## ", 1)[-1]
        assert "not reached" not in feedback
    ben = (base / "feedback" / "ben" / "07_syn.md").read_text()
    assert "Hidden check 1 (your functions called on inputs you have not seen): timed out" in ben


# ---------------------------------------------------------------- item 2: the machine's load costs no points

BURN = "_start = __import__('time').process_time()\nwhile __import__('time').process_time() - _start < {seconds}:\n" \
       "    pass\n"
# Two notebooks at a time (--jobs 2), each kernel beside the other and the two busy processes:
# every notebook of an even class is graded at that full contention (an odd class's last one
# would be graded with one kernel fewer beside it). Four notebooks are two such rounds; ten
# were five rounds of the same contention, and the two busy processes held both cores for
# all of them (about 100 s of processor time, and the other pytest-xdist worker slowed).
CLASS_SIZE = 4


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    """A class of correct notebooks graded with --jobs 2 while two CPU-bound processes run beside it.

    The chapter's set-up cell (a book cell) and the student's answer each use about 2 s of processor
    time; each exercise and cell may take 5 s. On this 2-core machine, with the two busy processes
    and two kernels at once, every one of them takes several times that in wall-clock time.
    """
    base = tmp_path_factory.mktemp("busy")
    chapter = chapter_7()
    chapter.cells[1].source += "\n" + BURN.format(seconds=2)
    student = make_student_notebook(chapter, name="07_syn.ipynb")
    (base / "reference").mkdir()
    nbformat.write(chapter, base / "reference" / "07_syn.ipynb")
    done = solved(student, chapter)
    answer = with_sources(done, BURN.format(seconds=2) + stubs(done)[0].source)
    for number in range(CLASS_SIZE):
        (base / "submissions" / f"s{number:02d}").mkdir(parents=True)
        nbformat.write(answer, base / "submissions" / f"s{number:02d}" / "07_syn.ipynb")
    burners = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass"]) for _ in range(2)]
    try:
        process = start(grade_command("submissions", "--reference", "reference", "--report", "report.csv",
                                      "--gradebook", "gradebook.csv", "--feedback", "feedback",
                                      "--exercise-timeout", "5", "--jobs", "2"), base)
        returncode, stdout, stderr = finish(process)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    with open(base / "gradebook.csv", newline="") as file:
        rows = {row["student"]: row for row in csv.DictReader(file)}
    return base, returncode, stdout, stderr, rows


def test_a_busy_machine_costs_no_correct_notebook_any_point(busy):
    base, returncode, stdout, stderr, rows = busy
    students = [f"s{number:02d}" for number in range(CLASS_SIZE)]
    assert {who: (rows[who]["status"], rows[who]["points"]) for who in students} == {
        who: ("graded", "5") for who in students}, stdout + stderr
    assert returncode == 0 and stdout.splitlines()[-1] == f"{CLASS_SIZE} notebooks: {CLASS_SIZE} passed, 0 failed"


def test_the_graders_own_timeout_is_graded_again_alone_then_an_error_never_a_zero(tmp_path, monkeypatch):
    """The notebook's backstop (not an exercise's limit) is the grader's trouble: graded again alone, after
    the others; if it comes back, the status is error (re-grade), never graded with 0."""
    import io

    from coursework.grading import session
    from coursework.isolation.execution import RunResult

    chapter = chapter_7()
    (tmp_path / "reference").mkdir()
    nbformat.write(chapter, tmp_path / "reference" / "07_syn.ipynb")
    done = solved(make_student_notebook(chapter, name="07_syn.ipynb"), chapter)
    for who in ("ann", "ben"):
        (tmp_path / "submissions" / who).mkdir(parents=True)
        nbformat.write(done, tmp_path / "submissions" / who / "07_syn.ipynb")
    folders = []

    def backstop(notebook, folder, isolation, limits, hidden):  # every run reaches the notebook's backstop
        folders.append(folder.name)
        records = [{"event": "collected", "cells": 4}, {"event": "start", "cell": 1},
                   {"event": "cell", "cell": 0, "when": "call", "outcome": "passed", "compared": False},
                   {"event": "timeout", "cell": 1}]
        return RunResult(records, 0, "", 1.0)

    monkeypatch.setattr(session, "run_notebook", backstop)
    notes = io.StringIO()
    outcomes = session.grade(tmp_path / "submissions" / "ann", tmp_path / "reference", precheck=False,
                             stream=io.StringIO(), notes=notes)
    assert folders == ["000", "000-alone"]
    assert "graded again alone at the end" in notes.getvalue()
    [outcome] = outcomes
    assert not outcome.ran and outcome.chapter == "07_syn.ipynb"  # the gradebook's status: error
    assert outcome.verdict.reasons[0].startswith("timed out after 900 s (in Cell 0 (the book's cell, unchanged from the handout)), "
                                                 "and again when graded alone: "
                                                 "the grader could not grade it (not the student's fault)")
