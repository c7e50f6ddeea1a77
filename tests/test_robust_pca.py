"""Tests of kpca_lib.robust_pca and kpca_lib.proximal."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import robust_pca, singular_value_threshold, soft_threshold
from kpca_lib.datasets import low_rank_plus_sparse
from kpca_lib.proximal import project_unit_ball

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)


@given(arrays(np.float64, st.integers(1, 20), elements=finite), st.floats(0, 1e3))
def test_soft_threshold_is_the_l1_prox(x, t):
    z = soft_threshold(x, t)
    # never grows a norm, and moves each entry by at most t
    assert np.linalg.norm(z) <= np.linalg.norm(x) + 1e-12
    assert np.all(np.abs(z - x) <= t + 1e-9)
    # optimality: x - z is in t * subdifferential of |.| at z
    on = z != 0
    assert np.allclose((x - z)[on], t * np.sign(z[on]))
    assert np.all(np.abs(x[~on]) <= t)


@given(arrays(np.float64, (6, 4), elements=finite), st.floats(0, 1e3))
def test_svt_is_soft_thresholding_of_singular_values(A, tau):
    result, rank = singular_value_threshold(A, tau, return_rank=True)
    sigma = np.linalg.svd(A, compute_uv=False)
    expected = np.maximum(sigma - tau, 0)
    assert np.allclose(np.linalg.svd(result, compute_uv=False), expected, atol=1e-8 * (1 + sigma[0]))
    # the rank is only defined where no singular value sits within round-off of tau
    assume(np.all(np.abs(sigma - tau) > 1e-8 * (1 + sigma[0])))
    assert rank == np.count_nonzero(expected)


def test_svt_minimises_its_objective():
    # D_tau(A) = argmin tau ||X||_* + 1/2 ||X - A||_F^2: compare with perturbations
    rng = np.random.default_rng(0)
    A = rng.standard_normal((8, 5))
    tau = 1.0

    def objective(X):
        return tau * np.linalg.svd(X, compute_uv=False).sum() + 0.5 * np.sum((X - A) ** 2)

    best = objective(singular_value_threshold(A, tau))
    for _ in range(50):
        assert objective(singular_value_threshold(A, tau) + 1e-3 * rng.standard_normal(A.shape)) > best


def test_project_unit_ball():
    Y = project_unit_ball(np.array([[3.0, 0.1], [4.0, 0.2]]))
    assert np.allclose(np.linalg.norm(Y, axis=0), [1.0, np.hypot(0.1, 0.2)])


@pytest.mark.parametrize("corruption", [0.05, 0.10])
@pytest.mark.parametrize("svd_method", ["full", "partial"])
def test_exact_recovery(corruption, svd_method):
    n = 200
    data = low_rank_plus_sparse(n=n, rank=int(0.05 * n), corruption=corruption, random_state=1)
    result = robust_pca(data.M, svd_method=svd_method)
    assert result.converged
    assert result.residual_history[-1] <= 1e-7
    assert result.rank == 10
    assert np.linalg.matrix_rank(result.L, tol=1e-6) == 10
    assert np.linalg.norm(result.L - data.L0) / np.linalg.norm(data.L0) < 1e-5
    assert np.array_equal(np.abs(result.S) > 1e-3, data.S0 != 0)
    assert np.allclose(result.L + result.S, data.M, atol=1e-6)


def test_partial_svd_gives_the_full_svd_answer():
    data = low_rank_plus_sparse(n=200, rank=10, corruption=0.05, random_state=2)
    full = robust_pca(data.M, svd_method="full")
    partial = robust_pca(data.M, svd_method="partial")
    assert full.n_iter == partial.n_iter
    assert np.max(np.abs(full.L - partial.L)) < 1e-8


def test_default_lambda_and_rectangular():
    data = low_rank_plus_sparse(n=60, n_cols=150, rank=2, corruption=0.05, random_state=0)
    result = robust_pca(data.M)
    assert result.lam == pytest.approx(1 / np.sqrt(150))
    assert result.L.shape == (60, 150)
    assert np.linalg.norm(result.L - data.L0) / np.linalg.norm(data.L0) < 1e-4


def test_residual_history_records_each_sweep():
    data = low_rank_plus_sparse(n=50, rank=2, corruption=0.05)
    result = robust_pca(data.M)
    assert result.residual_history.shape == (result.n_iter,)
    M = data.M
    assert result.residual_history[-1] == pytest.approx(
        np.linalg.norm(M - result.L - result.S) / np.linalg.norm(M), rel=1e-6
    )


def test_warning_when_max_iter_hit():
    data = low_rank_plus_sparse(n=50, rank=2, corruption=0.05)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        result = robust_pca(data.M, max_iter=3)
    assert not result.converged
    assert result.n_iter == 3


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"lam": 0.0}, ValueError, "lam"),
        ({"lam": -1.0}, ValueError, "lam"),
        ({"lam": np.inf}, ValueError, "lam"),
        ({"lam": "one"}, TypeError, "lam"),
        ({"tol": 0.0}, ValueError, "tol"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": 1.5}, TypeError, "max_iter"),
        ({"rho": 1.0}, ValueError, "rho"),
        ({"svd_method": "lanczos"}, ValueError, "svd_method"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    M = low_rank_plus_sparse(n=20, rank=2).M
    with pytest.raises(error, match=match):
        robust_pca(M, **kwargs)


def test_bad_matrices():
    M = low_rank_plus_sparse(n=20, rank=2).M
    M[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        robust_pca(M)
    with pytest.raises(ValueError, match="2D array"):
        robust_pca(np.ones(5))
    with pytest.raises(ValueError, match="minimum of 2"):
        robust_pca(np.ones((1, 5)))
    with pytest.raises(ValueError, match="all zeros"):
        robust_pca(np.zeros((5, 5)))


def test_soft_threshold_refuses_a_negative_threshold():
    with pytest.raises(ValueError, match=r"t must be >= 0.*t=-0.5"):
        soft_threshold([1.0, -2.0], -0.5)
    with pytest.raises(ValueError, match="t must be >= 0"):
        soft_threshold([1.0, -2.0], [0.5, np.nan])
    with pytest.raises(ValueError, match="tau must be >= 0"):
        singular_value_threshold(np.eye(2), -1.0)


def test_partial_svt_never_misses_a_singular_value_above_tau():
    # a warm start that holds the three largest right singular vectors and
    # ten small ones, but not the fourth (5 > tau): power steps never find it
    import sys

    partial_svt = sys.modules["kpca_lib.robust_pca"]._partial_svt
    rng = np.random.default_rng(0)
    n = 60
    U = np.linalg.qr(rng.standard_normal((n, n)))[0]
    W = np.linalg.qr(rng.standard_normal((n, n)))[0]
    sigma = np.concatenate([[10.0, 8.0, 6.0, 5.0], np.linspace(0.5, 0.1, n - 4)])
    A = (U * sigma) @ W.T
    V = W[:, [0, 1, 2, *range(4, 14)]]
    full, rank = singular_value_threshold(A, 1.0, return_rank=True)
    assert rank == 4
    step = partial_svt(A, 1.0, V)
    # either the full SVD is asked for, or the answer is the full SVT's
    if step is not None:
        assert step[1] == 4
        np.testing.assert_allclose(step[0], full, atol=1e-10)
    # with the fourth direction in the block it is accepted, and right
    step = partial_svt(A, 1.0, W[:, :14])
    assert step is not None and step[1] == 4
    np.testing.assert_allclose(step[0], full, atol=1e-10)


def test_arpack_non_convergence_of_the_spectral_norm_is_reported(monkeypatch):
    import sys

    from scipy.sparse.linalg import ArpackNoConvergence

    def no_convergence(*args, **kwargs):
        raise ArpackNoConvergence("ARPACK error -1: No convergence", np.array([]), np.array([]))

    module = sys.modules["kpca_lib.robust_pca"]
    data = low_rank_plus_sparse(n=50, rank=2, corruption=0.05)
    expected = robust_pca(data.M)
    monkeypatch.setattr(module, "svds", no_convergence)
    with pytest.warns(ConvergenceWarning, match="ARPACK did not converge on the spectral norm"):
        result = robust_pca(data.M)
    np.testing.assert_allclose(result.L, expected.L, atol=1e-10)


@pytest.mark.parametrize("scale", [1e-170, 1e80, 1e150])
def test_any_finite_scale_is_solved_by_the_default(scale):
    # regression (issue 22, defects 4 and 6): 1e150 raised LinAlgError in the
    # partial SVD's check, 1e-170 was called "all zeros"
    data = low_rank_plus_sparse(n=120, rank=3, corruption=0.05, random_state=0)
    reference = robust_pca(data.M, svd_method="full")
    scaled = robust_pca(data.M * scale)
    assert scaled.converged and scaled.rank == reference.rank
    np.testing.assert_allclose(scaled.L / scale, reference.L, rtol=0, atol=1e-8)
    assert scaled.objective / scale == pytest.approx(reference.objective, rel=1e-8)


def test_stopping_rule_tests_the_dual_residual():
    # regression (issue 22, defect 8): Appendix B's 50 x 50 matrix, where the
    # primal test alone stopped with rho=1.5 at a feasible point whose
    # objective is above that of the planted split (L0, S0)
    hard = low_rank_plus_sparse(n=50, rank=4, corruption=0.12, random_state=2)
    lam = 1 / np.sqrt(50)
    planted = np.linalg.svd(hard.L0, compute_uv=False).sum() + lam * np.abs(hard.S0).sum()
    for rho in (1.5, None):  # Lin et al.'s factor, and the default
        fit = robust_pca(hard.M) if rho is None else robust_pca(hard.M, rho=rho)
        assert fit.converged
        assert fit.residual_history[-1] <= 1e-7 and fit.dual_residual_history[-1] <= 1e-7
        # the reported objective is that of the returned point
        own = np.linalg.svd(fit.L, compute_uv=False).sum() + lam * np.abs(fit.S).sum()
        assert fit.objective == pytest.approx(own, rel=1e-9)
        # weak duality: the bound is below every feasible objective, and tight here
        assert fit.lower_bound <= planted + 1e-9
        assert fit.objective - fit.lower_bound < 1e-5 * fit.objective
        assert fit.objective < planted + 1e-5  # the old stop was 3e-3 above it
        assert np.linalg.norm(fit.L - hard.L0) / np.linalg.norm(hard.L0) < 1e-4


def test_a_lagging_dual_residual_is_reported():
    hard = low_rank_plus_sparse(n=50, rank=4, corruption=0.12, random_state=2)
    with pytest.warns(ConvergenceWarning, match="dual residual"):
        fit = robust_pca(hard.M, max_iter=8)
    assert not fit.converged and fit.dual_residual_history.shape == (8,)


def test_dual_residual_history_is_recorded():
    data = low_rank_plus_sparse(n=40, rank=2, corruption=0.05)
    fit = robust_pca(data.M)
    assert fit.dual_residual_history.shape == (fit.n_iter,)
    assert np.all(fit.dual_residual_history >= 0)


def test_a_failing_partial_svd_is_tried_less_and_less_often(monkeypatch):
    # issue 22, defect 5: the partial step that keeps failing must not be retried every sweep
    import sys

    module = sys.modules["kpca_lib.robust_pca"]
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        return None

    monkeypatch.setattr(module, "_partial_svt", failing)
    data = low_rank_plus_sparse(n=120, rank=2, corruption=0.05, random_state=0)
    fit = robust_pca(data.M, svd_method="partial")
    assert fit.converged and fit.n_iter > 10
    # tried at sweeps 2, 4, 8, 16, ...: about log2(n_iter) times, not every sweep
    assert len(calls) <= np.log2(fit.n_iter) + 1


@pytest.mark.parametrize("rank_fraction", [0.2, 0.4])
def test_the_default_tries_the_partial_svd_only_where_it_pays(monkeypatch, rank_fraction):
    # issue 22, defect 5: the block of the partial SVD is tried only while it is narrow
    # (width at most min(n1, n2) / 8); at rank 20 % and 40 % of n it is wider after the
    # first sweeps, so the default runs full SVDs, where at rank 5 % it runs partial ones
    import sys

    module = sys.modules["kpca_lib.robust_pca"]
    real = module._partial_svt

    def counted(calls):
        def partial_svt(*args, **kwargs):
            result = real(*args, **kwargs)
            calls.append(result is not None)
            return result

        return partial_svt

    n = 160
    low, high = [], []
    monkeypatch.setattr(module, "_partial_svt", counted(low))
    fit_low = robust_pca(low_rank_plus_sparse(n=n, rank=n // 20, corruption=0.05, random_state=0).M)
    monkeypatch.setattr(module, "_partial_svt", counted(high))
    data = low_rank_plus_sparse(n=n, rank=int(rank_fraction * n), corruption=0.05, random_state=0)
    fit_high = robust_pca(data.M)
    assert fit_low.converged and fit_high.converged
    # rank 5 %: the partial SVD is tried in most sweeps, and it succeeds
    assert len(low) >= fit_low.n_iter // 2 and sum(low) >= len(low) - 3
    # rank 20 % / 40 %: at most the sweeps before the rank outgrows the block
    assert len(high) <= 2 < fit_high.n_iter // 10


def test_a_near_tie_of_the_phase_diagram_stops_at_the_minimum():
    # issue 22, defect 8: one of the 19 phase-diagram splits (rank 5, 12.5 % corrupted, trial 1,
    # seed 1000 i + 10 j + t) that Appendix B calls "solver not converged", as the docstring
    # of rho says: the default stops on both residuals at the minimum (relative duality gap
    # below 1e-6), a few 1e-3 from the planted L, whose objective is higher by less than the
    # 1e-6 that certifies a failure of PCP
    from kpca_lib.explorers import pcp_verdict

    case = low_rank_plus_sparse(n=60, rank=5, corruption=0.125, random_state=4041)
    fit = robust_pca(case.M)
    verdict, error, margin = pcp_verdict(fit, case.L0, case.S0, case.M)
    found = np.linalg.svd(fit.L, compute_uv=False).sum() + fit.lam * np.abs(case.M - fit.L).sum()
    assert fit.converged and fit.n_iter < 1000
    assert (found - fit.lower_bound) / found < 1e-6
    assert verdict == 2 and 1e-3 < error < 1e-2 and 0 < margin < 1e-6


def test_missing_entries_all_observed_is_the_plain_programme():
    case = low_rank_plus_sparse(n=40, rank=2, corruption=0.05, random_state=0)
    plain = robust_pca(case.M)
    masked = robust_pca(case.M, observed=np.ones(case.M.shape, bool))
    assert masked.n_iter == plain.n_iter
    np.testing.assert_allclose(masked.L, plain.L, atol=1e-12)


def test_missing_entries_large_lam_is_matrix_completion():
    # with lam large, S = 0 on the observed entries: the programme is the completion
    # of least nuclear norm, solved independently by complete_matrix
    from kpca_lib import complete_matrix

    rng = np.random.default_rng(3)
    L0 = rng.standard_normal((30, 2)) @ rng.standard_normal((2, 30))
    observed = rng.uniform(size=L0.shape) < 0.6
    M = np.where(observed, L0, np.nan)  # the missing entries are never read
    fit = robust_pca(M, lam=100.0, observed=observed)
    reference = complete_matrix(M, observed, tol=1e-9)
    assert fit.converged and np.all(fit.S[~observed] == 0)
    np.testing.assert_allclose(fit.L, reference.L, atol=1e-4 * np.abs(L0).max())
    assert fit.lower_bound <= fit.objective * (1 + 1e-12)


def test_missing_entries_with_corruption_predicts_the_held_out_entries():
    case = low_rank_plus_sparse(n=60, rank=3, corruption=0.05, random_state=1)
    held = np.random.default_rng(2).uniform(size=case.M.shape) < 0.1
    fit = robust_pca(np.where(held, np.nan, case.M), observed=~held)
    assert fit.converged
    assert np.linalg.norm(fit.L - case.L0) / np.linalg.norm(case.L0) < 1e-5
    # the planted split, restricted to the observed entries, is feasible: the bound is below it
    planted = np.linalg.svd(case.L0, compute_uv=False).sum() + fit.lam * np.abs(
        case.S0[~held]).sum()
    assert fit.lower_bound <= planted * (1 + 1e-12)


def test_missing_entries_bad_masks():
    M = np.ones((5, 5))
    with pytest.raises(TypeError, match="observed"):
        robust_pca(M, observed=np.ones((5, 5)))
    with pytest.raises(ValueError, match="observed"):
        robust_pca(M, observed=np.ones((5, 4), bool))
    with pytest.raises(ValueError, match="observed"):
        robust_pca(M, observed=np.zeros((5, 5), bool))
    M[0, 0] = np.nan
    with pytest.raises(ValueError, match="observed entries"):
        robust_pca(M, observed=np.ones((5, 5), bool))
