"""Code that swallows KeyboardInterrupt costs its exercise, not the notebook (issue 39, walkthrough 2's problem 3).

Past an exercise's limit the kernel is interrupted; a function that catches
the interrupt and loops on does not stop. Before, that ended the whole run
(0 of every later exercise); now, as in nbgrader and otter, that exercise is
timed out with its reason and every other exercise is graded as usual.

The chapter is the synthetic one of ``test_grading_course_runs`` with an
exercise in the middle (7.2, ``triple``: a visible check and a hidden check),
so that 7.1 comes before the stuck exercise and 7.3 after it. Each run of this
module starts at once (kernels are slow on a shared machine); the tests read
the outputs.
"""

import copy
import csv

import nbformat
import pytest

from coursework import make_student_notebook
from coursework_notebooks import code, solved, stubs, with_sources
from test_grading_course_runs import (
    chapter_7,
    finish,
    grade_command,
    multiple_of_seeded_values,
    sandbox_works,
    start,
)

MIDDLE_SEED = 246813
TRIPLE = "def triple(values):\n    return 3 * np.asarray(values)\n\n\nprint(triple([x]).tolist())"
HIDDEN_TRIPLE = (f"# hidden check for syn-mid\nrng = np.random.default_rng({MIDDLE_SEED})\n"
                 "values = rng.integers(0, 100, size=3)\nprint(np.asarray(triple(values), dtype=float).tolist())")
# the interrupt lands in the inner loop, inside the try, and the outer loop starts it again
SWALLOWS = ("def triple(values):\n    while True:\n        try:\n            while True:\n                pass\n"
            "        except BaseException:\n            pass\n\n\nprint(triple([x]).tolist())")
# the same, only on the hidden check's inputs (a bare except this time)
SWALLOWS_ON_HIDDEN = ("def triple(values):\n    while len(values) > 1:\n        try:\n            while True:\n"
                      "                pass\n        except:\n            pass\n    return 3 * np.asarray(values)"
                      "\n\n\nprint(triple([x]).tolist())")
LIMIT = 5


def hidden_triple_expected():
    """What the hidden check of 7.2 prints for a correct ``triple``."""
    return multiple_of_seeded_values(MIDDLE_SEED, 3, 3)


def chapter_with_middle_exercise():
    """Chapter 7 with 7.2 (2 points: a visible and a hidden check) between 7.1 (4 points) and 7.3 (1 point)."""
    chapter = chapter_7()
    visible = code(TRIPLE, "[63]\n", count=3, tags=["solution"])
    visible.metadata.update(kpca_points=2, kpca_share=1)
    hidden = code(HIDDEN_TRIPLE, hidden_triple_expected(), count=4, tags=["hidden-check", "remove-cell"])
    hidden.metadata["kpca_share"] = 1
    middle = [nbformat.v4.new_markdown_cell("```{solution-end}\n```\n\n```{exercise}\n:label: syn-mid\n\n"
                                            "Write `triple(values)`.\n```\n\n```{solution-start} syn-mid\n"
                                            ":class: dropdown\n```"), visible, hidden]
    chapter.cells[5:5] = middle
    return chapter


def _grade(base, *options):
    return start(grade_command("submissions", "--reference", "reference", "--report", "report.csv",
                               "--gradebook", "gradebook.csv", "--feedback", "feedback",
                               "--exercise-timeout", str(LIMIT), "--jobs", "2", *options), base)


@pytest.fixture(scope="module")
def stuck(tmp_path_factory):
    chapter = chapter_with_middle_exercise()
    student = make_student_notebook(chapter, name="07_syn.ipynb")
    done = solved(student, chapter)
    assert len(stubs(done)) == 3
    class_ = {"ada": done, "sam": with_sources(done, None, SWALLOWS),
              "hal": with_sources(done, None, SWALLOWS_ON_HIDDEN)}
    bases, processes = {}, {}
    for mode in ("plain", "sandbox") if sandbox_works() else ("plain",):
        base = bases[mode] = tmp_path_factory.mktemp(mode)
        (base / "reference").mkdir()
        nbformat.write(chapter, base / "reference" / "07_syn.ipynb")
        for who, nb in class_.items():
            (base / "submissions" / who).mkdir(parents=True)
            nbformat.write(copy.deepcopy(nb), base / "submissions" / who / "07_syn.ipynb")
        processes[mode] = _grade(base, *(["--sandbox"] if mode == "sandbox" else []))
    results = {}
    for mode, process in processes.items():
        returncode, stdout, stderr = finish(process)
        with open(bases[mode] / "gradebook.csv", newline="") as file:
            rows = {row["student"]: row for row in csv.DictReader(file)}
        results[mode] = bases[mode], returncode, stdout, stderr, rows
    return results


MODES = ["plain", pytest.param("sandbox", marks=pytest.mark.skipif(not sandbox_works(), reason="no sandbox"))]


@pytest.mark.parametrize("mode", MODES)
def test_an_exercise_that_swallows_the_interrupt_costs_its_points_and_the_others_are_graded(stuck, mode):
    base, returncode, stdout, stderr, rows = stuck[mode]
    assert rows["ada"]["status"] == "graded" and rows["ada"]["points"] == "7", rows["ada"]
    for who in ("sam", "hal"):  # 7.1 and 7.3 earned in full, 7.2 nothing: in the visible check or the hidden one
        row = rows[who]
        assert row["status"] == "graded", (row, stdout, stderr)
        assert (row["syn-ex1"], row["syn-mid"], row["syn-ex2"], row["points"]) == ("4", "0", "1", "5"), row
        line = next(line for line in stdout.splitlines() if f"{who}/" in line)
        assert f"timed out: did not stop when interrupted after {LIMIT} s" in line, line
        assert "the run was ended" not in line and "not reached" not in line, line


@pytest.mark.parametrize("mode", MODES)
def test_the_feedback_names_the_stuck_exercise_and_says_it_cost_its_points(stuck, mode):
    base = stuck[mode][0]
    for who, where in (("sam", "- Visible check (what your solution cell prints): timed out"),
                       ("hal", "- Hidden check 1 (your functions called on inputs you have not seen): timed out")):
        feedback = (base / "feedback" / who / "07_syn.md").read_text()
        section = next(part for part in feedback.split("\n## ") if part.startswith("Exercise 7.2"))
        assert ": 0 of 2 points" in section.split("\n")[0], section
        assert f"did not stop when interrupted after {LIMIT} s" in section, section
        assert "lost their points" in section and where in section, section
        for other, points in (("Exercise 7.1", "4 of 4"), ("Exercise 7.3", "1 of 1")):
            heading = next(part for part in feedback.split("\n## ") if part.startswith(other)).split("\n")[0]
            assert points in heading, heading


def test_a_notebook_is_run_again_at_most_once_per_exercise_that_does_not_stop(tmp_path, monkeypatch):
    """Every run stops at the first cell not yet left out that has a time limit: one run more per time unit,
    never an endless series; every exercise's checks fail with the reason, none is 'not reached'."""
    import io

    from coursework.grading import session
    from coursework.grading.preparation import UNITS_KEY
    from coursework.grading.stuck import STUCK_SOURCE
    from coursework.isolation.execution import RunResult

    chapter = chapter_with_middle_exercise()
    (tmp_path / "reference").mkdir()
    nbformat.write(chapter, tmp_path / "reference" / "07_syn.ipynb")
    (tmp_path / "submissions" / "ann").mkdir(parents=True)
    nbformat.write(solved(make_student_notebook(chapter, name="07_syn.ipynb"), chapter),
                   tmp_path / "submissions" / "ann" / "07_syn.ipynb")
    runs = []

    def never_stops(notebook, folder, isolation, limits, hidden):
        units = notebook.metadata[UNITS_KEY]
        runs.append(units)
        cell = next((number for number, unit in enumerate(units)
                     if unit is not None and notebook.cells[number].source != STUCK_SOURCE), len(units))
        records = [{"event": "collected", "cells": len(units)}]
        for number in range(cell):  # the cells before it ran (a cell left out runs a comment: not compared)
            records.append({"event": "cell", "cell": number, "when": "call", "outcome": "passed",
                            "compared": notebook.cells[number].source != STUCK_SOURCE})
        if cell == len(units):
            return RunResult(records + [{"event": "finished", "status": 1}], 0, "", 1.0)
        records += [{"event": "start", "cell": cell}, {"event": "cell-timeout", "cell": cell, "unit": units[cell]},
                    {"event": "uninterruptible", "cell": cell}]
        return RunResult(records, 4, "", 1.0)

    monkeypatch.setattr(session, "run_notebook", never_stops)
    [outcome] = session.grade(tmp_path / "submissions", tmp_path / "reference", precheck=False,
                              stream=io.StringIO(), notes=io.StringIO())
    units = {unit for unit in runs[0] if unit is not None}
    assert len(runs) == len(units) + 1, runs
    assert outcome.ran and not outcome.verdict.trouble
    checks = outcome.verdict.checks.values()
    assert checks and all(not check.passed and check.reason.startswith(("timed out: did not stop", "not run: its"))
                          for check in checks), [check.reason for check in checks]
