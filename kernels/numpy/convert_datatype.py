"""What NumPy's casting code does besides converting values, for the kernels that decide a
cast (numpy/_core/src/multiarray/convert_datatype.c).

``cast_loop(src, dst)`` stands for one cast loop set up (``PyArray_GetDTypeTransferFunction``
and the iterator's buffers call ``get_loop`` once per operand that needs a cast): a complex to
real loop warns ``ComplexWarning`` there (``complex_to_noncomplex_get_loop``), on every call,
for empty arrays too, before a single value moves. The ufunc machinery (umath.py inputs and
outputs, reductions.py ``_loop`` for reduce / accumulate / reduceat), the joins
(shape_base.py), array construction with a dtype (creation.py) and item assignment
(indexing.py) call it where they decide the cast, so every function built on them warns as
NumPy does.
"""
from __future__ import annotations

import warnings

import numpy as np

_MESSAGE = "Casting complex values to real discards the imaginary part"


def cast_loop(src: np.dtype, dst: np.dtype, count: int = 1) -> None:
    """``count`` cast loops from src to dst are set up: a complex to integer or floating
    one warns (complex to bool, object, strings and complex keep the imaginary part's
    meaning and do not)."""
    if src.kind == "c" and dst.kind in "iuf":
        for _ in range(count):
            warnings.warn(_MESSAGE, np.exceptions.ComplexWarning, stacklevel=3)
