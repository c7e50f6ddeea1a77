"""The students' self-check: it compares with the read-only copy of the expected outputs, so a
notebook edited in place, run and saved with wrong answers FAILs; it runs without bubblewrap and
without Linux-only modules, and says what it does not isolate.

Two notebooks run (a kernel each), on the small synthetic chapter of ``coursework_notebooks``.
"""

import copy
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_output

from coursework.__main__ import main
from coursework.authoring.exercises import METADATA_KEY
from coursework_notebooks import graded_chapter, solved, stubs

ROOT = Path(__file__).resolve().parents[1]
NAME = "07_syn.ipynb"


@pytest.fixture
def handout(tmp_path):
    """The synthetic chapter as chapter 7, made into a handout by the make-student command."""
    (tmp_path / "chapters").mkdir()
    nbformat.write(graded_chapter(), tmp_path / "chapters" / NAME)
    assert main(["make-student", str(tmp_path / "chapters"), str(tmp_path / "student_notebooks")]) == 0
    return tmp_path / "student_notebooks" / NAME


def test_a_wrong_notebook_run_and_saved_in_place_fails(handout, capsys):
    student = nbformat.read(handout, as_version=4)
    wrong = solved(student, graded_chapter())
    graded = stubs(wrong)[0]
    graded.source = graded.source.replace("2 * np.asarray", "3 * np.asarray")
    # as Jupyter saves it after a run: the student's own (wrong) output in place of the expected one
    graded.outputs = [new_output("stream", name="stdout", text="[63]\n")]
    wrong.metadata[METADATA_KEY]["version"]["exercises"] = "0" * 16  # made from an older chapter
    nbformat.write(wrong, handout)
    assert main(["self-check", str(handout)]) == 1
    captured = capsys.readouterr()
    assert "FAIL  Exercise 7.1: output differs from the expected output" in captured.out
    assert "+ [42]" in captured.out and "- [63]" in captured.out  # expected, and the student's
    assert "PASS  Exercise 7.2" in captured.out
    assert "2 graded exercises: 1 passed, 1 failed" in captured.out
    assert f"WARNING: {NAME} was made from another version of its chapter" in captured.err


def test_a_right_notebook_passes_without_bubblewrap_or_linux_modules(handout, tmp_path):
    nbformat.write(solved(nbformat.read(handout, as_version=4), graded_chapter()), handout)
    # no bwrap on the PATH, and `resource` (which Windows lacks) cannot be imported by the check
    empty = tmp_path / "bin"
    empty.mkdir()
    script = ("import sys; sys.modules['resource'] = None\n"
              "from coursework.__main__ import main\n"
              f"sys.exit(main(['self-check', {str(handout)!r}]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path, env={"PATH": str(empty), "PYTHONPATH": str(ROOT),
                                             "HOME": str(tmp_path), "SYSTEMROOT": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS  Exercise 7.1\nPASS  Exercise 7.2\n2 graded exercises: 2 passed, 0 failed" in done.stdout
    assert "isolation: none: the self-check runs your notebook as you" in done.stderr
    assert "WARNING" not in done.stderr


def test_a_leftover_print_passes_with_a_note_as_the_grader_judges_it(handout, capsys):
    # the grader passes a visible check whose cell printed the expected output and more (issue 39,
    # item 5); the self-check must say the same, or a student "fixes" a correct function
    student = nbformat.read(handout, as_version=4)
    chatty = solved(student, graded_chapter())
    graded = stubs(chatty)[0]
    graded.source = graded.source.replace("    return 2 *", "    print('debug', values)\n    return 2 *")
    wrong = copy.deepcopy(chatty)
    stubs(wrong)[0].source = stubs(wrong)[0].source.replace("return 2 *", "return 3 *")
    nbformat.write(chatty, handout)
    assert main(["self-check", str(handout)]) == 0
    out = capsys.readouterr().out
    assert "PASS  Exercise 7.1" in out and "2 graded exercises: 2 passed, 0 failed" in out
    assert "NOTE  Exercise 7.1: your cell printed the expected output and more" in out
    assert "debug [21]" in out  # what it printed, shown to the student (their own output)
    nbformat.write(wrong, handout)  # a wrong answer with a print is still wrong
    assert main(["self-check", str(handout)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  Exercise 7.1: output differs from the expected output" in out and "NOTE" not in out


def test_without_the_copy_of_the_expected_outputs_it_says_where_to_find_it(handout, tmp_path, capsys):
    moved = tmp_path / "elsewhere" / NAME
    moved.parent.mkdir()
    moved.write_bytes(handout.read_bytes())
    with pytest.raises(SystemExit) as stopped:
        main(["self-check", str(moved)])
    assert stopped.value.code == 2
    assert "pass --expected with the .expected folder" in capsys.readouterr().err
    unmarked = copy.deepcopy(nbformat.read(handout, as_version=4))
    del unmarked.metadata[METADATA_KEY]
    nbformat.write(unmarked, moved)
    with pytest.raises(SystemExit):
        main(["self-check", str(moved), "--expected", str(handout.parent / ".expected")])
    assert "records no chapter" in capsys.readouterr().err


def test_grading_warns_of_a_handout_from_another_version_of_its_chapter(handout, tmp_path):
    """grade prints check_handout_version's warning for a submission whose handout was made from
    another version of its chapter, and nothing for a current one (no kernel: the step alone)."""
    import io

    from coursework.grading.results import Verdict
    from coursework.grading.session import Outcome, _warn_old_handouts

    current = nbformat.read(handout, as_version=4)
    old = copy.deepcopy(current)
    old.metadata[METADATA_KEY]["version"]["exercises"] = "0" * 16
    paths = {"alice": tmp_path / "alice.ipynb", "bob": tmp_path / "bob.ipynb"}
    nbformat.write(current, paths["alice"])
    nbformat.write(old, paths["bob"])
    outcomes = [Outcome(path, f"{who}/{NAME}", who, Verdict([]), 0.0, NAME, True)
                for who, path in paths.items()]
    notes = io.StringIO()
    _warn_old_handouts(outcomes, tmp_path / "chapters", notes)
    lines = notes.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"WARNING: bob/{NAME} was made from another version")


def test_the_diff_of_a_long_line_shows_where_it_differs(tmp_path, capsys):
    """A line that differs only near its end: the student sees that end, both lines cut at the same place."""
    from coursework_notebooks import code

    chapter = graded_chapter()
    long_line = f"{list(range(60))} 22"  # the known answer: 21 + 1, after a long list
    chapter.cells[7] = code("print(list(range(60)), x + 1)", long_line + "\n", count=4, tags=["solution"])
    (tmp_path / "chapters").mkdir()
    nbformat.write(chapter, tmp_path / "chapters" / NAME)
    assert main(["make-student", str(tmp_path / "chapters"), str(tmp_path / "student_notebooks")]) == 0
    handout = tmp_path / "student_notebooks" / NAME
    wrong = solved(nbformat.read(handout, as_version=4), chapter)
    stubs(wrong)[1].source = stubs(wrong)[1].source.replace("x + 1", "x + 2")
    nbformat.write(wrong, handout)
    assert main(["self-check", str(handout)]) == 1
    out = capsys.readouterr().out
    report = out.split("FAIL  Exercise 7.2: output differs from the expected output")[1]
    lines = [line.strip() for line in report.splitlines()]
    expected = next(line for line in lines if line.startswith("+ "))
    yours = next(line for line in lines if line.startswith("- "))
    assert expected.endswith("58, 59] 22") and yours.endswith("58, 59] 23"), report
    assert len(expected) <= 120 and expected[2:].startswith("…"), report  # cut at its start: the end shows
    assert expected.index("59]") == yours.index("59]"), report  # aligned: the difference is below itself


def test_a_notebook_without_cell_ids_is_read_without_a_warning(handout, capsys):
    """nbformat's MissingIDFieldWarning reaches neither the student (self-check) nor the instructor (grading):
    the cells get ids on reading, as Jupyter gives them."""
    import json
    import warnings

    from coursework.grading.submissions import read_submission

    raw = json.loads(nbformat.writes(solved(nbformat.read(handout, as_version=4), graded_chapter())))
    assert (raw["nbformat"], raw["nbformat_minor"]) >= (4, 5)
    for cell in raw["cells"]:
        del cell["id"]
    handout.write_text(json.dumps(raw))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nb = read_submission(handout)
        assert main(["self-check", str(handout)]) == 0
    assert all(isinstance(cell.get("id"), str) and cell["id"] for cell in nb.cells)
    names = [type(warning.message).__name__ for warning in caught]
    assert "MissingIDFieldWarning" not in names, names
    assert "MissingIDFieldWarning" not in capsys.readouterr().err
