"""Seeded synthetic data sets used by the chapters.

Every generator takes ``random_state`` and returns the same data for the
same seed, so that notebooks re-run to the same outputs.
"""

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ._validation import check_int, check_real

__all__ = ["denoising_toy"]


def denoising_toy(
    n_clusters=11,
    n_features=2,
    sigma=0.1,
    n_train_per_cluster=100,
    n_test_per_cluster=33,
    random_state=0,
):
    """Gaussian clusters of the de-noising experiment of Mika et al. (1999).

    Cluster centres are drawn uniformly from [-1, 1]^d; each point is its
    centre plus isotropic Gaussian noise of standard deviation sigma. The
    centres and the standardised noise are drawn first and then scaled, so
    that for one seed only the noise level changes with sigma: the same
    experiment at several noise levels.

    Parameters
    ----------
    n_clusters : int, default=11
        Number of clusters k.
    n_features : int, default=2
        The input dimension d.
    sigma : float, default=0.1
        Noise standard deviation, >= 0.
    n_train_per_cluster : int, default=100
        Training points per cluster.
    n_test_per_cluster : int, default=33
        Test points per cluster.
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    data : sklearn.utils.Bunch
        With fields ``X_train`` (n_clusters * n_train_per_cluster, d),
        ``X_test`` (n_clusters * n_test_per_cluster, d), ``y_train`` and
        ``y_test`` (the cluster of each point), ``centres`` (n_clusters, d)
        and ``X_test_clean = centres[y_test]``, the noise-free test points.

    Examples
    --------
    >>> data = denoising_toy(sigma=0.05)
    >>> data.X_train.shape, data.X_test.shape, data.centres.shape
    ((1100, 2), (363, 2), (11, 2))
    """
    n_clusters = check_int(n_clusters, "n_clusters", minimum=1)
    n_features = check_int(n_features, "n_features", minimum=1)
    sigma = check_real(sigma, "sigma", minimum=0)
    n_train_per_cluster = check_int(n_train_per_cluster, "n_train_per_cluster", minimum=1)
    n_test_per_cluster = check_int(n_test_per_cluster, "n_test_per_cluster", minimum=1)
    rng = check_random_state(random_state)

    centres = rng.uniform(-1.0, 1.0, size=(n_clusters, n_features))
    y_train = np.repeat(np.arange(n_clusters), n_train_per_cluster)
    y_test = np.repeat(np.arange(n_clusters), n_test_per_cluster)
    noise_train = rng.standard_normal((y_train.size, n_features))
    noise_test = rng.standard_normal((y_test.size, n_features))
    return Bunch(
        X_train=centres[y_train] + sigma * noise_train,
        X_test=centres[y_test] + sigma * noise_test,
        y_train=y_train,
        y_test=y_test,
        centres=centres,
        X_test_clean=centres[y_test],
    )
