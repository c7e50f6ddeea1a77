"""Tests of the Appendix A section of kpca_lib.explorers."""

import numpy as np
import pytest

from kpca_lib.explorers import sparse_pca_topics


def test_alpha_zero_is_dense_and_alpha_large_is_empty():
    dense = sparse_pca_topics(alpha=0.0, n_components=2)
    assert np.all(dense["n_nonzero"] == 56)
    empty = sparse_pca_topics(alpha=1e3, n_components=2)
    assert np.all(empty["n_nonzero"] == 0)
    assert empty["reconstruction_r2"] == 0.0


def test_reconstruction_r2_falls_as_alpha_grows():
    ratios = [sparse_pca_topics(alpha=a, n_components=4)["reconstruction_r2"]
              for a in (0.0, 3.0, 6.0)]
    assert ratios[0] > ratios[1] > ratios[2] > 0
    # alpha = 0: the rank-4 PCA reconstruction, at most the total variance
    assert ratios[0] < 1.0


def test_draw_topics_marks_the_topic_blocks_without_blurring():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kpca_lib.datasets import TOPIC_WORDS
    from kpca_lib.explorers import draw_topics

    fig, ax = plt.subplots()
    draw_topics(ax, alpha=3.0, n_components=4)
    image = ax.get_images()[0]
    assert image.get_interpolation() == "nearest"
    # one loading per cell: 4 components x 56 words
    assert image.get_array().shape == (4, 56)
    # the boundaries of the four blocks of 8 topic words, between cells
    edges = sorted(line.get_xdata()[0] for line in ax.get_lines())
    assert edges == [7.5, 15.5, 23.5, 31.5]
    labels = [tick.get_text() for tick in ax.get_xticklabels()]
    assert labels == list(TOPIC_WORDS) + ["filler words"]
    assert ax.get_ylabel() == "component" and "R^2" in ax.get_title()
    # the colour bar lives in an inset of ax, so clearing ax (as the explorer does) removes it
    assert len(ax.child_axes) == 1
    ax.clear()
    assert len(ax.child_axes) == 0
    plt.close(fig)


def test_r2_at_alpha_zero_is_the_pca_explained_variance():
    # alpha = 0: the loadings span the principal subspace (Eckart-Young), so the
    # reconstruction R^2 is the sum of PCA's explained variance ratios
    from kpca_lib import PCA
    from kpca_lib.datasets import planted_topics

    X = planted_topics(n_documents=400, random_state=0).X
    for q in (2, 4):
        expected = PCA(n_components=q).fit(X).explained_variance_ratio_.sum()
        assert sparse_pca_topics(alpha=0.0, n_components=q)["reconstruction_r2"] == \
            pytest.approx(expected, abs=1e-6)
