"""Nystroem kernel PCA: exact when every sample is a landmark, converging as m grows,
the same as scikit-learn's Nystroem + PCA, streaming by chunks, and clear errors."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.linalg import pinvh, subspace_angles
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.kernel_approximation import Nystroem as SklearnNystroem

import kpca_lib as kl
from kpca_lib.datasets import denoising_toy
from kpca_lib.nystroem import kernel_column_moments
from strategies import data_matrices
from test_pca import assert_equal_up_to_sign


@pytest.fixture(scope="module")
def toy():
    """The chapter 5 toy, small: 11 clusters of 40 points in the plane."""
    return denoising_toy(sigma=0.1, n_train_per_cluster=40, n_test_per_cluster=5, random_state=0)


def nystroem(n_landmarks, kernel=kl.Gaussian(c=0.04), q=10, **params):
    return kl.KernelPCA(q, kernel=kernel, approximation="nystroem", n_landmarks=n_landmarks, **params)


def smallest_cosine(A, B):
    """Cosine of the largest principal angle between the column spans of A and B."""
    return float(np.cos(subspace_angles(A, B)).min())


@pytest.mark.parametrize(
    "kernel", [kl.Gaussian(c=0.04), kl.Gaussian(c=1.0), kl.Polynomial(degree=2)], ids=repr
)
def test_every_sample_a_landmark_is_exact_kernel_pca(toy, kernel):
    n = toy.X_train.shape[0]
    q = 5 if isinstance(kernel, kl.Polynomial) else 10  # degree 2 in the plane: rank 5
    exact = kl.KernelPCA(q, kernel=kernel, eigen_solver="dense").fit(toy.X_train)
    approximate = nystroem(n, kernel, q, random_state=0).fit(toy.X_train)
    np.testing.assert_allclose(approximate.eigenvalues_, exact.eigenvalues_, rtol=1e-9)
    assert_equal_up_to_sign(approximate.transform(toy.X_test), exact.transform(toy.X_test))
    assert_equal_up_to_sign(approximate.fit_transform(toy.X_train), exact.fit_transform(toy.X_train))


def test_every_sample_a_landmark_denoises_as_exact(toy):
    n = toy.X_train.shape[0]
    exact = kl.KernelPCA(10, kernel=kl.Gaussian(c=0.04)).fit(toy.X_train)
    approximate = nystroem(n, random_state=1).fit(toy.X_train)
    for q in (4, 10):
        np.testing.assert_allclose(
            approximate.denoise(toy.X_test, n_components=q), exact.denoise(toy.X_test, n_components=q), atol=1e-8
        )


def test_equals_scikit_learns_nystroem_followed_by_pca():
    # well-conditioned landmarks, so that scikit-learn's clamp at 1e-12 and our
    # cut-off keep the same directions; the same seed draws the same landmarks
    rng = np.random.default_rng(0)
    X, X_new = rng.normal(size=(300, 5)), rng.normal(size=(20, 5))
    ours = nystroem(25, kl.Gaussian(c=5.0), q=6, random_state=3).fit(X)
    features = SklearnNystroem(kernel="rbf", gamma=1 / 5.0, n_components=25, random_state=3).fit(X)
    assert np.linalg.cond(kl.Gaussian(c=5.0)(features.components_)) < 1e6
    np.testing.assert_array_equal(ours.landmarks_, features.components_)
    pca = SklearnPCA(n_components=6, svd_solver="full").fit(features.transform(X))
    # PCA's variances are sigma^2 / (n - 1); the centred kernel's eigenvalues are sigma^2
    np.testing.assert_allclose(ours.eigenvalues_, pca.explained_variance_ * (X.shape[0] - 1), rtol=1e-9)
    assert_equal_up_to_sign(ours.transform(X_new), pca.transform(features.transform(X_new)))


def test_eigenvalues_grow_towards_the_exact_ones_with_nested_landmarks(toy):
    # K - K_nm K_mm^+ K_mn is PSD and shrinks as landmarks are added (it is a
    # Schur complement): every eigenvalue of the centred approximation is below
    # the exact one and grows with m. Uniform landmarks of one seed are nested.
    X = toy.X_train
    exact = kl.KernelPCA(10, kernel=kl.Gaussian(c=0.04), eigen_solver="dense").fit(X).eigenvalues_
    previous = np.zeros(10)
    for m in (20, 40, 80, 160, 320, X.shape[0]):
        eigenvalues = nystroem(m, random_state=5).fit(X).eigenvalues_
        assert np.all(eigenvalues <= exact * (1 + 1e-10))
        assert np.all(eigenvalues >= previous * (1 - 1e-10))
        previous = eigenvalues
    np.testing.assert_allclose(previous, exact, rtol=1e-9)


def test_subspace_error_falls_as_m_grows(toy):
    exact = kl.KernelPCA(10, kernel=kl.Gaussian(c=0.04)).fit(toy.X_train).transform(toy.X_test)
    n = toy.X_train.shape[0]

    def mean_error(m):
        fits = [nystroem(m, random_state=seed).fit(toy.X_train) for seed in range(3)]
        return np.mean([1 - smallest_cosine(exact, fit.transform(toy.X_test)) for fit in fits])

    # measured: about 5e-2 at m = n/10 and 1e-6 at m = n/2
    assert mean_error(n // 2) < 0.1 * mean_error(n // 10)


def test_kmeans_landmarks_are_kmeans_centres_and_beat_uniform_ones_on_clusters(toy):
    X, m = toy.X_train, 44
    fitted = nystroem(m, landmarks="kmeans", random_state=0).fit(X)
    centres = KMeans(n_clusters=m, n_init=1, random_state=0).fit(X).cluster_centers_
    np.testing.assert_allclose(fitted.landmarks_, centres)

    exact = kl.KernelPCA(10, kernel=kl.Gaussian(c=0.04)).fit(X).transform(toy.X_test)

    def mean_error(landmarks):
        fits = [nystroem(m, landmarks=landmarks, random_state=seed).fit(X) for seed in range(3)]
        return np.mean([1 - smallest_cosine(exact, fit.transform(toy.X_test)) for fit in fits])

    # measured: about 5e-4 with k-means centres, 5e-2 with uniform landmarks
    assert mean_error("kmeans") < 0.5 * mean_error("uniform")


def test_chunked_and_unchunked_fits_agree_to_round_off(toy):
    whole = nystroem(100, random_state=0).fit(toy.X_train)  # n = 440 fits in one chunk
    for chunk_size in (1, 7, 128):
        chunked = nystroem(100, random_state=0, chunk_size=chunk_size).fit(toy.X_train)
        np.testing.assert_allclose(chunked.eigenvalues_, whole.eigenvalues_, rtol=1e-10)
        np.testing.assert_allclose(chunked.kernel_mean_, whole.kernel_mean_, rtol=1e-12)
        np.testing.assert_allclose(chunked.transform(toy.X_test), whole.transform(toy.X_test), atol=1e-10)


def test_chunk_moments_equal_the_mean_and_scatter_of_the_whole_matrix():
    rng = np.random.default_rng(2)
    X, landmarks = rng.normal(size=(53, 3)) + 100.0, rng.normal(size=(8, 3)) + 100.0
    K_nm = kl.Gaussian(c=30.0)(X, landmarks)
    mean, scatter = kernel_column_moments(lambda rows: kl.Gaussian(c=30.0)(rows, landmarks), X, rows=10)
    centred = K_nm - K_nm.mean(axis=0)
    np.testing.assert_allclose(mean, K_nm.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(scatter, centred.T @ centred, rtol=1e-10, atol=1e-14)


def test_the_n_by_m_kernel_is_never_formed(toy):
    shapes = []

    def recording_gaussian(A, B):
        shapes.append((A.shape[0], B.shape[0]))
        return kl.Gaussian(c=0.04)(A, B)

    model = nystroem(60, recording_gaussian, chunk_size=50, random_state=0)
    model.fit(toy.X_train)
    model.transform(toy.X_train)
    assert shapes[0] == (60, 60)  # K_mm
    assert max(rows for rows, _ in shapes[1:]) == 50
    assert sum(rows for rows, _ in shapes[1:]) == 2 * toy.X_train.shape[0]


def test_landmark_preimage_weights_satisfy_pythagoras(toy):
    # phi(x) - sum_j gamma_j phi(l_j) splits into the part orthogonal to the
    # landmarks' span, k(x, x) - |psi(x)|^2, and the part of the centred
    # features off the q components, |psi(x) - psi_bar|^2 - sum_k beta_k^2
    kernel = kl.Gaussian(c=0.04)
    model = nystroem(60, kernel, q=6, random_state=0).fit(toy.X_train)
    x, landmarks = toy.X_test, model.landmarks_
    beta = model.transform(x)
    points, gamma = model._preimage_expansion(beta)
    assert points is landmarks
    K_mm_pinv = pinvh(kernel(landmarks))  # independent of the library's cut-off
    k_x = kernel(x, landmarks)
    k_bar = kernel(toy.X_train, landmarks).mean(axis=0)
    from_gamma = 1 - 2 * np.sum(gamma * k_x, axis=1) + np.einsum("ij,jk,ik->i", gamma, kernel(landmarks), gamma)
    outside_span = 1 - np.einsum("ij,jk,ik->i", k_x, K_mm_pinv, k_x)
    off_components = np.einsum("ij,jk,ik->i", k_x - k_bar, K_mm_pinv, k_x - k_bar) - np.sum(beta**2, axis=1)
    np.testing.assert_allclose(from_gamma, outside_span + off_components, atol=1e-7)
    # the mean term matters: without it the identity fails
    without_mean = gamma - model.mean_coef_
    from_gamma_without = 1 - 2 * np.sum(without_mean * k_x, axis=1) + np.einsum(
        "ij,jk,ik->i", without_mean, kernel(landmarks), without_mean
    )
    assert np.max(np.abs(from_gamma_without - outside_span - off_components)) > 1e-2


def test_denoising_with_landmarks_is_close_to_exact(toy):
    exact = kl.KernelPCA(10, kernel=kl.Gaussian(c=0.04)).fit(toy.X_train)
    approximate = nystroem(110, random_state=0).fit(toy.X_train)

    def mse(Z):
        return np.mean(np.sum((Z - toy.X_test_clean) ** 2, axis=1))

    noisy, by_exact, by_landmarks = mse(toy.X_test), mse(exact.denoise(toy.X_test)), mse(approximate.denoise(toy.X_test))
    assert by_landmarks < 0.5 * noisy
    assert by_landmarks < 1.5 * by_exact


def test_fit_transform_float32_and_refit():
    X = np.random.default_rng(0).normal(size=(80, 3))
    model = nystroem(30, kl.Gaussian(c=2.0), q=4, random_state=0)
    np.testing.assert_allclose(model.fit_transform(X), model.transform(X), atol=1e-10)
    assert model.fit_transform(X.astype(np.float32)).dtype == np.float32
    # refitting without the approximation forgets it
    model.set_params(approximation=None).fit(X)
    assert model.alphas_.shape == (80, 4)


@pytest.mark.parametrize(
    "params, error, match",
    [
        (dict(n_landmarks=3, n_components=4), ValueError, "n_landmarks=3 is smaller than n_components=4"),
        (dict(n_landmarks=81), ValueError, "n_landmarks=81 is larger than the number of samples n_samples=80"),
        (dict(n_landmarks=0), ValueError, "n_landmarks must be at least 1"),
        (dict(n_landmarks=20.0), TypeError, "n_landmarks must be an integer"),
        (dict(n_landmarks="20"), TypeError, "n_landmarks must be an integer"),
        (dict(n_landmarks=True), TypeError, "n_landmarks must be an integer"),
        (dict(landmarks="random"), ValueError, "landmarks must be one of"),
        (dict(chunk_size=0), ValueError, "chunk_size must be at least 1"),
        (dict(approximation="rff"), ValueError, "approximation must be one of"),
        (dict(kernel="precomputed"), ValueError, "needs the kernel function"),
        (dict(fit_inverse_transform=True), ValueError, "needs an n x n solve"),
    ],
)
def test_bad_parameters_get_clear_errors(params, error, match):
    X = np.random.default_rng(0).normal(size=(80, 3))
    settings = dict(n_components=2, kernel=kl.Gaussian(c=1.0), approximation="nystroem", n_landmarks=20) | params
    with pytest.raises(error, match=match):
        kl.KernelPCA(**settings).fit(X)


def test_more_components_than_the_landmarks_allow():
    # a linear kernel in the plane: rank 2 whatever the number of landmarks
    X = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.raises(ValueError, match="has only 2 positive eigenvalues"):
        nystroem(10, kl.Linear(), q=3, random_state=0).fit(X)


def test_a_kernel_not_psd_on_the_landmarks_warns():
    X = np.random.default_rng(0).normal(size=(60, 3))
    with pytest.warns(kl.NotPSDWarning, match="kernel matrix of the 30 landmarks"):
        nystroem(30, kl.Sigmoid(gamma=1.0, coef0=-1.0), q=2, random_state=0).fit(X)


def test_learned_denoising_explains_itself(toy):
    model = nystroem(50, random_state=0).fit(toy.X_train)
    with pytest.raises(ValueError, match="approximation='nystroem' avoids: use method='fixed_point'"):
        model.denoise(toy.X_test, method="learned")
    with pytest.raises(ValueError, match="approximation='nystroem' avoids"):
        model.inverse_transform(model.transform(toy.X_test))


@given(
    X=data_matrices(min_samples=4, max_samples=12, max_features=3),
    c=st.floats(0.5, 20.0),
    fraction=st.floats(0.3, 1.0),
)
def test_nystroem_eigenvalues_never_exceed_the_exact_ones(X, c, fraction):
    n = X.shape[0]
    m = max(2, int(fraction * n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exact = kl.KernelPCA(1, kernel=kl.Gaussian(c=c), eigen_solver="dense").fit(X)
            approximate = nystroem(m, kl.Gaussian(c=c), q=1, random_state=0).fit(X)
        except ValueError:  # e.g. repeated points: no positive eigenvalue
            return
    assert approximate.eigenvalues_[0] <= exact.eigenvalues_[0] * (1 + 1e-9) + 1e-12


def test_sparse_input_equals_the_dense_fit_and_is_densified_by_chunks(toy):
    import scipy.sparse as sp

    X = toy.X_train.copy()
    X[np.abs(X) < 0.3] = 0.0  # a genuinely sparse matrix
    params = dict(kernel=kl.Gaussian(c=0.04), approximation="nystroem", n_landmarks=80, random_state=0,
                  chunk_size=97)
    dense = kl.KernelPCA(5, **params).fit(X)
    for matrix in (sp.csr_matrix(X), sp.csc_array(X), sp.coo_matrix(X)):
        model = kl.KernelPCA(5, **params).fit(matrix)
        np.testing.assert_array_equal(model.landmarks_, dense.landmarks_)
        np.testing.assert_allclose(model.eigenvalues_, dense.eigenvalues_, rtol=1e-12)
        np.testing.assert_allclose(model.transform(matrix), dense.transform(X), atol=1e-12)
    np.testing.assert_allclose(kl.KernelPCA(5, **params).fit_transform(sp.csr_matrix(X)), dense.transform(X),
                               atol=1e-12)
    kmeans = kl.KernelPCA(5, **dict(params, landmarks="kmeans")).fit(sp.csr_matrix(X))
    assert kmeans.landmarks_.shape == (80, X.shape[1])


def test_bad_sparse_input_gets_a_clear_error(toy):
    import scipy.sparse as sp

    params = dict(kernel=kl.Gaussian(c=0.04), approximation="nystroem", n_landmarks=20, random_state=0)
    X = sp.csr_matrix(toy.X_train)
    X.data[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        kl.KernelPCA(2, **params).fit(X)
    with pytest.raises(ValueError, match="n_landmarks=20 is larger"):
        kl.KernelPCA(2, **params).fit(sp.csr_matrix(toy.X_train[:10]))
    model = kl.KernelPCA(2, **params).fit(toy.X_train)
    with pytest.raises(ValueError, match="features"):
        model.transform(sp.csr_matrix(toy.X_train[:, :1]))
