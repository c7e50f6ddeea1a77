"""Grading: put the reference outputs back into the graded cells, run nbval, one line per notebook."""

import copy
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import nbformat

from .student import CHECK_MARKER, METADATA_KEY, make_student_notebook, notebooks_in

__all__ = ["prepare_submission", "grade"]

# colour codes; pytest's junit report writes the escape character as "#x1B"
_ANSI = re.compile(r"(?:\x1b|#x1B)\[[0-9;]*[A-Za-z]")


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
    paths = notebooks_in(submissions, "submissions")
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


