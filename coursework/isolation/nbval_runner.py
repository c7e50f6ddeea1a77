"""The process that grades one submission: ``pytest --nbval-lax`` on its run notebook, and nothing else.

The grader starts one runner per submission (:func:`runner_command`), in a
fresh folder that holds only the run notebook, with a clean environment.
The runner

* joins the submission's control group, if any (:mod:`coursework.isolation.limits`);
  without one, bounds its own address space (``runner_memory``: what
  nbval holds of a notebook's output is bounded by the output cap, and
  this is the backstop);
* makes itself non-dumpable and a child subreaper (:mod:`coursework.isolation.processes`);
* runs pytest in-process with the grader's plugin (:mod:`coursework.isolation.nbval_plugin`),
  no plugin autoloading, no ``conftest.py`` (``--noconftest``) and no
  configuration file (``-c /dev/null``);
* stops everything when the wall-clock limit of the notebook is reached, and,
  in every case, kills every process the notebook left behind before it exits;
* writes its results as JSON lines to a pipe inherited from the grader
  (never to a file), ending with a ``finished`` record.
"""

import json
import os
import resource
import sys
import threading
import time
from pathlib import Path

__all__ = ["runner_command", "skip_slow_optional_imports", "main"]

_BOOTSTRAP = "import sys; sys.path.insert(0, sys.argv.pop(1)); from coursework.isolation.nbval_runner import main; main()"


def runner_command(settings):
    """The command line of a runner (the settings travel as JSON on it)."""
    parent = str(Path(__file__).resolve().parents[2])
    return [sys.executable, "-I", "-c", _BOOTSTRAP, parent, json.dumps(settings)]


def _pytest_arguments(settings):
    folder = Path(settings["notebook"]).parent
    timeout = settings["timeout"]
    return [
        # no configuration file at all, and no conftest.py: nothing in the folder is honoured
        "-c", os.devnull, "--rootdir", str(folder), "--noconftest",
        "-p", "no:cacheprovider", "-p", "nbval.plugin", "-q", "--color=no", "-W", "ignore",
        "--nbval-lax", f"--nbval-cell-timeout={timeout}",
        # a kernel starts in seconds, and in a minute or more on a very busy machine
        f"--nbval-kernel-startup-timeout={min(180.0, timeout)}",
        str(settings["notebook"]),
    ]


def skip_slow_optional_imports():
    """Keep jsonschema from importing ``rfc3987_syntax``, an optional IRI checker.

    Importing it builds a parser and takes seconds, in every process that
    imports nbformat; notebooks use no IRI format, and jsonschema does without
    it when the import fails.
    """
    sys.modules.setdefault("rfc3987_syntax", None)


def limit_own_memory(limit):
    """Bound this process's address space by ``limit`` bytes (the soft limit only).

    The hard limit stays as it is, so that the kernel launcher, a child, can
    still give the kernel the larger ``--memory-mb``.

    Parameters
    ----------
    limit : int or None
        Bytes; None or 0 leaves the limit as it is.
    """
    if not limit:
        return
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise ValueError(f"limit must be a whole number of bytes >= 0, got {limit!r}")
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def main(argv=None):
    """Run one submission; see the module docstring."""
    from .processes import become_subreaper, kill_descendants, make_private

    argv = sys.argv[1:] if argv is None else argv
    settings = json.loads(argv[0])
    for procs in settings.get("cgroup_procs", []):  # the submission's control group, before anything else
        with open(procs, "w") as file:
            file.write(str(os.getpid()))
    limit_own_memory(settings.get("runner_memory"))
    skip_slow_optional_imports()
    make_private()
    become_subreaper()
    descriptor = settings["results_fd"]
    os.set_inheritable(descriptor, False)
    lock = threading.Lock()
    start = time.monotonic()

    def report(record):
        record["seconds"] = round(time.monotonic() - start, 3)
        line = (json.dumps(record) + "\n").encode()
        with lock:
            try:
                os.write(descriptor, line)
            except OSError:
                pass

    def watchdog():
        time.sleep(settings["timeout"])
        report({"event": "timeout", "cell": plugin.current, "peak_kb": peak_memory_kb()})
        kill_descendants()
        os._exit(4)

    import pytest

    from .nbval_plugin import GraderPlugin, peak_memory_kb

    plugin = GraderPlugin(settings, report)
    threading.Thread(target=watchdog, daemon=True).start()
    status = pytest.main(_pytest_arguments(settings), plugins=[plugin])
    kill_descendants()
    report({"event": "finished", "status": int(status), "peak_kb": peak_memory_kb()})
    sys.stdout.flush()
    os._exit(0)
