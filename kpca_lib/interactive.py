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
    "gram_spectrum_explorer",
    "rings_components",
    "DenoisingExplorer",
    "DenoisingState",
    "mean_squared_distance",
    "sparse_pca_topics",
    "Slider",
    "StaticExplorer",
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


def gram_spectrum_explorer(X, c_values=None, c=0.1, dpi=60):
    """The static counterpart of :func:`gram_spectrum_widget` for the HTML book.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows.
    c_values : sequence of float, optional
        Widths the slider steps over. Default: 21 widths from 0.001 to 100,
        four per decade, rounded to three digits.
    c : float, default=0.1
        Initial width, one of ``c_values``.
    dpi : int, default=60
        Resolution of the frames.

    Returns
    -------
    explorer : StaticExplorer
        Rendered; display it in a notebook. Under the picture: the largest
        eigenvalue and how many eigenvalues exceed 0.01.

    Examples
    --------
    >>> import numpy as np
    >>> explorer = gram_spectrum_explorer(np.eye(3), c_values=[0.1, 1.0], c=1.0, dpi=20)
    >>> explorer.captions_[1]
    'c = 1: largest eigenvalue 1.271, eigenvalues above 0.01: 3 of 3'
    """
    from .plotting import plot_gram_spectrum

    X = check_array(X, dtype=np.float64, input_name="X")
    if c_values is None:
        c_values = [float(f"{10 ** (k / 4):.3g}") for k in range(-12, 9)]

    def draw(axes, c):
        K, eigenvalues = gram_spectrum(X, c)
        plot_gram_spectrum(K, eigenvalues, axes, title=f"c = {c:.3g}")
        return (
            f"c = {c:.3g}: largest eigenvalue {eigenvalues[0]:.3f}, eigenvalues above 0.01: "
            f"{int(np.sum(eigenvalues > 0.01))} of {len(eigenvalues)}"
        )

    slider = Slider("c", c_values, initial=c, label="kernel width c", format="{:.3g}")
    return StaticExplorer(
        draw, [slider], name="gram-spectrum", subplots=(1, 2), figsize=(8, 3.2), dpi=dpi
    ).render()


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
    kpca = KernelPCA(n_components=max(q, 2), kernel=Gaussian(c=c))
    Z = kpca.fit_transform(X)  # projections of the training points
    # the trace of the centred kernel matrix is the total variance (times n):
    # (K_c)_ii = k(x_i, x_i) - 2 mean_j K_ij + mean(K), with k(x, x) = 1 here,
    # so trace(K_c) = n (1 - mean(K)), from the centring's stored mean
    total = X.shape[0] * (1.0 - kpca.centerer_.K_fit_all_)
    explained = float(kpca.eigenvalues_[:q].sum() / total)

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


# ---------------------------------------------------------------------------
# Static explorers: the same sliders in the rendered book, with no kernel
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Slider:
    """One slider of a :class:`StaticExplorer`: a name and the values it steps over.

    Parameters
    ----------
    name : str
        Keyword under which the value is passed to the drawing function.
    values : sequence
        The values, in slider order (numbers or strings).
    initial : object, optional
        The value shown first; one of ``values``. Default: the first.
    label : str, optional
        Text before the slider. Default: ``name``.
    format : str, default="{}"
        Format of the value shown beside the slider, e.g. ``"{:.3g}"``.

    Examples
    --------
    >>> Slider("c", [0.1, 1.0, 10.0], initial=1.0).initial_index
    1
    """

    name: str
    values: tuple
    initial: object = None
    label: str = None
    format: str = "{}"

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"name must be a Python identifier, got name={self.name!r}.")
        values = tuple(self.values)
        if len(values) == 0:
            raise ValueError(f"values of slider {self.name!r} must not be empty.")
        object.__setattr__(self, "values", values)
        if self.initial is not None and self.initial not in values:
            raise ValueError(
                f"initial={self.initial!r} of slider {self.name!r} is not one of its values."
            )

    @property
    def initial_index(self):
        """Position of the initial value (0 if none was given)."""
        return 0 if self.initial is None else self.values.index(self.initial)

    @property
    def value_labels(self):
        """The values as the page shows them."""
        return [self.format.format(value) for value in self.values]


class StaticExplorer:
    """Sliders over precomputed frames, shown as self-contained HTML.

    The stand-in for an ipywidgets widget where no kernel runs (the HTML
    book): every combination of the sliders' values is drawn once, by
    calling ``draw(axes, **values)`` on the axes of one reused matplotlib
    figure, and stored as a PNG with a palette of at most ``colors``
    colours. The HTML has an ``<input type="range">`` per slider, the
    current values, an ``<img>`` and a few lines of plain JavaScript that
    swap the image; it loads nothing from anywhere. Identical frames are
    stored once. The output is a pure function of the frames and ``name``:
    the same run gives byte-identical HTML (element ids are a hash of the
    content, the PNGs carry no date or software tag).

    The figure is laid out once (constrained layout of the initial setting)
    and the layout is then frozen: every frame has the same geometry, so the
    picture does not jump as a slider moves, and drawing is several times
    faster. Keep tick labels of similar width across frames (e.g. fixed
    limits) so that none is cut off.

    Parameters
    ----------
    draw : callable
        ``draw(axes, **values)`` draws one setting on ``axes`` (as returned
        by ``plt.subplots(*subplots)``: one Axes, or an array of them),
        which the explorer has cleared. It may return a short text, shown
        under the picture (rounded numbers of that setting), or None.
    sliders : sequence of Slider
        The sliders, top to bottom; the frames are their Cartesian product.
    name : str
        Short name, used in the element ids and in the image's alt text.
    subplots : tuple of int, default=(1, 1)
        Rows and columns of axes.
    title : str, default="Precomputed (works in the HTML book)"
        Line printed above the sliders.
    figsize : tuple of float, default=(8, 3.5)
        Figure size in inches.
    dpi : int, default=60
        Resolution of the frames.
    colors : int, default=64
        Colours of each frame's palette (2 to 256); fewer make smaller files.
    max_frames : int, default=500
        Refuse larger grids (page weight, and time to draw them).

    Attributes
    ----------
    frames_ : list of bytes
        The distinct PNG images.
    frame_of_setting_ : ndarray of int
        For each setting (row-major over the sliders, last slider fastest),
        the index of its image in ``frames_``.
    captions_ : list of str
        The text under the picture for each setting.
    html_ : str
        The HTML (also what ``_repr_html_`` returns).

    Examples
    --------
    >>> def draw(ax, c):
    ...     ax.plot([0, 1], [0, c])
    ...     return f"slope {c}"
    >>> explorer = StaticExplorer(draw, [Slider("c", [1, 2], initial=2)], name="line",
    ...                           figsize=(2, 1), dpi=20).render()
    >>> len(explorer.frames_), explorer.captions_
    (2, ['slope 1', 'slope 2'])
    >>> 'type="range"' in explorer.html_ and "http" not in explorer.html_
    True
    """

    def __init__(
        self,
        draw,
        sliders,
        name,
        subplots=(1, 1),
        title="Precomputed (works in the HTML book)",
        figsize=(8, 3.5),
        dpi=60,
        colors=64,
        max_frames=500,
    ):
        self.draw = draw
        self.sliders = sliders
        self.name = name
        self.subplots = subplots
        self.title = title
        self.figsize = figsize
        self.dpi = dpi
        self.colors = colors
        self.max_frames = max_frames

    def _check(self):
        if not callable(self.draw):
            raise TypeError(f"draw must be callable, got {self.draw!r}.")
        sliders = list(self.sliders)
        if not sliders or not all(isinstance(slider, Slider) for slider in sliders):
            raise TypeError("sliders must be a non-empty sequence of Slider.")
        names = [slider.name for slider in sliders]
        if len(set(names)) != len(names):
            raise ValueError(f"slider names must be distinct, got {names}.")
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"name must be a non-empty string, got name={self.name!r}.")
        if len(self.subplots) != 2:
            raise ValueError(f"subplots must be (rows, columns), got subplots={self.subplots!r}.")
        for value, what in zip(self.subplots, ("rows", "columns")):
            check_int(value, f"subplots {what}", minimum=1)
        check_int(self.dpi, "dpi", minimum=10)
        colors = check_int(self.colors, "colors", minimum=2)
        if colors > 256:
            raise ValueError(f"colors must be at most 256, got colors={colors}.")
        n_frames = int(np.prod([len(slider.values) for slider in sliders]))
        if n_frames > check_int(self.max_frames, "max_frames", minimum=1):
            raise ValueError(
                f"the sliders make {n_frames} frames, more than max_frames={self.max_frames}."
            )
        return sliders

    def render(self):
        """Draw every frame and build the HTML.

        Returns
        -------
        self : StaticExplorer
        """
        import itertools

        import matplotlib.pyplot as plt

        sliders = self._check()
        names = [slider.name for slider in sliders]
        settings = list(itertools.product(*(slider.values for slider in sliders)))
        initial = tuple(slider.values[slider.initial_index] for slider in sliders)
        frames, frame_index, frame_of_setting, captions = [], {}, [], []
        fig, axes = plt.subplots(
            *self.subplots, figsize=self.figsize, dpi=self.dpi, layout="constrained"
        )
        try:
            # lay the figure out for the initial setting, then freeze the layout
            self.draw(axes, **dict(zip(names, initial)))
            fig.canvas.draw()
            fig.set_layout_engine("none")
            for setting in settings:
                for ax in fig.axes:
                    ax.clear()
                caption = self.draw(axes, **dict(zip(names, setting)))
                png = _figure_to_png(fig, self.colors)
                if png not in frame_index:
                    frame_index[png] = len(frames)
                    frames.append(png)
                frame_of_setting.append(frame_index[png])
                captions.append("" if caption is None else str(caption))
        finally:
            plt.close(fig)
        self.frames_ = frames
        self.frame_of_setting_ = np.array(frame_of_setting)
        self.captions_ = captions
        self.html_ = _explorer_html(self, sliders)
        return self

    @property
    def n_settings(self):
        """Number of slider settings (the product of the slider lengths)."""
        return int(np.prod([len(slider.values) for slider in self.sliders]))

    def summary(self):
        """One line: settings, distinct frames and the size of the HTML.

        Returns
        -------
        str
        """
        html = self.html_ if hasattr(self, "html_") else self.render().html_
        return (
            f"static explorer {self.name!r}: {self.n_settings} settings, "
            f"{len(self.frames_)} distinct frames, {len(html.encode()) / 1e6:.2f} MB of HTML"
        )

    def __repr__(self):
        return f"StaticExplorer(name={self.name!r}, settings={self.n_settings})"

    def _repr_html_(self):
        if not hasattr(self, "html_"):
            self.render()
        return self.html_


def _figure_to_png(fig, colors):
    """The figure as palette PNG bytes: deterministic (no date, no software tag)."""
    import io

    from PIL import Image

    fig.canvas.draw()
    rgb = Image.fromarray(np.asarray(fig.canvas.buffer_rgba())[..., :3])
    image = rgb.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


_EXPLORER_SCRIPT = """(function () {
  var root = document.getElementById("%(uid)s");
  var data = %(data)s;
  var inputs = root.querySelectorAll("input[type=range]");
  var shown = root.querySelectorAll("output");
  var image = root.querySelector("img");
  var caption = root.querySelector(".kpca-explorer-caption");
  function update() {
    var setting = 0;
    for (var i = 0; i < inputs.length; i++) {
      var position = parseInt(inputs[i].value, 10);
      setting = setting * data.sizes[i] + position;
      shown[i].textContent = data.labels[i][position];
    }
    image.src = "data:image/png;base64," + data.frames[data.frame[setting]];
    caption.textContent = data.captions[setting];
  }
  for (var i = 0; i < inputs.length; i++) {
    inputs[i].addEventListener("input", update);
  }
  update();
})();"""


def _explorer_html(explorer, sliders):
    """Self-contained HTML of a rendered explorer (no external resource)."""
    import base64
    import hashlib
    import html
    import json
    import re

    data = {
        "sizes": [len(slider.values) for slider in sliders],
        "labels": [slider.value_labels for slider in sliders],
        "frame": explorer.frame_of_setting_.tolist(),
        "captions": explorer.captions_,
        "frames": [base64.b64encode(png).decode("ascii") for png in explorer.frames_],
    }
    payload = json.dumps(data, separators=(",", ":"), sort_keys=True)
    slug = re.sub(r"[^a-z0-9]+", "-", explorer.name.lower()).strip("-") or "explorer"
    digest = hashlib.sha1((explorer.name + payload).encode()).hexdigest()[:10]
    uid = f"kpca-explorer-{slug}-{digest}"

    initial = 0
    for slider in sliders:
        initial = initial * len(slider.values) + slider.initial_index
    rows = []
    for i, slider in enumerate(sliders):
        label = html.escape(slider.label or slider.name)
        rows.append(
            f'<div style="margin:2px 0"><label for="{uid}-{i}" '
            f'style="display:inline-block;min-width:9em">{label}</label> '
            f'<input type="range" id="{uid}-{i}" min="0" max="{len(slider.values) - 1}" '
            f'step="1" value="{slider.initial_index}" style="vertical-align:middle;width:14em"> '
            f"<output>{html.escape(slider.value_labels[slider.initial_index])}</output></div>"
        )
    first_frame = data["frames"][data["frame"][initial]]
    script = _EXPLORER_SCRIPT % {"uid": uid, "data": payload.replace("</", "<\\/")}
    return (
        f'<div id="{uid}" class="kpca-explorer tex2jax_ignore mathjax_ignore" '
        f'style="border:1px solid #ccc;border-radius:4px;padding:6px;margin:4px 0">'
        f'<div style="font-weight:bold;margin-bottom:4px">{html.escape(explorer.title)}</div>'
        + "".join(rows)
        + f'<img alt="{html.escape(explorer.name)}: precomputed frame" '
        f'src="data:image/png;base64,{first_frame}" style="max-width:100%;display:block">'
        f'<div class="kpca-explorer-caption" style="font-family:monospace;white-space:pre-wrap">'
        f"{html.escape(explorer.captions_[initial])}</div>"
        f"<script>{script}</script></div>"
    )
