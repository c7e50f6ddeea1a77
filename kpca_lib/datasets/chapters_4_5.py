"""Chapters 4-5: concentric rings, and the Gaussian clusters of the de-noising toy."""

import numpy as np
from sklearn.utils import Bunch, check_random_state

from .._validation import check_int, check_real

__all__ = ["concentric_rings", "denoising_toy"]


def concentric_rings(
    n_samples_per_ring=100,
    radii=(1.0, 2.0, 3.0),
    noise=0.1,
    random_state=0,
):
    """Points on concentric circles in the plane, one class per ring.

    Each point is drawn at a uniform angle on its ring, then moved by
    isotropic Gaussian noise of standard deviation ``noise``. No linear
    projection separates the rings; a kernel that sees the radius does.

    Parameters
    ----------
    n_samples_per_ring : int, default=100
        Points per ring.
    radii : sequence of float, default=(1.0, 2.0, 3.0)
        The ring radii, each > 0; one ring per entry.
    noise : float, default=0.1
        Noise standard deviation, >= 0.
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    X : ndarray of shape (n_rings * n_samples_per_ring, 2)
        The points, ring by ring.
    y : ndarray of shape (n_rings * n_samples_per_ring,)
        The ring of each point, 0 for the innermost entry of ``radii``.

    Examples
    --------
    >>> X, y = concentric_rings(n_samples_per_ring=50, noise=0.0)
    >>> X.shape, y.shape
    ((150, 2), (150,))
    >>> np.linalg.norm(X, axis=1)[[0, 50, 100]].round(6)
    array([1., 2., 3.])
    """
    n_samples_per_ring = check_int(n_samples_per_ring, "n_samples_per_ring", minimum=1)
    radii = np.asarray(radii, dtype=np.float64)
    if radii.ndim != 1 or radii.size == 0 or not np.all(np.isfinite(radii)) or np.any(radii <= 0):
        raise ValueError(
            f"radii must be a non-empty sequence of positive numbers, got {radii!r}."
        )
    noise = check_real(noise, "noise", minimum=0)
    rng = check_random_state(random_state)

    y = np.repeat(np.arange(radii.size), n_samples_per_ring)
    angle = rng.uniform(0.0, 2.0 * np.pi, size=y.size)
    circle = np.column_stack([np.cos(angle), np.sin(angle)])
    X = radii[y, np.newaxis] * circle + noise * rng.standard_normal((y.size, 2))
    return X, y


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

    y_train = np.repeat(np.arange(n_clusters), n_train_per_cluster)
    y_test = np.repeat(np.arange(n_clusters), n_test_per_cluster)
    centres, noise_train, noise_test = _denoising_toy_draws(
        rng, n_clusters, n_features, y_train.size, y_test.size
    )
    return Bunch(
        X_train=centres[y_train] + sigma * noise_train,
        X_test=centres[y_test] + sigma * noise_test,
        y_train=y_train,
        y_test=y_test,
        centres=centres,
        X_test_clean=centres[y_test],
    )


def _denoising_toy_draws(rng, n_clusters, n_features, n_train, n_test):
    """The random draws of :func:`denoising_toy`, before scaling by sigma.

    The centres, then the standardised training and test noise, in this
    order. The browser's de-noising lab
    (:func:`kpca_lib.explorers.labs.denoising_lab`) is sent these and scales
    them itself, so that it computes on the same data as the library.
    """
    centres = rng.uniform(-1.0, 1.0, size=(n_clusters, n_features))
    noise_train = rng.standard_normal((n_train, n_features))
    noise_test = rng.standard_normal((n_test, n_features))
    return centres, noise_train, noise_test


def denoising_curve(
    n_features=2,
    sigma=0.1,
    n_train=600,
    n_test=200,
    n_validation=200,
    shape="circle",
    random_state=0,
):
    """Points on a closed curve plus Gaussian noise: a de-noising data set without clusters.

    The clean points lie on a curve in a plane: the unit circle, or the
    closed "flower" curve ``r(t) = 1 + 0.3 cos(5 t)`` (``shape="flower"``),
    at angles drawn uniformly. For ``n_features > 2`` the plane is a random
    two-dimensional subspace of R^d (an orthonormal frame from the QR
    factorisation of a Gaussian matrix), and the noise is isotropic in all d
    dimensions. Unlike :func:`denoising_toy`, no cluster model and no local
    average is the oracle: the clean point is the nearest point of a curve.

    Parameters
    ----------
    n_features : int, default=2
        The input dimension d >= 2.
    sigma : float, default=0.1
        Noise standard deviation per coordinate, >= 0.
    n_train, n_test, n_validation : int, default=600, 200, 200
        Numbers of training, test and (clean) validation points.
    shape : {"circle", "flower"}, default="circle"
        The curve.
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    data : sklearn.utils.Bunch
        With fields ``X_train`` and ``X_test`` (noisy), ``X_train_clean``,
        ``X_test_clean`` and ``X_validation_clean`` (points of the curve,
        for validation pairs), and ``frame`` (d, 2), the plane's orthonormal
        basis.

    Examples
    --------
    >>> import numpy as np
    >>> data = denoising_curve(n_features=10, sigma=0.0)
    >>> data.X_train.shape, bool(np.allclose(np.linalg.norm(data.X_train, axis=1), 1))
    ((600, 10), True)
    """
    n_features = check_int(n_features, "n_features", minimum=2)
    sigma = check_real(sigma, "sigma", minimum=0)
    n_train = check_int(n_train, "n_train", minimum=1)
    n_test = check_int(n_test, "n_test", minimum=1)
    n_validation = check_int(n_validation, "n_validation", minimum=1)
    if shape not in ("circle", "flower"):
        raise ValueError(f'shape must be "circle" or "flower", got {shape!r}.')
    rng = check_random_state(random_state)
    frame = np.linalg.qr(rng.standard_normal((n_features, 2)))[0]

    def on_curve(n):
        t = rng.uniform(0.0, 2 * np.pi, n)
        radius = np.ones(n) if shape == "circle" else 1.0 + 0.3 * np.cos(5 * t)
        return (radius[:, None] * np.column_stack([np.cos(t), np.sin(t)])) @ frame.T

    clean_train, clean_test, clean_validation = on_curve(n_train), on_curve(n_test), on_curve(n_validation)
    return Bunch(
        X_train=clean_train + sigma * rng.standard_normal(clean_train.shape),
        X_test=clean_test + sigma * rng.standard_normal(clean_test.shape),
        X_train_clean=clean_train,
        X_test_clean=clean_test,
        X_validation_clean=clean_validation,
        frame=frame,
    )
