"""Running an op on fakes (kernel lookup, input conversion, output construction) or for real."""
from __future__ import annotations

import sys
import warnings
from types import EllipsisType
from typing import Any, Callable

import numpy as np

from . import _cache, _dispatch, _known, _sizes
from ._bounded import BoundedCache
from ._array import KERNEL_PLACEHOLDERS, FakeArray, make_fake
from ._convert import Converter
from ._errors import UnsupportedOperationError
from ._accel import RUN_FAKE, compiled
from ._storage import MAPPED, PREEXISTING, SCALAR, FakeStorage, new_storage
from ._wrapped import WrappedArray
from .layout import c_strides, check_shape
from ._backends import run_rule
from .kernels.registry import CALL, REGISTRY, Kernel
from .meta import ArrayMeta

PLAIN = frozenset({int, float, complex, bool, str, type(None), slice, EllipsisType,
                    np.dtype, type})
_resolved = BoundedCache("resolved kernels", 512 * 1024)


def _get(op: Any) -> Kernel | None:
    """The NumPy kernel for op, else its CuPy one (cupy callables, CuPy-only methods)."""
    return REGISTRY.get((op, "numpy")) or REGISTRY.get((op, "cupy"))


def resolve(func: Any) -> tuple[Kernel, tuple]:
    """The kernel for an intercepted callable and the arguments it is called with first."""
    try:
        return _resolved[func]
    except (KeyError, TypeError):
        pass
    entry = None
    prefix: tuple = ()
    if isinstance(func, np.ufunc):
        entry = _get(func)  # a ufunc with a rule of its own (np.strings' index, rindex)
        if entry is None:
            entry = _get("ufunc.__call__")
            prefix = (func,)
    else:
        owner = getattr(func, "__self__", None)
        if isinstance(owner, np.ufunc):
            entry = _get("ufunc." + func.__name__)
            prefix = (owner,)
        else:
            op_name = getattr(func, "op_name", None)
            if type(op_name) is str and type(func) is _dispatch.MethodOp:
                entry = _get(op_name)
            else:
                try:
                    entry = _get(func)
                except TypeError:
                    entry = None
                if entry is None:
                    inner = getattr(func, "__wrapped__", None)
                    if inner is not None:
                        entry = _get(inner)
    if entry is None:
        if "faketensor.kernels.cupy" not in sys.modules:  # CuPy's rules load on first need
            from .kernels import cupy  # noqa: F401  (registers them)
            return resolve(func)
        raise UnsupportedOperationError(func, "no kernel is registered for it yet")
    try:
        _resolved[func] = (entry, prefix)
    except TypeError:
        pass
    return entry, prefix


_CONVERTER: list = []  # the converter class; installed by faketensor._convert


class LocalConverter:
    """Real -> fake conversion for one call outside any mode (memo shared within the call)."""

    __slots__ = ("conv",)

    def __init__(self) -> None:
        self.conv: Any = None

    def to_fake(self, arr: Any) -> FakeArray:
        if self.conv is None:
            self.conv = Converter()
        return self.conv.convert_array(arr)


def fake_from_real(arr: Any, memo: Any = None, device: str | None = None) -> FakeArray:
    """A fake with arr's metadata; ``memo`` is a ``Converter`` (views share its storages)."""
    if memo is None or isinstance(memo, dict):
        memo = Converter(device=device)
    return memo.convert_array(arr)


def prepare(obj: Any, convert: Callable) -> Any:
    """Replace real arrays (also inside lists and tuples) by fakes through ``convert``."""
    t = type(obj)
    if t is FakeArray or t in PLAIN:
        return obj
    if t is tuple or t is list:
        new = [prepare(x, convert) for x in obj]
        for a, b in zip(new, obj):
            if a is not b:
                return t(new)
        return obj
    if t is WrappedArray:
        return convert(obj._array)
    if isinstance(obj, np.ndarray) or (hasattr(obj, "__cuda_array_interface__")
                                       and t.__module__.startswith("cupy")):
        return convert(obj)
    return obj


def _all_fake(seq: Any) -> bool:
    """True when no real array hides among these arguments (nothing for prepare to do)."""
    for a in seq:
        t = type(a)
        if t is FakeArray or t in PLAIN:
            continue
        if t is tuple or t is list:
            if len(a) > 64 and _PLAIN_OR_FAKE.issuperset(map(type, a)):
                continue  # a long index list of numbers: tested at C speed
            if _all_fake(a):
                continue
        return False
    return True


_PLAIN_OR_FAKE = PLAIN | {FakeArray}


def _as_real(x: Any) -> Any:
    return x


def prepare_call(func: Any, args: tuple, kwargs: dict, convert: Callable,
                 entry: Kernel | None = None) -> tuple:
    """``prepare`` on a call's arguments, except those its kernel reads values from.

    A kernel function may carry ``keep_real``: argument positions and keyword names
    (index arrays, assigned values) whose real arrays reach it unconverted; so do the
    parameters the registry found named in ``VALUE_PARAMS`` (axis, axes, kth, ...).
    """
    if _all_fake(args) and (not kwargs or _all_fake(kwargs.values())):
        return args, kwargs
    if entry is None:
        try:
            entry = resolve(func)[0]
        except UnsupportedOperationError:
            entry = None
    keep = None
    if entry is not None:
        keep = getattr(entry.fn, "keep_real", None)
        if entry.values:
            keep = entry.values.union(keep) if keep else entry.values
    if not keep:
        args = prepare(args, convert)
        if kwargs:
            kwargs = {k: prepare(v, convert) for k, v in kwargs.items()}
        return args, kwargs
    args = tuple(prepare(a, _as_real if i in keep else convert) for i, a in enumerate(args))
    if kwargs:
        kwargs = {k: prepare(v, _as_real if k in keep else convert) for k, v in kwargs.items()}
    return args, kwargs


def first_device(args: tuple, kwargs: dict) -> str | None:
    for a in args:
        t = type(a)
        if t is FakeArray:
            return a.storage.device
        if t is list or t is tuple:
            for x in a:
                if type(x) is FakeArray:
                    return x.storage.device
    for a in kwargs.values():
        if type(a) is FakeArray:
            return a.storage.device
    return None


def _cuda_among(args: tuple, kwargs: dict) -> bool:
    """True when any fake among the arguments (or one level of lists) lives on a CUDA device."""
    for a in args:
        t = type(a)
        if t is FakeArray:
            if a.storage.device != "cpu":
                return True
        elif t is list or t is tuple:
            if len(a) > 64 and FakeArray not in set(map(type, a)):
                continue  # a long index list of numbers: tested at C speed
            for x in a:
                if type(x) is FakeArray and x.storage.device != "cpu":
                    return True
    for a in kwargs.values():
        if type(a) is FakeArray and a.storage.device != "cpu":
            return True
    return False


def realize(res: Any, device: str, memo: dict | None = None) -> Any:
    """Turn a kernel's result (ArrayMeta specs, inputs returned as is, tuples) into fakes.

    Within one result the same ArrayMeta object is one fake (``(idx,) * 2``), and an
    ArrayMeta whose ``view_of`` is another ArrayMeta is a view of that one's fake (views of
    one temporary)."""
    t = type(res)
    if t is ArrayMeta:
        v = res.view_of
        if v is not None and type(v) is FakeArray and v.storage._tracker is SCALAR:
            v = _scalar_as_array(v)  # NumPy views the 0-d array it makes from a scalar
        if memo is None and type(v) is not ArrayMeta:
            return _realize_out(res, v, device)
        memo = {} if memo is None else memo
        f = memo.get(id(res))
        if f is None:
            if type(v) is ArrayMeta:
                v = realize(v, device, memo)
            f = memo[id(res)] = _realize_out(res, v, device)
        return f
    if t is FakeArray or res is None:
        return res
    if t is tuple or t is list or (isinstance(res, tuple) and hasattr(t, "_make")):
        memo = {} if memo is None else memo
        items = [realize(r, device, memo) for r in res]
        return t._make(items) if hasattr(t, "_make") else t(items)
    return res


def checked(res: Any, func: Any) -> Any:
    """A kernel's result after NumPy's array-constructor checks on each ArrayMeta it holds
    (layout.check_shape: ndim, negative dimensions, size overflow), views included.

    Runs once per kernel call that is not a cache hit: a cached template was checked when
    it was made, so hits skip this.
    """
    t = type(res)
    if t is ArrayMeta:
        if res.dtype.subdtype is not None:  # NumPy's constructor would move it into the shape
            raise UnsupportedOperationError(func, f"an output of subarray dtype {res.dtype}")
        check_shape(res.shape, res.dtype.itemsize)
        if res.base_shape is not None:
            check_shape(res.base_shape, res.dtype.itemsize)
        if type(res.view_of) is ArrayMeta:
            checked(res.view_of, func)
    elif t is tuple or t is list or (isinstance(res, tuple) and hasattr(t, "_make")):
        for r in res:
            checked(r, func)
    return res


def _realize_out(res: ArrayMeta, v: Any, device: str) -> FakeArray:
    """A fake for one ArrayMeta: fresh (``v`` None) or a view of the fake ``v``."""
    if v is None:
        dev = res.device or device
        nbytes = _size(res.shape) * res.dtype.itemsize
        if res.base_shape is not None:  # a view of a temporary: the storage is the temporary's
            storage = FakeStorage(_size(res.base_shape) * res.dtype.itemsize, dev)
            base = make_fake(res.base_shape, res.dtype, c_strides(res.base_shape, res.dtype.itemsize),
                             storage)
            f = make_fake(res.shape, res.dtype, res.strides, storage, res.offset, base,
                          res.writeable is not False)
            if res.warn_on_write is None:  # the owner is a read-only buffer (np.frombuffer)
                base._writeable = False
                base._warn_on_write = f._warn_on_write = None
            return f
        storage = new_storage(nbytes, dev)
        if res.scalar:
            storage._tracker = SCALAR
            f = make_fake(res.shape, res.dtype, res.strides, storage, 0, None, False)
            f.pytype = res.pytype
        else:
            f = make_fake(res.shape, res.dtype, res.strides, storage, res.offset,
                          None, res.writeable is not False)
        if res.value is not None:  # the kernel knows the value (faketensor/_known.py)
            _known.hold(f, res.value)
        return f
    b = v._base
    base = v if (b is None or type(b) is not FakeArray) else b
    f = make_fake(res.shape, res.dtype, res.strides, v.storage, v.storage_offset + res.offset,
                  base, v._writeable and res.writeable is not False)
    if res.warn_on_write:
        f._warn_on_write = True
    elif res.writeable is False and res.warn_on_write is not None and v._warn_on_write:
        f._warn_on_write = True
    return f


def _scalar_as_array(v: FakeArray) -> FakeArray:
    """The fresh 0-d array NumPy makes from a scalar before viewing it (``PyArray_FromAny``)."""
    return make_fake((), v.dtype, (), FakeStorage(v.storage.nbytes, v.storage.device))


def _instantiate(tmpl: Any, fakes: list, device: str) -> Any:
    """Fakes from a cached result template (see _cache.template) for this call's inputs."""
    t = type(tmpl)
    if t is _FreshOut:
        return _realize_out(tmpl.meta, None, device)
    if t is _ViewOut:
        return _realize_out(tmpl.meta, fakes[tmpl.source], device)
    if t is _InputOut:
        return fakes[tmpl.position]
    kind = tmpl.kind
    items = (_instantiate(x, fakes, device) for x in tmpl.items)
    return kind._make(items) if hasattr(kind, "_make") else kind(items)


_FreshOut, _ViewOut, _InputOut = _cache.FreshOut, _cache.ViewOut, _cache.InputOut


def _size(shape: tuple) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _no_numpy_kernel(*args: Any, **kwargs: Any) -> Any:
    raise UnsupportedOperationError("this op", "no NumPy kernel is registered for it")


_CUDA_ONLY = Kernel(_no_numpy_kernel, frozenset(), "no NumPy kernel", cacheable=False)


def _run_kernel(fn: Callable, args: tuple, kwargs: dict, func: Any, costs: list | None) -> tuple:
    """(result, costs) of one kernel run with a record of its own, so a kernel run inside
    another (a NumPy probe that dispatches) never adds to the outer one's bytes; the costs
    also go to ``costs`` when given."""
    outer, CALL.costs = CALL.costs, None
    try:
        res = checked(fn(*args, **kwargs), func)
    finally:
        c, CALL.costs = CALL.costs, outer
    if c is not None and costs is not None:
        costs.append(c)
    return res, c


def _run_watched(fn: Callable, args: tuple, kwargs: dict, func: Any, costs: list | None) -> tuple:
    """``_run_kernel`` noting whether the kernel warned: such a result is not cached, since
    NumPy warns on every call. The warnings are emitted again under the caller's filters,
    also when the kernel then raises (NumPy warns before it fails)."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res, c = _run_kernel(fn, args, kwargs, func, costs)
    finally:
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return res, c, bool(caught)


def run_fake(func: Any, args: tuple, kwargs: dict, convert: Callable | None = None,
             device: str | None = None, prepared: bool = False, costs: list | None = None,
             entry_out: list | None = None) -> Any:
    """Run func's kernel on fakes (``_run_fake``), then update what is known of the values:
    computed for real where every input knows its values and the outputs are small
    (``_values``), forgotten on other writes, and which storages hold one value
    (faketensor/_known.py: set on results, forgotten on writes).

    A call with a cache key has had every fake among its arguments collected by the
    signature: when none of them holds a known value, ``_known.after``'s walk over the
    arguments is skipped, and so is the call itself where func can make no known value
    (``_known.SOURCE``, worked out once per callable)."""
    fakes: list = []
    res = _run_fake(func, args, kwargs, convert, device, prepared, costs, entry_out, fakes)
    ident = None
    if type(func) is np.ufunc and type(res) is FakeArray and res.dtype.kind == "b":
        ident = _sizes.note_ufunc(func, args, kwargs, res)  # equal masks, one size
    elif fakes and fakes[-1] is not _UNSEEN and not _WATCHED and _PLACEHOLDERS_GET() is None:
        # the common case, one pass: no input knows anything of its values, no size is
        # remembered, so only a source (a factory, a reduction over nothing) has work to do
        for f in fakes:
            st = f.storage
            if st.content is not None or st.known is not None or st.recipe is not None:
                break
        else:
            _from_source(func, args, kwargs, res)
            return res
    elif fakes and not _WATCHED and _PLACEHOLDERS_GET() is None \
            and not _known.small_outputs(res) and not _known.has_fakes(args, kwargs):
        # a call with no fake among its arguments (a random draw): nothing it read or wrote
        # is known, nothing will be computed, only a source can know its result
        _from_source(func, args, kwargs, res)
        return res
    if _WATCHED and (not fakes or fakes[-1] is _UNSEEN or _sizes.touches(fakes)):
        for st in _known.written_storages(func, args, kwargs, res):  # a written mask counts
            _sizes.written(st)                                        # anew (_sizes.py)
    if ident is not None:
        _sizes.set_value(res.storage, ident)
    if not fakes or fakes[-1] is _UNSEEN or _HAS_VALUES(fakes[0]) \
            or _PLACEHOLDERS_GET() is not None:
        _values(func, args, kwargs, res, convert, prepared, fakes)
    else:
        for f in fakes:  # every fake of the call (the cache signature collected them)
            st = f.storage
            if st.content is not None or st.recipe is not None:
                _known.forget_written(func, args, kwargs, res)
                break
    for f in fakes:
        if f is _UNSEEN or f.storage.known is not None:
            _known.after(func, args, kwargs, res)
            return res
    _from_source(func, args, kwargs, res)
    return res


def quick_hit(func: Any, args: tuple, kwargs: dict, ledger: Any,
              used: list | None = None) -> Any:
    """The result of a call that a kernel-cache hit answers completely, charged to
    ``ledger`` as ``FakeMode._account`` charges it; else None. Answered completely: the
    result is one array (fresh, a view of an input or an input), the call's costs carry no
    notes, and ``run_fake``'s bookkeeping has nothing to do (no input knows its values or is
    memory-mapped, no size is remembered, not in placeholder mode, func makes no known value
    here). Such a call runs no NumPy code, so a mode may answer it before popping itself off
    the stack (``_dispatch.dispatch``); a None costs the caller only the signature. ``used``,
    when given, receives the cache entry (as ``run_fake``'s ``entry_out``)."""
    if not _INFO.enabled or _WATCHED or _PLACEHOLDERS_GET() is not None:
        return None
    fakes: list = []
    key = _cache.signature(func, args, kwargs, fakes)
    if key is _NOKEY:
        return None
    try:
        hit = _ENTRIES_GET(key)
    except TypeError:  # an unhashable func
        return None
    if hit is None:
        return None
    quick = hit.quick
    if not quick:
        if quick is False or not _quick_entry(func, args, hit, fakes):
            return None
    for f in fakes:
        st = f.storage
        if st.content is not None or st.known is not None or st.recipe is not None \
                or st._tracker is MAPPED:
            return None
    _INFO.hits += 1
    if used is not None:
        used.append(hit)
    tmpl = hit.template
    costs = hit.costs
    t = type(tmpl)
    if t is _FreshOut:
        res = tmpl.meta
        storage = new_storage(tmpl.nbytes, res.device or (fakes[0].storage.device if fakes
                                                          else "cpu"))
        out = make_fake(res.shape, res.dtype, res.strides, storage, res.offset, None,
                        res.writeable is not False)
        if costs is None:
            ledger._alloc(storage)
            return out
        dev = storage.device
        if costs.early:  # before the outputs exist
            ledger._transient(dev, costs.early)
        ledger._alloc(storage)
    else:
        if t is _ViewOut:
            v = fakes[tmpl.source]
            out = _realize_out(tmpl.meta, v, v.storage.device)
        else:
            out = fakes[tmpl.position]
        if costs is None:
            return out
        dev = out.storage.device
        if costs.early:
            ledger._transient(dev, costs.early)
    if costs.transient:
        ledger._transient(dev, costs.transient)
    if costs.scratch:
        ledger._scratch(dev, costs.scratch)
    return out


def _quick_entry(func: Any, args: tuple, hit: _cache.CacheEntry, fakes: list) -> bool:
    """Work out ``hit.quick`` (see ``quick_hit``); False without deciding while func's
    source kind is not known yet (``_known.SOURCE``, filled by the full path)."""
    try:
        kind = _SOURCE_GET(func)
    except TypeError:
        kind = None
    if kind is None:
        return False
    tmpl = hit.template
    t = type(tmpl)
    costs = hit.costs
    ok = t is _ViewOut or t is _InputOut
    if isinstance(tmpl, _FreshOut):
        res = tmpl.meta
        ok = (res.base_shape is None and not res.scalar and res.value is None
              and not (type(func) is np.ufunc and res.dtype.kind == "b")  # _sizes.note_ufunc
              and (bool(fakes) or not _known.small_meta(res)))  # else _values computes it
    hit.quick = (ok and (costs is None or not costs.notes)
                 and (kind == 0 or kind == 2 and not (args and getattr(args[0], "size", 1) == 0)))
    return hit.quick


_INFO = _cache.INFO
_NOKEY = _cache.NOKEY
_ENTRIES_GET = _cache.ENTRIES.get


def _from_source(func: Any, args: tuple, kwargs: dict, res: Any) -> None:
    """``_known.after`` for a call none of whose fakes holds a known value: only a source
    (a factory, a reduction over nothing) can make one."""
    try:
        kind = _SOURCE_GET(func)
    except TypeError:  # an unhashable func
        kind = None
    if kind != 0:
        _known.after_unseen(func, args, kwargs, res, kind)


_UNSEEN: Any = object()  # ends ``fakes`` when the call's fakes were not all collected
_WATCHED = _sizes.WATCHED  # non-empty once a size or value identity is remembered
_HAS_VALUES = _known.has_values
_PLACEHOLDERS_GET = KERNEL_PLACEHOLDERS.get
_SOURCE_GET = _known.SOURCE.get


def _values(func: Any, args: tuple, kwargs: dict, res: Any, convert: Callable | None,
            prepared: bool, fakes: list) -> None:
    """Known values (faketensor/_known.py ``compute``): a call whose inputs all know their
    values and whose outputs are small runs for real on them; in placeholder mode one whose
    inputs do not all know theirs keeps its recipe; otherwise every content the call may have
    written is forgotten."""
    unseen = bool(fakes) and fakes[-1] is _UNSEEN
    if not fakes and _known.fills_uniformly(func, res):
        return  # _known.after knows its one value; the content waits until read
    if _known.small_outputs(res):
        try:
            entry = _resolved[func][0]
        except (KeyError, TypeError):
            entry = None
        if entry is None or "random" not in entry.tags and entry.backend == "numpy":
            ok = True
            if unseen and not prepared:  # real arrays stand for their fakes (the mode's memo)
                try:
                    args, kwargs = prepare_call(func, args, kwargs, convert or
                                                LocalConverter().to_fake, entry)
                except Exception:
                    ok = False
            if ok and (unseen or all(_HAS_VALUES(f) for f in fakes)) \
                    and _known.compute(func, args, kwargs, res):
                return
            if ok and KERNEL_PLACEHOLDERS.get() is not None:
                _known.note_recipe(func, args, kwargs, res)  # replayed when a value is read
    if not unseen and not any(f.storage.content is not None or f.storage.recipe is not None
                              for f in fakes):
        return
    _known.forget_written(func, args, kwargs, res)


def _run_fake_python(func: Any, args: tuple, kwargs: dict, convert: Callable | None = None,
                     device: str | None = None, prepared: bool = False,
                     costs: list | None = None, entry_out: list | None = None,
                     fakes: list | None = None) -> Any:
    """Run func's kernel on fakes; real arrays among the inputs go through ``convert``.

    Results of cpu kernels are cached by the metadata signature of the call (_cache).
    ``costs``, when given, receives the call's ``(transient, scratch, early)`` bytes if it
    has any (registry.CallRecord), from the kernel or from the cache. ``entry_out``, when
    given, receives the ``_cache.CacheEntry`` the call used or made: everything in it is a
    function of the signature, so a recording mode keeps the call's FLOP count and findings
    there for the next call with that signature. ``fakes``, when given, receives the fakes among the arguments (the cache
    signature's), ending with ``_UNSEEN`` when they were not all collected.

    ``_run_fake`` is this function, or its compiled twin (faketensor/_speedups_cache.c: the
    signature, the probe and a fresh output's hit in C, the rest by the same Python).
    """
    info = _cache.INFO
    if fakes is None:
        fakes = []
    key = _cache.NOKEY
    if info.enabled:  # the signature first: a hit is one probe, with no kernel looked up
        key = _cache.signature(func, args, kwargs, fakes)
        if key is not _cache.NOKEY:
            try:
                hit = _cache.ENTRIES.get(key)
            except TypeError:  # an unhashable func
                hit, key = None, _cache.NOKEY
            if hit is not None:  # stored by a cacheable kernel of this func
                info.hits += 1
                dev = fakes[0].storage.device if fakes else (device or "cpu")
                tmpl, c = hit.template, hit.costs
                if entry_out is not None:
                    entry_out.append(hit)
                if c is not None and costs is not None:
                    costs.append(c)
                t = type(tmpl)
                if t is _FreshOut:  # one fresh array: the common case, inlined
                    res = tmpl.meta
                    if res.base_shape is None and not res.scalar and res.value is None:
                        return make_fake(res.shape, res.dtype, res.strides,
                                         new_storage(tmpl.nbytes, res.device or dev), res.offset,
                                         None, res.writeable is not False)
                    return _realize_out(res, None, dev)
                if t is _ViewOut:
                    return _realize_out(tmpl.meta, fakes[tmpl.source], dev)
                return _instantiate(tmpl, fakes, dev)
    return _run_miss(func, args, kwargs, convert, device, prepared, costs, entry_out, fakes, key)


def _run_miss(func: Any, args: tuple, kwargs: dict, convert: Callable | None, device: str | None,
              prepared: bool, costs: list | None, entry_out: list | None, fakes: list,
              key: Any) -> Any:
    """``_run_fake`` past the cache probe: a miss (``key`` the signature) or a call the cache
    cannot answer (``key`` NOKEY): its kernel runs."""
    info = _cache.INFO
    try:
        entry, prefix = _resolved[func]
    except (KeyError, TypeError):
        try:
            entry, prefix = resolve(func)
        except UnsupportedOperationError:
            if not _cuda_among(args, kwargs):
                raise
            entry, prefix = _CUDA_ONLY, ()  # the CuPy rule of the same name may exist
    if entry.cacheable and info.enabled:
        if key is not _cache.NOKEY:
            dev = fakes[0].storage.device if fakes else (device or "cpu")
            CALL.skip_cache = False
            res, c, warned = _run_watched(entry.fn, prefix + tuple(args), kwargs, func, costs)
            tmpl = _cache.NOKEY if CALL.skip_cache or warned else _cache.template(res, fakes)
            if tmpl is not _cache.NOKEY:
                info.misses += 1
                hit = _cache.CacheEntry(tmpl, c)
                _cache.store(key, hit)
                if entry_out is not None:
                    entry_out.append(hit)
                return _instantiate(tmpl, fakes, dev)
            info.bypass(_cache.BYPASS_WARNED if warned else _cache.BYPASS_RESULT)
            return realize(res, dev)
        info.bypass(_cache.BYPASS_ARGUMENTS)
    else:
        info.bypass(entry.nocache or _cache.BYPASS_DISABLED)
    fakes.append(_UNSEEN)
    if not prepared:
        if convert is None:
            convert = LocalConverter().to_fake
        args, kwargs = prepare_call(func, args, kwargs, convert, entry)
    dev = first_device(args, kwargs)
    # run_rule decides the backend (CUDA fakes or a cupy op: CuPy's rules) and runs its rule
    res = _run_kernel(run_rule, (func, entry, prefix, args, kwargs, device,
                                 _cuda_among(args, kwargs)), {}, func, costs)[0]
    return realize(res, dev or device or "cpu")


_run_fake = compiled(RUN_FAKE, _run_fake_python, _run_fake_python, _run_miss, _instantiate,
                     _cache.ENTRIES, _cache.INFO, _cache.CacheEntry, _cache.FreshOut,
                     _cache.ViewOut, ArrayMeta)


def _unwrap_tree(obj: Any) -> Any:
    t = type(obj)
    if t is WrappedArray:
        return obj._array
    if t is tuple or t is list:
        new = [_unwrap_tree(x) for x in obj]
        return t(new)
    if t is dict:
        return {k: _unwrap_tree(v) for k, v in obj.items()}
    return obj


def rewrap(obj: Any) -> Any:
    """Wrap real arrays in a result (also inside tuples and lists)."""
    t = type(obj)
    if t is tuple or t is list:
        return t(rewrap(x) for x in obj)
    if isinstance(obj, np.ndarray) or (hasattr(obj, "__cuda_array_interface__")
                                       and t.__module__.startswith("cupy")):
        return WrappedArray(obj)
    return obj


def unwrap_call(func: Any, args: tuple, kwargs: dict) -> tuple:
    """func, args and kwargs with wrapped arrays replaced by the real ones."""
    args = tuple(a._array if type(a) is WrappedArray else _unwrap_tree(a) for a in args)
    if kwargs:
        kwargs = {k: _unwrap_tree(v) for k, v in kwargs.items()}
    inner = getattr(func, "__wrapped__", None)
    return (inner if inner is not None and not isinstance(func, _dispatch.MethodOp) else func), args, kwargs


def run_real(func: Any, args: tuple, kwargs: dict) -> Any:
    """Run the real NumPy/CuPy callable on unwrapped inputs and wrap what it returns.

    An output that is a real array passed in wrapped (``out=``, in-place operators)
    comes back as the caller's own wrapper.
    """
    f, rargs, rkwargs = unwrap_call(func, args, kwargs)
    out = f(*rargs, **rkwargs)
    if out is None or type(out) in PLAIN:
        return out
    wrappers = {id(w._array): w for w in wrappers_in((args, kwargs), [])} if kwargs else {}
    return rewrap_known(out, wrappers)


def leaves(obj: Any, keep: Callable[[Any], bool], acc: list | None = None) -> list:
    """The leaves of nested tuples (named ones too), lists and dicts for which ``keep`` is
    true, in order."""
    if acc is None:
        acc = []
    t = type(obj)
    if t is tuple or t is list or isinstance(obj, tuple):
        for x in obj:
            leaves(x, keep, acc)
    elif t is dict:
        for x in obj.values():
            leaves(x, keep, acc)
    elif keep(obj):
        acc.append(obj)
    return acc


def _is_wrapped(x: Any) -> bool:
    return type(x) is WrappedArray


def wrappers_in(obj: Any, acc: list) -> list:
    return leaves(obj, _is_wrapped, acc)


def rewrap_known(obj: Any, wrappers: dict) -> Any:
    t = type(obj)
    if t is tuple or t is list:
        return t(rewrap_known(x, wrappers) for x in obj)
    if isinstance(obj, np.ndarray) or (hasattr(obj, "__cuda_array_interface__")
                                       and t.__module__.startswith("cupy")):
        w = wrappers.get(id(obj))
        return w if w is not None else WrappedArray(obj)
    return obj


def _preexisting(f: Any) -> bool:
    """Mark a fake made outside any mode as pre-existing (a ``leaves`` visitor: keeps none)."""
    if type(f) is FakeArray and f.storage._tracker is None:
        f.storage._tracker = PREEXISTING
    return False


def default_dispatch(func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """No mode: fakes go to the kernels, wrapped arrays to the real library.

    Fakes made here belong to no mode: their storages are marked pre-existing, so a
    mode that later sees them never charges them."""
    if FakeArray in types:
        out = run_fake(func, args, kwargs)
        if type(out) is FakeArray:
            _preexisting(out)
        elif out is not None:
            leaves(out, _preexisting)
        return out
    return run_real(func, args, kwargs)


_dispatch.set_default_dispatch(default_dispatch, quick_hit)
