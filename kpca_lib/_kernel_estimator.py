"""The kernel as a parameter of an estimator: resolved at fit, nested parameters, checked Gram matrices.

The estimator's ``kernel`` is the book's kernel object (or any callable
``kernel(X, Y)``), one of scikit-learn's kernel names, ``"precomputed"``, or
``None`` (the book's default, ``Gaussian(c=1.0)``). ``fit`` resolves it into
the fitted model's own kernel, ``kernel_``, which ``transform``,
``inverse_transform`` and ``denoise`` use: changing ``kernel`` (or the
object passed as ``kernel``) after fit changes nothing until the next fit,
as with scikit-learn's ``gamma_``.
"""

import warnings
from functools import partial

import numpy as np
from sklearn.base import clone

from ._linalg import (
    NEGATIVE_EIGENVALUE_RTOL,
    negative_eigenvalue_evidence,
    top_eigh,
    top_eigsh,
    top_randomized_eigh,
)
from ._validation import check_int, check_real, known_psd
from .kernels import Cosine, Gaussian, Laplacian, Linear, NotPSDWarning, Polynomial, Sigmoid

__all__ = ["KernelMixin", "STRING_KERNELS", "resolve_kernel"]

_BUILTIN_KERNELS = (Linear, Polynomial, Gaussian, Sigmoid, Laplacian, Cosine)
# scikit-learn's names, and the parameters each reads
STRING_KERNELS = ("linear", "poly", "rbf", "sigmoid", "cosine", "laplacian")
_SOLVERS = ("auto", "dense", "arpack", "randomized")
_APPROXIMATIONS = (None, "nystroem")


def resolve_kernel(kernel, *, gamma, degree, coef0, kernel_params, n_features):
    """The kernel a fit uses: a new object, never one shared with the caller.

    Parameters
    ----------
    kernel : Kernel, callable, str or None
        ``None`` means ``Gaussian(c=1.0)``; a scikit-learn name maps to the
        kernel object with the same values: ``"rbf"`` to ``Gaussian(c=1 /
        gamma)``, ``"laplacian"`` to ``Laplacian(c=1 / gamma)``, ``"poly"``
        to ``Polynomial(degree, coef0, gamma)``, ``"sigmoid"`` to
        ``Sigmoid(gamma, coef0)``, ``"linear"`` and ``"cosine"`` to
        ``Linear()`` and ``Cosine()``. A kernel object is cloned; any other
        callable is deep-copied (a function stays itself) and, with
        ``kernel_params``, called with them as keyword arguments.
    gamma : float or None
        scikit-learn's ``gamma``; ``None`` means ``1 / n_features``.
    degree, coef0 : float
        scikit-learn's ``degree`` and ``coef0`` (poly and sigmoid).
    kernel_params : dict or None
        Keyword arguments of a callable kernel, as in scikit-learn.
    n_features : int
        The number of features of the training samples.

    Returns
    -------
    kernel_ : Kernel, callable or "precomputed"
    gamma_ : float or None
        The gamma a named kernel used, else None.
    """
    if kernel_params is not None and not isinstance(kernel_params, dict):
        raise TypeError(f"kernel_params must be a dict or None, got {kernel_params!r}.")
    if kernel_params and not (callable(kernel) and not hasattr(kernel, "get_params")):
        raise ValueError(
            "kernel_params are the keyword arguments of a kernel function of your own, "
            f"as in scikit-learn; with kernel={kernel!r}, set its parameters instead "
            "(gamma, degree, coef0, or the kernel object's own)."
        )
    if kernel is None:
        return Gaussian(c=1.0), None
    if isinstance(kernel, str):
        if kernel == "precomputed":
            return kernel, None
        gamma_ = 1.0 / n_features if gamma is None else gamma
        named = {
            "linear": Linear,
            "cosine": Cosine,
            "rbf": lambda: Gaussian(c=1.0 / gamma_),
            "laplacian": lambda: Laplacian(c=1.0 / gamma_),
            "poly": lambda: Polynomial(degree=degree, coef0=coef0, gamma=gamma_),
            "sigmoid": lambda: Sigmoid(gamma=gamma_, coef0=coef0),
        }
        return named[kernel](), gamma_
    copy = clone(kernel, safe=False)  # an object with get_params: cloned; else deep-copied
    return (partial(copy, **kernel_params) if kernel_params else copy), None


class KernelMixin:
    """``kernel__<name>`` parameters, the fitted kernel ``kernel_``, its Gram matrix and eigenpairs."""

    def set_params(self, **params):
        """Set parameters; ``kernel__<name>`` changes a copy of the kernel.

        The copy keeps a kernel shared with other estimators unchanged.
        With ``kernel=None`` (the default), ``kernel__c`` sets the width of
        the default ``Gaussian(c=1.0)``.

        Parameters
        ----------
        **params
            Estimator parameters, and kernel parameters as ``kernel__c``.

        Returns
        -------
        self : estimator
        """
        kernel_params = {k.split("__", 1)[1]: v for k, v in params.items() if k.startswith("kernel__")}
        super().set_params(**{k: v for k, v in params.items() if not k.startswith("kernel__")})
        if kernel_params:
            kernel = Gaussian(c=1.0) if self.kernel is None else self.kernel
            if not hasattr(kernel, "set_params"):
                raise ValueError(
                    f"kernel {kernel!r} has no parameters to set, got "
                    f"{sorted('kernel__' + k for k in kernel_params)}"
                    + (" (a named kernel reads gamma, degree and coef0)." if isinstance(kernel, str) else ".")
                )
            self.kernel = clone(kernel).set_params(**kernel_params)
        return self

    def _check_params(self):
        self._check_kernel()
        if self.eigen_solver not in _SOLVERS:
            raise ValueError(
                f"eigen_solver must be one of {_SOLVERS}, got {self.eigen_solver!r}."
            )
        check_real(self.alpha, "alpha", minimum=0)
        check_real(self.tol, "tol", minimum=0)
        if self.max_iter is not None:
            check_int(self.max_iter, "max_iter", minimum=1)
        if self.iterated_power != "auto":
            check_int(self.iterated_power, "iterated_power", minimum=0)
        if self.gamma is not None:
            check_real(self.gamma, "gamma", minimum=0, strict=True)
        if self.fit_inverse_transform and self._precomputed:
            raise ValueError("Cannot fit_inverse_transform with a precomputed kernel.")
        if self.approximation not in _APPROXIMATIONS:
            raise ValueError(f"approximation must be one of {_APPROXIMATIONS}, got {self.approximation!r}.")
        if self.approximation is not None:
            self._check_nystroem_params()

    def _check_sparse_fit(self):
        """Say which options cannot take sparse samples, and why."""
        for refused, why in (
            (self._precomputed, "a precomputed kernel matrix must be a dense array"),
            (self.fit_inverse_transform, "the learned pre-image map regresses onto dense samples "
                                         "(scikit-learn refuses it too)"),
        ):
            if refused:
                raise TypeError(f"X is a scipy.sparse matrix, but {why}: pass X.toarray().")

    def _warn_if_not_psd(self, K_c, eigenvalues, K_scale):
        """Report significant negative eigenvalues of a kernel not known PSD.

        O(n^2): the computed spectrum and a trace test, never a full
        eigendecomposition (see ``negative_eigenvalue_evidence``).
        """
        if known_psd(self.kernel_):
            return
        evidence = negative_eigenvalue_evidence(K_c, eigenvalues, K_scale, NEGATIVE_EIGENVALUE_RTOL)
        if evidence is not None:
            warnings.warn(
                f"The centred kernel matrix of {self.kernel_!r} has significant "
                f"negative eigenvalues ({evidence}; n={K_c.shape[0]}): the kernel "
                "is not positive semi-definite on these data, so it has no "
                "feature space with an inner product. Only components with "
                "positive eigenvalues are kept.",
                NotPSDWarning,
                stacklevel=4,
            )

    def _check_kernel(self):
        if not (self.kernel is None or callable(self.kernel)
                or isinstance(self.kernel, str) and self.kernel in STRING_KERNELS + ("precomputed",)):
            raise TypeError(
                "kernel must be a callable kernel(X, Y) such as kpca_lib.Gaussian(c=1.0), "
                f"one of {STRING_KERNELS + ('precomputed',)}, or None, got {self.kernel!r}."
            )

    def _resolve_kernel(self, n_features):
        """Set ``kernel_`` (and ``gamma_`` for a named kernel): the fit's own kernel."""
        self.kernel_, gamma_ = resolve_kernel(
            self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0,
            kernel_params=self.kernel_params, n_features=n_features,
        )
        if gamma_ is not None:
            self.gamma_ = gamma_

    @property
    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _gram(self, X, Y=None):
        """The kernel matrix of ``kernel_`` as a new float64 array, checked for shape and finiteness.

        The array is the estimator's own, to centre in place: a precomputed
        matrix, or a callable that returns a stored matrix, must not see it
        changed.
        """
        kernel = self.kernel_
        if isinstance(kernel, str):  # "precomputed"
            return np.array(X, dtype=np.float64, order="C")
        result = kernel(X, X if Y is None else Y)
        # the built-in kernels return a new array; anything else is copied
        copy = None if type(kernel) in _BUILTIN_KERNELS else True
        K = np.array(result, dtype=np.float64, order="C", copy=copy)
        expected = (X.shape[0], (X if Y is None else Y).shape[0])
        if K.shape != expected:
            raise ValueError(f"kernel returned a matrix of shape {K.shape}, expected {expected}.")
        if not np.all(np.isfinite(K)):
            raise ValueError(f"kernel {kernel!r} returned NaN or infinity.")
        return K

    def _solve(self, K_c, q):
        """The q largest eigenpairs of K_c by the chosen solver."""
        n = K_c.shape[0]
        solver = self.eigen_solver
        if solver == "auto":
            solver = "arpack" if n > 200 and q < 10 else "dense"
        if self.n_components is None or solver == "arpack" and q >= n - 1:
            solver = "dense"  # eigsh cannot return all eigenpairs
        if solver == "arpack":
            return top_eigsh(K_c, q, tol=self.tol, max_iter=self.max_iter, random_state=self.random_state)
        if solver == "randomized":
            return top_randomized_eigh(K_c, q, n_iter=self.iterated_power, random_state=self.random_state)
        return top_eigh(K_c, q)
