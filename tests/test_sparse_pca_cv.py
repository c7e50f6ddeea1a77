"""held_out_entries_error: element-wise (EM) cross-validation of sparse PCA's alpha."""

import numpy as np
import pytest

from kpca_lib.sparse_pca_cv import held_out_entries_error


def low_rank(seed=0, n=40, d=8, rank=2):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, rank)) @ rng.standard_normal((rank, d)) + 3.0


def test_exact_low_rank_is_completed():
    # a rank-2 matrix (plus a mean) is determined by a fifth of its entries missing:
    # the EM imputation with q = 2 and alpha = 0 recovers the hidden entries (slowly:
    # hard imputation converges linearly)
    assert held_out_entries_error(low_rank(), alpha=0.0, n_components=2, n_em=300) < 1e-3


def test_too_few_components_leave_an_error():
    # one component cannot complete a rank-2 matrix
    assert held_out_entries_error(low_rank(), alpha=0.0, n_components=1) > 0.05


def test_huge_alpha_is_the_column_means():
    # above the largest centred column norm every loading is zero: the fill is the
    # visible column means, so the relative error is exactly 1
    X = low_rank()
    alpha = 10 * np.max(np.linalg.norm(X - X.mean(axis=0), axis=0))
    assert held_out_entries_error(X, alpha=alpha, n_components=2) == pytest.approx(1.0)


def test_seeded():
    X = np.random.default_rng(1).standard_normal((20, 6))
    first = held_out_entries_error(X, 0.5, 2, random_state=3)
    assert first == held_out_entries_error(X, 0.5, 2, random_state=3)


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"alpha": -1.0}, ValueError, "alpha"),
        ({"alpha": "big"}, TypeError, "alpha"),
        ({"n_components": 0}, ValueError, "n_components"),
        ({"n_components": 9}, ValueError, "n_components"),
        ({"n_folds": 1}, ValueError, "n_folds"),
        ({"n_em": 0}, ValueError, "n_em"),
        ({"n_em": 2.5}, TypeError, "n_em"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, name):
    arguments = {"alpha": 0.1, "n_components": 2, **kwargs}
    with pytest.raises(error, match=name):
        held_out_entries_error(low_rank(), **arguments)


def test_bad_data_is_named():
    X = low_rank()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        held_out_entries_error(X, 0.1, 2)
