"""``np.broadcast`` and ``np.nditer`` given fakes (numpy/_core/src/multiarray/iterators.c
``arraymultiter_new``, nditer_pywrap.c ``npyiter_init``).

Both are C types that read their operands through the buffer protocol, so a fake cannot be
handed to them; neither can be subclassed. ``np.broadcast`` and ``np.nditer`` are replaced
(inside a FakeMode: numpy's module ``__getattr__`` serves them, the real types elsewhere, as
compiled extensions must see at import) by classes that build the real object when no fake is
among the operands (``isinstance`` with the real type still holds) and a metadata-only
stand-in otherwise:

- ``FakeBroadcast``: shape, nd, ndim, numiter, size, index, reset and ``iters`` from the real
  ``np.broadcast`` of zero-stride stand-ins (so NumPy's own errors); iterating it reads the
  elements: DataDependentError.
- ``FakeNditer``: operands (allocated ones fresh fakes in NpyIter's layout, ``copy`` /
  ``updateifcopy`` ones copies of the requested dtype), shape, ndim, nop, itersize, dtypes,
  itviews, flags; iterating, ``value``, ``multi_index`` and the buffers read data:
  DataDependentError. ``op_axes`` and ``itershape`` are not reproduced
  (UnsupportedOperationError).
- ``nested_iters`` (bound in numpy's namespace, NumPy's own without fakes): NumPy's nested
  iterators over pointer-only operands, each answered by a ``FakeNestedIter`` as above
  (allocated operands and buffering refused).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import _array
from .._dispatch import dispatch
from .._stack import paused
from .._errors import DataDependentError, UnsupportedOperationError
from ..kernels.registry import register
from ..meta import ArrayMeta, as_meta

_REAL_BROADCAST = np.broadcast
_REAL_NDITER: Any = np.nditer  # given lists with None for allocated operands
_FAKE = _array.FakeArray


def _has_fake(obj: Any) -> bool:
    if type(obj) is _FAKE or isinstance(obj, (FakeBroadcast, FakeNditer)):
        return True
    if type(obj) in (list, tuple):
        return any(_has_fake(x) for x in obj)
    return False


def _standin(x: Any) -> Any:
    """A real zero-stride array with x's shape and dtype (no data); other values as they are."""
    if isinstance(x, FakeBroadcast):
        return x._real
    if type(x) is _FAKE or (type(x) in (list, tuple) and _has_fake(x)):
        m = as_meta(x)
        one = np.zeros((1,), m.dtype) if m.dtype.itemsize else np.zeros((0,), m.dtype)
        return np.lib.stride_tricks.as_strided(one, shape=m.shape, strides=(0,) * len(m.shape),
                                               writeable=False)
    return x


def _no_values(what: str) -> DataDependentError:
    return DataDependentError(f"{what} reads the elements of fake arrays, which have no values")


class FakeBroadcastIter:
    """One of ``FakeBroadcast.iters``: a flatiter over an operand broadcast to the shape."""

    __slots__ = ("base", "_size", "_nd")

    def __init__(self, base: Any, size: int, nd: int) -> None:
        self.base = base
        self._size = size
        self._nd = nd

    index = property(lambda self: 0)
    coords = property(lambda self: (0,) * self._nd)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Any:
        raise _no_values("iterating np.broadcast(...).iters")

    def __next__(self) -> Any:
        raise _no_values("iterating np.broadcast(...).iters")

    def __getitem__(self, key: Any) -> Any:
        raise _no_values("indexing np.broadcast(...).iters")


class FakeBroadcast:
    """np.broadcast of operands among which are fakes (see the module docstring)."""

    __slots__ = ("_real", "_ops")

    def __init__(self, *args: Any) -> None:
        with paused():
            self._real = _REAL_BROADCAST(*[_standin(a) for a in args])  # NumPy's checks
        self._ops = args

    shape = property(lambda self: self._real.shape)
    nd = property(lambda self: self._real.nd)
    ndim = property(lambda self: self._real.ndim)
    numiter = property(lambda self: self._real.numiter)
    size = property(lambda self: self._real.size)
    index = property(lambda self: self._real.index)

    @property
    def iters(self) -> tuple:
        out: list = []
        for a in self._ops:
            if isinstance(a, FakeBroadcast):
                out.extend(a.iters)
            else:
                out.append(FakeBroadcastIter(a, self.size, self.nd))
        return tuple(out)

    def reset(self) -> None:
        self._real.reset()

    def __iter__(self) -> Any:
        return self

    def __next__(self) -> Any:
        raise _no_values("iterating np.broadcast")

    def __repr__(self) -> str:
        return f"<faketensor broadcast of shape {self.shape}>"


class _BroadcastType(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, (_REAL_BROADCAST, FakeBroadcast))

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, (_REAL_BROADCAST, FakeBroadcast))


class broadcast(metaclass=_BroadcastType):
    """np.broadcast: the real object, or a FakeBroadcast when a fake is among the operands."""

    def __new__(cls, *args: Any) -> Any:
        if _has_fake(args):
            return FakeBroadcast(*args)
        return _REAL_BROADCAST(*args)


broadcast.__doc__ = _REAL_BROADCAST.__doc__
broadcast.__module__ = "numpy"


# --- nditer ------------------------------------------------------------------------------------

_ALLOC_OP: Any = object.__new__(type("_NditerAllocation", (), {"__repr__": lambda s: "<np.nditer allocation>"}))


def _allocation(shape: tuple, dtype: np.dtype, strides: tuple) -> ArrayMeta:
    """A fresh array NpyIter allocates for an operand (charged like any output)."""
    return ArrayMeta(tuple(shape), np.dtype(dtype), tuple(strides))


register(_ALLOC_OP, tags=("factory",), name="np.nditer allocation")(_allocation)

_GLOBAL_FLAGS = frozenset({"buffered", "c_index", "copy_if_overlap", "common_dtype", "delay_bufalloc",
                           "external_loop", "f_index", "grow_inner", "multi_index", "ranged",
                           "refs_ok", "reduce_ok", "zerosize_ok"})
_OP_FLAGS = frozenset({"readonly", "readwrite", "writeonly", "no_broadcast", "contig", "aligned", "nbo",
                       "copy", "updateifcopy", "allocate", "no_subtype", "arraymask", "writemasked",
                       "overlap_assume_elementwise", "virtual"})


def _flags_list(flags: Any, nop: int) -> list:
    """op_flags as one list of flag names per operand (a flat list applies to all)."""
    if flags is None:
        return [None] * nop
    if isinstance(flags, (list, tuple)) and flags and all(isinstance(f, (list, tuple)) for f in flags):
        if len(flags) != nop:
            raise ValueError("op_flags must be a tuple/list matching the number of ops")
        return [list(f) for f in flags]
    return [list(flags)] * nop


def _fake_from(meta: ArrayMeta) -> Any:
    return dispatch(_ALLOC_OP, (_FAKE,), (meta.shape, meta.dtype, meta.strides), {})


class _Interface:
    """An array interface at a made-up, aligned address: NumPy's iterator construction over
    it computes pointers and reads nothing (buffers delayed, copies refused)."""

    __slots__ = ("__array_interface__",)

    def __init__(self, shape: tuple, dtype: np.dtype, strides: tuple, writeable: bool,
                 offset: int = 0) -> None:
        lo = sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0 and n)
        self.__array_interface__ = {
            "shape": tuple(shape), "descr": dtype.descr, "typestr": dtype.str,
            "data": (_ADDR - lo + offset, not writeable), "strides": tuple(strides), "version": 3,
        }


_ADDR = 1 << 44


def _pointer_only(m: Any, writeable: bool) -> np.ndarray:
    off = 0 if m.flags.aligned else 1
    return np.asarray(_Interface(m.shape, m.dtype, m.strides, writeable, off))


def _refuses_copy(metas: list, oflags: list, dts: list, gflags: list) -> None:
    if "copy_if_overlap" in gflags:
        raise UnsupportedOperationError("np.nditer", "copy_if_overlap with fakes")
    for m, fl, dt in zip(metas, oflags, dts):
        if m is not None and ("copy" in fl or "updateifcopy" in fl) and (
                (dt is not None and dt != m.dtype) or not m.flags.aligned or not m.dtype.isnative
                or "contig" in fl):
            raise UnsupportedOperationError("np.nditer", "an operand copied at construction")


class _NditerBase:
    """What a FakeNditer answers besides its construction: views, and refusals for values."""

    _views: Any  # (shape, strides, offset, writeable) per operand; None when buffered
    operands: tuple
    shape: tuple

    @property
    def itviews(self) -> tuple:
        """Views of the operands in the iterator's (reordered, coalesced) axes."""
        if self._views is None:
            raise ValueError("cannot provide an iterator view when buffering is enabled")
        out = []
        for o, (shape, strides, off, w) in zip(self.operands, self._views):
            out.append(_view(o, shape, strides, off, w))
        return tuple(out)

    # everything that reads or writes elements
    def __iter__(self) -> Any:
        return self

    def __next__(self) -> Any:
        raise _no_values("iterating np.nditer")

    def iternext(self) -> bool:
        raise _no_values("np.nditer.iternext")

    @property
    def value(self) -> Any:
        raise _no_values("np.nditer.value")

    @property
    def multi_index(self) -> Any:
        raise _no_values("np.nditer.multi_index")

    @property
    def index(self) -> Any:
        raise _no_values("np.nditer.index")

    def __getitem__(self, i: Any) -> Any:
        raise _no_values("np.nditer[i]")

    def reset(self) -> None:
        return None

    def close(self) -> None:
        return None

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __repr__(self) -> str:
        return f"<faketensor nditer of shape {self.shape}>"


class FakeNditer(_NditerBase):
    """np.nditer over operands among which are fakes (see the module docstring)."""

    def __init__(self, op: Any, flags: Any = None, op_flags: Any = None, op_dtypes: Any = None,
                 order: str = "K", casting: str = "safe", op_axes: Any = None,
                 itershape: Any = None, buffersize: int = 0) -> None:
        if op_axes is not None or itershape is not None:
            raise UnsupportedOperationError("np.nditer", "op_axes or itershape with fakes")
        ops = list(op) if isinstance(op, (list, tuple)) else [op]
        nop = len(ops)
        gflags = list(flags or [])
        oflags = _flags_list(op_flags, nop)
        for i, o in enumerate(ops):
            if oflags[i] is None:
                oflags[i] = ["writeonly", "allocate"] if o is None else ["readonly"]
        metas: list[Any] = [None if o is None else as_meta(o) for o in ops]
        with paused():  # the probes are real NumPy iterators over pointer-only operands
            real, probe_ops = _probe(metas, gflags, oflags, op_dtypes, order, casting, buffersize)
        operands = []
        for i, (o, m) in enumerate(zip(ops, metas)):
            if o is None:
                operands.append(_fake_from(m))
            elif type(o) is _FAKE:
                operands.append(o)
            else:
                operands.append(_fake_from(ArrayMeta(tuple(m.shape), m.dtype, tuple(m.strides))))
        _take(self, real, tuple(operands), probe_ops, gflags)


def _take(it: Any, real: Any, operands: tuple, probe_ops: list, gflags: list) -> None:
    """Give fake iterator ``it`` what the real probe iterator ``real`` answers (its views as
    offsets from the pointer-only operands), the fakes as its operands; close the probe."""
    it.operands = operands
    it.nop = len(operands)
    it.dtypes = tuple(real.dtypes)
    it.shape = tuple(real.shape)
    it.ndim = real.ndim
    it.itersize = real.itersize
    it.has_multi_index = real.has_multi_index
    it.has_index = real.has_index
    it.has_delayed_bufalloc = "delay_bufalloc" in gflags
    it.iterationneedsapi = real.iterationneedsapi
    it.finished = real.finished
    it._views = None if "buffered" in gflags else [
        (v.shape, v.strides, v.__array_interface__["data"][0]
         - probe_ops[i].__array_interface__["data"][0], v.flags.writeable)
        for i, v in enumerate(real.itviews)]
    real.close()


def _probe(metas: list, gflags: list, oflags: list, op_dtypes: Any, order: str, casting: str,
           buffersize: int) -> tuple:
    """NumPy's iterator over pointer-only operands of the fakes' layouts (allocations filled in
    by ``_allocate``): its checks, shape, dtypes and views, no data read."""
    nop = len(metas)
    if isinstance(op_dtypes, (str, np.dtype, type)):
        op_dtypes = [op_dtypes] * nop
    dts = [None if d is None else np.dtype(d) for d in (op_dtypes or [None] * nop)]
    _refuses_copy(metas, oflags, dts, gflags)
    probe_flags = gflags + (["delay_bufalloc"] if "buffered" in gflags
                            and "delay_bufalloc" not in gflags else [])
    writes = ["readwrite" in fl or "writeonly" in fl for fl in oflags]
    probe_ops = [None if m is None else _pointer_only(m, w and m.flags.writeable)
                 for m, w in zip(metas, writes)]
    if any(o is None for o in probe_ops):
        _allocate(metas, probe_ops, probe_flags, oflags, op_dtypes, order, casting, buffersize)
    real = _REAL_NDITER(probe_ops, flags=probe_flags, op_flags=oflags, op_dtypes=op_dtypes,
                        order=order, casting=casting, buffersize=buffersize)
    return real, probe_ops


def _view(o: Any, shape: tuple, strides: tuple, off: int, writeable: bool) -> Any:
    """A view of fake o with shape and strides starting ``off`` bytes after o's start
    (read-only where the operand is read in the iterator)."""
    return dispatch(_VIEW_OP, (_FAKE,), (o, shape, strides, off, writeable), {})


_VIEW_OP: Any = object.__new__(type("_NditerView", (), {"__repr__": lambda s: "<np.nditer itview>"}))


def _itview(o: Any, shape: tuple, strides: tuple, off: int, writeable: bool) -> ArrayMeta:
    return ArrayMeta(tuple(shape), o.dtype, tuple(strides), view_of=o, offset=off,
                     writeable=None if writeable else False)


register(_VIEW_OP, tags=("view",), name="np.nditer itview")(_itview)


def _allocate(metas: list, probe_ops: list, flags: list, oflags: list, op_dtypes: Any,
              order: str, casting: str, buffersize: int) -> None:
    """Fill in the operands NpyIter allocates (None in ``metas``): the dtype NumPy gives them
    (its iterator over one-element pointer-only operands, which also checks the flags and
    casts), the broadcast shape, and the layout NpyIter gives an allocation
    (npyiter_new_temp_array: layout.iterator_out_strides, as a ufunc's output). Each becomes
    a pointer-only operand without ``allocate`` for the full probe."""
    from ..layout import broadcast_shapes, iterator_out_strides
    ins = [m for m in metas if m is not None]
    nd = max((m.ndim for m in ins), default=0)
    tiny = [None if p is None else np.asarray(_Interface((1,) * p.ndim, p.dtype, (0,) * p.ndim,
                                                         p.flags.writeable)) for p in probe_ops]
    it = _REAL_NDITER(tiny, flags=[f for f in flags if f != "buffered"] + (
        ["buffered"] if "buffered" in flags else []), op_flags=oflags, op_dtypes=op_dtypes,
        order=order, casting=casting, buffersize=buffersize)
    dtypes = [it.operands[i].dtype for i in range(len(metas))]
    it.close()
    shape = broadcast_shapes(*[m.shape for m in ins]) if ins else ()
    voters = [(m.shape, m.strides, order == "A" and m.flags.f_contiguous) for m in ins]
    for i, m in enumerate(metas):
        if m is None:
            dt = dtypes[i]
            metas[i] = ArrayMeta(shape, dt, iterator_out_strides(shape, dt.itemsize, voters, order))
            probe_ops[i] = _pointer_only(metas[i], True)
            oflags[i] = [f for f in oflags[i] if f != "allocate"]
    del nd


class _NditerType(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, (_REAL_NDITER, _NditerBase))

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, (_REAL_NDITER, _NditerBase))


class nditer(metaclass=_NditerType):
    """np.nditer: the real iterator, or a FakeNditer when a fake is among the operands."""

    def __new__(cls, op: Any, *args: Any, **kwargs: Any) -> Any:
        if _has_fake(op):
            return FakeNditer(op, *args, **kwargs)
        return _REAL_NDITER(op, *args, **kwargs)


nditer.__doc__ = _REAL_NDITER.__doc__
nditer.__module__ = "numpy"


_REAL_NESTED: Any = np.nested_iters


class FakeNestedIter(_NditerBase):
    """One iterator of ``np.nested_iters`` over operands among which are fakes: as
    FakeNditer, its shape, views and flags from NumPy's own nested iterators over
    pointer-only operands (nditer_pywrap.c ``NpyIter_NestedIters``)."""

    def __init__(self, real: Any, operands: tuple, probe_ops: list, gflags: list) -> None:
        _take(self, real, operands, probe_ops, gflags)

    def __repr__(self) -> str:
        return f"<faketensor nested_iters iterator of shape {self.shape}>"


def nested_iters(op: Any, axes: Any, flags: Any = None, op_flags: Any = None,
                 op_dtypes: Any = None, order: str = "K", casting: str = "safe",
                 buffersize: int = 0) -> tuple:
    """np.nested_iters: NumPy's own, or FakeNestedIters when a fake is among the operands
    (allocated operands and buffering with fakes are refused: UnsupportedOperationError)."""
    if not _has_fake(op):
        return _REAL_NESTED(op, axes, flags=flags, op_flags=op_flags, op_dtypes=op_dtypes,
                            order=order, casting=casting, buffersize=buffersize)
    ops = list(op) if isinstance(op, (list, tuple)) else [op]
    gflags = list(flags or [])
    if any(o is None for o in ops) or "buffered" in gflags:
        raise UnsupportedOperationError("np.nested_iters", "allocated operands or buffering "
                                        "with fakes")
    oflags = _flags_list(op_flags, len(ops))
    oflags = [["readonly"] if fl is None else fl for fl in oflags]
    metas = [as_meta(o) for o in ops]
    dts = op_dtypes
    if isinstance(dts, (str, np.dtype, type)):
        dts = [dts] * len(ops)
    _refuses_copy(metas, oflags, [None if d is None else np.dtype(d)
                                  for d in (dts or [None] * len(ops))], gflags)
    writes = ["readwrite" in fl or "writeonly" in fl for fl in oflags]
    with paused():  # NumPy's nested iterators over pointer-only operands: no data read
        probe_ops = [_pointer_only(m, w and m.flags.writeable) for m, w in zip(metas, writes)]
        reals = _REAL_NESTED(probe_ops, axes, flags=gflags, op_flags=oflags,
                             op_dtypes=op_dtypes, order=order, casting=casting,
                             buffersize=buffersize)
    operands = tuple(o if type(o) is _FAKE else
                     _fake_from(ArrayMeta(tuple(m.shape), m.dtype, tuple(m.strides)))
                     for o, m in zip(ops, metas))
    return tuple(FakeNestedIter(r, operands, probe_ops, gflags) for r in reals)


nested_iters.__doc__ = _REAL_NESTED.__doc__
nested_iters.__module__ = "numpy"


_NAMES = {"broadcast": (broadcast, _REAL_BROADCAST), "nditer": (nditer, _REAL_NDITER)}


def install() -> None:
    """Serve ``np.broadcast`` / ``np.nditer`` through numpy's module ``__getattr__`` (once):
    the classes above where a FakeMode is active in the calling context, the real types
    elsewhere. The real types must stay what compiled extensions see when they import
    (Cython checks ``numpy.broadcast``'s size and type at import: SciPy, pandas, CuPy), and
    library imports inside a mode run with the mode paused (modes/imports.py)."""
    import sys
    from .patching import get_stack
    mod = sys.modules["numpy"]
    orig = mod.__dict__.get("__getattr__")
    if getattr(orig, "_ft_patch", False):
        return
    # a function, not a type: bound in numpy's namespace as it is (NumPy's own without fakes)
    setattr(mod, "nested_iters", nested_iters)

    def __getattr__(attr: str) -> Any:
        pair = _NAMES.get(attr)
        if pair is not None:
            stack = get_stack()
            return pair[0] if stack and stack[0]._is_fake_mode else pair[1]
        if orig is None:
            raise AttributeError(f"module 'numpy' has no attribute {attr!r}")
        return orig(attr)

    __getattr__._ft_patch = True  # type: ignore[attr-defined]  # a function attribute (patching.mark_patch)
    for name in _NAMES:
        mod.__dict__.pop(name, None)
    setattr(mod, "__getattr__", __getattr__)
