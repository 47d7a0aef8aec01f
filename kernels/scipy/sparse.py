"""scipy.sparse's rules: the shape, dtype, format, stored count and memory of each sparse
operation (docs/guide/scipy-sparse.md, docs/guide/sparse-lil.md), and its compiled
products (scipy/sparse/sparsetools: ``csr_matvec`` and kin) as kernels.

- Metadata rules are pure functions of shapes, dtypes and structure values that are known
  (Python numbers, real arrays, fakes whose values are known): the index dtype SciPy picks,
  the dtype its products upcast to, the number of stored elements of a diagonal structure,
  the stored positions a LIL's item assignments change (``Pattern``, ``lil_insert``).
- Memory rules follow SciPy's own Python (scipy/sparse/_construct.py, _sputils.py, _dia.py,
  _coo.py, _compressed.py, _csr.py, _csc.py, _lil.py) step by step with the NumPy calls it
  makes, on fakes: run in a mode, they charge the arrays and temporaries SciPy allocates,
  freed where SciPy frees them (a local SciPy keeps until it returns is handed back to the
  caller to keep). They return arrays, or parts (``CompressedParts``, ``CooParts``,
  ``DiaParts``) that modes/sparse.py wraps in its fake sparse class.
- The product kernels write into the output the caller allocated (in place on it, as
  sparsetools does) and count their FLOPs, 2 per stored element per right-hand column.
"""
from __future__ import annotations

import operator
import warnings
from typing import Any, NamedTuple

import numpy as np
from scipy.sparse import _sparsetools

from ... import _known
from ..._errors import DataDependentError, UnsupportedOperationError
from ..._stack import paused
from ...meta import is_fake
from .. import flops
from ..registry import register, transient

INT32_MAX = int(np.iinfo(np.int32).max)

# scipy/sparse/_sputils.py ``supported_dtypes``: the dtypes sparse data may have
SUPPORTED = tuple(np.dtype(t) for t in (
    np.bool_, np.byte, np.ubyte, np.short, np.ushort, np.intc, np.uintc, np.long, np.ulong,
    np.longlong, np.ulonglong, np.float32, np.float64, np.longdouble, np.complex64,
    np.complex128, np.clongdouble))


def upcast(*dtypes: Any) -> np.dtype:
    """scipy.sparse._sputils.upcast: the first supported dtype the promoted one casts to."""
    res = np.result_type(*[np.dtype(d) for d in dtypes])
    for t in SUPPORTED:
        if np.can_cast(res, t):
            return t
    raise TypeError(f"no supported conversion for types: {dtypes!r}")


def index_dtype(maxval: int | None = None, dtypes: tuple = ()) -> np.dtype:
    """scipy.sparse._sputils.get_index_dtype without ``check_contents``: int64 when
    ``maxval`` exceeds int32 or an array's dtype does not cast to int32, else int32."""
    if maxval is not None and int(maxval) > INT32_MAX:
        return np.dtype(np.int64)
    for dt in dtypes:
        if not np.can_cast(dt, np.int32):
            return np.dtype(np.int64)
    return np.dtype(np.int32)


def index_dtype_of(maxval: int | None, arrays: tuple[tuple[np.dtype, Any], ...]) -> Any:
    """get_index_dtype with ``check_contents=True``: each array as (dtype, (min, max) of its
    values or None when unknown). Returns the dtype, or None when SciPy would read values
    this rule does not know (an int64 array of unknown values under an int32 ``maxval``)."""
    if maxval is not None and int(maxval) > INT32_MAX:
        return np.dtype(np.int64)
    for dt, bounds in arrays:
        if np.can_cast(dt, np.int32):
            continue
        if bounds is None:
            if dt.kind in "iu":
                return None
            return np.dtype(np.int64)
        if bounds == ():  # empty: a bigger type is not needed
            continue
        lo, hi = bounds
        if dt.kind in "iu" and lo >= -INT32_MAX - 1 and hi <= INT32_MAX:
            continue
        return np.dtype(np.int64)
    return np.dtype(np.int32)


def dia_nnz(m: int, n: int, L: int, offsets: Any) -> int:
    """dia_array._getnnz: stored positions of each offset's row of the (len(offsets), L) data
    array that fall inside the (m, n) matrix (scipy/sparse/_dia.py)."""
    Lc = min(L, n)
    return sum(max(min(m + int(k), Lc) - max(int(k), 0), 0) for k in offsets)


# --- products: sparsetools writes ``y`` in place; 2 FLOPs per stored element and column ----
# sparsetools' thunk (scipy/sparse/sparsetools/sparsetools.cxx) converts every data-typed
# argument to the output's type and C order first: a converted copy of each that is not
# already, alive during the call.

def _converted(y: Any, *arrays: Any) -> None:
    """The copies sparsetools' thunk makes of each operand: a C-ordered copy of one that is
    not C-contiguous (in its own dtype), and a copy converted to the output's dtype when
    they differ (measured with tracemalloc: both, for an operand that needs both)."""
    for a in arrays:
        if a is None:
            continue
        n = flops.size_of(a)
        flags = getattr(a, "flags", None)
        if flags is not None and not flags.c_contiguous:
            transient(n * np.dtype(a.dtype).itemsize, kind="implicit_copy")
        if np.dtype(a.dtype) != np.dtype(y.dtype):
            transient(n * np.dtype(y.dtype).itemsize, kind="implicit_copy")


@register(_sparsetools.csr_matvec, _sparsetools.csc_matvec, tags=("inplace",),
          flops=flops.sparse_product(4))
def csr_matvec(M: Any, N: Any, indptr: Any, indices: Any, data: Any, x: Any, y: Any) -> Any:
    """sparsetools csr_matvec/csc_matvec: y += A x, in place on y."""
    _converted(y, data, x)
    return y


@register(_sparsetools.csr_matvecs, _sparsetools.csc_matvecs, tags=("inplace",),
          flops=flops.sparse_product(5, k_at=2))
def csr_matvecs(M: Any, N: Any, k: Any, indptr: Any, indices: Any, data: Any, x: Any,
                y: Any) -> Any:
    """sparsetools csr_matvecs/csc_matvecs: Y += A X for k columns, in place on Y."""
    _converted(y, data, x)
    return y


@register(_sparsetools.dia_matvec, tags=("inplace",),
          flops=flops.sparse_product(4, nnz_is_count=True))
def dia_matvec(M: Any, N: Any, ndiag: Any, L: Any, nnz: Any, data: Any, x: Any,
               y: Any) -> Any:
    """sparsetools dia_matvec: y += A x, in place on y. Called with the structure's stored
    count ``nnz`` (an int: the positions of the offsets inside the matrix, which
    dia_matvec loops over) where sparsetools takes the offsets array."""
    _converted(y, data, x)
    return y


@register(_sparsetools.dia_matvecs, tags=("inplace",),
          flops=flops.sparse_product(4, k_at=6, nnz_is_count=True))
def dia_matvecs(M: Any, N: Any, ndiag: Any, L: Any, nnz: Any, data: Any, k: Any, x: Any,
                y: Any) -> Any:
    """sparsetools dia_matvecs: Y += A X for k columns, in place on Y (``nnz`` as for
    dia_matvec)."""
    _converted(y, data, x)
    return y


@register(_sparsetools.coo_matvec, tags=("inplace",),
          flops=flops.sparse_product(0, nnz_is_count=True))
def coo_matvec(nnz: Any, row: Any, col: Any, data: Any, x: Any, y: Any) -> Any:
    """sparsetools coo_matvec: y += A x, in place on y."""
    _converted(y, data, x)
    return y


@register(_sparsetools.coo_matmat_dense, tags=("inplace",),
          flops=flops.sparse_product(0, k_at=1, nnz_is_count=True))
def coo_matmat_dense(nnz: Any, k: Any, row: Any, col: Any, data: Any, x: Any, y: Any) -> Any:
    """sparsetools coo_matmat_dense: Y += A X for k columns, in place on Y."""
    _converted(y, data, x)
    return y


@register(_sparsetools.csr_todense, tags=("inplace",), flops=flops.sparse_product(4))
def csr_todense(M: Any, N: Any, indptr: Any, indices: Any, data: Any, y: Any) -> Any:
    """sparsetools csr_todense: each stored element added into the dense ``y`` (toarray,
    and a sparse plus a dense array), in place on y."""
    _converted(y, data)
    return y


@register(_sparsetools.coo_todense, tags=("inplace",),
          flops=flops.sparse_product(2, nnz_is_count=True))
def coo_todense(M: Any, N: Any, nnz: Any, row: Any, col: Any, data: Any, y: Any,
                fortran: Any) -> Any:
    """sparsetools coo_todense: each stored element added into the dense ``y``, in place."""
    _converted(y, data)
    return y


# --- stored positions of a structure (LIL item assignment) ----------------------------------

class Pattern:
    """The stored positions of a sparse structure without reading an index value: the
    positions of a set of diagonals (a DIA structure's, or a CSR made from one with no
    explicit zero) and the single positions written or deleted since (``A[i, j] = v`` into
    a LIL). Costs the same whatever the shape; a position is tested in O(1)."""

    __slots__ = ("shape", "offsets", "width", "added", "removed")

    def __init__(self, shape: tuple, offsets: tuple = (), width: int | None = None,
                 added: frozenset = frozenset(), removed: frozenset = frozenset()) -> None:
        self.shape = (int(shape[0]), int(shape[1]))
        self.offsets = frozenset(int(k) for k in offsets)
        self.width = self.shape[1] if width is None else int(width)
        self.added, self.removed = added, removed

    def on_diagonals(self, i: int, j: int) -> bool:
        """(i, j) is a position of the diagonals: a column of the (ndiag, width) data array
        that falls inside the matrix (dia_nnz's positions)."""
        m, n = self.shape
        return (j - i) in self.offsets and 0 <= i < m and 0 <= j < min(self.width, n)

    def stored(self, i: int, j: int) -> bool:
        """Whether (i, j) holds a stored element (i, j already in range)."""
        if (i, j) in self.added:
            return True
        return self.on_diagonals(i, j) and (i, j) not in self.removed

    @property
    def nnz(self) -> int:
        m, n = self.shape
        return dia_nnz(m, n, self.width, self.offsets) - len(self.removed) + len(self.added)

    def with_entry(self, i: int, j: int, stored: bool) -> "Pattern":
        """The pattern after (i, j) is stored (``stored``) or deleted."""
        added, removed = set(self.added), set(self.removed)
        if stored:
            removed.discard((i, j))
            if not self.on_diagonals(i, j):
                added.add((i, j))
        else:
            added.discard((i, j))
            if self.on_diagonals(i, j):
                removed.add((i, j))
        return Pattern(self.shape, tuple(self.offsets), self.width, frozenset(added),
                       frozenset(removed))


def lil_position(i: int, j: int, shape: tuple) -> tuple[int, int]:
    """scipy/sparse/_csparsetools.pyx lil_insert's index checks: negative indices count from
    the end; IndexError, as SciPy words it, for one out of range."""
    M, N = shape
    if i < -M or i >= M:
        raise IndexError(f"row index ({i}) out of bounds")
    if j < -N or j >= N:
        raise IndexError(f"column index ({j}) out of bounds")
    return (i + M if i < 0 else i, j + N if j < 0 else j)


def lil_insert(pattern: Pattern, i: int, j: int, zero: bool) -> Pattern:
    """_csparsetools.lil_insert: a zero deletes the stored element at (i, j) (if any), any
    other value stores one there (replacing the element stored there, if any)."""
    return pattern.with_entry(i, j, not zero)


def lil_lists(M: int) -> tuple[Any, Any]:
    """_lil.__init__ from a shape: ``rows`` and ``data``, object arrays of M pointers (the
    Python lists they hold are not NumPy's memory). NumPy calls: run in a mode."""
    return np.empty((M,), dtype=object), np.empty((M,), dtype=object)


def lil_tocsr_arrays(M: int, N: int, nnz: int, dtype: Any) -> tuple[Any, Any, Any, Any]:
    """_lil.tocsr's arrays (data, indices, indptr) as SciPy allocates them: int32 when
    M*N fits in int32, else get_index_dtype of N, then of max(N, nnz), the row lengths'
    array made first. Returns also that array (None on the int32 path), a local of tocsr
    alive until the CSR is built. NumPy calls: run in a mode."""
    lengths = None
    if M * N <= INT32_MAX:
        indptr = np.empty(M + 1, dtype=np.int32)
        indptr[0] = 0
        np.cumsum(indptr, out=indptr)  # after lil_get_lengths: the row lengths summed
        idx_dtype: Any = np.int32
    else:
        get_index_dtype_temporaries()
        lengths = np.empty(M, dtype=index_dtype(N))
        total = lengths.sum(dtype=np.int64)
        get_index_dtype_temporaries()
        idx_dtype = index_dtype(max(N, nnz))
        indptr = np.empty(M + 1, dtype=idx_dtype)
        indptr[0] = 0
        np.cumsum(lengths, dtype=idx_dtype, out=indptr[1:])
        del total
    indices = np.empty(nnz, dtype=idx_dtype)
    data = np.empty(nnz, dtype=dtype)
    return data, indices, indptr, lengths


def get_index_dtype_temporaries(maxval: bool = True) -> None:
    """The bytes of one call of scipy.sparse's get_index_dtype: its NumPy scalars are made
    through buffers freed at once, ``np.int32(...)`` 4 bytes each, ``np.int64(maxval)`` 8
    (measured with tracemalloc): 8 bytes at most, 4 without a ``maxval``. NumPy calls: run
    in a mode."""
    t = np.empty(2 if maxval else 1, dtype=np.int32)
    del t


# --- SciPy's argument and structure rules (scipy/sparse/_sputils.py, the constructors) ---

def known_values(x: Any, what: str, fn: str) -> np.ndarray:
    """The values of a structure argument (offsets, indices, index pointers) as a real
    array: from Python numbers and sequences, real arrays, and fakes whose values are known
    (a small known content, ``np.array([-1, 1])`` made in the mode, or one value in every
    element); DataDependentError naming ``fn`` when a fake's values are unknown."""
    if hasattr(x, "nnz") and hasattr(x, "format"):  # a (fake) sparse array
        raise TypeError(f"{what}: a sparse array where an array of integers is expected")
    if is_fake(x):
        r = _known.real(x)
        if r is not None:
            with paused():
                return np.array(r)
        v = _known.value(x)
        if v is None:
            raise DataDependentError(f"{fn}: the {what} are the values of a fake array "
                                     f"(shape={x.shape}, dtype={x.dtype}), which are unknown; "
                                     f"give them as numbers or a real array")
        with paused():
            return np.full(x.shape, v, dtype=x.dtype)
    if isinstance(x, (list, tuple)):
        with paused():
            return np.array([known_values(v, what, fn) if is_fake(v) else v for v in x])
    with paused():
        return np.asarray(x)


def value_bounds(x: Any) -> Any:
    """(min, max) of an integer structure array whose values are known, () when empty,
    None when unknown."""
    if is_fake(x):
        r = _known.real(x)
        if r is not None:
            with paused():
                if r.size == 0:
                    return ()
                return (int(r.min()), int(r.max())) if r.dtype.kind in "iub" else None
        v = _known.value(x)
        if v is None:
            return None
        return () if x.size == 0 else (int(v), int(v))
    with paused():
        a = np.asarray(x)
        if a.size == 0:
            return ()
        if a.dtype.kind not in "iub":
            return None
        return (int(a.min()), int(a.max()))


def zero_free(x: Any, length: int | None = None) -> bool | None:
    """True when every element of ``x`` (its first ``length`` along the last axis) is
    known to be nonzero, False when one is known to be zero, None when unknown."""
    if is_fake(x):
        r = _known.real(x)
        if r is None:
            v = _known.value(x)
            if v is None:
                return None if x.size else True
            with paused():
                return bool(np.asarray(v) != 0)
        x = r  # a small known content: read as a real array
    with paused():
        a = np.asarray(x)
        if length is not None and a.ndim:
            a = a[..., :length]
        return bool(np.all(a != 0))


def prune(array: Any) -> Any:
    """scipy.sparse._sputils._prune_array: a copy when a view holds less than half of its
    base."""
    base = array.base
    if base is not None and array.size < base.size // 2:
        return array.copy()
    return array


def getdtype(dtype: Any, default: Any = None) -> Any:
    """scipy.sparse._sputils.getdtype (supported dtypes only)."""
    if dtype is None:
        return None if default is None else np.dtype(default)
    newdtype = np.dtype(dtype)
    if newdtype == np.object_:
        raise ValueError("object dtype is not supported by sparse matrices")
    if newdtype not in SUPPORTED:
        raise ValueError(f"scipy.sparse does not support dtype {newdtype.name}. "
                         f"The only supported types are: "
                         f"{', '.join(d.name for d in SUPPORTED)}.")
    return newdtype


def valid_bounds(x: Any, dim: int) -> Any:
    """(min, max) of an index array: its known values, else those of valid indices (in
    [0, dim)): as NumPy's indexing kernels do, a fake's index values are taken to be valid;
    SciPy raises for invalid ones, which a fake does not reproduce."""
    b = value_bounds(x)
    if b is None:
        return () if len(x) == 0 else (0, max(dim - 1, 0))
    return b


def dtype_of(x: Any) -> np.dtype:
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    with paused():
        return np.asarray(x).dtype


def bounds_of(a: np.ndarray) -> Any:
    if a.size == 0:
        return ()
    if a.dtype.kind not in "iub":
        return None
    return (int(a.min()), int(a.max()))


def check_shape(shape: Any) -> tuple:
    """scipy.sparse._sputils.check_shape for 2-d shapes."""
    try:
        new = tuple(operator.index(s) for s in shape)
    except TypeError as e:
        raise TypeError("'shape' must be a tuple of integers") from e
    if len(new) != 2:
        raise UnsupportedOperationError("scipy.sparse", "only 2-d sparse arrays are modelled "
                                        "for fakes")
    if any(d < 0 for d in new):
        raise ValueError("'shape' elements cannot be negative")
    return new


def pairs_distinct(coords: tuple, shape: tuple) -> bool | None:
    """Whether coordinates given as real arrays or sequences (known values) name distinct
    positions; None when a fake's values are unknown."""
    if any(is_fake(c) for c in coords):
        return None
    with paused():
        cs = [np.asarray(c).astype(np.int64).ravel() for c in coords]
        if len({len(c) for c in cs}) != 1:
            return None
        flat = np.ravel_multi_index(cs, shape, mode="wrap") if cs[0].size else cs[0]
        return bool(np.unique(flat).size == flat.size)


def coo_check(coords: tuple, data: Any, shape: tuple, is_array: bool) -> tuple:
    """_coo._check: the index dtype again (the coordinates as it), then, when there are
    stored elements, each coordinate's max and min (the range checks: valid indices here)."""
    get_index_dtype_temporaries()
    idx_dtype = index_dtype(max(shape), tuple(c.dtype for c in coords))
    coords = tuple(np.asarray(c, dtype=idx_dtype) for c in coords)
    if len(data) > 0:
        for c in coords:
            hi = c.max()
            lo = c.min()
            del hi, lo
    return coords


def getdata(obj: Any, copy: bool = False, dtype: Any = None) -> Any:
    """scipy.sparse._sputils.getdata: np.array(obj, dtype=dtype, copy=copy) of a supported
    dtype."""
    data = np.array(obj, dtype=dtype, copy=True if copy else None)
    getdtype(data.dtype)
    return data


def unique_temporaries(offsets: Any) -> None:
    """np.unique(offsets) of _dia.__init__ on a fake: its flattened sorted copy and the
    result (every offset distinct), freed at once (2 * len * itemsize, measured)."""
    flat = offsets.flatten()
    ret = flat.copy()
    del flat, ret


def isshape(x: Any) -> bool:
    """scipy.sparse._sputils.isshape for 2-d shapes."""
    if not isinstance(x, tuple) or len(x) != 2:
        return False
    return all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0
               for d in x)


def zero_free_dia(data: Any, offs: np.ndarray, shape: tuple) -> bool | None:
    """Whether every stored position of a DIA structure holds a known nonzero value."""
    if is_fake(data):
        r = _known.real(data)
        if r is None:
            return zero_free(data)
        data = r  # a small known content: its stored positions are read
    if isinstance(data, (list, tuple)) and any(is_fake(v) for v in data):
        flags = [zero_free(v) for v in data]
        return None if None in flags else all(flags)
    with paused():
        d = np.atleast_2d(np.asarray(data))
        if d.ndim != 2 or d.shape[0] != offs.size:
            return None
        m, n = shape
        cols = np.arange(d.shape[1])
        rows = cols[None, :] - offs.reshape(-1, 1)
        mask = (rows >= 0) & (rows < m) & (cols[None, :] < n)
        return bool(np.all(d[mask] != 0))


# --- the constructors (scipy/sparse/_compressed.py, _coo.py, _dia.py __init__) ----------

class CompressedParts(NamedTuple):
    """A CSR/CSC structure as its constructor leaves it."""
    data: Any
    indices: Any
    indptr: Any
    shape: tuple
    nnz: int


class CooParts(NamedTuple):
    """A COO structure as its constructor leaves it; ``dupfree``: None when unknown."""
    data: Any
    coords: tuple
    shape: tuple
    dupfree: Any


class DiaParts(NamedTuple):
    """A DIA structure as its constructor leaves it."""
    data: Any
    offsets: Any
    shape: tuple


def empty_compressed_arrays(fmt: str, shape: tuple, dtype: Any) -> tuple[Any, Any, Any]:
    """_compressed.__init__ from a shape: (data, indices, indptr) with no stored elements.
    NumPy calls: run in a mode."""
    M, N = shape if fmt == "csr" else shape[::-1]
    idx_dtype = index_dtype(max(shape))
    get_index_dtype_temporaries()
    data = np.zeros(0, getdtype(dtype, default=float))
    indices = np.zeros(0, idx_dtype)
    indptr = np.zeros(M + 1, dtype=idx_dtype)
    return data, indices, indptr


def compressed_init(fmt: str, is_array: bool, arrays: tuple, shape: Any, dtype: Any = None,
                    copy: bool = False, bounds_known: bool = False,
                    name: str | None = None) -> CompressedParts:
    """_compressed.__init__ from (data, indices, indptr) and check_format(full_check=False):
    the index dtype, the arrays as converted, and the count: indptr[-1], read from known
    values, or len(indices) for arrays made by these rules (``bounds_known``). NumPy
    calls: run in a mode."""
    name = name or f"scipy.sparse.{fmt}_{'array' if is_array else 'matrix'}"
    data, indices, indptr = arrays
    maxval = None
    if shape is not None and 0 not in shape:
        maxval = max(shape)
    get_index_dtype_temporaries(maxval is not None)
    if bounds_known:
        nnz_known: int | None = int(len(indices))
        bounds = [(indices.dtype, (0, max(maxval or 1, 1) - 1) if len(indices) else ()),
                  (indptr.dtype, (0, nnz_known))]
        ptr_vals = None
    else:
        ptr_vals = known_values(indptr, "index pointers", name)
        minor = (shape[1] if fmt == "csr" else shape[0]) if shape is not None else 1
        ind_b = valid_bounds(indices, minor)
        bounds = [(dtype_of(indices), ind_b), (ptr_vals.dtype, bounds_of(ptr_vals))]
        nnz_known = int(ptr_vals[-1]) if ptr_vals.size else None
    # _base._get_index_dtype: sparse arrays never read the contents, matrices do
    idx_dtype = (index_dtype_of(maxval, tuple(bounds)) if not is_array
                 else index_dtype(maxval, tuple(b[0] for b in bounds)))
    if idx_dtype is None:
        raise DataDependentError(f"{name}: SciPy reads the values of the int64 indices to "
                                 "choose the index dtype (get_index_dtype(check_contents=True))"
                                 ", and those of this fake are unknown")
    indices = np.array(indices, copy=None if not copy else True, dtype=idx_dtype)
    indptr = np.array(indptr, copy=None if not copy else True, dtype=idx_dtype)
    data = np.array(data, copy=None if not copy else True, dtype=dtype)
    if shape is None:
        raise DataDependentError(f"{name}: without a shape SciPy infers the number of "
                                 "columns from indices.max()")
    shape = check_shape(shape)
    if dtype is not None:
        data = data.astype(getdtype(dtype), copy=False)
    # check_format(full_check=False)
    M, N = shape if fmt == "csr" else shape[::-1]
    if indptr.dtype.kind != "i":
        warnings.warn(f"indptr array has non-integer dtype ({indptr.dtype.name})",
                      stacklevel=4)
    if indices.dtype.kind != "i":
        warnings.warn(f"indices array has non-integer dtype ({indices.dtype.name})",
                      stacklevel=4)
    for x in (data.ndim, indices.ndim, indptr.ndim):
        if x != 1:
            raise ValueError("data, indices, and indptr should be 1-D")
    if len(indptr) != M + 1:
        raise ValueError(f"index pointer size {len(indptr)} should be {M + 1}")
    if ptr_vals is not None and int(ptr_vals[0]) != 0:
        raise ValueError("index pointer should start with 0")
    if len(indices) != len(data):
        raise ValueError("indices and data should have the same size")
    assert nnz_known is not None
    if nnz_known > len(indices):
        raise ValueError("Last value of index pointer should be less than the size of "
                         "index and data arrays")
    # prune
    if nnz_known != len(indices):
        indices = prune(indices[:nnz_known])
        data = prune(data[:nnz_known])
    return CompressedParts(data, indices, indptr, shape, nnz_known)


def coo_init(is_array: bool, obj: Any, coords: tuple, shape: Any, copy: bool = False,
             dtype: Any = None, bounds_known: bool = False, trusted: bool = False,
             name: str | None = None) -> CooParts:
    """_coo.__init__ from (data, (row, col)): the index dtype, the arrays as converted, and
    whether the coordinates are known distinct (``trusted``: a construction whose
    coordinates come from structure). NumPy calls: run in a mode."""
    name = name or f"scipy.sparse.coo_{'array' if is_array else 'matrix'}"
    if shape is None:
        raise DataDependentError(f"{name}: without a shape SciPy infers it from the "
                                 "largest index values")
    shape = check_shape(shape)
    if len(coords) != 2:
        raise UnsupportedOperationError(name, "only 2-d sparse arrays are modelled for fakes")
    if bounds_known:
        bounds = tuple((dtype_of(c), (0, max(shape[i] - 1, 0)) if len(c) else ())
                       for i, c in enumerate(coords))
    else:
        bounds = tuple((dtype_of(c), valid_bounds(c, shape[i]))
                       for i, c in enumerate(coords))
    get_index_dtype_temporaries()
    idx_dtype = (index_dtype_of(max(shape), bounds) if not is_array
                 else index_dtype(max(shape), tuple(b[0] for b in bounds)))
    if idx_dtype is None:
        raise DataDependentError(f"{name}: SciPy reads the values of the int64 indices to "
                                 "choose the index dtype (get_index_dtype(check_contents=True))"
                                 ", and those of this fake are unknown")
    known_dupfree = None if bounds_known else pairs_distinct(coords, shape)
    cp = True if copy else None
    coords = tuple(np.array(idx, copy=cp, dtype=idx_dtype) for idx in coords)
    data = getdata(obj, copy=copy, dtype=dtype)
    # _check: shapes, the nnz > 0 range checks read values (known valid here or not checked)
    if any(c.ndim != 1 for c in coords) or data.ndim != 1:
        raise ValueError("row, column, and data array must all be the same length"
                         if data.ndim == 1 else "data array must be 1-D")
    if any(len(c) != len(data) for c in coords):
        raise ValueError("row, column, and data array must all be the same length")
    coords = coo_check(coords, data, shape, is_array)
    if not bounds_known:
        for i, (_, b) in enumerate(bounds):
            if b and b[1] >= shape[i]:
                raise ValueError(f"axis {i} index {b[1]} exceeds matrix dimension "
                                 f"{shape[i]}")
            if b and b[0] < 0:
                raise ValueError(f"negative axis {i} index: {b[0]}")
    dup: bool | None = True if bounds_known or trusted or not len(data) else known_dupfree
    return CooParts(data, coords, shape, dup)


def dia_init(data: Any, offsets_arr: Any, offset_values: tuple, shape: tuple,
             dtype: Any = None, copy: bool = False) -> DiaParts:
    """_dia.__init__ from (data, offsets) with a shape: the arrays as converted, checked.
    NumPy calls: run in a mode."""
    shape = check_shape(shape)
    cp = True if copy else None
    data = np.atleast_2d(np.array(data, dtype=dtype, copy=cp))
    get_index_dtype_temporaries()
    offsets = np.atleast_1d(np.array(offsets_arr, dtype=index_dtype(max(shape)),
                                     copy=cp))
    if dtype is not None:
        data = data.astype(getdtype(dtype), copy=False)
    if offsets.ndim != 1:
        raise ValueError("offsets array must have rank 1")
    if data.ndim != 2:
        raise ValueError("data array must have rank 2")
    if data.shape[0] != len(offsets):
        raise ValueError(f"number of diagonals ({data.shape[0]}) does not match the number "
                         f"of offsets ({len(offsets)})")
    if len(set(offset_values)) != len(offset_values):
        raise ValueError("offset array contains duplicate values")
    unique_temporaries(offsets)
    return DiaParts(data, offsets, shape)


# --- conversions and transposes (scipy/sparse/_dia.py, _coo.py, _csr.py, _csc.py) -----------
# each makes the arrays as SciPy allocates them, freeing its temporaries where SciPy does

def dia_getnnz_temporaries(shape: tuple, width: int, offsets: Any) -> None:
    """_dia._getnnz computes the count with NumPy on the offsets: its temporaries. NumPy
    calls: run in a mode."""
    M, N = shape
    L = min(width, N)
    t = np.maximum(np.minimum(M + offsets, L) - np.maximum(offsets, 0), 0).sum()
    del t


def compressed_swap_arrays(fmt: str, shape: tuple, nnz: int, dtype: Any, indptr: Any,
                           indices: Any) -> tuple[Any, Any, Any]:
    """_csr.tocsc / _csc.tocsr: the new (data, indices, indptr) that csr_tocsc fills, in
    the index dtype of both structure arrays and the stored count, and the structure
    arrays cast to it (freed at once). NumPy calls: run in a mode."""
    M, N = shape
    major = N if fmt == "csc" else M  # of the result
    get_index_dtype_temporaries()
    idx_dtype = index_dtype(max(nnz, M if fmt == "csc" else N), (indptr.dtype, indices.dtype))
    new_indptr = np.empty(major + 1, dtype=idx_dtype)
    new_indices = np.empty(nnz, dtype=idx_dtype)
    data = np.empty(nnz, dtype=upcast(dtype))
    a = indptr.astype(idx_dtype, copy=False)
    b = indices.astype(idx_dtype, copy=False)
    del a, b
    return data, new_indices, new_indptr


def coo_tocompressed_arrays(fmt: str, shape: tuple, nnz: int, coords: tuple,
                            data: Any) -> tuple[Any, Any, Any]:
    """_coo.tocsr / tocsc of coordinates known distinct: the coordinates cast to the index
    dtype (freed at once), then the (data, indices, indptr) coo_tocsr fills. NumPy calls:
    run in a mode."""
    M, N = shape if fmt == "csr" else shape[::-1]
    get_index_dtype_temporaries()
    idx_dtype = index_dtype(max(nnz, N), tuple(c.dtype for c in coords))
    major, minor = coords if fmt == "csr" else coords[::-1]
    major = major.astype(idx_dtype, copy=False)
    minor = minor.astype(idx_dtype, copy=False)
    indptr = np.empty(M + 1, dtype=idx_dtype)
    indices = np.empty_like(minor, dtype=idx_dtype)
    new_data = np.empty_like(data, dtype=data.dtype)
    del major, minor
    return new_data, indices, indptr


def dia_tocsr_arrays(shape: tuple, max_nnz: int, dtype: Any, offsets: Any, zero_free: bool,
                     name: str) -> tuple[Any, Any, Any, Any]:
    """_dia.tocsr: the order of the offsets, the arrays of the largest count dia_tocsr
    fills, then (no explicit zero dropped: ``zero_free``, else DataDependentError naming
    ``name``) those arrays pruned to the count. Returns (data, indices, indptr, order),
    ``order`` a local of tocsr alive until it returns. NumPy calls: run in a mode."""
    n_rows, n_cols = shape
    idx_dtype = index_dtype(max(max_nnz, n_rows, n_cols))
    get_index_dtype_temporaries()
    order = np.argsort(offsets).astype(idx_dtype, copy=False)
    csr_data = np.empty(max_nnz, dtype=dtype)
    indices = np.empty(max_nnz, dtype=idx_dtype)
    indptr = np.empty(1 + n_rows, dtype=idx_dtype)
    offs = offsets.astype(idx_dtype, copy=False)  # an argument of dia_tocsr
    del offs
    if not zero_free:
        raise DataDependentError(f"{name}: converting drops explicit zeros (dia_tocsr), so "
                                 "the stored count depends on the values of the diagonals")
    nnz = max_nnz
    get_index_dtype_temporaries()
    idx_dtype = index_dtype(max(nnz, n_rows, n_cols))
    csr_data = prune(csr_data[:nnz])
    indices = prune(indices[:nnz].astype(idx_dtype, copy=False))
    indptr = indptr.astype(idx_dtype, copy=False)
    return csr_data, indices, indptr, order


def dia_transpose_arrays(shape: tuple, data: Any, offsets: Any) -> tuple[Any, Any, tuple]:
    """_dia.transpose: the data re-aligned by a gather (of the data padded to the larger
    dimension), the negated offsets, and the gather's index arrays (locals of transpose
    alive until it returns). NumPy calls: run in a mode."""
    num_rows, num_cols = shape
    max_dim = max(shape)
    offsets = -offsets
    r = np.arange(len(offsets), dtype=np.intc)[:, None]
    c = np.arange(num_rows, dtype=np.intc) - (offsets % max_dim)[:, None]
    pad_amount = max(0, max_dim - data.shape[1])
    data = np.hstack((data, np.zeros((data.shape[0], pad_amount), dtype=data.dtype)))
    return data[r, c], offsets, (r, c)


def coo_sum_duplicates_arrays(coords: tuple, data: Any, nnz: int) -> tuple[tuple, Any]:
    """_coo._sum_duplicates of coordinates known to be distinct: sorted in C order by a
    lexsort gather, the unique mask (all true), its nonzero indices and the reduceat of the
    data, each of the stored count. Returns the new (coords, data). NumPy calls: run in a
    mode."""
    order = np.lexsort(coords[::-1])
    coords = tuple(idx[order] for idx in coords)
    data = data[order]
    # the ufunc makes one array of the list first: np.stack allocates it the same
    unique_mask = np.logical_or.reduce(np.stack([idx[1:] != idx[:-1] for idx in coords]))
    unique_mask = np.append(True, unique_mask)
    # idx[unique_mask] (every element kept): a new array of each
    coords = tuple(np.empty(nnz, dtype=idx.dtype) for idx in coords)
    unique_inds = np.empty(nnz, dtype=np.intp)  # np.nonzero(unique_mask)
    new_data = np.empty(nnz, dtype=data.dtype)  # np.add.reduceat(data, unique_inds)
    del order, unique_mask, unique_inds
    return coords, new_data


def diags_data(diags: list, diags_in: list, ks: list, shape: tuple,
               dtype: Any) -> tuple[Any, Any]:
    """scipy/sparse/_construct.py diags_array's data array: zeros of (len(offsets), M),
    each diagonal written at its offset's columns; and whether every stored element is
    known nonzero (None when unknown). ``diags``: the diagonals as arrays (``diags_in``, as
    given). NumPy calls: run in a mode."""
    m, n = shape
    M = max([min(m + k, n - k) + max(0, k) for k in ks])
    M = max(0, M)
    data_arr = np.zeros((len(ks), M), dtype=dtype)
    K = min(m, n)
    zf: bool | None = True
    for j, diagonal in enumerate(diags):
        k = ks[j]
        start = max(0, k)
        length = min(m + k, n - k, K)
        if length < 0:
            raise ValueError(f"Offset {k} (index {j}) out of bounds")
        try:
            data_arr[j, start:start + length] = diagonal[..., :length]
        except ValueError as e:
            if len(diagonal) != length and len(diagonal) != 1:
                raise ValueError(
                    f"Diagonal length (index {j}: {len(diagonal)} at"
                    f" offset {k}) does not agree with array size ({m}, {n}).") from e
            raise
        if length > 0:
            z = zero_free(diags_in[j] if not is_fake(diagonal) else diagonal, length)
            if z is None or z is False:
                zf = z if zf is not False else False
                if z is None and zf is not False:
                    zf = None
    # the casts to the data dtype may make a nonzero value zero (0.5 to int)
    if zf and np.dtype(dtype).kind in "iub" and any(
            np.dtype(dtype_of(d)).kind in "fc" for d in diags):
        zf = None
    return data_arr, zf
