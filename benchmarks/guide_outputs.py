"""The captured outputs of the instructor guide (``instructor_guide.md``), from real runs.

Runs, from the repository root, the commands whose output the guide shows,
and prints each command with its standard output and error, for pasting:

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
   the graded cells), graded with ``--sandbox`` into ``course/grades/``, the
   report's rows for Alice and Carol, and the self-check of Carol's and
   Alice's notebooks against the handouts' expected outputs.

It writes ``student_notebooks/``, ``course/`` and ``dist/`` (ignored by git)
and removes ``private/`` at the end. About ten minutes on a loaded two-core
machine::

    .venv/bin/python benchmarks/guide_outputs.py
"""

import copy
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


def reseed_script():
    """The text of ``reseed.py`` from the guide (the first python block after "reseed.py")."""
    text = GUIDE.read_text()
    block = re.search(r"```python\n(\s*# reseed\.py.*?)```", text, re.S)
    if block is None:
        raise ValueError("instructor_guide.md has no reseed.py block")
    lines = block[1].splitlines()
    indent = len(lines[0]) - len(lines[0].lstrip())
    return "\n".join(line[indent:] for line in lines) + "\n"


def run(command, show=True):
    """Run a shell command in the repository root; print it and what it printed.

    ``.venv/bin/`` in ``command`` (as the guide writes it) stands for the folder of this Python.
    """
    actual = command.replace(".venv/bin/", f"{Path(sys.executable).parent}/")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(actual, shell=True, cwd=ROOT, capture_output=True, text=True, env=environment)
    if show:
        print(f"$ {command}   (exit status {done.returncode})")
        print(done.stdout, end="")
        if done.stderr:
            print("--- standard error")
            print(done.stderr, end="")
        print()
    return done


def submissions():
    """The five submissions of chapter 1: name -> notebook."""
    chapter = nbformat.read(CHAPTER, as_version=4)
    student = make_student_notebook(chapter, name=CHAPTER.name)
    solutions = [cell for cell in chapter.cells if "solution" in cell.metadata.get("tags", [])]

    def graded(nb):
        return [cell for cell in nb.cells if cell.cell_type == "code" and METADATA_KEY in cell.metadata]

    solved = copy.deepcopy(student)
    for stub, solution in zip(graded(solved), [c for c in solutions if c.cell_type == "code"], strict=True):
        stub.source = f"{CHECK_MARKER}\n{solution.source}"
    alice = copy.deepcopy(solved)
    alice.cells.insert(alice.cells.index(graded(alice)[0]),
                       new_code_cell("scratch = [1, 2]\nprint('scratch', len(scratch))"))
    carol = copy.deepcopy(solved)
    graded(carol)[0].source = graded(carol)[0].source.replace("fraction) + 1)", "fraction))")
    carol.cells.insert(carol.cells.index(graded(carol)[0]), new_code_cell("print('trying things out')"))
    shown = [cell.outputs[0]["text"] for cell in graded(student)]
    dan = copy.deepcopy(student)
    for stub, text in zip(graded(dan), shown):
        stub.source = f"{CHECK_MARKER}\nprint({text!r}, end='')"
    eve = copy.deepcopy(student)
    for stub in graded(eve):
        first, _, rest = stub.source.partition("\n")
        stub.source = f"{first}\n# NBVAL_IGNORE_OUTPUT\n{rest}"
    return {"alice": alice, "bob": student, "carol": carol, "dan": dan, "eve": eve}


def write(folder, notebooks):
    for name, nb in notebooks.items():
        (folder / name).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / name / CHAPTER.name)


def main():
    """Print every captured output of the guide; see the module docstring."""
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
    notebooks = submissions()
    write(folder, {name: notebooks[name] for name in ("alice", "bob")})

    print("## private reference (Alice and Bob)\n")
    private = ROOT / "private"
    if private.exists():
        raise FileExistsError(f"{private} exists: move it away first")
    script = ROOT / "course" / "reseed.py"  # the instructor's, never in student_notebooks/
    script.write_text(reseed_script())
    try:
        run("mkdir -p private && chmod 700 private && cp chapters/01_pca.ipynb private/")
        run(f"{PYTHON} course/reseed.py private/")
        run(".venv/bin/jupyter nbconvert --to notebook --execute --inplace private/01_pca.ipynb")
        run(f"{PYTHON} -m coursework check private/")
        run(f"{PYTHON} -m coursework grade course/submissions/ --reference private/ --sandbox "
            "--jobs 2 --report course/grades/grades.csv")
    finally:
        shutil.rmtree(private, ignore_errors=True)

    print("## 4. five submissions of chapter 1\n")
    write(folder, notebooks)
    # Carol ran her notebook and saved it: its graded cells hold her own outputs
    run(".venv/bin/jupyter nbconvert --to notebook --execute --inplace "
        "course/submissions/carol/01_pca.ipynb", show=False)
    (ROOT / "course" / "grades").mkdir(parents=True, exist_ok=True)
    run(f"{PYTHON} -m coursework grade course/submissions/ --reference chapters/ --sandbox "
        "--report course/grades/grades.csv")
    rows = (ROOT / "course" / "grades" / "grades.csv").read_text().splitlines()
    print("$ rows of the report for Alice and Carol")
    print("\n".join([rows[0]] + [row for row in rows[1:] if row.startswith(("alice/", "carol/"))]) + "\n")
    run(f"{PYTHON} -m coursework self-check course/submissions/carol/01_pca.ipynb "
        "--expected student_notebooks/.expected")
    run(f"{PYTHON} -m coursework self-check course/submissions/alice/01_pca.ipynb "
        "--expected student_notebooks/.expected")
    print("## what plain nbval says of Carol's saved notebook (not in the guide: it compares her own outputs)\n")
    run(f"{PYTHON} -m pytest -p no:cacheprovider --color=no -q --nbval-lax "
        "course/submissions/carol/01_pca.ipynb | tail -1")


if __name__ == "__main__":
    sys.exit(main())
