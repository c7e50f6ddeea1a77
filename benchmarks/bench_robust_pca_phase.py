"""Appendix B's phase diagram of principal component pursuit, every split classified.

n = 60, ranks 1-12, corrupted fractions 2.5 %-30 %, four matrices per cell
(the seeds of ``kpca_lib.explorers.pcp_phase_diagram``), each split by
``kl.robust_pca`` with its defaults (rho = 1.2 with residual balancing,
primal and dual residuals at most 1e-7, at most 1000 sweeps). Each split is
classified by :func:`kpca_lib.explorers.pcp_verdict`: recovered (converged,
relative error of L below 1e-3), PCP fails (certified: a feasible point
with a PCP objective below that of the planted split), or solver not
converged. Each is also classified with certified verdicts by
:func:`kpca_lib.explorers.pcp_certified_verdict`: a recovery is certified when
the planted split's objective is within 1e-5 (relative) of the dual lower
bound that ``kl.robust_pca`` returns; a converged run that is neither a
certified recovery nor a certified failure is a near-tie (another split within
1e-6 of the planted one in objective),
and a run that reached max_iter is kept apart. (The review of the first version of the appendix found that 104
of its 321 "failures", run with a primal-only stop, were the solver's.)

Writes ``kpca_lib/datasets/robust_pca_phase.npz`` (shipped with the library:
``kl.datasets.load_robust_pca_phase()``), which Appendix B draws.

Run:  .venv/bin/python benchmarks/bench_robust_pca_phase.py
      .venv/bin/python benchmarks/bench_robust_pca_phase.py --reclassify
(the second re-classifies the saved splits, without re-running them, after a
change of the certified verdict's thresholds)
"""

import os
import sys
import time
from pathlib import Path

import numpy as np

from sklearn.utils import Bunch

from kpca_lib.explorers import CERTIFIED_VERDICTS, VERDICTS, certified_codes, pcp_phase_diagram

N, RANKS, CORRUPTIONS, N_TRIALS = 60, np.arange(1, 13), np.arange(1, 13) * 0.025, 4
# shipped with the library: kl.datasets.load_robust_pca_phase() reads it
OUTPUT = Path(__file__).resolve().parents[1] / "kpca_lib" / "datasets" / "robust_pca_phase.npz"


def report(out):
    """Print the tables of a phase diagram's verdicts."""
    counts = np.bincount(out.verdict.ravel(), minlength=3)
    for code, name in enumerate(VERDICTS):
        print(f"{name:>24}: {counts[code]:4d} of {out.verdict.size}")
    recovered = out.verdict == 0
    failed = out.verdict == 1
    print(f"margins: recovered errors at most {out.error[recovered].max():.1e} (threshold 1e-3); "
          f"unrecovered errors at least {out.error[~recovered].min():.1e}")
    if failed.any():
        print(f"certified failures: objective below the planted one by at least "
              f"{out.objective_margin[failed].min():.1e} relative (threshold 1e-6)")
    fine = np.bincount(out.certified_verdict.ravel(), minlength=len(CERTIFIED_VERDICTS))
    print("certified verdicts (dual lower bound):")
    for code, name in enumerate(CERTIFIED_VERDICTS):
        print(f"{name:>24}: {fine[code]:4d} of {out.verdict.size}")
    certified = out.certified_verdict == 0
    if certified.any():
        print(f"certified recoveries: (f(L0, S0) - lower bound) / f(L0, S0) at most "
              f"{out.planted_gap[certified].max():.1e} (threshold 1e-5)")


def main(reclassify=False):
    if reclassify:
        saved = np.load(OUTPUT)
        out = Bunch(**{key: saved[key] for key in saved.files
                       if key not in ("ranks", "corruptions", "n")})
        out.certified_verdict = certified_codes(out.verdict, out.converged, out.error,
                                                out.planted_gap)
        print(f"re-classified the {out.verdict.size} saved splits of {OUTPUT.name} (not re-run)")
        report(out)
        print(f"sweeps: median {int(np.median(out.n_iter))}, max {out.n_iter.max()}")
    else:
        print(f"n = {N}, ranks {RANKS[0]}-{RANKS[-1]}, corruption {CORRUPTIONS[0]:.3f}-"
              f"{CORRUPTIONS[-1]:.3f}, {N_TRIALS} trials per cell, load average "
              f"{os.getloadavg()[0]:.1f}")
        start = time.perf_counter()
        out = pcp_phase_diagram(N, RANKS, CORRUPTIONS, N_TRIALS)
        seconds = time.perf_counter() - start
        report(out)
        print(f"sweeps: median {int(np.median(out.n_iter))}, max {out.n_iter.max()}; {seconds:.0f} s")
    np.savez_compressed(OUTPUT, ranks=RANKS, corruptions=CORRUPTIONS, n=N, **out)
    print(f"written {OUTPUT.name}")


if __name__ == "__main__":
    main(reclassify="--reclassify" in sys.argv[1:])
