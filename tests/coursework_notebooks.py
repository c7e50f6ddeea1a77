"""Notebooks for the coursework tests: a small synthetic chapter, its submissions, and attacks on the grader.

The synthetic chapter has the two kinds of graded exercise the book has:
``syn-ex1`` in the function convention (a function, a visible check, and a
hidden check on unseen inputs) and ``syn-ex2`` graded by its visible output
only. Its outputs are written here from known answers (2 x 21 = 42, 21 + 1 =
22, and twice the hidden integers), not by running the grader.
"""

import copy
import os

import numpy as np
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from coursework.authoring.exercises import CHECK_MARKER, METADATA_KEY

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
SOLUTION_DOUBLE = '''def double(values):
    """Twice the values, as an array."""
    # SECRET: the trick of the solution
    return 2 * np.asarray(values)


print(double([x]).tolist())'''
HIDDEN_DOUBLE = """# hidden check for syn-ex1
rng = np.random.default_rng(5)
values = rng.integers(0, 100, size=4)
print(np.asarray(double(values), dtype=float).tolist())"""


def hidden_answer():
    """What the hidden check of syn-ex1 prints for a correct ``double``, computed here."""
    values = np.random.default_rng(5).integers(0, 100, size=4)
    return f"{(2.0 * values).tolist()}\n"


def code(source, text=None, count=None, tags=()):
    outputs = [new_output("stream", name="stdout", text=text)] if text is not None else []
    cell = new_code_cell(source, outputs=outputs, execution_count=count)
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def graded_chapter():
    """A chapter with a function exercise (and its hidden check) and an exercise without one."""
    return new_notebook(cells=[
        new_markdown_cell("# A graded chapter\n\nSome text."),
        code("import numpy as np\n\nx = 21", count=1),
        new_markdown_cell("```{exercise}\n:label: syn-ex1\n\nWrite `double(values)`.\n```\n\n"
                          "```{solution-start} syn-ex1\n:class: dropdown\n```"),
        code(SOLUTION_DOUBLE, "[42]\n", count=2, tags=["solution"]),
        code(HIDDEN_DOUBLE, hidden_answer(), count=3, tags=["hidden-check", "remove-cell"]),
        new_markdown_cell("```{solution-end}\n```\n\n```{exercise}\n:label: syn-ex2\n\nPrint $x + 1$.\n```"),
        new_markdown_cell("```{solution-start} syn-ex2\n:class: dropdown\n```"),
        code("print(x + 1)", "22\n", count=4, tags=["solution"]),
        new_markdown_cell("```{solution-end}\n```"),
    ], metadata={"kernelspec": KERNELSPEC})


def stubs(nb):
    """The student version's solution cells (the graded cells), in order (not its answer cells,
    markdown cells marked ``kpca_coursework: {"written": true}``)."""
    return [cell for cell in nb.cells if cell.cell_type == "code" and METADATA_KEY in cell.metadata]


def solved(student, chapter):
    """The student version with each stub replaced by the chapter's solution code."""
    answer = copy.deepcopy(student)
    solutions = [cell for cell in chapter.cells
                 if cell.cell_type == "code" and "solution" in cell.metadata.get("tags", [])]
    for stub, solution in zip(stubs(answer), solutions, strict=True):
        stub.source = f"{CHECK_MARKER}\n{solution.source}"
    return answer


def with_sources(student, *sources):
    """The student version with its graded cells replaced by ``sources`` (None: keep the stub)."""
    answer = copy.deepcopy(student)
    for stub, source in zip(stubs(answer), sources):
        if source is not None:
            stub.source = source
    return answer


def with_first_cell(nb, code_text):
    """``nb`` with ``code_text`` appended to its first code cell (where a student sets a trap)."""
    changed = copy.deepcopy(nb)
    first = next(cell for cell in changed.cells if cell.cell_type == "code")
    first.source += "\n" + code_text
    return changed


def shown_outputs(student):
    """The visible-check outputs a student sees in the handed-out notebook, per graded cell."""
    return ["".join(output.get("text", "") for output in stub.outputs) for stub in stubs(student)]



def make_deep_folders(top, depth, name="a"):
    """``depth`` nested folders under ``top``, made through folder descriptors (pathlib and
    os.makedirs recurse, and each long path costs its whole length); returns the deepest path."""
    os.makedirs(top)
    descriptor = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=descriptor)
            inner = os.open(name, os.O_RDONLY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
    finally:
        os.close(descriptor)
    return os.path.join(str(top), *[name] * depth)


def remove_deep_folders(top):
    """Remove a chain of nested folders from the bottom up (shutil.rmtree recurses, and fails)."""
    names, descriptor = [], os.open(top, os.O_RDONLY)
    while True:  # down, remembering the way
        folders = [entry.name for entry in os.scandir(descriptor) if entry.is_dir(follow_symlinks=False)]
        if not folders:
            break
        names.append(folders[0])
        inner = os.open(folders[0], os.O_RDONLY, dir_fd=descriptor)
        os.close(descriptor)
        descriptor = inner
    for name in reversed([os.path.basename(str(top)), *names]):  # and up, emptying each folder
        for entry in os.scandir(descriptor):
            os.unlink(entry.name, dir_fd=descriptor)
        parent = os.open("..", os.O_RDONLY, dir_fd=descriptor)
        os.close(descriptor)
        os.rmdir(name, dir_fd=parent)
        descriptor = parent
    os.close(descriptor)
