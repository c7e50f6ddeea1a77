"""kpca_lib: the library behind the interactive book on kernel PCA.

The names below are what the chapters call; each lives in a module of its
own (one idea per module).
"""

from . import datasets, preimage
from .kernel_pca import KernelPCA
from .kernels import (
    Gaussian,
    Kernel,
    Linear,
    NotPSDWarning,
    Polynomial,
    Sigmoid,
    degree2_feature_map,
    is_psd,
)
from .pca import PCA

__all__ = [
    "PCA",
    "KernelPCA",
    "Kernel",
    "Linear",
    "Polynomial",
    "Gaussian",
    "Sigmoid",
    "NotPSDWarning",
    "degree2_feature_map",
    "is_psd",
    "datasets",
    "preimage",
]

__version__ = "0.1.0"
