"""Authoring: the student version of each chapter, and a check of its exercises.

* :mod:`~coursework.authoring.exercises`: which cells of a chapter are solutions,
  graded cells and hidden checks (the convention);
* :mod:`~coursework.authoring.stubs`: the code a student finds in place of a solution;
* :mod:`~coursework.authoring.student`: ``make-student``, the student notebooks;
* :mod:`~coursework.authoring.check`: ``check``, which exercises have hidden checks.
"""
