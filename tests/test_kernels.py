"""Kernels: Gram matrices against their formulas, validity, the feature map."""

from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kpca_lib as kl
from strategies import data_matrices


def pairwise_by_formula(k, X, Y):
    """Gram matrix entry by entry: the definition, with no vectorisation."""
    return np.array([[k(x, y) for y in Y] for x in X])


FORMULAS = [
    (kl.Linear(), lambda x, y: x @ y),
    (kl.Polynomial(degree=3, coef0=0.5), lambda x, y: (x @ y + 0.5) ** 3),
    (kl.Gaussian(c=2.5), lambda x, y: np.exp(-np.sum((x - y) ** 2) / 2.5)),
    (kl.Sigmoid(gamma=0.3, coef0=-0.2), lambda x, y: np.tanh(0.3 * (x @ y) - 0.2)),
    (kl.Polynomial(degree=2, coef0=0.5, gamma=0.25), lambda x, y: (0.25 * (x @ y) + 0.5) ** 2),
    (kl.Laplacian(c=2.5), lambda x, y: np.exp(-np.sum(np.abs(x - y)) / 2.5)),
    (kl.Cosine(), lambda x, y: x @ y / np.sqrt((x @ x) * (y @ y))),
]


@pytest.mark.parametrize(("kernel", "formula"), FORMULAS, ids=lambda v: repr(v)[:20])
def test_gram_matrix_matches_formula(kernel, formula):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    np.testing.assert_allclose(kernel(X, Y), pairwise_by_formula(formula, X, Y), rtol=1e-12)
    np.testing.assert_allclose(kernel(X), pairwise_by_formula(formula, X, X), rtol=1e-12)


def test_gaussian_width_is_sklearn_gamma_inverse():
    from sklearn.metrics.pairwise import rbf_kernel

    X = np.random.default_rng(1).normal(size=(6, 4))
    np.testing.assert_allclose(kl.Gaussian(c=4.0)(X), rbf_kernel(X, gamma=0.25))


@given(X=data_matrices(max_samples=10), c=st.floats(0.1, 50))
def test_valid_kernels_give_symmetric_psd_gram_matrices(X, c):
    for kernel in (kl.Linear(), kl.Polynomial(degree=2, coef0=1.0), kl.Gaussian(c=c)):
        K = kernel(X)
        assert np.array_equal(K, K.T) or np.allclose(K, K.T, rtol=1e-12, atol=0)
        assert kl.is_psd(K, rtol=1e-8), repr(kernel)


def test_sigmoid_kernel_is_not_psd_on_a_two_point_example():
    # K = [[tanh 1, tanh 2], [tanh 2, tanh 4]] has det tanh1 tanh4 - tanh2^2 < 0
    K = kl.Sigmoid(gamma=1.0, coef0=0.0)(np.array([[1.0], [2.0]]))
    assert np.linalg.det(K) < 0
    assert not kl.is_psd(K)
    assert kl.Sigmoid().is_psd is False
    assert kl.Gaussian().is_psd and kl.Linear().is_psd
    assert kl.Polynomial(coef0=1.0).is_psd and not kl.Polynomial(coef0=-1.0).is_psd


def test_is_psd_known_answers():
    assert kl.is_psd(np.eye(3))
    assert kl.is_psd(np.zeros((2, 2)))
    assert not kl.is_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))  # eigenvalues 3, -1
    assert not kl.is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))  # not symmetric
    # a rank-one PSD matrix whose zero eigenvalue comes out as round-off
    v = np.array([[1.0, 1e-3, 3.0]])
    assert kl.is_psd(v.T @ v)


@given(X=data_matrices(max_features=4), Y=data_matrices(max_features=4), coef0=st.floats(0, 5))
def test_degree2_feature_map_reproduces_the_polynomial_kernel(X, Y, coef0):
    d = min(X.shape[1], Y.shape[1])
    X, Y = X[:, :d], Y[:, :d]
    Phi_X, Phi_Y = kl.degree2_feature_map(X, coef0), kl.degree2_feature_map(Y, coef0)
    assert Phi_X.shape == (X.shape[0], comb(d + 2, 2))
    expected = (X @ Y.T + coef0) ** 2
    np.testing.assert_allclose(Phi_X @ Phi_Y.T, expected, rtol=1e-9, atol=1e-9 * (1 + np.abs(expected).max()))


def test_degree2_feature_map_of_the_plane_has_six_coordinates():
    phi = kl.degree2_feature_map(np.array([[2.0, 3.0]]))
    s = np.sqrt(2.0)
    np.testing.assert_allclose(phi, [[4.0, 9.0, 6 * s, 2 * s, 3 * s, 1.0]])


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: kl.Gaussian(c=0.0), ValueError, "c must be > 0"),
        (lambda: kl.Gaussian(c=-1.0), ValueError, "c must be > 0"),
        (lambda: kl.Gaussian(c=np.nan), ValueError, "c must be finite"),
        (lambda: kl.Gaussian(c="1"), TypeError, "c must be a real number"),
        (lambda: kl.Polynomial(degree=0), ValueError, "degree must be at least 1"),
        (lambda: kl.Polynomial(degree=2.5), TypeError, "degree must be an integer"),
        (lambda: kl.Sigmoid(gamma=np.inf), ValueError, "gamma must be finite"),
        (lambda: kl.Polynomial(gamma=0.0), ValueError, "gamma must be > 0"),
        (lambda: kl.Laplacian(c=-1.0), ValueError, "c must be > 0"),
    ],
)
def test_bad_kernel_parameters(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(
    ("X", "Y", "match"),
    [
        (np.array([[np.nan, 1.0]]), None, "NaN"),
        (np.array([[np.inf, 1.0]]), None, "infinity"),
        (np.empty((0, 2)), None, "0 sample"),
        (np.ones((2, 2)), np.ones((2, 3)), "same number of features"),
        (np.ones(3), None, "2D array"),
    ],
)
def test_bad_kernel_inputs(X, Y, match):
    with pytest.raises(ValueError, match=match):
        kl.Gaussian()(X, Y)


def test_bad_psd_check_and_feature_map_inputs():
    with pytest.raises(ValueError, match="square"):
        kl.is_psd(np.ones((2, 3)))
    with pytest.raises(ValueError, match="coef0 must be >= 0"):
        kl.degree2_feature_map(np.ones((2, 2)), coef0=-1.0)


def test_kernels_are_immutable_values():
    assert kl.Gaussian(c=2.0) == kl.Gaussian(c=2.0) != kl.Gaussian(c=3.0)
    with pytest.raises(AttributeError):
        kl.Gaussian(c=2.0).c = 1.0


# Kernels are scikit-learn parameters (issue 12)


@pytest.mark.parametrize(
    ("kernel", "params"),
    [
        (kl.Linear(), {}),
        (kl.Polynomial(degree=3, coef0=0.5), {"degree": 3, "coef0": 0.5, "gamma": 1.0}),
        (kl.Laplacian(c=0.5), {"c": 0.5}),
        (kl.Cosine(), {}),
        (kl.Gaussian(c=2.5), {"c": 2.5}),
        (kl.Sigmoid(gamma=0.3, coef0=-0.2), {"coef0": -0.2, "gamma": 0.3}),
    ],
    ids=repr,
)
def test_get_params_and_clone(kernel, params):
    from sklearn.base import clone

    assert kernel.get_params() == params
    copy = clone(kernel)
    assert copy == kernel and copy is not kernel
    assert repr(copy) == repr(kernel)


@pytest.mark.parametrize("kernel", [kl.Linear(), kl.Polynomial(), kl.Gaussian(), kl.Sigmoid(),
                                    kl.Laplacian(), kl.Cosine()], ids=repr)
def test_kernels_are_unhashable_because_set_params_changes_them(kernel):
    # issue 22, defect 3: a hash that changed under set_params lost the kernel
    # in every set holding it (g in {g} became False); kernels are mutable
    # values, so, like lists, they have no hash
    with pytest.raises(TypeError, match="unhashable"):
        hash(kernel)
    with pytest.raises(TypeError, match="unhashable"):
        {kernel}


def test_set_params_validates_and_changes_in_place():
    kernel = kl.Gaussian(c=1.0)
    assert kernel.set_params(c=0.5) is kernel
    assert kernel == kl.Gaussian(c=0.5) and repr(kernel) == "Gaussian(c=0.5)"
    with pytest.raises(ValueError, match="c must be > 0"):
        kernel.set_params(c=-1.0)
    assert kernel.c == 0.5  # a refused value leaves the kernel as it was
    with pytest.raises(ValueError, match=r"Invalid parameter 'gamma' for kernel Gaussian.*\['c'\]"):
        kernel.set_params(gamma=2.0)
    with pytest.raises(AttributeError):
        kernel.c = 2.0  # only through the validating set_params


def test_polynomial_psd_flag_is_a_python_bool():
    assert kl.Polynomial(coef0=np.float64(1.0)).is_psd is True
    assert kl.Polynomial(coef0=np.float64(-1.0)).is_psd is False


def test_gaussian_kernel_is_accurate_far_from_the_origin():
    # scikit-learn's ||x||^2 - 2 x.y + ||y||^2 cancels 1e6 away; the kernel
    # measures from the mean first, so a shift changes nothing
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    shift = np.array([1e6, -2e6, 5e5])
    kernel = kl.Gaussian(c=0.05)
    np.testing.assert_allclose(kernel(X + shift, Y + shift), kernel(X, Y), rtol=1e-6, atol=1e-300)
    np.testing.assert_allclose(kernel(X + shift), kernel(X), rtol=1e-6)


@pytest.mark.parametrize(
    ("kernel", "sklearn_name", "params"),
    [
        (kl.Polynomial(degree=3, coef0=0.5, gamma=0.2), "poly", {"degree": 3, "coef0": 0.5, "gamma": 0.2}),
        (kl.Laplacian(c=4.0), "laplacian", {"gamma": 0.25}),
        (kl.Cosine(), "cosine", {}),
    ],
    ids=repr,
)
def test_new_kernels_equal_sklearn_pairwise_kernels(kernel, sklearn_name, params):
    from scipy import sparse
    from sklearn.metrics.pairwise import pairwise_kernels

    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(6, 4)), rng.normal(size=(3, 4))
    expected = pairwise_kernels(X, Y, metric=sklearn_name, **params)
    np.testing.assert_allclose(kernel(X, Y), expected, rtol=1e-13)
    # sparse samples give the same matrix
    np.testing.assert_allclose(kernel(sparse.csr_matrix(X), sparse.csr_matrix(Y)), expected, rtol=1e-13)
    assert kernel.is_psd and kl.is_psd(kernel(X))
