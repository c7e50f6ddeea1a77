"""Coursework from the book's notebooks: student versions, and grading with nbval.

The chapters are the single source of every exercise. An exercise's solution is
either a derivation in a ``{solution}`` directive, or a *gated* solution: the
markdown cells and code cells between ``{solution-start} LABEL`` and
``{solution-end}``, whose code cells carry the cell tag ``solution``.

``make-student`` writes a copy of each notebook in which

* every solution code cell (tagged ``solution``, or inside a gated solution) is
  replaced by a stub (``# YOUR CODE HERE`` and ``raise NotImplementedError``);
* a solution cell is *graded*: its stub starts with ``# NBVAL_CHECK_OUTPUT`` and
  keeps the reference output of the solution, so that ``pytest --nbval-lax``
  compares what the student's code prints with what the solution printed. A
  solution cell whose output cannot be stable (tagged ``nbval-ignore-output`` or
  marked ``# NBVAL_IGNORE_OUTPUT``) is stubbed but not graded, and its output is
  removed;
* the text of every solution (derivations, and prose inside a gated solution)
  is replaced by "Write your answer here.", and the directive markers go;
* every other cell is left as it is, outputs included.

Under ``--nbval-lax`` every cell still runs, so a cell raising an exception
fails; only graded cells have their output compared. A stub raises, so the
notebook as handed out fails, naming the cell; it passes once the student's
code prints what the solution printed.

``grade`` grades a folder of submissions with one command. Before running nbval
it puts the reference outputs back into the graded cells (a student who ran
the notebook has overwritten them with their own outputs), then prints one
line per notebook.

Run it as ``python -m coursework make-student|grade`` (see ``--help``). It is
notebook tooling, not numerics: ``kpca_lib`` never imports it.
"""

from .grading import grade, prepare_submission
from .student import make_student, make_student_notebook

__all__ = ["make_student_notebook", "make_student", "prepare_submission", "grade"]
