"""Time of the rings explorer's computing (kpca_lib.explorers.rings_components) per BLAS thread count.

A sweep of chapter 4's live explorer over 35 settings (7 widths c, components
q = 1..5), each a kernel PCA of 300 points, 300 held-out projections, a 40 x 40 map and a
logistic regression. ``rings_components`` runs them under one BLAS thread. The
baseline, measured in the same run, is the same computation with the BLAS
threads that the process would use by default. Each is the best of three
sweeps over the 35 settings. On a busy machine (other jobs on the cores) the
default threads mostly wait for each other; on an idle one the two are close.

Run: .venv/bin/python benchmarks/bench_rings_explorer.py
"""

import os
import time

import numpy as np
from threadpoolctl import threadpool_info

from kpca_lib.explorers.rings import _rings_components, rings_components

WIDTHS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
COMPONENTS = (1, 2, 3, 4, 5)


def best_sweep(function, repeats=3):
    """Best wall-clock time of ``repeats`` sweeps of ``function`` over the explorer's settings."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        for c in WIDTHS:
            for q in COMPONENTS:
                function(c, q)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    threads = max(info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas")
    baseline = best_sweep(lambda c, q: _rings_components(c, q, 40, 0))
    ours = best_sweep(lambda c, q: rings_components(c, q, n_grid=40))
    print(f"{len(WIDTHS) * len(COMPONENTS)} settings, load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"{'computing':<40}{'s/sweep':>10}{'ratio':>8}")
    print(f"{f'baseline: default BLAS threads ({threads})':<40}{baseline:>10.2f}{1.0:>8.2f}")
    print(f"{'rings_components: one BLAS thread':<40}{ours:>10.2f}{ours / baseline:>8.2f}")


if __name__ == "__main__":
    main()
