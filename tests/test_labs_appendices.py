"""The appendices' browser labs (kpca_lib.explorers.labs_appendices): payloads and argument checks.

What the page computes from these payloads is compared with kpca_lib here
under node (tests/js/appendices_cli.js, the labs' computing without the page)
and in Chromium by tests/test_labs_in_browser.py (tests/lab_parity.py).
"""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kpca_lib import SparsePCA, robust_pca
from kpca_lib.datasets import low_rank_plus_sparse, planted_topics
from kpca_lib.explorers import BrowserExplorer, robust_pca_lab, sparse_pca_lab
from kpca_lib.explorers.labs_appendices import robust_pca_draws

ROOT = Path(__file__).resolve().parents[1]


def test_sparse_pca_lab_sends_the_planted_topics_exactly():
    lab = sparse_pca_lab(alpha=1.7, n_components=2, n_documents=50, random_state=3)
    assert isinstance(lab, BrowserExplorer) and lab.kind == "sparse-pca"
    payload = lab.payload
    data = planted_topics(n_documents=50, random_state=3)
    bits = np.array([int(c) for c in payload["X_bits"]], dtype=float)
    np.testing.assert_array_equal(bits.reshape(50, 56), data.X)
    assert payload["words"] == data.words and payload["topics"] == data.topics
    assert payload["settings"] == {"alpha": 1.7, "n_components": 2}
    # SparsePCA's defaults: the page stops where the library does
    assert (payload["max_iter"], payload["tol"]) == (1000, 1e-8)


def test_robust_pca_draws_are_low_rank_plus_sparse_at_the_largest_rank():
    """At rank 20 the lab's matrices are the appendix's generator's, for every corruption."""
    A, B, positions, signs = robust_pca_draws(random_state=4)
    assert A.shape == B.shape == (60, 20) and positions.shape == signs.shape == (1800,)
    assert len(set(positions.tolist())) == 1800 and set(np.unique(signs)) == {-1.0, 1.0}
    for corruption in (0.0, 0.05, 0.23, 0.5):
        k = round(corruption * 3600)
        S0 = np.zeros(3600)
        S0[positions[:k]] = signs[:k]
        reference = low_rank_plus_sparse(n=60, rank=20, corruption=corruption, random_state=4)
        np.testing.assert_array_equal(A @ B.T, reference.L0)
        np.testing.assert_array_equal(S0.reshape(60, 60), reference.S0)
    # a lower rank keeps the first columns of the factors: rank r exactly
    assert np.linalg.matrix_rank(A[:, :3] @ B[:, :3].T) == 3


def test_robust_pca_lab_payload():
    lab = robust_pca_lab(lam_factor=2.5, rank=7, corruption=0.12, random_state=1)
    payload = lab.payload
    A, B, positions, signs = robust_pca_draws(random_state=1)
    np.testing.assert_array_equal(np.array(payload["A"]).reshape(60, 20), A)
    np.testing.assert_array_equal(np.array(payload["B"]).reshape(60, 20), B)
    assert payload["positions"] == positions.tolist() and payload["signs"] == signs.astype(int).tolist()
    assert payload["settings"] == {"lam_factor": 2.5, "rank": 7, "corruption": 0.12}
    # robust_pca_trial's solver settings
    assert (payload["max_iter"], payload["rho"], payload["tol"]) == (300, 1.2, 1e-7)


def test_the_labs_html_is_the_same_on_every_run_and_small():
    """nbval compares the notebook cells' output: a pure function of the arguments."""
    for make, limit in [(sparse_pca_lab, 40_000), (robust_pca_lab, 80_000)]:
        first, second = make(), make()
        assert first.html == second.html
        assert len(first.html.encode()) < limit, first.summary()


@pytest.mark.parametrize(
    "kwargs, error, name",
    [({"alpha": 0.15}, ValueError, "alpha"), ({"alpha": 10.5}, ValueError, "alpha"),
     ({"alpha": -1.0}, ValueError, "alpha"), ({"alpha": "3"}, TypeError, "alpha"),
     ({"n_components": 0}, ValueError, "n_components"), ({"n_components": 7}, ValueError, "n_components"),
     ({"n_components": 2.0}, TypeError, "n_components"),
     ({"max_components": 9}, ValueError, "max_components"),
     ({"n_documents": 1}, ValueError, "n_documents"), ({"random_state": -1}, ValueError, "random_state"),
     ({"random_state": None}, TypeError, "random_state")],
)
def test_sparse_pca_lab_rejects_bad_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        sparse_pca_lab(**kwargs)


@pytest.mark.parametrize(
    "kwargs, error, name",
    [({"lam_factor": 0.05}, ValueError, "lam_factor"), ({"lam_factor": 11.0}, ValueError, "lam_factor"),
     ({"lam_factor": float("nan")}, ValueError, "lam_factor"), ({"lam_factor": "1"}, TypeError, "lam_factor"),
     ({"rank": 0}, ValueError, "rank"), ({"rank": 21}, ValueError, "rank"), ({"rank": 2.5}, TypeError, "rank"),
     ({"corruption": 0.055}, ValueError, "corruption"), ({"corruption": 0.6}, ValueError, "corruption"),
     ({"corruption": -0.01}, ValueError, "corruption"), ({"random_state": -2}, ValueError, "random_state")],
)
def test_robust_pca_lab_rejects_bad_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        robust_pca_lab(**kwargs)


NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is missing: install Node.js to test the labs' JavaScript")


def run_in_node(lab, settings):
    request = {"kind": lab.kind, "payload": lab.payload, "settings": settings}
    result = subprocess.run([NODE, str(ROOT / "tests" / "js" / "appendices_cli.js")], input=json.dumps(request),
                            capture_output=True, text=True, timeout=300, check=True)
    return json.loads(result.stdout)


@needs_node
def test_javascript_sparse_pca_matches_kpca_lib():
    """The page's sweeps without the page: the same sweeps, loadings to round-off (the browser test
    checks the page itself, tests/lab_parity.py)."""
    lab = sparse_pca_lab()
    X = planted_topics(n_documents=400, random_state=0).X
    # 9.3: just below tau_0, where a word already taken leaves a residual column of norm alpha
    # up to round-off (re-seeding from it would give a loading of round-off)
    settings = [{"alpha": 3.0, "n_components": 4}, {"alpha": 0.5, "n_components": 1},
                {"alpha": 4.1, "n_components": 4}, {"alpha": 9.3, "n_components": 4}]
    for setting, ours in zip(settings, run_in_node(lab, settings)):
        spca = SparsePCA(**setting).fit(X)
        assert ours["n_iter"] == spca.n_iter_
        np.testing.assert_allclose(np.reshape(ours["components"], (setting["n_components"], -1)),
                                   spca.components_, rtol=0, atol=1e-10)
        assert ours["n_nonzero"] == np.count_nonzero(spca.components_, axis=1).tolist()


@needs_node
def test_javascript_robust_pca_matches_kpca_lib():
    lab = robust_pca_lab()
    settings = [{"lam_factor": 1.0, "rank": 5, "corruption": 0.05},
                {"lam_factor": 0.5, "rank": 10, "corruption": 0.1}]
    A, B, positions, signs = robust_pca_draws(random_state=0)
    for setting, ours in zip(settings, run_in_node(lab, settings)):
        k = round(setting["corruption"] * 3600)
        S0 = np.zeros(3600)
        S0[positions[:k]] = signs[:k]
        M = np.array(ours["M"]).reshape(60, 60)
        np.testing.assert_allclose(M, A[:, : setting["rank"]] @ B[:, : setting["rank"]].T + S0.reshape(60, 60),
                                   rtol=0, atol=1e-15)
        fit = robust_pca(M, lam=setting["lam_factor"] / np.sqrt(60), max_iter=300, rho=1.2)
        assert (ours["n_iter"], ours["converged"], ours["rank"]) == (fit.n_iter, fit.converged, fit.rank)
        for name in ("L", "S"):
            np.testing.assert_allclose(np.reshape(ours[name], (60, 60)), getattr(fit, name), rtol=0, atol=1e-10)
