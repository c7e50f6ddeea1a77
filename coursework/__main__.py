"""Command line: ``python -m coursework {make-student,check,grade,hand-points,export,written} ...``."""

import argparse
import sys
import time

__all__ = ["main"]

_GRADE_HELP = (
    "Grade every notebook under SUBMISSIONS against the chapters in --reference: graded cells "
    "restored from the reference, nbval markers and tags a student added removed, hidden checks "
    "appended, each notebook run by pytest --nbval-lax in a fresh folder under a time and output "
    "limit. Prints one PASS/FAIL line per notebook and writes a CSV report. Exit status: 0 all "
    "passed, 1 some submission failed, 2 the grader itself could not run."
)


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m coursework",
        description="Student notebooks from the book's chapters, and grading with nbval.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser(
        "make-student", help="write the student version of each notebook",
        description="Stub every solution cell (keeping the reference outputs of the graded "
                    "cells), remove the hidden checks, and replace the solution text by a placeholder.",
    )
    make.add_argument("source", help="a notebook or a folder of notebooks, e.g. chapters/")
    make.add_argument("destination", help="the folder to write to, e.g. student_notebooks/")
    make.add_argument("--book", metavar="DIR",
                      help="the book's folder (it holds references.bib and chapters/), for the citations and the "
                           "references to other chapters of a chapter copied alone (default: the chapters' folder "
                           "or the one above it, else the repository this package comes from)")
    check = commands.add_parser(
        "check", help="list each chapter's exercises, their hidden checks and their points",
        description="One line per exercise: a code exercise graded, with how many hidden checks, and its "
                    "points (what each check is worth); a derivation's points, given by hand. Then each "
                    "chapter's total. "
                    "Exit status 1 if a chapter is not well formed (or, with --strict, if a "
                    "graded exercise has no hidden check, or a hidden check has fixed inputs).",
    )
    check.add_argument("chapters", help="a notebook or a folder of them, e.g. chapters/")
    check.add_argument("--strict", action="store_true",
                       help="fail when a graded exercise has no hidden check, or a hidden check has fixed inputs "
                            "(no default_rng(SEED) that a private reference re-seeds)")
    private = commands.add_parser(
        "private-reference", help="make the private reference of a graded course (re-seeded hidden checks)",
        description="Copy the chapters into DESTINATION (readable by you alone), add the course's secret offset "
                    "(drawn once, kept in DESTINATION/.secret-offset) to every default_rng(SEED) of the hidden "
                    "checks, execute the copies, and run check --strict on them. Grade with --reference "
                    "DESTINATION. Exit status 1 if check --strict fails, if a re-seeded hidden check prints the "
                    "same as with the public seed, or if a chapter stalled twice.")
    private.add_argument("source", help="the chapters, e.g. chapters/")
    private.add_argument("destination", help="the private folder, e.g. private/ (in .gitignore)")
    private.add_argument("--no-execute", action="store_true", help="re-seed only (execute the copies yourself)")
    private.add_argument("--timeout", type=float, default=900, help="seconds allowed per cell (default: 900)")
    private.add_argument("--stall", type=float, default=120,
                         help="seconds a kernel may use no CPU while a cell waits for its reply, before the chapter "
                              "is run again from a fresh kernel (default: 120)")
    _add_execute(commands)
    _add_self_check(commands)
    grade = commands.add_parser("grade", help="grade a folder of submissions", description=_GRADE_HELP)
    grade.add_argument("submissions", help="a notebook or a folder of them (searched recursively)")
    grade.add_argument("--reference", default="chapters",
                       help="folder of the chapters the exercises come from (default: chapters)")
    grade.add_argument("--exercise-timeout", type=float, default=60,
                       help="seconds each exercise may take, its graded cell and hidden checks together (and "
                            "each other cell): past them it is interrupted, its unfinished checks earn nothing, "
                            "and grading goes on with the next exercise (default: 60)")
    grade.add_argument("--all-cells", action="store_true",
                       help="run every cell of every submission (by default a run leaves out the book's figures "
                            "and tables that no graded cell needs, and runs the whole notebook when it fails)")
    grade.add_argument("--timeout", type=float, default=900,
                       help="wall-clock seconds allowed per notebook, the grader's backstop (default: 900)")
    grade.add_argument("--max-output-mb", type=float, default=20,
                       help="output a notebook may send, in MB (default: 20)")
    grade.add_argument("--memory-mb", type=float, default=8192,
                       help="memory of a whole submission (its kernel and every process it starts), in MB; "
                            "per process where no cgroup can be made (default: 8192)")
    grade.add_argument("--max-processes", type=int, default=256,
                       help="processes and threads a submission may have at once (default: 256)")
    grade.add_argument("--scratch-mb", type=float, default=256,
                       help="scratch space of a submission (working folder, /tmp), and its largest file, "
                            "in MB (default: 256)")
    grade.add_argument("--jobs", type=int, default=1,
                       help="submissions graded at the same time (default: 1)")
    grade.add_argument("--sandbox", action="store_true",
                       help="run each kernel in a bubblewrap sandbox: no network, read-only system, "
                            "no view of the reference; exit status 2, before anything runs, if bubblewrap "
                            "cannot make one (run as root, the sandbox is used when it works, even without)")
    grade.add_argument("--report", default=None,
                       help="the CSV report to write (default: grading-report-<date-time>.csv)")
    _grade_records_options(grade)
    _course_commands(commands)
    return parser


def _add_execute(commands):
    execute = commands.add_parser(
        "execute", help="execute notebooks in place as private-reference does (live widgets left out of the run)",
        description="Execute each notebook in place, as private-reference executes its copies: the top-level "
                    "x.live() statements of the book's live widgets are left out of the run (the file keeps "
                    "them), and a notebook whose kernel stalls is run once more from a fresh kernel. Exit "
                    "status 1 if one stalled twice (it is left as it was).")
    execute.add_argument("notebooks", nargs="+", help="the notebooks, e.g. private/01_pca.ipynb")
    execute.add_argument("--timeout", type=float, default=900, help="seconds allowed per cell (default: 900)")
    execute.add_argument("--stall", type=float, default=120,
                         help="seconds a kernel may use no CPU while a cell waits for its reply (default: 120)")


def _add_self_check(commands):
    self_check = commands.add_parser(
        "self-check", help="check your notebook against the handout's expected outputs (students)",
        description="Run a student notebook as the grader does and compare each graded cell with the "
                    "read-only copy of the expected outputs that make-student wrote (.expected/), not with "
                    "the outputs saved in the notebook. Visible checks only; no sandbox (works without "
                    "bubblewrap, on macOS and Windows too). Exit status: 0 all passed, 1 something "
                    "failed, 2 the check could not run.",
    )
    self_check.add_argument("notebook", help="your notebook, e.g. student_notebooks/01_pca.ipynb")
    self_check.add_argument("--expected", default=None,
                            help="the .expected folder of the student notebooks (default: .expected/ beside "
                                 "the notebook, else student_notebooks/.expected/)")
    self_check.add_argument("--timeout", type=float, default=300,
                            help="seconds allowed per cell (default: 300)")


def _grade_records_options(grade):
    grade.add_argument("--gradebook", default=None,
                       help="the gradebook CSV to create or update: a row per student and chapter, points per "
                            "exercise, total, status (graded, late, missing, error); re-grading replaces the "
                            "rows of the notebooks graded and keeps the others")
    grade.add_argument("--feedback", default=None, metavar="FOLDER",
                       help="write one Markdown feedback file per student and chapter, FOLDER/<student>/<chapter>.md")
    grade.add_argument("--roster", default=None,
                       help="a CSV of the students (id,name,email[,sis_id,login,section,canvas_id], or Canvas's "
                            "gradebook export): names them, and lists the missing submissions")
    grade.add_argument("--deadline", default=None,
                       help="an ISO 8601 date or time (2026-03-01, 2026-03-01T12:00+01:00): work submitted "
                            "after it (and --grace) is 'late' (submission time: a submitted.txt or timestamp.txt "
                            "beside the notebook, else its modification time, marked '(file time)'); a re-grade "
                            "without --deadline applies the policy each row was graded under")
    grade.add_argument("--late-penalty", default="none",
                       help="what lateness costs: 'none' (marked only, the default), 'zero' (a late notebook "
                            "earns 0), or a percentage of the chapter's points per day late, e.g. 10%%/day")
    grade.add_argument("--grace", default="0",
                       help="a grace period after the deadline, e.g. 15min, 2h (default: none)")
    grade.add_argument("--export", action="append", default=[], metavar="LMS=FILE",
                       help="after updating --gradebook, write it for canvas or moodle, e.g. "
                            "canvas=grades/canvas.csv (repeatable; uses --roster)")
    grade.add_argument("--student", default=None,
                       help="grading a single notebook: the student it belongs to (default: its folder's name)")


def _course_commands(commands):
    hand = commands.add_parser("hand-points", help="add points given by hand to a gradebook",
                               description="Add the points of HAND (a CSV student,exercise,points[,comment], as "
                                           "'written' makes it) to GRADEBOOK, and recompute the totals.")
    hand.add_argument("gradebook")
    hand.add_argument("hand")
    hand.add_argument("--override-autograded", action="store_true",
                      help="allow replacing the points a code exercise's checks earned (kept by later re-grades)")
    export = commands.add_parser("export", help="the gradebook in the CSV layout Canvas or Moodle imports",
                                 description="One row per student, one column per chapter (its points).")
    export.add_argument("gradebook")
    export.add_argument("--to", required=True, choices=["canvas", "moodle"], dest="lms")
    export.add_argument("--output", required=True, help="the CSV file to write")
    export.add_argument("--roster", default=None, help="the roster: Canvas ids, Moodle id numbers and emails")
    export.add_argument("--name", action="append", default=[], metavar="CHAPTER=COLUMN",
                        help="the column of a chapter, e.g. 01_pca.ipynb='Coursework 1 (12345)' (repeatable)")
    written = commands.add_parser("written", help="collect the written answers (derivations, and the written "
                                                   "parts of code exercises) for hand grading",
                                  description="One Markdown file per derivation (LABEL.md) and per written part "
                                              "of a code exercise (LABEL-written.md) with every student's "
                                              "answer, and hand-points.csv to fill in.")
    written.add_argument("submissions")
    written.add_argument("--reference", default="chapters")
    written.add_argument("--output", required=True, metavar="FOLDER")


def _grade(args):
    from .isolation.limits import Limits
    from .grading.session import grade
    from .isolation.processes import become_subreaper, make_private

    for name in ("timeout", "exercise_timeout", "max_output_mb", "memory_mb", "jobs", "max_processes", "scratch_mb"):
        if not getattr(args, name) > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    # orphans of a submission come back to us, and no same-user process reads our memory
    become_subreaper()
    make_private()
    limits = Limits(timeout=args.timeout, exercise=args.exercise_timeout, max_output=int(args.max_output_mb * 2**20),
                    memory=int(args.memory_mb * 2**20), file_bytes=int(args.scratch_mb * 2**20),
                    processes=args.max_processes)
    report = args.report or time.strftime("grading-report-%Y%m%d-%H%M%S.csv")
    exports = _exports(args)
    outcomes = grade(args.submissions, args.reference, limits=limits, sandbox=args.sandbox,
                     jobs=args.jobs, report=report, student=args.student, records=_records(args),
                     prune=not args.all_cells)
    for lms, output in exports:
        _export(args.gradebook, output, lms, args.roster, [])
    return 1 if any(not outcome.verdict.passed for outcome in outcomes) else 0


def _exports(args):
    exports = [item.split("=", 1) for item in args.export]
    if any(len(item) != 2 or item[0] not in ("canvas", "moodle") for item in exports):
        raise ValueError(f"--export must be canvas=FILE or moodle=FILE, got {args.export}")
    if exports and not args.gradebook:
        raise ValueError("--export needs --gradebook: it exports the gradebook")
    return exports


def _export(gradebook, output, lms, roster, names):
    from .grading.gradebook import read_roster
    from .grading.lms import export

    names = dict(item.split("=", 1) for item in names if "=" in item)
    count = export(gradebook, output, lms, read_roster(roster) if roster else None, names, notes=sys.stderr)
    print(f"wrote {output} ({count} students, {lms} import layout)")


def _records(args):
    from .grading.gradebook import parse_deadline, read_roster
    from .grading.lateness import parse_grace, parse_penalty
    from .grading.records import Records

    per_day, grace = parse_penalty(args.late_penalty), parse_grace(args.grace)
    if not (args.gradebook or args.feedback or args.roster or args.deadline):
        return None
    return Records(gradebook=args.gradebook, feedback=args.feedback,
                   roster=read_roster(args.roster) if args.roster else None,
                   deadline=parse_deadline(args.deadline) if args.deadline else None, per_day=per_day, grace=grace)


def _course(args):
    """The commands that work on a gradebook or on written answers (no notebook is run)."""
    if args.command == "hand-points":
        from .grading.hand import add_hand_points

        count = add_hand_points(args.gradebook, args.hand, override=args.override_autograded)
        print(f"{args.gradebook}: {count} grades given by hand added (totals recomputed)")
        return 0
    if args.command == "export":
        if any("=" not in item for item in args.name):
            raise ValueError(f"--name must be CHAPTER=COLUMN, got {args.name}")
        _export(args.gradebook, args.output, args.lms, args.roster, args.name)
        return 0
    from .grading.written import export_written

    for path in export_written(args.submissions, args.reference, args.output, notes=sys.stderr):
        print(f"wrote {path}")
    return 0


def main(argv=None):
    """The command line; returns the exit status (2: the grader itself could not run)."""
    # what coursework.isolation.nbval_runner.skip_slow_optional_imports does, without importing
    # that module (it needs `resource`, which Windows lacks, and self-check runs there too)
    sys.modules.setdefault("rfc3987_syntax", None)
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "make-student":
            from .authoring.student import make_student

            for target, n_graded, n_solutions in make_student(args.source, args.destination, book=args.book):
                print(f"wrote {target}  ({n_graded} graded cells of {n_solutions} solution cells)")
            return 0
        if args.command == "self-check":
            from .authoring.self_check import self_check

            return self_check(args.notebook, args.expected, timeout=args.timeout)
        if args.command == "private-reference":
            from .authoring.private import make_private_reference

            return make_private_reference(args.source, args.destination, sys.stdout, execute=not args.no_execute,
                                          timeout=args.timeout, stall=args.stall)
        if args.command == "execute":
            from .authoring.private import execute_in_place

            return execute_in_place(args.notebooks, sys.stdout, timeout=args.timeout, stall=args.stall)
        if args.command == "check":
            from .authoring.check import check

            return check(args.chapters, sys.stdout, strict=args.strict)
        if args.command in ("hand-points", "export", "written"):
            return _course(args)
        return _grade(args)
    except Exception as error:  # the grader itself: exit status 2, one line, no traceback
        from .isolation.sandbox import GraderError

        known = isinstance(error, (OSError, ValueError, TypeError, GraderError))
        message = str(error) if known else f"{type(error).__name__}: {error}"
        parser.exit(2, f"{parser.prog} {args.command}: error: {message}\n")


if __name__ == "__main__":
    sys.exit(main())
