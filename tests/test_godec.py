"""Tests of kpca_lib.godec against independent facts: Eckart-Young (k = 0 is the
truncated SVD, as scikit-learn's TruncatedSVD finds it), exact recovery of a planted
split, the monotone misfit of block minimisation, and clear errors."""

import warnings

import numpy as np
import pytest
from sklearn.decomposition import TruncatedSVD
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import godec
from kpca_lib.datasets import low_rank_plus_sparse


def test_without_sparse_part_it_is_the_truncated_svd():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((40, 25))
    fit = godec(M, rank=3, cardinality=0)
    svd = TruncatedSVD(n_components=3, algorithm="arpack").fit(M)
    reference = svd.transform(M) @ svd.components_
    assert fit.converged and np.allclose(fit.S, 0.0)
    np.testing.assert_allclose(fit.L, reference, atol=1e-10)


def test_told_rank_and_cardinality_it_recovers_small_corruption():
    # corruption as small as the entries of L0 (appendix B's hard case for rules on size)
    case = low_rank_plus_sparse(n=60, rank=3, corruption=0.05, random_state=3)
    S0 = np.sign(case.S0) * case.L0.std()
    fit = godec(case.L0 + S0, rank=3, cardinality=int(np.sum(S0 != 0)))
    assert fit.converged
    assert np.linalg.norm(fit.L - case.L0) / np.linalg.norm(case.L0) < 1e-8
    assert np.array_equal(fit.S != 0, S0 != 0)


def test_misfit_never_increases_and_s_has_k_entries():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((30, 20))
    with warnings.catch_warnings():
        # tol=0: it may stop at max_iter; the misfit is what is checked
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = godec(M, rank=2, cardinality=50, max_iter=200, tol=0.0)
    assert np.all(np.diff(fit.misfit_history) <= 1e-12)
    assert int(np.sum(fit.S != 0)) == 50
    assert np.linalg.matrix_rank(fit.L) <= 2


def test_max_iter_warns():
    rng = np.random.default_rng(2)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        fit = godec(rng.standard_normal((20, 20)), rank=2, cardinality=30, max_iter=2)
    assert not fit.converged and fit.n_iter == 2


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"rank": 0, "cardinality": 1}, ValueError, "rank"),
        ({"rank": 11, "cardinality": 1}, ValueError, "rank"),
        ({"rank": 2.0, "cardinality": 1}, TypeError, "rank"),
        ({"rank": 2, "cardinality": -1}, ValueError, "cardinality"),
        ({"rank": 2, "cardinality": 101}, ValueError, "cardinality"),
        ({"rank": 2, "cardinality": 1, "tol": -1.0}, ValueError, "tol"),
        ({"rank": 2, "cardinality": 1, "max_iter": 0}, ValueError, "max_iter"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, name):
    with pytest.raises(error, match=name):
        godec(np.ones((10, 10)), **kwargs)


def test_bad_matrix_is_refused():
    M = np.ones((5, 5))
    M[1, 1] = np.nan
    with pytest.raises(ValueError, match="M"):
        godec(M, rank=1, cardinality=1)
    with pytest.raises(ValueError):
        godec(np.ones(5), rank=1, cardinality=1)


def test_callback_sees_every_sweep_and_the_final_split():
    rng = np.random.default_rng(5)
    L0 = rng.standard_normal((20, 2)) @ rng.standard_normal((2, 15))
    seen = []
    fit = godec(L0, rank=2, cardinality=3, max_iter=7,
                callback=lambda n_iter, L, S: seen.append((n_iter, L.copy(), S.copy())))
    assert [n for n, _, _ in seen] == list(range(1, fit.n_iter + 1))
    np.testing.assert_array_equal(seen[-1][1], fit.L)
    np.testing.assert_array_equal(seen[-1][2], fit.S)
    with pytest.raises(TypeError, match="callback"):
        godec(L0, rank=2, cardinality=3, callback=3)
