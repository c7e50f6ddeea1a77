"""What a fresh instructor's walkthrough of chapter 3 found (issue 39, second walkthrough).

Course records without a kernel, on the synthetic chapter of
``test_grading_course.py``: hand points over a code exercise with a written
part, exports that say what is not final, the total in the feedback, and a
broken upload's written answers.
"""

import csv
import io
import os

import pytest

from coursework.grading.hand import add_hand_points
from coursework.grading.records import Records
from test_grading_course import course, gradebook_rows, mixed, outcome  # noqa: F401 (fixtures)


def keep(records, outcomes, references):
    stream = io.StringIO()
    records.keep(outcomes, references, stream)
    return stream.getvalue()


def test_override_autograded_sets_the_checks_column_of_an_exercise_with_a_written_part(mixed, tmp_path):
    references = {"07_syn.ipynb": mixed[2]}
    book = tmp_path / "gradebook.csv"
    keep(Records(book, tmp_path / "feedback"), [outcome(mixed, "mallory", folder=tmp_path / "s")], references)
    assert (gradebook_rows(book)["mallory"]["syn-ex1"], gradebook_rows(book)["mallory"]["points"]) == ("4", "5")
    hand = tmp_path / "hand.csv"
    hand.write_text("student,exercise,points,comment\nmallory,syn-ex1,0,copied\n")
    with pytest.raises(ValueError, match="override-autograded"):  # without the flag: refused, and says how
        add_hand_points(book, hand)
    assert add_hand_points(book, hand, override=True) == 1
    row = gradebook_rows(book)["mallory"]
    # the checks' column is replaced (4 -> 0); the written part stays empty, for its own marks; the
    # notes say so at once, not only after the next re-grade (a second instructor's walkthrough)
    assert (row["syn-ex1"], row["syn-ex1-written"], row["points"]) == ("0", "", "1")
    assert row["notes"].count("syn-ex1: points set by hand (--override-autograded)") == 1, row["notes"]
    feedback = (tmp_path / "feedback" / "mallory" / "07_syn.md")

    def consistent():
        # the feedback agrees with the gradebook everywhere: its code-exercise line and the exercise's
        # heading show the points set by hand, not the checks' 4 of 4
        text = feedback.read_text()
        heading = next(line for line in text.split("\n") if line.startswith("## Exercise 7.2"))
        code = next(line for line in text.split("\n") if line.startswith("Points: "))
        assert heading.endswith(": 0 of 4 points, set by hand (see Marked by hand)"), heading
        assert code.startswith("Points: 1 of 5 for the code exercises"), code
        assert "- Exercise 7.2: 0 of 4 points. copied" in text

    consistent()
    keep(Records(book, tmp_path / "feedback"), [outcome(mixed, "mallory", folder=tmp_path / "s")], references)
    row = gradebook_rows(book)["mallory"]  # a re-grade keeps it, and its feedback too
    assert (row["syn-ex1"], row["points"]) == ("0", "1") and "override-autograded" in row["notes"]
    assert row["notes"].count("syn-ex1: points set by hand (--override-autograded)") == 1, row["notes"]
    consistent()


def test_every_export_warns_about_a_notebook_not_graded_and_answers_not_marked(course, tmp_path):
    from coursework.grading.lms import export

    references = {"07_syn.ipynb": course[2]}
    book = tmp_path / "gradebook.csv"
    # victor: graded, his derivation (syn-ex0, 2 points by hand) not marked yet; peggy: her notebook could not be run
    keep(Records(book, tmp_path / "feedback"), [outcome(course, "victor", folder=tmp_path / "s"),
                                                outcome(course, "peggy", ran=False, folder=tmp_path / "s")],
         references)
    assert (gradebook_rows(book)["peggy"]["status"], gradebook_rows(book)["victor"]["syn-ex0"]) == ("error", "")
    for lms in ("canvas", "moodle"):
        notes = io.StringIO()
        export(book, tmp_path / f"{lms}.csv", lms, notes=notes)
        said = notes.getvalue()
        assert ("WARNING: 1 students have a notebook that could not be graded (status error): peggy (07_syn)"
                in said), said
        assert "WARNING: 1 written answers of 1 students are not marked yet: victor (1)" in said, said
    with open(tmp_path / "moodle.csv", newline="") as file:
        moodle = {row["Username"]: row for row in csv.DictReader(file)}
    assert moodle["peggy"]["07_syn feedback"] == "could not be graded: see the feedback file"
    hand = tmp_path / "hand.csv"
    hand.write_text("student,exercise,points\nvictor,syn-ex0,2\n")
    add_hand_points(book, hand)
    notes = io.StringIO()
    export(book, tmp_path / "canvas.csv", "canvas", notes=notes)
    assert "not marked" not in notes.getvalue() and "peggy (07_syn)" in notes.getvalue()


def test_the_feedback_starts_with_the_total_and_shows_the_marks_once_given(mixed, tmp_path):
    from coursework.grading.gradebook import parse_deadline

    references = {"07_syn.ipynb": mixed[2]}
    book, feedback = tmp_path / "gradebook.csv", tmp_path / "feedback"
    dan = outcome(mixed, "dan", folder=tmp_path / "s")
    (tmp_path / "s" / "dan" / "submitted.txt").write_text("2026-03-01T10:00:00+00:00\n")  # 10 hours late: 1 day
    records = Records(book, feedback, deadline=parse_deadline("2026-03-01T00:00+00:00"), per_day=0.25)
    keep(records, [dan], references)
    # all checks pass: 4 + 1 code points of 10 (derivation 2, written part 3); one day late: 25% of 10 off
    text = (feedback / "dan" / "07_syn.md").read_text()
    lines = text.split("\n")
    assert lines[2] == ("Total: 2.5 of 10 points (code exercises 5, 2.5 taken off for lateness); 2 written "
                        "answers not marked yet (0 until marked).")
    assert "- Written part (your answer cells): 3 points, graded by hand, separately." in text
    hand = tmp_path / "hand.csv"
    hand.write_text("student,exercise,points,comment\ndan,syn-ex0,1.5,\ndan,syn-ex1-written,3,clear\n")
    add_hand_points(book, hand)
    text = (feedback / "dan" / "07_syn.md").read_text()
    # 5 + 1.5 + 3 - 2.5 = 7
    assert text.split("\n")[2] == ("Total: 7 of 10 points (code exercises 5, marked by hand 4.5, 2.5 taken off "
                                   "for lateness).")
    assert "graded by hand, separately" not in text
    section = text[text.index("## Exercise 7.2"):text.index("## Exercise 7.3")]
    assert "- Written part (your answer cells): 3 of 3 points, marked by hand." in section
    assert 'Marked by hand: see the section "Marked by hand" at the end.' in text
    keep(Records(book), [dan], references)  # a re-grade writes the same
    assert (feedback / "dan" / "07_syn.md").read_text() == text


def test_written_says_a_broken_upload_was_not_read_and_its_feedback_too(course, tmp_path):
    import nbformat

    from coursework.grading.written import export_written

    chapter, handout, reference = course
    (tmp_path / "ref").mkdir()
    nbformat.write(chapter, tmp_path / "ref" / "07_syn.ipynb")
    (tmp_path / "subs" / "ada").mkdir(parents=True)
    nbformat.write(handout, tmp_path / "subs" / "ada" / "07_syn.ipynb")
    (tmp_path / "subs" / "peggy").mkdir(parents=True)
    (tmp_path / "subs" / "peggy" / "07_syn.ipynb").write_text('{"cells": [')  # truncated upload
    notes = io.StringIO()
    export_written(tmp_path / "subs", tmp_path / "ref", tmp_path / "written", notes=notes)
    assert "peggy/07_syn.ipynb: not read (" in notes.getvalue() and "written answers are not collected" in notes.getvalue()
    text = (tmp_path / "written" / "07_syn" / "syn-ex0.md").read_text()
    assert "## peggy\n\n(the notebook could not be read: no answer collected; see the student's feedback)" in text
    assert "## ada\n\n" in text
    # her feedback (status error) does not promise that her written answers are being graded
    keep(Records(tmp_path / "gradebook.csv", tmp_path / "feedback"),
         [outcome(course, "peggy", ran=False, folder=tmp_path / "s")], {"07_syn.ipynb": reference})
    feedback = (tmp_path / "feedback" / "peggy" / "07_syn.md").read_text()
    assert "graded by hand, separately" not in feedback
    assert "Written answers (Exercise 7.1): this notebook could not be read, so they were not collected" in feedback


def test_extra_output_in_a_hidden_check_never_says_the_expected_output_was_there(course):
    from coursework.grading.preparation import build_run_notebook
    from coursework_notebooks import hidden_answer, solved
    from test_grading_course import role_index, verdict_of

    chapter, student, reference = course
    plan = build_run_notebook(solved(student, chapter), reference)
    hidden = role_index(plan, "hidden", "syn-ex1")
    expected = "".join(output["text"] for output in plan.notebook.cells[hidden].outputs)
    assert expected != hidden_answer()  # the course fixture's planted value, not a real double
    verdict = verdict_of(plan, reference, [(hidden, "Notebook cell execution failed\nCell outputs differ")],
                         {hidden: expected + "forged by a thread\n"})
    reason = verdict.checks[("hidden", "syn-ex1", 1)].reason
    assert not verdict.checks[("hidden", "syn-ex1", 1)].passed
    assert "expected" not in reason and "and more" not in reason and "extra" not in reason
    assert reason == "output that is not the check's own (something else was printed into it, from outside the " \
                     "check's calls)"
