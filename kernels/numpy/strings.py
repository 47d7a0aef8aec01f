"""np.strings and np.char: the Python wrappers of numpy/_core/strings.py and
numpy/_core/defchararray.py, and the C helpers they call (``_vec_string`` and
``compare_chararrays`` in numpy/_core/src/multiarray/multiarraymodule.c).

The string ufuncs themselves (``add``, comparisons, ``str_len``, ``isalpha``, ``find``,
``_center``, ``_slice``, ...) go through the generic ufunc rule (umath.py): their loops
(numpy/_core/src/umath/string_ufuncs.cpp, stringdtype_ufuncs.cpp) resolve the output
dtype from the input dtypes alone. The wrappers decide the width of a fixed-width (``U``,
``S``) result from the data: ``replace``, ``expandtabs``, ``partition``, ``multiply``,
``mod``, ``encode``/``decode`` and ``join`` size it by the longest result string, and
``center``/``ljust``/``rjust``/``zfill`` by ``max(str_len(a).max(), width.max())``. A rule
here answers exactly where that width follows from the dtypes and the known arguments
(``width`` at least the input's length in characters; every ``StringDType`` result) and
raises DataDependentError naming the reason elsewhere. ``index``/``rindex`` raise
ValueError when a substring is missing, so they need the values too.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy._core import umath as _um
from numpy._core.multiarray import compare_chararrays as _compare_chararrays

from ..._errors import DataDependentError, UnsupportedOperationError
from ..._numpy_version import since
from ...layout import broadcast_shapes, c_strides, iterator_out_strides
from ...meta import ArrayMeta, as_meta, is_fake
from ..registry import keep_real, register, transient
from .creation import empty_like
from .shape_base import stack
from .temporaries import Steps, array_bytes, asarray_bytes
from .umath import ufunc_call

_INTP = np.iinfo(np.intp)
_MAX = np.iinfo(np.int64).max
_I8 = np.dtype(np.int64)


def _is_vstring(dt: np.dtype) -> bool:
    return dt.char == "T"


def _nchars(dt: np.dtype) -> int:
    """Characters a fixed-width string dtype holds (strings.py ``_get_num_chars``)."""
    return dt.itemsize // 4 if dt.kind == "U" else dt.itemsize


def _arr(x: Any) -> Any:
    """``np.asanyarray(x)``: a fake or array as it is, anything else as a small real array."""
    return as_meta(x)


def _buffer(a: Any) -> int:
    """Bytes ``np.asanyarray`` allocates for a non-array argument (0 for arrays)."""
    return 0 if is_fake(a) or isinstance(a, (np.ndarray, ArrayMeta)) else array_bytes(
        np.shape(a), np.asarray(a).dtype)


def _values(x: Any, name: str, why: str) -> np.ndarray:
    """The values of an argument the result depends on: a real array or a Python value
    (small, already in memory); a fake has none (DataDependentError naming ``why``)."""
    if is_fake(x) or type(x) is ArrayMeta:
        raise DataDependentError(f"{name}: {why}")
    return np.asanyarray(x)


def _check_int(x: Any, what: str) -> None:
    """strings.py: ``if not np.issubdtype(x.dtype, np.integer): raise TypeError``."""
    if not np.issubdtype(x.dtype, np.integer):
        raise TypeError(f"unsupported type {x.dtype} for operand '{what}'")


def _empty_max(shape: tuple) -> None:
    """``buffersizes.max()`` of an empty array: NumPy's ValueError (maximum has no identity)."""
    if 0 in shape:
        raise ValueError("zero-size array to reduction operation maximum which has no identity")


def _width_dtype(a: Any, out_shape: tuple, known: int | None, fn: str, arg: str) -> np.dtype:
    """The ``f"{a.dtype.char}{n}"`` dtype a fixed-width wrapper allocates, where n is the
    largest of the strings' lengths and ``known``; exact only when ``known`` is at least the
    input's length in characters (every string fits), else the lengths decide."""
    _empty_max(out_shape)
    if known is None or known < _nchars(a.dtype):
        raise DataDependentError(
            f"np.strings.{fn}: the result's itemsize is the longest of the strings' lengths "
            f"and {arg}; {arg} is {'unknown' if known is None else 'shorter than the input'}"
            f" ({a.dtype}), so it depends on the strings")
    return np.dtype(f"{a.dtype.char}{known}")


def _fixed_only(a: Any, fn: str, why: str) -> None:
    """A fixed-width (U/S) result whose width the data decide: DataDependentError."""
    raise DataDependentError(f"np.strings.{fn}: the result's itemsize ({a.dtype.char}N) is "
                             f"{why}, which depends on the strings")


def _finish(st: Steps, res: Any, *held: int) -> Any:
    """Close a replay: the outputs ``res`` allocated while ``held`` bytes are alive, then
    those freed; the peak above the outputs is the call's transient."""
    for o in (res if type(res) is tuple else (res,)):
        if not getattr(o, "scalar", False):
            st.new(array_bytes(o.shape, o.dtype))
    st.free(*held)
    st.done()
    return res


# --- justification: center, ljust, rjust, zfill (strings.py) -----------------------------------

_JUST = {"center": _um._center, "ljust": _um._ljust, "rjust": _um._rjust}


def _just(name: str, a: Any, width: Any, fillchar: Any) -> Any:
    st = Steps()
    wb = st.new(_buffer(width))
    width = _arr(width)
    _check_int(width, "width")
    a = _arr(a)
    fb = st.new(_buffer(fillchar))
    fill = _arr(fillchar)
    fv = _values(fill, f"np.strings.{name}", "whether the fill character is one character long "
                 "depends on its value")
    if np.any(np.strings.str_len(fv) != 1):
        raise TypeError("The fill character must be exactly one character long")
    ufunc = _JUST[name]
    if np.result_type(a.dtype, fv.dtype).char == "T":
        return _finish(st, ufunc_call(ufunc, a, width, fill, _report=True), wb, fb)
    fv = fv.astype(a.dtype, copy=False)
    if fv.dtype != fill.dtype:
        fb2 = st.new(max(fv.nbytes, 1))
        st.free(fb)
        fb = fb2
    return _just_fixed(st, ufunc, name, a, width, fv, before=(wb,), after=(fb,))


def _just_fixed(st: Steps, ufunc: Any, name: str, a: Any, width: Any, *rest: Any,
                before: tuple = (), after: tuple = ()) -> Any:
    """``width = np.maximum(str_len(a), width)``; ``out = np.empty_like(a, shape=...,
    dtype=f"{a.dtype.char}{width.max()}")``; ``ufunc(a, width, *rest, out=out)``.
    ``before``: bytes freed when ``width`` is rebound; ``after``: freed on return."""
    wshape = broadcast_shapes(a.shape, width.shape)
    shape = broadcast_shapes(wshape, *[r.shape for r in rest])
    known = None
    if not is_fake(width) and type(width) is not ArrayMeta:
        wv = np.asarray(width)
        known = int(wv.max()) if wv.size else None
    sl = st.new(array_bytes(a.shape, _I8))  # str_len(a)
    mx = st.new(array_bytes(wshape, _I8))  # np.maximum(..., width)
    st.free(sl, *before)
    dt = _width_dtype(a, wshape, known, name, "width")
    out = empty_like(a, dtype=dt, shape=shape)
    st.new(array_bytes(shape, dt))
    ufunc_call(ufunc, a, ArrayMeta(wshape, _I8, c_strides(wshape, 8)), *rest, out=out)
    # the iterator copies a byte-swapped 0-d operand (the fill character cast to a's dtype)
    # to native order (nditer_constr.c: 0-d operands are not buffered)
    st.temp(sum(array_bytes((), x.dtype) for x in (a, *rest)
                if not x.shape and not x.dtype.isnative))
    st.free(mx, *after)
    st.done()
    return out


def _just_dispatch(name: str) -> Any:
    def rule(a: Any, width: Any, fillchar: Any = " ") -> Any:
        return _just(name, a, width, fillchar)
    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = (f"np.strings.{name} (strings.py): exact for StringDType, and for U/S when "
                    "``width`` is at least the input's length in characters.")
    keep_real(rule, 1, "width", 2, "fillchar")
    return rule


for _name in _JUST:
    register(getattr(np.strings, _name), tags=("copy",), name=f"strings.{_name}")(
        _just_dispatch(_name))


@register(np.strings.zfill, tags=("copy",), name="strings.zfill")
def zfill(a: Any, width: Any) -> Any:
    """np.strings.zfill (strings.py): as ``rjust`` with '0', no fill character argument."""
    st = Steps()
    wb = st.new(_buffer(width))
    width = _arr(width)
    _check_int(width, "width")
    a = _arr(a)
    if _is_vstring(a.dtype):
        return _finish(st, ufunc_call(_um._zfill, a, width, _report=True), wb)
    return _just_fixed(st, _um._zfill, "zfill", a, width, before=(wb,))


keep_real(zfill, 1, "width")


# --- widths the data decide: multiply, expandtabs, replace, partition, mod, encode ----------

@register(np.strings.multiply, tags=("copy",), name="strings.multiply")
def multiply(a: Any, i: Any) -> Any:
    """np.strings.multiply (strings.py): StringDType through the ``multiply`` ufunc; a U/S
    result is as wide as the longest ``str_len(a) * i`` (data-dependent)."""
    st = Steps()
    ib = st.new(_buffer(i))
    a = _arr(a)
    i = _arr(i)
    _check_int(i, "i")
    mx = st.new(array_bytes(i.shape, i.dtype))  # np.maximum(i, 0)
    st.free(ib)  # ``i`` rebound
    ipos = ArrayMeta(i.shape, i.dtype, c_strides(i.shape, i.dtype.itemsize))
    if _is_vstring(a.dtype):
        if not i.shape:  # a 0-d maximum is returned as a NumPy scalar
            st.free(mx)
            mx = 0
            ipos = i.dtype.type(0)
        return _finish(st, ufunc_call(np.multiply, a, ipos, _report=True), mx)
    if a.dtype.kind not in "US":
        ufunc_call(_um.str_len, a)  # str_len's UFuncTypeError
    broadcast_shapes(a.shape, i.shape)
    _empty_max(broadcast_shapes(a.shape, i.shape))
    _fixed_only(a, "multiply", "the longest str_len(a) * i")


@register(np.strings.expandtabs, tags=("copy",), name="strings.expandtabs")
def expandtabs(a: Any, tabsize: Any = 8) -> Any:
    """np.strings.expandtabs (strings.py): StringDType exact; U/S as wide as the longest
    expanded string."""
    st = Steps()
    tb = st.new(_buffer(tabsize))
    a = _arr(a)
    tabsize = _arr(tabsize)
    if _is_vstring(a.dtype):
        return _finish(st, ufunc_call(_um._expandtabs, a, tabsize, _report=True), tb)
    ufunc_call(_um._expandtabs_length, a, tabsize)  # its dtype errors and broadcasting
    _empty_max(broadcast_shapes(a.shape, tabsize.shape))
    _fixed_only(a, "expandtabs", "the longest string after expanding tabs")


@register(np.strings.replace, tags=("copy",), name="strings.replace")
def replace(a: Any, old: Any, new: Any, count: Any = -1) -> Any:
    """np.strings.replace (strings.py): StringDType exact; U/S as wide as the longest
    string after replacing (the count of ``old`` in each string decides)."""
    st = Steps()
    cb = st.new(_buffer(count))
    count = _arr(count)
    _check_int(count, "count")
    arr = _arr(a)
    old_dtype = getattr(old, "dtype", None)
    new_dtype = getattr(new, "dtype", None)
    ob, nb = st.new(_buffer(old)), st.new(_buffer(new))
    old, new = _arr(old), _arr(new)
    if np.result_type(arr.dtype, old.dtype, new.dtype).char == "T":
        return _finish(st, ufunc_call(_um._replace, arr, old, new, count, _report=True),
                       cb, ob, nb)
    a_dt = arr.dtype
    for x, d in ((old, old_dtype), (new, new_dtype)):
        want = np.dtype(d or a_dt)
        if not np.can_cast(x.dtype, want, "unsafe"):
            np.zeros(0, x.dtype).astype(want)  # the cast's error
        if x.dtype.kind in "US" and want.kind in "US" and x.dtype.kind != want.kind \
                and x.size and not is_fake(x) and type(x) is not ArrayMeta:
            np.asarray(x).astype(want)  # UnicodeEncodeError for non-ASCII into S
    oc = old if old_dtype else ArrayMeta(old.shape, a_dt, c_strides(old.shape, a_dt.itemsize))
    nc = new if new_dtype else ArrayMeta(new.shape, a_dt, c_strides(new.shape, a_dt.itemsize))
    counts = ufunc_call(_um.count, arr, oc, 0, _MAX)
    shape = broadcast_shapes(counts.shape, count.shape, nc.shape)
    _empty_max(shape)
    _fixed_only(arr, "replace", "the longest string after the replacements")


_PARTITION = {"partition": (_um._partition, _um.find), "rpartition": (_um._rpartition, _um.rfind)}


def _partition(name: str, a: Any, sep: Any) -> Any:
    st = Steps()
    sb = st.new(_buffer(sep))
    a = _arr(a)
    sep = _arr(sep)
    ufunc, find = _PARTITION[name]
    if np.result_type(a.dtype, sep.dtype).char == "T":
        return _finish(st, ufunc_call(ufunc, a, sep, _report=True), sb)
    if sep.dtype != a.dtype and not is_fake(sep) and type(sep) is not ArrayMeta:
        np.asarray(sep).astype(a.dtype, copy=False)  # the cast's error (UnicodeEncodeError)
    sc = ArrayMeta(sep.shape, a.dtype, c_strides(sep.shape, a.dtype.itemsize))
    ufunc_call(find, a, sc, 0, _MAX)
    shape = broadcast_shapes(a.shape, sep.shape)
    _empty_max(shape)
    _fixed_only(a, name, "set by where the separator is found in each string")


def _partition_rule(name: str) -> Any:
    def rule(a: Any, sep: Any) -> Any:
        return _partition(name, a, sep)
    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = (f"np.strings.{name} (strings.py): three arrays; StringDType exact through "
                    f"the ``_{name}`` ufunc, U/S as wide as the parts the separator's place makes.")
    keep_real(rule, 1, "sep")
    return rule


for _name in _PARTITION:
    register(getattr(np.strings, _name), tags=("copy",), name=f"strings.{_name}")(
        _partition_rule(_name))


def _char_partition_rule(name: str) -> Any:
    def rule(a: Any, sep: Any) -> Any:
        parts = _partition(name, a, sep)
        st = Steps()
        held = [st.new(array_bytes(p.shape, p.dtype)) for p in parts]
        res = stack(parts, axis=-1)
        st.new(array_bytes(res.shape, res.dtype))
        st.free(*held)
        st.done()
        return res
    rule.__name__ = rule.__qualname__ = f"char_{name}"
    rule.__doc__ = (f"np.char.{name} (defchararray.py): ``np.stack(np.strings.{name}(a, sep), "
                    "axis=-1)``.")
    keep_real(rule, 1, "sep")
    return rule


for _name in _PARTITION:
    register(getattr(np.char, _name), tags=("copy",), name=f"char.{_name}")(
        _char_partition_rule(_name))


@register(np.char.multiply, tags=("copy",), name="char.multiply")
def char_multiply(a: Any, i: Any) -> Any:
    """np.char.multiply (defchararray.py): np.strings.multiply, TypeError as ValueError."""
    try:
        return multiply(a, i)
    except TypeError:
        raise ValueError("Can only multiply by integers") from None


# --- _vec_string: upper, lower, ..., translate, mod, encode, decode, join, split ----------------

def _vec_string_check(a: Any) -> str:
    """_vec_string's type check (multiarraymodule.c): the Python type whose method it calls."""
    kind = a.dtype.kind
    if kind == "S":
        return "bytes"
    if kind == "U" or _is_vstring(a.dtype):
        return "str"
    raise TypeError("string operation on non-string array")


def _vec_string_meta(a: Any, dt: np.dtype, method: str, args: tuple = ()) -> ArrayMeta:
    """_vec_string's result: a C array of ``dt`` over the broadcast of ``a`` and the
    arguments (``_vec_string_no_args`` / ``_vec_string_with_args``); AttributeError when
    the Python type lacks the method."""
    pytype = bytes if _vec_string_check(a) == "bytes" else str
    if not hasattr(pytype, method):
        raise AttributeError(f"type object '{pytype.__name__}' has no attribute '{method}'")
    shape = broadcast_shapes(a.shape, *[np.shape(x) if not is_fake(x) else x.shape
                                        for x in args]) if args else a.shape
    return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))


def _arg_arrays(args: Any) -> None:
    """``_vec_string_with_args`` (multiarraymodule.c) broadcasts its arguments with
    PyArray_MultiIterFromObjects, which makes an array of each that is not one (None and a
    dict: a 0-d object array; a str: a 0-d str array), alive through the call."""
    made = 0
    for x in args:
        if not (is_fake(x) or isinstance(x, np.ndarray) or type(x) is ArrayMeta):
            arr = np.asarray(x)
            made += array_bytes(arr.shape, arr.dtype)
    transient(made)


def _case_rule(method: str) -> Any:
    def rule(a: Any) -> Any:
        a = _arr(a)
        return _vec_string_meta(a, a.dtype, method)
    rule.__name__ = rule.__qualname__ = method
    rule.__doc__ = (f"np.strings.{method} (strings.py): ``_vec_string(a, a.dtype, "
                    f"'{method}')``, a C array of the input's dtype (longer results truncated).")
    return rule


for _name in ("upper", "lower", "swapcase", "capitalize", "title"):
    register(getattr(np.strings, _name), tags=("copy",), name=f"strings.{_name}")(
        _case_rule(_name))


def _valid_str_table(table: Any) -> bool:
    """A dict whose values str.translate accepts (None, a code point, a str): then no
    string can make it raise (a missing key leaves the character as it is)."""
    if not isinstance(table, dict):
        return False
    for v in table.values():
        if v is None or isinstance(v, str):
            continue
        if isinstance(v, int) and 0 <= v < 0x110000:
            continue
        return False
    return True


@register(np.strings.translate, tags=("copy",), name="strings.translate")
def translate(a: Any, table: Any, deletechars: Any = None) -> Any:
    """np.strings.translate (strings.py): ``_vec_string(a, a.dtype, 'translate', ...)``.
    bytes.translate checks its table and deletions before reading a byte; str.translate
    looks each character up, so a table that can raise makes the answer data-dependent."""
    a = _arr(a)
    if a.dtype.kind == "U" or _is_vstring(a.dtype):
        if a.size and not _valid_str_table(table):
            raise DataDependentError("np.strings.translate: whether str.translate raises with "
                                     "this table depends on the characters of the strings")
        _arg_arrays((table,))
        return _vec_string_meta(a, a.dtype, "translate", (np.asarray(table, dtype=object),))
    _vec_string_check(a)
    args = (table,) if deletechars is None else (table, deletechars)
    if a.size:
        b"x".translate(*args)  # its TypeError / ValueError for a bad table
    _arg_arrays(args)
    return _vec_string_meta(a, a.dtype, "translate", tuple(np.asarray(x, dtype=object)
                                                           for x in args))


def _to_str_array(result: ArrayMeta, like_dtype: np.dtype, fn: str, why: str) -> ArrayMeta:
    """strings.py ``_to_bytes_or_str_array``: an empty result is cast to the dtype; any
    other goes through ``np.asarray(result.tolist())``, as wide as its longest string."""
    if result.size:
        raise DataDependentError(f"np.strings.{fn}: {why}")
    st = Steps()
    ob = st.new(array_bytes(result.shape, result.dtype))
    out = ArrayMeta(result.shape, like_dtype, c_strides(result.shape, like_dtype.itemsize))
    st.new(array_bytes(result.shape, like_dtype))
    st.free(ob)
    st.done()
    return out


@register(np.strings.mod, tags=("copy",), name="strings.mod")
def mod(a: Any, values: Any) -> Any:
    """np.strings.mod (strings.py): each string ``% values`` in Python, then to the widest."""
    a = _arr(a)
    res = _vec_string_meta(a, np.dtype(object), "__mod__", (values,))
    return _to_str_array(res, a.dtype, "mod", "the % formatting of each string decides the "
                         "result's width and whether it raises")


@register(np.strings.encode, tags=("copy",), name="strings.encode")
def encode(a: Any, encoding: Any = None, errors: Any = None) -> Any:
    """np.strings.encode (strings.py): str.encode of each string, then to the widest bytes."""
    a = _arr(a)
    res = _vec_string_meta(a, np.dtype(object), "encode")
    return _to_str_array(res, np.asarray(np.bytes_(b"")).dtype, "encode",
                         "the encoded strings' longest length is the result's width")


@register(np.strings.decode, tags=("copy",), name="strings.decode")
def decode(a: Any, encoding: Any = None, errors: Any = None) -> Any:
    """np.strings.decode (strings.py): bytes.decode of each string, then to the widest str."""
    a = _arr(a)
    res = _vec_string_meta(a, np.dtype(object), "decode")
    return _to_str_array(res, np.asarray(np.str_("")).dtype, "decode",
                         "the decoded strings' longest length is the result's width")


@register(np.char.join, tags=("copy",), name="char.join")
def join(sep: Any, seq: Any) -> Any:
    """np.char.join (strings.py ``_join``): ``sep.join(seq)`` per element, then to the widest
    string (an intermediate fixed-width array even for StringDType)."""
    sep = _arr(sep)
    seq = _arr(seq)
    res = _vec_string_meta(sep, np.dtype(object), "join", (seq,))
    return _to_str_array(res, seq.dtype, "join", "the joined strings' longest length sets the "
                         "width of the array NumPy builds from them")


def _split_rule(method: str) -> Any:
    def rule(a: Any, *args: Any) -> Any:
        a = _arr(a)
        kind = _vec_string_check(a)
        real = [x for x in args if x is not None]
        if method != "splitlines":
            real = [args[0] if args else None] + [x for x in args[1:] if x is not None]
        for x in real:
            if is_fake(x) or type(x) is ArrayMeta:
                raise DataDependentError(f"np.char.{method}: whether {kind}.{method} raises "
                                         "depends on the values of its arguments")
        if a.size:
            empty = b"" if kind == "bytes" else ""
            # the argument errors, on the NumPy scalars _vec_string passes (an np.str_
            # separator is a bytes-like one of UCS4 bytes for bytes.split)
            getattr(empty, method)(*[np.asarray(x).flat[0] for x in real])
        _arg_arrays(real)
        return _vec_string_meta(a, np.dtype(object), method, tuple(real))
    rule.__name__ = rule.__qualname__ = method
    rule.__doc__ = (f"np.char.{method} (strings.py ``_{method}``): an object array of lists "
                    "over the broadcast of ``a`` and the arguments.")
    return rule


def _register_split() -> None:
    for name in ("split", "rsplit", "splitlines"):
        fn = _split_rule(name)
        rule: Callable[..., Any]
        if name == "splitlines":
            def rule(a: Any, keepends: Any = None, _fn: Any = fn) -> Any:
                return _fn(a, keepends)
        else:
            def rule(a: Any, sep: Any = None, maxsplit: Any = None, _fn: Any = fn) -> Any:
                return _fn(a, sep, maxsplit)
        rule.__name__ = rule.__qualname__ = name
        rule.__doc__ = fn.__doc__
        register(getattr(np.char, name), tags=("copy",), name=f"char.{name}")(rule)


_register_split()


# --- slice, index, rindex ----------------------------------------------------------------------

@register(since((2, 3), "strings.slice"), tags=("copy",), name="strings.slice")
def slice_(a: Any, start: Any = None, stop: Any = np._NoValue, step: Any = None, /) -> Any:
    """np.strings.slice (strings.py): the defaults from ``step``'s sign, then ``_slice``."""
    if stop is np._NoValue:
        stop = start
        start = None
    if step is None:
        step = 1
    st = Steps()
    sb = st.new(_buffer(step))
    step_m = _arr(step)
    _check_int(step_m, "step")
    sv = _values(step, "np.strings.slice", "whether a step is zero (ValueError) depends on "
                 "its values")
    if np.any(sv == 0):
        raise ValueError("slice step cannot be zero")
    held = [sb]
    if start is None:
        start = np.where(sv < 0, _INTP.max, 0)
        held.append(st.new(array_bytes(start.shape, start.dtype)))
    if stop is None:
        stop = np.where(sv < 0, _INTP.min, _INTP.max)
        held.append(st.new(array_bytes(stop.shape, stop.dtype)))
    return _finish(st, ufunc_call(_um._slice, a, start, stop, step_m, _report=True), *held)


keep_real(slice_, 1, 2, 3)


def _index_rule(ufunc: np.ufunc) -> Any:
    def rule(*args: Any, **kwargs: Any) -> Any:
        res = ufunc_call(ufunc, *args, _report=True, **kwargs)
        if res.size:
            raise DataDependentError(f"np.strings.{ufunc.__name__}: raises ValueError when a "
                                     "string lacks the substring, which depends on the strings")
        return res
    rule.__name__ = rule.__qualname__ = f"{ufunc.__name__}_ufunc"
    rule.__doc__ = (f"The ``{ufunc.__name__}`` ufunc (string_ufuncs.cpp): find's dtype, but a "
                    "missing substring raises ValueError, so a non-empty call needs the values.")
    return rule


for _uf in (_um.index, _um.rindex):
    register(_uf, tags=("ufunc",), name=f"strings.{_uf.__name__}")(_index_rule(_uf))


def _search_rule(name: str, ufunc: np.ufunc) -> Any:
    def rule(a: Any, sub: Any, start: Any = 0, end: Any = None) -> Any:
        return ufunc(a, sub, start, _MAX if end is None else end)
    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = (f"np.strings.{name} (strings.py): the ``{ufunc.__name__}`` ufunc with "
                    "``end=None`` as int64's maximum.")
    return rule


def _strip_rule(name: str, whitespace: np.ufunc, chars_ufunc: np.ufunc) -> Any:
    def rule(a: Any, chars: Any = None) -> Any:
        return whitespace(a) if chars is None else chars_ufunc(a, chars)
    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = (f"np.strings.{name} (strings.py): ``{whitespace.__name__}`` or, given "
                    f"chars, ``{chars_ufunc.__name__}``; the input's dtype.")
    return rule


def _ufunc_caller(ufunc: np.ufunc) -> Any:
    """A ufunc called the way the kernel of a Python wrapper calls it: index/rindex by
    their own rule, the others by the generic one (reporting the call's bytes)."""
    if ufunc in (_um.index, _um.rindex):
        return _index_rule(ufunc)
    return lambda *args: ufunc_call(ufunc, *args, _report=True)


for _name, _uf in (("find", _um.find), ("rfind", _um.rfind), ("count", _um.count),
                   ("index", _um.index), ("rindex", _um.rindex),
                   ("startswith", _um.startswith), ("endswith", _um.endswith)):
    register(getattr(np.strings, _name), tags=("ufunc",), name=f"strings.{_name}")(
        _search_rule(_name, _ufunc_caller(_uf)))
for _name, _w, _c in (("strip", _um._strip_whitespace, _um._strip_chars),
                      ("lstrip", _um._lstrip_whitespace, _um._lstrip_chars),
                      ("rstrip", _um._rstrip_whitespace, _um._rstrip_chars)):
    register(getattr(np.strings, _name), tags=("ufunc",), name=f"strings.{_name}")(
        _strip_rule(_name, _ufunc_caller(_w), _ufunc_caller(_c)))



# --- comparisons of np.char: compare_chararrays ------------------------------------------------

_CMP = frozenset({"==", "!=", "<", ">", "<=", ">="})


@register(_compare_chararrays, tags=("ufunc",), name="char.compare_chararrays")
def compare_chararrays(a1: Any, a2: Any, cmp: Any, rstrip: Any) -> Any:
    """multiarraymodule.c ``compare_chararrays``: S and U arrays of one kind compared in a
    buffered NpyIter (string_ufuncs.cpp ``_umath_strings_richcompare``), a bool array in K
    order; different kinds give NotImplemented, other dtypes TypeError."""
    if not isinstance(cmp, str):
        raise TypeError(f"compare_chararrays() argument 3 must be str, not {type(cmp).__name__}")
    if cmp not in _CMP:
        raise ValueError("comparison must be '==', '!=', '<', '>', '<=', '>='")
    bool(rstrip)
    m1, m2 = _arr(a1), _arr(a2)
    transient(asarray_bytes(a1) + asarray_bytes(a2))  # PyArray_FROM_O of both, alive to the end
    if m1.dtype.kind not in "SU" or m2.dtype.kind not in "SU":
        raise TypeError("comparison of non-string arrays")
    if m1.dtype.kind != m2.dtype.kind:
        return NotImplemented
    shape = broadcast_shapes(m1.shape, m2.shape)
    ops = [(m.shape, m.strides, m.flags.f_contiguous) for m in (m1, m2)]
    return ArrayMeta(shape, np.dtype(bool), iterator_out_strides(shape, 1, ops))


def _char_cmp_rule(name: str, op: str) -> Any:
    def rule(x1: Any, x2: Any) -> Any:
        return compare_chararrays(x1, x2, op, True)
    rule.__name__ = rule.__qualname__ = f"char_{name}"
    rule.__doc__ = (f"np.char.{name} (defchararray.py): ``compare_chararrays(x1, x2, '{op}', "
                    "True)``, trailing whitespace stripped.")
    return rule


for _name, _op in (("equal", "=="), ("not_equal", "!="), ("greater_equal", ">="),
                   ("less_equal", "<="), ("greater", ">"), ("less", "<")):
    register(getattr(np.char, _name), tags=("ufunc",), name=f"char.{_name}")(
        _char_cmp_rule(_name, _op))
