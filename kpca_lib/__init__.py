"""kpca_lib: the library behind the interactive book on kernel PCA.

The names below are what the chapters call; each lives in a module of its
own (one idea per module).
"""

from . import datasets, learned_preimage, preimage, proximal
from .kernel_pca import KernelPCA
from .kernels import (
    Cosine,
    Gaussian,
    Kernel,
    Laplacian,
    Linear,
    NotPSDWarning,
    Polynomial,
    Sigmoid,
    degree2_feature_map,
    is_psd,
)
from .pca import PCA

# Appendices A and B: sparse and robust PCA
from .proximal import project_unit_ball, singular_value_threshold, soft_threshold
from .matrix_completion import MatrixCompletionResult, complete_matrix
from .robust_pca import RobustPCAResult, robust_pca
from .godec import GoDecResult, godec
from .l1_low_rank import L1LowRankResult, l1_low_rank, l1_regression
from .sparse_pca import SparsePCA

__all__ = [
    "PCA",
    "KernelPCA",
    "Kernel",
    "Linear",
    "Polynomial",
    "Gaussian",
    "Sigmoid",
    "Laplacian",
    "Cosine",
    "NotPSDWarning",
    "degree2_feature_map",
    "is_psd",
    "datasets",
    "preimage",
    "learned_preimage",
    # Appendices A and B: sparse and robust PCA
    "proximal",
    "soft_threshold",
    "singular_value_threshold",
    "project_unit_ball",
    "SparsePCA",
    "robust_pca",
    "RobustPCAResult",
    "complete_matrix",
    "MatrixCompletionResult",
    "godec",
    "GoDecResult",
    "l1_low_rank",
    "l1_regression",
    "L1LowRankResult",
]

__version__ = "0.1.0"
