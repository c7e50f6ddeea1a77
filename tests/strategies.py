"""Hypothesis strategies shared by the tests.

``data_matrices`` draws nicely behaved matrices (entries in [-10, 10]). The
others draw the hard inputs a numerical analyst would try: large offsets,
ill-conditioned and rank-deficient data, and repeated eigenvalues. Each is
built from parts whose exact answer the test knows (the offset, the
singular values, the rank), so that a property can be checked against it.
"""

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

# entries of moderate size: the identities under test are exact in
# arithmetic, and moderate values keep round-off far below the tolerances
finite_floats = st.floats(min_value=-10, max_value=10, allow_nan=False, allow_subnormal=False)


def data_matrices(min_samples=2, max_samples=12, min_features=1, max_features=6):
    """Strategy for an n x d float matrix with samples as rows."""
    shapes = st.tuples(
        st.integers(min_samples, max_samples), st.integers(min_features, max_features)
    )
    return shapes.flatmap(lambda shape: arrays(np.float64, shape, elements=finite_floats))


def _orthonormal(rng, rows, columns):
    """A random rows x columns matrix with orthonormal columns."""
    return np.linalg.qr(rng.standard_normal((rows, columns)))[0]


def _centred_orthonormal(rng, n, k):
    """n x k orthonormal columns orthogonal to the constant vector."""
    A = rng.standard_normal((n, k))
    A -= A.mean(axis=0)
    return np.linalg.qr(A)[0]


@st.composite
def spectral_data(draw, singular_values, min_samples=6, max_samples=30, max_offset=0.0):
    """Data ``X = U diag(s) W^T + offset`` with known singular values s.

    U has centred orthonormal columns, so the centred data are exactly
    ``U diag(s) W^T`` up to the round-off of the offset: their singular
    values are ``s`` and their right singular vectors the columns of W.

    Returns
    -------
    (X, s, W)
    """
    s = np.asarray(singular_values, dtype=np.float64)
    k = s.size
    n = draw(st.integers(max(min_samples, k + 2), max(max_samples, k + 2)))
    d = draw(st.integers(k, k + 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    U = _centred_orthonormal(rng, n, k)
    W = _orthonormal(rng, d, k)
    offset = draw(st.floats(-max_offset, max_offset)) * rng.uniform(0.5, 1.0, d) if max_offset else 0.0
    return U * s @ W.T + offset, s, W


def offset_matrices(max_offset=1e6):
    """Well-conditioned data far from the origin: distinct singular values in [1, 20].

    Consecutive singular values differ by a factor 1.25 to 2, so that the
    components are well determined.
    """

    def spectrum(args):
        top, factors = args
        return top * np.cumprod([1.0, *factors])

    values = st.tuples(st.floats(8.0, 20.0), st.lists(st.floats(0.5, 0.8), max_size=3)).map(spectrum)
    return values.flatmap(lambda s: spectral_data(s, max_offset=max_offset))


def ill_conditioned_matrices(max_decades=10, max_offset=10.0):
    """Data whose singular values span up to ``max_decades`` decades."""

    def spectrum(draw_decades):
        decades, k = draw_decades
        return np.logspace(0, -decades, k)

    values = st.tuples(st.floats(3.0, max_decades), st.integers(2, 4)).map(spectrum)
    return values.flatmap(lambda s: spectral_data(s, max_offset=max_offset))


def rank_deficient_matrices(max_offset=10.0):
    """Data of rank r < min(n - 1, d): r singular values in [1, 10], the rest 0.

    The draw gives (X, r, W): W holds the r directions.
    """

    def build(args):
        s = sorted(args, reverse=True)
        return spectral_data(s, max_offset=max_offset).filter(lambda data: data[0].shape[1] > len(s)).map(
            lambda data: (data[0], len(s), data[2])
        )

    return st.lists(st.floats(1.0, 10.0), min_size=1, max_size=3).flatmap(build)


def repeated_eigenvalue_matrices(max_offset=10.0):
    """Data whose leading singular value is repeated m >= 2 times, then smaller ones.

    The draw gives (X, m, W): the first m columns of W span the repeated
    direction (its components are any orthonormal basis of that span).
    """

    def build(args):
        top, m, rest = args
        s = [top] * m + [top * f for f in rest]
        return spectral_data(s, max_offset=max_offset).map(lambda data: (data[0], m, data[2]))

    parts = st.tuples(st.floats(1.0, 10.0), st.integers(2, 3), st.lists(st.floats(0.05, 0.5), max_size=2))
    return parts.flatmap(build)
