"""Command line: ``python -m coursework {make-student,grade} ...``."""

import argparse
import sys

from .grading import grade
from .student import make_student


def main(argv=None):
    """The command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m coursework",
        description="Student notebooks from the book's chapters, and grading with nbval.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser(
        "make-student", help="write the student version of each notebook",
        description="Stub every solution cell (keeping the reference outputs of the graded "
                    "cells) and replace the solution text by a placeholder.",
    )
    make.add_argument("source", help="a notebook or a folder of notebooks, e.g. chapters/")
    make.add_argument("destination", help="the folder to write to, e.g. coursework/")
    check = commands.add_parser(
        "grade", help="grade a folder of submissions with pytest --nbval-lax",
        description="Put the reference outputs back into the graded cells, run "
                    "pytest --nbval-lax on each submission, print one line per notebook; "
                    "the exit status is 1 when any notebook fails.",
    )
    check.add_argument("submissions", help="a notebook or a folder of them (searched recursively)")
    check.add_argument("--reference", default="chapters",
                       help="folder of the chapters the exercises come from (default: chapters)")
    check.add_argument("--timeout", type=float, default=600, help="seconds allowed per cell (default: 600)")
    args = parser.parse_args(argv)
    try:
        if args.command == "make-student":
            for target, n_graded, n_solutions in make_student(args.source, args.destination):
                print(f"wrote {target}  ({n_graded} graded cells of {n_solutions} solution cells)")
            return 0
        if args.timeout <= 0:
            raise ValueError(f"--timeout must be positive, got {args.timeout}")
        results = grade(args.submissions, args.reference, timeout=args.timeout)
    except (OSError, ValueError, TypeError) as error:
        parser.exit(2, f"{parser.prog} {args.command}: error: {error}\n")
    return 1 if any(results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
