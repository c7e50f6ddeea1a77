"""Points given by hand: added to the gradebook, with their comments sent to the student's feedback.

``hand-points GRADEBOOK HAND`` reads a CSV ``student,exercise,points[,comment]``
(as ``written`` makes it) and:

* sets each named cell, at most the exercise's points possible, and recomputes
  the total; a column the checks filled (a code exercise's) is refused unless
  ``--override-autograded`` is given, and an overridden value is kept by later
  re-grades (:func:`coursework.grading.gradebook.merge`), which say so;
* keeps each comment, and writes the points and comments into the section
  "Marked by hand" of the student's feedback file (when the row has one);
* remembers which answer was marked (a hash of its text, taken when the
  notebook was graded), so that a re-grade of a resubmission whose answer
  changed flags the hand points as given to an earlier answer.
"""

import json
from pathlib import Path

from ..authoring.points import WRITTEN_PART_SUFFIX, written_part_key
from .feedback import written_answers_line, written_part_line
from .gradebook import _format, _number, _read_csv, read_gradebook, row_record, total, write_gradebook

__all__ = ["add_hand_points", "hand_section", "HAND_HEADING", "write_hand_section", "total_line", "with_total",
           "with_hand_points"]

HAND_HEADING = "## Marked by hand"


def hand_section(row, columns):
    """The "Marked by hand" lines of a row's feedback (empty if nothing was given by hand)."""
    record = row_record(row)
    titles, comments = record.get("titles", {}), record.get("comments", {})
    hand = [label for label, (_, chapter) in columns.items()
            if chapter == row["chapter"] and label not in record.get("checked", ()) and row.get(label, "") != ""]
    hand += [label for label in record.get("overridden", {}) if label not in hand]
    if not hand:
        return []
    lines = [HAND_HEADING, ""]
    for label in hand:
        most = columns.get(label, (None, None))[0]
        of = f" of {_format(most)}" if most is not None else ""
        comment = comments.get(label, "").strip()
        lines.append(f"- {titles.get(label, label)}: {row[label]}{of} points." + (f" {comment}" if comment else ""))
    return lines + [""]


def _hand_labels(row, columns):
    """The columns of the row's chapter given by hand (derivations, written parts), and those marked."""
    checked = row_record(row).get("checked", ())
    labels = [label for label, (_, chapter) in columns.items() if chapter == row["chapter"] and label not in checked]
    return labels, [label for label in labels if row.get(label, "") != ""]


def total_line(row, columns):
    """``Total: 26.4 of 33 points (...)``: what the student has for the chapter, all parts and the penalty told."""
    labels, marked = _hand_labels(row, columns)
    code = _code_points(row, columns)[0]
    penalty = _number(row.get("penalty")) or 0
    parts = [f"code exercises {_format(code)}"]
    parts += [f"marked by hand {_format(sum(_number(row[label]) or 0 for label in marked))}"] if marked else []
    parts += [f"{_format(penalty)} taken off for lateness"] if penalty else []
    pending = len(labels) - len(marked)
    waiting = (f"; {pending} written answer{'s' if pending > 1 else ''} not marked yet (0 until marked)"
               if pending and row.get("status") in ("graded", "late") else "")
    return f"Total: {row.get('points') or 0} of {row.get('possible') or 0} points ({', '.join(parts)}){waiting}."


def with_total(text, row, columns):
    """A feedback file's text with its total line (after the title) put in or brought up to date."""
    lines = text.split("\n")
    at = next((i for i, line in enumerate(lines[:6]) if line.startswith("Total: ")), None)
    if at is None:
        lines[1:1] = ["", total_line(row, columns)]
    else:
        lines[at] = total_line(row, columns)
    return "\n".join(lines)


def _heads(line, title):
    """Whether a feedback line is the heading of the exercise titled ``title`` (not of 1.10 for 1.1)."""
    return line.startswith(f"## {title}: ") or line.startswith(f"## {title} (")


def _code_points(row, columns):
    """(points, possible) of the row's code exercises: the checks' columns, overridden values included."""
    checked = row_record(row).get("checked", ())
    mine = [(label, most) for label, (most, chapter) in columns.items() if chapter == row["chapter"] and label in checked]
    return sum(_number(row.get(label)) or 0 for label, _ in mine), sum(most or 0 for _, most in mine)


def _with_marks(text, row, columns):  # long: one pass over the feedback's lines, each kind of line brought up to date
    """The feedback's lines about written answers, and about points set by hand over the checks'
    (``--override-autograded``), brought up to date with the marks given so far."""
    labels, marked = _hand_labels(row, columns)
    record = row_record(row)
    titles, overridden = record.get("titles", {}), record.get("overridden", {})
    lines, section = text.split("\n"), None
    for i, line in enumerate(lines):
        if line.startswith("Points: ") and " for the code exercises" in line and overridden:
            earned, possible = _code_points(row, columns)
            rest = line.split(" for the code exercises", 1)[1]
            lines[i] = f"Points: {_format(earned)} of {_format(possible)} for the code exercises{rest}"
        elif line.startswith("## ") and any(_heads(line, titles.get(label, label)) for label in overridden):
            label = next(label for label in overridden if _heads(line, titles.get(label, label)))
            head = line.rsplit(": ", 1)[0]
            most = columns.get(label, (None, None))[0]
            of = f" of {_format(most)}" if most is not None else ""
            lines[i] = f"{head}: {overridden[label]}{of} points, set by hand (see Marked by hand)"
            section = label
        elif (line.startswith("Written answers (") and "could not be read" not in line) \
                or line.startswith("Marked by hand: see"):  # an unread notebook's line stays as it is
            lines[i] = written_answers_line([titles.get(label, label) for label in labels if label not in marked],
                                            bool(marked))
        elif line.startswith("## "):
            section = next((label for label, title in titles.items()
                            if line.startswith(f"## {title}: ") or line.startswith(f"## {title} (")), None)
        elif line.startswith("- Written part (your answer cells): ") and section:
            key = written_part_key(section)
            if key in columns and not section.endswith(WRITTEN_PART_SUFFIX):
                lines[i] = written_part_line(columns[key][0] or 0, row.get(key))
    return "\n".join(lines)


def with_hand_points(text, row, columns):
    """A feedback file's text (without its "Marked by hand" section) brought up to date with the points
    given by hand: its total, its written parts, and the exercises whose points were set by hand."""
    return _with_marks(with_total(text, row, columns), row, columns)


def write_hand_section(path, row, columns):
    """Bring a feedback file up to date with the points given by hand: its total, its written parts, and its
    "Marked by hand" section (it goes last)."""
    path = Path(path)
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    text = text.split("\n" + HAND_HEADING + "\n")[0].rstrip("\n") + "\n"
    text = with_hand_points(text, row, columns)
    section = hand_section(row, columns)
    path.write_text(text + ("\n" + "\n".join(section).rstrip("\n") + "\n" if section else ""), encoding="utf-8")


def _problem(entry, label, targets, columns, value, override):
    most = columns.get(label, (None, None))[0]
    if label not in columns:
        return f"no exercise {label!r} in the gradebook"
    if written_part_key(label) in columns and not override:  # the checks' column: by hand only with the flag
        return (f"{label!r} holds the points its checks earned; the points of its written part go in "
                f"{written_part_key(label)!r} (give --override-autograded to replace the checks' points)")
    if not targets:
        return f"no student {entry.get('student')!r} with exercise {label!r} in the gradebook"
    if value is None or value < 0 or (most is not None and value > most):
        return f"points must be a number from 0 to {_format(most)}, got {entry.get('points')!r}"
    if not override and any(label in row_record(row).get("checked", ()) for row in targets):
        return (f"{label!r} holds the points its checks earned ({targets[0].get(label) or 0}): give "
                "--override-autograded to replace them by hand")
    return None


def add_hand_points(gradebook, hand, override=False):
    """Add the points an instructor gave by hand (a CSV ``student,exercise,points[,comment]``) to a gradebook.

    Parameters
    ----------
    gradebook, hand : str or Path
    override : bool, default=False
        Allow replacing what a code exercise's checks earned (``--override-autograded``).

    Returns
    -------
    int
        The number of cells set.

    Raises
    ------
    ValueError
        If a row names an unknown student or exercise, the checks' column of an
        exercise (without ``override``), or points that are not a number between
        0 and the exercise's points possible; nothing is written then.
    """
    rows, columns = read_gradebook(gradebook)
    if not rows:
        raise ValueError(f"gradebook {gradebook} does not exist or is empty: grade the notebooks first")
    problems, count, changed = [], 0, []
    for number, entry in enumerate(_read_csv(hand, "hand points"), start=2):
        student, label = (entry.get("student") or "").strip(), (entry.get("exercise") or "").strip()
        if not (entry.get("points") or "").strip():
            continue  # not graded yet
        chapter = columns.get(label, (None, None))[1]
        targets = [row for row in rows if row["student"] == student and row["chapter"] == chapter]
        value = _number(entry.get("points"))
        problem = _problem(entry, label, targets, columns, value, override)
        if problem:
            problems.append(f"line {number}: {problem}")
            continue
        for row in targets:
            record = row_record(row)
            if label in record.get("checked", ()):
                record.setdefault("overridden", {})[label] = _format(value)
                note = f"{label}: points set by hand (--override-autograded), not by its checks"
                if note not in (row.get("notes") or ""):  # as a re-grade says it, at once
                    row["notes"] = "; ".join(filter(None, [row.get("notes"), note]))
            record.setdefault("comments", {})[label] = (entry.get("comment") or "").strip()[:1000]
            record.setdefault("marked", {})[label] = record.get("answers", {}).get(label, "")
            row[label], row["record"] = _format(value), json.dumps(record, sort_keys=True)
            total(row, columns)
            changed.append(row)
        count += 1
    if problems:
        raise ValueError(f"hand points {hand}: " + "; ".join(problems))
    write_gradebook(gradebook, rows, columns)
    for row in changed:
        if row_record(row).get("feedback"):
            write_hand_section(row_record(row)["feedback"], row, columns)
    return count
