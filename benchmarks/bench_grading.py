"""Speed of grading: one notebook, and a folder of 30 submissions of chapter 1.

Prints a table. The baseline, measured in the same run, is plain
``pytest --nbval-lax`` on one solved student notebook of chapter 1 (no
cleaning, no hidden checks, no sandbox, no limits). Then ``python -m coursework
grade`` on one notebook (with the grader's default isolation, and with
``--sandbox`` where bubblewrap works and the default is not already the
sandbox), and on a folder of 30 submissions (20 solved, 5 as handed out, 5
wrong) with ``--jobs 1`` and ``--jobs 2``. Single notebooks: best of
``--repeats`` runs; folders: one run each. The machine is shared, so times
are noisy: compare ratios within one run.

Run from the repository root::

    .venv/bin/python benchmarks/bench_grading.py [--submissions 30] [--repeats 3]
"""

import argparse
import copy
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from coursework import make_student_notebook
from coursework.authoring.exercises import CHECK_MARKER, METADATA_KEY
from coursework.isolation.sandbox import GraderError, choose_isolation

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "01_pca.ipynb"


def submissions(count):
    """``count`` submissions of chapter 1: 2/3 solved, 1/6 as handed out, 1/6 with a wrong answer."""
    chapter = nbformat.read(CHAPTER, as_version=4)
    student = make_student_notebook(chapter, name=CHAPTER.name)
    solutions = [c for c in chapter.cells if "solution" in c.metadata.get("tags", [])]
    solved = copy.deepcopy(student)
    for stub, solution in zip([c for c in solved.cells if c.cell_type == "code" and METADATA_KEY in c.metadata],
                              solutions):
        stub.source = f"{CHECK_MARKER}\n{solution.source}"
    wrong = copy.deepcopy(solved)
    first = next(c for c in wrong.cells if c.cell_type == "code" and METADATA_KEY in c.metadata)
    first.source = first.source.replace("fraction) + 1)", "fraction))")
    kinds = [solved] * (count - 2 * (count // 6)) + [student] * (count // 6) + [wrong] * (count // 6)
    return solved, kinds


def timed(command, cwd):
    start = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if completed.returncode not in (0, 1):
        raise RuntimeError(f"{command} failed:\n{completed.stdout[-2000:]}\n{completed.stderr[-2000:]}")
    return seconds, completed


def best(command, cwd, repeats):
    return min(timed(command, cwd)[0] for _ in range(repeats))


def grade_command(folder, *options):
    return [sys.executable, "-m", "coursework", "grade", str(folder), "--reference", str(ROOT / "chapters"),
            "--report", str(Path(folder).parent / "report.csv"), *options]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    solved, kinds = submissions(args.submissions)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as scratch:
        scratch = Path(scratch)
        (scratch / "one").mkdir()
        nbformat.write(solved, scratch / "one" / CHAPTER.name)
        baseline = best([sys.executable, "-m", "pytest", "--nbval-lax", "-q", "-p", "no:cacheprovider",
                         CHAPTER.name], scratch / "one", args.repeats)
        rows.append(("pytest --nbval-lax, 1 notebook (baseline)", 1, baseline))
        default = choose_isolation(False).mode
        rows.append((f"grade, 1 notebook ({default})", 1,
                     best(grade_command(scratch / "one"), scratch, args.repeats)))
        try:
            sandbox = choose_isolation(True).mode == "bwrap" and default != "bwrap"
        except GraderError:
            sandbox = False
        if sandbox:
            rows.append(("grade --sandbox, 1 notebook (bwrap)", 1,
                         best(grade_command(scratch / "one", "--sandbox"), scratch, args.repeats)))
        folder = scratch / "submissions"
        for number, nb in enumerate(kinds):
            (folder / f"student{number:02d}").mkdir(parents=True)
            nbformat.write(nb, folder / f"student{number:02d}" / CHAPTER.name)
        for jobs in (1, 2):
            options = ["--jobs", str(jobs)] + (["--sandbox"] if sandbox else [])
            seconds, completed = timed(grade_command(folder, *options), scratch)
            passed = completed.stdout.count("\nPASS") + completed.stdout.startswith("PASS")
            label = f"grade {'--sandbox ' if sandbox else ''}--jobs {jobs}, {len(kinds)} notebooks ({passed} PASS)"
            rows.append((label, len(kinds), seconds))
    print(f"{'run':58s} {'notebooks':>9s} {'total s':>8s} {'s/notebook':>10s} {'vs baseline':>11s}")
    for label, count, seconds in rows:
        print(f"{label:58s} {count:9d} {seconds:8.1f} {seconds / count:10.2f} {seconds / count / baseline:10.2f}x")


if __name__ == "__main__":
    main()
