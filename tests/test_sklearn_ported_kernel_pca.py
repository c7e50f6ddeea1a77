"""scikit-learn's own KernelPCA tests, ported to kpca_lib.KernelPCA.

From ``sklearn/decomposition/tests/test_kernel_pca.py`` (scikit-learn 1.9),
adapted to our names: kernels are objects (``Gaussian(c)`` with
``c = 1 / gamma``; scikit-learn's default is the linear kernel, ours
``Gaussian(c=1.0)``, and its default gamma is ``1 / n_features``); q is at
most n - 1 and never more than the number of positive eigenvalues, where
scikit-learn keeps components of zero eigenvalue; our solvers are "dense"
and "arpack".

Ported: test_kernel_pca, test_kernel_pca_invalid_parameters,
test_kernel_pca_consistent_transform, test_kernel_pca_deterministic_output,
test_kernel_pca_linear_kernel, test_kernel_pca_n_components,
test_remove_zero_eig (adapted: zero components are refused, not returned),
test_kernel_pca_precomputed, test_kernel_pca_precomputed_non_symmetric,
test_gridsearch_pipeline, test_gridsearch_pipeline_precomputed,
test_nested_circles, test_kernel_conditioning (adapted as
test_remove_zero_eig), test_precomputed_kernel_not_psd,
test_kernel_pca_solvers_equivalence,
test_kernel_pca_inverse_transform_reconstruction,
test_kernel_pca_raise_not_fitted_error, test_32_64_decomposition_shape,
test_kernel_pca_feature_names_out, test_kernel_pca_pandas_output.

Ported in issue 22, with the features they test: test_kernel_pca_sparse,
the randomized solver's cases of test_kernel_pca_solvers_equivalence and
test_kernel_pca_linear_kernel, test_kernel_pca_inverse_correct_gamma (named
kernels take scikit-learn's default gamma, 1 / n_features).

Not ported: remove_zero_eig=False (test_leave_zero_eig: we never keep a
component of zero eigenvalue); the randomized cases of the other tests,
which ask for q = n components of a 5-sample set (we allow n - 1).
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_almost_equal, assert_array_equal
from sklearn.datasets import load_iris, make_blobs, make_circles
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import Perceptron
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import kpca_lib as kl
from kpca_lib import KernelPCA

SOLVERS = ["auto", "dense", "arpack"]


def histogram(A, B):
    """The histogram-intersection kernel sum_j min(a_j, b_j), vectorised."""
    return np.minimum(A[:, None, :], B[None, :, :]).sum(axis=-1)


@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_pca(seed):
    rng = np.random.RandomState(seed)
    X_fit, X_pred = rng.random_sample((5, 4)), rng.random_sample((2, 4))
    for eigen_solver in ("auto", "dense"):  # arpack cannot give q = n - 1 = 4
        for kernel in (kl.Linear(), kl.Gaussian(c=4.0), kl.Polynomial(degree=3), histogram):
            inv = not callable(kernel) or isinstance(kernel, kl.Kernel)
            kpca = KernelPCA(4, kernel=kernel, eigen_solver=eigen_solver, fit_inverse_transform=inv)
            X_fit_transformed = kpca.fit_transform(X_fit)
            X_fit_transformed2 = kpca.fit(X_fit).transform(X_fit)
            assert_array_almost_equal(np.abs(X_fit_transformed), np.abs(X_fit_transformed2))
            assert X_fit_transformed.size != 0
            X_pred_transformed = kpca.transform(X_pred)
            assert X_pred_transformed.shape[1] == X_fit_transformed.shape[1]
            if inv:
                assert kpca.inverse_transform(X_pred_transformed).shape == X_pred.shape


def test_kernel_pca_invalid_parameters():
    estimator = KernelPCA(n_components=9, fit_inverse_transform=True, kernel="precomputed")
    with pytest.raises(ValueError, match="Cannot fit_inverse_transform with a precomputed kernel"):
        estimator.fit(np.random.randn(10, 10))


def test_kernel_pca_consistent_transform():
    X = np.random.RandomState(0).rand(10, 10)
    kpca = KernelPCA().fit(X)
    transformed1 = kpca.transform(X)
    X_copy = X.copy()
    X[:, 0] = 666
    assert_array_almost_equal(transformed1, kpca.transform(X_copy))


@pytest.mark.parametrize("solver", ["arpack", "dense"])
def test_kernel_pca_deterministic_output(solver):
    X = np.random.RandomState(0).rand(10, 10)
    transformed = np.array([KernelPCA(2, eigen_solver=solver).fit_transform(X)[0] for _ in range(20)])
    assert_allclose(transformed, np.tile(transformed[0], (20, 1)))


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("n_features", [4, 10])
def test_kernel_pca_linear_kernel(solver, n_features):
    rng = np.random.RandomState(0)
    X_fit, X_pred = rng.random_sample((5, n_features)), rng.random_sample((2, n_features))
    n_comps = 3 if solver == "arpack" else 4
    ours = KernelPCA(n_comps, kernel=kl.Linear(), eigen_solver=solver).fit(X_fit).transform(X_pred)
    theirs = SklearnPCA(n_comps, svd_solver="full").fit(X_fit).transform(X_pred)
    assert_array_almost_equal(np.abs(ours), np.abs(theirs))


def test_kernel_pca_n_components():
    rng = np.random.RandomState(0)
    X_fit, X_pred = rng.random_sample((5, 4)), rng.random_sample((2, 4))
    for eigen_solver in ("dense", "arpack"):
        for c in [1, 2, 3]:  # arpack: q < n - 1 = 4
            kpca = KernelPCA(n_components=c, eigen_solver=eigen_solver)
            assert kpca.fit(X_fit).transform(X_pred).shape == (2, c)


@pytest.mark.parametrize(
    "X",
    [
        np.array([[1 - 1e-30, 1], [1, 1], [1, 1 - 1e-20]]),  # test_remove_zero_eig
        np.array([[5, 1], [5 + 1e-8, 1e-8], [5 + 1e-8, 0]]),  # test_kernel_conditioning
    ],
    ids=["remove_zero_eig", "kernel_conditioning"],
)
def test_components_of_zero_eigenvalue_are_refused(X):
    # scikit-learn returns them (or drops them with remove_zero_eig=True);
    # we keep only positive eigenvalues, and refuse to make up the rest
    kernel = kl.Linear()
    rank = 0 if X[0, 0] == 1 else 1
    if rank == 0:
        with pytest.raises(ValueError, match="no positive eigenvalue"):
            KernelPCA(kernel=kernel).fit(X)
    else:
        assert KernelPCA(kernel=kernel).fit(X).n_components_ == 1
    with pytest.raises(ValueError, match="larger than the rank allows|no positive eigenvalue"):
        KernelPCA(n_components=2, kernel=kernel).fit(X)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_kernel_pca_precomputed(solver):
    rng = np.random.RandomState(0)
    X_fit, X_pred = rng.random_sample((5, 4)), rng.random_sample((2, 4))
    q = 3  # arpack: q < n - 1
    X_kpca = KernelPCA(q, kernel=kl.Linear(), eigen_solver=solver).fit(X_fit).transform(X_pred)
    precomputed = KernelPCA(q, kernel="precomputed", eigen_solver=solver)
    X_kpca2 = precomputed.fit(X_fit @ X_fit.T).transform(X_pred @ X_fit.T)
    X_kpca_train = KernelPCA(q, kernel="precomputed", eigen_solver=solver).fit_transform(X_fit @ X_fit.T)
    X_kpca_train2 = precomputed.fit(X_fit @ X_fit.T).transform(X_fit @ X_fit.T)
    assert_array_almost_equal(np.abs(X_kpca), np.abs(X_kpca2))
    assert_array_almost_equal(np.abs(X_kpca_train), np.abs(X_kpca_train2))


@pytest.mark.parametrize("solver", ["auto", "dense"])
def test_kernel_pca_precomputed_non_symmetric(solver):
    # the centring of [[1, 2], [3, 40]] is [[9, -9], [-9, 9]]
    kpca = KernelPCA(kernel="precomputed", eigen_solver=solver, n_components=1).fit([[1, 2], [3, 40]])
    kpca_c = KernelPCA(kernel="precomputed", eigen_solver=solver, n_components=1).fit([[9, -9], [-9, 9]])
    assert_array_equal(kpca.alphas_, kpca_c.alphas_)
    assert_array_equal(kpca.eigenvalues_, kpca_c.eigenvalues_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # Perceptron(max_iter=5)
def test_gridsearch_pipeline():
    X, y = make_circles(n_samples=400, factor=0.3, noise=0.05, random_state=0)
    pipeline = Pipeline([("kernel_pca", KernelPCA(n_components=2)), ("Perceptron", Perceptron(max_iter=5))])
    param_grid = {"kernel_pca__kernel__c": 1 / 2.0 ** np.arange(-2, 2)}  # gamma = 2^-2 ... 2^1
    grid_search = GridSearchCV(pipeline, cv=3, param_grid=param_grid).fit(X, y)
    assert grid_search.best_score_ == 1


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_gridsearch_pipeline_precomputed():
    X, y = make_circles(n_samples=400, factor=0.3, noise=0.05, random_state=0)
    kpca = KernelPCA(kernel="precomputed", n_components=2)
    pipeline = Pipeline([("kernel_pca", kpca), ("Perceptron", Perceptron(max_iter=5))])
    param_grid = {"Perceptron__max_iter": np.arange(1, 5)}
    grid_search = GridSearchCV(pipeline, cv=3, param_grid=param_grid).fit(kl.Gaussian(c=0.5)(X), y)
    assert grid_search.best_score_ == 1


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_nested_circles():
    X, y = make_circles(n_samples=400, factor=0.3, noise=0.05, random_state=0)
    assert Perceptron(max_iter=5).fit(X, y).score(X, y) < 0.8
    kpca = KernelPCA(n_components=2, kernel=kl.Gaussian(c=0.5), fit_inverse_transform=True)
    X_kpca = kpca.fit_transform(X)
    assert Perceptron(max_iter=5).fit(X_kpca, y).score(X_kpca, y) == 1.0


# eigenvalues 52.72, 7.65, 7.65, 5.02, 0, 0, -6.13, -15.11 (an isomap kernel)
NOT_PSD = [
    [4.48, -1.0, 8.07, 2.33, 2.33, 2.33, -5.76, -12.78],
    [-1.0, -6.48, 4.5, -1.24, -1.24, -1.24, -0.81, 7.49],
    [8.07, 4.5, 15.48, 2.09, 2.09, 2.09, -11.1, -23.23],
    [2.33, -1.24, 2.09, 4.0, -3.65, -3.65, 1.02, -0.9],
    [2.33, -1.24, 2.09, -3.65, 4.0, -3.65, 1.02, -0.9],
    [2.33, -1.24, 2.09, -3.65, -3.65, 4.0, 1.02, -0.9],
    [-5.76, -0.81, -11.1, 1.02, 1.02, 1.02, 4.86, 9.75],
    [-12.78, 7.49, -23.23, -0.9, -0.9, -0.9, 9.75, 21.46],
]


@pytest.mark.parametrize("solver", SOLVERS)
def test_precomputed_kernel_not_psd(solver):
    # enough components to reach a negative eigenvalue: an error (ours says
    # how many are positive); fewer: it works, with a warning
    from sklearn.preprocessing import KernelCenterer

    eigenvalues = np.linalg.eigvalsh(KernelCenterer().fit_transform(np.array(NOT_PSD)))[::-1]
    n_positive = int(np.sum(eigenvalues > 1e-10 * eigenvalues[0]))
    assert n_positive < 7 and eigenvalues[-1] < -0.1 * eigenvalues[0]
    with pytest.raises(ValueError, match=f"only {n_positive} positive eigenvalues"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", kl.NotPSDWarning)
            KernelPCA(kernel="precomputed", eigen_solver=solver, n_components=n_positive + 1).fit(NOT_PSD)
    with pytest.warns(kl.NotPSDWarning, match="significant negative eigenvalues"):
        kpca = KernelPCA(kernel="precomputed", eigen_solver=solver, n_components=2).fit(NOT_PSD)
    assert_allclose(kpca.eigenvalues_, eigenvalues[:2], rtol=1e-10)


@pytest.mark.parametrize("n_components", [4, 10, 20])
def test_kernel_pca_solvers_equivalence(n_components):
    # 300 training samples (scikit-learn: 1000), to keep the suite fast
    X, _ = make_circles(n_samples=400, factor=0.3, noise=0.05, random_state=0)
    X_fit, X_pred = X[:300], X[300:]
    ref_pred = KernelPCA(n_components, eigen_solver="dense").fit(X_fit).transform(X_pred)
    a_pred = KernelPCA(n_components, eigen_solver="arpack").fit(X_fit).transform(X_pred)
    assert_array_almost_equal(np.abs(a_pred), np.abs(ref_pred))


def test_kernel_pca_inverse_transform_reconstruction():
    X, *_ = make_blobs(n_samples=100, n_features=4, random_state=0)
    kpca = KernelPCA(n_components=20, kernel=kl.Gaussian(c=4.0), fit_inverse_transform=True, alpha=1e-3)
    X_reconst = kpca.inverse_transform(kpca.fit_transform(X))
    assert np.linalg.norm(X - X_reconst) / np.linalg.norm(X) < 1e-1


def test_kernel_pca_raise_not_fitted_error():
    X = np.random.randn(15).reshape(5, 3)
    kpca = KernelPCA().fit(X)
    with pytest.raises(NotFittedError):
        kpca.inverse_transform(X)


def test_32_64_decomposition_shape():
    X, _ = make_blobs(n_samples=30, centers=[[0, 0, 0], [1, 1, 1]], random_state=0, cluster_std=0.1)
    X = StandardScaler().fit_transform(X)
    X -= X.min()
    kpca = KernelPCA()
    assert kpca.fit_transform(X).shape == kpca.fit_transform(X.astype(np.float32)).shape


def test_kernel_pca_feature_names_out():
    X, *_ = make_blobs(n_samples=100, n_features=4, random_state=0)
    names = KernelPCA(n_components=2).fit(X).get_feature_names_out()
    assert_array_equal([f"kernelpca{i}" for i in range(2)], names)


def test_kernel_pca_pandas_output():
    pytest.importorskip("pandas")
    from sklearn import config_context

    X, _ = load_iris(as_frame=True, return_X_y=True)
    with config_context(transform_output="pandas"):
        Z = KernelPCA(n_components=2, eigen_solver="arpack").fit_transform(X)
    assert list(Z.index) == list(X.index)


# Issue 22: the scikit-learn habits


@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_pca_sparse(seed):
    from scipy.sparse import csr_matrix

    rng = np.random.RandomState(seed)
    X_fit = csr_matrix(rng.random_sample((5, 4)))
    X_pred = csr_matrix(rng.random_sample((2, 4)))
    for eigen_solver in ("auto", "arpack", "randomized"):
        for kernel in ("linear", "rbf", "poly"):
            # q = 3: arpack cannot give n - 1 = 4 of a 5 x 5 matrix
            kpca = KernelPCA(3, kernel=kernel, eigen_solver=eigen_solver, fit_inverse_transform=False,
                             random_state=0)
            X_fit_transformed = kpca.fit_transform(X_fit)
            X_fit_transformed2 = kpca.fit(X_fit).transform(X_fit)
            assert_array_almost_equal(np.abs(X_fit_transformed), np.abs(X_fit_transformed2))
            X_pred_transformed = kpca.transform(X_pred)
            assert X_pred_transformed.shape[1] == X_fit_transformed.shape[1]
            with pytest.raises(NotFittedError):
                kpca.inverse_transform(X_pred_transformed)


@pytest.mark.parametrize("solver", ["auto", "dense", "arpack", "randomized"])
@pytest.mark.parametrize("n_features", [4, 10])
def test_kernel_pca_linear_kernel_named(solver, n_features):
    rng = np.random.RandomState(0)
    X_fit, X_pred = rng.random_sample((5, n_features)), rng.random_sample((2, n_features))
    n_comps = 3 if solver == "arpack" else 4
    ours = KernelPCA(n_comps, kernel="linear", eigen_solver=solver, random_state=0).fit(X_fit).transform(X_pred)
    assert_array_almost_equal(np.abs(ours), np.abs(SklearnPCA(n_comps).fit(X_fit).transform(X_pred)))


@pytest.mark.parametrize("n_components", [4, 10, 20])
def test_kernel_pca_solvers_equivalence_randomized(n_components):
    X, _ = make_circles(n_samples=400, factor=0.3, noise=0.05, random_state=0)
    X_fit, X_pred = X[:300], X[300:]
    ref_pred = KernelPCA(n_components, kernel="rbf", eigen_solver="dense").fit(X_fit).transform(X_pred)
    r_pred = KernelPCA(n_components, kernel="rbf", eigen_solver="randomized", random_state=0).fit(X_fit).transform(X_pred)
    assert_array_almost_equal(np.abs(r_pred), np.abs(ref_pred))


@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_pca_inverse_correct_gamma(seed):
    rng = np.random.RandomState(seed)
    X = rng.random_sample((5, 4))
    kwargs = {"n_components": 2, "random_state": rng, "fit_inverse_transform": True, "kernel": "rbf"}
    expected_gamma = 1 / X.shape[1]
    kpca1 = KernelPCA(gamma=None, **kwargs).fit(X)
    kpca2 = KernelPCA(gamma=expected_gamma, **kwargs).fit(X)
    assert kpca1.gamma_ == expected_gamma
    assert kpca2.gamma_ == expected_gamma
    X1_recon = kpca1.inverse_transform(kpca1.transform(X))
    X2_recon = kpca2.inverse_transform(kpca1.transform(X))
    assert_allclose(X1_recon, X2_recon)
