"""Fakes known to hold one value in every element (``np.zeros``, ``np.ones``, ``np.full``, a
converted real array of one element, and what elementwise ops, copies and idempotent
reductions make of them), so code that branches on such a value (numpy.ma's
``if not m.any(): m = nomask``, ``if m: return masked``) follows the real branch.

The knowledge lives on the storage (``FakeStorage.known``: a real 0-d array, the value every
element holds in that dtype), so views share it; a view of another dtype knows nothing.
A write into a storage by an op whose value is not known (or differs, or covers only part
of it) forgets it: forgetting is never wrong, a fake then stands for unknown values as any
other. Every op on fakes passes through ``after`` (faketensor/_runner.py run_fake).

Why elementwise ufuncs: on operands that each hold one value, every output element is the
ufunc of those values (numpy/_core/src/umath/ufunc_object.c applies the loop per element),
so it is computed once on 0-d arrays of the operands' dtypes (NEP 50: a 0-d array promotes
as an n-d one; Python scalars stay weak).
"""
from __future__ import annotations

import enum
import warnings
import weakref
from typing import Any

import numpy as np

from ._stack import paused
from ._storage import SCALAR

_PY = (int, float, complex, bool)

# reductions whose result over a non-empty extent is the value itself (idempotent), and
# over no elements the identity (numpy/_core/src/umath/reduction.c: the identity is the
# initial value of every output element)
_IDEMPOTENT = frozenset({np.logical_or, np.logical_and, np.maximum, np.minimum, np.fmax,
                         np.fmin, np.bitwise_or, np.bitwise_and})
_REDUCE_NAMES = {"any": np.logical_or, "all": np.logical_and, "max": np.maximum,
                 "min": np.minimum, "amax": np.maximum, "amin": np.minimum,
                 "sum": np.add, "prod": np.multiply}
# ops whose output elements are elements of their first argument (or of every array in
# it, a sequence): copies, casts, broadcasts, reshapes, gathers, joins
_MOVES = frozenset({
    "ndarray.copy", "np.copy", "ndarray.astype", "np.array", "np.asarray", "np.asanyarray",
    "np.ascontiguousarray", "np.asfortranarray", "np.require", "np.broadcast_to",
    "ndarray.reshape", "np.reshape", "ndarray.ravel", "np.ravel", "ndarray.flatten",
    "ndarray.transpose", "np.transpose", "ndarray.squeeze", "np.squeeze", "np.expand_dims",
    "ndarray.repeat", "np.repeat", "np.tile", "ndarray.__getitem__", "ndarray.take",
    "np.take", "np.concatenate", "np.stack", "np.hstack", "np.vstack", "np.dstack",
    "np.column_stack", "np.atleast_1d", "np.atleast_2d", "np.atleast_3d",
    "ndarray.swapaxes", "np.swapaxes", "np.moveaxis", "np.rollaxis", "ndarray.view",
    "np.ones_like", "np.zeros_like", "np.full_like", "np.full", "np.zeros", "np.ones",
    "np.flip", "np.roll", "np.diagonal", "ndarray.diagonal", "np.resize"})
# ops that may hand back an argument as is without writing into it
_PASS = frozenset({"np.asarray", "np.asanyarray", "np.array", "np.ascontiguousarray",
                   "np.asfortranarray", "np.require", "ndarray.astype", "np.atleast_1d",
                   "np.atleast_2d", "np.atleast_3d", "ndarray.conj", "ndarray.conjugate",
                   "np.conj", "np.conjugate", "ndarray.view", "ndarray.__array__",
                   "ndarray.to_device", "np.squeeze", "ndarray.squeeze", "np.reshape",
                   "ndarray.reshape", "np.transpose", "ndarray.transpose"})


def _is_fake(x: Any) -> bool:
    return hasattr(x, "storage_offset")


def value(x: Any) -> Any:
    """The value every element of ``x`` holds, when known: a real 0-d array for a fake, the
    number itself for a Python or NumPy scalar (a Python number for a fake standing for
    one); None when unknown."""
    t = type(x)
    if t in _PY:
        return x
    if isinstance(x, np.generic):
        return None if x.dtype.hasobject or x.dtype.fields is not None else x
    if isinstance(x, np.ndarray):
        # a real array: its fake (the mode's memo) holds what is known; its own values may
        # be stale (the program may have written it through that fake), unless it is
        # read-only (its fake is too: np.ma.masked's data and mask), one element
        if x.flags.writeable or x.size != 1 or x.dtype.hasobject \
                or x.dtype.fields is not None or type(x) is not np.ndarray:
            return None
        return x.reshape(())  # a real method: no mode intercepts it
    st = getattr(x, "storage", None)
    if st is None or not _is_fake(x):
        return None
    k = getattr(st, "known", None)
    if k is None or k.dtype != x.dtype:
        return None
    p = getattr(x, "pytype", None)
    return p(k.item()) if p is not None else k


_CONSTS: dict = {}  # (dtype, type, exact key of a Python or NumPy number): its 0-d value


def _const_key(dt: np.dtype, v: Any) -> Any:
    """A cache key for a Python number in dtype ``dt`` that tells apart what ``==`` does not
    (-0.0 and 0.0, NaN payloads): None for other values."""
    t = type(v)
    if t is int or t is bool:
        return (dt, t, v)
    if t is float:
        return (dt, t, v.hex())
    if isinstance(v, np.generic) and not v.dtype.hasobject and v.dtype.fields is None:
        return (dt, v.dtype, v.tobytes())
    return None


def _set(x: Any, v: Any) -> None:
    """x's storage now holds v in every element (x a fresh result covering its storage)."""
    st = x.storage
    dt = x.dtype
    if v is None or dt.hasobject or dt.fields is not None:
        st.known = None
        return
    key = _const_key(dt, v)
    if key is not None:
        k = _CONSTS.get(key)
        if k is not None:  # known values are replaced, never modified: shared safely
            st.known = k
            return
    try:
        with paused(), np.errstate(all="ignore"):
            v = np.asarray(v)
            if v.dtype != dt:
                v = v.astype(dt, casting="unsafe")
            st.known = k = v.reshape(()).copy()
    except Exception:
        st.known = None
        return
    if key is not None and len(_CONSTS) < 1024:
        k.flags.writeable = False
        _CONSTS[key] = k


def seed(fake: Any, arr: np.ndarray, first: bool) -> None:
    """A real array converted to ``fake``: when it is its storage's one element, its value
    (read in O(1)) becomes known on the first conversion. A later conversion of the same
    array (the memo's) keeps the knowledge only while the real value still equals it: the
    program may have written either the real array (for real) or its fake since."""
    st = fake.storage
    if not (arr.size == 1 and st.nbytes == arr.itemsize and not arr.dtype.hasobject
            and arr.dtype.fields is None):
        return
    now = arr.view(np.ndarray).reshape(()).copy()
    if first:
        st.known = now
        return
    old = st.known
    if old is not None and not (old.dtype == now.dtype and bool(old == now)):
        st.known = None


def _covers(x: Any) -> bool:
    """Whether writing every element of x writes every byte of its storage."""
    return (x.storage_offset == 0 and x.size * x.dtype.itemsize == x.storage.nbytes
            and (x.flags.c_contiguous or x.flags.f_contiguous))


def _written(x: Any, v: Any) -> None:
    """Every element of x (a fake) was written with v (None: unknown values)."""
    st = x.storage
    old = getattr(st, "known", None)
    if old is None and v is None:
        return
    if v is not None and _covers(x):
        _set(x, v)
        return
    if v is not None and old is not None and old.dtype == x.dtype:
        try:
            with paused(), np.errstate(all="ignore"):
                same = np.asarray(v).astype(x.dtype, casting="unsafe") == old
                if bool(same) and not (old.dtype.kind in "fc" and np.isnan(old)):
                    return
        except Exception:
            pass
    st.known = None


def _name(func: Any) -> str | None:
    op = getattr(func, "op_name", None)
    if type(op) is str:
        return op
    mod = getattr(func, "__module__", None)
    if mod == "numpy" or type(mod) is str and mod.startswith(("numpy._core", "numpy.lib")):
        return "np." + getattr(func, "__name__", "")
    return None


def _fakes(obj: Any, acc: list, depth: int = 0) -> list:
    if _is_fake(obj):
        acc.append(obj)
    elif depth < 2 and type(obj) in (list, tuple):
        if len(obj) > 64 and _NUMBERS.issuperset(map(type, obj)):
            return acc  # a long list of numbers (an index): tested at C speed
        for v in obj:
            _fakes(v, acc, depth + 1)
    return acc


_NUMBERS = frozenset({int, float, bool, complex, type(None)})


def has_fakes(args: tuple, kwargs: dict) -> bool:
    """Whether a fake is among a call's arguments (or the items of a list or tuple one):
    what ``forget_written`` and ``after`` look at."""
    return bool(_fakes(args, [])) or bool(kwargs) and bool(_fakes(tuple(kwargs.values()), []))


def _forget_all(args: tuple, kwargs: dict) -> None:
    for f in _fakes(args, []) + _fakes(tuple(kwargs.values()), []):
        if getattr(f.storage, "known", None) is not None:
            f.storage.known = None


def _ufunc_value(ufunc: Any, args: tuple, kwargs: dict) -> Any:
    """The output values of an elementwise ufunc call on operands of known values (a tuple,
    one per output), or None."""
    if len(args) < ufunc.nin or ufunc.signature is not None:
        return None
    where = kwargs.get("where", True)
    if where is not True:
        return None
    consts = []
    for a in args[:ufunc.nin]:
        v = value(a)
        if v is None:
            return None
        consts.append(v)
    kw = {k: kwargs[k] for k in ("dtype", "casting", "signature") if k in kwargs}
    try:
        with paused(), np.errstate(all="ignore"):
            r = ufunc(*consts, **kw)
    except Exception:
        return None
    return r if type(r) is tuple else (r,)


def _reduce_value(ufunc: Any, x: Any, kwargs: dict) -> Any:
    """The value of each output element of a reduction of x by ufunc, or None."""
    if kwargs.get("where", True) is not True or kwargs.get("initial", np._NoValue) \
            is not np._NoValue or not _is_fake(x) and not isinstance(x, np.ndarray):
        return None
    if x.size == 0:
        return ufunc.identity  # None where the ufunc has none (NumPy raised then)
    if ufunc not in _IDEMPOTENT:
        return None
    v = value(x)
    if v is None:
        return None
    if ufunc in (np.logical_or, np.logical_and):
        return bool(v)
    return v


def _holds_known(args: tuple, kwargs: dict) -> bool:
    """Whether a fake among the arguments (or the items of a list or tuple argument) has a
    storage known to hold one value: the fast test that lets most ops skip ``after``."""
    for a in args:
        st = getattr(a, "storage", None)
        if st is not None:
            if getattr(st, "known", None) is not None:
                return True
        elif type(a) is list or type(a) is tuple:
            if len(a) > 64 and _NUMBERS.issuperset(map(type, a)):
                continue
            for b in a:
                st = getattr(b, "storage", None)
                if st is not None and getattr(st, "known", None) is not None:
                    return True
    return bool(kwargs) and _holds_known(tuple(kwargs.values()), {})


_SOURCES = frozenset({"np.zeros", "np.ones", "np.zeros_like", "np.ones_like", "np.full",
                      "np.full_like", "np.where", "ndarray.fill", "ndarray.__setitem__",
                      "np.copyto"})
_CONVERTERS = frozenset({"np.array", "np.asarray", "np.asanyarray"})
_REDUCTIONS = frozenset(p + n for n in _REDUCE_NAMES for p in ("np.", "ndarray."))
_is_source: dict = {}
SOURCE = _is_source  # callable -> _source(callable), for callers that test it first


def _source(func: Any) -> int:
    """Whether func can make a known result, or write a known value, from arguments none
    of which is known: 1 for a factory, ``fill``, ...; 2 for a reduction (over no elements
    only); 3 for ``np.array`` and its kin (of numbers or lists only); 0 otherwise. Cached
    per callable."""
    try:
        return _is_source[func]
    except (KeyError, TypeError):
        pass
    owner = getattr(func, "__self__", None)
    name = _name(func)
    r = 2 if (isinstance(owner, np.ufunc) and getattr(func, "__name__", "") == "reduce"
              or name in _REDUCTIONS) else 1 if name in _SOURCES else \
        3 if name in _CONVERTERS else 0
    try:
        if len(_is_source) < 4096:
            _is_source[func] = r
    except TypeError:
        pass
    return r


def after(func: Any, args: tuple, kwargs: dict, res: Any) -> None:
    """Update what is known after ``func(*args, **kwargs)`` gave ``res`` on fakes."""
    if not _holds_known(args, kwargs):
        after_unseen(func, args, kwargs, res)
        return
    _after(func, args, kwargs, res)


def after_unseen(func: Any, args: tuple, kwargs: dict, res: Any, kind: int | None = None) -> None:
    """``after`` for a call none of whose fakes holds a known value (``_holds_known`` is
    False): only a source (``_source``; ``kind`` when the caller has it) can make one."""
    if kind is None:
        kind = _source(func)
    if not kind or kind == 2 and not (args and getattr(args[0], "size", 1) == 0) \
            or kind == 3 and (not args or isinstance(args[0], np.ndarray)
                              or hasattr(args[0], "storage_offset")):
        return  # nothing known to forget, nothing that could become known
    _after(func, args, kwargs, res)


def _after(func: Any, args: tuple, kwargs: dict, res: Any) -> None:
    out = kwargs.get("out")
    name: str | None = None
    if isinstance(func, np.ufunc):
        vals = _ufunc_value(func, args, kwargs)
        if out is None and len(args) > func.nin:
            out = args[func.nin:]
        if out is not None:
            outs = out if type(out) is tuple else (out,)
            for i, o in enumerate(outs):
                if _is_fake(o):
                    _written(o, vals[i] if vals is not None and i < len(vals) else None)
            return
        results = res if type(res) is tuple else (res,)
        if vals is not None:
            for r, v in zip(results, vals):
                if _is_fake(r):
                    _set(r, v)
        return
    owner = getattr(func, "__self__", None)
    if isinstance(owner, np.ufunc):
        meth = getattr(func, "__name__", "")
        v = _reduce_value(owner, args[0], kwargs) if meth == "reduce" and args else None
        if meth == "at" or res is None:
            _forget_all(args, kwargs)
            return
        given = _fakes(args, []) + _fakes(tuple(kwargs.values()), [])
        written = [r for r in (res if type(res) is tuple else (res,))
                   if any(r is g for g in given)]  # out= given by keyword or position
        if out is not None or written:
            for o in written + [o for o in (out if type(out) is tuple else (out,))
                                if _is_fake(o) and not any(o is r for r in written)]:
                _written(o, v)
            return
        if v is not None and _is_fake(res):
            _set(res, v)
        return
    name = _name(func)
    if res is None:  # a write into an argument (setitem, fill, copyto, put, sort, ...)
        _write_ops(name, args, kwargs)
        return
    given = _fakes(args, []) + _fakes(tuple(kwargs.values()), [])
    if out is not None:
        for o in (out if type(out) is tuple else (out,)):
            if _is_fake(o):
                _written(o, None)
        return
    same = [g for g in given if g is res]
    if same and name not in _PASS:
        for g in same:
            _written(g, None)
        return
    if not _is_fake(res) or any(g.storage is res.storage for g in given):
        return  # a view (the storage's knowledge is shared) or a non-array result
    if name is None:
        return
    short = name.split(".", 1)[1]
    if short in _REDUCE_NAMES and args:
        v = _reduce_value(_REDUCE_NAMES[short], args[0], kwargs)
        if v is not None and kwargs.get("dtype") is None:
            _set(res, v)
        return
    if name in _FACTORY:  # zeros and ones of the dtype (a string's zero is '', not '0')
        if res.dtype.fields is None and not res.dtype.hasobject:
            key = (name, res.dtype)
            v = _FILLS.get(key)
            if v is None:
                with paused():
                    v = _FILLS[key] = _FACTORY[name]((), res.dtype)
                    v.flags.writeable = False
            res.storage.known = v  # never written: knowledge is replaced, not modified
    elif name in _MOVES:
        _set(res, _moved_value(name, args, kwargs))
    elif name == "np.where" and len(args) == 3:
        _set(res, _where_value(*args))


def _where_value(cond: Any, x: Any, y: Any) -> Any:
    """np.where(cond, x, y): x's value where cond is known true, y's where known false; the
    common value where x and y hold the same one (whatever cond holds)."""
    c = value(cond)
    if c is not None:
        with paused():
            return value(x) if bool(c) else value(y)
    vx, vy = value(x), value(y)
    if vx is None or vy is None:
        return None
    with paused(), np.errstate(all="ignore"):
        a, b = np.asarray(vx), np.asarray(vy)
        if a.dtype == b.dtype and bool(a == b):
            return a
    return None


def fills_uniformly(func: Any, res: Any) -> bool:
    """Whether ``func`` made the fresh fake ``res`` holding one value that ``after`` knows
    (zeros, ones): its content is made from that value when first read (``_content``), so
    the call need not run for real."""
    return _is_fake(res) and res.dtype.fields is None and not res.dtype.hasobject \
        and _call_name(func) in _FACTORY


_FILLS: dict = {}  # (factory, dtype): its 0-d value, made once
_FACTORY = {"np.zeros": np.zeros, "np.ones": np.ones, "np.zeros_like": np.zeros,
            "np.ones_like": np.ones}


def _moved_value(name: str, args: tuple, kwargs: dict) -> Any:
    if name == "np.full":
        fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
        return value(fill)
    if name == "np.full_like":
        fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
        return value(fill)
    if not args:
        return None
    items = _leaves(args[0], [])
    if items is None:
        return None
    vals = [value(s) for s in items]
    if not vals or any(v is None for v in vals):
        return None
    if len(vals) == 1:
        return vals[0]
    with paused(), np.errstate(all="ignore"):
        first = np.asarray(vals[0])
        for v in vals[1:]:
            a = np.asarray(v)
            if a.dtype != first.dtype or not bool(a == first):
                return None
    return first


def _leaves(obj: Any, acc: list) -> list | None:
    """The arrays and numbers of nested lists and tuples (None past 64 of them)."""
    if type(obj) in (list, tuple):
        for v in obj:
            if _leaves(v, acc) is None:
                return None
        return acc if len(acc) <= 64 else None
    acc.append(obj)
    return acc


def _write_ops(name: str | None, args: tuple, kwargs: dict) -> None:
    """Writes that return None: known values where the op writes one known value."""
    if name == "ndarray.fill" and len(args) == 2 and _is_fake(args[0]):
        _written(args[0], value(args[1]))
        return
    if name == "ndarray.__setitem__" and len(args) == 3 and _is_fake(args[0]):
        x, key, v = args
        val = value(v)
        if key is Ellipsis or (type(key) is slice and key == slice(None)):
            _written(x, val)
        elif val is not None and getattr(x.storage, "known", None) is not None:
            _written_part(x, val)
        else:
            _forget_all((x,), {})
        return
    if name == "np.copyto" and len(args) >= 2 and _is_fake(args[0]) \
            and kwargs.get("where", True) is True and len(args) < 4:
        _written(args[0], value(args[1]))
        return
    _forget_all(args, kwargs)


def _written_part(x: Any, v: Any) -> None:
    """Some elements of x written with v: the knowledge stays only if v is the known value."""
    st = x.storage
    old = st.known
    try:
        with paused(), np.errstate(all="ignore"):
            if old.dtype == x.dtype and bool(np.asarray(v).astype(x.dtype, casting="unsafe")
                                             == old):
                return
    except Exception:
        pass
    st.known = None


# --- content: every byte of a small storage, known ------------------------------------
#
# Beside ``known`` (one value in every element, any size), a storage of at most
# ``MAX_CONTENT_BYTES`` may hold ``content``: a real uint8 array with a copy of all its bytes.
# A fake on it then knows its values: ``np.ndarray(shape, dtype, content, offset, strides)``
# is a real array with the fake's exact layout over that copy (``real``). A call whose inputs
# all know their values and whose outputs are small runs for real on such stand-ins, modes
# paused (``compute``); each fresh output's values are copied into a new content laid out as
# the fake's metadata says (the kernel stays the authority on metadata), and writes into an
# input land in its content. Any write whose values are not computed forgets the content
# (``forget_written``). Nothing proportional to a requested size is computed: every input
# and output of a computed call is at most ``MAX_CONTENT_BYTES`` (and ``MAX_CONTENT_ITEMS``
# elements), whatever its storage.

MAX_CONTENT_BYTES = 1 << 16  # 64 KiB: 8192 float64
MAX_CONTENT_ITEMS = 1 << 14  # elements of one stand-in or output, and Python numbers in one call

# ops whose results are not a function of their inputs' values (draws, uninitialized
# memory, files, the clock): never computed for real
_NEVER = frozenset({"np.empty", "np.empty_like", "ndarray.__new__", "np.load", "np.fromfile",
                    "np.memmap", "np.loadtxt", "np.genfromtxt", "np.save", "np.savez",
                    "np.savez_compressed", "np.savetxt", "ndarray.tofile", "ndarray.dump",
                    "ndarray.dumps", "np.frombuffer", "ndarray.resize"})


def _small_storage(st: Any) -> bool:
    return st.nbytes <= MAX_CONTENT_BYTES and st.device == "cpu"


def has_values(x: Any) -> bool:
    """Whether the fake ``x`` knows the value of each of its elements (a small storage
    whose content is known, or whose one known value fills it)."""
    st = x.storage
    if st.content is not None:
        return True
    k = st.known
    return (k is not None and k.dtype == x.dtype and _small_storage(st)
            and st.nbytes % x.dtype.itemsize == 0)


def _content(x: Any) -> Any:
    """x's storage content, made from its one known value when small (None when unknown)."""
    st = x.storage
    c = st.content
    if c is not None:
        return c
    k = st.known
    if k is None or k.dtype != x.dtype or not _small_storage(st) \
            or st.nbytes % k.dtype.itemsize or k.dtype.hasobject:
        return None
    with paused():
        c = np.empty(st.nbytes, np.uint8)
        c.view(k.dtype)[...] = k
    st.content = c
    return c


def real(x: Any, writeable: bool = False) -> Any:
    """A real array with the fake ``x``'s exact layout over its storage's content (its
    values), or None when they are not known or ``x`` is too large to compute on. Read-only
    unless ``writeable`` (then writes land in the content)."""
    dt = x.dtype
    if dt.hasobject or x.size > MAX_CONTENT_ITEMS:
        return None
    c = _content(x)
    if c is None:
        return None
    try:
        with paused():
            r = np.ndarray(x.shape, dt, c, x.storage_offset, x.strides)
            if not writeable:
                r.flags.writeable = False
    except (TypeError, ValueError):
        return None
    return r


def remember(fake: Any, arr: Any) -> None:
    """The fake ``fake`` stands for the real array ``arr`` (same shape and dtype): keep its
    values when ``fake``'s storage is small (its content; bytes outside ``fake``'s elements
    not written before stay unknown, so this keeps them only when ``fake`` covers every byte
    of its storage or the storage already had content). For code that turns real data into
    fakes (loaded arrays, ``np.frombuffer``): small labels then stay known."""
    st = fake.storage
    if not _small_storage(st) or fake.dtype.hasobject or not isinstance(arr, np.ndarray) \
            or arr.shape != fake.shape or arr.dtype != fake.dtype:
        return
    if st.content is None and not (_covers(fake) or fake.size * fake.dtype.itemsize
                                   == st.nbytes and 0 not in fake.strides):
        return
    with paused():
        if st.content is None:
            st.content = np.zeros(st.nbytes, np.uint8)
        try:
            np.ndarray(fake.shape, fake.dtype, st.content, fake.storage_offset,
                       fake.strides)[...] = arr
        except (TypeError, ValueError):
            st.content = None
            return
    st.known = None  # the one-value knowledge may no longer hold: the content does


def remember_bytes(storage: Any, data: Any) -> None:
    """``storage`` (small, cpu) holds exactly the bytes ``data`` (a real converted buffer's)."""
    if _small_storage(storage) and len(data) == storage.nbytes:
        with paused():
            storage.content = np.frombuffer(bytes(data), np.uint8).copy()


def same_bytes(storage: Any, data: bytes) -> bool:
    """Whether the content known for ``storage`` is still ``data`` (forgotten if not)."""
    c = storage.content
    if c is None:
        return False
    if c.tobytes() == data:
        return True
    storage.content = None
    return False


def forget(x: Any) -> None:
    """Nothing is known about the values of x's storage any more."""
    st = x.storage
    st.content = st.recipe = None
    st.known = None


def forget_written(func: Any, args: tuple, kwargs: dict, res: Any) -> None:
    """A call that was not computed for real may have written into fakes among its
    arguments: forget their contents (a result that is an argument, ``out=``, a call
    returning None: setitem, fill, sort, put, ufunc.at, ...)."""
    for st in written_storages(func, args, kwargs, res):
        _unknown(st)


def written_storages(func: Any, args: tuple, kwargs: dict, res: Any) -> list:
    """The storages of the fakes among a call's arguments that it may have written (see
    ``forget_written``)."""
    given = _fakes(args, []) + _fakes(tuple(kwargs.values()), [])
    if not given:
        return []
    if res is None:
        name = _name(func)
        if name == "ndarray.__setitem__" and args and _is_fake(args[0]):
            return [args[0].storage]
        return [g.storage for g in given if g._writeable]
    out_st = []
    out = kwargs.get("out")
    if out is not None:
        for o in (out if type(out) is tuple else (out,)):
            if _is_fake(o):
                out_st.append(o.storage)
    if isinstance(func, np.ufunc) and len(args) > func.nin:
        for o in args[func.nin:]:
            if _is_fake(o):
                out_st.append(o.storage)
    if kwargs.get("overwrite_input") and args and _is_fake(args[0]):  # np.median, np.quantile,
        out_st.append(args[0].storage)  # ...: the input partitioned in place
    for r in (res if type(res) is tuple else (res,)):
        if _is_fake(r) and any(r is g for g in given):
            out_st.append(r.storage)
    return out_st


def _unknown(st: Any) -> None:
    st.content = st.recipe = None


class _NoValue(Exception):
    """An argument's values are not known (or too many to compute on)."""


def _stand_in(x: Any, budget: list) -> Any:
    """A real stand-in for one argument: fakes by their values (writeable views over their
    contents), lists and tuples item by item, plain values as they are."""
    t = type(x)
    if t in _PY or x is None or t is str or t is bytes or t is slice or x is Ellipsis \
            or isinstance(x, (np.dtype, type, np.ufunc, enum.Enum)):  # np._CopyMode
        budget[0] -= 1
        return x
    if t is list or t is tuple:
        budget[0] -= len(x)
        if budget[0] < 0:
            raise _NoValue
        return t(_stand_in(v, budget) for v in x)
    if _is_fake(x):
        budget[0] -= x.size
        if budget[0] < 0 or x.size > MAX_CONTENT_ITEMS:
            raise _NoValue
        r = real(x, writeable=bool(x._writeable))
        if r is None:
            raise _NoValue
        p = getattr(x, "pytype", None)
        if p is not None:
            return p(r.item())
        if x.storage._tracker is SCALAR and x.shape == ():
            return r[()]
        return r
    if isinstance(x, np.generic):
        if x.dtype.hasobject:
            raise _NoValue
        return x
    if t.__name__ == "FakeFlatIter" and _is_fake(getattr(x, "base", None)):
        return _stand_in(x.base, budget).flat  # ``x.flat`` of a fake: the values' flat
    if t is range:
        budget[0] -= len(x)
        if budget[0] < 0:
            raise _NoValue
        return x
    if isinstance(x, np.ndarray):  # kept real (an index array): read, never written here
        budget[0] -= x.size
        if budget[0] < 0 or x.dtype.hasobject or type(x) is not np.ndarray:
            raise _NoValue
        v = x.view()
        v.flags.writeable = False
        return v
    raise _NoValue


def _pairs(res: Any, r: Any, acc: list) -> bool:
    """(fake, real value) for each fake in a result, matched by position; False when the
    real result has another structure."""
    if _is_fake(res):
        acc.append((res, r))
        return True
    t = type(res)
    if (t is tuple or t is list or isinstance(res, tuple)) and isinstance(r, (tuple, list)) \
            and len(r) == len(res):
        return all(_pairs(a, b, acc) for a, b in zip(res, r))
    return not _fakes(res, [])


def _fill(res: Any, r: Any, given: list) -> bool:
    """Copy the real result ``r`` into the contents of the fake result ``res``: fresh
    storages only (views and arguments returned share their storage's content), each
    covered exactly by the outputs on it (outputs viewing one buffer, as unravel_index's)."""
    pairs: list = []
    if not _pairs(res, r, pairs):
        return False
    by_storage: dict = {}
    for f, v in pairs:
        st = f.storage
        if st.content is not None or any(st is g.storage for g in given):
            continue
        if f.dtype.hasobject or not _small_storage(st) or f.size > MAX_CONTENT_ITEMS:
            return False
        by_storage.setdefault(id(st), (st, []))[1].append((f, v))
    done = []
    for st, outs in by_storage.values():
        if sum(f.size * f.dtype.itemsize for f, _ in outs) != st.nbytes:
            return False  # a view of a part of a temporary: the rest is unknown
        try:
            with paused():
                c = np.zeros(st.nbytes, np.uint8)
                for f, v in outs:
                    a = np.asarray(v)
                    if a.shape != f.shape or a.dtype != f.dtype:
                        return False
                    np.ndarray(f.shape, f.dtype, c, f.storage_offset, f.strides)[...] = a
        except (TypeError, ValueError):
            return False
        done.append((st, c))
    for st, c in done:
        st.content = c
    return True


def _call_name(func: Any) -> Any:
    try:
        return _name(func)
    except Exception:
        return None


def small_meta(meta: Any) -> bool:
    """``small_outputs`` of the fresh cpu-or-device array an ArrayMeta (a cached template)
    stands for."""
    n = 1
    for d in meta.shape:
        n *= d
    return (n <= MAX_CONTENT_ITEMS and n * meta.dtype.itemsize <= MAX_CONTENT_BYTES
            and meta.device in (None, "cpu") and not meta.dtype.hasobject)


def small_outputs(res: Any) -> bool:
    """Whether every fake in a call's result is small enough to compute (None: a write)."""
    if res is None:
        return True
    if _is_fake(res):
        return (res.size <= MAX_CONTENT_ITEMS and res.storage.nbytes <= MAX_CONTENT_BYTES
                and res.storage.device == "cpu" and not res.dtype.hasobject)
    outs = _fakes(res, [])
    return bool(outs) and all(small_outputs(o) for o in outs)


def compute(func: Any, args: tuple, kwargs: dict, res: Any) -> bool:
    """Run ``func`` for real on the values of its arguments when all are known and small,
    and give the fakes in ``res`` the values it returns (writes land in the arguments'
    contents). True when done; False when the values stay unknown (nothing is changed)."""
    if _call_name(func) in _NEVER:
        return False
    if not small_outputs(res):
        return False
    outs = _fakes(res, [])
    given = _fakes(args, []) + _fakes(tuple(kwargs.values()), [])
    for g in given:
        if not has_values(g):
            return False
    budget = [MAX_CONTENT_ITEMS]
    try:
        rargs = tuple(_stand_in(a, budget) for a in args)
        rkw = {k: _stand_in(v, budget) for k, v in kwargs.items()}
    except _NoValue:
        return False
    # the call writes into contents: keep them to set back if it fails half-way
    saved = [(g.storage, g.storage.content.copy()) for g in given if g._writeable]
    try:
        with paused(), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = func(*rargs, **rkw)
    except Exception:
        for st, c in saved:
            st.content[...] = c
        return False
    for st, c in saved:
        if st.known is not None and not np.array_equal(st.content, c):
            st.known = None  # _known.after decides a uniform value anew
    if res is None:
        return True
    if not _fill(res, r, given):
        for o in outs:
            if not any(o.storage is g.storage for g in given):
                o.storage.content = None
        return False
    return True


def assume_zeros(x: Any) -> None:
    """A placeholder (zeros) was read from the fake ``x``: its storage is from now on taken
    to hold zeros (its known value in x's dtype), so arithmetic on it follows the value the
    program was given (``s + 33`` after ``s`` read as 0)."""
    st = x.storage
    dt = x.dtype
    st.recipe = None
    if dt.hasobject:
        return
    if dt.fields is not None or st.nbytes % dt.itemsize:  # zero bytes are NumPy's zeros
        if _small_storage(st):
            with paused():
                st.content = np.zeros(st.nbytes, np.uint8)
            st.known = None
        return
    st.content = None
    key = ("zeros", dt)
    k = _FILLS.get(key)
    if k is None:
        with paused():
            k = _FILLS[key] = np.zeros((), dt)
            k.flags.writeable = False
    st.known = k


# --- recipes: placeholders that arithmetic follows -----------------------------------
#
# In placeholder mode a small result of a call whose inputs are not all known keeps the call
# (``Recipe``: the function, its arguments with fakes held weakly, its results held weakly).
# Reading a value of it then first reads its unknown inputs (placeholders, each listed at
# the line), which makes them known, and replays the call on their values: ``s + 33`` read
# after (or before) ``s`` gives 33 when ``s`` was read as 0, as the real program gets a
# slice of 33 characters. A recipe never keeps a fake alive, and a write forgets it.

MAX_REPLAY_DEPTH = 32


class _Ref:
    """A fake in a recipe, held weakly."""

    __slots__ = ("ref",)

    def __init__(self, fake: Any) -> None:
        self.ref = weakref.ref(fake)


class Recipe:
    """The call that made a storage's fakes: replayed on placeholders (see above)."""

    __slots__ = ("func", "args", "kwargs", "res")

    def __init__(self, func: Any, args: Any, kwargs: Any, res: Any) -> None:
        self.func, self.args, self.kwargs, self.res = func, args, kwargs, res


def _weak(obj: Any, depth: int = 0) -> Any:
    if _is_fake(obj):
        return _Ref(obj)
    t = type(obj)
    if (t is list or t is tuple) and depth < 3:
        return t(_weak(v, depth + 1) for v in obj)
    if t is dict:
        return {k: _weak(v, depth + 1) for k, v in obj.items()}
    return obj


class _Dead(Exception):
    """A fake a recipe needs has died."""


def _strong(obj: Any, refs: list) -> Any:
    t = type(obj)
    if t is _Ref:
        f = obj.ref()
        if f is None:
            raise _Dead
        refs.append(f)
        return f
    if t is list or t is tuple:
        return t(_strong(v, refs) for v in obj)
    if t is dict:
        return {k: _strong(v, refs) for k, v in obj.items()}
    return obj


def note_recipe(func: Any, args: tuple, kwargs: dict, res: Any) -> None:
    """Keep the call on each small fresh result's storage (placeholder mode only)."""
    given = _fakes(args, []) + _fakes(tuple(kwargs.values()), [])
    outs = _fakes(res, [])
    if not outs or kwargs.get("out") is not None or not small_outputs(res):
        return
    fresh = [o for o in outs if not any(o.storage is g.storage for g in given)]
    if len(fresh) != len(outs):
        return  # a view or an argument returned: not a fresh result
    r = Recipe(func, _weak(args), _weak(kwargs), _weak(res))
    for o in fresh:
        o.storage.recipe = r


def replay(x: Any, assume: Any, depth: int = 0) -> bool:
    """Give the fake ``x`` values by replaying its storage's recipe, after ``assume(fake)``
    (a placeholder read) for each input whose values are still unknown. True when done."""
    st = x.storage
    r = st.recipe
    if r is None or depth > MAX_REPLAY_DEPTH:
        return False
    st.recipe = None  # replayed once (also ends a cycle)
    try:
        refs: list = []
        args = _strong(r.args, refs)
        kwargs = _strong(r.kwargs, refs)
        res = _strong(r.res, [])
    except _Dead:
        return False
    for f in refs:
        if not has_values(f) and not (f.storage.recipe is not None
                                      and replay(f, assume, depth + 1)):
            assume(f)
            if not has_values(f):
                return False
    return compute(r.func, args, kwargs, res)


def scalar_value(x: Any) -> Any:
    """The real value standing for a 0-d fake whose value is known (its NumPy scalar, its
    Python number for a fake one, else a 0-d array), or None: for kernels whose result
    depends on a bound's value (``np.arange(n)``); they then call ``registry.uncached()``."""
    if not _is_fake(x) or x.ndim != 0:
        return None
    r = real(x)
    if r is None:
        k = value(x)
        if k is None:
            return None
        return k if getattr(x, "pytype", None) is not None else k[()] \
            if x.storage._tracker is SCALAR else k
    p = getattr(x, "pytype", None)
    if p is not None:
        return p(r.item())
    return r[()] if x.storage._tracker is SCALAR else r.copy()


def hold(x: Any, v: Any) -> None:
    """The fresh fake ``x`` holds ``v`` in every element (a kernel's ``ArrayMeta.value``)."""
    _set(x, v)
