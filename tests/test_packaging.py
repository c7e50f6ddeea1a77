"""pyproject.toml declares what the packages import, and its wheel holds every module.

A wheel is built from the checkout (``pip wheel --no-deps``: pyproject.toml is
the only description it reads) and installed, without dependencies, into an
empty folder. Every module is then imported from that folder, in a fresh
interpreter that may import only what the wheel's metadata declares: a
finder placed first on ``sys.meta_path`` refuses any installed distribution
outside the declared dependencies and *their* declared dependencies, exactly
as if it were missing from a fresh environment. So an undeclared import
fails here as it would on a student's machine, without building a fresh
environment from the package index (which took most of this test's time).

The wheel and the source distribution are also what a course may hand to
students instead of the repository: they must hold no chapter, no solution
and no hidden check (``test_student_packages_hold_no_solution``).

Checked twice: with the core dependencies alone, where ``import kpca_lib``
and every numerical module must import and the explorers must say which
package is missing; then with the ``explorers`` and ``coursework`` extras,
where every module of both packages must import. The environment must also
satisfy every version range that pyproject.toml declares.
"""

import json
import re
import subprocess
import sys
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
# modules that need the explorers extra (matplotlib, ipywidgets)
NEEDS_EXPLORERS = ("kpca_lib.explorers", "kpca_lib.plotting")
EXTRAS = ("explorers", "coursework")


def modules_of(package):
    folder = ROOT / package
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def pip(command, *arguments):
    """Run pip of this environment, never fetching a dependency."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", command, "--no-deps", "--disable-pip-version-check", "-q",
         *arguments],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel built from pyproject.toml (no dependencies fetched or installed)."""
    out = tmp_path_factory.mktemp("wheel")
    pip("wheel", "--no-build-isolation", "-w", str(out), str(ROOT))
    (path,) = out.glob("kpca_lib-*.whl")
    return path


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    """The source distribution, built by setuptools' own backend (what ``python -m build --sdist
    --no-isolation`` calls; ``build`` itself is not pinned), offline."""
    out = tmp_path_factory.mktemp("sdist")
    subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                    "build_meta.build_sdist(sys.argv[1])", str(out)],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    (path,) = out.glob("kpca_lib-*.tar.gz")
    return path


@pytest.fixture(scope="module")
def target(wheel, tmp_path_factory):
    """A folder holding the wheel's installed files, and nothing else."""
    folder = tmp_path_factory.mktemp("site")
    pip("install", "--no-compile", "--target", str(folder), str(wheel))
    return folder


def declared_requirements(wheel, extras=()):
    """Requirements of the wheel's METADATA that apply with these extras."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        message = Parser().parsestr(archive.read(name).decode())
    return applicable(message.get_all("Requires-Dist") or [], extras)


def applicable(requirement_lines, extras):
    chosen = []
    for line in requirement_lines:
        requirement = Requirement(line)
        if requirement.marker is None or any(
            requirement.marker.evaluate({**default_environment(), "extra": extra})
            for extra in ("", *extras)
        ):
            chosen.append(requirement)
    return chosen


def allowed_distributions(requirements):
    """The declared distributions and, through their own metadata, what they declare."""
    allowed, stack = set(), list(requirements)
    while stack:
        requirement = stack.pop()
        name = canonicalize_name(requirement.name)
        if name in allowed or name == "kpca-lib":
            continue
        allowed.add(name)
        installed = metadata.distribution(requirement.name)
        stack.extend(applicable(installed.requires or [], requirement.extras))
    return allowed


# Run in a fresh interpreter (-I: no user site, no PYTHONPATH): the wheel's folder
# first on sys.path; any installed distribution that was not declared is refused.
IMPORT_EACH = r"""
import importlib, importlib.metadata as metadata, json, sys
from packaging.utils import canonicalize_name
target, allowed, names = sys.argv[1], set(json.loads(sys.argv[2])), json.loads(sys.argv[3])
sys.path.insert(0, target)
owners = metadata.packages_distributions()

class Undeclared:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        dists = {canonicalize_name(d) for d in owners.get(top, ())}
        if top in sys.stdlib_module_names or top in ("kpca_lib", "coursework") or not dists:
            return None
        if not dists & allowed:
            raise ModuleNotFoundError(f"No module named {top!r} (installed here, not declared)", name=top)
        return None

sys.meta_path.insert(0, Undeclared())
errors = {}
for name in names:
    try:
        module = importlib.import_module(name)
        if not module.__file__.startswith(target):
            errors[name] = f"imported from {module.__file__}, not from the wheel"
    except Exception as error:
        errors[name] = f"{type(error).__name__}: {error}"
print(json.dumps(errors))
"""


def import_each(target, allowed, names):
    """Import each module from the wheel's folder; return {name: error} of the failures."""
    result = subprocess.run(
        [sys.executable, "-I", "-c", IMPORT_EACH, str(target), json.dumps(sorted(allowed)),
         json.dumps(names)],
        capture_output=True, text=True, cwd=target, timeout=300, check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_wheel_holds_every_module_of_both_packages(wheel):
    with zipfile.ZipFile(wheel) as archive:
        files = set(archive.namelist())
    # the modules, the book's matplotlib style and the data the library reads (appendix B's phase diagram)
    wanted = {path.relative_to(ROOT).as_posix() for package in ("kpca_lib", "coursework")
              for pattern in ("*.py", "*.mplstyle", "*.npz") for path in (ROOT / package).rglob(pattern)}
    assert "kpca_lib/datasets/robust_pca_phase.npz" in wanted
    assert wanted - files == set()
    assert not any(re.match(r"(tests|chapters|benchmarks)/", name) for name in files)


def test_environment_satisfies_every_declared_version_range(wheel):
    for requirement in declared_requirements(wheel, EXTRAS):
        version = metadata.version(requirement.name)
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)


def test_core_dependencies_import_the_numerical_library(wheel, target):
    allowed = allowed_distributions(declared_requirements(wheel))
    assert {"numpy", "scipy", "scikit-learn"} <= allowed and "matplotlib" not in allowed
    core = [name for name in modules_of("kpca_lib") if not name.startswith(NEEDS_EXPLORERS)]
    assert "kpca_lib" in core and "kpca_lib.kernel_pca" in core
    assert import_each(target, allowed, core) == {}
    # the explorers need their extra, and say which package is missing
    errors = import_each(target, allowed, ["kpca_lib.explorers"])
    assert "ModuleNotFoundError" in errors["kpca_lib.explorers"]


def test_extras_import_every_module_of_every_package(wheel, target):
    allowed = allowed_distributions(declared_requirements(wheel, EXTRAS))
    names = modules_of("kpca_lib") + modules_of("coursework")
    assert any(name.startswith("coursework") for name in names)
    assert import_each(target, allowed, names) == {}


def test_an_undeclared_import_is_caught(wheel, target):
    # the check can fail: with only numpy declared, kpca_lib's scipy import is refused
    allowed = allowed_distributions([Requirement("numpy")])
    errors = import_each(target, allowed, ["kpca_lib"])
    assert "scipy" in errors["kpca_lib"] or "sklearn" in errors["kpca_lib"], errors


def solution_lines():
    """Lines that only the solutions and hidden checks of the chapters hold (longer than 30 characters)."""
    private, public = set(), set()
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            text = "".join(cell["source"])
            tags = cell.get("metadata", {}).get("tags", [])
            lines = {line.strip() for line in text.splitlines() if len(line.strip()) > 30}
            if "solution" in tags or "hidden-check" in tags or "{solution" in text:
                private |= lines
            else:
                public |= lines
    return private - public


def hidden_check_lines():
    """The code lines of the chapters' hidden checks (their inputs, seeds and calls)."""
    lines = set()
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if "hidden-check" in cell.get("metadata", {}).get("tags", []):
                lines |= {line.strip() for line in "".join(cell["source"]).splitlines() if len(line.strip()) > 20}
    return lines


def test_student_packages_hold_no_solution(wheel, sdist):
    import tarfile

    secret = solution_lines()
    assert len(secret) > 100  # the chapters have solutions, and the check can find them
    with zipfile.ZipFile(wheel) as archive:
        raw = {name: archive.read(name) for name in archive.namelist()}
    with tarfile.open(sdist) as archive:
        raw_sources = {member.name: archive.extractfile(member).read()
                       for member in archive.getmembers() if member.isfile()}
    raw.update(raw_sources)
    files = {name: raw[name].decode(errors="replace") for name in raw if name not in raw_sources}
    sources = {name: data.decode(errors="replace") for name, data in raw_sources.items()}
    assert any(name.endswith("kpca_lib/kernel_pca.py") for name in sources)
    assert any(name.endswith("coursework/authoring/self_check.py") for name in sources)
    for name, text in {**files, **sources}.items():
        assert not re.search(r"(^|/)(chapters|tests|benchmarks|student_notebooks)/|\\.ipynb$", name), name
        package_file = re.search(r"(?:^|/)((?:kpca_lib|coursework)/.*)$", name)
        if package_file and not re.search(r"\\.(dist|egg)-info/", name):
            # the library and the tools exactly as in the checkout, byte for byte (data files too)
            assert raw[name] == (ROOT / package_file[1]).read_bytes(), name
        else:  # metadata and README: no line of any solution or hidden check
            assert not [line for line in secret if line in text], name
    hidden = hidden_check_lines()
    assert hidden and not any(line in text for line in hidden for text in {**files, **sources}.values())
