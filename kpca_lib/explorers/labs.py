"""The book's labs that compute in the reader's browser, one function per lab.

Each function checks its arguments and returns a
:class:`~kpca_lib.explorers.browser.BrowserExplorer` holding the lab's
*input* data and its initial setting; the book's JavaScript
(``_static/kpca-lab-*.js``) computes everything else in the page, with the
same mathematics as the library (``tests/test_labs_in_browser.py`` compares
the two).
"""

import numpy as np
from sklearn.utils import check_array, check_random_state

from .._validation import check_int, check_real
from ..datasets.chapters_4_5 import _denoising_toy_draws
from .browser import BrowserExplorer
from .denoising import SIGMAS, check_trajectory_points
from .denoising_baselines import K_VALUES, KWOK_TSANG_NEIGHBORS, N_VALIDATION_PER_CLUSTER, validation_noise

__all__ = ["denoising_lab", "gram_spectrum_lab", "pca_lab"]

# the de-noising toy of Mika et al. (kpca_lib.datasets.denoising_toy's defaults)
_TOY = {"n_clusters": 11, "n_features": 2, "n_train_per_cluster": 100, "n_test_per_cluster": 33}
_MAX_COMPONENTS = 12
_MAX_ITER = 50
_N_TRAJECTORY_COLOURS = 7
_RULE_DIGITS = 12  # the page rounds 2 d sigma^2 to 12 significant digits


def _check_range(value, name):
    """A pair 0 < low < high of finite reals."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{name} must be a pair (low, high), got {name}={value!r}.")
    low = check_real(value[0], f"{name}[0]", minimum=0, strict=True)
    high = check_real(value[1], f"{name}[1]", minimum=low, strict=True)
    return low, high


def _width_rule(sigma, n_features):
    return float(f"{2 * n_features * sigma**2:.{_RULE_DIGITS}g}")


def denoising_lab(
    sigma=0.1,
    c=0.04,
    n_components=10,
    n_iter=30,
    *,
    width_rule=False,
    sigmas=SIGMAS,
    c_range=(1e-3, 10.0),
    trajectory_points=(0, 66, 132, 198, 264),
    random_state=0,
    title="De-noising lab: kernel PCA pre-images, computed in your browser",
):
    """Chapter 5's de-noising lab, computed in the reader's browser.

    The page draws the 2-D toy of :func:`kpca_lib.datasets.denoising_toy`
    (11 clusters, 1100 training and 363 test points) and de-noises the test
    points by the baselines of :mod:`kpca_lib.explorers.denoising_baselines`
    (the training mean, the nearest training point, the kNN average and
    linear PCA, k and q chosen in the page on noisy validation pairs; mean
    shift with the same c and iterations) and by kernel PCA with q of 12
    fitted components and the fixed-point iteration of Mika et al., as
    ``KernelPCA(12, Gaussian(c)).fit(X_train)``,
    :func:`~kpca_lib.preimage.gamma_weights` and
    :func:`~kpca_lib.preimage.gaussian_fixed_point` (tol 1e-6, 3 restarts)
    do; and the Kwok-Tsang pre-image of the same projections, with 10
    neighbours, as :func:`~kpca_lib.preimage_kwok_tsang.kwok_tsang`. Sliders: sigma on the grid ``sigmas``, c on a log scale over
    ``c_range`` (or c = 2 d sigma^2 with the width-rule toggle), q from 1
    to 12 and the iterations from 0 to 50. Beside the plane: the MSEs to the
    true centres, the fraction converged, and rho(z_t) and the step sizes
    along the trajectories of a few noisy starts and of the reader's clicks.

    Parameters
    ----------
    sigma : float, default=0.1
        Initial noise level, one of ``sigmas``.
    c : float, default=0.04
        Initial kernel width, in ``c_range``; with ``width_rule=True`` it
        must be 2 d sigma^2.
    n_components : int, default=10
        Initial q, 1 to 12.
    n_iter : int, default=30
        Initial number of iterations, 0 to 50.
    width_rule : bool, default=False
        Whether the toggle c = 2 d sigma^2 starts switched on.
    sigmas : sequence of float, default=SIGMAS
        The noise levels of the sigma slider, increasing, > 0; by default
        those of Mika et al., (0.05, 0.1, 0.2, 0.4, 0.8).
    c_range : pair of float, default=(1e-3, 10.0)
        Ends of the c slider, 0 < low < high.
    trajectory_points : sequence of int, default=(0, 66, 132, 198, 264)
        Test points (indices into ``X_test``) whose trajectories are drawn,
        1 to 7 of them; the first is the marked point that a click can
        restart.
    random_state : int, default=0
        Seed of the data, as for ``denoising_toy``.
    title : str
        Shown above the lab.

    Returns
    -------
    BrowserExplorer
        Display it in a notebook cell; the reset button of the page restores
        the setting given here.

    Examples
    --------
    >>> lab = denoising_lab()
    >>> lab.payload["settings"]
    {'c': 0.04, 'n_components': 10, 'n_iter': 30, 'sigma': 0.1, 'width_rule': False}
    >>> len(lab.payload["noise_train"]), len(lab.payload["noise_test"])
    (2200, 726)
    """
    sigmas, sigma = _check_sigmas(sigmas, sigma)
    c_min, c_max = _check_range(c_range, "c_range")
    c = check_real(c, "c", minimum=c_min, maximum=c_max)
    n_components = check_int(n_components, "n_components", minimum=1, maximum=_MAX_COMPONENTS)
    n_iter = check_int(n_iter, "n_iter", minimum=0, maximum=_MAX_ITER)
    if not isinstance(width_rule, bool):
        raise TypeError(f"width_rule must be True or False, got width_rule={width_rule!r}.")
    if width_rule and c != _width_rule(sigma, _TOY["n_features"]):
        raise ValueError(
            f"with width_rule=True, c must be 2 d sigma^2 = "
            f"{_width_rule(sigma, _TOY['n_features'])!r}, got c={c!r}."
        )
    payload = _toy_payload(random_state)
    payload.update(
        sigmas=sigmas,
        c_range=[c_min, c_max],
        max_components=_MAX_COMPONENTS,
        max_iter=_MAX_ITER,
        tol=1e-6,
        max_restarts=3,
        trajectory_points=_check_points_of_toy(trajectory_points),
        settings={
            "sigma": sigma, "c": c, "n_components": n_components, "n_iter": n_iter,
            "width_rule": width_rule,
        },
    )
    return BrowserExplorer("denoising", payload, title)


def _check_sigmas(sigmas, sigma):
    """The sigma grid (increasing, > 0) and the initial sigma, one of it."""
    if isinstance(sigmas, (str, bytes)) or not hasattr(sigmas, "__len__") or len(sigmas) == 0:
        raise TypeError(f"sigmas must be a non-empty sequence of numbers, got sigmas={sigmas!r}.")
    sigmas = [check_real(value, "sigmas[]", minimum=0, strict=True) for value in sigmas]
    if any(b <= a for a, b in zip(sigmas, sigmas[1:])):
        raise ValueError(f"sigmas must be increasing, got sigmas={sigmas!r}.")
    sigma = check_real(sigma, "sigma", minimum=0, strict=True)
    if sigma not in sigmas:
        raise ValueError(f"sigma must be one of sigmas={sigmas}, got sigma={sigma!r}.")
    return sigmas, sigma


def _check_points_of_toy(trajectory_points):
    """1 to 7 distinct indices of test points of the toy (one colour each)."""
    n_test = _TOY["n_clusters"] * _TOY["n_test_per_cluster"]
    points = list(check_trajectory_points(trajectory_points, n_test))
    if len(points) > _N_TRAJECTORY_COLOURS or len(set(points)) != len(points):
        raise ValueError(
            f"trajectory_points must be 1 to {_N_TRAJECTORY_COLOURS} distinct indices, "
            f"got {trajectory_points!r}."
        )
    return points


def _toy_payload(random_state):
    """The toy's centres and unit noise, which the page scales by sigma as denoising_toy does."""
    # an integer seed, not a generator: the page is sent the data it draws
    random_state = check_int(random_state, "random_state", minimum=0)
    n_train = _TOY["n_clusters"] * _TOY["n_train_per_cluster"]
    n_test = _TOY["n_clusters"] * _TOY["n_test_per_cluster"]
    centres, noise_train, noise_test = _denoising_toy_draws(
        check_random_state(random_state), _TOY["n_clusters"], _TOY["n_features"], n_train, n_test
    )
    return {
        "centres": centres.ravel(),
        "noise_train": noise_train.ravel(),
        "noise_test": noise_test.ravel(),
        "n_features": _TOY["n_features"],
        "n_train_per_cluster": _TOY["n_train_per_cluster"],
        "n_test_per_cluster": _TOY["n_test_per_cluster"],
        "random_state": random_state,
        # the baselines' validation pairs: unit noise of two copies of 11 points per cluster
        "validation_noise": validation_noise(random_state, _TOY["n_clusters"], _TOY["n_features"]).ravel(),
        "validation_per_cluster": N_VALIDATION_PER_CLUSTER,
        "knn_k_values": list(K_VALUES),
        # the Kwok-Tsang pre-image of the same projections as the fixed point
        "kwok_tsang_neighbors": KWOK_TSANG_NEIGHBORS,
    }


def _check_points(X, name, min_samples, max_samples, n_features=None):
    X = check_array(X, dtype=np.float64, input_name=name)
    if not min_samples <= X.shape[0] <= max_samples:
        raise ValueError(
            f"{name} must have between {min_samples} and {max_samples} samples (rows), "
            f"got {X.shape[0]}."
        )
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{name} must have {n_features} features (columns), got {X.shape[1]}.")
    return X


def gram_spectrum_lab(
    X,
    c=0.1,
    *,
    c_range=(1e-3, 1e2),
    title="Gram matrix and spectrum of the Gaussian kernel, computed in your browser",
):
    """Chapter 3's Gram-spectrum lab, computed in the reader's browser.

    For any width c on a log scale, the page computes the Gaussian Gram
    matrix ``K[i, j] = exp(-||x_i - x_j||^2 / c)`` of the points and all its
    eigenvalues (Householder and implicit QL), as
    :func:`kpca_lib.interactive.gram_spectrum` does, and draws K as an image
    beside the spectrum on a log scale.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points, 2 to 300 of them (order them, e.g. by cluster, to see
        blocks in K). All n eigenvalues cost O(n^3): about 0.1 s at 300.
    c : float, default=0.1
        Initial width, in ``c_range``.
    c_range : pair of float, default=(1e-3, 1e2)
        Ends of the c slider, 0 < low < high.
    title : str
        Shown above the lab.

    Returns
    -------
    BrowserExplorer

    Examples
    --------
    >>> lab = gram_spectrum_lab([[0.0, 0.0], [1.0, 0.0]], c=1.0)
    >>> lab.payload["X"], lab.payload["settings"]
    ([0.0, 0.0, 1.0, 0.0], {'c': 1.0})
    """
    X = _check_points(X, "X", 2, 300)
    c_min, c_max = _check_range(c_range, "c_range")
    c = check_real(c, "c", minimum=c_min, maximum=c_max)
    payload = {
        "X": X.ravel(),
        "n_features": X.shape[1],
        "c_range": [c_min, c_max],
        "settings": {"c": c},
    }
    return BrowserExplorer("gram-spectrum", payload, title)


def pca_lab(
    X,
    angle=30.0,
    *,
    title="PCA: the direction of largest variance, computed in your browser",
):
    """Chapter 1's PCA lab, computed in the reader's browser.

    The reader turns a unit vector ``w = (cos angle, sin angle)`` by a
    slider or by dragging on the plane. The page draws the projections of
    the centred points on w and their residuals, and shows the variance
    captured ``w^T C w`` and the reconstruction error
    ``(1/n) sum_i ||x~_i - w w^T x~_i||^2`` over every angle: they always sum
    to ``tr(C)``, so the largest variance is the smallest error. The
    principal axes ``w_1, w_2`` of ``C = X~^T X~ / n`` are drawn with length
    ``sqrt(lambda_k)``, as :class:`kpca_lib.PCA` finds them.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        A 2-D cloud, 3 to 2000 points.
    angle : float, default=30.0
        Initial angle of w in degrees, 0 <= angle < 180.
    title : str
        Shown above the lab.

    Returns
    -------
    BrowserExplorer

    Examples
    --------
    >>> lab = pca_lab([[0.0, 0.0], [1.0, 1.0], [2.0, 1.0]], angle=45)
    >>> lab.payload["settings"]
    {'angle': 45.0}
    """
    X = _check_points(X, "X", 3, 2000, n_features=2)
    angle = check_real(angle, "angle", minimum=0)
    if angle >= 180:
        raise ValueError(f"angle must be in degrees, 0 <= angle < 180, got angle={angle!r}.")
    payload = {"X": X.ravel(), "settings": {"angle": angle}}
    return BrowserExplorer("pca", payload, title)
