"""Response time of the de-noising widget's computing (chapter 5).

A slider move calls ``ToyDenoiser.compute``. Moving the component
count or the iteration count reuses the cached fit for (sigma, c); moving
sigma or c fits anew. The baseline, measured in the same run, is the
uncached way: build the data, fit kernel PCA and de-noise for every move.

Targets (issue 4): under 50 ms when only q or the iterations change, under
200 ms when sigma or c changes.

Run: .venv/bin/python benchmarks/bench_interactive.py
"""

import time
import warnings

from sklearn.exceptions import ConvergenceWarning

from kpca_lib import Gaussian, KernelPCA, datasets
from kpca_lib.explorers import ToyDenoiser
from kpca_lib.explorers.denoising import SIGMAS

REPEATS = 5


def c_for(sigma, d=2):
    return 2 * d * sigma**2


def uncached_move(sigma, c, q, max_iter, n_test_per_cluster):
    """What a slider move would cost without the cache: data, fit, de-noise."""
    data = datasets.denoising_toy(sigma=sigma, n_test_per_cluster=n_test_per_cluster)
    kpca = KernelPCA(n_components=12, kernel=Gaussian(c=c), eigen_solver="arpack")
    kpca.fit(data.X_train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return kpca.denoise(data.X_test, n_components=q, max_iter=max_iter)


def best_ms(function):
    """Fastest of REPEATS runs of function(), in milliseconds.

    The minimum, as timeit recommends: on a shared machine the slower runs
    measure the other processes, not the code.
    """
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return 1000 * min(times)


def main():
    rows = []
    for n_test in (10, 33):
        for max_iter in (10, 30):
            # fresh explorers so that every sigma/c move is a cache miss
            def sigma_moves():
                explorer = ToyDenoiser(n_test_per_cluster=n_test, max_components=12)
                for sigma in SIGMAS:
                    explorer.compute(sigma, c_for(sigma), 4, max_iter)
                return explorer

            explorer = sigma_moves()
            sigma_ms = best_ms(sigma_moves) / len(SIGMAS)

            def q_moves():
                for sigma in SIGMAS:
                    for q in (1, 2, 4, 8, 12):
                        explorer.compute(sigma, c_for(sigma), q, max_iter)

            q_ms = best_ms(q_moves) / (5 * len(SIGMAS))

            def iteration_moves():
                for sigma in SIGMAS:
                    for t in range(max_iter - 4, max_iter + 1):
                        explorer.compute(sigma, c_for(sigma), 4, t)

            iter_ms = best_ms(iteration_moves) / (5 * len(SIGMAS))

            def baseline():
                for sigma in SIGMAS:
                    uncached_move(sigma, c_for(sigma), 4, max_iter, n_test)

            base_ms = best_ms(baseline) / len(SIGMAS)
            rows.append((n_test * 11, max_iter, q_ms, iter_ms, sigma_ms, base_ms))

    header = (
        f"{'test pts':>8} {'max_iter':>8} {'q move ms':>10} {'iter move ms':>12} "
        f"{'sigma/c move ms':>15} {'uncached ms':>11} {'uncached/q move':>15}"
    )
    print("De-noising widget (as in chapter 5), toy of Mika et al.: 1100 training points in 2-D, 12 components fitted")
    print(header)
    print("-" * len(header))
    for n_test, max_iter, q_ms, iter_ms, sigma_ms, base_ms in rows:
        print(
            f"{n_test:>8} {max_iter:>8} {q_ms:>10.1f} {iter_ms:>12.1f} "
            f"{sigma_ms:>15.1f} {base_ms:>11.1f} {base_ms / q_ms:>15.1f}"
        )
    print("targets: q / iteration move < 50 ms, sigma / c move < 200 ms")


if __name__ == "__main__":
    main()
