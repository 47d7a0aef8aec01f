"""The generated table of bad shape, size and count arguments, and the valid calls next to them.

Each case is ``(id, fn, make_inputs)``: ``fn(*make_inputs())`` is the call. The same table is
built in the oracle subprocess (real NumPy, address space capped so that a call that would
allocate raises MemoryError instead) and in the test process (fakes inside FakeMode); see
tests/core/test_bad_shapes.py. ``encode`` turns a result or an exception into comparable data.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

as_strided = np.lib.stride_tricks.as_strided
I64 = 2**63 - 1

# Counts and single dimensions: bad ones, the edges of npy_intp, and the valid ones next to them.
COUNTS = [-1, -2, -2**63, -2**63 - 1, 2**62, I64, 2**63, 2**64, True, False, np.bool_(True),
          1.0, 2.5, np.float64(3.0), np.int64(2**62), np.int64(-1), np.uint64(2**63),
          np.int32(3), np.uint8(2), 0, 1, 3, "3", None, np.array(3), np.array(2.0),
          np.array([3])]

# Whole shapes: every count above as a 1-d shape, and tuples mixing bad and valid entries.
SHAPES = COUNTS + [
    (), (0,), (2, 3), [2, 3], (2, -1), (-1, 3), (2, -2**63), (0, -1), (0, 2**62), (0, 2**63),
    (0, 2**62, 4), (0, 2**31, 2**31, 2**31), (2**62, 4), (2**61, 4), (2**60, 4), (2**60, 16),
    (2**31, 2**31, 2**31), (2**32, 2**31), (2**62, 2**62, 0), (2**62, 2**62, -1), (1,) * 64,
    (1,) * 65, (0,) * 65, (3, True), (3, np.bool_(True)), (3, 1.0), (np.int64(2**62), np.int64(2)),
    np.array([2, 3]), np.array([2**62, 4]), np.array([2.0, 3.0]), (np.uint64(2**63), 0),
    [2, [3]], (2, None), (2**63 - 1, 1), (3, 2**63),
]


# Calls whose NumPy code allocates temporaries (aranges, repeats, tuples) before the result:
# when one of those runs out of memory, a check NumPy never reached may still refuse the call.
TEMPORARY_FIRST = frozenset({"tri", "tri-M", "tri-huge", "tile", "tile-int", "tile-0", "resize",
                             "linspace", "logspace", "geomspace", "linspace-arr", "pad",
                             "pad-scalar", "pad-pair", "pad-edge", "indices", "tril_indices",
                             "array_split", "histogram-bins"})


def _x6() -> tuple:
    return (np.arange(6.0),)


def _x0() -> tuple:
    return (np.empty(0),)


def _x23() -> tuple:
    return (np.ones((2, 3), np.int16),)


def _d0() -> tuple:
    return (np.ones((), np.float32),)


def _none() -> tuple:
    return ()


def _huge_pair() -> tuple:
    """Zero-cost operands whose broadcast overflows npy_intp."""
    z = np.zeros(1, np.int8)
    return (as_strided(z, (2**62, 1), (0, 0)), as_strided(z, (1, 4), (0, 0)))


def _big_pair() -> tuple:
    """Zero-cost operands whose broadcast is valid but too big to allocate."""
    z = np.zeros(1, np.int8)
    return (as_strided(z, (2**31, 1), (0, 0)), as_strided(z, (1, 2**31), (0, 0)))


def _shape_cases() -> list:
    calls: list = [
        ("empty-i1", lambda s: np.empty(s, np.int8), _none),
        ("zeros", lambda s: np.zeros(s), _none),
        ("ones-c16-F", lambda s: np.ones(s, complex, order="F"), _none),
        ("full", lambda s: np.full(s, 7), _none),
        ("empty_like", lambda s, x: np.empty_like(x, shape=s), _x23),
        ("zeros_like-i1", lambda s, x: np.zeros_like(x, np.int8, shape=s), _x23),
        ("full_like", lambda s, x: np.full_like(x, 1, shape=s), _x23),
        ("reshape-method-0", lambda s, x: x.reshape(s), _x0),
        ("reshape-6", lambda s, x: np.reshape(x, s), _x6),
        ("resize", lambda s, x: np.resize(x, s), _x6),
        ("broadcast_to", lambda s, x: np.broadcast_to(x, s), _d0),
        ("indices", lambda s: np.indices(s, np.int8), _none),
        ("indices-sparse", lambda s: np.indices(s, sparse=True), _none),
        ("broadcast_shapes", lambda s: np.broadcast_shapes(s, (1,)), _none),
        ("tile", lambda s, x: np.tile(x, s), _x23),
        ("pad", lambda s, x: np.pad(x, s), _x23),
        ("unravel_index", lambda s: np.unravel_index(1, s), _none),
    ]
    return [(f"{name}[{i}]", (lambda f, s: lambda *a: f(s, *a))(fn, s), mk)
            for name, fn, mk in calls for i, s in enumerate(SHAPES)]


def _count_cases() -> list:
    calls: list = [
        ("arange", lambda n: np.arange(n), _none),
        ("arange-0-n-i8", lambda n: np.arange(0, n, 1, np.int8), _none),
        ("arange-step", lambda n: np.arange(0, 2**62, n), _none),
        ("linspace", lambda n: np.linspace(0, 1, n), _none),
        ("logspace", lambda n: np.logspace(0, 1, n), _none),
        ("geomspace", lambda n: np.geomspace(1, 2, n), _none),
        ("linspace-arr", lambda n, x: np.linspace(x, 1, n, axis=-1), _d0),
        ("eye", lambda n: np.eye(n), _none),
        ("eye-M", lambda n: np.eye(3, n), _none),
        ("eye-k", lambda n: np.eye(3, k=n), _none),
        ("identity", lambda n: np.identity(n), _none),
        ("tri", lambda n: np.tri(n), _none),
        ("tri-M", lambda n: np.tri(2, n), _none),
        ("tri-k", lambda n: np.tri(3, k=n), _none),
        ("repeat", lambda n, x: np.repeat(x, n), _x23),
        ("repeat-method-axis", lambda n, x: x.repeat(n, axis=1), _x23),
        ("repeat-0", lambda n, x: np.repeat(x, n), _x0),
        ("tile-int", lambda n, x: np.tile(x, n), _x23),
        ("tile-0", lambda n, x: np.tile(x, (n, 0)), _x23),
        ("pad-scalar", lambda n, x: np.pad(x, n), _x23),
        ("pad-pair", lambda n, x: np.pad(x, ((0, n), (1, 1))), _x23),
        ("pad-edge", lambda n, x: np.pad(x, (n, 1), mode="edge"), _x23),
        ("tril_indices", lambda n: np.tril_indices(n), _none),
        ("tri-huge", lambda n: np.tri(2**40, n), _none),
        ("hanning", lambda n: np.hanning(n), _none),
        ("kaiser", lambda n: np.kaiser(n, 2.0), _none),
        ("fft-n", lambda n, x: np.fft.fft(x, n), _x6),
        ("rfft-n", lambda n, x: np.fft.rfft(x, n), _x6),
        ("vander", lambda n, x: np.vander(x, n), _x6),
        ("sliding_window", lambda n, x: np.lib.stride_tricks.sliding_window_view(x, n), _x6),
        ("array_split", lambda n, x: np.array_split(x, n), _x6),
        ("ravel_multi_index", lambda n: np.ravel_multi_index((1, 1), (n, 3)), _none),
        ("histogram-bins", lambda n, x: np.histogram(x, n)[0], _x6),
    ]
    return [(f"{name}[{i}]", (lambda f, n: lambda *a: f(n, *a))(fn, n), mk)
            for name, fn, mk in calls for i, n in enumerate(COUNTS)]


STRIDED = [((2**62,), (0,)), ((2**63,), (0,)), ((-1,), (0,)), ((3,), (8,)), ((3, 2), (0, 8)),
           ((True,), (8,)), ((1.0,), (8,)), ((2**62, 4), (0, 0)), ((2**31,) * 3, (0,) * 3),
           ((0, 2**62), (8, 8)), ((3,), (2**63,)), ((3,), (-2**63 - 1,)), ((2,), (2**62,)),
           ((1,) * 65, (0,) * 65), ((3,), (True,))]


def _set(name: str, value: Any) -> Callable:
    def assign(x: Any) -> Any:
        setattr(x, name, value)
        return x
    return assign


def _setter_cases() -> list:
    """``a.shape = ...`` and ``a.strides = ...`` with every shape of the table."""
    return ([(f"shape-setter[{i}]", _set("shape", s), _x6) for i, s in enumerate(SHAPES)]
            + [(f"strides-setter[{i}]", _set("strides", s), _x6) for i, s in enumerate(SHAPES)])


def _other_cases() -> list:
    out = [(f"as_strided[{i}]", (lambda s, t: lambda x: as_strided(x, s, t))(s, t), _x0)
           for i, (s, t) in enumerate(STRIDED)]
    out += [
        ("add-overflow", lambda a, b: np.add(a, b), _huge_pair),
        ("add-valid-huge", lambda a, b: np.add(a, b), _big_pair),
        ("broadcast_arrays-overflow", lambda a, b: np.broadcast_arrays(a, b), _huge_pair),
        ("broadcast_arrays-huge", lambda a, b: np.broadcast_arrays(a, b), _big_pair),
        ("broadcast_shapes-overflow", lambda: np.broadcast_shapes((2**62, 1), (1, 4)), _none),
        ("broadcast_shapes-3", lambda: np.broadcast_shapes((2**31, 1, 1), (1, 2**31, 1),
                                                           (1, 1, 2**31)), _none),
        ("broadcast_shapes-valid", lambda: np.broadcast_shapes((2**31, 1), (1, 2**31)), _none),
        ("reshape-minus-huge", lambda a: a.reshape(-1, 4), lambda: (_huge_pair()[0],)),
        ("reshape-two-minus", lambda x: x.reshape(-1, -1), _x6),
        ("reshape-minus-0", lambda x: x.reshape(0, -1), _x0),
        ("reshape-minus-of-0", lambda x: x.reshape(2, -1, 0), _x0),
        ("reshape-minus-2", lambda x: x.reshape(-2, 3), _x6),
    ]
    return out


def cases() -> list:
    """Every (id, fn, make_inputs) of the table, in a fixed order."""
    return _shape_cases() + _count_cases() + _setter_cases() + _other_cases()


def encode(obj: Any, inputs: tuple) -> Any:
    """A comparable description of a result: arrays by their metadata and which inputs they
    share memory with; sequences item by item; anything else by type and repr."""
    if isinstance(obj, (tuple, list)):
        return [type(obj).__name__, [encode(x, inputs) for x in obj]]
    if isinstance(obj, np.generic) or _is_fake(obj) and _is_scalar_fake(obj):
        return ["scalar", obj.dtype.str]  # a NumPy scalar, or the fake standing for one
    if isinstance(obj, np.ndarray) or _is_fake(obj):
        f = obj.flags
        return ["array", list(obj.shape), obj.dtype.str, list(obj.strides), f.c_contiguous,
                f.f_contiguous, f.owndata, f._writeable_no_warn,  # no broadcast_arrays warning
                [obj is i or bool(np.shares_memory(obj, i)) for i in inputs]]
    return ["value", type(obj).__name__, repr(obj)]


def _is_fake(obj: Any) -> bool:
    return type(obj).__name__ == "FakeArray"


def _is_scalar_fake(obj: Any) -> bool:
    from faketensor._storage import SCALAR  # the fake side only: the real side has no fakes
    return obj.storage._tracker is SCALAR


def exc_types(e: BaseException) -> list:
    """The qualified names of an exception's type and its bases."""
    return [f"{c.__module__}.{c.__qualname__}" for c in type(e).__mro__]


def run_case(fn: Callable, inputs: tuple) -> list:
    """``["ok", encoded]``, ``["memory", message]`` or ``["raise", type names, message]``."""
    try:
        res = fn(*inputs)
    except MemoryError as e:
        return ["memory", str(e)]
    except Exception as e:  # compared by type
        return ["raise", exc_types(e), str(e)]
    return ["ok", encode(res, inputs)]


def run_real() -> dict:
    """Outcomes of every case on real NumPy (call in a process whose address space is capped)."""
    import warnings
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cid, fn, mk in cases():
            out[cid] = run_case(fn, mk())
    return out


if __name__ == "__main__":  # the oracle subprocess: outcomes as JSON on stdout
    import json
    import resource
    import sys
    with open("/proc/self/status") as fh:
        vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize"))
    limit = vm + (1 << 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    json.dump(run_real(), sys.stdout)
