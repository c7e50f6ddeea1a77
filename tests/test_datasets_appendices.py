"""Tests of the data generators of the appendices (kpca_lib.datasets)."""

import numpy as np
import pytest

from kpca_lib import SparsePCA
from kpca_lib.datasets import low_rank_plus_sparse, planted_topics, synthetic_video


def test_planted_topics_shapes_and_seed():
    a, b = planted_topics(random_state=3), planted_topics(random_state=3)
    assert np.array_equal(a.X, b.X)
    assert set(np.unique(a.X)) <= {0.0, 1.0}
    assert a.X.shape == (400, len(a.words)) and a.topic_of_word.shape == (len(a.words),)


def test_planted_topics_word_frequencies():
    data = planted_topics(n_documents=20000, random_state=0)
    topic_words = data.topic_of_word >= 0
    # a topic word appears with probability p_topic p_word + (1 - p_topic) p_filler
    assert np.allclose(data.X[:, topic_words].mean(), 0.3 * 0.7 + 0.7 * 0.1, atol=0.01)
    assert np.allclose(data.X[:, ~topic_words].mean(), 0.1, atol=0.01)
    # words of one topic co-occur exactly when their topic is on
    on = data.topics_on[:, 0]
    assert np.allclose(data.X[on][:, data.topic_of_word == 0].mean(), 0.7, atol=0.01)


def test_sparse_pca_recovers_the_topics():
    data = planted_topics()
    spca = SparsePCA(n_components=4, alpha=3.0).fit(data.X)
    found = {frozenset(np.flatnonzero(row)) for row in spca.components_}
    planted = {frozenset(np.flatnonzero(data.topic_of_word == k)) for k in range(4)}
    assert found == planted


def test_low_rank_plus_sparse():
    data = low_rank_plus_sparse(n=100, rank=5, corruption=0.1, n_cols=80, random_state=1)
    assert np.linalg.matrix_rank(data.L0) == 5
    assert np.count_nonzero(data.S0) == 800
    assert set(np.unique(data.S0)) == {-1.0, 0.0, 1.0}
    assert np.array_equal(data.M, data.L0 + data.S0)
    # an entry of L0 = A B^T is a sum of r products of N(0, 1/n) entries: variance r / n^2
    assert np.var(data.L0) == pytest.approx(5 / 100**2, rel=0.2)
    with pytest.raises(ValueError, match="rank"):
        low_rank_plus_sparse(n=10, rank=11)
    with pytest.raises(ValueError, match="corruption"):
        low_rank_plus_sparse(corruption=1.5)


def test_synthetic_video_is_low_rank_plus_sparse():
    video = synthetic_video(random_state=2)
    frames = video.frames
    # off the objects every frame is the background; on them it is 1
    assert np.allclose(frames[~video.mask], np.broadcast_to(video.background, frames.shape)[~video.mask])
    assert np.all(frames[video.mask] == 1.0)
    assert 0.01 < video.mask.mean() < 0.2
    assert np.array_equal(frames, synthetic_video(random_state=2).frames)
    # objects move: the masks of the first and the last frames differ
    assert not np.array_equal(video.mask[0], video.mask[-1])


def test_sparse_spiked_has_the_stated_covariance():
    from kpca_lib.datasets.appendices import sparse_spiked

    data = sparse_spiked(n_samples=20000, n_features=12, n_nonzero=3, strengths=(4.0, 2.0),
                         random_state=0)
    V = data.loadings
    np.testing.assert_allclose(V.T @ V, np.eye(2))
    assert [np.flatnonzero(V[:, k]).tolist() for k in range(2)] == [[0, 1, 2], [3, 4, 5]]
    expected = np.eye(12) + 4.0 * np.outer(V[:, 0], V[:, 0]) + 2.0 * np.outer(V[:, 1], V[:, 1])
    # the sample covariance of 20000 draws is within a few standard errors
    np.testing.assert_allclose(np.cov(data.X, rowvar=False), expected, atol=0.08)
    again = sparse_spiked(n_samples=20000, n_features=12, n_nonzero=3, strengths=(4.0, 2.0),
                          random_state=0)
    np.testing.assert_array_equal(data.X, again.X)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"strengths": ()}, ValueError, "strengths"),
        ({"strengths": (1.0, -2.0)}, ValueError, "strengths"),
        ({"strengths": (np.nan,)}, ValueError, "strengths"),
        ({"n_features": 15, "n_nonzero": 10}, ValueError, "n_features"),
        ({"n_nonzero": 0}, ValueError, "n_nonzero"),
        ({"n_samples": 2.5}, TypeError, "n_samples"),
    ],
)
def test_sparse_spiked_bad_input(kwargs, error, match):
    from kpca_lib.datasets.appendices import sparse_spiked

    with pytest.raises(error, match=match):
        sparse_spiked(**kwargs)
