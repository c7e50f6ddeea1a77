"""``python -m coursework check``: which exercises a grader can check on unseen inputs.

For every chapter, one line per code exercise: graded or not, and how many
hidden checks it has. An exercise graded by its visible output alone is
flagged: a student can copy that output from the handed-out notebook, so only
a hidden check (EXERCISES.md, the function convention) really grades it. A
chapter that is not well formed (directives, hidden checks, an unexecuted
graded cell) is an error.
"""

from pathlib import Path

import nbformat

from ..grading.reference import extract_reference
from .exercises import exercise_numbers

__all__ = ["check_chapter", "check"]


def check_chapter(nb, name):
    """(lines, weak, errors): a description of each code exercise, those without hidden check, problems."""
    try:
        reference = extract_reference(nb, name)
    except ValueError as error:
        return [], [], [str(error)]
    lines, weak, errors = [], [], []
    try:
        numbers = exercise_numbers(nb, name)
    except ValueError:  # not named like a chapter of the book: its labels only
        numbers = {}
    for label in reference.exercises:
        shown = f"Exercise {numbers[label]} ({label})" if label in numbers else label
        graded = any(key[0] == label for key in reference.graded)
        hidden = reference.hidden_count(label)
        if not graded and not hidden:
            lines.append(f"  {shown}: not graded (its output is not stable)")
            continue
        if hidden:
            lines.append(f"  {shown}: graded, {hidden} hidden check{'s' if hidden > 1 else ''}")
        else:
            weak.append(label)
            lines.append(f"  {shown}: graded by its visible output only: NO hidden check")
        for checks in (c for key, c in reference.hidden.items() if key[0] == label):
            for check in checks:
                if not any(output.get("name") == "stdout" for output in check.expected.outputs):
                    errors.append(f"{name}: hidden check {check.number} of {shown} prints nothing")
    return lines, weak, errors


def check(path, stream, strict=False):
    """Describe every chapter under ``path``; return the exit status (1 on errors, or on weak exercises if strict)."""
    from .student import notebooks_in

    status, graded, protected = 0, 0, 0
    for notebook in notebooks_in(path, "chapters"):
        try:
            nb = nbformat.read(notebook, as_version=4)
        except Exception as error:  # say which file, and go on with the others
            print(f"{notebook}\n  ERROR: not a readable notebook ({type(error).__name__})", file=stream)
            status = 1
            continue
        lines, weak, errors = check_chapter(nb, Path(notebook).name)
        graded += sum(": graded" in line for line in lines)
        protected += sum(": graded, " in line for line in lines)
        print(notebook, file=stream)
        for line in lines:
            print(line, file=stream)
        for error in errors:
            print(f"  ERROR: {error}", file=stream)
        if errors or (strict and weak):
            status = 1
    print(f"{protected} of {graded} graded exercises have hidden checks", file=stream)
    return status
