"""The labs' JavaScript numerics (_static/kpca-labs-{linalg,kernels,preimage}.js) under node.

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
from kpca_lib.explorers.denoising_baselines import K_VALUES, N_VALIDATION_PER_CLUSTER, toy_baselines, validation_noise

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
               "d": 2, "c": c, "n_fit": 12, "q": q, "n_iter": n_iter}
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
