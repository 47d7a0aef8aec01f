"""The differential oracle: run a call on real arrays and on their fakes, compare everything.

``check(fn, *real_args)`` runs ``fn`` on the real inputs (copies, so real inputs are never
modified) and on fakes converted through one memo, then compares shape, dtype, strides,
flags, byte offset from the root buffer, ``shares_memory`` with every input, scalar versus
0-d array, and, when the real call raises, the exception type. A difference raises
``Mismatch`` (an AssertionError) naming the first field that differs.

One definition, used by the tests (tests/oracle.py) and by ``faketensor coverage``
(meta_utils/surveys/survey.py).
"""
from __future__ import annotations

import copy as _copy
import warnings
from typing import Any, Callable, cast

import numpy as np

from ..._array import FakeArray
from ..._matrix import FakeMatrix
from ..._chararray import FakeCharArray


def is_fake(obj: Any) -> bool:
    """A FakeArray, or a FakeMatrix (the fake of an np.matrix)."""
    return isinstance(obj, FakeArray)
from ..._errors import UnsupportedOperationError
from ..._sizes import SizePolicy, using
from ..._convert import Converter, ObjectArrayWarning


# a data-dependent length compared with one real run's: no assumption holds for particular
# values, so the fake refuses (faketensor/_sizes.py; tests/planner/test_bounded_sizes.py checks the
# rules at the ends of their bounds)
REFUSE = SizePolicy("refuse")


class Mismatch(AssertionError):
    """A fake's metadata (or exception) differs from the real call's."""


def root_range(a: np.ndarray) -> int:
    """Address of the start of the buffer a lives in (as the converter defines it)."""
    from ..._convert import buffer_range, root_of
    root, owner = root_of(a)
    return buffer_range(root, owner)[0]


def _leaves(obj: Any) -> list:
    if isinstance(obj, (list, tuple)):
        out = []
        for x in obj:
            out.extend(_leaves(x))
        return out
    return [obj]


def arrays_in(obj: Any) -> list:
    return [x for x in _leaves(obj) if isinstance(x, np.ndarray) or is_fake(x)]


# _writeable_no_warn: writeable without the FutureWarning of a broadcast_arrays result
_FLAGS = ("c_contiguous", "f_contiguous", "_writeable_no_warn", "owndata", "aligned")


def compare_meta(real: Any, fake: Any, real_inputs: list, fake_inputs: list, where: str = "") -> None:
    """Raise Mismatch unless fake's metadata equals real's (arrays, numpy scalars, tuples,
    lists, and other values by equality)."""
    if isinstance(real, (tuple, list)):
        if not isinstance(fake, (tuple, list)):
            raise Mismatch(f"{where}: real gives a sequence, fake {type(fake)}")
        if len(real) != len(fake):
            raise Mismatch(f"{where}: {len(real)} outputs vs {len(fake)}")
        for i, (r, f) in enumerate(zip(real, fake)):
            compare_meta(r, f, real_inputs, fake_inputs, f"{where}[{i}]")
        return
    if real is None:
        if fake is not None:
            raise Mismatch(f"{where}: real None, fake {fake!r}")
        return
    if isinstance(real, np.generic):
        if type(fake) is type(real) and _equal(fake, real):
            return  # the value itself, computed from Python arguments alone (np.busday_count)
        if not is_fake(fake):
            raise Mismatch(f"{where}: expected a fake for numpy scalar, got {type(fake)}")
        if real.dtype.kind in "USV":  # a str_/bytes_ scalar's dtype is its value's length
            if fake.shape != () or fake.dtype.kind != real.dtype.kind:
                raise Mismatch(f"{where}: {real.dtype} vs {fake}")
            return
        if fake.shape != () or fake.dtype != real.dtype:
            raise Mismatch(f"{where}: scalar {real.dtype} vs {fake}")
        return
    if type(real) in (bool, int, float, complex) and is_fake(fake) \
            and getattr(fake, "pytype", None) is type(real):
        return  # a fake Python number stands for this one: its type is all NumPy's rules see
    if type(real).__name__ == "NpzFile" and type(fake).__name__ == "FakeNpzFile":
        if list(real.files) != list(fake.files):  # the members, each compared as an array
            raise Mismatch(f"{where}: members {real.files} vs {fake.files}")
        for k in real.files:
            compare_meta(real[k], fake[k], real_inputs, fake_inputs, f"{where}[{k!r}]")
        return
    if type(real) is bytes and type(fake).__name__ == "FakeBytes" and len(fake) == len(real):
        return  # random bytes of the same length: their content is their value
    if not isinstance(real, np.ndarray):
        if is_fake(fake) or not _same_value(real, fake):
            raise Mismatch(f"{where}: real {_short(real)} vs fake {_short(fake)}")
        return
    if not is_fake(fake):
        raise Mismatch(f"{where}: expected a FakeArray, got {type(fake)}")
    if isinstance(real, np.matrix) != isinstance(fake, FakeMatrix) or \
            isinstance(real, np.char.chararray) != isinstance(fake, FakeCharArray):
        raise Mismatch(f"{where}: real {type(real).__name__}, fake {type(fake).__name__}")
    if fake.shape != real.shape:
        raise Mismatch(f"{where}: shape fake {fake.shape} real {real.shape}")
    if fake.dtype != real.dtype:
        raise Mismatch(f"{where}: dtype fake {fake.dtype} real {real.dtype}")
    if fake.strides != real.strides:
        raise Mismatch(f"{where}: strides fake {fake.strides} real {real.strides} (shape {real.shape})")
    for flag in _FLAGS:
        fv, rv = getattr(fake.flags, flag), getattr(real.flags, flag)
        if fv != rv:
            raise Mismatch(f"{where}: flags.{flag} fake {fv} real {rv}")
    if (fake.base is None) != (real.base is None):
        raise Mismatch(f"{where}: base None-ness differs")
    for i, (ri, fi) in enumerate(zip(real_inputs, fake_inputs)):
        rs = bool(np.shares_memory(real, ri))
        fs = bool(np.shares_memory(fake, fi))
        if rs != fs:
            raise Mismatch(f"{where}: shares_memory with input {i}: fake {fs} real {rs}")
        if rs and real.size:
            roff = real.__array_interface__["data"][0] - root_range(ri)
            foff = fake.storage_offset
            if roff != foff:
                raise Mismatch(f"{where}: byte offset fake {foff} real {roff}")


_PLAIN = (bool, int, float, complex, str, bytes, type(None))


def _same_value(real: Any, fake: Any) -> bool:
    """Plain values by type and equality; objects compared by identity (a context manager, a
    Generator) by their type alone: the fake's may be a subclass standing in for it."""
    if type(real) in _PLAIN or type(fake) in _PLAIN:
        return type(fake) is type(real) and _equal(fake, real)
    if type(real).__eq__ is object.__eq__:
        return isinstance(fake, type(real))
    return type(fake) is type(real) and _equal(fake, real)


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # values that do not compare (dicts of arrays ...): equal when both repr alike
        return repr(a) == repr(b)


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def same_fake_meta(a: Any, b: Any, ins_a: list, ins_b: list, where: str) -> None:
    """Two fake results (of one call on two sets of equal fakes) agree in every field,
    including which inputs they are, view or share a storage with."""
    if isinstance(a, (tuple, list)):
        if type(a) is not type(b) or len(a) != len(b):
            raise Mismatch(f"{where}: {a!r} vs {b!r}")
        for i, (x, y) in enumerate(zip(a, b)):
            same_fake_meta(x, y, ins_a, ins_b, f"{where}[{i}]")
        return
    if not is_fake(a):
        if is_fake(b) or type(a) is not type(b):
            raise Mismatch(f"{where}: {a!r} vs {b!r}")
        return
    if not is_fake(b):
        raise Mismatch(f"{where}: {a!r} vs {b!r}")
    fields = ("shape", "dtype", "strides")
    if [getattr(a, k) for k in fields] != [getattr(b, k) for k in fields]:
        raise Mismatch(f"{where}: {a!r} vs {b!r}")
    for flag in _FLAGS:
        if getattr(a.flags, flag) != getattr(b.flags, flag):
            raise Mismatch(f"{where}: flags.{flag}")
    if a.storage.nbytes != b.storage.nbytes:
        raise Mismatch(f"{where}: storage size")
    for i, (x, y) in enumerate(zip(ins_a, ins_b)):
        if is_fake(x):
            if (a is x) != (b is y):
                raise Mismatch(f"{where}: identity with input {i}")
            if (a.storage is x.storage) != (b.storage is y.storage):
                raise Mismatch(f"{where}: storage of input {i}")
            if a.storage is x.storage and \
                    a.storage_offset - x.storage_offset != b.storage_offset - y.storage_offset:
                raise Mismatch(f"{where}: offset from input {i}")


def to_fakes(obj: Any, conv: Converter) -> Any:
    """obj with every real ndarray replaced by its fake (one memo: aliasing is kept)."""
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_fakes(v, conv) for v in obj)
    if isinstance(obj, dict):
        return {k: to_fakes(v, conv) for k, v in obj.items()}
    return conv.to_fake(obj) if isinstance(obj, np.ndarray) else obj


def run_both(fn: Callable, real_args: tuple, real_kwargs: dict | None = None):
    """(real result or exception, fake result or exception, real inputs, fake inputs)."""
    real_kwargs = real_kwargs or {}
    real_args_c, real_kwargs_c = copy_tree((real_args, real_kwargs))
    with warnings.catch_warnings():
        # object arrays become fakes of their metadata: the comparison needs nothing else
        warnings.simplefilter("ignore", ObjectArrayWarning)
        fake_args, fake_kwargs = to_fakes((real_args_c, real_kwargs_c), Converter())
        # a second set of fakes: the second call reuses the cached result
        again_args, again_kwargs = to_fakes(copy_tree((real_args, real_kwargs)), Converter())
    name = getattr(fn, "__name__", repr(fn))
    with warnings.catch_warnings(record=True) as real_warned:
        warnings.simplefilter("always")
        try:
            r = fn(*real_args_c, **real_kwargs_c)
        except Exception as e:  # compared by type below
            r = e
    with warnings.catch_warnings(record=True) as fake_warned, using(REFUSE):
        warnings.simplefilter("always")
        try:
            f = fn(*fake_args, **fake_kwargs)
        except UnsupportedOperationError:
            raise
        except Exception as e:
            f = e
    compare_warnings(real_warned, fake_warned, name)
    if not isinstance(f, Exception):
        with warnings.catch_warnings(record=True) as again_warned, using(REFUSE):
            warnings.simplefilter("always")
            f2 = fn(*again_args, **again_kwargs)
        compare_warnings(real_warned, again_warned, f"{name} (second call, kernel cache)")
        same_fake_meta(f, f2, arrays_in((fake_args, fake_kwargs)),
                       arrays_in((again_args, again_kwargs)), "second call (kernel cache)")
    return r, f, arrays_in((real_args_c, real_kwargs_c)), arrays_in((fake_args, fake_kwargs))


def value_warning(w: warnings.WarningMessage) -> bool:
    """A warning that depends on the values, which a fake has not: NumPy's floating-point
    error reports (``np.errstate``: "divide by zero encountered in ...", "invalid value",
    "overflow", "underflow"; numpy/_core/_ufunc_config.py), raised from the data; SciPy's
    LinAlgWarning (an exactly singular or ill-conditioned matrix) and scipy.special's
    "non-integer arg n" (whether the float argument holds integers)."""
    msg = str(w.message)
    if issubclass(w.category, RuntimeWarning) and " encountered in " in msg:
        return True
    return (w.category.__name__ == "LinAlgWarning"
            or (issubclass(w.category, DeprecationWarning) and msg.startswith("non-integer arg")))


# Warnings NumPy gives from metadata that the fakes do not give yet (message start -> where):
# the comparison leaves them aside on both sides, and tests/kernels/numpy/test_warnings.py holds a strict
# xfail for each, which fails once the fakes give it (then its entry goes). Empty: "Mean of
# empty slice", "Degrees of freedom <= 0 for slice" (kernels/numpy/reductions.py
# ``few_items``) and ComplexWarning (kernels/numpy/convert_datatype.py ``cast_loop``) are
# given by the fakes. What stays with the values (a fake ``where`` mask with an all-False
# slice, an all-NaN slice of a nan-function) is never warned by a fake.
UNMIRRORED: dict[str, str] = {}


def unmirrored(w: warnings.WarningMessage) -> bool:
    """One of the known gaps in UNMIRRORED."""
    return bool(UNMIRRORED) and str(w.message).startswith(tuple(UNMIRRORED))


def warned_categories(ws: list) -> list[str]:
    """The categories of the warnings in ``ws`` that the comparison covers, sorted: not
    the floating-point reports of the values, not the known gaps."""
    return sorted({w.category.__name__ for w in ws if not value_warning(w) and not unmirrored(w)})


def compare_warnings(real: list, fake: list, name: str) -> None:
    """Raise Mismatch unless the fake call warned with the categories the real call did,
    leaving aside the floating-point reports the real call's values caused."""
    want, got = warned_categories(real), warned_categories(fake)
    if want != got:
        def show(ws: list) -> str:
            return "; ".join(f"{w.category.__name__}: {w.message}" for w in ws
                             if not value_warning(w) and not unmirrored(w)) or "nothing"
        raise Mismatch(f"{name}: real warned {show(real)}; fake warned {show(fake)}")


def compare_outcome(r: Any, f: Any, real_inputs: list, fake_inputs: list, name: str) -> None:
    """Raise Mismatch unless the fake outcome f (result or exception) matches the real r."""
    if isinstance(r, Exception):
        if not isinstance(f, Exception):
            raise Mismatch(f"{name}: real raised {type(r).__name__}: {r}, fake gave {_short(f)}")
        if not (isinstance(f, type(r)) or _same_family(r, f)):
            raise Mismatch(f"{name}: real raised {type(r).__name__}: {r}; "
                           f"fake raised {type(f).__name__}: {f}")
        return
    if isinstance(f, Exception):
        raise Mismatch(f"{name}: fake raised {type(f).__name__}: {f}; real gave "
                       f"{getattr(r, 'shape', _short(r))} {getattr(r, 'dtype', '')}") from f
    compare_meta(r, f, real_inputs, fake_inputs, name)


def check(fn: Callable, *real_args: Any, **real_kwargs: Any) -> Any:
    """Differential check of fn on real inputs vs their fakes. Returns the real result."""
    r, f, ri, fi = run_both(fn, real_args, real_kwargs)
    compare_outcome(r, f, ri, fi, getattr(fn, "__name__", repr(fn)))
    return r


def _same_family(r: Exception, f: Exception) -> bool:
    """NumPy's private ufunc error classes count by their public base (UFuncTypeError ...)."""
    for base in type(r).__mro__:
        if base.__module__.startswith("numpy") and not base.__name__.startswith("_"):
            return isinstance(f, base)
    return False


def copy_tree(obj: Any) -> Any:
    """Copies of the real arrays with the same layout: strides, offsets, alignment, flags,
    and views of one buffer still views of one (new) buffer."""
    memo: dict = {}

    def clone(x: Any) -> Any:
        if isinstance(x, (list, tuple)):
            return type(x)(clone(v) for v in x)
        if isinstance(x, dict):
            return {k: clone(v) for k, v in x.items()}
        if not isinstance(x, np.ndarray):
            return x
        if x.dtype.hasobject:
            return _copy.deepcopy(x)
        root = x
        while isinstance(root.base, np.ndarray):
            root = root.base
        entry = memo.get(id(root))
        if entry is None:
            lo, hi = _addr_range(root)
            buf = np.zeros(hi - lo + 128, np.uint8)
            shift = (lo - buf.__array_interface__["data"][0]) % 64
            entry = memo[id(root)] = (root, lo, buf, shift)
            new_root = _view_like(root, buf, shift + (root.__array_interface__["data"][0] - lo))
            np.copyto(new_root, root, casting="no")
        _, lo, buf, shift = entry
        out = _view_like(x, buf, shift + (x.__array_interface__["data"][0] - lo))
        if not cast(Any, x.flags)._writeable_no_warn:  # NumPy's private flag: no FutureWarning
            out.flags.writeable = False
        return out

    return clone(obj)


def _addr_range(a: np.ndarray) -> tuple[int, int]:
    """The addresses a real array touches (layout.extent, from its first element)."""
    from ...layout import extent
    start = a.__array_interface__["data"][0]
    lo, hi = extent(a.shape, a.strides, a.itemsize)
    return start + lo, start + hi


def _view_like(a: np.ndarray, buf: np.ndarray, offset: int) -> np.ndarray:
    return np.ndarray(a.shape, a.dtype, buffer=buf, offset=offset, strides=a.strides)


# --- CuPy: the fake of a CUDA array against real CuPy ----------------------------------------


def cupy_meta(x: Any) -> Any:
    """Shape, dtype, strides, contiguity and ownership of an array; other values as they are."""
    if x is None or not hasattr(x, "strides"):
        return x if not isinstance(x, float) or not np.isnan(x) else "nan"
    return (x.shape, np.dtype(x.dtype), tuple(x.strides), bool(x.flags.c_contiguous),
            bool(x.flags.f_contiguous), x.base is None)


def cupy_metas(r: Any) -> Any:
    """cupy_meta over nested lists and tuples of results."""
    return [cupy_metas(x) for x in r] if isinstance(r, (list, tuple)) else cupy_meta(r)


def _device_offset(x: Any) -> int:
    """Bytes from the start of the storage (fake) or a device pointer (CuPy)."""
    return x.storage_offset if hasattr(x, "storage_offset") else x.data.ptr


def compare_cupy_outcome(want: Any, want_exc: BaseException | None, got: Any,
                         got_exc: BaseException | None, real_in: list, fake_in: list) -> None:
    """Raise Mismatch unless the fake outcome matches real CuPy's: the same exception type,
    or the same metadata (``cupy_metas``) and the same aliasing with each input (identity,
    shares_memory, byte offset)."""
    import cupy
    if want_exc is not None:
        if got_exc is None:
            raise Mismatch(f"fake gave {cupy_metas(got)} where CuPy raised {want_exc!r}")
        if not isinstance(got_exc, type(want_exc)):
            raise Mismatch(f"fake raised {got_exc!r}, CuPy {want_exc!r}")
        return
    if got_exc is not None:
        raise Mismatch(f"fake raised {got_exc!r}, CuPy gave {cupy_metas(want)}") from got_exc
    if cupy_metas(got) != cupy_metas(want):
        raise Mismatch(f"fake {cupy_metas(got)}, CuPy {cupy_metas(want)}")
    for w, g in zip(_leaves(want), _leaves(got)):
        if not isinstance(w, cupy.ndarray):
            continue
        for i, (r, f) in enumerate(zip(real_in, fake_in)):
            if (g is f) != (w is r):
                raise Mismatch(f"identity with input {i}")
            if w.size and r.size:
                shared = bool(cupy.shares_memory(w, r))
                if bool(np.shares_memory(g, f)) != shared:
                    raise Mismatch(f"shares_memory with input {i}")
                if shared and _device_offset(g) - _device_offset(f) != w.data.ptr - r.data.ptr:
                    raise Mismatch(f"byte offset from input {i}")
