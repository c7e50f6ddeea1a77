"""The distance-based pre-image of Kwok & Tsang (2004), against the paper's formulas written plainly."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

import kpca_lib as kl
from kpca_lib.datasets import denoising_toy
from kpca_lib.preimage import gamma_weights, kwok_tsang, nearest_in_feature_space


def kwok_tsang_by_the_paper(X_fit, gamma, c, n_neighbors, regularised=True):
    """One point at a time, as written in Kwok & Tsang (2004), section 4, for k = exp(-||x - y||^2 / c).

    With ``regularised``, a least-squares point farther from the neighbours' mean than both the farthest
    neighbour and sqrt(mean d^2 - mean d0^2) (where the distances put it) is replaced by the minimiser of
    the same least-squares objective on the ball of the larger radius, found by scipy's SLSQP.
    """
    n = X_fit.shape[0]
    K = np.array([[np.exp(-np.sum((a - b) ** 2) / c) for b in X_fit] for a in X_fit])
    pre_images = []
    for g in gamma:
        # feature-space squared distances ||P phi(x) - phi(x_i)||^2
        psi_norm2 = g @ K @ g
        feature_d2 = np.array([psi_norm2 + K[i, i] - 2 * (K[i] @ g) for i in range(n)])
        nearest = np.argsort(feature_d2, kind="stable")[:n_neighbors]
        # Gaussian kernel: d~^2 = 2 - 2 exp(-d^2 / c)
        d2 = -c * np.log(1 - feature_d2[nearest] / 2)
        X = X_fit[nearest].T                                  # d x n, the neighbours as columns
        H = np.eye(n_neighbors) - np.ones((n_neighbors, n_neighbors)) / n_neighbors
        U, Lambda, Vt = np.linalg.svd(X @ H, full_matrices=False)
        r = int(np.sum(Lambda > 1e-10 * Lambda[0]))
        U, Lambda, Vt = U[:, :r], Lambda[:r], Vt[:r]
        Z = np.diag(Lambda) @ Vt                              # the neighbours' coordinates
        d0_2 = np.sum(Z**2, axis=0)
        z = -0.5 * np.diag(1 / Lambda) @ Vt @ (d2 - d0_2)
        # mean_i ||z - x_i||^2 = ||z - xbar||^2 + mean_i ||x_i - xbar||^2
        radius = max(np.sqrt(d0_2.max()), np.sqrt(max(d2.mean() - d0_2.mean(), 0.0)))
        if regularised and np.linalg.norm(z) > (1 + 1e-8) * radius:
            objective = lambda w: np.sum((Z.T @ w + 0.5 * (d2 - d0_2)) ** 2)
            solution = minimize(objective, z * radius / np.linalg.norm(z), method="SLSQP",
                                constraints=[{"type": "ineq", "fun": lambda w: radius**2 - w @ w}],
                                options={"ftol": 1e-15, "maxiter": 1000})
            assert solution.success, solution.message
            z = solution.x
        pre_images.append(U @ z + X.mean(axis=1))
    return np.array(pre_images)


@pytest.mark.parametrize(
    "n_features, sigma, n_neighbors, pulled_back",
    # the third and fourth: fewer neighbours than dimensions; there the distances of a few points fit no
    # point near their neighbours
    [(2, 0.1, 10, 0), (2, 0.4, 3, 0), (10, 0.2, 20, 6), (10, 0.2, 5, 2)],
)
def test_equals_the_papers_formulas(n_features, sigma, n_neighbors, pulled_back):
    data = denoising_toy(n_features=n_features, sigma=sigma, n_train_per_cluster=15, n_test_per_cluster=2,
                         random_state=1)
    c = 2 * n_features * sigma**2
    kpca = kl.KernelPCA(6, kernel=kl.Gaussian(c=c)).fit(data.X_train)
    gamma = gamma_weights(kpca.alphas_, kpca.transform(data.X_test))
    expected = kwok_tsang_by_the_paper(data.X_train, gamma, c, n_neighbors)
    plain = kwok_tsang_by_the_paper(data.X_train, gamma, c, n_neighbors, regularised=False)
    assert np.sum(np.any(expected != plain, axis=1)) == pulled_back
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Z = kwok_tsang(data.X_train, gamma, c, n_neighbors=n_neighbors)
        Z_denoised = kpca.denoise(data.X_test, method="kwok_tsang", n_neighbors=n_neighbors)
    counts = [int(str(w.message).split()[0]) for w in caught if "pulled back" in str(w.message)]
    assert counts == ([pulled_back] * 2 if pulled_back else [])
    # the untouched points to round-off, the pulled back ones to SLSQP's accuracy
    changed = np.any(expected != plain, axis=1)
    np.testing.assert_allclose(Z[~changed], expected[~changed], atol=1e-9)
    np.testing.assert_allclose(Z[changed], expected[changed], atol=1e-6)
    np.testing.assert_array_equal(Z_denoised, Z)


def test_the_image_of_a_training_point_gives_the_point_back():
    # Psi = phi(x_j): the distances are exact, and x_j is one of the neighbours
    rng = np.random.default_rng(0)
    X_fit = rng.normal(size=(30, 3))
    Z = kwok_tsang(X_fit, np.eye(30)[[4, 17]], 2.0, n_neighbors=8)
    np.testing.assert_allclose(Z, X_fit[[4, 17]], atol=1e-8)


def test_exact_distances_to_any_point_of_the_neighbours_span_recover_it():
    # the pre-image solves ||z - x_i||^2 = d_i^2; with distances of a true point it is that point.
    # Psi = phi(z) is not in the span of the phi(x_i), but with every training point as neighbour the
    # input distances come from d~^2 only: build gamma whose Psi has d~_i^2 = 2 - 2 k(z, x_i) exactly
    rng = np.random.default_rng(1)
    X_fit = rng.normal(size=(6, 2))
    z_true = np.array([[0.3, -0.2]])
    kernel = kl.Gaussian(c=3.0)
    K = kernel(X_fit)
    # || Psi - phi(x_i) ||^2 = 2 - 2 k(z, x_i) for all i  <=>  K gamma = k(z) + (||Psi||^2 - 1)/2:
    # Psi = projection of phi(z) on the span of the phi(x_i) has K gamma = k(z) and ||Psi||^2 <= 1, so
    # shifting by the constant is needed; solve for gamma with ||Psi||^2 = 1 by a fixed-point on s
    k_z = kernel(z_true, X_fit)[0]
    s = 0.0
    for _ in range(200):
        gamma = np.linalg.solve(K, k_z + s)
        s = (gamma @ K @ gamma - 1) / 2
    np.testing.assert_allclose(gamma @ K @ gamma + 1 - 2 * K @ gamma, 2 - 2 * k_z, atol=1e-10)
    np.testing.assert_allclose(kwok_tsang(X_fit, gamma[None], 3.0, n_neighbors=6), z_true, atol=1e-6)


def test_nystroem_models_use_the_landmarks():
    data = denoising_toy(sigma=0.1, n_train_per_cluster=20, n_test_per_cluster=2, random_state=2)
    kpca = kl.KernelPCA(8, kernel=kl.Gaussian(c=0.04), approximation="nystroem", n_landmarks=60,
                        random_state=0).fit(data.X_train)
    points, gamma = kpca._preimage_expansion(kpca.transform(data.X_test))
    assert points.shape[0] == 60
    np.testing.assert_allclose(kpca.denoise(data.X_test, method="kwok_tsang"),
                               kwok_tsang_by_the_paper(points, gamma, 0.04, 10), atol=1e-9)


def test_a_projection_beyond_every_input_distance_warns():
    # Psi = phi(x_1) - phi(x_2) with x_1, x_2 far apart: ||Psi - phi(x_2)||^2 = 5 > 2
    X_fit = np.array([[0.0], [10.0]])
    with pytest.warns(RuntimeWarning) as caught:
        Z = kwok_tsang(X_fit, np.array([[1.0, -1.0]]), 1.0, n_neighbors=2)
    assert np.isfinite(Z).all()
    # d^2 = c log(2) to x_1 and 690 c to x_2 put it sqrt(690 / 2 + log(2) / 2 - 25) ~ 17.9 from their mean,
    # farther than the least-squares point would go: pulled back to there, beyond the pair, and said so
    messages = [str(w.message) for w in caught]
    assert any("no input distance gives" in m for m in messages)
    assert any(m.startswith("1 Kwok-Tsang pre-images were pulled back") for m in messages)
    assert any(m.startswith("1 Kwok-Tsang pre-images lie farther") for m in messages)
    radius = np.sqrt((-np.log(1e-300) + np.log(2)) / 2 - 25)
    np.testing.assert_allclose(np.abs(Z[0, 0] - 5), radius, rtol=1e-8)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(n_neighbors=0), ValueError, "n_neighbors"),
        (dict(n_neighbors=6), ValueError, "n_neighbors"),
        (dict(c=-1.0), ValueError, "c"),
        (dict(gamma=np.ones((1, 4))), ValueError, "one column per training point"),
    ],
)
def test_bad_input(kwargs, error, match):
    arguments = dict(X_fit=np.arange(10.0).reshape(5, 2), gamma=np.full((1, 5), 0.2), c=1.0, n_neighbors=3)
    arguments.update(kwargs)
    with pytest.raises(error, match=match):
        kwok_tsang(**arguments)


def test_denoise_refuses_what_kwok_tsang_cannot_do():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(TypeError, match="Kwok-Tsang pre-image"):
        kl.KernelPCA(2, kernel=kl.Polynomial(degree=2)).fit(X).denoise(X, method="kwok_tsang")
    with pytest.raises(ValueError, match="returns the pre-images only"):
        kl.KernelPCA(2, kernel=kl.Gaussian(c=1.0)).fit(X).denoise(X, method="kwok_tsang", return_result=True)


def test_projections_longer_than_the_images_are_handled():
    # ||P_q phi(x)||^2 is not bounded by 1 = ||phi(z)||^2: the projection is onto an affine subspace
    # (review finding 24). The feature-space distances stay non-negative and the pre-images finite.
    rng = np.random.default_rng(0)
    longest = 0.0
    for _ in range(60):
        X = rng.uniform(-1, 1, size=(6, 2))
        kernel = kl.Gaussian(c=float(rng.choice([0.05, 0.2, 1.0, 5.0])))
        kpca = kl.KernelPCA(n_components=None, kernel=kernel).fit(X)
        T = rng.uniform(-2, 2, size=(50, 2))
        gamma = gamma_weights(kpca.alphas_, kpca.transform(T))
        norms = np.einsum("ij,jk,ik->i", gamma, kernel(X), gamma)
        longest = max(longest, norms.max())
        if norms.max() > 1:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # pulled back or far: some are, here
                Z = kwok_tsang(X, gamma[norms > 1], kernel.c, n_neighbors=4)
            assert np.isfinite(Z).all()
    assert longest > 1.05


def test_nearest_in_feature_space_by_brute_force():
    data = denoising_toy(sigma=0.2, n_train_per_cluster=10, n_test_per_cluster=2, random_state=4)
    kernel = kl.Gaussian(c=0.16)
    kpca = kl.KernelPCA(3, kernel=kernel).fit(data.X_train)
    gamma = gamma_weights(kpca.alphas_, kpca.transform(data.X_test))
    K = kernel(data.X_train)
    expected = []
    for g in gamma:
        distances = [g @ K @ g + 1 - 2 * K[i] @ g for i in range(len(K))]
        expected.append(data.X_train[int(np.argmin(distances))])
    np.testing.assert_array_equal(nearest_in_feature_space(data.X_train, gamma, 0.16), expected)
    # the first step of Kwok-Tsang picks the same point first: with one neighbour it is that point
    np.testing.assert_allclose(kwok_tsang(data.X_train, gamma, 0.16, n_neighbors=1), expected)


def test_as_many_neighbours_as_dimensions_is_stable():
    # 10 neighbours in 10-D span 9 directions once centred: the 10th singular value is round-off and
    # must not be divided by (it made a few pre-images 1e12 away before the rank tolerance was fixed)
    data = denoising_toy(n_features=10, sigma=0.05, n_test_per_cluster=33, random_state=0)
    kpca = kl.KernelPCA(10, kernel=kl.Gaussian(c=0.05), eigen_solver="arpack").fit(data.X_train)
    Z = kpca.denoise(data.X_test, method="kwok_tsang", n_neighbors=10)
    assert np.max(np.sum((Z - data.X_test_clean) ** 2, axis=1)) < 1.0


# Issue 35, item 1: in 10-D the least-squares step divided by the neighbours' smallest singular values


def neighbourhoods(X_fit, gamma, c, n_neighbors):
    """The neighbours of each projection by brute force: their mean and their diameter (largest distance)."""
    K = np.exp(-np.sum((X_fit[:, None] - X_fit[None]) ** 2, axis=2) / c)
    feature_d2 = np.einsum("pi,ij,pj->p", gamma, K, gamma)[:, None] + 1 - 2 * gamma @ K
    nearest = np.argsort(feature_d2, axis=1, kind="stable")[:, :n_neighbors]
    means = X_fit[nearest].mean(axis=1)
    diameters = np.array([np.max(np.linalg.norm(X_fit[i][:, None] - X_fit[i][None], axis=2)) for i in nearest])
    return means, diameters


def test_no_preimage_lands_far_from_its_neighbours_in_ten_dimensions():
    # the toy: 11 clusters in [-1, 1]^10, noise 0.1, c = 0.5; at q = 5 the neighbours of a few
    # projections straddle two clusters, the projection is about as far from all of them, and the plain
    # least-squares point (their circumcentre, nearly) left the data: 5.95 from its cluster's centre
    data = denoising_toy(sigma=0.1, n_features=10, random_state=0)
    kpca = kl.KernelPCA(5, kernel=kl.Gaussian(c=0.5)).fit(data.X_train)
    gamma = gamma_weights(kpca.alphas_, kpca.transform(data.X_test))
    plain = kwok_tsang_by_the_paper(data.X_train, gamma, 0.5, 10, regularised=False)
    means, diameters = neighbourhoods(data.X_train, gamma, 0.5, 10)
    beyond = np.linalg.norm(plain - means, axis=1) > diameters
    assert beyond.sum() == 32  # the plain solution: 32 of 363 beyond their neighbours' diameter
    with pytest.warns(RuntimeWarning, match=r"^32 Kwok-Tsang pre-images were pulled back") as caught:
        Z = kpca.denoise(data.X_test, method="kwok_tsang")
    assert not [w for w in caught if "farther from their neighbours' mean" in str(w.message)]
    # every pre-image within its neighbours' diameter of their mean, and all of them nearer to the data
    assert np.all(np.linalg.norm(Z - means, axis=1) <= diameters)
    nearest_training = lambda Z: np.min(np.linalg.norm(Z[:, None] - data.X_train[None], axis=2), axis=1)
    assert nearest_training(plain).max() > 4.5 and nearest_training(Z).max() < 2.1
    errors = np.sum((Z - data.X_test_clean) ** 2, axis=1)
    assert errors.max() < np.sum((plain - data.X_test_clean) ** 2, axis=1).max() / 4
    # the other points are the plain solution
    np.testing.assert_allclose(Z[~beyond], plain[~beyond], atol=1e-9)


def test_an_exact_preimage_far_from_its_neighbours_is_recovered_with_a_warning():
    # distances of a true point z give rho = ||z - xbar||: the regularisation leaves it, though it lies
    # twice the neighbours' diameter from their mean (in 10-D, with fewer neighbours than dimensions + 1)
    rng = np.random.default_rng(3)
    X_fit = rng.normal(scale=0.3, size=(8, 10))
    kernel = kl.Gaussian(c=8.0)
    xbar = X_fit.mean(axis=0)
    diameter = np.max(np.linalg.norm(X_fit[:, None] - X_fit[None], axis=2))
    # a point in the neighbours' span (their affine hull), 2 diameters from their mean
    direction = (X_fit[0] - xbar) + 0.5 * (X_fit[3] - xbar)
    z_true = xbar + 2 * diameter * direction / np.linalg.norm(direction)
    K, k_z = kernel(X_fit), kernel(z_true[None], X_fit)[0]
    s = 0.0
    for _ in range(500):  # gamma with ||Psi - phi(x_i)||^2 = 2 - 2 k(z, x_i) exactly (as above)
        gamma = np.linalg.solve(K, k_z + s)
        s = (gamma @ K @ gamma - 1) / 2
    np.testing.assert_allclose(gamma @ K @ gamma + 1 - 2 * K @ gamma, 2 - 2 * k_z, atol=1e-12)
    with pytest.warns(RuntimeWarning, match="^1 Kwok-Tsang pre-images lie farther from their neighbours' mean"):
        Z = kwok_tsang(X_fit, gamma[None], 8.0, n_neighbors=8)
    np.testing.assert_allclose(Z[0], z_true, atol=1e-5)
