"""Loading pickled fakes without running arbitrary code: ``ft.unpickle``.

A pickled fake is plain data for two reconstructors (``faketensor._array.rebuild`` and
``faketensor._storage.rebuild_storage``, both checking every field and the payload
version) and NumPy's dtype constructor. ``SafeUnpickler`` resolves only those names, so a
pickle from an untrusted source can build fakes, dtypes and Python containers, nothing else.
"""
from __future__ import annotations

import io
import pickle
from typing import IO, Any

# (module, name) pairs a pickled fake refers to: the two reconstructors, and what NumPy's
# dtype pickles through (numpy/_core/src/multiarray/descriptor.c arraydescr_reduce)
ALLOWED = frozenset({
    ("faketensor._array", "rebuild"),
    ("faketensor._chararray", "rebuild_chararray"),
    ("faketensor._matrix", "rebuild_matrix"),
    ("faketensor._storage", "rebuild_storage"),
    ("numpy", "dtype"),
    ("numpy._core._internal", "_convert_to_stringdtype_kwargs"),  # StringDType
    ("_codecs", "encode"),  # bytes (a dtype's state) in pickle protocols 0 to 2
})


class SafeUnpickler(pickle.Unpickler):
    """An Unpickler that resolves only the names in ``ALLOWED`` and ``numpy.dtypes``' dtype
    classes; any other global raises ``pickle.UnpicklingError``."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in ALLOWED or (module == "numpy.dtypes" and name.endswith("DType")):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"ft.unpickle refuses {module}.{name}: a pickle of fakes refers only to "
            "faketensor's reconstructors and numpy.dtype (use pickle.loads for trusted data)")


def unpickle(data: bytes | IO[bytes]) -> Any:
    """Load fakes (in any containers) from ``pickle.dumps`` bytes or a binary file, running
    no callable but faketensor's reconstructors and NumPy's dtype constructor."""
    f = io.BytesIO(data) if isinstance(data, (bytes, bytearray, memoryview)) else data
    return SafeUnpickler(f).load()
