"""Speed of linear PCA's routes, against scikit-learn's PCA in the same run.

Prints one table: the best CPU time of 15 fits of ``kpca_lib.PCA`` by each route
(``method`` and, where the library accepts it, ``svd_solver``) and of
scikit-learn's ``PCA`` with the matching solver on the same data, with the
ratio kpca_lib / scikit-learn. Dense: 2000 x 100 (q = 10) and 300 x 3000
(Gram route, q = 10). Sparse: 20000 x 300 at density 0.01, as is and with
3 near-constant columns (offset 1e8, spread 1), which issue 35 centres
explicitly. A route the library does not have prints ``n/a``, so that the
script runs on older versions of kpca_lib, for a before/after comparison:

    PYTHONPATH=/path/to/old/checkout python benchmarks/bench_pca_routes.py

Measured 2026-11-28 on the 2-core machine shared with other sessions (load
average 7 to 9), BLAS on one thread, main (before issue 35) and after, in the
same minute; best CPU time in ms, ratio against scikit-learn 1.9.1:

========================  =======================  ==============  =============
data                      route                    before (ratio)  after (ratio)
========================  =======================  ==============  =============
dense 2000 x 100          method="auto"            3.9 (1.89)      4.2 (2.12)
dense 2000 x 100          method="covariance"      3.7 (1.70)      4.0 (2.22)
dense 2000 x 100          method="svd"             11.8 (0.97)     11.1 (0.94)
dense 2000 x 100          svd_solver="arpack"      n/a             9.1 (1.18)
dense 2000 x 100          svd_solver="randomized"  n/a             8.8 (1.53)
dense 300 x 3000          method="auto"            17.7 (0.17)     19.0 (0.18)
dense 300 x 3000          method="gram"            20.1 (0.19)     18.7 (0.18)
sparse 20000 x 300        method="covariance"      8.8 (0.68)      9.0 (0.71)
sparse 20000 x 300        method="svd"             33.6 (0.52)     36.8 (0.57)
sparse, 3 offset columns  method="covariance"      10.6 (0.68)     12.1 (0.85)
sparse, 3 offset columns  method="svd"             46.2 (0.69)     40.7 (0.62)
========================  =======================  ==============  =============

Run to run, the same line moved by up to 20 % on that machine (the dense
covariance route read 3.7 to 4.1 ms before and 3.5 to 4.0 ms after over
four runs); three alternating runs of 60 fits of it each gave 3.8 to 4.2 ms
before and 3.6 to 4.2 ms after: the dense path is level. The offset
columns, now centred explicitly, cost their dense copy (3 x 20000): about
1.5 ms on the covariance route, within the spread on ARPACK's. The constant 1.5 to 2 ms over
scikit-learn on the 2000 x 100 routes (validation, the power-of-two scaling,
the data's norm for the rank test) predates issue 35, and is what
"arpack" and "randomized" pay too.

Run from the repository root with BLAS on one thread (the ratios then do
not depend on the machine's load as much)::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_pca_routes.py
"""

import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import PCA as SklearnPCA

import kpca_lib as kl

REPEATS = 15
Q = 10


def best_time(function):
    """Best CPU time (of the process: every thread) of REPEATS calls, in ms.

    CPU time, not wall-clock time: on a shared machine the wall-clock time
    of the same call varied by 2x from run to run, its CPU time by 10 %.
    """
    best = np.inf
    for _ in range(REPEATS):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return 1e3 * best


def data_sets():
    rng = np.random.default_rng(0)
    tall = rng.standard_normal((2000, 100)) @ rng.standard_normal((100, 100))
    wide = rng.standard_normal((300, 3000))
    sparse = sp.random(20000, 300, density=0.01, format="csr", random_state=0)
    near_constant = sp.csr_matrix(1e8 + rng.standard_normal((20000, 3)))
    offset = sp.hstack([near_constant, sparse[:, 3:]]).tocsr()
    return {"dense 2000 x 100": tall, "dense 300 x 3000": wide, "sparse 20000 x 300": sparse,
            "sparse, 3 offset columns": offset}


# (data, kpca_lib parameters, scikit-learn parameters)
CASES = [
    ("dense 2000 x 100", {"method": "auto"}, {"svd_solver": "covariance_eigh"}),
    ("dense 2000 x 100", {"method": "covariance"}, {"svd_solver": "covariance_eigh"}),
    ("dense 2000 x 100", {"method": "svd"}, {"svd_solver": "full"}),
    ("dense 2000 x 100", {"svd_solver": "arpack", "random_state": 0}, {"svd_solver": "arpack", "random_state": 0}),
    ("dense 2000 x 100", {"svd_solver": "randomized", "random_state": 0},
     {"svd_solver": "randomized", "random_state": 0}),
    ("dense 300 x 3000", {"method": "auto"}, {"svd_solver": "full"}),
    ("dense 300 x 3000", {"method": "gram"}, {"svd_solver": "full"}),
    ("sparse 20000 x 300", {"method": "covariance"}, {"svd_solver": "covariance_eigh"}),
    ("sparse 20000 x 300", {"method": "svd"}, {"svd_solver": "arpack", "random_state": 0}),
    ("sparse, 3 offset columns", {"method": "covariance"}, {"svd_solver": "covariance_eigh"}),
    ("sparse, 3 offset columns", {"method": "svd"}, {"svd_solver": "arpack", "random_state": 0}),
]


def main():
    data = data_sets()
    print(f"best CPU time of {REPEATS} fits, q = {Q}, in ms")
    print(f"{'data':26s} {'kpca_lib':40s} {'ms':>8s} {'sklearn':>8s} {'ratio':>6s}")
    for name, ours, theirs in CASES:
        X = data[name]
        label = ", ".join(f"{key}={value!r}" for key, value in ours.items() if key != "random_state")
        try:
            model = kl.PCA(Q, **ours)
        except TypeError:
            print(f"{name:26s} {label:40s} {'n/a':>8s}")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours_ms = best_time(lambda: model.fit(X))
            theirs_ms = best_time(lambda: SklearnPCA(Q, **theirs).fit(X))
        print(f"{name:26s} {label:40s} {ours_ms:8.1f} {theirs_ms:8.1f} {ours_ms / theirs_ms:6.2f}")


if __name__ == "__main__":
    main()
