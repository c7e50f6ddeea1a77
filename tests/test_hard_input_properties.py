"""Properties under hard inputs: offsets, ill-conditioning, rank deficiency, ties.

Each strategy (``strategies.py``) builds data whose answer is known: the
singular values and right singular vectors of the centred data, or their
rank and span. PCA's routes must find them; kernel PCA and the pre-image
must not notice a shift of the data.
"""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import KernelCenterer

import kpca_lib as kl
from kpca_lib.preimage import gamma_weights, gaussian_fixed_point
from strategies import (
    ill_conditioned_matrices,
    offset_matrices,
    rank_deficient_matrices,
    repeated_eigenvalue_matrices,
)
from test_pca import assert_equal_up_to_sign

METHODS = ["auto", "covariance", "gram", "svd"]


def projector(rows):
    """Orthogonal projector onto the span of the given orthonormal rows."""
    return rows.T @ rows


@settings(max_examples=25)
@given(data=offset_matrices(max_offset=1e6), method=st.sampled_from(METHODS))
def test_pca_finds_the_spectrum_far_from_the_origin(data, method):
    X, s, W = data
    pca = kl.PCA(method=method).fit(X)
    assert pca.n_components_ == s.size  # the offset's round-off is not a component
    scale = 1e-12 * np.linalg.norm(X)
    np.testing.assert_allclose(pca.singular_values_, s, rtol=1e-7, atol=scale)
    np.testing.assert_allclose(projector(pca.components_), W @ W.T, atol=1e-6)


@settings(max_examples=25)
@given(data=ill_conditioned_matrices())
def test_pca_auto_finds_singular_values_over_ten_decades(data):
    X, s, W = data
    pca = kl.PCA(len(s)).fit(X)
    np.testing.assert_allclose(pca.singular_values_, s, rtol=1e-6, atol=1e-12 * np.linalg.norm(X))
    # directions of singular value >= 1e-4 s_1 are determined to 1e-6
    kept = s >= 1e-4 * s[0]
    assert_equal_up_to_sign(pca.components_[kept].T, W[:, kept], atol=1e-6)


@settings(max_examples=25)
@given(data=rank_deficient_matrices(), method=st.sampled_from(METHODS))
def test_pca_keeps_the_rank_of_rank_deficient_data(data, method):
    X, rank, W = data
    pca = kl.PCA(method=method).fit(X)
    assert pca.n_components_ == rank
    np.testing.assert_allclose(projector(pca.components_), W @ W.T, atol=1e-8)
    with pytest.raises(ValueError, match=f"rank {rank}"):
        kl.PCA(rank + 1, method=method).fit(X)


@settings(max_examples=25)
@given(data=repeated_eigenvalue_matrices(), method=st.sampled_from(METHODS))
def test_pca_spans_a_repeated_eigenvalue_whatever_basis_it_picks(data, method):
    X, m, W = data
    pca = kl.PCA(m, method=method).fit(X)
    # the components of a tie are any basis of its span: compare the spans
    np.testing.assert_allclose(projector(pca.components_), W[:, :m] @ W[:, :m].T, atol=1e-8)
    np.testing.assert_allclose(pca.explained_variance_, pca.explained_variance_[0], rtol=1e-10)


@settings(max_examples=25)
@given(data=offset_matrices(max_offset=1e3))
def test_linear_kernel_pca_equals_pca_away_from_the_origin(data):
    # the linear kernel is computed uncentred, x . y ~ offset^2, and centred
    # after: its round-off grows like eps offset^2, hence offsets of 1e3 here
    X, s, _ = data
    q = s.size
    kpca = kl.KernelPCA(q, kernel=kl.Linear()).fit(X)
    pca = kl.PCA(q).fit(X)
    np.testing.assert_allclose(kpca.eigenvalues_, s**2, rtol=1e-6)
    assert_equal_up_to_sign(kpca.transform(X), pca.transform(X), atol=1e-6 * (1 + s[0]))


@settings(max_examples=25)
@given(data=offset_matrices(max_offset=0.0), shift=st.floats(-1e6, 1e6), c=st.floats(1.0, 100.0))
def test_gaussian_kernel_pca_does_not_see_a_shift(data, shift, c):
    X, s, _ = data
    q = min(s.size, X.shape[0] - 1)
    here = kl.KernelPCA(q, kernel=kl.Gaussian(c=c)).fit(X)
    there = kl.KernelPCA(q, kernel=kl.Gaussian(c=c)).fit(X + shift)
    np.testing.assert_allclose(there.eigenvalues_, here.eigenvalues_, rtol=1e-7, atol=1e-9)
    # the projections are determined where the eigenvalues are apart
    mu = np.linalg.eigvalsh(KernelCenterer().fit_transform(kl.Gaussian(c=c)(X)))[::-1][: q + 1]
    assume(np.all(-np.diff(mu) > 1e-3 * mu[0]))
    np.testing.assert_allclose(there.alphas_ * there.eigenvalues_, here.alphas_ * here.eigenvalues_, atol=1e-6)


@settings(max_examples=25)
@given(data=offset_matrices(max_offset=0.0), shift=st.floats(-1e6, 1e6))
def test_the_preimage_iteration_does_not_see_a_shift(data, shift):
    X, s, _ = data
    c = 2.0 * np.mean(np.var(X, axis=0))
    kpca = kl.KernelPCA(min(s.size, X.shape[0] - 1), kernel=kl.Gaussian(c=c)).fit(X)
    gamma = gamma_weights(kpca.alphas_, kpca.transform(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        here = gaussian_fixed_point(X, gamma, c, X, max_iter=10, tol=0.0)
        there = gaussian_fixed_point(X + shift, gamma, c, X + shift, max_iter=10, tol=0.0)
    np.testing.assert_array_equal(there.n_restarts, here.n_restarts)
    ok = here.n_restarts == 0
    np.testing.assert_allclose((there.Z - shift)[ok], here.Z[ok], atol=1e-6 * (1 + s[0]))
