"""Eigen-decomposition helpers shared by PCA and kernel PCA."""

import warnings

import numpy as np
from scipy.linalg import eigh
from scipy.linalg.blas import dsymv
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.extmath import randomized_svd

_EPS = np.finfo(np.float64).eps


def top_eigh(A, q):
    """The q largest eigenpairs of the symmetric matrix A, in descending order.

    Parameters
    ----------
    A : ndarray of shape (m, m)
        A symmetric matrix (LAPACK reads one triangle).
    q : int
        How many eigenpairs, 1 <= q <= m.

    Returns
    -------
    eigenvalues : ndarray of shape (q,)
        Largest first.
    eigenvectors : ndarray of shape (m, q)
        The matching unit eigenvectors as columns.
    """
    m = A.shape[0]
    eigenvalues, eigenvectors = eigh(A, subset_by_index=[m - q, m - 1])
    return eigenvalues[::-1], eigenvectors[:, ::-1]


def top_eigsh(A, q, *, tol=0.0, max_iter=None, random_state=None):
    """The q largest eigenpairs of the symmetric float64 A by Lanczos (ARPACK).

    When ARPACK does not converge, a ``ConvergenceWarning`` says so and the
    dense solver :func:`top_eigh` gives the answer instead.

    Parameters
    ----------
    A : ndarray of shape (m, m), float64, C-contiguous
        A symmetric matrix (one triangle is read).
    q : int
        How many eigenpairs, 1 <= q < m.
    tol : float, default=0.0
        ARPACK's relative accuracy; 0 means machine precision.
    max_iter : int or None, default=None
        ARPACK's iteration limit; ``None`` means ARPACK's default, 10 m.
    random_state : int, RandomState instance or None, default=None
        Seed of the start vector, drawn uniformly in [-1, 1]^m as
        scikit-learn draws it (the same vector for the same seed). ``None``
        means a fixed vector, so that refits are identical (scikit-learn's
        ``None`` draws from numpy's global generator).

    Returns
    -------
    eigenvalues : ndarray of shape (q,)
        Largest first.
    eigenvectors : ndarray of shape (m, q)
        The matching unit eigenvectors as columns.
    """
    m = A.shape[0]
    # symv reads one triangle of A: half the memory traffic of A @ v, which
    # bounds the cost of Lanczos; A.T is the same symmetric matrix in the
    # Fortran order BLAS wants, so nothing is copied
    A_fortran = A.T

    def matvec(v):
        return dsymv(1.0, A_fortran, np.ravel(v))

    operator = LinearOperator((m, m), matvec=matvec, dtype=np.float64)
    # a fixed start vector keeps refits identical; not the constant vector,
    # which lies in the null space of a centred kernel
    if random_state is None:
        v0 = np.random.default_rng(0).uniform(-1.0, 1.0, m)
    else:
        v0 = check_random_state(random_state).uniform(-1.0, 1.0, m)
    try:
        eigenvalues, eigenvectors = eigsh(
            operator, k=q, which="LA", v0=v0, tol=tol, maxiter=max_iter
        )
    except ArpackNoConvergence as error:
        warnings.warn(
            f"eigen_solver='arpack' did not converge: ARPACK found "
            f"{len(error.eigenvalues)} of the {q} largest eigenpairs within "
            f"max_iter={max_iter} iterations (tol={tol}). The dense solver "
            "computed them instead; raise max_iter or tol, or pass "
            "eigen_solver='dense', to avoid the wasted work.",
            ConvergenceWarning,
            stacklevel=5,  # the caller of the estimator's fit (fit -> _fit_exact -> _solve)
        )
        return top_eigh(A, q)
    order = np.argsort(eigenvalues)[::-1]
    return eigenvalues[order], eigenvectors[:, order]


def top_randomized_eigh(A, q, *, n_iter="auto", random_state=None):
    """The q eigenpairs of symmetric A largest in modulus, by a randomized SVD.

    Halko, Martinsson and Tropp (2011): a few passes of A times an
    m x (q + 10) block. For symmetric A the SVD's singular vectors are
    eigenvectors, and the sign of ``v_k . u_k`` is the sign of the
    eigenvalue: this is scikit-learn's ``_randomized_eigsh`` with
    ``selection="module"`` (what its ``KernelPCA`` calls), written with the
    public ``randomized_svd``, and gives the same numbers for the same seed.

    Parameters
    ----------
    A : ndarray of shape (m, m)
        A symmetric matrix.
    q : int
        How many eigenpairs, 1 <= q <= m.
    n_iter : int or "auto", default="auto"
        Power iterations (``iterated_power``): 7 when q < 0.1 m, else 4.
    random_state : int, RandomState instance or None, default=None
        Seed of the random block; ``None`` means a fixed seed, 0.

    Returns
    -------
    eigenvalues : ndarray of shape (q,)
        In descending order.
    eigenvectors : ndarray of shape (m, q)
    """
    random_state = 0 if random_state is None else random_state
    U, s, Vt = randomized_svd(A, q, n_iter=n_iter, flip_sign=False, random_state=random_state)
    eigenvalues = s * np.sign(np.einsum("ij,ji->i", Vt, U))
    order = np.argsort(eigenvalues)[::-1]
    return eigenvalues[order], U[:, order]


def numerical_rank(eigenvalues, size, scale=None, eps=_EPS):
    """Number of eigenvalues that are not round-off of a zero.

    Parameters
    ----------
    eigenvalues : ndarray of shape (m,)
        Eigenvalues of a PSD matrix, in descending order.
    size : int
        The matrix size, which scales the round-off.
    scale : float or None, default=None
        Size of the entries the matrix was computed from: a centred kernel
        matrix carries the round-off of the uncentred one. ``None`` means
        the largest eigenvalue.
    eps : float, default=float64 machine epsilon
        Relative precision of the data: float32 data are known only to
        float32's epsilon, whatever the precision of the arithmetic.

    Returns
    -------
    int
        How many eigenvalues exceed ``size * eps * scale``.
    """
    if eigenvalues.size == 0 or eigenvalues[0] <= 0:
        return 0
    if scale is None:
        scale = eigenvalues[0]
    threshold = size * eps * scale
    return int(np.count_nonzero(eigenvalues > threshold))


# relative size below which a negative eigenvalue is round-off, as in is_psd
NEGATIVE_EIGENVALUE_RTOL = 1e-10


def negative_eigenvalue_evidence(A, eigenvalues, scale, rtol):
    """Evidence, from O(m^2) work, that symmetric A has a negative eigenvalue.

    Only the q largest eigenvalues ``mu_1 >= ... >= mu_q`` are known. Two
    tests look for significant negative eigenvalues, those below
    ``-rtol * mu_1``:

    1. one of the computed eigenvalues is;
    2. the m - q others, if all were in ``[0, mu_q]``, would satisfy
       ``sum lambda^2 <= mu_q sum lambda``; their sums come from
       ``trace(A)`` and ``||A||_F^2`` without computing them. When the
       inequality fails, some of them are negative, and the size of the
       failure bounds the most negative one from below.

    A negative eigenvalue hidden among a large positive remainder can pass
    both tests: :func:`kpca_lib.is_psd` is the exact, O(m^3), check.

    Parameters
    ----------
    A : ndarray of shape (m, m)
        The symmetric matrix.
    eigenvalues : ndarray of shape (q,)
        Its q largest eigenvalues, in descending order.
    scale : float
        Size of the entries A was computed from, which sets its round-off.
    rtol : float
        Relative size below which a negative eigenvalue is round-off.

    Returns
    -------
    str or None
        What shows a significant negative eigenvalue, or None.
    """
    m, q = A.shape[0], eigenvalues.size
    largest = max(eigenvalues[0], 0.0)
    if eigenvalues[-1] < -rtol * max(largest, -eigenvalues[-1]):
        return f"smallest computed eigenvalue {eigenvalues[-1]:.4g}, largest {largest:.4g}"
    if q == m:
        return None
    mu_q = max(eigenvalues[-1], 0.0)
    rest_sum = np.trace(A) - eigenvalues.sum()
    squares = np.dot(A.ravel(), A.ravel())
    rest_squares = squares - np.dot(eigenvalues, eigenvalues)
    excess = rest_squares - mu_q * rest_sum
    # round-off of the sums, and of A itself: entries off by eps * scale
    # move eigenvalues by up to m eps scale
    round_off = 10 * m * _EPS * (squares + mu_q * (abs(np.trace(A)) + np.abs(eigenvalues).sum()))
    round_off += 10 * (m - q) * m * _EPS * scale * (m * _EPS * scale + mu_q)
    if excess <= round_off:
        return None
    # (m - q) |lambda_min| (|lambda_min| + mu_q) >= excess gives a lower bound
    bound = (-mu_q + np.sqrt(mu_q**2 + 4 * excess / (m - q))) / 2
    if bound <= rtol * largest:
        return None
    return (
        f"some eigenvalue is at most {-bound:.4g} (largest {largest:.4g}): the "
        f"{m - q} eigenvalues not computed have squares summing to "
        f"{rest_squares:.4g}, more than mu_q = {mu_q:.4g} times their sum "
        f"{rest_sum:.4g}, which no set of non-negative eigenvalues below mu_q allows"
    )
