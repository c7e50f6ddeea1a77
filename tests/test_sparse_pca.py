"""Tests of kpca_lib.sparse_pca."""

import warnings

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from kpca_lib import PCA, SparsePCA
from kpca_lib.sparse_pca import _update_loadings, sparse_pca_objective


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


def test_first_loadings_update_empties_a_component_exactly_above_its_threshold():
    # from the SVD start (Y = U_q, so Y^T Y = I) the first update of d_k is
    # S_alpha(X_c^T u_k) = S_alpha(sigma_k v_k): zero iff alpha >= sigma_k max_j |v_jk|.
    # The statement is about the loadings step alone (the re-seeding at the end of the
    # sweep may revive the component in another direction), so it calls that step.
    X = _data()
    X_c = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(X_c, full_matrices=False)
    Y = U[:, :3]
    thresholds = s[:3] * np.max(np.abs(Vt[:3]), axis=1)
    for k, threshold in enumerate(thresholds):
        for alpha, empty in ((threshold * 1.001, True), (threshold * 0.999, False)):
            D = _update_loadings(X_c.T @ Y, Y.T @ Y, X_c.T @ Y, alpha)
            assert np.all(D[:, k] == 0) == empty


def test_no_loading_survives_above_the_largest_column_norm():
    # D = 0 is a global minimiser iff alpha >= max_j ||X_c[:, j]||; below it, some
    # unit code y = X_c[:, j] / ||X_c[:, j]|| gives a Lasso that keeps a loading
    X = _data()
    largest = np.max(np.linalg.norm(X - X.mean(axis=0), axis=0))
    above = SparsePCA(n_components=2, alpha=largest * 1.001, init="random", random_state=0).fit(X)
    assert np.all(above.loadings_ == 0)
    below = SparsePCA(n_components=1, alpha=largest * 0.99, max_iter=5000).fit(X)
    assert np.any(below.loadings_ != 0)


def test_array_init_equal_to_svd_codes_gives_the_svd_fit():
    # the left singular vectors as given codes must reproduce init="svd" sweep for sweep
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 7)) * [4.0, 3.0, 1.0, 1.0, 0.5, 0.5, 0.5]
    U = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)[0][:, :2]
    a = SparsePCA(n_components=2, alpha=2.0).fit(X)
    b = SparsePCA(n_components=2, alpha=2.0, init=U).fit(X)
    np.testing.assert_allclose(a.objective_history_, b.objective_history_, rtol=1e-10)
    np.testing.assert_allclose(a.components_, b.components_, atol=1e-10)


def test_warm_start_from_a_solution_stays_there():
    # restarting from the codes of a converged fit at the same alpha cannot lower the objective
    # by more than the tolerance: it is a stationary point of the block updates
    rng = np.random.default_rng(4)
    X = rng.standard_normal((60, 9)) @ rng.standard_normal((9, 9))
    first = SparsePCA(n_components=3, alpha=3.0, tol=1e-12, max_iter=5000).fit(X)
    again = SparsePCA(n_components=3, alpha=3.0, init=first.codes_ * 5.0).fit(X)  # scaled: projected back
    assert again.objective_history_[-1] == pytest.approx(first.objective_history_[-1], rel=1e-8)


@pytest.mark.parametrize("init", [np.zeros((5, 2)), np.full((10, 2), np.nan), "spectral"])
def test_bad_init(init):
    X = np.random.default_rng(0).standard_normal((10, 4))
    with pytest.raises(ValueError, match="init"):
        SparsePCA(n_components=2, init=init).fit(X)


# issue 35, items 3-5: dead components (from a random start or along the sweeps) and
# data whose squares under- or overflow

def _standardised_iris():
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(load_iris().data)


def _sklearn_best_objective(X, n_components, alpha, seeds=range(4)):
    """The lowest objective scikit-learn's dictionary learning reaches (it re-seeds dead atoms).

    Its problem on X_c^T is ours: its codes are our loadings D, its unit atoms our codes Y.
    """
    from sklearn.decomposition import dict_learning

    X_c = X - X.mean(axis=0)
    values = []
    for seed in seeds:
        code, dictionary, _ = dict_learning(X_c.T, n_components=n_components, alpha=alpha,
                                            method="cd", max_iter=3000, tol=1e-12,
                                            random_state=seed)
        values.append(sparse_pca_objective(X_c, dictionary.T, code, alpha))
    return min(values)


def _dead(loadings):
    return np.flatnonzero(~np.any(loadings, axis=0))


@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_random_start_does_not_stop_at_zero_loadings(random_state):
    # issue 35 item 3: from random unit codes every |X_c^T y_k| is about 1 < alpha = 3, so
    # the first sweep empties D; D = 0 is optimal only from alpha >= 12.2 (the column norms)
    X = _standardised_iris()
    spca = SparsePCA(n_components=4, alpha=3.0, init="random", random_state=random_state).fit(X)
    assert _dead(spca.loadings_).size == 0
    best = _sklearn_best_objective(X, 4, 3.0)
    assert spca.objective_history_[-1] <= best * (1 + 1e-8)
    assert spca.objective_history_[-1] < 0.9 * spca.objective_history_[0]


@pytest.mark.parametrize("init", ["svd", "random"])
def test_zero_loadings_exactly_from_the_largest_column_norm(init):
    # D = 0 is a global minimiser iff alpha >= max_j ||X_c[:, j]||: the fit returns it
    # exactly then, from either start
    X = _data()
    largest = np.max(np.linalg.norm(X - X.mean(axis=0), axis=0))
    above = SparsePCA(n_components=2, alpha=largest * 1.001, init=init, random_state=0).fit(X)
    assert np.all(above.loadings_ == 0)
    below = SparsePCA(n_components=2, alpha=largest * 0.99, init=init, random_state=0,
                      max_iter=5000).fit(X)
    assert np.any(below.loadings_ != 0)


def test_dead_component_is_reseeded_and_lowers_the_objective():
    # issue 35 item 4: iris, 3 components, alpha = 5, SVD start: the third loading falls
    # to zero in the first sweep (objective 204.98 if left there); scikit-learn's
    # dictionary learning, which re-seeds dead atoms, reaches 196.59
    X = _standardised_iris()
    spca = SparsePCA(n_components=3, alpha=5.0).fit(X)
    assert _dead(spca.loadings_).size == 0
    assert spca.objective_history_[-1] <= _sklearn_best_objective(X, 3, 5.0) * (1 + 1e-8)
    # the re-seeding keeps the objective monotone
    assert np.all(np.diff(spca.objective_history_) <= 1e-10 * spca.objective_history_[0])
    # and is deterministic
    again = SparsePCA(n_components=3, alpha=5.0).fit(X)
    assert np.array_equal(spca.components_, again.components_)


@pytest.mark.parametrize("n_components, alpha", [(3, 5.0), (4, 3.0), (4, 8.0), (4, 11.0)])
@pytest.mark.parametrize("init", ["svd", "random"])
def test_a_component_left_dead_is_optimal_given_the_others(n_components, alpha, init):
    # a zero loading d_k is left only when no residual column is longer than alpha: then
    # |R^T y| <= alpha entrywise for every unit y, and no (y_k, d_k) lowers the objective
    X = _standardised_iris()
    spca = SparsePCA(n_components=n_components, alpha=alpha, init=init, random_state=0).fit(X)
    R = X - spca.mean_ - spca.codes_ @ spca.loadings_.T
    if _dead(spca.loadings_).size:
        # (a column longer by round-off only is no reason to re-seed: _TIE_RTOL = 1e-10)
        assert np.max(np.linalg.norm(R, axis=0)) <= alpha * (1 + 1e-10)
    assert np.all(np.diff(spca.objective_history_) <= 1e-10 * spca.objective_history_[0])


def test_reseeding_needs_no_random_state():
    # the re-seed comes from the residual, not from a generator: a random start that
    # dies in the first sweep gives the same fit for every seed
    X = _standardised_iris()
    fits = [SparsePCA(n_components=2, alpha=3.0, init="random", random_state=seed).fit(X)
            for seed in (0, 7)]
    np.testing.assert_allclose(fits[0].components_, fits[1].components_, atol=1e-12)


@pytest.mark.parametrize("scale", [1e-170, 2.0**-600, 1e170, 2.0**600])
def test_extreme_scales_give_the_same_fit(scale):
    # issue 35 item 5: f(Y, c D; c X_c, c alpha) = c^2 f(Y, D; X_c, alpha), so scaling the
    # data and alpha by c gives the same components and codes and loadings times c
    X = _data()
    reference = SparsePCA(n_components=3, alpha=2.0).fit(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaled = SparsePCA(n_components=3, alpha=2.0 * scale).fit(X * scale)
    np.testing.assert_allclose(scaled.components_, reference.components_, atol=1e-9)
    np.testing.assert_allclose(scaled.codes_, reference.codes_, atol=1e-9)
    np.testing.assert_allclose(scaled.loadings_ / scale, reference.loadings_, rtol=1e-9,
                               atol=1e-9 * np.abs(reference.loadings_).max())
    # transform projects onto the unit components: coordinates in the data's units
    Z = scaled.transform(X * scale)
    assert np.all(np.isfinite(Z))
    np.testing.assert_allclose(Z / scale, reference.transform(X), atol=1e-9)
    # the objective in the data's units, c^2 f, is out of float64's range: said, not silent
    assert _objective_range_warnings(caught) == 1
    assert np.all(np.isin(scaled.objective_history_, [0.0, np.inf]))


def _objective_range_warnings(caught):
    return sum(issubclass(w.category, RuntimeWarning) and "objective_history_ holds 0 or inf"
               in str(w.message) for w in caught)


@pytest.mark.parametrize("scale", [1e-170, 1e170])
def test_alpha_zero_at_extreme_scales_spans_pca_subspace(scale):
    # with alpha = 0 the loadings span the principal subspace at any scale: none is
    # zero (the squares of 1e-170 underflow) and none is NaN (those of 1e170 overflow)
    X = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spca = SparsePCA(n_components=3, alpha=0.0, tol=1e-14, max_iter=5000).fit(X * scale)
    assert np.all(np.isfinite(spca.components_))
    np.testing.assert_allclose(np.linalg.norm(spca.components_, axis=1), 1.0, rtol=1e-12)
    pca = PCA(n_components=3).fit(X)
    assert np.max(subspace_angles(spca.components_.T, pca.components_.T)) < 1e-5
    assert _objective_range_warnings(caught) == 1


def test_reseeding_breaks_ties_by_index_not_by_round_off():
    # 0/1 columns with the same number of ones have equal centred norms; summed in
    # another order they can differ in the last bit, which must not choose the re-seed
    # (nbval compares the chapter under two BLAS configurations)
    from kpca_lib import sparse_pca

    rng = np.random.default_rng(3)
    n, d = 100, 12
    base = np.zeros(n)
    base[:37] = 1.0
    X = np.column_stack([rng.permutation(base) for _ in range(d)])
    X_c = X - X.mean(axis=0)
    norms = np.linalg.norm(X_c, axis=0)
    # the last bits differ, and not in favour of the first column: the case under test
    assert np.argmax(norms) != 0
    Y, D = np.zeros((n, 1)), np.zeros((d, 1))
    assert sparse_pca._reseed_dead_components(X_c, Y, D, 0.5) == 1
    np.testing.assert_array_equal(Y[:, 0], X_c[:, 0] / norms[0])


def test_no_component_is_revived_with_a_loading_of_round_off():
    # on the planted topics just below tau_0 a word already taken by one component leaves a
    # residual column of norm alpha up to round-off: re-seeding from it gave a loading of
    # about 1e-16, which components_ normalises to a unit "word" (a fourth topic of one word)
    from kpca_lib.datasets import planted_topics

    X = planted_topics(n_documents=400, random_state=0).X
    spca = SparsePCA(n_components=4, alpha=9.3).fit(X)
    loadings = spca.loadings_[spca.loadings_ != 0]
    assert np.min(np.abs(loadings)) > 1e-8 * 9.3
    assert np.count_nonzero(spca.components_, axis=1).tolist() == [1, 1, 1, 0]
