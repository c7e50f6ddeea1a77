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

Examples
--------
>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_markdown_cell("```{solution-start} ex1\\n```"),
...     nbformat.v4.new_code_cell("print(6 * 7)", metadata={"tags": ["solution"]}),
...     nbformat.v4.new_markdown_cell("```{solution-end}\\n```"),
... ])
>>> student = make_student_notebook(nb)
>>> print(student.cells[1].source)
# NBVAL_CHECK_OUTPUT
# Exercise ex1: replace the two lines below by your code, which prints the answer.
# YOUR CODE HERE
raise NotImplementedError
"""

import argparse
import copy
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import nbformat

__all__ = [
    "make_student_notebook",
    "make_student",
    "prepare_submission",
    "grade",
    "main",
]

SOLUTION_TAG = "solution"
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"
ANSWER_PLACEHOLDER = "Write your answer here."
# cell and notebook metadata written by make-student, read by grade
METADATA_KEY = "kpca_coursework"

_IGNORE_TAGS = {"nbval-ignore-output", "nbval-skip"}
_IGNORE_MARKERS = {"NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP"}
# an opening MyST fence: ``` or ::: (three or more), a {directive} and its argument
_DIRECTIVE_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|:{3,})\{(?P<name>[^}\s]+)\}\s*(?P<argument>.*?)\s*$")
_ANY_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,}|:{3,})")
# colour codes; pytest's junit report writes the escape character as "#x1B"
_ANSI = re.compile(r"(?:\x1b|#x1B)\[[0-9;]*[A-Za-z]")


def _stub(label, graded):
    lines = [CHECK_MARKER] if graded else []
    what = "prints the answer" if graded else "does the exercise"
    lines += [
        f"# Exercise {label}: replace the two lines below by your code, which {what}.",
        "# YOUR CODE HERE",
        "raise NotImplementedError",
    ]
    return "\n".join(lines)


def _is_graded(cell):
    """A solution cell is graded unless its output is marked as unstable."""
    previous = cell.metadata.get(METADATA_KEY)
    if previous is not None:  # already a stub: its source no longer holds the markers
        return bool(previous["graded"])
    if _IGNORE_TAGS & set(cell.metadata.get("tags", [])):
        return False
    comments = {line.strip().lstrip("#").strip() for line in cell.source.splitlines()}
    return not (_IGNORE_MARKERS & comments)


def _closes(line, fence):
    """Whether ``line`` closes a fence opened by ``fence`` (same character, no shorter)."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _strip_solution_text(source, state, where):
    """Remove the solution text of one markdown cell.

    ``state`` carries the label of the open gated solution (or None) from cell
    to cell. Returns the new source.
    """
    lines = source.splitlines()
    if state["gated"] is None and not any(
        (match := _DIRECTIVE_FENCE.match(line)) and match["name"].startswith("solution") for line in lines
    ):
        return source  # no solution in this cell: leave it exactly as it is
    out = []
    placeholder_written = False
    i = 0

    def drop_text():
        nonlocal placeholder_written
        if not placeholder_written:
            out.extend([ANSWER_PLACEHOLDER, ""])
            placeholder_written = True

    def skip_block(start, fence):
        """Index just past the fenced block opened at ``start``."""
        j = start + 1
        while j < len(lines) and not _closes(lines[j], fence):
            j += 1
        if j == len(lines):
            raise ValueError(f"{where}: the fence {lines[start].strip()!r} is never closed")
        return j + 1

    while i < len(lines):
        line = lines[i]
        directive = _DIRECTIVE_FENCE.match(line)
        fence = _ANY_FENCE.match(line)
        if directive and directive["name"] == "solution":
            i = skip_block(i, directive["fence"])
            if state["gated"] is None:
                out.extend([f"*Your answer to exercise {directive['argument']}:*", "", ANSWER_PLACEHOLDER, ""])
            else:
                drop_text()
        elif directive and directive["name"] == "solution-start":
            if state["gated"] is not None:
                raise ValueError(
                    f"{where}: solution-start {directive['argument']} opens inside the gated "
                    f"solution of {state['gated']}, which has no solution-end before it"
                )
            i = skip_block(i, directive["fence"])
            state["gated"] = directive["argument"]
            out.extend([f"*Your solution to exercise {state['gated']}:*", ""])
        elif directive and directive["name"] == "solution-end":
            if state["gated"] is None:
                raise ValueError(f"{where}: solution-end without a solution-start before it")
            i = skip_block(i, directive["fence"])
            state["gated"] = None
        elif fence:
            end = skip_block(i, fence["fence"])
            if state["gated"] is None:
                out.extend(lines[i:end])
            else:
                drop_text()
            i = end
        else:
            if state["gated"] is None:
                out.append(line)
            elif line.strip():
                drop_text()
            i += 1
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def make_student_notebook(nb, name="notebook"):
    """Return the student version of a notebook (the input is not changed).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter, with its outputs (or a student version: the result is then
        the same notebook, so the function is idempotent).
    name : str, default="notebook"
        The notebook's file name, recorded in the metadata (``grade`` finds the
        reference notebook by it) and used in error messages.

    Returns
    -------
    student : nbformat.NotebookNode
        Solution code cells stubbed (graded ones keep their reference outputs
        and start with ``# NBVAL_CHECK_OUTPUT``), solution text replaced by
        "Write your answer here.", markdown cells left empty removed, every
        other cell unchanged. Each solution cell carries the metadata
        ``kpca_coursework: {exercise, part, graded}``.

    Raises
    ------
    TypeError
        If ``nb`` is not a notebook.
    ValueError
        If the gated solutions are not well formed (a start without an end,
        an end without a start, a start inside another).

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("```{solution} ex1\\n:class: dropdown\\n\\nBecause.\\n```"),
    ... ])
    >>> print(make_student_notebook(nb).cells[0].source)
    *Your answer to exercise ex1:*
    <BLANKLINE>
    Write your answer here.
    """
    if not isinstance(nb, dict) or "cells" not in nb:
        raise TypeError(f"nb must be a notebook read with nbformat, got {type(nb).__name__}")
    student = copy.deepcopy(nb)
    state = {"gated": None}
    parts = {}
    cells = []
    for index, cell in enumerate(student.cells):
        where = f"{name}, cell {index}"
        if cell.cell_type == "markdown":
            had_text = bool(cell.source.strip())
            cell.source = _strip_solution_text(cell.source, state, where)
            if cell.source or not had_text:
                cells.append(cell)
            continue
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "code" and (SOLUTION_TAG in tags or state["gated"] is not None):
            previous = cell.metadata.get(METADATA_KEY)
            label = previous["exercise"] if previous else (state["gated"] or "unlabelled")
            graded = _is_graded(cell)
            part = parts.get(label, 0)
            parts[label] = part + 1
            cell.source = _stub(label, graded)
            if SOLUTION_TAG not in tags:
                cell.metadata["tags"] = [*tags, SOLUTION_TAG]
            cell.metadata[METADATA_KEY] = {"exercise": label, "part": part, "graded": graded}
            if not graded:
                cell.outputs = []
                cell.execution_count = None
        cells.append(cell)
    if state["gated"] is not None:
        raise ValueError(f"{name}: solution-start {state['gated']} has no solution-end")
    student.cells = cells
    source = nb.metadata.get(METADATA_KEY, {}).get("source", name)
    student.metadata[METADATA_KEY] = {"source": source}
    return student


def _notebooks(path, argument):
    path = Path(path)
    if path.is_file():
        if path.suffix != ".ipynb":
            raise ValueError(f"{argument} must be a notebook (.ipynb) or a folder of them, got {path}")
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"{argument} {path} does not exist")
    found = sorted(
        p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )
    if not found:
        raise ValueError(f"{argument} {path} holds no notebook (.ipynb)")
    return found


def make_student(source, destination):
    """Write the student version of every notebook of ``source`` into ``destination``.

    Parameters
    ----------
    source : str or Path
        A notebook, or a folder of notebooks (searched recursively).
    destination : str or Path
        The folder to write to (created if needed), keeping the file names.

    Returns
    -------
    written : list of (Path, int, int)
        Each written notebook, its number of graded cells and of solution
        cells.
    """
    notebooks = _notebooks(source, "source")
    destination = Path(destination)
    if destination.exists() and not destination.is_dir():
        raise ValueError(f"destination must be a folder, got the file {destination}")
    root = Path(source) if Path(source).is_dir() else Path(source).parent
    written = []
    for notebook in notebooks:
        target = destination / notebook.relative_to(root)
        if target.resolve() == notebook.resolve():
            raise ValueError(f"destination would overwrite the source notebook {notebook}")
        student = make_student_notebook(nbformat.read(notebook, as_version=4), name=notebook.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(student, target)
        info = [c.metadata[METADATA_KEY] for c in student.cells if METADATA_KEY in c.metadata]
        written.append((target, sum(i["graded"] for i in info), len(info)))
    return written


def _graded_key(cell):
    info = cell.metadata.get(METADATA_KEY)
    if cell.cell_type == "code" and info and info["graded"]:
        return info["exercise"], info["part"]
    return None


def prepare_submission(submission, reference):
    """Put the reference outputs back into the graded cells of a submission.

    Parameters
    ----------
    submission : nbformat.NotebookNode
        A student's notebook (not changed).
    reference : nbformat.NotebookNode
        The chapter, or its student version, that the exercises come from.

    Returns
    -------
    prepared : nbformat.NotebookNode
        The submission whose graded cells hold the reference outputs and start
        with ``# NBVAL_CHECK_OUTPUT``.
    missing : list of str
        The exercises whose graded cell the student deleted.
    """
    reference = make_student_notebook(reference)
    expected = {}
    for cell in reference.cells:
        key = _graded_key(cell)
        if key is not None:
            expected[key] = cell
    prepared = copy.deepcopy(submission)
    found = set()
    for cell in prepared.cells:
        key = _graded_key(cell)
        if key is None or key not in expected:
            continue
        found.add(key)
        cell.outputs = copy.deepcopy(expected[key].outputs)
        cell.execution_count = expected[key].execution_count
        if cell.source.splitlines()[:1] != [CHECK_MARKER]:
            cell.source = CHECK_MARKER + "\n" + cell.source
    missing = [f"{label} (part {part + 1})" if part else label
               for label, part in expected if (label, part) not in found]
    return prepared, missing


def _failures(junit_file, notebook):
    """(cell number, exercise, reason) of every failed cell in a junit report."""
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    failures = []
    for case in ElementTree.parse(junit_file).iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is None:
            continue
        text = _ANSI.sub("", (problem.get("message") or "") + "\n" + (problem.text or ""))
        match = re.search(r"Cell (\d+)", case.get("name", ""))
        number = int(match[1]) if match else None
        exercise = None
        if number is not None and number < len(code_cells):
            exercise = code_cells[number].metadata.get(METADATA_KEY, {}).get("exercise")
        if "Cell outputs differ" in text:
            reason = "output differs from the reference"
        elif "Timeout" in text:
            reason = "timed out"
        else:
            errors = re.findall(r"^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)):", text, flags=re.MULTILINE)
            reason = f"raised {errors[-1]}" if errors else "failed"
        failures.append((number, exercise, reason))
    return failures


def grade(submissions, reference, timeout=600, stream=sys.stdout):
    """Grade every notebook of ``submissions`` with ``pytest --nbval-lax``.

    Parameters
    ----------
    submissions : str or Path
        A notebook, or a folder searched recursively (for example one
        sub-folder per student).
    reference : str or Path
        The folder of the chapters (or of the student versions) the exercises
        come from. A submission is matched to the reference notebook it was
        generated from (recorded in its metadata), else by file name.
    timeout : float, default=600
        Seconds allowed for each cell.
    stream : file, default=sys.stdout
        Where the one-line-per-notebook summary goes.

    Returns
    -------
    results : dict
        Maps each submission's path to its list of problems (empty: passed).
    """
    reference = Path(reference)
    if not reference.is_dir():
        raise FileNotFoundError(f"reference {reference} is not a folder of notebooks")
    # the reference notebooks are the folder's own, not those of sub-folders (submissions)
    references = {p.name: p for p in sorted(reference.glob("*.ipynb"))}
    if not references:
        raise ValueError(f"reference {reference} holds no notebook (.ipynb)")
    paths = _notebooks(submissions, "submissions")
    base = Path(submissions) if Path(submissions).is_dir() else Path(submissions).parent
    results = {}
    with tempfile.TemporaryDirectory(prefix="kpca-grade-") as scratch:
        scratch = Path(scratch)
        # an empty configuration: the repository's pytest settings do not apply
        (scratch / "pytest.ini").write_text("[pytest]\n")
        for number, path in enumerate(paths):
            shown = path.relative_to(base) if path != base else path.name
            results[path] = problems = []
            try:
                submission = nbformat.read(path, as_version=4)
            except Exception as error:  # any unreadable file is a failed submission
                problems.append(f"not a readable notebook ({type(error).__name__})")
            else:
                source = submission.metadata.get(METADATA_KEY, {}).get("source", path.name)
                match = references.get(source) or references.get(path.name)
                if match is None:
                    problems.append(f"no reference notebook named {source} in {reference}")
                else:
                    prepared, missing = prepare_submission(submission, nbformat.read(match, as_version=4))
                    problems += [f"graded cell of {label} deleted" for label in missing]
                    run_file = scratch / f"{number:03d}_{path.name}"
                    nbformat.write(prepared, run_file)
                    junit = scratch / f"{number:03d}.xml"
                    completed = subprocess.run(
                        [sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env",
                         f"--nbval-cell-timeout={timeout}", "-p", "no:cacheprovider", "-q",
                         f"--junitxml={junit}", run_file.name],
                        cwd=scratch, capture_output=True, text=True,
                    )
                    if completed.returncode not in (0, 1) or not junit.exists():
                        last = (completed.stdout + completed.stderr).strip().splitlines()[-1:]
                        problems.append(f"pytest could not run it: {' '.join(last)}")
                    else:
                        for cell, exercise, reason in _failures(junit, prepared):
                            name = f"Cell {cell}" + (f" (exercise {exercise})" if exercise else "")
                            problems.append(f"{name}: {reason}")
            verdict = "PASS" if not problems else "FAIL"
            print(f"{verdict}  {shown}" + (f"  {'; '.join(problems)}" if problems else ""), file=stream)
    failed = sum(bool(p) for p in results.values())
    print(f"{len(results)} notebooks: {len(results) - failed} passed, {failed} failed", file=stream)
    return results


def main(argv=None):
    """Command line: ``python -m kpca_lib.coursework {make-student,grade} ...``."""
    parser = argparse.ArgumentParser(
        prog="python -m kpca_lib.coursework",
        description="Student notebooks from the book's chapters, and grading with nbval.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser(
        "make-student", help="write the student version of each notebook",
        description="Stub every solution cell (keeping the reference outputs of the graded "
                    "cells) and replace the solution text by a placeholder.",
    )
    make.add_argument("source", help="a notebook or a folder of notebooks, e.g. chapters/")
    make.add_argument("destination", help="the folder to write to, e.g. coursework/")
    check = commands.add_parser(
        "grade", help="grade a folder of submissions with pytest --nbval-lax",
        description="Put the reference outputs back into the graded cells, run "
                    "pytest --nbval-lax on each submission, print one line per notebook; "
                    "the exit status is 1 when any notebook fails.",
    )
    check.add_argument("submissions", help="a notebook or a folder of them (searched recursively)")
    check.add_argument("--reference", default="chapters",
                       help="folder of the chapters the exercises come from (default: chapters)")
    check.add_argument("--timeout", type=float, default=600, help="seconds allowed per cell (default: 600)")
    args = parser.parse_args(argv)
    try:
        if args.command == "make-student":
            for target, n_graded, n_solutions in make_student(args.source, args.destination):
                print(f"wrote {target}  ({n_graded} graded cells of {n_solutions} solution cells)")
            return 0
        if args.timeout <= 0:
            raise ValueError(f"--timeout must be positive, got {args.timeout}")
        results = grade(args.submissions, args.reference, timeout=args.timeout)
    except (OSError, ValueError, TypeError) as error:
        parser.exit(2, f"{parser.prog} {args.command}: error: {error}\n")
    return 1 if any(results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
