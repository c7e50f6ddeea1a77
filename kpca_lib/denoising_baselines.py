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
  and back, with q chosen on held-out data by :func:`linear_pca_best_q`;
* :func:`kmeans_denoise`: the centroid of the k-means cluster a point falls
  in (a hard clustering), and :func:`gaussian_mixture_denoise`: the
  posterior mean of the cluster centre under a Gaussian mixture (a soft
  clustering), the number of clusters chosen on held-out data by
  :func:`cluster_best_k`. Where kernel PCA's components are cluster
  indicators, these are the sceptic's baselines.

The noisy input itself is the first baseline: an estimate must beat ``X``.
:func:`one_standard_error_choice` is the held-out rule of chapter 5 (a paired
variant of the one-standard-error rule), which needs no clean data: it
scores against a second, independent noisy copy of each validation point.
"""

import warnings

import numpy as np
from scipy.special import softmax
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances
from sklearn.mixture import GaussianMixture
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_array

from ._threads import blas_controller
from ._validation import check_int, check_real

__all__ = [
    "monte_carlo_sure",
    "cluster_best_k",
    "gaussian_mixture_denoise",
    "kmeans_denoise",
    "knn_average",
    "knn_best_k",
    "linear_pca_best_q",
    "linear_pca_denoise",
    "mean_shift",
    "nearest_training_point",
    "one_standard_error_choice",
    "training_mean",
]


def _check_points(X_fit, X):
    X_fit = check_array(X_fit, dtype=np.float64, input_name="X_fit")
    X = check_array(X, dtype=np.float64, input_name="X")
    if X.shape[1] != X_fit.shape[1]:
        raise ValueError(f"X must have {X_fit.shape[1]} features like X_fit, got {X.shape[1]}.")
    return X_fit, X


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


def one_standard_error_choice(errors):
    """Index of the simplest setting within one standard error of the best.

    The held-out rule of chapter 5, a paired variant of the one-standard-error
    rule of Hastie et al. (2009): with ``e_s`` the errors of setting s on the
    validation points and ``s*`` the setting of least mean error, keep s if

        mean(e_s - e_{s*}) <= sd(e_s - e_{s*}) / sqrt(m),

    and return the first kept one: order the settings simplest first.

    Parameters
    ----------
    errors : array-like of shape (n_settings, n_points)
        One error per setting and validation point (m >= 2 points), e.g. the
        squared distance of each de-noised point to a second, independent
        noisy copy of it: no clean data needed.

    Returns
    -------
    index : int
        The chosen row.

    Examples
    --------
    >>> one_standard_error_choice([[1.0, 1.3, 0.8], [0.9, 1.0, 0.9], [3.0, 3.0, 3.0]])
    0
    """
    errors = check_array(errors, dtype=np.float64, input_name="errors")
    if errors.shape[1] < 2:
        raise ValueError(f"errors needs at least 2 validation points (columns), got {errors.shape[1]}.")
    best = np.argmin(errors.mean(axis=1))
    excess = errors - errors[best]
    standard_error = excess.std(axis=1, ddof=1) / np.sqrt(errors.shape[1])
    return int(np.flatnonzero(excess.mean(axis=1) <= standard_error)[0])


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


def kmeans_denoise(X_fit, X, n_clusters, *, random_state=0):
    """Replace every point by the centroid of its k-means cluster.

    k-means (scikit-learn's :class:`~sklearn.cluster.KMeans`, 4 restarts of
    k-means++) is fitted to the noisy training points; each point of ``X``
    goes to the centroid nearest to it. A hard clustering followed by
    averaging within the cluster.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points.
    X : array-like of shape (n_points, n_features)
        The noisy points.
    n_clusters : int
        Number of clusters, 1 <= n_clusters <= n_samples.
    random_state : int, default=0
        Seed of k-means++.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        The centroid of each point's cluster.

    Examples
    --------
    >>> import numpy as np
    >>> X_fit = np.array([[0.0], [0.2], [5.0], [5.4]])
    >>> kmeans_denoise(X_fit, [[0.3], [4.0]], n_clusters=2).round(6)
    array([[0.1],
           [5.2]])
    """
    X_fit, X = _check_points(X_fit, X)
    n_clusters = check_int(n_clusters, "n_clusters", minimum=1, maximum=X_fit.shape[0])
    # one thread: k-means on a few thousand points gains nothing from more, and its OpenMP threads
    # spin for many times the work on a machine whose cores are busy
    with blas_controller().limit(limits=1):
        model = KMeans(n_clusters=n_clusters, n_init=4, random_state=random_state).fit(X_fit)
    return model.cluster_centers_[model.predict(X)]


def gaussian_mixture_denoise(X_fit, X, n_components, *, random_state=0):
    """Posterior mean of the cluster centre under a Gaussian mixture: a soft clustering.

    A mixture of ``n_components`` spherical Gaussians (scikit-learn's
    :class:`~sklearn.mixture.GaussianMixture`, initialised by k-means) is
    fitted to the noisy training points, and each point becomes

        z = sum_k P(k | x) mu_k,

    the centres weighted by the posterior probability that x belongs to
    each: the soft version of :func:`kmeans_denoise`.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points.
    X : array-like of shape (n_points, n_features)
        The noisy points.
    n_components : int
        Number of mixture components, 1 <= n_components <= n_samples.
    random_state : int, default=0
        Seed of the k-means initialisation.

    Returns
    -------
    Z : ndarray of shape (n_points, n_features)
        The posterior mean of each point's centre.

    Examples
    --------
    >>> import numpy as np
    >>> X_fit = np.array([[0.0], [0.2], [5.0], [5.4]])
    >>> gaussian_mixture_denoise(X_fit, [[0.3], [4.0]], n_components=2).round(6)
    array([[0.1],
           [5.2]])
    """
    X_fit, X = _check_points(X_fit, X)
    n_components = check_int(n_components, "n_components", minimum=1, maximum=X_fit.shape[0])
    with blas_controller().limit(limits=1):
        model = GaussianMixture(n_components=n_components, covariance_type="spherical",
                                random_state=random_state).fit(X_fit)
    return model.predict_proba(X) @ model.means_


def cluster_best_k(X_fit, X_val, X_val_second, k_values=(30, 20, 15, 11, 8, 5, 3), *, soft=False,
                   random_state=0):
    """The number of clusters of :func:`kmeans_denoise` (or the mixture), chosen without clean data.

    As :func:`knn_best_k`: de-noise ``X_val`` with every number of clusters,
    score against the second noisy copy ``X_val_second``
    (``E||z - x''||^2 = E||z - x_clean||^2 + d sigma^2``), and keep the first
    candidate within one standard error of the best
    (:func:`one_standard_error_choice`), so the candidates are given in the
    order of preference.

    Parameters
    ----------
    X_fit : array-like of shape (n_samples, n_features)
        The training points.
    X_val, X_val_second : array-like of shape (n_points, n_features)
        Two noisy copies of the same validation points.
    k_values : sequence of int, default=(30, 20, 15, 11, 8, 5, 3)
        The candidates, each at most n_samples, in the order of preference.
    soft : bool, default=False
        Score :func:`gaussian_mixture_denoise` instead of k-means.
    random_state : int, default=0
        Seed of the clusterings.

    Returns
    -------
    k : int
        The chosen number of clusters.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> centres = np.repeat([[0.0, 0.0], [5.0, 5.0], [0.0, 5.0]], 30, axis=0)
    >>> noisy = lambda: centres + 0.3 * rng.standard_normal(centres.shape)
    >>> cluster_best_k(noisy(), noisy(), noisy(), k_values=(6, 3, 2, 1))
    3
    """
    X_fit, X_val = _check_points(X_fit, X_val)
    X_val_second = check_array(X_val_second, dtype=np.float64, input_name="X_val_second")
    if X_val_second.shape != X_val.shape:
        raise ValueError(f"X_val_second must have the shape of X_val {X_val.shape}, got {X_val_second.shape}.")
    k_values = [int(k) for k in k_values]
    if not k_values:
        raise ValueError("k_values must be a non-empty sequence of numbers of clusters.")
    denoiser = gaussian_mixture_denoise if soft else kmeans_denoise
    errors = [np.sum((denoiser(X_fit, X_val, k, random_state=random_state) - X_val_second) ** 2, axis=1)
              for k in k_values]
    return k_values[one_standard_error_choice(errors)]


def monte_carlo_sure(denoiser, X, sigma, *, epsilon=None, random_state=0):
    """Stein's unbiased risk estimate of a de-noiser from one noisy copy (Monte-Carlo SURE).

    For ``x = x_clean + e`` with Gaussian noise ``e ~ N(0, sigma^2 I)`` in d
    dimensions and a weakly differentiable de-noiser f (Stein, 1981),

        E ||f(x) - x_clean||^2 = E [ ||f(x) - x||^2 - d sigma^2 + 2 sigma^2 div f(x) ],

    so the bracket, computable without the clean point, estimates the clean
    error. The divergence is estimated as Ramani, Blu & Unser (2008) do, from
    one more evaluation of the de-noiser per point: with b a standard normal
    vector, ``div f(x) ~ b . (f(x + epsilon b) - f(x)) / epsilon``. It needs
    the noise level and evaluations of f only; f must be a function of each
    point alone (fitted without the points it de-noises) and smooth enough
    for a finite difference.

    Parameters
    ----------
    denoiser : callable
        Maps an array of shape (n_points, n_features) to one of the same
        shape, point by point.
    X : array-like of shape (n_points, n_features)
        The noisy points, one copy each.
    sigma : float
        The noise's standard deviation per coordinate, sigma > 0.
    epsilon : float or None, default=None
        The finite-difference step; None uses ``0.01 * sigma``.
    random_state : int, default=0
        Seed of the probe vectors b.

    Returns
    -------
    sure : ndarray of shape (n_points,)
        One estimate of ``||f(x) - x_clean||^2`` per point; their mean
        estimates the mean squared error.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(20000, 3))
    >>> # doing nothing has error d sigma^2 = 3 * 0.5^2 = 0.75, whatever the data
    >>> bool(abs(monte_carlo_sure(lambda A: A, X, sigma=0.5).mean() - 0.75) < 0.02)
    True
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    sigma = check_real(sigma, "sigma", minimum=0, strict=True)
    epsilon = 0.01 * sigma if epsilon is None else check_real(epsilon, "epsilon", minimum=0, strict=True)
    if not callable(denoiser):
        raise TypeError(f"denoiser must be callable, got {type(denoiser).__name__}.")
    b = np.random.default_rng(random_state).standard_normal(X.shape)
    Z = np.asarray(denoiser(X), dtype=np.float64)
    if Z.shape != X.shape:
        raise ValueError(f"denoiser must return the shape of X {X.shape}, got {Z.shape}.")
    Z_moved = np.asarray(denoiser(X + epsilon * b), dtype=np.float64)
    divergence = np.sum(b * (Z_moved - Z), axis=1) / epsilon
    d = X.shape[1]
    return np.sum((Z - X) ** 2, axis=1) - d * sigma**2 + 2 * sigma**2 * divergence
