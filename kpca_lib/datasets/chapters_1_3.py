"""Chapters 1-3: a noisy circle and images of a moving blob."""

import numpy as np
from sklearn.utils import Bunch, check_random_state

from .._validation import check_int, check_real

__all__ = ["noisy_circle", "blob_images"]


def noisy_circle(n_samples=200, radius=1.0, sigma=0.1, random_state=0):
    """Points on a circle plus isotropic Gaussian noise.

    The angles are drawn uniformly from [0, 2 pi); the clean points lie on the
    circle of the given radius around the origin, and the noisy points add
    Gaussian noise of standard deviation sigma to both coordinates. Chapters 1
    and 3 use it as the data set on which linear PCA fails.

    Parameters
    ----------
    n_samples : int, default=200
        Number of points n.
    radius : float, default=1.0
        Radius of the circle, > 0.
    sigma : float, default=0.1
        Noise standard deviation, >= 0.
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    data : sklearn.utils.Bunch
        With fields ``X`` (n_samples, 2), the noisy points; ``X_clean``
        (n_samples, 2), the points on the circle; and ``angle`` (n_samples,).

    Examples
    --------
    >>> import numpy as np
    >>> data = noisy_circle(n_samples=5, radius=2.0, sigma=0.0)
    >>> np.linalg.norm(data.X, axis=1).round(6)
    array([2., 2., 2., 2., 2.])
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    radius = check_real(radius, "radius", minimum=0, strict=True)
    sigma = check_real(sigma, "sigma", minimum=0)
    rng = check_random_state(random_state)

    angle = rng.uniform(0.0, 2.0 * np.pi, size=n_samples)
    X_clean = radius * np.column_stack([np.cos(angle), np.sin(angle)])
    X = X_clean + sigma * rng.standard_normal((n_samples, 2))
    return Bunch(X=X, X_clean=X_clean, angle=angle)


def blob_images(n_samples=200, side=32, width=0.15, sigma=0.0, random_state=0):
    """Square images of one Gaussian blob at a random position.

    Each image is ``exp(-||p - m||^2 / (2 width^2))`` over the pixel centres p
    of the unit square, with the blob centre m drawn uniformly from
    [0.2, 0.8]^2, plus Gaussian pixel noise of standard deviation sigma. The
    images have d = side^2 pixels but vary with two parameters only: the
    high-dimensional, few-samples data (d >> n) of chapter 2.

    Parameters
    ----------
    n_samples : int, default=200
        Number of images n.
    side : int, default=32
        Images are side x side pixels, so d = side ** 2.
    width : float, default=0.15
        Width of the blob, as a fraction of the image side, > 0.
    sigma : float, default=0.0
        Pixel noise standard deviation, >= 0.
    random_state : int, RandomState instance or None, default=0
        Seed.

    Returns
    -------
    data : sklearn.utils.Bunch
        With fields ``X`` (n_samples, side ** 2), the images as rows;
        ``centres`` (n_samples, 2), the blob centres; and ``side``.

    Examples
    --------
    >>> data = blob_images(n_samples=3, side=8)
    >>> data.X.shape, bool(data.X.max() <= 1.0)
    ((3, 64), True)
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    side = check_int(side, "side", minimum=1)
    width = check_real(width, "width", minimum=0, strict=True)
    sigma = check_real(sigma, "sigma", minimum=0)
    rng = check_random_state(random_state)

    centres = rng.uniform(0.2, 0.8, size=(n_samples, 2))
    grid = (np.arange(side) + 0.5) / side
    # separable blob: the row profile times the column profile, for every image at once
    rows = np.exp(-((grid[None, :] - centres[:, [0]]) ** 2) / (2 * width**2))
    cols = np.exp(-((grid[None, :] - centres[:, [1]]) ** 2) / (2 * width**2))
    X = (rows[:, :, None] * cols[:, None, :]).reshape(n_samples, side * side)
    X = X + sigma * rng.standard_normal(X.shape)
    return Bunch(X=X, centres=centres, side=side)
