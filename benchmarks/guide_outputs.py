"""The captured outputs of the instructor guide (``instructor_guide.md``), from real runs.

Runs, from the repository root, the commands whose output the guide shows:

1. ``make-student chapters/ student_notebooks/``, ``check chapters/``, and
   the student package: ``pip wheel`` and the sdist of kpca_lib into ``dist/``;
2. the private-reference workflow (section "Keep the hidden checks private"):
   the guide's ``reseed.py`` on a copy of chapter 1 in ``private/``, its
   execution, ``check private/``, and grading Alice and Bob against it;
3. the five submissions of chapter 1 in section 4, in
   ``course/submissions/<student>/`` (Alice solved it and tried things out in
   a cell of her own, Bob handed it back as received, Carol added a cell
   before the first exercise, forgot its ``+ 1``, ran the notebook and saved
   it, Dan printed the shown outputs, Eve added ``# NBVAL_IGNORE_OUTPUT`` to
   the graded cells), with a roster ``course/students.csv`` of six students
   (Frank hands in nothing) and a ``submitted.txt`` beside each notebook
   (Carol's after the deadline), graded with ``--sandbox`` into a gradebook,
   feedback files and a report in ``course/grades/``; the report's rows for
   Alice and Carol, Carol's feedback, and the self-check of Carol's and
   Alice's notebooks against the handouts' expected outputs;
4. Bob's corrected notebook re-graded alone, the written answers collected,
   points given by hand added, the gradebook, its Canvas and Moodle exports,
   and the environment pre-check stopping a run (a reference chapter that
   imports a module the kernel cannot import).

Each command is printed with its exit status, standard output and error.
With ``--write``, the script also puts the outputs into the guide: the first
```` ```text ```` block after a ```` ```bash ```` block whose last command ran
gets that command's standard output (its standard error if it printed nothing
else), and a later one, before the next ```` ```bash ```` block, whose
paragraph mentions "standard error", gets its standard error. ``--check``
does the same comparison without writing, and exits 1 when a block is stale.
Paths are shown as the guide writes them (``.venv/bin/``, relative to the
root). The grading runs are too slow for the test suite (six to twelve
minutes on a shared two-core machine), so no test runs these commands;
``tests/test_chapter_points.py`` checks the one cheap block, ``check
chapters/``, with :func:`fill_guide`. ``--replay --check`` checks the guide
against the outputs of the last run, without running anything.

It writes ``student_notebooks/``, ``course/`` and ``dist/`` (ignored by git)
and removes ``private/`` at the end::

    .venv/bin/python benchmarks/guide_outputs.py [--write | --check]
"""

import argparse
import copy
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell

from coursework import make_student_notebook
from coursework.authoring.exercises import CHECK_MARKER, METADATA_KEY

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "01_pca.ipynb"
PYTHON = ".venv/bin/python"
GUIDE = ROOT / "instructor_guide.md"
DEADLINE = "2026-03-01T23:59"
# id, name, email; Frank hands in nothing, Carol hands in late
ROSTER = [("alice", "Alice Martin", "alice.martin@uni.example"), ("bob", "Bob Chen", "bob.chen@uni.example"),
          ("carol", "Carol Diaz", "carol.diaz@uni.example"), ("dan", "Dan Okafor", "dan.okafor@uni.example"),
          ("eve", "Eve Laurent", "eve.laurent@uni.example"), ("frank", "Frank Weber", "frank.weber@uni.example")]
SUBMITTED = {"alice": "2026-02-27T18:02:00", "bob": "2026-03-01T23:41:00", "carol": "2026-03-02T09:15:00",
             "dan": "2026-03-01T12:30:00", "eve": "2026-02-28T10:45:00"}
SAVED = ROOT / "course" / "guide_outputs.json"  # the outputs of the last run, for --replay
RUNS = {}  # command as the guide writes it -> (exit status, stdout, stderr)


def reseed_script():
    """The text of ``reseed.py`` from the guide (the first python block after "reseed.py")."""
    text = GUIDE.read_text()
    block = re.search(r"```python\n(\s*# reseed\.py.*?)```", text, re.S)
    if block is None:
        raise ValueError("instructor_guide.md has no reseed.py block")
    lines = block[1].splitlines()
    indent = len(lines[0]) - len(lines[0].lstrip())
    return "\n".join(line[indent:] for line in lines) + "\n"


def shown(text):
    """Paths as the guide writes them: this Python's folder as ``.venv/bin/``, the root as ``.``."""
    return text.replace(f"{Path(sys.executable).parent}/", ".venv/bin/").replace(f"{ROOT}/", "")


def run(command, show=True):
    """Run a shell command in the repository root; print it and what it printed, and record it.

    ``.venv/bin/`` in ``command`` (as the guide writes it) stands for the folder of this Python.
    """
    actual = command.replace(".venv/bin/", f"{Path(sys.executable).parent}/")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(actual, shell=True, cwd=ROOT, capture_output=True, text=True, env=environment)
    stdout, stderr = shown(done.stdout), shown(done.stderr)
    RUNS[" ".join(command.split())] = (done.returncode, stdout, stderr)
    if show:
        print(f"$ {command}   (exit status {done.returncode})")
        print(stdout, end="")
        if stderr:
            print("--- standard error")
            print(stderr, end="")
        print()
    return done


def submissions():
    """The five submissions of chapter 1 and Bob's corrected one: name -> notebook."""
    chapter = nbformat.read(CHAPTER, as_version=4)
    student = make_student_notebook(chapter, name=CHAPTER.name)
    solutions = [cell for cell in chapter.cells if "solution" in cell.metadata.get("tags", [])]

    def graded(nb):
        return [cell for cell in nb.cells if cell.cell_type == "code" and METADATA_KEY in cell.metadata]

    solved = copy.deepcopy(student)
    for stub, solution in zip(graded(solved), [c for c in solutions if c.cell_type == "code"], strict=True):
        stub.source = f"{CHECK_MARKER}\n{solution.source}"
    alice = answered(solved, {"ch1-ex1": "The error is smallest at $b = \\bar x$: ...",
                              "ch1-ex2": "In the eigenbasis of $C$, ...",
                              "ch1-ex3": "A fixed fraction keeps noise when the noise is large: ..."})
    alice.cells.insert(alice.cells.index(graded(alice)[0]),
                       new_code_cell("scratch = [1, 2]\nprint('scratch', len(scratch))"))
    carol = answered(solved, {"ch1-ex1": "Setting the gradient in $b$ to zero gives $b = \\bar x$."})
    graded(carol)[0].source = graded(carol)[0].source.replace("fraction) + 1)", "fraction))")
    carol.cells.insert(carol.cells.index(graded(carol)[0]), new_code_cell("print('trying things out')"))
    shown_outputs = [cell.outputs[0]["text"] for cell in graded(student)]
    dan = copy.deepcopy(student)
    for stub, text in zip(graded(dan), shown_outputs):
        stub.source = f"{CHECK_MARKER}\nprint({text!r}, end='')"
    eve = copy.deepcopy(student)
    for stub in graded(eve):
        first, _, rest = stub.source.partition("\n")
        stub.source = f"{first}\n# NBVAL_IGNORE_OUTPUT\n{rest}"
    return {"alice": alice, "bob": student, "carol": carol, "dan": dan, "eve": eve, "bob-corrected": solved}


def answered(nb, answers):
    """A copy of ``nb`` with the derivations' answer cells written: label -> the answer's text."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        info = cell.metadata.get(METADATA_KEY)
        if cell.cell_type == "markdown" and isinstance(info, dict) and info.get("exercise") in answers:
            cell.source = cell.source.replace("Write your answer here.", answers[info["exercise"]])
    return nb


def write(folder, notebooks):
    for name, nb in notebooks.items():
        (folder / name).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / name / CHAPTER.name)
        if name in SUBMITTED:
            (folder / name / "submitted.txt").write_text(SUBMITTED[name] + "\n")


def write_course_files(course):
    """The roster, a Canvas gradebook export of the same students, and a reference that imports too much."""
    with (course / "students.csv").open("w", newline="") as file:
        csv.writer(file).writerows([("id", "name", "email"), *ROSTER])
    with (course / "canvas_export.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Coursework 1 (40101)",
                         "Current Score", "Final Score"])
        writer.writerow(["    Points Possible", "", "", "", "", "15", "(read only)", "(read only)"])
        for number, (login, name, _) in enumerate(ROSTER, start=1):
            first, last = name.split()
            writer.writerow([f"{last}, {first}", 2200 + number, f"S{number:04d}", login, "Kernel methods 2026",
                             "", 0, 0])
    extra = course / "reference-extra"
    extra.mkdir(exist_ok=True)
    chapter = nbformat.read(CHAPTER, as_version=4)
    setup = next(cell for cell in chapter.cells if cell.cell_type == "code")
    setup.source = "import kpca_extra_probe  # a package the instructor forgot to install\n" + setup.source
    nbformat.write(chapter, extra / CHAPTER.name)


def give_hand_points(sheet):
    """Fill the hand-points sheet as an instructor would: Alice, Bob and Carol read, Dan and Eve not yet."""
    given = {("alice", "ch1-ex1"): ("4", "complete"), ("alice", "ch1-ex2"): ("3", ""),
             ("bob", "ch1-ex1"): ("0", "no answer"), ("bob", "ch1-ex2"): ("0", "no answer"),
             ("carol", "ch1-ex1"): ("2.5", "(b) missing"), ("carol", "ch1-ex2"): ("0", "no answer"),
             # the written part of a code exercise, when the chapter declares one (a row of its own)
             ("alice", "ch1-ex3-written"): ("1", "part 2 missing")}
    with sheet.open(newline="") as file:
        rows = list(csv.DictReader(file))
    for row in rows:
        row["points"], row["comment"] = given.get((row["student"], row["exercise"]), ("", ""))
    with sheet.open("w", newline="") as file:
        writer = csv.DictWriter(file, ["student", "exercise", "points", "comment"])
        writer.writeheader()
        writer.writerows(rows)


def private_reference():
    """Section "Keep the hidden checks private": Alice and Bob graded against a re-seeded copy."""
    print("## private reference (Alice and Bob)\n")
    private = ROOT / "private"
    if private.exists():
        raise FileExistsError(f"{private} exists: move it away first")
    script = ROOT / "course" / "reseed.py"  # the instructor's, never in student_notebooks/
    script.write_text(reseed_script())
    try:
        run("mkdir -p private && chmod 700 private && cp chapters/01_pca.ipynb private/")
        run(f"{PYTHON} reseed.py private/".replace("reseed.py", "course/reseed.py"))
        RUNS[f"{PYTHON} reseed.py private/"] = RUNS[f"{PYTHON} course/reseed.py private/"]
        # as private-reference executes (the live widgets left out of the run), not nbconvert, which
        # waited on an idle kernel at chapter 4's rings.live()
        run(f"{PYTHON} -m coursework execute private/01_pca.ipynb")
        run(f"{PYTHON} -m coursework check private/")
        run(f"{PYTHON} -m coursework grade course/submissions/ --reference private/ --sandbox "
            "--jobs 2 --report course/grades/grades.csv")
    finally:
        shutil.rmtree(private, ignore_errors=True)


def grade_the_course(folder, notebooks):
    """Section 4 and the gradebook: the five submissions graded, re-graded, hand points, exports."""
    print("## 4. five submissions of chapter 1, a roster of six, a deadline\n")
    shutil.rmtree(ROOT / "course" / "grades", ignore_errors=True)
    (ROOT / "course" / "grades").mkdir(parents=True)
    write(folder, {name: nb for name, nb in notebooks.items() if name != "bob-corrected"})
    # Carol ran her notebook and saved it: its graded cells hold her own outputs
    # (a kernel that stalls is run again from a fresh one; the live widgets are left out of the run)
    executed = run(f"{PYTHON} -m coursework execute course/submissions/carol/01_pca.ipynb", show=False)
    if executed.returncode != 0:
        raise RuntimeError(f"executing Carol's notebook failed: {executed.stdout} {executed.stderr}")
    run(f"{PYTHON} -m coursework grade course/submissions/ --reference chapters/ --sandbox "
        f"--roster course/students.csv --deadline {DEADLINE} --gradebook course/grades/gradebook.csv "
        "--feedback course/grades/feedback --report course/grades/grades.csv")
    run("grep -E '^(file|alice/|carol/)' course/grades/grades.csv")
    run("cat course/grades/feedback/carol/01_pca.md")
    for name in ("carol", "alice"):
        run(f"{PYTHON} -m coursework self-check course/submissions/{name}/01_pca.ipynb "
            "--expected student_notebooks/.expected")
    print("## re-grading Bob, written answers, hand points, exports\n")
    nbformat.write(notebooks["bob-corrected"], folder / "bob" / CHAPTER.name)
    run(f"{PYTHON} -m coursework grade course/submissions/bob/01_pca.ipynb --reference chapters/ --sandbox "
        "--gradebook course/grades/gradebook.csv --report course/grades/grades-bob.csv")
    run(f"{PYTHON} -m coursework written course/submissions/ --reference chapters/ --output course/grades/written")
    run("head -n 12 course/grades/written/01_pca/ch1-ex1.md")
    give_hand_points(ROOT / "course" / "grades" / "written" / "hand-points.csv")
    run("cat course/grades/written/hand-points.csv")
    run(f"{PYTHON} -m coursework hand-points course/grades/gradebook.csv course/grades/written/hand-points.csv")
    run("cat course/grades/gradebook.csv")
    run(f"{PYTHON} -m coursework export course/grades/gradebook.csv --to canvas --output course/grades/canvas.csv "
        "--roster course/canvas_export.csv --name 01_pca.ipynb=\"Coursework 1 (40101)\"")
    run("cat course/grades/canvas.csv")
    run(f"{PYTHON} -m coursework export course/grades/gradebook.csv --to moodle --output course/grades/moodle.csv "
        "--roster course/students.csv")
    run("cat course/grades/moodle.csv")
    print("## the environment pre-check\n")
    run(f"{PYTHON} -m coursework grade course/submissions/ --reference course/reference-extra/ --sandbox "
        "--report course/grades/precheck.csv")


def main(argv=None):
    """Print every captured output of the guide, and write or check them in it; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="put the outputs into instructor_guide.md")
    mode.add_argument("--check", action="store_true", help="exit 1 if a block of the guide differs")
    parser.add_argument("--replay", action="store_true",
                        help=f"run nothing: take the outputs the last run saved in {SAVED.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    if args.replay:
        RUNS.update((command, tuple(done)) for command, done in json.loads(SAVED.read_text()).items())
    else:
        run_everything()
        SAVED.write_text(json.dumps(RUNS, indent=1) + "\n")
    if args.write or args.check:
        text = GUIDE.read_text()
        updated, stale = fill_guide(text, RUNS)
        for command in dict.fromkeys(stale):
            print(f"{'updated' if args.write else 'STALE'}: the output of {command}")
        if args.write and updated != text:
            GUIDE.write_text(updated)
        return 1 if args.check and stale else 0
    return 0


def run_everything():
    """Every command of the guide, in its order."""
    print("## 1. make-student and check\n")
    run(f"{PYTHON} -m coursework make-student chapters/ student_notebooks/")
    run("ls student_notebooks/.expected/")
    run(f"{PYTHON} -m coursework check chapters/")
    print("## 3. the student package\n")
    shutil.rmtree(ROOT / "dist", ignore_errors=True)
    run(f"{PYTHON} -m pip wheel . --no-deps --no-build-isolation -w dist/")
    run(f"{PYTHON} -c \"from setuptools import build_meta; build_meta.build_sdist('dist')\" > /dev/null")
    run("ls dist/")
    folder = ROOT / "course" / "submissions"
    (ROOT / "course" / "grades").mkdir(parents=True, exist_ok=True)
    shutil.rmtree(folder, ignore_errors=True)
    write_course_files(ROOT / "course")
    notebooks = submissions()
    write(folder, {name: notebooks[name] for name in ("alice", "bob")})
    private_reference()
    grade_the_course(folder, notebooks)
    print("## what plain nbval says of Carol's saved notebook (not in the guide: it compares her own outputs)\n")
    run(f"{PYTHON} -m pytest -p no:cacheprovider --color=no -q --nbval-lax "
        "course/submissions/carol/01_pca.ipynb | tail -1")


def _commands(block):
    """The commands of a bash block: lines joined at a trailing backslash, comments dropped, spaces collapsed."""
    joined = re.sub(r"\\\n\s*", " ", "\n".join(block)).splitlines()
    return [" ".join(line.split()) for line in joined if line.strip() and not line.lstrip().startswith("#")]


def _fence(line, kind=None):
    """(indentation, backticks) of a fence line (```bash, ````text, or a closing fence), or None."""
    match = re.match(r"^(\s*)(`{3,})(\w*)\s*$", line)
    if match is None or (kind is not None and match[3] != kind):
        return None
    return match[1], match[2]


def _close(lines, start):
    """The index of the fence that closes the block opened at ``start`` (as many backticks)."""
    ticks = _fence(lines[start])[1]
    return next(i for i in range(start + 1, len(lines)) if (_fence(lines[i], "") or (None, None))[1] == ticks)


def fill_guide(text, runs):
    """The guide with the output blocks of the commands in ``runs`` filled in, and the commands whose block changed.

    After a bash block whose last command is in ``runs``, the first text block
    (before the next bash block) gets the command's standard output (its
    standard error if the output is empty), and the first later text block
    whose paragraph mentions "standard error" gets its standard error.
    """
    lines, stale, i = text.split("\n"), [], 0
    while i < len(lines):
        if _fence(lines[i], "bash") is None:
            i += 1
            continue
        end = _close(lines, i)
        commands = _commands(lines[i + 1:end])
        i = end + 1
        if not commands or commands[-1] not in runs:
            continue
        _, stdout, stderr = runs[commands[-1]]
        wanted, first = [stdout or stderr] + ([stderr] if stdout and stderr else []), True
        j = i
        while wanted and j < len(lines) and _fence(lines[j], "bash") is None:
            fence = _fence(lines[j], "text")
            if fence is None:
                j += 1
                continue
            indent = fence[0]
            close = _close(lines, j)
            paragraph = " ".join(lines[max(0, j - 3):j])
            if first or "standard error" in paragraph:
                first, new = False, [f"{indent}{line}" if line else ""
                                     for line in wanted.pop(0).rstrip("\n").split("\n")]
                if lines[j + 1:close] != new:
                    stale.append(commands[-1])
                    lines[j + 1:close] = new
                    close = j + 1 + len(new)
            j = close + 1
    return "\n".join(lines), stale


if __name__ == "__main__":
    sys.exit(main())
