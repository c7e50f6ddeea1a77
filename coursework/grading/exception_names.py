"""An exception as the instructor and the student may see it: its name checked, both cut short.

A submission chooses both the name and the value of what it raises, so neither is shown as
it comes: :func:`exception_text` (for the visible checks) and :func:`exception_kind` (from
the first hidden check on). Used by :mod:`coursework.grading.results`.
"""

import builtins
import re

__all__ = ["exception_text", "exception_kind"]

# an exception's name as Python writes it (a dotted identifier), and its value, cut short
_EXCEPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_NAME_CHARACTERS = 60
_VALUE_CHARACTERS = 80
# the exception names shown once hidden-check code may have been seen: names no submission chooses
_KNOWN_EXCEPTIONS = frozenset(
    [name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)]
    + ["LinAlgError"])  # numpy.linalg's, which IPython names without its module


def _printable(text):
    return "".join(c if c.isprintable() else " " for c in text)


def exception_text(text):
    """``Name: value`` of an exception as the instructor reads it: the name checked, both cut short.

    A submission chooses both the name and the value of what it raises: the
    name must look like a Python name (else it is withheld), and both are cut
    short and stripped of control characters.

    >>> exception_text("ValueError: x must be positive")
    'ValueError: x must be positive'
    >>> exception_text("Stolen_print(np.asarray(double(values)))")
    'an exception with a malformed name'
    """
    if not text:
        return "an exception"
    name, _, value = str(text).partition(": ")
    name = name.strip()
    if len(name) > _NAME_CHARACTERS or not _EXCEPTION_NAME.fullmatch(name):
        return "an exception with a malformed name"
    value = _printable(value.strip().split("\n")[0])
    if len(value) > _VALUE_CHARACTERS:
        value = value[:_VALUE_CHARACTERS] + "..."
    return f"{name}: {value}" if value else name


def exception_kind(text):
    """The name of an exception if it is a built-in exception class (or numpy's LinAlgError), else a placeholder.

    Used from the first hidden check on: the value, and a name the
    submission made up, are never shown, since code that has seen the hidden
    checks chooses them.

    Parameters
    ----------
    text : str or None
        ``Name: value`` as the runner reported it.

    Returns
    -------
    str

    >>> exception_kind("ValueError: ['default_rng(5)']")
    'ValueError'
    >>> exception_kind("default_rng_5_size_4: stolen")
    'an exception'
    """
    if text is not None and not isinstance(text, str):
        raise TypeError(f"text must be a string or None, got {type(text).__name__}")
    name = (text or "").partition(":")[0].strip()
    return name if name in _KNOWN_EXCEPTIONS else "an exception"
