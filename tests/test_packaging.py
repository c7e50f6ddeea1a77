"""pyproject.toml declares what the packages import.

A fresh virtual environment is built from pyproject.toml alone (not from
requirements.txt, which pins everything and so would hide an undeclared
import): first with the core dependencies, where ``import kpca_lib`` and every
numerical module must import; then with the ``explorers`` and ``coursework``
extras, where every module of every package must import.
"""

import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# modules that need the explorers extra (matplotlib, pillow, ipywidgets)
NEEDS_EXPLORERS = ("kpca_lib.explorers", "kpca_lib.plotting")
NETWORK_TROUBLE = ("NewConnectionError", "Temporary failure in name resolution",
                   "No matching distribution found", "Could not find a version")


def modules_of(package):
    folder = ROOT / package
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def pip_install(python, *requirements):
    result = subprocess.run(
        # --no-compile: byte-compiling every file of scipy, scikit-learn and matplotlib
        # would be most of the install time, and the test imports only our modules
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile",
         *requirements],
        capture_output=True, text=True, timeout=900,
    )
    if result.returncode != 0:
        if any(trouble in result.stderr for trouble in NETWORK_TROUBLE):
            pytest.skip(f"no package index reachable to build a fresh environment: {result.stderr[-300:]}")
        raise AssertionError(result.stderr[-3000:])


def import_each(python, names):
    """Import each module in a fresh interpreter; return {name: error} of the failures."""
    code = (
        "import importlib, sys, json\n"
        "errors = {}\n"
        f"for name in {names!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as error:\n"
        "        errors[name] = f'{type(error).__name__}: {error}'\n"
        "print(json.dumps(errors))\n"
    )
    # run outside the checkout, so that the installed copy is imported
    result = subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                            cwd=python.parent, timeout=300, check=True)
    import json

    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fresh-env")
    venv.create(folder, with_pip=True)
    return folder / "bin" / "python"


def test_core_dependencies_import_the_numerical_library(fresh_python):
    pip_install(fresh_python, str(ROOT))
    core = [name for name in modules_of("kpca_lib") if not name.startswith(NEEDS_EXPLORERS)]
    assert "kpca_lib" in core and "kpca_lib.kernel_pca" in core
    assert import_each(fresh_python, core) == {}
    # the explorers need their extra, and say which package is missing
    errors = import_each(fresh_python, ["kpca_lib.explorers"])
    assert "ModuleNotFoundError" in errors["kpca_lib.explorers"]


def test_extras_import_every_module_of_every_package(fresh_python):
    pip_install(fresh_python, f"{ROOT}[explorers,coursework]")
    names = modules_of("kpca_lib") + modules_of("coursework")
    assert any(name.startswith("coursework") for name in names)
    assert import_each(fresh_python, names) == {}
