"""The real-run memory measurements of the tests: faketensor/meta_utils/memtrace.py (shared
with ``faketensor coverage --memory``), re-exported under the name the tests import."""
from faketensor.meta_utils.surveys.memtrace import (NUMPY_DOMAIN, _DOMAINS, _PyMemAllocatorEx, _get,  # noqa: F401
                                             _set, _split, _start_numpy_only, measure_peak,
                                             numpy_tracing, op_peaks, still_heap, traced_call)
