"""The libraries a hidden check calls are put back before the check compares (issue 39, chapter 3 walkthrough P1a).

A cheat that replaces ``np.allclose``, ``np.round`` or a scikit-learn class
(in a cell, or inside the graded function while the hidden check calls it)
made junk code earn a hidden check that prints only a verdict. The grader's
setup now saves the libraries (:mod:`coursework.grading.module_guard`) and
restores them before each statement of a hidden check and after each call of
the submission's functions. The synthetic chapter's hidden check here prints
a verdict only (``True 0.0 2.0``), as three of chapter 3's four checks did;
its expected line is worked out from what a correct ``double`` gives.
"""

import csv
import sys
import types

import nbformat
import numpy as np
import pytest

from coursework import make_student_notebook
from coursework.authoring.exercises import CHECK_MARKER
from coursework.grading import module_guard
from coursework_notebooks import graded_chapter, solved, with_sources
from test_grading_course_runs import finish, grade_command, start

VERDICT_CHECK = """# hidden check for syn-ex1
from sklearn.linear_model import LinearRegression
rng = np.random.default_rng(5)
values = rng.integers(1, 100, size=4)
doubled = np.asarray(double(values), dtype=float)
slope = LinearRegression().fit(values[:, None].astype(float), doubled).coef_[0]
print(bool(np.allclose(doubled, 2 * values)), float(np.round(np.abs(doubled - 2 * values).max(), 6)),
      float(np.round(slope, 6)))"""
# what the check prints for a correct double: the values are doubled exactly, and a line through
# (v, 2v) has slope 2
VERDICT = "True 0.0 2.0\n"

FORGERY = """
import numpy as np
import sklearn.linear_model


class _Fit:
    coef_ = [2.0]

    def fit(self, *args, **kwargs):
        return self


np.allclose = lambda *args, **kwargs: True
np.round = lambda value, *args, **kwargs: 2.0 if value == 2.0 else 0.0
sklearn.linear_model.LinearRegression = _Fit
"""
# the same forgery made by swapping the functions' code and a method of the class instead of the attributes
CODE_SWAP = """
import numpy as np
import sklearn.linear_model
np.allclose._implementation.__code__ = (lambda a, b, rtol=1e-05, atol=1e-08, equal_nan=False: True).__code__
np.round._implementation.__code__ = (lambda a, decimals=0, out=None: 2.0 if a == 2.0 else 0.0).__code__


def _fit(self, X, y, sample_weight=None):
    self.coef_ = [2.0]
    return self


sklearn.linear_model.LinearRegression.fit = _fit
"""
# inside the graded function, while the check calls it: attributes of numpy, and a method of the class the
# check has already imported
INSIDE = """    import numpy as np
    import sklearn.linear_model

    def fit(self, *args, **kwargs):
        self.coef_ = [2.0]
        return self

    np.allclose = lambda *args, **kwargs: True
    np.round = lambda value, *args, **kwargs: 2.0 if value == 2.0 else 0.0
    sklearn.linear_model.LinearRegression.fit = fit
"""
JUNK = "def double(values):\n{patch}    return [0] * len(values)\n\n\nprint([42])"


def verdict_chapter():
    chapter = graded_chapter()
    hidden = next(cell for cell in chapter.cells if "hidden-check" in cell.metadata.get("tags", []))
    hidden.source = VERDICT_CHECK
    hidden.outputs[0]["text"] = VERDICT
    return chapter


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    base = tmp_path_factory.mktemp("guard")
    chapter = verdict_chapter()
    student = make_student_notebook(chapter, name="07_syn.ipynb")
    (base / "reference").mkdir()
    nbformat.write(chapter, base / "reference" / "07_syn.ipynb")
    class_ = {
        "ann": solved(student, chapter),  # correct
        "mallory": with_sources(student, f"{CHECK_MARKER}\n{FORGERY}\n{JUNK.format(patch='')}"),  # in the cell
        "niaj": with_sources(student, f"{CHECK_MARKER}\n{JUNK.format(patch=INSIDE)}"),  # as the check calls it
        # the function's body swapped instead of the attribute
        "oscar": with_sources(student, f"{CHECK_MARKER}\n{CODE_SWAP}\n{JUNK.format(patch='')}"),
    }
    for who, nb in class_.items():
        (base / "submissions" / who).mkdir(parents=True)
        nbformat.write(nb, base / "submissions" / who / "07_syn.ipynb")
    process = start(grade_command("submissions", "--reference", "reference", "--report", "report.csv",
                                  "--jobs", "2"), base)
    returncode, stdout, stderr = finish(process)
    with open(base / "report.csv", newline="") as file:
        rows = {(row["file"].split("/")[0], row["exercise"]): row for row in csv.DictReader(file)}
    return returncode, stdout, stderr, rows


def test_a_correct_function_passes_the_verdict_check(guarded):
    returncode, stdout, stderr, rows = guarded
    assert rows[("ann", "syn-ex1")]["result"] == "PASS", stdout + stderr


@pytest.mark.parametrize("who", ["mallory", "niaj", "oscar"])
def test_patching_numpy_or_sklearn_in_a_cell_or_in_the_function_fails_the_hidden_check(guarded, who):
    returncode, stdout, stderr, rows = guarded
    row = rows[(who, "syn-ex1")]
    assert row["result"] == "FAIL", stdout + stderr
    assert "hidden check 1 of Exercise 7.1 (syn-ex1)" in row["reason"]


# ---------------------------------------------------------------- the guard itself, in this process


@pytest.fixture
def guard():
    """module_guard's snapshot of this process's libraries (restored at the end, whatever the test did)."""
    module_guard.snapshot(["numpy", "sklearn.decomposition", "kpca_lib"])
    yield module_guard
    module_guard.restore()


def test_the_guard_puts_back_replaced_deleted_and_added_code_and_sys_modules(guard):
    import sklearn.decomposition

    import kpca_lib

    allclose, det, kernel_pca = np.allclose, np.linalg.det, sklearn.decomposition.KernelPCA
    fit_transform, fit = kernel_pca.fit_transform, kpca_lib.KernelPCA.fit
    assert guard.restore() == 0  # nothing changed: nothing repaired
    np.allclose = lambda *args, **kwargs: True
    del np.linalg.det
    np.forged = lambda: 1
    kernel_pca.fit_transform = lambda self, X: X
    kernel_pca.get_params = lambda self, deep=True: {}  # inherited before: added on the class
    kpca_lib.KernelPCA.fit.__code__ = (lambda self, X, y=None: self).__code__
    sys.modules["sklearn.decomposition"] = types.ModuleType("fake")
    assert guard.restore() >= 4
    assert np.allclose is allclose and np.linalg.det is det and not hasattr(np, "forged")
    assert kernel_pca.fit_transform is fit_transform and "get_params" not in vars(kernel_pca)
    assert kpca_lib.KernelPCA.fit is fit and fit.__code__.co_name == "fit"
    assert sys.modules["sklearn.decomposition"] is sklearn.decomposition
    assert guard.restore() == 0


def test_the_guard_keeps_the_libraries_own_state_and_later_submodules(guard):
    import sklearn

    np.some_cache = {"kept": True}  # not code: the library's state, kept
    np.__version__ = np.__version__  # the same object: no change
    import sklearn.cluster  # imported after the snapshot: its parent's new attribute is the genuine module

    guard.restore()
    assert np.some_cache == {"kept": True} and sklearn.cluster is sys.modules["sklearn.cluster"]
    del np.some_cache
    guard.restore()


def test_the_modules_to_import_are_the_watched_ones_the_book_names():
    sources = ["import numpy as np\nfrom scipy.spatial.distance import cdist\nimport pandas\n",
               "%matplotlib inline\nimport os", "from sklearn.decomposition import KernelPCA\nimport math"]
    assert module_guard.modules_to_import(sources) == [
        "math", "numpy", "scipy.spatial.distance", "scipy.spatial.distance.cdist",
        "sklearn.decomposition", "sklearn.decomposition.KernelPCA"]


def test_a_checks_own_change_of_a_library_stands_while_the_students_function_runs(guard, monkeypatch):
    # chapter B's check swaps kl.robust_pca's code to refuse it while the student's solver runs; chapter C's
    # rebinds a name in the student's function's globals: the guard keeps both, and undoes the student's patch
    import builtins

    from coursework.grading import in_kernel

    import kpca_lib

    def pcp_admm():
        np.allclose = lambda *args, **kwargs: True  # a student's patch, as the check calls the function
        return kpca_lib.robust_pca(None)

    printed = []
    namespace = in_kernel._guarded_namespace({"pcp_admm": pcp_admm, "np": np, "kl": kpca_lib}, guard)
    assert namespace["pcp_admm"].__globals__ is pcp_admm.__globals__ and namespace["pcp_admm"].__wrapped__ is pcp_admm
    namespace.update(print=lambda *values: printed.append(values), __builtins__=builtins)
    source = """
def refuse(*args, **kwargs):
    return "refused"


solver = kl.robust_pca
library_code, solver.__code__ = solver.__code__, refuse.__code__
try:
    result = pcp_admm()
    print(result, np.allclose(0, 1))
finally:
    solver.__code__ = library_code
print(kl.robust_pca.__code__.co_name)
"""
    guard.begin_check()
    exec(compile(in_kernel._with_restores(source), "<hidden check>", "exec"), namespace)
    assert printed == [("refused", False), ("robust_pca",)]
    kpca_lib.robust_pca.__code__ = (lambda: None).__code__  # left changed by a check: the next check starts clean
    guard.accept()
    guard.begin_check()
    assert kpca_lib.robust_pca.__code__.co_name == "robust_pca"
