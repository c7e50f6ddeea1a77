"""Coursework from the book's notebooks: student versions, and grading that cannot be fooled.

The chapters are the single source of every exercise (the convention is in
:mod:`coursework.authoring.exercises` and in the instructor guide). The commands,
``python -m coursework make-student|check|self-check|grade|written|hand-points|export`` (see ``--help``):

* ``make-student`` writes the student version of each chapter
  (:mod:`coursework.authoring.student`): the text in Jupyter Markdown with the
  book's numbers, one exercise per cell, solution cells stubbed, hidden checks
  removed, solution text replaced by answer cells, and a read-only copy of the
  expected visible outputs;
* ``self-check`` lets a student compare a notebook with that copy
  (:mod:`coursework.authoring.self_check`), on any system;
* ``check`` lists each chapter's exercises and says which graded exercises
  lack a hidden check (:mod:`coursework.authoring.check`);
* ``grade`` grades a folder of submissions with nbval (:mod:`coursework.grading.session`):
  graded cells restored from the reference, student-added nbval markers
  removed, hidden checks appended, each notebook run in a fresh folder (in a
  bubblewrap sandbox with ``--sandbox``) under limits on time, output, memory,
  processes and scratch space, one line per notebook and a CSV report; with
  ``--gradebook``, ``--feedback``, ``--roster`` and ``--deadline``, points per
  exercise (partial credit), a gradebook and a feedback file per student;
* ``hand-points``, ``export`` and ``written`` add points given by hand to the
  gradebook, write it in Canvas's or Moodle's import layout, and collect the
  written answers for grading by hand.

The package has three parts, one per job: :mod:`coursework.authoring` (the
student notebooks), :mod:`coursework.grading` (preparing and judging
submissions) and :mod:`coursework.isolation` (running them, isolated and
bounded).

It is notebook tooling, not numerics: ``kpca_lib`` never imports it.
"""

__all__ = ["make_student_notebook", "make_student", "grade"]


def __getattr__(name):
    # the grading machinery imports pytest and nbval: load it only when asked for
    if name in ("make_student_notebook", "make_student"):
        from .authoring import student
        return getattr(student, name)
    if name == "grade":
        from .grading.session import grade
        return grade
    raise AttributeError(f"module 'coursework' has no attribute {name!r}")
