"""Points: what each exercise of a submission earns, from how its checks went.

The rule (the authors' declarations are in :mod:`coursework.authoring.points`):

* an exercise worth ``P`` points has checks: one visible check per graded cell
  (the output it prints on the chapter's data) and its hidden checks; check
  ``c`` has share ``s_c``;
* a check that passes earns ``P * s_c / sum(s)``; one that fails (wrong
  output, an exception, not run, its cell deleted) earns 0;
* a visible check earns its share only when every hidden check of its
  exercise passes too: its expected output is in the handout, so printing it
  (with no working code) must earn nothing; an exercise without hidden checks
  is graded by its visible checks alone (``check`` says which);
* the exercise earns the sum over its checks, the notebook the sum over its
  exercises (rounded to 2 decimals, for the gradebook).

The notebook-level verdict (``PASS``/``FAIL`` on the grader's line) is
stricter: it fails on any error in any cell. An error in a cell of the
student's own (a typo in a scratch cell) therefore fails the notebook and
costs no point: it appears as a *note*. A notebook that could not be run at all
(unreadable, the wrong chapter) earns nothing and has the status ``error``.
"""

from dataclasses import dataclass, field

__all__ = ["Score", "score", "notes", "earns"]


@dataclass
class Score:
    """Points of one submission: per exercise ``(earned, possible)``, and in total."""

    exercises: dict = field(default_factory=dict)

    @property
    def earned(self):
        return round(sum(earned for earned, _ in self.exercises.values()), 2)

    @property
    def possible(self):
        return round(sum(possible for _, possible in self.exercises.values()), 2)


def score(verdict, reference):
    """The :class:`Score` of a graded submission.

    Parameters
    ----------
    verdict : coursework.grading.results.Verdict
        With a :class:`~coursework.grading.results.Check` for every check of
        the reference (a check without one counts as failed).
    reference : coursework.grading.reference.Reference

    Returns
    -------
    Score

    Examples
    --------
    >>> from coursework.grading.reference import Reference
    >>> from coursework.grading.results import Check, Verdict
    >>> ref = Reference("ch.ipynb", ["ex1"], points={"ex1": 4},
    ...                 shares={("visible", "ex1", 0): 1, ("hidden", "ex1", 1): 3})
    >>> verdict = Verdict(checks={("visible", "ex1", 0): Check(("visible", "ex1", 0), True),
    ...                           ("hidden", "ex1", 1): Check(("hidden", "ex1", 1), False, "raised ValueError")})
    >>> score(verdict, ref).exercises  # the visible check passed, alone: it earns nothing
    {'ex1': (0.0, 4)}
    """
    result = Score()
    for label, points in reference.points.items():
        keys = reference.checks(label)
        total = sum(reference.shares[key] for key in keys)
        passed = sum(reference.shares[key] for key in keys if earns(verdict, keys, key))
        earned = points * passed / total if total > 0 else 0.0
        result.exercises[label] = (round(earned, 2), points)
    return result


def notes(verdict):
    """The notebook-level reasons that belong to no exercise: they fail the notebook, and cost no point."""
    attributed = {reason for reasons in verdict.exercises.values() for reason in reasons}
    return [reason for reason in verdict.reasons if reason not in attributed]


def earns(verdict, keys, key):
    """Whether check ``key`` (of an exercise whose checks are ``keys``) earns its share: it passed, and,
    for a visible check, every hidden check of the exercise passed too."""
    def passed(one):
        return one in verdict.checks and verdict.checks[one].passed

    return passed(key) and (key[0] == "hidden" or all(passed(one) for one in keys if one[0] == "hidden"))
