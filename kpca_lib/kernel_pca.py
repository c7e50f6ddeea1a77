"""Kernel PCA: PCA in the feature space of a kernel, through its Gram matrix.

With the training samples mapped to ``phi(x_1), ..., phi(x_n)`` and centred
in feature space, a principal direction is ``V = sum_i alpha_i phi(x_i)``.
The eigenproblem of the feature-space covariance becomes the eigenproblem of
the centred kernel matrix,

    K_c beta_k = mu_k beta_k,   K_c = K - 1_n K - K 1_n + 1_n K 1_n,

with ``1_n`` the n x n matrix of entries 1/n and ``mu_k = n lambda_k``.
``V_k`` has unit norm when ``alpha_k^T K_c alpha_k = 1``, that is
``alpha_k = beta_k / sqrt(mu_k)``. The projection of a point x on ``V_k`` is
``sum_i alpha_i^k k_c(x, x_i)``, with the test kernel centred by the
training means (``sklearn.preprocessing.KernelCenterer``).
"""

import warnings

import numpy as np
from scipy.linalg import eigvalsh
from scipy.linalg.blas import dsymv
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.preprocessing import KernelCenterer
from sklearn.utils.extmath import svd_flip
from sklearn.utils.validation import check_is_fitted, validate_data

from . import preimage
from ._linalg import numerical_rank, top_eigh
from ._validation import check_n_components
from .kernels import Gaussian, NotPSDWarning

__all__ = ["KernelPCA"]

_SOLVERS = ("auto", "dense", "arpack")
# relative size below which a negative eigenvalue is round-off, as in is_psd
_NEGATIVE_EIGENVALUE_RTOL = 1e-10


def _top_eigenpairs(K_c, q, solver):
    """The q largest eigenpairs of the symmetric K_c, in descending order."""
    n = K_c.shape[0]
    if solver == "arpack":
        # symv reads one triangle of K_c: half the memory traffic of K_c @ v,
        # which bounds the cost of Lanczos; K_c.T is the same symmetric
        # matrix in the Fortran order BLAS wants, so nothing is copied
        K_fortran = K_c.T

        def matvec(v):
            return dsymv(1.0, K_fortran, np.ravel(v))

        operator = LinearOperator((n, n), matvec=matvec, dtype=np.float64)
        # a fixed start vector keeps refits identical; not the constant
        # vector, which lies in the null space of a centred kernel
        v0 = np.random.default_rng(0).uniform(-1.0, 1.0, n)
        eigenvalues, eigenvectors = eigsh(operator, k=q, which="LA", v0=v0)
        order = np.argsort(eigenvalues)[::-1]
        return eigenvalues[order], eigenvectors[:, order]
    return top_eigh(K_c, q)


class KernelPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kernel principal component analysis.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components q, at most the number of positive eigenvalues
        of the centred kernel matrix (itself at most n - 1). ``None`` keeps
        every component with a positive eigenvalue.
    kernel : callable, default=Gaussian(c=1.0)
        A kernel ``kernel(X, Y)`` returning the Gram matrix, such as
        :class:`~kpca_lib.Gaussian`, :class:`~kpca_lib.Polynomial`, or a
        function of your own.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        ``"dense"``: ``scipy.linalg.eigh`` restricted to the q largest
        eigenpairs; ``"arpack"``: ``scipy.sparse.linalg.eigsh`` (Lanczos),
        faster when q is small and n large; ``"auto"``: arpack when
        n > 200 and q < 10, dense otherwise.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        The q largest eigenvalues ``mu_k = n lambda_k`` of the centred
        kernel matrix, in decreasing order.
    alphas_ : ndarray of shape (n_samples, n_components)
        The normalised dual coefficients ``alpha_k = beta_k / sqrt(mu_k)`` as
        columns, so that each feature-space component has unit norm. Signs
        are fixed so that the largest entry in absolute value of each
        eigenvector is positive.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training samples, needed to evaluate the kernel on new points.
    centerer_ : sklearn.preprocessing.KernelCenterer
        Holds the training kernel's column means, which centre both the
        training and test kernels.
    n_components_ : int
        The number of components q.
    n_features_in_ : int
        Number of features seen during fit.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca_lib import Gaussian, KernelPCA
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> kpca = KernelPCA(n_components=2, kernel=Gaussian(c=2.0)).fit(X)
    >>> kpca.eigenvalues_.round(4)
    array([0.6321, 0.6321])
    """

    def __init__(self, n_components=None, kernel=Gaussian(c=1.0), eigen_solver="auto"):
        self.n_components = n_components
        self.kernel = kernel
        self.eigen_solver = eigen_solver

    def _check_params(self):
        if not callable(self.kernel):
            raise TypeError(
                "kernel must be a callable kernel(X, Y) such as "
                f"kpca_lib.Gaussian(c=1.0), got {self.kernel!r}."
            )
        if self.eigen_solver not in _SOLVERS:
            raise ValueError(
                f"eigen_solver must be one of {_SOLVERS}, got {self.eigen_solver!r}."
            )

    def _gram(self, X, Y):
        """The kernel matrix, checked for shape and finiteness."""
        K = np.asarray(self.kernel(X, Y), dtype=np.float64, order="C")
        expected = (X.shape[0], Y.shape[0])
        if K.shape != expected:
            raise ValueError(
                f"kernel returned a matrix of shape {K.shape}, expected {expected}."
            )
        if not np.all(np.isfinite(K)):
            raise ValueError(f"kernel {self.kernel!r} returned NaN or infinity.")
        return K

    def _warn_if_not_psd(self, K_c, largest):
        """Report significant negative eigenvalues of a kernel not known PSD."""
        if getattr(self.kernel, "is_psd", False) is True:
            return
        n = K_c.shape[0]
        smallest = eigvalsh(K_c, subset_by_index=[0, 0])[0]
        if smallest < -_NEGATIVE_EIGENVALUE_RTOL * max(abs(largest), abs(smallest)):
            warnings.warn(
                f"The centred kernel matrix of {self.kernel!r} has significant "
                f"negative eigenvalues (smallest {smallest:.4g}, largest "
                f"{largest:.4g}, n={n}): the kernel is not positive "
                "semi-definite on these data, so it has no feature space with "
                "an inner product. Only components with positive eigenvalues "
                "are kept.",
                NotPSDWarning,
                stacklevel=3,
            )

    def fit(self, X, y=None):
        """Fit the model: centre the kernel matrix and solve its eigenproblem.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples as rows; at least two, all finite.
        y : None
            Ignored.

        Returns
        -------
        self : KernelPCA
            The fitted estimator.
        """
        self._check_params()
        # a copy: X_fit_ must not change when the caller's array does
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2, copy=True)
        n = X.shape[0]
        q_max = n - 1  # centring in feature space removes one dimension
        q = check_n_components(self.n_components, q_max, f"n_samples - 1 = {q_max}")

        K = self._gram(X, X)
        K_scale = max(K.max(), -K.min())  # the round-off of centring scales with it
        centerer = KernelCenterer().fit(K)
        K_c = centerer.transform(K, copy=False)  # in place: K is not needed again

        solver = self.eigen_solver
        if solver == "auto":
            solver = "arpack" if n > 200 and q < 10 else "dense"
        if self.n_components is None or solver == "arpack" and q >= n - 1:
            solver = "dense"  # eigsh cannot return all eigenpairs
        eigenvalues, betas = _top_eigenpairs(K_c, q, solver)
        self._warn_if_not_psd(K_c, eigenvalues[0])

        # components of zero or negative eigenvalue have no unit-norm alpha
        rank = numerical_rank(eigenvalues, n, scale=K_scale)
        if self.n_components is None:
            q = rank
        if rank == 0:
            raise ValueError(
                "The centred kernel matrix has no positive eigenvalue: all "
                "samples are the same point in feature space."
            )
        if rank < q:
            raise ValueError(
                f"n_components={q} is larger than the rank allows: the centred "
                f"kernel matrix has only {rank} positive eigenvalues."
            )
        # flip signs to enforce deterministic output
        betas, _ = svd_flip(np.ascontiguousarray(betas[:, :q]), None)

        self.eigenvalues_ = eigenvalues[:q]
        self.alphas_ = betas / np.sqrt(self.eigenvalues_)
        self.X_fit_ = X
        self.centerer_ = centerer
        self.n_components_ = q
        self._n_features_out = q
        return self

    def fit_transform(self, X, y=None):
        """Fit the model and return the projections of the training samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples as rows.
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            ``K_c alpha_k = mu_k alpha_k``, so no kernel is recomputed.
        """
        return self.fit(X).alphas_ * self.eigenvalues_

    def transform(self, X):
        """Project samples on the feature-space components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples as rows, with as many features as at fit.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            ``Z = K_c(X, X_fit_) @ alphas_`` with the test kernel centred by
            the training means.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        K_test = self._gram(X, self.X_fit_)
        return self.centerer_.transform(K_test, copy=False) @ self.alphas_

    def denoise(
        self,
        X,
        n_components=None,
        max_iter=100,
        tol=1e-6,
        Z0=None,
        max_restarts=3,
        random_state=0,
        return_result=False,
        return_history=False,
    ):
        """De-noise samples: project them, then find pre-images in input space.

        The projection ``P phi(x)`` on the first q components is mapped back
        by the fixed-point iteration of Mika et al. (1999), see
        :func:`kpca_lib.preimage.gaussian_fixed_point`. Needs the Gaussian
        kernel.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The noisy samples.
        n_components : int or None, default=None
            Use the first q <= ``n_components_`` components, so that one fit
            serves every q. ``None`` uses all of them.
        max_iter : int, default=100
            Iterations at most, per point.
        tol : float, default=1e-6
            A point has converged when its step is at most ``tol`` times the
            scale of the training data.
        Z0 : array-like of shape (n_samples, n_features), default=None
            Starting points; ``None`` starts from ``X`` itself.
        max_restarts : int, default=3
            Restarts per point when the denominator vanishes.
        random_state : int, default=0
            Seed of the perturbations of the restarts.
        return_result : bool, default=False
            Return the full :class:`~kpca_lib.preimage.PreimageResult`
            instead of the pre-images only.
        return_history : bool, default=False
            Record the iterates and the objective rho in the result, for
            convergence plots; implies ``return_result``.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_features)
            The pre-images (or the full result, see ``return_result``).
        """
        check_is_fitted(self)
        if not isinstance(self.kernel, Gaussian):
            raise TypeError(
                "denoise needs the Gaussian kernel: the fixed-point iteration "
                f"is derived for it, and this model uses {self.kernel!r}."
            )
        q = check_n_components(
            n_components, self.n_components_, "the number of fitted components"
        )
        X = validate_data(self, X, dtype=np.float64, reset=False)
        beta = self.transform(X)[:, :q]
        gamma = preimage.gamma_weights(self.alphas_[:, :q], beta)
        result = preimage.gaussian_fixed_point(
            self.X_fit_,
            gamma,
            self.kernel.c,
            X if Z0 is None else Z0,
            max_iter=max_iter,
            tol=tol,
            max_restarts=max_restarts,
            random_state=random_state,
            return_history=return_history,
        )
        return result if return_result or return_history else result.Z
