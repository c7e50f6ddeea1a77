"""What the browser labs must compute, from kpca_lib, and the checks against it.

Shared by ``tests/test_labs_in_browser.py`` (a page written by the test) and
``tests/test_book_in_browser.py`` (every lab of the built book). Each check
sets a lab of an open page to a setting through its test hook
(``window.kpcaLabs[i].set``), reads back what the page computed
(``window.kpcaLabs[i].state``) and compares it with the library, on the data
the page itself was sent. The tolerances are those of issue 16: eigenvalues
within 1e-8 relative, pre-images within 1e-6, the same signs. The appendices'
iterative labs (sparse PCA, robust PCA) must take the same number of sweeps as
the library, so their iterates differ only by round-off: 1e-10 (see
``check_sparse_pca`` and ``check_robust_pca``).
"""

import shutil
import statistics
import warnings
from pathlib import Path

import numpy as np
from scipy.linalg import eigvalsh
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import Bunch

from kpca_lib import PCA, Gaussian, KernelPCA, Polynomial, SparsePCA, datasets, preimage, robust_pca
from kpca_lib import denoising_baselines as baselines
from kpca_lib.explorers import held_out_accuracy, kernel_pca_lab_data, squared_distance_scales
from kpca_lib.explorers.denoising_baselines import toy_baselines

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "_static"

EIGENVALUE_RTOL = 1e-8
PREIMAGE_ATOL = 1e-6
ALPHA_RTOL = 1e-6  # relative to the largest |alpha|: same vectors, same signs


def write_lab_page(directory, labs, title="labs"):
    """A page holding the labs' HTML, with the book's _static files linked as Jupyter Book links them.

    Returns the page's file name inside ``directory``.
    """
    directory = Path(directory)
    shutil.copytree(STATIC, directory / "_static", dirs_exist_ok=True)
    files = sorted(p.relative_to(directory).as_posix() for p in (directory / "_static").rglob("*"))
    head = "".join(f'<link rel="stylesheet" href="{name}">' for name in files if name.endswith(".css"))
    head += "".join(f'<script src="{name}"></script>' for name in files if name.endswith(".js"))
    body = "".join(lab._repr_html_() for lab in labs)
    (directory / "index.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{title}</title>{head}</head>'
        f'<body style="max-width:1100px;margin:0 auto;padding:8px">{body}</body></html>'
    )
    return "index.html"


# ---------------------------------------------------------------------------
# the library's answers
# ---------------------------------------------------------------------------


# kwok_tsang's warnings: a neighbour's image too far, pre-images pulled back, pre-images beyond the diameter
KWOK_TSANG_PHRASES = ("no input distance gives", "were pulled back", "than any two of the neighbours are from each other")


def denoising_reference(payload, sigma, c, n_components, n_iter):
    """What the de-noising lab must show for one setting, computed by kpca_lib."""
    data = datasets.denoising_toy(sigma=sigma, random_state=payload["random_state"])
    kpca = KernelPCA(
        n_components=payload["max_components"], kernel=Gaussian(c=c), eigen_solver="dense"
    ).fit(data.X_train)
    q = n_components
    Y = kpca.transform(data.X_test)
    gamma = preimage.gamma_weights(kpca.alphas_[:, :q], Y[:, :q])
    m = data.X_test.shape[0]
    if n_iter == 0:
        Z, converged, restarted = data.X_test, np.zeros(m, bool), np.zeros(m, bool)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            result = preimage.gaussian_fixed_point(
                data.X_train, gamma, c, data.X_test, max_iter=n_iter, tol=payload["tol"],
                max_restarts=payload["max_restarts"],
            )
        Z, converged, restarted = result.Z, result.converged, result.n_restarts > 0
    # the baselines, on the validation noise the page was sent
    noise = np.array(payload["validation_noise"]).reshape(2, -1, data.X_train.shape[1])
    chosen = toy_baselines(data, sigma, noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        Z_mean_shift = baselines.mean_shift(data.X_train, data.X_test, c, max_iter=n_iter, tol=payload["tol"])
    # Kwok-Tsang from the same projections, as chapter 5 and the widget call it; the page counts the points
    # that the library's warning reports too far from a neighbour's image
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        Z_kwok_tsang = kpca.denoise(data.X_test, n_components=q, method="kwok_tsang",
                                    n_neighbors=payload["kwok_tsang_neighbors"])
    # each of kwok_tsang's three RuntimeWarnings starts with its count of points (issue 35, item 1)
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    too_far = tuple(sum(int(m.split()[0]) for m in messages if phrase in m) for phrase in KWOK_TSANG_PHRASES)
    return Bunch(
        data=data, kpca=kpca, q=q, c=c, eigenvalues=kpca.eigenvalues_, alphas=kpca.alphas_,
        gamma=gamma, Z_kernel=Z, converged=converged, restarted=restarted, Z_linear=chosen.Z["linear PCA"],
        baselines=chosen, Z_mean_shift=Z_mean_shift, Z_kwok_tsang=Z_kwok_tsang, kwok_tsang_too_far=too_far,
    )


def click_reference(reference, start, mode, marked, n_iter, tol):
    """kpca_lib's pre-image from a clicked start: of the clicked point itself, or of the marked test point."""
    start = np.asarray(start, dtype=np.float64).reshape(1, -1)
    if mode == "marked":
        gamma = reference.gamma[marked : marked + 1]
    else:
        q = reference.q
        gamma = preimage.gamma_weights(reference.alphas[:, :q], reference.kpca.transform(start)[:, :q])
    if n_iter == 0:
        return start
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return preimage.gaussian_fixed_point(
            reference.data.X_train, gamma, reference.c, start, max_iter=n_iter, tol=tol
        ).Z


# ---------------------------------------------------------------------------
# the checks, one per kind of lab
# ---------------------------------------------------------------------------


def lab_set(page, index, settings):
    """Set lab ``index`` of the page and wait until it has computed; return its state."""
    page.evaluate("([i, s]) => window.kpcaLabs[i].set(s)", [index, settings])
    return page.evaluate("i => window.kpcaLabs[i].state", index)


def lab_payload(page, index):
    return page.evaluate(
        """i => JSON.parse(window.kpcaLabs[i].element
             .querySelector('script[type="application/json"]').textContent)""",
        index,
    )


def relative_error(values, reference):
    values, reference = np.asarray(values), np.asarray(reference)
    return float(np.max(np.abs(values - reference) / np.abs(reference)))


def check_denoising(page, index, settings_list=None):
    """Parity of a de-noising lab with kpca_lib for several settings; returns the errors per setting."""
    payload = lab_payload(page, index)
    initial = payload["settings"]
    if settings_list is None:
        settings_list = [
            dict(initial),
            {"sigma": payload["sigmas"][0], "c": 0.01, "n_components": 2, "n_iter": 2},
            {"sigma": 0.2, "c": 0.16, "n_components": 4, "n_iter": 15},
            {"sigma": 0.4, "c": 0.64, "n_components": 12, "n_iter": 50},
            {"sigma": 0.8, "c": 2.56, "n_components": 1, "n_iter": 0},
            {"sigma": 0.1, "c": 0.3, "n_components": 7, "n_iter": 1},
        ]
        settings_list = [s for s in settings_list if s["sigma"] in payload["sigmas"]]
    report = []
    for settings in settings_list:
        settings = {"width_rule": False, **settings}
        state = lab_set(page, index, settings)
        assert state["sigma"] == settings["sigma"] and state["c"] == settings["c"], state
        q, n_iter = state["n_components"], state["n_iter"]
        assert q == settings["n_components"] and n_iter == settings["n_iter"]
        reference = denoising_reference(payload, state["sigma"], state["c"], q, n_iter)
        n = reference.data.X_train.shape[0]
        alphas = np.array(state["alphas"]).reshape(n, state["n_fitted"])[:, :q]
        Z = np.array(state["Z_kernel"]).reshape(-1, 2)
        # restarts draw from numpy's generator in the library and from the page's own
        kept = ~reference.restarted
        kept[state["restarted"]] = False
        errors = {
            "setting": f"sigma={state['sigma']} c={state['c']} q={q} iterations={n_iter}",
            "eigenvalues": relative_error(state["eigenvalues"], reference.eigenvalues),
            "alphas": float(np.max(np.abs(alphas - reference.alphas[:, :q])) / np.abs(reference.alphas[:, :q]).max()),
            "pre-images": float(np.max(np.abs(Z - reference.Z_kernel)[kept])),
            "linear PCA": float(np.max(np.abs(np.array(state["Z_linear"]).reshape(-1, 2) - reference.Z_linear))),
            **baseline_errors(state["baselines"], reference),
            "converged": (state["n_converged"], int(reference.converged.sum())),
            "restarted": int((~kept).sum()),
        }
        report.append(errors)
        assert state["n_fitted"] == payload["max_components"]
        assert errors["eigenvalues"] <= EIGENVALUE_RTOL, errors
        assert errors["alphas"] <= ALPHA_RTOL, errors
        assert errors["pre-images"] <= PREIMAGE_ATOL, errors
        assert errors["linear PCA"] <= 1e-10, errors
        assert errors["held-out k, q"] == (reference.baselines.n_neighbors, reference.baselines.linear_q), errors
        assert max(errors["kNN, nearest, mean"], errors["baseline MSEs"]) <= 1e-10, errors
        assert errors["mean shift"] <= PREIMAGE_ATOL, errors
        # the page's weights come from its own eigenpairs (alphas within 1e-6): the pre-images' tolerance
        assert max(errors["Kwok-Tsang"], errors["Kwok-Tsang MSE"]) <= PREIMAGE_ATOL, errors
        assert errors["Kwok-Tsang too far"][0] == errors["Kwok-Tsang too far"][1], errors
        assert state["n_converged"] == int(reference.converged.sum()), errors
        mse_kernel = float(np.mean(np.sum((reference.Z_kernel - reference.data.X_test_clean) ** 2, axis=1)))
        if kept.all():
            assert abs(state["mse_kernel"] - mse_kernel) <= 1e-6, (state["mse_kernel"], mse_kernel)
    page.evaluate("([i, s]) => window.kpcaLabs[i].set(s)", [index, initial])
    return report


def baseline_errors(ours, reference):
    """The page's baselines against kpca_lib's: held-out choices, points, MSEs, Kwok-Tsang."""
    chosen, clean = reference.baselines, reference.data.X_test_clean
    points = {"knn": chosen.Z["kNN average"], "nearest": chosen.Z["nearest training point"],
              "mean": chosen.Z["training mean"]}
    mse = {**points, "linear": chosen.Z["linear PCA"]}
    return {
        "held-out k, q": (ours["n_neighbors"], ours["linear_q"]),
        "kNN, nearest, mean": max(float(np.max(np.abs(np.array(ours["Z_" + name]).reshape(-1, 2) - Z)))
                                  for name, Z in points.items()),
        "baseline MSEs": max(abs(ours["mse"][name] - float(np.mean(np.sum((Z - clean) ** 2, axis=1))))
                             for name, Z in mse.items()),
        "mean shift": float(np.max(np.abs(np.array(ours["Z_mean_shift"]).reshape(-1, 2) - reference.Z_mean_shift))),
        "Kwok-Tsang": float(np.max(np.abs(np.array(ours["Z_kwok_tsang"]).reshape(-1, 2) - reference.Z_kwok_tsang))),
        "Kwok-Tsang MSE": abs(ours["mse_kwok_tsang"]
                              - float(np.mean(np.sum((reference.Z_kwok_tsang - clean) ** 2, axis=1)))),
        "Kwok-Tsang too far": ((ours["kwok_tsang_too_far"], ours["kwok_tsang_pulled_back"], ours["kwok_tsang_far"]),
                               reference.kwok_tsang_too_far),
    }


def check_gram(page, index, c_values=None):
    """Parity of a Gram-spectrum lab with kpca_lib's Gaussian kernel, scipy's eigvalsh and the distance scales."""
    payload = lab_payload(page, index)
    X = np.array(payload["X"]).reshape(-1, payload["n_features"])
    low, high = payload["c_range"]
    scales = squared_distance_scales(X)  # the nearest-neighbour and median squared distances
    if c_values is None:
        c_values = [payload["settings"]["c"], low, float(np.sqrt(low * high)), high]
    report = []
    for c in c_values:
        state = lab_set(page, index, {"c": c})
        K = Gaussian(c=c)(X)
        eigenvalues = eigvalsh(K)[::-1]
        ours = np.array(state["eigenvalues"])
        largest = eigenvalues[0]
        significant = eigenvalues >= 1e-4 * largest
        errors = {
            "setting": f"c={c}",
            "K": float(np.max(np.abs(np.array(state["K"]).reshape(K.shape) - K))),
            "eigenvalues (relative, above 1e-4 of the largest)": relative_error(ours[significant], eigenvalues[significant]),
            "eigenvalues (absolute, all, over the largest)": float(np.max(np.abs(ours - eigenvalues)) / largest),
            "distance scales (relative)": max(abs(ours_scale - scale) / max(scale, 1e-300)
                                              for ours_scale, scale in zip(state["scales"], scales)),
        }
        report.append(errors)
        assert state["c"] == c
        assert errors["K"] <= 1e-13, errors
        assert errors["eigenvalues (relative, above 1e-4 of the largest)"] <= EIGENVALUE_RTOL, errors
        assert errors["eigenvalues (absolute, all, over the largest)"] <= 1e-11, errors
        assert errors["distance scales (relative)"] <= 1e-12, errors
    page.evaluate("([i, s]) => window.kpcaLabs[i].set(s)", [index, payload["settings"]])
    return report


def check_pca(page, index, angles=(0.0, 30.0, 90.0, 137.5)):
    """Parity of a PCA lab with kpca_lib.PCA, and the identity w^T C w + error = tr(C)."""
    payload = lab_payload(page, index)
    X = np.array(payload["X"]).reshape(-1, 2)
    pca = PCA(n_components=2).fit(X)
    X_centred = X - pca.mean_
    report = []
    for angle in angles:
        state = lab_set(page, index, {"angle": angle})
        w = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
        projections = X_centred @ w
        variance = float(np.mean(projections**2))
        error = float(np.mean(np.sum((X_centred - np.outer(projections, w)) ** 2, axis=1)))
        trace = float(np.sum(X_centred**2) / X.shape[0])
        errors = {
            "setting": f"angle={angle}",
            "eigenvalues": relative_error(state["eigenvalues"], pca.explained_variance_),
            "components": float(np.max(np.abs(np.array(state["components"]).reshape(2, 2) - pca.components_))),
            "variance": abs(state["variance"] - variance) / trace,
            "error": abs(state["error"] - error) / trace,
            "sum - trace": abs(state["variance"] + state["error"] - state["trace"]) / trace,
        }
        report.append(errors)
        assert errors["eigenvalues"] <= EIGENVALUE_RTOL, errors
        assert errors["components"] <= 1e-10, errors
        assert max(errors["variance"], errors["error"], errors["sum - trace"]) <= 1e-12, errors
        assert abs(state["trace"] - trace) <= 1e-12 * trace
    page.evaluate("([i, s]) => window.kpcaLabs[i].set(s)", [index, payload["settings"]])
    return report


def drawn_points(n_points=60, seed=0):
    """Points as a reader draws them in the kernel PCA lab: [x, y, class, held out], every second of a class held out."""
    rng = np.random.default_rng(seed)
    points, counts = [], [0, 0, 0]
    for _ in range(n_points):
        cls = int(rng.integers(3))
        angle, radius = rng.uniform(0, 2 * np.pi), 0.8 + cls + 0.1 * rng.standard_normal()
        points.append([radius * np.cos(angle), radius * np.sin(angle), cls, counts[cls] % 2 == 1])
        counts[cls] += 1
    return points


KERNEL_PCA_SETTINGS = [
    {},  # the chapter's setting
    {"dataset": "three rings", "kernel": "gaussian", "c": 0.5, "n_components": 5, "component": 4, "pair": [4, 5]},
    {"dataset": "two moons", "kernel": "gaussian", "c": 0.1, "n_components": 2, "component": 1, "pair": [1, 2]},
    {"dataset": "two moons", "kernel": "gaussian", "c": 0.01, "n_components": 10, "component": 10, "pair": [9, 10]},
    {"dataset": "two rings", "kernel": "polynomial", "degree": 2, "n_components": 4, "component": 3, "pair": [1, 3]},
    {"dataset": "three rings", "kernel": "polynomial", "degree": 1, "n_components": 5, "component": 2, "pair": [1, 2]},
    {"dataset": "two rings", "kernel": "gaussian", "c": 100.0, "n_components": 1, "component": 1, "pair": [1, 2]},
    {"dataset": "draw your own", "points": drawn_points(), "extent": [-4.0, 4.0, -4.0, 4.0], "kernel": "gaussian",
     "c": 1.0, "n_components": 3, "component": 2, "pair": [2, 3]},
]


def kernel_pca_reference(state):
    """kpca_lib's kernel PCA and held-out score on the data and the setting the page shows."""
    X, X_test = np.reshape(state["X"], (-1, 2)), np.reshape(state["X_test"], (-1, 2))
    kernel = Gaussian(c=state["c"]) if state["kernel"] == "gaussian" else Polynomial(degree=state["degree"])
    # as many components as the page kept: 10, or fewer of positive eigenvalue
    kpca = KernelPCA(n_components=state["n_fitted"], kernel=kernel, eigen_solver="dense").set_output(
        transform="default")
    Z = kpca.fit_transform(X)
    grid_x, grid_y = np.meshgrid(state["grid_x"], state["grid_y"])  # point row * size + col
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    K = kernel(X)
    q = state["n_components"]
    return Bunch(
        kpca=kpca, eigenvalues=kpca.eigenvalues_, Z=Z, Z_test=kpca.transform(X_test), grid=kpca.transform(grid),
        # all eigenvalues of the centred kernel: the trace is their sum, the rank counts the positive ones
        trace=float(np.trace(K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean())),
        n_positive=KernelPCA(kernel=kernel, eigen_solver="dense").fit(X).n_components_,
        accuracy=held_out_accuracy(Z[:, :q], state["y"], kpca.transform(X_test)[:, :q], state["y_test"]),
    )


def error_up_to_sign(ours, reference):
    """max |ours - s * reference| / max |reference|, with s = +-1 per column chosen by ours, and the signs that differ."""
    ours = np.asarray(ours).reshape(reference.shape)
    signs = np.where(np.sum(ours * reference, axis=0) < 0, -1.0, 1.0)
    return float(np.max(np.abs(ours - signs * reference)) / np.abs(reference).max()), int(np.sum(signs < 0))


def check_kernel_pca(page, index, settings_list=None):
    """Parity of a kernel PCA lab with kpca_lib.KernelPCA and held_out_accuracy; returns the errors per setting."""
    payload = lab_payload(page, index)
    data = kernel_pca_lab_data(payload["random_state"])
    report = []
    for changes in settings_list or KERNEL_PCA_SETTINGS:
        state = lab_set(page, index, {**payload["settings"], **changes})
        if state["dataset"] != "draw your own":  # the page computes on the chapter's data, sent unchanged
            chosen = data[state["dataset"]]
            assert np.array_equal(np.reshape(state["X"], (-1, 2)), chosen.X_train)
            assert np.array_equal(state["y_test"], chosen.y_test)
        report.append(compare_kernel_pca(state, payload["max_components"]))
    page.evaluate("i => window.kpcaLabs[i].reset()", index)
    return report


def compare_kernel_pca(state, max_components=10):
    """The errors of one state of a kernel PCA lab against kpca_lib; asserts the tolerances."""
    reference = kernel_pca_reference(state)
    q_fitted = state["n_fitted"]
    significant = reference.eigenvalues >= 1e-4 * reference.eigenvalues[0]
    z_error, z_flips = error_up_to_sign(state["Z"], reference.Z)
    errors = {
        "setting": f"{state['dataset']}, {state['kernel']} c={state['c']} p={state['degree']} q={state['n_components']}",
        # relative to the largest (an eigensolver's round-off), and one by one above 1e-4 of the
        # largest (below, the round-off of the largest dominates)
        "eigenvalues": float(np.max(np.abs(np.array(state["eigenvalues"]) - reference.eigenvalues))
                             / reference.eigenvalues[0]),
        "eigenvalues above 1e-4": relative_error(
            np.array(state["eigenvalues"])[significant], reference.eigenvalues[significant]),
        "trace": abs(state["trace"] - reference.trace) / reference.trace,
        "projections": z_error,
        "held-out projections": error_up_to_sign(state["Z_test"], reference.Z_test)[0],
        "map": error_up_to_sign(np.array(state["grid_values"]).reshape(-1, q_fitted), reference.grid)[0],
        "signs flipped": z_flips,
        "accuracy": (state["accuracy"], reference.accuracy),
    }
    assert q_fitted == min(max_components, reference.n_positive), (q_fitted, reference.n_positive)
    assert errors["eigenvalues"] <= 1e-13 and errors["eigenvalues above 1e-4"] <= 1e-10, errors
    assert errors["trace"] <= 1e-12, errors
    assert max(errors["projections"], errors["held-out projections"], errors["map"]) <= 1e-9, errors
    assert state["accuracy"] == reference.accuracy, errors
    return errors



# The appendices' labs run the library's iterations from the same start on the same data;
# the page's SVD (of X_c, of each sweep's matrix) and its sums differ from LAPACK's and
# BLAS's by round-off only, so with the same number of sweeps the results agree to about
# 1e-14 (measured: at most 4e-14 for the loadings, 4e-13 relative for L over 300 sweeps
# that do not converge). 1e-10 leaves room for a different CPU while still failing on any
# real difference (one sweep more or less moves the loadings by far more, 1e-6 and up).
ITERATES_RTOL = 1e-10


def _sparse_pca_data(payload):
    bits = np.frombuffer(payload["X_bits"].encode(), dtype=np.uint8) - ord("0")
    return bits.reshape(payload["n_samples"], payload["n_features"]).astype(np.float64)


def check_sparse_pca(page, index, settings_list=None):
    """Parity of a sparse PCA lab with kpca_lib.SparsePCA: loadings, R^2, non-zeros, sweeps."""
    payload = lab_payload(page, index)
    X = _sparse_pca_data(payload)
    if settings_list is None:
        settings_list = [dict(payload["settings"]), {"alpha": 0.0, "n_components": 4},
                         {"alpha": 1.7, "n_components": 4}, {"alpha": 5.0, "n_components": 4},
                         {"alpha": 1.0, "n_components": payload["max_components"]},
                         {"alpha": 0.5, "n_components": 1}, {"alpha": 10.0, "n_components": 2}]
    report = []
    for settings in settings_list:
        state = lab_set(page, index, settings)
        assert (state["alpha"], state["n_components"]) == (settings["alpha"], settings["n_components"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            spca = SparsePCA(n_components=settings["n_components"], alpha=settings["alpha"],
                             max_iter=payload["max_iter"], tol=payload["tol"]).fit(X)
        X_c = X - spca.mean_
        X_hat = spca.inverse_transform(spca.transform(X)) - spca.mean_
        r2 = float(1.0 - np.sum((X_c - X_hat) ** 2) / np.sum(X_c**2))
        _, sigma, _ = np.linalg.svd(X_c, full_matrices=False)
        pca_r2 = float(np.sum(sigma[: spca.n_components_] ** 2) / np.sum(sigma**2))
        components = np.array(state["components"]).reshape(spca.components_.shape)
        errors = {
            "setting": f"alpha={settings['alpha']} q={settings['n_components']}",
            "sweeps": (state["n_iter"], spca.n_iter_),
            "loadings": float(np.max(np.abs(components - spca.components_))),
            "R2": abs(state["r2"] - r2),
            "PCA R2": abs(state["pca_r2"] - pca_r2),
            "objective (relative)": abs(state["objective"] - spca.objective_history_[-1])
            / max(spca.objective_history_[-1], 1e-300),
            "non-zeros": (state["n_nonzero"], np.count_nonzero(spca.components_, axis=1).tolist()),
        }
        report.append(errors)
        assert state["n_iter"] == spca.n_iter_, errors
        history = spca.objective_history_
        assert state["converged"] == bool(history[-2] - history[-1] <= payload["tol"] * abs(history[-2])), errors
        assert errors["loadings"] <= ITERATES_RTOL, errors  # unit rows: absolute is relative
        assert max(errors["R2"], errors["PCA R2"], errors["objective (relative)"]) <= ITERATES_RTOL, errors
        assert errors["non-zeros"][0] == errors["non-zeros"][1], errors
    page.evaluate("([i, s]) => window.kpcaLabs[i].set(s)", [index, payload["settings"]])
    return report


def robust_pca_problem(payload, rank, n_corrupted):
    """L0, S0 of the robust PCA lab's matrix at (rank, number of corrupted entries), by numpy."""
    n, max_rank = payload["n"], payload["max_rank"]
    A = np.array(payload["A"]).reshape(n, max_rank)[:, :rank]
    B = np.array(payload["B"]).reshape(n, max_rank)[:, :rank]
    S0 = np.zeros(n * n)
    S0[payload["positions"][:n_corrupted]] = payload["signs"][:n_corrupted]
    return A @ B.T, S0.reshape(n, n)


def check_robust_pca(page, index, settings_list=None):
    """Parity of a robust PCA lab with kpca_lib.robust_pca: L, S, singular values, sweeps, rank."""
    payload = lab_payload(page, index)
    n = payload["n"]
    if settings_list is None:
        settings_list = [dict(payload["settings"]),
                         {"lam_factor": 0.5, "rank": 10, "corruption": 0.1},  # converges, L0 missed
                         {"lam_factor": 1.0, "rank": 5, "corruption": 0.2},   # 273 sweeps, recovered
                         {"lam_factor": 4.0, "rank": 20, "corruption": 0.5},  # L takes everything
                         {"lam_factor": 0.1, "rank": 1, "corruption": 0.0},   # S takes everything
                         {"lam_factor": 2.0, "rank": 2, "corruption": 0.3}]   # 300 sweeps, not converged
    report = []
    for settings in settings_list:
        state = lab_set(page, index, settings)
        L0, S0 = robust_pca_problem(payload, settings["rank"], state["n_corrupted"])
        M = np.array(state["M"]).reshape(n, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            # on the page's own M (its L0 sums in another order than BLAS: 1e-16 apart)
            fit = robust_pca(M, lam=settings["lam_factor"] / np.sqrt(n), tol=payload["tol"],
                             max_iter=payload["max_iter"], rho=payload["rho"])
        L, S = np.array(state["L"]).reshape(n, n), np.array(state["S"]).reshape(n, n)
        scale = np.abs(M).max()
        sigma_L = np.linalg.svd(fit.L, compute_uv=False)[: fit.rank]
        sigma_M = np.linalg.svd(M, compute_uv=False)
        errors = {
            "setting": "lam_factor={lam_factor} rank={rank} corruption={corruption}".format(**settings),
            "sweeps": (state["n_iter"], fit.n_iter),
            "rank of L": (state["rank_L"], fit.rank),
            "M": float(np.max(np.abs(M - L0 - S0))),
            "L (relative to max|M|)": float(np.max(np.abs(L - fit.L)) / scale),
            "S (relative to max|M|)": float(np.max(np.abs(S - fit.S)) / scale),
            "singular values of L, L0 (relative)": max(
                relative_error(state["sigma_L"], sigma_L) if fit.rank else 0.0,
                relative_error(state["sigma_L0"], np.linalg.svd(L0, compute_uv=False)[: settings["rank"]])),
            # all 60 of M, some at round-off when L0 + S0 has low rank: relative to the largest
            "singular values of M (over the largest)": float(
                np.max(np.abs(np.array(state["sigma_M"]) - sigma_M)) / sigma_M[0]),
            "relative error of L": (state["relative_error"],
                                    float(np.linalg.norm(fit.L - L0) / np.linalg.norm(L0))),
        }
        report.append(errors)
        assert state["lam"] == settings["lam_factor"] / np.sqrt(n)
        assert state["n_corrupted"] == round(settings["corruption"] * n * n)
        assert errors["M"] <= 1e-15, errors
        assert state["n_iter"] == fit.n_iter and state["converged"] == fit.converged, errors
        assert state["rank_L"] == fit.rank, errors
        assert max(errors["L (relative to max|M|)"], errors["S (relative to max|M|)"]) <= ITERATES_RTOL, errors
        assert errors["singular values of L, L0 (relative)"] <= ITERATES_RTOL, errors
        assert errors["singular values of M (over the largest)"] <= ITERATES_RTOL, errors
        ours, theirs = errors["relative error of L"]
        assert abs(ours - theirs) <= ITERATES_RTOL * max(1.0, theirs), errors
    page.evaluate("([i, s]) => window.kpcaLabs[i].set(s)", [index, payload["settings"]])
    return report


CHECKS = {"denoising": check_denoising, "gram-spectrum": check_gram, "pca": check_pca,
          "kernel-pca": check_kernel_pca, "sparse-pca": check_sparse_pca, "robust-pca": check_robust_pca}


def check_every_lab(page):
    """Run the parity check of every lab mounted on the page; returns {index: (kind, report)}."""
    page.wait_for_function("() => window.kpcaLabs !== undefined")
    count = page.locator(".kpca-lab").count()
    page.wait_for_function("n => window.kpcaLabs.length === n", arg=count)
    page.evaluate("() => Promise.all(window.kpcaLabs.map(lab => lab.whenIdle()))")
    kinds = page.evaluate("() => window.kpcaLabs.map(lab => lab.kind)")
    return {index: (kind, CHECKS[kind](page, index)) for index, kind in enumerate(kinds)}


# ---------------------------------------------------------------------------
# speed as perceived
# ---------------------------------------------------------------------------

SPARSE, ROBUST = 0, 1  # their order on the appendices' page (test_labs_in_browser, bench_lab_latency)
# (lab, name, slider index, keys) of a sweep of every slider of the appendices' labs
APPENDIX_SWEEPS = [(SPARSE, "alpha", 0, ["ArrowLeft"] * 10 + ["ArrowRight"] * 10),
                   (SPARSE, "q", 1, ["ArrowLeft"] * 3 + ["ArrowRight"] * 5),
                   (ROBUST, "lambda x sqrt(n)", 0, ["ArrowRight"] * 8 + ["ArrowLeft"] * 8),
                   (ROBUST, "rank", 1, ["ArrowRight"] * 5 + ["ArrowLeft"] * 5),
                   (ROBUST, "corruption", 2, ["ArrowRight"] * 5 + ["ArrowLeft"] * 5)]

# input event -> second animation frame after it (when the frame with the page's first
# answer has been painted), and -> the frame after the last sweep is drawn (settled)
LATENCY_PROBE = """([lab, index]) => {
  const slider = window.kpcaLabs[lab].element.querySelectorAll('input[type=range]')[index];
  window.latencies = window.latencies || [];
  if (slider.dataset.probed) return;
  slider.dataset.probed = '1';
  slider.addEventListener('input', (event) => {
    const record = { start: event.timeStamp };
    window.latencies.push(record);
    requestAnimationFrame(() => requestAnimationFrame(() => { record.frame = performance.now() - record.start; }));
    // after the slider's own handler has started the move (this listener runs first)
    setTimeout(() => window.kpcaLabs[lab].whenIdle().then(() => requestAnimationFrame(() => {
      record.settled = performance.now() - record.start;
    })), 0);
  }, true);
}"""


def measure_latencies(page, sweeps):
    """{slider name: [records]} for (lab, name, slider index, keys) in sweeps."""
    results = {}
    for lab, name, index, keys in sweeps:
        page.evaluate(LATENCY_PROBE, [lab, index])
        slider = page.locator(".kpca-lab").nth(lab).locator("input[type=range]").nth(index)
        for key in keys:
            page.evaluate("() => { window.latencies = []; }")
            slider.focus()
            page.keyboard.press(key)
            page.evaluate(f"() => window.kpcaLabs[{lab}].whenIdle()")
            page.wait_for_function("() => window.latencies.every(r => 'frame' in r && 'settled' in r)")
            results.setdefault(name, []).extend(page.evaluate("() => window.latencies"))
        page.locator(".kpca-lab").nth(lab).get_by_role("button", name="reset to the appendix's setting").click()
        page.evaluate(f"() => window.kpcaLabs[{lab}].whenIdle()")
    return results


def latency_table(results):
    """The medians and the worst of measure_latencies' records, one line per slider."""
    lines = ["ms from the input event to the second animation frame (the page's first answer "
             "painted), and to the frame after the last sweep is drawn (median, worst):"]
    for name, records in results.items():
        frames, settled = [r["frame"] for r in records], [r["settled"] for r in records]
        lines.append(f"  {name:18} {len(records):3} moves | first answer {statistics.median(frames):6.0f} "
                     f"{max(frames):6.0f} | settled {statistics.median(settled):6.0f} {max(settled):6.0f}")
    return "\n".join(lines)


def format_report(title, report):
    """The errors of a check as lines for the test's printed output."""
    lines = [title]
    for errors in report:
        lines.append(
            "  " + ", ".join(
                f"{key} {value:.1e}" if isinstance(value, float) else f"{key} {value}"
                for key, value in errors.items()
            )
        )
    return "\n".join(lines)
