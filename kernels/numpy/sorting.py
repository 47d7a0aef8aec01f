"""Sorting and searching: sort, argsort, searchsorted, partition, argpartition
(numpy/_core/fromnumeric.py; the C in numpy/_core/src/multiarray/item_selection.c and
numpy/_core/src/npysort/)."""
from __future__ import annotations
from typing import Any
import numpy as np
from numpy._core import _internal
from ..._errors import UnsupportedOperationError
from ...layout import c_strides
from ... import converters
from ...meta import ArrayMeta, as_meta, check_writeable
from ..registry import pyarray_return, register, scratch, transient, unmodelled
from .misc import INTP, RADIX, WEAK, k_copy
from .temporaries import asarray_bytes
import warnings
from ..._errors import DataDependentError
from ..._numpy_version import DEPRECATIONS_EXPIRED_23
from ...layout import normalize_axis
from ._common import BOOL, c_fresh
from .reductions import final_result, like_copy

_INTP = np.dtype(np.intp)
# --- sorting ----------------------------------------------------------------------

def _sort_args(m: Any, axis: Any, kind: Any, order: Any, stable: Any,
               strict_axis: bool = False) -> int:
    """Checks of sort / argsort arguments; the axis (``ndarray.sort`` takes a bool as an
    axis, ``argsort``'s PyArray_AxisConverter does not: ``strict_axis``)."""
    converters.sortkind(kind)  # the arguments are parsed before they are checked together
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameter `stable` are mutually exclusive. Only "
                         "one of them can be used.")
    if order is not None and m.dtype.names is None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if m.dtype.names is not None and order is not None:
        # methods.c array_sort / array_argsort: NumPy's own helper
        vars(_internal)["_newnames"](m.dtype, order)  # (private: not in the stubs)
    if m.dtype.hasobject:
        # OBJECT_compare calls Python's comparisons: an error they raise is set during the
        # sort and raised after it (gh-3879), and which pairs are compared is the values'
        raise UnsupportedOperationError(np.sort, f"sorting {m.dtype} arrays (Python objects "
                                        "compared: whether it raises depends on the values)")
    if strict_axis:
        return converters.axis(axis, m.ndim)
    return converters.axis_index(axis, m.ndim)


def _start(m: Any) -> int:
    """The address of m's first element, modulo any alignment (a fresh array: 0)."""
    if isinstance(m, np.ndarray):
        return int(m.__array_interface__["data"][0])
    st = getattr(m, "storage", None)
    if st is not None:
        return int(st.alignment + m.storage_offset)
    if getattr(m, "view_of", None) is not None:
        return _start(m.view_of) + m.offset
    return 0


def struct_compare_copies(m: Any, axis: int, start: Any = None) -> None:
    """A structured sort compares with VOID_compare (arraytypes.c.src), which copies a field
    that is not aligned in either element into a small buffer from npy_alloc_cache (NumPy's
    data allocator) for each comparison: how many at once depends on which fields the values
    make it compare. When every field of every element is aligned (in the array, or in the
    contiguous aligned buffer _new_sortlike copies a lane into) no copy is made; otherwise
    the bytes are left unmodelled. ``start``: m's first address when m stands for a view
    of another array (a raveled argsort input)."""
    if m.dtype.names is None or m.shape[axis] <= 1 or 0 in m.shape:
        return  # unstructured void compares with memcmp (STRING_compare): no copy
    isz = m.dtype.itemsize
    if sort_buffer_bytes(m, axis, False):  # lanes are sorted in a fresh buffer
        start, steps = 0, [isz]
    else:
        start = _start(m) if start is None else start
        steps = [s for s, n in zip(m.strides, m.shape) if n > 1]
    if _field_copies(m.dtype, start, steps):
        unmodelled("a structured sort copies the unaligned or byte-swapped field(s) of the "
                   "two elements it compares (VOID_compare, npy_alloc_cache): bytes set by "
                   "the values")


def _field_copies(dt: np.dtype, start: int, steps: list) -> bool:
    """Whether VOID_compare (arraytypes.c.src) copies a field of ``dt`` for some comparison:
    a byte-swapped field, or one whose alignment the elements' addresses (``start`` plus a
    multiple of ``steps``) do not keep. A nested structure is compared by VOID_compare again
    on the field's own address; a subarray field (no fields of its own) by memcmp."""
    for fdt, off, *_ in (dt.fields or {}).values():
        al = fdt.alignment
        if not fdt.isnative and fdt.names is None and fdt.subdtype is None:
            return True
        if al > 1 and ((start + off) % al or any(s % al for s in steps)):
            return True
        if fdt.names is not None and _field_copies(fdt, start + off, steps):
            return True
    return False


def sort_buffer_bytes(m: Any, axis: int, arg: bool) -> int:
    """Data buffers of _new_sortlike / _new_argsortlike (item_selection.c) sorting ``m`` along
    ``axis``: one axis of values when it is not contiguous, aligned and native, and for
    argsort one axis of indices unless the C-ordered result's axis is contiguous. None
    for axes of length <= 1 or empty arrays."""
    n = m.shape[axis]
    if n <= 1 or 0 in m.shape:
        return 0
    isz = m.dtype.itemsize
    total = 0
    if m.strides[axis] != isz or not m.flags.aligned or not m.dtype.isnative:
        total += n * isz
    if arg and c_strides(m.shape, INTP.itemsize)[axis] != INTP.itemsize:
        total += n * INTP.itemsize
    return total


def kth_bytes(kth: Any) -> int:
    """partition_prep_kth_array (item_selection.c): ``kth`` as an array (PyArray_FromAny; an
    existing C-contiguous array is used as is) and its intp cast, always a new array."""
    k = np.asarray(kth)
    made = 0 if isinstance(kth, np.ndarray) and kth.flags.carray else k.nbytes
    return made + k.size * INTP.itemsize


def stable_sort_scratch(m: Any, axis: int, kind: Any, stable: Any, arg: bool) -> None:
    """Report the malloc'd merge buffer of a stable sort along ``axis``: timsort's (npysort
    timsort.cpp) grows to at most half a lane, values (or intp indices for argsort), and
    reaches it on unordered data, so this is the bound. Quicksort and heapsort sort in
    place; radix sorts (<= 16-bit integers) are not modelled."""
    if not (stable or (isinstance(kind, str) and kind[:1].lower() in "ms")):
        return
    if m.dtype.char in RADIX or 0 in m.shape or not m.ndim:
        return
    n = m.shape[axis]
    scratch((n // 2) * (INTP.itemsize if arg else m.dtype.itemsize))


@register("ndarray.sort", tags=("inplace",))
def ndarray_sort(self: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
                 stable: Any = None) -> None:
    """In place: checks only (and the axis buffer, see sort_buffer_bytes)."""
    ax = _sort_args(self, axis, kind, order, stable)
    check_writeable(self, "array")
    transient(sort_buffer_bytes(self, ax, False))
    stable_sort_scratch(self, ax, kind, stable, False)
    struct_compare_copies(self, ax)
    return None


@register(np.sort, tags=("copy",))
def sort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
         stable: Any = None) -> ArrayMeta:
    """A K-order copy (a C 1-d copy for axis=None).

    fromnumeric.py: ``asanyarray(a).copy(order="K")`` (or ``.flatten()``), then sorted in
    place: the array a sequence becomes dies once copied, before the sort's axis buffer."""
    m = as_meta(a)
    made = asarray_bytes(a)
    if axis is None:
        n = m.size
        flat = ArrayMeta((n,), m.dtype, (m.dtype.itemsize,))
        _sort_args(flat, -1, kind, order, stable)
        stable_sort_scratch(flat, 0, kind, stable, False)
        struct_compare_copies(flat, 0)
        transient(made)
        return ArrayMeta((n,), m.dtype, c_strides((n,), m.dtype.itemsize))
    c = k_copy(m)
    ax = _sort_args(c, axis, kind, order, stable)
    transient(max(made, sort_buffer_bytes(c, ax, False)))
    stable_sort_scratch(c, ax, kind, stable, False)
    struct_compare_copies(c, ax)
    return ArrayMeta(c.shape, c.dtype, c.strides)


@register(np.argsort, "ndarray.argsort", tags=("copy",))
def argsort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
            stable: Any = None) -> ArrayMeta:
    """A fresh C-contiguous intp array of the input's shape (flattened for axis=None); a
    sequence is made an array first (fromnumeric._wrapit), alive through the call."""
    m = as_meta(a)
    transient(asarray_bytes(a))
    if axis is None or m.ndim == 0:
        shape = (m.size,)
        if axis is not None:
            converters.axis(axis, 1)
        m2 = ArrayMeta(shape, m.dtype, (m.dtype.itemsize,))
        _sort_args(m2, -1, kind, order, stable)
        # PyArray_CheckAxis ravels: a C copy unless m is C-contiguous (0-d: a view)
        transient(0 if m.flags.c_contiguous else m.size * m.dtype.itemsize)
    else:
        shape = m.shape
        m2 = m
        _sort_args(m, axis, kind, order, stable, strict_axis=True)
    ax = -1 if axis is None else converters.axis(axis, m2.ndim)
    transient(sort_buffer_bytes(m2, ax, True))
    stable_sort_scratch(m2, ax, kind, stable, True)
    if m2 is m:
        struct_compare_copies(m, ax)
    else:  # the raveled input: a view of a C-contiguous one, else a fresh C copy
        struct_compare_copies(m2, ax, _start(m) if m.flags.c_contiguous else 0)
    dt = np.dtype(np.intp)
    return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))


def _check_sorter(s: Any, n: int) -> None:
    """PyArray_SearchSorted's sorter checks (numpy/_core/src/multiarray/item_selection.c),
    in its order: integer dtype, then one dimension and a safe cast to intp, then its size."""
    if s.dtype.kind not in "iu":
        raise TypeError("sorter must only contain integers")
    if s.ndim != 1:
        raise TypeError("could not parse sorter argument")
    if not np.can_cast(s.dtype, np.intp, "safe"):
        raise ValueError("could not parse sorter argument")
    if s.shape[0] != n:
        raise ValueError("sorter.size must equal a.size")


@register(np.searchsorted, "ndarray.searchsorted", tags=("copy",))
def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> ArrayMeta:
    """A fresh C-contiguous intp array of v's shape."""
    m = as_meta(a)
    vm = as_meta(v) if type(v) not in WEAK else np.asarray(v)
    converters.searchside(side)
    if m.ndim != 1:
        raise ValueError("object of too small depth for desired array" if m.ndim == 0
                         else "object too deep for desired array")
    if sorter is not None:
        _check_sorter(as_meta(sorter) if type(sorter) not in (list, tuple) else np.asarray(sorter),
                      m.shape[0])
    try:
        common = np.result_type(m.dtype, vm.dtype)
    except Exception as e:
        raise UnsupportedOperationError(np.searchsorted, f"mixed dtypes: {e}") from None
    # PyArray_SearchSorted (item_selection.c): v as a C-contiguous native array of the
    # common dtype; a aligned and native (C-contiguous too when v is the larger); sorter
    # aligned native intp
    copies = _from_any_bytes(vm, common, contiguous=True)
    copies += _from_any_bytes(m, common, contiguous=vm.size > m.size)
    if m.dtype != common:  # _wrapit's array of a sequence ``a`` (whose method is called),
        copies += asarray_bytes(a)  # beside its cast copy
    if sorter is not None:
        copies += _from_any_bytes(as_meta(sorter), INTP, contiguous=False)
    transient(copies)
    dt = np.dtype(np.intp)
    return pyarray_return(ArrayMeta(tuple(vm.shape), dt, c_strides(tuple(vm.shape), dt.itemsize)))


def _from_any_bytes(m: Any, dt: np.dtype, contiguous: bool) -> int:
    """PyArray_CheckFromAny(m, dt, NPY_ARRAY_ALIGNED | NOTSWAPPED [| C_CONTIGUOUS]): a new
    array unless ``m`` already is one (a real array here was made from a scalar or list)."""
    if isinstance(m, np.ndarray) or m.dtype != dt or not m.dtype.isnative or not (
            m.flags.aligned and (m.flags.c_contiguous or not contiguous)):
        return m.size * dt.itemsize
    return 0


def _values(x: Any, name: str) -> np.ndarray:
    """A small argument whose values matter (kth, bins, ...): real, never a fake."""
    if hasattr(x, "storage_offset"):
        raise DataDependentError(f"{name}: values of a fake array")
    return np.asarray(x)


# --- partition, argpartition ----------------------------------------------------------------

def _kth_check(kth: Any, shape: tuple, axis: int) -> None:
    """partition_prep_kth_array (item_selection.c): bool/int checks, rank, bounds."""
    k = _values(kth, "np.partition")
    if k.dtype == BOOL:
        if DEPRECATIONS_EXPIRED_23:
            raise ValueError("Booleans unacceptable as partition index")
        warnings.warn("Passing booleans as partition index is deprecated (warning added in "
                      "NumPy 1.22)", DeprecationWarning, stacklevel=2)
        k = k.astype(_INTP)
    if k.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if k.ndim > 1:
        raise ValueError("kth array must have dimension <= 1")
    n = shape[axis]
    size = 1
    for d in shape:
        size *= d
    for i in k.reshape(-1).astype(np.intp):
        v = int(i) + n if i < 0 else int(i)
        if size and not 0 <= v < n:
            raise ValueError(f"kth(={v}) out of bounds ({n})")


def _sortable(m: Any, order: Any, name: str) -> None:
    if order is not None and m.dtype.names is None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if m.dtype.kind in "OV":
        raise UnsupportedOperationError(name, f"dtype {m.dtype}")


def _partitioned(m: Any, kth: Any, axis: Any, kind: Any = "introselect",
                 order: Any = None) -> ArrayMeta:
    """np.partition's copy (flatten for axis None, else a K-order copy), checked."""
    if axis is None:
        part = c_fresh((m.size,), m.dtype)
        ax = 0
    else:
        part = like_copy(m)
        ax = normalize_axis(axis, part.ndim)
    converters.selectkind(kind)
    _sortable(part, order, "np.partition")
    _kth_check(kth, part.shape, ax)
    transient(kth_bytes(kth) + sort_buffer_bytes(part, ax, False))
    return part


@register(np.partition, tags=("copy",))
def partition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
              order: Any = None) -> ArrayMeta:
    """np.partition: a K-order copy (C 1-d for axis None) partitioned in place."""
    return final_result(_partitioned(as_meta(a), kth, axis, kind, order))


partition.keep_real = (1, "kth")


@register(np.argpartition, tags=("copy",))
def argpartition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
                 order: Any = None) -> ArrayMeta:
    """ndarray.argpartition: fresh C intp of the input's shape (0-d and axis None: 1-d)."""
    m = as_meta(a)
    if axis is None or m.ndim == 0:
        shape = (m.size,)
        ax = converters.axis_index(-1 if axis is None else axis, 1, None, False,
                                   "an integer is required for the axis")
    else:
        shape = m.shape
        ax = converters.axis(axis, m.ndim)
    converters.selectkind(kind)
    _sortable(m, order, "np.argpartition")
    _kth_check(kth, shape, ax)
    if axis is None or m.ndim == 0:  # PyArray_CheckAxis ravels: a copy unless C-contiguous
        flat = c_fresh(shape, m.dtype)
        transient(0 if m.flags.c_contiguous else m.size * m.dtype.itemsize)
    else:
        flat = m
    transient(kth_bytes(kth) + sort_buffer_bytes(flat, ax, True))
    return ArrayMeta(shape, _INTP, c_strides(shape, _INTP.itemsize))


argpartition.keep_real = (1, "kth")


@register("ndarray.partition", tags=("inplace",))
def ndarray_partition(self: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
                      order: Any = None) -> None:
    """In place (array_partition, numpy/_core/src/multiarray/methods.c, then
    PyArray_Partition in item_selection.c): kind and order first, then the axis (an int,
    never None), the writeable check, the kth checks; the sort buffer of a strided axis
    (see sort_buffer_bytes) and the kth array are the call's transients."""
    converters.selectkind(kind)
    if axis is None or isinstance(axis, (float, complex)):
        raise TypeError(f"{type(axis).__name__!r} object cannot be interpreted as an integer")
    _sortable(self, order, "ndarray.partition")
    ax = converters.axis(axis, self.ndim)
    check_writeable(self, "partition array")
    _kth_check(kth, self.shape, ax)
    transient(kth_bytes(kth) + sort_buffer_bytes(self, ax, False))
    return None


ndarray_partition.keep_real = (1, "kth")
register("ndarray.argpartition", tags=("copy",))(argpartition)  # np.argpartition calls it
