"""Tests of kpca_lib.explorers.gram_spectrum, the computing of chapter 3's widget."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics.pairwise import rbf_kernel

from kpca_lib.explorers import gram_spectrum, squared_distance_scales

finite_points = arrays(
    np.float64,
    st.tuples(st.integers(1, 12), st.integers(1, 3)),
    elements=st.floats(-10, 10, allow_nan=False, allow_infinity=False, allow_subnormal=False),
)
widths = st.floats(1e-2, 1e2)


def test_gram_matrix_is_sklearn_rbf_with_gamma_one_over_c():
    X = np.random.default_rng(0).normal(size=(20, 3))
    K, _ = gram_spectrum(X, c=2.5)
    np.testing.assert_allclose(K, rbf_kernel(X, gamma=1 / 2.5), atol=1e-14)


def test_eigenvalues_are_those_of_numpy_in_descending_order():
    X = np.random.default_rng(1).normal(size=(15, 2))
    K, eigenvalues = gram_spectrum(X, c=1.0)
    np.testing.assert_allclose(eigenvalues, np.sort(np.linalg.eigvals(K).real)[::-1], atol=1e-10)


@given(X=finite_points, c=widths)
def test_spectrum_is_psd_and_sums_to_n(X, c):
    K, eigenvalues = gram_spectrum(X, c)
    n = X.shape[0]
    assert K.shape == (n, n) and eigenvalues.shape == (n,)
    assert np.all(np.diff(eigenvalues) <= 1e-12)
    # trace(K) = n because k(x, x) = 1; a Gaussian Gram matrix is PSD
    assert eigenvalues.sum() == pytest.approx(n, rel=1e-9)
    assert eigenvalues.min() >= -1e-10 * n


def test_small_width_gives_identity_and_large_width_gives_all_ones():
    X = np.arange(10.0).reshape(5, 2)  # distinct points, squared distances >= 8
    K_small, eig_small = gram_spectrum(X, c=1e-3)
    np.testing.assert_allclose(K_small, np.eye(5), atol=1e-12)
    np.testing.assert_allclose(eig_small, np.ones(5), atol=1e-12)
    K_large, eig_large = gram_spectrum(X, c=1e8)
    np.testing.assert_allclose(K_large, np.ones((5, 5)), atol=1e-5)
    # the all-ones matrix has eigenvalues n, 0, ..., 0
    np.testing.assert_allclose(eig_large, [5, 0, 0, 0, 0], atol=1e-5)


@pytest.mark.parametrize("c", [0.0, -1.0, np.inf])
def test_invalid_width_raises_value_error_naming_c(c):
    with pytest.raises(ValueError, match="c"):
        gram_spectrum(np.zeros((3, 2)), c)


def test_non_number_width_raises_type_error():
    with pytest.raises(TypeError, match="c"):
        gram_spectrum(np.zeros((3, 2)), "wide")


def test_nan_in_X_raises_value_error():
    with pytest.raises(ValueError):
        gram_spectrum(np.array([[0.0, np.nan]]), 1.0)


def test_squared_distance_scales_of_points_on_a_line():
    # 0, 1, 3, 7: nearest squared distances 1, 1, 4, 16 -> median 2.5;
    # pair squared distances 1, 9, 49, 4, 36, 16 -> median (9 + 16) / 2 = 12.5
    nearest_neighbour, median = squared_distance_scales([[0.0], [1.0], [3.0], [7.0]])
    assert nearest_neighbour == pytest.approx(2.5)
    assert median == pytest.approx(12.5)


def test_squared_distance_scales_agree_with_a_loop_over_pairs():
    X = np.random.default_rng(3).normal(size=(9, 3))
    pairs = [float(np.sum((X[i] - X[j]) ** 2)) for i in range(9) for j in range(9) if i < j]
    nearest = [min(float(np.sum((X[i] - X[j]) ** 2)) for j in range(9) if j != i) for i in range(9)]
    nearest_neighbour, median = squared_distance_scales(X)
    assert nearest_neighbour == pytest.approx(np.median(nearest), rel=1e-12)
    assert median == pytest.approx(np.median(pairs), rel=1e-12)


def test_median_heuristic_width_puts_the_median_pair_at_one_over_e():
    X = np.random.default_rng(4).normal(size=(30, 2))
    _, median = squared_distance_scales(X)
    K, _ = gram_spectrum(X, median)
    off_diagonal = K[np.triu_indices(30, k=1)]
    assert np.median(off_diagonal) == pytest.approx(np.exp(-1), rel=1e-9)


def test_squared_distance_scales_need_two_samples():
    with pytest.raises(ValueError, match="sample"):
        squared_distance_scales(np.zeros((1, 2)))
