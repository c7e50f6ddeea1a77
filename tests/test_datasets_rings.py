"""Tests of kpca_lib.datasets.concentric_rings."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kpca_lib.datasets import concentric_rings


@given(
    n=st.integers(1, 30),
    radii=st.lists(st.floats(0.1, 10.0), min_size=1, max_size=4),
    seed=st.integers(0, 2**31 - 1),
)
def test_noise_free_points_lie_on_their_ring(n, radii, seed):
    X, y = concentric_rings(n, radii=radii, noise=0.0, random_state=seed)
    assert X.shape == (n * len(radii), 2)
    np.testing.assert_array_equal(np.bincount(y), np.full(len(radii), n))
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), np.asarray(radii)[y])


def test_seeded_and_noisy():
    X1, y1 = concentric_rings(200, noise=0.1, random_state=3)
    X2, _ = concentric_rings(200, noise=0.1, random_state=3)
    X3, _ = concentric_rings(200, noise=0.1, random_state=4)
    np.testing.assert_array_equal(X1, X2)
    assert not np.allclose(X1, X3)
    # radial deviation has roughly the noise's standard deviation
    deviation = np.linalg.norm(X1, axis=1) - np.array([1.0, 2.0, 3.0])[y1]
    assert 0.08 < deviation.std() < 0.12
    # angles are spread round the circle: the mean of each ring is near 0
    for ring in range(3):
        assert np.linalg.norm(X1[y1 == ring].mean(axis=0)) < 0.3 * (ring + 1)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_samples_per_ring": 0}, "n_samples_per_ring"),
        ({"radii": (1.0, -2.0)}, "radii"),
        ({"radii": ()}, "radii"),
        ({"noise": -0.1}, "noise"),
    ],
)
def test_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        concentric_rings(**kwargs)
