"""The environment pre-check: a fault of the grader's environment is never a student's failure.

Before any submission runs, :func:`check_environment` starts one kernel
exactly as a submission's would be started (the same Python, the same
isolation, sandbox included, the same limits) and imports in it ``kpca_lib``
and every module that the reference chapters import. If any import fails,
or the kernel cannot start, the grader stops with exit status 2 and the
reason, before grading anything: otherwise every submission would FAIL with,
say, ``No module named 'kpca_lib'`` (a venv installed from another checkout),
and the instructor would read it as the students' fault.
"""

import ast
import importlib.util
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from ..isolation.execution import run_notebook
from ..isolation.kernel_launcher import KERNEL_NAME
from ..isolation.sandbox import GraderError

__all__ = ["chapter_imports", "probe_source", "check_environment"]

_PROBE_SECONDS = 120


def chapter_imports(folder, names=None):
    """The top-level modules the chapters of ``folder`` (those in ``names``, if given) import, sorted.

    ``kpca_lib`` is always among them.

    Lines that are not Python (IPython magics, shell escapes) are skipped, and
    so is a cell that does not parse.
    """
    modules = {"kpca_lib"}
    for path in sorted(Path(folder).glob("*.ipynb")):
        if names is not None and path.name not in names:
            continue
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            source = "\n".join(line for line in cell.source.split("\n")
                               if not line.lstrip().startswith(("%", "!")))
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
    return sorted(modules - {"__future__"})


def probe_source(modules):
    """The probe cell: import each module, and raise one ImportError naming every failure."""
    return "\n".join([
        "import importlib as _importlib",
        "_failed = []",
        f"for _name in {list(modules)!r}:",
        "    try:",
        "        _importlib.import_module(_name)",
        "    except BaseException as _error:",
        "        _failed.append(f'{_name} ({type(_error).__name__}: {_error})')",
        "if _failed:",
        "    raise ImportError('; '.join(_failed))",
    ])


def _problem(run):
    """What went wrong in the probe's run, or None if its cell passed."""
    for record in run.events("cell"):
        if record.get("outcome") != "passed":
            text = record.get("exception") or (record.get("message") or "").split("\n")[0]
            return text[:400] or "the probe cell failed"
    if run.events("finished"):
        return None
    for event in ("timeout", "kernel-died", "output-cap"):
        if run.events(event):
            return f"the kernel {'died' if event == 'kernel-died' else 'went over a limit (' + event + ')'}"
    last = [line for line in run.tail.strip().splitlines() if line.strip()][-1:]
    return "the kernel could not start" + (f": {last[0][:300]}" if last else "")


def check_environment(reference, isolation, limits, hidden, chapters=None):
    """Import the chapters' modules in a kernel isolated as a submission's; GraderError if any fails.

    Parameters
    ----------
    reference : str or Path
        The folder of the reference chapters.
    isolation : coursework.isolation.sandbox.Isolation
        The isolation the submissions will run in (its ``library`` set).
    limits : coursework.isolation.limits.Limits
    hidden : list of Path
        What the sandbox hides.
    chapters : set of str, optional
        The chapters whose imports are checked (default: every chapter of ``reference``).

    Raises
    ------
    coursework.isolation.sandbox.GraderError
        With the failed imports and a hint, if the probe did not pass.
    """
    modules = chapter_imports(reference, chapters)
    notebook = new_notebook(cells=[new_code_cell(probe_source(modules))], metadata={
        "kernelspec": {"name": KERNEL_NAME, "display_name": "grader", "language": "python"}})
    # a short path: the kernel's Unix sockets live under it, and a socket's path may not pass
    # 107 bytes (ZMQError "File name too long" under a deep TMPDIR), no longer than a submission's
    with tempfile.TemporaryDirectory(prefix="kpca-pc-", ignore_cleanup_errors=True) as root:
        if isolation.uid is not None:
            Path(root).chmod(0o711)
        run = run_notebook(notebook, Path(root) / "000", isolation,
                           replace(limits, timeout=min(limits.timeout, _PROBE_SECONDS)), hidden)
    problem = _problem(run)
    if problem is None:
        return
    where = isolation.describe().split(" (")[0]
    raise GraderError(f"environment check: a kernel started as the submissions' will be ({where}) cannot "
                      f"import what the chapters import: {problem}; {_hint(modules, problem)}. Nothing was graded")


def _hint(modules, problem):
    """What to do: the grader's own Python imports the failed modules (the kernel's view differs), or not."""
    failed = [name for name in modules if f"{name} (" in problem]
    missing = [name for name in failed if _find(name) is None]
    if missing:
        return (f"{sys.executable} cannot import {', '.join(missing)} either: run the grader with the Python "
                "of the book's environment (.venv/bin/python), where pip install -r requirements.txt "
                "installed them")
    if failed:
        return (f"{sys.executable} imports {', '.join(failed)} but the kernel cannot: the kernel sees the "
                "Python installation and the packages installed in it, not PYTHONPATH nor the current "
                "folder; install them into that environment (pip install -e . for kpca_lib, from this "
                "checkout)")
    return "no submission can run without that kernel"


def _find(name):
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
