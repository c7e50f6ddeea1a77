"""The simple de-noisers a sceptic compares kernel PCA with.

Each function maps noisy points ``X`` to estimates of their clean values,
using the (noisy) training points ``X_fit`` only:

* :func:`training_mean`: every point becomes the mean of the training points;
* :func:`nearest_training_point`: the training point nearest in input space;
* :func:`knn_average`: the mean of the k nearest training points, k chosen
  on held-out data by :func:`knn_best_k`;
* :func:`mean_shift`: the fixed-point iteration of the pre-image with every
  weight ``gamma_i = 1/n``, that is the density term
  ``(1/n) sum_i k(z, x_i)`` of rho alone, with no component at all;
* :func:`linear_pca_denoise`: projection on the first q principal components
  and back, with q chosen on held-out data by :func:`linear_pca_best_q`.

The cluster baselines (:func:`kmeans_denoise`, :func:`gaussian_mixture_denoise`,
:func:`cluster_best_k`) are in :mod:`kpca_lib.cluster_baselines` and Stein's
unbiased risk estimate :func:`monte_carlo_sure` in :mod:`kpca_lib.sure`; both
are importable from here too, where they lived first.

The noisy input itself is the first baseline: an estimate must beat ``X``.
:func:`one_standard_error_choice` is the held-out rule of chapter 5 (a paired
variant of the one-standard-error rule), which needs no clean data: it
scores against a second, independent noisy copy of each validation point.
"""

import warnings

import numpy as np
from scipy.special import softmax
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_array

from ._held_out import check_points as _check_points
from ._held_out import one_standard_error_choice
from ._validation import check_int, check_real

# moved to modules of their own; imported here so that the imports of the chapters keep working
# (not in __all__: the reference documents each in its own module, once)
from .cluster_baselines import cluster_best_k, gaussian_mixture_denoise, kmeans_denoise  # noqa: F401
from .sure import monte_carlo_sure  # noqa: F401

__all__ = [
    "knn_average",
    "knn_best_k",
    "linear_pca_best_q",
    "linear_pca_denoise",
    "mean_shift",
    "nearest_training_point",
    "one_standard_error_choice",
    "training_mean",
]


def training_mean(X_fit, X):
    """Replace every point by the mean of the training points.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i.
    X : array-like of shape (n_points, n_features)
        The noisy points.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        Every row is ``(1/n) sum_i x_i``.

    Examples
    --------
    >>> training_mean([[0.0, 0.0], [2.0, 4.0]], [[9.0, 9.0]])
    array([[1., 2.]])
    """
    X_fit, X = _check_points(X_fit, X)
    return np.tile(X_fit.mean(axis=0), (X.shape[0], 1))


def knn_average(X_fit, X, n_neighbors=10):
    """Replace every point by the mean of its k nearest training points.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i.
    X : array-like of shape (n_points, n_features)
        The noisy points.
    n_neighbors : int, default=10
        The number k of neighbours, 1 <= k <= n_samples (Euclidean distance
        in input space, by :class:`sklearn.neighbors.NearestNeighbors`).

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        ``(1/k) sum_{i in N_k(x)} x_i`` per point.

    Examples
    --------
    >>> knn_average([[0.0], [1.0], [5.0]], [[0.2], [4.0]], n_neighbors=2)
    array([[0.5],
           [3. ]])
    """
    X_fit, X = _check_points(X_fit, X)
    n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1, maximum=X_fit.shape[0])
    neighbours = NearestNeighbors(n_neighbors=n_neighbors).fit(X_fit)
    index = neighbours.kneighbors(X, return_distance=False)
    return X_fit[index].mean(axis=1)


def nearest_training_point(X_fit, X):
    """Replace every point by its nearest training point (in input space).

    The k-nearest-neighbour average with k = 1.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i.
    X : array-like of shape (n_points, n_features)
        The noisy points.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        ``x_i`` with i minimising ``||x - x_i||``, per point.

    Examples
    --------
    >>> nearest_training_point([[0.0], [1.0], [5.0]], [[0.2], [4.0]])
    array([[0.],
           [5.]])
    """
    return knn_average(X_fit, X, n_neighbors=1)


def mean_shift(X_fit, X, c, *, max_iter=100, tol=1e-6, return_history=False):
    """Gaussian mean shift from every noisy point: the density term alone.

    Iterates the pre-image's fixed point with every weight ``gamma_i = 1/n``,

        z <- sum_i k(z, x_i) x_i / sum_i k(z, x_i),
        k(z, x_i) = exp(-||z - x_i||^2 / c),

    started at the noisy point. This climbs the kernel density estimate
    ``(1/n) sum_i k(z, x_i)`` (Cheng, 1995): the term of rho that kernel
    PCA's centring correction contributes, with no component at all. The
    weights are a softmax of ``-||z - x_i||^2 / c``, so a z far from the data
    does not underflow. A point stops when its step is at most ``tol * s``,
    with s the root mean square distance of the training points to their
    mean, the test of :func:`kpca_lib.preimage.gaussian_fixed_point`.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i.
    X : array-like of shape (n_points, n_features)
        The noisy points, also the starts.
    c : float
        Width of the Gaussian kernel, c > 0: the width of the kernel PCA it
        is compared with.
    max_iter : int, default=100
        Iterations at most.
    tol : float, default=1e-6
        Relative step size below which a point has converged.
    return_history : bool, default=False
        Also return the iterates: ``Z_history[t]`` is what ``max_iter=t``
        would return.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        The points after the iteration.
    Z_history : ndarray of shape (n_steps + 1, n_points, n_features)
        The iterates, the start first; a stopped point keeps its value.
        Only with ``return_history=True``.

    Warns
    -----
    ConvergenceWarning
        When some points are still moving after ``max_iter`` iterations.

    Examples
    --------
    >>> import numpy as np
    >>> mean_shift([[0.0], [1.0]], [[0.9]], c=1.0).round(6)
    array([[0.5]])
    """
    X_fit, X = _check_points(X_fit, X)
    c = check_real(c, "c", minimum=0, strict=True)
    max_iter = check_int(max_iter, "max_iter", minimum=0)
    tol = check_real(tol, "tol", minimum=0)
    scale = np.sqrt(np.mean(np.sum((X_fit - X_fit.mean(axis=0)) ** 2, axis=1)))
    step_tol = tol * (scale if scale > 0 else 1.0)
    Z = X.copy()
    history = [X.copy()]
    moving = np.ones(Z.shape[0], dtype=bool)
    for _ in range(max_iter):
        if not moving.any():
            break
        # k(z, x_i) / sum_j k(z, x_j), the normalised kernel weights
        weights = softmax(-pairwise_distances(Z[moving], X_fit, metric="sqeuclidean") / c, axis=1)
        Z_new = weights @ X_fit
        step = np.linalg.norm(Z_new - Z[moving], axis=1)
        Z[moving] = Z_new
        moving[np.flatnonzero(moving)[step <= step_tol]] = False
        if return_history:
            history.append(Z.copy())
    if moving.any():
        warnings.warn(
            f"{np.count_nonzero(moving)} of {Z.shape[0]} mean-shift points were still "
            f"moving after max_iter={max_iter} iterations.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return (Z, np.array(history)) if return_history else Z


def linear_pca_denoise(X_fit, X, n_components):
    """Project on the first q principal components of the training points and back.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points x_i.
    X : array-like of shape (n_points, n_features)
        The noisy points.
    n_components : int
        The number q of components, 0 <= q <= min(n_samples, n_features);
        q = 0 gives the training mean, q = n_features the points unchanged.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        ``mean + (x - mean) W_q^T W_q``, by :class:`sklearn.decomposition.PCA`.

    Examples
    --------
    >>> linear_pca_denoise([[0.0, 0.0], [2.0, 0.0], [4.0, 0.0]], [[1.0, 3.0]], 1).round(6)
    array([[1., 0.]])
    """
    X_fit, X = _check_points(X_fit, X)
    q = check_int(n_components, "n_components", minimum=0, maximum=min(X_fit.shape))
    if q == 0:
        return training_mean(X_fit, X)
    pca = PCA(n_components=q, svd_solver="full").fit(X_fit)
    return pca.inverse_transform(pca.transform(X))


def linear_pca_best_q(X_fit, X_val, X_val_second, q_values=None):
    """Linear PCA's number of components, chosen on held-out data without clean data.

    De-noises the validation points ``X_val`` with every q and scores each
    against a second, independent noisy copy ``X_val_second`` of the same
    clean points: ``E||z - x''||^2 = E||z - x_clean||^2 + d sigma^2``, so the
    order of the settings is that of the clean error. The fewest components
    within one standard error of the best are kept
    (:func:`one_standard_error_choice`).

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points.
    X_val, X_val_second : array-like of shape (n_points, n_features)
        Two noisy copies of the same validation points.
    q_values : sequence of int or None, default=None
        The candidates, in increasing order; None tries
        ``0, 1, ..., min(n_samples, n_features)``.

    Returns
    -------
    q : int
        The chosen number of components.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> line = np.outer(rng.uniform(-3, 3, 200), [1.0, 1.0, 0.0])
    >>> clean = np.outer(rng.uniform(-3, 3, 100), [1.0, 1.0, 0.0])
    >>> noisy = lambda A: A + 0.3 * rng.standard_normal(A.shape)
    >>> linear_pca_best_q(noisy(line), noisy(clean), noisy(clean))
    1
    """
    X_fit, X_val = _check_points(X_fit, X_val)
    X_val_second = check_array(X_val_second, dtype=np.float64, input_name="X_val_second")
    if X_val_second.shape != X_val.shape:
        raise ValueError(f"X_val_second must have the shape of X_val {X_val.shape}, got {X_val_second.shape}.")
    if q_values is None:
        q_values = range(min(X_fit.shape) + 1)
    q_values = [int(q) for q in q_values]
    if not q_values or np.any(np.diff(q_values) <= 0):
        raise ValueError(f"q_values must be a non-empty increasing sequence, got {q_values}.")
    errors = [np.sum((linear_pca_denoise(X_fit, X_val, q) - X_val_second) ** 2, axis=1) for q in q_values]
    return q_values[one_standard_error_choice(errors)]


def knn_best_k(X_fit, X_val, X_val_second, k_values=None):
    """The k of the k-nearest-neighbour average, chosen on held-out data without clean data.

    As :func:`linear_pca_best_q`: de-noise ``X_val`` with every k, score
    against the second noisy copy ``X_val_second``, keep the simplest k
    within one standard error of the best. The simplest is the *largest* k,
    the smoothest average, so ``k_values`` are given largest first.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points.
    X_val, X_val_second : array-like of shape (n_points, n_features)
        Two noisy copies of the same validation points.
    k_values : sequence of int or None, default=None
        The candidates, decreasing, each at most n_samples; None tries
        those of 1000, 300, 100, 30, 10, 3, 1 up to n_samples.

    Returns
    -------
    k : int
        The chosen number of neighbours.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> centres = np.repeat([[0.0, 0.0], [5.0, 5.0]], 100, axis=0)
    >>> noisy = lambda A: A + 0.3 * rng.standard_normal(A.shape)
    >>> knn_best_k(noisy(centres), noisy(centres[::4]), noisy(centres[::4]), k_values=(150, 50, 1))
    50
    """
    X_fit, X_val = _check_points(X_fit, X_val)
    X_val_second = check_array(X_val_second, dtype=np.float64, input_name="X_val_second")
    if X_val_second.shape != X_val.shape:
        raise ValueError(f"X_val_second must have the shape of X_val {X_val.shape}, got {X_val_second.shape}.")
    if k_values is None:
        k_values = [k for k in (1000, 300, 100, 30, 10, 3, 1) if k <= X_fit.shape[0]]
    k_values = [int(k) for k in k_values]
    if not k_values or np.any(np.diff(k_values) >= 0):
        raise ValueError(f"k_values must be a non-empty decreasing sequence, got {k_values}.")
    errors = [np.sum((knn_average(X_fit, X_val, k) - X_val_second) ** 2, axis=1) for k in k_values]
    return k_values[one_standard_error_choice(errors)]
