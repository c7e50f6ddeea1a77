"""nbval's comment markers (``# NBVAL_SKIP`` and the like), which a submission must not use.

Shared by :mod:`coursework.grading.preparation`, which strips them from the run notebook,
and :mod:`coursework.grading.needed_cells`, which compares cells without them.
"""

from nbval.plugin import comment_markers

__all__ = ["strip_nbval_markers"]


def _is_marker(line):
    """Whether nbval would read ``line`` as a marker (or it looks like one, in any case)."""
    stripped = line.strip()
    if not stripped.startswith("#"):
        return False
    comment = stripped.lstrip("#").strip()
    upper = comment.upper()
    return comment in comment_markers or "NBVAL_" in upper or "PYTEST_VALIDATE_" in upper


def strip_nbval_markers(source):
    """``source`` without any line that nbval reads as a marker.

    >>> print(strip_nbval_markers("# NBVAL_SKIP\\nx = 1\\n  #PYTEST_VALIDATE_IGNORE_OUTPUT"))
    x = 1
    """
    # lines end at "\n" only, as in Jupyter: str.splitlines would also split (and lose) U+2028,
    # U+0085, form feeds and other separators a student may have pasted into a string
    return "\n".join(line for line in source.split("\n") if not _is_marker(line))
