"""The estimators follow scikit-learn's conventions."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import kpca_lib as kl


@parametrize_with_checks([kl.PCA(), kl.KernelPCA(), kl.KernelPCA(n_components=2, kernel=kl.Linear())])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
