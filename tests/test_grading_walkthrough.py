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
    # the checks' column is replaced (4 -> 0); the written part stays empty, for its own marks
    assert (row["syn-ex1"], row["syn-ex1-written"], row["points"]) == ("0", "", "1")
    keep(Records(book), [outcome(mixed, "mallory", folder=tmp_path / "s")], references)  # a re-grade keeps it
    row = gradebook_rows(book)["mallory"]
    assert (row["syn-ex1"], row["points"]) == ("0", "1") and "override-autograded" in row["notes"]


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
