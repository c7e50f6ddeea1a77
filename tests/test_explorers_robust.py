"""Tests of the Appendix B explorer (kpca_lib.explorers.robust).

The computation against the library and known answers, the drawing, the live explorer's figures.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import robust_pca
from kpca_lib.datasets import low_rank_plus_sparse
from kpca_lib.explorers import (
    SUPPORT_LABELS,
    draw_robust_pca,
    robust_pca_explorer,
    robust_pca_trial,
)


def test_the_rule_recovers_a_low_rank_matrix_and_the_corruption():
    # Candes et al. (2011): rank 2 and 5 % corruption at n = 60 are well inside
    # the region of exact recovery with lambda = 1 / sqrt(n)
    out = robust_pca_trial(lam_factor=1.0, rank=2, corruption=0.05)
    assert out.relative_error < 1e-5 and out.rank_L == 2 and out.converged
    assert out.n_corrupted == round(0.05 * 60 * 60)
    assert out.found == out.n_corrupted and out.false_alarms == 0
    np.testing.assert_allclose(out.sigma_L, out.sigma_L0, rtol=1e-5)


def test_the_trial_is_the_library_split_of_the_dataset():
    data = low_rank_plus_sparse(n=60, rank=5, corruption=0.1, random_state=0)
    out = robust_pca_trial(lam_factor=0.7, rank=5, corruption=0.1)
    # this split stops at max_iter (its dual residual about 2.5 times the tolerance): the
    # library says so, and the trial reports the same stop
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=300"):
        fit = robust_pca(data.M, lam=0.7 / np.sqrt(60), rho=1.2, max_iter=300)
    assert not out.converged and not fit.converged
    np.testing.assert_allclose(out.L, fit.L, atol=1e-12)
    np.testing.assert_allclose(out.L0, data.L0)
    assert out.lam == pytest.approx(0.7 / np.sqrt(60))
    np.testing.assert_allclose(out.sigma_M, np.linalg.svd(data.M, compute_uv=False))
    assert out.sigma_L0.shape == (5,) and out.sigma_L.shape == (fit.rank,)


def test_extreme_weights_put_everything_in_one_part():
    # lambda tiny: S is cheap and takes all of M (L = 0); lambda large: S is
    # dear, S = 0 and L = M (every singular value is kept)
    cheap = robust_pca_trial(lam_factor=0.05, rank=3, corruption=0.05)
    assert cheap.rank_L == 0 and np.abs(cheap.L).max() == 0.0
    assert cheap.relative_error == pytest.approx(1.0)
    dear = robust_pca_trial(lam_factor=20.0, rank=3, corruption=0.05)
    assert np.abs(dear.S).max() == 0.0 and dear.found == 0
    np.testing.assert_allclose(dear.L, dear.L0 + dear.S0, atol=1e-5)


def test_support_classes_count_the_entries():
    out = robust_pca_trial(lam_factor=0.5, rank=10, corruption=0.2)
    corrupted = out.S0 != 0
    flagged = np.abs(out.S) > 0.5
    assert np.sum(out.support == 1) == out.found == np.sum(corrupted & flagged)
    assert np.sum(out.support == 2) == out.n_corrupted - out.found
    assert np.sum(out.support == 3) == out.false_alarms == np.sum(~corrupted & flagged)
    assert np.sum(out.support == 0) == np.sum(~corrupted & ~flagged)
    assert len(SUPPORT_LABELS) == 4


@pytest.mark.parametrize("kwargs, error", [
    (dict(lam_factor=0.0, rank=2, corruption=0.1), ValueError),
    (dict(lam_factor=1.0, rank=0, corruption=0.1), ValueError),
    (dict(lam_factor=1.0, rank=61, corruption=0.1), ValueError),
    (dict(lam_factor=1.0, rank=2, corruption=1.5), ValueError),
    (dict(lam_factor="one", rank=2, corruption=0.1), TypeError),
])
def test_bad_settings_raise(kwargs, error):
    with pytest.raises(error):
        robust_pca_trial(**kwargs)


def test_draw_shows_the_trial():
    fig, axes = plt.subplots(1, 3)
    caption = draw_robust_pca(axes, lam_factor=1.0, rank=5, corruption=0.1, n_entries=50)
    out = robust_pca_trial(1.0, 5, 0.1)
    lines = axes[0].get_lines()
    np.testing.assert_allclose(lines[0].get_ydata(), out.sigma_M[:30])
    np.testing.assert_allclose(lines[1].get_ydata(), out.sigma_L0)
    np.testing.assert_allclose(lines[2].get_ydata(), out.sigma_L[:30])
    scatter = next(c for c in axes[1].get_children() if isinstance(c, PathCollection))
    offsets = scatter.get_offsets()
    assert offsets.shape == (50, 2)
    # each point is an entry (L0_ij, L_ij), with L clipped to the frame
    entries = np.random.default_rng(0).choice(out.L0.size, size=50, replace=False)
    np.testing.assert_allclose(offsets[:, 0], out.L0.ravel()[entries])
    np.testing.assert_allclose(offsets[:, 1], np.clip(out.L.ravel()[entries], -0.3, 0.3))
    np.testing.assert_array_equal(axes[2].get_images()[0].get_array(), out.support)
    assert axes[2].get_images()[0].get_interpolation() == "nearest"
    assert f"relative error of L {out.relative_error:.1e}" in caption
    assert f"found {out.found} of {out.n_corrupted}" in caption
    plt.close(fig)


def test_figures_map_to_their_setting():
    explorer = robust_pca_explorer()
    for lam_factor, rank in [(0.5, 2), (1.0, 10)]:
        fig, caption = explorer.figure(lam_factor=lam_factor, rank=rank, corruption=0.05)
        plt.close(fig)
        out = robust_pca_trial(lam_factor, rank, 0.05)
        assert caption == (
            f"lambda = {lam_factor:g}/sqrt(n): relative error of L {out.relative_error:.1e}, "
            f"rank of L {out.rank_L} (L0: {rank}), corrupted entries found {out.found} of "
            f"{out.n_corrupted}, false alarms {out.false_alarms}")


def test_explorer_sliders_and_initial_setting():
    explorer = robust_pca_explorer()
    assert [s.name for s in explorer.sliders] == ["lam_factor", "rank", "corruption"]
    assert [s.initial_value for s in explorer.sliders] == [1.0, 5, 0.05]
    assert 1.0 in explorer.sliders[0].values  # the rule lambda = 1 / sqrt(n)
    with pytest.raises(ValueError, match="not one of its values"):
        robust_pca_explorer(rank=7)


def test_pcp_verdict_tells_recovery_certified_failure_and_no_convergence():
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from kpca_lib import robust_pca
    from kpca_lib.datasets import low_rank_plus_sparse
    from kpca_lib.explorers import VERDICTS, pcp_verdict

    easy = low_rank_plus_sparse(n=40, rank=2, corruption=0.05, random_state=0)
    assert pcp_verdict(robust_pca(easy.M), easy.L0, easy.S0, easy.M)[0] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        stopped = robust_pca(easy.M, max_iter=2)
    # two sweeps: neither recovered nor below the planted objective
    verdict, error, margin = pcp_verdict(stopped, easy.L0, easy.S0, easy.M)
    assert VERDICTS[verdict] == "solver not converged" and error > 1e-3
    # a whole corrupted column is a rank-one S0: PCP prefers another split, and the
    # verdict's certificate is a feasible objective below the planted one
    column = low_rank_plus_sparse(n=60, rank=2, corruption=0.0, random_state=5)
    S0 = np.zeros((60, 60))
    S0[:, 7] = np.random.default_rng(6).choice([-1.0, 1.0], 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = robust_pca(column.L0 + S0, max_iter=200)
    verdict, error, margin = pcp_verdict(fit, column.L0, S0, column.L0 + S0)
    assert verdict == 1 and margin > 1e-3
    lam = 1 / np.sqrt(60)
    planted = np.linalg.svd(column.L0, compute_uv=False).sum() + lam * np.abs(S0).sum()
    found = np.linalg.svd(fit.L, compute_uv=False).sum() + lam * np.abs(column.L0 + S0 - fit.L).sum()
    assert found < planted


def test_pcp_certified_verdict_certifies_both_ways():
    import dataclasses
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from kpca_lib import robust_pca
    from kpca_lib.datasets import low_rank_plus_sparse
    from kpca_lib.explorers import CERTIFIED_VERDICTS, pcp_certified_verdict

    easy = low_rank_plus_sparse(n=40, rank=2, corruption=0.05, random_state=0)
    fit = robust_pca(easy.M)
    verdict, planted_gap, found_gap = pcp_certified_verdict(fit, easy.L0, easy.S0, easy.M)
    assert CERTIFIED_VERDICTS[verdict] == "recovered (certified)"
    # weak duality: the bound is below every feasible objective, the planted one included
    planted = np.linalg.svd(easy.L0, compute_uv=False).sum() + fit.lam * np.abs(easy.S0).sum()
    assert fit.lower_bound <= planted * (1 + 1e-12) and 0 <= planted_gap + 1e-12 < 1e-5
    # the same fit with a bound too loose to certify anything: undecided, not "recovered"
    loose = dataclasses.replace(fit, lower_bound=0.9 * fit.lower_bound)
    assert pcp_certified_verdict(loose, easy.L0, easy.S0, easy.M)[0] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        stopped = robust_pca(easy.M, max_iter=2)
    assert CERTIFIED_VERDICTS[pcp_certified_verdict(stopped, easy.L0, easy.S0, easy.M)[0]] == (
        "max_iter reached")
    column = low_rank_plus_sparse(n=60, rank=2, corruption=0.0, random_state=5)
    S0 = np.zeros((60, 60))
    S0[:, 7] = np.random.default_rng(6).choice([-1.0, 1.0], 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = robust_pca(column.L0 + S0, max_iter=200)
    assert pcp_certified_verdict(fit, column.L0, S0, column.L0 + S0)[0] == 1


def test_certified_codes_agree_with_the_verdict_of_each_case():
    from kpca_lib.explorers import certified_codes

    # verdict, converged, error, planted gap -> the code pcp_certified_verdict gives
    cases = [((0, True, 1e-6, 1e-7), 0), ((0, True, 1e-6, 2e-5), 2), ((2, True, 5e-3, 1e-6), 2),
             ((2, False, 5e-3, 1e-6), 3), ((1, False, 0.5, 0.1), 1), ((1, True, 0.5, 0.1), 1)]
    inputs = np.array([case for case, _ in cases], dtype=object).T
    codes = certified_codes(inputs[0].astype(int), inputs[1].astype(bool),
                            inputs[2].astype(float), inputs[3].astype(float))
    assert codes.tolist() == [code for _, code in cases]
