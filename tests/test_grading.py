"""Grading end to end: ``python -m coursework grade`` on folders of real submissions.

Each attack of issue 13 is a submission that must get a FAIL line; solved
notebooks (also renamed, reordered, with scratch cells, under a second BLAS
configuration) must PASS; a hostile submission must not stop the next one
from being graded. Grading spawns a kernel per notebook, so the grading runs
of this module are all started at once, in the background, by the ``runs``
fixture, and each test reads the output of the run it needs.

The isolation is the grader's default for the user running the tests (a
normal user: none; root: the sandbox, or the kernel run as nobody), except in
the ``sandbox`` run (``--sandbox``), skipped where bubblewrap cannot make a
sandbox. Attacks that only a sandbox can stop (reading the reference, killing
every process in sight) are checked there.
"""

import copy
import csv
import ctypes
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

import coursework_attacks as attacks
from coursework import make_student_notebook
from coursework.authoring.exercises import CHECK_MARKER, METADATA_KEY
from coursework.isolation.sandbox import GraderError, choose_isolation
from coursework_notebooks import (graded_chapter, make_deep_folders, remove_deep_folders, shown_outputs, solved, stubs, with_first_cell,
                                  with_sources)

ROOT = Path(__file__).resolve().parents[1]
CHAPTER_1 = ROOT / "chapters" / "01_pca.ipynb"
# the second BLAS configuration of CI (.ci/run): SSE kernels and one thread
SECOND_BLAS = {"OPENBLAS_CORETYPE": "Nehalem", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
MARKER = f"3000.{uuid.uuid4().int % 10**6:06d}"  # a sleep duration no other process uses
GRADER_KEY = f"kpca-grader-note-{uuid.uuid4().hex[:8]}"
INSTRUCTOR_KEY = f"kpca-instructor-note-{uuid.uuid4().hex[:8]}"
SESSION_KEYRING, USER_KEYRING = -3, -4


class Run:
    """A grading run started in the background; :meth:`result` waits for it."""

    def __init__(self, folder, submissions, reference, arguments=(), environment=None, command=None):
        self.folder = folder
        (folder / "tmp").mkdir(parents=True)
        for name, content in submissions.items():
            target = folder / "submissions" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                target.symlink_to(content)
            elif isinstance(content, str):
                target.write_text(content)
            else:
                nbformat.write(content, target)
        self.report = folder / "report.csv"
        command = command or [sys.executable, "-m", "coursework", "grade", "submissions",
                              "--reference", str(reference), "--report", str(self.report), *arguments]
        environment = {**os.environ, "TMPDIR": str(folder / "tmp"), **(environment or {})}
        started = time.monotonic()
        self.process = subprocess.Popen(command, cwd=folder, env=environment, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._result, self._output = None, None

        def wait():
            self._output = self.process.communicate(timeout=900)
            self.seconds = time.monotonic() - started

        self._waiting = threading.Thread(target=wait, daemon=True)
        self._waiting.start()

    def result(self):
        if self._result is None:
            self._waiting.join()
            stdout, stderr = self._output
            lines = {}
            for line in stdout.splitlines():
                verdict, _, rest = line.partition("  ")
                if verdict in ("PASS", "FAIL"):
                    name, _, reasons = rest.partition("  ")
                    lines[name] = (verdict, reasons)
            rows = list(csv.DictReader(self.report.open())) if self.report.exists() else []
            self._result = (self.process.returncode, lines, stdout, stderr, rows)
        return self._result

    def verdict(self, name):
        returncode, lines, stdout, stderr, _ = self.result()
        assert name in lines, f"no line for {name}:\n{stdout}\n{stderr}"
        return lines[name]

    def exercise(self, name, exercise):
        rows = [row for row in self.result()[4] if row["file"] == name and row["exercise"] == exercise]
        assert len(rows) == 1, rows
        return rows[0]["result"], rows[0]["reason"]


def sandbox_problem():
    try:
        return None if choose_isolation(True).mode == "bwrap" else "bubblewrap is not usable here"
    except GraderError as error:
        return str(error)


def synthetic_submissions(student, chapter, reference):
    """The submissions of the ``attacks`` run: name -> notebook (or text, or a symbolic link)."""
    done = solved(student, chapter)
    wrong_ex2 = f"{CHECK_MARKER}\nprint(x + 2)"
    no_graded = copy.deepcopy(done)
    for stub in stubs(no_graded):
        del stub.metadata[METADATA_KEY]["graded"]
    metadata_string = copy.deepcopy(done)
    metadata_string.metadata[METADATA_KEY] = "x"
    metadata_list = copy.deepcopy(done)
    stubs(metadata_list)[0].metadata[METADATA_KEY]["exercise"] = ["syn-ex1"]
    skip_tag = with_sources(student, f"{CHECK_MARKER}\n# PYTEST_VALIDATE_IGNORE_OUTPUT\n"
                                     f"# NBVAL_RAISES_EXCEPTION\n{stubs(student)[0].source}", wrong_ex2)
    stubs(skip_tag)[1].metadata["tags"] = ["solution", "nbval-skip"]
    unrun = with_sources(student, None, wrong_ex2)
    stubs(unrun)[0].metadata["tags"] = ["solution", "raises-exception", "nbval-ignore-output"]
    stubs(unrun)[1].execution_count, stubs(unrun)[1].outputs = None, []
    shown = [f"{CHECK_MARKER}\nprint({text!r}, end='')" for text in shown_outputs(student)]
    forged_function = f"{CHECK_MARKER}\ndef double(values):\n    return [21]\n\nprint(double([x]))"
    return {
        "a0_conftest/syn.ipynb": with_first_cell(student, attacks.CONFTEST_WRITER),
        "a1_forger/syn.ipynb": with_first_cell(student, attacks.DETACHED_FORGER.format(marker=MARKER)),
        "a2_kill_parent/syn.ipynb": with_first_cell(student, attacks.KILL_PARENT),
        "c_names/01 pca ünï::v2[1].ipynb": done,
        "c_names/new\nline.ipynb": "{ not json",
        "d_markers_skip/syn.ipynb": with_sources(student, stubs(student)[0].source + "\n# NBVAL_SKIP",
                                                 f"{wrong_ex2}\n#NBVAL_IGNORE_OUTPUT"),
        "d_markers_ignore/syn.ipynb": skip_tag,
        "d_markers_unrun/syn.ipynb": unrun,
        "e_shown_output/syn.ipynb": with_sources(student, *shown),
        "f_print_patch/syn.ipynb": with_first_cell(with_sources(student, forged_function),
                                                   attacks.PRINT_PATCH + attacks.INPUT_TRANSFORMER),
        "f_custom_exception/syn.ipynb": with_first_cell(student, attacks.CUSTOM_EXCEPTION_HANDLER),
        "g_flood/syn.ipynb": with_first_cell(done, attacks.OUTPUT_FLOOD),
        "j_metadata_no_graded/syn.ipynb": no_graded,
        "j_metadata_string/syn.ipynb": metadata_string,
        "j_metadata_list/syn.ipynb": metadata_list,
        "k_not_json/syn.ipynb": "{ not json",
        "k_symlink/syn.ipynb": reference / "syn.ipynb",
        "l_read_reference/syn.ipynb": with_first_cell(
            with_sources(student, f"{CHECK_MARKER}\nprint(double([x]).tolist())", f"{CHECK_MARKER}\nprint(x + 1)"),
            attacks.READ_REFERENCE.format(reference=reference)),
        # graded last; it reuses a name the hidden check uses (float): the check still works
        "n_solved_last/syn.ipynb": with_first_cell(done, "float = None"),
    }


def chapter_1_submissions(student, chapter):
    """Alice solved all (with scratch cells, the first two in her own order), Bob handed the notebook back
    as received, Carol forgot the ``+ 1`` that turns an index into a count, Dan printed
    the outputs he was shown."""
    alice = solved(student, chapter)
    first, second = (alice.cells.index(stub) for stub in stubs(alice)[:2])
    alice.cells[first], alice.cells[second] = alice.cells[second], alice.cells[first]
    alice.cells.insert(first, new_code_cell("scratch = [1, 2]\nprint('scratch', len(scratch))"))
    alice.cells.append(new_code_cell("def helper():\n    return 3\n\nprint(helper())"))
    done = solved(student, chapter)
    carol = with_sources(done, stubs(done)[0].source.replace("fraction) + 1)", "fraction))"))
    dan = with_sources(student, *[f"{CHECK_MARKER}\nprint({text!r}, end='')" for text in shown_outputs(student)])
    return {"alice/01_pca.ipynb": alice, "bob/01_pca.ipynb": student, "carol/01_pca.ipynb": carol,
            "dan/01_pca.ipynb": dan}


# grading with the kernel run as the grader's user, even by root (only a test does this)
PLAIN_DRIVER = """
import sys
from coursework.isolation.limits import Limits
from coursework.grading.session import grade
from coursework.isolation.processes import become_subreaper
from coursework.isolation.sandbox import Isolation
become_subreaper()
outcomes = grade("submissions", sys.argv[1], report="report.csv", isolation=Isolation("plain"))
sys.exit(1 if any(not outcome.verdict.passed for outcome in outcomes) else 0)
"""


# one submission run as a normal user's grader runs it, without a control group: then the runner's
# own bounds are all that hold; prints the reasons, the runner's records, and its peak memory
# as seen from outside (the VmHWM of this process's children, read every 10 ms)
RUNNER_DRIVER = """
import json, os, sys, tempfile, threading, time, types
from pathlib import Path
import nbformat
from coursework.grading.preparation import build_run_notebook
from coursework.grading.reference import load_references
from coursework.grading.results import interpret
from coursework.isolation import execution
from coursework.isolation.limits import Limits
from coursework.isolation.processes import become_subreaper
from coursework.isolation.sandbox import Isolation
become_subreaper()
execution.SubmissionGroup = types.SimpleNamespace(create=lambda name, limits: None)
reference = load_references(sys.argv[1])["syn.ipynb"]
plan = build_run_notebook(nbformat.read(sys.argv[2], as_version=4), reference)
limits = Limits(max_output=2**20)
peak, done = {}, threading.Event()
def sample():
    while not done.is_set():
        for task in os.listdir("/proc/self/task"):
            for child in open(f"/proc/self/task/{task}/children").read().split():
                try:
                    status = open(f"/proc/{child}/status").read()
                    runner = b"nbval_runner" in open(f"/proc/{child}/cmdline", "rb").read()
                except OSError:
                    continue
                if runner and "VmHWM:" in status:  # not an orphaned kernel
                    peak[child] = max(peak.get(child, 0), int(status.split("VmHWM:")[1].split()[0]))
        time.sleep(0.01)
threading.Thread(target=sample, daemon=True).start()
run = execution.run_notebook(plan.notebook, Path(tempfile.mkdtemp()) / "001", Isolation("plain"), limits, [])
done.set()
print(json.dumps({"reasons": interpret(plan, run, limits, reference).reasons, "records": run.records,
                  "runner_peak_kb": max(peak.values(), default=None)}))
"""


def plain_chapter():
    """A reference chapter with no exercise at all."""
    return new_notebook(cells=[new_code_cell("print(1)", execution_count=1,
                                             outputs=[new_output("stream", name="stdout", text="1\n")])])


def repaired_by_jupyter(nb):
    """``nb`` as JSON text the nbformat schema refuses and Jupyter opens: cell ids in 4.4, a repeated
    tag, an execution count on a markdown cell."""
    data = json.loads(nbformat.writes(nb))
    data["nbformat_minor"] = 4
    stub = next(cell for cell in data["cells"] if METADATA_KEY in cell["metadata"])
    stub["metadata"]["tags"] = ["solution", "solution"]
    next(cell for cell in data["cells"] if cell["cell_type"] == "markdown")["execution_count"] = 3
    return json.dumps(data)


def spy_seed(done):
    """A solved notebook whose spy steals the hidden check's seed, raised in the check and again in a last cell."""
    nb = with_first_cell(done, attacks.SPY_SEED)
    nb.cells.append(new_code_cell(attacks.SPY_SEED_LATER))
    return nb


def issue_28_submissions(student, chapter):
    """The submissions of the ``issue_28`` run (false PASS, floods, leaks, honest oddities)."""
    done = solved(student, chapter)
    wrong_chapter = copy.deepcopy(done)
    no_exercise = copy.deepcopy(done)
    no_exercise.cells = [cell for cell in no_exercise.cells if METADATA_KEY not in cell.metadata]
    no_exercise.metadata[METADATA_KEY] = {"source": "plain.ipynb"}
    pasted = with_sources(done, stubs(done)[0].source + "\n_pasted = 'a\u2028b\x0bc\x1cd\x85e\u2029f'"
                                                     "  # from a web page\u2028(sic)")
    return {
        "a_wrong_chapter/plain.ipynb": wrong_chapter,
        "a_no_exercise/answers.ipynb": no_exercise,
        "b_flood_forever/syn.ipynb": with_first_cell(done, attacks.FLOOD_FOREVER),
        "b_flood_messages/syn.ipynb": with_first_cell(done, attacks.FLOOD_MESSAGES),
        "b_flood_big_messages/syn.ipynb": with_first_cell(done, attacks.FLOOD_BIG_MESSAGES),
        "b_kernel_exit/syn.ipynb": with_first_cell(done, attacks.KERNEL_EXIT),
        "c_spy_name/syn.ipynb": with_first_cell(done, attacks.SPY_NAME),
        "c_spy_value/syn.ipynb": with_first_cell(done, attacks.SPY_VALUE),
        "c_spy_seed/syn.ipynb": spy_seed(done),
        '=HYPERLINK("x")\x1b[31m/syn.ipynb': done,
        "d_pasted_u2028/syn.ipynb": pasted,
        "d_repaired/syn.ipynb": repaired_by_jupyter(done),
        "d_mac/._syn.ipynb": "\x00\x05\x16\x07 not a notebook",
        "__MACOSX/d_mac/._syn.ipynb": "\x00\x05\x16\x07 not a notebook",
        "d_mac/syn.ipynb": done,
    }


def limits_submissions(student, chapter):
    """The submissions of the ``limits`` run: memory, processes and disk, each bounded; then an honest one."""
    done = solved(student, chapter)
    return {
        "a_memory/syn.ipynb": with_first_cell(done, attacks.MEMORY_HOGS),
        "b_processes/syn.ipynb": with_first_cell(done, attacks.MANY_PROCESSES),
        "c_scratch/syn.ipynb": with_first_cell(done, attacks.SCRATCH_FILLER.format(sockets=os.geteuid() == 0)),
        "d_solved/syn.ipynb": done,
    }


def fake_library(folder):
    """A kpca_lib that only the grader's Python imports (through PYTHONPATH)."""
    (folder / "kpca_lib").mkdir(parents=True)
    (folder / "kpca_lib" / "__init__.py").write_text('MARK = "the grader\'s copy"\n')
    return {"PYTHONPATH": str(folder)}


def leave_grader_key(name, keyring=SESSION_KEYRING):
    """A key in a keyring of this process (session: the runs inherit it; user: every process of
    this user shares it), x86_64 Linux only; whether it was added."""
    if os.uname().machine != "x86_64":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    # a child process inherits the session keyring, and finds the key: unless it joins a keyring of its own
    added = libc.syscall(248, b"user", name.encode(), b"secret", 6, keyring) > 0
    assert added or keyring != SESSION_KEYRING, ctypes.get_errno()
    return added


def find_grader_key(name, keyring=SESSION_KEYRING):
    """The key's serial number if this process finds it in ``keyring``, else None."""
    if os.uname().machine != "x86_64":
        return None
    key = ctypes.CDLL(None, use_errno=True).syscall(250, 10, keyring, b"user", name.encode(), 0)  # KEYCTL_SEARCH
    return key if key > 0 else None


def forget_grader_key(name, keyring=SESSION_KEYRING):
    key = find_grader_key(name, keyring)
    if key is not None:
        ctypes.CDLL(None, use_errno=True).syscall(250, 3, key)  # KEYCTL_REVOKE


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every grading run of this module, started at once."""
    base = tmp_path_factory.mktemp("grading")
    synthetic = graded_chapter()
    synthetic_student = make_student_notebook(synthetic, name="syn.ipynb")
    (base / "reference").mkdir()
    nbformat.write(synthetic, base / "reference" / "syn.ipynb")
    nbformat.write(plain_chapter(), base / "reference" / "plain.ipynb")
    deep = make_deep_folders(base / "issue_28" / "submissions" / "e_deep", 1100)
    nbformat.write(solved(synthetic_student, synthetic), Path(deep) / "syn.ipynb")
    leave_grader_key(GRADER_KEY)
    # in the user keyring, which a kernel run as the grader's own user shares (plain mode)
    started_keys = {"instructor": leave_grader_key(INSTRUCTOR_KEY, USER_KEYRING)}
    chapter = nbformat.read(CHAPTER_1, as_version=4)
    student = make_student_notebook(chapter, name=CHAPTER_1.name)
    (base / "chapters").mkdir()
    nbformat.write(chapter, base / "chapters" / CHAPTER_1.name)
    started = {
        "attacks": Run(base / "attacks", synthetic_submissions(synthetic_student, synthetic, base / "reference"),
                       base / "reference", ["--jobs", "2", "--max-output-mb", "1"]),
        "hang": Run(base / "hang", {
            "a_hang/syn.ipynb": with_first_cell(synthetic_student, attacks.HANG_WITH_CHILDREN.format(marker=MARKER)),
            "b_solved/syn.ipynb": solved(synthetic_student, synthetic)}, base / "reference", ["--timeout", "20"]),
        "chapter_1": Run(base / "chapter_1", chapter_1_submissions(student, chapter), base / "chapters",
                         ["--jobs", "2"]),
    }
    probe = with_first_cell(solved(student, chapter), "import threadpoolctl\nassert {'Nehalem'} <= "
                            "{str(pool.get('architecture')) for pool in threadpoolctl.threadpool_info()}, "
                            "threadpoolctl.threadpool_info()\n")
    started["second_blas"] = Run(base / "second_blas", {"01_pca.ipynb": probe}, base / "chapters",
                                 environment=SECOND_BLAS)
    started["issue_28"] = Run(base / "issue_28", issue_28_submissions(synthetic_student, synthetic),
                              base / "reference", ["--jobs", "2", "--max-output-mb", "1"])
    big = base / "big_messages"
    big.mkdir()
    nbformat.write(with_first_cell(solved(synthetic_student, synthetic), attacks.FLOOD_BIG_MESSAGES), big / "syn.ipynb")
    started["big_messages"] = Run(big, {}, base / "reference", command=[
        sys.executable, "-c", RUNNER_DRIVER, str(base / "reference"), str(big / "syn.ipynb")])
    sandbox_works = sandbox_problem() is None
    sandboxed = ["--sandbox"] if sandbox_works else []
    started["limits"] = Run(base / "limits", limits_submissions(synthetic_student, synthetic), base / "reference",
                            [*sandboxed, "--jobs", "2", "--memory-mb", "1500", "--max-processes", "60",
                             "--scratch-mb", "4"])
    started["library"] = Run(base / "library", {"syn.ipynb": with_first_cell(
        solved(synthetic_student, synthetic), attacks.LIBRARY_PROBE)}, base / "reference",
        environment=fake_library(base / "fake_library"))
    started["no_bwrap"] = Run(base / "no_bwrap", {"syn.ipynb": solved(synthetic_student, synthetic)},
                              base / "reference", ["--sandbox"], environment={"PATH": str(base / "no_bwrap")})
    if sandbox_works:
        hidden = [str(base / "reference"), str(base / "sandbox" / "submissions"), str(ROOT / "chapters"),
                  str(ROOT / ".git"), str(Path.home() / ".bash_history")]
        probe = with_first_cell(solved(synthetic_student, synthetic),
                                attacks.SANDBOX_PROBE.format(hidden=hidden, threads="1"))
        started["sandbox"] = Run(base / "sandbox", {
            "d_probe/syn.ipynb": probe,
            "b_read_reference/syn.ipynb": synthetic_submissions(
                synthetic_student, synthetic, base / "reference")["l_read_reference/syn.ipynb"],
            "c_kill_all/syn.ipynb": with_first_cell(synthetic_student, attacks.KILL_ALL),
            "e_keyring_writer/syn.ipynb": with_first_cell(solved(synthetic_student, synthetic),
                                                          attacks.KEYRING_WRITER),
            "f_keyring_reader/syn.ipynb": with_first_cell(solved(synthetic_student, synthetic),
                                                          attacks.KEYRING_READER.format(grader_note=GRADER_KEY)),
        }, base / "reference", ["--sandbox", "--jobs", "2"], environment={"OPENBLAS_NUM_THREADS": "1"})
    if os.geteuid() == 0:  # the default isolation of root is not plain: check plain mode too
        started["plain"] = Run(base / "plain", {
            "a_conftest/syn.ipynb": with_first_cell(synthetic_student, attacks.CONFTEST_WRITER),
            "b_handed_out/syn.ipynb": synthetic_student,
            "c_solved/syn.ipynb": solved(synthetic_student, synthetic),
        }, base / "reference", command=[sys.executable, "-c", PLAIN_DRIVER, str(base / "reference")])
    # pytest's own clean-up of the temporary folder recurses: remove the deep folders once
    # graded, while the other runs go on (a thousand rmdir take seconds)
    cleaning = threading.Thread(target=lambda: (started["issue_28"].result(),
                                                remove_deep_folders(base / "issue_28" / "submissions" / "e_deep")))
    cleaning.start()
    try:
        yield {**started, "keys": started_keys}
    finally:
        cleaning.join()
        forget_grader_key(GRADER_KEY)
        forget_grader_key(INSTRUCTOR_KEY, USER_KEYRING)
    if os.environ.get("KPCA_SHOW_RUNS"):
        for name, run in started.items():
            print(name, f"{run.seconds:.1f} s", run.result()[2], run.result()[3])
    for run in started.values():
        if run.process.poll() is None:
            run.process.kill()


def living_processes_with(marker):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in command and state != "Z" and int(pid) != os.getpid():
            found.append((pid, command))
    return found


# ---------------------------------------------------------------- solved notebooks pass


def test_solved_notebooks_pass_whatever_their_file_names(runs):
    attacks_run = runs["attacks"]
    for name in ["c_names/01 pca ünï::v2[1].ipynb", "n_solved_last/syn.ipynb", "j_metadata_no_graded/syn.ipynb"]:
        assert attacks_run.verdict(name) == ("PASS", ""), name
    assert attacks_run.exercise("n_solved_last/syn.ipynb", "syn-ex1") == ("PASS", "")


def test_solved_chapter_1_passes_with_reordered_and_inserted_scratch_cells(runs):
    assert runs["chapter_1"].verdict("alice/01_pca.ipynb") == ("PASS", "")


def test_solved_notebook_passes_grading_under_a_second_blas_configuration(runs):
    # the notebook asserts that the kernel runs OpenBLAS's Nehalem kernels: the
    # variables reach the student's kernel through the grader (and any sandbox)
    returncode, lines, stdout, stderr, rows = runs["second_blas"].result()
    assert returncode == 0, stdout + stderr
    assert lines == {"01_pca.ipynb": ("PASS", "")}
    assert [row["result"] for row in rows] == ["PASS", "PASS", "PASS", "PASS"]


# ---------------------------------------------------------------- wrong or missing answers fail


def chapter_1_cell_numbers():
    """nbval's "Cell N" (the N-th code cell, from 0) of each graded stub of chapter 1's handout."""
    from coursework.authoring.exercises import solution_cells

    chapter = ROOT / "chapters" / "01_pca.ipynb"
    handout = make_student_notebook(nbformat.read(chapter, as_version=4), chapter.name)
    code = [index for index, cell in enumerate(handout.cells) if cell.cell_type == "code"]
    return {role.exercise: code.index(role.index)
            for role in solution_cells(handout, chapter.name) if role.graded and not role.hidden}


def test_chapter_1_as_handed_out_or_wrong_fails_naming_the_cells(runs):
    chapter_1 = runs["chapter_1"]
    cell = chapter_1_cell_numbers()
    assert sorted(cell) == ["ch1-ex3", "ch1-ex4", "ch1-ex5"]
    assert chapter_1.verdict("bob/01_pca.ipynb") == ("FAIL", "; ".join(
        f"Cell {cell[label]} (Exercise 1.{label[-1]}, {label}): raised NotImplementedError; "
        f"hidden check 1 of Exercise 1.{label[-1]} ({label}): raised NotImplementedError"
        for label in ("ch1-ex3", "ch1-ex4", "ch1-ex5")))
    # one answer off by one: its visible check and its hidden check differ, the other exercise passes
    assert chapter_1.verdict("carol/01_pca.ipynb") == ("FAIL", (
        f"Cell {cell['ch1-ex3']} (Exercise 1.3, ch1-ex3): output differs from the reference; "
        "hidden check 1 of Exercise 1.3 (ch1-ex3): output differs from the reference"))
    assert chapter_1.exercise("carol/01_pca.ipynb", "ch1-ex4") == ("PASS", "")
    assert chapter_1.exercise("carol/01_pca.ipynb", "ch1-ex5") == ("PASS", "")
    returncode, _, _, stderr, _ = chapter_1.result()
    assert returncode == 1
    assert "no hidden check" not in stderr  # chapter 1 is in the function convention


# ---------------------------------------------------------------- the attacks of issue 13


def test_attack_nbval_markers_added_to_graded_cells_fail(runs):
    # NBVAL_SKIP; IGNORE_OUTPUT after the check marker; PYTEST_VALIDATE_IGNORE_OUTPUT;
    # RAISES_EXCEPTION: each on a graded cell whose answer is missing or wrong
    attacks_run = runs["attacks"]
    for name in ["d_markers_skip/syn.ipynb", "d_markers_ignore/syn.ipynb"]:
        assert attacks_run.verdict(name)[0] == "FAIL"
        assert attacks_run.exercise(name, "syn-ex1")[0] == "FAIL"
        assert attacks_run.exercise(name, "syn-ex2") == (
            "FAIL", "Cell 2 (exercise syn-ex2): output differs from the reference")


def test_attack_nbval_tags_and_an_unrun_graded_cell_fail(runs):
    # tags nbval-skip, raises-exception, nbval-ignore-output; execution count removed
    attacks_run = runs["attacks"]
    assert attacks_run.exercise("d_markers_ignore/syn.ipynb", "syn-ex2")[0] == "FAIL"  # nbval-skip tag
    assert attacks_run.exercise("d_markers_unrun/syn.ipynb", "syn-ex1") == (
        "FAIL", "Cell 1 (exercise syn-ex1): raised NotImplementedError; "
                "hidden check 1 of syn-ex1: raised NotImplementedError")
    assert attacks_run.exercise("d_markers_unrun/syn.ipynb", "syn-ex2")[0] == "FAIL"


def test_attack_printing_the_shown_output_fails_where_there_is_a_hidden_check(runs):
    attacks_run = runs["attacks"]
    # the name of a builtin exception only: a hidden check's failure never shows its value
    assert attacks_run.exercise("e_shown_output/syn.ipynb", "syn-ex1") == (
        "FAIL", "hidden check 1 of syn-ex1: raised NameError")
    # not protected: an exercise without hidden check is graded by its visible output only
    assert attacks_run.exercise("e_shown_output/syn.ipynb", "syn-ex2") == ("PASS", "")
    assert "note: syn.ipynb: syn-ex2 has no hidden check and is graded by the visible output only" \
        in attacks_run.result()[3]
    assert runs["chapter_1"].verdict("dan/01_pca.ipynb") == ("FAIL", (
        "hidden check 1 of Exercise 1.3 (ch1-ex3): raised NameError; hidden check 1 of Exercise 1.4 (ch1-ex4): "
        "raised NameError; hidden check 1 of Exercise 1.5 (ch1-ex5): raised NameError"))


def test_attack_print_patch_and_input_transformer_fail(runs):
    verdict, reasons = runs["attacks"].verdict("f_print_patch/syn.ipynb")
    assert verdict == "FAIL"
    assert "hidden check 1 of syn-ex1: output differs from the reference" in reasons


def test_attack_custom_exception_handler_fails(runs):
    # the visible check "passes" (the handler prints the shown output and hides the
    # error from nbval); the hidden check runs after a reset of the handler
    assert runs["attacks"].exercise("f_custom_exception/syn.ipynb", "syn-ex1") == (
        "FAIL", "hidden check 1 of syn-ex1: raised NotImplementedError")


def test_attack_reading_the_reference_fails_in_the_sandbox(runs):
    if "sandbox" not in runs:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    assert runs["sandbox"].verdict("b_read_reference/syn.ipynb")[0] == "FAIL"
    # without a sandbox the kernel runs as the instructor and can read the reference:
    # the instructor guide says so; this checks that the attack itself works
    _, _, _, stderr, _ = runs["attacks"].result()
    expected = "PASS" if "isolation: no sandbox" in stderr else "FAIL"
    assert runs["attacks"].verdict("l_read_reference/syn.ipynb")[0] == expected


def test_attack_conftest_in_the_scratch_folder_changes_nothing(runs):
    attacks_run = runs["attacks"]
    assert attacks_run.verdict("a0_conftest/syn.ipynb")[0] == "FAIL"
    # every later unsolved or wrong notebook still fails, solved ones pass
    assert attacks_run.verdict("d_markers_skip/syn.ipynb")[0] == "FAIL"
    assert attacks_run.exercise("e_shown_output/syn.ipynb", "syn-ex1")[0] == "FAIL"
    assert attacks_run.verdict("n_solved_last/syn.ipynb") == ("PASS", "")


def test_attack_detached_process_changes_no_result_and_does_not_survive(runs):
    returncode, lines, stdout, stderr, rows = runs["attacks"].result()
    assert lines["a1_forger/syn.ipynb"][0] == "FAIL"
    assert "forged" not in stdout
    # the report agrees line by line with what was printed
    printed = {name: verdict for name, (verdict, _) in lines.items()}
    assert {row["file"]: row["result"] for row in rows if row["exercise"] == "(notebook)"} == printed
    assert living_processes_with(MARKER) == []


def test_bad_metadata_and_unreadable_files_get_one_line_each(runs):
    attacks_run = runs["attacks"]
    assert attacks_run.verdict("j_metadata_string/syn.ipynb") == ("FAIL", (
        "malformed metadata: the notebook's kpca_coursework must be a mapping with a 'source' "
        "file name, got \"x\""))
    assert attacks_run.verdict("j_metadata_list/syn.ipynb") == ("FAIL", (
        "malformed metadata in Cell 1: kpca_coursework must hold 'exercise' (text) and 'part' "
        "(a whole number), got {\"exercise\": [\"syn-ex1\"], \"graded\": true, \"part\": 0, \"points..."))
    verdict, reasons = attacks_run.verdict("k_not_json/syn.ipynb")
    assert verdict == "FAIL" and reasons.startswith("not a readable notebook (NotJSONError")
    assert attacks_run.verdict("c_names/new\\nline.ipynb")[0] == "FAIL"
    assert attacks_run.verdict("k_symlink/syn.ipynb") == ("FAIL", "is a symbolic link, not a notebook file")
    returncode, lines, stdout, stderr, _ = attacks_run.result()
    assert returncode == 1
    passed = 4 if "isolation: no sandbox" in stderr else 3  # l_read_reference: see below
    assert stdout.splitlines()[-1] == f"19 notebooks: {passed} passed, {19 - passed} failed"
    assert "Traceback" not in stdout + stderr


def test_a_submission_that_kills_its_runner_fails_and_the_next_is_graded(runs):
    verdict, reasons = runs["attacks"].verdict("a2_kill_parent/syn.ipynb")
    assert verdict == "FAIL"
    assert runs["attacks"].verdict("c_names/01 pca ünï::v2[1].ipynb") == ("PASS", "")


def test_output_over_the_cap_fails(runs):
    verdict, reasons = runs["attacks"].verdict("g_flood/syn.ipynb")
    assert verdict == "FAIL" and "output exceeds the cap of 1 MB" in reasons, reasons


def test_hanging_submission_times_out_leaves_no_process_and_the_next_is_graded(runs):
    hang = runs["hang"]
    verdict, reasons = hang.verdict("a_hang/syn.ipynb")
    assert verdict == "FAIL" and reasons.startswith("timed out after 20 s"), reasons
    assert hang.verdict("b_solved/syn.ipynb") == ("PASS", "")
    time.sleep(0.5)
    assert living_processes_with(MARKER) == []


def test_sandbox_hides_the_reference_the_network_and_the_system(runs):
    if "sandbox" not in runs:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    sandbox = runs["sandbox"]
    assert sandbox.verdict("c_kill_all/syn.ipynb")[0] == "FAIL"
    assert sandbox.verdict("d_probe/syn.ipynb") == ("PASS", "")  # graded after the killer
    assert "isolation: bubblewrap sandbox" in sandbox.result()[3]


def test_plain_mode_ignores_a_conftest_and_grades_every_notebook(runs):
    if "plain" not in runs:
        pytest.skip("not root: the attacks run used plain mode already")
    plain = runs["plain"]
    assert plain.verdict("a_conftest/syn.ipynb")[0] == "FAIL"
    assert plain.verdict("b_handed_out/syn.ipynb")[0] == "FAIL"
    assert plain.verdict("c_solved/syn.ipynb") == ("PASS", "")
    assert "isolation: no sandbox" in plain.result()[3]


# ---------------------------------------------------------------- issue 28: unattended grading


def test_a_chapter_handed_in_as_another_or_with_nothing_graded_fails(runs):
    issue_28 = runs["issue_28"]
    assert issue_28.verdict("a_wrong_chapter/plain.ipynb") == ("FAIL", (
        "its file name says plain.ipynb but its metadata says it was made from syn.ipynb: hand in each "
        "chapter under its own name"))
    assert issue_28.verdict("a_no_exercise/answers.ipynb") == (
        "FAIL", "plain.ipynb has no graded exercise: there is nothing to grade")


def test_sandbox_that_cannot_be_made_is_exit_2_before_anything_runs(runs):
    returncode, lines, stdout, stderr, rows = runs["no_bwrap"].result()
    assert returncode == 2, stdout + stderr
    assert "--sandbox: bubblewrap is not installed" in stderr and "nothing was graded" in stderr
    assert lines == {} and rows == []


def test_without_a_sandbox_the_grader_says_what_is_not_isolated(runs):
    plain = runs["plain"] if "plain" in runs else runs["attacks"]
    assert "WARNING: not isolated: kernels run as you without a sandbox: the network is reachable" \
        in plain.result()[3]
    if "sandbox" in runs:
        assert "WARNING: not isolated" not in runs["sandbox"].result()[3]


def test_output_is_capped_as_it_arrives_and_a_dead_kernel_is_seen_at_once(runs):
    issue_28 = runs["issue_28"]
    for name in ["b_flood_forever/syn.ipynb", "b_flood_messages/syn.ipynb", "b_flood_big_messages/syn.ipynb"]:
        assert issue_28.verdict(name) == ("FAIL", "output exceeds the cap of 1 MB (in Cell 0)"), name
    # not "timed out after 120 s": each was stopped as it happened
    assert issue_28.verdict("b_kernel_exit/syn.ipynb") == ("FAIL", "the kernel died (in Cell 0)")


def test_huge_messages_are_refused_and_the_runner_holds_little_without_a_cgroup(runs):
    # 19 MB messages over a 1 MB cap: refused by the watcher's socket and by nbval's own, and
    # counted on while the kernel has a moment to show it died; the runner stays small
    returncode, _, stdout, stderr, _ = runs["big_messages"].result()
    assert returncode == 0, stdout + stderr
    result = json.loads(stdout.splitlines()[-1])
    assert result["reasons"] == ["output exceeds the cap of 1 MB (in Cell 0)"]
    # about 65 MB; 330 MB and more when nbval's socket took them in during the second the
    # watcher waited; measured from outside, and reported by the runner itself
    assert 0 < result["runner_peak_kb"] < 150 * 1024, result["runner_peak_kb"]
    capped = [record for record in result["records"] if record["event"] == "output-cap"]
    assert len(capped) == 1 and capped[0].get("peak_kb", 0) < 150 * 1024, capped
    assert capped[0]["seconds"] < 30  # stopped before the cell's sleep ended


def test_exception_names_and_values_never_echo_a_hidden_check(runs):
    issue_28 = runs["issue_28"]
    # a failure from the first hidden check on shows a builtin exception's name, never a value
    assert issue_28.exercise("c_spy_name/syn.ipynb", "syn-ex1") == (
        "FAIL", "hidden check 1 of syn-ex1: raised an exception")
    assert issue_28.exercise("c_spy_value/syn.ipynb", "syn-ex1") == (
        "FAIL", "hidden check 1 of syn-ex1: raised ValueError")
    chapter = graded_chapter()
    spy = spy_seed(solved(make_student_notebook(chapter, name="syn.ipynb"), chapter))
    last_cell = sum(cell.cell_type == "code" for cell in spy.cells) - 1
    assert issue_28.verdict("c_spy_seed/syn.ipynb") == ("FAIL", (
        f"hidden check 1 of syn-ex1: raised ValueError; Cell {last_cell}: raised an exception"))
    _, _, stdout, stderr, _ = issue_28.result()
    report = issue_28.report.read_text()
    for fragment in ["default_rng", "rng_5", "(5)", "rng.integers", "size=4", "hidden check for syn-ex1"]:
        assert fragment not in stdout + stderr + report, fragment


def test_the_report_neither_runs_formulas_nor_carries_control_characters(runs):
    issue_28 = runs["issue_28"]
    rows = issue_28.result()[4]
    assert any(row["file"].startswith("'=HYPERLINK") for row in rows)
    for row in rows:
        for cell in row.values():
            assert cell[:1] not in ("=", "+", "-", "@", "\t", "\r"), cell
            assert all(c.isprintable() or c == " " for c in cell), cell


def test_honest_oddities_pass_u2028_schema_repairs_and_mac_leftovers(runs):
    issue_28 = runs["issue_28"]
    for name in ["d_pasted_u2028/syn.ipynb", "d_repaired/syn.ipynb", "d_mac/syn.ipynb"]:
        assert issue_28.verdict(name) == ("PASS", ""), name
    returncode, lines, stdout, stderr, rows = issue_28.result()
    assert not any("MACOSX" in name or "._" in name for name in lines)
    assert "note: ignored 2 macOS archive leftovers (__MACOSX/ folders and ._* files)" in stderr
    assert {row["student"] for row in rows} >= {"d_mac"} and "__MACOSX" not in {row["student"] for row in rows}


def test_a_thousand_nested_folders_fail_that_student_only(runs):
    returncode, lines, stdout, stderr, rows = runs["issue_28"].result()
    assert returncode == 1 and "Traceback" not in stdout + stderr
    deep = [name for name in lines if name.startswith("e_deep/")]
    assert len(deep) == 1 and lines[deep[0]] == ("FAIL", "folders nested deeper than 16 levels: not searched")
    assert stdout.splitlines()[-1] == f"{len(lines)} notebooks: {sum(v == 'PASS' for v, _ in lines.values())} " \
        f"passed, {sum(v == 'FAIL' for v, _ in lines.values())} failed"


def test_the_kernel_imports_the_kpca_lib_the_grader_imports(runs):
    returncode, lines, stdout, stderr, _ = runs["library"].result()
    assert lines == {"syn.ipynb": ("PASS", "")}, stdout + stderr


def test_memory_processes_and_scratch_space_are_bounded_per_submission(runs):
    from coursework.isolation.limits import cgroup_support

    limits = runs["limits"]
    # a bounded stand-in for a fork bomb is refused, a disk filler stops at the scratch limit
    assert limits.verdict("b_processes/syn.ipynb") == ("PASS", "")
    if os.geteuid() == 0:
        assert limits.verdict("c_scratch/syn.ipynb") == ("PASS", "")
    assert limits.verdict("d_solved/syn.ipynb") == ("PASS", "")  # graded after them all
    if cgroup_support():  # four processes of 500 MB, each under 1500 MB, together over it
        verdict, reasons = limits.verdict("a_memory/syn.ipynb")
        assert verdict == "FAIL" and "went over the memory limit of 1500 MB" in reasons, reasons
    assert "WARNING: not isolated" not in limits.result()[3] or "sandbox" not in runs
    if cgroup_support() and os.geteuid() == 0:
        assert "WARNING: not bounded" not in limits.result()[3]


def test_grading_never_clears_the_instructors_keyrings(runs):
    # regression (992094b): a kernel run as the grader's own user joined a new session keyring,
    # and emptied that user's keyrings as well: the instructor's keys were gone
    if not runs["keys"]["instructor"]:
        pytest.skip("no user keyring here (x86_64 Linux with keyctl only)")
    plain = runs["plain"] if "plain" in runs else runs["attacks"]
    assert plain.verdict("c_solved/syn.ipynb" if "plain" in runs else "n_solved_last/syn.ipynb") == ("PASS", "")
    for run in ("sandbox", "limits"):
        if run in runs:
            runs[run].result()
    assert find_grader_key(INSTRUCTOR_KEY, USER_KEYRING) is not None
    assert find_grader_key(GRADER_KEY) is not None


def test_each_kernel_has_its_own_keyring(runs):
    if "sandbox" not in runs:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    if os.uname().machine != "x86_64":
        pytest.skip("the keyring probe uses x86_64 system call numbers")
    sandbox = runs["sandbox"]
    assert sandbox.verdict("e_keyring_writer/syn.ipynb") == ("PASS", "")  # it could write its notes
    assert sandbox.verdict("f_keyring_reader/syn.ipynb") == ("PASS", "")  # and no other kernel reads them
