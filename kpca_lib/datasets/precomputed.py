"""Results too slow to compute in a notebook, computed by a benchmark and shipped with the library.

Appendix B's phase diagram certifies 576 robust PCA splits (about ten
minutes); ``benchmarks/bench_robust_pca_phase.py`` computes it and writes
the file this module reads. Shipped inside the package, it is found wherever
kpca_lib is installed: a student's copy of the notebook alone, the grader's
sandbox, a notebook run from another folder.
"""

from importlib import resources

import numpy as np

__all__ = ["load_robust_pca_phase", "ROBUST_PCA_PHASE_FILE"]

ROBUST_PCA_PHASE_FILE = "robust_pca_phase.npz"


def load_robust_pca_phase():
    """Appendix B's phase diagram of robust PCA, as ``bench_robust_pca_phase.py`` wrote it.

    Returns
    -------
    phase : dict of str to numpy.ndarray
        ``ranks`` (12,), ``corruptions`` (12,), ``n`` (the matrices are n x n),
        and per split (rank, corruption, draw), shape (12, 12, 4): the
        ``certified_verdict`` (the codes of
        :data:`kpca_lib.explorers.CERTIFIED_VERDICTS`), the relative ``error``
        of L, the ``objective_margin``, ``n_iter``, ``converged``,
        ``planted_gap`` and ``found_gap`` (the duality gaps of the planted and
        the found split) and the uncertified ``verdict``.

    Examples
    --------
    >>> phase = load_robust_pca_phase()
    >>> phase["certified_verdict"].shape == (len(phase["ranks"]), len(phase["corruptions"]), 4)
    True
    """
    with resources.files(__package__).joinpath(ROBUST_PCA_PHASE_FILE).open("rb") as file:
        with np.load(file) as saved:
            return {name: saved[name] for name in saved.files}
