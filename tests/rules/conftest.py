"""Hypothesis profiles for the rule properties.

'default' keeps `make test` quick; 'ci' (chosen when CI or MAUMAU_TEST_REQUIRE_ALL=1 is set) plays
many more random matches; 'mutate' (chosen by `make mutate`) plays a few fixed ones, so every
mutant meets the same matches. MAUMAU_HYPOTHESIS_PROFILE names a profile outright.
"""

import os

from hypothesis import HealthCheck, settings

_SHARED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("default", max_examples=25, **_SHARED)
settings.register_profile("ci", max_examples=300, **_SHARED)
settings.register_profile(
    "mutate", max_examples=4, derandomize=True, database=None, print_blob=False, **_SHARED
)


def _profile() -> str:
    chosen = os.environ.get("MAUMAU_HYPOTHESIS_PROFILE")
    if chosen:
        return chosen
    if os.environ.get("CI") or os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1":
        return "ci"
    return "default"


settings.load_profile(_profile())
