"""Tests of kpca_lib.l1_low_rank against independent facts: an exact planted
recovery, a linear-programming solve of the l1 regression, and named bad input."""

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import l1_low_rank, l1_regression


def _lad_by_linprog(X, y):
    """min sum t subject to -t <= y - X b <= t, as a linear programme."""
    n, p = X.shape
    c = np.r_[np.zeros(p), np.ones(n)]
    A_ub = np.block([[X, -np.eye(n)], [-X, -np.eye(n)]])
    b_ub = np.r_[y, -y]
    bounds = [(None, None)] * p + [(0, None)] * n
    solution = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    assert solution.status == 0
    return solution.x[:p], solution.fun


def test_l1_regression_matches_a_linear_programme():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.standard_t(df=1.5, size=40)
    b_lp, loss_lp = _lad_by_linprog(X, y)
    b = l1_regression(X, y)
    assert np.abs(y - X @ b).sum() == pytest.approx(loss_lp, rel=1e-7)
    np.testing.assert_allclose(b, b_lp, atol=1e-6)
    # and it is not the least-squares answer (the heavy tails matter here)
    b_ls = np.linalg.lstsq(X, y, rcond=None)[0]
    assert np.abs(y - X @ b_ls).sum() > loss_lp * (1 + 1e-3)


def _planted(seed, n=60, r=3, fraction=0.05):
    rng = np.random.default_rng(seed)
    L0 = rng.standard_normal((n, r)) @ rng.standard_normal((r, n)) / np.sqrt(n)
    support = rng.uniform(size=L0.shape) < fraction
    return L0, L0 + np.where(support, rng.choice([-1.0, 1.0], L0.shape) * 5 * L0.std(), 0.0)


def test_at_its_answer_each_row_solves_the_l1_regression_on_b():
    # a fixed point of the alternation: with B fixed, each row of A is an l1
    # regression of the row of M on B, checked by a linear programme
    _, M = _planted(2)
    fit = l1_low_rank(M, rank=3)
    assert fit.converged
    for i in range(0, M.shape[0], 6):
        _, loss_lp = _lad_by_linprog(fit.B, M[i])
        assert np.abs(M[i] - fit.B @ fit.A[i]).sum() == pytest.approx(loss_lp, rel=1e-7, abs=1e-9)


def test_exact_recovery_of_a_planted_split_without_the_count():
    L0, M = _planted(2)
    r = 3
    fit = l1_low_rank(M, rank=r)
    assert fit.converged
    assert np.linalg.norm(fit.L - L0) < 1e-8 * np.linalg.norm(L0)
    assert np.linalg.matrix_rank(fit.L, tol=1e-8 * np.linalg.norm(fit.L, 2)) == r
    # the truncated SVD told the same rank is far off
    U, s, Vt = np.linalg.svd(M)
    assert np.linalg.norm((U[:, :r] * s[:r]) @ Vt[:r] - L0) > 0.01 * np.linalg.norm(L0)


def test_without_corruption_and_full_rank_it_fits_exactly():
    M = np.random.default_rng(3).standard_normal((8, 5))
    fit = l1_low_rank(M, rank=5)
    np.testing.assert_allclose(fit.L, M, atol=1e-8)


def test_zero_matrix_and_max_iter_warning():
    fit = l1_low_rank(np.zeros((4, 3)), rank=1)
    assert fit.converged and not fit.L.any()
    M = np.random.default_rng(4).standard_normal((20, 20))
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        fit = l1_low_rank(M, rank=2, max_iter=2)
    assert fit.n_iter == 2 and not fit.converged


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"rank": 0}, ValueError, "rank"),
        ({"rank": 11}, ValueError, "rank"),
        ({"rank": 2.0}, TypeError, "rank"),
        ({"rank": 2, "max_iter": 0}, ValueError, "max_iter"),
        ({"rank": 2, "tol": -1.0}, ValueError, "tol"),
        ({"rank": 2, "eps": 0.0}, ValueError, "eps"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, name):
    with pytest.raises(error, match=name):
        l1_low_rank(np.ones((10, 10)), **kwargs)


def test_bad_data_is_refused():
    M = np.ones((5, 5))
    M[1, 1] = np.nan
    with pytest.raises(ValueError, match="M"):
        l1_low_rank(M, rank=1)
    with pytest.raises(ValueError, match="y"):
        l1_regression(np.ones((5, 2)), np.ones(4))
    with pytest.raises(ValueError, match="eps"):
        l1_regression(np.ones((5, 2)), np.ones(5), eps=-1.0)
