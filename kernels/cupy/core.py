"""CuPy-flavoured kernels: the rules CuPy follows where they differ from NumPy's.

Facts checked against CuPy 14's source (github.com/cupy/cupy):
- elementwise and reduction outputs are fresh C-contiguous arrays on the *current*
  device (cupy/_core/_kernel.pyx ``_get_out_args_from_optionals`` -> ``_ndarray_init``;
  cupy/_core/_reduction.pyx ``_AbstractReductionKernel._call``), zero-size ones with
  all strides 0 (cupy/_core/internal.pyx ``get_contiguous_strides_inplace``);
- reductions return 0-d arrays, never scalars (``_get_out_shape``);
- inputs on another device raise ValueError (``_kernel.pyx _check_peer_access``, no
  peer access on a fake machine), NumPy arrays and lists given to a kernel raise
  TypeError (``_preprocess_arg`` -> ``_scalar.pyx CScalar.__init__``);
- unsupported dtypes raise ValueError (cupy/_core/_dtype.pyx ``check_supported_dtype``);
- ``ndarray.copy()`` defaults to order C (cupy/_core/core.pyx ``copy(self, order='C')``).
Dtype resolution uses each CuPy ufunc's / reduction's own loop table (``_ops``).
"""
from __future__ import annotations

import importlib
import inspect
import math
import operator
from contextvars import ContextVar
from typing import Any, Callable

import numpy as np

from ..._errors import UnsupportedOperationError, op_name
from ...layout import (broadcast_shapes, c_strides, contiguity, cupy_reshape, f_strides,
                       like_strides, normalize_axis)
from ...meta import ArrayMeta, is_fake
from ...converters import Casting
from ..numpy.overlap import byte_bounds
from ..registry import REGISTRY, Kernel, lookup, register, transient
from ..._stack import paused

# CuPy is optional and imported lazily (``import faketensor`` stays cheap): the rules keyed
# by cupy callables are registered by ``load_cupy`` once cupy is imported (the import hook in
# modes/cupy_patching.py, or the first call on a CUDA fake); without CuPy CUDA fakes raise
# UnsupportedOperationError.
_cp: Any = None
_CScalar: Any = None
_LOADERS: list = []


def cupy_module() -> Any:
    """The cupy module once ``load_cupy`` has run, else None: the one way the rule modules
    reach CuPy (its loop tables, its functions as registry keys)."""
    return _cp


def on_cupy(fn: Callable[[], None]) -> Callable[[], None]:
    """Run ``fn`` (a rule module's registration of its CuPy rules) once cupy is imported
    (``cupy_module()`` is then the module); at once if it already is."""
    _LOADERS.append(fn)
    if _cp is not None:
        fn()
    return fn


def load_cupy(module: Any = None) -> bool:
    """Register the CuPy rules once: with ``module`` (cupy, just imported), else by importing
    cupy with the mode stack paused. False where CuPy cannot be imported."""
    global _cp, _CScalar
    if _cp is not None:
        return True
    if module is None:
        try:
            with paused():
                module = importlib.import_module("cupy")  # the import hook may call load_cupy(cupy) itself
        except Exception:
            return False
        if _cp is not None:
            return True
    from cupy._core._scalar import CScalar
    _cp, _CScalar = module, CScalar
    for fn in _LOADERS:
        fn()
    return True

# The current fake CUDA device ("cuda:N"), set by ``cupy.cuda.Device(n)`` inside a mode;
# None means the mode's device if it is a CUDA one, else cuda:0 (CuPy's default).
CURRENT_DEVICE: ContextVar[str | None] = ContextVar("faketensor_cupy_device", default=None)
MODE_DEVICE: ContextVar[str | None] = ContextVar("faketensor_cupy_mode_device", default=None)

_TYPE_CHARS = "?bhilqBHILQefdFD"  # cupy/_core/_dtype.pyx all_type_chars
_F8 = np.dtype(np.float64)
_I8 = np.dtype(np.int64)
_B1 = np.dtype(bool)


def current_device() -> str:
    """The device a CuPy kernel would run on and allocate its outputs on."""
    d = CURRENT_DEVICE.get()
    if d is not None:
        return d
    m = MODE_DEVICE.get()
    return m if m is not None and m != "cpu" else "cuda:0"


def check_dtype(dt: Any) -> np.dtype:
    """CuPy's supported dtypes (cupy/_core/_dtype.pyx check_supported_dtype), else ValueError."""
    dt = np.dtype(dt)
    if dt.byteorder == ">":
        raise ValueError(f"Unsupported dtype {dt} with big-endian byte-order")
    if dt.char in _TYPE_CHARS:
        return dt
    if dt.kind == "V" and dt.subdtype is None and dt.itemsize:
        if dt.hasobject:
            raise ValueError(f"Unsupported dtype {dt} because it contains references "
                             "which cannot be supported by CuPy.")
        return dt
    raise ValueError(f"Unsupported dtype {dt}")


def fresh(shape: tuple, dt: np.dtype, order: str = "C", device: str | None = None) -> ArrayMeta:
    """A fresh CuPy allocation on ``device`` (default: the current device)."""
    st = f_strides(shape, dt.itemsize) if order == "F" else c_strides(shape, dt.itemsize)
    return ArrayMeta(shape, dt, st, device=device or current_device())


def is_device_array(x: Any) -> bool:
    """A fake, or an ArrayMeta with a device: an intermediate array the rules pass on (a
    NumPy kernel's record, with no device, is not one)."""
    return is_fake(x) or (type(x) is ArrayMeta and x.device is not None)


def device_of(x: Any) -> str:
    """The device of a fake or of an ArrayMeta that has one."""
    return x.storage.device if is_fake(x) else x.device


def temp(shape: tuple, dtype: np.dtype, on: Any = None, strides: tuple | None = None) -> ArrayMeta:
    """An intermediate CuPy array (fresh C unless ``strides``) on the device of ``on`` (an
    array or a device string); on the current device where ``on`` names none."""
    dev = on if isinstance(on, str) else device_of(on) if is_device_array(on) else current_device()
    shape = tuple(shape)
    return ArrayMeta(shape, dtype, c_strides(shape, dtype.itemsize) if strides is None
                     else tuple(strides), device=dev)


def temp_reshape(tshape: tuple, dt: np.dtype, shape: tuple) -> ArrayMeta:
    """``tmp.reshape(shape)`` of a fresh C temporary of ``tshape``: its view (its base is the
    temporary), as _routines_manipulation.pyx ``_reshape`` makes it (no copy is ever needed)."""
    tshape, st = tuple(tshape), c_strides(tuple(tshape), dt.itemsize)
    shape, st, _ = cupy_reshape(tshape, st, dt.itemsize, tuple(shape))
    return ArrayMeta(shape, dt, st, base_shape=tshape, device=current_device())


def check_array(x: Any, dev: str, what: str = "") -> Any:
    """A CUDA fake on the current device; NumPy arrays raise TypeError, other devices ValueError."""
    if is_device_array(x):
        d = device_of(x)
        if d == "cpu":
            raise TypeError(f"Unsupported type {np.ndarray}")
        if d != dev:
            raise ValueError(f"The device where the array resides ({d[5:]}) is different "
                             f"from the current device ({dev[5:]}). Peer access is "
                             "unavailable between these devices.")
        return x
    if isinstance(x, np.ndarray):
        raise TypeError(f"Unsupported type {type(x)}")
    return None


def cscalar(x: Any) -> Any:
    """CuPy's CScalar for a Python/NumPy scalar (TypeError for anything else)."""
    if _CScalar is None:
        raise UnsupportedOperationError("cupy", "CuPy is not installed")
    return _CScalar(x)


def _operand(x: Any, dev: str) -> Any:
    """_kernel.pyx _preprocess_arg: a CUDA fake checked for its device, else a CScalar."""
    return x if check_array(x, dev) is not None else cscalar(x)


def _need_cupy(name: Any) -> None:
    if _cp is None and not load_cupy():
        raise UnsupportedOperationError(name, "CUDA fakes follow CuPy's rules; install cupy")


# --- elementwise ufuncs -------------------------------------------------------

def _use_weak(in_types: tuple, weaks: tuple) -> bool:
    """_kernel.pyx _check_should_use_weak_scalar: weak scalars count only below the arrays' kind."""
    def score(t):
        if issubclass(t, np.bool_):
            return 0
        if issubclass(t, (np.integer, int)):
            return 1
        if issubclass(t, (np.inexact, float, complex)):
            return 2
        return 3
    amax = smax = -1
    for t, w in zip(in_types, weaks):
        if w:
            smax = max(smax, score(w))
        else:
            amax = max(amax, score(t.type))
    return not (smax == -1 or amax == -1) and amax >= smax


def guess_loop(ops: Any, name: str, in_dtypes: tuple, weaks: tuple | None, dtype: Any,
               out_ops: Any = None) -> Any:
    """_kernel.pyx _Ops.guess_routine, through CuPy's own loop tables (TypeError if none fits)."""
    if dtype is None:
        if weaks is not None and not _use_weak(in_dtypes, weaks):
            weaks = None
        op = ops._guess_routine_from_in_types(in_dtypes, weaks if weaks is not None
                                              else (False,) * len(in_dtypes))
    else:
        op = (out_ops or ops)._guess_routine_from_dtype(dtype)
    if op is None:
        raise TypeError(f"Wrong type ({dtype if dtype is not None else in_dtypes}) of "
                        f"arguments for {name}")
    if op.error_func is not None:
        op.error_func()
    return op


def check_cast(frm: np.dtype, to: np.dtype, casting: Casting) -> None:
    if not np.can_cast(frm, to, casting):
        raise TypeError(f"Cannot cast ufunc 'output operand' from {frm!r} to {to!r} "
                        f"with casting rule {casting!r}")


def cupy_ufunc_call(ufunc: Any, *args: Any, out: Any = None, dtype: Any = None,
                    casting: Any = None, _where: Any = None, **kw: Any) -> Any:
    """cupy/_core/_kernel.pyx ufunc.__call__: CuPy dtype loops, exact broadcast, fresh C outputs."""
    if kw:
        raise TypeError(f"Wrong arguments {kw}")
    nin, nargs = ufunc.nin, ufunc.nargs
    if not nin <= len(args) <= nargs:
        raise TypeError(f"Wrong number of arguments for {ufunc.name!r}. It must be either "
                        f"{nin} or {nargs} (with outputs), but given {len(args)}.")
    in_args, out_args = list(args[:nin]), list(args[nin:])
    if out is not None:
        if out_args:
            raise ValueError("Cannot specify 'out' as both a positional and keyword argument")
        if type(out) is tuple:
            if len(out) != ufunc.nout:
                raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
            out_args = list(out)
        else:
            if ufunc.nout != 1:
                raise ValueError("'out' must be a tuple of arrays")
            out_args = [out]
    if dtype is not None:
        dtype = np.dtype(dtype)
    if casting is None:
        casting = ufunc._default_casting
    dev = current_device()
    ins = [_operand(a, dev) for a in in_args]
    outs = [None if o is None else _operand(o, dev) for o in out_args]
    shapes = [a.shape for a in ins if is_device_array(a)]
    if _where is not None:
        w = check_array(_where, dev)
        if w is not None:
            if w.dtype != _B1:
                raise TypeError(f"Cannot cast array data from {w.dtype!r} to "
                                f"{_B1!r} according to the rule 'safe'")
            shapes.append(w.shape)
        else:
            cscalar(_where)
    given = [o for o in outs if o is not None]
    shapes += [o.shape for o in given if is_device_array(o)]
    shape = broadcast_shapes(*shapes) if shapes else ()
    in_dtypes, weaks = [], []
    for a in ins:
        if is_device_array(a):
            in_dtypes.append(a.dtype)
            weaks.append(False)
        else:
            in_dtypes.append(a.descr)
            weaks.append(a.weak_t)
    any_weak = any(w is not False for w in weaks)
    op = guess_loop(ufunc._ops, ufunc.name, tuple(in_dtypes), tuple(weaks) if any_weak else None,
                    dtype, ufunc._out_ops)
    in_types, out_types = op.in_types, op.out_types
    results = []
    for o, t in zip(outs + [None] * (ufunc.nout - len(outs)), out_types):
        t = np.dtype(t)
        if o is None:
            results.append(fresh(shape, check_dtype(t), device=dev))
            continue
        if not is_device_array(o):
            raise TypeError("Output arguments type must be cupy.ndarray")
        if o.shape != shape:
            raise ValueError("Out shape is mismatched")
        check_cast(t, o.dtype, casting)
        if not o.flags.writeable:
            raise ValueError("output array is read-only")
        results.append(o)
    if 0 not in shape:
        for a, t in zip(ins, in_types):
            if not is_device_array(a):
                a.apply_dtype(t)  # OverflowError for a Python int out of range
    if given:
        _overlap_copies(ins, given)
    return results[0] if len(results) == 1 else tuple(results)


def may_share_bounds(a: Any, b: Any) -> bool:
    """_memory_range.pyx ``may_share_bounds``: same allocation, byte ranges overlap (here:
    the ufunc overlap copies use it, and so does cupy.may_share_memory)."""
    if not (_on_gpu(a) and _on_gpu(b)):
        raise TypeError("Argument 'a' has incorrect type (expected cupy._core.core._ndarray_base)")
    if a.storage is not b.storage or a.size == 0 or b.size == 0:
        return False
    alo, ahi = byte_bounds(a)
    blo, bhi = byte_bounds(b)
    return alo < bhi and blo < ahi



def _on_gpu(x: Any) -> bool:
    return is_device_array(x) and device_of(x) != "cpu"


def _overlap_copies(ins: list, outs: list) -> None:
    """_kernel.pyx ``_copy_in_args_if_needed``: an input array that is not itself an output
    but whose byte bounds overlap one (``may_share_bounds``) is replaced by ``inp.copy()``, a
    C copy of its own shape alive until the kernel returns. Bounds, not elements: CuPy copies
    ``x[1::2]`` written into ``x[::2]`` and ``x[:]`` added into ``x``, which NumPy does not."""
    for a in ins:
        if not is_fake(a):  # scalars; a composite's fresh intermediates overlap nothing
            continue
        for o in outs:
            if a is not o and is_fake(o) and may_share_bounds(a, o):
                transient(a.size * a.dtype.itemsize, kind="overlap_copy")
                break


def _np_ufunc_on_cuda(np_ufunc: np.ufunc, *args: Any, **kwargs: Any) -> Any:
    """A NumPy ufunc on CUDA fakes: core.pyx __array_ufunc__ calls ``getattr(cupy, name)``."""
    _need_cupy(np_ufunc)
    cu = getattr(_cp, np_ufunc.__name__, None)
    cu = getattr(cu, "__wrapped__", cu)  # the namespace may hold the patched wrapper
    if cu is None or type(cu).__name__ != "ufunc":
        raise UnsupportedOperationError(np_ufunc, "CuPy has no such ufunc")
    if "out" in kwargs and isinstance(kwargs["out"], tuple):
        o = kwargs["out"]
        if len(o) != 1:
            raise ValueError("The 'out' parameter must have exactly one array value")
        kwargs = dict(kwargs, out=o[0])
    if kwargs.get("where", True) is not True:
        raise TypeError(f"Wrong arguments {{'where': {kwargs['where']!r}}}")
    kwargs.pop("where", None)
    return cupy_ufunc_call(cu, *args, **kwargs)


# --- reductions -----------------------------------------------------------------

def reduce_shape(shape: tuple, axis: Any, keepdims: bool) -> tuple:
    """_reduction.pyx _get_axis + _get_out_shape (AxisError / ValueError as CuPy)."""
    nd = len(shape)
    if axis is None:
        red = tuple(range(nd))
    else:
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        red = tuple(sorted(normalize_axis(operator.index(a), nd) for a in axes))
        if len(set(red)) != len(red):
            raise ValueError("duplicate value in 'axis'")
    if keepdims:
        return tuple(1 if i in red else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in red)


def table_loop(types: str, dt: np.dtype) -> np.dtype:
    """First 'x->y' loop of a CuPy reduction table whose input ``dt`` casts to safely."""
    for t in types.split():
        i, o = t.split("->")
        if np.can_cast(dt, np.dtype(i), "safe"):
            return np.dtype(o)
    raise TypeError(f"Wrong type ({(dt,)}) of arguments for reduction")


# cupy/_core/_routines_statistics.pyx _amin/_amax, _argmin/_argmax, _mean_core;
# cupy/_core/_routines_logic.pyx _all/_any.
_MINMAX = "?->? b->b B->B h->h H->H i->i I->I l->l L->L q->q Q->Q e->e f->f d->d F->F D->D"
_ARG = " ".join(f"{d}->q" for d in "?BhHiIlLqQ") + " e->q f->q d->q F->q D->q"
_MEAN = "?->d B->d h->d H->d i->d I->d l->d L->d q->d Q->d e->e f->f d->d F->F D->D"
_LOGIC = "?->? B->? h->? H->? i->? I->? l->? L->? q->? Q->? e->? f->? d->? F->? D->?"


def reduction_ops(name: str, dtype: Any) -> Any:
    import cupy._core._routines_math as m
    if dtype is None:  # installed 14.x names it sum_auto_dtype, the source _sum_auto_dtype
        return getattr(m, f"_{name}_auto_dtype", None) or getattr(m, f"{name}_auto_dtype")
    return getattr(m, f"_{name}_keep_dtype")


# --- CUB (on by default: cupy/_core/_accelerator.pyx, CUPY_ACCELERATORS="cub") ------------
# The dtypes CUB reduces (cupy/cuda/cub.pyx CUB_support_dtype_with_half and the sum table;
# float16 assumes compute capability >= 5.3, every GPU CUDA 12 supports but Maxwell).
_CUB_DTYPES = frozenset("bBhHiIlLqQefdFD")
_CUB_SUM_DTYPES = frozenset("lLqQefdFD")
_CUB_OPS = {"sum": "SUM", "prod": "PROD", "max": "MAX", "min": "MIN", "argmax": "ARGMAX",
            "argmin": "ARGMIN", "mean": "SUM"}
_INT_MAX = 0x7FFFFFFF
_CUB_BLOCK_THRESHOLD = 128  # cupy/_core/_cub_reduction.pyx CUB_REDUCE_SIZE_THRESHOLD


def _cub_on(which: str) -> bool:
    """Whether CuPy's current routine / reduction accelerators include CUB."""
    from cupy._core import _accelerator as acc
    get = acc.get_routine_accelerators if which == "routine" else acc.get_reduction_accelerators
    return acc.ACCELERATOR_CUB in get()


def _contig_axes(axes: tuple) -> bool:
    """internal.pyx _contig_axes: ascending without gaps, and not empty."""
    return bool(axes) and all(b - a == 1 for a, b in zip(axes, axes[1:]))


def _reduced_axes(ndim: int, axis: Any) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(normalize_axis(operator.index(x), ndim) for x in axes))


def cub_routine(name: str, a: Any, axis: Any, dtype: Any, out: Any, keepdims: bool,
                shape: tuple) -> Any:
    """cupy/cuda/cub.pyx ``cub_reduction`` as _ndarray_sum/prod/max/min/argmax/argmin/mean
    try it first: the result (an ArrayMeta, or ``out``), or None where CuPy falls back to its
    reduction kernel. device_reduce gives a 0-d of the input's dtype (argmax/argmin: a 0-d
    view of a (1,) int64 temporary), reshaped for keepdims; device_segmented_reduce a fresh
    array in the input's order (C before F)."""
    if name not in _CUB_OPS or not _cub_on("routine"):
        return None
    if name in ("argmax", "argmin") and dtype is not None:
        return None
    c, f = contiguity(tuple(a.shape), tuple(a.strides), a.dtype.itemsize)
    if not (c or f):
        return None
    red = _reduced_axes(a.ndim, axis)
    char = a.dtype.char
    if name == "argmax" and char == "?" and f:
        char = "b"  # _ndarray_argmax: F-order bool is cast to int8 first
    if dtype is None:
        ok = char in (_CUB_SUM_DTYPES if _CUB_OPS[name] in ("SUM", "PROD") else _CUB_DTYPES)
    else:
        ok = np.dtype(dtype) == a.dtype and a.dtype.char in _CUB_DTYPES
    if not ok or a.size > _INT_MAX:
        return None
    if len(red) == a.ndim:  # device_reduce
        if out is not None and out.ndim != (a.ndim if keepdims else 0):
            raise ValueError("output parameter for reduction operation has the wrong number of "
                             "dimensions")
        if _CUB_OPS[name] not in ("SUM", "PROD") and 0 in a.shape:
            raise ValueError(f"zero-size array to reduction operation CUPY_CUB_{_CUB_OPS[name]} "
                             "which has no identity")
        if out is not None:
            return out
        if name in ("argmax", "argmin"):  # y[0:4].view(int32).astype(int64)[0].reshape(())
            return ArrayMeta(shape, _I8, (8,) * len(shape), base_shape=(1,),
                             device=current_device())
        if keepdims:  # y.reshape(out_shape): a view of the 0-d result
            isz = a.dtype.itemsize
            return ArrayMeta(shape, a.dtype, (isz,) * len(shape), base_shape=(),
                             device=current_device())
        return fresh((), a.dtype)
    if name in ("argmax", "argmin"):
        return None
    if a.size:
        if not _contig_axes(red) or red[-1 if c else 0] != (a.ndim - 1 if c else 0):
            return None
    if math.prod(a.shape[i] for i in red) == 0:
        return None
    if out is not None:
        if tuple(out.shape) != shape:
            raise ValueError("output parameter for reduction operation has the wrong shape")
        return out
    return fresh(shape, a.dtype, "C" if c else "F")


def reduction_order(a: Any, axis: Any, shape: tuple, out: Any = None) -> str:
    """The order of a one-input reduction kernel's output: C, except where _reduction.pyx
    ``_call`` takes CUB's block reduction for an F-contiguous input reduced over its leading
    axes (at least 128 items each), which re-strides the output to F
    (_cub_reduction.pyx ``_try_to_call_cub_reduction``)."""
    if not contiguity(tuple(a.shape), tuple(a.strides), a.dtype.itemsize)[1] \
            or not math.prod(shape) or not _cub_on("reduction"):
        return "C"
    red = _reduced_axes(a.ndim, axis)
    if not _contig_axes(red) or red[0] != 0:
        return "C"
    n = math.prod(a.shape[i] for i in red)
    if n == 0 or n < _CUB_BLOCK_THRESHOLD:
        return "C"
    if out is not None and tuple(out.strides) != f_strides(tuple(out.shape), out.dtype.itemsize):
        raise UnsupportedOperationError("cupy reduction", "CuPy re-strides this `out` array to "
                                        "F order in place (CUB block reduction)")
    return "F"


def cupy_reduce(name: str, a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                keepdims: bool = False, identity: bool = True) -> Any:
    """One reduction on the current device: CUB's routine result where CuPy takes it, else
    its reduction kernel's fresh output (C, or F after a CUB block reduction)."""
    _need_cupy(name)
    dev = current_device()
    if check_array(a, dev) is None:
        raise TypeError(f"Argument 'a' has incorrect type (expected cupy.ndarray, got {type(a).__name__})")
    if out is not None:
        check_array(out, dev)
    if dtype is not None:
        dtype = np.dtype(dtype)
    if name in ("sum", "prod"):
        k = reduction_ops(name, dtype)
        op = guess_loop(k._ops, k.name, (a.dtype,), None, dtype)
        odt = np.dtype(op.out_types[0])
    elif name in ("max", "min"):
        odt = table_loop(_MINMAX, a.dtype) if dtype is None else dtype
        identity = False
    elif name in ("argmax", "argmin"):
        odt = table_loop(_ARG, a.dtype)
        identity = False
    elif name == "mean":
        odt = table_loop(_MEAN, a.dtype) if dtype is None else dtype
    elif name in ("var", "std"):
        odt = table_loop(_MEAN, a.dtype) if dtype is None else dtype
        if odt.kind == "c":
            odt = np.dtype(odt.char.lower())
    else:
        odt = table_loop(_LOGIC, a.dtype)
    shape = reduce_shape(a.shape, axis, keepdims)
    if name in ("min", "ptp") and out is not None:
        raise UnsupportedOperationError(f"cupy.{name}", "CuPy passes `out` as the dtype to CUB "
                                        "here (_routines_statistics.pyx)")
    if name != "mean" or a.size:
        dsum = dtype
        if name == "mean" and dtype is None and a.dtype.char not in "dD":
            dsum = np.dtype(np.float64) if a.dtype.kind in "iub" else \
                np.dtype(np.float32) if a.dtype.char == "e" else None
        elif name == "mean" and dtype is not None and dtype.kind in "iub":
            dsum = np.dtype(np.float64)
        res = cub_routine(name, a, axis, dsum, out, keepdims, shape)
        if res is not None:
            return res
    if out is not None:
        if out.shape != shape:
            raise ValueError("Out shape is mismatched")
        reduction_order(a, axis, shape, out)
        return out
    size = math.prod(shape)
    if size and not identity and 0 in a.shape:
        raise ValueError(f"zero-size array to reduction operation cupy_{name} which has no identity")
    order = "C" if name in ("var", "std") else reduction_order(a, axis, shape)
    return fresh(shape, odt, order, device=dev)


def _method_reduction(name: str):
    """core.pyx ``ndarray.sum/prod/mean/var/std(axis, dtype, out, keepdims)`` (var/std: ddof)."""
    def kernel(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        if name in ("var", "std"):
            kw.pop("ddof", None)
        if kw:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
        return cupy_reduce(name, self, axis, dtype, out, keepdims)
    kernel.__name__ = f"cupy_{name}"
    return kernel


def _method_reduction_minmax(name: str):
    """core.pyx ``ndarray.max/min/all/any(axis, out, keepdims)``."""
    def kernel(self, axis=None, out=None, keepdims=False):
        return cupy_reduce(name, self, axis, None, out, keepdims)
    return kernel


def _arg_method(name: str):
    """core.pyx ``ndarray.argmax/argmin(axis, out, *, dtype, keepdims)``."""
    def kernel(self, axis=None, out=None, *, dtype=None, keepdims=False):
        if dtype is not None and np.dtype(dtype) != _I8:
            raise UnsupportedOperationError(f"cupy.ndarray.{name}", "dtype= other than int64")
        return cupy_reduce(name, self, axis, dtype, out, keepdims)
    return kernel


ndarray_sum, ndarray_prod, ndarray_mean, ndarray_var, ndarray_std = (
    _method_reduction(n) for n in ("sum", "prod", "mean", "var", "std"))
ndarray_max, ndarray_min, ndarray_all, ndarray_any = (
    _method_reduction_minmax(n) for n in ("max", "min", "all", "any"))
ndarray_argmax, ndarray_argmin = _arg_method("argmax"), _arg_method("argmin")
# the reduction methods by name (cupy.sum & co. and nanargmax call them)
REDUCTIONS = {"sum": ndarray_sum, "prod": ndarray_prod, "mean": ndarray_mean,
              "var": ndarray_var, "std": ndarray_std, "max": ndarray_max, "min": ndarray_min,
              "all": ndarray_all, "any": ndarray_any, "argmax": ndarray_argmax,
              "argmin": ndarray_argmin}


# --- copies, casts, transfers ------------------------------------------------------

def copy_out(a: Any, order: str, dt: np.dtype | None = None) -> ArrayMeta:
    """A copy of a with order C / F / A / K (K sorts by |stride| like NumPy)."""
    dt = check_dtype(dt if dt is not None else a.dtype)
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"order not understood: {order!r}")
    c, f = a.flags.c_contiguous, a.flags.f_contiguous
    if order == "A":
        order = "F" if f and not c else "C"
    if order == "K":
        if a.ndim <= 1 or c:
            order = "C"
        elif f:
            order = "F"
        else:
            return ArrayMeta(a.shape, dt, like_strides(a.shape, a.strides, dt.itemsize, c, f),
                       device=current_device())
    return fresh(a.shape, dt, order)


def _ndarray_copy(self, order="C"):
    """core.pyx ``copy(self, order='C')``: unlike NumPy, C by default."""
    check_array(self, device_of(self))
    return copy_out(self, order.upper() if isinstance(order, str) else order)


def _ndarray_dunder_copy(self):
    """core.pyx ``__copy__``: ``self.copy()``, order C (NumPy's keeps the layout)."""
    return _ndarray_copy(self)


def _ndarray_dunder_deepcopy(self, memo, /):
    """core.pyx ``__deepcopy__``: ``with self.device: return self.copy()``."""
    token = CURRENT_DEVICE.set(device_of(self))
    try:
        return _ndarray_copy(self)
    finally:
        CURRENT_DEVICE.reset(token)


def _ndarray_astype(self, dtype, order="K", casting=None, subok=None, copy=True):
    dt = check_dtype(dtype)
    order = "K" if order is None else order.upper()
    if casting is not None and not np.can_cast(self.dtype, dt, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dt!r} "
                        f"according to the rule {casting!r}")
    if not copy and dt == self.dtype:
        c, f = self.flags.c_contiguous, self.flags.f_contiguous
        if order == "K" or (order == "C" and c) or (order == "F" and f) or (order == "A" and (c or f)):
            return self
    return copy_out(self, order, dt)


def _ndarray_get(self, stream=None, order="C", out=None, blocking=True):
    """core.pyx ``get``: a NumPy array on the host, C order by default."""
    if out is not None:
        if out.shape != self.shape:
            raise ValueError("Shape mismatch")
        return out
    o = (order or "C").upper()
    c, f = self.flags.c_contiguous, self.flags.f_contiguous
    if o == "A":
        o = "F" if f and not c else "C"
    if o not in ("C", "F"):
        raise ValueError(f"unsupported order: {order}")
    st = f_strides(self.shape, self.itemsize) if o == "F" else c_strides(self.shape, self.itemsize)
    return ArrayMeta(self.shape, self.dtype, st, device="cpu")


# --- factories (cupy/_creation/basic.py, ranges.py, from_data.py) --------------------

def shape_arg(shape: Any) -> tuple:
    try:
        shape = (operator.index(shape),)
    except TypeError:
        shape = tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    if len(shape) > 64:  # cupy/_core/_carray.pxd MAX_NDIM
        raise ValueError(f"maximum supported dimension for an ndarray is 64, found {len(shape)}")
    return shape


def _order(order: Any, allowed: str = "CF") -> str:
    o = "C" if order is None else str(order).upper()
    if o not in allowed or len(o) != 1:
        raise ValueError(f"order not understood: {order!r}")
    return o


def cp_empty(shape, dtype=float, order="C"):
    return fresh(shape_arg(shape), check_dtype(dtype), _order(order))


def cp_full(shape, fill_value, dtype=None, order="C"):
    if dtype is None:
        dtype = fill_value.dtype if is_device_array(fill_value) else np.array(fill_value).dtype
    return fresh(shape_arg(shape), check_dtype(dtype), _order(order))


def cp_empty_like(prototype, dtype=None, order="K", subok=None, shape=None):
    if subok is not None:
        raise TypeError("subok is not supported yet")
    if check_array(prototype, current_device()) is None and not is_device_array(prototype):
        prototype = np.asarray(prototype)
    dt = check_dtype(dtype if dtype is not None else prototype.dtype)
    o = _order(order, "CFAK")
    shp = prototype.shape if shape is None else shape_arg(shape)
    c, f = prototype.flags.c_contiguous, prototype.flags.f_contiguous
    if o == "A":
        o = "F" if f and not c else "C"
    if o == "K":
        if len(shp) != prototype.ndim or c or len(shp) <= 1:
            o = "C" if not (f and not c and len(shp) == prototype.ndim) else "F"
        else:
            return ArrayMeta(shp, dt, like_strides(shp, prototype.strides, dt.itemsize, c, f),
                       device=current_device())
    return fresh(shp, dt, o)


def cp_full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None):
    return cp_empty_like(a, dtype, order, subok, shape)


def cp_arange(start, stop=None, step=1, dtype=None):
    """cupy/_creation/ranges.py arange: float if any bound is a float, else int; up to two
    booleans (``cupy.array``); otherwise ``empty((size,))`` filled by _arange_ufunc."""
    if any(is_device_array(v) for v in (start, stop, step)):
        from ..._errors import DataDependentError
        raise DataDependentError("cupy.arange with a fake array bound needs its value")
    if dtype is None:
        dtype = float if any(np.dtype(type(v)).kind == "f" for v in (start, stop, step)) else int
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    size = int(np.ceil((stop - start) / step))
    dt = np.dtype(dtype)
    if size <= 0:
        return fresh((0,), check_dtype(dt))
    if dt.type is np.bool_:
        if size > 2:
            raise TypeError("arange() is only supported for booleans when the result has at "
                            "most length 2.")
        return fresh((size,), dt)
    dt = check_dtype(dt)
    dt.type(start), dt.type(step)  # _arange_ufunc(typ(start), typ(step), ...): its errors
    return fresh((size,), dt)


def cp_eye(N, M=None, k=0, dtype=float, order="C"):
    return fresh(shape_arg((N, N if M is None else M)), check_dtype(dtype), _order(order))


def cp_identity(n, dtype=float):
    return fresh(shape_arg((n, n)), check_dtype(dtype))


def to_device(a: Any, dtype: Any, copy: Any, order: Any, ndmin: int) -> Any:
    """core.pyx array(): a CuPy array as is (or astype), a NumPy array / cpu fake sent over."""
    dev = current_device()
    o = "K" if order is None else _order(order, "CFAK")
    if is_device_array(a) and device_of(a) != "cpu":
        dt = check_dtype(dtype if dtype is not None else a.dtype)
        if device_of(a) == dev:
            res = _ndarray_astype(a, dt, o, copy=bool(copy))
        else:
            res = copy_out(a, o, dt)
    else:
        if not is_device_array(a):
            a = np.array(a, dtype=dtype, copy=None)
        dt = check_dtype(dtype if dtype is not None else a.dtype)
        # _array_default: K / A become F for an F-not-C input, else C
        if o in ("K", "A"):
            o = "F" if (a.flags.f_contiguous and not a.flags.c_contiguous) else "C"
        res = fresh(a.shape, dt, o, dev)
    if ndmin > len(res.shape):
        add = ndmin - len(res.shape)
        if res is a:
            lead = a.strides[0] * a.shape[0] if a.shape else a.itemsize
            return ArrayMeta((1,) * add + a.shape, a.dtype, (lead,) * add + a.strides, view_of=a)
        raise UnsupportedOperationError("cupy.array", "ndmin= on a copy is not supported yet")
    return res


def cp_array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    if subok:
        raise NotImplementedError
    return to_device(obj, dtype, copy, order, ndmin)


def cp_asarray(a, dtype=None, order=None, *, copy=None, blocking=False):
    if copy is None:
        copy = False
    return to_device(a, dtype, copy, order, 0)


def cp_ascontiguousarray(a, dtype=None):
    """core.pyx ``ascontiguousarray``: a itself if C-contiguous; a 0-d array becomes (1,)
    (a ravel view of a, or a fresh copy)."""
    if is_device_array(a) and device_of(a) != "cpu":
        dt = check_dtype(dtype if dtype is not None else a.dtype)
        if dt == a.dtype and a.flags.c_contiguous:
            if not a.shape:
                return ArrayMeta((1,), dt, (dt.itemsize,), view_of=a)
            return a
        return fresh(a.shape or (1,), dt)
    return to_device(a, dtype, True, "C", 0)


def cp_asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    """cupy.asnumpy: a cpu fake (a NumPy array / cpu fake goes through np.asarray)."""
    if is_device_array(a) and device_of(a) != "cpu":
        return _ndarray_get(a, stream, order, out, blocking)
    if is_device_array(a):
        return a
    raise UnsupportedOperationError("cupy.asnumpy", "only fake inputs are supported")


# --- random (cupy/random/_distributions.py, _sample.py, _generator.py) ------------------

def _random_shape(size: Any, params: list) -> tuple:
    pshapes = [p.shape for p in params if is_device_array(p) or isinstance(p, np.ndarray)]
    if size is None:
        return broadcast_shapes(*pshapes) if pshapes else ()
    shape = shape_arg(size)
    for ps in pshapes:
        if broadcast_shapes(ps, shape) != shape:
            raise ValueError("Out shape is mismatched")
    return shape


def random_kernel(fn: Any):
    """A kernel for a cupy.random function from its signature: shape from size/params, dtype kw."""
    sig = inspect.signature(fn)
    name = fn.__name__

    def kernel(*args, **kwargs):
        if name in ("rand", "randn"):
            dt = np.dtype(kwargs.pop("dtype", float))
            if kwargs:
                raise TypeError(f"{name}() got unexpected keyword arguments {', '.join(kwargs)}")
            if dt.char not in "fd":
                raise TypeError("cupy.random only supports float32 and float64")
            return fresh(shape_arg(args), dt)
        b = sig.bind(*args, **kwargs)
        b.apply_defaults()
        p = dict(b.arguments)
        if name == "permutation":
            a = p["a"]
            if is_device_array(a):
                return fresh(a.shape, a.dtype)
            return fresh((operator.index(a),), _I8)
        if name == "shuffle":
            return None
        if name == "choice":
            a = p["a"]
            dt = a.dtype if is_device_array(a) else _I8
            return fresh(shape_arg(p["size"]) if p["size"] is not None else (), dt)
        size = p.pop("size", None)
        dtype = p.pop("dtype", None)
        if name in ("random_integers", "multinomial"):
            dtype = "l"
        dt = np.dtype(dtype) if dtype is not None else _F8
        if sig.parameters.get("dtype") is not None and sig.parameters["dtype"].default in (float,) \
                and dt.char not in "fd":
            raise TypeError("cupy.random only supports float32 and float64")
        params = [v for v in p.values() if is_device_array(v)]
        for v in params:
            check_array(v, current_device())
        return fresh(_random_shape(size, params), dt)

    kernel.__name__ = f"cupy.random.{name}"
    return kernel


def _dirichlet_shape(alpha: Any, size: Any) -> tuple:
    """``size`` followed by alpha's shape (cupy/random/_generator.py, _generator_api.pyx)."""
    if size is None:
        return tuple(alpha.shape)
    if isinstance(size, (int, np.integer)):
        return (operator.index(size),) + tuple(alpha.shape)
    return shape_arg(size + tuple(alpha.shape))


def cp_random_dirichlet(alpha, size=None, dtype=float):
    """RandomState.dirichlet: ``alpha = cupy.asarray(alpha)``; ``y = cupy.empty(size +
    alpha.shape, dtype)`` filled and normalised in place."""
    if not (is_device_array(alpha) and device_of(alpha) != "cpu"):
        alpha = cp_asarray(alpha)  # an ArrayMeta: its shape is what counts
    return fresh(_dirichlet_shape(alpha, size), check_dtype(dtype))


def generator_dirichlet(self, alpha, size=None):
    """Generator.dirichlet (_generator_api.pyx): a cupy.ndarray (cast to float64) or a Python
    float/int alpha; ``standard_gamma(alpha, size + alpha.shape)`` divided in place."""
    if is_device_array(alpha) and device_of(alpha) != "cpu":
        check_array(alpha, current_device())
    elif type(alpha) in (float, int):
        alpha = np.zeros(())
    else:
        raise TypeError("alpha is required to be a cupy.ndarray or a scalar")
    if size is not None and not isinstance(size, tuple):
        size = (size,)
    return fresh(_dirichlet_shape(alpha, size), _F8)


_GEN_DEFAULTS = {"integers": _I8}


def generator_kernel(name: str):
    """cupy.random.Generator.NAME (cupy/random/_generator_api.pyx): size, dtype, out."""
    def kernel(self, *args, size=None, dtype=None, out=None, **kw):
        if out is not None:
            return out
        params = list(args) + list(kw.values())
        if name in ("random", "standard_normal", "standard_exponential") and args:
            size, params = args[0], list(args[1:])
            if len(params) and dtype is None:
                dtype = params.pop(0)
        elif name == "integers":
            lo = args[0] if args else kw.pop("low")
            hi = args[1] if len(args) > 1 else kw.pop("high", None)
            if len(args) > 2:
                size = args[2]
            params = [lo, hi]
            dtype = dtype if dtype is not None else _I8
        dt = np.dtype(dtype) if dtype is not None else _GEN_DEFAULTS.get(name, _F8)
        fakes = [v for v in params if is_device_array(v)]
        return fresh(_random_shape(size, fakes), dt)
    kernel.__name__ = f"cupy.Generator.{name}"
    return kernel


def cp_copy(a, order="K"):
    """cupy/_creation/from_data.py ``copy``: ``a.copy(order)`` with order K by default."""
    if check_array(a, current_device()) is None:
        raise TypeError(f"Unsupported type {type(a)}")
    return copy_out(a, _order(order, "CFAK"))


# --- registration ---------------------------------------------------------------------

def register_rules(table: dict, namespace: Any = None, prefix: str = "cupy.") -> None:
    """Register each ``name: (rule, tag)`` or ``name: (rule, tag, flops)`` of ``table`` as a
    CuPy rule (backend "cupy"); without ``flops`` the NumPy namesake's FLOP rule counts it
    (faketensor/_flops.py).

    With a ``namespace`` (a cupy module) the op is the callable ``namespace.name``, skipped
    where this CuPy lacks it; a functools wrapper's original is registered too (cupy's poly
    routines), and a callable CuPy exports under two names (abs/absolute) once. Without one
    the op is the key ``name`` itself ("ndarray.sum")."""
    seen: set = set()
    for name, (fn, tag, *flops) in table.items():
        fl = flops[0] if flops else None
        if namespace is None:
            register(name, backend="cupy", tags=(tag,), name=f"{prefix}{name}", flops=fl)(fn)
            continue
        f = getattr(namespace, name, None)
        if f is None or id(f) in seen:
            continue
        keys = [f]
        inner = getattr(f, "__wrapped__", None)
        if inner is not None and (getattr(inner, "__module__", None) or "").startswith("cupy"):
            keys.append(inner)
        for key in keys:
            seen.add(id(key))
            register(key, backend="cupy", tags=(tag,), name=f"{prefix}{name}", flops=fl)(fn)


def _ufunc_rule(u: Any) -> Callable:
    """The rule of one cupy ufunc: ``cupy_ufunc_call`` with it."""
    return lambda *args, **kwargs: cupy_ufunc_call(u, *args, **kwargs)


def _register() -> None:
    table = {
        # ndarray methods (core.pyx); the others are registered by the module of their rule
        "ndarray.copy": (_ndarray_copy, "copy"), "ndarray.__copy__": (_ndarray_dunder_copy, "copy"),
        "ndarray.__deepcopy__": (_ndarray_dunder_deepcopy, "copy"), "ndarray.astype": (_ndarray_astype, "copy"),
        "ndarray.get": (_ndarray_get, "copy"),
        **{f"ndarray.{n}": (m, "reduction") for n, m in REDUCTIONS.items()},
    }
    register_rules(table)
    import cupy.random as cr
    fac, rnd = "factory", "random"
    table = {name: (_ufunc_rule(f), "ufunc") for name, f in sorted(vars(_cp).items())
             if type(f).__name__ == "ufunc" and type(f).__module__.startswith("cupy")}
    table.update({
        "empty": (cp_empty, fac), "zeros": (cp_empty, fac), "ones": (cp_empty, fac),
        "full": (cp_full, fac), "empty_like": (cp_empty_like, fac),
        "zeros_like": (cp_empty_like, fac), "ones_like": (cp_empty_like, fac),
        "full_like": (cp_full_like, fac), "arange": (cp_arange, fac),  # linspace: ops.py
        "eye": (cp_eye, fac), "identity": (cp_identity, fac), "asarray": (cp_asarray, fac),
        "asanyarray": (cp_asarray, fac), "ascontiguousarray": (cp_ascontiguousarray, fac),
        "asnumpy": (cp_asnumpy, fac), "copy": (cp_copy, "copy"),  # array: views.py
        **{n: (m, "reduction") for n, m in REDUCTIONS.items()},
        "amax": (ndarray_max, "reduction"), "amin": (ndarray_min, "reduction"),
    })
    register_rules(table, _cp)
    skip = ("seed", "get_random_state", "set_random_state", "reset_states", "default_rng",
            "bytes", "dirichlet", "multivariate_normal")
    table = {name: (random_kernel(f), rnd) for name, f in sorted(vars(cr).items())
             if not name.startswith("_") and inspect.isfunction(f) and name not in skip}
    table["dirichlet"] = (cp_random_dirichlet, rnd)
    register_rules(table, cr, "cupy.random.")
    table = {f"cupy.Generator.{name}": (generator_kernel(name), rnd) for name in dir(cr.Generator)
             if not name.startswith("_") and name != "dirichlet"}
    table["cupy.Generator.dirichlet"] = (generator_dirichlet, rnd)
    register_rules(table, prefix="")


def _share_numpy_rules() -> None:
    """NumPy's metadata queries (kernels/numpy/queries.py) answer CUDA fakes the same way, and
    ``ndarray.fill`` is the same write on both: their NumPy rules are CuPy's too."""
    shared = [(op, k) for (op, backend), k in REGISTRY.items()
              if backend == "numpy" and ("query" in k.tags or op == "ndarray.fill")]
    for op, k in shared:
        register(op, backend="cupy", tags=tuple(k.tags), name=k.name)(k.fn)


_share_numpy_rules()
on_cupy(_register)


# --- which rule a call runs ----------------------------------------------------------------

def is_cupy_op(func: Any) -> bool:
    """A cupy callable, or a method of a cupy object (op name "cupy.ufunc.reduce", ...)."""
    name = getattr(func, "op_name", None)
    if type(name) is str:
        return name.startswith("cupy.")
    mod = getattr(func, "__module__", None) or type(func).__module__
    return isinstance(mod, str) and mod.startswith("cupy")


def _cupy_ufunc(u: np.ufunc) -> Any:
    """core.pyx ``__array_ufunc__``: ``getattr(cupy, ufunc.__name__)`` (unpatched), or None."""
    cu = getattr(_cp, u.__name__, None)
    return getattr(cu, "__wrapped__", cu)


def _counterpart(func: Any) -> Any:
    """core.pyx ``__array_function__``: the cupy function at the NumPy function's module path
    (numpy.linalg.inv -> cupy.linalg.inv); None where CuPy has none, or re-exports NumPy's."""
    try:
        mod = _cp
        for part in func.__module__.split(".")[1:]:
            mod = getattr(mod, part)
        cu = getattr(mod, func.__name__)
    except (AttributeError, TypeError):
        return None
    return None if cu is func else cu


def _array_ufunc_kwargs(kwargs: dict, where: bool) -> dict:
    """core.pyx ``__array_ufunc__``: ``out=(x,)`` becomes ``out=x`` (ValueError for another
    length); a ufunc call takes ``where`` only as True (dropped)."""
    if "out" in kwargs and isinstance(kwargs["out"], tuple):
        if len(kwargs["out"]) != 1:
            raise ValueError("The 'out' parameter must have exactly one array value")
        kwargs = dict(kwargs, out=kwargs["out"][0])
    if where and "where" in kwargs:
        if kwargs["where"] is not True:
            raise TypeError(f"Wrong arguments {{'where': {kwargs['where']!r}}}")
        kwargs = {k: v for k, v in kwargs.items() if k != "where"}
    return kwargs


def _no_implementation(func: Any, protocol: str) -> TypeError:
    """NumPy's error when cupy.ndarray's protocol returns NotImplemented (CuPy has no such op)."""
    return TypeError(f"no implementation found for '{op_name(func)}' on types that implement "
                     f"{protocol}: [<class 'cupy.ndarray'>]")


def cupy_rule(func: Any, args: tuple, kwargs: dict) -> tuple[Kernel, tuple, dict]:
    """The registered CuPy rule a call reaches, with the arguments it gets: what CuPy's
    protocols (core.pyx ``__array_ufunc__`` / ``__array_function__``) turn the call into.

    Op keys: a method's own name ("ndarray.sum", "cupy.ufunc.reduce"; a NumPy object's
    method converts CUDA fakes, which CuPy refuses); a cupy callable
    itself; a NumPy ufunc's cupy namesake, a NumPy ufunc method "ufunc.NAME" with that
    namesake first; any other NumPy callable itself (rules both backends share: queries),
    else its cupy counterpart. A call CuPy refuses raises its TypeError."""
    key: Any = None
    prefix: tuple = ()
    op_key = getattr(func, "op_name", None)
    if type(op_key) is str:
        if not op_key.startswith(("ndarray.", "cupy.")):  # a NumPy object's (Generator.normal)
            raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                            "`.get()` to construct a NumPy array explicitly.")  # ndarray.__array__
        key = op_key
    elif isinstance(func, np.ufunc):
        key = _cupy_ufunc(func)
        if key is None and _cp is not None:
            raise _no_implementation(func, "__array_ufunc__")
        kwargs = _array_ufunc_kwargs(kwargs, where=True)
    elif isinstance(getattr(func, "__self__", None), np.ufunc):
        cu = _cupy_ufunc(func.__self__)
        if type(cu).__name__ != "ufunc" and _cp is not None:
            raise _no_implementation(func, "__array_ufunc__")
        key, prefix = f"ufunc.{func.__name__}", (cu,)
        kwargs = _array_ufunc_kwargs(kwargs, where=False)
    else:
        kernel = lookup(func, "cupy") or lookup(getattr(func, "__wrapped__", None), "cupy")
        if kernel is not None:
            return kernel, args, kwargs
        if not is_cupy_op(func):
            key = _counterpart(func)
            if key is None and _cp is not None:
                raise _no_implementation(func, "__array_function__")
    kernel = lookup(key, "cupy")
    if kernel is None:
        raise UnsupportedOperationError(func, "no CuPy rule for it yet" if _cp is not None else
                                        "CUDA fakes follow CuPy's rules; install cupy")
    return kernel, prefix + tuple(args), kwargs
