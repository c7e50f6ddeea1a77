"""Code the grader runs inside the student's kernel: the libraries a hidden check calls, put back as they were.

Injected as text beside :mod:`coursework.grading.in_kernel` (never imported in
the kernel; importable elsewhere, for tests). A hidden check compares with
NumPy, SciPy, scikit-learn, ``kpca_lib``, matplotlib and ``math``; a
submission that replaces ``np.allclose``, ``np.linalg.det`` or
``sklearn.decomposition.KernelPCA`` (in a cell, or inside its graded function
while the check calls it) would make junk code pass. So the grader's setup
cell, before any student code, imports the modules the book's own cells
import (:func:`modules_to_import`) and calls :func:`snapshot`: it keeps, for
every loaded module of those libraries, its attributes, the attributes of the
Python classes it defines, and the code of its Python functions, and the
``sys.modules`` entries. :func:`restore` puts back whatever a submission
replaced or deleted there and removes what it added.

It is cheap when nothing changed (one identity comparison of every namespace's
values, in C: ``map(operator.is_, map(namespace.get, keys), values)``), so that the grader can
call it before each hidden check and before every statement of a check's code.
It never calls a method of a value it finds (no ``==``, which a forged value
could answer "equal"). What the libraries themselves change as they run (a
cache, a backend chosen on first use, a submodule imported later) is kept: a
value that is not code (a function, class, module, descriptor) or a float is
taken as the library's state, and an added attribute that is the genuine
submodule is kept.
"""

import operator
import sys
import types
from itertools import chain

WATCHED = ("numpy", "scipy", "sklearn", "kpca_lib", "matplotlib", "math")
_MISSING = object()
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: a class nobody can change (numpy's ndarray, ufuncs)
_DESCRIPTORS = (types.ModuleType, property, classmethod, staticmethod, float, complex)
# a Python function's body and defaults, each read in C for every function at once
_PARTS = tuple(operator.attrgetter(name) for name in ("__code__", "__defaults__", "__kwdefaults__"))
_VALUES = operator.methodcaller("values")
_state = {"spaces": [], "functions": (), "parts": ((), (), ()), "sys_modules": {}}


def _watched(name):
    return isinstance(name, str) and name.split(".")[0] in WATCHED


def _code_like(value):
    """Whether a value is code a check could call (never looks at the value's own attributes)."""
    kind = type(value)
    return callable(value) or issubclass(kind, _DESCRIPTORS) or hasattr(kind, "__get__")


def modules_to_import(sources):
    """The watched modules that ``sources`` (the book's own code) import, as import statements name them."""
    import ast

    names = set()  # what the book imports, nothing more: an import the book does not make costs every notebook
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:  # an IPython magic: the cell's other imports are found in other cells
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
                names |= {f"{node.module}.{alias.name}" for alias in node.names}  # a submodule, if it is one
    return sorted(name for name in names if _watched(name))


def _space(namespace, owner):
    keys = tuple(namespace.keys())
    values = tuple(namespace[key] for key in keys)
    return [namespace, owner, keys, values, None]


def _functions(values):
    """The Python functions among ``values``: plain, a method's, a property's getter, numpy's implementation."""
    for value in values:
        try:  # a lazy object of a library may raise anything when asked for an attribute: then it is skipped
            inner = [value, getattr(value, "__func__", None), value.fget if isinstance(value, property) else None]
            if type(value).__name__ == "_ArrayFunctionDispatcher":  # numpy's wrapper of a Python function
                inner.append(getattr(value, "_implementation", None))
        except Exception:  # noqa: BLE001
            continue
        yield from (function for function in inner if isinstance(function, types.FunctionType))


def snapshot(names=()):
    """Import ``names`` (the watched modules the book imports) and save the watched modules as they are."""
    import importlib

    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 (`from kpca_lib import KernelPCA` names a class; the book's cell will say)
            pass
    modules = {name: module for name, module in list(sys.modules.items())
               if _watched(name) and isinstance(module, types.ModuleType)}
    spaces, seen = [], set()
    for name, module in modules.items():
        spaces.append(_space(vars(module), name))
        for value in list(vars(module).values()):
            if isinstance(value, type) and id(value) not in seen and _watched(vars(value).get("__module__")) \
                    and not value.__flags__ & _IMMUTABLE_TYPE:
                seen.add(id(value))
                spaces.append(_space(value.__dict__, value))
    functions = tuple({id(f): f for space in spaces for f in _functions(space[3])}.values())
    parts = tuple(tuple(map(part, functions)) for part in _PARTS)
    _state.update(spaces=spaces, functions=functions, parts=parts, sys_modules=modules,
                  pristine=([list(space) for space in spaces], parts))
    _flatten(spaces)


def begin_check():
    """Before a hidden check: the libraries back as the setup cell saw them (whatever an earlier check accepted)."""
    spaces, parts = _state["pristine"]
    _state.update(spaces=[list(space) for space in spaces], parts=parts)
    _flatten(_state["spaces"])
    return restore()


def _functions_changed():
    functions = _state["functions"]
    return not all(all(map(operator.is_, map(part, functions), saved)) for part, saved in zip(_PARTS, _state["parts"]))


def accept():
    """Take what the libraries hold now as what :func:`restore` puts back: a hidden check's own change (a check
    that swaps a library function's code to refuse it while the student's solver runs) stands until undone."""
    if not _unchanged():
        for space in _state["spaces"]:
            namespace, owner, keys, values, _ = space
            if len(namespace) != len(keys) or not all(map(operator.is_, map(namespace.get, keys), values)):
                space[:] = _space(namespace, owner)
        _flatten(_state["spaces"])
    if _functions_changed():
        _state["parts"] = tuple(tuple(map(part, _state["functions"])) for part in _PARTS)


def _repair(space):
    """Put back what was replaced or deleted in one namespace, remove code that was added, keep the rest."""
    namespace, owner, keys, values, _ = space
    for key, saved in zip(keys, values):
        current = namespace.get(key, _MISSING)
        if current is not saved and (current is _MISSING or _code_like(saved)):
            type.__setattr__(owner, key, saved) if isinstance(owner, type) else namespace.__setitem__(key, saved)
    known = set(keys)
    for key in [key for key in namespace.keys() if key not in known]:
        value = namespace[key]
        genuine = isinstance(owner, str) and sys.modules.get(f"{owner}.{key}") is value
        if _code_like(value) and not genuine:
            type.__delattr__(owner, key) if isinstance(owner, type) else namespace.pop(key, None)
    space[:] = _space(namespace, owner)  # what is left is the libraries' own state: the new baseline


def _flatten(spaces):
    """What :func:`_unchanged` compares: the namespaces, their sizes, and all their values in order."""
    _state["namespaces"] = [space[0] for space in spaces]
    _state["sizes"] = tuple(len(space[2]) for space in spaces)
    _state["values"] = tuple(chain.from_iterable(space[3] for space in spaces))


def _unchanged():
    """Whether every namespace holds the very same values in the same order (identity, in C, no ``==``).

    A replaced value, a deleted or added key changes the sizes or the sequence of values; only a last key
    deleted and another added with the same value looks the same (which makes no library call anything else).
    """
    if tuple(map(len, _state["namespaces"])) != _state["sizes"]:
        return False
    now = chain.from_iterable(map(_VALUES, _state["namespaces"]))
    return all(map(operator.is_, now, _state["values"]))


def restore():
    """Put the watched modules back as :func:`snapshot` saw them; return how many namespaces were repaired."""
    for name, module in _state["sys_modules"].items():
        if sys.modules.get(name) is not module:
            sys.modules[name] = module
    repaired, spaces = 0, _state["spaces"]
    if not _unchanged():
        for space in spaces:
            namespace, _, keys, values, _ = space
            if len(namespace) != len(keys) or not all(map(operator.is_, map(namespace.get, keys), values)):
                _repair(space)
                repaired += 1
        _flatten(spaces)
    functions = _state["functions"]
    if _functions_changed():
        body, defaults, keyword_defaults = _state["parts"]
        for function, values in zip(functions, zip(body, defaults, keyword_defaults)):
            function.__code__, function.__defaults__, function.__kwdefaults__ = values
        repaired += 1
    return repaired
