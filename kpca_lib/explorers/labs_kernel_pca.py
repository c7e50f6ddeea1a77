"""Chapter 4's kernel PCA lab, computed in the reader's browser.

The function checks its arguments and returns a
:class:`~kpca_lib.explorers.browser.BrowserExplorer` holding the chapter's
data sets, each split once into a training and a held-out half, and the
initial setting; the book's JavaScript (``_static/kpca-lab-kpca*.js``) fits
kernel PCA and scores it in the page, with the same mathematics as
:class:`kpca_lib.KernelPCA` and :func:`~kpca_lib.explorers.held_out_accuracy`
(``tests/lab_parity.py`` compares the two).
"""

from numbers import Integral

from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split
from sklearn.utils import Bunch

from .._validation import check_int, check_real
from ..datasets import concentric_rings
from .browser import BrowserExplorer

__all__ = ["DATASETS", "KERNELS", "kernel_pca_lab", "kernel_pca_lab_data"]

#: The data sets of the lab, in the order of its menu ("draw your own" is the page's).
DATASETS = ("three rings", "two rings", "two moons")
#: The kernels of the lab: Gaussian(c) and Polynomial(degree) with coef0 = gamma = 1.
KERNELS = ("gaussian", "polynomial")
_MAX_COMPONENTS = 10  # eigenpairs the page fits, by Lanczos
_MAX_DEGREE = 6
_MAX_POINTS = 1100  # points the reader may draw, training and held-out together
_N_GRID = 48  # grid points per axis of the map: 2304 points, each projected on 10 components


def kernel_pca_lab_data(random_state=0):
    """The lab's data sets, as chapter 4 draws and splits them.

    Three rings (radii 1, 2, 3) and two rings (radii 1, 2) of
    :func:`kpca_lib.datasets.concentric_rings` with 200 points per ring and
    noise 0.1, and scikit-learn's ``make_moons(400, noise=0.05)``; each split
    in half by ``train_test_split(test_size=0.5, stratify=y)``, with the same
    seed throughout.

    Parameters
    ----------
    random_state : int, default=0
        The seed of the draws and of the splits (an integer: the page is sent
        the data it draws).

    Returns
    -------
    dict
        For each name of :data:`DATASETS`, a Bunch of ``X_train``,
        ``y_train``, ``X_test``, ``y_test``.

    Examples
    --------
    >>> data = kernel_pca_lab_data()
    >>> [data[name].X_train.shape[0] for name in DATASETS]
    [300, 200, 200]
    """
    random_state = check_int(random_state, "random_state", minimum=0)
    drawn = {
        "three rings": concentric_rings(200, noise=0.1, random_state=random_state),
        "two rings": concentric_rings(200, radii=(1.0, 2.0), noise=0.1, random_state=random_state),
        "two moons": make_moons(n_samples=400, noise=0.05, random_state=random_state),
    }
    data = {}
    for name in DATASETS:
        X, y = drawn[name]
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.5, stratify=y, random_state=random_state)
        data[name] = Bunch(X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)
    return data


def _check_choice(value, name, choices):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {list(choices)}, got {value!r}.")
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {name}={value!r}.")
    return value


def _check_pair(pair):
    if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
        raise TypeError(f"pair must be two component numbers (i, j), got pair={pair!r}.")
    if not all(isinstance(v, Integral) and not isinstance(v, bool) for v in pair):
        raise TypeError(f"pair must hold integers, got pair={pair!r}.")
    return [check_int(v, f"pair[{k}]", minimum=1, maximum=_MAX_COMPONENTS) for k, v in enumerate(pair)]


def _check_c(c, c_range):
    if not isinstance(c_range, (tuple, list)) or len(c_range) != 2:
        raise TypeError(f"c_range must be a pair (low, high), got c_range={c_range!r}.")
    low = check_real(c_range[0], "c_range[0]", minimum=0, strict=True)
    high = check_real(c_range[1], "c_range[1]", minimum=low, strict=True)
    return check_real(c, "c", minimum=low, maximum=high), [low, high]


def kernel_pca_lab(
    dataset="three rings",
    kernel="gaussian",
    c=10.0,
    degree=2,
    n_components=3,
    component=3,
    pair=(1, 2),
    *,
    c_range=(0.01, 100.0),
    random_state=0,
    title="Kernel PCA lab: components, spectrum and a held-out score, computed in your browser",
):
    """Chapter 4's kernel PCA lab, computed in the reader's browser.

    On the training half of a data set of :func:`kernel_pca_lab_data` (or
    points the reader draws), the page fits
    ``KernelPCA(10, Gaussian(c))`` or ``KernelPCA(10, Polynomial(degree))``
    (fewer components when fewer have a positive eigenvalue), by Lanczos
    iterations on the centred kernel matrix, and draws the value of one
    component over the plane, the training and held-out points on a pair of
    components, the shares of the variance of the leading eigenvalues and
    :func:`~kpca_lib.explorers.held_out_accuracy` on the first q components.
    Controls: the data set, the kernel, c on a log scale over ``c_range``,
    the degree (1 to 6), q, the mapped component and the pair (1 to 10).

    Parameters
    ----------
    dataset : str, default="three rings"
        One of :data:`DATASETS`.
    kernel : {"gaussian", "polynomial"}, default="gaussian"
        The initial kernel.
    c : float, default=10.0
        Initial width of the Gaussian kernel ``exp(-||x - y||^2 / c)``, in
        ``c_range``.
    degree : int, default=2
        Initial degree p of the polynomial kernel ``(x . y + 1)^p``, 1 to 6.
    n_components : int, default=3
        Initial q, 1 to 10: the score uses components 1 to q.
    component : int, default=3
        The component whose value is mapped over the plane, 1 to 10.
    pair : pair of int, default=(1, 2)
        The components of the projections panel, each 1 to 10.
    c_range : pair of float, default=(0.01, 100.0)
        Ends of the c slider, 0 < low < high.
    random_state : int, default=0
        Seed of the data sets and of their splits.
    title : str
        Shown above the lab.

    Returns
    -------
    BrowserExplorer
        Display it in a notebook cell; the reset button of the page restores
        the setting given here.

    Examples
    --------
    >>> lab = kernel_pca_lab()
    >>> lab.payload["settings"]["c"], lab.payload["settings"]["pair"]
    (10.0, [1, 2])
    >>> [d["name"] for d in lab.payload["datasets"]]
    ['three rings', 'two rings', 'two moons']
    """
    settings = {
        "dataset": _check_choice(dataset, "dataset", DATASETS),
        "kernel": _check_choice(kernel, "kernel", KERNELS),
        "degree": check_int(degree, "degree", minimum=1, maximum=_MAX_DEGREE),
        "n_components": check_int(n_components, "n_components", minimum=1, maximum=_MAX_COMPONENTS),
        "component": check_int(component, "component", minimum=1, maximum=_MAX_COMPONENTS),
        "pair": _check_pair(pair),
    }
    settings["c"], c_range = _check_c(c, c_range)
    data = kernel_pca_lab_data(random_state)
    payload = {
        "datasets": [
            {"name": name, "X": data[name].X_train.ravel(), "y": data[name].y_train,
             "X_test": data[name].X_test.ravel(), "y_test": data[name].y_test}
            for name in DATASETS
        ],
        "random_state": random_state,
        "c_range": c_range,
        "max_components": _MAX_COMPONENTS,
        "max_degree": _MAX_DEGREE,
        "max_points": _MAX_POINTS,
        "n_grid": _N_GRID,
        "settings": settings,
    }
    return BrowserExplorer("kernel-pca", payload, title)
