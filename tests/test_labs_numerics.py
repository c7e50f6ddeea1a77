"""The labs' JavaScript numerics (_static/kpca-labs-{linalg,kernels,preimage,kwok-tsang}.js) under node.

``node --test tests/js/`` runs the unit tests of the numerics (known answers and
identities); the de-noising computation is then compared with kpca_lib on the
toy at settings from both ends of the lab's range of c. The browser test
(test_labs_in_browser.py) checks the same code inside the page; this one needs
only node, and is skipped with a reason where node is missing.
"""

import json
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import Gaussian, KernelPCA, datasets, preimage
from kpca_lib import denoising_baselines as baselines
from kpca_lib.explorers.denoising_baselines import (
    K_VALUES,
    KWOK_TSANG_NEIGHBORS,
    N_VALIDATION_PER_CLUSTER,
    toy_baselines,
    validation_noise,
)

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is missing: install Node.js (v18 or later) to test the labs' JavaScript"
)


def test_javascript_unit_tests_pass():
    result = subprocess.run(
        [NODE, "--test", str(ROOT / "tests" / "js")], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout


@pytest.mark.parametrize(
    "sigma, c, q, n_iter",
    [(0.1, 0.04, 10, 30), (0.2, 0.001, 12, 20), (0.05, 10.0, 3, 50), (0.8, 0.16, 6, 5)],
)
def test_javascript_denoising_matches_kpca_lib(sigma, c, q, n_iter):
    data = datasets.denoising_toy(sigma=sigma, random_state=0)
    request = {"X_train": data.X_train.ravel().tolist(), "X_test": data.X_test.ravel().tolist(),
               "d": 2, "c": c, "n_fit": 12, "q": q, "n_iter": n_iter, "kt_neighbors": KWOK_TSANG_NEIGHBORS}
    result = subprocess.run(
        [NODE, str(ROOT / "tests" / "js" / "denoise_cli.js")], input=json.dumps(request),
        capture_output=True, text=True, timeout=120, check=True,
    )
    ours = json.loads(result.stdout)
    kpca = KernelPCA(n_components=12, kernel=Gaussian(c=c), eigen_solver="dense").fit(data.X_train)
    gamma = preimage.gamma_weights(kpca.alphas_[:, :q], kpca.transform(data.X_test)[:, :q])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reference = preimage.gaussian_fixed_point(data.X_train, gamma, c, data.X_test, max_iter=n_iter)
    assert ours["n_components"] == 12 and ours["lanczos"]["converged"]
    eigenvalues = np.array(ours["eigenvalues"])
    assert np.max(np.abs(eigenvalues - kpca.eigenvalues_) / kpca.eigenvalues_) <= 1e-8
    alphas = np.array(ours["alphas"]).reshape(-1, 12)[:, :q]
    assert np.max(np.abs(alphas - kpca.alphas_[:, :q])) <= 1e-6 * np.abs(kpca.alphas_[:, :q]).max()
    kept = ~np.array(ours["restarted"]) & (reference.n_restarts == 0)
    Z = np.array(ours["Z"]).reshape(-1, 2)
    assert np.max(np.abs(Z - reference.Z)[kept]) <= 1e-6
    assert ours["n_converged"] == int(reference.converged.sum())
    # Kwok-Tsang as the lab computes it: the page's own fit and weights, K gamma from K alpha
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a projection too far from its neighbours' images
        kwok_tsang = preimage.kwok_tsang(data.X_train, gamma, c, n_neighbors=KWOK_TSANG_NEIGHBORS)
    assert np.max(np.abs(np.array(ours["kwok_tsang"]).reshape(-1, 2) - kwok_tsang)) <= 1e-6


def run_kwok_tsang(X_train, X, gamma, c, n_neighbors):
    """The page's kwokTsang on the weights gamma of the points X (baselines_cli.js): (Z, counts)."""
    request = {"X_train": X_train.ravel().tolist(), "X_test": X.ravel().tolist(), "first": X.ravel().tolist(),
               "second": X.ravel().tolist(), "d": 2, "c": c, "n_iter": 0, "k_values": [1],
               "gamma": gamma.ravel().tolist(), "kt_neighbors": n_neighbors}
    result = subprocess.run(
        [NODE, str(ROOT / "tests" / "js" / "baselines_cli.js")], input=json.dumps(request),
        capture_output=True, text=True, timeout=120, check=True,
    )
    ours = json.loads(result.stdout)
    counts = {key: ours["kwok_tsang_" + key] for key in ("too_far", "pulled_back", "far")}
    return np.array(ours["kwok_tsang"]).reshape(-1, 2), counts


# the library's three RuntimeWarnings of kwok_tsang, each starting with its count of points
KWOK_TSANG_WARNINGS = {"too_far": "no input distance gives", "pulled_back": "were pulled back",
                       "far": "than any two of the neighbours are from each other"}


def kwok_tsang_warning_counts(caught):
    """How many points each of kwok_tsang's warnings counts (0 for a warning not given)."""
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    return {key: sum(int(m.split()[0]) for m in messages if phrase in m) for key, phrase in KWOK_TSANG_WARNINGS.items()}


def library_kwok_tsang(X_train, gamma, c, n_neighbors):
    """kpca_lib.preimage.kwok_tsang, and how many points each of its warnings counts (0 without it)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Z = preimage.kwok_tsang(X_train, gamma, c, n_neighbors=n_neighbors)
    return Z, kwok_tsang_warning_counts(caught)


@pytest.mark.parametrize(
    "sigma, c, q, n_neighbors",
    [(0.1, 0.04, 10, 10), (0.2, 0.001, 12, 10), (0.05, 10.0, 3, 10), (0.8, 0.16, 6, 10), (0.4, 0.64, 1, 3),
     (0.1, 0.04, 10, 1), (0.2, 0.16, 4, 1100)],
)
def test_javascript_kwok_tsang_matches_kpca_lib(sigma, c, q, n_neighbors):
    # the same weights in both: the page's kwokTsang against kpca_lib.preimage.kwok_tsang, step for step
    data = datasets.denoising_toy(sigma=sigma, random_state=0)
    kpca = KernelPCA(n_components=12, kernel=Gaussian(c=c), eigen_solver="dense").fit(data.X_train)
    gamma = preimage.gamma_weights(kpca.alphas_[:, :q], kpca.transform(data.X_test)[:, :q])
    Z, counts = run_kwok_tsang(data.X_train, data.X_test, gamma, c, n_neighbors)
    reference, reference_counts = library_kwok_tsang(data.X_train, gamma, c, n_neighbors)
    assert np.max(np.abs(Z - reference)) <= 1e-9
    assert counts == reference_counts


@pytest.mark.parametrize("sigma, c, q", [(0.2, 0.16, 1), (0.4, 0.64, 10), (0.05, 0.01, 1)])
def test_javascript_kwok_tsang_pulls_back_as_kpca_lib(sigma, c, q):
    # three neighbours: some least-squares points leave their neighbourhood (pulled back by step 4) and some
    # stay beyond the neighbours' diameter where the distances put them (the far warning); issue 35, item 1
    data = datasets.denoising_toy(sigma=sigma, random_state=0)
    kpca = KernelPCA(n_components=12, kernel=Gaussian(c=c), eigen_solver="dense").fit(data.X_train)
    gamma = preimage.gamma_weights(kpca.alphas_[:, :q], kpca.transform(data.X_test)[:, :q])
    Z, counts = run_kwok_tsang(data.X_train, data.X_test, gamma, c, 3)
    reference, reference_counts = library_kwok_tsang(data.X_train, gamma, c, 3)
    assert reference_counts["far"] > 0 and (reference_counts["pulled_back"] > 0 or sigma == 0.05)
    assert np.max(np.abs(Z - reference)) <= 1e-9
    assert counts == reference_counts


def test_javascript_kwok_tsang_rank_cut_matches_kpca_lib():
    # neighbours on a line (one singular value of round-off size, cut at 1e-10 of the largest), on an
    # axis (exactly zero), and repeated points (every singular value zero): the pre-image stays in their span
    rng = np.random.default_rng(1)
    t = rng.uniform(-1, 1, 30)
    for X_train in [np.c_[0.3 + t, 0.7 - 2 * t], np.c_[t, np.zeros(30)], np.repeat([[0.2, 0.4], [0.5, -0.1]], 15, axis=0)]:
        gamma, X = rng.dirichlet(np.ones(30), size=7), rng.normal(size=(7, 2))
        for n_neighbors in (1, 2, 5, 30):
            Z, _ = run_kwok_tsang(X_train, X, gamma, 0.5, n_neighbors)
            reference, _ = library_kwok_tsang(X_train, gamma, 0.5, n_neighbors)
            assert np.max(np.abs(Z - reference)) <= 1e-9, n_neighbors


@pytest.mark.parametrize("sigma, c, n_iter", [(0.05, 0.01, 30), (0.1, 0.04, 50), (0.4, 0.64, 10), (0.8, 2.56, 0)])
def test_javascript_baselines_match_kpca_lib(sigma, c, n_iter):
    # the held-out k and q, and every baseline's points, as kpca_lib.denoising_baselines computes them
    data = datasets.denoising_toy(sigma=sigma, random_state=0)
    clean = np.repeat(data.centres, N_VALIDATION_PER_CLUSTER, axis=0)
    noise = validation_noise(0, 11, 2)
    first, second = clean + sigma * noise[0], clean + sigma * noise[1]
    request = {"X_train": data.X_train.ravel().tolist(), "X_test": data.X_test.ravel().tolist(),
               "first": first.ravel().tolist(), "second": second.ravel().tolist(), "d": 2, "c": c,
               "n_iter": n_iter, "k_values": list(K_VALUES)}
    result = subprocess.run(
        [NODE, str(ROOT / "tests" / "js" / "baselines_cli.js")], input=json.dumps(request),
        capture_output=True, text=True, timeout=120, check=True,
    )
    ours = {key: np.array(value).reshape(-1, 2) if isinstance(value, list) else value
            for key, value in json.loads(result.stdout).items()}
    chosen = toy_baselines(data, sigma, noise)
    assert (ours["k"], ours["q"]) == (chosen.n_neighbors, chosen.linear_q)
    np.testing.assert_array_equal(ours["nearest"], baselines.nearest_training_point(data.X_train, data.X_test))
    np.testing.assert_allclose(ours["knn"], chosen.Z["kNN average"], atol=1e-13)
    np.testing.assert_allclose(ours["linear"], chosen.Z["linear PCA"], atol=1e-12)
    np.testing.assert_allclose(ours["mean"], chosen.Z["training mean"], atol=1e-13)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mean_shift = baselines.mean_shift(data.X_train, data.X_test, c, max_iter=n_iter)
        n = data.X_train.shape[0]
        reference = preimage.gaussian_fixed_point(data.X_train, np.full((data.X_test.shape[0], n), 1 / n), c,
                                                  data.X_test, max_iter=n_iter)
    assert np.max(np.abs(ours["mean_shift"] - mean_shift)) <= 1e-6
    assert ours["mean_shift_converged"] == int(reference.converged.sum())
