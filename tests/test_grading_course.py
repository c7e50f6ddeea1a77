"""Course records without a kernel: points and partial credit, the gradebook, feedback, exports, written answers.

Verdicts come from :func:`coursework.grading.results.interpret` on runner
records written here (as in ``test_grading_parts.py``); the expected points are
worked out by hand from the declared points and shares, not read back from the
code. ``test_grading_course_runs.py`` grades real notebooks.
"""

import copy
import csv
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from coursework import make_student_notebook
from coursework.authoring.points import declared
from coursework.grading.feedback import feedback_markdown
from coursework.grading.hand import add_hand_points
from coursework.grading.gradebook import (identify, parse_deadline, read_gradebook, read_roster,
                                          submitted_at)
from coursework.grading.lms import CANVAS_COLUMNS, MOODLE_COLUMNS, export
from coursework.grading.preparation import build_run_notebook
from coursework.grading.records import Records
from coursework.grading.reference import extract_reference
from coursework.grading.results import interpret
from coursework.grading.scores import notes, score
from coursework.grading.session import Outcome
from coursework.grading.written import export_written, written_answers
from coursework.isolation.execution import Limits, RunResult
from coursework_notebooks import graded_chapter, solved, stubs

DATA = Path(__file__).parent / "data"
# a value and a seed no honest output holds: planted in the hidden check, looked for in the feedback
PLANTED_VALUE, PLANTED_SEED = "8675309.25", "918273"


def chapter_with_points(visible_share=1):
    """The synthetic chapter (as chapter 7): syn-ex1 worth 4 points, its visible check 1 share and its hidden
    check 3, a planted expected value; syn-ex2 at the default 1 point; a derivation syn-ex0 worth 2 points."""
    chapter = graded_chapter()
    chapter.cells[3].metadata.update(kpca_points=4, kpca_share=visible_share)
    hidden = chapter.cells[4]
    hidden.metadata["kpca_share"] = 3
    hidden.source = hidden.source.replace("default_rng(5)", f"default_rng({PLANTED_SEED})")
    hidden.outputs[0]["text"] = f"[{PLANTED_VALUE}]\n"
    derivation = new_markdown_cell("## Pen and paper\n\n```{exercise}\n:label: syn-ex0\n\n**Why twice.** Show it.\n"
                                   "```\n\n```{solution} syn-ex0\n:class: dropdown\n\nBecause.\n```")
    derivation.metadata["kpca_points"] = 2
    chapter.cells.insert(1, derivation)
    return chapter


@pytest.fixture
def course():
    chapter = chapter_with_points()
    student = make_student_notebook(chapter, name="07_syn.ipynb")
    return chapter, student, extract_reference(chapter, "07_syn.ipynb")


def run_records(plan, failed=(), actual=None):
    """Runner records of a finished run: every cell passed and compared, but ``failed`` (run-notebook cell
    numbers -> nbval message); ``actual`` maps cell numbers to what they printed."""
    found = [{"event": "collected", "cells": len(plan.roles)}]
    for cell, role in enumerate(plan.roles):
        message = dict(failed).get(cell)
        found += [{"event": "start", "cell": cell},
                  {"event": "cell", "cell": cell, "when": "call", "outcome": "failed" if message else "passed",
                   "message": message or "", "compared": role.kind in ("graded", "hidden"),
                   "exception": "NameError: name 'prnt' is not defined" if message and "exception" in message
                   else None, "actual": (actual or {}).get(cell)}]
    return RunResult(found + [{"event": "finished", "status": 0}], 0, "", 1.0)


def verdict_of(plan, reference, failed=(), actual=None):
    return interpret(plan, run_records(plan, failed, actual), Limits(), reference)


def role_index(plan, kind, exercise):
    return next(i for i, role in enumerate(plan.roles) if role.kind == kind and role.exercise == exercise)


# ---------------------------------------------------------------- points and partial credit


def test_points_and_shares_are_declared_beside_the_exercise_and_checked(course):
    _, student, reference = course
    assert reference.points == {"syn-ex1": 4, "syn-ex2": 1}
    assert reference.shares == {("visible", "syn-ex1", 0): 1, ("hidden", "syn-ex1", 1): 3,
                                ("visible", "syn-ex2", 0): 1}
    assert reference.written == {"syn-ex0": 2}
    assert reference.numbers == {"syn-ex0": "7.1", "syn-ex1": "7.2", "syn-ex2": "7.3"}
    assert [stub.metadata["kpca_coursework"].get("points") for stub in stubs(student)] == [4, 1]
    for bad in (-1, True, "3", float("nan"), None):
        with pytest.raises(ValueError, match="kpca_points must be a number >= 0"):
            declared({"metadata": {"kpca_points": bad}}, "kpca_points", "here")
    with pytest.raises(ValueError, match="key must be"):
        declared({"metadata": {}}, "points", "here")


def test_a_check_earns_its_share_of_the_exercise_points(course):
    chapter, student, reference = course
    plan = build_run_notebook(solved(student, chapter), reference)
    visible, hidden = role_index(plan, "graded", "syn-ex1"), role_index(plan, "hidden", "syn-ex1")
    differs = "Notebook cell execution failed\nCell outputs differ"
    # syn-ex1: 4 points over shares 1 (visible) and 3 (hidden): 1 and 3 points, the visible check's only
    # when the hidden check passes too (issue 39, item 4: printing the handout's output earns nothing);
    # syn-ex2 has no hidden check: 1 point by its visible check
    cases = {(): (4.0, 1.0), ((hidden, differs),): (0.0, 1.0), ((visible, differs),): (3.0, 1.0),
             ((visible, differs), (hidden, differs)): (0.0, 1.0)}
    for failed, (ex1, ex2) in cases.items():
        result = score(verdict_of(plan, reference, failed), reference)
        assert result.exercises == {"syn-ex1": (ex1, 4), "syn-ex2": (ex2, 1)}
        assert (result.earned, result.possible) == (ex1 + ex2, 5)
    zero = extract_reference(chapter_with_points(visible_share=0), "07_syn.ipynb")
    copied = score(verdict_of(plan, zero, [(hidden, differs)]), zero)  # the visible check alone earns nothing
    assert copied.exercises["syn-ex1"] == (0.0, 4)
    printed = verdict_of(plan, reference, [(hidden, differs)])  # Mallory: the handout's output, no working code
    text = feedback_markdown("Mallory", "07_syn.ipynb", printed, reference, score(printed, reference), plan.places)
    assert "passed, but it earns its points only when the hidden checks pass too (0 of 1 point)" in text


def test_an_error_in_a_scratch_cell_fails_the_notebook_and_costs_no_point(course):
    chapter, student, reference = course
    done = solved(student, chapter)
    done.cells.insert(3, new_code_cell("prnt(1)"))
    plan = build_run_notebook(done, reference)
    scratch = next(i for i, role in enumerate(plan.roles) if role.kind == "student" and role.cell == 0)
    verdict = verdict_of(plan, reference, [(scratch, "Cell execution caused an exception")])
    assert not verdict.passed
    assert score(verdict, reference).earned == 5
    assert notes(verdict) == ["Cell 0: raised NameError: name 'prnt' is not defined"]


def test_a_deleted_graded_cell_earns_nothing_for_its_exercise(course):
    chapter, student, reference = course
    done = solved(student, chapter)
    done.cells.remove(stubs(done)[0])
    verdict = verdict_of(build_run_notebook(done, reference), reference)
    assert score(verdict, reference).exercises == {"syn-ex1": (0.0, 4), "syn-ex2": (1.0, 1)}
    assert verdict.checks[("hidden", "syn-ex1", 1)].reason == "graded cell of syn-ex1 deleted"


def test_a_leftover_print_costs_no_point_and_is_told_as_a_note(course):
    # issue 39, item 5: Bob's debug print zeroed a correct function; now the visible check passes when
    # its expected output is all there, and the extra lines are a note in the feedback
    chapter, student, reference = course
    plan = build_run_notebook(solved(student, chapter), reference)
    visible = role_index(plan, "graded", "syn-ex1")
    differs = "Notebook cell execution failed\nCell outputs differ"
    extra = verdict_of(plan, reference, [(visible, differs)], {visible: "debug [21]\n[42]\n"})
    wrong = verdict_of(plan, reference, [(visible, differs)], {visible: "[63]\n"})
    assert extra.checks[("visible", "syn-ex1", 0)].passed and score(extra, reference).exercises["syn-ex1"] == (4, 4)
    assert wrong.checks[("visible", "syn-ex1", 0)].reason == "output differs from the reference"
    assert wrong.remarks == [] and len(extra.remarks) == 1 and "debug [21]" in extra.remarks[0]
    text = feedback_markdown("Bob", "07_syn.ipynb", extra, reference, score(extra, reference), plan.places)
    assert "## Notes on your output (no points lost)" in text and "debug [21]" in text


def test_what_a_function_prints_or_warns_in_a_hidden_check_is_a_note_without_its_text(course):
    chapter, student, reference = course
    plan = build_run_notebook(solved(student, chapter), reference)
    hidden = role_index(plan, "hidden", "syn-ex1")
    records = run_records(plan)
    for record in records.records:  # the runner's record of a hidden check that passed, with the kernel's note
        if record.get("cell") == hidden and record.get("event") == "cell":
            record["notes"] = [{"exercise": "syn-ex1", "number": 1, "lines": 2,
                                "warnings": ["RuntimeWarning"], "text": PLANTED_VALUE}]
    verdict = interpret(plan, records, Limits(), reference)
    assert verdict.passed and score(verdict, reference).exercises["syn-ex1"] == (4, 4)
    assert verdict.remarks == ["Exercise 7.2, hidden check 1: your code printed 2 lines and warned (RuntimeWarning) "
                               "while it was checked; that output is not compared and cost nothing, but remove "
                               "stray prints and look into warnings"]
    assert PLANTED_VALUE not in feedback_markdown("Ivan", "07_syn.ipynb", verdict, reference,
                                                  score(verdict, reference), plan.places)


def test_a_hidden_check_compares_only_what_the_check_prints(monkeypatch, capsys):
    # in_kernel.run_hidden_check outside a kernel: the student's print and warning go to the note, the
    # check's own print to the output
    import builtins
    import sys
    import warnings

    import IPython.display

    from coursework.grading import in_kernel

    published = []
    monkeypatch.setattr(IPython.display, "publish_display_data", published.append)
    monkeypatch.setattr(in_kernel, "reset", lambda: None)

    class Shell:
        user_ns = {}

    def noisy(values):
        print("debug", values)
        warnings.warn("divide by zero", RuntimeWarning)
        return [2 * v for v in values]

    Shell.user_ns["noisy"] = noisy
    monkeypatch.setitem(in_kernel._saved, "hooks", (sys.stdout, sys.stderr, sys.displayhook, sys.excepthook))
    monkeypatch.setitem(in_kernel._saved, "builtins", dict(vars(builtins)))
    monkeypatch.setitem(in_kernel._saved, "shell", Shell)
    in_kernel.run_hidden_check("syn-ex1", 1, "print(noisy([8675309]))")
    captured = capsys.readouterr()
    assert captured.out == "[17350618]\n" and "8675309" not in captured.err
    assert published == [{in_kernel.NOTE_MIME: {"exercise": "syn-ex1", "number": 1, "lines": 1,
                                                "warnings": ["RuntimeWarning"]}}]


# ---------------------------------------------------------------- feedback


def test_feedback_names_the_book_exercise_and_the_cell_and_never_a_hidden_expected_value(course):
    chapter, student, reference = course
    done = solved(student, chapter)
    done.cells.insert(3, new_code_cell("prnt(1)"))
    plan = build_run_notebook(done, reference)
    visible, hidden = role_index(plan, "graded", "syn-ex1"), role_index(plan, "hidden", "syn-ex1")
    scratch = next(i for i, role in enumerate(plan.roles) if role.kind == "student" and role.cell == 0)
    differs = "Notebook cell execution failed\nCell outputs differ"
    # the student's function printed the planted value in the hidden check: still never shown
    verdict = verdict_of(plan, reference, [(visible, differs), (hidden, differs),
                                           (scratch, "Cell execution caused an exception")],
                         {visible: "[63]\n", hidden: f"[{PLANTED_VALUE}]\nmore\n"})
    text = feedback_markdown("Ada", "07_syn.ipynb", verdict, reference, score(verdict, reference), plan.places)
    assert PLANTED_VALUE not in text and PLANTED_SEED not in text and "default_rng" not in text
    assert "## Exercise 7.2 (" in text and "## Exercise 7.3 (" in text
    # and no hint that the expected output was in it (chapter 3 walkthrough)
    assert "Hidden check 1 (your functions called on inputs you have not seen): output that is not the " \
           "check's own" in text and "extra output" not in text
    assert "[42]" in text and "[63]" in text  # the visible check: expected (shown in the handout) and actual
    assert "Cell " not in text
    assert 'the first code cell under "Pen and paper": raised NameError' in text
    assert "Exercise 7.1" in text  # the derivation, graded by hand


# ---------------------------------------------------------------- roster, times, gradebook


def test_rosters_in_our_layout_and_as_canvas_exports_them(tmp_path):
    ours = tmp_path / "roster.csv"
    ours.write_text("id,name,email\nada,Ada Lovelace,ada@uni.example\nemmy,Emmy Noether,\n")
    assert [(s["id"], s["name"], s["email"]) for s in read_roster(ours)] == [
        ("ada", "Ada Lovelace", "ada@uni.example"), ("emmy", "Emmy Noether", "")]
    canvas = read_roster(DATA / "canvas_gradebook_export.csv")
    assert [(s["id"], s["canvas_id"], s["sis_id"]) for s in canvas] == [("alovelace", "1201", "S0001"),
                                                                        ("enoether", "1202", "S0002")]
    moodle = [{"id": "emmy", "name": "Emmy Noether", "email": "", "login": ""}]
    assert identify("Emmy Noether_88213_assignsubmission_file_", moodle)["id"] == "emmy"
    assert identify("ALOVELACE", canvas)["id"] == "alovelace" and identify("zed", canvas) is None
    for text, message in [("name,email\nA,a@x\n", "must have a column 'id'"), ("id\nada\nada\n", "repeated"),
                          ("id,name\n,Nobody\n", "the id is empty")]:
        ours.write_text(text)
        with pytest.raises(ValueError, match=message):
            read_roster(ours)
    with pytest.raises(FileNotFoundError, match="roster"):
        read_roster(tmp_path / "none.csv")


def test_submission_time_from_a_timestamp_file_else_the_file_and_the_deadline(tmp_path):
    notebook = tmp_path / "ada" / "07_syn.ipynb"
    notebook.parent.mkdir()
    notebook.write_text("{}")
    os.utime(notebook, (1_700_000_000, 1_700_000_000))
    assert submitted_at(notebook) == datetime.fromtimestamp(1_700_000_000, timezone.utc)
    (notebook.parent / "submitted.txt").write_text("2026-03-01T23:12:00+01:00\nfrom the LMS\n")
    assert submitted_at(notebook) == datetime(2026, 3, 1, 22, 12, tzinfo=timezone.utc)
    (notebook.parent / "submitted.txt").write_text("yesterday\n")
    with pytest.raises(ValueError, match="ISO 8601"):
        submitted_at(notebook)
    assert parse_deadline("2026-03-01T23:00+01:00") < datetime(2026, 3, 1, 22, 12, tzinfo=timezone.utc)
    with pytest.raises(ValueError, match="--deadline"):
        parse_deadline("next friday")


def outcome(course, student, failed=(), ran=True, folder=None):
    chapter, handout, reference = course
    plan = build_run_notebook(solved(handout, chapter), reference)
    verdict = verdict_of(plan, reference, failed) if ran else interpret(plan, RunResult(), Limits(), reference)
    path = folder / student / "07_syn.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    return Outcome(path, f"{student}/07_syn.ipynb", student, verdict, 1.0, "07_syn.ipynb", ran, plan.places)


def gradebook_rows(path):
    with open(path, newline="") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def test_gradebook_statuses_missing_work_regrading_and_hand_points(course, tmp_path):
    references = {"07_syn.ipynb": course[2]}
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nada,Ada Lovelace,ada@x.org\nbea,Bea B,bea@x.org\ncy,Cy C,cy@x.org\n"
                      "dee,Dee D,dee@x.org\n")
    book = tmp_path / "gradebook.csv"
    records = Records(book, tmp_path / "feedback", read_roster(roster), parse_deadline("2026-01-01"))
    hidden = build_run_notebook(solved(course[1], course[0]), course[2]).roles
    hidden = next(i for i, role in enumerate(hidden) if role.kind == "hidden")
    first = [outcome(course, "ada", folder=tmp_path / "s"),
             outcome(course, "bea", [(hidden, "Notebook cell execution failed\nCell outputs differ")],
                     folder=tmp_path / "s"),
             outcome(course, "cy", ran=False, folder=tmp_path / "s")]
    (tmp_path / "s" / "ada" / "submitted.txt").write_text("2025-12-31T12:00:00+00:00\n")
    records.keep(first, references, open(os.devnull, "w"))
    rows = gradebook_rows(book)
    with open(book, newline="") as file:  # the exercises in the book's order, derivations included
        assert next(csv.reader(file))[-3:] == ["syn-ex0", "syn-ex1", "syn-ex2"]
    assert rows["(points possible)"]["syn-ex1"] == "4" and rows["(points possible)"]["syn-ex0"] == "2"
    assert [(rows[s]["status"], rows[s]["points"], rows[s]["possible"]) for s in ("ada", "bea", "cy", "dee")] == [
        ("graded", "5", "7"), ("late", "1", "7"), ("error", "0", "7"), ("missing", "0", "7")]
    assert rows["bea"]["name"] == "Bea B" and (tmp_path / "feedback" / "bea" / "07_syn.md").exists()
    hand = tmp_path / "hand.csv"
    hand.write_text("student,exercise,points,comment\nada,syn-ex0,1.5,almost\nbea,syn-ex0,,\n")
    assert add_hand_points(book, hand) == 1
    assert gradebook_rows(book)["ada"]["points"] == "6.5"
    # re-grade Bea alone, without the roster nor the deadline: her name, the deadline her row was graded
    # under (she is still late), Ada's hand points and the others stay
    Records(book).keep([outcome(course, "bea", folder=tmp_path / "t")], references, open(os.devnull, "w"))
    rows = gradebook_rows(book)
    assert (rows["bea"]["name"], rows["bea"]["points"], rows["bea"]["status"]) == ("Bea B", "5", "late")
    assert (rows["ada"]["points"], rows["ada"]["syn-ex0"], rows["dee"]["status"]) == ("6.5", "1.5", "missing")
    for text, message in [("student,exercise,points\nada,syn-ex0,3\n", "from 0 to 2"),
                          ("student,exercise,points\nzed,syn-ex0,1\n", "no student 'zed'"),
                          ("student,exercise,points\nada,syn-ex9,1\n", "no exercise 'syn-ex9'")]:
        hand.write_text(text)
        with pytest.raises(ValueError, match=message):
            add_hand_points(book, hand)
    assert gradebook_rows(book)["ada"]["points"] == "6.5"  # nothing written
    # a student folder named like a formula stays text, and is the same student when graded again
    for _ in range(2):
        Records(book).keep([outcome(course, "=cmd", folder=tmp_path / "u")], references, open(os.devnull, "w"))
    assert [row["student"] for row in read_gradebook(book)[0]].count("=cmd") == 1
    assert "'=cmd" in gradebook_rows(book)


def test_canvas_and_moodle_exports_have_their_import_columns(course, tmp_path):
    roster = read_roster(DATA / "canvas_gradebook_export.csv")
    book = tmp_path / "gradebook.csv"
    Records(book, roster=roster).keep([outcome(course, "alovelace", folder=tmp_path / "s")],
                                      {"07_syn.ipynb": course[2]}, open(os.devnull, "w"))
    assert export(book, tmp_path / "canvas.csv", "canvas", roster, {"07_syn.ipynb": "Coursework 1 (40101)"}) == 2
    with open(tmp_path / "canvas.csv", newline="") as file:
        rows = list(csv.reader(file))
    with open(DATA / "canvas_gradebook_export.csv", newline="") as file:
        canvas = list(csv.reader(file))
    assert rows[0] == CANVAS_COLUMNS + ["Coursework 1 (40101)"] == canvas[0][:6]
    assert rows[1][0] == "Points Possible" and rows[1][5] == "7"
    # the identity columns of each student exactly as Canvas exported them; Emmy handed nothing in: 0
    assert [row[:5] for row in rows[2:]] == [row[:5] for row in canvas[2:4]]
    assert [row[5] for row in rows[2:]] == ["5", "0"]
    export(book, tmp_path / "moodle.csv", "moodle", roster)
    with open(tmp_path / "moodle.csv", newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == MOODLE_COLUMNS + ["07_syn"] == ["Username", "ID number", "Email address", "Full name", "07_syn"]
    assert rows[1] == ["alovelace", "S0001", "", "Lovelace, Ada", "5"]
    with pytest.raises(ValueError, match="lms must be"):
        export(book, tmp_path / "x.csv", "blackboard")


# ---------------------------------------------------------------- written answers


def test_written_answers_are_exported_per_exercise_and_their_points_added(course, tmp_path):
    chapter, handout, reference = course
    answered = solved(handout, chapter)
    answer_cell = next(cell for cell in answered.cells  # today's answer line, or one with the book's number
                       if re.search(r"Your answer to (exercise syn-ex0|Exercise 7\.1)", cell.source))
    answer_cell.source = answer_cell.source.replace("Write your answer here.", "Since $2x = x + x$.")
    answered.cells.insert(answered.cells.index(answer_cell) + 1, new_markdown_cell("And a second paragraph."))
    ids = {cell.get("id") for cell in handout.cells}
    expected = "Since $2x = x + x$.\n\nAnd a second paragraph."
    assert written_answers(answered, {"syn-ex0": "7.1"}, ids) == {"syn-ex0": expected}
    assert written_answers(answered, {"syn-ex0": "7.1"}) == {"syn-ex0": expected}  # without ids: up to a code cell
    assert written_answers(handout, {"syn-ex0": "7.1"}, ids) == {"syn-ex0": "(no answer)"}
    # a handout whose answers are cells of their own, marked by make-student, and named by the book's number
    marked = copy.deepcopy(answered)
    at = marked.cells.index(next(cell for cell in marked.cells if "Since $2x" in cell.source))
    marked.cells[at].source = "Some statement of the exercise."
    marked.cells[at].metadata.pop("kpca_coursework", None)
    answer = new_markdown_cell("*Your answer to Exercise 7.1:*\n\nSince $2x = x + x$.",
                               metadata={"kpca_coursework": {"exercise": "syn-ex0", "number": "7.1", "written": True}})
    other = new_markdown_cell("Write your answer here.",
                              metadata={"kpca_coursework": {"exercise": "syn-ex1", "number": "7.2", "written": True}})
    marked.cells[at + 1:at + 1] = [answer]
    marked.cells.append(other)
    assert written_answers(marked, {"syn-ex0": "7.1"}) == {"syn-ex0": expected}
    (tmp_path / "ref").mkdir()
    nbformat.write(chapter, tmp_path / "ref" / "07_syn.ipynb")
    for student, nb in [("ada", answered), ("bea", handout)]:
        (tmp_path / "subs" / student).mkdir(parents=True)
        nbformat.write(nb, tmp_path / "subs" / student / "07_syn.ipynb")
    files = export_written(tmp_path / "subs", tmp_path / "ref", tmp_path / "written")
    assert [path.relative_to(tmp_path / "written").as_posix() for path in files] == ["07_syn/syn-ex0.md",
                                                                                     "hand-points.csv"]
    text = (tmp_path / "written" / "07_syn" / "syn-ex0.md").read_text()
    assert text.startswith("# Exercise 7.1 (Pen and paper: Why twice): written answers (2 points)")
    assert "## ada\n\nSince $2x = x + x$.\n\nAnd a second paragraph." in text and "## bea\n\n(no answer)" in text
    assert "Because." not in text  # the solution never leaves the chapter
    with open(tmp_path / "written" / "hand-points.csv", newline="") as file:
        assert list(csv.reader(file)) == [["student", "exercise", "points", "comment"],
                                          ["ada", "syn-ex0", "", ""], ["bea", "syn-ex0", "", ""]]


# ---------------------------------------------------------------- the environment


def test_the_precheck_imports_every_module_the_chapters_import(tmp_path):
    from coursework.grading.precheck import chapter_imports, probe_source

    chapter = graded_chapter()
    chapter.cells[1].source = ("%matplotlib inline\nimport numpy as np, os.path\nfrom scipy.linalg import eigh\n"
                               "from . import nothing\n!ls\nx = 21")
    chapter.cells.append(new_code_cell("def broken(:\n    import not_parsed"))
    nbformat.write(chapter, tmp_path / "07_syn.ipynb")
    assert chapter_imports(tmp_path) == ["kpca_lib", "numpy", "os", "scipy"]
    with pytest.raises(ImportError) as error:
        exec(probe_source(["json", "kpca_no_such_module"]), {})
    assert str(error.value) == "kpca_no_such_module (ModuleNotFoundError: No module named 'kpca_no_such_module')"
    exec(probe_source(["json"]), {})


def test_a_bubblewrap_that_fails_is_not_told_to_be_installed(tmp_path, monkeypatch):
    from coursework.isolation.sandbox import GraderError, choose_isolation

    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(GraderError) as error:
        choose_isolation(True)
    assert "bubblewrap cannot make a sandbox here: bwrap: setting up uid map: Permission denied" in str(error.value)
    assert "install bubblewrap" not in str(error.value)
    if os.geteuid() == 0:  # without --sandbox, root falls back to a user of the kernel's own, if it can run Python
        try:
            assert choose_isolation(False).mode == "user"
        except GraderError as fallback:
            assert "make bubblewrap work" in str(fallback) and "install bubblewrap" not in str(fallback)


# ---------------------------------------------------------------- the written part of a code exercise (F23)


def chapter_with_written_part(prose=True):
    """:func:`chapter_with_points` with syn-ex1 (Exercise 7.2) asking a "why" beside its code: its
    ``{solution-start}`` cell declares a written part of 3 points, and its solution explains after the code
    (``prose``) or holds code only."""
    chapter = chapter_with_points()
    start = next(i for i, cell in enumerate(chapter.cells) if "{solution-start} syn-ex1" in cell.source)
    chapter.cells[start].metadata["kpca_points"] = 3
    if prose:
        end = next(i for i, cell in enumerate(chapter.cells) if i > start and "{solution-end}" in cell.source)
        chapter.cells.insert(end, new_markdown_cell("SECRET PROSE: doubling is linear, so it commutes with sums."))
    return chapter


@pytest.fixture
def mixed():
    chapter = chapter_with_written_part()
    return chapter, make_student_notebook(chapter, name="07_syn.ipynb"), extract_reference(chapter, "07_syn.ipynb")


def answer_cells(nb, label):
    return [cell for cell in nb.cells if cell.cell_type == "markdown"
            and (cell.metadata.get("kpca_coursework") or {}).get("exercise") == label
            and cell.metadata["kpca_coursework"].get("written")]


def test_the_written_part_of_a_code_exercise_has_its_own_points_apart_from_its_checks(mixed):
    _, _, reference = mixed
    # the code points are unchanged (4 and 1, as declared on the solution cells); the written part is a key of its own
    assert reference.points == {"syn-ex1": 4, "syn-ex2": 1}
    assert reference.written == {"syn-ex0": 2, "syn-ex1-written": 3}
    assert reference.written_parts == {"syn-ex1-written": "syn-ex1"}
    assert reference.written_title("syn-ex1-written") == "the written part of Exercise 7.2"
    # without the key on the solution-start cell: no written part, as before
    assert extract_reference(chapter_with_points(), "07_syn.ipynb").written == {"syn-ex0": 2}
    # a mapping on that cell gives it only if it names the exercise
    chapter = chapter_with_written_part()
    start = next(cell for cell in chapter.cells if "{solution-start} syn-ex1" in cell.source)
    start.metadata["kpca_points"] = {"syn-ex9": 5}
    assert extract_reference(chapter, "07_syn.ipynb").written == {"syn-ex0": 2}
    start.metadata["kpca_points"] = {"syn-ex1": 5}
    assert extract_reference(chapter, "07_syn.ipynb").written == {"syn-ex0": 2, "syn-ex1-written": 5}
    start.metadata["kpca_points"] = -2
    with pytest.raises(ValueError, match=r"the solution of syn-ex1\): the cell metadata kpca_points must be"):
        extract_reference(chapter, "07_syn.ipynb")


def test_a_number_on_a_cell_holding_a_derivation_and_a_solution_start_is_the_derivations():
    # as in appendix A: one cell holds the solution of a derivation, the next statement and a solution-start
    chapter = chapter_with_points()
    title, derivation, setup, start, *rest = chapter.cells
    assert "{solution} syn-ex0" in derivation.source and "{solution-start} syn-ex1" in start.source
    merged = new_markdown_cell(derivation.source + "\n\n" + start.source, metadata={"kpca_points": 2})
    chapter.cells = [title, setup, merged, *rest]
    reference = extract_reference(chapter, "07_syn.ipynb")
    assert reference.written == {"syn-ex0": 2} and reference.points["syn-ex1"] == 4
    merged.metadata["kpca_points"] = {"syn-ex0": 2, "syn-ex1": 3}  # the mapping names each
    assert extract_reference(chapter, "07_syn.ipynb").written == {"syn-ex0": 2, "syn-ex1-written": 3}


def test_a_written_part_key_that_is_also_a_label_is_an_error():
    chapter = chapter_with_written_part()
    chapter.cells.append(new_markdown_cell("```{exercise}\n:label: syn-ex1-written\n\nAnother.\n```\n\n"
                                           "```{solution} syn-ex1-written\nBecause.\n```"))
    with pytest.raises(ValueError, match="graded under 'syn-ex1-written', which is also the label of an exercise"):
        extract_reference(chapter, "07_syn.ipynb")


def test_make_student_gives_the_written_part_an_answer_cell_after_the_code(mixed):
    chapter, student, _ = mixed
    for handout in (student, make_student_notebook(chapter_with_written_part(prose=False), name="07_syn.ipynb")):
        answers = answer_cells(handout, "syn-ex1")
        assert len(answers) == 1
        at = handout.cells.index(answers[0])
        stub = stubs(handout)[0]
        assert stub.metadata["kpca_coursework"]["exercise"] == "syn-ex1"
        assert handout.cells.index(stub) < at < handout.cells.index(stubs(handout)[1])  # before Exercise 7.3's
        assert "Print $x + 1$" not in answers[0].source
        assert answers[0].source == "*Your answer to Exercise 7.2:*\n\nWrite your answer here."
        assert answers[0].metadata["kpca_coursework"] == {"exercise": "syn-ex1", "number": "7.2", "written": True}
        assert "SECRET" not in nbformat.writes(handout)
        # the same handout on every run, and from a handout
        assert make_student_notebook(handout, name="07_syn.ipynb") == handout
    code_only = chapter_with_written_part(prose=False)
    again = make_student_notebook(code_only, name="07_syn.ipynb")
    assert again == make_student_notebook(code_only, name="07_syn.ipynb")  # its new cell's id is no random one
    # an exercise without a written part gets no answer line where its solution had prose (as before)
    plain = chapter_with_written_part()
    next(cell for cell in plain.cells if "{solution-start} syn-ex1" in cell.source).metadata.pop("kpca_points")
    answer = answer_cells(make_student_notebook(plain, name="07_syn.ipynb"), "syn-ex1")
    assert [cell.source for cell in answer] == ["Write your answer here."]


def test_the_written_part_is_collected_given_points_by_hand_and_exported(mixed, tmp_path):
    chapter, handout, reference = mixed
    answered = solved(handout, chapter)
    answer_cells(answered, "syn-ex1")[0].source = "*Your answer to Exercise 7.2:*\n\nDoubling is linear."
    ids = {cell.get("id") for cell in handout.cells}
    at = answered.cells.index(answer_cells(answered, "syn-ex1")[0])
    answered.cells.insert(at + 1, new_markdown_cell("So it commutes with sums."))  # a cell the student added
    assert written_answers(answered, {"syn-ex1": "7.2"}, ids) == {"syn-ex1": "Doubling is linear.\n\n"
                                                                             "So it commutes with sums."}
    # two answer cells of one exercise (prose before and after its code): both, in order
    twice = copy.deepcopy(answered)
    first = copy.deepcopy(answer_cells(twice, "syn-ex1")[0])
    first.source, first["id"] = "*Your answer to Exercise 7.2:*\n\nFirst, the map.", "first-answer"
    twice.cells.insert(twice.cells.index(stubs(twice)[0]), first)
    assert written_answers(twice, {"syn-ex1": "7.2"})["syn-ex1"] == ("First, the map.\n\nDoubling is linear.\n\n"
                                                                     "So it commutes with sums.")
    # written: one file per written answer, the written part's under its own key
    (tmp_path / "ref").mkdir()
    nbformat.write(chapter, tmp_path / "ref" / "07_syn.ipynb")
    for student, nb in [("ada", answered), ("bea", handout)]:
        (tmp_path / "subs" / student).mkdir(parents=True)
        nbformat.write(nb, tmp_path / "subs" / student / "07_syn.ipynb")
    files = export_written(tmp_path / "subs", tmp_path / "ref", tmp_path / "written")
    assert [path.relative_to(tmp_path / "written").as_posix() for path in files] == [
        "07_syn/syn-ex0.md", "07_syn/syn-ex1-written.md", "hand-points.csv"]
    text = (tmp_path / "written" / "07_syn" / "syn-ex1-written.md").read_text()
    assert text.startswith("# Exercise 7.2 (Pen and paper): written part (3 points)\n")
    assert "## ada\n\nDoubling is linear.\n\nSo it commutes with sums." in text and "## bea\n\n(no answer)" in text
    assert "SECRET" not in text and "def double" not in text  # neither the solution's prose nor the code
    with open(tmp_path / "written" / "hand-points.csv", newline="") as file:
        assert list(csv.reader(file))[1:] == [["ada", "syn-ex0", "", ""], ["bea", "syn-ex0", "", ""],
                                              ["ada", "syn-ex1-written", "", ""], ["bea", "syn-ex1-written", "", ""]]
    # the gradebook: a column of its own, after the exercise's, worth the declared 3 points
    course = (chapter, handout, reference)
    book, references = tmp_path / "gradebook.csv", {"07_syn.ipynb": reference}
    Records(book, tmp_path / "feedback").keep([outcome(course, "ada", folder=tmp_path / "s")], references,
                                              open(os.devnull, "w"))
    with open(book, newline="") as file:
        assert next(csv.reader(file))[-4:] == ["syn-ex0", "syn-ex1", "syn-ex1-written", "syn-ex2"]
    rows = gradebook_rows(book)
    assert (rows["(points possible)"]["syn-ex1"], rows["(points possible)"]["syn-ex1-written"]) == ("4", "3")
    # all code checks pass: 4 + 1 earned, of 2 + 4 + 3 + 1 possible; the written part waits for the instructor
    assert (rows["ada"]["points"], rows["ada"]["possible"], rows["ada"]["syn-ex1-written"]) == ("5", "10", "")
    hand = tmp_path / "hand.csv"
    hand.write_text("student,exercise,points,comment\nada,syn-ex1-written,2.5,\n")
    assert add_hand_points(book, hand) == 1
    rows = gradebook_rows(book)
    assert (rows["ada"]["syn-ex1"], rows["ada"]["syn-ex1-written"], rows["ada"]["points"]) == ("4", "2.5", "7.5")
    hand.write_text("student,exercise,points\nada,syn-ex1-written,3.5\n")
    with pytest.raises(ValueError, match="from 0 to 3"):
        add_hand_points(book, hand)
    hand.write_text("student,exercise,points\nada,syn-ex1,3\n")  # the checks' column: not by hand
    with pytest.raises(ValueError, match="'syn-ex1' holds the points its checks earned; the points of its "
                                         "written part go in 'syn-ex1-written'"):
        add_hand_points(book, hand)
    assert gradebook_rows(book)["ada"]["syn-ex1"] == "4"
    # re-grading keeps the hand points, and the checks' points stay in their own column
    Records(book).keep([outcome(course, "ada", folder=tmp_path / "t")], references, open(os.devnull, "w"))
    rows = gradebook_rows(book)
    assert (rows["ada"]["syn-ex1"], rows["ada"]["syn-ex1-written"], rows["ada"]["points"]) == ("4", "2.5", "7.5")
    export(book, tmp_path / "moodle.csv", "moodle")
    with open(tmp_path / "moodle.csv", newline="") as file:
        assert list(csv.reader(file))[1][-1] == "7.5"
    export(book, tmp_path / "canvas.csv", "canvas")
    with open(tmp_path / "canvas.csv", newline="") as file:
        assert list(csv.reader(file))[1][-1] == "10"  # Points Possible, written part included
    # the feedback names it, beside the exercise's checks, with its marks once given (the derivation: by hand, later)
    feedback = (tmp_path / "feedback" / "ada" / "07_syn.md").read_text()
    assert "Written answers (Exercise 7.1) are graded by hand, separately. Marked by hand: see" in feedback
    section = feedback[feedback.index("## Exercise 7.2"):feedback.index("## Exercise 7.3")]
    assert section.startswith("## Exercise 7.2 (Pen and paper): 4 of 4 points")
    assert "- Written part (your answer cells): 2.5 of 3 points, marked by hand." in section


# ---------------------------------------------------------------- the gradebook in ordinary accidents (issue 39)


def keep_quietly(records, outcomes, references):
    import io

    stream = io.StringIO()
    records.keep(outcomes, references, stream)
    return stream.getvalue()


def test_a_broken_upload_is_an_error_of_its_chapter_with_feedback_never_missing(course, tmp_path):
    import time

    from coursework.grading import session

    chapter, handout, reference = course
    (tmp_path / "ref").mkdir()
    nbformat.write(chapter, tmp_path / "ref" / "07_syn.ipynb")
    subs = tmp_path / "subs"
    for student, name in [("henry", "07_syn.ipynb"), ("ivy", "07 syn (2).ipynb")]:
        (subs / student).mkdir(parents=True)
        (subs / student / name).write_text('{"cells": [')  # truncated JSON
    (subs / "ada").mkdir()
    nbformat.write(handout, subs / "ada" / "07_syn.ipynb")
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nada,Ada A,a@x\nhenry,Henry Ford,h@x\nivy,Ivy I,i@x\n")
    records = Records(tmp_path / "gradebook.csv", tmp_path / "feedback", read_roster(roster))
    outcomes = []  # the grader's own reading of each upload, which refuses them before any run
    for student, name in [("henry", "07_syn.ipynb"), ("ivy", "07 syn (2).ipynb")]:
        path = subs / student / name
        verdict, chapter_name, ran, places = session._grade_one(path, {"07_syn.ipynb": reference}, None, Limits(),
                                                                time.monotonic())
        outcomes.append(Outcome(path, f"{student}/{name}", student, verdict, 0.0, chapter_name, ran, places))
    assert [o.chapter for o in outcomes] == ["07_syn.ipynb", None]  # named like the chapter, and not
    said = keep_quietly(records, outcomes + [outcome(course, "ada", folder=tmp_path / "s")], {"07_syn.ipynb": reference})
    rows = [row for row in read_gradebook(tmp_path / "gradebook.csv")[0]]
    assert sorted((row["student"], row["chapter"], row["status"]) for row in rows) == [
        ("ada", "07_syn.ipynb", "graded"), ("henry", "07_syn.ipynb", "error"), ("ivy", "07_syn.ipynb", "error")]
    assert "missing" not in said
    for student in ("henry", "ivy"):
        text = (tmp_path / "feedback" / student / "07_syn.md").read_text()
        assert "could not be graded" in text and "not a readable notebook" in text


def test_a_regrade_keeps_the_late_policy_and_rewrites_the_feedback_file(course, tmp_path):
    references = {"07_syn.ipynb": course[2]}
    hidden = next(i for i, role in enumerate(build_run_notebook(solved(course[1], course[0]), course[2]).roles)
                  if role.kind == "hidden")
    wrong = outcome(course, "dave", [(hidden, "Notebook cell execution failed\nCell outputs differ")],
                    folder=tmp_path / "s")
    (tmp_path / "s" / "dave" / "submitted.txt").write_text("2026-03-02T09:15:00+00:00\n")  # 33 h 16 min late
    book, feedback = tmp_path / "gradebook.csv", tmp_path / "feedback"
    records = Records(book, feedback, deadline=parse_deadline("2026-03-01T00:00+00:00"), per_day=0.25)
    keep_quietly(records, [wrong], references)
    row = gradebook_rows(book)["dave"]
    # 1 point by the checks (syn-ex2; 7 possible with the derivation), 2 days started: 2 x 25% of 7 = 3.5 off
    assert (row["status"], row["late_days"], row["penalty"], row["points"]) == ("late", "2", "3.5", "0")
    assert "Points: 1 of 5" in (feedback / "dave" / "07_syn.md").read_text()
    right = outcome(course, "dave", folder=tmp_path / "s")  # his notebook fixed by the instructor, re-graded alone
    keep_quietly(Records(book), [right], references)  # the documented re-grade: no --deadline, no --feedback
    row = gradebook_rows(book)["dave"]
    assert (row["status"], row["late_days"], row["penalty"], row["points"]) == ("late", "2", "3.5", "1.5")
    text = (feedback / "dave" / "07_syn.md").read_text()
    assert "Points: 5 of 5" in text and "2 days late" in text and "3.5 points taken off" in text


def test_grading_a_students_folder_makes_no_phantom_student(course, tmp_path):
    import io

    from coursework.grading import session
    from coursework.isolation.sandbox import Isolation

    chapter = course[0]
    (tmp_path / "ref").mkdir()
    nbformat.write(chapter, tmp_path / "ref" / "07_syn.ipynb")
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    (tmp_path / "subs" / "alice" / "07_syn.ipynb").write_text("{ not json")  # graded without a kernel
    outcomes = session.grade(tmp_path / "subs" / "alice", tmp_path / "ref", isolation=Isolation("plain"),
                             stream=io.StringIO(), notes=io.StringIO(), precheck=False)
    assert [o.student for o in outcomes] == ["alice"]


def test_two_notebooks_of_one_chapter_in_a_folder_are_reported_never_silently_chosen(course, tmp_path):
    references = {"07_syn.ipynb": course[2]}
    book = tmp_path / "gradebook.csv"
    old = outcome(course, "zoe", folder=tmp_path / "s")
    old.path.rename(old.path.with_name("old_07_syn.ipynb"))
    old = Outcome(old.path.with_name("old_07_syn.ipynb"), "zoe/old_07_syn.ipynb", "zoe", old.verdict, 1.0,
                  "07_syn.ipynb", True, old.places)
    real = outcome(course, "zoe", folder=tmp_path / "s")
    (tmp_path / "s" / "zoe" / "submitted.txt").write_text("2026-03-01T10:00:00+00:00\n")  # one time for both
    said = keep_quietly(Records(book), [real, old], references)
    row = gradebook_rows(book)["zoe"]
    assert row["status"] == "error" and "zoe/07_syn.ipynb" in row["notes"] and "old_07_syn.ipynb" in row["notes"]
    assert "does not choose" in said
    (tmp_path / "s" / "zoe" / "submitted.txt").unlink()
    os.utime(real.path, (1_800_000_000, 1_800_000_000))
    os.utime(old.path, (1_700_000_000, 1_700_000_000))
    said = keep_quietly(Records(book), [real, old], references)
    row = gradebook_rows(book)["zoe"]
    assert (row["status"], row["file"]) == ("graded", "zoe/07_syn.ipynb")
    assert "also handed in zoe/old_07_syn.ipynb (earlier: not counted)" in row["notes"] and "counts" in said
    assert row["submitted"].endswith("(file time)")  # no submitted.txt: marked as the file's time


def test_hand_points_never_overwrite_checks_silently_reach_the_feedback_and_go_stale(course, tmp_path):
    chapter, handout, reference = course
    references = {"07_syn.ipynb": reference}
    book, feedback = tmp_path / "gradebook.csv", tmp_path / "feedback"
    first = outcome(course, "bob", folder=tmp_path / "s")
    answered = solved(handout, chapter)
    cell = next(c for c in answered.cells if "Your answer to Exercise 7.1" in c.source)
    cell.source = cell.source.replace("Write your answer here.", "Since $2x = x + x$.")
    nbformat.write(answered, first.path)
    keep_quietly(Records(book, feedback), [first], references)
    hand = tmp_path / "hand.csv"
    hand.write_text("student,exercise,points,comment\nbob,syn-ex1,1,copied\n")
    with pytest.raises(ValueError, match="override-autograded"):
        add_hand_points(book, hand)
    assert gradebook_rows(book)["bob"]["syn-ex1"] == "4"
    hand.write_text("student,exercise,points,comment\nbob,syn-ex0,1.5,rank argument missing\n")
    assert add_hand_points(book, hand) == 1
    text = (feedback / "bob" / "07_syn.md").read_text()
    assert "## Marked by hand" in text and "Exercise 7.1: 1.5 of 2 points. rank argument missing" in text
    # re-graded, the same answer: nothing flagged, the comment stays in the rewritten feedback
    said = keep_quietly(Records(book), [first], references)
    assert "changed" not in said and "rank argument missing" in (feedback / "bob" / "07_syn.md").read_text()
    cell.source = cell.source.replace("Since $2x = x + x$.", "Because doubling adds a number to itself.")
    nbformat.write(answered, first.path)  # resubmitted with another answer
    said = keep_quietly(Records(book), [first], references)
    row = gradebook_rows(book)["bob"]
    assert "changed since it was marked by hand" in said and "given to an earlier answer" in row["notes"]
    assert (row["syn-ex0"], row["points"]) == ("1.5", "6.5")
    # an explicit override stands through a re-grade, and says so
    hand.write_text("student,exercise,points,comment\nbob,syn-ex1,1,copied from a classmate\n")
    assert add_hand_points(book, hand, override=True) == 1
    keep_quietly(Records(book), [first], references)
    row = gradebook_rows(book)["bob"]
    assert row["syn-ex1"] == "1" and "override-autograded" in row["notes"]


def test_lateness_is_a_policy_applied_in_the_gradebook_and_carried_in_the_exports(course, tmp_path):
    import io
    import math

    from coursework.grading.lateness import parse_grace, parse_penalty

    references = {"07_syn.ipynb": course[2]}
    times = {"ann": "2026-03-01T00:10:00+00:00",  # within the 15 min grace period: on time
             "ben": "2026-03-01T00:20:00+00:00",  # 20 min late: 1 day started
             "cat": "2026-03-03T00:00:01+00:00"}  # 48 h and 1 s late: 3 days started
    outcomes = []
    for student, when in times.items():
        outcomes.append(outcome(course, student, folder=tmp_path / "s"))
        (tmp_path / "s" / student / "submitted.txt").write_text(when + "\n")
    deadline, grace = parse_deadline("2026-03-01T00:00+00:00"), parse_grace("15min")
    book = tmp_path / "gradebook.csv"
    keep_quietly(Records(book, deadline=deadline, per_day=parse_penalty("10%/day"), grace=grace), outcomes, references)
    rows = gradebook_rows(book)
    # 5 points by the checks of 7 possible; 10% of 7 = 0.7 per day
    assert {s: (rows[s]["status"], rows[s]["late_days"], rows[s]["penalty"], rows[s]["points"]) for s in times} == {
        "ann": ("graded", "", "", "5"), "ben": ("late", "1", "0.7", "4.3"), "cat": ("late", "3", "2.1", "2.9")}
    hand = tmp_path / "hand.csv"  # the penalty is in points: hand points added later keep it
    hand.write_text("student,exercise,points\ncat,syn-ex0,2\n")
    add_hand_points(book, hand)
    assert gradebook_rows(book)["cat"]["points"] == "4.9"
    notes = io.StringIO()
    export(book, tmp_path / "moodle.csv", "moodle")
    with open(tmp_path / "moodle.csv", newline="") as file:
        moodle = {row["Username"]: row for row in csv.DictReader(file)}
    assert (moodle["cat"]["07_syn"], moodle["cat"]["07_syn feedback"]) == ("4.9", "late by 3 days: 2.1 points taken off")
    assert (moodle["ann"]["07_syn"], moodle["ann"]["07_syn feedback"]) == ("5", "")
    export(book, tmp_path / "canvas.csv", "canvas", notes=notes)
    assert "2 late notebooks: their points are exported with the late penalty taken off" in notes.getvalue()
    assert "no Canvas ID nor SIS User ID" in notes.getvalue()
    # no penalty: the note does not say one was taken off (a second instructor's walkthrough)
    keep_quietly(Records(book, deadline=deadline, per_day=parse_penalty("none"), grace=grace), outcomes, references)
    notes = io.StringIO()
    export(book, tmp_path / "canvas.csv", "canvas", notes=notes)
    assert "2 late notebooks: their points are exported unchanged (no penalty)" in notes.getvalue(), notes.getvalue()
    # zero: a late notebook earns nothing, whatever is added by hand
    keep_quietly(Records(book, deadline=deadline, per_day=parse_penalty("zero"), grace=grace), outcomes, references)
    rows = gradebook_rows(book)
    assert (rows["ann"]["points"], rows["ben"]["points"], rows["cat"]["points"]) == ("5", "0", "0")
    assert math.isinf(parse_penalty("zero")) and parse_penalty("none") == 0
    for bad in ("ten", "150%/day", "-5%"):
        with pytest.raises(ValueError, match="--late-penalty"):
            parse_penalty(bad)
    with pytest.raises(ValueError, match="--grace"):
        parse_grace("soon")


def test_a_gradebook_written_before_the_late_columns_is_read_and_kept(course, tmp_path):
    book = tmp_path / "gradebook.csv"
    book.write_text("student,name,email,chapter,file,status,submitted,points,possible,notes,syn-ex0,syn-ex1,syn-ex2\n"
                    "(points possible),,,,,,,,,,2,4,1\n(chapter),,,,,,,,,,07_syn.ipynb,07_syn.ipynb,07_syn.ipynb\n"
                    "ada,Ada,,07_syn.ipynb,ada/07_syn.ipynb,graded,,6,7,,1,4,1\n")
    keep_quietly(Records(book), [outcome(course, "bea", folder=tmp_path / "s")], {"07_syn.ipynb": course[2]})
    rows = gradebook_rows(book)
    assert (rows["ada"]["points"], rows["bea"]["points"], rows["bea"]["status"]) == ("6", "5", "graded")


def test_the_command_line_takes_the_late_policy_override_and_exports(course, tmp_path, capsys):
    from coursework.__main__ import main

    for options, message in [(["--late-penalty", "ten"], "--late-penalty"), (["--grace", "soon"], "--grace"),
                             (["--export", "blackboard=x.csv", "--gradebook", "g.csv"], "--export"),
                             (["--export", "canvas=x.csv"], "--export needs --gradebook")]:
        with pytest.raises(SystemExit) as stop:  # refused before anything is graded
            main(["grade", str(tmp_path), "--reference", str(tmp_path), *options])
        assert stop.value.code == 2 and message in capsys.readouterr().err
    book = tmp_path / "gradebook.csv"
    keep_quietly(Records(book), [outcome(course, "bob", folder=tmp_path / "s")], {"07_syn.ipynb": course[2]})
    (tmp_path / "hand.csv").write_text("student,exercise,points\nbob,syn-ex1,2\n")
    with pytest.raises(SystemExit):
        main(["hand-points", str(book), str(tmp_path / "hand.csv")])
    assert "--override-autograded" in capsys.readouterr().err and gradebook_rows(book)["bob"]["syn-ex1"] == "4"
    assert main(["hand-points", str(book), str(tmp_path / "hand.csv"), "--override-autograded"]) == 0
    assert gradebook_rows(book)["bob"]["syn-ex1"] == "2"


# ---------------------------------------------------------------- the minor list (issue 39, item 10)


def test_a_blank_graded_cell_is_reported_empty(course):
    from coursework_notebooks import with_sources

    chapter, handout, reference = course
    plan = build_run_notebook(with_sources(solved(handout, chapter), None, "\n# nothing yet\n"), reference)
    cell = role_index(plan, "graded", "syn-ex2")
    verdict = verdict_of(plan, reference, [(cell, "Notebook cell execution failed\nCell outputs differ")])
    assert verdict.checks[("visible", "syn-ex2", 0)].reason == "empty: the cell has no code (write your solution in it)"
    plan = build_run_notebook(with_sources(solved(handout, chapter), None, "print(x)"), reference)
    verdict = verdict_of(plan, reference, [(cell, "Notebook cell execution failed\nCell outputs differ")])
    assert verdict.checks[("visible", "syn-ex2", 0)].reason == "output differs from the reference"


def test_the_handout_shows_each_exercises_points(course):
    chapter, handout, _ = course  # declared in chapter_with_points: syn-ex0 2 points, syn-ex1 4, syn-ex2 1 (default)
    statements = [cell.source.split("\n")[0] for cell in handout.cells if cell.source.startswith("**Exercise")]
    assert statements == ["**Exercise 7.1** (2 points, marked by hand)",
                          "**Exercise 7.2** (4 points by the checks of your code)",
                          "**Exercise 7.3** (1 point by the checks of your code)"]
    assert make_student_notebook(handout, name="07_syn.ipynb") == handout  # shown once, however often it is made


def test_the_private_reference_of_the_guide_is_ignored_by_git():
    import subprocess

    root = Path(__file__).resolve().parents[1]
    for path in ("private/04_kernel_pca.ipynb", "reseed.py"):
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=root).returncode == 0, path


def test_a_lone_handout_names_other_chapters_by_their_number():
    from coursework.authoring.myst_markdown import BookIndex, to_markdown

    text = to_markdown("See {doc}`C_kernel_pca_at_scale` and {doc}`03_kernels`.", BookIndex(token="4"))
    assert text == "See Appendix C of the book and Chapter 3 of the book."
    known = BookIndex(token="4", titles={"03_kernels": "Kernel functions"})
    assert to_markdown("{doc}`03_kernels`", known) == "Kernel functions"


def test_a_canvas_export_without_canvas_ids_warns(course, tmp_path):
    import io

    book = tmp_path / "gradebook.csv"
    keep_quietly(Records(book), [outcome(course, "alovelace", folder=tmp_path / "s")], {"07_syn.ipynb": course[2]})
    notes = io.StringIO()
    export(book, tmp_path / "canvas.csv", "canvas", notes=notes)
    assert "1 of 1 students have no Canvas ID nor SIS User ID (alovelace)" in notes.getvalue()
    notes = io.StringIO()
    export(book, tmp_path / "canvas.csv", "canvas", read_roster(DATA / "canvas_gradebook_export.csv"), notes=notes)
    assert "Canvas ID" not in notes.getvalue()
