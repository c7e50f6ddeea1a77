"""Chapter 5: de-noising the toy data of Mika et al. as sigma, c, q and the iterations move.

:class:`ToyDenoiser` is the pure computing (parameters -> arrays and
numbers), with a cache per (sigma, c) so that moving q or the iterations never
refits. Its drawing, :func:`~kpca_lib.explorers.denoising_view.draw_denoising`,
and the explorer made from it live in :mod:`kpca_lib.explorers.denoising_view`
(one module would pass the 400-line limit).
"""

import functools
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import Bunch, check_random_state
from threadpoolctl import threadpool_limits

from .. import datasets, denoising_baselines, preimage
from .._validation import check_int, check_real
from ..kernel_pca import KernelPCA
from ..kernels import Gaussian
from .denoising_baselines import KWOK_TSANG_NEIGHBORS, baseline_label, toy_baselines, validation_noise

__all__ = [
    "mean_squared_distance",
    "DenoisingState",
    "ToyDenoiser",
    "SIGMAS",
]

# the noise levels of Mika et al. (1999), Table 1
SIGMAS = (0.05, 0.1, 0.2, 0.4, 0.8)


def mean_squared_distance(Z, X_clean):
    """Mean over points of the squared distance between two point sets.

    Parameters
    ----------
    Z : array-like of shape (n_points, n_features)
        De-noised points.
    X_clean : array-like of shape (n_points, n_features)
        The true (noise-free) points, row by row.

    Returns
    -------
    float
        ``mean_i ||z_i - x_i||^2``.

    Examples
    --------
    >>> mean_squared_distance(np.array([[0.0, 1.0], [2.0, 0.0]]), np.zeros((2, 2)))
    2.5
    """
    Z = np.asarray(Z, dtype=np.float64)
    X_clean = np.asarray(X_clean, dtype=np.float64)
    if Z.shape != X_clean.shape:
        raise ValueError(
            f"Z and X_clean must have the same shape, got {Z.shape} and {X_clean.shape}."
        )
    return float(np.mean(np.sum((Z - X_clean) ** 2, axis=1)))


@dataclass
class DenoisingState:
    """What the de-noising widget draws for one choice of the sliders.

    Attributes
    ----------
    sigma, c : float
        Noise level of the data and width of the Gaussian kernel.
    n_components : int
        Components q used by kernel PCA.
    max_iter : int
        Fixed-point iterations at most (0: the pre-images are the starts).
    X_train, X_test, X_test_clean : ndarray
        The training points, the noisy test points and their true centres.
    Z_linear, Z_kernel : ndarray of shape (n_test, n_features)
        The test points de-noised by linear PCA at its held-out q
        (``linear_q``) and by kernel PCA.
    mse_linear, mse_kernel : float
        Mean squared distance of each de-noised set to the true centres.
    ratio : float
        ``mse_linear / mse_kernel``, the quantity of Table 1 of Mika et al.
    linear_q, n_neighbors : int
        The held-out q of linear PCA and k of the kNN average
        (:mod:`kpca_lib.explorers.denoising_baselines`).
    Z_mean_shift : ndarray of shape (n_test, n_features)
        Mean shift (every gamma_i = 1/n) from the noisy points, with the
        same c and the same number of iterations as kernel PCA.
    mse_baselines : dict
        Mean squared distance to the true centres of every baseline (noisy
        points, training mean, nearest training point, kNN average, linear
        PCA, mean shift), by its label.
    Z_kwok_tsang : ndarray of shape (n_test, n_features)
        The Kwok-Tsang pre-images of the projections of ``Z_kernel``, as
        ``KernelPCA.denoise(method="kwok_tsang")`` (chapter 5's 2-D table).
    mse_kwok_tsang, kwok_tsang_neighbors : float, int
        Their mean squared distance to the true centres; their neighbours.
    converged_fraction : float
        Fraction of kernel PCA pre-images that met the convergence test
        within ``max_iter`` iterations.
    trajectory_point : ndarray of shape (n_features,)
        The noisy test point whose pre-image the convergence plot follows.
    trajectories : ndarray of shape (max_iter + 1, n_starts, n_features)
        Iterates ``z_0, z_1, ...`` of that point's pre-image from random
        starts; a start that has stopped keeps its last value.
    rho : ndarray of shape (max_iter + 1, n_starts)
        The objective ``rho(z_t)`` along each trajectory.
    noisy_trajectories : ndarray of shape (max_iter + 1, n_points, n_features)
        Iterates ``z_0 = x, z_1, ...`` of the pre-images of the test points
        ``X_test[trajectory_indices]`` from their noisy starts: the
        iteration de-noising uses. A point that has stopped keeps its value.
    noisy_rho : ndarray of shape (max_iter + 1, n_points)
        ``rho(z_t)`` along each of them, each with its own weights gamma.
    trajectory_indices : tuple of int
        The test points of ``noisy_trajectories``.
    """

    sigma: float
    c: float
    n_components: int
    max_iter: int
    X_train: np.ndarray
    X_test: np.ndarray
    X_test_clean: np.ndarray
    Z_linear: np.ndarray
    Z_kernel: np.ndarray
    mse_linear: float
    mse_kernel: float
    ratio: float
    linear_q: int
    n_neighbors: int
    Z_mean_shift: np.ndarray
    mse_baselines: dict
    Z_kwok_tsang: np.ndarray
    mse_kwok_tsang: float
    kwok_tsang_neighbors: int
    converged_fraction: float
    trajectory_point: np.ndarray
    trajectories: np.ndarray
    rho: np.ndarray
    noisy_trajectories: np.ndarray
    noisy_rho: np.ndarray
    trajectory_indices: tuple


class ToyDenoiser:
    """Pure computing of the de-noising widget, with a cache per (sigma, c).

    The data set (:func:`kpca_lib.datasets.denoising_toy`), the kernel PCA
    fit with ``max_components`` components and the projections of the test
    points depend only on the noise level sigma and the kernel width c. They
    are computed once per pair and kept, so that moving the component-count
    or iteration slider costs only the fixed-point iteration: one fit serves
    every q through ``gamma_weights(alphas_[:, :q], Y[:, :q])``.

    Parameters
    ----------
    n_features : int, default=2
        Input dimension d of the toy data.
    n_test_per_cluster : int, default=33
        Test points de-noised per cluster: 33 (363 points) as in the toy of
        Mika et al. A slider move stays under 50 ms at 30 iterations (see
        ``benchmarks/bench_interactive.py``). The training set (100 per
        cluster) is always the toy's.
    max_components : int, default=9
        Components fitted per (sigma, c); the largest q :meth:`compute`
        accepts.
    n_starts : int, default=6
        Random starts of the convergence plot.
    cache_size : int, default=16
        (sigma, c) pairs kept; the least recently used is dropped first.
    random_state : int, default=0
        Seed of the data and of the random starts.
    tol : float, default=1e-6
        Convergence tolerance of the fixed-point iteration.
    trajectory_points : sequence of int or None, default=None
        Test points whose iterates from their noisy starts are recorded.
        ``None``: the first test point of clusters 0, 2, 4, 6 and 8, which
        is (0, 66, 132, 198, 264) with 33 test points per cluster, as in
        the browser lab.

    Attributes
    ----------
    n_fits_ : int
        How many kernel PCA fits have been computed (cache misses).

    Examples
    --------
    >>> denoiser = ToyDenoiser(max_components=4)
    >>> state = denoiser.compute(sigma=0.1, c=0.04, n_components=4, max_iter=30)
    >>> state = denoiser.compute(sigma=0.1, c=0.04, n_components=2, max_iter=10)
    >>> denoiser.n_fits_
    1
    >>> state.Z_kernel.shape
    (363, 2)
    """

    def __init__(
        self,
        n_features=2,
        n_test_per_cluster=33,
        max_components=9,
        n_starts=6,
        cache_size=16,
        random_state=0,
        tol=1e-6,
        trajectory_points=None,
    ):
        self.n_features = check_int(n_features, "n_features", minimum=1)
        self.n_test_per_cluster = check_int(n_test_per_cluster, "n_test_per_cluster", minimum=1)
        self.max_components = check_int(max_components, "max_components", minimum=1)
        self.n_starts = check_int(n_starts, "n_starts", minimum=1)
        self.cache_size = check_int(cache_size, "cache_size", minimum=1)
        self.random_state = check_int(random_state, "random_state", minimum=0)
        self.tol = check_real(tol, "tol", minimum=0)
        per_cluster = self.n_test_per_cluster
        n_test = 11 * per_cluster  # denoising_toy's 11 clusters
        if trajectory_points is None:  # the first point of clusters 0, 2, 4, 6, 8
            trajectory_points = tuple(range(0, 10 * per_cluster, 2 * per_cluster))
        self.trajectory_points = check_trajectory_points(trajectory_points, n_test)
        # least recently used (sigma, c) pairs are dropped first
        self._fit_cached = functools.lru_cache(maxsize=self.cache_size)(self._fit)
        self._mean_shift_cached = functools.lru_cache(maxsize=4 * self.cache_size)(self._mean_shift)
        self._kwok_tsang_cached = functools.lru_cache(maxsize=4 * self.cache_size)(self._kwok_tsang)
        self.n_fits_ = 0

    def fitted(self, sigma, c):
        """The data and the fits for one (sigma, c), from the cache if there.

        Returns
        -------
        sklearn.utils.Bunch
            ``data`` (the Bunch of ``denoising_toy``), ``kpca`` (the fitted
            :class:`~kpca_lib.KernelPCA`), ``Y`` (the projections of the
            test points on every fitted component), ``baselines`` (the
            held-out k and q and the baselines' pre-images, from
            :func:`~kpca_lib.explorers.denoising_baselines.toy_baselines`)
            and ``starts`` (the random starts of the convergence plot).
        """
        sigma = check_real(sigma, "sigma", minimum=0, strict=True)
        c = check_real(c, "c", minimum=0, strict=True)
        return self._fit_cached(sigma, c)

    def _fit(self, sigma, c):
        self.n_fits_ += 1
        data = datasets.denoising_toy(
            n_features=self.n_features,
            sigma=sigma,
            n_test_per_cluster=self.n_test_per_cluster,
            random_state=self.random_state,
        )
        with threadpool_limits(limits=1, user_api="blas"):
            # Lanczos: a few components of a 1100 x 1100 matrix, whatever q
            # arrays whatever the caller's set_output: the slider slices them
            kpca = KernelPCA(
                n_components=self.max_components, kernel=Gaussian(c=c), eigen_solver="arpack"
            ).set_output(transform="default")
            kpca.fit(data.X_train)
            Y = kpca.transform(data.X_test)
        noise = validation_noise(self.random_state, data.centres.shape[0], self.n_features)
        chosen = toy_baselines(data, sigma, noise)
        # starts drawn uniformly over the box that holds the training data
        rng = check_random_state(self.random_state)
        low, high = data.X_train.min(axis=0), data.X_train.max(axis=0)
        starts = rng.uniform(low, high, size=(self.n_starts, self.n_features))

        return Bunch(data=data, kpca=kpca, Y=Y, baselines=chosen, starts=starts)

    def _mean_shift(self, sigma, c, max_iter):
        """Mean shift of the test points, every iterate up to max_iter: it depends on neither q nor t."""
        data = self.fitted(sigma, c).data
        with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
            warnings.simplefilter("ignore", ConvergenceWarning)
            return denoising_baselines.mean_shift(data.X_train, data.X_test, c, max_iter=max_iter, tol=self.tol,
                                                  return_history=True)[1]

    def _kwok_tsang(self, sigma, c, q):
        """Kwok-Tsang pre-images of the test points with q components: they depend on neither t nor the starts."""
        fitted = self.fitted(sigma, c)
        with threadpool_limits(limits=1, user_api="blas"):
            return fitted.kpca.denoise(fitted.data.X_test, n_components=q, method="kwok_tsang",
                                       n_neighbors=KWOK_TSANG_NEIGHBORS)

    def compute(self, sigma, c, n_components, max_iter):
        """De-noise the test points for one setting of the sliders.

        Parameters
        ----------
        sigma : float
            Noise level of the toy data, > 0.
        c : float
            Gaussian kernel width, > 0.
        n_components : int
            Components q, 1 <= q <= ``max_components``.
        max_iter : int
            Fixed-point iterations at most, >= 0 (0: the pre-images are
            the noisy points, where the iteration starts).

        Returns
        -------
        DenoisingState
            Arrays and numbers for the de-noising plot, the convergence
            plot and the mean squared distances.
        """
        fitted = self.fitted(sigma, c)
        q = check_int(n_components, "n_components", minimum=1, maximum=self.max_components)
        max_iter = check_int(max_iter, "max_iter", minimum=0)
        data, kpca = fitted.data, fitted.kpca

        gamma = preimage.gamma_weights(kpca.alphas_[:, :q], fitted.Y[:, :q])
        # short runs are the point of the iteration slider: report the
        # converged fraction instead of the warning. The products here have
        # an inner dimension of d = 2, where BLAS threads cost more than
        # they save (measured: 4x slower with two busy cores), hence one.
        with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
            warnings.simplefilter("ignore", ConvergenceWarning)
            result = preimage.gaussian_fixed_point(
                kpca.X_fit_, gamma, kpca.kernel.c, data.X_test, max_iter=max_iter, tol=self.tol
            )
            # the convergence plots: the first test point from random starts,
            # and a few test points from their noisy starts
            trajectory = preimage.gaussian_fixed_point(
                kpca.X_fit_, np.repeat(gamma[:1], self.n_starts, axis=0), kpca.kernel.c,
                fitted.starts, max_iter=max_iter, tol=self.tol, return_history=True,
            )
            points = list(self.trajectory_points)
            noisy = preimage.gaussian_fixed_point(
                kpca.X_fit_, gamma[points], kpca.kernel.c, data.X_test[points],
                max_iter=max_iter, tol=self.tol, return_history=True,
            )
        trajectories, rho = _pad_history(trajectory.Z_history, trajectory.rho_history, max_iter)
        noisy_trajectories, noisy_rho = _pad_history(noisy.Z_history, noisy.rho_history, max_iter)

        chosen = fitted.baselines
        # one run to the iteration slider's end (50) serves every t of it
        history = self._mean_shift_cached(float(sigma), float(c), max(max_iter, 50))
        Z_mean_shift = history[min(max_iter, len(history) - 1)]
        mse_baselines = {
            baseline_label(name, chosen): mean_squared_distance(Z, data.X_test_clean)
            for name, Z in {**chosen.Z, "mean shift": Z_mean_shift}.items()
        }
        Z_kwok_tsang = self._kwok_tsang_cached(float(sigma), float(c), q)
        Z_linear = chosen.Z["linear PCA"]
        mse_linear = mean_squared_distance(Z_linear, data.X_test_clean)
        mse_kernel = mean_squared_distance(result.Z, data.X_test_clean)
        return DenoisingState(
            sigma=float(sigma), c=float(c), n_components=q, max_iter=max_iter,
            X_train=data.X_train, X_test=data.X_test, X_test_clean=data.X_test_clean,
            Z_linear=Z_linear, Z_kernel=result.Z, mse_linear=mse_linear, mse_kernel=mse_kernel,
            ratio=mse_linear / mse_kernel if mse_kernel > 0 else np.inf,
            linear_q=chosen.linear_q, n_neighbors=chosen.n_neighbors,
            Z_mean_shift=Z_mean_shift, mse_baselines=mse_baselines, Z_kwok_tsang=Z_kwok_tsang,
            mse_kwok_tsang=mean_squared_distance(Z_kwok_tsang, data.X_test_clean),
            kwok_tsang_neighbors=KWOK_TSANG_NEIGHBORS,
            converged_fraction=float(np.mean(result.converged)),
            trajectory_point=data.X_test[0], trajectories=trajectories, rho=rho,
            noisy_trajectories=noisy_trajectories, noisy_rho=noisy_rho,
            trajectory_indices=self.trajectory_points,
        )

    def clear_cache(self):
        """Forget every (sigma, c) fit."""
        self._fit_cached.cache_clear()
        self._mean_shift_cached.cache_clear()
        self._kwok_tsang_cached.cache_clear()


def check_trajectory_points(trajectory_points, n_test):
    """1 or more indices of test points (of ``n_test``) whose iterations are followed.

    Returns
    -------
    tuple of int
    """
    if isinstance(trajectory_points, (str, bytes)) or not hasattr(trajectory_points, "__len__"):
        raise TypeError(
            f"trajectory_points must be a sequence of indices, got {trajectory_points!r}."
        )
    points = tuple(check_int(i, "trajectory_points[]", minimum=0) for i in trajectory_points)
    if not points or max(points) >= n_test:
        raise ValueError(
            f"trajectory_points must be 1 or more indices below {n_test} (the test points), "
            f"got {trajectory_points!r}."
        )
    return points


def _pad_history(Z_history, rho_history, max_iter):
    """Repeat the last iterate so that every history has max_iter + 1 rows."""
    missing = max_iter + 1 - Z_history.shape[0]
    if missing > 0:
        Z_history = np.concatenate([Z_history, np.repeat(Z_history[-1:], missing, axis=0)])
        rho_history = np.concatenate([rho_history, np.repeat(rho_history[-1:], missing, axis=0)])
    return Z_history, rho_history
