"""Hypothesis strategies shared by the tests: nicely behaved data matrices."""

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

