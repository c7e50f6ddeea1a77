"""What a grading run keeps for the course: the gradebook rows and the feedback files.

:class:`Records` is handed to :func:`coursework.grading.session.grade`; after
the run, :meth:`Records.keep` turns the outcomes into gradebook rows (one per
student and chapter, points per exercise, status, lateness), adds a
``missing`` row for every known student without a notebook of a chapter of
the run, merges them into the gradebook file
(:func:`coursework.grading.gradebook.merge`), and writes one feedback file per
graded notebook (:func:`coursework.grading.feedback.feedback_markdown`, and the
points given by hand, :mod:`coursework.grading.hand`).

Ordinary accidents are recorded as what they are:

* a notebook that cannot be read is an ``error`` of the chapter its file is
  named after (or of the run's only chapter), with a feedback file saying why,
  never a ``missing`` row beside an ``(unknown)`` one;
* two notebooks of one chapter in a student's folder: the one submitted last
  counts and the other is named in ``notes``; if neither is later, the row is
  an ``error`` (the grader does not choose);
* a re-grade without ``--deadline`` or ``--feedback`` applies the late policy
  the row was graded under and rewrites the feedback file it had;
* hand points given to an answer that has changed since are flagged.
"""

import hashlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from .feedback import feedback_markdown
from .gradebook import identify, merge, read_gradebook, row_record, submission_time, write_gradebook
from .hand import hand_section, with_hand_points
from .lateness import LatePolicy
from .results import Verdict
from .scores import notes, score
from .submissions import SubmissionProblem, read_submission
from .written import NO_ANSWER, written_answers

__all__ = ["Records", "safe_file_name"]


def safe_file_name(text):
    """``text`` as one file name: letters, digits, ``.@-_`` kept, anything else ``_``.

    >>> safe_file_name("Ann O'Neil/../x")
    'Ann_O_Neil_.._x'
    """
    name = re.sub(r"[^\w.@-]", "_", str(text)).strip(".") or "_"
    return name[:120]


def _answer_hashes(path, reference):
    """A short hash of each written answer of a submission (to tell, later, whether it changed)."""
    if not reference.written:
        return {}
    try:
        nb = read_submission(path)
    except (SubmissionProblem, OSError):
        return {}
    labels = {reference.exercise_of(key): reference.numbers.get(reference.exercise_of(key)) for key in reference.written}
    answers = written_answers(nb, labels)
    return {key: hashlib.sha256(answers.get(reference.exercise_of(key), NO_ANSWER).encode()).hexdigest()[:12]
            for key in reference.written}


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
        Work submitted after it (and the grace period) is ``late``.
    per_day : float, default=0
        The late penalty: the fraction of the points possible lost per day late (inf: all).
    grace : timedelta or None
        The grace period after the deadline.
    """

    gradebook: Path = None
    feedback: Path = None
    roster: list = None
    deadline: object = None
    per_day: float = 0.0
    grace: object = None

    def _policy(self, old):
        if self.deadline is not None:
            return LatePolicy(self.deadline, self.per_day, *([self.grace] if self.grace else []))
        return LatePolicy.from_record(row_record(old).get("late"))  # a re-grade: the row's own policy

    def _who(self, outcome):
        entry = identify(outcome.student, self.roster) if self.roster else None
        if entry:
            return entry["id"], entry["name"], entry["email"], ""
        return outcome.student, "", "", "not in the roster" if self.roster else ""

    def _row(self, outcome, reference, old_rows):  # long: one gradebook row, every column of it
        student, name, email, remark = self._who(outcome)
        old = old_rows.get((student, outcome.chapter), {})
        submitted, from_file = None, False
        try:
            submitted, from_file = submission_time(outcome.path)
        except (OSError, ValueError) as error:
            remark = "; ".join(filter(None, [remark, str(error)[:200]]))
        policy = self._policy(old)
        days = policy.days_late(submitted) if policy and outcome.ran else 0
        if policy and from_file:
            remark = "; ".join(filter(None, [remark, "submission time: the file's modification time "
                                                     "(no submitted.txt), maybe when it was copied"]))
        record = {"late": policy.to_record()} if policy else {}
        feedback = (Path(self.feedback).resolve() / safe_file_name(student) / f"{Path(outcome.chapter or '_').stem}.md"
                    if self.feedback else row_record(old).get("feedback"))
        if feedback and reference is not None:
            record["feedback"] = str(feedback)
        row = {"student": student, "name": name, "email": email, "chapter": outcome.chapter or "(unknown)",
               "file": outcome.name, "status": "error" if not outcome.ran else "late" if days else "graded",
               "submitted": (submitted.isoformat(timespec="minutes") + (" (file time)" if from_file else ""))
               if submitted else "", "late_days": str(days) if days else ""}
        result = score(outcome.verdict, reference) if reference is not None and outcome.ran else None
        if reference is not None:
            for label, (earned, _) in (result.exercises.items() if result else
                                       ((label, (0, 0)) for label in reference.points)):
                row[label] = f"{earned:g}"
            record.update(checked=sorted(reference.points), answers=_answer_hashes(outcome.path, reference),
                          titles={**{label: reference.title(label) for label in reference.points},
                                  **{key: reference.written_title(key) for key in reference.written}})
        extra = notes(outcome.verdict) if outcome.ran else outcome.verdict.reasons
        row["notes"] = "; ".join(filter(None, [remark, *extra]))[:1000]
        row["record"] = json.dumps(record, sort_keys=True)
        return {"row": row, "result": result, "submitted": submitted, "outcome": outcome, "days": days,
                "policy": policy}

    def _choose(self, entries, stream):
        """The entry that counts among one student's notebooks of one chapter (see the module docstring)."""
        if len(entries) == 1:
            return entries[0]
        entries = sorted(entries, key=lambda e: (e["submitted"] is not None, e["submitted"] or 0))
        last, others = entries[-1], entries[:-1]
        names = ", ".join(entry["outcome"].name for entry in entries)
        student, chapter = last["row"]["student"], last["row"]["chapter"]
        if last["submitted"] is not None and all(e["submitted"] is not None and e["submitted"] < last["submitted"]
                                                 for e in others):
            last["row"]["notes"] = "; ".join(filter(None, [last["row"]["notes"], *(
                f"also handed in {e['outcome'].name} (earlier: not counted)" for e in others)]))
            print(f"note: {student} handed in {len(entries)} notebooks of {chapter} ({names}): "
                  f"the last submitted, {last['outcome'].name}, counts", file=stream)
            return last
        reason = (f"{len(entries)} notebooks of {chapter} ({names}), none submitted after the others: the grader "
                  "does not choose; keep one and grade it again")
        print(f"error: {student}: {reason}", file=stream)
        row = {**last["row"], "status": "error", "file": names, "late_days": "", "notes": reason}
        row.update({label: "0" for label in row_record(row).get("checked", ())})
        outcome = replace(last["outcome"], verdict=Verdict([reason]), ran=False)
        return {**last, "row": row, "result": None, "outcome": outcome, "days": 0}

    def keep(self, outcomes, references, stream):  # long: the run's rows, the gradebook, the feedback, in order
        """Write the gradebook and the feedback of a run's ``outcomes``; say where on ``stream``."""
        old_rows, columns = read_gradebook(self.gradebook) if self.gradebook else ([], {})
        used = sorted({outcome.chapter for outcome in outcomes if outcome.chapter in references})
        if len(used) == 1:  # an unreadable notebook named like no chapter: the run's only chapter
            outcomes = [replace(o, chapter=used[0]) if o.chapter is None and not o.ran else o for o in outcomes]
        for chapter in used:  # the chapter's exercises, code and written, in the book's order
            reference = references[chapter]
            order = list(reference.numbers)

            def place(item, reference=reference, order=order):  # a written part right after its code exercise
                label = reference.exercise_of(item[0])
                return order.index(label) if label in order else len(order), item[0] in reference.written_parts

            exercises = sorted([*reference.points.items(), *reference.written.items()], key=place)
            for label, points in exercises:
                columns[label] = (points, chapter)
        old = {(row["student"], row["chapter"]): row for row in old_rows}
        groups = {}
        for outcome in outcomes:
            entry = self._row(outcome, references.get(outcome.chapter), old)
            groups.setdefault((entry["row"]["student"], entry["row"]["chapter"]), []).append(entry)
        chosen = [self._choose(entries, stream) for entries in groups.values()]
        for entry in chosen:
            row = entry["row"]
            row["possible"] = _possible(columns, row["chapter"])
            penalty = entry["policy"].penalty(entry["days"], float(row["possible"])) if entry["days"] else 0
            row["penalty"] = f"{penalty:g}" if penalty else ""
            self._flag_changed_answers(row, old.get((row["student"], row["chapter"]), {}), stream)
        rows = [entry["row"] for entry in chosen]
        missing = self._missing(rows, old_rows, used, columns)
        merged = merge(old_rows, rows + missing, columns)
        if self.gradebook:
            write_gradebook(self.gradebook, merged, columns)
            print(f"gradebook: {self.gradebook}", file=stream)
        earlier = {(row["student"], row["chapter"]) for row in old_rows if row["status"] != "missing"}
        for row in missing:  # a student graded in an earlier run keeps that grade, and is not missing
            if (row["student"], row["chapter"]) not in earlier:
                print(f"missing: {row['student']} has no notebook of {row['chapter']}", file=stream)
        written = [self._write_feedback(entry, references.get(entry["row"]["chapter"]), columns) for entry in chosen]
        if any(written):
            folder = self.feedback or "the feedback files of the gradebook's rows"
            print(f"feedback: {folder}/<student>/<chapter>.md" if self.feedback else f"feedback: {folder}",
                  file=stream)

    def _flag_changed_answers(self, row, old, stream):
        earlier, now = row_record(old), row_record(row)
        changed = [key for key, marked in earlier.get("marked", {}).items()
                   if marked and old.get(key, "") != "" and now.get("answers", {}).get(key, marked) != marked]
        for key in changed:
            title = now.get("titles", {}).get(key, key)
            row["notes"] = "; ".join(filter(None, [row["notes"], f"hand points for {title} were given to an "
                                                                  "earlier answer: mark it again"]))
            print(f"changed: {row['student']}: the answer to {title} changed since it was marked by hand "
                  f"({old.get(key)} points kept): mark it again", file=stream)
        for label in earlier.get("overridden", {}):
            row["notes"] = "; ".join(filter(None, [row["notes"], f"{label}: points set by hand "
                                                                  "(--override-autograded), not by its checks"]))

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

    def _write_feedback(self, entry, reference, columns):
        row, outcome = entry["row"], entry["outcome"]
        target = row_record(row).get("feedback")
        if not target or reference is None:
            return False
        late = None
        if entry["days"]:
            late = (f"Submitted {entry['days']} day{'s' if entry['days'] != 1 else ''} late "
                    f"({entry['policy'].describe()}): {row['penalty'] or 0} points taken off.")
        text = feedback_markdown(row["name"] or row["student"], outcome.chapter, outcome.verdict, reference,
                                 entry["result"] or score(outcome.verdict, reference), outcome.places,
                                 row["status"], row["submitted"], late=late,
                                 marks={key: row.get(key) for key in reference.written})
        text = with_hand_points(text, row, columns)
        section = hand_section(row, columns)
        target = Path(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + ("\n" + "\n".join(section).rstrip("\n") + "\n" if section else ""), encoding="utf-8")
        return True


def _possible(columns, chapter):
    return f"{sum(points or 0 for points, of in columns.values() if of == chapter):g}"
