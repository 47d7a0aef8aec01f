"""C-heap scratch of NumPy's LAPACK gufuncs (numpy/linalg/umath_linalg.cpp).

Each gufunc ``PyMem_RawMalloc``s one block for the Fortran-order copies of its operands
(and pivots or singular values), and for the LAPACK routines that take a work array a
second block sized by the routine's own workspace query (``lwork = -1``). Both are held
together while the routine runs. The queries are asked of the LAPACK NumPy links
(its bundled OpenBLAS, through ctypes); where that library or symbol cannot be found,
the minimal sizes LAPACK documents are used (a lower bound).
"""
from __future__ import annotations

import ctypes
import os
from functools import lru_cache

import numpy as np

from ..._bounded import memoized

_I = ctypes.c_int64  # the bundled OpenBLAS is ILP64 (symbols end in 64_)


@lru_cache(maxsize=1)
def _lapack() -> ctypes.CDLL | None:
    """NumPy's bundled scipy-openblas, or None."""
    import glob
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "libscipy_openblas64_*.so"))):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def fortran_int_size() -> int:
    """Bytes of LAPACK's integers as NumPy's build uses them (ILP64: 8)."""
    return 8 if _lapack() is not None else 4


def _symbol(name: str):
    lib = _lapack()
    return None if lib is None else getattr(lib, f"scipy_{name}_64_", None)


_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}


@memoized("lapack syevd queries")
def syevd_work(dt: np.dtype, jobz: str, n: int) -> tuple[int, int]:
    """(lwork, liwork) of ?syevd's query; LAPACK's minimums if it cannot be asked."""
    fn = _symbol(_PREFIX.get(dt, "") + "syevd") if dt in _PREFIX else None
    if fn is not None and n > 0:
        work, iwork, info = ctypes.c_double(), _I(), _I()
        w32 = ctypes.c_float()
        wp = ctypes.byref(w32 if dt.itemsize == 4 else work)
        fn(ctypes.c_char_p(jobz.encode()), ctypes.c_char_p(b"L"), ctypes.byref(_I(n)), None,
           ctypes.byref(_I(max(n, 1))), None, wp, ctypes.byref(_I(-1)), ctypes.byref(iwork),
           ctypes.byref(_I(-1)), ctypes.byref(info))
        if info.value == 0:
            return int(w32.value if dt.itemsize == 4 else work.value), int(iwork.value)
    if n <= 1:
        return 1, 1
    return (1 + 6 * n + 2 * n * n, 3 + 5 * n) if jobz == "V" else (2 * n + 1, 1)


@memoized("lapack gesdd queries")
def gesdd_work(dt: np.dtype, jobz: str, m: int, n: int, ldvt: int) -> int:
    """lwork of ?gesdd's query; LAPACK's minimum if it cannot be asked."""
    fn = _symbol(_PREFIX.get(dt, "") + "gesdd") if dt in _PREFIX else None
    if fn is not None:
        work, info = ctypes.c_double(), _I()
        w32 = ctypes.c_float()
        wp = ctypes.byref(w32 if dt.itemsize == 4 else work)
        ld = _I(max(m, 1))
        fn(ctypes.c_char_p(jobz.encode()), ctypes.byref(_I(m)), ctypes.byref(_I(n)), None,
           ctypes.byref(ld), None, None, ctypes.byref(ld), None, ctypes.byref(_I(ldvt)), wp,
           ctypes.byref(_I(-1)), None, ctypes.byref(info))
        if info.value == 0:
            return max(int(w32.value if dt.itemsize == 4 else work.value), 1)
    mn, mx = min(m, n), max(m, n)
    if jobz == "N":
        return max(3 * mn + max(mx, 7 * mn), 1)
    return max(4 * mn * mn + 6 * mn + mx, 1)


def gufunc_scratch(op: str, t: np.dtype, n: int, m: int | None = None, nrhs: int = 0,
                   jobz: str = "N") -> int | None:
    """Bytes of the blocks one _umath_linalg gufunc holds at once (per call: the blocks are
    reused across a stack of matrices), or None for gufuncs without a rule yet.

    ``n``: the matrix order (columns for svd, whose ``m`` is the rows); ``nrhs``: solve's
    right-hand sides (inv solves against the identity: ``n``); ``jobz``: 'V'/'N' for eigh,
    'A'/'S'/'N' for svd. Sizes from init_gesv, slogdet/det, init_potrf, init_evd and
    init_gesdd (umath_linalg.cpp), ``safe_`` sizes for empty matrices included.
    """
    isz = t.itemsize
    fint = fortran_int_size()
    if op == "gesv":
        return n * n * isz + n * nrhs * isz + n * fint
    if op == "getrf":
        s = max(n, 1)
        return s * s * isz + s * fint
    if op == "potrf":
        return n * n * isz
    if t.kind == "c":
        return None
    if op == "syevd":
        lwork, liwork = syevd_work(t, jobz, n)
        return n * (n + 1) * isz + lwork * isz + liwork * fint
    if op == "gesdd":
        rows = m if m is not None else n
        mn = min(rows, n)
        if jobz == "N":
            ucount, vtcols = 0, 0
        elif jobz == "A":
            ucount, vtcols = rows, n
        else:
            ucount, vtcols = mn, mn
        block = rows * n * isz + mn * isz + ucount * rows * isz + n * vtcols * isz + 8 * mn * fint
        return block + gesdd_work(t, jobz, rows, n, max(1, vtcols)) * isz
    return None
