"""Tests of kpca_lib.sparse_pca."""

import warnings

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from kpca_lib import PCA, SparsePCA
from kpca_lib.sparse_pca import sparse_pca_objective


def _data(n=60, d=8, seed=0):
    rng = np.random.default_rng(seed)
    scales = np.array([6.0, 4.0, 2.5, 1.0, 0.5, 0.3, 0.2, 0.1])[:d]
    rotation = np.linalg.qr(rng.standard_normal((d, d)))[0]
    return (rng.standard_normal((n, d)) * scales) @ rotation + 1.0


@parametrize_with_checks([SparsePCA(n_components=2, alpha=0.1)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("alpha", [0.0, 0.5, 3.0, 20.0])
@pytest.mark.parametrize("init", ["svd", "random"])
def test_objective_never_increases(alpha, init):
    X = _data()
    spca = SparsePCA(n_components=3, alpha=alpha, init=init, random_state=1).fit(X)
    history = spca.objective_history_
    assert history.size == spca.n_iter_ + 1
    assert np.all(np.diff(history) <= 1e-10 * history[0])


@pytest.mark.parametrize("init", ["svd", "random"])
def test_alpha_zero_spans_pca_subspace(init):
    X = _data()
    spca = SparsePCA(n_components=3, alpha=0.0, init=init, random_state=0, tol=1e-14,
                     max_iter=5000).fit(X)
    pca = PCA(n_components=3).fit(X)
    angles = subspace_angles(spca.components_.T, pca.components_.T)
    assert np.max(angles) < 1e-5


def test_objective_matches_attributes():
    X = _data()
    spca = SparsePCA(n_components=2, alpha=1.0).fit(X)
    value = sparse_pca_objective(X - spca.mean_, spca.codes_, spca.loadings_, 1.0)
    assert value == pytest.approx(spca.objective_history_[-1], rel=1e-12)
    # the unit-ball constraint holds
    assert np.all(np.linalg.norm(spca.codes_, axis=0) <= 1 + 1e-12)


def test_kkt_conditions_at_the_solution():
    # at a minimiser over D: X_c^T y_k - sum_j d_j (y_j^T y_k) = alpha sign(d_k) on the
    # support, and is at most alpha in absolute value off it
    X = _data()
    alpha = 2.0
    spca = SparsePCA(n_components=2, alpha=alpha, tol=1e-15, max_iter=5000).fit(X)
    Y, D = spca.codes_, spca.loadings_
    gradient = (X - spca.mean_).T @ Y - D @ (Y.T @ Y)
    support = D != 0
    assert np.allclose(gradient[support], alpha * np.sign(D[support]), atol=1e-6)
    assert np.all(np.abs(gradient[~support]) <= alpha + 1e-6)


def test_larger_alpha_gives_sparser_components():
    X = _data()
    zeros = [np.sum(SparsePCA(n_components=3, alpha=a).fit(X).components_ == 0)
             for a in (0.0, 2.0, 8.0)]
    assert zeros[0] == 0
    assert zeros[0] < zeros[1] < zeros[2]


def test_planted_sparse_structure_recovered():
    # two independent latent factors, each on its own block of features
    rng = np.random.default_rng(3)
    factors = rng.standard_normal((200, 2)) * [3.0, 2.0]
    X = np.zeros((200, 10))
    X[:, :4] = factors[:, [0]]
    X[:, 4:7] = factors[:, [1]]
    X += 0.1 * rng.standard_normal(X.shape)
    spca = SparsePCA(n_components=2, alpha=10.0).fit(X)
    supports = {tuple(np.flatnonzero(row)) for row in spca.components_}
    assert supports == {(0, 1, 2, 3), (4, 5, 6)}


def test_transform_and_inverse_round_trip():
    X = _data()
    spca = SparsePCA(n_components=3, alpha=0.5).fit(X)
    Z = spca.transform(X)
    X_hat = spca.inverse_transform(Z)
    # least squares: the residual is orthogonal to the components
    assert np.allclose((X - X_hat) @ spca.components_.T, 0, atol=1e-9)


def test_convergence_warning_when_max_iter_hit():
    X = _data()
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        SparsePCA(n_components=3, alpha=1.0, init="random", random_state=0, max_iter=1).fit(X)


def test_deterministic_refit():
    X = _data()
    a = SparsePCA(n_components=2, alpha=1.0, init="random", random_state=5).fit(X)
    b = SparsePCA(n_components=2, alpha=1.0, init="random", random_state=5).fit(X)
    assert np.array_equal(a.components_, b.components_)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"alpha": -1.0}, ValueError, "alpha"),
        ({"alpha": np.nan}, ValueError, "alpha"),
        ({"alpha": "big"}, TypeError, "alpha"),
        ({"n_components": 0}, ValueError, "n_components"),
        ({"n_components": 99}, ValueError, "n_components"),
        ({"n_components": 2.5}, TypeError, "n_components"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": -1e-3}, ValueError, "tol"),
        ({"init": "pca"}, ValueError, "init"),
    ],
)
def test_bad_parameters(params, error, match):
    with pytest.raises(error, match=match):
        SparsePCA(**params).fit(_data())


def test_bad_data():
    X = _data()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SparsePCA(n_components=2).fit(X)
    with pytest.raises(ValueError):
        SparsePCA(n_components=2).fit(np.ones(5))


def test_float32_input_gives_float32_attributes_and_outputs():
    X = _data()
    spca32 = SparsePCA(n_components=2, alpha=1.0).fit(X.astype(np.float32))
    spca64 = SparsePCA(n_components=2, alpha=1.0).fit(X)
    for name in ("components_", "loadings_", "codes_", "mean_"):
        assert getattr(spca32, name).dtype == np.float32, name
    Z = spca32.transform(X.astype(np.float32))
    assert Z.dtype == np.float32
    assert spca32.inverse_transform(Z).dtype == np.float32
    # fitted in float64 inside: the same model, to float32 precision of the data
    np.testing.assert_allclose(spca32.components_, spca64.components_, atol=1e-5)
    assert spca64.transform(X).dtype == np.float64


def test_first_sweep_empties_a_component_exactly_above_its_threshold():
    # from the SVD start (Y = U_q, so Y^T Y = I) the first update of d_k is
    # S_alpha(X_c^T u_k) = S_alpha(sigma_k v_k): zero iff alpha >= sigma_k max_j |v_jk|
    X = _data()
    X_c = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(X_c, full_matrices=False)
    thresholds = s[:3] * np.max(np.abs(Vt[:3]), axis=1)
    for k, threshold in enumerate(thresholds):
        for alpha, empty in ((threshold * 1.001, True), (threshold * 0.999, False)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                spca = SparsePCA(n_components=3, alpha=alpha, max_iter=1).fit(X)
            # signs and order are kept: loadings_ column k is component k
            assert np.all(spca.loadings_[:, k] == 0) == empty


def test_no_loading_survives_above_the_largest_column_norm():
    # D = 0 is a global minimiser iff alpha >= max_j ||X_c[:, j]||; below it, some
    # unit code y = X_c[:, j] / ||X_c[:, j]|| gives a Lasso that keeps a loading
    X = _data()
    largest = np.max(np.linalg.norm(X - X.mean(axis=0), axis=0))
    above = SparsePCA(n_components=2, alpha=largest * 1.001, init="random", random_state=0).fit(X)
    assert np.all(above.loadings_ == 0)
    below = SparsePCA(n_components=1, alpha=largest * 0.99, max_iter=5000).fit(X)
    assert np.any(below.loadings_ != 0)
