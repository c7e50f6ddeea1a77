"""Tests of kpca_lib.rotations (varimax)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kpca_lib.rotations import varimax, varimax_criterion


def _random_rotation(q, seed):
    return np.linalg.qr(np.random.default_rng(seed).standard_normal((q, q)))[0]


def _simple_structure(d=30, q=3, noise=0.02, seed=0):
    """Loadings with one block of rows per column, plus a little noise."""
    rng = np.random.default_rng(seed)
    L = np.zeros((d, q))
    for k, rows in enumerate(np.array_split(np.arange(d), q)):
        L[rows, k] = 1.0 + 0.5 * rng.uniform(size=rows.size)
    return L + noise * rng.standard_normal((d, q))


def test_criterion_by_hand():
    # columns (1, 0, 0, 0) and (0, 1, 1, 0)/sqrt(2): variances of the squares 3/16 and 1/16
    L = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    L[:, 1] /= np.sqrt(2)
    assert varimax_criterion(L) == pytest.approx(3 / 16 + 1 / 16)


def test_rotation_is_orthogonal_and_reproduces_the_output():
    L = np.random.default_rng(1).standard_normal((20, 4))
    rotated, R = varimax(L)
    np.testing.assert_allclose(R.T @ R, np.eye(4), atol=1e-12)
    np.testing.assert_allclose(rotated, L @ R, atol=1e-12)
    # a rotation keeps the span, hence the row norms of the loadings
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=1), np.linalg.norm(L, axis=1))


@pytest.mark.parametrize("seed", range(5))
def test_criterion_never_decreases_along_the_sweeps(seed):
    L = _simple_structure(seed=seed) @ _random_rotation(3, seed)
    values = [varimax_criterion(L)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for sweeps in range(1, 8):
            values.append(varimax_criterion(varimax(L, max_iter=sweeps, tol=0.0)[0]))
    assert np.all(np.diff(values) >= -1e-14)
    assert values[-1] > values[0]


@pytest.mark.parametrize("seed", range(5))
def test_planted_simple_structure_recovered_from_a_random_rotation(seed):
    planted = _simple_structure(seed=seed)
    rotated, _ = varimax(planted @ _random_rotation(3, 10 + seed))
    # each rotated column matches one planted column up to sign (a permutation)
    cosines = np.abs((rotated / np.linalg.norm(rotated, axis=0)).T
                     @ (planted / np.linalg.norm(planted, axis=0)))
    assert np.all(np.sort(cosines.max(axis=1)) > 0.999)
    assert sorted(np.argmax(cosines, axis=1)) == [0, 1, 2]


def test_agrees_with_scikit_learn_where_its_iteration_converges():
    # scikit-learn's FactorAnalysis rotation: an independent implementation
    # (a Procrustes fixed point) of the same criterion
    from sklearn.decomposition._factor_analysis import _ortho_rotation

    L = _simple_structure(d=40, q=4, noise=0.1, seed=7) @ _random_rotation(4, 8)
    ours = varimax_criterion(varimax(L)[0])
    theirs = varimax_criterion(_ortho_rotation(L, tol=1e-12, max_iter=1000).T)
    assert ours == pytest.approx(theirs, rel=1e-9)


def test_planar_turns_do_not_cycle_where_the_procrustes_iteration_does():
    # four rows, two blocks, turned by 0.3 rad: the fixed-point iteration jumps between
    # +0.3 and -0.3; the exact planar turn returns to the blocks (criterion 2 * 1/16)
    simple = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]) / np.sqrt(2)
    turn = np.array([[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]])
    rotated, _ = varimax(simple @ turn)
    np.testing.assert_allclose(np.abs(rotated), simple, atol=1e-10)
    assert varimax_criterion(rotated) == pytest.approx(0.125)


def test_one_column_is_left_alone():
    L = np.random.default_rng(0).standard_normal((10, 1))
    rotated, R = varimax(L)
    np.testing.assert_array_equal(rotated, L)
    np.testing.assert_array_equal(R, np.eye(1))


def test_warns_when_max_iter_is_reached():
    L = _simple_structure() @ _random_rotation(3, 0)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        varimax(L, max_iter=1, tol=0.0)


@pytest.mark.parametrize(
    "loadings, kwargs, error, match",
    [
        (np.ones(5), {}, ValueError, "2-D"),
        (np.ones((0, 2)), {}, ValueError, "non-empty"),
        (np.array([[1.0, np.nan]]), {}, ValueError, "NaN"),
        (np.ones((3, 2)), {"max_iter": 0}, ValueError, "max_iter"),
        (np.ones((3, 2)), {"max_iter": 2.5}, TypeError, "max_iter"),
        (np.ones((3, 2)), {"tol": -1.0}, ValueError, "tol"),
    ],
)
def test_bad_input(loadings, kwargs, error, match):
    with pytest.raises(error, match=match):
        varimax(loadings, **kwargs)
