"""Kernel functions as small objects that compute Gram matrices.

A kernel ``k`` is called as ``k(X, Y=None)`` and returns the Gram matrix
``K[i, j] = k(x_i, y_j)`` with the samples of ``X`` (and ``Y``) as rows; with
``Y=None`` it returns ``k(X, X)``. The arithmetic is delegated to
:mod:`sklearn.metrics.pairwise`.

Kernels are values (equal when their parameters are equal) that also speak
scikit-learn's parameter protocol, ``get_params`` and ``set_params``, so that
model selection can tune them inside an estimator:
``GridSearchCV(KernelPCA(kernel=Gaussian()), {"kernel__c": [0.1, 1.0]})``.
``set_params`` changes a kernel in place (scikit-learn's protocol), so a
kernel is a *mutable* value and, like a list, it is **unhashable**: a hash
that changed under ``set_params`` would lose the kernel in every set and dict
that held it. (A fitted :class:`~kpca_lib.KernelPCA` keeps its own copy,
``kernel_``, so changing the kernel after fit changes nothing until refit.)

The module also holds (re-exported from :mod:`kpca_lib.feature_maps`) the
explicit degree-2 feature map of chapter 3, and a numerical check that a Gram matrix is symmetric positive semi-definite.
"""

import inspect
from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigvalsh
from scipy.sparse import issparse
from sklearn.metrics import pairwise
from sklearn.utils import check_array

from ._validation import check_int, check_real
from .feature_maps import degree2_feature_map  # the text meets it beside the kernels

__all__ = [
    "NotPSDWarning",
    "Kernel",
    "Linear",
    "Polynomial",
    "Gaussian",
    "Laplacian",
    "Sigmoid",
    "Cosine",
    "kernel_dataclass",
    "degree2_feature_map",
    "is_psd",
]


class NotPSDWarning(UserWarning):
    """A kernel matrix has significant negative eigenvalues.

    Such a kernel has no feature space with an inner product (Mercer's
    condition fails), so directions of negative "variance" are meaningless.
    """


def kernel_dataclass(cls):
    """Make a kernel class a frozen dataclass that is not hashable.

    Frozen, so that attribute assignment (which would skip validation) is
    refused; unhashable, because ``set_params`` changes the value in place
    (see the module docstring). Decorate subclasses of :class:`Kernel` with
    it rather than with ``dataclass(frozen=True)``, which would add a hash.
    """
    cls = dataclass(frozen=True)(cls)
    cls.__hash__ = None
    return cls


class Kernel:
    """Base class: validate the inputs, then compute the Gram matrix.

    Subclasses are frozen, unhashable dataclasses (:func:`kernel_dataclass`)
    whose fields are the kernel's parameters; they implement ``_gram(X, Y)`` on validated float arrays and
    set ``is_psd`` to True only when every Gram matrix of the kernel is
    positive semi-definite (Mercer's condition) whatever the data. The base
    class does not claim it: a kernel not known to be PSD is checked on its
    data by :class:`~kpca_lib.KernelPCA`.

    ``get_params`` and ``set_params`` follow scikit-learn's protocol.
    ``set_params`` validates the new values like the constructor and changes
    the kernel in place, as scikit-learn's model selection expects of a
    parameter object (it calls it on fresh clones only). Attribute
    assignment stays forbidden, so a kernel never holds an unchecked value.
    """

    is_psd = False

    @classmethod
    def _get_param_names(cls):
        """The parameter names: the arguments of ``__init__``."""
        if cls.__init__ is object.__init__:
            return []
        signature = inspect.signature(cls.__init__)
        return sorted(name for name in signature.parameters if name != "self")

    def get_params(self, deep=True):
        """Parameters of the kernel, as scikit-learn's estimators give them.

        Parameters
        ----------
        deep : bool, default=True
            Ignored: a kernel holds no nested objects.

        Returns
        -------
        dict
            Parameter name to value.
        """
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Change parameters in place, validated as by the constructor.

        Parameters
        ----------
        **params
            New values, by parameter name.

        Returns
        -------
        self : Kernel

        Examples
        --------
        >>> Gaussian(c=1.0).set_params(c=0.5)
        Gaussian(c=0.5)
        """
        valid = self.get_params()
        for name in params:
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for kernel {type(self).__name__}: "
                    f"valid parameters are {sorted(valid)}."
                )
        checked = type(self)(**(valid | params))  # the constructor validates
        for name in params:
            object.__setattr__(self, name, getattr(checked, name))
        return self

    def __call__(self, X, Y=None):
        """Gram matrix of the kernel.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples_X, n_features)
            Samples as rows.
        Y : {array-like, scipy.sparse matrix} of shape (n_samples_Y, n_features), default=None
            Samples as rows. ``None`` means ``Y = X``.

        Returns
        -------
        K : ndarray of shape (n_samples_X, n_samples_Y)
            ``K[i, j] = k(X[i], Y[j])``.
        """
        X = check_array(X, dtype=np.float64, accept_sparse=("csr", "csc"), input_name="X")
        if Y is None:
            return self._gram(X, None)
        Y = check_array(Y, dtype=np.float64, accept_sparse=("csr", "csc"), input_name="Y")
        if Y.shape[1] != X.shape[1]:
            raise ValueError(
                f"X and Y must have the same number of features, got "
                f"X with {X.shape[1]} and Y with {Y.shape[1]}."
            )
        return self._gram(X, Y)


@kernel_dataclass
class Linear(Kernel):
    """Linear kernel ``k(x, y) = x . y``.

    Examples
    --------
    >>> import numpy as np
    >>> Linear()(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))
    array([[11.]])
    """

    is_psd = True

    def _gram(self, X, Y):
        return pairwise.linear_kernel(X, Y)


@kernel_dataclass
class Polynomial(Kernel):
    """Polynomial kernel ``k(x, y) = (gamma x . y + coef0) ** degree``.

    Parameters
    ----------
    degree : int, default=2
        The degree p >= 1.
    coef0 : float, default=1.0
        The constant added to the inner product. With ``coef0 >= 0`` the
        kernel is positive semi-definite: its feature map holds every monomial
        of degree at most p (exactly p when ``coef0 = 0``).
    gamma : float, default=1.0
        Scale of the inner product, > 0, as in scikit-learn's
        ``polynomial_kernel``. The book's kernel has ``gamma = 1``;
        scikit-learn's ``gamma=None`` means ``1 / n_features``.

    Examples
    --------
    >>> import numpy as np
    >>> Polynomial(degree=2, coef0=1.0)(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))
    array([[144.]])
    """

    degree: int = 2
    coef0: float = 1.0
    gamma: float = 1.0

    def __post_init__(self):
        check_int(self.degree, "degree", minimum=1)
        check_real(self.coef0, "coef0")
        check_real(self.gamma, "gamma", minimum=0, strict=True)

    @property
    def is_psd(self):
        """True when ``coef0 >= 0``: every Gram matrix is then positive semi-definite.

        Expanded by the binomial theorem, the kernel is a sum of powers of
        ``gamma x . y`` with the weights ``coef0 ** (degree - j)`` times positive
        binomial factors, all non-negative when ``coef0 >= 0``. With
        ``coef0 < 0`` some data give a Gram matrix with a negative eigenvalue,
        and :class:`~kpca_lib.KernelPCA` checks the kernel on its data.
        """
        return bool(self.coef0 >= 0)

    def _gram(self, X, Y):
        return pairwise.polynomial_kernel(
            X, Y, degree=self.degree, gamma=self.gamma, coef0=self.coef0
        )


@kernel_dataclass
class Gaussian(Kernel):
    """Gaussian kernel ``k(x, y) = exp(-||x - y||^2 / c)`` of width ``c``.

    Parameters
    ----------
    c : float, default=1.0
        The width, c > 0. scikit-learn writes the same kernel as
        ``rbf`` with ``gamma = 1 / c``; Mika et al. (1999) write
        ``exp(-||x - y||^2 / (d c'))``, that is ``c = d c'``.

    Examples
    --------
    >>> import numpy as np
    >>> Gaussian(c=2.0)(np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]]))
    array([[0.36787944]])
    """

    c: float = 1.0
    is_psd = True

    def __post_init__(self):
        check_real(self.c, "c", minimum=0, strict=True)

    def _gram(self, X, Y):
        # ||x - y||^2 is shift-invariant, but scikit-learn expands it as
        # ||x||^2 - 2 x.y + ||y||^2, which cancels far from the origin:
        # measure both from the mean of X first (not for sparse samples,
        # which the subtraction would make dense)
        if issparse(X) or issparse(Y):
            return pairwise.rbf_kernel(X, Y, gamma=1.0 / self.c)
        offset = X.mean(axis=0)
        X = X - offset
        Y = None if Y is None else Y - offset
        return pairwise.rbf_kernel(X, Y, gamma=1.0 / self.c)


@kernel_dataclass
class Sigmoid(Kernel):
    """Sigmoid (tanh) kernel ``k(x, y) = tanh(gamma x . y + coef0)``.

    It is *not* a valid (positive semi-definite) kernel in general: its Gram
    matrices can have negative eigenvalues, which chapter 3 shows.

    Parameters
    ----------
    gamma : float, default=1.0
        Scale of the inner product.
    coef0 : float, default=0.0
        Offset inside the tanh.

    Examples
    --------
    >>> import numpy as np
    >>> Sigmoid(gamma=0.5)(np.array([[1.0, 2.0]]), np.array([[1.0, 0.0]]))
    array([[0.46211716]])
    """

    gamma: float = 1.0
    coef0: float = 0.0
    is_psd = False

    def __post_init__(self):
        check_real(self.gamma, "gamma")
        check_real(self.coef0, "coef0")

    def _gram(self, X, Y):
        return pairwise.sigmoid_kernel(X, Y, gamma=self.gamma, coef0=self.coef0)


@kernel_dataclass
class Laplacian(Kernel):
    """Laplacian kernel ``k(x, y) = exp(-||x - y||_1 / c)`` of width ``c``.

    Positive semi-definite for every c > 0 (it is a product of
    one-dimensional Laplace kernels, each PSD).

    Parameters
    ----------
    c : float, default=1.0
        The width, c > 0; scikit-learn's ``laplacian_kernel`` writes
        ``gamma = 1 / c``.

    Examples
    --------
    >>> import numpy as np
    >>> Laplacian(c=2.0)(np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]]))
    array([[0.36787944]])
    """

    c: float = 1.0
    is_psd = True

    def __post_init__(self):
        check_real(self.c, "c", minimum=0, strict=True)

    def _gram(self, X, Y):
        return pairwise.laplacian_kernel(X, Y, gamma=1.0 / self.c)


@kernel_dataclass
class Cosine(Kernel):
    """Cosine kernel ``k(x, y) = x . y / (||x|| ||y||)``.

    The linear kernel of the samples scaled to unit length (a zero sample
    stays zero, as in scikit-learn's ``cosine_similarity``), hence PSD.

    Examples
    --------
    >>> import numpy as np
    >>> Cosine()(np.array([[3.0, 4.0]]), np.array([[1.0, 0.0]]))
    array([[0.6]])
    """

    is_psd = True

    def _gram(self, X, Y):
        return pairwise.cosine_similarity(X, Y)


def is_psd(K, rtol=1e-10):
    """Whether a Gram matrix is symmetric positive semi-definite.

    Round-off makes the zero eigenvalues of a PSD matrix come out slightly
    negative, so an eigenvalue counts as negative only below
    ``-rtol * max(|eigenvalues|)``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        The Gram matrix.
    rtol : float, default=1e-10
        Relative tolerance for symmetry and for negative eigenvalues.

    Returns
    -------
    bool
        True when ``K`` is symmetric and has no significant negative
        eigenvalue.

    Examples
    --------
    >>> import numpy as np
    >>> is_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))  # eigenvalues 3 and -1
    False
    """
    K = check_array(K, dtype=np.float64, input_name="K")
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}.")
    rtol = check_real(rtol, "rtol", minimum=0)
    scale = np.abs(K).max()
    if scale == 0:
        return True
    if not np.allclose(K, K.T, rtol=0, atol=rtol * scale):
        return False
    eigenvalues = eigvalsh(K)
    return bool(eigenvalues[0] >= -rtol * np.abs(eigenvalues).max())
