"""The kernel as a parameter of an estimator: nested parameters and checked Gram matrices."""

import numpy as np
from sklearn.base import clone

from .kernels import Gaussian, Linear, Polynomial, Sigmoid

__all__ = ["KernelMixin"]

_BUILTIN_KERNELS = (Linear, Polynomial, Gaussian, Sigmoid)


class KernelMixin:
    """``kernel__<name>`` parameters and the Gram matrix of the estimator's ``kernel``.

    The estimator's ``kernel`` is a callable ``kernel(X, Y)`` or the string
    ``"precomputed"``.
    """

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
        self : estimator
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

    @property
    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

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
