"""Lateness as a policy: a deadline, a grace period, and a penalty per day late (or zero).

``grade --deadline 2026-03-01 --grace 15min --late-penalty 10%/day`` makes a
:class:`LatePolicy`. A notebook submitted after the deadline and the grace
period is ``late``; it is late by the days started since the deadline (a
submission 25 hours late is 2 days late), and loses ``per_day`` of the
chapter's points possible per day, at most all of them (``--late-penalty
zero``: a late notebook earns 0; ``none``: it is only marked). The penalty is
in points, subtracted from the row's total in the gradebook and therefore in
the exports; hand points added later do not change it. Each gradebook row
keeps the policy it was graded under, so that re-grading a notebook without
``--deadline`` applies the same one.

Examples
--------
>>> from datetime import datetime, timezone
>>> policy = LatePolicy(datetime(2026, 3, 1, 23, 59, tzinfo=timezone.utc), parse_penalty("10%/day"),
...                     grace=parse_grace("15min"))
>>> policy.days_late(datetime(2026, 3, 2, 0, 10, tzinfo=timezone.utc))  # within the grace period
0
>>> policy.days_late(datetime(2026, 3, 3, 1, 0, tzinfo=timezone.utc))  # 25 hours late: 2 days started
2
>>> policy.penalty(2, possible=25)
5.0
"""

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["LatePolicy", "parse_penalty", "parse_grace"]

_DAY = timedelta(days=1)
_GRACE = re.compile(r"^\s*(?P<amount>\d+(?:\.\d+)?)\s*(?P<unit>s|sec|min|m|h|d|days?|hours?|minutes?)?\s*$")
_UNITS = {"s": 1, "sec": 1, "min": 60, "m": 60, "minute": 60, "minutes": 60, "h": 3600, "hour": 3600,
          "hours": 3600, "d": 86400, "day": 86400, "days": 86400}


def parse_penalty(text):
    """``--late-penalty``: ``none`` (0), ``zero`` (everything), or a percentage per day, ``10%/day``.

    Returns the fraction of the points possible lost per day late (``math.inf`` for ``zero``).

    >>> parse_penalty("12.5%/day"), parse_penalty("none"), parse_penalty("zero")
    (0.125, 0.0, inf)
    """
    cleaned = str(text).strip().lower().replace(" ", "")
    if cleaned in ("none", "0", "0%", "0%/day"):
        return 0.0
    if cleaned == "zero":
        return math.inf
    match = re.fullmatch(r"(\d+(?:\.\d+)?)%(?:/day|perday)?", cleaned)
    if not match or not 0 <= float(match[1]) <= 100:
        raise ValueError(f"--late-penalty must be 'none', 'zero' or a percentage of the points per day late "
                         f"from 0 to 100 (10%/day), got {text!r}")
    return float(match[1]) / 100


def parse_grace(text):
    """``--grace``: a period after the deadline with no lateness, ``15min``, ``2h``, ``1d`` (seconds without unit).

    >>> parse_grace("15min"), parse_grace("2h"), parse_grace("0")
    (datetime.timedelta(seconds=900), datetime.timedelta(seconds=7200), datetime.timedelta(0))
    """
    match = _GRACE.match(str(text))
    if not match:
        raise ValueError(f"--grace must be a duration such as 15min, 2h or 1d, got {text!r}")
    return timedelta(seconds=float(match["amount"]) * _UNITS[match["unit"] or "s"])


@dataclass(frozen=True)
class LatePolicy:
    """A deadline, a penalty per day late (a fraction of the points possible; inf: all), a grace period."""

    deadline: datetime
    per_day: float = 0.0
    grace: timedelta = timedelta(0)

    def days_late(self, submitted):
        """Days started since the deadline (0 if submitted before the deadline plus the grace period)."""
        if submitted is None or submitted <= self.deadline + self.grace:
            return 0
        return math.ceil((submitted - self.deadline) / _DAY)

    def penalty(self, days, possible):
        """The points lost by a notebook ``days`` late, of a chapter worth ``possible`` points."""
        if days <= 0 or self.per_day == 0:
            return 0.0
        return float(possible) if math.isinf(self.per_day) else round(min(1.0, days * self.per_day) * possible, 2)

    def describe(self):
        """The policy in words, for the feedback and the gradebook."""
        rule = ("a late notebook earns 0" if math.isinf(self.per_day) else
                f"{self.per_day * 100:g}% of the points per day late" if self.per_day else "no penalty")
        grace = f", grace {self.grace.total_seconds() / 60:g} min" if self.grace else ""
        return f"deadline {self.deadline.isoformat(timespec='minutes')}{grace}, {rule}"

    def to_record(self):
        return {"deadline": self.deadline.isoformat(), "per_day": "zero" if math.isinf(self.per_day) else self.per_day,
                "grace": self.grace.total_seconds()}

    @classmethod
    def from_record(cls, record):
        """The policy :meth:`to_record` wrote (None if ``record`` holds none)."""
        if not isinstance(record, dict) or not record.get("deadline"):
            return None
        per_day = math.inf if record.get("per_day") == "zero" else float(record.get("per_day") or 0)
        return cls(datetime.fromisoformat(record["deadline"]), per_day, timedelta(seconds=float(record.get("grace", 0))))
