"""What a grading run keeps for the course: the gradebook rows and the feedback files.

:class:`Records` is handed to :func:`coursework.grading.session.grade`; after
the run, :meth:`Records.keep` turns the outcomes into gradebook rows (one per
student and chapter, points per exercise, status), adds a ``missing`` row
for every known student without a notebook of a chapter of the run, merges
them into the gradebook file (:func:`coursework.grading.gradebook.merge`),
and writes one feedback file per graded notebook
(:func:`coursework.grading.feedback.feedback_markdown`).
"""

import re
from dataclasses import dataclass
from pathlib import Path

from .feedback import feedback_markdown
from .gradebook import identify, merge, read_gradebook, submitted_at, write_gradebook
from .scores import notes, score

__all__ = ["Records", "safe_file_name"]


def safe_file_name(text):
    """``text`` as one file name: letters, digits, ``.@-_`` kept, anything else ``_``.

    >>> safe_file_name("Ann O'Neil/../x")
    'Ann_O_Neil_.._x'
    """
    name = re.sub(r"[^\w.@-]", "_", str(text)).strip(".") or "_"
    return name[:120]


@dataclass
class Records:
    """Where a run's gradebook and feedback go, and what they need.

    Attributes
    ----------
    gradebook : Path or None
        The gradebook CSV, created or updated.
    feedback : Path or None
        The folder of feedback files: ``<feedback>/<student>/<chapter>.md``.
    roster : list of dict or None
        :func:`coursework.grading.gradebook.read_roster`.
    deadline : datetime or None
        Work submitted after it is ``late``.
    """

    gradebook: Path = None
    feedback: Path = None
    roster: list = None
    deadline: object = None

    def _who(self, outcome):
        entry = identify(outcome.student, self.roster) if self.roster else None
        if entry:
            return entry["id"], entry["name"], entry["email"], ""
        return outcome.student, "", "", "not in the roster" if self.roster else ""

    def _row(self, outcome, reference):
        student, name, email, remark = self._who(outcome)
        try:
            submitted = submitted_at(outcome.path)
        except (OSError, ValueError) as error:
            submitted, remark = None, "; ".join(filter(None, [remark, str(error)[:200]]))
        status = "error" if not outcome.ran else (
            "late" if self.deadline and submitted and submitted > self.deadline else "graded")
        row = {"student": student, "name": name, "email": email, "chapter": outcome.chapter or "(unknown)",
               "file": outcome.name, "status": status,
               "submitted": submitted.isoformat(timespec="minutes") if submitted else ""}
        result = score(outcome.verdict, reference) if reference is not None and outcome.ran else None
        if reference is not None:
            for label, (earned, _) in (result.exercises.items() if result else
                                       ((label, (0, 0)) for label in reference.points)):
                row[label] = f"{earned:g}"
        extra = notes(outcome.verdict) if outcome.ran else outcome.verdict.reasons
        row["notes"] = "; ".join(filter(None, [remark, *extra]))[:1000]
        return row, result, submitted

    def keep(self, outcomes, references, stream):
        """Write the gradebook and the feedback of a run's ``outcomes``; say where on ``stream``."""
        old_rows, columns = read_gradebook(self.gradebook) if self.gradebook else ([], {})
        used = sorted({outcome.chapter for outcome in outcomes if outcome.chapter in references})
        for chapter in used:  # the chapter's exercises, code and written, in the book's order
            reference = references[chapter]
            order = list(reference.numbers)

            def place(item, reference=reference, order=order):  # a written part right after its code exercise
                label = reference.exercise_of(item[0])
                return order.index(label) if label in order else len(order), item[0] in reference.written_parts

            exercises = sorted([*reference.points.items(), *reference.written.items()], key=place)
            for label, points in exercises:
                columns[label] = (points, chapter)
        rows, latest = [], {}
        for outcome in outcomes:
            reference = references.get(outcome.chapter)
            row, result, submitted = self._row(outcome, reference)
            key = (row["student"], row["chapter"])
            if key in latest and latest[key][1] and submitted and submitted < latest[key][1]:
                latest[key][0]["notes"] += f"; also handed in {outcome.name} (earlier: not counted)"
                continue
            latest[key] = (row, submitted)
            self._write_feedback(outcome, row, reference, result)
        rows = [row for row, _ in latest.values()]
        for row in rows:
            row["possible"] = _possible(columns, row["chapter"])
        missing = self._missing(rows, old_rows, used, columns)
        if self.gradebook:
            write_gradebook(self.gradebook, merge(old_rows, rows + missing, columns), columns)
            print(f"gradebook: {self.gradebook}", file=stream)
        earlier = {(row["student"], row["chapter"]) for row in old_rows if row["status"] != "missing"}
        for row in missing:  # a student graded in an earlier run keeps that grade, and is not missing
            if (row["student"], row["chapter"]) not in earlier:
                print(f"missing: {row['student']} has no notebook of {row['chapter']}", file=stream)
        if self.feedback:
            print(f"feedback: {self.feedback}/<student>/<chapter>.md", file=stream)

    def _missing(self, rows, old_rows, chapters, columns):
        graded = {(row["student"], row["chapter"]) for row in rows}
        known = {entry["id"]: entry for entry in self.roster or []}
        for row in old_rows:
            known.setdefault(row["student"], {"id": row["student"], "name": row["name"], "email": row["email"]})
        missing = []
        for chapter in chapters:
            for student, entry in sorted(known.items()):
                if (student, chapter) not in graded:
                    row = {"student": student, "name": entry.get("name", ""), "email": entry.get("email", ""),
                           "chapter": chapter, "status": "missing", "possible": _possible(columns, chapter)}
                    row.update({label: "0" for label, (_, of) in columns.items() if of == chapter})
                    missing.append(row)
        return missing

    def _write_feedback(self, outcome, row, reference, result):
        if not self.feedback or reference is None:
            return
        student = row["name"] or row["student"]
        text = feedback_markdown(student, outcome.chapter, outcome.verdict, reference,
                                 result or score(outcome.verdict, reference), outcome.places,
                                 row["status"], row["submitted"])
        target = Path(self.feedback) / safe_file_name(row["student"]) / f"{Path(outcome.chapter).stem}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _possible(columns, chapter):
    return f"{sum(points or 0 for points, of in columns.values() if of == chapter):g}"
