"""iscomplex, isreal, real_if_close, nan_to_num (numpy/lib/_type_check_impl.py): NumPy's
Python replayed on intermediates, the result laid out as NumPy's last step lays it out."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from ...layout import c_strides
from ...meta import ArrayMeta, as_meta, check_writeable, is_meta
from .. import flops
from ..registry import pyarray_return, register, scalar_result, transient
from ._common import BOOL, chainable, complex_part
from .reductions import final_result, like_copy
from .temporaries import Steps, Val, array_bytes, call, copyto_bytes, unary, used
from .umath import ufunc_call


@register(np.iscomplex, tags=("ufunc",))
def iscomplex(x: Any) -> Any:
    """np.iscomplex: ``x.imag != 0`` for complex x, else fresh C bool zeros (``[()]``)."""
    m = as_meta(x)
    if m.dtype.kind == "c":
        return ufunc_call(np.not_equal, complex_part(m), 0, _report=True)  # the 0-d arrays of 0
    if m.ndim == 0:  # zeros(()) then res[()]
        return pyarray_return(ArrayMeta((), BOOL, ()))
    return ArrayMeta(m.shape, BOOL, c_strides(m.shape, 1), base_shape=m.shape)  # res[()] is a view


@register(np.isreal, tags=("ufunc",))
def isreal(x: Any) -> Any:
    """np.isreal: ``np.imag(x) == 0`` (a real x's imag is a fresh C or F zeros array)."""
    from .umath import ufunc_steps
    from .views import imag
    m = as_meta(x)
    st = Steps()
    im = chainable(imag(m))
    zeros = st.new(0 if m.dtype.kind == "c" else array_bytes(m.shape, m.dtype))  # imag's zeros
    res = ufunc_steps(st, np.equal, im, 0)[0]
    st.free(zeros)
    st.done()
    return res if is_meta(res) else scalar_result(ArrayMeta((), BOOL, ()))


@register(np.real_if_close, tags=("data-dependent",))
def real_if_close(a: Any, tol: Any = 100) -> Any:
    """np.real_if_close: the input itself unless complex (then the dtype depends on values)."""
    m = as_meta(a)
    if m.dtype.kind != "c":
        return m
    if m.size == 0:  # all() of nothing is True: a.real
        return ArrayMeta(m.shape, complex_part(m).dtype, m.strides, view_of=m)
    raise DataDependentError("np.real_if_close: whether the result is real depends on values")


@register(np.nan_to_num, tags=("copy",), flops=flops.elementwise)
def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
    """np.nan_to_num: ``np.array(x, copy=copy)`` (order K), filled in place by copyto."""
    m = as_meta(x)
    if m.dtype.kind in "OV":
        raise UnsupportedOperationError("np.nan_to_num", f"dtype {m.dtype}")
    inexact = m.dtype.kind in "fc"
    if copy:
        r = like_copy(m)
    else:
        r = m
        if inexact:
            check_writeable(m, "assignment destination")
    if inexact:
        pdt = np.dtype(m.dtype.char.lower()) if m.dtype.kind == "c" else m.dtype
        for v in (nan, posinf, neginf):
            if v is not None and not np.can_cast(type(v) if type(v) in (int, float, complex)
                                                 else np.asarray(v).dtype, pdt, "unsafe"):
                raise TypeError(f"Cannot cast scalar to {pdt}")
        if m.ndim and type(nan) in (int, float):  # complex: the same for .real and .imag
            _nan_to_num_steps(ArrayMeta(m.shape, pdt, m.strides), nan, 2 if m.dtype.kind == "c" else 1)
        elif type(nan) in (int, float):
            # 0-d: the masks are NumPy bools (logical_and makes 0-d arrays of two and its
            # result), then copyto of each replacement (its 0-d array, re-made in the part's
            # dtype, the first freed before the where= mask's 0-d array is made)
            own = np.asarray(nan).dtype.itemsize  # the value's 0-d array, re-made in pdt
            remade = pdt.itemsize if type(nan) is int or np.asarray(nan).dtype != pdt else 0
            transient(max(3, own + remade, (remade or own) + 1, pdt.itemsize + 1))
    if m.ndim == 0:  # x[()] of the 0-d copy (or of x itself)
        res = ArrayMeta((), m.dtype, ())
        return pyarray_return(res) if copy else scalar_result(res)
    return final_result(r)


def _nan_to_num_steps(m: Any, nan: Any, passes: int = 1) -> None:
    """_type_check_impl.py nan_to_num on a real-float array: isnan, isposinf (isinf,
    ~signbit, logical_and) and isneginf (isinf, signbit, logical_and) masks, then three
    copyto's of the replacement scalars (the copy of x is the output)."""
    steps = Steps()
    d = Val(m.shape, m.dtype)
    prev: tuple = ()
    for _ in range(passes):  # a complex array's .real, then .imag: each mask of the first
        isnan = call(steps, np.isnan, d)  # pass lives until its name is rebound
        used(steps, *prev[:1])
        isinf = call(steps, np.isinf, d)
        pos = call(steps, np.logical_and, isinf, unary(steps, np.invert, call(steps, np.signbit, d)))
        used(steps, *prev[1:2])
        neg = call(steps, np.logical_and, call(steps, np.isinf, d), call(steps, np.signbit, d))
        used(steps, *prev[2:])
        steps.temp(copyto_bytes(m.dtype, nan))
        steps.temp(m.dtype.itemsize)  # the finfo max and min are NumPy scalars: 0-d arrays
        prev = (isnan, pos, neg)
    used(steps, *prev)
    steps.done()
