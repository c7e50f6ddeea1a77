"""Course records end to end: ``python -m coursework grade`` with points, a roster, a deadline, a gradebook and
feedback on real notebooks; re-grading one student; the environment pre-check; a symlinked venv.

Each run spawns kernels (about 10 s per notebook, more under load), so every run of this module is
started at once by the ``runs`` fixture (the re-grade waits for the first run), and the tests read
the outputs. The chapter is the synthetic one of ``coursework_notebooks`` (as chapter 7), with
declared points: syn-ex1 4 points (visible check 1 share, hidden check 3), syn-ex2 1 point.
"""

import copy
import csv
import os
import shutil
import subprocess
import sys
import threading
from datetime import datetime
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from coursework import make_student_notebook
from coursework.isolation.sandbox import GraderError, choose_isolation
from coursework_notebooks import graded_chapter, solved, stubs, with_sources

ROOT = Path(__file__).resolve().parents[1]
SEED = 918273


def multiple_of_seeded_values(seed, factor, size):
    """What a hidden check prints for ``factor`` times ``size`` seeded integers: a known answer computed here."""
    values = np.random.default_rng(seed).integers(0, 100, size=size)
    return f"{(float(factor) * values).tolist()}\n"


def hidden_expected():
    """What the hidden check prints for a correct ``double`` with the seed used here."""
    return multiple_of_seeded_values(SEED, 2, 4)


def chapter_7():
    chapter = graded_chapter()
    chapter.cells[3].metadata.update(kpca_points=4, kpca_share=1)
    hidden = chapter.cells[4]
    hidden.metadata["kpca_share"] = 3
    hidden.source = hidden.source.replace("default_rng(5)", f"default_rng({SEED})")
    hidden.outputs[0]["text"] = hidden_expected()
    return chapter


def submissions(student, chapter):
    done = solved(student, chapter)
    debug = with_sources(done, stubs(done)[0].source.replace("    return 2",
                                                              "    print('debug', values)\n    return 2"))
    partial = with_sources(done, stubs(done)[0].source.replace(
        "return 2 * np.asarray(values)", "return np.asarray([42]) if len(values) == 1 else 3 * np.asarray(values)"))
    typo = copy.deepcopy(done)
    typo.cells[1:1] = [new_markdown_cell("## My scratch"), new_code_cell("prnt(1)")]
    return {"ada": done, "bea": debug, "cy": partial, "dee": typo}


def grade_command(*arguments, python=sys.executable):
    return [python, "-m", "coursework", "grade", *arguments]


def start(command, cwd, environment=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]), **(environment or {})}
    return subprocess.Popen(command, cwd=cwd, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(process):
    stdout, stderr = process.communicate(timeout=900)
    return process.returncode, stdout, stderr


def sandbox_works():
    try:
        return choose_isolation(True).mode == "bwrap"
    except GraderError:
        return False


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("course")
    chapter = chapter_7()
    student = make_student_notebook(chapter, name="07_syn.ipynb")
    (base / "reference").mkdir()
    nbformat.write(chapter, base / "reference" / "07_syn.ipynb")
    for who, nb in submissions(student, chapter).items():
        (base / "submissions" / who).mkdir(parents=True)
        nbformat.write(nb, base / "submissions" / who / "07_syn.ipynb")
    (base / "submissions" / "dee" / "submitted.txt").write_text("2026-03-02T09:00:00+00:00\n")
    (base / "submissions" / "ada" / "submitted.txt").write_text("2026-02-28T09:00:00+00:00\n")
    (base / "submissions" / "cy" / "timestamp.txt").write_text("2026-03-01T18:00:00\n")  # local time: on time
    before = datetime(2026, 2, 27, 12, 0).timestamp()  # Bea's time is her notebook's
    os.utime(base / "submissions" / "bea" / "07_syn.ipynb", (before, before))
    (base / "roster.csv").write_text("id,name,email\nada,Ada A,ada@x.org\nbea,Bea B,bea@x.org\ncy,Cy C,cy@x.org\n"
                                     "dee,Dee D,dee@x.org\neve,Eve E,eve@x.org\n")
    started = {"course": start(grade_command("submissions", "--reference", "reference", "--report", "report.csv",
                                             "--gradebook", "gradebook.csv", "--feedback", "feedback", "--roster",
                                             "roster.csv", "--deadline", "2026-03-01", "--jobs", "2"), base)}
    # the pre-check: a kpca_lib the grader finds whose dependency only the grader sees, and a module
    # that the chapter imports and only the grader sees (both through PYTHONPATH, which no kernel gets)
    broken = base / "broken"
    (broken / "kpca_lib").mkdir(parents=True)
    (broken / "kpca_lib" / "__init__.py").write_text("import kpca_lib_native\n")
    (broken / "kpca_lib_native.py").write_text("")
    (broken / "kpca_extra_probe.py").write_text("")
    (broken / "reference").mkdir()
    importing = copy.deepcopy(chapter)
    importing.cells[1].source = "import numpy as np\nimport kpca_extra_probe\n\nx = 21"
    nbformat.write(importing, broken / "reference" / "07_syn.ipynb")
    started["precheck"] = start(grade_command(str(base / "submissions"), "--reference", "reference",
                                              "--report", "report.csv"), broken,
                                {"PYTHONPATH": os.pathsep.join([str(broken), str(ROOT)])})
    if sandbox_works():  # the venv through a symbolic link, as in issue 29
        (base / "linked").mkdir()
        (base / "linked" / "venv").symlink_to(Path(sys.prefix))
        started["symlinked_venv"] = start(grade_command(
            str(base / "submissions" / "ada"), "--reference", str(base / "reference"), "--sandbox",
            "--report", "report.csv", python=str(base / "linked" / "venv" / "bin" / "python")), base / "linked")
    results = {}

    def regrade():
        results["course"] = finish(started["course"])
        shutil.copy(base / "gradebook.csv", base / "gradebook-first.csv")
        shutil.copy(base / "feedback" / "bea" / "07_syn.md", base / "feedback-bea-first.md")  # the re-grade rewrites it
        fixed = with_sources(submissions(student, chapter)["bea"], stubs(solved(student, chapter))[0].source)
        nbformat.write(fixed, base / "submissions" / "bea" / "07_syn.ipynb")
        results["regrade"] = finish(start(grade_command("submissions/bea/07_syn.ipynb", "--reference", "reference",
                                                        "--report", "report-bea.csv", "--gradebook", "gradebook.csv"),
                                          base))

    waiting = threading.Thread(target=regrade)
    waiting.start()
    for name, process in started.items():
        if name != "course":
            results[name] = finish(process)
    waiting.join()
    yield base, results


def rows(path):
    with open(path, newline="") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def test_points_statuses_and_missing_work_in_the_gradebook(runs):
    base, results = runs
    returncode, stdout, stderr = results["course"]
    assert returncode == 1, stderr  # Cy and Dee fail the notebook-level verdict
    book = rows(base / "gradebook-first.csv")
    # Ada all; Bea's debug print in a correct function costs nothing (issue 39: a note in her feedback);
    # Cy's function is wrong on the hidden inputs only (0 of 4: the visible check earns only with the hidden); Dee's scratch typo costs nothing, but she
    # was late; Eve handed nothing in
    assert {s: (book[s]["syn-ex1"], book[s]["syn-ex2"], book[s]["points"], book[s]["status"])
            for s in ("ada", "bea", "cy", "dee", "eve")} == {
        "ada": ("4", "1", "5", "graded"), "bea": ("4", "1", "5", "graded"), "cy": ("0", "1", "1", "graded"),
        "dee": ("4", "1", "5", "late"), "eve": ("0", "0", "0", "missing")}
    assert book["dee"]["notes"] == "Cell 0: raised NameError: name 'prnt' is not defined"
    assert book["(points possible)"]["syn-ex1"] == "4" and book["ada"]["name"] == "Ada A"
    assert [line for line in stderr.splitlines() if line.startswith("missing:")] == [
        "missing: eve has no notebook of 07_syn.ipynb"]


def test_feedback_files_say_what_to_fix_and_hold_no_hidden_expected_value(runs):
    base, _ = runs
    texts = {who: (base / "feedback" / who / "07_syn.md").read_text() for who in ("ada", "cy", "dee")}
    texts["bea"] = (base / "feedback-bea-first.md").read_text()
    hidden = hidden_expected().strip()
    for text in texts.values():
        assert hidden not in text and hidden[1:20] not in text and str(SEED) not in text
        assert "Cell " not in text
    assert "Notes on your output (no points lost)" in texts["bea"] and "debug [21]" in texts["bea"]
    assert "hidden check 1: your code printed 1 line while it was checked" in texts["bea"]
    assert ("Hidden check 1 (your functions called on inputs you have not seen): output differs from the "
            "expected output (0 of 3 points)") in texts["cy"]
    assert 'the first code cell under "My scratch": raised NameError' in texts["dee"]
    assert "Notes on the notebook (no points lost)" in texts["dee"] and "5 of 5" in texts["dee"]


def test_regrading_one_student_updates_the_same_gradebook_and_keeps_the_name(runs):
    base, results = runs
    returncode, stdout, stderr = results["regrade"]
    assert (returncode, stdout.splitlines()[0]) == (0, "PASS  07_syn.ipynb"), stderr
    before, after = rows(base / "gradebook-first.csv"), rows(base / "gradebook.csv")
    # re-graded without --deadline, her row keeps the deadline it was graded under; her fixed notebook,
    # written now, after that deadline, with no submitted.txt, is late by its file time (issue 39)
    assert (after["bea"]["name"], after["bea"]["points"], after["bea"]["status"]) == ("Bea B", "5", "late")
    assert after["bea"]["submitted"].endswith("(file time)")
    assert "Points: 5 of 5" in (base / "feedback" / "bea" / "07_syn.md").read_text()  # rewritten
    assert "01_pca" not in after and "07_syn" not in after
    # the others keep their grades; Eve is still missing
    assert [line for line in stderr.splitlines() if line.startswith("missing:")] == [
        "missing: eve has no notebook of 07_syn.ipynb"]
    for student in ("ada", "cy", "dee", "eve"):
        assert after[student] == before[student]


def test_an_environment_fault_exits_2_before_any_submission_runs(runs):
    base, results = runs
    returncode, stdout, stderr = results["precheck"]
    assert returncode == 2 and "PASS" not in stdout and "FAIL" not in stdout, (stdout, stderr)
    assert "environment check" in stderr and "Nothing was graded" in stderr
    assert "No module named 'kpca_lib_native'" in stderr and "No module named 'kpca_extra_probe'" in stderr
    assert "imports kpca_extra_probe, kpca_lib but the kernel cannot" in stderr
    assert "install bubblewrap" not in stderr
    assert not (base / "broken" / "report.csv").exists()


def test_a_venv_reached_through_a_symbolic_link_grades_in_the_sandbox(runs):
    _, results = runs
    if "symlinked_venv" not in results:
        pytest.skip("bubblewrap cannot make a sandbox here")
    returncode, stdout, stderr = results["symlinked_venv"]
    assert (returncode, stdout.splitlines()[0]) == (0, "PASS  07_syn.ipynb"), stderr
