"""The computing behind the book's widgets, kept apart from drawing and wiring.

Each widget of the book is three pieces: a pure computation (parameters ->
arrays and numbers) that lives here and that the tests call directly; a
drawing function (here or in :mod:`kpca_lib.plotting`); and the ipywidgets
wiring. ipywidgets is imported only inside the wiring functions. Sections
below are independent of each other, one per widget, in the book's order.
"""

import warnings
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigvalsh
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import NearestCentroid
from sklearn.utils import Bunch, check_array, check_random_state
from threadpoolctl import threadpool_limits

from . import datasets, preimage
from ._validation import check_int, check_real
from .datasets import planted_topics
from .kernel_pca import KernelPCA
from .kernels import Gaussian
from .pca import PCA
from .sparse_pca import SparsePCA

__all__ = [
    "gram_spectrum",
    "gram_spectrum_widget",
    "rings_components",
    "DenoisingExplorer",
    "DenoisingState",
    "mean_squared_distance",
    "sparse_pca_topics",
]


# ---------------------------------------------------------------------------
# Chapter 3: Gram matrix and eigenvalue spectrum of the Gaussian kernel
# ---------------------------------------------------------------------------


def gram_spectrum(X, c):
    """Gaussian Gram matrix of X and its eigenvalues, largest first.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows.
    c : float
        Width of the Gaussian kernel ``exp(-||x - y||^2 / c)``, > 0.

    Returns
    -------
    K : ndarray of shape (n_samples, n_samples)
        The Gram matrix ``K[i, j] = exp(-||x_i - x_j||^2 / c)``.
    eigenvalues : ndarray of shape (n_samples,)
        The eigenvalues of K in descending order. They are >= 0 up to
        round-off (the Gaussian kernel is PSD) and sum to ``trace(K) = n``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> K, eigenvalues = gram_spectrum(X, c=1.0)
    >>> K.round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    >>> eigenvalues.round(4)
    array([1.3679, 0.6321])
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    c = check_real(c, "c", minimum=0, strict=True)
    K = Gaussian(c=c)(X)
    eigenvalues = eigvalsh(K)[::-1]
    return K, eigenvalues


def gram_spectrum_widget(X, c_min=1e-3, c_max=1e2, c=1.0):
    """A slider for the width c that redraws the Gram matrix and its spectrum.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows; order them (e.g. by cluster) to see blocks in K.
    c_min, c_max : float, default=1e-3, 1e2
        Range of the logarithmic slider, 0 < c_min < c_max.
    c : float, default=1.0
        Initial width.

    Returns
    -------
    widget : ipywidgets.VBox
        The slider above the figure; display it in a notebook.

    Examples
    --------
    >>> import numpy as np
    >>> widget = gram_spectrum_widget(np.eye(3))  # doctest: +SKIP
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .plotting import plot_gram_spectrum

    c_min = check_real(c_min, "c_min", minimum=0, strict=True)
    c_max = check_real(c_max, "c_max", minimum=c_min, strict=True)
    c = check_real(c, "c", minimum=c_min)
    X = check_array(X, dtype=np.float64, input_name="X")
    slider = widgets.FloatLogSlider(
        value=c, base=10, min=np.log10(c_min), max=np.log10(c_max), step=0.05,
        description="c", continuous_update=False, readout_format=".3g",
    )
    output = widgets.Output()

    def redraw(change=None):
        K, eigenvalues = gram_spectrum(X, slider.value)
        with output:
            output.clear_output(wait=True)
            fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
            plot_gram_spectrum(K, eigenvalues, axes, title=f"c = {slider.value:.3g}")
            plt.show()

    slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([slider, output])


# ---------------------------------------------------------------------------
# Chapter 4: kernel PCA of the concentric rings (kernel width c, component q)
# ---------------------------------------------------------------------------


def rings_components(c, n_components, n_grid=50, random_state=0):
    """Kernel PCA of three noisy rings: projections and one component's map.

    Parameters
    ----------
    c : float
        Width of the Gaussian kernel ``exp(-||x - y||^2 / c)``, > 0.
    n_components : int
        The component q to map over the plane (1-based), 1 <= q <= 20; the
        projections on components 1 .. max(q, 2) are returned.
    n_grid : int, default=50
        Grid points per axis of the map.
    random_state : int, default=0
        Seed of :func:`kpca_lib.datasets.concentric_rings`.

    Returns
    -------
    result : sklearn.utils.Bunch
        ``X``, ``y`` (the rings, 100 points each, radii 1, 2, 3, noise
        0.1); ``Z`` (n, max(q, 2)), the projections; ``grid_x``, ``grid_y``
        and ``component_map`` (n_grid, n_grid), the projection of every grid point
        on component q; ``explained`` the share of the centred kernel
        matrix's trace in the first q eigenvalues; ``accuracy`` of a
        nearest-centroid classifier of the rings on the first q projections
        (trained and scored on the same points: a separability score).

    Examples
    --------
    >>> result = rings_components(c=1.0, n_components=2, n_grid=10)
    >>> result.Z.shape, result.component_map.shape
    ((300, 2), (10, 10))
    """
    c = check_real(c, "c", minimum=0, strict=True)
    q = check_int(n_components, "n_components", minimum=1)
    if q > 20:
        raise ValueError(f"n_components must be at most 20, got n_components={q}.")
    n_grid = check_int(n_grid, "n_grid", minimum=2)
    X, y = datasets.concentric_rings(100, noise=0.1, random_state=random_state)
    kpca = KernelPCA(n_components=max(q, 2), kernel=Gaussian(c=c)).fit(X)
    Z = kpca.alphas_ * kpca.eigenvalues_  # projections of the training points
    # the trace of the centred kernel matrix is the total variance (times n)
    K_centred = kpca.centerer_.transform(kpca.kernel(X))
    explained = float(kpca.eigenvalues_[:q].sum() / np.trace(K_centred))

    edge = np.abs(X).max() * 1.1
    axis = np.linspace(-edge, edge, n_grid)
    grid_x, grid_y = np.meshgrid(axis, axis)
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    component_map = kpca.transform(grid)[:, q - 1].reshape(n_grid, n_grid)
    accuracy = float(NearestCentroid().fit(Z[:, :q], y).score(Z[:, :q], y))
    return Bunch(
        X=X,
        y=y,
        Z=Z,
        grid_x=grid_x,
        grid_y=grid_y,
        component_map=component_map,
        explained=explained,
        accuracy=accuracy,
    )


# ---------------------------------------------------------------------------
# Chapter 5: the de-noising explorer (sigma, c, component count, iterations)
# ---------------------------------------------------------------------------


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
        Components q used by kernel PCA. Linear PCA keeps
        ``min(q, d - 1)`` (at least one): keeping all d components would
        return the noisy points unchanged.
    max_iter : int
        Fixed-point iterations at most.
    X_train, X_test, X_test_clean : ndarray
        The training points, the noisy test points and their true centres.
    Z_linear, Z_kernel : ndarray of shape (n_test, n_features)
        The test points de-noised by linear PCA and by kernel PCA.
    mse_linear, mse_kernel : float
        Mean squared distance of each de-noised set to the true centres.
    ratio : float
        ``mse_linear / mse_kernel``, the quantity of Table 1 of Mika et al.
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
    converged_fraction: float
    trajectory_point: np.ndarray
    trajectories: np.ndarray
    rho: np.ndarray


@dataclass
class _FittedToy:
    """Everything that depends on (sigma, c) only: computed once per pair."""

    data: object
    kpca: KernelPCA
    beta: np.ndarray  # projections of the test points on every fitted component
    linear_Z: list  # linear PCA de-noising for q = 1 .. max(d - 1, 1)
    starts: np.ndarray  # random starts of the convergence plot


class DenoisingExplorer:
    """Pure computing of the de-noising widget, with a cache per (sigma, c).

    The data set (:func:`kpca_lib.datasets.denoising_toy`), the kernel PCA
    fit with ``max_components`` components and the projections of the test
    points depend only on the noise level sigma and the kernel width c. They
    are computed once per pair and kept, so that moving the component-count
    or iteration slider costs only the fixed-point iteration: one fit serves
    every q through ``gamma_weights(alphas_[:, :q], beta[:, :q])``.

    Parameters
    ----------
    n_features : int, default=2
        Input dimension d of the toy data.
    n_test_per_cluster : int, default=10
        Test points de-noised per cluster. The toy of Mika et al. has 33;
        10 (110 points) keeps a slider move under 50 ms at 30 iterations.
        The training set (100 per cluster) is the toy's whatever this is.
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

    Attributes
    ----------
    n_fits_ : int
        How many kernel PCA fits have been computed (cache misses).

    Examples
    --------
    >>> explorer = DenoisingExplorer(max_components=4)
    >>> state = explorer.compute(sigma=0.1, c=0.04, n_components=4, max_iter=30)
    >>> state = explorer.compute(sigma=0.1, c=0.04, n_components=2, max_iter=10)
    >>> explorer.n_fits_
    1
    >>> state.Z_kernel.shape
    (110, 2)
    """

    def __init__(
        self,
        n_features=2,
        n_test_per_cluster=10,
        max_components=9,
        n_starts=6,
        cache_size=16,
        random_state=0,
        tol=1e-6,
    ):
        self.n_features = check_int(n_features, "n_features", minimum=1)
        self.n_test_per_cluster = check_int(n_test_per_cluster, "n_test_per_cluster", minimum=1)
        self.max_components = check_int(max_components, "max_components", minimum=1)
        self.n_starts = check_int(n_starts, "n_starts", minimum=1)
        self.cache_size = check_int(cache_size, "cache_size", minimum=1)
        self.random_state = check_int(random_state, "random_state", minimum=0)
        self.tol = check_real(tol, "tol", minimum=0)
        self._cache = OrderedDict()
        self.n_fits_ = 0

    def fitted(self, sigma, c):
        """The data and the fits for one (sigma, c), from the cache if there.

        Parameters
        ----------
        sigma : float
            Noise level, > 0.
        c : float
            Kernel width, > 0.

        Returns
        -------
        _FittedToy
            With fields ``data`` (the Bunch of ``denoising_toy``), ``kpca``
            (the fitted :class:`~kpca_lib.KernelPCA`), ``beta``,
            ``linear_Z`` and ``starts``.
        """
        sigma = check_real(sigma, "sigma", minimum=0, strict=True)
        c = check_real(c, "c", minimum=0, strict=True)
        key = (sigma, c)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]

        data = datasets.denoising_toy(
            n_features=self.n_features,
            sigma=sigma,
            n_test_per_cluster=self.n_test_per_cluster,
            random_state=self.random_state,
        )
        with threadpool_limits(limits=1, user_api="blas"):
            # Lanczos: a few components of a 1100 x 1100 matrix, whatever q
            kpca = KernelPCA(
                n_components=self.max_components, kernel=Gaussian(c=c), eigen_solver="arpack"
            )
            kpca.fit(data.X_train)
            beta = kpca.transform(data.X_test)
        pca = PCA(n_components=self.n_features).fit(data.X_train)
        linear_Z = [
            _linear_denoise(pca, data.X_test, q) for q in range(1, self._max_linear + 1)
        ]
        # starts drawn uniformly over the box that holds the training data
        rng = check_random_state(self.random_state)
        low, high = data.X_train.min(axis=0), data.X_train.max(axis=0)
        starts = rng.uniform(low, high, size=(self.n_starts, self.n_features))

        fitted = _FittedToy(data=data, kpca=kpca, beta=beta, linear_Z=linear_Z, starts=starts)
        self._cache[key] = fitted
        self.n_fits_ += 1
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return fitted

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
            Fixed-point iterations at most, >= 1.

        Returns
        -------
        DenoisingState
            Arrays and numbers for the de-noising plot, the convergence
            plot and the mean squared distances.
        """
        fitted = self.fitted(sigma, c)
        q = check_int(n_components, "n_components", minimum=1)
        if q > self.max_components:
            raise ValueError(
                f"n_components={q} is larger than max_components={self.max_components}."
            )
        max_iter = check_int(max_iter, "max_iter", minimum=1)
        data, kpca = fitted.data, fitted.kpca

        gamma = preimage.gamma_weights(kpca.alphas_[:, :q], fitted.beta[:, :q])
        # short runs are the point of the iteration slider: report the
        # converged fraction instead of the warning. The products here have
        # an inner dimension of d = 2, where BLAS threads cost more than
        # they save (measured: 4x slower with two busy cores), hence one.
        with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
            warnings.simplefilter("ignore", ConvergenceWarning)
            result = preimage.gaussian_fixed_point(
                kpca.X_fit_, gamma, kpca.kernel.c, data.X_test, max_iter=max_iter, tol=self.tol
            )
            # the convergence plot: the first test point from random starts
            trajectory = preimage.gaussian_fixed_point(
                kpca.X_fit_,
                np.repeat(gamma[:1], self.n_starts, axis=0),
                kpca.kernel.c,
                fitted.starts,
                max_iter=max_iter,
                tol=self.tol,
                return_history=True,
            )
        trajectories, rho = _pad_history(trajectory.Z_history, trajectory.rho_history, max_iter)

        Z_linear = fitted.linear_Z[min(q, self._max_linear) - 1]
        mse_linear = mean_squared_distance(Z_linear, data.X_test_clean)
        mse_kernel = mean_squared_distance(result.Z, data.X_test_clean)
        return DenoisingState(
            sigma=float(sigma),
            c=float(c),
            n_components=q,
            max_iter=max_iter,
            X_train=data.X_train,
            X_test=data.X_test,
            X_test_clean=data.X_test_clean,
            Z_linear=Z_linear,
            Z_kernel=result.Z,
            mse_linear=mse_linear,
            mse_kernel=mse_kernel,
            ratio=mse_linear / mse_kernel if mse_kernel > 0 else np.inf,
            converged_fraction=float(np.mean(result.converged)),
            trajectory_point=data.X_test[0],
            trajectories=trajectories,
            rho=rho,
        )

    @property
    def _max_linear(self):
        """Linear components at most: all d would leave the points as they are."""
        return max(self.n_features - 1, 1)

    def clear_cache(self):
        """Forget every (sigma, c) fit."""
        self._cache.clear()


def _linear_denoise(pca, X, q):
    """Project X on the first q principal components and map back."""
    components = pca.components_[:q]
    return (X - pca.mean_) @ components.T @ components + pca.mean_


def _pad_history(Z_history, rho_history, max_iter):
    """Repeat the last iterate so that every history has max_iter + 1 rows."""
    missing = max_iter + 1 - Z_history.shape[0]
    if missing > 0:
        Z_history = np.concatenate([Z_history, np.repeat(Z_history[-1:], missing, axis=0)])
        rho_history = np.concatenate([rho_history, np.repeat(rho_history[-1:], missing, axis=0)])
    return Z_history, rho_history


# ---------------------------------------------------------------------------
# Appendix A: sparse PCA on the planted-topics data
# ---------------------------------------------------------------------------


def sparse_pca_topics(alpha, n_components, n_documents=400, random_state=0):
    """Sparse PCA of the planted-topics data for one (alpha, q) setting.

    Parameters
    ----------
    alpha : float
        Weight of the l1 penalty, ``>= 0``.
    n_components : int
        Number of components q, between 1 and 56.
    n_documents : int, default=400
        Number of documents of :func:`kpca_lib.datasets.planted_topics`.
    random_state : int, default=0
        Seed of the data.

    Returns
    -------
    dict
        ``components`` (q, 56), the unit loadings; ``words`` (the column
        names); ``n_nonzero`` (q,), the number of words of each component;
        ``explained_variance_ratio``, the fraction of the variance of the
        centred data that the rank-q reconstruction keeps; ``objective``,
        the final value of the objective.

    Examples
    --------
    >>> out = sparse_pca_topics(alpha=3.0, n_components=4)
    >>> out["n_nonzero"]
    array([8, 8, 8, 8])
    """
    data = planted_topics(n_documents=n_documents, random_state=random_state)
    spca = SparsePCA(n_components=n_components, alpha=alpha).fit(data.X)
    X_c = data.X - spca.mean_
    X_hat = spca.inverse_transform(spca.transform(data.X)) - spca.mean_
    return {
        "components": spca.components_,
        "words": data.words,
        "n_nonzero": np.count_nonzero(spca.components_, axis=1),
        "explained_variance_ratio": float(1.0 - np.sum((X_c - X_hat) ** 2) / np.sum(X_c**2)),
        "objective": float(spca.objective_history_[-1]),
    }
