"""Products: dot, vdot, inner, outer, tensordot, kron, trace, einsum (simple cases)."""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .convert_datatype import cast_loop
from ..._errors import UnsupportedOperationError
from ..._numpy_version import EINSUM_BMM
from ... import converters
from ...layout import (c_strides, iterator_order, like_strides, normalize_axis, reshape_strides,
                     strides_in_order, try_broadcast)
from .hidden import cast_copy_bytes, overlap_copy_bytes
from ...meta import ArrayMeta, as_meta, check_writeable, is_aligned, is_fake, is_meta
from .. import flops
from ..registry import note, pyarray_return, register, transient
from .temporaries import array_bytes, asarray_bytes

_BLAS = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def meta_array(x: Any) -> Any:
    """A fake / ndarray as is; anything else as the array NumPy would make of it."""
    return as_meta(x)


def product_dtype(a: Any, b: Any) -> np.dtype:
    """dot's dtype: the legacy promotion of both operands (Python scalars are not weak)."""
    dt = np.result_type(a.dtype, b.dtype)
    if dt.kind not in "biufc":
        raise UnsupportedOperationError(np.dot, f"products of {dt} arrays")
    return dt.newbyteorder("=") if not dt.isnative else dt


def converted(m: Any, dt: np.dtype) -> Any:
    """The operand as PyArray_FromAny(op, dt) gives it: as is, or a K-order cast copy."""
    if m.dtype == dt:
        return m
    return ArrayMeta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize, m.flags.c_contiguous,
                                           m.flags.f_contiguous))


def _check_sum_out(out: Any, shape: tuple, dt: np.dtype) -> Any:
    """new_array_for_sum's checks on out=: the exact dtype, ndim, C-contiguous and writeable."""
    if not is_meta(out):
        raise TypeError("'out' must be an array")
    if (out.ndim != len(shape) or not np.can_cast(out.dtype, dt, "equiv")
            or not out.flags.c_contiguous or not out.flags.writeable or not out.flags.aligned):
        raise ValueError("output array is not acceptable (must have the right datatype, number "
                         "of dimensions, and be a C-Array)")
    if tuple(out.shape) != shape:
        raise ValueError("output array has wrong dimensions")
    return out


def _alignment_error(a: Any, b: Any, ia: int, ib: int) -> None:
    raise ValueError(f"shapes {a.shape} and {b.shape} not aligned: {a.shape[ia]} (dim {ia}) != "
                     f"{b.shape[ib]} (dim {ib})")


def dot_meta(a: Any, b: Any, out: Any = None) -> Any:
    """PyArray_MatrixProduct2 on metadata (reports its hidden copies, see ``dot_copies``)."""
    dt = product_dtype(a, b)
    if a.ndim == 0 or b.ndim == 0:
        if dt in _BLAS and a.ndim <= 2 and b.ndim <= 2:
            return _dot_result(a, b, tuple(b.shape if a.ndim == 0 else a.shape), dt, out)
        from .umath import ufunc_call
        transient(_from_any_bytes(a, dt) + _from_any_bytes(b, dt))
        return ufunc_call(np.multiply, converted(a, dt), converted(b, dt), out=out)
    match = b.ndim - 2 if b.ndim > 1 else 0
    if a.shape[-1] != b.shape[match]:
        _alignment_error(a, b, a.ndim - 1, match)
    shape = tuple(a.shape[:-1]) + tuple(b.shape[:match]) + tuple(b.shape[match + 1:])
    return _dot_result(a, b, shape, dt, out)


def _dot_result(a: Any, b: Any, shape: tuple, dt: np.dtype, out: Any) -> Any:
    """dot's result: ``out`` checked, or a fresh C array; its hidden copies reported."""
    res = _check_sum_out(out, shape, dt) if out is not None else \
        ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))
    transient(dot_copies(a, b, dt, out))
    return res


def _from_any_bytes(m: Any, dt: np.dtype) -> int:
    """PyArray_FromAny(op, dt, NPY_ARRAY_ALIGNED): a K-order copy unless ``m`` already is an
    aligned array of ``dt`` (NumPy scalars and lists, real here, become new arrays)."""
    if isinstance(m, np.ndarray):
        return m.size * dt.itemsize
    return cast_copy_bytes(m, dt)


def _bad_strides(m: Any) -> bool:
    """_bad_strides (cblasfuncs.c): misaligned for the itemsize, negative or odd strides,
    or a zero stride on an axis longer than 1."""
    isz = m.dtype.itemsize
    st = getattr(m, "storage", None)  # a stand-in for a view keeps its owner's alignment
    if st is not None and (st.alignment + m.storage_offset) % isz:
        return True
    if type(m) is ArrayMeta and not is_aligned(m):  # a view of an unaligned input
        return True
    return any(s < 0 or s % isz or (s == 0 and n > 1) for n, s in zip(m.shape, m.strides))


def _matrix_shape(m: Any) -> str:
    """_select_matrix_shape (cblasfuncs.c)."""
    if m.ndim == 0 or (m.ndim == 1 and m.shape[0] <= 1):
        return "scalar"
    if m.ndim == 1:
        return "column"
    if m.shape[0] > 1:
        return "column" if m.shape[1] == 1 else "matrix"
    return "scalar" if m.shape[1] == 1 else "row"


def dot_copies(a: Any, b: Any, dt: np.dtype, out: Any) -> int:
    """Bytes of the copies PyArray_MatrixProduct2 holds until it returns: each operand cast
    to the product dtype, then in cblas_matrixproduct (cblasfuncs.c) a copy of an operand
    with bad strides and of a matrix operand that is neither C- nor F-contiguous, and a
    copy of ``out`` when it overlaps an operand (new_array_for_sum, common.c)."""
    ops = []
    total = 0
    for m in (a, b):
        n = _from_any_bytes(m, dt)
        total += n
        ops.append(ArrayMeta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize,
                                                   m.flags.c_contiguous, m.flags.f_contiguous))
                   if n else m)
    blas = dt in _BLAS and a.ndim <= 2 and b.ndim <= 2
    if blas:
        for i, m in enumerate(ops):
            if _bad_strides(m):
                total += m.size * dt.itemsize
                ops[i] = ArrayMeta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize,
                                                         False, False))
    overlap = 0
    if out is not None and is_fake(out):
        overlap = overlap_copy_bytes(ops, out, out.dtype, elementwise=False)
    if blas:
        s1, s2 = _matrix_shape(ops[0]), _matrix_shape(ops[1])
        if "scalar" not in (s1, s2):
            for m, s in ((ops[0], s1), (ops[1], s2)):
                if s == "matrix" and not (m.flags.c_contiguous or m.flags.f_contiguous):
                    total += m.size * dt.itemsize
    note("implicit_copy", total)  # the operand copies (the overlap copy is noted apart)
    return total + overlap


@register(np.dot, "ndarray.dot", tags=("copy",), flops=flops.dot)
def dot(a: Any, b: Any, out: Any = None) -> Any:
    """A fresh C array of dot's shape, a multiply for 0-d operands, or ``out``."""
    return pyarray_return(dot_meta(meta_array(a), meta_array(b), out))


@register(np.vdot, tags=("copy",), flops=flops.vdot)
def vdot(a: Any, b: Any) -> ArrayMeta:
    """A 0-d result of the promoted dtype; the flattened sizes must match.

    array_vdot (multiarraymodule.c) holds each operand cast to the dtype (PyArray_FromAny)
    and reshaped to 1-d in C order (a copy unless it is a view) until it returns."""
    a, b = meta_array(a), meta_array(b)
    dt = product_dtype(a, b)
    copies = 0
    for m in (a, b):
        # PyArray_FromAny(op, typec, 0, 0, 0): flags 0, so a copy only to cast (an unaligned
        # array of the dtype is used as it is)
        n = (m.size * dt.itemsize if isinstance(m, np.ndarray) else
             array_bytes(tuple(m.shape), dt) if m.dtype != dt else 0)
        if n:
            m = ArrayMeta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize,
                                                m.flags.c_contiguous, m.flags.f_contiguous))
        copies += n + reshaped(m, list(range(m.ndim)), (m.size,))[1]
    if a.size != b.size:
        raise ValueError("vectors have different lengths")
    transient(copies, kind="implicit_copy")
    return pyarray_return(ArrayMeta((), dt, ()))


def reshaped(m: Any, perm: list, shape: tuple) -> tuple:
    """``m.transpose(perm).reshape(shape)`` (C order): (the result's stand-in, bytes copied).

    PyArray_Newshape (shape.c): a view when _attempt_nocopy_reshape finds strides,
    otherwise a C-contiguous copy."""
    sh = tuple(m.shape[p] for p in perm)
    st = tuple(m.strides[p] for p in perm)
    shape, new = reshape_strides(sh, st, m.dtype.itemsize, shape)
    if new is None:
        return ArrayMeta(shape, m.dtype, c_strides(shape, m.dtype.itemsize)), array_bytes(shape, m.dtype)
    # a view starts where m starts: it keeps m's alignment (an unaligned input stays one)
    return ArrayMeta(shape, m.dtype, new,
                     view_of=m if is_meta(m) and not is_aligned(m) else None), 0


@register(np.inner, tags=("copy",), flops=flops.dot)
def inner(a: Any, b: Any) -> Any:
    """dot(a, b with its last axis moved to position -2)."""
    a, b = meta_array(a), meta_array(b)
    if a.ndim and b.ndim and a.shape[-1] != b.shape[-1]:
        _alignment_error(a, b, a.ndim - 1, b.ndim - 1)
    if a.ndim >= 1 and b.ndim >= 2:  # a transposed view: its cast copy is made first
        perm = list(range(b.ndim - 2)) + [b.ndim - 1, b.ndim - 2]
        b = ArrayMeta(tuple(b.shape[p] for p in perm), b.dtype, tuple(b.strides[p] for p in perm))
    return pyarray_return(dot_meta(a, b))


@register(np.outer, tags=("copy",), flops=flops.elementwise)
def outer(a: Any, b: Any, out: Any = None) -> Any:
    """multiply.outer of the raveled inputs (numeric.py: ``asarray`` of each, ``ravel()``:
    a copy of one that is not C-contiguous, alive through the product)."""
    made = asarray_bytes(a) + asarray_bytes(b)
    a, b = meta_array(a), meta_array(b)
    from .umath import ufunc_call
    ra = ArrayMeta((a.size, 1), a.dtype, (a.dtype.itemsize, 0))
    rb = ArrayMeta((1, b.size), b.dtype, (0, b.dtype.itemsize))
    res = ufunc_call(np.multiply, ra, rb, out=out, _report=True)
    transient(made + sum(0 if m.flags.c_contiguous else array_bytes((m.size,), m.dtype)
                         for m in (a, b)))
    return res


def _axis_list(axes: Any) -> list:
    """numeric.py tensordot: a sequence of axes as a list, one axis as a list of one."""
    try:
        len(axes)
    except TypeError:
        return [axes]
    return list(axes)


@register(np.tensordot, tags=("copy",), flops=flops.tensordot)
def tensordot(a: Any, b: Any, axes: Any = 2) -> ArrayMeta:
    """The reshaped view of dot(at, bt) that numpy.tensordot returns."""
    a, b = meta_array(a), meta_array(b)
    try:
        iter(axes)
    except Exception:
        axes_a = list(range(-axes, 0))
        axes_b = list(range(0, axes))
    else:
        axes_a, axes_b = axes
    axes_a, axes_b = _axis_list(axes_a), _axis_list(axes_b)
    na, nb = len(axes_a), len(axes_b)
    as_, bs = a.shape, b.shape
    nda, ndb = a.ndim, b.ndim
    equal = True
    if na != nb:
        equal = False
    else:
        for k in range(na):
            if as_[axes_a[k]] != bs[axes_b[k]]:
                equal = False
                break
            if axes_a[k] < 0:
                axes_a[k] += nda
            if axes_b[k] < 0:
                axes_b[k] += ndb
    if not equal:
        raise ValueError("shape-mismatch for sum")
    notin_a = [k for k in range(nda) if k not in axes_a]
    notin_b = [k for k in range(ndb) if k not in axes_b]
    for perm, nd in ((notin_a + axes_a, nda), (axes_b + notin_b, ndb)):
        if sorted(perm) != list(range(nd)):
            raise ValueError("repeated axis in transpose" if len(set(perm)) != len(perm)
                             else "axes don't match array")
    n2 = math.prod(as_[ax] for ax in axes_a)
    at, na = reshaped(a, notin_a + axes_a, (math.prod(as_[ax] for ax in notin_a), n2))
    bt, nb = reshaped(b, axes_b + notin_b, (n2, math.prod(bs[ax] for ax in notin_b)))
    transient(na + nb, kind="implicit_copy")  # the reshapes' copies live until dot returns
    res = dot_meta(at, bt)
    shape = tuple(as_[ax] for ax in notin_a) + tuple(bs[ax] for ax in notin_b)
    shape, st = reshape_strides(res.shape, res.strides, res.dtype.itemsize, shape)
    return ArrayMeta(shape, res.dtype, st, base_shape=res.shape)


@register(np.trace, "ndarray.trace", tags=("reduction",), flops=flops.trace)
def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: Any = None) -> Any:
    """diagonal(...).sum(-1): shape without the two axes, sum's dtype rules."""
    a = meta_array(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1 = normalize_axis(axis1, a.ndim, "axis1")
    ax2 = normalize_axis(axis2, a.ndim, "axis2")
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    operator.index(offset)
    shape = tuple(n for i, n in enumerate(a.shape) if i not in (ax1, ax2))
    if dtype is not None:
        dt = np.dtype(dtype)
    else:
        dt = a.dtype
        if dt.kind == "b" or (dt.kind in "iu" and dt.itemsize < np.dtype(np.intp).itemsize):
            dt = np.dtype(np.int_) if dt.kind in "bi" else np.dtype(np.uint)
        if dt.kind not in "biufc":
            raise UnsupportedOperationError(np.trace, f"trace of {dt} arrays")
    if out is not None:
        if tuple(out.shape) != shape:
            raise ValueError(f"output parameter for reduction operation add has the wrong "
                             f"number of dimensions: Found {out.ndim} but expected {len(shape)}")
        check_writeable(out)
        loop = dt  # sum's loop: the dtype asked for, else the input's (out does not choose it)
        cast_loop(a.dtype, loop)  # the sum's operand cast, then its result into out (twice:
        cast_loop(loop, out.dtype, 2)  # a reduction's initial values and its result)
        return out
    cast_loop(a.dtype, dt)
    rest = [i for i in range(a.ndim) if i not in (ax1, ax2)]
    off = operator.index(offset)
    n1, n2 = a.shape[ax1], a.shape[ax2]
    dlen = max(0, min(n1, n2 - off) if off >= 0 else min(n1 + off, n2))
    full = shape + (dlen,)
    fst = tuple(a.strides[i] for i in rest) + (a.strides[ax1] + a.strides[ax2],)
    perm = [p for p in iterator_order(full, [(full, fst)]) if p != len(shape)]
    return pyarray_return(ArrayMeta(shape, dt, strides_in_order(shape, dt.itemsize, perm)))


@register(np.kron, tags=("copy",), flops=flops.elementwise)
def kron(a: Any, b: Any) -> Any:
    """_shape_base_impl.py kron: ``multiply`` of ``a`` expanded at the odd and ``b`` at the even
    axes of the interleaved shape (the iterator's K-order layout over both), then
    ``reshape`` to the product of the shapes: a view of the product when its layout allows,
    else a C copy (the product then a temporary). 0-d operands: ``multiply(a, b)``."""
    from .temporaries import asarray_bytes
    from .umath import ufunc_call
    from .creation import array as _array_k
    from ...layout import attempt_nocopy_reshape
    from .views import expand_dims
    a0, b0 = a, b
    b = meta_array(b)
    # the arrays made of non-array arguments live to the end
    transient(asarray_bytes(a0) + asarray_bytes(b0))
    rp = _Replay()
    a = rp.call(_array_k, a if is_meta(a) else meta_array(a), copy=None, subok=True, ndmin=b.ndim)
    nda, ndb = a.ndim, b.ndim
    if nda == 0 or ndb == 0:
        return ufunc_call(np.multiply, a, b, _report=True)
    nd = max(nda, ndb)
    sa = (1,) * (nd - nda) + tuple(a.shape)
    sb = (1,) * (nd - ndb) + tuple(b.shape)
    a_arr = rp.call(expand_dims, rp.call(expand_dims, a, tuple(range(ndb - nda))),
                    tuple(range(1, nd * 2, 2)))
    b_arr = rp.call(expand_dims, rp.call(expand_dims, b, tuple(range(nda - ndb))),
                    tuple(range(0, nd * 2, 2)))
    prod = rp.call(ufunc_call, np.multiply, a_arr, b_arr)
    # ``_nx.multiply(as_, bs)``: two intp arrays of the shapes, and their product, alive
    # while reshape runs
    ins = rp.steps.new(2 * nd * 8)
    dims = rp.steps.new(nd * 8)
    rp.steps.free(ins)
    shape = tuple(x * y for x, y in zip(sa, sb))
    it = prod.dtype.itemsize
    if not prod.size:  # an empty product: reshape's own rule (nothing is copied)
        from .views import reshape as _reshape_k
        res = rp.call(_reshape_k, prod, shape)
        rp.steps.free(dims)
        rp.done(None)
        return res
    strides = attempt_nocopy_reshape(tuple(prod.shape), tuple(prod.strides), it, shape, False)
    if strides is not None:  # a view of the product
        rp.steps.free(dims)
        rp.done(None)
        return ArrayMeta(shape, prod.dtype, strides, view_of=prod)
    # reshape's copy: a C copy in the product's shape, viewed; the product dies
    rp.steps.new(math.prod(prod.shape) * it)
    rp.drop(prod)
    rp.steps.free(dims)
    rp.done(None)
    return ArrayMeta(shape, prod.dtype, c_strides(shape, it), base_shape=tuple(prod.shape))


# --- einsum (c_einsum, optimize=False) ---------------------------------------------

_UNSET = object()  # a keyword not given (einsumfunc.einsum passes on only those given)


def _einsum_labels(term: str, where: str = "") -> list:
    """The labels of one subscripts term: letters, and Ellipsis for a '...'."""
    labels: list = []
    i = 0
    while i < len(term):
        ch = term[i]
        if ch == " ":
            i += 1
            continue
        if ch == ".":
            if Ellipsis in labels or term[i:i + 3] != "...":
                raise ValueError("einstein sum subscripts string contains a '.' that is not "
                                 f"part of an ellipsis ('...'){where}")
            labels.append(Ellipsis)
            i += 3
            continue
        if not (ch.isascii() and ch.isalpha()):
            raise ValueError(f"invalid subscript '{ch}' in einstein sum subscripts string, "
                             "subscripts must be letters")
        labels.append(ch)
        i += 1
    return labels


def _einsum_term(term: str, ndim: int, iop: int, counts: dict) -> list:
    """Labels of one operand's axes: a letter, or None for an ellipsis (broadcast) axis."""
    labels = _einsum_labels(term, f" in operand {iop}")
    for ch in labels:
        if ch is not Ellipsis:
            counts[ch] = counts.get(ch, 0) + 1
    ell = Ellipsis in labels
    n = len(labels) - ell
    if ell:
        if n > ndim:
            raise ValueError(f"einstein sum subscripts string contains too many subscripts for "
                             f"operand {iop}")
        k = labels.index(Ellipsis)
        return labels[:k] + [None] * (ndim - n) + labels[k + 1:]
    if n != ndim:
        raise ValueError(f"operand has more dimensions than subscripts given in einstein sum, "
                         f"but no '...' ellipsis provided to broadcast the extra dimensions."
                         if ndim > n else f"einstein sum subscripts string contains too many "
                         f"subscripts for operand {iop}")
    return labels


def _einsum_output(spec: str, nbcast: int, counts: dict) -> list:
    labels: list = []
    toks = _einsum_labels(spec, " in the output")
    for ch in toks:
        if ch is Ellipsis:
            labels.extend([None] * nbcast)
            continue
        if ch in labels:
            raise ValueError(f"einstein sum subscripts string includes output subscript '{ch}' "
                             "multiple times")
        if ch not in counts:
            raise ValueError(f"einstein sum subscripts string included output subscript '{ch}' "
                             "which never appeared in an input")
        labels.append(ch)
    if Ellipsis not in toks and nbcast > 0:
        raise ValueError("output has more dimensions than subscripts given in einstein sum, but "
                         "no '...' ellipsis provided to broadcast the extra dimensions.")
    return labels


def _combined(m: Any, labels: list) -> tuple:
    """get_combined_dims_view: repeated labels of one operand merged into their diagonal."""
    shape: list[int] = []
    strides: list[int] = []
    labs: list[Any] = []
    for n, s, lab in zip(m.shape, m.strides, labels):
        if lab is not None and lab in labs:
            j = labs.index(lab)
            if shape[j] != n:
                raise ValueError(f"dimensions in operand for collapsing index '{lab}' don't "
                                 f"match ({shape[j]} != {n})")
            strides[j] += s
            continue
        shape.append(n)
        strides.append(s)
        labs.append(lab)
    return shape, strides, labs


def _sublist_labels(sub: Any) -> str:
    """One operand's sublist as subscript letters (multiarraymodule.c
    einsum_list_to_subscripts: 0-25 are 'A'-'Z', 26-51 'a'-'z', Ellipsis '...')."""
    out, ell = [], False
    for item in sub:
        if item is Ellipsis:
            if ell:
                raise ValueError("each subscripts list may have only one ellipsis")
            ell = True
            out.append("...")
            continue
        s = operator.index(item)
        if not 0 <= s < 52:
            raise ValueError("subscript is not within the valid range [0, 52)")
        out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
    return "".join(out)


def _sublist_form(operands: tuple) -> tuple:
    """``einsum(op0, sublist0, op1, sublist1, ..., [sublistout])`` as the subscripts string
    form NumPy builds from it (multiarraymodule.c einsum_sub_op_from_lists)."""
    nop = len(operands) // 2
    subs = ",".join(_sublist_labels(operands[2 * i + 1]) for i in range(nop))
    if len(operands) % 2:
        subs += "->" + _sublist_labels(operands[-1])
    return (subs,) + tuple(operands[2 * i] for i in range(nop))


@register(np.einsum, tags=("copy",), flops=flops.einsum)
def einsum(*operands: Any, out: Any = None, optimize: Any = False, dtype: Any = None,
           order: Any = _UNSET, casting: Any = _UNSET) -> Any:
    """c_einsum: a view for a single operand without summation, else NpyIter's K-order output.
    With optimize, einsumfunc.einsum's contractions (the keywords given reach each one)."""
    if optimize is not False:
        return _einsum_optimized(operands, out, optimize, dtype, order, casting)
    order = "K" if order is _UNSET else order
    casting = "safe" if casting is _UNSET else casting
    if operands and not isinstance(operands[0], str):
        operands = _sublist_form(operands)
    if not operands:
        raise UnsupportedOperationError(np.einsum, "no operands")
    subs, ops = operands[0], [as_meta(x) for x in operands[1:]]
    nop = len(ops)
    if nop < 1:
        raise ValueError("not enough operands provided to einstein sum function")
    casting = converters.casting(casting)
    if "->" in subs:
        ins, outspec = subs.split("->", 1)
    else:
        if "-" in subs or ">" in subs:
            raise ValueError("einstein sum subscript string does not contain proper '->' "
                             "output specified")
        ins, outspec = subs, None
    terms = ins.split(",")
    if len(terms) > nop:
        raise ValueError("fewer operands provided to einstein sum function than specified in "
                         "the subscripts string")
    if len(terms) < nop:
        raise ValueError("more operands provided to einstein sum function than specified in "
                         "the subscripts string")
    counts: dict = {}
    op_labels = [_einsum_term(t, m.ndim, i, counts) for i, (t, m) in enumerate(zip(terms, ops))]
    nbcast = max(sum(1 for lab in labs if lab is None) for labs in op_labels)
    if outspec is None:
        out_labels = [None] * nbcast + sorted(k for k, c in counts.items() if c == 1)
    else:
        out_labels = _einsum_output(outspec, nbcast, counts)
    nout = len(out_labels)
    if out is not None and out.ndim != nout:
        raise ValueError(f"out parameter does not have the correct number of dimensions, has "
                         f"{out.ndim} but should have {nout}")
    if nop == 1 and out is None:
        view = _single_op_view(ops[0], op_labels[0], out_labels)
        if view is not None:
            return view
    combined = [_combined(m, labs) for m, labs in zip(ops, op_labels)]
    iter_labels = list(out_labels) + sorted(k for k in counts if k not in out_labels)
    nd = len(iter_labels)
    # each operand's (shape, strides) over the iterator axes (broadcast axes right-aligned)
    iter_ops = []
    for shape, strides, labs in combined:
        osh, ost = [1] * nd, [0] * nd
        ib = len(labs) - 1
        for i in range(nd - 1, -1, -1):
            lab = iter_labels[i]
            if lab is None:
                while ib >= 0 and labs[ib] is not None:
                    ib -= 1
                if ib >= 0:
                    osh[i], ost[i] = shape[ib], strides[ib]
                    ib -= 1
            elif lab in labs:
                j = labs.index(lab)
                osh[i], ost[i] = shape[j], strides[j]
        iter_ops.append((tuple(osh), tuple(ost)))
    ishape = try_broadcast([osh for osh, _ in iter_ops])
    if ishape is None:
        raise ValueError("operands could not be broadcast together with remapped "
                         "shapes [original->remapped]")
    oshape = ishape[:nout]
    if dtype is not None:
        dt = np.dtype(dtype)
    else:
        dt = np.result_type(*[m.dtype for m in ops])
    if not dt.isnative:
        dt = dt.newbyteorder("=")
    for m in ops:
        if not np.can_cast(m.dtype, dt, casting):
            raise TypeError(f"Iterator operand 0 dtype could not be cast from {m.dtype!r} to "
                            f"{dt!r} according to the rule {casting!r}")
    if out is not None:
        if tuple(out.shape) != oshape:
            raise ValueError("non-broadcastable output operand with shape "
                             f"{tuple(out.shape)} doesn't match the broadcast shape {ishape}")
        if not np.can_cast(dt, out.dtype, casting):
            raise TypeError(f"Iterator requested dtype could not be cast from {dt!r} to "
                            f"{out.dtype!r}, the operand {nop} dtype, according to the rule "
                            f"{casting!r}")
        check_writeable(out)
        for m in ops:
            cast_loop(m.dtype, dt)
        cast_loop(dt, out.dtype)
        return out
    for m in ops:  # the iterator's operand casts
        cast_loop(m.dtype, dt)
    order = converters.order(order)
    if order == "A":
        raise UnsupportedOperationError(np.einsum, "order='A'")
    if order == "C" or nd <= 1:
        perm = list(range(nd - 1, -1, -1))
    elif order == "F":
        perm = list(range(nd))
    else:
        perm = iterator_order(ishape, iter_ops)
    operm = [p for p in perm if p < nout]
    res = ArrayMeta(oshape, dt, strides_in_order(oshape, dt.itemsize, operm))
    return pyarray_return(res) if not oshape else res  # c_einsum's PyArray_Return


def _single_op_view(m: Any, labels: list, out_labels: list) -> ArrayMeta | None:
    """get_single_op_view: the operand re-strided onto the output axes, if nothing is summed."""
    nout = len(out_labels)
    dims, strides = [0] * nout, [0] * nout
    ib = 0
    for n, s, lab in zip(m.shape, m.strides, labels):
        if lab is None:
            while ib < nout and out_labels[ib] is not None:
                ib += 1
            if ib == nout:
                raise ValueError("output had too few broadcast dimensions")
            dims[ib], strides[ib] = n, s
            ib += 1
            continue
        if lab not in out_labels:
            return None
        i = out_labels.index(lab)
        if dims[i] != 0 and dims[i] != n:
            raise ValueError(f"dimensions in single operand for collapsing index '{lab}' don't "
                             f"match ({dims[i]} != {n})")
        dims[i] = n
        strides[i] += s
    return ArrayMeta(tuple(dims), m.dtype, tuple(strides), view_of=m)


# --- einsum(optimize=...), einsum_path (numpy/_core/einsumfunc.py) ----------------------------
# The path is NumPy's own einsum_path run on stand-ins: read-only broadcast views of one
# element with each operand's shape and dtype (it reads shapes only). einsum then replays
# einsumfunc.einsum's loop on metadata: bmm_einsum (single-term c_einsum, reshape, matmul or
# multiply, reshape/transpose back) for two operands, c_einsum for the others.

def _einsumfunc() -> Any:
    import numpy._core.einsumfunc as ef
    return ef


def _standin(m: Any) -> np.ndarray:
    """A zero-byte array with ``m``'s shape and dtype (broadcast from one element)."""
    return np.broadcast_to(np.zeros((), m.dtype), tuple(m.shape))


def _path_args(operands: tuple) -> tuple[list, dict]:
    """The operands with every array replaced by its stand-in; stand-in id -> meta."""
    args, back = [], {}
    for x in operands:
        if is_meta(x) or isinstance(x, np.ndarray):
            m = as_meta(x)
            st = _standin(m)
            back[id(st)] = m
            args.append(st)
        else:
            args.append(x)
    return args, back


@register(np.einsum_path, tags=("query",))
def einsum_path(*operands: Any, optimize: Any = "greedy", einsum_call: bool = False) -> Any:
    """np.einsum_path: NumPy's own, on shape stand-ins (the path and its printed report)."""
    args, back = _path_args(operands)
    res = _einsumfunc().einsum_path.__wrapped__(*args, optimize=optimize,
                                                einsum_call=einsum_call) \
        if hasattr(_einsumfunc().einsum_path, "__wrapped__") else \
        _einsumfunc().einsum_path(*args, optimize=optimize, einsum_call=einsum_call)
    if einsum_call:
        ops, clist = res
        return [back.get(id(o), o) for o in ops], clist
    return res


def _owned(r: Any) -> int:
    """Bytes of a fresh buffer a sub-call's result holds (0 for a view)."""
    if type(r) is ArrayMeta and r.view_of is None and not r.scalar:
        return max(math.prod(r.base_shape or r.shape) * r.dtype.itemsize, 1)
    return 0


def _copied(fn: Any, src: ArrayMeta, r: ArrayMeta) -> bool:
    """Whether a reshape of the intermediate ``src`` had to copy: reshape_out answers a copy
    and a view of a temporary alike (a result over a buffer of src's shape), so the kernels'
    reshape-as-view rule tells them apart."""
    from .views import reshape as _reshape_k
    return fn is _reshape_k and reshape_strides(
        tuple(src.shape), tuple(src.strides), src.dtype.itemsize, tuple(r.shape))[1] is None


class _Replay:
    """einsumfunc.einsum's loop on metadata: each sub-call's result is allocated with its
    own temporaries beside it; a contraction's intermediate inputs die after it."""

    def __init__(self) -> None:
        from .temporaries import Steps
        self.steps = Steps()
        self.owner: dict = {}  # id(meta) -> (buffer key, bytes)
        self.refs: dict = {}

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from .hidden import captured
        with captured() as cap:
            r = fn(*args, **kwargs)
        if type(r) is ArrayMeta and r.view_of is None and r.base_shape is not None:
            # views.emit: a view of a non-fake operand (an intermediate, or a view of an input)
            src = next((x for x in args if type(x) is ArrayMeta
                        and tuple(x.shape) == r.base_shape), None)
            if src is not None and _copied(fn, src, r):
                r = r._replace(base_shape=None)  # a fresh C copy of src (reshape_out)
            elif src is not None:
                r = r._replace(view_of=src, base_shape=None)
        n = _owned(r)
        if n:
            self.steps.new(n)
            self.owner[id(r)] = (id(r), n)
            self.refs[id(r)] = 1
        elif type(r) is ArrayMeta and type(r.view_of) is ArrayMeta and id(r.view_of) in self.owner:
            key = self.owner[id(r.view_of)]
            self.owner[id(r)] = key
            self.refs[key[0]] += 1
        self.steps.temp(cap.transient)
        return r

    def drop(self, *ms: Any) -> None:
        for m in ms:
            key = self.owner.pop(id(m), None)
            if key is None:
                continue
            self.refs[key[0]] -= 1
            if not self.refs[key[0]]:
                self.steps.free(key[1])

    def done(self, res: Any) -> None:
        """The result (and a buffer it views) stays alive: the mode charges it."""
        self.steps.done()


def _einsum_tensordot(rp: _Replay, ops: list, clist: list, out: Any, kwargs: dict) -> Any:
    """einsumfunc.einsum before NumPy 2.4 (``EINSUM_BMM`` false) on metadata: a contraction
    BLAS can do is a tensordot, then a single-term c_einsum to the result's axis order (or
    into ``out``); the others a c_einsum; the result ``asanyarray(order=...)`` (order only
    there, 'A' meaning F when every operand is F-contiguous)."""
    from .creation import asarray as _asanyarray_k
    kwargs = dict(kwargs)
    oorder = kwargs.pop("order", "K")
    if oorder.upper() == "A":
        oorder = "F" if all(as_meta(x).flags.f_contiguous for x in ops) else "C"
    for num, (inds, idx_rm, eq, _, blas) in enumerate(clist):
        tmp = [ops.pop(x) for x in inds]
        handle_out = out is not None and num + 1 == len(clist)
        kw = dict(kwargs, out=out) if handle_out else kwargs
        if blas:
            input_str, results_index = eq.split("->")
            left, right = input_str.split(",")
            tensor_result = left + right
            for ch in idx_rm:
                tensor_result = tensor_result.replace(ch, "")
            axes = (tuple(left.find(ch) for ch in sorted(idx_rm)),
                    tuple(right.find(ch) for ch in sorted(idx_rm)))
            new = rp.call(tensordot, tmp[0], tmp[1], axes=axes)
            if tensor_result != results_index or handle_out:
                new2 = rp.call(einsum, tensor_result + "->" + results_index, new, **kw)
                rp.drop(new)
                new = new2
        else:
            new = rp.call(einsum, eq, *tmp, **kw)
        rp.drop(*tmp)
        ops.append(new)
    if out is not None:
        rp.done(out)
        return out
    res = ops[0]
    if oorder.upper() != "K":
        res2 = rp.call(_asanyarray_k, res, order=oorder)
        if res2 is not res:
            rp.drop(res)
        res = res2
    rp.done(res)
    return res


def _bmm_operand(rp: Any, x: Any, eq: Any, shape: Any) -> Any:
    """One operand of bmm_einsum: its single-term einsum, then its reshape (each step's input
    freed once the next exists, never the operand itself)."""
    from .views import reshape as _reshape_k
    x0 = x
    if eq is not None:
        x = rp.call(einsum, eq, x)
    if shape is not None:
        x2 = rp.call(_reshape_k, x, shape)
        if x is not x0:
            rp.drop(x)
        x = x2
    return x


def _bmm(rp: _Replay, eq: str, a: Any, b: Any, out: Any, kwargs: dict) -> Any:
    """bmm_einsum (numpy/_core/einsumfunc.py) on metadata."""
    from .umath import ufunc_call
    from .views import reshape as _reshape_k, transpose as _transpose_k
    from .creation import asarray as _asanyarray_k
    ef = _einsumfunc()
    eq_a, eq_b, nsa, nsb, nsab, perm, pure = ef._parse_eq_to_batch_matmul(
        eq, tuple(a.shape), tuple(b.shape))
    kwargs = dict(kwargs)
    oorder = ef._parse_output_order(kwargs.pop("order", "K"), a.flags.f_contiguous,
                                    b.flags.f_contiguous)
    a0, b0 = a, b
    a, b = _bmm_operand(rp, a, eq_a, nsa), _bmm_operand(rp, b, eq_b, nsb)
    ukw = {k: v for k, v in kwargs.items() if v is not None}
    if pure:
        if oorder is not None:
            ukw["order"] = oorder
        r = rp.call(ufunc_call, np.multiply, a, b, out=out, **ukw)
        rp.drop(*(x for x in (a, b) if x is not a0 and x is not b0))
        return r
    compatible = nsab is None and perm is None
    ab = rp.call(ufunc_call, np.matmul, a, b, out=out if compatible else None, **ukw)
    rp.drop(*(x for x in (a, b) if x is not a0 and x is not b0))
    if nsab is not None:
        ab2 = rp.call(_reshape_k, ab, nsab)
        rp.drop(ab)
        ab = ab2
    if perm is not None:
        ab2 = rp.call(_transpose_k, ab, perm)
        rp.drop(ab)
        ab = ab2
    if out is not None and not compatible:
        from .indexing import setitem
        rp.call(setitem, out, Ellipsis, ab)
        rp.drop(ab)
        return out
    if oorder is not None:
        ab2 = rp.call(_asanyarray_k, ab, order=oorder)
        if ab2 is not ab:
            rp.drop(ab)
        ab = ab2
    return ab


def _einsum_optimized(operands: tuple, out: Any, optimize: Any, dtype: Any, order: Any,
                      casting: Any) -> Any:
    """einsumfunc.einsum with optimize: NumPy's path, then its contractions on metadata."""
    ops, clist = einsum_path(*operands, optimize=optimize, einsum_call=True)
    kwargs = {k: v for k, v in (("dtype", dtype), ("order", order), ("casting", casting))
              if v is not _UNSET and not (k == "dtype" and v is None)}
    rp = _Replay()
    ops = list(ops)
    if not EINSUM_BMM:
        return _einsum_tensordot(rp, ops, clist, out, kwargs)
    for num, (inds, eq, _) in enumerate(clist):
        tmp = [ops.pop(x) for x in inds]
        handle_out = out is not None and num + 1 == len(clist)
        if len(tmp) == 2:
            new = _bmm(rp, eq, tmp[0], tmp[1], out if handle_out else None, kwargs)
        else:
            new = rp.call(einsum, eq, *tmp, out=out if handle_out else None, **kwargs)
        rp.drop(*tmp)
        ops.append(new)
    res = out if out is not None else ops[0]
    rp.done(res)
    return res
