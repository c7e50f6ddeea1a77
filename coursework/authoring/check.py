"""``python -m coursework check``: which exercises a grader can check on unseen inputs.

For every chapter, one line per exercise, in the book's order: for a code
exercise, graded or not, how many hidden checks it has, and its points with
the share of each check, and the points of its written part when it declares
one (given by hand: ``written part 3 points, by hand``); for a derivation, its
points, given by hand (:mod:`coursework.authoring.points`). Then the chapter's
total, the written parts counted by hand. An exercise
graded by its visible output alone is flagged: a student can copy that output
from the handed-out notebook, so only a hidden check (EXERCISES.md, the
function convention) really grades it. A hidden check whose inputs come from
no ``default_rng(SEED)`` (fixed inputs) is flagged too: a private reference
re-seeds hidden checks (instructor_guide.md), and a check it cannot re-seed
keeps the expected output that the public chapter shows. ``--strict`` fails
on both. A chapter that is not well formed
(directives, hidden checks, an unexecuted graded cell, a bad point value) is
an error.
"""

import re
from pathlib import Path

import nbformat

from ..grading.reference import extract_reference
from .exercises import exercise_numbers, has_exercises

__all__ = ["check_chapter", "check", "SEEDED"]

# what a private reference re-seeds (instructor_guide.md): a generator made from a literal seed
SEEDED = re.compile(r"default_rng\(\s*\d+\s*\)")


def _points(value):
    return f"{value:g} point{'' if value == 1 else 's'}"


def _check_points(reference, label):
    """``3 points (visible 1, hidden 2)``: an exercise's points and what each of its checks is worth."""
    points, keys = reference.points[label], reference.checks(label)
    total = sum(reference.shares[key] for key in keys)
    worth = [f"{kind} {points * reference.shares[(kind, _, number)] / total if total else 0:.3g}"
             for kind, _, number in keys]
    return f"{_points(points)} ({', '.join(worth)})"


def _in_book_order(reference, numbers):
    """The code exercises and the derivations together, ordered by their number in the book."""
    labels = [*reference.exercises]
    for key in reference.written:  # the derivations, and a written part whose exercise has no code cell
        if reference.exercise_of(key) not in labels:
            labels.append(reference.exercise_of(key))
    if all(label in numbers for label in labels):
        labels.sort(key=lambda label: int(numbers[label].split(".")[-1]))
    return labels


def check_chapter(nb, name):
    """(lines, weak, errors, points): each exercise and the total described, those without hidden check, problems, the total."""
    try:
        reference = extract_reference(nb, name)
    except ValueError as error:
        return [], [], [str(error)], 0
    lines, weak, errors = [], [], []  # weak: graded without a hidden check, or a hidden check on fixed inputs
    try:
        numbers = exercise_numbers(nb, name)
    except ValueError:  # not named like a chapter of the book: its labels only
        numbers = {}
    parts = {label: key for key, label in reference.written_parts.items()}
    for label in _in_book_order(reference, numbers):
        shown = f"Exercise {numbers[label]} ({label})" if label in numbers else label
        if label in reference.written or label not in reference.exercises:
            points = reference.written[label if label in reference.written else parts[label]]
            lines.append(f"  {shown}: written, graded by hand; {_points(points)}")
            continue
        graded = any(key[0] == label for key in reference.graded)
        hidden = reference.hidden_count(label)
        part = f"; written part {_points(reference.written[parts[label]])}, by hand" if label in parts else ""
        if not graded and not hidden:
            lines.append(f"  {shown}: not graded (its output is not stable){part}")
            continue
        if hidden:
            lines.append(f"  {shown}: graded, {hidden} hidden check{'s' if hidden > 1 else ''}; "
                         f"{_check_points(reference, label)}{part}")
        else:
            weak.append(label)
            lines.append(f"  {shown}: graded by its visible output only: NO hidden check; "
                         f"{_check_points(reference, label)}{part}")
        for checks in (c for key, c in reference.hidden.items() if key[0] == label):
            for check in checks:
                if not any(output.get("name") == "stdout" for output in check.expected.outputs):
                    errors.append(f"{name}: hidden check {check.number} of {shown} prints nothing")
                if not SEEDED.search(check.source):
                    weak.append(f"{label} hidden check {check.number}")
                    lines.append(f"    hidden check {check.number}: FIXED inputs (no default_rng(SEED) for a "
                                 "private reference to re-seed): its expected output is in the public chapter")
    checked, by_hand = sum(reference.points.values()), sum(reference.written.values())
    lines.append(f"  {_points(checked + by_hand)}: {checked:g} by the checks, {by_hand:g} by hand")
    return lines, weak, errors, checked + by_hand


def check(path, stream, strict=False):
    """Describe every chapter under ``path``; return the exit status (1 on errors, or on weak exercises if strict)."""
    from .student import notebooks_in

    status, graded, protected, chapters, points = 0, 0, 0, 0, 0
    for notebook in notebooks_in(path, "chapters"):
        try:
            nb = nbformat.read(notebook, as_version=4)
        except Exception as error:  # say which file, and go on with the others
            print(f"{notebook}\n  ERROR: not a readable notebook ({type(error).__name__})", file=stream)
            status = 1
            continue
        if not has_exercises(nb):  # a chapter's evidence section: no coursework in it
            continue
        lines, weak, errors, total = check_chapter(nb, Path(notebook).name)
        graded += sum(": graded" in line for line in lines)
        protected += sum(": graded, " in line for line in lines)
        chapters, points = chapters + 1, points + total
        print(notebook, file=stream)
        for line in lines:
            print(line, file=stream)
        for error in errors:
            print(f"  ERROR: {error}", file=stream)
        if errors or (strict and weak):
            status = 1
    print(f"{protected} of {graded} graded exercises have hidden checks", file=stream)
    print(f"{_points(points)} in {chapters} chapter{'' if chapters == 1 else 's'}", file=stream)
    return status
