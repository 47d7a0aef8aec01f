import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

# Derandomized, so the suite gives the same verdict on every run; FT_RANDOM=1 explores
# new examples (run it when changing kernels).
settings.register_profile(
    "ci", max_examples=int(os.environ.get("FT_EXAMPLES", "150")), deadline=None,
    derandomize=os.environ.get("FT_RANDOM") != "1", database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
settings.load_profile("ci")
