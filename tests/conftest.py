"""Shared test configuration."""

import os

from hypothesis import settings

# no deadline: a shared 2-core machine makes timings noisy; in CI the examples
# are derandomised so that a run is repeatable
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
