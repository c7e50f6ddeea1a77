"""The kernel as a parameter of an estimator: resolved at fit, nested parameters, checked Gram matrices.

The estimator's ``kernel`` is the book's kernel object (or any callable
``kernel(X, Y)``), one of scikit-learn's kernel names, ``"precomputed"``, or
``None`` (the book's default, ``Gaussian(c=1.0)``). ``fit`` resolves it into
the fitted model's own kernel, ``kernel_``, which ``transform``,
``inverse_transform`` and ``denoise`` use: changing ``kernel`` (or the
object passed as ``kernel``) after fit changes nothing until the next fit,
as with scikit-learn's ``gamma_``.

:class:`KernelMixin` also holds the exact fit (centre the n x n Gram matrix,
solve for q eigenpairs) and the projection of new samples; the clean slate
and the parameter checks that start every fit are in ``_kernel_checks.py``.
"""

import warnings
from functools import partial

import numpy as np
from joblib import effective_n_jobs
from scipy.sparse import issparse
from sklearn.base import clone
from sklearn.preprocessing import KernelCenterer
from sklearn.utils import gen_even_slices
from sklearn.utils.extmath import svd_flip
from sklearn.utils.parallel import Parallel, delayed

from ._kernel_checks import KernelChecksMixin
from ._linalg import (
    NEGATIVE_EIGENVALUE_RTOL,
    negative_eigenvalue_evidence,
    numerical_rank,
    top_eigh,
    top_eigsh,
    top_randomized_eigh,
)
from ._validation import check_n_components, check_rank, known_psd, symmetric_kernel_matrix
from .kernels import Cosine, Gaussian, Laplacian, Linear, NotPSDWarning, Polynomial, Sigmoid

__all__ = ["KernelMixin", "STRING_KERNELS", "resolve_kernel"]

_BUILTIN_KERNELS = (Linear, Polynomial, Gaussian, Sigmoid, Laplacian, Cosine)
# scikit-learn's names, and the parameters each reads
STRING_KERNELS = ("linear", "poly", "rbf", "sigmoid", "cosine", "laplacian")


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


class KernelMixin(KernelChecksMixin):
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
        result = self._parallel_kernel(kernel, X, X if Y is None else Y)
        # the built-in kernels return a new array; anything else is copied
        copy = None if type(kernel) in _BUILTIN_KERNELS else True
        K = np.array(result, dtype=np.float64, order="C", copy=copy)
        expected = (X.shape[0], (X if Y is None else Y).shape[0])
        if K.shape != expected:
            raise ValueError(f"kernel returned a matrix of shape {K.shape}, expected {expected}.")
        if not np.all(np.isfinite(K)):
            raise ValueError(f"kernel {kernel!r} returned NaN or infinity.")
        return K

    def _parallel_kernel(self, kernel, X, Y):
        """``kernel(X, Y)``, by ``n_jobs`` threads over even blocks of rows of X.

        As scikit-learn's ``pairwise_kernels(..., n_jobs=...)``: joblib's
        threading backend (NumPy and BLAS release the GIL), ``None`` meaning
        one job unless in a ``joblib.parallel_backend`` context. The blocks
        equal the whole up to round-off.
        """
        n_jobs = min(effective_n_jobs(self.n_jobs), X.shape[0])
        if n_jobs <= 1:
            return kernel(X, Y)
        blocks = Parallel(n_jobs=n_jobs, backend="threading")(
            delayed(kernel)(X[rows], Y) for rows in gen_even_slices(X.shape[0], n_jobs))
        return np.vstack([np.asarray(block) for block in blocks])

    def _check_symmetric(self, K, dtype, scale=None, centred=False):
        """Symmetrise K in place if its asymmetry is round-off; raise if it is more.

        A precomputed matrix or a kernel function of your own may be
        non-symmetric. What the eigen-solver reads is the centred matrix
        (for Nystroem, the landmarks' matrix): its asymmetry
        ``max |K_c - K_c^T| / max |K|`` up to ``sqrt(eps)`` of the data's
        dtype (1.5e-8 for float64, 3.5e-4 for float32) is round-off and is
        averaged away; more raises a ValueError
        (:func:`~kpca_lib._validation.symmetric_kernel_matrix`). An
        asymmetry of the form ``u 1^T - 1 u^T``, which centring removes,
        is accepted, as scikit-learn accepts it. The built-in kernels are
        symmetric by construction and are not checked.
        """
        if type(self.kernel_) in _BUILTIN_KERNELS:
            return K
        source = "precomputed kernel matrix" if self._precomputed else f"kernel matrix of {self.kernel_!r}"
        what = f"The centred {source}" if centred else f"The {source}"
        measure = "max |K_c - K_c^T| / max |K|" if centred else "max |K - K^T| / max |K|"
        return symmetric_kernel_matrix(K, float(np.sqrt(np.finfo(dtype).eps)), what, scale=scale, measure=measure)

    def _check_underflow(self, K_scale, X):
        """A clear error when the kernel matrix of distinct samples underflowed.

        The entries of a linear or polynomial kernel are products of the
        samples' coordinates: samples of size 1e-160 give entries of size
        1e-320, below float64's normal range, or 0, and the centred matrix
        has no positive eigenvalue although the samples differ. The
        threshold is ``tiny / eps`` of the samples' dtype (about 1e-292 for
        float64, 1e-31 for float32), below which the smallest terms of the
        entries lose precision. The library
        does not rescale the samples for you: that is valid for the linear
        and homogeneous polynomial kernels only, and their eigenvalues
        (``n`` times the squared size of the samples) would underflow all
        the same.

        Parameters
        ----------
        K_scale : float
            The largest absolute entry of the kernel matrix.
        X : {ndarray, sparse matrix}
            The samples it was computed from (the matrix itself if precomputed).
        """
        # float32 samples give float32 kernels (scikit-learn's pairwise functions)
        dtype = X.dtype if X.dtype == np.float32 else np.float64
        tiny, threshold = np.finfo(dtype).tiny, np.finfo(dtype).tiny / np.finfo(dtype).eps
        if K_scale >= threshold:
            return
        if self._precomputed:
            if K_scale == 0:
                return  # nothing tells a zero matrix from one that underflowed
            source = "The precomputed kernel matrix is too small:"
        else:
            low, high = X.min(axis=0), X.max(axis=0)
            low, high = (low.toarray(), high.toarray()) if issparse(X) else (low, high)
            if not np.any(high > low):
                return  # the samples are the same point: the usual error says so
            source = (f"The kernel matrix of {self.kernel_!r} underflowed: the samples differ, with "
                      f"coordinates of size up to {float(abs(X).max()):.3g}, but")
        raise ValueError(
            f"{source} its largest entry is {K_scale:.3g}, below {threshold:.3g}, where {np.dtype(dtype).name} "
            f"no longer holds its entries to full precision (the smallest normal number is {tiny:.3g}), "
            "so its eigenvalues are lost to underflow. For the linear kernel, or a polynomial kernel "
            "with coef0=0, multiply X by a constant s (e.g. X / abs(X).max()): the kernel is "
            "multiplied by s^2 (s^(2 degree)), the eigenvalues by the same factor and the projections "
            "by s (s^degree), and the components are unchanged. For other kernels a rescale changes "
            "the kernel unless its parameters change with it (for the Gaussian, c by s^2)."
        )

    def _solve(self, K_c, q):
        """The q largest eigenpairs of K_c by the chosen solver."""
        n = K_c.shape[0]
        solver = self.eigen_solver
        if solver == "auto":
            solver = "arpack" if n > 200 and q < 10 else "dense"
        if self.n_components is None or solver == "arpack" and q >= n - 1:
            solver = "dense"  # eigsh cannot return all eigenpairs
        if solver == "randomized":
            eigenvalues, vectors = top_randomized_eigh(K_c, q, n_iter=self.iterated_power,
                                                       random_state=self.random_state)
            if eigenvalues[-1] >= -NEGATIVE_EIGENVALUE_RTOL * abs(eigenvalues[0]):
                return eigenvalues, vectors
            # the q largest in modulus include significant negative eigenvalues, which
            # may have displaced positive ones: the largest algebraic ones are wanted
            fallback = "arpack" if n > 200 and q < 10 else "dense"
            warnings.warn(
                f"eigen_solver='randomized' finds the eigenvalues largest in modulus: "
                f"{int(np.count_nonzero(eigenvalues < 0))} of the {q} it found are negative (down to "
                f"{eigenvalues[-1]:.4g}; the kernel is not positive semi-definite on these data). "
                f"The {q} largest eigenpairs were computed by eigen_solver={fallback!r} instead; "
                "pass that solver to avoid the wasted work.",
                NotPSDWarning,
                stacklevel=4,
            )
            solver = fallback
        if solver == "arpack":
            return top_eigsh(K_c, q, tol=self.tol, max_iter=self.max_iter, random_state=self.random_state)
        return top_eigh(K_c, q)

    def _fit_exact(self, X):
        """Centre the n x n kernel matrix, solve for q eigenpairs; return q."""
        n = X.shape[0]
        q_max = n - 1  # centring in feature space removes one dimension
        q = check_n_components(self.n_components, q_max, f"n_samples - 1 = {q_max}")

        K = self._gram(X)
        K_scale = max(K.max(), -K.min())  # the round-off of centring scales with it
        self._check_underflow(K_scale, X)
        # the centring is internal: never a DataFrame, whatever set_output says
        centerer = KernelCenterer().set_output(transform="default").fit(K)
        K_c = centerer.transform(K, copy=False)  # in place: K is not needed again
        # the solver reads one triangle of K_c, transform all of it
        self._check_symmetric(K_c, X.dtype, scale=K_scale, centred=True)

        eigenvalues, betas = self._solve(K_c, q)
        self._warn_if_not_psd(K_c, eigenvalues, K_scale)
        del K, K_c

        # components of zero or negative eigenvalue have no unit-norm alpha
        # float32 samples are known to float32's precision only: so is the rank
        rank = numerical_rank(eigenvalues, n, scale=K_scale, eps=np.finfo(X.dtype).eps)
        q = check_rank(
            rank, rank if self.n_components is None else q,
            "The centred kernel matrix has no positive eigenvalue: all "
            "samples are the same point in feature space.",
            "the centred kernel matrix",
        )
        # flip signs to enforce deterministic output
        betas, _ = svd_flip(np.ascontiguousarray(betas[:, :q]), None)

        self.eigenvalues_ = eigenvalues[:q]
        self.eigenvectors_ = betas
        self.alphas_ = betas / np.sqrt(self.eigenvalues_)
        if not self._precomputed:
            self.X_fit_ = X
        self.centerer_ = centerer
        return q

    def _project(self, X):
        """Projections of validated samples as a float64 ndarray (never wrapped)."""
        if self._nystroem:
            return self._project_nystroem(X)
        K_test = self._gram(X, None if self._precomputed else self.X_fit_)
        return self.centerer_.transform(K_test, copy=False) @ self.alphas_
