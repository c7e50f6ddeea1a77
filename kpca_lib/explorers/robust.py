"""Appendix B: principal component pursuit on a low-rank plus sparse matrix.

The sliders move the weight lambda of the l1 term (as a multiple of the
rule ``1 / sqrt(max(n1, n2))``), the rank r of the low-rank part and the
fraction of corrupted entries. The picture shows whether the split
``M = L + S`` found by :func:`kpca_lib.robust_pca` is the planted one.
"""

import warnings

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import Bunch

from .._validation import check_int, check_real
from ..datasets import low_rank_plus_sparse
from ..robust_pca import robust_pca
from .explorer import Explorer
from .sliders import LiveRange, Slider

__all__ = ["SUPPORT_LABELS", "VERDICTS", "CERTIFIED_VERDICTS", "robust_pca_trial", "pcp_verdict",
           "pcp_certified_verdict", "certified_codes", "pcp_phase_diagram", "draw_robust_pca", "robust_pca_explorer"]

#: The classes of the support map, in the order of its values 0, 1, 2, 3.
SUPPORT_LABELS = ("clean", "corrupted, found", "corrupted, missed", "clean, flagged")
_SUPPORT_COLORS = ListedColormap(["#f2f2f2", "#222222", "#d62728", "#1f77b4"])
# S0 has entries +-1: an entry of S counts as corrupted when |S_ij| > 1/2,
# halfway, far above round-off whether the split succeeded or not
_FLAG = 0.5
#: The outcomes of a split, in the order of the codes 0, 1, 2 of :func:`pcp_verdict`.
VERDICTS = ("recovered", "PCP fails (certified)", "solver not converged")
# a split recovers L0 when the relative error of L is below this
_RECOVERED = 1e-3
# objectives closer than this (relative) are not told apart
_OBJECTIVE_MARGIN = 1e-6
# a planted split within this (relative) of the dual lower bound is certified optimal
# to it; the solver's tol=1e-7 on the residuals leaves gaps of about 1e-6
_CERTIFIED_GAP = 1e-5
#: The outcomes of :func:`pcp_certified_verdict`, in the order of its codes 0 to 3.
CERTIFIED_VERDICTS = ("recovered (certified)", "PCP fails (certified)",
                      "near-tie (objective within 1e-6)", "max_iter reached")


def pcp_verdict(fit, L0, S0, M):
    """Whether a PCP split recovered ``(L0, S0)``, and how sure that is.

    * 0, recovered: the solver converged (both residuals at its ``tol``)
      and ``||L - L0||_F < 1e-3 ||L0||_F``;
    * 1, PCP fails (certified): the exactly feasible point
      ``(L, M - L)`` has a PCP objective below that of ``(L0, S0)`` (by more
      than ``1e-6`` relative), so ``(L0, S0)`` is not the minimiser,
      whatever the solver did next;
    * 2, solver not converged: neither, so the run says nothing about PCP.

    Parameters
    ----------
    fit : RobustPCAResult
    L0, S0, M : ndarray
        The planted split and the matrix.

    Returns
    -------
    verdict : int
        0, 1 or 2 (:data:`VERDICTS`).
    error : float
        ``||L - L0||_F / ||L0||_F``.
    objective_margin : float
        ``(f(L0, S0) - f(L, M - L)) / f(L0, S0)``: positive when PCP prefers
        the split found.
    """
    error = float(np.linalg.norm(fit.L - L0) / np.linalg.norm(L0))
    planted = np.linalg.svd(L0, compute_uv=False).sum() + fit.lam * np.abs(S0).sum()
    found = np.linalg.svd(fit.L, compute_uv=False).sum() + fit.lam * np.abs(M - fit.L).sum()
    margin = float((planted - found) / planted)
    if fit.converged and error < _RECOVERED:
        return 0, error, margin
    return (1 if margin > _OBJECTIVE_MARGIN else 2), error, margin


def _pcp_objective(L, S, lam):
    return float(np.linalg.svd(L, compute_uv=False).sum() + lam * np.abs(S).sum())


def pcp_certified_verdict(fit, L0, S0, M):
    """Whether a PCP split recovered ``(L0, S0)``, with certificates either way.

    With ``f`` the PCP objective and ``b = fit.lower_bound`` (from the dual,
    below the optimum by weak duality):

    * 0, recovered (certified): the solver converged, ``||L - L0||_F <
      1e-3 ||L0||_F`` and ``(f(L0, S0) - b) / f(L0, S0) <= 1e-5``: the
      planted split is within ``1e-5`` (relative) of the optimum (near-
      optimality, not uniqueness: exact recovery would need the strict dual
      certificate of Candes et al. 2011, Section 2.3);
    * 1, PCP fails (certified): ``(L, M - L)`` has an objective below
      ``f(L0, S0)`` by more than ``1e-6`` relative (as in :func:`pcp_verdict`);
    * 2, near-tie (objective within 1e-6): the solver converged, but neither
      holds: typically a split at least ``1e-3`` (relative) from ``L0`` whose
      objective is below the planted one by less than ``1e-6`` (when below by
      more than round-off, the planted split is not the minimiser, but another
      split is within ``1e-6`` of it in objective: the edge where uniqueness
      is lost), or a recovery the bound is not tight enough to certify;
    * 3, max_iter reached: the solver did not converge and no failure is
      certified.

    Parameters
    ----------
    fit : RobustPCAResult
    L0, S0, M : ndarray
        The planted split and the matrix.

    Returns
    -------
    verdict : int
        0, 1, 2 or 3 (:data:`CERTIFIED_VERDICTS`).
    planted_gap : float
        ``(f(L0, S0) - b) / f(L0, S0)``: how far the planted split may be
        above the optimum (relative).
    found_gap : float
        ``(f(L, M - L) - b) / f(L0, S0)``, the same for the split found.
    """
    planted = _pcp_objective(L0, S0, fit.lam)
    planted_gap = (planted - fit.lower_bound) / planted
    found_gap = (_pcp_objective(fit.L, M - fit.L, fit.lam) - fit.lower_bound) / planted
    verdict, error, _ = pcp_verdict(fit, L0, S0, M)
    code = certified_codes(verdict, fit.converged, error, planted_gap)
    return int(code), float(planted_gap), float(found_gap)


def certified_codes(verdict, converged, error, planted_gap):
    """The codes of :func:`pcp_certified_verdict` from saved quantities, elementwise.

    Parameters
    ----------
    verdict : array-like of int
        The codes of :func:`pcp_verdict` (1 is a certified failure).
    converged : array-like of bool
        Whether the solver converged.
    error : array-like of float
        ``||L - L0||_F / ||L0||_F``.
    planted_gap : array-like of float
        ``(f(L0, S0) - lower_bound) / f(L0, S0)``.

    Returns
    -------
    ndarray of int
        0 to 3 (:data:`CERTIFIED_VERDICTS`), of the broadcast shape.
    """
    verdict, converged = np.asarray(verdict), np.asarray(converged, dtype=bool)
    error, planted_gap = np.asarray(error, dtype=float), np.asarray(planted_gap, dtype=float)
    codes = np.where(converged, 2, 3)
    codes = np.where(converged & (error < _RECOVERED) & (planted_gap <= _CERTIFIED_GAP), 0, codes)
    return np.where(verdict == 1, 1, codes)


def pcp_phase_diagram(n, ranks, corruptions, n_trials, rho=1.2, max_iter=1000):
    """Split ``n_trials`` test matrices per (rank, corruption) cell by PCP.

    The seed of trial t in cell (i, j) is ``1000 i + 10 j + t``; lam is
    ``1 / sqrt(n)``.

    Returns
    -------
    sklearn.utils.Bunch
        ``verdict``, ``error``, ``objective_margin`` and ``n_iter``, each of
        shape ``(len(ranks), len(corruptions), n_trials)`` (see
        :func:`pcp_verdict`); ``converged``, ``certified_verdict``,
        ``planted_gap`` and ``found_gap`` of the same shape (see
        :func:`pcp_certified_verdict`).
    """
    shape = (len(ranks), len(corruptions), n_trials)
    out = Bunch(verdict=np.zeros(shape, int), error=np.zeros(shape),
                objective_margin=np.zeros(shape), n_iter=np.zeros(shape, int),
                converged=np.zeros(shape, bool), certified_verdict=np.zeros(shape, int),
                planted_gap=np.zeros(shape), found_gap=np.zeros(shape))
    with warnings.catch_warnings():
        # a run that stops at max_iter is classified, not warned about
        warnings.simplefilter("ignore", ConvergenceWarning)
        for index in np.ndindex(shape):
            i, j, trial = index
            case = low_rank_plus_sparse(n=n, rank=int(ranks[i]), corruption=float(corruptions[j]),
                                        random_state=1000 * i + 10 * j + trial)
            fit = robust_pca(case.M, rho=rho, max_iter=max_iter)
            verdict = pcp_verdict(fit, case.L0, case.S0, case.M)
            out.verdict[index], out.error[index], out.objective_margin[index] = verdict
            out.n_iter[index] = fit.n_iter
            out.converged[index] = fit.converged
            certified = pcp_certified_verdict(fit, case.L0, case.S0, case.M)
            out.certified_verdict[index], out.planted_gap[index], out.found_gap[index] = certified
    return out


def robust_pca_trial(lam_factor, rank, corruption, n=60, rho=1.2, max_iter=300, random_state=0):
    """Principal component pursuit on one test matrix ``M = L0 + S0``.

    The matrix is :func:`kpca_lib.datasets.low_rank_plus_sparse` (n x n,
    rank r, entries +-1 at a fraction of random positions), split by
    :func:`kpca_lib.robust_pca` with ``lam = lam_factor / sqrt(n)``.

    Parameters
    ----------
    lam_factor : float
        The weight of the l1 term as a multiple of ``1 / sqrt(n)``, ``> 0``.
    rank : int
        The rank r of ``L0``, ``1 <= r <= n``.
    corruption : float
        The fraction of corrupted entries, in [0, 1].
    n : int, default=60
        The size of the square matrix.
    rho : float, default=1.2
        Factor of the penalty (the argument ``rho`` of
        :func:`kpca_lib.robust_pca`, whose default it is).
    max_iter : int, default=300
        Maximum number of sweeps; a split that stops there is reported by
        ``converged`` (no warning).
    random_state : int, default=0
        Seed of the matrix.

    Returns
    -------
    result : sklearn.utils.Bunch
        ``L0``, ``S0``, ``L``, ``S`` (n x n); ``lam``; ``relative_error``
        ``||L - L0||_F / ||L0||_F``; ``rank_L`` the rank of ``L``;
        ``n_corrupted`` the number of non-zero entries of ``S0``;
        ``found`` of them, those with ``|S_ij| > 1/2``; ``false_alarms``,
        the clean entries with ``|S_ij| > 1/2``; ``support`` (n x n) the
        class of every entry (values 0-3, :data:`SUPPORT_LABELS`);
        ``sigma_M``, ``sigma_L0``, ``sigma_L`` the singular values of M and
        the non-zero ones of L0 and L; ``converged``.

    Examples
    --------
    >>> out = robust_pca_trial(lam_factor=1.0, rank=2, corruption=0.05)
    >>> bool(out.relative_error < 1e-5), out.rank_L, out.found == out.n_corrupted
    (True, 2, True)
    """
    lam_factor = check_real(lam_factor, "lam_factor", minimum=0.0, strict=True)
    n = check_int(n, "n", minimum=2)
    rank = check_int(rank, "rank", minimum=1)
    data = low_rank_plus_sparse(n=n, rank=rank, corruption=corruption, random_state=random_state)
    lam = lam_factor / np.sqrt(n)
    with warnings.catch_warnings():
        # a failed split may stop at max_iter: `converged` says so
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = robust_pca(data.M, lam=lam, rho=rho, max_iter=max_iter)
    corrupted = data.S0 != 0
    flagged = np.abs(fit.S) > _FLAG
    # 0 clean and left clean, 1 found, 2 missed, 3 false alarm
    support = np.where(corrupted, np.where(flagged, 1, 2), np.where(flagged, 3, 0))
    return Bunch(
        L0=data.L0, S0=data.S0, L=fit.L, S=fit.S, lam=lam,
        relative_error=float(np.linalg.norm(fit.L - data.L0) / np.linalg.norm(data.L0)),
        rank_L=fit.rank,
        n_corrupted=int(corrupted.sum()),
        found=int(np.sum(corrupted & flagged)),
        false_alarms=int(np.sum(~corrupted & flagged)),
        support=support,
        sigma_M=np.linalg.svd(data.M, compute_uv=False),
        sigma_L0=np.linalg.svd(data.L0, compute_uv=False)[:rank],
        sigma_L=np.linalg.svd(fit.L, compute_uv=False)[: fit.rank],
        converged=fit.converged,
    )


def draw_robust_pca(axes, lam_factor, rank, corruption, n_shown=30, n_entries=400, limit=0.3):
    """Draw one split: singular values, entries of L against L0, the support of S.

    Parameters
    ----------
    axes : sequence of three matplotlib Axes
    lam_factor : float
        Weight of the l1 term, as a multiple of ``1 / sqrt(n)``.
    rank : int
        Rank of ``L0``.
    corruption : float
        Fraction of corrupted entries.
    n_shown : int, default=30
        Number of singular values drawn.
    n_entries : int, default=400
        Number of entries (a fixed random subset) drawn in the middle panel.
    limit : float, default=0.3
        Both axes of the middle panel span [-limit, limit]; entries of L
        beyond are drawn at the edge.

    Returns
    -------
    str
        The relative error of L, its rank, and how much of the corruption S
        found.
    """
    ax_sigma, ax_entries, ax_support = axes
    out = robust_pca_trial(lam_factor, rank, corruption)
    for sigma, style, label in [(out.sigma_M, "s", "M"), (out.sigma_L0, "o", "$L_0$"),
                                (out.sigma_L, "x", "L (found)")]:
        shown = sigma[:n_shown]
        ax_sigma.semilogy(np.arange(1, shown.size + 1), shown, style, ms=5, label=label,
                          fillstyle="none" if style == "o" else "full")
    # fixed limits: the frames share one layout, and the top right stays free for the legend
    ax_sigma.set(xlabel="index i", ylabel=r"singular value $\sigma_i$", xlim=(0, n_shown + 1),
                 ylim=(1e-2, 1e3), title="singular values")
    ax_sigma.legend(loc="upper right", fontsize=8, ncols=3)

    entries = np.random.default_rng(0).choice(out.L0.size, size=min(n_entries, out.L0.size),
                                              replace=False)
    x = out.L0.ravel()[entries]
    y = np.clip(out.L.ravel()[entries], -limit, limit)
    ax_entries.plot([-limit, limit], [-limit, limit], color="0.6", lw=1)
    ax_entries.scatter(x, y, s=5, color="C0")
    ax_entries.set(xlim=(-limit, limit), ylim=(-limit, limit), xlabel="entry of $L_0$",
                   ylabel="entry of L", aspect="equal",
                   title=rf"$\lambda\sqrt{{n}}$ = {lam_factor:g}: L against $L_0$")

    ax_support.imshow(out.support, cmap=_SUPPORT_COLORS, vmin=-0.5, vmax=3.5,
                      interpolation="nearest")
    ax_support.set(xticks=[], yticks=[], xlabel="column", ylabel="row",
                   title=r"support of S ($|S_{ij}| > 1/2$)")
    handles = [Patch(color=_SUPPORT_COLORS(k), label=label)
               for k, label in enumerate(SUPPORT_LABELS)]
    ax_support.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8,
                      frameon=False)
    return (f"lambda = {lam_factor:g}/sqrt(n): relative error of L {out.relative_error:.1e}, "
            f"rank of L {out.rank_L} (L0: {rank}), corrupted entries found {out.found} of "
            f"{out.n_corrupted}, false alarms {out.false_alarms}")


def robust_pca_explorer(lam_factor=1.0, rank=5, corruption=0.05):
    """The robust PCA explorer of Appendix B, live, from :func:`draw_robust_pca`.

    Parameters
    ----------
    lam_factor : float, default=1.0
        Initial weight of the l1 term, as a multiple of ``1 / sqrt(n)``; one
        of 0.25, 0.5, 1, 2, 4.
    rank : int, default=5
        Initial rank of ``L0``; one of 2, 5, 10.
    corruption : float, default=0.05
        Initial fraction of corrupted entries; one of 0.05, 0.1, 0.2.

    Returns
    -------
    Explorer
    """
    sliders = [
        Slider("lam_factor", [0.25, 0.5, 1.0, 2.0, 4.0], initial=lam_factor,
               label="lambda x sqrt(n)", format="{:g}", live=LiveRange(0.1, 10.0, log=True)),
        Slider("rank", [2, 5, 10], initial=rank, label="rank r (n = 60)",
               live=LiveRange(1, 20, integer=True)),
        Slider("corruption", [0.05, 0.1, 0.2], initial=corruption,
               label="corrupted fraction", format="{:g}", live=LiveRange(0.0, 0.5, step=0.01)),
    ]
    return Explorer(draw_robust_pca, sliders, name="robust-pca", subplots=(1, 3),
                    figsize=(9.6, 3.4))
