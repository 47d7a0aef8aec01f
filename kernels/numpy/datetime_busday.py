"""Business-day functions: busday_offset, busday_count, is_busday
(numpy/_core/src/multiarray/datetime_busday.c).

Each converts its date arguments (``PyArray_FromAny`` with the generic datetime dtype unless
already an array; ``offsets`` with int64), then runs one buffered NpyIter over the dates, the
offsets and the output (``NPY_KEEPORDER``, safe casting, every operand ``NPY_ITER_ALIGNED``),
with loop dtypes datetime64[D] / int64 / bool. The output's layout and dtype never depend on
the values; the errors of the arguments (roll, weekmask, holidays, busdaycal, the casts, a
read-only ``out``) come from NumPy itself, called on empty stand-ins of the same dtypes, whose
loop reads nothing.

Known limits: NumPy raises ValueError for a date that is not a business day with
``roll="raise"`` (the default) and for NaT dates in busday_offset / busday_count; those
depend on the dates' values, which a fake does not know, so the fake cannot raise them. A
fake ``weekmask`` (its values decide the business days and the all-zeros error) is refused
with DataDependentError.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..._errors import DataDependentError
from ...layout import broadcast_shapes, iterator_out_strides
from ...meta import ArrayMeta, as_meta, is_aligned, is_meta
from ..registry import register, scratch, transient
from .temporaries import array_bytes
from .umath import IterOp, iterator_buffer_bytes

_DAY = np.dtype("M8[D]")
_I8 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_NO = object()


def _stand_in(m: Any) -> np.ndarray:
    """An empty real array of ``m``'s dtype (read-only like ``m``): NumPy checks it as it
    checks ``m`` and its loop reads nothing."""
    a = np.empty((0,), m.dtype)
    if not m.flags.writeable:
        a.flags.writeable = False
    return a


def _dates(x: Any) -> tuple[Any, int]:
    """A date operand as the C code takes it: an array as is, anything else through
    ``PyArray_FromAny(x, datetime64)`` (a new array, alive through the call): (metadata, its
    bytes)."""
    if is_meta(x) or isinstance(x, np.ndarray):
        return as_meta(x), 0
    a = np.asarray(x, dtype="M8")
    return a, array_bytes(a.shape, a.dtype)


def _offsets(x: Any) -> tuple[Any, int, np.ndarray]:
    """``PyArray_FromAny(offsets, int64)``: an int64 array as is, another array cast (a new
    array like it, order K), anything else a new int64 array: (metadata, its bytes, an empty
    stand-in of the dtype NumPy converts from, whose safe cast NumPy checks)."""
    if is_meta(x) or isinstance(x, np.ndarray):
        m = as_meta(x)
        if m.dtype == _I8:  # native int64: used as it is (the iterator aligns it)
            return m, 0, _stand_in(m)
        from .misc import k_copy
        c = k_copy(m, _I8 if np.can_cast(m.dtype, _I8, "safe") else m.dtype)
        return ArrayMeta(c.shape, _I8, like_k(c)), array_bytes(c.shape, _I8), _stand_in(m)
    a = np.array(x, dtype=_I8)  # Python values are converted, not cast (1.5 becomes 1)
    return a, array_bytes(a.shape, _I8), np.empty((0,), _I8)


def like_k(c: Any) -> tuple:
    """The strides of a K-order copy ``c`` recomputed for int64 items."""
    from ...layout import like_strides
    return like_strides(tuple(c.shape), tuple(c.strides), 8, c.flags.c_contiguous,
                        c.flags.f_contiguous)


def _holiday_bytes(holidays: Any) -> int:
    """PyArray_HolidaysConverter: a non-array is made a datetime64 array first (freed once its
    days are copied to the C heap, before the dates are converted)."""
    if holidays is _NO or is_meta(holidays) or isinstance(holidays, np.ndarray):
        return 0
    a = np.asarray(holidays, dtype="M8")
    return array_bytes(a.shape, a.dtype)


def _real(x: Any) -> Any:
    """An array argument as an empty real array of its dtype and number of dimensions (what
    NumPy checks of holidays), anything else as it is."""
    if not (is_meta(x) or isinstance(x, np.ndarray)):
        return x
    m = as_meta(x)
    return np.empty((0,) + (1,) * (m.ndim - 1) if m.ndim else (), m.dtype)


def _busday(fn: Any, ins: list, probes: list, loops: list, out_dt: np.dtype, made: int,
            weekmask: Any, holidays: Any, busdaycal: Any, out: Any, extra: dict) -> Any:
    """The shared part: NumPy's own argument checks on empty stand-ins, then the iterator's
    output (allocated in K order over ``ins``, or ``out``), its 0-d copies and buffers."""
    if is_meta(weekmask):
        raise DataDependentError(f"np.{fn.__name__}: a fake weekmask's values decide the "
                                 "business days")
    kw = dict(extra)
    for name, v in (("weekmask", weekmask), ("holidays", holidays), ("busdaycal", busdaycal)):
        if v is not _NO:
            kw[name] = _real(v)
    if out is not _NO:
        if not (is_meta(out) or isinstance(out, np.ndarray)):
            raise ValueError(f"{fn.__name__}: must provide a NumPy array for 'out'")
        kw["out"] = _stand_in(as_meta(out))
    fn(*probes, **kw)  # roll, weekmask, holidays, busdaycal, casts
    shapes = [tuple(m.shape) for m in ins]
    o = as_meta(out) if out is not _NO else None
    if o is not None:
        shapes.append(tuple(o.shape))
    shape = broadcast_shapes(*shapes)
    if o is not None and tuple(o.shape) != shape:
        raise ValueError(f"non-broadcastable output operand with shape {tuple(o.shape)} "
                         f"doesn't match the broadcast shape {shape}")
    copies = 0
    ops = []
    for m, dt in zip(ins, loops):
        cast = m.dtype != dt or not m.dtype.isnative or not is_aligned(m)
        if cast and not m.shape:  # nditer_constr.c: a 0-d operand is copied, not buffered
            copies += dt.itemsize
            cast = False
            ops.append(IterOp((), (), dt.itemsize))
        else:
            ops.append(IterOp(tuple(m.shape), tuple(m.strides), dt.itemsize, cast))
    if o is None:
        ops.append(IterOp(shape, None, out_dt.itemsize))
    else:
        ops.append(IterOp(shape, tuple(o.strides), out_dt.itemsize,
                          o.dtype != out_dt or not o.dtype.isnative or not is_aligned(o)))
    scratch(iterator_buffer_bytes(shape, tuple(ops), o is not None, "K"))
    hol = _holiday_bytes(holidays)
    if max(hol, made):
        transient(max(hol, made), before_outputs=True)
    if made + copies:
        transient(made + copies)
    if o is not None:
        return out
    strides = iterator_out_strides(shape, out_dt.itemsize,
                                   [(m.shape, m.strides, False) for m in ins])
    if not shape:  # PyArray_Return: the 0-d result becomes a NumPy scalar
        transient(out_dt.itemsize)
        return ArrayMeta((), out_dt, (), scalar=True)
    return ArrayMeta(shape, out_dt, strides)


@register(np.busday_offset, tags=("copy",))
def busday_offset(dates: Any, offsets: Any, roll: Any = _NO, weekmask: Any = _NO,
                  holidays: Any = _NO, busdaycal: Any = _NO, out: Any = _NO) -> Any:
    """datetime_busday.c array_busday_offset / business_day_offset: datetime64[D] results
    over the broadcast of the dates and the int64 offsets."""
    d, db = _dates(dates)
    off, ob, probe = _offsets(offsets)
    extra = {} if roll is _NO else {"roll": roll}
    return _busday(np.busday_offset, [d, off], [_stand_in(d), probe], [_DAY, _I8], _DAY,
                   db + ob, weekmask, holidays, busdaycal, out, extra)


@register(np.busday_count, tags=("copy",))
def busday_count(begindates: Any, enddates: Any, weekmask: Any = _NO, holidays: Any = _NO,
                 busdaycal: Any = _NO, out: Any = _NO) -> Any:
    """datetime_busday.c array_busday_count / business_day_count: int64 counts over the
    broadcast of the two date operands."""
    b, bb = _dates(begindates)
    e, eb = _dates(enddates)
    return _busday(np.busday_count, [b, e], [_stand_in(b), _stand_in(e)], [_DAY, _DAY], _I8,
                   bb + eb, weekmask, holidays, busdaycal, out, {})


@register(np.is_busday, tags=("copy",))
def is_busday(dates: Any, weekmask: Any = _NO, holidays: Any = _NO, busdaycal: Any = _NO,
              out: Any = _NO) -> Any:
    """datetime_busday.c array_is_busday / is_business_day: a bool per date."""
    d, db = _dates(dates)
    return _busday(np.is_busday, [d], [_stand_in(d)], [_DAY], _BOOL, db, weekmask, holidays,
                   busdaycal, out, {})
