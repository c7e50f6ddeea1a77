"""Seeded synthetic data sets."""

import numpy as np
import pytest

from kpca_lib.datasets import denoising_toy


def test_denoising_toy_shapes_and_labels():
    data = denoising_toy(n_clusters=11, n_features=10, sigma=0.1)
    assert data.X_train.shape == (1100, 10) and data.X_test.shape == (363, 10)
    assert data.centres.shape == (11, 10)
    assert np.all(np.abs(data.centres) <= 1.0)
    np.testing.assert_array_equal(np.bincount(data.y_train), 100)
    np.testing.assert_array_equal(np.bincount(data.y_test), 33)
    np.testing.assert_array_equal(data.X_test_clean, data.centres[data.y_test])


def test_denoising_toy_noise_has_the_requested_level():
    data = denoising_toy(n_clusters=3, n_features=5, sigma=0.3, n_train_per_cluster=4000)
    noise = data.X_train - data.centres[data.y_train]
    np.testing.assert_allclose(noise.std(), 0.3, rtol=0.02)
    np.testing.assert_allclose(noise.mean(), 0.0, atol=0.01)


def test_denoising_toy_is_seeded_and_sigma_only_scales_the_noise():
    a = denoising_toy(sigma=0.1, random_state=7)
    b = denoising_toy(sigma=0.1, random_state=7)
    c = denoising_toy(sigma=0.4, random_state=7)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    np.testing.assert_array_equal(a.centres, c.centres)
    np.testing.assert_allclose(c.X_test - c.X_test_clean, 4 * (a.X_test - a.X_test_clean))
    assert not np.array_equal(a.centres, denoising_toy(random_state=8).centres)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n_clusters": 0}, ValueError),
        ({"sigma": -0.1}, ValueError),
        ({"sigma": "0.1"}, TypeError),
        ({"n_features": 2.0}, TypeError),
        ({"n_test_per_cluster": 0}, ValueError),
    ],
)
def test_denoising_toy_bad_input(kwargs, error):
    with pytest.raises(error, match=next(iter(kwargs))):
        denoising_toy(**kwargs)
