"""The grader's parts, without a kernel: reading submissions, the run notebook, verdicts, reports, processes, sandbox.

The run notebook is checked with nbval's own parser of markers and tags
(an independent oracle): in what the grader runs, exactly the graded cells
and hidden checks are compared, and nothing is skipped or allowed to raise.
"""

import csv
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_output
from nbval.plugin import find_comment_markers, find_metadata_tags

from coursework import make_student_notebook
from coursework.isolation.execution import Limits, RunResult
from coursework.isolation.limits import SubmissionGroup
from coursework.authoring.exercises import CHECK_MARKER, METADATA_KEY
from coursework.grading.session import Outcome
from coursework.grading.preparation import build_run_notebook, strip_nbval_markers
from coursework.grading.submissions import (MAX_DEPTH, SubmissionProblem, claimed_chapter, find_submissions,
                                           read_submission, reference_name)
from coursework.grading.reference import Reference, extract_reference
from coursework.grading.report import csv_cell, shown_name, student_of, write_report
from coursework.grading.results import BOOK_CELL as BOOK, Verdict, exception_kind, exception_text, interpret
from coursework.isolation.sandbox import LIBRARY_MOUNT, Isolation, bwrap_arguments, kernel_environment
from coursework_notebooks import graded_chapter, hidden_answer, make_deep_folders, remove_deep_folders, solved, stubs, with_sources

MARKERS = ["# NBVAL_SKIP", "#NBVAL_IGNORE_OUTPUT", "   ## PYTEST_VALIDATE_IGNORE_OUTPUT  ",
           "# NBVAL_RAISES_EXCEPTION", "# nbval_check_output", "# NBVAL_CHECK_OUTPUT"]
NBVAL_TAGS = ["nbval-skip", "nbval-ignore-output", "raises-exception", "nbval-raises-exception",
              "nbval-check-output"]


@pytest.fixture
def chapter():
    chapter = graded_chapter()
    return chapter, make_student_notebook(chapter, name="syn.ipynb"), extract_reference(chapter, "syn.ipynb")


def nbval_options(cell):
    """What nbval would do with a cell: its options from tags and comment markers."""
    options = dict(find_metadata_tags(cell.metadata))
    options.update(dict(find_comment_markers(cell.source)))
    return options


def hostile(student):
    """Every nbval marker and tag on every code cell, and a stale output everywhere."""
    changed = with_sources(student, *[f"{stub.source}\n" + "\n".join(MARKERS) for stub in stubs(student)])
    for cell in changed.cells:
        if cell.cell_type == "code":
            cell.source = "\n".join([*MARKERS, cell.source])
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), *NBVAL_TAGS]
            cell.outputs = [new_output("stream", name="stdout", text="forged\n")]
            cell.execution_count = None
    return changed


# ---------------------------------------------------------------- the run notebook


def test_only_graded_cells_and_hidden_checks_are_compared_whatever_the_markers(chapter):
    _, student, reference = chapter
    plan = build_run_notebook(hostile(student), reference)
    assert plan.problems == []
    kinds = [role.kind for role in plan.roles]
    assert kinds == ["setup", "book", "graded", "hidden", "graded"]  # the set-up cell is the book's, unchanged
    for cell, role in zip(plan.notebook.cells, plan.roles):
        assert cell.cell_type == "code"
        if role.kind in ("graded", "hidden"):
            assert nbval_options(cell) == {"check": True}
            assert cell.execution_count is not None
        else:
            assert nbval_options(cell) == {}
            assert cell.outputs == []


def test_graded_cells_get_the_reference_outputs_and_hidden_checks_follow_them(chapter):
    source_chapter, student, reference = chapter
    # the student put the two graded cells in the other order, with a scratch cell between
    answer = solved(student, source_chapter)
    first, second = (answer.cells.index(stub) for stub in stubs(answer))
    answer.cells[first], answer.cells[second] = answer.cells[second], answer.cells[first]
    answer.cells.insert(second, new_code_cell("print('scratch')"))
    plan = build_run_notebook(answer, reference)
    cells, roles = plan.notebook.cells, plan.roles
    assert [(role.kind, role.exercise, role.cell) for role in roles] == [
        ("setup", None, None), ("book", None, 0), ("graded", "syn-ex2", 1), ("student", None, 2),
        ("graded", "syn-ex1", 3), ("hidden", "syn-ex1", 3)]
    assert cells[2].outputs == [new_output("stream", name="stdout", text="22\n")]
    assert cells[4].outputs == [new_output("stream", name="stdout", text="[42]\n")]
    assert cells[5].outputs == [new_output("stream", name="stdout", text=hidden_answer())]
    assert cells[4].source == f"{CHECK_MARKER}\n" + stubs(answer)[1].source.split("\n", 1)[1]
    assert "default_rng(5)" in cells[5].source  # the instructor's code, run after the student's cell


def test_deleted_and_duplicated_graded_cells_are_named(chapter):
    source_chapter, student, reference = chapter
    answer = solved(student, source_chapter)
    first, second = stubs(answer)
    answer.cells.remove(second)
    answer.cells.append(nbformat.from_dict(dict(first)))  # a copied cell keeps its label
    plan = build_run_notebook(answer, reference)
    assert plan.problems == [
        ("syn-ex1", "the graded cell of syn-ex1 appears 2 times (Cell 1 and Cell 2): keep one "
                    "(a copied cell keeps its exercise label)"),
        ("syn-ex2", "graded cell of syn-ex2 deleted"),
    ]
    assert [role.kind for role in plan.roles] == ["setup", "book", "student", "student"]


@pytest.mark.parametrize("entry", ["x", ["syn-ex1"], {"exercise": 3, "part": 0}, {"exercise": "syn-ex1"},
                                   {"exercise": "syn-ex1", "part": True}, {"exercise": "syn-ex1", "part": "0"}])
def test_malformed_exercise_labels_are_a_submission_problem(chapter, entry):
    _, student, reference = chapter
    stubs(student)[0].metadata[METADATA_KEY] = entry
    with pytest.raises(SubmissionProblem, match=r"malformed metadata in Cell 1: kpca_coursework must hold"):
        build_run_notebook(student, reference)


def test_the_reference_is_found_from_the_recorded_name_or_the_file_name(chapter):
    _, student, _ = chapter
    assert reference_name(student, "x/01 pca::v2[1].ipynb") == "syn.ipynb"
    del student.metadata[METADATA_KEY]
    assert reference_name(student, "x/syn.ipynb") == "syn.ipynb"
    for bad in ("x", ["syn.ipynb"], {"source": 3}):
        student.metadata[METADATA_KEY] = bad
        with pytest.raises(SubmissionProblem, match="malformed metadata: the notebook's kpca_coursework"):
            reference_name(student, "syn.ipynb")


def test_strip_nbval_markers_keeps_everything_else():
    source = "x = 1  # NBVAL_SKIP is not a marker here\n" + "\n".join(MARKERS) + "\nprint(x)"
    assert strip_nbval_markers(source) == "x = 1  # NBVAL_SKIP is not a marker here\nprint(x)"


# ---------------------------------------------------------------- reading submissions


def test_read_submission_refuses_what_is_not_a_notebook_file(tmp_path, chapter):
    _, student, _ = chapter
    nbformat.write(student, tmp_path / "good.ipynb")
    assert read_submission(tmp_path / "good.ipynb") == student
    (tmp_path / "link.ipynb").symlink_to(tmp_path / "good.ipynb")
    os.mkfifo(tmp_path / "fifo.ipynb")
    (tmp_path / "latin1.ipynb").write_bytes(b'{"caf\xe9": 1}')
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "invalid.ipynb").write_text('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [3]}')
    expected = {
        "link.ipynb": "is a symbolic link, not a notebook file",
        "fifo.ipynb": "is not a regular file",
        "good.ipynb": "is too large (0.0 MB; the limit is 0 MB)",
        "latin1.ipynb": "not a readable notebook (UnicodeDecodeError",
        "list.ipynb": "not a readable notebook (",
        "invalid.ipynb": "not a readable notebook (",
    }
    for name, message in expected.items():
        limit = 100 if name == "good.ipynb" else 2**20
        with pytest.raises(SubmissionProblem) as problem:
            read_submission(tmp_path / name, max_bytes=limit)
        assert str(problem.value).startswith(message), (name, str(problem.value))
        assert "\n" not in str(problem.value)


# ---------------------------------------------------------------- verdicts


def records(plan, outcomes, *extra, finished=True):
    """Runner records: ``outcomes`` maps a run-notebook cell to (outcome, message, compared)."""
    found = [{"event": "collected", "cells": len(plan.roles)}]
    for cell, (outcome, message, compared) in outcomes.items():
        found += [{"event": "start", "cell": cell},
                  {"event": "cell", "cell": cell, "when": "call", "outcome": outcome, "message": message,
                   "exception": "NameError: name 'x' is not defined" if "exception" in message else None,
                   "compared": compared}]
    found += list(extra)
    if finished:
        found.append({"event": "finished", "status": 0})
    return RunResult(found, 0, "", 1.0)


def test_a_graded_cell_passes_only_if_it_was_compared(chapter):
    source_chapter, student, reference = chapter
    plan = build_run_notebook(solved(student, source_chapter), reference)
    all_passed = {i: ("passed", "", role.kind in ("graded", "hidden")) for i, role in enumerate(plan.roles)}
    assert interpret(plan, records(plan, all_passed), Limits(), reference).passed
    not_compared = {**all_passed, 3: ("passed", "", False)}
    verdict = interpret(plan, records(plan, not_compared), Limits(), reference)
    assert verdict.reasons == ["hidden check 1 of syn-ex1: was not compared with the reference"]
    assert verdict.exercises == {"syn-ex1": verdict.reasons, "syn-ex2": []}
    missing = {i: outcome for i, outcome in all_passed.items() if i != 4}
    assert interpret(plan, records(plan, missing), Limits(), reference).reasons == [
        "Cell 2 (exercise syn-ex2): was not run"]


def test_failures_are_named_in_the_students_numbering(chapter):
    source_chapter, student, reference = chapter
    plan = build_run_notebook(solved(student, source_chapter), reference)
    outcomes = {0: ("passed", "", False), 1: ("failed", "Cell execution caused an exception", False),
                2: ("failed", "Cell outputs differ", True), 3: ("skipped", "", True), 4: ("passed", "", True)}
    verdict = interpret(plan, records(plan, outcomes), Limits(), reference)
    assert verdict.reasons == [f"Cell 0 ({BOOK}): raised NameError: name 'x' is not defined",
                               "Cell 1 (exercise syn-ex1): output differs from the reference",
                               "hidden check 1 of syn-ex1: was skipped"]
    assert verdict.exercises["syn-ex2"] == []


def test_a_run_stopped_early_says_why(chapter):
    source_chapter, student, reference = chapter
    plan = build_run_notebook(solved(student, source_chapter), reference)
    first = {0: ("passed", "", False)}
    timeout = records(plan, first, {"event": "start", "cell": 1}, {"event": "timeout", "cell": 1}, finished=False)
    verdict = interpret(plan, timeout, Limits(timeout=7), reference)
    assert verdict.reasons == [f"timed out after 7 s (in Cell 0 ({BOOK}))"]
    assert verdict.exercises["syn-ex1"] == [
        f"Cell 1 (exercise syn-ex1): not reached, timed out after 7 s (in Cell 0 ({BOOK}))",
        f"hidden check 1 of syn-ex1: not reached, timed out after 7 s (in Cell 0 ({BOOK}))"]
    capped = records(plan, first, {"event": "output-cap", "cell": 2}, finished=False)
    assert interpret(plan, capped, Limits(max_output=2**20), reference).reasons == [
        "output exceeds the cap of 1 MB (in Cell 1 (exercise syn-ex1))"]
    killed = records(plan, first, {"event": "start", "cell": 1}, finished=False)
    killed.returncode = -9
    assert interpret(plan, killed, Limits(), reference).reasons == [
        f"the grading run was killed (exit status -9) (in Cell 0 ({BOOK}))"]
    broken = RunResult([], 1, "ImportError: no module named nbval\n", 0.5)
    assert interpret(plan, broken, Limits(), reference).reasons[-1] == (
        "pytest could not run it: ImportError: no module named nbval")


# ---------------------------------------------------------------- reports


def test_names_cannot_break_a_line_and_students_come_from_folders():
    assert shown_name("a\nPASS  b\tc\x1b[31m") == "a\\nPASS  b\\tc\\x1b[31m"
    assert shown_name("ünï 01::v2[1].ipynb") == "ünï 01::v2[1].ipynb"
    assert student_of(Path("subs/ann/sub/01.ipynb"), Path("subs")) == "ann"
    assert student_of(Path("subs/bob.ipynb"), Path("subs")) == "bob"


def test_the_report_has_a_row_per_notebook_and_per_exercise(tmp_path):
    outcomes = [
        Outcome(Path("a"), "ann/syn.ipynb", "ann", Verdict([], {"syn-ex1": [], "syn-ex2": []}), 1.0),
        Outcome(Path("b"), "ben/syn.ipynb", "ben", Verdict(["Cell 2 (exercise syn-ex2): raised X", "timed out"],
                                                           {"syn-ex1": [], "syn-ex2": ["Cell 2: raised X"]}), 1.0),
        Outcome(Path("c"), "x,\"y\"\n.ipynb", "x", Verdict(["not a readable notebook (NotJSONError)"]), 1.0),
    ]
    write_report(tmp_path / "out" / "report.csv", outcomes)
    with open(tmp_path / "out" / "report.csv", newline="") as file:
        rows = list(csv.reader(file))
    assert rows == [
        ["file", "student", "exercise", "result", "reason"],
        ["ann/syn.ipynb", "ann", "(notebook)", "PASS", ""],
        ["ann/syn.ipynb", "ann", "syn-ex1", "PASS", ""],
        ["ann/syn.ipynb", "ann", "syn-ex2", "PASS", ""],
        ["ben/syn.ipynb", "ben", "(notebook)", "FAIL", "Cell 2 (exercise syn-ex2): raised X; timed out"],
        ["ben/syn.ipynb", "ben", "syn-ex1", "PASS", ""],
        ["ben/syn.ipynb", "ben", "syn-ex2", "FAIL", "Cell 2: raised X"],
        ["x,\"y\".ipynb", "x", "(notebook)", "FAIL", "not a readable notebook (NotJSONError)"],
    ]
    assert os.listdir(tmp_path / "out") == ["report.csv"]  # no temporary file left


# ---------------------------------------------------------------- processes and sandbox


def test_kill_descendants_finds_processes_that_left_the_session(tmp_path):
    # a subreaper starts a process that double-forks into a new session, then kills its tree
    code = textwrap.dedent(f"""
        import os, subprocess, sys, time
        from pathlib import Path
        from coursework.isolation.processes import become_subreaper, descendants, kill_descendants
        assert become_subreaper()
        subprocess.Popen([sys.executable, "-c", "import os, time\\nif os.fork() == 0:\\n    os.setsid()\\n"
                          "    open({str(tmp_path / 'pid')!r}, 'w').write(str(os.getpid()))\\n    time.sleep(60)"])
        while not Path({str(tmp_path / 'pid')!r}).exists():
            time.sleep(0.05)
        time.sleep(0.2)
        pid = int(Path({str(tmp_path / 'pid')!r}).read_text())
        print(pid in descendants(), kill_descendants(), Path(f"/proc/{{pid}}").exists())
    """)
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert completed.stdout.split() == ["True", "True", "False"], completed.stderr


def test_the_kernel_sees_only_the_blas_locale_and_its_own_folders(monkeypatch):
    monkeypatch.setenv("KPCA_SECRET_TOKEN", "hunter2")
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Nehalem")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    environment = kernel_environment("/scratch/work")
    assert "KPCA_SECRET_TOKEN" not in environment and "hunter2" not in environment.values()
    assert environment["OPENBLAS_CORETYPE"] == "Nehalem" and environment["OMP_NUM_THREADS"] == "1"
    assert environment["HOME"] == "/scratch/work"
    assert all(value.startswith("/scratch/work") for name, value in environment.items() if name.endswith("DIR"))


def test_the_sandbox_binds_nothing_writable_but_the_sockets_and_hides_the_reference(tmp_path):
    venv_reference = Path(sys.prefix) / "share"  # a hidden folder that lies inside a bound one
    arguments = bwrap_arguments(Isolation("bwrap", "/usr/bin/bwrap"), tmp_path / "work", tmp_path / "sockets",
                                [venv_reference, tmp_path / "reference"], 2**20)
    assert {"--unshare-net", "--unshare-pid", "--unshare-user", "--die-with-parent"} <= set(arguments)
    writable = [arguments[i + 1] for i, argument in enumerate(arguments) if argument == "--bind"]
    assert writable == [str(tmp_path / "sockets")]
    mounts = [arguments[i + 1] for i, argument in enumerate(arguments) if argument in ("--ro-bind", "--tmpfs")]
    assert str(venv_reference) in mounts[mounts.index(sys.prefix):]  # covered after the bind
    assert str(tmp_path / "reference") not in mounts  # never bound, nothing to cover
    assert str(Path.home()) not in mounts and "/" not in mounts


# ---------------------------------------------------------------- issue 28


def test_a_submission_is_graded_against_the_chapter_its_file_name_and_metadata_both_name(chapter):
    _, student, reference = chapter
    references = {"syn.ipynb": reference, "other.ipynb": Reference("other.ipynb")}
    assert claimed_chapter(student, "ann/syn.ipynb", references, str) is reference
    assert claimed_chapter(student, "ann/01 pca (2).ipynb", references, str) is reference  # a renamed copy
    with pytest.raises(SubmissionProblem, match="its file name says other.ipynb but its metadata says"):
        claimed_chapter(student, "ann/other.ipynb", references, str)
    del student.metadata[METADATA_KEY]
    assert claimed_chapter(student, "ann/other.ipynb", references, str).name == "other.ipynb"
    with pytest.raises(SubmissionProblem, match="names no chapter of the reference"):
        claimed_chapter(student, "ann/notes.ipynb", references, str)


def test_a_pass_needs_every_graded_exercise_run_and_compared(chapter):
    _, student, reference = chapter
    plan = build_run_notebook(student, reference)
    empty = Reference("empty.ipynb")
    verdict = interpret(build_run_notebook(student, empty), records(build_run_notebook(student, empty), {}),
                        Limits(), empty)
    assert verdict.reasons == ["empty.ipynb has no graded exercise: there is nothing to grade"]
    # every cell passed, but the graded cell of syn-ex2 was never reported: not a PASS
    outcomes = {number: ("passed", "", True) for number, role in enumerate(plan.roles) if role.exercise != "syn-ex2"}
    verdict = interpret(plan, records(plan, outcomes), Limits(), reference)
    assert not verdict.passed and verdict.exercises["syn-ex2"] == ["Cell 2 (exercise syn-ex2): was not run"]


def test_exception_names_are_checked_and_hidden_check_code_is_withheld(chapter):
    _, student, reference = chapter
    source = reference.hidden[("syn-ex1", 0)][0].source
    assert exception_text("Bad name\nwith: lines") == "an exception with a malformed name"
    assert exception_text("x" * 61) == "an exception with a malformed name"
    assert exception_text("numpy.linalg.LinAlgError: " + "s" * 100) == "numpy.linalg.LinAlgError: " + "s" * 80 + "..."
    assert exception_text("KeyError: \x1b[31mred") == "KeyError:  [31mred"
    plan = build_run_notebook(student, reference)
    # a cell before any hidden check (its value is shown) that quotes one, read from a file, say
    run = records(plan, {1: ("failed", "caused an exception", False)})
    run.events("cell")[0]["exception"] = f"ValueError: {source.splitlines()[2]}"
    verdict = interpret(plan, run, Limits(), reference)
    assert "a reason that quotes a hidden check (withheld)" in verdict.reasons
    assert not any("integers" in reason for reason in verdict.reasons)


def test_from_the_first_hidden_check_on_a_failure_shows_a_builtin_exception_name_and_no_value(chapter):
    # a spy in place of the hidden-check helper sees the check's code: short excerpts (under the
    # verbatim-quote window), encodings and made-up exception names must not reach the report
    _, student, reference = chapter
    source = reference.hidden[("syn-ex1", 0)][0].source
    plan = build_run_notebook(student, reference)
    hidden = next(number for number, role in enumerate(plan.roles) if role.kind == "hidden")
    later = next(number for number, role in enumerate(plan.roles) if role.exercise == "syn-ex2")
    assert later > hidden
    leaks = {"ValueError: ['default_rng(5)']": "ValueError", "ValueError: seed=5 size=4": "ValueError",
             f"RuntimeError: {source.encode().hex()[:80]}": "RuntimeError",
             "LinAlgError: default_rng(5)": "LinAlgError",
             "default_rng_5_size_4: captured": "an exception", "rng5: x": "an exception", None: "an exception"}
    for leak, shown in leaks.items():
        outcomes = {number: ("passed", "", role.kind in ("graded", "hidden")) for number, role in enumerate(plan.roles)}
        run = records(plan, {**outcomes, hidden: ("failed", "caused an exception", False),
                             later: ("failed", "caused an exception", False)})
        for record in run.events("cell"):
            if record["outcome"] == "failed":
                record["exception"] = leak
        verdict = interpret(plan, run, Limits(), reference)
        assert verdict.exercises["syn-ex1"] == [f"hidden check 1 of syn-ex1: raised {shown}"], leak
        assert verdict.exercises["syn-ex2"] == [f"Cell 2 (exercise syn-ex2): raised {shown}"], leak
        assert not any(text in " ".join(verdict.reasons) for text in ["rng", "(5)", "seed", "size", "captured"])
    # before any hidden check has run, a student's own error is shown with its value
    run = records(plan, {1: ("failed", "caused an exception", False)})
    assert interpret(plan, run, Limits(), reference).reasons[0] == \
        f"Cell 0 ({BOOK}): raised NameError: name 'x' is not defined"
    with pytest.raises(TypeError, match="must be a string"):
        exception_kind(b"ValueError")


def test_csv_cells_are_safe_in_a_spreadsheet(tmp_path):
    for text, expected in [("=1+2", "'=1+2"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"),
                           ("\tx", "x"), ("a\x1b[31mb\x07", "a[31mb"), ("ann", "ann"), ("a=b", "a=b")]:
        assert csv_cell(text) == expected, text
    outcome = Outcome(Path("a"), '=HYPERLINK("http://x")', "-ann", Verdict(["@raised\x1b[2J x"]), 1.0)
    write_report(tmp_path / "report.csv", [outcome])
    with open(tmp_path / "report.csv", newline="") as file:
        assert list(csv.reader(file))[1] == ["'=HYPERLINK(\"http://x\")", "'-ann", "(notebook)", "FAIL",
                                             "'@raised[2J x"]


def test_nbval_markers_are_stripped_at_newlines_only():
    source = "s = 'a\u2028b\x0bc\x0cd\x1ce\x85f\u2029g'  # pasted\r\n# NBVAL_SKIP\nprint(s)"
    assert strip_nbval_markers(source) == "s = 'a\u2028b\x0bc\x0cd\x1ce\x85f\u2029g'  # pasted\r\nprint(s)"


def test_mac_leftovers_are_ignored_and_deep_folders_set_aside(tmp_path):
    (tmp_path / "__MACOSX" / "ann").mkdir(parents=True)
    (tmp_path / "__MACOSX" / "ann" / "._syn.ipynb").write_text("x")
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "._syn.ipynb").write_text("x")
    (tmp_path / "ann" / "syn.ipynb").write_text("{}")
    # deeper than MAX_DEPTH (tests/test_grading.py grades 1100 levels, past the recursion limit)
    deepest = make_deep_folders(tmp_path / "deep", 40, name="d")
    try:
        open(os.path.join(deepest, "syn.ipynb"), "w").close()
        found = find_submissions(tmp_path)
    finally:  # pytest's own clean-up of tmp_path recurses
        remove_deep_folders(tmp_path / "deep")
    assert found.notebooks == [tmp_path / "ann" / "syn.ipynb"]
    assert sorted(found.mac_leftovers) == [tmp_path / "__MACOSX", tmp_path / "ann" / "._syn.ipynb"]
    assert found.too_deep == [tmp_path / "deep" / Path(*["d"] * MAX_DEPTH)]


def test_what_jupyter_opens_is_repaired_and_huge_notebooks_are_refused_before_validation(tmp_path, chapter):
    _, student, _ = chapter
    data = json.loads(nbformat.writes(student))
    data["nbformat_minor"] = 4  # with cell ids
    data["cells"][0]["execution_count"] = 2  # on a markdown cell
    stub = next(cell for cell in data["cells"] if METADATA_KEY in cell["metadata"])
    stub["metadata"]["tags"] = ["solution", "solution"]
    (tmp_path / "odd.ipynb").write_text(json.dumps(data))
    with pytest.raises(nbformat.ValidationError):
        nbformat.validate(nbformat.reads(json.dumps(data), as_version=4, capture_validation_error={}))
    repaired = read_submission(tmp_path / "odd.ipynb")
    assert [cell.source for cell in repaired.cells] == [cell.source for cell in student.cells]
    data["cells"] = data["cells"] * 1000
    (tmp_path / "huge.ipynb").write_text(json.dumps(data))
    with pytest.raises(SubmissionProblem, match=r"has too many cells \(\d+; the limit is 2000\)"):
        read_submission(tmp_path / "huge.ipynb")


def test_the_sandbox_shows_the_graders_kpca_lib_alone(tmp_path):
    isolation = Isolation("bwrap", "/usr/bin/bwrap", library=str(tmp_path / "lib" / "kpca_lib"))
    arguments = bwrap_arguments(isolation, tmp_path / "work", tmp_path / "sockets", [], 2**20)
    at = arguments.index(str(tmp_path / "lib" / "kpca_lib"))
    assert arguments[at - 1:at + 2] == ["--ro-bind", str(tmp_path / "lib" / "kpca_lib"),
                                        f"{LIBRARY_MOUNT}/kpca_lib"]


def test_a_submission_group_holds_its_processes_and_kills_them_all():
    group = SubmissionGroup.create(f"kpca-test-{os.getpid()}", Limits(processes=20))
    if group is None:
        pytest.skip("no cgroup can be made here (the grader falls back to per-process limits)")
    script = ("import os, subprocess, sys\n"
              f"for procs in {group.procs_files()!r}: open(procs, 'w').write(str(os.getpid()))\n"
              "children = []\n"
              "try:\n"
              "    for _ in range(40): children.append(subprocess.Popen(['sleep', '60'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))\n"
              "except OSError:\n"
              "    print(len(children))\n")
    try:
        started = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
        assert 10 < int(started.stdout) < 20  # refused at pids.max (with the Python itself counted)
        assert group._members()  # the sleeping children are still in the group
        assert group.events()[1]  # the limit was hit
    finally:
        group.remove()
    assert all(not Path(path).exists() for path in group.groups.values())


def test_reading_and_preparing_count_against_the_time_limit(tmp_path, chapter):
    from coursework.grading.session import _grade_one

    source_chapter, student, reference = chapter
    nbformat.write(solved(student, source_chapter), tmp_path / "syn.ipynb")
    given = []

    def run(notebook, limits):
        given.append(limits.timeout)
        return records(build_run_notebook(student, reference), {})

    late = time.monotonic() - 30  # its grading began 30 s ago (a slow read, say)
    verdict, chapter_name, ran, _ = _grade_one(tmp_path / "syn.ipynb", {"syn.ipynb": reference}, run,
                                              Limits(timeout=20), late)
    assert verdict.reasons == ["timed out after 20 s while being read and prepared"] and given == [] and not ran
    _grade_one(tmp_path / "syn.ipynb", {"syn.ipynb": reference}, run, Limits(timeout=60), late)
    assert 25 < given[0] <= 30  # the run gets what is left


def test_the_runner_bounds_its_own_memory_without_a_cgroup_and_leaves_the_kernel_its_limit():
    from coursework.isolation.execution import _settings
    from coursework.isolation.nbval_runner import limit_own_memory

    for bad in [-1, 1.5, "1"]:
        with pytest.raises(ValueError, match="whole number of bytes"):
            limit_own_memory(bad)
    isolation, limits = Isolation("plain"), Limits(max_output=2**20)
    assert _settings(Path("/x"), isolation, limits, [], 3, None)["runner_memory"] == 2**30 + 2**21
    assert _settings(Path("/x"), isolation, limits, [], 3, SubmissionGroup({}))["runner_memory"] is None
    # the soft limit binds this process; the hard limit stays, for the kernel launcher to raise it
    code = ("import resource; from coursework.isolation.nbval_runner import limit_own_memory; "
            "limit_own_memory(2**30)\ntry:\n    b = bytearray(2**31)\nexcept MemoryError:\n    print('refused')\n"
            "print(resource.getrlimit(resource.RLIMIT_AS))\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2**32, resource.RLIM_INFINITY)); print('raised')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert done.stdout.split("\n")[:3] == ["refused", f"({2**30}, -1)", "raised"], done.stdout + done.stderr


@pytest.mark.parametrize("cgroup, scratch", [(False, False), (True, True)])
def test_the_grader_warns_at_run_time_when_memory_processes_or_disk_are_bounded_less(tmp_path, monkeypatch,
                                                                                     cgroup, scratch):
    import io

    from coursework.grading import session
    from coursework.isolation.limits import describe_fallback

    with pytest.raises(TypeError, match="True or False"):
        describe_fallback(None, True)
    nbformat.write(graded_chapter(), tmp_path / "syn.ipynb")
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / "syn.ipynb").write_text("{ not json")  # graded without a kernel
    monkeypatch.setattr(session, "cgroup_support", lambda: cgroup)
    monkeypatch.setattr(session, "scratch_support", lambda: scratch)
    notes, stream = io.StringIO(), io.StringIO()
    session.grade(tmp_path / "submissions", tmp_path, isolation=Isolation("plain"), stream=stream, notes=notes)
    warned = [line for line in notes.getvalue().splitlines() if line.startswith("WARNING: not bounded: ")]
    if cgroup:
        assert warned == []
    else:
        assert [line.split(": ")[2] for line in warned] == ["no cgroup", "no private scratch space (not root, or "
                                                             "mounting is not allowed)"], warned
        assert "several times --memory-mb" in warned[0] and "only the size of each file" in warned[1]
    assert stream.getvalue().startswith("FAIL  syn.ipynb  not a readable notebook")


def test_isolation_depends_on_nothing_of_grading():
    # the layout's three jobs: grading uses isolation, never the other way round
    import ast

    for path in sorted((Path(__file__).resolve().parents[1] / "coursework" / "isolation").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            assert not any(name.startswith(("..grading", "coursework.grading")) for name in names), (path.name, names)
