"""Indexing kernels: ``ndarray.__getitem__`` / ``__setitem__``, take, take_along_axis, put,
compress, and the ops whose result shape depends on values (nonzero & co.).

The rules follow NumPy's ``mapping.c`` (``prepare_index``, ``get_view_from_index``,
``PyArray_MapIterNew``) and ``item_selection.c``. Index arrays whose values are known
(Python ints and lists, real ndarrays) are checked exactly. A fake integer index array
has no values: its result metadata is exact provided its indices are in bounds (an
out-of-bounds fake index is reported only where any index at all would be out of bounds,
i.e. on an axis of length 0). A fake boolean mask raises ``DataDependentError`` since the
result shape depends on how many entries are True.
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy as np

from .convert_datatype import cast_loop, check_value_cast, legacy_cast_bytes
from ..._errors import DataDependentError, UnsupportedOperationError
from ..._storage import SCALAR
from ...layout import (attempt_nocopy_reshape, c_strides, contiguity, extent, f_strides,
                     iterator_order, like_strides, normalize_axis, sorted_stride_perm,
                     strides_in_order, try_broadcast)
from ... import _known, _sizes, converters
from ...meta import ArrayMeta, as_meta, is_fake, is_meta
from ...converters import Casting
from .queries import stand_in
from .temporaries import along_axis_bytes, array_bytes, asarray_bytes, carray_bytes, copyto_bytes
from ..registry import REGISTRY, keep_real, pyarray_return, register, transient, uncached

INTP = np.dtype(np.intp)
MAXDIMS = 64

# entry kinds, as mapping.h numbers them
INTEGER, NEWAXIS, SLICE, ELLIPSIS, FANCY, BOOL, SCALAR_ARRAY = 1, 2, 4, 8, 16, 32, 64
BOOL0D = FANCY | 128

_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
              "integer or boolean arrays are valid indices")


# An index array (``is_meta``) is a fake or a fresh ArrayMeta, values unknown, or a real
# ndarray, values known (``_values``).

def _values(arr: Any) -> np.ndarray | None:
    """The values of an index array: a real ndarray's own, a fake's when known (its content,
    faketensor/_known.py; the result then depends on values, so it is not cached), None for
    other fakes and ArrayMetas."""
    if isinstance(arr, np.ndarray):
        return arr
    if is_fake(arr) and _known.has_values(arr):
        r = _known.real(arr)
        if r is not None:
            uncached()
        return r
    return None


def _fresh_intp(shape: tuple) -> ArrayMeta:
    """A fresh C-contiguous intp index array of unknown values."""
    return ArrayMeta(shape, INTP, c_strides(shape, INTP.itemsize))


def _has_fake(obj: Any) -> bool:
    if is_fake(obj):
        return True
    if type(obj) in (list, tuple):
        if len(obj) > 64 and _NUMBERS.issuperset(map(type, obj)):
            return False  # a long list of numbers: tested at C speed
        return any(_has_fake(x) for x in obj)
    return False


_NUMBERS = frozenset({int, float, bool, complex})


def _check_index_array_count(entries: list, shape: tuple) -> None:
    """NumPy's limits on index arrays (0-d booleans count one each): more than NPY_MAXDIMS is
    refused by prepare_index; NPY_MAXARGS - 1 = 63 is the most mapiter takes when there is no
    subspace, i.e. when the dimensions no index array or integer consumes hold one element."""
    n = sum(1 for e in entries if e[0] in (FANCY, BOOL0D))
    if n > MAXDIMS:
        raise IndexError("too many advanced (array) indices. This probably means you are indexing "
                         f"with too many booleans. (more than {MAXDIMS} found)")
    if n < MAXDIMS:
        return
    if any(e[0] == SLICE for e in entries):
        raise UnsupportedOperationError("ndarray.__getitem__", f"{n} index arrays with slices")
    d = 0
    rest = 1
    for kind, val, _ in entries:
        if kind in (INTEGER, FANCY):
            d += 1
        elif kind == ELLIPSIS:
            rest *= math.prod(shape[d:d + val])
            d += val
    rest *= math.prod(shape[d:])
    if rest <= 1:
        raise IndexError("when no subspace is given, the number of index arrays cannot be above "
                         f"{MAXDIMS - 1}, but {n} index arrays found")


def _intp_or_none(obj: Any) -> int | None:
    """PyArray_PyIntAsIntp for a non-array index: the integer, or None where NumPy fails."""
    if isinstance(obj, (bool, np.bool_)):
        return None
    try:
        v = operator.index(obj)
    except Exception:
        return None
    if not -(1 << 63) <= v < (1 << 63):
        return None
    return v


class RangeIndex(np.ndarray):
    """A ``range`` used as an index array, in O(1): a zero-byte intp stand-in of its length
    (every element reads 0) that carries the range's ``extremes`` (lowest, highest) for the
    bounds checks, the only use of an index's values here (``check_fancy_bounds``). NumPy
    converts the range element by element into an intp array; so did this rule, at 0.1 us
    per element and per use."""

    extremes: tuple | None


def _range_index(r: range) -> RangeIndex:
    n = len(r)
    arr = np.lib.stride_tricks.as_strided(np.zeros(1, INTP), (n,), (0,), writeable=False)
    out = arr.view(RangeIndex)
    out.extremes = None if not n else (r[0], r[-1]) if r.step > 0 else (r[-1], r[0])
    return out


def _extremes(vals: np.ndarray) -> tuple:
    """(lowest, highest) value of a non-empty index array."""
    ext = getattr(vals, "extremes", None)
    return ext if ext is not None else (int(vals.min()), int(vals.max()))


def converted_bytes(obj: Any) -> int:
    """Bytes of the array NumPy makes from an index that is not an array (a range, a list or
    tuple of ints: PyArray_FromAny, alive while the indexing runs); 0 for arrays."""
    if type(obj) is range:
        return len(obj) * INTP.itemsize
    if type(obj) in (list, tuple) and obj:
        first = obj[0]
        if type(first) is int or isinstance(first, np.integer):
            return len(obj) * INTP.itemsize
        if _bool_list(obj):
            return len(obj)
    return 0


def _bool_list(obj: Any) -> bool:
    """A list (or tuple inside a tuple index) of Python or NumPy booleans: NumPy makes a
    1-d bool array of it."""
    return type(obj) in (list, tuple) and bool(obj) and all(
        type(v) is bool or isinstance(v, np.bool_) for v in obj)


def freed_bool_lists(shape: tuple, key: Any) -> int:
    """Bytes of the bool arrays NumPy makes of boolean lists that prepare_index replaces by
    their positions at once (all but one list mask of the array's own 1-d shape): freed
    before the result is made."""
    keys = key if type(key) is tuple else (key,)
    if len(keys) == 1 and len(shape) == 1 and _bool_list(keys[0]) and len(keys[0]) == shape[0]:
        return 0
    return sum(len(k) for k in keys if _bool_list(k))


def _as_index_array(obj: Any) -> Any:
    """PyArray_FROM_O for an index that is not an array (empty ones become intp)."""
    if type(obj) is range:
        return _range_index(obj)
    if _has_fake(obj):
        raise UnsupportedOperationError("ndarray.__getitem__",
                                        "a list index containing fake arrays")
    arr = np.asarray(obj)
    if arr.size == 0:
        try:
            arr = arr.astype(INTP, casting="unsafe")
        except ValueError:
            raise IndexError(_BAD_INDEX) from None
    return arr


def _scalar_value(arr: Any) -> int | None:
    """The value of a 0-d integer index array (None for a fake)."""
    if not isinstance(arr, np.ndarray):
        return None
    v = int(arr)
    if not -(1 << 63) <= v < (1 << 63):
        raise OverflowError("Python int too large to convert to C long")
    return v


class Parsed:
    """A prepared index: entries [kind, value, object], index_type, dims, data-dependence."""

    __slots__ = ("entries", "index_type", "ndim", "fancy_ndim", "datadep")

    def __init__(self, entries, index_type, ndim, fancy_ndim, datadep):
        self.entries = entries
        self.index_type = index_type
        self.ndim = ndim
        self.fancy_ndim = fancy_ndim
        self.datadep = datadep


def parse_index(shape: tuple, key: Any) -> Parsed:
    """NumPy's prepare_index: classify each index, expand booleans, check everything but bounds."""
    nd = len(shape)
    if type(key) is tuple:
        raw = key
    elif isinstance(key, tuple):
        raw = tuple(key)
    else:
        raw = (key,)
    if len(raw) > 2 * MAXDIMS:
        raise IndexError("too many indices for array")
    entries: list = []
    itype = 0
    used = new = fancy_nd = 0
    ell = -1
    datadep = None
    for obj in raw:
        if len(entries) > 2 * MAXDIMS:
            raise IndexError("too many indices for array")
        if obj is Ellipsis:
            if itype & ELLIPSIS:
                raise IndexError("an index can only have a single ellipsis ('...')")
            itype |= ELLIPSIS
            ell = len(entries)
            entries.append([ELLIPSIS, 0, None])
            continue
        if obj is None:
            itype |= NEWAXIS
            entries.append([NEWAXIS, 0, None])
            new += 1
            continue
        if type(obj) is slice:
            itype |= SLICE
            entries.append([SLICE, 0, obj])
            used += 1
            new += 1
            continue
        is_arr = is_meta(obj)
        if nd != 0 and (type(obj) is int or not is_arr):
            v = _intp_or_none(obj)
            if v is not None:
                itype |= INTEGER
                entries.append([INTEGER, v, None])
                used += 1
                continue
        arr = obj if is_arr else _as_index_array(obj)
        kind = arr.dtype.kind
        if kind == "b":
            if len(raw) == 1 and arr.ndim == nd and tuple(arr.shape) == tuple(shape):
                return Parsed([[BOOL, 0, arr]], BOOL, 1, nd, None)
            if arr.ndim == 0:
                itype |= FANCY
                vals = _values(arr)
                if vals is None:  # an axis of length 1 or 0: a bounded size 0 <= k <= 1
                    k = _sizes.make(0, 1, "a 0-d boolean index", arr)
                    uncached()
                    entries.append([BOOL0D, k, _fresh_intp((k,))])
                else:
                    n = 1 if bool(vals) else 0
                    entries.append([BOOL0D, n, np.zeros(n, INTP)])
                fancy_nd = max(fancy_nd, 1)
                continue
            vals = _values(arr)
            if vals is not None:
                parts: list[Any] = list(np.nonzero(vals))
            elif arr.size == 0:
                parts = [np.zeros(0, INTP) for _ in range(arr.ndim)]
            else:  # a bounded size (faketensor/_sizes.py): nonzero's count, 0 <= k <= size
                k = mask_count(arr)
                parts = [_fresh_intp((k,)) for _ in range(arr.ndim)]
            if len(entries) + len(parts) >= 2 * MAXDIMS:
                raise IndexError("too many indices for array")
            itype |= FANCY
            for i, p in enumerate(parts):
                entries.append([FANCY, arr.shape[i], p])
                used += 1
            fancy_nd = max(fancy_nd, 1)
            continue
        if kind in "iu":
            if arr.ndim == 0:
                v = _scalar_value(arr)
                itype |= INTEGER | SCALAR_ARRAY
                entries.append([INTEGER, v, None])
                used += 1
                continue
            fancy_nd = max(fancy_nd, arr.ndim)
            itype |= FANCY
            entries.append([FANCY, -1, arr])
            used += 1
            continue
        if is_arr:
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        raise IndexError(_BAD_INDEX)

    if used < nd:
        if itype & ELLIPSIS:
            entries[ell][1] = nd - used
            new += nd - used
        else:
            itype |= ELLIPSIS
            entries.append([ELLIPSIS, nd - used, None])
            new += nd - used
    elif used > nd:
        raise IndexError(f"too many indices for array: array is {nd}-dimensional, "
                         f"but {used} were indexed")
    elif len(raw) == 0:
        itype = INTEGER
    _check_index_array_count(entries, shape)
    if itype & SCALAR_ARRAY:
        if itype & FANCY or itype == INTEGER | SCALAR_ARRAY:
            itype -= SCALAR_ARRAY
    if itype & (NEWAXIS | FANCY):
        if new + fancy_nd > MAXDIMS:
            raise IndexError(f"number of dimensions must be within [0, {MAXDIMS}], "
                             f"indexing result would have {new + fancy_nd}")
        u = 0
        for kind, val, _ in entries:
            if kind == FANCY and val > 0 and val != shape[u]:
                raise IndexError(
                    f"boolean index did not match indexed array along axis {u}; size of "
                    f"axis is {shape[u]} but size of corresponding boolean axis is {val}")
            if kind == ELLIPSIS:
                u += val
            elif kind not in (NEWAXIS, BOOL0D):
                u += 1
    return Parsed(entries, itype, new + fancy_nd, fancy_nd, datadep)


def _check_index(v: int, n: int, axis: int) -> int:
    if v < -n or v >= n:
        raise IndexError(f"index {v} is out of bounds for axis {axis} with size {n}")
    return v + n if v < 0 else v


def view_from_index(shape: tuple, strides: tuple, p: Parsed) -> tuple:
    """get_view_from_index: (shape, strides, byte offset or None when unknown)."""
    nshape: list = []
    nstrides: list = []
    off: int | None = 0
    d = 0
    for kind, val, obj in p.entries:
        if kind == INTEGER:
            n = shape[d]
            if val is None:
                if n == 0:
                    raise IndexError(f"index 0 is out of bounds for axis {d} with size 0")
                off = None
            else:
                i = _check_index(val, n, d)
                if off is not None:
                    off += strides[d] * i
            d += 1
        elif kind == ELLIPSIS:
            for _ in range(val):
                nshape.append(shape[d])
                nstrides.append(strides[d])
                d += 1
        elif kind == SLICE:
            start, stop, step = obj.indices(shape[d])
            n = len(range(start, stop, step))
            if n <= 0:
                n, step, start = 0, 1, 0
            elif n == shape[d]:
                n = shape[d]  # the whole axis: a data-dependent length stays one (_sizes.py)
            if off is not None:
                off += strides[d] * start
            nshape.append(n)
            nstrides.append(strides[d] * step)
            d += 1
        elif kind == NEWAXIS:
            nshape.append(1)
            nstrides.append(0)
        elif kind == BOOL0D:
            pass
        else:
            d += 1
    return tuple(nshape), tuple(nstrides), off


def _fancy_operands(p: Parsed) -> list:
    return [obj for kind, _, obj in p.entries if kind & FANCY]


def fancy_shape(p: Parsed) -> tuple:
    """Broadcast shape of the index arrays (mapiter_fill_info), or NumPy's IndexError."""
    ops = _fancy_operands(p)
    if not ops:
        return ()
    dims = try_broadcast([tuple(o.shape) for o in ops])
    if dims is None:
        desc = "".join(str(tuple(o.shape)).replace(",)", ")").replace(" ", "") + " " for o in ops)
        raise IndexError("shape mismatch: indexing arrays could not be broadcast "
                         f"together with shapes {desc}")
    return dims


def check_fancy_bounds(shape: tuple, p: Parsed, fshape: tuple) -> None:
    """Index values in bounds (known values; a fake only fails on an empty axis).

    NumPy checks nothing when the index arrays broadcast to an empty shape.
    """
    if 0 in fshape:
        return
    d = 0
    for kind, val, obj in p.entries:
        if kind == FANCY:
            n = shape[d]
            vals = _values(obj)
            if vals is not None and vals.size:
                lo, hi = _extremes(vals)
                if lo < -n:
                    _check_index(lo, n, d)
                if hi >= n:
                    _check_index(hi, n, d)
            elif vals is None and n == 0 and obj.size:
                raise IndexError(f"index 0 is out of bounds for axis {d} with size 0")
            d += 1
        elif kind == ELLIPSIS:
            d += val
        elif kind in (INTEGER, SLICE):
            d += 1


def _consec(p: Parsed) -> int:
    """Where the advanced-index dims go in the result (0: at the front)."""
    status = -1
    consec = 0
    rdim = 0
    for kind, val, _ in p.entries:
        if kind & (FANCY | INTEGER):
            if status == -1:
                consec = rdim
                status = 0
            elif status == 1:
                status = 2
                consec = 0
        elif status == 0:
            status = 1
        if kind == ELLIPSIS:
            rdim += val
        elif kind & FANCY:
            pass
        else:
            rdim += 1
    return consec


def _dense_or_zero(shape: tuple, strides: tuple) -> tuple:
    return (0,) * len(shape) if 0 in shape else tuple(strides)


def fancy_layout(p: Parsed, itemsize: int, view: tuple | None) -> tuple:
    """(shape, strides, base_shape) of an advanced-indexing result (array_subscript).

    ``view`` is the subspace (shape, strides) or None when there is no subspace.
    """
    fshape = fancy_shape(p)
    ops = _fancy_operands(p)
    # the 1-d fast path (mapiter_trivial_get)
    if p.index_type == FANCY and len(p.entries) == 1:
        ind = ops[0]
        fl = ind.flags
        c, f = fl.c_contiguous, fl.f_contiguous
        if ((ind.ndim <= 1 or c or f) and ind.dtype.itemsize == INTP.itemsize
                and ind.dtype.kind == "i" and fl.aligned and ind.dtype.isnative):
            shp = tuple(ind.shape)
            st = f_strides(shp, itemsize) if (f and not c) else c_strides(shp, itemsize)
            return shp, st, None
    operands = [(o.shape, o.strides) for o in ops]
    if view is None:
        perm = iterator_order(fshape, operands)
        return fshape, strides_in_order(fshape, itemsize, perm), None
    sshape, sstrides = view
    ssize = math.prod(sshape)
    if ssize == 1:
        perm = iterator_order(fshape, operands)
        fst = list(strides_in_order(fshape, itemsize, perm))
    else:
        fst = [0] * len(fshape)
        s = itemsize * ssize
        for i in range(len(fshape) - 1, -1, -1):
            fst[i] = s
            s *= fshape[i]
    sst = strides_in_order(sshape, itemsize, sorted_stride_perm(sstrides)[::-1])
    eshape = fshape + sshape
    estrides = _dense_or_zero(eshape, tuple(fst) + sst)
    consec = _consec(p)
    if not consec:
        return eshape, estrides, None
    n1, n2, n3 = len(fshape), consec, len(eshape)
    perm = list(range(n1, n1 + n2)) + list(range(n1)) + list(range(n1 + n2, n3))
    return (tuple(eshape[i] for i in perm), tuple(estrides[i] for i in perm), eshape)


def _field_view(self: Any, key: str) -> ArrayMeta:
    fields = self.dtype.fields
    if key not in fields:
        raise ValueError(f"no field of name {key}")
    dt, off = fields[key][:2]
    shape, strides = tuple(self.shape), tuple(self.strides)
    if dt.subdtype is not None:
        base, sub = dt.subdtype
        shape += sub
        strides += c_strides(sub, base.itemsize) if 0 not in sub else (0,) * len(sub)
        dt = base
    return ArrayMeta(shape, dt, strides, view_of=self, offset=off)


def _structured_key(self: Any, key: Any) -> bool:
    if self.dtype.names is None:
        return False
    if isinstance(key, str):
        return True
    if type(key) is list and key and all(isinstance(k, str) for k in key):
        raise UnsupportedOperationError("ndarray.__getitem__", "multi-field indexing")
    return False


def mask_count(mask: Any) -> int:
    """How many entries of a fake boolean mask of unknown values are true: a bounded size
    ``0 <= k <= mask.size`` (faketensor/_sizes.py), the same object for the same unwritten
    mask. The result depends on the mask's identity, so the call is not cached."""
    uncached()
    return _sizes.make(0, mask.size, "a boolean mask", mask)


def _datadep(what: str) -> DataDependentError:
    return DataDependentError(f"indexing with {what} of a fake array: the result shape "
                              "depends on its values")


# --- __getitem__ -------------------------------------------------------------------


def getitem(self: Any, key: Any) -> ArrayMeta:
    """``self[key]`` for basic and advanced indices."""
    if _structured_key(self, key):
        return _field_view(self, key)
    shape = tuple(self.shape)
    p = parse_index(shape, key)
    dt = self.dtype
    it = p.index_type
    if it == BOOL:
        mask = p.entries[0][2]
        known = _values(mask)
        if known is not None:
            n = int(np.count_nonzero(known))
        elif mask.size == 0:
            n = 0
        else:
            n = mask_count(mask)
        return ArrayMeta((n,), dt, c_strides((n,), dt.itemsize))
    if it == INTEGER:
        _, _, off = view_from_index(shape, self.strides, p)
        if dt.kind == "O":
            raise DataDependentError("a single element of an object array is a Python object "
                                     "that a fake array does not have")
        if dt.kind == "V" and off is not None:  # a record (np.void) views its array
            return ArrayMeta((), dt, (), view_of=self, offset=off)
        # array_item (mapping.c): PyArray_Scalar copies the element into a NumPy scalar,
        # in native byte order; no array is made on the way
        return ArrayMeta((), dt if dt.isnative or dt.kind in "VOUS" else dt.newbyteorder("="),
                         (), scalar=True)
    if it == ELLIPSIS:
        return ArrayMeta(shape, dt, tuple(self.strides), view_of=self, offset=0)
    view = None
    if it & (SLICE | NEWAXIS | ELLIPSIS | INTEGER):
        vshape, vstrides, off = view_from_index(shape, self.strides, p)
        view = (vshape, vstrides)
        if it & SCALAR_ARRAY:
            c, f = contiguity(vshape, vstrides, dt.itemsize)
            return ArrayMeta(vshape, dt, like_strides(vshape, vstrides, dt.itemsize, c, f))
        if not it & FANCY:
            return ArrayMeta(vshape, dt, vstrides, view_of=self, offset=off)
    if p.datadep:
        raise _datadep(p.datadep)
    rshape, rstrides, base_shape = fancy_layout(p, dt.itemsize, view)
    check_fancy_bounds(shape, p, fancy_shape(p))
    return ArrayMeta(rshape, dt, rstrides, base_shape=base_shape)


def bool_index_bytes(shape: tuple, key: Any) -> int:
    """The intp arrays prepare_index (mapping.c) makes of the boolean arrays of an index
    other than one mask of the array's own shape: PyArray_Nonzero's (count, ndim) positions,
    alive while the indexing runs; the count is known or a bounded size (``mask_count``)."""
    keys = key if type(key) is tuple else (key,)
    total = 0
    for k in keys:
        if isinstance(k, (bool, np.bool_)):  # a 0-d boolean of a known value
            if len(keys) == 1 and not shape:  # of a 0-d array: its mask, made a 0-d array
                return 1
            total += INTP.itemsize if k else 1
            continue
        if _bool_list(k):  # made a 1-d bool array: its positions, unless it is the mask
            if len(keys) == 1 and len(shape) == 1 and len(k) == shape[0]:
                return 0
            total += max(sum(map(bool, k)) * INTP.itemsize, 1)
            continue
        if not (is_meta(k) or isinstance(k, np.ndarray)) or k.dtype.kind != "b":
            continue
        if len(keys) == 1 and k.ndim == len(shape) and tuple(k.shape) == tuple(shape):
            return 0  # one mask of the array's shape: array_boolean_subscript, no positions
        if k.ndim == 0:  # a 0-d boolean: a 1-d intp array of length 1 or 0 (a bounded size)
            vals = _values(k)
            n = (1 if bool(vals) else 0) if vals is not None else _sizes.make(
                0, 1, "a 0-d boolean index", k)
            total += max(n * INTP.itemsize, 1)
            continue
        if k.size == 0:
            n = 0
        else:
            vals = _values(k)
            n = int(np.count_nonzero(vals)) if vals is not None else mask_count(k)
        total += max(n * k.ndim * INTP.itemsize, 1)
    return total


def getitem_op(self: Any, key: Any) -> ArrayMeta:
    """``ndarray.__getitem__``: ``getitem`` and the index arrays NumPy makes from ranges,
    lists and boolean arrays (alive while the result is made)."""
    res = getitem(self, key)
    if type(res) is ArrayMeta and res.view_of is None and not res.scalar:
        shape = tuple(self.shape)
        freed = freed_bool_lists(shape, key)  # alive with the positions, not the result
        transient(sum(converted_bytes(k) for k in (key if type(key) is tuple else (key,)))
                  - freed + bool_index_bytes(shape, key)
                  + max(0, freed - array_bytes(tuple(res.shape), res.dtype)))
    return res


keep_real(getitem_op, 1)
register("ndarray.__getitem__", tags=("view", "copy"))(getitem_op)


# --- __setitem__ -------------------------------------------------------------------


def assign_copy_bytes(dst: Any, shape: tuple, strides: tuple, offset: int, src: Any) -> int:
    """PyArray_AssignArray (array_assign_array.c): a source whose extent overlaps the
    destination's is first copied into a temporary like the destination (K order, its
    dtype), unless both are the same array or both are 1-d and stride the same way."""
    st = getattr(dst, "storage", None)
    if st is None or not is_fake(src) or src.storage is not st or src.ndim == 0:
        return 0
    uncached()  # overlap depends on offsets, which the kernel cache does not key on
    return self_copy_bytes(dst.dtype, shape, strides, offset,
                           src.dtype, src.shape, src.strides, src.storage_offset)


def self_copy_bytes(dt: np.dtype, shape: tuple, strides: tuple, offset: int,
                    sdt: np.dtype, sshape: tuple, sstrides: tuple, soffset: int) -> int:
    """``dst[...] = src`` for two views of one buffer (byte offsets from its start): the
    bytes of the temporary like the destination that an overlapping source is copied into
    first, or 0 (see ``assign_copy_bytes``)."""
    if (soffset == offset and tuple(sshape) == tuple(shape)
            and tuple(sstrides) == tuple(strides) and sdt == dt):
        return 0
    nd = len(shape)
    if not (nd > 1 or dt.names is not None or (nd == 1 and strides[0] * sstrides[-1] < 0)):
        return 0
    lo, hi = extent(shape, strides, dt.itemsize)
    slo, shi = extent(sshape, sstrides, sdt.itemsize)
    lo, hi, slo, shi = lo + offset, hi + offset, slo + soffset, shi + soffset
    if lo >= shi or slo >= hi or lo == hi or slo == shi:
        return 0
    return math.prod(shape) * dt.itemsize


_VALUE_DEPENDENT_SRC = "OUSV"
_STANDIN_MAX = 1 << 20


def _check_cast_fake(value: Any, dst: np.dtype, dummies: bool = True) -> None:
    if value.dtype != dst and "V" in (value.dtype.kind, dst.kind):
        raise UnsupportedOperationError("ndarray.__setitem__", "casting to or from void dtypes")
    check_value_cast(value, dst)
    cast_loop(value.dtype, dst, dummies=dummies)  # the assignment's cast loop (convert_datatype.py)


def _check_cast_real(value: np.ndarray, dst: np.dtype, dummies: bool = True) -> None:
    if value.size and value.dtype.kind in _VALUE_DEPENDENT_SRC and value.dtype != dst:
        if value.size > _STANDIN_MAX:
            raise UnsupportedOperationError("ndarray.__setitem__",
                                            f"checking a cast of {value.size} real values")
        value.astype(dst)
    cast_loop(value.dtype, dst, dummies=dummies)


def _standin_shape(dst: tuple, vshape: tuple | None) -> tuple:
    """A small destination shape that reproduces an assignment's outcome."""
    if vshape is None or math.prod(dst) <= 4096:
        return dst
    out = []
    off = len(dst) - len(vshape)
    for i, n in enumerate(dst):
        j = i - off
        vd = vshape[j] if j >= 0 else 1
        out.append(n if (n == 0 or vd != 1) else 1)
    return tuple(out)


def _value_shape(value: Any) -> tuple | None:
    try:
        return np.shape(value)
    except ValueError:
        return None


def assign_to_view(dst: tuple, dtype: np.dtype, value: Any) -> None:
    """PyArray_CopyObject(view, value): broadcasting and casting checks only.

    Values that are known (scalars, lists, real arrays) are assigned for real into a
    small stand-in destination, which reproduces NumPy's errors exactly.
    """
    big = isinstance(value, np.ndarray) and math.prod(
        _standin_shape(dst, value.shape)) > _STANDIN_MAX
    if is_fake(value) or type(value) is ArrayMeta or big:  # a fake or a stand-in
        vshape: Any = tuple(value.shape)
        vs = vshape
        while len(vs) > len(dst) and vs[0] == 1:
            vs = vs[1:]
        ok = len(vs) <= len(dst) and all(
            a == b or a == 1 for a, b in zip(vs, dst[len(dst) - len(vs):]))
        if not ok:
            raise ValueError(f"could not broadcast input array from shape {_shp(vshape)} "
                             f"into shape {_shp(dst)}")
        if math.prod(dst):
            _check_cast(value, dtype)
        else:  # nothing to check for values, but the cast loop is still set up
            cast_loop(value.dtype, dtype)
        return None
    if _has_fake(value):
        raise UnsupportedOperationError("ndarray.__setitem__", "a list value containing fakes")
    vshape = _value_shape(value)
    if vshape is None and math.prod(dst) > 4096:
        raise UnsupportedOperationError("ndarray.__setitem__", "a ragged list value")
    standin = np.empty(_standin_shape(dst, vshape), dtype)
    standin[...] = value
    return None


def _shp(shape: tuple) -> str:
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _warn_on_write(arr: Any) -> None:
    """The once-per-array DeprecationWarning for writing to a broadcast_arrays result."""
    if getattr(arr, "_warn_on_write", False):
        warnings.warn(
            "Numpy has detected that you (may be) writing to an array with\noverlapping memory "
            "from np.broadcast_arrays. If this is intentional\nset the WRITEABLE flag True or "
            "make a copy immediately before writing.", DeprecationWarning, stacklevel=4)
        arr._warn_on_write = False


def setitem(self: Any, key: Any, value: Any) -> None:
    """``self[key] = value``: read-only, index, broadcasting and casting checks; no data."""
    if not self.flags.writeable:
        raise ValueError("assignment destination is read-only")
    _warn_on_write(self)
    dt = self.dtype
    if _structured_key(self, key):
        o = _field_view(self, key)
        return assign_to_view(o.shape, o.dtype, value)
    shape = tuple(self.shape)
    p = parse_index(shape, key)
    it = p.index_type
    if it == INTEGER:
        view_from_index(shape, self.strides, p)
        if is_fake(value):
            _check_cast_fake(value, dt)
            if value.ndim and dt.kind != "O":
                # the outcome depends on the dtypes and whether the size is 1 (PyArray_Pack)
                shp = value.shape if value.size <= 4096 else (2,)
                np.empty(1, dt)[0] = np.zeros(shp, value.dtype)
        elif _has_fake(value):
            raise UnsupportedOperationError("ndarray.__setitem__", "a list value containing fakes")
        else:
            np.empty(1, dt)[0] = value
        return None
    # array_assign_subscript (mapping.c) packs a scalar into a 0-d array of self's dtype
    # first (PyArray_FromAny), except where the destination is a view without fancy indexing:
    # PyArray_CopyObject (arrayobject.c) packs it straight into a 0-d view, and into a 0-d
    # temporary broadcast from otherwise
    packed = dt.itemsize if isinstance(value, (int, float, complex, np.generic)) or (
        is_fake(value) and value.storage._tracker is SCALAR) else 0
    if it == BOOL:
        transient(packed + bool_index_bytes(shape, key)  # a bool scalar's 0-d array
                  + sum(converted_bytes(k) for k in (key if type(key) is tuple else (key,))))
        mask = p.entries[0][2]
        known = _values(mask)
        if known is not None:
            count: int = int(np.count_nonzero(known))
        else:
            count = 0 if mask.size == 0 else mask_count(mask)
        v = _array_value(value, dt)
        if v.ndim > 1:
            raise TypeError("NumPy boolean array indexing assignment requires a 0 or "
                            f"1-dimensional input, input has {v.ndim} dimensions")
        if v.ndim and v.shape[0] != 1:
            _sizes.check_same(v.shape[0], count)
            if v.shape[0] != count:
                raise ValueError(f"NumPy boolean array indexing assignment cannot assign "
                                 f"{v.shape[0]} input values to the {count} output values "
                                 "where the mask is true")
        if count != 0:
            _check_cast(v, dt)
        return None
    if not it & FANCY:
        if it == ELLIPSIS:
            vshape, vstrides, off = shape, tuple(self.strides), 0
        else:
            vshape, vstrides, off = view_from_index(shape, self.strides, p)
        assign_to_view(vshape, dt, value)
        if vshape:
            transient(packed)
        if off is not None:
            transient(assign_copy_bytes(self, vshape, vstrides, self.storage_offset + off, value))
        return None
    # the index arrays NumPy makes of lists and ranges, and of booleans, as __getitem__'s
    # (prepare_index comes first: a boolean list's array is freed before the value is packed)
    freed = freed_bool_lists(shape, key)
    transient(packed + bool_index_bytes(shape, key)
              + sum(converted_bytes(k) for k in (key if type(key) is tuple else (key,)))
              - freed + max(0, freed - packed))
    view = None
    if it & (SLICE | NEWAXIS | ELLIPSIS | INTEGER):
        vshape, vstrides, _ = view_from_index(shape, self.strides, p)
        view = (vshape, vstrides)
    if dt.kind == "O" and not is_meta(value) and isinstance(value, (list, tuple)):
        # NumPy fills a temporary of the result's shape from the sequence
        if p.datadep:
            raise _datadep(p.datadep)
        rshape, _, _ = fancy_layout(p, dt.itemsize, view)
        assign_to_view(rshape, dt, value)
        check_fancy_bounds(shape, p, fancy_shape(p))
        return None
    v = _array_value(value, dt)
    if p.datadep:
        raise _datadep(p.datadep)
    rshape, _, _ = fancy_layout(p, dt.itemsize, view)
    vs = tuple(v.shape)
    ok = True
    while len(vs) > len(rshape):
        if vs[0] != 1:
            ok = False
            break
        vs = vs[1:]
    for a, b in zip(vs, rshape[len(rshape) - len(vs):]):
        _sizes.check_same(a, b)
    if not ok or not all(a == b or a == 1 for a, b in zip(vs, rshape[len(rshape) - len(vs):])):
        raise ValueError(f"shape mismatch: value array of shape {_shp(tuple(v.shape))} could "
                         f"not be broadcast to indexing result of shape {_shp(rshape)}")
    check_fancy_bounds(shape, p, fancy_shape(p))
    if math.prod(rshape):
        _check_cast(v, dt)
    elif is_meta(v):  # nothing is written, but the cast loop is set up
        cast_loop(v.dtype, dt)
    return None


def _array_value(value: Any, dt: np.dtype) -> Any:
    """PyArray_FromAny(value, dtype, FORCECAST) for non-arrays; arrays as they are."""
    if is_meta(value):
        return value
    if _has_fake(value):
        raise UnsupportedOperationError("ndarray.__setitem__", "a list value containing fakes")
    return np.array(value, dtype=dt)


def _check_cast(v: Any, dt: np.dtype) -> None:
    if is_fake(v):
        _check_cast_fake(v, dt)
    else:
        _check_cast_real(v, dt)


keep_real(setitem, 1, 2)
register("ndarray.__setitem__", tags=("inplace",))(setitem)


# --- take, take_along_axis, put, compress -------------------------------------------


def _index_values(ind: Any, casting: Casting) -> Any:
    """The index array NumPy converts ``ind`` to (intp, with the given casting rule): an
    array as is, a Python sequence as the real intp array it becomes."""
    if is_meta(ind):
        if not np.can_cast(ind.dtype, INTP, casting):
            raise TypeError(f"Cannot cast array data from {ind.dtype!r} to {INTP!r} "
                            f"according to the rule '{casting}'")
        return ind
    if _has_fake(ind):
        raise UnsupportedOperationError("np.take", "an index list containing fakes")
    if type(ind) is range:
        return _range_index(ind)
    return np.asarray(ind, dtype=INTP)


def _check_values(ind: Any, n: int, axis: int) -> None:
    v = _values(ind)
    if v is not None and v.size:
        lo, hi = _extremes(v)
        if lo < -n:
            _check_index(lo, n, axis)
        if hi >= n:
            _check_index(hi, n, axis)


def take_meta(a: Any, ind: Any, axis: Any, out: Any, mode: str) -> Any:
    if axis is None:
        ashape = (math.prod(a.shape),)
        ax = 0
    else:
        ashape = tuple(a.shape) or (1,)
        ax = converters.axis(axis, len(ashape))  # PyArray_AxisConverter (no bools)
    shape = ashape[:ax] + tuple(ind.shape) + ashape[ax + 1:]
    if out is not None:
        if not is_meta(out):
            raise TypeError("return arrays must be of ArrayType")
        if tuple(out.shape) != shape:
            raise ValueError("output array does not match result of ndarray.take")
        if not out.flags.writeable:
            raise ValueError("output array is read-only")
        # PyArray_TakeFrom works in a's dtype: out is converted to it (a writeback copy),
        # so it is out's dtype that must cast safely (numpy/_core/src/multiarray/item_selection.c)
        if not np.can_cast(out.dtype, a.dtype, "safe"):
            raise TypeError(f"Cannot cast array data from {out.dtype!r} to {a.dtype!r} "
                            "according to the rule 'safe'")
    n = ashape[ax]
    if n == 0 and math.prod(shape) != 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    if mode == "raise" and math.prod(ashape[:ax]):  # npy_fasttake checks inside its loops
        _check_values(ind, n, ax)
    if out is not None:
        return out
    return ArrayMeta(shape, a.dtype, c_strides(shape, a.dtype.itemsize))


@register(np.take, "ndarray.take", tags=("copy",))
def take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: Any = "raise") -> Any:
    """np.take / ndarray.take: a fresh C array (or ``out``)."""
    mode = converters.clipmode(mode)
    m, ind = as_meta(a), _index_values(indices, "same_kind")
    res = take_meta(m, ind, axis, out, mode)
    transient(_take_bytes(m, indices, ind, out, mode))
    return pyarray_return(res)


def _take_bytes(m: Any, given: Any, ind: Any, out: Any, mode: str) -> int:
    """PyArray_TakeFrom (item_selection.c): ``PyArray_CheckAxis(self, axis, CARRAY_RO)``
    (a C-contiguous aligned copy of the whole input, its ravel when axis is None), the
    indices as a C intp array (``PyArray_ContiguousFromAny``), and ``out`` through a
    writeback copy when it overlaps the input, is not a C array of a's dtype, or always with
    mode='raise' (the input must not change before an error): all alive to the end."""
    n = carray_bytes(m, m.dtype, writeable=False)
    n += carray_bytes(given, INTP) if is_meta(given) or isinstance(
        given, np.ndarray) else max(ind.size * INTP.itemsize, 1)
    if out is not None:
        st = getattr(m, "storage", None)
        overlap = st is not None and getattr(out, "storage", None) is st
        if overlap:
            uncached()  # overlap depends on offsets, which the kernel cache does not key on
            lo, hi = extent(tuple(m.shape), tuple(m.strides), m.dtype.itemsize)
            olo, ohi = extent(tuple(out.shape), tuple(out.strides), out.dtype.itemsize)
            lo, hi = lo + m.storage_offset, hi + m.storage_offset
            olo, ohi = olo + out.storage_offset, ohi + out.storage_offset
            overlap = lo < ohi and olo < hi
        if overlap or mode == "raise":
            n += max(math.prod(out.shape) * m.dtype.itemsize, 1)
        else:
            n += carray_bytes(out, m.dtype)
    return n


take.keep_real = frozenset({1, "indices"})


def _arange_meta(n: int, shape: tuple) -> ArrayMeta:
    """Metadata of ``np.arange(n).reshape(shape)`` (values not needed: always in bounds)."""
    st = (INTP.itemsize,) if n else (0,)
    rs = attempt_nocopy_reshape((n,), st, INTP.itemsize, shape, False) if n else None
    if rs is None:
        fake = np.lib.stride_tricks.as_strided(np.zeros(1, INTP), (n,), st)
        rs = fake.reshape(shape).strides
    return ArrayMeta(tuple(shape), INTP, tuple(rs))


@register(np.take_along_axis, tags=("copy",))
def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> ArrayMeta:
    """np.take_along_axis: ``arr[aranges..., indices, ...]``, an all-advanced index."""
    arr = as_meta(arr)
    ind = indices if is_meta(indices) else np.asarray(indices)
    if axis is None:
        if ind.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        ashape = (math.prod(arr.shape),)
        ax = 0
    else:
        ashape = tuple(arr.shape)
        ax = normalize_axis(axis, len(ashape))
    if not np.issubdtype(ind.dtype, np.integer):
        raise IndexError("`indices` must be an integer array")
    if len(ashape) != ind.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    key = []
    for d, n in enumerate(ashape):
        if d == ax:
            key.append(ind)
        else:
            shp = (1,) * d + (n,) + (1,) * (len(ashape) - d - 1)
            key.append(_arange_meta(n, shp))
    p = parse_index(ashape, tuple(key))
    dt = arr.dtype
    rshape, rstrides, _ = fancy_layout(p, dt.itemsize, None)
    check_fancy_bounds(ashape, p, rshape)
    if axis is not None:  # the aranges of _make_along_axis_idx, alive while the result is made
        transient(along_axis_bytes(ashape, ax))
    return ArrayMeta(rshape, dt, _dense_or_zero(rshape, rstrides))


take_along_axis.keep_real = frozenset({1, "indices"})


def _put(a: Any, ind: Any, v: Any, mode: Any) -> None:
    """PyArray_PutTo (item_selection.c): the indices as a C intp array, the values as a C
    array of a's dtype (its cast loop alive while it is made), and a C copy of a
    non-C-contiguous ``a`` written back at the end, all alive together (measured on numpy 2.4)."""
    mode = converters.clipmode(mode)
    if not a.flags.writeable:
        raise ValueError("put: output array is read-only")
    meta = _index_values(ind, "safe")
    ni = meta.size
    if ni > 0 and a.size == 0:
        raise IndexError("cannot replace elements of an empty array")
    if is_fake(v):
        _check_cast_fake(v, a.dtype, dummies=False)
        vals = v
    else:
        vals = _array_value(v, a.dtype)
        _check_cast_real(vals, a.dtype, dummies=False)
    nv = vals.size
    held = carray_bytes(ind, INTP) + carray_bytes(v, a.dtype)
    transient(held + legacy_cast_bytes(vals.dtype, a.dtype), before_outputs=True)
    if nv <= 0:
        transient(held)
        return None
    if mode == "raise":
        _check_values(meta, a.size, 0)
    transient(held + (0 if a.flags.c_contiguous else a.size * a.dtype.itemsize))
    return None


@register(np.put, tags=("inplace",))
def put(a: Any, ind: Any, v: Any, mode: Any = "raise") -> None:
    """np.put: in place; checks only."""
    return _put(a, ind, v, mode)


put.keep_real = frozenset({1, 2, "ind", "v"})


@register("ndarray.put", tags=("inplace",))
def ndarray_put(self: Any, indices: Any, values: Any, mode: Any = "raise") -> None:
    """ndarray.put: in place; checks only."""
    return _put(self, indices, values, mode)


ndarray_put.keep_real = frozenset({1, 2, "indices", "values"})


def _compress(condition: Any, a: Any, axis: Any, out: Any) -> Any:
    if is_meta(condition):
        cond = condition
    else:
        if _has_fake(condition):
            raise UnsupportedOperationError("np.compress", "a list condition containing fakes")
        cond = np.asarray(condition, dtype=bool)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    known = _values(cond) if is_fake(cond) and cond.size else None
    if is_fake(cond) and known is None:
        if cond.size:  # PyArray_Nonzero's (k, 1) indices, k bounded (faketensor/_sizes.py)
            uncached()
            k = _sizes.make(0, cond.size, "np.compress", cond)
            nz: Any = _fresh_intp((k,))
            transient(max(k * INTP.itemsize, 1))
        else:
            nz = np.zeros(0, INTP)
    else:
        cond = known if known is not None else cond
        nz = np.nonzero(cond)[0]
        # item_selection.c PyArray_Compress: the condition as an array (a list's made here,
        # freed before the take), PyArray_Nonzero's (n, 1) indices alive through the take
        nz_bytes = max(nz.size * INTP.itemsize, 1)
        if not isinstance(condition, np.ndarray) and not is_fake(condition):
            transient(max(cond.size, 1) + nz_bytes, before_outputs=True)
        transient(nz_bytes)
    m = as_meta(a)
    res = take_meta(m, nz, axis, out, "raise")
    transient(_take_bytes(m, nz, nz, out, "raise"))  # PyArray_TakeFrom's own copies
    return res


@register(np.compress, tags=("copy",))
def compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> Any:
    """np.compress with a real condition (a fake one is data-dependent)."""
    return _compress(condition, a, axis, out)


compress.keep_real = frozenset({0, "condition"})


@register("ndarray.compress", tags=("copy",))
def ndarray_compress(self: Any, condition: Any, axis: Any = None, out: Any = None) -> Any:
    """ndarray.compress with a real condition."""
    return _compress(condition, self, axis, out)


ndarray_compress.keep_real = frozenset({1, "condition"})


# --- ops whose result shape depends on values -------------------------------------


def _needs_values(name: str):
    def kernel(*args: Any, **kwargs: Any) -> Any:
        raise DataDependentError(f"{name} on a fake array: the result depends on its values")
    kernel.__name__ = name.replace(".", "_")
    kernel.__doc__ = f"{name}: data-dependent, always raises DataDependentError."
    return kernel


def _nonzero(name: str):
    def kernel(a: Any) -> Any:
        """np.nonzero (item_selection.c PyArray_Nonzero): ValueError for a 0-d array; the
        count is known for an empty array or one whose values are known
        (faketensor/_known.py), else it is a bounded size ``0 <= k <= a.size``
        (faketensor/_sizes.py). The indices are the columns of one fresh (count, ndim)
        intp array."""
        m = as_meta(a) if is_meta(a) else np.asarray(a)
        if m.ndim == 0:
            raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                             "np.atleast_1d(scalar).nonzero() instead.")
        v = None if m.size == 0 else _known.value(a)
        if v is not None:
            uncached()  # the count comes from the value, not the metadata
            n = m.size if bool(v) else 0
        elif m.size == 0:
            n = 0
        else:
            known = _values(a) if is_fake(a) else m
            if known is not None:
                n = int(np.count_nonzero(known))
            else:  # a bounded size, 0 <= k <= size (faketensor/_sizes.py)
                uncached()
                n = _sizes.make(0, m.size, name, a)
        if not is_meta(a) and not isinstance(a, np.ndarray):
            transient(asarray_bytes(a))  # _wrapit's np.asarray of a list, alive through it
        whole = ArrayMeta((n, m.ndim), INTP, c_strides((n, m.ndim), INTP.itemsize))
        return tuple(ArrayMeta((n,), INTP, (m.ndim * INTP.itemsize,), view_of=whole,
                               offset=i * INTP.itemsize) for i in range(m.ndim))
    kernel.__name__ = name.replace(".", "_")
    return kernel


def nonzero_of(a: Any, name: str) -> Any:
    """np.nonzero's result for another function that returns it (np.where(condition))."""
    return _nonzero(name)(a)


register(np.nonzero, tags=("data-dependent",))(_nonzero("np.nonzero"))
register("ndarray.nonzero", tags=("data-dependent",))(_nonzero("ndarray.nonzero"))
for _op, _name in (("ndarray.__contains__", "ndarray.__contains__"),):
    register(_op, tags=("data-dependent",))(_needs_values(_name))


# np.count_nonzero lives in reductions.py (per-axis counts have a known shape)


# --- np.copyto -------------------------------------------------------------------------

_SMALL = 4096


def _fits(shape: tuple, dst: tuple) -> bool:
    """Whether shape broadcasts into dst without changing dst (copyto's rule)."""
    if len(shape) > len(dst):
        return False
    return all(a == b or a == 1 for a, b in zip(shape, dst[len(dst) - len(shape):]))


@register(np.copyto, tags=("inplace",))
def copyto(dst: Any, src: Any, casting: Casting = "same_kind", where: Any = True) -> None:
    """np.copyto: read-only, casting and broadcasting checks in NumPy's order; no data.

    Small cases run NumPy itself on a small real destination and zero-stride stand-ins of
    the fakes, which gives its exact errors; large ones check the same rules directly.
    """
    if not is_meta(dst):
        raise TypeError(f"copyto() argument 1 must be a numpy.ndarray, not {type(dst).__name__}")
    casting = converters.casting(casting)
    if type(src) is int and dst.dtype.kind in "iu":  # the Python int is converted next
        np.empty((), dst.dtype)[()] = src
    if not dst.flags.writeable:
        raise ValueError("assignment destination is read-only")
    _warn_on_write(dst)
    if _has_fake(src) and not is_fake(src) or _has_fake(where) and not is_fake(where):
        raise UnsupportedOperationError("np.copyto", "a list value containing fakes")
    s, w = stand_in(src), stand_in(where)
    dshape = tuple(dst.shape)
    if not is_meta(src):  # array_copyto: PyArray_FromAny of the value (a scalar's 0-d arrays)
        transient(copyto_bytes(dst.dtype, src))
    if math.prod(dshape) <= _SMALL:
        if is_fake(src):  # the stand-in's values are not the fake's
            check_value_cast(src, dst.dtype)
        np.copyto(np.empty(dshape, dst.dtype), s, casting=casting, where=w)
        if is_fake(dst):
            transient(assign_copy_bytes(dst, dshape, tuple(dst.strides), dst.storage_offset, src))
            if is_meta(src) or isinstance(src, np.ndarray):  # the stand-in's loop was real
                transient(legacy_cast_bytes(src.dtype, dst.dtype))
        return None
    if is_fake(src):
        if not np.can_cast(src.dtype, dst.dtype, casting):
            what = "scalar" if not src.shape else "array data"
            raise TypeError(f"Cannot cast {what} from {src.dtype!r} to {dst.dtype!r} according "
                            f"to the rule {casting!r}")
        _check_cast_fake(src, dst.dtype)
    else:  # known values: NumPy's own (value-based) checks on a small destination
        np.copyto(np.empty(_standin_shape(dshape, np.shape(s)), dst.dtype), s, casting=casting)
    if is_fake(where) and not np.can_cast(where.dtype, np.bool_, "safe"):
        raise TypeError(f"Cannot cast array data from {where.dtype!r} to dtype('bool') "
                        "according to the rule 'safe'")
    for shape in (np.shape(s), np.shape(w)):
        if not _fits(tuple(shape), dshape):
            raise ValueError(f"could not broadcast input array from shape {_shp(tuple(shape))} "
                             f"into shape {_shp(dshape)}")
    if is_fake(dst):
        transient(assign_copy_bytes(dst, dshape, tuple(dst.strides), dst.storage_offset, src))
    return None


# --- ndarray.flat (numpy/_core/src/multiarray/iterators.c) ---------------------------------

_FLAT_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`) and integer or boolean "
                   "arrays are valid indices")


def _flat_of(self: Any, index: Any, op: str) -> tuple:
    """iter_subscript / iter_ass_subscript's index forms on the array seen as its C-order
    1-d sequence: (that sequence's metadata, the index to apply to it)."""
    if type(index) is tuple:
        if len(index) > 1:
            raise IndexError(f"too many indices for flat iterator: flat iterator is "
                             f"1-dimensional, but {len(index)} were indexed")
        if not index:
            raise UnsupportedOperationError(op, "an empty tuple index")
        index = index[0]
    if index is None or isinstance(index, (str, bytes)):
        raise IndexError(_FLAT_BAD_INDEX)
    if isinstance(index, (bool, np.bool_, float, np.floating)):  # deprecated in NumPy 2.4
        raise UnsupportedOperationError(op, "a bool or float scalar index (deprecated forms)")
    n = self.size
    return ArrayMeta((n,), self.dtype, c_strides((n,), self.dtype.itemsize)), index


@register("ndarray.flat.__getitem__", tags=("copy",))
def flat_getitem(self: Any, index: Any) -> ArrayMeta:
    """``x.flat[index]``: an integer gives the element as a NumPy scalar; a slice, Ellipsis,
    an integer or boolean array gives a new C-contiguous array (iter_subscript copies, never
    views), checked as the same index on the flattened array."""
    flat, index = _flat_of(self, index, "ndarray.flat.__getitem__")
    r = getitem(flat, index)
    if r.scalar:
        return r
    shape = tuple(r.shape)
    return ArrayMeta(shape, r.dtype, c_strides(shape, r.dtype.itemsize))


flat_getitem.keep_real = frozenset({1})


@register("ndarray.flat.__setitem__", tags=("inplace",))
def flat_setitem(self: Any, index: Any, value: Any) -> None:
    """``x.flat[index] = value``: the read-only check first, the index as for reading, the
    value force-cast to the array's dtype (PyArray_FromAny with NPY_ARRAY_FORCECAST: strings
    into numbers depend on their values) and repeated over the selected elements."""
    from ...meta import check_writeable
    check_writeable(self, "underlying array")
    flat, index = _flat_of(self, index, "ndarray.flat.__setitem__")
    getitem(flat, index)
    flat_value(value, self.dtype)
    return None


def flat_value(value: Any, dt: np.dtype) -> None:
    """The value of ``x.flat[...] = value`` as iter_ass_subscript converts it
    (PyArray_FromAny with NPY_ARRAY_FORCECAST): a new array of x's dtype unless it is one
    already, made by one cast loop (which may warn, or depend on values)."""
    if is_meta(value):
        check_value_cast(value, dt)
        if value.dtype != dt:
            cast_loop(value.dtype, dt, dummies=False)
            transient(max(value.size * dt.itemsize, 1) + legacy_cast_bytes(value.dtype, dt))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = np.asarray(value, dtype=dt) if dt.kind not in "V" else np.asarray(value)
    if isinstance(value, np.ndarray):
        if value.dtype != dt:
            cast_loop(value.dtype, dt, dummies=False)
            transient(max(real.nbytes, 1) + legacy_cast_bytes(value.dtype, dt))
    else:
        transient(max(real.nbytes, 1))


flat_setitem.keep_real = frozenset({1, 2})
