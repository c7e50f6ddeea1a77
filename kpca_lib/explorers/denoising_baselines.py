"""The baselines of chapter 5's de-noising widget and browser lab, on the toy.

Both show, beside kernel PCA, what a sceptic tries first: the noisy points,
the training mean, the nearest training point, the k-nearest-neighbour
average, linear PCA and mean shift (:mod:`kpca_lib.denoising_baselines`);
and, from the same projections as kernel PCA's fixed point, the
non-iterative pre-image of Kwok and Tsang with
:data:`KWOK_TSANG_NEIGHBORS` neighbours, as chapter 5's 2-D table computes it
(``KernelPCA.denoise(method="kwok_tsang", n_neighbors=10)``).
The k of the average and the q of linear PCA are chosen as chapter 5 chooses
kernel PCA's settings, without clean data: on a validation set seen twice,
with independent noise, by the paired one-standard-error rule. The
validation noise has its own seed, so the toy itself is the same as
:func:`kpca_lib.datasets.denoising_toy`'s. The browser lab is sent this
noise and makes the same choices in the page.
"""

import numpy as np
from sklearn.utils import Bunch

from .. import denoising_baselines as baselines

__all__ = ["K_VALUES", "KWOK_TSANG_NEIGHBORS", "N_VALIDATION_PER_CLUSTER", "toy_baselines", "validation_noise"]

N_VALIDATION_PER_CLUSTER = 11
# the candidates of the kNN average, simplest (smoothest) first
K_VALUES = (1000, 300, 100, 30, 10, 3, 1)
# neighbours of the Kwok-Tsang pre-image in 2-D: Kwok and Tsang's 10, as chapter 5's 2-D table
KWOK_TSANG_NEIGHBORS = 10
# names as the widget and the lab show them, in this order
NAMES = ("noisy points", "training mean", "nearest training point", "kNN average", "linear PCA", "mean shift")


def validation_noise(random_state, n_clusters, n_features):
    """Unit Gaussian noise of the two validation copies, shape (2, n_clusters * 11, n_features).

    Drawn from a generator of its own (seeded by ``[random_state, 5]``), not from the toy's.

    Examples
    --------
    >>> validation_noise(0, 11, 2).shape
    (2, 121, 2)
    """
    rng = np.random.default_rng([random_state, 5])
    return rng.standard_normal((2, n_clusters * N_VALIDATION_PER_CLUSTER, n_features))


def toy_baselines(data, sigma, noise):
    """The held-out k and q, and the test points de-noised by every baseline but mean shift.

    Parameters
    ----------
    data : sklearn.utils.Bunch
        The toy, as :func:`kpca_lib.datasets.denoising_toy` returns it.
    sigma : float
        Its noise level.
    noise : ndarray of shape (2, n_validation, n_features)
        From :func:`validation_noise`: the validation points are the centres
        repeated 11 times plus sigma times each copy of the noise.

    Returns
    -------
    sklearn.utils.Bunch
        ``n_neighbors`` and ``linear_q`` (the held-out choices) and ``Z``, a
        dict from name (:data:`NAMES` but mean shift, which needs the width
        c) to the de-noised test points.

    Examples
    --------
    >>> from kpca_lib.datasets import denoising_toy
    >>> data = denoising_toy(sigma=0.8)
    >>> chosen = toy_baselines(data, 0.8, validation_noise(0, 11, 2))
    >>> chosen.linear_q, list(chosen.Z)[:2]
    (0, ['noisy points', 'training mean'])
    """
    clean = np.repeat(data.centres, N_VALIDATION_PER_CLUSTER, axis=0)
    first, second = clean + sigma * noise[0], clean + sigma * noise[1]
    X_fit, X = data.X_train, data.X_test
    n_neighbors = baselines.knn_best_k(X_fit, first, second, K_VALUES)
    linear_q = baselines.linear_pca_best_q(X_fit, first, second)
    Z = {
        "noisy points": X,
        "training mean": baselines.training_mean(X_fit, X),
        "nearest training point": baselines.nearest_training_point(X_fit, X),
        "kNN average": baselines.knn_average(X_fit, X, n_neighbors),
        "linear PCA": baselines.linear_pca_denoise(X_fit, X, linear_q),
    }
    return Bunch(n_neighbors=n_neighbors, linear_q=linear_q, Z=Z)


def baseline_label(name, chosen):
    """How the widget and the lab name a baseline, with its held-out setting."""
    if name == "kNN average":
        return f"kNN average (held-out k = {chosen.n_neighbors})"
    if name == "linear PCA":
        return f"linear PCA (held-out q = {chosen.linear_q})"
    if name == "mean shift":
        return "mean shift (γ = 1/n, same c)"
    return name
