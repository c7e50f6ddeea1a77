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
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import KernelCenterer
from sklearn.utils.extmath import svd_flip
from sklearn.utils.validation import check_is_fitted, validate_data

from . import preimage
from ._linalg import negative_eigenvalue_evidence, numerical_rank, top_eigh, top_eigsh
from ._validation import check_int, check_n_components, check_real
from .kernels import Gaussian, Linear, NotPSDWarning, Polynomial, Sigmoid

__all__ = ["KernelPCA"]

_SOLVERS = ("auto", "dense", "arpack")
_METHODS = ("fixed_point", "learned")
_FLOAT_DTYPES = [np.float64, np.float32]
_BUILTIN_KERNELS = (Linear, Polynomial, Gaussian, Sigmoid)
# relative size below which a negative eigenvalue is round-off, as in is_psd
_NEGATIVE_EIGENVALUE_RTOL = 1e-10


def _known_psd(kernel):
    """Whether the kernel declares every Gram matrix PSD (numpy booleans count)."""
    flag = getattr(kernel, "is_psd", False)
    return isinstance(flag, (bool, np.bool_)) and bool(flag)


class KernelPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kernel principal component analysis.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components q, at most the number of positive eigenvalues
        of the centred kernel matrix (itself at most n - 1). ``None`` keeps
        every component with a positive eigenvalue.
    kernel : callable or "precomputed", default=Gaussian(c=1.0)
        A kernel ``kernel(X, Y)`` returning the Gram matrix, such as
        :class:`~kpca_lib.Gaussian`, :class:`~kpca_lib.Polynomial`, or a
        function of your own; or ``"precomputed"``, when ``fit`` receives the
        n x n kernel matrix of the training samples and ``transform`` the
        m x n kernel matrix between new and training samples. The kernel's
        parameters are parameters of the estimator (``kernel__c``).
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        ``"dense"``: ``scipy.linalg.eigh`` restricted to the q largest
        eigenpairs; ``"arpack"``: ``scipy.sparse.linalg.eigsh`` (Lanczos),
        faster when q is small and n large; ``"auto"``: arpack when
        n > 200 and q < 10, dense otherwise.
    alpha : float, default=1.0
        The ridge of the learned pre-image map (Bakir et al., 2004), used
        only with ``fit_inverse_transform=True``, as in scikit-learn. Not to
        be confused with the dual coefficients ``alphas_``.
    fit_inverse_transform : bool, default=False
        Learn the pre-image map, for :meth:`inverse_transform` and
        ``denoise(method="learned")``.
    tol : float, default=0.0
        Relative accuracy of ARPACK; 0 means machine precision.
    max_iter : int or None, default=None
        Iteration limit of ARPACK; ``None`` means ARPACK's default. When
        ARPACK does not converge, a ``ConvergenceWarning`` says so and the
        dense solver is used.

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
        The training samples, needed to evaluate the kernel on new points
        (not stored with a precomputed kernel).
    centerer_ : sklearn.preprocessing.KernelCenterer
        Holds the training kernel's column means, which centre both the
        training and test kernels.
    X_transformed_fit_ : ndarray of shape (n_samples, n_components)
        Projections of the training samples (with ``fit_inverse_transform``).
    dual_coef_ : ndarray of shape (n_samples, n_features)
        Coefficients of the learned pre-image map (with
        ``fit_inverse_transform``).
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

    def __init__(
        self,
        n_components=None,
        kernel=Gaussian(c=1.0),
        eigen_solver="auto",
        *,
        alpha=1.0,
        fit_inverse_transform=False,
        tol=0.0,
        max_iter=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.eigen_solver = eigen_solver
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.tol = tol
        self.max_iter = max_iter

    def set_params(self, **params):
        """Set parameters; ``kernel__<name>`` changes a copy of the kernel.

        The copy keeps a kernel shared with other estimators (such as the
        default ``Gaussian(c=1.0)``) unchanged.

        Parameters
        ----------
        **params
            Estimator parameters, and kernel parameters as ``kernel__c``.

        Returns
        -------
        self : KernelPCA
        """
        kernel_params = {k.split("__", 1)[1]: v for k, v in params.items() if k.startswith("kernel__")}
        super().set_params(**{k: v for k, v in params.items() if not k.startswith("kernel__")})
        if kernel_params:
            if not hasattr(self.kernel, "set_params"):
                raise ValueError(
                    f"kernel {self.kernel!r} has no parameters to set, got "
                    f"{sorted('kernel__' + k for k in kernel_params)}."
                )
            self.kernel = clone(self.kernel).set_params(**kernel_params)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.pairwise = self._precomputed
        return tags

    @property
    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _check_params(self):
        if not (callable(self.kernel) or self._precomputed):
            raise TypeError(
                "kernel must be a callable kernel(X, Y) such as "
                f"kpca_lib.Gaussian(c=1.0), or 'precomputed', got {self.kernel!r}."
            )
        if self.eigen_solver not in _SOLVERS:
            raise ValueError(
                f"eigen_solver must be one of {_SOLVERS}, got {self.eigen_solver!r}."
            )
        check_real(self.alpha, "alpha", minimum=0)
        check_real(self.tol, "tol", minimum=0)
        if self.max_iter is not None:
            check_int(self.max_iter, "max_iter", minimum=1)
        if self.fit_inverse_transform and self._precomputed:
            raise ValueError("Cannot fit_inverse_transform with a precomputed kernel.")

    def _gram(self, X, Y=None):
        """The kernel matrix as a new float64 array, checked for shape and finiteness.

        The array is the estimator's own, to centre in place: a precomputed
        matrix, or a callable that returns a stored matrix, must not see it
        changed.
        """
        if self._precomputed:
            return np.array(X, dtype=np.float64, order="C")
        result = self.kernel(X, X if Y is None else Y)
        # the built-in kernels return a new array; anything else is copied
        copy = None if type(self.kernel) in _BUILTIN_KERNELS else True
        K = np.array(result, dtype=np.float64, order="C", copy=copy)
        expected = (X.shape[0], (X if Y is None else Y).shape[0])
        if K.shape != expected:
            raise ValueError(f"kernel returned a matrix of shape {K.shape}, expected {expected}.")
        if not np.all(np.isfinite(K)):
            raise ValueError(f"kernel {self.kernel!r} returned NaN or infinity.")
        return K

    def _warn_if_not_psd(self, K_c, eigenvalues, K_scale):
        """Report significant negative eigenvalues of a kernel not known PSD.

        O(n^2): the computed spectrum and a trace test, never a full
        eigendecomposition (see ``negative_eigenvalue_evidence``).
        """
        if _known_psd(self.kernel):
            return
        evidence = negative_eigenvalue_evidence(K_c, eigenvalues, K_scale, _NEGATIVE_EIGENVALUE_RTOL)
        if evidence is not None:
            warnings.warn(
                f"The centred kernel matrix of {self.kernel!r} has significant "
                f"negative eigenvalues ({evidence}; n={K_c.shape[0]}): the kernel "
                "is not positive semi-definite on these data, so it has no "
                "feature space with an inner product. Only components with "
                "positive eigenvalues are kept.",
                NotPSDWarning,
                stacklevel=3,
            )

    def _solve(self, K_c, q):
        """The q largest eigenpairs of K_c by the chosen solver."""
        n = K_c.shape[0]
        solver = self.eigen_solver
        if solver == "auto":
            solver = "arpack" if n > 200 and q < 10 else "dense"
        if self.n_components is None or solver == "arpack" and q >= n - 1:
            solver = "dense"  # eigsh cannot return all eigenpairs
        if solver == "arpack":
            return top_eigsh(K_c, q, tol=self.tol, max_iter=self.max_iter)
        return top_eigh(K_c, q)

    def fit(self, X, y=None):
        """Fit the model: centre the kernel matrix and solve its eigenproblem.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples as rows; at least two, all finite. With
            ``kernel="precomputed"``, the n x n kernel matrix.
        y : None
            Ignored.

        Returns
        -------
        self : KernelPCA
            The fitted estimator.
        """
        self._check_params()
        # a copy: X_fit_ must not change when the caller's array does
        X = validate_data(self, X, dtype=_FLOAT_DTYPES, ensure_min_samples=2, copy=True)
        n = X.shape[0]
        if self._precomputed and X.shape[1] != n:
            raise ValueError(f"A precomputed kernel matrix must be square, got shape {X.shape}.")
        q_max = n - 1  # centring in feature space removes one dimension
        q = check_n_components(self.n_components, q_max, f"n_samples - 1 = {q_max}")

        K = self._gram(X)
        K_scale = max(K.max(), -K.min())  # the round-off of centring scales with it
        # the centring is internal: never a DataFrame, whatever set_output says
        centerer = KernelCenterer().set_output(transform="default").fit(K)
        K_c = centerer.transform(K, copy=False)  # in place: K is not needed again

        eigenvalues, betas = self._solve(K_c, q)
        self._warn_if_not_psd(K_c, eigenvalues, K_scale)
        del K, K_c

        # components of zero or negative eigenvalue have no unit-norm alpha
        # float32 samples are known to float32's precision only: so is the rank
        rank = numerical_rank(eigenvalues, n, scale=K_scale, eps=np.finfo(X.dtype).eps)
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
        if not self._precomputed:
            self.X_fit_ = X
        self.centerer_ = centerer
        self.n_components_ = q
        self._fit_dtype = X.dtype
        self._n_features_out = q
        if self.fit_inverse_transform:
            self.X_transformed_fit_ = self.alphas_ * self.eigenvalues_
            self.dual_coef_ = preimage.fit_learned_preimage(
                self.X_transformed_fit_, X.astype(np.float64), self.kernel, self.alpha
            )
        return self

    def fit_transform(self, X, y=None):
        """Fit the model and return the projections of the training samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples as rows (the kernel matrix if precomputed).
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            ``K_c alpha_k = mu_k alpha_k``, so no kernel is recomputed.
            float32 when X is float32.
        """
        Z = self.fit(X).alphas_ * self.eigenvalues_
        return Z.astype(self._fit_dtype, copy=False)

    def _project(self, X):
        """Projections of validated samples as a float64 ndarray (never wrapped)."""
        K_test = self._gram(X, None if self._precomputed else self.X_fit_)
        return self.centerer_.transform(K_test, copy=False) @ self.alphas_

    def transform(self, X):
        """Project samples on the feature-space components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples as rows, with as many features as at fit; with a
            precomputed kernel, the kernel matrix between the samples and
            the training samples.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            ``Z = K_c(X, X_fit_) @ alphas_`` with the test kernel centred by
            the training means; float32 when X is float32.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=_FLOAT_DTYPES, reset=False)
        return self._project(X).astype(X.dtype, copy=False)

    def inverse_transform(self, Z):
        """Map projections back to input space by the learned pre-image map.

        Kernel ridge regression from projections to points (Bakir et al.,
        2004), fitted with ``fit_inverse_transform=True``: the same as
        scikit-learn's ``KernelPCA.inverse_transform`` with the same kernel
        and ridge ``alpha``.

        Parameters
        ----------
        Z : array-like of shape (n_samples, n_components)
            Projections, as returned by :meth:`transform`.

        Returns
        -------
        X_hat : ndarray of shape (n_samples, n_features)
            The pre-images; float32 when Z is float32.
        """
        check_is_fitted(self)
        self._check_learned()
        dtype = np.float32 if np.asarray(Z).dtype == np.float32 else np.float64
        Z = self._check_projections(Z, self.n_components_)
        X_hat = preimage.learned_preimage(Z, self.X_transformed_fit_, self.dual_coef_, self.kernel)
        return X_hat.astype(dtype, copy=False)

    def _check_learned(self):
        if not self.fit_inverse_transform or not hasattr(self, "dual_coef_"):
            raise NotFittedError(
                "The learned pre-image map was not fitted: construct the model "
                "with fit_inverse_transform=True (and a ridge alpha) and fit it."
            )

    @staticmethod
    def _check_projections(Z, q):
        Z = np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[1] != q:
            raise ValueError(f"Z must have shape (n_samples, {q}), got {Z.shape}.")
        if not np.all(np.isfinite(Z)):
            raise ValueError("Z contains NaN or infinity.")
        return Z

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
        method="fixed_point",
    ):
        """De-noise samples: project them, then find pre-images in input space.

        The projection ``P phi(x)`` on the first q components is mapped back
        to input space by one of two methods:

        * ``"fixed_point"``: the fixed-point iteration of Mika et al. (1999),
          see :func:`kpca_lib.preimage.gaussian_fixed_point`. Needs the
          Gaussian kernel.
        * ``"learned"``: the learned pre-image map of Bakir et al. (2004),
          see :meth:`inverse_transform`. Needs ``fit_inverse_transform=True``;
          with q below ``n_components_`` the map is fitted anew on the first
          q projections (one n x n solve).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The noisy samples.
        n_components : int or None, default=None
            Use the first q <= ``n_components_`` components, so that one fit
            serves every q. ``None`` uses all of them.
        max_iter : int, default=100
            Iterations at most, per point (fixed point only).
        tol : float, default=1e-6
            A point has converged when its step is at most ``tol`` times the
            scale of the training data (fixed point only).
        Z0 : array-like of shape (n_samples, n_features), default=None
            Starting points; ``None`` starts from ``X`` itself (fixed point
            only).
        max_restarts : int, default=3
            Restarts per point when the denominator vanishes (fixed point
            only).
        random_state : int, default=0
            Seed of the perturbations of the restarts (fixed point only).
        return_result : bool, default=False
            Return the full :class:`~kpca_lib.preimage.PreimageResult`
            instead of the pre-images only (fixed point only).
        return_history : bool, default=False
            Record the iterates and the objective rho in the result, for
            convergence plots; implies ``return_result`` (fixed point only).
        method : {"fixed_point", "learned"}, default="fixed_point"
            How the pre-images are found.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_features)
            The pre-images (or the full result, see ``return_result``).
        """
        check_is_fitted(self)
        if method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {method!r}.")
        q = check_n_components(n_components, self.n_components_, "the number of fitted components")
        X = validate_data(self, X, dtype=_FLOAT_DTYPES, reset=False)
        if method == "learned":
            return self._denoise_learned(X, q, return_result or return_history)
        if not isinstance(self.kernel, Gaussian):
            raise TypeError(
                "denoise needs the Gaussian kernel: the fixed-point iteration "
                f"is derived for it, and this model uses {self.kernel!r}. "
                "method='learned' works for every kernel."
            )
        beta = self._project(X)[:, :q]
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
        if return_result or return_history:
            return result
        return result.Z.astype(X.dtype, copy=False)

    def _denoise_learned(self, X, q, wants_result):
        """Pre-images of the first q projections by the learned map."""
        if wants_result:
            raise ValueError(
                "return_result and return_history describe the fixed-point "
                "iteration; method='learned' returns the pre-images only."
            )
        self._check_learned()
        beta = self._project(X)[:, :q]
        Z_fit = self.X_transformed_fit_[:, :q]
        if q == self.n_components_:
            dual_coef = self.dual_coef_
        else:
            dual_coef = preimage.fit_learned_preimage(Z_fit, self.X_fit_.astype(np.float64), self.kernel, self.alpha)
        return preimage.learned_preimage(beta, Z_fit, dual_coef, self.kernel).astype(X.dtype, copy=False)
