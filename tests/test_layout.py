"""The layout of the packages: one idea per module, modules and functions of readable size.

A module holds at most 400 lines and a function at most 80 (its signature
and code; a numpydoc docstring is not counted, so that documenting a
function never pushes it over), unless a comment ``# long: <why>`` on the line of the ``def`` or
the line above says why it cannot be split. The numerical library never
imports the coursework tooling or the explorers' drawing dependencies.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["kpca_lib", "coursework"]
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
SOURCES = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_there_are_sources():
    assert len(SOURCES) > 10


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_module_and_function_sizes(path):
    text = path.read_text()
    lines = text.splitlines()
    assert len(lines) <= MAX_MODULE_LINES, f"{path.name} has {len(lines)} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            length = node.end_lineno - first + 1
            body = node.body[0]
            if isinstance(body, ast.Expr) and isinstance(getattr(body, "value", None), ast.Constant) \
                    and isinstance(body.value.value, str):
                length -= body.end_lineno - body.lineno + 1  # the docstring
            excused = any("# long:" in lines[i - 1] for i in (first - 1, first) if i >= 1)
            assert length <= MAX_FUNCTION_LINES or excused, (
                f"{path.name}: {node.name} has {length} lines; split it or say why with '# long:'")


def imported_modules(path):
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_numerical_library_never_imports_the_coursework_tools():
    for path in (ROOT / "kpca_lib").rglob("*.py"):
        assert "coursework" not in imported_modules(path), path


def test_import_kpca_lib_needs_only_the_core_dependencies():
    # a fresh interpreter: which heavy modules does `import kpca_lib` pull in? (not
    # pandas: scikit-learn imports it whenever it is installed)
    code = ("import sys, kpca_lib; print(sorted(m for m in ('matplotlib', 'PIL', 'ipywidgets', "
            "'nbformat', 'coursework', 'dask', 'distributed') if m in sys.modules))")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert output.stdout.strip() == "[]"


def _coursework_import_graph():
    """Which coursework modules each coursework module imports, at the top or inside a function."""
    package = ROOT / "coursework"
    modules = {".".join(path.relative_to(ROOT).with_suffix("").parts): path for path in package.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        if path.name == "__init__.py":
            here = here[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = here[:len(here) - node.level + 1] if node.level else []
                stem = ".".join([*base, *(node.module.split(".") if node.module else [])])
                for alias in node.names:  # `from . import session` names a module
                    targets.add(f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in modules else stem)
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
        graph[name] = {target for target in targets if target in modules and target != name}
    return graph


def test_coursework_modules_import_each_other_without_a_circle():
    # a circle held together by imports inside functions works until someone moves one to the top
    # (issue 39, item 11: expected -> handout -> student -> expected)
    graph = _coursework_import_graph()
    assert {"coursework.authoring.student", "coursework.authoring.handout"} <= set(graph)
    assert "coursework.authoring.exercises" in graph["coursework.authoring.student"]  # the graph sees imports
    state = {}

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                circle = path[path.index(target):] + [target]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target, [*path, target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
