"""Speed of grading: one notebook, a folder of 30 submissions of chapter 1, and a class of chapter 4.

Prints two tables.

Chapter 1: the baseline, measured in the same run, is plain
``pytest --nbval-lax`` on one solved student notebook of chapter 1 (no
cleaning, no hidden checks, no sandbox, no limits). Then ``python -m coursework
grade`` on one notebook (with the grader's default isolation, and with
``--sandbox`` where bubblewrap works and the default is not already the
sandbox), and on a folder of 30 submissions (20 solved, 5 as handed out, 5
wrong) with ``--jobs 1`` and ``--jobs 2``. Single notebooks: best of
``--repeats`` runs; folders: one run each.

Chapter 4 (issue 39, item 3): a class of ``--class-size`` submissions (2/3
solved, 1/6 as handed out, 1/6 with a wrong answer) graded with ``--jobs 2``
(and ``--sandbox`` where it works) by the new route (the cells the graded cells
need, the whole notebook again only when that run fails) and by today's route
(``--all-cells``: every cell of every submission), in the same run, in the
order today, new, new, today (``--rounds 2``); seconds per notebook, the
ratio, and a class of 60 extrapolated from each.

The machine is shared, so times are noisy: compare ratios within one run, and
read the load average printed with each table.

Run from the repository root::

    .venv/bin/python benchmarks/bench_grading.py [--submissions 30] [--repeats 3] [--class-size 12]
    .venv/bin/python benchmarks/bench_grading.py --only-chapter-4 --class-size 12 --rounds 2
    .venv/bin/python benchmarks/bench_grading.py --only-chapter-4 --busy 2   # beside two CPU-bound processes
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
from coursework.authoring.exercises import CHECK_MARKER, METADATA_KEY, solution_cells
from coursework.isolation.sandbox import GraderError, choose_isolation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from busy import busy, load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "01_pca.ipynb"
CHAPTER_4 = ROOT / "chapters" / "04_kernel_pca.ipynb"


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


def chapter_4_class(count):
    """``count`` submissions of chapter 4: 2/3 solved, 1/6 as handed out, 1/6 with a wrong first answer."""
    chapter = nbformat.read(CHAPTER_4, as_version=4)
    student = make_student_notebook(chapter, name=CHAPTER_4.name)
    solutions = [chapter.cells[found.index] for found in solution_cells(chapter) if not found.hidden]
    solved = copy.deepcopy(student)
    stubs = [c for c in solved.cells if c.cell_type == "code" and METADATA_KEY in c.metadata]
    for stub, solution in zip(stubs, solutions, strict=True):
        stub.source = f"{CHECK_MARKER}\n{solution.source}"
    wrong = copy.deepcopy(solved)
    first = next(c for c in wrong.cells if c.cell_type == "code" and METADATA_KEY in c.metadata)
    first.source = first.source.replace("return ", "return 1.5 * ", 1)
    return [solved] * (count - 2 * (count // 6)) + [student] * (count // 6) + [wrong] * (count // 6)


def chapter_4_table(scratch, count, sandbox, rounds=1):
    """Seconds per notebook of a chapter-4 class, new route against today's, and a class of 60 extrapolated."""
    folder = scratch / "chapter_4"
    for number, nb in enumerate(chapter_4_class(count)):
        (folder / f"student{number:02d}").mkdir(parents=True)
        nbformat.write(nb, folder / f"student{number:02d}" / CHAPTER_4.name)
    options = ["--jobs", "2"] + (["--sandbox"] if sandbox else [])
    routes = {"today's route (--all-cells)": ["--all-cells"], "new route (needed cells)": []}
    order = list(routes) + list(routes)[::-1]  # today, new, new, today: a load that drifts favours neither
    runs = {label: [] for label in routes}
    for label in order[:2 * rounds]:
        before = load()
        seconds, completed = timed(grade_command(folder, *options, *routes[label]), scratch)
        passed = completed.stdout.count("\nPASS") + completed.stdout.startswith("PASS")
        runs[label].append((seconds, passed, before, load()))
    print(f"\nchapter 4, a class of {count} ({count - 2 * (count // 6)} solved), grade {' '.join(options)}, "
          f"{len(order[:2 * rounds]) // 2} run(s) of each route, in the order {' / '.join(order[:2 * rounds])}")
    print(f"{'route':30s} {'mean s':>8s} {'PASS':>5s} {'s/notebook':>10s} {'vs today':>9s} "
          f"{'class of 60':>12s}  load (start -> end of each run)")
    today = sum(run[0] for run in runs[order[0]]) / len(runs[order[0]]) / count
    for label, done in runs.items():
        seconds = sum(run[0] for run in done) / len(done)
        per = seconds / count  # wall-clock seconds per notebook with two jobs: 60 of them take 60 * per s
        loads = "; ".join(f"{before} -> {after}" for _, _, before, after in done)
        print(f"{label:30s} {seconds:8.1f} {done[0][1]:5d} {per:10.2f} {per / today:8.2f}x "
              f"{per:9.1f} min  {loads}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--class-size", type=int, default=12)
    parser.add_argument("--only-chapter-4", action="store_true", help="skip the chapter 1 table")
    parser.add_argument("--rounds", type=int, default=2, choices=(1, 2),
                        help="chapter 4: 1 (today's route, then the new) or 2 (today, new, new, today)")
    parser.add_argument("--busy", type=int, default=0,
                        help="run this many CPU-bound processes beside the chapter 4 table (default 0: quiet)")
    args = parser.parse_args()
    if args.busy < 0:
        parser.error("--busy must be a count >= 0")
    try:
        sandbox_works = choose_isolation(True).mode == "bwrap"
    except GraderError:
        sandbox_works = False
    if not args.only_chapter_4:
        chapter_1_table(args)
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as scratch, busy(args.busy):
        if args.busy:
            print(f"\n{args.busy} CPU-bound process(es) run beside the chapter 4 table")
        chapter_4_table(Path(scratch), args.class_size, sandbox_works, args.rounds)


def chapter_1_table(args):
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
