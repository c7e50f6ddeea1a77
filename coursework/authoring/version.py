"""Whether a handout was made from the current version of its chapter.

:func:`check_handout_version` compares the version a handout records
(:func:`.handout.chapter_version`) with its chapter's, and words the warning
that ``grade`` and ``self-check`` print. It needs the student notebook of the
chapter (:mod:`.student`), so it lives apart from :mod:`.handout`, which
:mod:`.student` builds on.
"""

from .handout import kpca_lib_version, recorded_entry
from .student import make_student_notebook

__all__ = ["check_handout_version"]


def check_handout_version(handout, reference, name="the notebook"):
    """A warning if ``handout`` was made from another version of its chapter; None if not.

    Parameters
    ----------
    handout : nbformat.NotebookNode
        A student notebook (a submission, or one a student self-checks).
    reference : nbformat.NotebookNode or dict
        The chapter it is graded against (its version is computed), a handout
        (its recorded version is used), or a recorded version itself
        (``{"exercises": ..., "kpca_lib": ...}``).
    name : str
        How the warning names the notebook.

    Returns
    -------
    warning : str or None
    """
    if isinstance(reference, dict) and "cells" not in reference:
        expected = reference
    elif isinstance(recorded_entry(reference).get("version"), dict):
        expected = recorded_entry(reference)["version"]
    else:
        chapter = recorded_entry(handout).get("source") or name  # numbers come from its name
        expected = recorded_entry(make_student_notebook(reference, name=chapter))["version"]
    recorded = recorded_entry(handout).get("version")
    if not isinstance(recorded, dict):
        return (f"WARNING: {name} records no handout version: it was made by an older make-student, "
                "or not by make-student; its exercises may differ from the chapter's")
    problems = []
    if recorded.get("exercises") != expected.get("exercises"):
        problems.append(f"its exercises (version {recorded.get('exercises')}) are not the chapter's "
                        f"(version {expected.get('exercises')}): statements or expected outputs changed")
    if recorded.get("kpca_lib") != kpca_lib_version():
        problems.append(f"it was made with kpca_lib {recorded.get('kpca_lib')}, and kpca_lib "
                        f"{kpca_lib_version()} is installed here")
    if not problems:
        return None
    return (f"WARNING: {name} was made from another version of its chapter: " + "; ".join(problems)
            + " (hand out, or ask for, the current student notebook)")

