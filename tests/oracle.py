"""The differential oracle: run a call on real arrays and on their fakes, compare everything.

``check(fn, *real_args)`` runs ``fn`` on the real inputs (copies, so real inputs are never
modified) and on fakes converted through one memo, then compares shape, dtype,
strides, flags, byte offset from the root buffer, ``shares_memory`` with every input,
and, when the real call raises, the exception type.
"""
from __future__ import annotations

import copy as _copy
import warnings
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import faketensor as ft

# --- comparing ----------------------------------------------------------------


def root_range(a: np.ndarray) -> int:
    """Address of the start of the buffer a lives in (as the converter defines it)."""
    from faketensor._convert import _buffer_range, _root_of
    root, owner = _root_of(a)
    return _buffer_range(root, owner)[0]


def _leaves(obj: Any) -> list:
    if isinstance(obj, (list, tuple)):
        out = []
        for x in obj:
            out.extend(_leaves(x))
        return out
    return [obj]


def _arrays(obj: Any) -> list:
    return [x for x in _leaves(obj) if isinstance(x, np.ndarray) or ft.is_fake(x)]


def compare_meta(real: Any, fake: Any, real_inputs: list, fake_inputs: list, where: str = "") -> None:
    """Assert that fake's metadata equals real's (for arrays, numpy scalars and tuples)."""
    if isinstance(real, tuple) or isinstance(real, list):
        assert isinstance(fake, (tuple, list)), f"{where}: real gives a sequence, fake {type(fake)}"
        assert len(real) == len(fake), f"{where}: {len(real)} outputs vs {len(fake)}"
        for i, (r, f) in enumerate(zip(real, fake)):
            compare_meta(r, f, real_inputs, fake_inputs, f"{where}[{i}]")
        return
    if real is None:
        assert fake is None, f"{where}: real None, fake {fake!r}"
        return
    if isinstance(real, np.generic):
        assert ft.is_fake(fake), f"{where}: expected a fake for numpy scalar, got {type(fake)}"
        if real.dtype.kind in "USV":  # a str_/bytes_ scalar's dtype is its value's length
            assert fake.shape == () and fake.dtype.kind == real.dtype.kind, f"{where}: {real.dtype} vs {fake}"
            return
        assert fake.shape == () and fake.dtype == real.dtype, f"{where}: scalar {real.dtype} vs {fake}"
        return
    if not isinstance(real, np.ndarray):
        assert not ft.is_fake(fake) and type(fake) is type(real) and fake == real, \
            f"{where}: real {real!r} vs fake {fake!r}"
        return
    assert ft.is_fake(fake), f"{where}: expected a FakeArray, got {type(fake)}"
    assert fake.shape == real.shape, f"{where}: shape fake {fake.shape} real {real.shape}"
    assert fake.dtype == real.dtype, f"{where}: dtype fake {fake.dtype} real {real.dtype}"
    assert fake.strides == real.strides, \
        f"{where}: strides fake {fake.strides} real {real.strides} (shape {real.shape})"
    # _writeable_no_warn: writeable without the FutureWarning of a broadcast_arrays result
    for flag in ("c_contiguous", "f_contiguous", "_writeable_no_warn", "owndata", "aligned"):
        fv, rv = getattr(fake.flags, flag), getattr(real.flags, flag)
        assert fv == rv, f"{where}: flags.{flag} fake {fv} real {rv}"
    assert (fake.base is None) == (real.base is None), f"{where}: base None-ness differs"
    for i, (ri, fi) in enumerate(zip(real_inputs, fake_inputs)):
        rs = bool(np.shares_memory(real, ri))
        fs = bool(np.shares_memory(fake, fi))
        assert rs == fs, f"{where}: shares_memory with input {i}: fake {fs} real {rs}"
        if rs and real.size:
            roff = real.__array_interface__["data"][0] - root_range(ri)
            foff = fake.storage_offset
            assert roff == foff, f"{where}: byte offset fake {foff} real {roff}"


def same_fake_meta(a: Any, b: Any, ins_a: list, ins_b: list, where: str) -> None:
    """Two fake results (of one call on two sets of equal fakes) agree in every field,
    including which inputs they are, view or share a storage with."""
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), f"{where}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            same_fake_meta(x, y, ins_a, ins_b, f"{where}[{i}]")
        return
    if not ft.is_fake(a):
        assert not ft.is_fake(b) and type(a) is type(b), f"{where}: {a!r} vs {b!r}"
        return
    assert ft.is_fake(b), f"{where}: {a!r} vs {b!r}"
    fields = ("shape", "dtype", "strides")
    assert [getattr(a, k) for k in fields] == [getattr(b, k) for k in fields], f"{where}: {a!r} vs {b!r}"
    for flag in ("c_contiguous", "f_contiguous", "_writeable_no_warn", "owndata", "aligned"):
        assert getattr(a.flags, flag) == getattr(b.flags, flag), f"{where}: flags.{flag}"
    assert a.storage.nbytes == b.storage.nbytes, f"{where}: storage size"
    for i, (x, y) in enumerate(zip(ins_a, ins_b)):
        if ft.is_fake(x):
            assert (a is x) == (b is y), f"{where}: identity with input {i}"
            assert (a.storage is x.storage) == (b.storage is y.storage), f"{where}: storage of input {i}"
            if a.storage is x.storage:
                assert a.storage_offset - x.storage_offset == b.storage_offset - y.storage_offset, \
                    f"{where}: offset from input {i}"


def run_both(fn: Callable, real_args: tuple, real_kwargs: dict | None = None):
    """(real result or exception, fake result or exception, real inputs, fake inputs)."""
    real_kwargs = real_kwargs or {}
    real_args_c, real_kwargs_c = _copy_tree((real_args, real_kwargs))
    conv = ft.Converter()

    def to_fake(x):
        if isinstance(x, (list, tuple)):
            return type(x)(to_fake(v) for v in x)
        if isinstance(x, dict):
            return {k: to_fake(v) for k, v in x.items()}
        return conv.to_fake(x) if isinstance(x, np.ndarray) else x

    fake_args, fake_kwargs = to_fake((real_args_c, real_kwargs_c))
    conv = ft.Converter()  # a second set of fakes: the second call reuses the cached result
    again_args, again_kwargs = to_fake(_copy_tree((real_args, real_kwargs)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(*real_args_c, **real_kwargs_c)
        except Exception as e:  # compared by type below
            r = e
    try:
        f = fn(*fake_args, **fake_kwargs)
    except ft.UnsupportedOperationError:
        raise
    except Exception as e:
        f = e
    if not isinstance(f, Exception):
        f2 = fn(*again_args, **again_kwargs)
        same_fake_meta(f, f2, _arrays((fake_args, fake_kwargs)),
                       _arrays((again_args, again_kwargs)), "second call (kernel cache)")
    return r, f, _arrays((real_args_c, real_kwargs_c)), _arrays((fake_args, fake_kwargs))


def check(fn: Callable, *real_args: Any, **real_kwargs: Any) -> Any:
    """Differential check of fn on real inputs vs their fakes. Returns the real result."""
    r, f, ri, fi = run_both(fn, real_args, real_kwargs)
    name = getattr(fn, "__name__", repr(fn))
    if isinstance(r, Exception):
        assert isinstance(f, Exception), f"{name}: real raised {type(r).__name__}: {r}, fake gave {f!r}"
        assert type(f) is type(r) or isinstance(f, type(r)) or _same_family(r, f), \
            f"{name}: real raised {type(r).__name__}: {r}; fake raised {type(f).__name__}: {f}"
        return r
    if isinstance(f, Exception):
        raise AssertionError(f"{name}: fake raised {type(f).__name__}: {f}; real gave "
                             f"{getattr(r, 'shape', r)} {getattr(r, 'dtype', '')}") from f
    compare_meta(r, f, ri, fi, name)
    return r


def _same_family(r: Exception, f: Exception) -> bool:
    """NumPy's private ufunc error classes count by their public base (UFuncTypeError ...)."""
    for base in type(r).__mro__:
        if base.__module__.startswith("numpy") and not base.__name__.startswith("_"):
            return isinstance(f, base)
    return False


def _copy_tree(obj: Any) -> Any:
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
        if not x.flags._writeable_no_warn:
            out.flags.writeable = False
        return out

    return clone(obj)


def _addr_range(a: np.ndarray) -> tuple[int, int]:
    """The addresses a real array touches (kernels/layout.extent, from its first element)."""
    from faketensor.layout import extent
    start = a.__array_interface__["data"][0]
    lo, hi = extent(a.shape, a.strides, a.itemsize)
    return start + lo, start + hi


def _view_like(a: np.ndarray, buf: np.ndarray, offset: int) -> np.ndarray:
    return np.ndarray(a.shape, a.dtype, buffer=buf, offset=offset, strides=a.strides)


# --- awkward real inputs --------------------------------------------------------

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.longdouble, np.complex64,
          np.complex128, np.clongdouble]
DTYPE_FAMILIES = [np.dtype(d) for d in DTYPES] + [
    np.dtype(">i4"), np.dtype(">f8"), np.dtype("U3"), np.dtype("S2"), np.dtype("M8[s]"),
    np.dtype("m8[ms]"), np.dtype(object), np.dtype([("a", "<i4"), ("b", "<f8")]),
]
NUMERIC = [np.dtype(d) for d in DTYPES]


def layouts(arr: np.ndarray, draw) -> np.ndarray:
    """Turn a C array into an awkward view of it: transposed, F, strided, reversed, offset."""
    kind = draw(st.sampled_from(["c", "f", "t", "step", "rev", "offset", "bcast", "perm"]))
    if kind == "f":
        return np.asfortranarray(arr)
    if kind == "t":
        return np.ascontiguousarray(arr.T).T
    if kind == "perm" and arr.ndim > 1:
        perm = draw(st.permutations(range(arr.ndim)))
        return np.ascontiguousarray(arr.transpose(perm)).transpose(np.argsort(perm))
    if kind == "step" and arr.ndim:
        big = np.repeat(arr, 2, axis=-1)
        return big[..., ::2]
    if kind == "rev" and arr.ndim:
        ax = draw(st.integers(0, arr.ndim - 1))
        idx = [slice(None)] * arr.ndim
        idx[ax] = slice(None, None, -1)
        return arr[tuple(idx)]
    if kind == "offset" and arr.ndim:
        big = np.concatenate([arr[:1], arr], axis=0) if arr.shape[0] else arr
        return big[1:] if arr.shape[0] else arr
    if kind == "bcast" and arr.ndim:
        ax = draw(st.integers(0, arr.ndim - 1))
        shape = list(arr.shape)
        sl = [slice(None)] * arr.ndim
        sl[ax] = slice(0, 1)
        sub = arr[tuple(sl)]
        return np.broadcast_to(sub, tuple(shape))
    return arr


@st.composite
def arrays(draw, dtypes=NUMERIC, min_dims: int = 0, max_dims: int = 4, max_side: int = 4,
           shape=None) -> np.ndarray:
    """A real array of an awkward layout (values small, so ops do not overflow or warn)."""
    dt = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=max_side))
    base = np.ones(shape, dtype=dt) if dt.kind not in "OUSMmV" else np.zeros(shape, dtype=dt)
    return layouts(base, draw)


@st.composite
def shapes_broadcastable(draw, n: int = 2, max_dims: int = 4):
    return draw(hnp.mutually_broadcastable_shapes(num_shapes=n, max_dims=max_dims, max_side=4)).input_shapes


def array_of_shape(draw, shape, dtypes=NUMERIC):
    return draw(arrays(dtypes=dtypes, shape=shape))
