"""Constructors of NumPy's Python ndarray subclasses, patched at ``__new__`` in a mode
(modes/python_entry.py): ``recarray`` (numpy/_core/records.py; ``np.rec.array``,
``fromarrays`` and ``fromrecords`` are NumPy's own Python code run in the mode and reach it)
and ``matrix`` (numpy/matrixlib/defmatrix.py); ``np.rec.fromrecords``, whose records are
Python values. ``memmap``'s is in meta_utils/convert/files.py."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..._errors import UnsupportedOperationError
from ... import converters
from ...layout import as_shape, c_strides, f_strides
from ...meta import ArrayMeta, is_fake
from ..registry import register

_RECARRAY_NEW = np.recarray.__dict__["__new__"]
_RECARRAY_NEW = getattr(_RECARRAY_NEW, "__func__", _RECARRAY_NEW)


@register(_RECARRAY_NEW, tags=("factory",), name="np.recarray")
def recarray_new(subtype: Any, shape: Any, dtype: Any = None, buf: Any = None, offset: Any = 0,
                 strides: Any = None, formats: Any = None, names: Any = None, titles: Any = None,
                 byteorder: Any = None, aligned: bool = False, order: str = "C") -> ArrayMeta:
    """``ndarray.__new__(subtype, shape, (record, descr), order=order)``: a fresh C (or F)
    array of dtype ``(np.record, descr)``; the descr from NumPy's own rules on an empty one.
    The fake is a FakeArray (fields by index, not as attributes)."""
    if buf is not None:
        raise UnsupportedOperationError("np.recarray", "a buffer (buf=)")
    empty = _RECARRAY_NEW(np.recarray, (0,), dtype, None, 0, None, formats, names, titles,
                          byteorder, aligned)
    shp = as_shape(shape)
    order = converters.order(order, "C", "CF")
    dt = empty.dtype
    st = f_strides(shp, dt.itemsize) if order == "F" else c_strides(shp, dt.itemsize)
    return ArrayMeta(shp, dt, st)


def _refuse(cls: type, name: str, why: str) -> None:
    """A subclass whose semantics a FakeArray cannot keep: its constructor is refused."""
    new = cls.__dict__["__new__"]
    new = getattr(new, "__func__", new)

    def refused(*args: Any, **kwargs: Any) -> ArrayMeta:
        raise UnsupportedOperationError(name, why)
    refused.__doc__ = f"{name}: {why}"
    register(new, tags=("factory",), name=name)(refused)


_refuse(np.matrix, "np.matrix", "a fake cannot be an np.matrix (``*`` as matmul, 2-d results; "
        "np.r_['r'], np.bmat, np.asmatrix build one)")
_CHARARRAY_NEW = np.char.chararray.__dict__["__new__"]
_CHARARRAY_NEW = getattr(_CHARARRAY_NEW, "__func__", _CHARARRAY_NEW)


@register(_CHARARRAY_NEW, tags=("factory",), name="np.char.chararray")
def chararray_new(subtype: Any, shape: Any, itemsize: Any = 1, unicode: Any = False,
                  buffer: Any = None, offset: Any = 0, strides: Any = None,
                  order: Any = "C") -> ArrayMeta:
    """defchararray.py ``chararray.__new__``: ``ndarray.__new__(subtype, shape, (str_ or
    bytes_, itemsize), order=order)``, a fresh C (or F) array (a str ``buffer`` only fills
    it); made a FakeCharArray by its constructor patch (modes/python_entry.py)."""
    dtype = np.dtype((np.str_ if unicode else np.bytes_, int(itemsize)))
    if buffer is not None and not isinstance(buffer, str):
        raise UnsupportedOperationError("np.char.chararray", "a buffer (buffer=)")
    shp = as_shape(shape)
    if any(d < 0 for d in shp):
        raise ValueError("negative dimensions are not allowed")
    order = converters.order(order, "C")
    st = f_strides(shp, dtype.itemsize) if order == "F" else c_strides(shp, dtype.itemsize)
    return ArrayMeta(shp, dtype, st)


@register(np.rec.fromrecords, tags=("factory",))
def fromrecords(recList: Any, *args: Any, **kwargs: Any) -> ArrayMeta:
    """Built for real from the records (Python values already in memory; NumPy's Python code
    reads them with ``tolist``): a fresh array of the result's shape and record dtype."""
    if any(is_fake(a) for a in (recList, *args, *kwargs.values())):
        raise UnsupportedOperationError(np.rec.fromrecords, "a fake argument")
    r = _FROMRECORDS(recList, *args, **kwargs)
    # the result is ``retval.view(recarray)``: a view of the array built from the records
    return ArrayMeta(r.shape, r.dtype, r.strides,
                     base_shape=None if r.base is None else tuple(r.base.shape))


_FROMRECORDS = np.rec.fromrecords
