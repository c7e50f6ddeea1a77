"""Grading: preparing each submission, judging what its run reports, and the report.

* :mod:`~coursework.grading.reference`: what grading takes from the reference chapters;
* :mod:`~coursework.grading.submissions`: finding and reading submissions defensively;
* :mod:`~coursework.grading.preparation`: the run notebook (graded cells locked, hidden checks added);
* :mod:`~coursework.grading.in_kernel`: the hidden-check helpers injected into the kernel;
* :mod:`~coursework.grading.results`: from the runner's records to reasons;
* :mod:`~coursework.grading.report`: the summary lines and the CSV report;
* :mod:`~coursework.grading.precheck`: the chapters' imports tried in a kernel isolated as the submissions';
* :mod:`~coursework.grading.session`: :func:`grade`, a whole folder, one line per notebook;
* :mod:`~coursework.grading.scores`: points per exercise, with partial credit from the checks' shares;
* :mod:`~coursework.grading.records`, :mod:`~coursework.grading.gradebook`: the gradebook
  (roster, missing and late work, re-grading, hand-given points);
* :mod:`~coursework.grading.feedback`: a Markdown file per student, with no hidden check's value;
* :mod:`~coursework.grading.lms`: the gradebook in Canvas's and Moodle's import layouts;
* :mod:`~coursework.grading.written`: the written answers, collected for grading by hand.

The instructor guide (``instructor_guide.md``, steps 2, 4 and 5) says how points, the
gradebook, feedback, written answers and the exports work.

How a submission's code runs, isolated and bounded, is :mod:`coursework.isolation`.
"""

__all__ = ["grade", "Outcome"]


def __getattr__(name):
    # the session imports nbval and pytest: only when asked for
    if name in __all__:
        from . import session
        return getattr(session, name)
    raise AttributeError(f"module 'coursework.grading' has no attribute {name!r}")
