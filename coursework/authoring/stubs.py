"""The code a student finds in place of a solution cell.

Two kinds of stub:

* :func:`plain_stub`, for an exercise without hidden checks: a comment that
  says what to do and ``raise NotImplementedError``;
* :func:`function_stub`, for an exercise in the function convention (it has
  hidden checks): the functions (and classes) the solution defines keep their
  signature and docstring, with ``raise NotImplementedError`` as body, and
  every line outside them (the *visible check*, which calls the functions on
  the chapter's data and prints) is kept as it is. Nothing of a function's
  body, comments included, reaches the student.

Examples
--------
>>> solution = '''def double(x):
...     \"\"\"Return 2 x.\"\"\"
...     # the trick
...     return x + x
...
... print(double(21))'''
>>> print(function_stub("ex1", solution))
# NBVAL_CHECK_OUTPUT
# Exercise ex1: write the body of each function below, in place of `raise NotImplementedError`.
# The grader also calls your functions on inputs you have not seen: they must return
# their result and print nothing. The lines after them print the visible check.
def double(x):
    \"\"\"Return 2 x.\"\"\"
    raise NotImplementedError
<BLANKLINE>
print(double(21))
"""

import ast
import copy

from .exercises import CHECK_MARKER

__all__ = ["plain_stub", "function_stub"]


def plain_stub(label, graded):
    """The stub of a solution cell whose exercise has no hidden check."""
    lines = [CHECK_MARKER] if graded else []
    what = "prints the answer" if graded else "does the exercise"
    lines += [
        f"# Exercise {label}: replace the two lines below by your code, which {what}.",
        "# YOUR CODE HERE",
        "raise NotImplementedError",
    ]
    return "\n".join(lines)


def _stubbed(node):
    """A copy of a function or class definition with every body reduced to its docstring and a raise."""
    node = copy.deepcopy(node)
    docstring = [node.body[0]] if ast.get_docstring(node, clean=False) is not None else []
    if isinstance(node, ast.ClassDef):
        methods = [_stubbed(item) for item in node.body
                   if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        node.body = docstring + methods or [ast.Pass()]
    else:
        raise_statement = ast.Raise(exc=ast.Name(id="NotImplementedError", ctx=ast.Load()), cause=None)
        node.body = docstring + [raise_statement]
    return node


def function_stub(label, source):
    """The stub of a solution cell in the function convention.

    Parameters
    ----------
    label : str
        The exercise label, named in the stub's comment.
    source : str
        The solution cell's code.

    Returns
    -------
    stub : str or None
        The stub, or None when ``source`` defines no function at its top
        level or is not plain Python (it uses IPython magics, say).
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    definitions = [node for node in tree.body
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if not any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) for node in definitions):
        return None
    lines = source.splitlines()
    out = [
        CHECK_MARKER,
        f"# Exercise {label}: write the body of each function below, in place of `raise NotImplementedError`.",
        "# The grader also calls your functions on inputs you have not seen: they must return",
        "# their result and print nothing. The lines after them print the visible check.",
    ]
    position = 0
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        out += _between(lines[position:first])
        if node in definitions:
            out += ast.unparse(_stubbed(node)).splitlines()
        else:
            out += lines[first:node.end_lineno]  # a statement of the visible check, as written
        position = node.end_lineno
    out += _between(lines[position:])
    return "\n".join(out).rstrip()


def _between(lines):
    """Blank lines and comments between statements, without the indented ones (they trail a body)."""
    return [line for line in lines if not line[:1].isspace()]
