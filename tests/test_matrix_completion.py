"""Tests of kpca_lib.matrix_completion: nuclear norm completion of a low-rank matrix."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import complete_matrix, singular_value_threshold


def nuclear_norm(A):
    return np.linalg.svd(A, compute_uv=False).sum()


def low_rank(n1, n2, rank, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n1, rank)) @ rng.standard_normal((rank, n2)) / np.sqrt(n1)


@pytest.mark.parametrize("n1, n2, rank, fraction", [(60, 50, 2, 0.5), (40, 70, 3, 0.6)])
def test_recovers_an_incoherent_low_rank_matrix(n1, n2, rank, fraction):
    # Candes and Recht (2009): enough random entries of an incoherent low-rank
    # matrix determine it, and it is the completion of least nuclear norm
    L0 = low_rank(n1, n2, rank, seed=n1)
    observed = np.random.default_rng(1).uniform(size=L0.shape) < fraction
    result = complete_matrix(np.where(observed, L0, 0.0), observed)
    assert result.converged and result.rank == rank
    assert np.linalg.norm(result.L - L0) / np.linalg.norm(L0) < 1e-4
    assert result.residual_history[-1] <= 1e-6


def test_the_completion_is_optimal_when_recovery_fails():
    # too few entries: L0 is not recovered, but the answer is still feasible and
    # of least nuclear norm: no feasible perturbation (changing only missing
    # entries) lowers it, and L0 itself (feasible) has a larger one
    L0 = low_rank(30, 30, 4, seed=3)
    observed = np.random.default_rng(2).uniform(size=L0.shape) < 0.3
    result = complete_matrix(L0, observed, tol=1e-9, max_iter=20000)
    assert result.converged
    assert np.linalg.norm(result.L - L0) / np.linalg.norm(L0) > 0.05
    np.testing.assert_allclose(result.L[observed], L0[observed], atol=1e-7)
    best = nuclear_norm(result.L)
    assert best < nuclear_norm(L0)
    rng = np.random.default_rng(4)
    for _ in range(30):
        step = np.where(observed, 0.0, 1e-2 * rng.standard_normal(L0.shape))
        assert nuclear_norm(result.L + step) > best - 1e-7


def test_fully_observed_matrix_is_returned():
    M = np.random.default_rng(5).standard_normal((12, 9))
    result = complete_matrix(M, np.ones(M.shape, dtype=bool))
    assert result.converged
    np.testing.assert_allclose(result.L, M, atol=1e-5 * np.abs(M).max())


def test_missing_entries_are_never_read():
    L0 = low_rank(30, 25, 2, seed=6)
    observed = np.random.default_rng(7).uniform(size=L0.shape) < 0.6
    with_nan = complete_matrix(np.where(observed, L0, np.nan), observed)
    with_junk = complete_matrix(np.where(observed, L0, 1e6), observed)
    np.testing.assert_allclose(with_nan.L, with_junk.L, atol=1e-12)


def test_stops_with_a_warning_at_max_iter():
    # with E = 0 and Y = 0, the first L is D_{1/eta_0}(P_Omega(M)) with
    # eta_0 = 1 / ||P_Omega(M)||_2: a threshold at the largest singular value
    # leaves (up to round-off) nothing
    M = low_rank(10, 8, 2, seed=8)
    observed = np.random.default_rng(9).uniform(size=M.shape) < 0.7
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        result = complete_matrix(M, observed, max_iter=1)
    M_observed = np.where(observed, M, 0.0)
    expected = singular_value_threshold(M_observed, np.linalg.norm(M_observed, 2))
    np.testing.assert_allclose(result.L, expected, atol=1e-12)
    assert not result.converged and result.n_iter == 1


@pytest.mark.parametrize("kwargs, match", [
    (dict(observed=np.ones((3, 4), dtype=bool)), "shape of M"),
    (dict(observed=np.ones((4, 4), dtype=int)), "boolean"),
    (dict(observed=np.zeros((4, 4), dtype=bool)), "all zero"),
    (dict(tol=0.0), "tol"),
    (dict(rho=1.0), "rho"),
    (dict(max_iter=0), "max_iter"),
])
def test_bad_input_raises(kwargs, match):
    arguments = dict(M=np.arange(16.0).reshape(4, 4), observed=np.ones((4, 4), dtype=bool))
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=match):
        complete_matrix(**arguments)


def test_nan_at_an_observed_entry_raises():
    M = np.ones((4, 4))
    M[1, 2] = np.nan
    with pytest.raises(ValueError, match="observed entries"):
        complete_matrix(M, np.ones((4, 4), dtype=bool))


@pytest.mark.parametrize("scale", [1e-170, 1e150])
def test_scale_invariance(scale):
    # regression: 1e-170 used to be called "all zero" (the norm underflowed)
    rng = np.random.default_rng(0)
    L0 = rng.standard_normal((30, 2)) @ rng.standard_normal((2, 25))
    observed = rng.uniform(size=L0.shape) < 0.6
    reference = complete_matrix(np.where(observed, L0, np.nan), observed)
    scaled = complete_matrix(np.where(observed, L0 * scale, np.nan), observed)
    assert scaled.converged and scaled.n_iter == reference.n_iter
    np.testing.assert_allclose(scaled.L / scale, reference.L, rtol=0, atol=1e-10 * np.abs(L0).max())


# Issue 35, item 12: complete_matrix runs its sweeps on one BLAS thread, as robust_pca does


def blas_threads():
    from threadpoolctl import threadpool_info

    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


@pytest.mark.parametrize("solver", ["complete_matrix", "robust_pca"])
def test_the_sweeps_run_blas_on_one_thread(monkeypatch, solver):
    from threadpoolctl import threadpool_limits

    import kpca_lib.matrix_completion as completion_module

    robust_module = __import__("sys").modules["kpca_lib.robust_pca"]  # kpca_lib.robust_pca is the function
    seen = []
    if solver == "complete_matrix":
        module, name = completion_module, "singular_value_threshold"
    else:
        module, name = robust_module, "soft_threshold"
    real = getattr(module, name)

    def recording(*args, **kwargs):
        seen.append(blas_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, recording)
    L0 = low_rank(30, 20, 2, seed=5)
    observed = np.random.default_rng(3).uniform(size=L0.shape) < 0.7
    # two threads outside, whatever the test session gave this process (conftest.py)
    with threadpool_limits(limits=2, user_api="blas"):
        outside = blas_threads()
        assert outside == {2}
        with pytest.warns(ConvergenceWarning):  # five sweeps are enough to watch
            if solver == "complete_matrix":
                completion_module.complete_matrix(np.where(observed, L0, 0.0), observed, max_iter=5)
            else:
                robust_module.robust_pca(L0, max_iter=5)
        assert blas_threads() == outside  # the limit ends with the call
    assert len(seen) == 5 and all(threads == {1} for threads in seen)
