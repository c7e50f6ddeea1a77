"""A submission as the grader runs it: read defensively, cleaned, graded cells locked, hidden checks added.

Nothing of the submission is trusted beyond the code of its cells and the
``kpca_coursework`` label that says which cell answers which exercise:

* every nbval marker (``# NBVAL_SKIP``, ``# PYTEST_VALIDATE_IGNORE_OUTPUT``,
  ...) and every nbval tag is removed from every cell, and all other metadata
  and outputs are dropped;
* which cells are graded, and what they must print, comes from the
  :class:`~coursework.grading.reference.Reference`: each graded cell gets
  ``# NBVAL_CHECK_OUTPUT`` as its first line and the reference's outputs;
* the reference's hidden checks are appended after the student's cell, each
  through the ``_kpca_grader`` helpers (:mod:`coursework.grading.in_kernel`) that a
  first setup cell installs.
* with ``prune``, the book's own cells that nothing graded needs (its figures,
  tables and benchmarks) are left out (:func:`needed_cells`);
* each cell's time unit (its exercise, or itself) goes into the run notebook's
  metadata (:func:`time_units`), for the runner's time limits.

The run notebook only holds code cells. :class:`Role` says what each of them
is, so that a failure can be reported in the student's own numbering.
"""

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook
from nbval.plugin import comment_markers

from ..authoring.exercises import CHECK_MARKER, METADATA_KEY
from ..isolation.kernel_launcher import KERNEL_NAME
from .submissions import SubmissionProblem, short

__all__ = ["Role", "RunPlan", "time_units", "UNITS_KEY", "needed_cells", "strip_nbval_markers", "build_run_notebook",
           "setup_source", "student_places",
           "KERNEL_NAME"]


@dataclass(frozen=True)
class Role:
    """What a code cell of the run notebook is.

    ``kind`` is ``"setup"`` (the grader's first cell), ``"student"`` (a cell
    of the submission), ``"graded"`` (the submission's cell for a graded part
    of an exercise) or ``"hidden"`` (hidden check ``number`` of ``exercise``).
    ``cell`` is the number of the submission's code cell (nbval's ``Cell N``
    in the student's own notebook).
    """

    kind: str
    exercise: str = None
    cell: int = None
    number: int = None
    part: int = None


@dataclass
class RunPlan:
    """The notebook to run, the role of each of its code cells, and problems found on the way.

    ``problems`` are (exercise, reason) pairs: a graded cell deleted or duplicated.
    """

    notebook: object
    roles: list
    problems: list
    # how the student finds each of their code cells (by its number): see student_places
    places: list = None


_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


def student_places(submission):
    """How a student finds each code cell of their notebook: the heading above it, and which code cell under it.

    >>> from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
    >>> nb = new_notebook(cells=[new_code_cell("1"), new_markdown_cell("## Two limits\\n\\nText"),
    ...                          new_code_cell("2"), new_code_cell("3")])
    >>> student_places(nb)
    ['the first code cell of the notebook', 'the first code cell under "Two limits"', \
'the second code cell under "Two limits"']
    """
    places, heading, count = [], None, 0
    for cell in submission.cells:
        if cell.cell_type == "markdown":
            titles = [line.lstrip("#").strip() for line in cell.source.split("\n")
                      if line.startswith("#") and line.lstrip("#")[:1] == " "]
            if titles:
                heading, count = titles[-1][:80], 0
        elif cell.cell_type == "code":
            count += 1
            nth = _ORDINALS[count - 1] if count <= len(_ORDINALS) else f"{count}th"
            places.append(f"the {nth} code cell " + (f'under "{heading}"' if heading else "of the notebook"))
    return places


def _is_marker(line):
    """Whether nbval would read ``line`` as a marker (or it looks like one, in any case)."""
    stripped = line.strip()
    if not stripped.startswith("#"):
        return False
    comment = stripped.lstrip("#").strip()
    upper = comment.upper()
    return comment in comment_markers or "NBVAL_" in upper or "PYTEST_VALIDATE_" in upper


def strip_nbval_markers(source):
    """``source`` without any line that nbval reads as a marker.

    >>> print(strip_nbval_markers("# NBVAL_SKIP\\nx = 1\\n  #PYTEST_VALIDATE_IGNORE_OUTPUT"))
    x = 1
    """
    # lines end at "\n" only, as in Jupyter: str.splitlines would also split (and lose) U+2028,
    # U+0085, form feeds and other separators a student may have pasted into a string
    return "\n".join(line for line in source.split("\n") if not _is_marker(line))


def _exercise_key(cell, number):
    """The (exercise, part) a submission's code cell claims to answer, or None."""
    info = cell.metadata.get(METADATA_KEY)
    if info is None:
        return None
    if not (isinstance(info, dict) and isinstance(info.get("exercise"), str)
            and type(info.get("part")) is int):
        raise SubmissionProblem(f"malformed metadata in Cell {number}: {METADATA_KEY} must hold "
                                f"'exercise' (text) and 'part' (a whole number), got {short(info)}")
    return info["exercise"], info["part"]


def _locate(submission):
    """The submission's code cells, and the (exercise, part) each claims to answer (or None)."""
    code_cells = [cell for cell in submission.cells if cell.cell_type == "code"]
    return code_cells, [_exercise_key(cell, number) for number, cell in enumerate(code_cells)]


def _describe(key):
    exercise, part = key
    return f"{exercise} (part {part + 1})" if part else exercise


def _hidden_cell(check):
    source = "\n".join([
        CHECK_MARKER,
        f"# hidden check {check.number} of {check.exercise}, run by the grader",
        f'__import__("sys").modules["_kpca_grader"].run_hidden_check('
        f"{check.exercise!r}, {check.number}, {check.source!r})",
    ])
    expected = check.expected
    return new_code_cell(source, outputs=nbformat.from_dict(expected.outputs),
                         execution_count=expected.execution_count)


def setup_source():
    """The grader's first cell: install the ``_kpca_grader`` helpers and save the pristine state."""
    code = (Path(__file__).with_name("in_kernel.py")).read_text(encoding="utf-8")
    return "\n".join([
        "# grader setup: saves what the hidden checks restore (coursework.grading.in_kernel)",
        "import sys as _sys, types as _types",
        '_module = _types.ModuleType("_kpca_grader")',
        f"exec({code!r}, _module.__dict__)",
        '_sys.modules["_kpca_grader"] = _module',
        "_module.snapshot()",
        "del _sys, _types, _module",
    ])


# calls that change what later cells print or compute, wherever they are made (a cell that makes one is run)
_GLOBAL_STATE = re.compile(r"set_printoptions|\bseed\s*\(|filterwarnings|simplefilter|rcParams|\brc\s*\(|"
                           r"style\.use|set_config|setrecursionlimit|environ|sys\.path|\bglobal\b|\bexec\s*\(|"
                           r"\beval\s*\(|globals\s*\(|__builtins__|__import__")


def _base_name(node):
    """The name an attribute or item chain starts from (``X`` of ``X[0].real``), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _Scopes(ast.NodeVisitor):
    """Top-level binds, changes and free reads of a cell (names local to a function are its own)."""

    def __init__(self):
        self.binds, self.changes, self.reads, self.modules = set(), set(), set(), set()
        self.locals = []  # the local names of each function being visited

    def _store(self, name):
        (self.locals[-1] if self.locals else self.binds).add(name)

    def _read(self, name):
        if not any(name in scope for scope in self.locals):
            self.reads.add(name)

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._store(node.id)
        else:
            self._read(node.id)

    def _function(self, node, body):
        arguments = node.args
        names = {arg.arg for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                     *filter(None, [arguments.vararg, arguments.kwarg])]}
        for default in [*arguments.defaults, *arguments.kw_defaults]:
            if default is not None:
                self.visit(default)
        # its locals: its arguments and every name it stores (Python's rule, without global statements)
        names |= {n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, (ast.Store, ast.Del))}
        self.locals.append(names)
        for part in body:
            self.visit(part)
        self.locals.pop()

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._store(node.name)
        self._function(node, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._function(node, [node.body])

    def _comprehension(self, node):
        # its targets are its own (Python 3): [f(x) for x in xs] reads xs and f, not an x of the cells before
        names = {n.id for generator in node.generators for n in ast.walk(generator.target)
                 if isinstance(n, ast.Name)}
        self.visit(node.generators[0].iter)
        self.locals.append(names)
        for generator in node.generators:
            for part in [generator.target, *generator.ifs] + ([generator.iter] if generator is not
                                                                node.generators[0] else []):
                self.visit(part)
        for part in [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]:
            self.visit(part)
        self.locals.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_ClassDef(self, node):
        self._store(node.name)
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            name = (alias.asname or alias.name).split(".")[0]
            self._store(name)
            self.modules.add(name)

    visit_ImportFrom = visit_Import

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute):  # a method call may change its object: rng.normal()
            base = _base_name(node.func.value)
            if base is not None and not self.locals:
                self.changes.add(base)
        self.generic_visit(node)

    def _targets(self, targets, augmented=False):
        for target in targets:
            for part in ast.walk(target):
                base = _base_name(part.value) if isinstance(part, (ast.Attribute, ast.Subscript)) else \
                    part.id if augmented and isinstance(part, ast.Name) else None
                if base is not None and not any(base in scope for scope in self.locals):
                    self.changes.add(base)

    def visit_Assign(self, node):
        self._targets(node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._targets([node.target], augmented=True)
        if isinstance(node.target, ast.Name):
            self._read(node.target.id)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self._targets([node.target])
        self.generic_visit(node)

    def visit_Delete(self, node):
        self._targets(node.targets)
        self.generic_visit(node)


@functools.lru_cache(maxsize=4096)
def _names(source):
    """What a cell's code binds, changes in place, reads and imports, and whether it touches global state.

    Binds: the names it stores outside functions (assignments, ``for`` and
    ``with`` targets, functions, classes, imports); kills: those it always
    binds (a plain assignment, a def, an import at the top level). Changes: the
    names it calls a method on, assigns an item or attribute of, or augments
    (``rng.normal()``, ``X[0] = 1``, ``total += 1``). Reads: every name it loads
    that is not a function's own local (a function's body reads the globals
    it uses) and that it has not bound before (``rng = ...; rng.normal()``
    reads no ``rng`` from the cells before).
    ``state``: it calls something that changes what later cells print or
    compute (:data:`_GLOBAL_STATE`). None when the cell is not plain Python
    (magics, a syntax error, ``global``): what it reads cannot be told.
    Cached: every student's copy of a book cell is the same text.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    if any(isinstance(node, (ast.Global, ast.Nonlocal)) for node in ast.walk(tree)):
        return None
    binds, changes, reads, modules, kills = set(), set(), set(), set(), set()
    for statement in tree.body:  # in order: what a cell binds before it reads it is not read from before
        scopes = _Scopes()
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            # a loop's body reads its own target (for ax in axes: ax.plot()), not one of the cells before
            scopes.visit(statement.iter)
            looped = _Scopes()
            for part in [statement.target, *statement.body, *statement.orelse]:
                looped.visit(part)
            target = {n.id for n in ast.walk(statement.target) if isinstance(n, ast.Name)}
            scopes.binds |= looped.binds
            scopes.modules |= looped.modules
            scopes.reads |= looped.reads - target
            scopes.changes |= looped.changes - target
        else:
            scopes.visit(statement)
        binds |= scopes.binds
        modules |= scopes.modules
        reads |= scopes.reads - kills
        changes |= scopes.changes - kills
        kills |= _unconditional(statement)
    star = any(isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
               for node in ast.walk(tree))  # binds names that cannot be told: always run
    return _Names(frozenset(binds), frozenset(changes), frozenset(reads), frozenset(modules),
                  frozenset(kills), star or bool(_GLOBAL_STATE.search(_outside_local_contexts(source, tree))))


# contexts that put back on leaving what their body changes (warning filters, numpy's error and print options)
_LOCAL_CONTEXTS = re.compile(r"catch_warnings|errstate|printoptions|rc_context")


def _outside_local_contexts(source, tree):
    """``source`` without the bodies of ``with warnings.catch_warnings():`` and the like (their changes end there)."""
    lines = source.split("\n")
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                _LOCAL_CONTEXTS.search(ast.unparse(item.context_expr)) for item in node.items):
            for number in range(node.lineno - 1, min(node.end_lineno, len(lines))):
                lines[number] = ""
    return "\n".join(lines)


def _unconditional(statement):
    """The names a top-level statement always binds (an assignment's plain names, a def, a class, an import)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value is not None else []
    names = set()
    for target in targets:
        stack = [target]
        while stack:
            part = stack.pop()
            if isinstance(part, ast.Name):
                names.add(part.id)
            elif isinstance(part, (ast.Tuple, ast.List)):
                stack += part.elts
            elif isinstance(part, ast.Starred):
                stack.append(part.value)
    return names


@dataclass(frozen=True)
class _Names:
    binds: frozenset
    changes: frozenset
    reads: frozenset
    modules: frozenset
    kills: frozenset  # bound unconditionally: the cells before need not provide them to the cells after
    state: bool


def _normal(source):
    return "\n".join(line.rstrip() for line in strip_nbval_markers(source).strip().split("\n"))


def needed_cells(sources, kept, book_sources):
    """Which code cells a grading run needs: the numbers of those it runs.

    The rule (issue 39, item 3), conservative: a cell is run unless it is one of
    the book's own cells, unchanged (its source is one of ``book_sources``:
    the figures, tables and benchmarks of the chapter, its set-up too) that
    nothing run after it needs. Working from the last cell to the first, a
    book cell is needed when it binds (an import too) or changes in place
    (:func:`_names`) a name that a cell run after it reads; a book cell that
    touches global state (or imports ``*``), or is not plain Python, is always
    run, and so is every cell
    the student wrote or changed, and every cell in ``kept`` (the graded
    cells, whose hidden checks' reads count as theirs).

    Parameters
    ----------
    sources : list of str
        The code of each code cell, in order (a graded cell's followed by its hidden checks' code).
    kept : set of int
        The cells run whatever they hold.
    book_sources : iterable of str
        The sources of the chapter's own code cells.

    Returns
    -------
    needed : set of int

    Examples
    --------
    >>> book = ["import numpy as np", "X = np.ones(3)", "plot(X)", "rng = make()", "noise = rng.normal()"]
    >>> sorted(needed_cells(book + ["print(X.sum())"], {5}, book))
    [0, 1, 5]
    >>> sorted(needed_cells(book + ["print(rng.normal())"], {5}, book))
    [3, 4, 5]
    """
    book = {_normal(source) for source in book_sources}
    names = [_names(source) for source in sources]
    # calls on a module (np.mean) change nothing: only the global-state calls do, and those cells are run
    modules = {module for found in names if found is not None for module in found.modules}
    needed, reads = set(), set()
    for number in range(len(sources) - 1, -1, -1):
        found = names[number]
        if found is None:  # what it reads cannot be told: it and every cell before it are run
            return needed | set(range(number + 1))
        run = number in kept or _normal(sources[number]) not in book or found.state \
            or (found.binds | (found.changes - modules)) & reads
        if run:
            needed.add(number)
            reads = (reads - found.kills) | found.reads | (found.changes - modules)
    return needed


# the run notebook's metadata key for the time units of its cells (read by coursework.isolation.execution)
UNITS_KEY = "kpca_grader_units"


def time_units(roles):
    """The time limit each cell of the run notebook counts against: its exercise, or its own.

    An exercise's graded cells and hidden checks share one limit (the exercise
    is one answer); every other cell of the submission has its own; the
    grader's setup cell has none (the notebook's limit alone bounds it).

    >>> time_units([Role("setup"), Role("student", None, 0), Role("graded", "e1", 1), Role("hidden", "e1", 1, 1)])
    [None, 'cell 0', 'exercise e1', 'exercise e1']
    """
    return [None if role.kind == "setup" else f"exercise {role.exercise}" if role.kind in ("graded", "hidden")
            else f"cell {role.cell}" for role in roles]


def build_run_notebook(submission, reference, prune=False):
    """The notebook that nbval runs for a submission.

    Parameters
    ----------
    submission : nbformat.NotebookNode
        The student's notebook, as read by :func:`read_submission`.
    reference : coursework.grading.reference.Reference
        The chapter it was made from.
    prune : bool, default=False
        Leave out the book's cells that the graded cells and hidden checks do
        not need (:func:`needed_cells`): the chapter's figures and benchmarks.

    Returns
    -------
    plan : RunPlan

    Raises
    ------
    SubmissionProblem
        If the submission's exercise labels are malformed.
    """
    wanted = list(reference.graded) + [key for key in reference.hidden if key not in reference.graded]
    code_cells, keys = _locate(submission)
    problems, owner = [], {}
    for key in wanted:
        numbers = [number for number, claimed in enumerate(keys) if claimed == key]
        if not numbers:
            problems.append((key[0], f"graded cell of {_describe(key)} deleted"))
        elif len(numbers) > 1:
            shown = " and ".join(f"Cell {number}" for number in numbers)
            problems.append((key[0], f"the graded cell of {_describe(key)} appears {len(numbers)} times "
                                     f"({shown}): keep one (a copied cell keeps its exercise label)"))
        else:
            owner[numbers[0]] = key
    needed = set(range(len(code_cells)))
    if prune:
        sources = [strip_nbval_markers(cell.source) + "".join(
            "\n" + check.source for check in (reference.hidden.get(owner[number], []) if number in owner else []))
            for number, cell in enumerate(code_cells)]
        labelled = {number for number, key in enumerate(keys) if key is not None} | set(owner)
        needed = needed_cells(sources, labelled, reference.book_sources)
    cells, roles = [new_code_cell(setup_source())], [Role("setup")]
    for number, cell in enumerate(code_cells):
        if number not in needed:
            continue
        source = strip_nbval_markers(cell.source)
        key = owner.get(number)
        if key in reference.graded:
            expected = reference.graded[key]
            cells.append(new_code_cell(f"{CHECK_MARKER}\n{source}", outputs=nbformat.from_dict(expected.outputs),
                                       execution_count=expected.execution_count))
            roles.append(Role("graded", key[0], number, part=key[1]))
        else:
            cells.append(new_code_cell(source))
            claimed = keys[number]
            roles.append(Role("student", claimed[0] if claimed else None, number))
        for check in reference.hidden.get(key, []) if key else []:
            cells.append(_hidden_cell(check))
            roles.append(Role("hidden", check.exercise, number, check.number, part=key[1]))
    metadata = {"kernelspec": {"name": KERNEL_NAME, "display_name": "grader", "language": "python"},
                UNITS_KEY: time_units(roles)}
    return RunPlan(new_notebook(cells=cells, metadata=metadata), roles, problems, student_places(submission))
