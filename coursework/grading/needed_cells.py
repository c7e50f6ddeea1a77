"""Which of a chapter's own cells a grading run needs (:func:`needed_cells`).

A book cell whose code is unchanged runs only when a later cell that runs reads a name it
binds or changes in place; imports, cells that change global state, cells that are not plain
Python and every cell the student wrote or changed always run. A module of its own: the
analysis of Python's scopes is an idea apart from building the run notebook
(:mod:`coursework.grading.preparation`, which uses it).
"""

import ast
import functools
import re
from dataclasses import dataclass

from .nbval_markers import strip_nbval_markers

__all__ = ["needed_cells", "normal_source"]


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
    found = _Sequence()
    found.run(tree.body, frozenset())
    binds, changes, reads, modules, kills = found.binds, found.changes, found.reads, found.modules, found.kills
    star = any(isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
               for node in ast.walk(tree))  # binds names that cannot be told: always run
    return _Names(frozenset(binds), frozenset(changes), frozenset(reads), frozenset(modules),
                  frozenset(kills), star or bool(_GLOBAL_STATE.search(_outside_local_contexts(source, tree))))


class _Sequence:
    """The names of a block of statements, in order: a name bound for sure before it is read is not
    read from the cells before, also inside a loop's body (``for name, Y in pairs: Z = f(Y); g(Z)``)
    and a ``with`` block (whose body always runs)."""

    def __init__(self):
        self.binds, self.changes, self.reads, self.modules = set(), set(), set(), set()
        self.kills = set()  # bound for sure by the statements run so far, at this level

    def _visit(self, nodes, kills):
        scopes = _Scopes()
        for node in nodes:
            scopes.visit(node)
        self.binds |= scopes.binds
        self.modules |= scopes.modules
        self.reads |= scopes.reads - kills
        self.changes |= scopes.changes - kills

    def _inner(self, body, kills):
        """A block that may run or not (a loop's body): its reads count, its sure binds stay inside."""
        inner = _Sequence()
        inner.run(body, kills)
        self.binds |= inner.binds
        self.modules |= inner.modules
        self.reads |= inner.reads
        self.changes |= inner.changes

    def run(self, statements, outer):
        for statement in statements:
            kills = outer | self.kills
            if isinstance(statement, (ast.For, ast.AsyncFor)):
                self._visit([statement.iter], kills)
                self._visit([statement.target], kills)
                target = {n.id for n in ast.walk(statement.target) if isinstance(n, ast.Name)}
                self._inner(statement.body, kills | target)  # the body reads its own target
                self._inner(statement.orelse, kills)
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                self._visit([item.context_expr for item in statement.items], kills)
                self._visit([item.optional_vars for item in statement.items if item.optional_vars], kills)
                self.kills |= {n.id for item in statement.items if item.optional_vars
                               for n in ast.walk(item.optional_vars) if isinstance(n, ast.Name)}
                self.run(statement.body, outer)  # a with block's body always runs: its sure binds count
            else:
                self._visit([statement], kills)
                self.kills |= _unconditional(statement)


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


def normal_source(source):
    """A cell's code as compared with the book's: nbval markers and trailing blanks left out."""
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
    book = {normal_source(source) for source in book_sources}
    names = [_names(source) for source in sources]
    # calls on a module (np.mean) change nothing: only the global-state calls do, and those cells are run
    modules = {module for found in names if found is not None for module in found.modules}
    needed, reads = set(), set()
    for number in range(len(sources) - 1, -1, -1):
        found = names[number]
        if found is None:  # what it reads cannot be told: it and every cell before it are run
            return needed | set(range(number + 1))
        run = number in kept or normal_source(sources[number]) not in book or found.state \
            or (found.binds | (found.changes - modules)) & reads
        if run:
            needed.add(number)
            reads = (reads - found.kills) | found.reads | (found.changes - modules)
    return needed
