"""Authoring: the student version of each chapter, a check of its exercises, and the students' self-check.

* :mod:`~coursework.authoring.exercises`: which cells of a chapter are solutions,
  graded cells and hidden checks (the convention), and the book's exercise numbers;
* :mod:`~coursework.authoring.stubs`: the code a student finds in place of a solution;
* :mod:`~coursework.authoring.myst_markdown`: the chapters' MyST as Jupyter Markdown,
  with the book's numbers;
* :mod:`~coursework.authoring.handout`: one exercise per cell, answer cells, the handout's version;
* :mod:`~coursework.authoring.student`: ``make-student``, the student notebooks;
* :mod:`~coursework.authoring.expected`: the read-only copy of their expected outputs;
* :mod:`~coursework.authoring.version`: whether a handout was made from its chapter's current version;
* :mod:`~coursework.authoring.check`: ``check``, which exercises have hidden checks;
* :mod:`~coursework.authoring.self_check`: ``self-check``, a student's check against that copy.
"""
