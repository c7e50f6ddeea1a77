"""The checks of a kernel estimator's fit: a clean slate, its parameters, sparse samples.

:class:`KernelChecksMixin` gives :class:`~kpca_lib.KernelPCA` (through
``KernelMixin`` of ``_kernel_estimator.py``) the first steps of every fit:
forget the fitted attributes of an earlier fit, check the parameters with
an error naming each, and refuse sparse samples where an option needs dense
ones.
"""

from numbers import Integral

import numpy as np

from ._validation import check_int, check_real

__all__ = ["KernelChecksMixin"]

_SOLVERS = ("auto", "dense", "arpack", "randomized")
_APPROXIMATIONS = (None, "nystroem")
# private state a fit sets besides its public attributes (those ending in "_")
_FIT_STATE = ("_nystroem", "_fit_dtype", "_n_features_out")


class KernelChecksMixin:
    """The clean slate and the parameter checks of a fit (``_check_kernel`` is the estimator's)."""

    def _clear_fit(self):
        """Forget every fitted attribute of an earlier fit: a fit starts from a clean slate.

        Public fitted attributes are those ending in ``_`` (scikit-learn's
        rule, as in ``check_is_fitted``); a fit of another configuration
        (another kernel, exact after Nystroem, ndarray after DataFrame) must
        not keep ``gamma_``, ``X_fit_`` or ``feature_names_in_`` of the last.
        """
        for name in [name for name in vars(self) if name.endswith("_") and not name.startswith("__")]:
            delattr(self, name)
        for name in _FIT_STATE:
            self.__dict__.pop(name, None)

    def _check_params(self):
        self._check_kernel()
        if not (isinstance(self.remove_zero_eig, (bool, np.bool_)) and self.remove_zero_eig):
            raise ValueError(
                f"remove_zero_eig must be True, got {self.remove_zero_eig!r}: components of zero "
                "eigenvalue are always dropped here, because their direction in feature space has "
                "zero norm (alpha = beta / sqrt(0) does not exist). scikit-learn's "
                "remove_zero_eig=False keeps them with zero projections; this library refuses an "
                "n_components above the number of positive eigenvalues instead."
            )
        if not isinstance(self.copy_X, (bool, np.bool_)):
            raise TypeError(f"copy_X must be True or False, got {self.copy_X!r}.")
        if self.n_jobs is not None:
            if isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, Integral):
                raise TypeError(f"n_jobs must be an integer or None, got {self.n_jobs!r}.")
            if self.n_jobs == 0:
                raise ValueError("n_jobs must not be 0: None or 1 for one job, -1 for all processors.")
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
