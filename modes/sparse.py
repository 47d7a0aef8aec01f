"""scipy.sparse built from structure, as fakes (docs/guide/scipy-sparse.md,
docs/guide/sparse-lil.md): the fake classes and the patches; the rules they follow live in
kernels/scipy/sparse.py.

``FakeSparse`` stands for a SciPy sparse array or matrix (COO, CSR, CSC, DIA; the
``*_array`` and ``*_matrix`` classes) whose arrays (``data``, ``indices``, ``indptr``,
``coords``, ``offsets``) are fakes; ``FakeLil`` for a LIL one, whose ``rows`` and ``data``
are fake object arrays. They know what SciPy knows without reading values: the shape, the
dtype, the index dtype and the number of stored elements, which follows from the structure
(offsets and shapes given as numbers or real arrays, diagonals known to hold no zero,
canonical formats made by construction, single entries assigned into a LIL). Every method
follows SciPy's own Python through the rules, with NumPy calls on the fakes, so the mode
charges the arrays and the temporaries SciPy allocates; the compiled sparsetools calls
either only fill the arrays allocated before them (nothing to do) or are products with a
kernel (in place on their output, with FLOPs). No fake ever reaches sparsetools. What
needs values (the stored count of a sparse product, of a dense-to-sparse conversion, after
dropping explicit zeros or summing duplicates that may exist, a LIL entry whose presence
depends on them) raises DataDependentError naming the SciPy function.
"""
from __future__ import annotations

import sys
import threading
import warnings
from typing import Any

import numpy as np

from .. import _known
from .._array import FakeArray
from .._dispatch import dispatch, mode_stack
from .._errors import DataDependentError, UnsupportedOperationError
from .._matrix import FakeMatrix
from .._stack import LIVE, paused
from ..kernels.scipy import sparse as rules

_FAKE = FakeArray
FORMATS = ("coo", "csr", "csc", "dia")


def active() -> bool:
    """A mode is on this context's stack."""
    return bool(LIVE and mode_stack())


class _ModeFor:
    """Run the body in a FakeMode when no mode is active (fakes given outside any mode):
    NumPy's factories then make fakes, as they do in the program's mode."""

    def __enter__(self) -> None:
        self.mode = None
        if not active():
            from .fake_mode import FakeMode
            self.mode = FakeMode()
            self.mode.__enter__()

    def __exit__(self, *exc: Any) -> None:
        if self.mode is not None:
            self.mode.__exit__(*exc)


def _is_fake(x: Any) -> bool:
    return isinstance(x, _FAKE)


def _isscalarlike(x: Any) -> bool:
    """scipy.sparse._sputils.isscalarlike (a fake 0-d array is scalar-like)."""
    return np.isscalar(x) or (getattr(x, "ndim", None) == 0 and hasattr(x, "dtype")
                              and not isinstance(x, FakeSparse))


# --- structure values -------------------------------------------------------------------

# --- the fake sparse array --------------------------------------------------------------

class FakeSparse:
    """A fake SciPy sparse array or matrix (format ``coo``, ``csr``, ``csc`` or ``dia``)."""

    __slots__ = ("format", "_array", "_shape", "data", "indices", "indptr", "coords",
                 "offsets", "_offsets", "_nnz", "_canonical", "_dupfree", "_zero_free",
                 "_pattern", "__weakref__")
    __array_ufunc__ = None  # NumPy's operators return NotImplemented: x @ A reaches A
    __array_priority__ = 10.1  # as scipy.sparse's

    def __init__(self, fmt: str, is_array: bool, shape: tuple, *, data: Any,
                 indices: Any = None, indptr: Any = None, coords: Any = None,
                 offsets: Any = None, offset_values: tuple = (), nnz: int | None = None,
                 canonical: bool | None = None, zero_free: bool | None = None,
                 dupfree: bool | None = None, pattern: Any = None) -> None:
        self.format = fmt
        # the stored positions when known without values (rules.Pattern), else None
        self._pattern = pattern
        self._array = is_array
        self._shape = tuple(int(s) for s in shape)
        self.data, self.indices, self.indptr = data, indices, indptr
        self.coords, self.offsets, self._offsets = coords, offsets, tuple(offset_values)
        if nnz is None:
            if fmt == "dia":
                nnz = rules.dia_nnz(self._shape[0], self._shape[1], data.shape[1],
                                    self._offsets)
            else:
                nnz = int(data.shape[0])
        self._nnz = nnz
        self._canonical = canonical
        self._dupfree = True if canonical or fmt == "dia" else dupfree
        self._zero_free = zero_free

    @property  # type: ignore[misc]  # object.__class__ is settable; this one answers only
    def __class__(self) -> type:
        """The SciPy class this fake stands for: ``isinstance(A, scipy.sparse.csr_array)``,
        ``scipy.sparse.issparse(A)`` and SciPy's own isinstance checks answer as for the
        real array (``type(A)`` is FakeSparse)."""
        return CLASSES.get((self.format, self._array), FakeSparse)

    @property
    def _shape_as_2d(self) -> tuple:
        return self._shape

    @property
    def maxprint(self) -> int:
        return 50

    # --- attributes ---------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def nnz(self) -> int:
        """Stored elements (SciPy's ``nnz``), known from the structure."""
        if self.format == "dia":
            self._dia_getnnz_temporaries()
        return self._nnz

    def _dia_getnnz_temporaries(self) -> None:
        """_dia._getnnz computes the count with NumPy on the offsets: its temporaries."""
        with _ModeFor():
            rules.dia_getnnz_temporaries(self._shape, self.data.shape[1], self.offsets)

    @property
    def size(self) -> int:
        return self._nnz

    def getnnz(self, axis: Any = None) -> int:
        if axis is not None:
            raise DataDependentError(f"{self._name}.getnnz(axis=...): the stored count per "
                                     "row or column depends on the index values")
        return self._nnz

    @property
    def row(self) -> Any:
        self._need("coo", "row")
        return self.coords[0]

    @property
    def col(self) -> Any:
        self._need("coo", "col")
        return self.coords[1]

    @property
    def has_canonical_format(self) -> bool:
        if self._canonical is None:
            raise DataDependentError(f"{self._name}.has_canonical_format: whether the "
                                     "indices are sorted and free of duplicates depends on "
                                     "their values")
        return self._canonical

    @property
    def has_sorted_indices(self) -> bool:
        return self.has_canonical_format

    @property
    def _name(self) -> str:
        return f"scipy.sparse.{self.format}_{'array' if self._array else 'matrix'}"

    def _need(self, fmt: str, attr: str) -> None:
        if self.format != fmt:
            raise AttributeError(f"{self.format}_{'array' if self._array else 'matrix'} "
                                 f"object has no attribute {attr!r}")

    def __repr__(self) -> str:
        kind = "sparse array" if self._array else "sparse matrix"
        extra = f" ({len(self._offsets)} diagonals)" if self.format == "dia" else ""
        return (f"<FakeSparse {self.format.upper()} {kind} of dtype '{self.dtype}'\n"
                f"\twith {self._nnz} stored elements{extra} and shape {self._shape}>")

    def __len__(self) -> int:
        raise TypeError("sparse array length is ambiguous; use getnnz() or shape[0]")

    def __bool__(self) -> bool:
        if self._shape == (1, 1):
            raise DataDependentError(f"bool() of {self._name}: needs its value")
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all().")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Cannot convert a fake {self._name} to a dense array; "
                                  "no data! (use .toarray(), which gives a fake)")

    # --- containers made like this one --------------------------------------------------
    def _like(self, fmt: str, shape: tuple | None = None, **kw: Any) -> "FakeSparse":
        return FakeSparse(fmt, self._array, self._shape if shape is None else shape, **kw)

    # --- conversions ----------------------------------------------------------------------
    def asformat(self, format: str | None, copy: bool = False) -> "FakeSparse":
        """_base.asformat: the ``to<format>`` method."""
        if format is None or format == self.format:
            return self.copy() if copy else self
        conv = getattr(self, "to" + format, None)
        if conv is None:
            if format in ("lil", "dok", "bsr", "array", "dense"):
                raise UnsupportedOperationError(f"{self._name}.to{format}",
                                                "this format is not modelled for fakes")
            raise ValueError(f"Format {format} is unknown.")
        return conv(copy=copy)

    def tocsr(self, copy: bool = False) -> "FakeSparse":
        return self._to_compressed("csr", copy)

    def tocsc(self, copy: bool = False) -> "FakeSparse":
        return self._to_compressed("csc", copy)

    def _to_compressed(self, fmt: str, copy: bool) -> "FakeSparse":
        """tocsr / tocsc of each format: itself (or a copy), the other compressed format
        swapped, COO's container, DIA's dia_tocsr (to CSC through CSR)."""
        with _ModeFor():
            if self.format == fmt:
                return self.copy() if copy else self
            if self.format in ("csr", "csc"):
                return self._compressed_swap(fmt)
            if self.format == "coo":
                return self._coo_to_compressed_container(fmt, copy)
            if fmt == "csr":
                return self._dia_tocsr()
            return self.tocsr(copy=copy).tocsc(copy=False)

    def tocoo(self, copy: bool = False) -> "FakeSparse":
        with _ModeFor():
            if self.format == "coo":
                return self.copy() if copy else self
            if self.format == "dia":
                return self.tocsr(copy=False).tocoo(copy=copy)
            # _compressed.tocoo: expandptr fills the major indices
            minor = self.indices
            major = np.empty(len(minor), dtype=minor.dtype)
            coords = (major, minor) if self.format == "csr" else (minor, major)
            out = _coo(self._array, self.data, coords, self._shape, copy=copy,
                       dtype=self.dtype, bounds_known=True)
            # CSR-to-COO keeps (non-)canonicity; CSC-to-COO does not (_csr.py tocoo)
            out._canonical = self._canonical if self.format == "csr" else False
            out._dupfree = self._dupfree
            return out

    def todia(self, copy: bool = False) -> "FakeSparse":
        if self.format == "dia":
            return self.copy() if copy else self
        raise DataDependentError(f"{self._name}.todia: the diagonals present are "
                                 "np.unique of the index values (scipy.sparse "
                                 "_coo.todia)")

    def toarray(self, order: Any = None, out: Any = None) -> Any:
        """The dense array as SciPy makes it (``_process_toarray_args``: np.zeros in the
        order asked, C by default, F for CSC), with the conversions it goes through."""
        if out is not None:
            raise UnsupportedOperationError(f"{self._name}.toarray", "out= (writes values)")
        with _ModeFor():
            if self.format in ("csr", "csc"):
                if order is None:
                    order = "C" if self.format == "csr" else "F"
                res = np.zeros(self._shape, dtype=self.dtype, order=order)
                if res.flags.c_contiguous:
                    self.tocsr()._fill_dense(res)
                else:
                    self.tocsc()._fill_dense(res.T)
                return res
            if self.format == "coo":
                B = np.zeros(self._shape, dtype=self.dtype, order=order)
                self._fill_dense(B)
                return B.reshape(self._shape)
            return self.tocoo(copy=False).toarray(order=order)

    def todense(self, order: Any = None, out: Any = None) -> Any:
        dense = self.toarray(order=order, out=out)
        if self._array:
            return dense
        return _asmatrix(dense)

    def _compressed_swap(self, fmt: str) -> "FakeSparse":
        """_csr.tocsc / _csc.tocsr (csr_tocsc fills the new arrays)."""
        arrays = rules.compressed_swap_arrays(fmt, self._shape, self._nnz, self.dtype,
                                              self.indptr, self.indices)
        out = _compressed(fmt, self._array, arrays, self._shape, bounds_known=True)
        # csr_tocsc sorts the indices; duplicates stay as they were
        out._canonical = out._dupfree = self._dupfree
        return out

    def _coo_to_compressed_container(self, fmt: str, copy: bool,
                                     construct: bool = True) -> "FakeSparse":
        """_coo.tocsr / tocsc (``construct``: the container made by its constructor from
        the three arrays; else set directly, as the (data, (row, col)) form of the CSR/CSC
        constructors does)."""
        if self._nnz == 0:
            return _empty_compressed(fmt, self._array, self._shape, self.dtype)
        if self._dupfree is False:
            raise UnsupportedOperationError(f"{self._name}.to{fmt}", "duplicate entries given "
                                            "as known values (summing them is not modelled)")
        if not self._dupfree:
            raise DataDependentError(f"{self._name}.to{fmt}: the stored count after summing "
                                     "duplicate entries depends on the index values "
                                     "(sum_duplicates)")
        data, indices, indptr = rules.coo_tocompressed_arrays(fmt, self._shape, self._nnz,
                                                              self.coords, self.data)
        if copy:
            raise UnsupportedOperationError(f"{self._name}.to{fmt}", "copy=True")
        if construct:
            out = _compressed(fmt, self._array, (data, indices, indptr), self._shape,
                              bounds_known=True)
        else:
            out = FakeSparse(fmt, self._array, self._shape, data=data, indices=indices,
                             indptr=indptr)
        out._canonical = out._dupfree = True
        return out

    def _bounds(self, axis: int) -> Any:
        """(min, max) of the coordinates along ``axis``: within the shape (indices of a
        sparse array that SciPy built are valid; see ``_valid_bounds``)."""
        c = self.coords[axis]
        return (0, max(self._shape[axis] - 1, 0)) if len(c) else ()

    def _dia_tocsr(self) -> "FakeSparse":
        """_dia.tocsr (dia_tocsr drops explicit zeros: the count is known when no stored
        diagonal element is known to be zero... or known nonzero everywhere)."""
        if 0 in self._shape or len(self._offsets) == 0:
            return _empty_compressed("csr", self._array, self._shape, self.dtype)
        csr_data, indices, indptr, order = rules.dia_tocsr_arrays(
            self._shape, self.nnz, self.dtype, self.offsets, bool(self._zero_free),
            f"{self._name}.tocsr")
        out = _compressed("csr", self._array, (csr_data, indices, indptr), self._shape,
                          dtype=self.dtype, bounds_known=True)
        out._canonical = out._dupfree = True
        out._pattern = self.dia_pattern()  # no explicit zero: every position is stored
        del order  # a local of _dia.tocsr until it returns
        return out

    def dia_pattern(self) -> Any:
        """The stored positions of a DIA structure (its offsets' positions in the shape)."""
        return rules.Pattern(self._shape, self._offsets, self.data.shape[1])

    def tolil(self, copy: bool = False) -> "FakeSparse":
        """_csr.tolil (other formats: ``tocsr(copy=False).tolil(copy=copy)``, _base.py): an
        empty LIL of the shape, the CSR's duplicates summed, then each row's indices and
        values copied into Python lists (no NumPy memory)."""
        with _ModeFor():
            if self.format != "csr":
                return self.tocsr(copy=False).tolil(copy=copy)
            lil = empty_lil(self._array, self._shape, self.dtype)
            self.sum_duplicates()
            lil._nnz, lil._pattern = self._nnz, self._pattern
            return lil

    def copy(self) -> "FakeSparse":
        """_data_matrix.copy: ``_with_data(data.copy(), copy=True)``."""
        with _ModeFor():
            out = self._with_data(self.data.copy(), copy=True)
            out._zero_free = self._zero_free
            return out

    def _arrays(self) -> dict:
        if self.format == "dia":
            return {"data": self.data, "offsets": self.offsets}
        if self.format == "coo":
            return {"data": self.data, "coords": self.coords}
        return {"data": self.data, "indices": self.indices, "indptr": self.indptr}

    def _with_data(self, data: Any, copy: bool = True) -> "FakeSparse":
        """_data_matrix._with_data: the same structure (copied when ``copy``), new data,
        through the class's constructor as SciPy does."""
        with _ModeFor():
            if self.format in ("csr", "csc"):
                ind, ptr = ((self.indices.copy(), self.indptr.copy()) if copy
                            else (self.indices, self.indptr))
                out = _compressed(self.format, self._array, (data, ind, ptr), self._shape,
                                  dtype=data.dtype, bounds_known=True)
            elif self.format == "coo":
                coords = tuple(c.copy() for c in self.coords) if copy else self.coords
                out = _coo(self._array, data, coords, self._shape, dtype=data.dtype,
                           bounds_known=True)
            else:
                offsets = self.offsets.copy() if copy else self.offsets
                out = _dia(self._array, data, offsets, self._offsets, self._shape)
            # a COO made by its constructor from (data, coords) is not canonical
            out._canonical = False if self.format == "coo" and self._nnz else self._canonical
            out._dupfree = self._dupfree
            return out

    # --- transpose, astype ----------------------------------------------------------------
    def transpose(self, axes: Any = None, copy: bool = False) -> "FakeSparse":
        if axes is not None and tuple(axes) != (1, 0):
            raise ValueError("Sparse arrays/matrices do not support an 'axes' parameter "
                             "because swapping dimensions is the only logical permutation.")
        M, N = self._shape
        with _ModeFor():
            if self.format in ("csr", "csc"):
                fmt = "csc" if self.format == "csr" else "csr"
                out = _compressed(fmt, self._array, (self.data, self.indices, self.indptr),
                                  (N, M), copy=copy, bounds_known=True)
                out._canonical, out._dupfree = self._canonical, self._dupfree
                return out
            if self.format == "coo":
                out = _coo(self._array, self.data, self.coords[::-1], (N, M), copy=copy,
                           bounds_known=True)
                out._dupfree = self._dupfree
                return out
            return self._dia_transpose(copy)

    @property
    def T(self) -> "FakeSparse":
        return self.transpose()

    def _dia_transpose(self, copy: bool) -> "FakeSparse":
        """_dia.transpose: the data re-aligned by a gather."""
        num_rows, num_cols = self._shape
        data, offsets, gather = rules.dia_transpose_arrays(self._shape, self.data,
                                                           self.offsets)
        out = _dia(self._array, data, offsets, tuple(-k for k in self._offsets),
                   (num_cols, num_rows), copy=copy)
        # the stored positions of the transpose hold the same elements
        out._zero_free = self._zero_free if data.shape[1] >= num_rows else None
        del gather  # locals of _dia.transpose until it returns
        return out

    def astype(self, dtype: Any, casting: str = "unsafe", copy: bool = True) -> "FakeSparse":
        """_data.astype: the data cast (a copy), the structure copied; then
        ``_deduped_data`` sums duplicates (nothing when the format is canonical)."""
        dtype = np.dtype(dtype)
        with _ModeFor():
            if self.dtype != dtype:
                if self.format in ("csr", "csc", "coo") and not self._dupfree:
                    raise DataDependentError(f"{self._name}.astype: SciPy sums duplicate "
                                             "entries (sum_duplicates), whose presence "
                                             "depends on the index values")
                m = self._with_data(self.data.astype(dtype, casting=casting, copy=True),
                                    copy=True)
                # _deduped_data: sum_duplicates, then the data as it is
                m.sum_duplicates()
                m = m._with_data(m.data, copy=False)
                m._zero_free = None
                return m
            return self.copy() if copy else self

    # --- values -----------------------------------------------------------------------------
    def _refuse(self, what: str, why: str) -> Any:
        raise DataDependentError(f"{self._name}.{what}: {why}")

    def eliminate_zeros(self) -> None:
        self._refuse("eliminate_zeros", "the stored count after dropping explicit zeros "
                     "depends on the values")

    def sum_duplicates(self) -> None:
        if self._canonical:
            return
        if self._dupfree and self.format != "coo":
            self._canonical = True  # sorting in place allocates no array
            return
        if self._dupfree:
            with _ModeFor():
                self._coo_sum_duplicates()
            return
        self._refuse("sum_duplicates", "the stored count after summing duplicates depends "
                     "on the index values")

    def _coo_sum_duplicates(self) -> None:
        """_coo._sum_duplicates of coordinates known to be distinct: sorted in C order by a
        lexsort gather, the unique mask (all true), its nonzero indices and the reduceat of
        the data, each of the stored count."""
        nnz = self._nnz
        if nnz == 0:
            self._canonical = True
            return
        self.coords, self.data = rules.coo_sum_duplicates_arrays(self.coords, self.data, nnz)
        self._canonical = True

    def count_nonzero(self, axis: Any = None) -> Any:
        self._refuse("count_nonzero", "counts the nonzero values")

    def prune(self) -> None:
        return None

    def _asfptype(self) -> "FakeSparse":
        """_base._asfptype: upcast to a floating point format when needed."""
        if self.dtype.char in "fdFD":
            return self
        for fp_type in "fdFD":
            if self.dtype <= np.dtype(fp_type):
                return self.astype(fp_type, copy=False)
        raise TypeError(f"cannot upcast [{self.dtype.name}] to a floating point format")

    # --- arithmetic ---------------------------------------------------------------------------
    def _mul_scalar(self, other: Any) -> "FakeSparse":
        """_data._mul_scalar (DIA and CSR/CSC/COO alike: the data times the scalar)."""
        with _ModeFor():
            out = self._with_data(self.data * other)
            out._zero_free = None
            return out

    def __mul__(self, other: Any) -> Any:
        if _isscalarlike(other):
            return self._mul_scalar(other)
        if not self._array:  # spmatrix: * is the matrix product
            return self._matmul_dispatch(other)
        return self._refuse("multiply", "an elementwise product with an array: not modelled "
                            "for fakes") if isinstance(other, FakeSparse) else \
            _unsupported(self, "multiply", "an elementwise product with a dense operand")

    def __rmul__(self, other: Any) -> Any:
        if _isscalarlike(other):
            return self._mul_scalar(other)
        if not self._array:
            return self._rmatmul_dispatch(other)
        return _unsupported(self, "multiply", "an elementwise product with a dense operand")

    def multiply(self, other: Any) -> Any:
        if _isscalarlike(other):
            return self._mul_scalar(other)
        return _unsupported(self, "multiply", "an elementwise product with an array")

    def __truediv__(self, other: Any) -> Any:
        """_base._divide by a scalar: ``astype(float64, copy=False)`` then ``_mul_scalar``
        (of 1/other) when the dtype casts to float64; else ``_mul_scalar`` then, for
        integers by integers, back to the dtype."""
        if not _isscalarlike(other):
            return _unsupported(self, "__truediv__", "division by an array")
        with _ModeFor():
            if np.can_cast(self.dtype, np.float64):
                return self.astype(np.float64, copy=False)._mul_scalar(1 / other)
            r = self._mul_scalar(1 / other)
            with paused():
                sdt = np.asarray(other).dtype if not _is_fake(other) else other.dtype
            if self.dtype.kind in "iu" and sdt.kind in "iu":
                return r.astype(self.dtype, copy=False)
            return r

    def __neg__(self) -> "FakeSparse":
        if self.dtype == np.bool_:
            raise NotImplementedError("negating a boolean sparse array is not supported")
        with _ModeFor():
            return self._with_data(-self.data)

    def __pos__(self) -> "FakeSparse":
        return self

    def _scalar_zero(self, other: Any, what: str) -> bool:
        """``other == 0`` for a scalar operand of + and -: known, or DataDependentError."""
        v = _known.value(other)
        if v is None:
            return self._refuse(what, "whether the scalar is 0 (SciPy refuses a nonzero "
                                "one) depends on its value")
        with paused():
            return bool(np.asarray(v) == 0)

    def _dense(self, other: Any) -> bool:
        return type(other) in (np.ndarray, _FAKE, FakeMatrix, np.matrix)

    def __add__(self, other: Any) -> Any:
        """_base.__add__: a zero scalar copies, a dense operand gives a dense result
        (``_add_dense``); a sparse one refuses (the stored count of the sum depends on the
        values: sums that cancel are dropped)."""
        if _isscalarlike(other) or _is_sparse(other):
            return self._plus_or_minus(other, "__add__")
        if self._dense(other):
            with _ModeFor():
                return self._add_dense(np.broadcast_to(other, self._shape))
        return NotImplemented

    __radd__ = __add__

    def _plus_or_minus(self, other: Any, what: str) -> Any:
        """_base.__add__ / __sub__ of a scalar (zero: a copy; SciPy refuses another) or of a
        sparse operand (refused: the stored count depends on the values)."""
        sub = what == "__sub__"
        if _isscalarlike(other):
            if self._scalar_zero(other, what):
                return self.copy()
            raise NotImplementedError(("subtracting a nonzero scalar from" if sub else
                                       "adding a nonzero scalar to") +
                                      " a sparse array is not supported")
        if other.shape != self.shape:
            raise ValueError("inconsistent shapes")
        kind, cancel = ("difference", "differences") if sub else ("sum", "sums")
        return self._refuse(what, f"the stored count of a {kind} of sparse arrays depends "
                            f"on the values ({cancel} that cancel are dropped)")

    def _add_dense(self, other: Any) -> Any:
        """_compressed._add_dense / _coo._add_dense (DIA through COO): a copy of the dense
        operand in the upcast dtype (C for CSR, F for CSC, K for COO), filled in place."""
        if other.shape != self._shape:
            raise ValueError(f"Incompatible shapes ({self._shape} and {other.shape})")
        if self.format == "dia":
            return self.tocoo()._add_dense(other)
        dtype = rules.upcast(self.dtype, other.dtype)
        if self.format == "coo":
            result = np.array(other, dtype=dtype, copy=True)
            self._fill_dense(result)
        else:
            result = np.array(other, dtype=dtype, order="C" if self.format == "csr" else "F",
                              copy=True)
            self._fill_dense(result if result.flags.c_contiguous else result.T)
        return result if self._array else _asmatrix(result)

    def _fill_dense(self, y: Any) -> None:
        """The sparsetools call adding the stored elements into the dense ``y`` (a CSR's
        into a C-ordered one, a CSC's into the transpose of an F-ordered one)."""
        M, N = self._shape if self.format != "csc" else self._shape[::-1]
        if self.format == "coo":
            fortran = int(y.flags.f_contiguous)
            _product(_SPARSETOOLS["coo_todense"], (M, N, self._nnz, self.coords[0],
                                                   self.coords[1], self.data,
                                                   y.ravel("A"), fortran))
        else:
            _product(_SPARSETOOLS["csr_todense"], (M, N, self.indptr, self.indices,
                                                   self.data, y))

    def __sub__(self, other: Any) -> Any:
        if _isscalarlike(other) or _is_sparse(other):
            return self._plus_or_minus(other, "__sub__")
        if self._dense(other):
            with _ModeFor():
                # _base._sub_dense: self.todense() - other
                return self.todense() - np.broadcast_to(other, self._shape)
        return NotImplemented

    def __rsub__(self, other: Any) -> Any:
        if _isscalarlike(other):
            if self._scalar_zero(other, "__rsub__"):
                return -self.copy()
            raise NotImplementedError("subtracting a sparse array from a nonzero scalar is "
                                      "not supported")
        if self._dense(other):
            with _ModeFor():
                # _base._rsub_dense: other - self.todense()
                return np.broadcast_to(other, self._shape) - self.todense()
        return NotImplemented

    # --- products -------------------------------------------------------------------------------
    def __matmul__(self, other: Any) -> Any:
        if _isscalarlike(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self._matmul_dispatch(other)

    def __rmatmul__(self, other: Any) -> Any:
        if _isscalarlike(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self._rmatmul_dispatch(other)

    def dot(self, other: Any) -> Any:
        if _isscalarlike(other):
            return self * other
        return self @ other

    def _matmul_dispatch(self, other: Any) -> Any:
        """_base._matmul_dispatch: NumPy array operands; another sparse one refuses."""
        M, N = self._shape
        err_prefix = "matmul: dimension mismatch with signature"
        if isinstance(other, FakeSparse) or _is_scipy_sparse(other):
            if N != other.shape[0]:
                raise ValueError(f"{err_prefix} (n,k={N}),(k={other.shape[0]},m)->(n,m)")
            return self._refuse("__matmul__", "the stored count of a sparse product "
                                "depends on the values (csr_matmat drops the zero sums)")
        with _ModeFor():
            if type(other) is np.ndarray:
                other = np.asarray(other)  # the mode's fake for it
            if type(other) is _FAKE:  # stands for an ndarray
                if other.shape == (N,):
                    return self._matmul_vector(other)
                if other.shape == (N, 1):
                    result = self._matmul_vector(other.ravel())
                    return result.reshape(M, 1)
                if other.ndim == 2 and other.shape[0] == N:
                    return self._matmul_multivector(other)
            if _isscalarlike(other):
                return self._mul_scalar(other)
            other_a = np.asanyarray(other)
            if not hasattr(other, "shape"):
                other = other_a
            if other.ndim == 1 or other.ndim == 2 and other.shape[1] == 1:
                if other.shape[0] != N:
                    raise ValueError(f"{err_prefix} (n,k={N}),(k={other.shape[0]},1?)"
                                     "->(n,1?)")
                result = self._matmul_vector(np.ravel(other))
                if isinstance(other, (np.matrix, FakeMatrix)):
                    result = _asmatrix(result)
                if other.ndim == 2 and other.shape[1] == 1:
                    result = result.reshape(-1, 1)
                return result
            if other.ndim == 2:
                if other.shape[0] != N:
                    raise ValueError(f"{err_prefix} (n,k={N}),(k={other.shape[0]},m)->(n,m)")
                result = self._matmul_multivector(np.asarray(other))
                if isinstance(other, (np.matrix, FakeMatrix)):
                    result = _asmatrix(result)
                return result
            raise ValueError("could not interpret dimensions")

    def _rmatmul_dispatch(self, other: Any) -> Any:
        """_base._rmatmul_dispatch: (A.T @ x.T).T."""
        with _ModeFor():
            if isinstance(other, (list, tuple)) or type(other) is np.ndarray:
                other = np.asarray(other)
            tr = other.transpose()
            ret = self.transpose()._matmul_dispatch(tr)
            return ret.transpose()

    def _matmul_vector(self, other: Any) -> Any:
        M, N = self._shape
        if self.format in ("csr", "csc"):
            result = np.zeros(M, dtype=rules.upcast(self.dtype, other.dtype))
            fn = _SPARSETOOLS[self.format + "_matvec"]
            _product(fn, (M, N, self.indptr, self.indices, self.data, other, result))
            return result
        if self.format == "dia":
            y = np.zeros(M, dtype=rules.upcast(self.dtype, other.dtype))
            L = self.data.shape[1]
            _product(_SPARSETOOLS["dia_matvec"], (M, N, len(self._offsets), L, self._nnz,
                                                 self.data, other.ravel(), y.ravel()))
            return y
        # _coo._matmul_vector
        result = np.zeros(M, dtype=rules.upcast(self.dtype, other.dtype))
        _product(_SPARSETOOLS["coo_matvec"], (self._nnz, self.coords[0], self.coords[1],
                                              self.data, other, result))
        return result

    def _matmul_multivector(self, other: Any) -> Any:
        M, N = self._shape
        if self.format in ("csr", "csc"):
            n_vecs = other.shape[-1]
            result = np.zeros((M, n_vecs), dtype=rules.upcast(self.dtype, other.dtype))
            fn = _SPARSETOOLS[self.format + "_matvecs"]
            _product(fn, (M, N, n_vecs, self.indptr, self.indices, self.data,
                          other.ravel(), result.ravel()))
            return result
        if self.format == "dia":
            # _dia._matmul_multivector: np.result_type, ``other`` as it is
            res = np.zeros((M, other.shape[1]), dtype=np.result_type(self.data, other))
            _product(_SPARSETOOLS["dia_matvecs"], (M, N, *self.data.shape, self._nnz,
                                                  self.data, other.shape[1], other, res))
            return res
        # _coo._matmul_multivector: the result viewed as the operand's type
        result = np.zeros((M, other.shape[1]), dtype=rules.upcast(self.dtype, other.dtype))
        _product(_SPARSETOOLS["coo_matmat_dense"], (self._nnz, other.shape[-1],
                                                    self.coords[0], self.coords[1],
                                                    self.data, other.ravel("C"), result))
        return result.view(type=type(other)) if type(other) is not _FAKE else result.view()

    def __abs__(self) -> "FakeSparse":
        """_data_matrix.__abs__: ``_with_data(abs(self._deduped_data()))``."""
        with _ModeFor():
            self.sum_duplicates()
            return self._with_data(np.abs(self.data))

    def __getitem__(self, key: Any) -> Any:
        return _unsupported(self, "__getitem__", "indexing is not modelled for fake sparse "
                            "arrays")

    def __setitem__(self, key: Any, value: Any) -> None:
        _unsupported(self, "__setitem__", "assignment is not modelled for fake sparse arrays")

    def __iter__(self) -> Any:
        return _unsupported(self, "__iter__", "iterating rows is not modelled for fake sparse "
                            "arrays")

    # --- reductions and shapes that do not need values --------------------------------------
    def diagonal(self, k: int = 0) -> Any:
        return _unsupported(self, "diagonal", "not modelled")

    def __getattr__(self, name: str) -> Any:
        """SciPy's attributes this class does not model refuse by name; others do not
        exist (``hasattr`` is False, as for the real array)."""
        cls = CLASSES.get((self.format, self._array))
        if name.startswith("__") or cls is None or not hasattr(cls, name):
            raise AttributeError(f"{self.format}_{'array' if self._array else 'matrix'} "
                                 f"object has no attribute {name!r}")
        raise UnsupportedOperationError(f"{self._name}.{name}", "not modelled for fake "
                                        "sparse arrays")


class FakeLil(FakeSparse):
    """A fake scipy.sparse ``lil_array`` / ``lil_matrix`` (scipy/sparse/_lil.py): its
    ``rows`` and ``data`` are fake object arrays of one pointer per row (the Python lists
    they point to are not NumPy's memory); the stored count and, when known, the stored
    positions (rules.Pattern) are kept, so ``A[i, j] = v`` follows lil_insert. Operations
    SciPy runs through CSR (products, sums, ``abs``) convert as SciPy does."""

    __slots__ = ("rows", "_dt")

    def __init__(self, is_array: bool, shape: tuple, dtype: Any, rows: Any, data: Any,
                 nnz: int, pattern: Any) -> None:
        self.format = "lil"
        self._array = is_array
        self._shape = (int(shape[0]), int(shape[1]))
        self._dt = np.dtype(dtype)
        self.rows, self.data = rows, data
        self._offsets = ()
        self._nnz, self._pattern = int(nnz), pattern
        self._canonical = self._dupfree = True
        self._zero_free = None

    @property
    def dtype(self) -> np.dtype:
        return self._dt

    @property
    def nnz(self) -> int:
        return self._nnz

    def __repr__(self) -> str:
        kind = "sparse array" if self._array else "sparse matrix"
        return (f"<FakeSparse LIL {kind} of dtype '{self.dtype}'\n"
                f"\twith {self._nnz} stored elements and shape {self._shape}>")

    def _no(self, attr: str) -> Any:
        raise AttributeError(f"lil_{'array' if self._array else 'matrix'} object has no "
                             f"attribute {attr!r}")

    has_canonical_format = property(lambda self: self._no("has_canonical_format"))
    has_sorted_indices = property(lambda self: self._no("has_sorted_indices"))

    def __getattribute__(self, name: str) -> Any:
        if name in _LIL_ABSENT:
            raise AttributeError(f"lil object has no attribute {name!r}")
        return object.__getattribute__(self, name)

    # --- conversions -----------------------------------------------------------------------
    def tolil(self, copy: bool = False) -> "FakeSparse":
        return self.copy() if copy else self

    def copy(self) -> "FakeLil":
        """_lil.copy: a new LIL of the shape, each row's lists copied (lil_get_row_ranges)."""
        with _ModeFor():
            new = empty_lil(self._array, self._shape, self.dtype)
            new._nnz, new._pattern = self._nnz, self._pattern
            return new

    def tocsr(self, copy: bool = False) -> "FakeSparse":
        """_lil.tocsr: the row lengths summed into indptr, then the lists flattened into
        indices and data (lil_flatten_to_array), through the CSR constructor."""
        M, N = self._shape
        with _ModeFor():
            if M == 0 or N == 0:
                return _empty_compressed("csr", self._array, self._shape, self.dtype)
            data, indices, indptr, lengths = rules.lil_tocsr_arrays(M, N, self._nnz,
                                                                    self.dtype)
            out = _compressed("csr", self._array, (data, indices, indptr), self._shape,
                              bounds_known=True, canonical=True)
            del lengths  # a local of _lil.tocsr until it returns
            out._canonical = out._dupfree = True
            out._pattern = self._pattern
            return out

    def tocsc(self, copy: bool = False) -> "FakeSparse":
        return self.tocsr(copy=False).tocsc(copy=copy)

    def tocoo(self, copy: bool = False) -> "FakeSparse":
        return self.tocsr(copy=False).tocoo(copy=copy)

    def todia(self, copy: bool = False) -> "FakeSparse":
        return self.tocoo(copy=copy).todia(copy=False)

    def toarray(self, order: Any = None, out: Any = None) -> Any:
        """_lil.toarray: np.zeros of the shape (``_process_toarray_args``), each stored
        element written into it."""
        if out is not None:
            raise UnsupportedOperationError(f"{self._name}.toarray", "out= (writes values)")
        with _ModeFor():
            d = np.zeros(self._shape, dtype=self.dtype, order=order or "C")
            if self._nnz:
                _known.forget(d)
            return d

    def transpose(self, axes: Any = None, copy: bool = False) -> "FakeSparse":
        return self.tocsr(copy=copy).transpose(axes=axes, copy=False).tolil(copy=False)

    def astype(self, dtype: Any, casting: str = "unsafe", copy: bool = True) -> "FakeSparse":
        """_base.astype: another dtype through CSR and back; the same one copied (or not)."""
        dtype = rules.getdtype(dtype)
        if self.dtype != dtype:
            return self.tocsr().astype(dtype, casting=casting, copy=copy).asformat("lil")
        return self.copy() if copy else self

    # --- item assignment -------------------------------------------------------------------
    def __setitem__(self, key: Any, x: Any) -> None:
        """_lil.__setitem__'s fast paths: ``A[i, j] = scalar`` (lil_insert: a zero deletes,
        any other value stores) and ``A[:, :] = sparse`` of the same shape (the rows and
        data of a LIL of it); other indexing is not modelled."""
        if isinstance(key, tuple) and len(key) == 2:
            row, col = key
            if _is_int(row) and _is_int(col):
                self._set_item(int(row), int(col), x)
                return
            if (isinstance(row, slice) and isinstance(col, slice)
                    and row == slice(None) and col == slice(None)
                    and isinstance(x, FakeSparse) and x.shape == self.shape):
                new = construct_lil(self._array, x, dtype=self.dtype)
                self.rows, self.data = new.rows, new.data
                self._nnz, self._pattern = new._nnz, new._pattern
                return
        _unsupported(self, "__setitem__", "only A[i, j] = scalar (integers i, j) and "
                     "A[:, :] = sparse are modelled for a fake LIL")

    def _set_item(self, row: int, col: int, x: Any) -> None:
        if isinstance(x, FakeSparse):
            x = x.toarray()
        if _is_fake(x) or isinstance(x, FakeMatrix):
            if x.size != 1:  # ndarray.item's refusal
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            v = _known.value(x)
            if v is None:
                self._refuse("__setitem__", "whether the element is stored (lil_insert "
                             "deletes it for a zero) depends on the value assigned")
            x = v
        if isinstance(x, np.ndarray):
            x = x.item()
        with paused():
            x = self.dtype.type(x)
            if x.size > 1:
                raise ValueError("Trying to assign a sequence to an item")
            zero = bool(x == 0)
        i, j = rules.lil_position(row, col, self._shape)
        if self._pattern is None:
            self._refuse("__setitem__", "whether the position is already stored depends on "
                         "the index values of the structure it was made from")
        before = self._pattern.stored(i, j)
        self._pattern = rules.lil_insert(self._pattern, i, j, zero)
        self._nnz += int(self._pattern.stored(i, j)) - int(before)

    # --- arithmetic (SciPy's LIL methods, else through CSR as _base does) -------------------
    def _mul_scalar(self, other: Any) -> "FakeSparse":
        """_lil._mul_scalar: an empty LIL for a zero scalar, else a copy in
        ``upcast_scalar``'s dtype with every value multiplied."""
        with _ModeFor():
            if self._scalar_zero(other, "_mul_scalar"):
                return empty_lil(self._array, self._shape, self.dtype)
            res_dtype = (np.array([0], dtype=self.dtype) * other).dtype  # upcast_scalar
            return self.astype(res_dtype)

    def __truediv__(self, other: Any) -> Any:
        """_lil.__truediv__: a copy of dtype ``np.result_type(self, other)``, every value
        divided (the structure kept); by an array, through CSR."""
        if not _isscalarlike(other):
            return self.tocsr() / other
        with _ModeFor():
            new = self.copy()
            # SciPy: new.dtype = np.result_type(self, other) (the LIL read as its dtype)
            new._dt = np.result_type(self.dtype, other)
            return new

    def __itruediv__(self, other: Any) -> Any:
        if not _isscalarlike(other):
            return NotImplemented
        self[:, :] = self / other
        return self

    def __iadd__(self, other: Any) -> Any:
        self[:, :] = self + other
        return self

    def __isub__(self, other: Any) -> Any:
        self[:, :] = self - other
        return self

    def __imul__(self, other: Any) -> Any:
        if not _isscalarlike(other):
            return NotImplemented
        self[:, :] = self * other
        return self

    def __neg__(self) -> "FakeSparse":
        return -self.tocsr()

    def __abs__(self) -> "FakeSparse":
        return abs(self.tocsr())

    def _add_dense(self, other: Any) -> Any:
        return self.tocoo()._add_dense(other)

    def _matmul_vector(self, other: Any) -> Any:
        return self.tocsr()._matmul_vector(other)

    def _matmul_multivector(self, other: Any) -> Any:
        return self.tocsr()._matmul_multivector(other)

    def _refuse(self, what: str, why: str) -> Any:
        raise DataDependentError(f"{self._name}.{what}: {why}")

    def _arrays(self) -> dict:
        raise UnsupportedOperationError(self._name, "a LIL's arrays are lists of values")

    def _with_data(self, data: Any, copy: bool = True) -> "FakeSparse":
        raise UnsupportedOperationError(self._name, "a LIL's arrays are lists of values")


# SciPy's LIL has none of these (FakeSparse's other formats do)
_LIL_ABSENT = frozenset({"indices", "indptr", "coords", "offsets", "row", "col",
                         "sum_duplicates", "eliminate_zeros", "prune", "dia_pattern",
                         "_compressed_swap", "_coo_to_compressed_container", "_dia_tocsr",
                         "_fill_dense"})


def _is_int(x: Any) -> bool:
    """scipy.sparse's INT_TYPES: a Python or NumPy integer (a bool is not one)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def empty_lil(is_array: bool, shape: tuple, dtype: Any) -> FakeLil:
    """_lil.__init__ from a shape: empty rows (rules.lil_lists), nothing stored."""
    shape = rules.check_shape(shape)
    rows, data = rules.lil_lists(shape[0])
    return FakeLil(is_array, shape, rules.getdtype(dtype, default=float), rows, data, 0,
                   rules.Pattern(shape))


def construct_lil(is_array: bool, arg1: Any, shape: Any = None, dtype: Any = None,
                  copy: bool = False, *, maxprint: Any = None) -> FakeLil:
    """``scipy.sparse.lil_array(...)`` / ``lil_matrix(...)`` in a mode or given fakes:
    _lil.__init__ from a sparse array (its ``tolil``, sharing the lists) or a shape; from a
    dense array the stored count is the number of nonzero values."""
    name = f"scipy.sparse.lil_{'array' if is_array else 'matrix'}"
    with _ModeFor():
        if isinstance(arg1, FakeSparse) or _is_scipy_sparse(arg1):
            A = arg1 if isinstance(arg1, FakeSparse) else from_real(arg1)
            A = A.copy() if A.format == "lil" and copy else A.tolil()
            if dtype is not None:
                A = A.astype(rules.getdtype(dtype), copy=False)
            return FakeLil(is_array, A.shape, A.dtype, A.rows, A.data, A._nnz, A._pattern)
        if isinstance(arg1, tuple):
            if not rules.isshape(arg1):
                raise TypeError("unrecognized lil_array constructor usage")
            if shape is not None:
                raise ValueError("invalid use of shape parameter")
            return empty_lil(is_array, arg1, dtype)
        raise DataDependentError(f"{name}: built from a dense array, the stored count is "
                                 "the number of nonzero values")


def _asmatrix(x: Any) -> Any:
    """scipy.sparse._sputils.asmatrix: ``np.asarray(x).view(np.matrix)`` (no
    PendingDeprecationWarning, unlike np.asmatrix)."""
    if isinstance(x, (np.matrix, FakeMatrix)):
        return x
    with warnings.catch_warnings():  # a view, made without np.matrix's constructor
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.asmatrix(x)


def _unsupported(A: FakeSparse, what: str, why: str) -> Any:
    raise UnsupportedOperationError(f"{A._name}.{what}", why)


def _is_sparse(x: Any) -> bool:
    """A fake or a real SciPy sparse array."""
    return isinstance(x, FakeSparse) or _is_scipy_sparse(x)


def _is_scipy_sparse(x: Any) -> bool:
    mod = type(x).__module__ or ""
    return mod.startswith("scipy.sparse") and hasattr(x, "format") and hasattr(x, "nnz")


_SPARSETOOLS: dict = {}
CLASSES: dict = {}  # (format, is_array) -> SciPy's class, filled by ``install``


class _Trusted(threading.local):
    """Depth of SciPy constructions whose COO coordinates come from structure (kron and
    block_diag of duplicate-free operands, random draws without replacement): no
    duplicates, all within the shape."""
    n = 0


_TRUSTED = _Trusted()


def _product(fn: Any, args: tuple) -> None:
    """A sparsetools product on fakes: its kernel (in place on the output, FLOPs counted)."""
    dispatch(fn, (_FAKE,), args, {})


# --- constructors (SciPy's __init__ of each class, followed) ---------------------------------

def _empty_compressed(fmt: str, is_array: bool, shape: tuple, dtype: Any) -> FakeSparse:
    """_compressed.__init__ from a shape: no stored elements."""
    data, indices, indptr = rules.empty_compressed_arrays(fmt, shape, dtype)
    return FakeSparse(fmt, is_array, shape, data=data, indices=indices, indptr=indptr, nnz=0,
                      canonical=True, pattern=rules.Pattern(shape))


def _compressed(fmt: str, is_array: bool, arrays: tuple, shape: Any, dtype: Any = None,
                copy: bool = False, bounds_known: bool = False,
                name: str | None = None, canonical: bool | None = None) -> FakeSparse:
    """A CSR/CSC fake from (data, indices, indptr) (rules.compressed_init)."""
    p = rules.compressed_init(fmt, is_array, arrays, shape, dtype=dtype, copy=copy,
                              bounds_known=bounds_known, name=name)
    return FakeSparse(fmt, is_array, p.shape, data=p.data, indices=p.indices,
                      indptr=p.indptr, nnz=p.nnz,
                      canonical=True if p.nnz == 0 else canonical)


def _coo(is_array: bool, obj: Any, coords: tuple, shape: Any, copy: bool = False,
         dtype: Any = None, bounds_known: bool = False,
         name: str | None = None) -> FakeSparse:
    """A COO fake from (data, (row, col)) (rules.coo_init)."""
    p = rules.coo_init(is_array, obj, coords, shape, copy=copy, dtype=dtype,
                       bounds_known=bounds_known, trusted=_TRUSTED.n > 0, name=name)
    return FakeSparse("coo", is_array, p.shape, data=p.data, coords=p.coords,
                      canonical=False if len(p.data) else True, dupfree=p.dupfree)


def _dia(is_array: bool, data: Any, offsets_arr: Any, offset_values: tuple, shape: tuple,
         dtype: Any = None, copy: bool = False, zero_free: bool | None = None) -> FakeSparse:
    """A DIA fake from (data, offsets) with a shape (rules.dia_init)."""
    p = rules.dia_init(data, offsets_arr, offset_values, shape, dtype=dtype, copy=copy)
    return FakeSparse("dia", is_array, p.shape, data=p.data, offsets=p.offsets,
                      offset_values=tuple(int(k) for k in offset_values),
                      zero_free=zero_free)


# --- the classes' constructors ----------------------------------------------------------

def _fake_in(obj: Any, depth: int = 0) -> bool:
    if isinstance(obj, (FakeArray, FakeSparse)):
        return True
    if depth < 3 and isinstance(obj, (list, tuple)):
        return any(_fake_in(v, depth + 1) for v in obj)
    return False


def construct(fmt: str, is_array: bool, arg1: Any, shape: Any = None, dtype: Any = None,
              copy: bool = False, *, maxprint: Any = None,
              _name: str | None = None) -> FakeSparse:
    """``scipy.sparse.<fmt>_array(...)`` / ``<fmt>_matrix(...)`` in a mode or given fakes:
    the __init__ of SciPy's class, followed on fakes (``_name``: the function the program
    called, for errors)."""
    name = _name or f"scipy.sparse.{fmt}_{'array' if is_array else 'matrix'}"
    with _ModeFor():
        if isinstance(arg1, FakeSparse) or _is_scipy_sparse(arg1):
            A = arg1 if isinstance(arg1, FakeSparse) else from_real(arg1)
            if A.format == fmt and copy:
                A = A.copy()
            elif A.format != fmt:
                A = A.asformat(fmt)
            out = FakeSparse(fmt, is_array, A.shape, nnz=A._nnz, canonical=A._canonical,
                             zero_free=A._zero_free, dupfree=A._dupfree,
                             offset_values=A._offsets, pattern=A._pattern, **A._arrays())
            if fmt == "dia":
                rules.unique_temporaries(out.offsets)  # _dia.__init__'s duplicate check
            elif fmt == "coo":
                out.coords = rules.coo_check(out.coords, out.data, out.shape, is_array)
            if shape is not None and rules.check_shape(shape) != out.shape:
                raise ValueError(f"inconsistent shapes: {shape} != {out.shape}")
            return out if dtype is None else _astype_noncopy(out, dtype)
        if isinstance(arg1, tuple) and rules.isshape(arg1):
            shp = rules.check_shape(arg1)
            if fmt in ("csr", "csc"):
                return _empty_compressed(fmt, is_array, shp, dtype)
            if fmt == "coo":
                idx_dtype = rules.index_dtype(max(shp))
                rules.get_index_dtype_temporaries()
                coords = tuple(np.array([], dtype=idx_dtype) for _ in range(2))
                data = np.array([], dtype=rules.getdtype(dtype, default=float))
                coords = rules.coo_check(coords, data, shp, is_array)
                return FakeSparse("coo", is_array, shp, data=data, coords=coords,
                                  canonical=True)
            data = np.zeros((0, 0), rules.getdtype(dtype, default=float))
            rules.get_index_dtype_temporaries()
            offsets = np.zeros(0, dtype=rules.index_dtype(max(shp)))
            return FakeSparse("dia", is_array, shp, data=data, offsets=offsets)
        if isinstance(arg1, tuple):
            if fmt == "dia":
                try:
                    data, offsets = arg1
                except Exception as e:
                    raise ValueError("unrecognized form for dia_array constructor") from e
                if shape is None:
                    raise ValueError("expected a shape argument")
                offs = rules.known_values(offsets, "offsets", name)
                shp = rules.check_shape(shape)
                zf = rules.zero_free_dia(data, offs, shp)
                return _dia(is_array, data, offsets, tuple(offs.ravel().tolist()), shp,
                            dtype=dtype, copy=copy, zero_free=zf)
            if fmt == "coo":
                try:
                    obj, coords = arg1
                except (TypeError, ValueError) as e:
                    raise TypeError("invalid input format") from e
                return _coo(is_array, obj, tuple(coords), shape, copy=copy, dtype=dtype,
                            name=name)
            if len(arg1) == 2:
                coo = _coo(is_array, arg1[0], tuple(arg1[1]), shape, dtype=dtype,
                           name=name)
                if not coo._dupfree:
                    raise DataDependentError(f"{name}: built from (data, (row, col)), the "
                                             "stored count after summing duplicate entries "
                                             "depends on the index values (sum_duplicates)")
                return coo._coo_to_compressed_container(fmt, False, construct=False)
            if len(arg1) == 3:
                out = _compressed(fmt, is_array, arg1, shape, dtype=dtype, copy=copy,
                                  name=name)
                return out
            raise ValueError(f"unrecognized {fmt}_{'array' if is_array else 'matrix'} "
                             f"constructor input: {arg1}")
        raise DataDependentError(f"{name}: built from a dense array, the stored count is "
                                 "the number of nonzero values")


def _astype_noncopy(A: FakeSparse, dtype: Any) -> FakeSparse:
    dt = rules.getdtype(dtype)
    if dt == A.dtype:
        return A
    A.data = A.data.astype(dt, copy=False)
    A._zero_free = None
    return A


def from_real(A: Any) -> FakeSparse:
    """A real SciPy sparse array or matrix as a fake: its arrays become the mode's fakes
    (pre-existing data), its structure is read from the real arrays."""
    fmt = A.format
    is_array = type(A).__name__.endswith("_array")
    if fmt not in FORMATS:
        raise UnsupportedOperationError(f"scipy.sparse.{type(A).__name__}",
                                        "only COO, CSR, CSC and DIA are modelled for fakes")
    with _ModeFor():
        data = np.asarray(A.data)
        if fmt == "dia":
            with paused():
                zf = bool(np.all(A.data[A._data_mask()] != 0))
            return FakeSparse("dia", is_array, A.shape, data=data,
                              offsets=np.asarray(A.offsets),
                              offset_values=tuple(int(k) for k in A.offsets), zero_free=zf)
        if fmt == "coo":
            with paused():
                dup = A.copy()
                dup.sum_duplicates()
                dupfree = dup.nnz == A.nnz
            return FakeSparse("coo", is_array, A.shape, data=data,
                              coords=tuple(np.asarray(c) for c in A.coords),
                              canonical=bool(A.has_canonical_format), dupfree=dupfree)
        return FakeSparse(fmt, is_array, A.shape, data=data, indices=np.asarray(A.indices),
                          indptr=np.asarray(A.indptr), nnz=int(A.nnz),
                          canonical=bool(A.has_canonical_format))


# --- scipy.sparse's construction functions -----------------------------------------------

_NOVALUE: Any = None  # scipy.sparse._construct._NoValue, set by ``install``


def diags_array(diagonals: Any, /, *, offsets: Any = 0, shape: Any = None,
                format: Any = None, dtype: Any = "<novalue>",
                _name: str = "scipy.sparse.diags_array") -> FakeSparse:
    """scipy/sparse/_construct.py diags_array, with the offsets' values known."""
    if dtype == "<novalue>" or dtype is _NOVALUE:
        dtype = _NOVALUE
    with _ModeFor():
        if _isscalarlike(offsets):
            if len(diagonals) == 0 or _isscalarlike(diagonals[0]):
                diags_in = [diagonals]
            else:
                raise ValueError("Different number of diagonals and offsets.")
        else:
            diags_in = list(diagonals)
        offs = rules.known_values(offsets, "offsets", _name).ravel()
        diags = [_atleast_1d(d) for d in diags_in]
        offsets_arr = _atleast_1d(offsets)
        if len(diags) != len(offs):
            raise ValueError("Different number of diagonals and offsets.")
        if shape is None:
            m = len(diags[0]) + abs(int(offs[0]))
            shape = (m, m)
        if dtype is None:
            dtype = np.result_type(*diags)
        elif dtype is _NOVALUE:
            with paused():
                dummies = [np.empty(0, d.dtype) for d in diags]
                dtype = np.dtype(np.common_type(*dummies))
                future = np.result_type(*dummies)
            if dtype != future:
                warnings.warn(
                    f"Input has data type {future}, but the output has been cast "
                    f"to {dtype}.  In the future, the output data type will match the "
                    "input. To avoid this warning, set the `dtype` parameter to `None` "
                    "to have the output dtype match the input, or set it to the "
                    "desired output data type."
                    + ("\nNote: In Python 3.11, this warning can be generated by "
                       "a call of scipy.sparse.diags(), but the code indicated in "
                       "the warning message will refer to an internal call of "
                       "scipy.sparse.diags_array(). If that happens, check your "
                       "code for the use of diags()." if sys.version_info < (3, 12) else ""),
                    FutureWarning, stacklevel=_user_level())
        m, n = shape
        ks = [int(k) for k in offs]
        data_arr, zf = rules.diags_data(diags, diags_in, ks, (m, n), dtype)
        A = _dia(True, data_arr, offsets_arr, tuple(ks), (m, n), zero_free=zf)
        return A.asformat(format)


def _atleast_1d(x: Any) -> Any:
    """np.atleast_1d as the program's call makes it in a mode (this module's NumPy calls with
    real arguments alone would run for real): Python numbers and sequences become a new
    fake, a real array the mode's fake for it."""
    if _is_fake(x):
        return np.atleast_1d(x)
    if isinstance(x, np.ndarray):
        return np.atleast_1d(np.asarray(x))
    return np.array(x, ndmin=1)


def _user_level() -> int:
    """The stack level of the first frame outside scipy and faketensor (warnings)."""
    f: Any = sys._getframe(1)
    level = 1
    while f is not None:
        name = f.f_globals.get("__name__") or ""
        if name.split(".", 1)[0] not in ("scipy", "faketensor"):
            return level
        f = f.f_back
        level += 1
    return 1


def diags(diagonals: Any, offsets: Any = 0, shape: Any = None, format: Any = None,
          dtype: Any = "<novalue>") -> FakeSparse:
    """scipy.sparse.diags: diags_array's result as a dia_matrix, then ``asformat``."""
    A = diags_array(diagonals, offsets=offsets, shape=shape, dtype=dtype,
                    _name="scipy.sparse.diags")
    with _ModeFor():
        return construct("dia", False, A).asformat(format)


def spdiags(data: Any, diags: Any, m: Any = None, n: Any = None,
            format: Any = None) -> FakeSparse:
    """scipy.sparse.spdiags: dia_matrix((data, diags), shape=(m, n)).asformat(format)."""
    if m is None and n is None:
        m = n = len(data[0])
    elif n is None:
        m, n = m
    with _ModeFor():
        return construct("dia", False, (data, diags), shape=(m, n),
                         _name="scipy.sparse.spdiags").asformat(format)


def _eye(m: Any, n: Any, k: int, dtype: Any, format: Any, as_sparray: bool) -> FakeSparse:
    """scipy/sparse/_construct.py _eye: the CSR/CSC/COO fast paths, else diags."""
    if n is None:
        n = m
    m, n = int(m), int(n)
    with _ModeFor():
        if m == n and k == 0:
            if format in ("csr", "csc"):
                idx_dtype = rules.index_dtype(n)
                rules.get_index_dtype_temporaries()
                indptr = np.arange(n + 1, dtype=idx_dtype)
                indices = np.arange(n, dtype=idx_dtype)
                data = np.ones(n, dtype=dtype)
                return _compressed(format, as_sparray, (data, indices, indptr), (n, n),
                                   bounds_known=True, canonical=True)
            if format == "coo":
                idx_dtype = rules.index_dtype(n)
                rules.get_index_dtype_temporaries()
                row = np.arange(n, dtype=idx_dtype)
                col = np.arange(n, dtype=idx_dtype)
                data = np.ones(n, dtype=dtype)
                out = _coo(as_sparray, data, (row, col), (n, n), bounds_known=True)
                return out
        data = np.ones((1, max(0, min(m + k, n))), dtype=dtype)
        diags_sparse = diags_array if as_sparray else diags
        A = diags_sparse(data, offsets=[k], shape=(m, n), dtype=dtype)
        out = A.asformat(format)
        del data  # a local of _eye until it returns
        return out


def eye_array(m: Any, n: Any = None, *, k: int = 0, dtype: Any = float,
              format: Any = None) -> FakeSparse:
    return _eye(m, n, k, dtype, format, True)


def eye(m: Any, n: Any = None, k: int = 0, dtype: Any = float,
        format: Any = None) -> FakeSparse:
    return _eye(m, n, k, dtype, format, False)


def identity(n: Any, dtype: Any = "d", format: Any = None) -> FakeSparse:
    return _eye(n, n, 0, dtype, format, False)


def trusted(fn: Any) -> Any:
    """Run SciPy's own construction ``fn`` with its COO coordinates taken as duplicate-free
    (kron, block_diag of duplicate-free operands; random draws without replacement)."""
    def run(*args: Any, **kwargs: Any) -> Any:
        _TRUSTED.n += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _TRUSTED.n -= 1
    return run


def dupfree(x: Any) -> bool:
    """A sparse operand known to hold no duplicate entries (dense operands and numbers hold
    none)."""
    if isinstance(x, FakeSparse):
        return bool(x._dupfree)
    if _is_scipy_sparse(x):
        return x.format != "coo" or bool(x.has_canonical_format)
    return True


# --- installing the patches ---------------------------------------------------------------

def _class_new(cls: type, fmt: str | None, is_array: bool) -> None:
    """SciPy's class makes a FakeSparse in a mode or from fakes (``__new__`` returns it, so
    the class's ``__init__`` does not run); formats not modelled refuse fakes."""
    if cls.__dict__.get("_ft_new"):
        return

    def __new__(klass: type, *args: Any, **kwargs: Any) -> Any:
        if klass is cls and args and (active() or _fake_in(args)
                                      or _fake_in(tuple(kwargs.values()))):
            if fmt is None:
                if _fake_in(args) or _fake_in(tuple(kwargs.values())):
                    raise UnsupportedOperationError(f"scipy.sparse.{cls.__name__}",
                                                    "this format is not modelled for fakes")
                return object.__new__(klass)
            if fmt == "lil":
                return construct_lil(is_array, *args, **kwargs)
            return construct(fmt, is_array, *args, **kwargs)
        return object.__new__(klass)
    setattr(cls, "__new__", staticmethod(__new__))
    setattr(cls, "_ft_new", True)


def _function(orig: Any, mine: Any, name: str) -> Any:
    """``orig`` outside a mode with real arguments, ``mine`` in a mode or given fakes."""
    if getattr(orig, "_ft_patch", False):
        return orig

    def patched(*args: Any, **kwargs: Any) -> Any:
        if active() or _fake_in(args) or _fake_in(tuple(kwargs.values())):
            return mine(*args, **kwargs)
        return orig(*args, **kwargs)
    import functools
    functools.update_wrapper(patched, orig)
    setattr(patched, "_ft_patch", True)
    setattr(patched, "_ft_public", True)
    return patched


def _scipy_run(orig: Any, trust: Any) -> Any:
    """SciPy's own function run on fakes (in a mode), trusted when ``trust(args)``."""
    def run(*args: Any, **kwargs: Any) -> Any:
        with _ModeFor():
            if trust(args, kwargs):
                return trusted(orig)(*args, **kwargs)
            return orig(*args, **kwargs)
    return run


def _kron_trust(args: tuple, kwargs: dict) -> bool:
    return all(dupfree(a) for a in args[:2])


def _block_trust(args: tuple, kwargs: dict) -> bool:
    mats = args[0] if args else kwargs.get("mats", ())
    return all(dupfree(a) for a in mats)


def _always(args: tuple, kwargs: dict) -> bool:
    return True


def install(sparse_module: Any) -> None:
    """Patch scipy.sparse (its classes and construction functions) once it is imported."""
    global _NOVALUE
    construct_mod = sys.modules["scipy.sparse._construct"]
    rebind_numpy(construct_mod)
    _NOVALUE = getattr(construct_mod, "_NoValue", object())
    from scipy.sparse import _sparsetools
    for name in ("csr_matvec", "csc_matvec", "csr_matvecs", "csc_matvecs", "dia_matvec",
                 "dia_matvecs", "coo_matvec", "coo_matmat_dense", "csr_todense", "coo_todense"):
        _SPARSETOOLS[name] = getattr(_sparsetools, name)
    for fmt in FORMATS:
        for is_array in (True, False):
            cls = getattr(sparse_module, f"{fmt}_{'array' if is_array else 'matrix'}")
            CLASSES[(fmt, is_array)] = cls
            _class_new(cls, fmt, is_array)
    for is_array in (True, False):
        cls = getattr(sparse_module, f"lil_{'array' if is_array else 'matrix'}")
        CLASSES[("lil", is_array)] = cls
        _class_new(cls, "lil", is_array)
    for other in ("bsr", "dok"):
        for kind in ("array", "matrix"):
            _class_new(getattr(sparse_module, f"{other}_{kind}"), None, kind == "array")
    mine = {"diags_array": diags_array, "diags": diags, "spdiags": spdiags,
            "eye_array": eye_array, "eye": eye, "identity": identity}
    scipy_own = {"kron": _kron_trust, "block_diag": _block_trust,
                 "random_array": _always, "random": _always, "rand": _always}
    for name, fn in mine.items():
        orig = getattr(sparse_module, name)
        p = _function(orig, fn, f"scipy.sparse.{name}")
        setattr(sparse_module, name, p)
        if getattr(construct_mod, name, None) is orig:
            setattr(construct_mod, name, p)
    for name, trust in scipy_own.items():
        orig = getattr(sparse_module, name)
        p = _function(orig, _scipy_run(orig, trust), f"scipy.sparse.{name}")
        setattr(sparse_module, name, p)


# --- scipy.sparse.linalg -------------------------------------------------------------------

def _gssv(orig: Any) -> Any:
    """SuperLU's driver (scipy/sparse/linalg/_dsolve/_superlumodule.c ``gssv``) given fakes:
    the solution is a Fortran-ordered copy of the right-hand side in the matrix's dtype
    (``PyArray_FROMANY(b, type, 1, 2, NPY_ARRAY_F_CONTIGUOUS | NPY_ARRAY_ENSURECOPY)``); the
    factors live on the C heap. ``info`` (a singular matrix) is taken as 0: as the
    scipy.linalg rules, the result for a singular matrix (NaNs and a warning, the same
    metadata) is not reproduced."""
    def gssv(N: Any, nnz: Any, data: Any, indices: Any, indptr: Any, b: Any, flag: Any,
             options: Any = None) -> Any:
        if not (_fake_in((data, indices, indptr, b)) or active()):
            return orig(N, nnz, data, indices, indptr, b, flag, options=options)
        with _ModeFor():
            if b.ndim not in (1, 2) or b.shape[0] != N:
                raise ValueError("b array has invalid shape")
            x = np.array(b, dtype=data.dtype, order="F", copy=True)
            return x, 0
    setattr(gssv, "_ft_patch", True)
    return gssv


def _cg_placeholder(A: Any, b: Any, x0: Any = None, *, rtol: float = 1e-5,
                    atol: float = 0., maxiter: Any = None, M: Any = None,
                    callback: Any = None) -> tuple:
    """scipy/sparse/linalg/_isolve/iterative.py cg under placeholders: SciPy's set-up
    (make_system), then the loop body twice, the first iteration and a later one (every
    later iteration allocates as the second does), so the peak is the real run's for a
    right-hand side that is not zero and an iteration count of at least two; those and the
    count itself are listed as placeholders. ``info`` is a placeholder 0."""
    from scipy.sparse.linalg._isolve.utils import make_system
    mode = next(m for m in reversed(mode_stack()) if getattr(m, "_is_fake_mode", False))
    A, M, x, b = make_system(A, M, x0, b)
    bnrm2 = np.linalg.norm(b)
    mode.placeholders.add("scipy.sparse.linalg.cg: the right-hand side is taken as nonzero "
                          "and the iteration count (FLOPs of two iterations counted) as "
                          "at least two")
    del bnrm2
    dotprod = np.vdot if np.iscomplexobj(x) else np.dot
    matvec = A.matvec
    psolve = M.matvec
    r = b - matvec(x) if x0 is not None else b.copy()
    rho_prev: Any = None
    p: Any = None
    for iteration in range(2):
        t = np.linalg.norm(r)
        del t
        z = psolve(r)
        rho_cur = dotprod(r, z)
        if iteration > 0:
            beta = rho_cur / rho_prev
            p *= beta
            p += z
        else:
            p = np.empty_like(r)
            p[:] = z[:]
        q = matvec(p)
        alpha = rho_cur / dotprod(p, q)
        x += alpha * p
        r -= alpha * q
        rho_prev = rho_cur
        if callback:
            callback(x)
    return x, 0


def _placeholders() -> bool:
    """The innermost FakeMode makes placeholders for values (``data_dependent=
    "placeholder"``)."""
    for m in reversed(mode_stack() if LIVE else ()):
        if getattr(m, "_is_fake_mode", False):
            return getattr(m, "data_dependent", "stop") == "placeholder"
    return False


def _iterative(orig: Any, name: str) -> Any:
    """An iterative solver (cg, bicgstab, gmres, ...) given a fake sparse operand: its
    iteration count and whether it returns ``b`` itself (a zero right-hand side) depend on
    the values. With placeholders, SciPy's own code runs (on placeholder zeros it returns
    at its first test, as it would for a zero right-hand side)."""
    def solver(A: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        if name == "cg" and _placeholders() and (isinstance(A, FakeSparse)
                                                 or _fake_in((b,))):
            with _ModeFor():
                return _cg_placeholder(A, b, *args, **kwargs)
        if isinstance(A, FakeSparse) or _fake_in((b,)) or active():
            raise DataDependentError(
                f"scipy.sparse.linalg.{name}: the number of iterations (and whether the "
                "result is b itself, for a zero right-hand side) depends on the values")
        return orig(A, b, *args, **kwargs)
    import functools
    functools.update_wrapper(solver, orig)
    setattr(solver, "_ft_patch", True)
    setattr(solver, "_ft_public", True)
    return solver


ITERATIVE = ("cg", "cgs", "bicg", "bicgstab", "gmres", "lgmres", "minres", "qmr", "gcrotmk",
             "tfqmr", "lsqr", "lsmr")


def rebind_numpy(module: Any) -> None:
    """NumPy functions a SciPy module bound by name (``from numpy import asarray``) before
    faketensor patched NumPy's namespace: pointed at the patches, as later imports get them
    (SciPy's own code that runs on fake sparse arrays: spsolve, kron, block_diag)."""
    from .patching import patched_of
    for attr, obj in list(vars(module).items()):
        if callable(obj) and not attr.startswith("__"):
            p = patched_of(obj)
            if p is not None:
                setattr(module, attr, p)


def install_linalg(module: Any) -> None:
    """Patch scipy.sparse.linalg once it is imported: SuperLU's driver and the iterative
    solvers."""
    linsolve = sys.modules.get("scipy.sparse.linalg._dsolve.linsolve")
    if linsolve is not None:
        rebind_numpy(linsolve)
    if linsolve is not None and not getattr(linsolve._superlu.gssv, "_ft_patch", False):
        linsolve._superlu.gssv = _gssv(linsolve._superlu.gssv)
    for name in ITERATIVE:
        fn = getattr(module, name, None)
        if fn is not None and not getattr(fn, "_ft_patch", False):
            setattr(module, name, _iterative(fn, name))
