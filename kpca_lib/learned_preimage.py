"""The learned pre-image of Bakir, Weston and Schoelkopf (2004).

Instead of solving for each pre-image (:mod:`kpca_lib.preimage`), learn the
map back once: a kernel ridge regression from the projections
``z_i = (beta_1(x_i), ..., beta_q(x_i))`` of the training points to the
points themselves,

    x(z) = sum_i a_i k(z, z_i),   A = (k(Z_fit, Z_fit) + alpha I)^{-1} X_fit,

and then map any projection by one matrix product. It works for every
kernel, costs one n x n solve at fit and none per point, but it learns to
reproduce the training points as they are, noise included. scikit-learn's
``KernelPCA(fit_inverse_transform=True, alpha=...)`` computes the same.

Here ``alpha`` is the ridge of the regression, as in scikit-learn, not the
dual coefficients ``alpha_k`` of kernel PCA.
"""

import numpy as np
from scipy.linalg import LinAlgError, solve

from ._validation import check_real

__all__ = ["fit_learned_preimage", "learned_preimage"]


def fit_learned_preimage(Z_fit, X_fit, kernel, alpha):
    """Dual coefficients of the learned pre-image map (Bakir et al., 2004).

    Kernel ridge regression from the projections ``Z_fit`` of the training
    points back to the points ``X_fit``, with the kernel ``kernel`` applied
    to projections: ``dual_coef = (k(Z_fit, Z_fit) + alpha I)^{-1} X_fit``.
    ``alpha`` is the ridge, not the dual coefficients ``alpha_k`` of kernel
    PCA. scikit-learn's ``KernelPCA(fit_inverse_transform=True)`` computes
    the same.

    Parameters
    ----------
    Z_fit : ndarray of shape (n_samples, n_components)
        Projections of the training points.
    X_fit : ndarray of shape (n_samples, n_features)
        The training points.
    kernel : callable
        ``kernel(A, B)`` returning the Gram matrix of rows of A and B.
    alpha : float
        The ridge, >= 0.

    Returns
    -------
    dual_coef : ndarray of shape (n_samples, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from kpca_lib import Linear
    >>> Z_fit, X_fit = np.array([[-1.0], [0.0], [1.0]]), np.array([[-2.0], [0.0], [2.0]])
    >>> dual_coef = fit_learned_preimage(Z_fit, X_fit, Linear(), alpha=0.1)
    >>> learned_preimage(np.array([[0.5]]), Z_fit, dual_coef, Linear()).round(4)  # x = 2 z, shrunk by the ridge
    array([[0.9524]])
    """
    alpha = check_real(alpha, "alpha", minimum=0)
    K = np.array(kernel(Z_fit, Z_fit), dtype=np.float64)
    K.flat[:: K.shape[0] + 1] += alpha
    try:
        return solve(K, X_fit, assume_a="pos", overwrite_a=True)
    except LinAlgError as error:
        raise ValueError(
            f"The learned pre-image needs k(Z, Z) + alpha I positive definite, "
            f"and with alpha={alpha} it is not (the kernel matrix of the "
            "projections is singular or the kernel is not positive "
            "semi-definite): increase alpha."
        ) from error


def learned_preimage(Z, Z_fit, dual_coef, kernel):
    """Pre-images by the learned map: ``k(Z, Z_fit) @ dual_coef``.

    Parameters
    ----------
    Z : ndarray of shape (n_points, n_components)
        Projections to map back.
    Z_fit : ndarray of shape (n_samples, n_components)
        The projections the map was fitted on.
    dual_coef : ndarray of shape (n_samples, n_features)
        From :func:`fit_learned_preimage`.
    kernel : callable
        The kernel the map was fitted with.

    Returns
    -------
    ndarray of shape (n_points, n_features)
    """
    return np.asarray(kernel(Z, Z_fit), dtype=np.float64) @ dual_coef
