"""The estimators follow scikit-learn's conventions."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import kpca_lib as kl


@parametrize_with_checks(
    [
        kl.PCA(),
        kl.PCA(n_components=0.9),
        kl.PCA(method="svd", whiten=True),
        kl.KernelPCA(),
        kl.KernelPCA(n_components=2, kernel=kl.Linear()),
        kl.KernelPCA(n_components=2, kernel="precomputed"),
        kl.KernelPCA(n_components=2, kernel=kl.Polynomial(degree=2), fit_inverse_transform=True, alpha=0.1),
        kl.KernelPCA(n_components=2, approximation="nystroem", n_landmarks=5),
        kl.KernelPCA(n_components=2, kernel=kl.Linear(), approximation="nystroem", n_landmarks=5,
                     landmarks="kmeans", chunk_size=3),
        # the scikit-learn spellings (issue 22)
        kl.KernelPCA(n_components=2, kernel="rbf", gamma=0.5),
        kl.KernelPCA(n_components=2, eigen_solver="randomized", random_state=0),
        kl.PCA(n_components="mle"),
        # scikit-learn's remove_zero_eig, copy_X and n_jobs (issue 35)
        kl.KernelPCA(n_components=2, kernel="rbf", remove_zero_eig=True, copy_X=False, n_jobs=2),
        # (a seed: with the linear kernel, random landmarks could have rank 1 on check_estimator's data)
        kl.KernelPCA(n_components=2, approximation="nystroem", n_landmarks=5, n_jobs=2, random_state=0),
        kl.PCA(n_components=1, svd_solver="randomized", random_state=0),
        kl.PCA(n_components=1, svd_solver="arpack", random_state=0),
        kl.PCA(svd_solver="covariance_eigh", copy=True),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
