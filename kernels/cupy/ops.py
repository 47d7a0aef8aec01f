"""CuPy rules for CUDA fakes: linear-algebra products, joining and splitting, ufunc
methods, cumsum/cumprod and linspace/logspace.

Every rule cites the CuPy 14 source it follows (github.com/cupy/cupy). Facts that differ
from NumPy:
- products (dot, matmul, inner, vdot, tensordot) return fresh C-contiguous arrays of
  ``numpy.promote_types`` (cupy/_core/_routines_linalg.pyx ``dot``/``matmul``/
  ``tensordot_core``); ``vdot`` returns a 0-d array, not a scalar; ``dot(out=)`` checks
  only out's dtype, C-contiguity and *size*, and returns out;
- ``concatenate`` and the stack family always allocate C order (``concatenate_method``:
  ``core.ndarray(shape, dtype)``), dtype ``reduce(promote_types, dtypes)``; 0-d inputs
  raise TypeError;
- ``array_split`` returns the input itself for a single section and offsets every
  view of an empty array by 0 (``_routines_manipulation.pyx array_split``);
- ``cumsum(axis=k)`` returns a view of a temporary laid out with axis k innermost
  (``_routines_math.pyx _proc_as_batch``); reshapes follow CuPy's stride rule for
  length-1 axes (``_get_strides_for_nocopy_reshape``);
- ufunc methods: only ``add``/``multiply`` have reduce/accumulate, only ``add`` has
  reduceat, ``at`` only where a scatter op exists (``_kernel.pyx ufunc``).
"""
from __future__ import annotations

import functools
import math
import numbers
import operator
import warnings
from typing import Any, Callable, cast

import numpy as np

from ..._errors import UnsupportedOperationError
from .core import on_cupy
from .core import (REDUCTIONS, cupy_module, cscalar, check_array, check_dtype, cupy_ufunc_call,
                   current_device, device_of, guess_loop, is_device_array,
                   register_rules, temp)
from ...layout import cupy_nocopy_strides
from ...layout import c_strides, contiguity, f_strides, like_strides, normalize_axis, try_broadcast
from ...meta import ArrayMeta
from ...converters import Casting
from .. import flops


_F8 = np.dtype(np.float64)


def view_of(x: Any, shape: tuple | None = None, dtype: Any = None) -> ArrayMeta:
    """A fresh C intermediate like ``x`` (a fake or ArrayMeta) on its device, optionally
    with another shape or dtype."""
    return temp(x.shape if shape is None else shape, x.dtype if dtype is None else dtype, x)


def _ufunc(name: str) -> Any:
    f = getattr(cupy_module(), name)
    return getattr(f, "__wrapped__", f)


def ufunc_out(name: str, *args: Any, **kw: Any) -> Any:
    """A CuPy ufunc call on fakes / ArrayMeta records / scalars (cupy/_core/_kernel.pyx ufunc.__call__)."""
    return cupy_ufunc_call(_ufunc(name), *args, **kw)


def cuda_array(x: Any, what: str = "a") -> Any:
    """A Cython ``_ndarray_base`` parameter: a CUDA fake, else TypeError."""
    if is_device_array(x) and device_of(x) != "cpu":
        return x
    raise TypeError(f"Argument '{what}' has incorrect type (expected cupy._core.core._ndarray_base,"
                    f" got {type(x).__name__})")


def _same_device(name: str, *arrays: Any) -> str:
    """cuBLAS paths do not check devices: a mismatch is not something we can reproduce."""
    dev = current_device()
    for a in arrays:
        if a is not None and device_of(a) != dev:
            raise UnsupportedOperationError(name, "operands on another device than the current one")
    return dev


def fresh_c(shape: tuple, dt: np.dtype, dev: str | None = None) -> ArrayMeta:
    """A fresh CuPy allocation (``_ndarray_init``): C order, all strides 0 when empty."""
    shape = tuple(shape)
    return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize), device=dev or current_device())


def _promote(*dts: np.dtype) -> np.dtype:
    return check_dtype(functools.reduce(np.promote_types, dts))


# --- products (cupy/linalg/_product.py, cupy/_core/_routines_linalg.pyx) ---------------

def _dot_meta(a: Any, b: Any, out: Any) -> Any:
    """_routines_linalg.pyx ``dot``: out checks, 0-d via multiply, promote_types, fresh C."""
    if out is not None:
        cuda_array(out, "out")
        if np.result_type(a.dtype, b.dtype) != out.dtype:
            raise ValueError("Not supported dtype combination.")
        if not out.flags.c_contiguous:
            raise ValueError("Output array must be C-contiguous")
    if a.ndim == 0 or b.ndim == 0:
        return ufunc_out("multiply", a, b, out=out)  # _math._multiply
    _same_device("cupy.dot", a, b, out)
    ash = (1, a.size) if a.ndim == 1 else a.shape
    bsh = (b.size, 1) if b.ndim == 1 else b.shape
    if ash[-1] != bsh[-2]:
        raise ValueError("Axis dimension mismatch")
    k = ash[-1]
    ret = (a.shape[:-1] if a.ndim != 1 else ()) + \
          (b.shape[:-2] + b.shape[-1:] if b.ndim != 1 else ())
    if out is not None:
        if k != 0 and out.size != math.prod(ash) // k * (math.prod(bsh) // k):
            raise ValueError("Output array has an invalid size")
        return out  # tensordot_core writes into out whatever its shape
    return fresh_c(ret, _promote(a.dtype, b.dtype))


def ndarray_dot(self: Any, b: Any, out: Any = None) -> Any:
    """core.pyx ``ndarray.dot(self, _ndarray_base b, _ndarray_base out=None)``."""
    cuda_array(b, "b")
    return _dot_meta(self, b, out)


def cp_dot(a: Any, b: Any, out: Any = None) -> Any:
    """cupy/linalg/_product.py ``dot``: ``a.dot(b, out)`` (AttributeError for a scalar a)."""
    if not is_device_array(a):
        if isinstance(a, (int, float, complex, bool)):
            raise AttributeError(f"'{type(a).__name__}' object has no attribute 'dot'")
        raise UnsupportedOperationError("cupy.dot", "a non-CuPy first operand")
    cuda_array(a, "self")
    return ndarray_dot(a, b, out)


def core_matmul(a: Any, b: Any, out: Any = None) -> Any:
    """_routines_linalg.pyx ``matmul``: dot for ndim <= 2, else batched, fresh C."""
    cuda_array(a, "a")
    cuda_array(b, "b")
    if out is not None:
        cuda_array(out, "out")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("Scalar operands are not allowed, use '*' instead")
    ndim = max(a.ndim, b.ndim)
    ret_dt = _promote(a.dtype, b.dtype)
    if ndim <= 2:
        if out is None or (out.flags.c_contiguous and ret_dt == out.dtype):
            return _dot_meta(a, b, out)
        tmp = _dot_meta(a, b, None)  # dot into a temporary of out's shape, then copied
        if a.shape[-1] != 0 and out.size != math.prod(tmp.shape):
            raise ValueError("Output array has an invalid size")
        return out
    _same_device("cupy.matmul", a, b, out)
    ash = (1, a.size) if a.ndim == 1 else a.shape
    bsh = (b.size, 1) if b.ndim == 1 else b.shape
    ash = (1,) * (ndim - len(ash)) + ash
    bsh = (1,) * (ndim - len(bsh)) + bsh
    batch = try_broadcast([ash[:-2], bsh[:-2]])
    if batch is None:
        raise ValueError("operands could not be broadcast together with remapped shapes")
    shape = list(batch)
    if a.ndim != 1:
        shape.append(a.shape[-2])
    if b.ndim != 1:
        shape.append(b.shape[-1])
    if ash[-1] != bsh[-2]:
        raise ValueError(f"shapes ({','.join(map(str, a.shape))}) and "
                         f"({','.join(map(str, b.shape))}) not aligned")
    if out is not None:
        if out.shape != tuple(shape):
            raise ValueError("Output array has an invalid size")
        return out
    return fresh_c(tuple(shape), ret_dt)


def cp_matmul(a: Any, b: Any, /, *, out: Any = None, axes: Any = None, axis: Any = None,
              keepdims: bool = False, casting: Casting = "same_kind", dtype: Any = None,
              signature: Any = None, order: str = "K") -> Any:
    """cupy/linalg/_product.py ``matmul``: the ``_try_fastcall_matmul`` path of the _GUFunc."""
    if (axes is not None or axis is not None or keepdims or casting != "same_kind"
            or dtype is not None or signature is not None or order != "K"):
        raise UnsupportedOperationError("cupy.matmul", "gufunc keyword arguments (the "
                                        "_GUFunc path) are not supported yet")
    if out is not None:
        if not all(is_device_array(x) and device_of(x) != "cpu" for x in (a, b, out)) \
                or out.dtype != a.dtype or out.dtype != b.dtype:
            raise UnsupportedOperationError("cupy.matmul", "out= needing a cast (gufunc path)")
    return core_matmul(a, b, out)


def cp_vdot(a: Any, b: Any) -> ArrayMeta:
    """_product.py ``vdot``: sizes must match; a 0-d array (NumPy returns a scalar)."""
    if a.size != b.size:
        raise ValueError("Axis dimension mismatch")
    cuda_array(a, "a")
    cuda_array(b, "b")
    _same_device("cupy.vdot", a, b)
    return fresh_c((), _promote(a.dtype, b.dtype))


def cp_inner(a: Any, b: Any) -> Any:
    """_product.py ``inner``: 0-d via multiply; ZeroDivisionError for an empty last axis."""
    if a.ndim == 0 or b.ndim == 0:
        return ufunc_out("multiply", a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError("Axis dimension mismatch")
    cuda_array(a, "a")
    cuda_array(b, "b")
    k = a.shape[-1]
    if k == 0:  # n = a.size // k
        raise ZeroDivisionError("integer division or modulo by zero")
    _same_device("cupy.inner", a, b)
    return fresh_c(a.shape[:-1] + b.shape[:-1], _promote(a.dtype, b.dtype))


def cp_outer(a: Any, b: Any, out: Any = None) -> Any:
    """_product.py ``outer``: ``multiply(a.ravel()[:, None], b.ravel()[None, :], out=out)``."""
    for x in (a, b):
        if not hasattr(x, "ravel"):
            raise AttributeError(f"'{type(x).__name__}' object has no attribute 'ravel'")
        if not is_device_array(x):  # x.ravel()[:, None] is a NumPy array: multiply refuses it
            raise TypeError(f"Unsupported type {np.ndarray}")
    ma = view_of(cuda_array(a), (a.size, 1)) if is_device_array(a) else a
    mb = view_of(cuda_array(b, "b"), (1, b.size)) if is_device_array(b) else b
    return ufunc_out("multiply", ma, mb, out=out)


def _move_axes_to_head(shape: tuple, axes: list) -> tuple:
    """_product.py ``_move_axes_to_head`` -> ``transpose`` (ValueError for bad axes)."""
    if all(i == ax for i, ax in enumerate(axes)):
        return shape
    perm = list(axes) + [i for i in range(len(shape)) if i not in axes]
    if len(perm) != len(shape):
        raise ValueError("axes don't match array")
    if len(set(perm)) != len(perm):
        raise ValueError("repeated axis in transpose")
    return tuple(shape[i] for i in perm)


def cp_tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """_product.py ``tensordot``: axes checks as CuPy, fresh C, promote_types."""
    a_axes: Any
    b_axes: Any
    if a.ndim == 0 or b.ndim == 0:
        if axes != 0 and axes != ((), ()):
            raise ValueError("An input is zero-dim while axes has dimensions")
        return ufunc_out("multiply", a, b)
    if isinstance(axes, (list, tuple, range, str)):
        if len(axes) != 2:
            raise ValueError("Axes must consist of two arrays.")
        a_axes, b_axes = cast(Any, axes)
        if np.isscalar(a_axes):
            a_axes = (a_axes,)
        if np.isscalar(b_axes):
            b_axes = (b_axes,)
    else:
        a_axes = tuple(range(a.ndim - axes, a.ndim))
        b_axes = tuple(range(axes))
    n = len(a_axes)
    if n != len(b_axes):
        raise ValueError("Axes length mismatch")
    for x, y in zip(a_axes, b_axes):
        if a.shape[x] != b.shape[y]:
            raise ValueError("Axis dimension mismatch")
    sa = _move_axes_to_head(cuda_array(a).shape, [x % a.ndim for x in a_axes])
    sb = _move_axes_to_head(cuda_array(b, "b").shape, [y % b.ndim for y in b_axes])
    _same_device("cupy.tensordot", a, b)
    return fresh_c(sa[n:] + sb[n:], _promote(a.dtype, b.dtype))


def cp_kron(a: Any, b: Any) -> Any:
    """_product.py ``kron``: multiply of interleaved views, then a reshape (a view of it)."""
    num = numbers.Number
    if isinstance(a, num) and isinstance(b, num):
        return cast(Any, a) * b  # two Python or NumPy numbers
    if isinstance(a, num) or isinstance(b, num) or a.ndim == 0 or b.ndim == 0:
        return ufunc_out("multiply", a, b)
    cuda_array(a)
    cuda_array(b, "b")
    nd = max(a.ndim, b.ndim)
    ash = (1,) * (nd - a.ndim) + a.shape
    bsh = (1,) * (nd - b.ndim) + b.shape
    inter_a = tuple(x for n in ash for x in (n, 1))
    inter_b = tuple(x for n in bsh for x in (1, n))
    m = ufunc_out("multiply", view_of(a, inter_a), view_of(b, inter_b))
    shape = tuple(x * y for x, y in zip(ash, bsh))
    st = cupy_nocopy_strides(m.shape, m.strides, m.dtype.itemsize, shape)
    assert st is not None  # a contiguous source: the reshape is a view
    return ArrayMeta(shape, m.dtype, st, base_shape=m.shape, device=m.device)


# --- joining (cupy/_manipulation/join.py, _routines_manipulation.pyx) -----------------

def _items(tup: Any) -> list:
    """The members of a sequence argument (a fake is iterated over its first axis)."""
    if is_device_array(tup):
        if tup.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return [temp(tup.shape[1:], tup.dtype, tup)] * tup.shape[0]
    return list(tup)


def _cast_ok(frm: np.dtype, to: np.dtype, casting: Casting) -> None:
    """_dtype.pyx ``_raise_if_invalid_cast`` (same kind always passes same_kind)."""
    if frm == to or (casting == "same_kind" and frm.kind == to.kind):
        return
    if not np.can_cast(frm, to, casting):
        raise TypeError(f"Cannot cast array data from {frm!r} to {to!r} according to the "
                        f"rule '{casting}'")


def concat_meta(items: list, axis: Any, out: Any = None, dtype: Any = None,
                casting: Casting = "same_kind") -> Any:
    """_routines_manipulation.pyx ``concatenate_method``: checks in CuPy's order, fresh C."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"an integer is required, got {type(axis).__name__}") from None
    if out is not None:
        cuda_array(out, "out")
    if dtype is not None:
        dtype = np.dtype(dtype)
    dev = current_device()
    arrays = []
    for x in items:
        if check_array(x, dev) is None:  # _preprocess_args -> CScalar
            cscalar(x)
            raise TypeError("Only cupy arrays can be concatenated")
        arrays.append(x)
    if not arrays:
        raise ValueError("Cannot concatenate from empty tuple")
    if any(len(x.shape) == 0 for x in arrays):
        raise TypeError("zero-dimensional arrays cannot be concatenated")
    nd = len(arrays[0].shape)
    if any(len(x.shape) != nd for x in arrays[1:]):
        raise ValueError("All arrays to concatenate must have the same ndim")
    axis = normalize_axis(axis, nd)
    shape = list(arrays[0].shape)
    for x in arrays[1:]:
        if any(i != axis and shape[i] != n for i, n in enumerate(x.shape)):
            raise ValueError("All arrays must have same shape except the axis to concatenate")
        shape[axis] += x.shape[axis]
    if out is None:
        if dtype is None:
            dts = {x.dtype for x in arrays}
            dtype = arrays[0].dtype if len(dts) == 1 else functools.reduce(np.promote_types, dts)
    else:
        if dtype is not None:
            raise TypeError("concatenate() only takes `out` or `dtype` as an argument, "
                            "but both were provided.")
        dtype = out.dtype
    for x in arrays:
        _cast_ok(x.dtype, dtype, casting)
    if out is None:
        return fresh_c(tuple(shape), check_dtype(dtype), dev)
    if out.ndim != nd:
        raise ValueError("Output array has wrong dimensionality")
    if out.shape != tuple(shape):
        raise ValueError("Output array is the wrong shape")
    return out


def cp_concatenate(tup: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
                   casting: Casting = "same_kind") -> Any:
    """join.py ``concatenate``: axis=None ravels each input first."""
    items = _items(tup)
    if axis is None:
        rav = []
        for m in items:
            if not hasattr(m, "ravel") and not type(m) is ArrayMeta:
                raise AttributeError(f"'{type(m).__name__}' object has no attribute 'ravel'")
            rav.append(temp((math.prod(m.shape),), m.dtype, m) if is_device_array(m)
                       or type(m) is ArrayMeta else m)
        items, axis = rav, 0
    return concat_meta(items, axis, out, dtype, casting)


_ATLEAST = {(1, 0): lambda s: (1,), (2, 0): lambda s: (1, 1), (2, 1): lambda s: (1,) + s,
            (3, 0): lambda s: (1, 1, 1), (3, 1): lambda s: (1,) + s + (1,),
            (3, 2): lambda s: s + (1,)}


def atleast(x: Any, n: int) -> ArrayMeta:
    """dims.py ``_atleast_nd_helper``: ``cupy.asarray`` (transfers allowed) then reshape."""
    dev = current_device()
    if is_device_array(x) and device_of(x) != "cpu":
        st = x if device_of(x) == dev else dev  # another GPU: copied
        dt = x.dtype
    else:
        x = x if is_device_array(x) else np.asarray(x)
        dt = check_dtype(x.dtype)
        st = dev
    shape = tuple(x.shape)
    if len(shape) < n:
        shape = _ATLEAST[(n, len(shape))](shape)
    return temp(shape, dt, st)


def cp_hstack(tup: Any, *, dtype: Any = None, casting: Casting = "same_kind") -> Any:
    """join.py ``hstack``: atleast_1d, axis 0 for 1-d first input else 1."""
    arrs = [atleast(a, 1) for a in _items(tup)]
    axis = 0 if arrs[0].ndim == 1 else 1  # IndexError on an empty sequence, as CuPy
    return concat_meta(arrs, axis, dtype=dtype, casting=casting)


def cp_vstack(tup: Any, *, dtype: Any = None, casting: Casting = "same_kind") -> Any:
    """join.py ``vstack``: atleast_2d then concatenate along 0."""
    return concat_meta([atleast(a, 2) for a in _items(tup)], 0, dtype=dtype, casting=casting)


def cp_row_stack(tup: Any, *, dtype: Any = None, casting: Casting = "same_kind") -> Any:
    """join.py ``row_stack``: deprecated alias of vstack."""
    warnings.warn("`row_stack` alias is deprecated. Use `cp.vstack` directly.",
                  DeprecationWarning, stacklevel=2)
    return cp_vstack(tup, dtype=dtype, casting=casting)


def cp_dstack(tup: Any) -> Any:
    """join.py ``dstack``: atleast_3d then concatenate along 2."""
    return concat_meta([atleast(a, 3) for a in _items(tup)], 2)


def cp_column_stack(tup: Any) -> Any:
    """join.py ``column_stack``: CuPy arrays only, 1-d become columns."""
    items = _items(tup)
    if any(not (is_device_array(a) and device_of(a) != "cpu") for a in items):
        raise TypeError("Only cupy arrays can be column stacked")
    lst = []
    for a in items:
        if len(a.shape) == 1:
            a = temp(a.shape + (1,), a.dtype, a)
        elif len(a.shape) != 2:
            raise ValueError("Only 1 or 2 dimensional arrays can be column stacked")
        lst.append(a)
    return concat_meta(lst, 1)


def _expand_dims(x: Any, axis: Any) -> ArrayMeta:
    """dims.py ``expand_dims`` -> ``_expand_dims`` (AxisError / ValueError as CuPy)."""
    if not type(x) is ArrayMeta:
        cuda_array(x)
    axes = tuple(axis) if type(axis) in (tuple, list) else (axis,)
    nd = len(x.shape) + len(axes)
    norm = [normalize_axis(operator.index(a), nd) for a in axes]
    if len(set(norm)) != len(norm):
        raise ValueError("repeated axis")
    it = iter(x.shape)
    return temp(tuple(1 if i in norm else next(it) for i in range(nd)), x.dtype, x)


def cp_stack(tup: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
             casting: Casting = "same_kind") -> Any:
    """join.py ``stack``: expand_dims of each input, then concatenate."""
    return concat_meta([_expand_dims(x, axis) for x in _items(tup)], axis, out, dtype, casting)


# --- splitting (cupy/_manipulation/split.py, _routines_manipulation.pyx array_split) ---

def core_array_split(ary: Any, indices_or_sections: Any, axis: Any) -> list:
    """_routines_manipulation.pyx ``array_split``: views; [ary] itself for one section."""
    cuda_array(ary, "ary")
    axis = operator.index(axis)
    nd = ary.ndim
    if -nd > axis or nd <= axis:
        raise IndexError("Axis exceeds ndim")
    if axis < 0:
        axis += nd
    size = ary.shape[axis]
    if np.isscalar(indices_or_sections):
        sec = operator.index(cast(Any, indices_or_sections))
        each = (size - 1) // sec
        large = (size - 1) % sec + 1
        indices = [i * each + min(i, large) for i in range(1, sec)]
    else:
        indices = [operator.index(i) for i in indices_or_sections]
        indices = [i if i >= 0 else size + i for i in indices]
    if not indices:
        return [ary]
    if any(i < 0 for i in indices):
        raise UnsupportedOperationError("cupy.array_split", "an index before the start of the axis")
    stride = 0 if ary.size == 0 else ary.strides[axis]
    shape = list(ary.shape)
    out, prev = [], 0
    for index in indices + [None]:
        index = size if index is None else min(index, size)
        shape[axis] = max(index - prev, 0)
        out.append(ArrayMeta(tuple(shape), ary.dtype, ary.strides, view_of=ary,
                             offset=prev * stride))
        prev = index
    return out


def cp_array_split(ary: Any, indices_or_sections: Any, axis: Any = 0) -> list:
    """split.py ``array_split``."""
    return core_array_split(ary, indices_or_sections, axis)


def cp_split(ary: Any, indices_or_sections: Any, axis: Any = 0) -> list:
    """split.py ``split``: IndexError for axis >= ndim, sections must divide the axis."""
    if ary.ndim <= axis:
        raise IndexError("Axis exceeds ndim")
    size = ary.shape[axis]
    if np.isscalar(indices_or_sections) and size % indices_or_sections != 0:
        raise ValueError("indices_or_sections must divide the size along the axes.\nIf you "
                         "want to split the array into non-equally-sized arrays, use "
                         "array_split instead.")
    return core_array_split(ary, indices_or_sections, axis)


def cp_hsplit(ary: Any, indices_or_sections: Any) -> list:
    """split.py ``hsplit``."""
    if ary.ndim == 0:
        raise ValueError("Cannot hsplit a zero-dimensional array")
    return cp_split(ary, indices_or_sections, 0 if ary.ndim == 1 else 1)


def cp_vsplit(ary: Any, indices_or_sections: Any) -> list:
    """split.py ``vsplit``."""
    if ary.ndim <= 1:
        raise ValueError("Cannot vsplit an array with less than 2 dimensions")
    return cp_split(ary, indices_or_sections, 0)


def cp_dsplit(ary: Any, indices_or_sections: Any) -> list:
    """split.py ``dsplit``."""
    if ary.ndim <= 2:
        raise ValueError("Cannot dsplit an array with less than 3 dimensions")
    return cp_split(ary, indices_or_sections, 2)


# --- cumsum / cumprod (cupy/_math/sumprod.py -> _routines_math.pyx scan_core) ----------

def _scan_dtype(a: Any, dtype: Any) -> np.dtype:
    if dtype is not None:
        return check_dtype(dtype)
    kind = a.dtype.kind
    return {"b": np.dtype(np.int64), "i": np.dtype(np.int64),
            "u": np.dtype(np.uint64)}.get(kind, a.dtype)


def rollaxis_perm(nd: int, axis: int, start: int) -> list | None:
    """_routines_manipulation.pyx ``rollaxis`` permutation (None: the array itself)."""
    if axis < start:
        start -= 1
    if axis == start:
        return None
    axes = list(range(nd))
    axes.pop(axis)
    axes.insert(start, axis)
    return axes


def scan_meta(name: str, a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """_routines_math.pyx ``scan_core`` with out=None: the layout of ``_proc_as_batch``."""
    cuda_array(a)
    check_array(a, current_device())
    if out is not None:
        raise UnsupportedOperationError(f"cupy.{name}", "out= is not supported yet")
    dt = _scan_dtype(a, dtype)
    isz = dt.itemsize
    if axis is None:
        # CUB is in the default accelerators (_accelerator.pyx: CUPY_ACCELERATORS='cub'):
        # result = a.astype(dtype, order='C').ravel(), a view of the C copy (or the copy
        # viewed as itself) scanned in place.
        from cupy._core import _accelerator
        n = a.size
        if 1 not in _accelerator.get_routine_accelerators():  # ACCELERATOR_CUB = 1
            return fresh_c((n,), dt)  # scan(a.ravel(), op, dtype): a new array
        st = cupy_nocopy_strides(a.shape, c_strides(a.shape, isz), isz, (n,)) \
            if a.shape != (n,) else c_strides((n,), isz)
        assert st is not None  # a contiguous source: the reshape is a view
        return ArrayMeta((n,), dt, st, base_shape=a.shape, device=current_device())
    nd = a.ndim
    ax = normalize_axis(operator.index(axis), nd)
    shape = a.shape
    n = shape[ax]
    if n == 0:  # cupy.empty_like(x) of the C copy
        return fresh_c(shape, dt)
    x_strides = c_strides(shape, isz)
    perm = rollaxis_perm(nd, ax, nd)
    t_shape = shape if perm is None else tuple(shape[i] for i in perm)
    t_strides = x_strides if perm is None else tuple(x_strides[i] for i in perm)
    r_shape = (math.prod(shape) // n, n)
    r_strides: tuple | None
    s_strides: tuple | None
    if t_shape == r_shape:
        r_strides, base = t_strides, shape
    else:
        r_strides = cupy_nocopy_strides(t_shape, t_strides, isz, r_shape)
        base = shape
        if r_strides is None:  # a copy: r owns a fresh C buffer
            r_strides, base = c_strides(r_shape, isz), r_shape
    if r_shape == t_shape:
        s_strides = r_strides
    else:
        s_strides = cupy_nocopy_strides(r_shape, r_strides, isz, t_shape)
    assert s_strides is not None  # undoing a view reshape is a view
    back = rollaxis_perm(nd, nd - 1, ax)
    if back is None:
        f_shape, f_strides = t_shape, s_strides
    else:
        f_shape = tuple(t_shape[i] for i in back)
        f_strides = tuple(s_strides[i] for i in back)
    return ArrayMeta(f_shape, dt, f_strides, base_shape=base, device=current_device())


def ndarray_cumsum(self: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """core.pyx ``cumsum`` -> cupy.cumsum."""
    return scan_meta("cumsum", self, axis, dtype, out)


def ndarray_cumprod(self: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """core.pyx ``cumprod`` -> cupy.cumprod."""
    return scan_meta("cumprod", self, axis, dtype, out)


# --- ufunc methods (cupy/_core/_kernel.pyx ufunc.outer/at/reduce/accumulate/reduceat) ---

def _short(ufunc: Any) -> str:
    n = ufunc.name
    return n[5:] if n.startswith("cupy_") else n


def as_device_array(x: Any) -> Any:
    """core.array(x): a copy on the current device (scalars become strong 0-d arrays)."""
    if is_device_array(x) and device_of(x) != "cpu":
        if device_of(x) != current_device():
            return temp(x.shape, x.dtype, current_device())
        return temp(x.shape, x.dtype, x)
    m = x if is_device_array(x) else np.asarray(x)
    return temp(m.shape, check_dtype(m.dtype), current_device())


def ufunc_outer(ufunc: Any, A: Any, B: Any, **kwargs: Any) -> Any:
    """_kernel.pyx ``ufunc.outer``: copies of A and B reshaped, then the ufunc (fresh C)."""
    a, b = as_device_array(A), as_device_array(B)
    a, b = (temp(a.shape + (1,) * b.ndim, a.dtype, a),
            temp((1,) * a.ndim + b.shape, b.dtype, b))
    return cupy_ufunc_call(ufunc, a, b, **kwargs)


def ufunc_at(ufunc: Any, a: Any, indices: Any, b: Any = None) -> None:
    """_kernel.pyx ``ufunc.at``: in place through ``_scatter_op`` where the ufunc has one."""
    if getattr(ufunc, "_scatter_op", None) is None:  # add/subtract/maximum/minimum/bitwise_*
        raise NotImplementedError(f"`{ufunc.name}.at` is not supported yet")
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise AttributeError(f"'{type(a).__name__}' object has no attribute '_scatter_op'")
    check_array(a, current_device())
    return None


def ufunc_reduce(ufunc: Any, array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
                 keepdims: bool = False) -> Any:
    """_kernel.pyx ``ufunc.reduce``: add -> ``array.sum``, multiply -> ``array.prod`` (axis 0)."""
    name = {"add": "sum", "multiply": "prod"}.get(_short(ufunc))
    if name is None:
        raise NotImplementedError(f"`{ufunc.name}.reduce` is not supported yet")
    if not (is_device_array(array) and device_of(array) != "cpu"):
        raise UnsupportedOperationError(f"cupy.{_short(ufunc)}.reduce", "a non-CuPy array")
    return REDUCTIONS[name](array, axis, dtype, out, keepdims)


def ufunc_accumulate(ufunc: Any, array: Any, axis: Any = 0, dtype: Any = None,
                     out: Any = None) -> Any:
    """_kernel.pyx ``ufunc.accumulate``: add -> cumsum, multiply -> cumprod (axis 0)."""
    name = {"add": "cumsum", "multiply": "cumprod"}.get(_short(ufunc))
    if name is None:
        raise NotImplementedError(f"`{ufunc.name}.accumulate` is not supported yet")
    return scan_meta(name, array, axis, dtype, out)


def ufunc_reduceat(ufunc: Any, array: Any, indices: Any, axis: Any = 0, dtype: Any = None,
                   out: Any = None) -> Any:
    """_kernel.pyx ``ufunc.reduceat``: only add (``_routines_indexing.pyx _add_reduceat``)."""
    if _short(ufunc) != "add":
        raise NotImplementedError(f"`{ufunc.name}.reduceat` is not supported yet")
    return add_reduceat(array, indices, axis, dtype, out)


def add_reduceat(array: Any, indices: Any, axis: Any = 0, dtype: Any = None,
                 out: Any = None) -> Any:
    """_routines_indexing.pyx ``_add_reduceat``: ``append(indices, n)``, ``cumsum`` padded
    with a zero slab, then ``_where_ufunc(mask, take, take - take, out)``: fresh C of shape
    ``shape[:axis] + (len(indices),) + shape[axis+1:]`` (or out)."""
    if not (is_device_array(array) and device_of(array) != "cpu"):
        raise AttributeError(f"'{type(array).__name__}' object has no attribute '_add_reduceat'")
    dev = current_device()
    ax = normalize_axis(operator.index(axis), array.ndim)
    if is_device_array(indices):
        if device_of(indices) == "cpu":
            raise UnsupportedOperationError("cupy.add.reduceat", "host fake indices")
        check_array(indices, dev)
        idt, m = indices.dtype, indices.size
    else:
        h = np.asarray(indices)
        idt, m = check_dtype(h.dtype), h.size
    idt = np.promote_types(idt, np.dtype(np.int64))  # cupy.append(indices, n)
    if idt.kind not in "iu":
        raise UnsupportedOperationError("cupy.add.reduceat", f"{idt} indices")
    acc = scan_meta("cumsum", array, ax, dtype)  # array.cumsum(axis, dtype)
    shape = tuple(array.shape)
    tshape = shape[:ax] + (m,) + shape[ax + 1:]
    if array.size == 0 and math.prod(tshape) != 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    st = dev
    mask = temp((m,) + (1,) * (array.ndim - ax - 1), np.dtype(bool), st)
    diff = ufunc_out("subtract", temp(tshape, acc.dtype, st), temp(tshape, acc.dtype, st))
    from cupy._sorting.search import _where_ufunc
    return cupy_ufunc_call(_where_ufunc, mask, temp(tshape, array.dtype, st),
                           view_of(diff), out=out)


# --- linspace / logspace (cupy/_creation/ranges.py) --------------------------------------

def _bound(x: Any) -> Any:
    """ranges.py ``linspace``: a non-float array bound becomes ``cupy.asarray(x) * 1.0``."""
    if is_device_array(x) and device_of(x) != "cpu" and x.dtype.kind == "f":
        return temp(x.shape, x.dtype, x) if device_of(x) == current_device() \
            else x
    return ufunc_out("multiply", as_device_array(x), 1.0)


def _linspace_scalar(start: Any, stop: Any, num: int, endpoint: bool, retstep: bool,
                     dtype: Any) -> Any:
    """ranges.py ``_linspace_scalar``: 1-d, fresh C; step computed with Python floats."""
    dt = check_dtype(np.result_type(start, stop, float(num)))
    dtype = dt if dtype is None else check_dtype(dtype)
    div = (num - 1) if endpoint else num
    if div <= 0:
        step = float("nan")
    else:
        step = float(stop - start) / div  # TypeError for complex bounds, as CuPy
    if np.issubdtype(dtype, np.integer):
        guess_loop(_ufunc("floor")._ops, "floor", (dt,), None, None)
    ret = fresh_c((num,), dtype)
    return (ret, step) if retstep else ret


def cp_linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
                retstep: bool = False, dtype: Any = None, axis: Any = 0) -> Any:
    """ranges.py ``linspace``: scalar bounds, or array bounds broadcast with ``axis``."""
    num = operator.index(num)
    if num < 0:
        raise ValueError("linspace with num<0 is not supported")
    div = (num - 1) if endpoint else num
    if np.isscalar(start) and np.isscalar(stop):
        return _linspace_scalar(start, stop, num, endpoint, retstep, dtype)
    s0: Any = start if np.isscalar(start) else _bound(start)
    s1: Any = stop if np.isscalar(stop) else _bound(stop)
    dt = np.result_type(*(x.dtype if type(x) is ArrayMeta or is_device_array(x) else x
                          for x in (s0, s1)), float(num))
    if dtype is None:
        dtype = dt
    dt = check_dtype(dt)
    v0 = view_of(s0) if type(s0) is ArrayMeta else s0
    v1 = view_of(s1) if type(s1) is ArrayMeta else s1
    delta = view_of(ufunc_out("subtract", v1, v0))
    ret = temp((num,) + (1,) * delta.ndim, dt, delta)
    if num > 1:
        step = ufunc_out("true_divide", delta, div)
        r = ufunc_out("multiply", ret, view_of(step))
        r2 = ufunc_out("multiply", ret, delta)  # the step == 0 branch (data-dependent)
        if r2.dtype != r.dtype:
            raise UnsupportedOperationError("cupy.linspace", "result dtype depends on the data")
    else:
        step = float("nan")
        r = ufunc_out("multiply", ret, delta)
    if not np.isscalar(v0):  # ret += start (a weak scalar never fails the same_kind cast)
        o = np.dtype(guess_loop(_ufunc("add")._ops, "add", (r.dtype, v0.dtype), None,
                                None).out_types[0])
        if not np.can_cast(o, r.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc 'add' output from {o!r} to {r.dtype!r} "
                            "with casting rule 'same_kind'")
    shape, strides, base = r.shape, r.strides, None
    if axis != 0:  # cupy.moveaxis(ret, 0, axis): a view of ret
        nd = len(shape)
        dest = normalize_axis(operator.index(axis), nd)
        order = list(range(1, nd))
        order.insert(dest, 0)
        shape = tuple(r.shape[i] for i in order)
        strides = tuple(r.strides[i] for i in order)
        base = r.shape
    dtype = check_dtype(dtype)
    if np.issubdtype(dtype, np.integer):  # cupy.floor(ret, out=ret)
        guess_loop(_ufunc("floor")._ops, "floor", (r.dtype,), None, None)
    if dtype != r.dtype:  # ret.astype(dtype, copy=False): an order-K copy
        c, f = contiguity(shape, strides, r.dtype.itemsize)
        if len(shape) <= 1 or c:
            res = fresh_c(shape, dtype)
        elif f:
            res = ArrayMeta(shape, dtype, f_strides(shape, dtype.itemsize), device=current_device())
        else:
            res = ArrayMeta(shape, dtype, like_strides(shape, strides, dtype.itemsize, c, f),
                      device=current_device())
    elif base is not None:
        res = ArrayMeta(shape, dtype, strides, base_shape=base, device=current_device())
    else:
        res = r
    return (res, step) if retstep else res


def cp_logspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True, base: Any = 10.0,
                dtype: Any = None, axis: Any = 0) -> Any:
    """ranges.py ``logspace``: ``power(base, linspace(...))``, then astype(dtype) (fresh C)."""
    y = view_of(cp_linspace(start, stop, num=num, endpoint=endpoint, axis=axis))
    b = as_device_array(base) if not np.isscalar(base) else base
    if dtype is None:
        return ufunc_out("power", b, y)
    dtype = check_dtype(dtype)
    if dtype.kind in "iu":
        y = temp(y.shape, _F8, y)
    p = ufunc_out("power", b, y)
    return fresh_c(p.shape, dtype)


# --- registration ------------------------------------------------------------------------

def _register() -> None:
    copy, view, red = "copy", "view", "reduction"
    register_rules({
        "matmul": (cp_matmul, copy), "dot": (cp_dot, copy), "vdot": (cp_vdot, copy),
        "inner": (cp_inner, copy), "outer": (cp_outer, copy), "tensordot": (cp_tensordot, copy),
        "kron": (cp_kron, copy), "concatenate": (cp_concatenate, copy),
        "stack": (cp_stack, copy), "hstack": (cp_hstack, copy), "vstack": (cp_vstack, copy),
        "row_stack": (cp_row_stack, copy), "dstack": (cp_dstack, copy),
        "column_stack": (cp_column_stack, copy),
        "split": (cp_split, view), "array_split": (cp_array_split, view),
        "hsplit": (cp_hsplit, view), "vsplit": (cp_vsplit, view), "dsplit": (cp_dsplit, view),
        "cumsum": (ndarray_cumsum, red), "cumprod": (ndarray_cumprod, red),
        "linspace": (cp_linspace, "factory"), "logspace": (cp_logspace, "factory"),
    }, cupy_module())
    methods: dict[str, Callable[..., Any]] = {"outer": ufunc_outer, "at": ufunc_at, "reduce": ufunc_reduce,
               "accumulate": ufunc_accumulate, "reduceat": ufunc_reduceat}
    # "ufunc.NAME": a NumPy ufunc's method on CUDA fakes (its cupy namesake comes first, as
    # the ufunc does for NumPy's rules); "cupy.ufunc.NAME": the method of a cupy ufunc
    counts = {"at": flops.ufunc_at, "reduceat": flops.input_elements}  # NumPy has no kernel
    register_rules({f"{owner}.{m}": (fn, "ufunc", counts.get(m)) for m, fn in methods.items()
                    for owner in ("ufunc", "cupy.ufunc")}, prefix="")
    register_rules({"ndarray.dot": (ndarray_dot, copy), "ndarray.cumsum": (ndarray_cumsum, red),
                    "ndarray.cumprod": (ndarray_cumprod, red)})


on_cupy(_register)
