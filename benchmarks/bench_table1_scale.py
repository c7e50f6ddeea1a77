"""Chapter 5, "Reproducing Table 1": the scale scan behind the factor of two.

The toy experiment has no length scale of its own: centres drawn from a cube
of side 2/s at noise sigma are the book's cube ([-1, 1]^10) at noise
s * sigma. For each scale s this script computes our median ratio
MSE(linear PCA) / MSE(kernel PCA) at s * sigma, for the paper's rows
sigma = 0.05, 0.2 and 0.4 (q = 1..9, c = 20 (s sigma)^2, draws 0..n-1), and
prints the rms of log(ours / paper) over those 27 entries. A sharp minimum at
s = 2 supports "centres from a cube of side one"; a flat curve would not.

Run from the project root:  .venv/bin/python benchmarks/bench_table1_scale.py [n_draws]
"""

import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

import kpca_lib as kl
from kpca_lib.datasets import denoising_toy
from kpca_lib.preimage import gamma_weights, gaussian_fixed_point

PAPER = {0.05: [2058.42, 1238.36, 846.14, 565.41, 309.64, 170.36, 125.97, 104.40, 92.23],
         0.2: [0.99, 1.12, 1.18, 1.50, 2.11, 2.73, 3.72, 5.09, 6.32],
         0.4: [1.07, 1.26, 1.44, 1.64, 1.91, 2.08, 2.22, 2.34, 2.47]}
SCALES = [1.5, 2.0, 2.5, 3.0]
Q = np.arange(1, 10)


def ratios(sigma, seed):
    """MSE linear / MSE kernel PCA for q = 1..9 on one 10-D draw (the chapter's Table 1 setting)."""
    data = denoising_toy(n_features=10, sigma=sigma, n_test_per_cluster=4, random_state=seed)
    kpca = kl.KernelPCA(n_components=9, kernel=kl.Gaussian(c=20 * sigma**2), eigen_solver="arpack").fit(data.X_train)
    Y = kpca.transform(data.X_test)
    gamma = np.vstack([gamma_weights(kpca.alphas_[:, :q], Y[:, :q]) for q in Q])
    Z = gaussian_fixed_point(data.X_train, gamma, kpca.kernel.c, np.tile(data.X_test, (9, 1))).Z
    mse_kernel = np.mean(np.sum((Z.reshape(9, *data.X_test.shape) - data.X_test_clean) ** 2, axis=-1), axis=-1)
    linear = kl.PCA(n_components=9).fit(data.X_train)
    mse_linear = []
    for q in Q:
        components = linear.components_[:q]
        Z_linear = (data.X_test - linear.mean_) @ components.T @ components + linear.mean_
        mse_linear.append(np.mean(np.sum((Z_linear - data.X_test_clean) ** 2, axis=-1)))
    return np.array(mse_linear) / mse_kernel


def main(n_draws=3):
    warnings.simplefilter("ignore", ConvergenceWarning)
    start = time.perf_counter()
    print(f"rms of log(ours at s * sigma / paper at sigma) over the paper's rows sigma = 0.05, 0.2, 0.4 (q = 1..9),"
          f" medians over {n_draws} draws")
    print(f"{'s':>5} {'rms log':>9}   per row")
    for s in SCALES:
        logs = {sigma: np.log(np.median([ratios(s * sigma, seed) for seed in range(n_draws)], axis=0) / PAPER[sigma])
                for sigma in PAPER}
        total = np.sqrt(np.mean(np.concatenate(list(logs.values())) ** 2))
        rows = ", ".join(f"{sigma}: {np.sqrt(np.mean(v ** 2)):.2f}" for sigma, v in logs.items())
        print(f"{s:>5} {total:>9.3f}   {rows}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
