"""Code the grader runs inside the student's kernel (injected as text; never imported there).

The grader's first cell executes this module's source in a fresh module
``_kpca_grader`` and calls :func:`snapshot`, before any student code runs.
Each hidden check then runs through :func:`run_hidden_check`, which first
calls :func:`reset`: it puts back what a submission may have replaced
(``print`` and the other builtins, ``sys.stdout``/``stderr``, the display and
exception hooks, IPython's custom exception handler, input and AST
transformers, event callbacks, trace functions) and runs the check in a
namespace where a student's variable named like a builtin (``list``,
``round``) cannot shadow it.

The libraries a check calls are put back too: the setup cell saves them
(:mod:`coursework.grading.module_guard`, passed to :func:`snapshot` as
``guard``), and :func:`run_hidden_check` restores them before the check,
before each of its statements (at every depth: a loop's body too) and after
each call of a function of the submission, so a patched ``np.allclose`` or a
fake ``KernelPCA`` (set in a cell, or by the graded function as the check
calls it) is undone before the check's own code compares or prints.

This raises the bar and protects honest students from their own globals; it
cannot stop code that runs in the same process from interfering. What makes a
hidden check impossible to forge is elsewhere: its expected output never
reaches the kernel, and its inputs are never shown.
"""

import builtins
import sys

_saved = {}
# attributes of the shell and of the output streams that a submission could
# replace on the instance to intercept output or exceptions
_SHELL_METHODS = ("showtraceback", "_showtraceback", "showsyntaxerror", "showindentationerror",
                  "run_cell", "run_cell_async", "_run_cell", "run_code", "run_ast_nodes",
                  "transform_cell", "transform_ast", "excepthook", "write", "write_err")
_EVENTS = ("pre_execute", "pre_run_cell", "post_execute", "post_run_cell")


def _instance_overrides(obj, names):
    """The instance attributes of ``obj`` among ``names``, as they are now."""
    return {name: vars(obj)[name] for name in names if name in vars(obj)}


def snapshot(guard=None):
    """Save the pristine state; the grader calls it before any student code runs.

    ``guard`` is the kernel's copy of :mod:`coursework.grading.module_guard`,
    its own :func:`snapshot` already taken (None: the libraries are not guarded).
    """
    shell = get_ipython()  # noqa: F821 (a builtin in an IPython kernel)
    streams = (sys.stdout, sys.stderr)
    _saved.update(
        builtins=dict(vars(builtins)),
        hooks=(sys.stdout, sys.stderr, sys.displayhook, sys.excepthook),
        shell=shell,
        shell_overrides=_instance_overrides(shell, _SHELL_METHODS),
        stream_overrides=[_instance_overrides(stream, ("write", "flush", "writelines")) for stream in streams],
        transformers=(list(shell.input_transformers_cleanup), list(shell.input_transformers_post),
                      list(shell.ast_transformers)),
        events={name: list(shell.events.callbacks.get(name, [])) for name in _EVENTS},
        user_builtins=shell.user_ns.get("__builtins__"),
        guard=guard,
    )


def _restore_instance(obj, names, saved):
    for name in names:
        if name in saved:
            setattr(obj, name, saved[name])
        else:
            vars(obj).pop(name, None)


def reset():
    """Put back what :func:`snapshot` saved."""
    vars(builtins).update(_saved["builtins"])
    sys.stdout, sys.stderr, sys.displayhook, sys.excepthook = _saved["hooks"]
    sys.settrace(None)
    sys.setprofile(None)
    shell = _saved["shell"]
    _restore_instance(shell, _SHELL_METHODS, _saved["shell_overrides"])
    for stream, saved in zip(_saved["hooks"][:2], _saved["stream_overrides"]):
        _restore_instance(stream, ("write", "flush", "writelines"), saved)
    shell.custom_exceptions = ()
    cleanup, post, ast_transformers = _saved["transformers"]
    shell.input_transformers_cleanup[:] = cleanup
    shell.input_transformers_post[:] = post
    shell.ast_transformers[:] = ast_transformers
    for name, callbacks in _saved["events"].items():
        shell.events.callbacks[name] = list(callbacks)
    shell.user_ns["__builtins__"] = _saved["user_builtins"]


def run_hidden_check(exercise, number, source):
    """Reset, then run a hidden check's code with the student's names but the real builtins.

    What the check compares is what the check itself prints: its ``print``
    writes to the cell's output, while whatever the student's functions print
    or warn while the check calls them goes to a buffer, never compared. If
    there was some, a note is published under :data:`NOTE_MIME` (the grader's
    runner removes it before nbval compares the outputs): how many lines were
    printed and which warnings (their category alone: the text of either could
    carry the hidden inputs to the student's feedback).
    """
    import io
    import warnings

    reset()
    guard = _saved.get("guard")
    namespace = {name: value for name, value in _saved["shell"].user_ns.items()
                 if name not in _saved["builtins"]}
    if guard is not None:
        guard.begin_check()
        namespace = _guarded_namespace(namespace, guard)
    namespace["__builtins__"] = builtins
    namespace["__name__"] = "__main__"
    cell_output, real_print = _saved["hooks"][0], _saved["builtins"]["print"]

    def check_print(*values, **options):  # the check's own print, to the cell's output
        options.setdefault("file", cell_output)
        return real_print(*values, **options)

    namespace["print"] = check_print
    code = compile(_with_restores(source) if guard is not None else source,
                   f"<hidden check {number} of {exercise}>", "exec")
    captured = io.StringIO()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sys.stdout = sys.stderr = captured
            exec(code, namespace)  # noqa: S102 (the instructor's code)
    finally:
        sys.stdout, sys.stderr = _saved["hooks"][:2]
        _note(exercise, number, captured.getvalue(), caught)


_RESTORE, _ACCEPT = "_kpca_grader_restore_", "_kpca_grader_accept_"


def _guarded_namespace(namespace, guard):
    """The check's namespace, each function defined in a cell wrapped to restore the libraries when it returns."""
    import functools
    import types

    restore = guard.restore

    def make(function, restore):
        def call(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            finally:
                restore()
        return call

    code = make(None, None).__code__  # its free variables: function and restore

    def guarded(function):
        # made with the function's globals: a check may rebind a name the function looks up there (chapter C)
        cells = {"function": function, "restore": restore}
        closure = tuple(types.CellType(cells[name]) for name in code.co_freevars)
        call = types.FunctionType(code, function.__globals__, function.__name__, None, closure)
        return functools.update_wrapper(call, function)

    # every function but the libraries' own (the submission's, wherever it says it comes from, and the book's)
    guarded_namespace = {name: guarded(value) if type(value) is types.FunctionType
                         and not guard._watched(value.__module__) else value for name, value in namespace.items()}
    guarded_namespace[_RESTORE], guarded_namespace[_ACCEPT] = restore, guard.accept
    return guarded_namespace


def _own(statement):
    """Whether a statement of a check can run no code but the check's: names, attributes, constants, imports."""
    import ast

    runs_code = (ast.Call, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Subscript, ast.comprehension,
                 ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda, ast.NamedExpr, ast.FormattedValue)
    return isinstance(statement, (ast.Assign, ast.Import, ast.ImportFrom, ast.Pass)) and \
        not any(isinstance(node, runs_code) for node in ast.walk(statement))


def _with_restores(source):
    """A check's code as a module: the libraries restored before each statement, and what a statement of the
    check's own changed in them (:func:`_own`) accepted after it."""
    import ast

    class Insert(ast.NodeTransformer):
        def generic_visit(self, node):
            super().generic_visit(node)
            for field in ("body", "orelse", "finalbody"):
                statements = getattr(node, field, None)
                if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt) \
                        and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    restore, accept = (ast.parse(f"{name}()").body[0] for name in (_RESTORE, _ACCEPT))
                    setattr(node, field, [item for statement in statements
                                          for item in (restore, statement, *([accept] if _own(statement) else []))])
            return node

    tree = Insert().visit(ast.parse(source))
    return ast.fix_missing_locations(tree)


NOTE_MIME = "application/vnd.kpca-grader.note+json"


def _note(exercise, number, printed, caught):
    if not printed.strip() and not caught:
        return
    from IPython.display import publish_display_data

    kinds = sorted({getattr(warning.category, "__name__", "Warning")[:60] for warning in caught})
    publish_display_data({NOTE_MIME: {"exercise": str(exercise), "number": int(number),
                                      "lines": len([line for line in printed.split("\n") if line.strip()]),
                                      "warnings": kinds[:5]}})
