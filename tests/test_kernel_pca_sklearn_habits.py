"""What scikit-learn users type into KernelPCA (issue 22): kernel names, the randomized
solver, random_state, eigenvectors_, sparse samples. Checked against scikit-learn's
KernelPCA and against the book's kernel objects."""

import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import load_wine
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.preprocessing import StandardScaler

import kpca_lib as kl
from test_pca import assert_equal_up_to_sign


@pytest.fixture(scope="module")
def wine():
    return StandardScaler().fit_transform(load_wine().data)[:90]


NAMED = [
    ("rbf", {}, lambda d: kl.Gaussian(c=d)),
    ("rbf", {"gamma": 0.05}, lambda d: kl.Gaussian(c=20.0)),
    ("laplacian", {}, lambda d: kl.Laplacian(c=d)),
    ("poly", {"degree": 2, "coef0": 0.5}, lambda d: kl.Polynomial(degree=2, coef0=0.5, gamma=1 / d)),
    ("poly", {"gamma": 0.1}, lambda d: kl.Polynomial(degree=3, coef0=1.0, gamma=0.1)),
    ("linear", {}, lambda d: kl.Linear()),
    ("cosine", {}, lambda d: kl.Cosine()),
    ("sigmoid", {"gamma": 0.01, "coef0": 0.1}, lambda d: kl.Sigmoid(gamma=0.01, coef0=0.1)),
]


# ids from the kernel name and its parameters only: a function's repr holds its address,
# which differs between the processes of pytest-xdist (each must collect the same tests)
@pytest.mark.parametrize(("name", "params", "make_kernel"), NAMED,
                         ids=[f"{name}-{params}" for name, params, _ in NAMED])
def test_kernel_names_equal_the_kernel_objects_and_sklearn(wine, name, params, make_kernel):
    X = wine
    d = X.shape[1]
    named = kl.KernelPCA(3, kernel=name, **params).fit(X)
    assert named.kernel_ == make_kernel(d)
    by_object = kl.KernelPCA(3, kernel=make_kernel(d)).fit(X)
    np.testing.assert_array_equal(named.transform(X[:7]), by_object.transform(X[:7]))
    if name == "laplacian":  # scikit-learn's KernelPCA has no such name: its pairwise function
        from sklearn.metrics.pairwise import laplacian_kernel

        theirs = SklearnKernelPCA(3, kernel="precomputed").fit(laplacian_kernel(X, gamma=1 / d))
        Z_theirs = theirs.transform(laplacian_kernel(X[:7], X, gamma=1 / d))
        assert named.gamma_ == 1 / d
    else:
        theirs = SklearnKernelPCA(3, kernel=name, **params).fit(X)
        Z_theirs = theirs.transform(X[:7])
        assert name in ("linear", "cosine") or named.gamma_ == theirs.gamma_
    np.testing.assert_allclose(named.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)
    assert_equal_up_to_sign(named.transform(X[:7]), Z_theirs, atol=1e-9)


def test_kernel_params_reach_a_kernel_function(wine):
    def scaled_rbf(A, B, width):
        return kl.Gaussian(c=width)(A, B)

    ours = kl.KernelPCA(2, kernel=scaled_rbf, kernel_params={"width": 7.0}).fit(wine)
    np.testing.assert_allclose(ours.eigenvalues_, kl.KernelPCA(2, kernel=kl.Gaussian(c=7.0)).fit(wine).eigenvalues_,
                               rtol=1e-12)
    # scikit-learn calls a kernel function on one pair of samples at a time
    def scaled_rbf_pair(a, b, width):
        return np.exp(-np.sum((a - b) ** 2) / width)

    theirs = SklearnKernelPCA(2, kernel=scaled_rbf_pair, kernel_params={"width": 7.0}).fit(wine)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)


def test_named_gaussian_denoises_like_the_object():
    data = kl.datasets.denoising_toy(n_features=2, sigma=0.1, random_state=0)
    c = 2 * 2 * 0.1**2
    named = kl.KernelPCA(4, kernel="rbf", gamma=1 / c).fit(data.X_train)
    by_object = kl.KernelPCA(4, kernel=kl.Gaussian(c=c)).fit(data.X_train)
    np.testing.assert_array_equal(named.denoise(data.X_test[:20]), by_object.denoise(data.X_test[:20]))


def test_randomized_solver_equals_sklearn_for_the_same_seed(wine):
    ours = kl.KernelPCA(4, kernel="rbf", eigen_solver="randomized", random_state=3).fit(wine)
    theirs = SklearnKernelPCA(4, kernel="rbf", eigen_solver="randomized", random_state=3).fit(wine)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-12)
    assert_equal_up_to_sign(ours.eigenvectors_, theirs.eigenvectors_, atol=1e-10)
    # and the exact eigenpairs, to the accuracy the randomized method reaches
    exact = kl.KernelPCA(4, kernel="rbf", eigen_solver="dense").fit(wine)
    np.testing.assert_allclose(ours.eigenvalues_, exact.eigenvalues_, rtol=1e-6)


@pytest.mark.parametrize("solver", ["dense", "arpack", "randomized"])
def test_eigenvectors_are_the_unit_eigenvectors_of_the_centred_kernel(wine, solver):
    model = kl.KernelPCA(3, kernel=kl.Gaussian(c=10.0), eigen_solver=solver, random_state=0).fit(wine)
    n = wine.shape[0]
    H = np.eye(n) - 1.0 / n
    K_c = H @ kl.Gaussian(c=10.0)(wine) @ H
    V = model.eigenvectors_
    np.testing.assert_allclose(V.T @ V, np.eye(3), atol=1e-8)
    np.testing.assert_allclose(K_c @ V, V * model.eigenvalues_, atol=1e-7)
    np.testing.assert_allclose(model.alphas_, V / np.sqrt(model.eigenvalues_))


def test_random_state_seeds_the_arpack_start_vector_as_sklearn_does(wine):
    from sklearn.utils._arpack import _init_arpack_v0

    from kpca_lib import _linalg

    seen = []
    real_eigsh = _linalg.eigsh

    def recording_eigsh(*args, v0=None, **kwargs):
        seen.append(v0.copy())
        return real_eigsh(*args, v0=v0, **kwargs)

    _linalg.eigsh = recording_eigsh
    try:
        for seed in (None, None, 5):
            kl.KernelPCA(2, kernel="rbf", eigen_solver="arpack", random_state=seed).fit(wine)
    finally:
        _linalg.eigsh = real_eigsh
    np.testing.assert_array_equal(seen[0], seen[1])  # None: a fixed start, refits identical
    np.testing.assert_array_equal(seen[2], _init_arpack_v0(wine.shape[0], 5))


@pytest.mark.parametrize("form", [sparse.csr_matrix, sparse.csc_matrix])
@pytest.mark.parametrize("kernel", [kl.Gaussian(c=5.0), kl.Polynomial(degree=2), kl.Linear(),
                                    kl.Cosine(), kl.Laplacian(c=5.0), "rbf", "sigmoid"], ids=repr)
def test_sparse_samples_give_the_dense_result(form, kernel):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 12)) * (rng.random((40, 12)) < 0.3)
    X_sparse = form(X)
    dense = kl.KernelPCA(3, kernel=kernel).fit(X)
    model = kl.KernelPCA(3, kernel=kernel).fit(X_sparse)
    assert sparse.issparse(model.X_fit_)  # never made dense
    np.testing.assert_allclose(model.eigenvalues_, dense.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(model.transform(X_sparse[:5]), dense.transform(X[:5]), atol=1e-10)
    np.testing.assert_allclose(model.transform(X[:5]), dense.transform(X[:5]), atol=1e-10)
    if isinstance(kernel, str):
        theirs = SklearnKernelPCA(3, kernel=kernel).fit(X_sparse)
        np.testing.assert_allclose(model.eigenvalues_, theirs.eigenvalues_, rtol=1e-10)


def test_sparse_gaussian_model_denoises():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    dense = kl.KernelPCA(2, kernel=kl.Gaussian(c=4.0)).fit(X)
    model = kl.KernelPCA(2, kernel=kl.Gaussian(c=4.0)).fit(sparse.csr_matrix(X))
    np.testing.assert_allclose(model.denoise(X[:4]), dense.denoise(X[:4]), atol=1e-10)


@pytest.mark.parametrize(
    ("kwargs", "X", "match"),
    [
        ({"kernel": "precomputed"}, sparse.csr_matrix(np.eye(4)), "precomputed kernel matrix must be a dense"),
        ({"fit_inverse_transform": True}, sparse.csr_matrix(np.eye(4)), "learned pre-image map"),
    ],
)
def test_sparse_samples_where_they_cannot_go_get_a_clear_error(kwargs, X, match):
    # (the Nystroem fit reads sparse samples by chunks of rows: tests/test_nystroem.py)
    with pytest.raises(TypeError, match=f"X is a scipy.sparse matrix, but .*{match}"):
        kl.KernelPCA(2, **kwargs).fit(X)


def test_bad_sparse_samples_get_a_clear_error():
    X = sparse.csr_matrix(np.array([[1.0, 0.0], [0.0, np.nan], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="NaN"):
        kl.KernelPCA(1, kernel="rbf").fit(X)
    model = kl.KernelPCA(1, kernel="rbf").fit(sparse.csr_matrix(np.eye(3)))
    with pytest.raises(ValueError, match="3 features"):
        model.transform(sparse.csr_matrix(np.eye(2)))
