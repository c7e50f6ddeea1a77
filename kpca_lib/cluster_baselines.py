"""The cluster baselines of de-noising: a point replaced by its cluster's centre.

Where kernel PCA's components are cluster indicators, these are the
sceptic's baselines:

* :func:`kmeans_denoise`: the centroid of the k-means cluster a point falls
  in (a hard clustering);
* :func:`gaussian_mixture_denoise`: the posterior mean of the cluster centre
  under a Gaussian mixture (a soft clustering);
* :func:`cluster_best_k`: the number of clusters of either, chosen on
  held-out data without clean data.

They are also importable from :mod:`kpca_lib.denoising_baselines`, where
they lived first.
"""

import numpy as np
from sklearn.cluster import KMeans
from sklearn.mixture import GaussianMixture
from sklearn.utils import check_array

from ._held_out import check_points as _check_points
from ._held_out import one_standard_error_choice
from ._threads import one_thread
from ._validation import check_int

__all__ = ["cluster_best_k", "gaussian_mixture_denoise", "kmeans_denoise"]


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
    with one_thread():  # its OpenMP threads only spin on a busy machine (_threads.one_thread)
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
    with one_thread():
        model = GaussianMixture(n_components=n_components, covariance_type="spherical",
                                random_state=random_state).fit(X_fit)
    return model.predict_proba(X) @ model.means_


def cluster_best_k(X_fit, X_val, X_val_second, k_values=(30, 20, 15, 11, 8, 5, 3), *, soft=False,
                   random_state=0):
    """The number of clusters of :func:`kmeans_denoise` (or the mixture), chosen without clean data.

    As :func:`~kpca_lib.denoising_baselines.knn_best_k`: de-noise ``X_val``
    with every number of clusters,
    score against the second noisy copy ``X_val_second``
    (``E||z - x''||^2 = E||z - x_clean||^2 + d sigma^2``), and keep the first
    candidate within one standard error of the best
    (:func:`~kpca_lib.denoising_baselines.one_standard_error_choice`), so the candidates are given in the
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
