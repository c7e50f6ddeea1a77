"""Tests of the Appendix A section of kpca_lib.explorers."""

import numpy as np

from kpca_lib.explorers import sparse_pca_topics


def test_alpha_zero_is_dense_and_alpha_large_is_empty():
    dense = sparse_pca_topics(alpha=0.0, n_components=2)
    assert np.all(dense["n_nonzero"] == 56)
    empty = sparse_pca_topics(alpha=1e3, n_components=2)
    assert np.all(empty["n_nonzero"] == 0)
    assert empty["explained_variance_ratio"] == 0.0


def test_explained_variance_falls_as_alpha_grows():
    ratios = [sparse_pca_topics(alpha=a, n_components=4)["explained_variance_ratio"]
              for a in (0.0, 3.0, 6.0)]
    assert ratios[0] > ratios[1] > ratios[2] > 0
    # alpha = 0: the rank-4 PCA reconstruction, at most the total variance
    assert ratios[0] < 1.0
