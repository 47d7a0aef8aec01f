"""``CrossRefMode``: run every intercepted call for real and on fakes, compare the metadata."""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .._array import NOT_RUN, PYTHON_ENTRIES, FakeArray
from .._dispatch import STACK
from .._errors import DataDependentError, MetadataMismatchError, UnsupportedOperationError, op_name
from .._runner import leaves, rewrap_known, wrappers_in, run_fake, unwrap_call
from .._wrapped import WrappedArray
from .._convert import Converter
from .._sizes import SizePolicy, using
from .base import Mode

_FLAGS = ("c_contiguous", "f_contiguous", "writeable", "owndata")


def map_leaves(obj: Any, fn: Callable[[Any], Any]) -> Any:
    t = type(obj)
    if t is tuple or t is list:
        return t(map_leaves(x, fn) for x in obj)
    if t is dict:
        return {k: map_leaves(v, fn) for k, v in obj.items()}
    return fn(obj)


def _is_array(x: Any) -> bool:
    return type(x) is FakeArray or type(x) is WrappedArray or isinstance(x, np.ndarray)


def _arrays(obj: Any, acc: list) -> list:
    return leaves(obj, _is_array, acc)


_REFUSE = SizePolicy("refuse")  # compared with one real run: no assumed lengths


class CrossRefMode(Mode):
    """Checks fakes against the real library on every op; ``on_mismatch``: raise, warn or record.

    Works on wrapped arrays (``ft.wrap``) and on fakes (materialized with zeros for the real
    run). Mismatches found with ``"record"`` are kept in ``mismatches`` as
    (op, field, fake value, real value).
    """

    def __init__(self, on_mismatch: str = "raise") -> None:
        if on_mismatch not in ("raise", "warn", "record"):
            raise ValueError("on_mismatch must be 'raise', 'warn' or 'record'")
        self.on_mismatch = on_mismatch
        self.mismatches: list[tuple] = []
        self.unsupported: list[str] = []
        self.checked = 0
        self._converter = Converter()
        self._buffers: dict = {}

    # --- the two sides -------------------------------------------------------
    def _real_of(self, x: Any) -> Any:
        if type(x) is FakeArray:
            return _materialize_zeros(x, self._buffers)
        if type(x) is WrappedArray:
            return x._array
        return x

    def _fake_of(self, x: Any) -> Any:
        if type(x) is WrappedArray:
            return self._converter.to_fake(x._array)
        if isinstance(x, np.ndarray):
            return self._converter.to_fake(x)
        return x

    def __array_dispatch__(self, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
        name = op_name(func)
        fake_args = map_leaves(args, self._fake_of)
        fake_kwargs = map_leaves(kwargs, self._fake_of)
        real_args = map_leaves(args, self._real_of)
        real_kwargs = map_leaves(kwargs, self._real_of)
        real_in = _arrays((real_args, real_kwargs), [])
        fake_in = _arrays((fake_args, fake_kwargs), [])
        fake_exc: Exception | None
        try:  # one real run's values: a data-dependent length refuses (faketensor/_sizes.py)
            with using(_REFUSE):
                entry = PYTHON_ENTRIES.get(func)
                fake_out = NOT_RUN if entry is None else entry(fake_args, fake_kwargs)
                if fake_out is NOT_RUN:  # else NumPy's own Python ran on fakes (python_entry)
                    fake_out = run_fake(func, fake_args, fake_kwargs, self._converter.to_fake)
                fake_exc = None
        except (DataDependentError, UnsupportedOperationError) as e:
            fake_out, fake_exc = None, e
        except Exception as e:  # compared with the real exception below
            fake_out, fake_exc = None, e
        token = STACK.set(())
        try:
            f, _, _ = unwrap_call(func, (), {})
            real_out, real_exc = f(*real_args, **real_kwargs), None
        except Exception as e:  # compared with the fake exception below
            real_out, real_exc = None, e
        finally:
            STACK.reset(token)
        self.checked += 1
        if isinstance(fake_exc, (DataDependentError, UnsupportedOperationError)):
            if isinstance(fake_exc, UnsupportedOperationError):
                self.unsupported.append(name)
        elif real_exc is not None or fake_exc is not None:
            if real_exc is None or fake_exc is None or not isinstance(fake_exc, type(real_exc)):
                self._mismatch(name, "exception", _exc_name(fake_exc), _exc_name(real_exc))
        else:
            self._compare(name, real_out, fake_out, real_in, fake_in, "")
        if real_exc is not None:
            raise real_exc
        if FakeArray in types and WrappedArray not in types:
            if fake_exc is not None:
                raise fake_exc
            return fake_out
        return rewrap_known(real_out, {id(w._array): w for w in wrappers_in((args, kwargs), [])})

    # --- comparing -------------------------------------------------------------
    def _compare(self, name: str, real: Any, fake: Any, real_in: Any, fake_in: Any,
                 where: str) -> None:
        if isinstance(real, (tuple, list)):
            if not isinstance(fake, (tuple, list)) or len(fake) != len(real):
                self._mismatch(name, f"outputs{where}", _desc(fake), _desc(real))
                return
            for i, (r, f) in enumerate(zip(real, fake)):
                self._compare(name, r, f, real_in, fake_in, f"{where}[{i}]")
            return
        if isinstance(real, np.generic):
            # a str_/bytes_ scalar's dtype is its value's length: its kind is the metadata
            same = (fake.dtype.kind == real.dtype.kind if real.dtype.kind in "SU"
                    else fake.dtype == real.dtype) if type(fake) is FakeArray else False
            if not same or fake.shape != ():
                self._mismatch(name, f"scalar{where}", _desc(fake), _desc(real))
            return
        if not isinstance(real, np.ndarray):
            if type(fake) is FakeArray or (fake != real):
                self._mismatch(name, f"value{where}", _desc(fake), _desc(real))
            return
        if type(fake) is not FakeArray:
            self._mismatch(name, f"type{where}", _desc(fake), _desc(real))
            return
        for field in ("shape", "dtype", "strides"):
            fv, rv = getattr(fake, field), getattr(real, field)
            if fv != rv:
                self._mismatch(name, f"{field}{where}", fv, rv)
                return
        for flag in _FLAGS:
            fv, rv = getattr(fake.flags, flag), getattr(real.flags, flag)
            if fv != rv:
                self._mismatch(name, f"flags.{flag}{where}", fv, rv)
                return
        for i, (ri, fi) in enumerate(zip(real_in, fake_in)):
            if not isinstance(ri, np.ndarray) or type(fi) is not FakeArray:
                continue
            rs, fs = bool(np.shares_memory(real, ri)), bool(np.shares_memory(fake, fi))
            if rs != fs:
                self._mismatch(name, f"aliasing with input {i}{where}", fs, rs)
                return

    def _mismatch(self, name: str, field: str, fake: Any, real: Any) -> None:
        msg = f"{name}: {field} differ: fake {fake}, real {real}"
        if self.on_mismatch == "raise":
            raise MetadataMismatchError(msg)
        self.mismatches.append((name, field, fake, real))
        if self.on_mismatch == "warn":
            warnings.warn(msg, RuntimeWarning, stacklevel=4)


def _materialize_zeros(f: FakeArray, buffers: dict) -> np.ndarray:
    """A real zero-filled array with f's layout; fakes on one storage share one real buffer."""
    st = f.storage
    entry = buffers.get(id(st))
    if entry is None:
        entry = buffers[id(st)] = (np.zeros(max(st.nbytes, 1), np.uint8), st)
    arr = np.ndarray(f.shape, f.dtype, buffer=entry[0], offset=f.storage_offset, strides=f.strides)
    if not f.flags.writeable:
        arr.flags.writeable = False
    return arr


def _desc(x: Any) -> str:
    if type(x) is FakeArray or isinstance(x, np.ndarray):
        return f"{type(x).__name__}{x.shape} {x.dtype}"
    return repr(x)


def _exc_name(e: Any) -> str:
    return "no exception" if e is None else type(e).__name__
