"""Chapter 4's kernel PCA lab's JavaScript numerics under node, against kpca_lib and scikit-learn.

``tests/js/kpca_lab_cli.js`` runs ``_static/kpca-lab-kpca-{model,score}.js`` on
data written here; the answers are compared with ``kpca_lib.KernelPCA``,
``kpca_lib.explorers.held_out_accuracy`` and scikit-learn's
``LogisticRegression``. Needs only node, and is skipped with a reason where
node is missing. The page itself is checked in ``tests/test_labs_in_browser.py``.
"""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from kpca_lib import Gaussian, KernelPCA, Polynomial
from kpca_lib.explorers import held_out_accuracy, kernel_pca_lab_data

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is missing: install Node.js (v18 or later) to test the labs' JavaScript"
)


def run_node(payload):
    result = subprocess.run(
        [NODE, str(ROOT / "tests" / "js" / "kpca_lab_cli.js")], input=json.dumps(payload),
        capture_output=True, text=True, timeout=120, check=True,
    )
    return json.loads(result.stdout)


def aligned_error(ours, reference):
    """max |ours - s reference| / max |reference|, s = +-1 per column."""
    ours = np.asarray(ours).reshape(reference.shape)
    signs = np.where(np.sum(ours * reference, axis=0) < 0, -1.0, 1.0)
    return float(np.max(np.abs(ours - signs * reference)) / np.abs(reference).max())


@pytest.mark.parametrize(
    "name, kernel, q",
    [("three rings", {"name": "gaussian", "c": 10.0}, 3), ("two moons", {"name": "gaussian", "c": 0.1}, 2),
     ("two rings", {"name": "gaussian", "c": 0.03}, 10), ("two moons", {"name": "polynomial", "degree": 3}, 6),
     ("three rings", {"name": "polynomial", "degree": 2}, 5)],
)
def test_kernel_pca_and_held_out_score_match_kpca_lib(name, kernel, q):
    data = kernel_pca_lab_data()[name]
    grid = np.column_stack([np.linspace(-3, 3, 9), np.linspace(3, -2, 9)])
    ours = run_node({
        "X": data.X_train.ravel().tolist(), "y": data.y_train.tolist(), "X_test": data.X_test.ravel().tolist(),
        "y_test": data.y_test.tolist(), "kernel": kernel, "q_max": 10, "q": q, "grid": grid.ravel().tolist(),
    })
    k = Gaussian(c=kernel["c"]) if kernel["name"] == "gaussian" else Polynomial(degree=kernel["degree"])
    n_fitted = ours["n_components"]
    # as many components as have a positive eigenvalue, at most 10 (a degree-p kernel in the plane: fewer)
    assert n_fitted == min(10, KernelPCA(kernel=k, eigen_solver="dense").fit(data.X_train).n_components_)
    kpca = KernelPCA(n_components=n_fitted, kernel=k, eigen_solver="dense").set_output(transform="default")
    Z = kpca.fit_transform(data.X_train)
    Z_test = kpca.transform(data.X_test)
    assert np.max(np.abs(np.array(ours["eigenvalues"]) - kpca.eigenvalues_)) <= 1e-13 * kpca.eigenvalues_[0]
    assert aligned_error(ours["Z"], Z) <= 1e-9
    assert aligned_error(ours["Z_test"], Z_test) <= 1e-9
    assert aligned_error(ours["grid"], kpca.transform(grid)) <= 1e-9
    q = min(q, n_fitted)
    assert ours["accuracy"] == held_out_accuracy(Z[:, :q], data.y_train, Z_test[:, :q], data.y_test)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_logistic_regression_matches_scikit_learn(n_classes):
    """The same optimum as LogisticRegression(C=1): weights, intercept differences and the decisions."""
    rng = np.random.default_rng(n_classes)
    n, p = 120, 4
    A = rng.standard_normal((n, p))
    labels = (A[:, 0] + 0.8 * rng.standard_normal(n) > 0).astype(int)
    if n_classes == 3:
        labels[A[:, 1] > 0.7] = 2
    B = rng.standard_normal((50, p))
    ours = run_node({"logistic": {"A": A.ravel().tolist(), "labels": labels.tolist(), "n": n, "p": p,
                                  "K": n_classes, "B": B.ravel().tolist(), "rows": 50}})
    theirs = LogisticRegression(solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(A, labels)
    theta = np.array(ours["theta"])
    if n_classes == 2:
        assert np.allclose(theta[:p], theirs.coef_[0], rtol=0, atol=1e-8)
        assert abs(theta[p] - theirs.intercept_[0]) <= 1e-8
    else:
        W = np.vstack([theta[k * (p + 1): k * (p + 1) + p] for k in range(n_classes)])
        b = np.array([theta[k * (p + 1) + p] for k in range(n_classes - 1)] + [0.0])
        # the penalty makes the weights unique; only differences of the (unpenalised) intercepts are
        assert np.allclose(W, theirs.coef_, rtol=0, atol=1e-8)
        assert np.allclose(b - b[-1], theirs.intercept_ - theirs.intercept_[-1], rtol=0, atol=1e-8)
    assert ours["predicted"] == theirs.predict(B).tolist()
