"""Whether a checked cell printed its expected output and more: a print left in a function.

The grader (:mod:`coursework.grading.results`) and the students' self-check
(:mod:`.self_check`) judge such a cell alike: the answer is there, so it
passes, with a note to remove the extra output.
"""

__all__ = ["extra_output", "output_lines"]


def output_lines(text):
    """The non-blank lines of ``text``, without trailing spaces."""
    return [line.rstrip() for line in (text or "").split("\n") if line.strip()]


def extra_output(expected, actual):
    """Whether ``actual`` is the ``expected`` output with more lines in between or around (a debug print).

    >>> extra_output("q = 21\\n", "debug: [1, 2]\\nq = 21\\n")
    True
    >>> extra_output("q = 21\\n", "q = 20\\n")
    False
    >>> extra_output("q = 21\\n", "q = 21\\n")  # the same output is not "more"
    False
    """
    wanted, got = output_lines(expected), iter(output_lines(actual))
    # each wanted line found in order (the iterator moves on), and at least one line more
    return bool(wanted) and all(any(line == have for have in got) for line in wanted) and \
        len(output_lines(actual)) > len(wanted)
