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

With ``approximation="nystroem"`` the n x n matrix is replaced by m
landmarks (:mod:`kpca_lib.nystroem`): O(n m^2) time, O(m^2) memory.
"""

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._kernel_estimator import KernelMixin
from .denoising import PreimageMixin
from .learned_preimage import fit_learned_preimage
from .nystroem import NystroemMixin
from .nystroem_dask import DaskNystroemMixin, is_dask_array

__all__ = ["KernelPCA"]

_FLOAT_DTYPES = [np.float64, np.float32]


class KernelPCA(KernelMixin, NystroemMixin, DaskNystroemMixin, PreimageMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kernel principal component analysis.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components q, at most the number of positive eigenvalues
        of the centred kernel matrix (itself at most n - 1). ``None`` keeps
        every component with a positive eigenvalue. The cap is on purpose:
        scikit-learn allows up to n and, with ``remove_zero_eig=False``,
        keeps components of zero eigenvalue, which have no unit-norm
        direction in feature space.
    kernel : Kernel, callable, str or None, default=None
        A kernel object such as :class:`~kpca_lib.Gaussian` or
        :class:`~kpca_lib.Polynomial` (the book's way), a function
        ``kernel(X, Y)`` of your own returning the Gram matrix, one of
        scikit-learn's names ``"rbf"``, ``"poly"``, ``"linear"``,
        ``"cosine"``, ``"sigmoid"``, ``"laplacian"`` (read with ``gamma``,
        ``degree``, ``coef0``; the same kernel objects, so the same results:
        ``"rbf"`` is ``Gaussian(c=1 / gamma)``), or ``"precomputed"``, when
        ``fit`` receives the n x n kernel matrix of the training samples and
        ``transform`` the m x n kernel matrix between new and training
        samples. ``None`` means ``Gaussian(c=1.0)``, the book's default (a
        new object at every fit: no default is shared between estimators;
        scikit-learn's default is ``"linear"``). The fit keeps its own copy
        as ``kernel_``. The kernel's parameters are parameters of the
        estimator (``kernel__c``). A kernel whose ``is_psd`` is not true (a
        function of your own, ``Sigmoid``, a precomputed matrix) is checked
        on the training data by an O(n^2) test, never a full
        eigendecomposition: a ``NotPSDWarning`` reports significant negative
        eigenvalues that it finds. Such a kernel (and a precomputed matrix)
        is also checked for symmetry, since the eigen-solver reads one
        triangle of the centred matrix and ``transform`` all of it: an
        asymmetry ``max |K_c - K_c^T| / max |K|`` up to ``sqrt(eps)`` of the
        data's dtype (1.5e-8 for float64, 3.5e-4 for float32) is round-off
        and is averaged away, a larger one raises a ``ValueError`` that
        gives it. (An asymmetry that centring removes, ``u 1^T - 1 u^T``,
        is accepted, as by scikit-learn.)
    eigen_solver : {"auto", "dense", "arpack", "randomized"}, default="auto"
        ``"dense"``: ``scipy.linalg.eigh`` restricted to the q largest
        eigenpairs; ``"arpack"``: ``scipy.sparse.linalg.eigsh`` (Lanczos),
        faster when q is small and n large; ``"randomized"``: the randomized
        SVD of Halko et al. (2011), as scikit-learn's, which finds the q
        eigenvalues largest in modulus (approximate unless the spectrum
        decays): when significant negative eigenvalues are among them (a
        kernel that is not PSD, such as ``"sigmoid"``), they may have
        displaced positive ones, so a ``NotPSDWarning`` says so and the q
        largest eigenpairs are computed by the ``"auto"`` choice of arpack
        or dense instead; ``"auto"``: arpack when n > 200 and q < 10, dense otherwise
        (scikit-learn's rule).
    gamma : float or None, default=None
        For ``kernel="rbf"``, ``"laplacian"``, ``"poly"`` and ``"sigmoid"``,
        as in scikit-learn; ``None`` means ``1 / n_features``. (The book's
        Gaussian width is ``c = 1 / gamma``.)
    degree : int, default=3
        Degree of ``kernel="poly"``.
    coef0 : float, default=1.0
        Constant of ``kernel="poly"`` and ``"sigmoid"``.
    kernel_params : dict or None, default=None
        Keyword arguments of a kernel function of your own, as in
        scikit-learn (a kernel object takes its parameters itself). Note
        that a kernel function here maps two sample *matrices* to their Gram
        matrix (vectorised), where scikit-learn calls its function on one
        pair of samples at a time.
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
    iterated_power : int or "auto", default="auto"
        Power iterations of the randomized solver: 7 when q < 0.1 n, else 4.
    approximation : {None, "nystroem"}, default=None
        ``None``: exact, with the n x n kernel matrix. ``"nystroem"``: the
        kernel approximated through m landmarks, ``K ~ K_nm K_mm^+ K_mn``
        (:mod:`kpca_lib.nystroem`); O(n m^2) time, O(m^2 + chunk_size m)
        memory, and the eigen-solver works on an m x m matrix. Not with a
        precomputed kernel or ``fit_inverse_transform``.
    n_landmarks : int, default=100
        m, with ``n_components <= m <= n_samples`` (Nystroem only).
    landmarks : {"uniform", "kmeans"}, default="uniform"
        How the landmarks are chosen: m training samples drawn uniformly
        without replacement, or the centres of k-means with m clusters
        (Nystroem only).
    chunk_size : int or None, default=None
        Rows of X per block of the kernel with the landmarks; ``None`` makes
        each block about 64 MiB (2^23 values). Nystroem only.
    random_state : int, RandomState instance or None, default=None
        Seed of the choice of landmarks (Nystroem), of ARPACK's start vector
        and of the randomized solver's block (the same draws as
        scikit-learn's for the same seed). For the solvers, ``None`` means a
        fixed start, so that a refit gives the same components (for
        scikit-learn, numpy's global generator).
    remove_zero_eig : True, default=True
        Accepted for scikit-learn's code: components of zero eigenvalue are
        always dropped (see ``n_components``). ``False``, scikit-learn's
        default, which keeps them with zero projections, raises a
        ``ValueError`` that says so.
    copy_X : bool, default=True
        As in scikit-learn: ``False`` stores the training samples in
        ``X_fit_`` by reference when no conversion is needed (a float
        ndarray), saving memory, but then the model changes when the caller
        changes X.
    n_jobs : int or None, default=None
        Jobs computing the kernel matrices, as scikit-learn's (its
        ``pairwise_kernels``): threads over even blocks of rows, ``None``
        meaning 1 unless in a ``joblib.parallel_backend`` context, ``-1``
        all processors. Not used with a precomputed kernel, nor for the
        blocks of a Dask array (which are the Dask scheduler's tasks).

    Attributes
    ----------
    kernel_ : Kernel, callable or "precomputed"
        The kernel of the fit, its own copy (see ``kernel``): what
        ``transform``, ``inverse_transform`` and ``denoise`` evaluate.
    gamma_ : float
        The gamma of a named kernel (``1 / n_features`` for ``gamma=None``),
        as scikit-learn's; only with a named kernel.
    eigenvalues_ : ndarray of shape (n_components,)
        The q largest eigenvalues ``mu_k = n lambda_k`` of the centred
        kernel matrix, in decreasing order.
    alphas_ : ndarray of shape (n_samples, n_components)
        The normalised dual coefficients ``alpha_k = beta_k / sqrt(mu_k)`` as
        columns, so that each feature-space component has unit norm. Signs
        are fixed so that the largest entry in absolute value of each
        eigenvector is positive.
        With Nystroem, of shape (n_landmarks, n_components): the coefficients
        ``a_k`` of ``V_k = sum_j a_jk phi(l_j)``, with ``eigenvalues_`` those
        of the centred approximate n x n kernel.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        The unit eigenvectors ``beta_k`` of the centred kernel matrix, as
        scikit-learn's ``eigenvectors_`` (exact only).
    X_fit_ : {ndarray, scipy.sparse matrix} of shape (n_samples, n_features)
        The training samples, needed to evaluate the kernel on new points
        (exact only, and not with a precomputed kernel); with
        ``copy_X=False``, the caller's array itself.
    centerer_ : sklearn.preprocessing.KernelCenterer
        Holds the training kernel's column means, which centre both the
        training and test kernels (exact only).
    landmarks_ : ndarray of shape (n_landmarks, n_features)
        The landmarks l_j (Nystroem only).
    kernel_mean_ : ndarray of shape (n_landmarks,)
        ``k_bar_j``, the mean of k(x_i, l_j) over the training samples
        (Nystroem only).
    mean_coef_ : ndarray of shape (n_landmarks,)
        ``b = K_mm^+ k_bar``, the mean of the training images over the
        landmarks, for pre-images (Nystroem only).
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

    The same from the precomputed kernel matrix, and a learned pre-image:

    >>> K = Gaussian(c=2.0)(X)
    >>> KernelPCA(n_components=2, kernel="precomputed").fit(K).eigenvalues_.round(4)
    array([0.6321, 0.6321])
    >>> learned = KernelPCA(2, kernel=Gaussian(c=2.0), fit_inverse_transform=True, alpha=0.1).fit(X)
    >>> learned.denoise(X, method="learned").shape
    (4, 2)

    With every sample a landmark, Nystroem is exact:

    >>> nystroem = KernelPCA(2, kernel=Gaussian(c=2.0), approximation="nystroem", n_landmarks=4)
    >>> nystroem.fit(X).eigenvalues_.round(4)
    array([0.6321, 0.6321])
    """

    def __init__(
        self,
        n_components=None,
        kernel=None,
        eigen_solver="auto",
        *,
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        alpha=1.0,
        fit_inverse_transform=False,
        tol=0.0,
        max_iter=None,
        iterated_power="auto",
        approximation=None,
        n_landmarks=100,
        landmarks="uniform",
        chunk_size=None,
        random_state=None,
        remove_zero_eig=True,
        copy_X=True,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.eigen_solver = eigen_solver
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.tol = tol
        self.max_iter = max_iter
        self.iterated_power = iterated_power
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.chunk_size = chunk_size
        self.random_state = random_state
        self.remove_zero_eig = remove_zero_eig
        self.copy_X = copy_X
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.pairwise = self._precomputed
        tags.input_tags.sparse = not (self._precomputed or self.fit_inverse_transform)
        return tags

    def fit(self, X, y=None):
        """Fit the model: centre the kernel matrix and solve its eigenproblem.

        A fit starts from a clean slate: every fitted attribute of an earlier
        fit (those ending in ``_``, such as ``gamma_``, ``X_fit_`` or
        ``feature_names_in_``) is removed first, and only those of this
        fit's configuration are set, also when the fit fails.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix, dask.array.Array} of shape (n_samples, n_features)
            Training samples as rows; at least two, all finite. A sparse
            matrix (CSR or CSC) is never made dense: the kernel reads it
            (exact only, without ``fit_inverse_transform``). With
            ``kernel="precomputed"``, the dense n x n kernel matrix. A
            ``dask.array.Array`` (with ``approximation="nystroem"`` and
            uniform landmarks only) is fitted by one Dask task per block
            of rows and a tree of merges, on the active scheduler
            (:mod:`kpca_lib.nystroem_dask`), with the same landmarks and
            model, up to round-off, as the in-memory fit.
        y : None
            Ignored.

        Returns
        -------
        self : KernelPCA
            The fitted estimator.

        Raises
        ------
        ValueError
            Among others: a precomputed matrix (or the matrix of a kernel
            function of your own) whose centred matrix is not symmetric
            beyond round-off; a kernel matrix of distinct samples that
            underflowed (largest entry below ``tiny / eps`` of the dtype,
            about 1e-292 for float64: for the linear kernel, samples of
            size about 1e-146 or less),
            with how to rescale X; more components than positive
            eigenvalues.
        """
        self._clear_fit()
        self._check_params()
        if is_dask_array(X):
            return self._fit_dask(X)
        # copy_X: X_fit_ must not change when the caller's array does
        X = validate_data(self, X, dtype=_FLOAT_DTYPES, ensure_min_samples=2, copy=self.copy_X,
                          accept_sparse=("csr", "csc"))
        if issparse(X):
            self._check_sparse_fit()
            if self.approximation == "nystroem":
                X = X.tocsr()  # the Nystroem fit reads chunks of rows
        if self._precomputed and X.shape[1] != X.shape[0]:
            raise ValueError(f"A precomputed kernel matrix must be square, got shape {X.shape}.")
        self._resolve_kernel(X.shape[1])
        self._nystroem = self.approximation == "nystroem"
        q = self._fit_nystroem(X) if self._nystroem else self._fit_exact(X)
        self.n_components_ = q
        self._fit_dtype = X.dtype
        self._n_features_out = q
        if self.fit_inverse_transform:
            self.X_transformed_fit_ = self.alphas_ * self.eigenvalues_
            self.dual_coef_ = fit_learned_preimage(
                self.X_transformed_fit_, np.asarray(X, dtype=np.float64), self.kernel_, self.alpha
            )
        return self

    def fit_transform(self, X, y=None):
        """Fit the model and return the projections of the training samples.

        Parameters
        ----------
        X : {array-like, dask.array.Array} of shape (n_samples, n_features)
            Training samples as rows (the kernel matrix if precomputed). A
            ``dask.array.Array`` needs ``approximation="nystroem"`` (see
            :meth:`fit`).
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray or dask.array.Array of shape (n_samples, n_components)
            ``K_c alpha_k = mu_k alpha_k``, so no kernel is recomputed
            (Nystroem: a second pass over X, by chunks). float32 when X is
            float32. For a Dask array, the fit is computed and Z is a lazy
            Dask array with X's blocks of rows.
        """
        if is_dask_array(X):
            return self.fit(X).transform(X)
        self.fit(X)
        if self._nystroem:
            Z = self._project_nystroem(validate_data(self, X, dtype=_FLOAT_DTYPES, reset=False,
                                                     accept_sparse=("csr", "csc")))
        else:
            Z = self.alphas_ * self.eigenvalues_
        return Z.astype(self._fit_dtype, copy=False)

    def transform(self, X):
        """Project samples on the feature-space components.

        Parameters
        ----------
        X : {array-like, dask.array.Array} of shape (n_samples, n_features)
            Samples as rows, with as many features as at fit; with a
            precomputed kernel, the kernel matrix between the samples and
            the training samples. A ``dask.array.Array`` (for a model
            fitted with ``approximation="nystroem"``) gives a lazy result.

        Returns
        -------
        Z : ndarray or dask.array.Array of shape (n_samples, n_components)
            ``Z = K_c(X, X_fit_) @ alphas_`` with the test kernel centred by
            the training means; float32 when X is float32. For a Dask array,
            a lazy Dask array (``map_blocks``, one task per block of rows).
        """
        check_is_fitted(self)
        if is_dask_array(X):
            return self._transform_dask(X)
        X = validate_data(self, X, dtype=_FLOAT_DTYPES, reset=False, accept_sparse=("csr", "csc"))
        return self._project(X).astype(X.dtype, copy=False)
