"""Kernel PCA de-noising against every simple baseline, on the toy of chapter 5.

Over ten draws of the eleven-cluster toy (``denoising_toy(n_features, sigma, random_state=draw)``,
2-D unless told),
per noise level sigma, the test MSE against the clean centres of:

* the noisy points themselves, the training mean, the nearest training point;
* the k-nearest-neighbour average, k chosen on held-out pairs (k up to 1000);
* mean shift (every gamma_i = 1/n: the density term of rho alone), at kernel PCA's
  width c, and at its own held-out width (c times 4, 1, 1/4 or 1/16);
* linear PCA at its held-out q (0 to d);
* kernel PCA with the fixed-point pre-image and with the Kwok-Tsang pre-image
  (10 neighbours), at the width c and the fixed point's held-out q, and
  Kwok-Tsang again at its own held-out q.

No clean data is used to choose anything. Each draw has a validation set (11
points per cluster) seen twice with independent noise, x' and x''. The noise
level is estimated from the pairs, ``sigma_hat^2 = mean ||x' - x''||^2 / (2 d)``,
and the width is the rule of Mika et al., ``c = 2 d sigma_hat^2``. Each
held-out choice de-noises x' and scores against x'' with the paired
one-standard-error rule of the chapter, simplest first (fewer components;
more neighbours). The table gives the median MSE over the draws with the 25 %
and 75 % quantiles, and the median time of each method relative to the fixed
point, measured in the same run.

Run: .venv/bin/python benchmarks/bench_denoising_baselines.py [n_draws [n_features]]
(``... 10 10``: the 10-D toy of Table 1 of Mika et al., with the same methods.)
"""

import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import Gaussian, KernelPCA, datasets
from kpca_lib import denoising_baselines as baselines
from kpca_lib.preimage import gamma_weights, gaussian_fixed_point, kwok_tsang

SIGMAS = [0.05, 0.1, 0.2, 0.4, 0.8]
Q_GRID = [1, 2, 3, 4, 6, 8, 10, 12]
K_GRID = [1000, 300, 100, 30, 10, 3, 1]                 # simplest (smoothest) first
SHIFT_FACTORS = [4, 1, 1 / 4, 1 / 16]                 # mean shift's widths, times c; simplest (widest) first
METHODS = ["noisy", "training mean", "nearest point", "kNN average (held-out k)", "mean shift at kernel PCA's c",
           "mean shift (held-out c)", "linear PCA (held-out q)", "kernel PCA, fixed point", "kernel PCA, Kwok-Tsang", "kernel PCA, Kwok-Tsang (own q)"]


def validation_pairs(centres, sigma, rng, n_per_cluster=11):
    clean = np.repeat(centres, n_per_cluster, axis=0)
    return clean + sigma * rng.standard_normal(clean.shape), clean + sigma * rng.standard_normal(clean.shape)


def squared_errors(Z, X):
    return np.sum((Z - X) ** 2, axis=-1)


def fixed_point_every_q(kpca, X, q_values):
    """Fixed-point pre-images of X for every q in one call; row j uses q_values[j] components."""
    Y = kpca.transform(X)
    gamma = np.vstack([gamma_weights(kpca.alphas_[:, :q], Y[:, :q]) for q in q_values])
    Z = gaussian_fixed_point(kpca.X_fit_, gamma, kpca.kernel.c, np.tile(X, (len(q_values), 1))).Z
    return Z.reshape(len(q_values), *X.shape)


def kwok_tsang_every_q(kpca, X, q_values):
    """Kwok-Tsang pre-images of X for every q in one call; row j uses q_values[j] components."""
    Y = kpca.transform(X)
    gamma = np.vstack([gamma_weights(kpca.alphas_[:, :q], Y[:, :q]) for q in q_values])
    return kwok_tsang(kpca.X_fit_, gamma, kpca.kernel.c).reshape(len(q_values), *X.shape)


def one_draw(sigma, draw, n_features=2):
    """MSE and seconds of every method, for one draw."""
    data = datasets.denoising_toy(n_features=n_features, sigma=sigma, random_state=draw)
    first, second = validation_pairs(data.centres, sigma, np.random.default_rng(1000 + draw))
    d = data.X_train.shape[1]
    sigma_hat2 = np.mean(squared_errors(first, second)) / (2 * d)    # E||x' - x''||^2 = 2 d sigma^2
    c = 2 * d * sigma_hat2
    X_fit, X = data.X_train, data.X_test

    kpca = KernelPCA(max(Q_GRID), kernel=Gaussian(c=c), eigen_solver="arpack").fit(X_fit)
    q = Q_GRID[baselines.one_standard_error_choice(squared_errors(fixed_point_every_q(kpca, first, Q_GRID), second))]
    q_kt = Q_GRID[baselines.one_standard_error_choice(squared_errors(kwok_tsang_every_q(kpca, first, Q_GRID), second))]
    k = baselines.knn_best_k(X_fit, first, second, K_GRID)
    c_shift = c * SHIFT_FACTORS[baselines.one_standard_error_choice(
        [squared_errors(baselines.mean_shift(X_fit, first, c * f), second) for f in SHIFT_FACTORS])]
    q_linear = baselines.linear_pca_best_q(X_fit, first, second)

    estimates = {
        "noisy": lambda: X,
        "training mean": lambda: baselines.training_mean(X_fit, X),
        "nearest point": lambda: baselines.nearest_training_point(X_fit, X),
        "kNN average (held-out k)": lambda: baselines.knn_average(X_fit, X, k),
        "mean shift at kernel PCA's c": lambda: baselines.mean_shift(X_fit, X, c),
        "mean shift (held-out c)": lambda: baselines.mean_shift(X_fit, X, c_shift),
        "linear PCA (held-out q)": lambda: baselines.linear_pca_denoise(X_fit, X, q_linear),
        "kernel PCA, fixed point": lambda: kpca.denoise(X, n_components=q),
        "kernel PCA, Kwok-Tsang": lambda: kpca.denoise(X, n_components=q, method="kwok_tsang"),
        "kernel PCA, Kwok-Tsang (own q)": lambda: kpca.denoise(X, n_components=q_kt, method="kwok_tsang"),
    }
    mse, seconds = {}, {}
    for name, estimate in estimates.items():
        start = time.perf_counter()
        Z = estimate()
        seconds[name] = time.perf_counter() - start
        mse[name] = float(np.mean(squared_errors(Z, data.X_test_clean)))
    return mse, seconds, dict(c=c, q=q, q_kt=q_kt, k=k, q_linear=q_linear, shift=c_shift / c)


def main(n_draws=10, n_features=2):
    warnings.simplefilter("ignore", ConvergenceWarning)
    print(f"{n_features}-D toy, {n_draws} draws per sigma; test MSE against the clean centres:"
          " median [25 %, 75 %], draw 0; fixed point better in m of n draws; median of MSE / MSE(fixed point)")
    times = {name: [] for name in METHODS}
    for sigma in SIGMAS:
        runs = [one_draw(sigma, draw, n_features) for draw in range(n_draws)]
        mse = {name: np.array([run[0][name] for run in runs]) for name in METHODS}
        for name in METHODS:
            times[name] += [run[1][name] for run in runs]
        chosen = [run[2] for run in runs]
        print(f"\nsigma = {sigma}: c = 2 d sigma_hat^2, median {np.median([s['c'] for s in chosen]):.3g};"
              f" held-out q (fixed point) {sorted(s['q'] for s in chosen)};"
              f" q (Kwok-Tsang) {sorted(s['q_kt'] for s in chosen)}; k {sorted(s['k'] for s in chosen)};"
              f" q (linear) {sorted(s['q_linear'] for s in chosen)};"
              f" mean shift's c / c {sorted(float(s['shift']) for s in chosen)}")
        fixed_point = mse["kernel PCA, fixed point"]
        for name in METHODS:
            low, median, high = np.percentile(mse[name], [25, 50, 75])
            line = f"  {name:<32} {median:9.3g}  [{low:9.3g}, {high:9.3g}]  {mse[name][0]:9.3g}"
            if name != "kernel PCA, fixed point":
                line += (f"   {np.sum(fixed_point < mse[name]):2d} of {n_draws}"
                         f"   {np.median(mse[name] / fixed_point):8.3g}")
            print(line)
    reference = np.median(times["kernel PCA, fixed point"])
    print(f"\nmedian time per call (363 test points), relative to the fixed point ({1e3 * reference:.0f} ms):")
    for name in METHODS[1:]:
        print(f"  {name:<32} {np.median(times[name]) / reference:7.3f}")


if __name__ == "__main__":
    main(*(int(argument) for argument in sys.argv[1:3]))
