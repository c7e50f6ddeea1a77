"""The appendices' labs that compute in the reader's browser: sparse PCA and robust PCA.

Each function checks its arguments and returns a
:class:`~kpca_lib.explorers.browser.BrowserExplorer` holding the lab's
*input* data and its initial setting; the book's JavaScript computes the rest
in the page with the library's algorithms (``_static/kpca-lab-sparse*.js``:
:class:`kpca_lib.SparsePCA`; ``_static/kpca-lab-robust*.js``:
:func:`kpca_lib.robust_pca`, with the SVD of ``_static/kpca-labs-svd.js``),
and ``tests/lab_parity.py`` compares the two.
"""

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_int, check_real
from ..datasets import TOPIC_WORDS, planted_topics
from .browser import BrowserExplorer

__all__ = ["sparse_pca_lab", "robust_pca_lab", "robust_pca_draws", "ALPHA_MAX", "ROBUST_N", "ROBUST_MAX_RANK",
           "ROBUST_MAX_CORRUPTION"]

#: The largest alpha of the sparse PCA lab: above 9.39 (tau_0, the topics data's largest
#: centred column norm, Appendix A) every loading is zero, and below it some survives.
ALPHA_MAX = 10.0
_ALPHA_STEPS_PER_UNIT = 10  # the slider moves alpha by 0.1
_SPARSE_MAX_ITER = 1000  # SparsePCA's defaults
_SPARSE_TOL = 1e-8

#: The size of the robust PCA lab's square matrices, its largest rank and corruption.
ROBUST_N = 60
ROBUST_MAX_RANK = 20
ROBUST_MAX_CORRUPTION = 0.5
_LAM_FACTOR_RANGE = (0.1, 10.0)
# as kpca_lib.explorers.robust_pca_trial: 300 sweeps, rho = 1.2, robust_pca's tol
_ROBUST_SOLVER = {"max_iter": 300, "rho": 1.2, "tol": 1e-7}
# an entry of S counts as corrupted when |S_ij| > 1/2, halfway to the +-1 of S0
_FLAG = 0.5


def _check_grid(value, name, low, high, steps_per_unit):
    """A real in [low, high] on the grid of 1 / steps_per_unit (what the slider can show)."""
    value = check_real(value, name, minimum=low, maximum=high)
    if round(value * steps_per_unit) / steps_per_unit != value:
        raise ValueError(
            f"{name} must be a multiple of {1 / steps_per_unit:g} (a position of the slider), "
            f"got {name}={value!r}."
        )
    return value


def sparse_pca_lab(alpha=3.0, n_components=4, *, max_components=6, n_documents=400, random_state=0,
                   title="Sparse PCA of the planted topics, computed in your browser"):
    """Appendix A's sparse PCA lab, computed in the reader's browser.

    The page fits ``SparsePCA(n_components=q, alpha=alpha)`` (the SVD start,
    block coordinate descent, ``tol=1e-8``, at most 1000 sweeps, the same
    sign rule) to the planted-topics data of
    :func:`kpca_lib.datasets.planted_topics`, and shows the unit loadings as
    a heat map (components x words), the reconstruction R^2 of Appendix A
    (the least-squares projection onto the span of the loadings) beside
    PCA's, and the number of non-zero loadings of each component. Sliders:
    alpha from 0 to 10 in steps of 0.1, q from 1 to ``max_components``.

    Parameters
    ----------
    alpha : float, default=3.0
        Initial weight of the l1 penalty, a multiple of 0.1 in [0, 10].
    n_components : int, default=4
        Initial number of components q, 1 to ``max_components``.
    max_components : int, default=6
        The largest q of the slider, 1 to 8.
    n_documents : int, default=400
        Number of documents of the data, 2 to 2000.
    random_state : int, default=0
        Seed of the data (an integer: the page is sent the data it draws).
    title : str
        Shown above the lab.

    Returns
    -------
    BrowserExplorer

    Examples
    --------
    >>> lab = sparse_pca_lab()
    >>> lab.payload["settings"], lab.payload["n_samples"], len(lab.payload["words"])
    ({'alpha': 3.0, 'n_components': 4}, 400, 56)
    """
    max_components = check_int(max_components, "max_components", minimum=1, maximum=8)
    alpha = _check_grid(alpha, "alpha", 0.0, ALPHA_MAX, _ALPHA_STEPS_PER_UNIT)
    n_components = check_int(n_components, "n_components", minimum=1, maximum=max_components)
    n_documents = check_int(n_documents, "n_documents", minimum=2, maximum=2000)
    random_state = check_int(random_state, "random_state", minimum=0)
    data = planted_topics(n_documents=n_documents, random_state=random_state)
    # the data are 0.0 and 1.0: one character per entry, row by row
    bits = "".join("1" if value else "0" for value in data.X.ravel())
    payload = {
        "X_bits": bits,
        "n_samples": n_documents,
        "n_features": data.X.shape[1],
        "words": data.words,
        "topics": data.topics,
        "topic_size": len(TOPIC_WORDS[data.topics[0]]),
        "alpha_max": ALPHA_MAX,
        "alpha_steps_per_unit": _ALPHA_STEPS_PER_UNIT,
        "max_components": max_components,
        "max_iter": _SPARSE_MAX_ITER,
        "tol": _SPARSE_TOL,
        "random_state": random_state,
        "settings": {"alpha": alpha, "n_components": n_components},
    }
    return BrowserExplorer("sparse-pca", payload, title)


def robust_pca_draws(random_state=0, n=ROBUST_N, max_rank=ROBUST_MAX_RANK,
                     max_corruption=ROBUST_MAX_CORRUPTION):
    """The random draws of every test matrix of the robust PCA lab.

    Drawn in the order of :func:`kpca_lib.datasets.low_rank_plus_sparse`, at
    its largest rank and corruption: factors A and B (n x max_rank, entries
    N(0, 1/n)), ``round(max_corruption n^2)`` distinct positions (flat
    indices) and their signs +-1. The matrix of rank r and corruption k / n^2
    is ``A[:, :r] B[:, :r]^T`` plus the signs at the first k positions: at
    ``r = max_rank`` exactly ``low_rank_plus_sparse(n, max_rank, k / n^2,
    random_state=random_state).M``, and at any (r, k) a draw from the same
    distribution, the matrices nested as the sliders move.

    Returns
    -------
    A, B : ndarray of shape (n, max_rank)
    positions : ndarray of int, shape (round(max_corruption n^2),)
    signs : ndarray of float, the same shape
    """
    rng = check_random_state(random_state)
    scale = np.sqrt(1.0 / n)
    A = rng.normal(0.0, scale, (n, max_rank))
    B = rng.normal(0.0, scale, (n, max_rank))
    n_corrupted = int(round(max_corruption * n * n))
    positions = rng.choice(n * n, size=n_corrupted, replace=False)
    signs = rng.choice([-1.0, 1.0], size=n_corrupted)
    return A, B, positions, signs


def robust_pca_lab(lam_factor=1.0, rank=5, corruption=0.05, *, random_state=0,
                   title="Robust PCA (principal component pursuit), computed in your browser"):
    """Appendix B's robust PCA lab, computed in the reader's browser.

    The page builds the 60 x 60 test matrix ``M = L0 + S0`` of rank r and
    corruption fraction from the draws of :func:`robust_pca_draws` and
    splits it as ``robust_pca(M, lam=lam_factor / sqrt(60), rho=1.2,
    max_iter=300)`` does (inexact ALM with residual balancing, a full SVD
    per sweep, both residuals at ``tol=1e-7``), drawing the sweeps as they
    come. Panels: the singular values of M, of the L found and of L0; the
    entries of L against those of L0; which entries S marks as corrupted
    (``|S_ij| > 1/2``) against the truth. Sliders: lambda sqrt(n) on a log
    scale from 0.1 to 10, the rank r from 1 to 20, the corrupted fraction
    from 0 to 0.5 in steps of 0.01.

    Parameters
    ----------
    lam_factor : float, default=1.0
        Initial weight of the l1 term as a multiple of ``1 / sqrt(n)``, in
        [0.1, 10].
    rank : int, default=5
        Initial rank of L0, 1 to 20.
    corruption : float, default=0.05
        Initial corrupted fraction, a multiple of 0.01 in [0, 0.5].
    random_state : int, default=0
        Seed of the draws.
    title : str
        Shown above the lab.

    Returns
    -------
    BrowserExplorer

    Examples
    --------
    >>> lab = robust_pca_lab()
    >>> lab.payload["settings"], lab.payload["n"], len(lab.payload["positions"])
    ({'corruption': 0.05, 'lam_factor': 1.0, 'rank': 5}, 60, 1800)
    """
    lam_factor = check_real(lam_factor, "lam_factor", minimum=_LAM_FACTOR_RANGE[0],
                            maximum=_LAM_FACTOR_RANGE[1])
    rank = check_int(rank, "rank", minimum=1, maximum=ROBUST_MAX_RANK)
    corruption = _check_grid(corruption, "corruption", 0.0, ROBUST_MAX_CORRUPTION, 100)
    random_state = check_int(random_state, "random_state", minimum=0)
    A, B, positions, signs = robust_pca_draws(random_state)
    payload = {
        "n": ROBUST_N,
        "max_rank": ROBUST_MAX_RANK,
        "max_corruption": ROBUST_MAX_CORRUPTION,
        "A": A.ravel(),
        "B": B.ravel(),
        "positions": positions,
        "signs": signs.astype(int),
        "lam_factor_range": list(_LAM_FACTOR_RANGE),
        "flag": _FLAG,
        "random_state": random_state,
        **_ROBUST_SOLVER,
        "settings": {"lam_factor": lam_factor, "rank": rank, "corruption": corruption},
    }
    return BrowserExplorer("robust-pca", payload, title)
