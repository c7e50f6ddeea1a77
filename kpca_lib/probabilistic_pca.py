"""Probabilistic PCA: the fitted PCA as a Gaussian density (Tipping and Bishop, 1999).

The model (Bishop, PRML section 12.2) is ``x = W z + mu + epsilon`` with
``z ~ N(0, I_q)`` and isotropic noise ``epsilon ~ N(0, sigma^2 I_d)``, so that
``x ~ N(mu, W W^T + sigma^2 I)``. Its maximum-likelihood fit (PRML 12.45 and
12.46) is linear PCA: with ``lambda_1 >= ... >= lambda_d`` the eigenvalues
of the sample covariance ``C = X_c^T X_c / n`` and ``w_k`` its unit
eigenvectors,

    sigma^2 = (1 / (d - q)) sum_{j > q} lambda_j,     (the variance PCA leaves out)
    W W^T   = sum_{k <= q} (lambda_k - sigma^2) w_k w_k^T,

so the model covariance is ``C_q = sum_k (lambda_k - sigma^2) w_k w_k^T +
sigma^2 I``: the sample covariance with the d - q discarded variances
replaced by their mean. Its inverse needs no d x d solve, since ``C_q`` has
eigenvalue ``lambda_k`` along ``w_k`` and ``sigma^2`` on the rest:

    C_q^{-1} = sum_k w_k w_k^T / lambda_k + (I - sum_k w_k w_k^T) / sigma^2,

and the log-density of a point, with ``y_k = w_k . (x - mu)`` and
``r = ||x - mu - sum_k y_k w_k||^2`` its squared distance to the principal
subspace, is

    log p(x) = -(1/2) (d log 2 pi + sum_k log lambda_k + (d - q) log sigma^2
                       + sum_k y_k^2 / lambda_k + r / sigma^2).

The sample covariance divides by n, as maximum likelihood does (and as the
book does); scikit-learn's divides by n - 1. Minka's (2000) choice of q,
``n_components="mle"``, maximises a Laplace approximation of the evidence of
this model over q.
"""

import numpy as np
from scipy.special import gammaln
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["ProbabilisticPCAMixin", "minka_log_evidence", "minka_n_components", "noise_variance"]


def noise_variance(total, lambdas, q, d, round_off):
    """sigma^2: the variance left out of q components, per left-out dimension.

    Parameters
    ----------
    total : float
        ``trace(C)``, the total variance.
    lambdas : ndarray
        The largest eigenvalues of C, at least q of them.
    q, d : int
        Components kept, features.
    round_off : float
        Variance at or below which the left-out variance is round-off: the
        noise variance is then 0 (a model with no noise, and a singular
        covariance when q < d).

    Returns
    -------
    float
    """
    if q >= d:
        return 0.0
    left_out = total - float(np.sum(lambdas[:q]))
    return left_out / (d - q) if left_out > round_off else 0.0


def minka_log_evidence(spectrum, rank, n_samples):
    """Minka's (2000) approximate log-evidence of the PPCA model with ``rank`` components.

    The formula of Minka's "Automatic choice of dimensionality for PCA",
    as scikit-learn writes it (``sklearn.decomposition._pca._assess_dimension``).
    It is unchanged, up to a constant in the rank, when the spectrum is
    scaled, so the book's 1/n spectrum gives the same argmax as
    scikit-learn's 1/(n - 1). scikit-learn's two floors (a rank whose last
    eigenvalue is below 1e-15 is refused; the mean left-out eigenvalue is
    at least 1e-15) are absolute; here they are relative to the largest
    eigenvalue, so that the choice does not depend on the units of the data.

    Parameters
    ----------
    spectrum : ndarray of shape (d,)
        All eigenvalues of the sample covariance, in descending order.
    rank : int
        The candidate q, 1 <= q < d.
    n_samples : int

    Returns
    -------
    float
        ``-inf`` when the rank's terms are not defined (a zero eigenvalue).
    """
    d = spectrum.shape[0]
    floor = 1e-15 * spectrum[0]
    if spectrum[rank - 1] < floor:
        return -np.inf
    i = np.arange(1, rank + 1)
    # the prior on the Stiefel manifold of the q directions
    pu = -rank * np.log(2.0) + np.sum(gammaln((d - i + 1) / 2.0) - np.log(np.pi) * (d - i + 1) / 2.0)
    pl = -np.sum(np.log(spectrum[:rank])) * n_samples / 2.0
    v = max(floor, np.sum(spectrum[rank:]) / (d - rank))
    pv = -np.log(v) * n_samples * (d - rank) / 2.0
    m = d * rank - rank * (rank + 1.0) / 2.0
    pp = np.log(2.0 * np.pi) * (m + rank) / 2.0
    # the determinant of the Hessian: pairs (i, j) with i < rank, j > i
    corrected = spectrum.copy()
    corrected[rank:d] = v
    rows, cols = np.triu_indices(d, k=1)
    keep = rows < rank
    rows, cols = rows[keep], cols[keep]
    pa = np.sum(np.log((spectrum[rows] - spectrum[cols]) * (1.0 / corrected[cols] - 1.0 / corrected[rows]))
                + np.log(n_samples))
    return pu + pl + pv + pp - pa / 2.0 - rank * np.log(n_samples) / 2.0


def minka_n_components(spectrum, n_samples):
    """The q in [1, d) of largest Minka evidence (``n_components="mle"``)."""
    evidence = [minka_log_evidence(spectrum, rank, n_samples) for rank in range(1, spectrum.shape[0])]
    return int(np.argmax(evidence)) + 1


class ProbabilisticPCAMixin:
    """The density of the fitted PCA: ``get_covariance``, ``get_precision``, ``score_samples``, ``score``.

    Uses ``components_``, ``explained_variance_``, ``noise_variance_``,
    ``mean_``. Whitening changes the projections, not the model: with
    ``whiten=True`` scikit-learn's ``get_covariance`` multiplies by the
    variances once more; the model here is the same with or without it.
    """

    def _model(self):
        check_is_fitted(self)
        W = np.asarray(self.components_, dtype=np.float64)
        lambdas = np.asarray(self.explained_variance_, dtype=np.float64)
        return W, lambdas, float(self.noise_variance_)

    def _check_noise(self, what):
        W, lambdas, sigma2 = self._model()
        if not np.all((lambdas > 0) & np.isfinite(lambdas)):
            raise ValueError(
                f"{what} needs the explained variances as float64 numbers; some underflowed "
                "to 0 or overflowed to inf (data near the limits of float64: rescale X)."
            )
        if W.shape[0] < W.shape[1] and sigma2 == 0.0:
            raise ValueError(
                f"{what} needs an invertible model covariance, but noise_variance_ = 0 with "
                f"n_components={W.shape[0]} < n_features={W.shape[1]}: the data have no "
                "variance outside the principal subspace, so the density is singular."
            )
        return W, lambdas, sigma2

    def get_covariance(self):
        """The model covariance ``C_q = W W^T + sigma^2 I`` (see the module docstring).

        Returns
        -------
        cov : ndarray of shape (n_features, n_features)
            In the book's 1/n convention; scikit-learn's is ``n / (n - 1)``
            times this when n > d (see ``noise_variance_`` for n <= d).
        """
        W, lambdas, sigma2 = self._model()
        cov = (W.T * np.maximum(lambdas - sigma2, 0.0)) @ W
        cov[np.diag_indices_from(cov)] += sigma2
        return cov

    def get_precision(self):
        """The inverse of :meth:`get_covariance`, without a d x d solve.

        Returns
        -------
        precision : ndarray of shape (n_features, n_features)
        """
        W, lambdas, sigma2 = self._check_noise("get_precision")
        precision = (W.T / lambdas) @ W
        if W.shape[0] < W.shape[1]:
            precision += (np.eye(W.shape[1]) - W.T @ W) / sigma2
        return precision

    def score_samples(self, X):
        """Log-density of each sample under the probabilistic PCA model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            O(n d q): the projections and the distance to the principal
            subspace, no d x d matrix.
        """
        W, lambdas, sigma2 = self._check_noise("score_samples")
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        X_c = np.asarray(X, dtype=np.float64) - self.mean_
        Y = X_c @ W.T
        d, q = W.shape[1], W.shape[0]
        mahalanobis = np.sum(Y**2 / lambdas, axis=1)
        log_det = np.sum(np.log(lambdas))
        if q < d:
            residual = X_c - Y @ W  # computed, not ||x||^2 - ||y||^2, which cancels
            mahalanobis += np.sum(residual**2, axis=1) / sigma2
            log_det += (d - q) * np.log(sigma2)
        return -0.5 * (d * np.log(2.0 * np.pi) + log_det + mahalanobis)

    def score(self, X, y=None):
        """Mean log-density of the samples (the average of :meth:`score_samples`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        float
        """
        return float(np.mean(self.score_samples(X)))
