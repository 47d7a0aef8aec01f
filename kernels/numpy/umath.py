"""Elementwise ufunc calls (``ufunc.__call__``) and the gufuncs matmul, vecdot, matvec, vecmat."""
from __future__ import annotations

import math
import re
import warnings
from typing import Any, NamedTuple

import numpy as np
from numpy._core import _exceptions as _np_exc

from ..._bounded import BoundedCache, memoized
from ..._errors import DataDependentError, UnsupportedOperationError
from ..._numpy_version import WHERE_WITHOUT_OUT_WARNS, check_out_ellipsis
from ..._sizes import bounded_shape, check_same
from ...layout import (broadcast_shapes, broadcast_strides, c_strides, f_strides, iterator_order,
                     iterator_out_strides, normalize_axis, AxisError)
from ... import converters
from ...meta import (ArrayMeta, as_meta, check_writeable, contig, is_aligned, is_fake, is_meta,
                     weak_type)
from ...converters import Casting
from ..._storage import SCALAR
from ... import _known
from .convert_datatype import cast_loop, legacy_cast_bytes
from .hidden import cast_copy_bytes, overlap_copy_bytes, scalar_bytes, unbuffered_out_copy_bytes
from .overlap import fake_shares_memory
from .temporaries import BUFSIZE
from .. import flops
from ..registry import note, pyarray_return, register, scratch, transient, uncached

_COMPARISONS = frozenset({np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                          np.greater_equal})
_resolve_cache = BoundedCache("ufuncs resolve_cache", 512 * 1024)


def resolve_loop(ufunc: np.ufunc, keys: tuple, signature: Any, casting: Casting) -> tuple:
    """The loop dtypes for operand dtypes (Python types for weak scalars), cached.

    Errors are cached as (type, message) and re-raised with NumPy's exception type.
    """
    ck = (ufunc, keys, signature, casting)
    try:
        r = _resolve_cache[ck]
    except KeyError:
        try:
            r = _resolve(ufunc, keys, signature, casting)
        except Exception as e:  # re-raised below with the same type
            r = e
        if len(_resolve_cache) > 20000:
            _resolve_cache.clear()
        _resolve_cache[ck] = r
    except TypeError:  # unhashable signature
        r = _resolve(ufunc, keys, signature, casting)
    if isinstance(r, Exception):
        raise r
    return r


_ZERO = {int: 0, float: 0.0, complex: 0j}


def probe_loop(ufunc: np.ufunc, keys: tuple, signature: Any, casting: Casting) -> tuple:
    """Loop dtypes with Python scalars under a casting rule, from NumPy itself on 0-d zeros.

    ``resolve_dtypes`` mishandles (and can crash on) weak scalars with 'no'/'equiv';
    dtype resolution does not depend on values, so a 0-d call answers exactly.
    """
    ck = ("probe", ufunc, keys, signature, casting)
    r = _resolve_cache.get(ck)
    if r is None:
        nin = ufunc.nin
        # string results of 0-d operands come back as scalars of the value's length: probe
        # string loops on one-element arrays, whose dtype is the loop's
        shp = (1,) if any(type(k) is not type and k.kind in "SUT" for k in keys[:nin]) else ()
        ins = [_ZERO[k] if type(k) is type else np.zeros(shp, k) for k in keys[:nin]]
        outs = tuple(None if k is None else np.zeros((), k) for k in keys[nin:])
        kw: dict[str, Any] = {"casting": casting}
        if signature is not None:
            kw["signature"] = signature
        if any(o is not None for o in outs):
            kw["out"] = outs
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = ufunc(*ins, **kw)
            res = res if isinstance(res, tuple) else (res,)
            r = tuple(np.dtype(type(x)) if not hasattr(x, "dtype") else x.dtype for x in ins) \
                + tuple(x.dtype for x in res)
            r = tuple(resolve_loop(ufunc, keys, signature, "unsafe")[:nin]) + r[nin:]
        except Exception as e:  # re-raised below with NumPy's own type
            r = e
        _resolve_cache[ck] = r
    if isinstance(r, Exception):
        raise r
    return r


def _resolve(ufunc: np.ufunc, keys: tuple, signature: Any, casting: Casting) -> tuple:
    if signature is None:
        return ufunc.resolve_dtypes(keys, casting=casting)
    return ufunc.resolve_dtypes(keys, signature=signature, casting=casting)


_InCastErr = _np_exc._UFuncInputCastingError
_OutCastErr = _np_exc._UFuncOutputCastingError
_cast_cache = BoundedCache("ufuncs cast_cache", 512 * 1024)


def _can_cast(frm: np.dtype, to: np.dtype, casting: Casting) -> bool:
    key = (frm, to, casting)
    r = _cast_cache.get(key)
    if r is None:
        r = _cast_cache[key] = bool(np.can_cast(frm, to, casting))
    return r


_I64 = np.iinfo(np.int64)
_U64 = np.iinfo(np.uint64)


def check_pyint(value: int, dt: np.dtype) -> None:
    """NumPy's OverflowError when a Python int cannot be converted to its loop dtype."""
    kind = dt.kind
    if kind in "iub":
        if not (_I64.min <= value <= (_U64.max if kind == "u" else _I64.max)):
            raise OverflowError("Python int too large to convert to C long")
        if kind != "b":
            info = np.iinfo(dt)
            if not info.min <= value <= info.max:
                raise OverflowError(f"Python integer {value} out of bounds for {dt}")
    elif kind in "fc":
        float(value)


def split_operands(ufunc: np.ufunc, args: tuple, out: Any) -> tuple[list, list]:
    """Inputs and the out tuple (None where the output is to be allocated)."""
    nin, nout = ufunc.nin, ufunc.nout
    if len(args) < nin:
        raise TypeError(f"{ufunc.__name__}() takes from {nin} to {nin + nout} positional "
                        f"arguments but {len(args)} were given")
    if len(args) > nin + nout:
        raise TypeError(f"{ufunc.__name__}() takes from {nin} to {nin + nout} positional "
                        f"arguments but {len(args)} were given")
    inputs = list(args[:nin])
    outs = list(args[nin:])
    if outs:
        if out is not None:
            raise TypeError("cannot specify 'out' as both a positional and keyword argument")
    elif out is not None:
        if type(out) is tuple:  # PyTuple_CheckExact (ufunc_object.c): a record is one array
            if len(out) != nout:
                raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
            outs = list(out)
        elif nout == 1:
            outs = [out]
        else:
            raise TypeError("'out' must be a tuple of arrays")
    outs += [None] * (nout - len(outs))
    for o in outs:
        if o is not None and not is_meta(o):
            raise TypeError("return arrays must be of ArrayType")
    return inputs, outs


def operand_key(x: Any) -> tuple[Any, Any]:
    """(dtype key for resolve_dtypes, metadata or None for a Python scalar).

    A fake Python number (``weak_type``) is keyed as the number would be: its type, no
    array metadata, so it promotes weakly and its operand bytes are a Python scalar's."""
    t = weak_type(x)
    if t is bool:
        return np.dtype(bool), None
    if t is int or t is float or t is complex:
        return t, None
    m = as_meta(x)
    return m.dtype, m


def _signature(ufunc: np.ufunc, dtype: Any, signature: Any) -> Any:
    if dtype is not None:
        if signature is not None:
            raise TypeError("cannot specify both 'signature' and 'dtype'")
        return (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout
    if signature is None:
        return None
    if isinstance(signature, str):
        return signature
    return tuple(None if s is None else np.dtype(s) for s in signature)


def resolve_operands(ufunc, inputs, outs, dtype, signature, casting):
    """Loop dtypes and input metadata; checks Python ints against their loop dtype."""
    casting = converters.casting(casting)
    keys = []
    metas = []
    for x in inputs:
        k, m = operand_key(x)
        keys.append(k)
        metas.append(m)
    for o in outs:
        keys.append(None if o is None else o.dtype)
    sig = _signature(ufunc, dtype, signature)
    # NumPy converts Python scalars to the loop dtype before it checks the casting rule
    loop = resolve_loop(ufunc, tuple(keys), sig, "unsafe")
    weak = any(type(k) is type for k in keys)
    plain = not any(m is not None and m.dtype.hasobject for m in metas)
    probed = None
    if weak and plain and casting != "unsafe":
        try:
            probed = probe_loop(ufunc, tuple(keys), sig, casting)
        except TypeError as e:
            if str(e).startswith("cannot cast Python"):
                raise  # refusing the scalar comes before converting it
            probed = e
    for x, k, dt in zip(inputs, keys, loop):
        if k is int and type(x) is int:
            if ufunc in _COMPARISONS and any(m is not None and m.dtype.kind != "b" for m in metas):
                continue  # NumPy compares out-of-range Python ints exactly
            check_pyint(x, dt)
    if isinstance(probed, Exception):
        raise probed
    if probed is not None:
        loop = probed
    elif casting != "unsafe":
        loop = resolve_loop(ufunc, tuple(keys), sig, casting)
    return loop, metas


def operand_casts(metas: list, outs: list, loop: tuple, masked: bool = False) -> int:
    """The iterator's cast loops (convert_datatype.py): each array operand to its loop
    dtype, each loop result into a given output of another dtype (with a ``where`` mask
    the output is read too, into the loop dtype, before it is written). Returns the bytes
    of the old-style loops' dummy arrays alive with the outputs: the iterator's, not those
    of the inputs check_for_trivial_loop copies first (``operand_bytes`` has those)."""
    nin = len(metas)
    seen = metas if masked else after_small_copies(metas, loop[:nin])
    dummies = 0
    for m, s, dt in zip(metas, seen, loop[:nin]):
        if m is not None:
            cast_loop(m.dtype, dt, dummies=False)
            if s is m:
                dummies += legacy_cast_bytes(m.dtype, dt)
    for o, dt in zip(outs, loop[nin:]):
        if o is not None:
            if masked:
                cast_loop(o.dtype, dt, dummies=False)
                dummies += legacy_cast_bytes(o.dtype, dt)
            cast_loop(dt, o.dtype, dummies=False)
            dummies += legacy_cast_bytes(dt, o.dtype)
    return dummies


def where_meta(where: Any) -> Any:
    if where is True:
        return None
    if type(where) in (list, tuple, bool, int, float):
        return np.asarray(where, dtype=np.bool_)  # PyArray_FromAny(where, bool): values cast
    m = as_meta(where)
    if not np.can_cast(m.dtype, np.bool_, "safe"):
        raise TypeError(f"Cannot cast array data from {m.dtype!r} to dtype('bool') "
                        "according to the rule 'safe'")
    return m


def needs_copy(m: Any, dt: np.dtype) -> bool:
    """check_for_trivial_loop: a cast or an unaligned operand needs a copy."""
    if m.dtype != dt or not m.dtype.isnative:
        return True
    return not is_aligned(m)


def trivial_order(metas: list, loop: tuple, order: str):
    """'C' / 'F' if NumPy's trivial single-output loop runs, else None (ufunc_object.c)."""
    op_order = {"C": 1, "F": 2}.get(order, 0)
    shape = None
    for m, dt in zip(metas, loop):
        if m is None:
            continue
        nd = len(m.shape)
        if needs_copy(m, dt) and not (nd == 0 or (nd == 1 and m.shape[0] <= BUFSIZE)):
            return None
        if nd == 0:
            continue
        if shape is None:
            shape = m.shape
        elif m.shape != shape:
            return None
        if nd > 1:
            c, f = contig(m)
            o = (1 if c else 0) | (2 if f else 0)
            if o == 0:
                return None
            if o != 3:
                if op_order == 0:
                    op_order = o
                elif op_order != o:
                    return None
    return "F" if op_order == 2 else "C"


_PY_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
              complex: np.dtype(np.complex128)}
_BOOL_0D = np.empty((), np.bool_)


def is_scalar(x: Any) -> bool:
    """A fake standing for a NumPy scalar (the 0-d result of a ufunc or a reduction)."""
    st = getattr(x, "storage", None)
    return st is not None and st._tracker is SCALAR


def operand_bytes(inputs: list, metas: list, loop_in: tuple, masked: bool,
                  promoted: bool = False) -> tuple[int, int]:
    """(early, late): data-allocator bytes of the ufunc's own temporaries made from its
    inputs, at most alive before the outputs exist, and alive together with them.

    ufunc_object.c: ``convert_ufunc_arguments`` makes a 0-d array of every scalar input
    (Python int, float, complex: the default dtype; bool and NumPy scalars: their own);
    ``npy_update_operand_for_scalar`` then replaces each Python int, float and complex one
    by a 0-d of its loop dtype, made while the old one is alive (a Python int always, the
    others only when the dtype differs); ``check_for_trivial_loop`` (not with ``where``)
    copies 0-d and short 1-d inputs that need a cast, then releases the operand it replaced.
    ``promoted``: the loop was chosen by a promoter (the logical ufuncs' ``logical_ufunc_promoter``
    turns a call with a Python scalar into the bool loop): the scalar's 0-d array is updated to
    its own default dtype, not the loop's, and reaches the loop as an operand needing a cast
    (copied by check_for_trivial_loop, or by the iterator while it stays alive).
    """
    sizes = []
    alive = early = 0
    direct = set()
    for i, x in enumerate(inputs):
        t = weak_type(x) or type(x)  # a fake Python number converts as the number does
        dt = _PY_DTYPES.get(t)
        if t is str and i < len(loop_in) and loop_in[i].char == "T":
            # a Python str meeting a StringDType loop is made a 0-d StringDType array
            # directly (measured: no str array, no cast)
            direct.add(i)
            n = loop_in[i].itemsize
        elif dt is not None:
            n = dt.itemsize
            if type(x) is int and not _I64.min <= x <= _I64.max:
                early = max(early, alive + n)  # swapped for a shared placeholder at once
                n = 0
        elif isinstance(x, np.generic) or is_scalar(x):
            n = x.dtype.itemsize
        elif t is list or t is tuple:
            n = as_meta(x).nbytes
        elif t is str or t is bytes:  # a 0-d U/S array of the string (np.strings.find's sub)
            n = max(np.asarray(x).nbytes, 1)
        else:
            n = 0
        alive += n
        early = max(early, alive)
        sizes.append(n)
    cost_metas = list(metas)
    for i in direct:
        cost_metas[i] = ArrayMeta((), loop_in[i], ())
    for i, (x, dt) in enumerate(zip(inputs, loop_in)):
        t = weak_type(x) or type(x)
        if promoted and (t is int or t is float or t is complex) and _PY_DTYPES[t] != dt:
            dt = _PY_DTYPES[t]
            cost_metas[i] = ArrayMeta((), dt, ())
        if t is int or t is float or t is complex:
            if t is not int and _PY_DTYPES[t] == dt:
                continue
            alive += dt.itemsize
            early = max(early, alive)
            alive -= sizes[i]
            sizes[i] = dt.itemsize
        elif t is bool:
            cost_metas[i] = _BOOL_0D
    if not masked:
        for i, (m, c) in enumerate(zip(cost_metas, after_small_copies(cost_metas, loop_in))):
            if c is not m and m is not None:  # a cast copy replaced it
                n = loop_in[i].itemsize
                for d in m.shape:
                    n *= d
                n = max(n, 1)  # ctors.c: a zero-size array is given 1 byte
                alive += n  # the copy is made while the operand it replaces is alive,
                early = max(early, alive + legacy_cast_bytes(m.dtype, loop_in[i]))  # its loop too
                alive -= sizes[i]
            elif m is not None and not m.shape and needs_copy(m, loop_in[i]):
                # a 0-d operand (a scalar's 0-d array, or a 0-d array given) the copying
                # above did not reach (an earlier input could not be copied): the iterator
                # copies it to the loop dtype (npyiter_new_temp_array) while it stays alive
                # (add(f4 array, np.int64(1)), multiply(f4 array, np.array(2)))
                alive += loop_in[i].itemsize
                early = max(early, alive)
    return early, alive


def _size(shape: tuple) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class IterOp(NamedTuple):
    """One operand of a buffered NpyIter: its shape and strides (None: allocated by the
    iterator, dense in iteration order, stride 0 on ``zero_axes``), the itemsize of its loop
    dtype, whether it needs a cast (dtype, byte order or alignment), and whether it is a
    reduction result."""

    shape: tuple
    strides: tuple | None
    itemsize: int
    cast: bool = False
    reduce: bool = False
    zero_axes: frozenset = frozenset()


@memoized("ufuncs iterator_buffer_bytes", 256 * 1024)
def iterator_buffer_bytes(shape: tuple, ops: tuple, flip: bool, order: str) -> int:
    """C-heap bytes of the buffers a buffered, GROWINNER NpyIter over ``shape`` allocates
    (numpy 2.x): the axes in iteration order (K: npyiter_find_best_axis_ordering), negative
    ones flipped (unless ``flip`` is False: an allocated output or DONT_NEGATE_STRIDES),
    coalesced (nditer_api.c ``npyiter_coalesce_axes``); npyiter_find_buffering_setup then picks
    the outer dimension and core size by its cost rule and the buffer size (at most
    NPY_BUFSIZE, a multiple of the core); every operand that needs a cast or cannot be walked
    with one stride over the core gets ``itemsize * buffersize`` bytes (nditer_api.c
    ``npyiter_allocate_buffers``, PyArray_malloc)."""
    nd = len(shape)
    if 0 in shape or not ops:
        return 0
    if order == "C" or nd <= 1:
        perm = list(range(nd - 1, -1, -1))
    elif order == "F":
        perm = list(range(nd))
    else:
        perm = iterator_order(shape, [(o.shape, o.strides) for o in ops if o.strides is not None])
    full = []
    for o in ops:
        if o.strides is None:
            st = [0] * nd
            step = o.itemsize
            for ax in perm:
                if ax not in o.zero_axes:
                    st[ax] = step if shape[ax] != 1 else 0
                    step *= shape[ax]
        else:
            st = list(broadcast_strides(shape, o.shape, o.strides))
        full.append(st)
    if flip:  # npyiter_flip_negative_strides: some negative and none positive
        for ax in range(nd):
            col = [st[ax] for st in full]
            if any(v < 0 for v in col) and not any(v > 0 for v in col):
                for st in full:
                    st[ax] = -st[ax]
    axes = [[shape[ax], [st[ax] for st in full]] for ax in perm] or [[1, [0] * len(ops)]]
    dims = [axes[0]]
    for n1, s1 in axes[1:]:
        n0, s0 = dims[-1]
        if all((n0 == 1 and a == 0) or (n1 == 1 and b == 0) or a * n0 == b
               for a, b in zip(s0, s1)):
            dims[-1] = [n0 * n1, [b if a == 0 else a for a, b in zip(s0, s1)]]
        else:
            dims.append([n1, list(s1)])
    # npyiter_find_buffering_setup (nditer_constr.c), for GROWINNER iterators
    nop = len(ops)
    cost = 1 + sum(1 for o in ops if o.cast)
    single = [1] * nop
    red_outer = [0] * nop
    outer_reduce = 0
    size = dims[0][0]
    best_dim, best_cost, best_size, best_core = 0, cost, size, 1
    for idim in range(1, len(dims)):
        if outer_reduce or (size >= BUFSIZE and cost > 1):
            break
        (pn, ps), st = dims[idim - 1], dims[idim][1]
        for i, o in enumerate(ops):
            if single[i] == idim:
                if ps[i] * pn == st[i]:
                    single[i] += 1
                    continue
                if not o.cast:
                    cost += 1
            if o.reduce and (st[i] == 0 or ps[i] == 0):
                red_outer[i] = outer_reduce = idim
        core = size
        size *= dims[idim][0]
        bufsize = BUFSIZE if size > BUFSIZE and cost > 1 else size
        if cost * best_size <= best_cost * bufsize:
            best_dim, best_cost, best_size, best_core = idim, cost, size, core
    using_reduce = outer_reduce and best_dim == outer_reduce
    red_st = dims[outer_reduce][1]
    total = 0
    for i, o in enumerate(ops):
        if not using_reduce:
            is_red = False
        elif red_outer[i] == best_dim or (single[i] == best_dim and not o.cast):
            is_red = True
        else:
            is_red = red_st[i] == 0 and single[i] <= best_dim
        if o.cast or single[i] + is_red <= best_dim:
            total += o.itemsize
    if total and BUFSIZE < best_size:
        best_size = best_core * (BUFSIZE // best_core)
    return total * best_size


def buffer_bytes(metas: list, outs: list, loop: tuple, shape: tuple, wm: Any, order: str) -> int:
    """C-heap bytes of a ufunc's iterator buffers (ufunc_object.c ``execute_ufunc_loop``):
    iterator_buffer_bytes over the inputs as the iterator sees them (after
    check_for_trivial_loop's copies; Python scalars as 0-d arrays of the loop dtype), the
    outputs (allocated ones in iteration order) and the ``where`` mask."""
    nin = len(metas)
    seen = metas if wm is not None else after_small_copies(metas, loop[:nin])
    ops = []
    for m, dt in zip(seen, loop[:nin]):
        if m is None:
            ops.append(IterOp((), (), dt.itemsize))
        else:
            ops.append(IterOp(m.shape, m.strides, dt.itemsize,
                              needs_copy(m, dt)))
    for o, dt in zip(outs, loop[nin:]):
        ops.append(IterOp(shape, None, dt.itemsize) if o is None else
                   IterOp(o.shape, o.strides, dt.itemsize, needs_copy(o, dt)))
    if wm is not None:
        ops.append(IterOp(wm.shape, wm.strides, 1))
    return iterator_buffer_bytes(shape, tuple(ops), all(o is not None for o in outs), order)


def report_operand_bytes(inputs: list, metas: list, loop_in: tuple, masked: bool,
                         results: list, copies: int = 0, buffers: int = 0, dummies: int = 0,
                         promoted: bool = False) -> None:
    """Report operand_bytes, the 0-d outputs NumPy returns as scalars, ``copies`` (of
    overlapping outputs) and ``dummies`` (operand_casts) to the runner; ``buffers`` (the
    iterator's) as C-heap scratch."""
    if buffers:
        scratch(buffers)
    early, late = operand_bytes(inputs, metas, loop_in, masked, promoted)
    late += copies + dummies
    for r in results:
        if type(r) is ArrayMeta and r.scalar:
            late += r.dtype.itemsize
    if early:
        transient(early, before_outputs=True)
    if late:
        transient(late)


def after_small_copies(metas: list, loop_in: tuple) -> list:
    """The inputs as the iterator sees them: check_for_trivial_loop (ufunc_object.c) first
    replaces 0-d and short 1-d inputs that need a cast or are unaligned by contiguous copies,
    stopping at the first input it cannot copy."""
    out = list(metas)
    for i, (m, dt) in enumerate(zip(metas, loop_in)):
        if m is None or not needs_copy(m, dt):
            continue
        nd = len(m.shape)
        if nd == 0 or (nd == 1 and m.shape[0] <= BUFSIZE):
            out[i] = ArrayMeta(m.shape, dt, c_strides(m.shape, dt.itemsize))
        else:
            break
    return out


def elementwise_out_strides(shape, itemsize, operand_metas, order, trivial):
    """Strides of an output the ufunc machinery allocates: the trivial loop's C or F array,
    else the iterator's (layout.iterator_out_strides)."""
    if trivial is not None:
        return f_strides(shape, itemsize) if trivial == "F" else c_strides(shape, itemsize)
    fa = order == "A"  # only order A reads the operands' F-contiguity
    return iterator_out_strides(shape, itemsize, [(m.shape, m.strides, fa and m.flags.f_contiguous)
                                                  for m in operand_metas], order)


_UFUNC_KW = frozenset({"out", "where", "casting", "order", "dtype", "subok", "signature",
                       "axes", "axis", "keepdims"})


@register("ufunc.__call__", tags=("ufunc",), flops=flops.ufunc_call)
def ufunc_op(ufunc: np.ufunc, *args: Any, **kwargs: Any) -> Any:
    """A ufunc called by the program: ufunc_call, reporting the bytes of its temporaries."""
    if (WHERE_WITHOUT_OUT_WARNS and kwargs.get("where", True) is not True and "out" not in kwargs
            and all(o is None for o in args[ufunc.nin:])):
        # ufunc_object.c ufunc_generic_fastcall: a mask with no output array given (the
        # out keyword absent) leaves the masked-off elements of a new output uninitialized.
        # An explicit out=None, which NumPy does not warn for, never reaches a kernel: the
        # override protocol drops it (a strict xfail in tests/kernels/numpy/test_warnings.py)
        warnings.warn("'where' used without 'out', expect unitialized memory in output. "
                      "If this is intentional, use out=None.", UserWarning, stacklevel=2)
    check_out_ellipsis(kwargs.get("out"), "'out' must be a tuple of arrays" if ufunc.nout > 1
                       else "return arrays must be of ArrayType")
    return ufunc_call(ufunc, *args, _report=True, **kwargs)


@register("ndarray.__eq__", "ndarray.__ne__", tags=("ufunc",))
def compare_no_loop(self: Any, other: Any) -> ArrayMeta:
    """``==`` / ``!=`` of dtypes the comparison ufunc has no loop for (FakeArray asks only
    then): arrayobject.c ``array_richcompare`` allocates the bool result with
    ``NpyIter_MultiNew(self, other, NULL)`` in K order and fills it with 0 or 1."""
    m, o = as_meta(self), as_meta(other)
    shape = broadcast_shapes(m.shape, o.shape)
    ops = [(x.shape, x.strides, x.flags.f_contiguous) for x in (m, o)]
    return pyarray_return(ArrayMeta(shape, np.dtype(bool), iterator_out_strides(shape, 1, ops)))


def ufunc_call(ufunc: np.ufunc, *args: Any, out: Any = None, where: Any = True,
               casting: Casting = "same_kind", order: str = "K", dtype: Any = None,
               subok: bool = True, signature: Any = None, _report: bool = False,
               **gkw: Any) -> Any:
    """Shape by broadcasting, dtype by NEP 50 loop resolution, strides by NpyIter's rules.

    Kernels that replay a NumPy function call this directly and count its bytes
    themselves (kernels/numpy/temporaries.py); ``_report`` reports them for a call of the program.
    """
    if (out is None and where is True and dtype is None and signature is None and order == "K"
            and casting == "same_kind" and not gkw):
        r = _fast_call(ufunc, args, _report)
        if r is not None:
            return r
    return_scalar = out is not Ellipsis  # out=... asks for arrays
    if not return_scalar:
        out = None
    if ufunc.signature is not None:
        return gufunc_call(ufunc, *args, out=out, where=where, casting=casting, order=order,
                           dtype=dtype, signature=signature, **gkw)
    if gkw:
        bad = next(iter(gkw))
        if bad in ("axes", "axis", "keepdims"):
            raise TypeError(f"{bad} is only valid for generalized ufuncs" if bad != "keepdims"
                            else "keepdims is only valid for generalized ufuncs")
        raise TypeError(f"{ufunc.__name__}() got an unexpected keyword argument '{bad}'")
    order = converters.order(order)
    inputs, outs = split_operands(ufunc, args, out)
    for o in outs:
        if o is not None:
            check_writeable(o)
    loop, metas = resolve_operands(ufunc, inputs, outs, dtype, signature, casting)
    wm = where_meta(where)
    shapes = [m.shape for m in metas if m is not None]
    if wm is not None:
        shapes.append(wm.shape)
    shape = broadcast_shapes(*shapes) if shapes else ()
    nin = ufunc.nin
    given = [o.shape for o in outs if o is not None]
    if given:
        full = broadcast_shapes(shape, *given)
        for o in outs:
            if o is not None and o.shape != full:
                raise ValueError(f"non-broadcastable output operand with shape {o.shape} "
                                 f"doesn't match the broadcast shape {full}")
        shape = full
    if ufunc is np.power and len(inputs) == 2 and loop[1].kind in "iu" and 0 not in shape \
            and _negative_exponent(inputs[1]):
        raise ValueError("Integers to negative integer powers are not allowed.")
    dummies = operand_casts(metas, outs, loop, wm is not None)
    if all(o is not None for o in outs):
        if _report:
            report_operand_bytes(inputs, metas, loop[:nin], wm is not None, outs,
                                 _overlap_copies(metas, outs, loop, order, wm),
                                 buffer_bytes(metas, outs, loop, shape, wm, order), dummies,
                                 _promoted(ufunc, inputs, dtype, signature))
        return outs[0] if len(outs) == 1 else tuple(outs)
    trivial = None
    in_metas = [m for m in metas if m is not None]
    if len(outs) == 1 and wm is None:
        trivial = trivial_order(metas, loop[:nin], order)
    if wm is None:
        in_metas = [m for m in after_small_copies(metas, loop[:nin]) if m is not None]
    voters = in_metas + [o for o in outs if o is not None]
    if wm is not None:
        voters.append(wm)
    if not shape and any(dt.kind == "O" for dt in loop[nin:]):
        raise UnsupportedOperationError(ufunc, "a 0-d object result is a Python object of unknown type")
    if not shape and return_scalar and any(dt.char == "T" for dt in loop[nin:]):
        raise DataDependentError(f"{ufunc.__name__}: a 0-d StringDType result is returned as "
                                 "a Python str, which is its value")
    results = []
    for o, dt in zip(outs, loop[nin:]):
        if o is not None:
            results.append(o)
            continue
        results.append(ArrayMeta(shape, dt, elementwise_out_strides(shape, dt.itemsize, voters, order, trivial),
                           scalar=return_scalar and not shape))
    if not _report or (return_scalar and not shape and where is True and all(
            is_scalar(x) or type(x) in _PY_DTYPES for x in inputs)):
        pass  # scalar math (scalarmath.c.src): NumPy scalars in, no array made
    else:
        report_operand_bytes(inputs, metas, loop[:nin], wm is not None, results,
                             _overlap_copies(metas, outs, loop, order, wm),
                             buffer_bytes(metas, outs, loop, shape, wm, order), dummies,
                             _promoted(ufunc, inputs, dtype, signature))
    return results[0] if len(results) == 1 else tuple(results)


_LOGICAL = (np.logical_and, np.logical_or, np.logical_xor)


def _promoted(ufunc: np.ufunc, inputs: list, dtype: Any, signature: Any) -> bool:
    """Whether the logical ufuncs' promoter chose the loop (dispatching.c
    ``logical_ufunc_promoter``: a Python int, float or complex operand and no dtype asked)."""
    return (ufunc in _LOGICAL and dtype is None and signature is None
            and any((weak_type(x) or type(x)) in (int, float, complex) for x in inputs))


def _overlap_copies(metas: list, outs: list, loop: tuple, order: str, wm: Any) -> int:
    """Bytes of the copies NumPy writes given outputs through when they overlap an input
    (NPY_ITER_COPY_IF_OVERLAP), alive together with the call's other temporaries."""
    nin = len(metas)
    copies = 0
    for i, o in enumerate(outs):
        if o is None or not any(m is not None and is_fake(m) for m in metas):
            continue
        if (len(outs) == 1 and wm is None and trivial_order(metas + [o], loop, order) is not None
                and all(_equivalently_iterable(m, o) for m in metas if m is not None and is_fake(m))):
            continue
        copies += overlap_copy_bytes(metas, o, loop[nin + i], elementwise=True)
    return copies


def _pair_stride(m: Any) -> int:
    """PyArray_TRIVIAL_PAIR_ITERATION_STRIDE (lowlevel_strided_loops.h)."""
    if m.size == 1:
        return 0
    return m.strides[0] if len(m.shape) == 1 else m.dtype.itemsize


def _equivalently_iterable(m: Any, out: Any) -> bool:
    """PyArray_EQUIVALENTLY_ITERABLE_OVERLAP_OK for a read input and the written output:
    no overlap, the same array, or an input that strides ahead of the output."""
    s1, s2 = _pair_stride(m), _pair_stride(out)
    if m is out and s1 != 0:
        return True
    st = getattr(out, "storage", None)
    if st is None or getattr(m, "storage", None) is not st:
        return True
    uncached()  # depends on offsets, which the kernel cache does not key on
    if not fake_shares_memory(m, out):
        return True
    b1, b2 = m.storage_offset, out.storage_offset
    if s1 > 0:
        return s1 >= s2 and b1 >= b2
    if s1 < 0:
        return s1 <= s2 and b1 <= b2
    return False


_fast_loops = BoundedCache("ufuncs fast_loops", 512 * 1024)


def _negative_exponent(e: Any) -> bool:
    """Whether an integer power's exponent is known to hold a negative value (NumPy's
    integer power loops raise ValueError on one): a Python int, a NumPy scalar, or a fake
    whose every element holds one known value (faketensor/_known.py). Exponents of unknown
    values are not known to be negative: the fake answers, where NumPy may raise."""
    if type(e) is int:
        return e < 0
    if isinstance(e, np.generic) or is_fake(e):
        k = _known.value(e)
        if k is None:
            return False
        if is_fake(e):
            uncached()  # the kernel cache keys on metadata, not values
        return bool(np.any(np.asarray(k) < 0))
    return False


def _fast_call(ufunc: np.ufunc, args: tuple, report: bool = False) -> Any:
    """The common case (fakes only, no keywords, one output) without the general machinery.

    Returns None to fall back to the general path.
    """
    if len(args) != ufunc.nin or ufunc.nout != 1 or ufunc.signature is not None \
            or ufunc is np.power:  # the general path checks integer powers' known exponents
        return None
    try:
        dts = tuple(a.dtype for a in args)
        cfs = [a._contiguity() for a in args]
    except AttributeError:
        return None
    for a in args:
        if not a.shape:  # 0-d operands and scalar results: the general path counts their bytes
            return None
    key = (ufunc, dts)
    r = _fast_loops.get(key)
    if r is None:
        try:
            loop = resolve_loop(ufunc, dts + (None,), None, "same_kind")
        except Exception:
            return None
        out_dt = loop[-1]
        # no cast or byte swap of any input (else a cast copy or the iterator's buffers:
        # the general path counts them), and not an object result
        r = _fast_loops[key] = (out_dt, out_dt.kind != "O" and all(
            d == l and d.isnative for d, l in zip(dts, loop)))
    out_dt, plain = r
    if not plain:
        return None
    for a in args:
        if not a._aligned():
            return None
    shape = args[0].shape
    for a in args:
        if a.shape != shape or a.shape is not shape and bounded_shape(a.shape):
            shape = broadcast_shapes(*[a.shape for a in args])
            break
    # try_trivial_single_output_loop (ufunc_object.c)
    op_order = 0
    op_shape = None
    trivial = True
    for a, (c, f) in zip(args, cfs):
        nd = len(a.shape)
        if op_shape is None:
            op_shape = a.shape
        elif a.shape != op_shape:
            trivial = False
            break
        if nd > 1:
            o = (1 if c else 0) | (2 if f else 0)
            if o == 0 or (o != 3 and op_order and op_order != o):
                trivial = False
                break
            if o != 3:
                op_order = o
    isz = out_dt.itemsize
    if trivial:
        st = f_strides(shape, isz) if op_order == 2 else c_strides(shape, isz)
    elif len(shape) <= 1:
        st = c_strides(shape, isz)
    else:
        ops = after_small_copies(list(args), resolve_loop(ufunc, dts + (None,), None, "same_kind"))
        st = iterator_out_strides(shape, isz, [(a.shape, a.strides, None) for a in ops])
    if report and not trivial:  # the iterator buffers operands it cannot walk with one stride
        scratch(iterator_buffer_bytes(shape, tuple(IterOp(a.shape, a.strides, a.dtype.itemsize)
                                                    for a in args) + (IterOp(shape, None, isz),),
                                      False, "K"))
    return ArrayMeta(shape, out_dt, st)


# --- generalized ufuncs -----------------------------------------------------

_sig_cache = BoundedCache("ufuncs sig_cache", 512 * 1024)


def parse_signature(sig: str) -> tuple[list, list]:
    """'(n?,k),(k,m?)->(n?,m?)' -> ([['n?','k'], ['k','m?']], [['n?','m?']])."""
    r = _sig_cache.get(sig)
    if r is None:
        ins, outs = sig.replace(" ", "").split("->")
        grp = lambda s: [[d for d in g.split(",") if d] for g in re.findall(r"\(([^)]*)\)", s)]
        r = _sig_cache[sig] = (grp(ins), grp(outs))
    return r


def gufunc_call(ufunc, *args, out=None, where=True, casting="same_kind", order="K",
                dtype=None, signature=None, axes=None, axis=None, keepdims=False) -> Any:
    """matmul / vecdot / matvec / vecmat and other gufuncs (``axes=`` / ``axis=`` /
    ``keepdims=``: ``_gufunc_axes``)."""
    order = converters.order(order)
    if axes is not None or axis is not None or keepdims:
        return _gufunc_axes(ufunc, args, out, where, casting, order, dtype, signature, axes,
                            axis, keepdims)
    if where is not True:
        raise TypeError(f"{ufunc.__name__}() got an unexpected keyword argument 'where'")
    inputs, outs = split_operands(ufunc, args, out)
    loop, metas = resolve_operands(ufunc, inputs, outs, dtype, signature, casting)
    arrays = list(metas)  # the array operands (None: a Python scalar, converted to the loop)
    for i, m in enumerate(metas):
        if m is None:
            metas[i] = np.asarray(inputs[i])
    in_sigs, out_sigs = parse_signature(ufunc.signature)
    dims: dict = {}
    missing: set = set()
    loop_shapes = []
    name = ufunc.__name__
    for i, (m, sig) in enumerate(zip(metas, in_sigs)):
        core = list(sig)
        nd = len(m.shape)
        required = len([d for d in core if not d.endswith("?")])
        if nd < len(core):
            # optional dims drop out, from the left for the first and the right for others
            if nd < required:
                raise ValueError(f"{name}: Input operand {i} does not have enough dimensions "
                                 f"(has {nd}, gufunc core with signature {ufunc.signature} "
                                 f"requires {required if required else len(core)})")
            drop = len(core) - nd
            for d in list(core):
                if drop and d.endswith("?"):
                    core.remove(d)
                    missing.add(d)
                    drop -= 1
        ncore = len(core)
        cshape = m.shape[nd - ncore:] if ncore else ()
        loop_shapes.append(m.shape[:nd - ncore])
        for d, n in zip(core, cshape):
            if d in dims:
                check_same(dims[d], n)
            if d in dims and dims[d] != n:
                raise ValueError(
                    f"{name}: Input operand {1 if i else 0} has a mismatch in its core dimension "
                    f"{0 if d == core[0] else len(core) - 1}, with gufunc signature "
                    f"{ufunc.signature} (size {n} is different from {dims[d]})")
            dims[d] = n
    lshape = broadcast_shapes(*loop_shapes)
    out_core = tuple(dims[d] for d in out_sigs[0] if d not in missing)
    shape = lshape + out_core
    o = outs[0]
    if o is not None:
        ncore = len(out_core)
        if len(o.shape) < ncore:
            raise ValueError(f"{name}: Output operand 0 does not have enough dimensions (has "
                             f"{len(o.shape)}, gufunc core with signature {ufunc.signature} "
                             f"requires {ncore})")
        if tuple(o.shape[len(o.shape) - ncore:]) != out_core:
            raise ValueError(f"{name}: Output operand 0 has a mismatch in its core dimension 0, "
                             f"with gufunc signature {ufunc.signature} (size {o.shape} is different from {shape})")
        oloop = tuple(o.shape[:len(o.shape) - ncore])
        if broadcast_shapes(lshape, oloop) != oloop:
            raise ValueError(f"non-broadcastable output operand with shape {o.shape} doesn't "
                             f"match the broadcast shape {shape}")
        check_writeable(o)
        operand_casts(arrays, outs, loop)
        _report_gufunc_copies(inputs, metas, loop, o, None)
        return o
    operand_casts(arrays, outs, loop)
    dt = loop[ufunc.nin]
    nloop = len(lshape)
    ops = []
    for m, ls in zip(metas, loop_shapes):
        st = m.strides[:len(ls)]
        full_shape = (1,) * (nloop - len(ls)) + tuple(ls) + (1,) * len(out_core)
        full_st = (0,) * (nloop - len(ls)) + tuple(st) + (0,) * len(out_core)
        # core axes do not vote; F-contiguity only decides order A
        ops.append((full_shape, full_st, order == "A" and m.flags.f_contiguous))
    res = ArrayMeta(shape, dt, iterator_out_strides(shape, dt.itemsize, ops, order))
    _report_gufunc_copies(inputs, metas, loop, None, res)
    return res if out is Ellipsis else pyarray_return(res)


def _gufunc_axes(ufunc: Any, args: tuple, out: Any, where: Any, casting: Any, order: Any,
                 dtype: Any, signature: Any, axes: Any, axis: Any, keepdims: Any) -> Any:
    """A gufunc with its core dimensions elsewhere (ufunc_object.c ``_parse_axes_arg`` /
    ``_parse_axis_arg``, ``_get_coredim_sizes``): the call on the inputs with their core axes
    moved last (in the order given), then NumPy's output, allocated by the iterator with its
    core axes innermost (C within them) and placed at the output's axes by its strides, so
    it owns its data. ``keepdims`` keeps the inputs' core axes as length 1. Forms not covered
    here (optional core dimensions, ``out=``, several outputs, entries NumPy would reject)
    are refused rather than guessed."""
    def refuse(why: str) -> UnsupportedOperationError:
        return UnsupportedOperationError(ufunc, f"axes=/axis=/keepdims= {why}")
    in_sigs, out_sigs = parse_signature(ufunc.signature)
    nin = ufunc.nin
    if ufunc.nout != 1:
        raise refuse("with several outputs")
    if out is not None or len(args) != nin or where is not True:
        raise refuse("with out= or where=")
    if not all(is_meta(x) for x in args):
        raise refuse("with a scalar or sequence operand")
    metas = [as_meta(x) for x in args]
    ncore = [len(g) for g in in_sigs] + [len(out_sigs[0])]
    keep = bool(keepdims)
    name, sig = ufunc.__name__, ufunc.signature
    if keep and (len(set(ncore[:nin])) != 1 or ncore[nin] != 0):
        raise TypeError(f"{name} does not support keepdims: its signature {sig} requires output "
                        f"0 to have {ncore[nin]} core dimensions, but keepdims can only be used "
                        "when all inputs have the same number of core dimensions and all "
                        "outputs have no core dimensions.")
    if axis is not None:
        if axes is not None:
            raise TypeError("cannot specify both 'axis' and 'axes'")
        dims = {d for g in in_sigs + out_sigs for d in g}
        if any(n != 1 for n in ncore[:nin]) or ncore[nin] != 0:
            if len(dims) > 1:
                raise TypeError(f"{name}: axis can only be used with a single shared core "
                                f"dimension, not with the {len(dims)} distinct ones implied by "
                                f"signature {sig}.")
            raise refuse("axis= for this signature")
        entries: list = [(axis,)] * nin + [(axis,) if keep else ()]
    elif axes is not None:
        if not isinstance(axes, list):
            raise TypeError("axes should be a list.")
        entries = [(e,) if isinstance(e, int) else e for e in axes]
        if len(entries) == nin and ncore[nin] == 0:  # kept core axes: last by default
            entries.append(tuple(range(-ncore[0], 0)) if keep else ())
        if len(entries) != nin + 1 or not all(
                isinstance(e, (tuple, list)) and all(type(i) is int for i in e) for e in entries):
            raise refuse("entries of this form")
    else:
        entries = [tuple(range(-n, 0)) for n in ncore[:nin]]
        entries.append(entries[0])  # keepdims: the output keeps the inputs' core axes
    counts = ncore[:nin] + [ncore[0] if keep else ncore[nin]]
    for i, (e, n) in enumerate(zip(entries, counts)):
        if len(e) != n:
            raise AxisError(f"{name}: operand {i} has {n} core dimensions, but {len(e)} "
                            "dimensions are specified by axes tuple.")
    moved = []
    for m, e in zip(metas, entries):
        core = [normalize_axis(i, m.ndim) for i in e]
        if len(set(core)) != len(core):
            raise refuse("with a repeated axis")
        rest = [i for i in range(m.ndim) if i not in core]
        perm = rest + core
        moved.append(ArrayMeta(tuple(m.shape[i] for i in perm), m.dtype,
                               tuple(m.strides[i] for i in perm)))
    res = gufunc_call(ufunc, *moved, casting=casting, order=order, dtype=dtype,
                      signature=signature)
    if not res.shape:  # no loop and no core axes: the NumPy scalar gufunc_call made
        return res
    shape, strides = list(res.shape), list(res.strides)
    if keep:  # the kept core axes: length 1, innermost
        shape += [1] * counts[nin]
        strides += [res.dtype.itemsize] * counts[nin]
    nd = len(shape)
    k = counts[nin]
    out_core = [normalize_axis(i, nd) for i in entries[nin]]
    if len(set(out_core)) != len(out_core):
        raise refuse("with a repeated axis")
    loop_pos = [i for i in range(nd) if i not in out_core]
    final_shape: list = [0] * nd
    final_strides: list = [0] * nd
    for src, dst in zip(range(nd - k), loop_pos):
        final_shape[dst], final_strides[dst] = shape[src], strides[src]
    for j, dst in enumerate(out_core):
        final_shape[dst], final_strides[dst] = shape[nd - k + j], strides[nd - k + j]
    return ArrayMeta(tuple(final_shape), res.dtype, tuple(final_strides))


def _report_gufunc_copies(inputs: list, metas: list, loop: tuple, out: Any, res: Any) -> None:
    """A gufunc's iterator does not buffer (ufunc_object.c, PyUFunc_GeneralizedFunctionInternal:
    NPY_ITER_COPY on inputs): each array input of another dtype is copied whole to its loop
    dtype, an ``out`` overlapping an input is written through a copy, and scalars become
    0-d arrays; all alive with the output."""
    held = converting = 0
    copies = 0
    for x, m, dt in zip(inputs, metas, loop):
        if is_meta(x):
            copies += cast_copy_bytes(m, dt)
        else:
            h, c = scalar_bytes(x, dt)
            converting = max(converting, held + c)
            held += h + cast_copy_bytes(np.asarray(x), dt) * (np.ndim(x) > 0)
    note("implicit_copy", copies)  # the array operands' casting copies
    copies += unbuffered_out_copy_bytes(metas, out, loop[len(inputs)])
    fresh = 0 if res is None else math.prod(res.shape) * res.dtype.itemsize
    extra = max(converting - fresh, held + copies)
    if extra > 0:
        transient(extra)


# --- ufunc calls inside replayed NumPy functions ---------------------------------------------

def ufunc_steps(st: Any, ufunc: np.ufunc, *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """``ufunc(*args, **kwargs)`` as a step of a replayed NumPy function (a ``Steps`` record,
    kernels/temporaries.py): records what the real call allocates, in order (operand_bytes'
    temporaries made before the outputs, the fresh outputs, the temporaries alive with them),
    and returns (result, bytes of its fresh outputs, for the caller to free when NumPy drops
    them). A 0-d result comes back as a NumPy scalar of its dtype (values are not known),
    an array result as a metadata stand-in; C-heap buffers pass through as scratch."""
    from ..registry import CALL, Costs
    saved, CALL.costs = CALL.costs, None
    notes: Any
    try:
        res = ufunc_call(ufunc, *args, _report=True, **kwargs)
        got = CALL.costs or Costs()
        late, heap, early, notes = got.transient, got.scratch, got.early, got.notes
    finally:
        CALL.costs = saved
    scratch(heap)
    for kind, n in notes:
        note(kind, n)
    st.temp(early)
    outs = []
    fresh = 0
    given = kwargs.get("out")
    given = given if type(given) is tuple else (given,)
    for r in (res if type(res) is tuple else (res,)):
        if type(r) is ArrayMeta and not any(r is g for g in given):  # a fresh output
            if r.scalar:
                r = r.dtype.type(0)  # its 0-d array is among the ``late`` bytes
            else:
                fresh += max(_size(r.shape) * r.dtype.itemsize, 1)
        outs.append(r)
    st.new(fresh)
    st.temp(late)
    return (outs[0] if len(outs) == 1 else tuple(outs)), fresh
