"""``python -m coursework self-check NOTEBOOK``: a student checks their work before handing it in.

The expected outputs come from the read-only copy that ``make-student`` wrote
beside the handouts (``.expected/<chapter>.json``, :mod:`.expected`), never
from the notebook itself: a student who edited the handout in place, ran it
and saved it has overwritten its expected outputs with their own, and a check
that read them from there would pass any answer.

The notebook is rebuilt as the grader rebuilds it, in a fresh folder: its
code cells only, every nbval marker a student added removed, and each
graded cell given ``# NBVAL_CHECK_OUTPUT`` and the expected outputs; then
``pytest --nbval-lax`` runs it with this Python (``--nbval-current-env``),
as the grader compares. Only the visible checks are compared: the hidden
checks are the instructor's.

It needs no bubblewrap and nothing of Linux (it imports nothing of
:mod:`coursework.isolation`), so it runs on macOS and Windows; it isolates
nothing either, and says so: the notebook runs as the student, as in
Jupyter, under a time limit per cell.
"""

import difflib
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from .cell_outputs import OUTPUTS_VARIABLE, printed_text
from .exercises import CHECK_MARKER, METADATA_KEY
from .expected import expected_path, read_expected
from .extra_output import extra_output
from .handout import recorded_entry
from .quiet_read import read_notebook_text
from .version import check_handout_version

__all__ = ["self_check", "find_expected", "build_check_notebook", "ISOLATION_NOTE"]

ISOLATION_NOTE = (
    "isolation: none: the self-check runs your notebook as you, on this computer, as Jupyter does "
    "(no bubblewrap needed; Linux, macOS and Windows): no sandbox, no limit on memory, processes or "
    "files, only a time limit per cell. It compares the visible checks only; the grader also runs "
    "hidden checks, on inputs you have not seen."
)
_ANSI = re.compile(r"(?:\x1b|#x1B)\[[0-9;]*[A-Za-z]")
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))\b:?\s*(.*)$")


def find_expected(notebook, nb, expected=None):
    """The copy of the expected outputs for ``nb``: ``expected`` (a file or a ``.expected`` folder),
    else ``.expected/`` beside the notebook, else ``student_notebooks/.expected/``.

    Raises
    ------
    ValueError
        If the notebook names no chapter, or no copy is found.
    """
    chapter = recorded_entry(nb).get("source")
    if not isinstance(chapter, str) or not chapter:
        raise ValueError(f"{notebook} records no chapter: it is not a student notebook made by make-student")
    if expected is not None:
        given = Path(expected)
        candidates = [expected_path(given, chapter) if given.is_dir() else given]
    else:
        candidates = [expected_path(Path(notebook).parent / ".expected", chapter),
                      expected_path(Path("student_notebooks") / ".expected", chapter)]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ValueError(f"no copy of the expected outputs of {chapter} at {' or '.join(map(str, candidates))}: "
                     "pass --expected with the .expected folder of the student notebooks you were given")


def _strip_markers(source):
    """``source`` without the comment lines that nbval reads as markers (the grader removes them too)."""
    return "\n".join(line for line in source.split("\n")
                     if not (line.strip().startswith("#") and re.search(r"NBVAL_|PYTEST_VALIDATE_",
                                                                        line.upper())))


def build_check_notebook(nb, expected):
    """(notebook to run, (exercise, part) or None per code cell, problems) for a self-check."""
    wanted = {(entry["exercise"], entry["part"]): entry for entry in expected["graded"]}
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    claims = []
    for cell in code:
        info = cell.metadata.get(METADATA_KEY)
        claims.append((info.get("exercise"), info.get("part")) if isinstance(info, dict) else None)
    problems = []
    for key in wanted:
        found = [number for number, claim in enumerate(claims) if claim == key]
        if len(found) != 1:
            problems.append((key, "graded cell deleted" if not found else
                             f"graded cell appears {len(found)} times (Cells {found}): keep one"))
    cells, roles = [], []
    for number, cell in enumerate(code):
        source, key = _strip_markers(cell.source), claims[number]
        if key in wanted and claims.count(key) == 1:
            entry = wanted[key]
            cells.append(new_code_cell(f"{CHECK_MARKER}\n{source}", outputs=nbformat.from_dict(entry["outputs"]),
                                       execution_count=entry.get("execution_count") or 1))
            roles.append(key)
        else:
            cells.append(new_code_cell(source))
            roles.append(None)
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return new_notebook(cells=cells, metadata={"kernelspec": kernelspec}), roles, problems


def _run(notebook, timeout):
    """Run ``pytest --nbval-lax`` on the notebook in a fresh folder.

    Returns {cell number: failure text or None} and {cell number: the text the cell printed}.
    """
    with tempfile.TemporaryDirectory(prefix="kpca-self-check-") as folder:
        folder = Path(folder)
        nbformat.write(notebook, folder / "notebook.ipynb")
        (folder / "pytest.ini").write_text("[pytest]\n")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "nbval.plugin", "-p", "no:cacheprovider",
                   "-p", "coursework.authoring.cell_outputs",
                   "--noconftest", "-c", str(folder / "pytest.ini"), "--rootdir", str(folder),
                   "--nbval-lax", "--nbval-current-env", "--nbval-cell-timeout", str(timeout),
                   f"--junitxml={folder / 'result.xml'}", "notebook.ipynb"]
        # only nbval and the plugin that keeps what each cell printed, not whatever pytest plugins
        # this environment has; coursework is found where this copy of it is, installed or not
        package_root = str(Path(__file__).resolve().parents[2])
        environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                       OUTPUTS_VARIABLE: str(folder / "printed.json"),
                       "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=environment,
                              timeout=timeout * (len(notebook.cells) + 1) + 120)
        if not (folder / "result.xml").is_file():
            raise RuntimeError(f"pytest --nbval-lax could not run: {(done.stdout + done.stderr)[-800:]}")
        results = {}
        for case in ElementTree.parse(folder / "result.xml").iter("testcase"):
            number = re.fullmatch(r"Cell (\d+)", case.get("name", ""))
            if number:
                failed = case.find("failure") if case.find("failure") is not None else case.find("error")
                text = None if failed is None else (failed.get("message", "") + "\n" + (failed.text or ""))
                results[int(number[1])] = None if text is None else _ANSI.sub("", text)
        printed = folder / "printed.json"
        printed = {int(cell): text for cell, text in json.loads(printed.read_text()).items()} \
            if printed.is_file() else {}
        return results, printed


# how many characters of a line the diff shows, and how many of them come before its first difference
_WIDTH, _BEFORE = 76, 24


def _window(line, start):
    """``line`` from character ``start``, at most ``_WIDTH`` of it, an ellipsis where it was cut."""
    return ("…" if start else "") + line[start:start + _WIDTH] + ("…" if len(line) > start + _WIDTH else "")


def output_diff(expected, actual, most=12):
    """The lines that differ between two outputs: ``+ expected`` and ``- yours``, each long line shown where it differs.

    Both lines of a pair are cut at the same character, a little before the
    first one that differs, so that the difference shows (and sits below
    itself) however long the line.

    >>> output_diff("[0, 1, 2]\\nok", "[0, 1, 3]\\nok")
    ['+ [0, 1, 2]', '- [0, 1, 3]']
    >>> output_diff("x" * 100 + "2", "x" * 100 + "3")[0]
    '+ …xxxxxxxxxxxxxxxxxxxxxxxx2'
    """
    old, new = expected.rstrip("\n").split("\n"), actual.rstrip("\n").split("\n")
    shown = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for want, got in itertools.zip_longest(old[i1:i2], new[j1:j2]):
            same = os.path.commonprefix([want or "", got or ""]) if want is not None and got is not None else ""
            start = len(same) - _BEFORE if len(same) > _WIDTH - _BEFORE else 0
            shown += [f"+ {_window(want, start)}"] if want is not None else []
            shown += [f"- {_window(got, start)}"] if got is not None else []
    return shown[:most]


def _reason(text, expected=None, actual=None):
    """A failure of nbval, in a few lines: the output that differs, or the exception raised.

    ``expected`` and ``actual``: the texts expected and printed, when known (the diff is made from them).
    """
    if "Cell outputs differ" in text or "mismatch" in text:
        diff = output_diff(expected, actual) if expected is not None and actual is not None else []
        if diff:
            return ("output differs from the expected output\n        (+ expected, - yours)\n"
                    + "\n".join(f"        {line}" for line in diff))
        lines = text.splitlines()
        start = next((i for i, line in enumerate(lines) if "assert reference_output" in line), None)
        diff = [line for line in lines[start:] if line.strip().startswith(("- ", "+ "))] if start else []
        shown = "\n".join(f"        {line.strip()}" for line in diff[:12])
        return "output differs from the expected output" + (
            "\n        (+ expected, - yours)\n" + shown if shown else "")
    found = [match for line in text.splitlines() if (match := _EXCEPTION.match(line.strip()))]
    if found:
        name, value = found[-1][1], found[-1][2]
        return f"raised {name}" + (f": {value[:200]}" if value else "")
    return "failed: " + " ".join(text.split())[:200]


def self_check(notebook, expected=None, timeout=300, stream=None, notes=None):
    """Check a student notebook against the handout's expected visible outputs; the exit status.

    Parameters
    ----------
    notebook : str or Path
        The student's notebook (run or not: it is run again).
    expected : str or Path, optional
        The ``.expected`` folder of the handouts, or one of its files (see
        :func:`find_expected`).
    timeout : float, default=300
        Seconds allowed per cell.

    Returns
    -------
    status : int
        0 if every graded exercise matches and no cell fails, 1 otherwise.
    """
    # the streams of the moment of the call (a default bound at import would outlive a redirection)
    stream = sys.stdout if stream is None else stream
    notes = sys.stderr if notes is None else notes
    if not timeout > 0:
        raise ValueError(f"--timeout must be positive, got {timeout}")
    try:
        nb = read_notebook_text(Path(notebook).read_text(encoding="utf-8"))  # ids given, no warning
    except Exception as error:  # noqa: BLE001 -- any unreadable file: one clear line
        raise ValueError(f"{notebook} is not a readable notebook ({type(error).__name__})") from None
    copy_path = find_expected(notebook, nb, expected)
    data = read_expected(copy_path)
    print(ISOLATION_NOTE, file=notes)
    print(f"expected outputs: {copy_path}", file=notes)
    if isinstance(data.get("version"), dict):
        warning = check_handout_version(nb, data["version"], Path(notebook).name)
        if warning:
            print(warning, file=notes)
    run, roles, problems = build_check_notebook(nb, data)
    results, printed = _run(run, timeout)
    expected_text = {(entry["exercise"], entry["part"]): printed_text(entry["outputs"]) for entry in data["graded"]}
    numbers = {entry["exercise"]: entry.get("number") for entry in data["graded"]}
    verdicts, extras = {}, []
    for key, reason in problems:
        verdicts.setdefault(key[0], []).append(reason)
    for number, key in enumerate(roles):
        if key is not None:
            verdicts.setdefault(key[0], [])
            if results.get(number) and extra_output(expected_text[key], printed.get(number)):
                # the answer is there, with more: it passes, as the grader judges it, with a note
                extras.append((key[0], printed[number]))
            elif results.get(number):
                verdicts[key[0]].append(_reason(results[number], expected_text[key], printed.get(number)))
            elif number not in results:
                verdicts[key[0]].append("was not run")
    others = [(number, _reason(text)) for number, text in sorted(results.items())
              if text and roles[number] is None]
    for exercise, reasons in verdicts.items():
        shown = f"Exercise {numbers[exercise]}" if numbers.get(exercise) else f"Exercise {exercise}"
        print(f"{'FAIL' if reasons else 'PASS'}  {shown}" + (": " + "; ".join(reasons) if reasons else ""),
              file=stream)
    for exercise, text in extras:
        shown = f"Exercise {numbers[exercise]}" if numbers.get(exercise) else f"Exercise {exercise}"
        print(f"NOTE  {shown}: your cell printed the expected output and more (a print left in a function, "
              "or a warning); it passes, as the grader judges it, but remove the extra output. It printed:\n"
              + "\n".join(f"        {line}" for line in text.split("\n")[:12]), file=stream)
    for number, reason in others:
        print(f"FAIL  Cell {number} (code cell {number} counting from 0, not an exercise): {reason}",
              file=stream)
    failed = sum(bool(reasons) for reasons in verdicts.values())
    print(f"{len(verdicts)} graded exercises: {len(verdicts) - failed} passed, {failed} failed"
          + (f"; {len(others)} other cells failed (the grader runs every cell)" if others else "")
          + " (visible checks only: the grader also runs hidden checks)", file=stream)
    return 1 if failed or others else 0
