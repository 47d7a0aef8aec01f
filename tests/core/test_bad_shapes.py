"""Bad shapes, sizes and counts are never accepted: a generated table of bad calls and the valid
calls next to them, differential against NumPy (exception type; metadata when valid).

The real side runs once, in a subprocess whose address space is capped (so a call that would
allocate raises MemoryError at once and nothing can take the test process down); see
tests/bad_shapes_cases.py. A real MemoryError means "valid, too big to allocate": the fake must
succeed and produce the array NumPy's message names (shape and dtype).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import faketensor as ft
from bad_shapes_cases import TEMPORARY_FIRST, cases, encode, exc_types, run_case
from locations import TESTS  # tests/ and the checkout

# the real outcomes are computed once (a subprocess), on one worker
pytestmark = pytest.mark.xdist_group("bad_shapes")

CASES = {cid: (fn, mk) for cid, fn, mk in cases()}

# Cases known to differ from NumPy, with the reason; the test fails when one of them passes.
KNOWN: dict[str, str] = {
    # (histogram's counts past npy_intp now fail as NumPy's do: the edges come from the
    # linspace kernel, histograms._hist_edges_steps)
    "strides-setter[5]": "a.strides = (2**63 - 1,) on 6 items: NumPy's extent check "
                         "(offset_bounds_from_strides) overflows npy_intp and accepts it; the "
                         "fake computes the extent exactly and refuses",
}


@pytest.fixture(scope="module")
def real() -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    here = str(TESTS)
    proc = subprocess.run([sys.executable, os.path.join(here, "bad_shapes_cases.py")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _fake_outcome(cid: str) -> tuple:
    """The case's outcome inside FakeMode (twice: the second call may be a kernel-cache hit)."""
    return _in_mode(*CASES[cid])


def _in_mode(fn, mk) -> tuple:
    """fn on fakes of mk()'s arrays inside FakeMode, twice, as run_case reports outcomes."""
    outs = []
    for _ in range(2):
        conv = ft.Converter()  # one memo: inputs that share memory share a fake storage
        inputs = tuple(conv.to_fake(x) if isinstance(x, np.ndarray) else x for x in mk())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with ft.FakeMode():
                try:
                    res = fn(*inputs)
                except ft.UnsupportedOperationError as e:
                    outs.append(["unsupported", exc_types(e), str(e)])
                    continue
                except Exception as e:  # compared by type
                    outs.append(["raise", exc_types(e), str(e)])
                    continue
        outs.append(["ok", encode(res, inputs), res])
    return outs[0], outs[1]


_ALLOC = re.compile(r"with shape (\(.*?\)) and data type (\S+)$")


def _arrays(enc: list) -> list:
    if enc[0] == "array":
        return [enc]
    if enc[0] in ("tuple", "list"):
        return [a for x in enc[1] for a in _arrays(x)]
    return []


def _verdict(r: list, f: list, cid: str = "") -> str | None:
    """None when the fake outcome f matches the real outcome r, else what differs."""
    if r[0] == "memory":
        return _memory_verdict(r[1], f, cid.split("[")[0] in TEMPORARY_FIRST)
    if f[0] == "unsupported":
        return f"the fake refused a call NumPy answers: {f[2]}"
    if r[0] == "raise":
        if f[0] != "raise":
            return f"real raised {r[1][0]}: {r[2]}; fake gave {f[1]}"
        expected = next(n for n in r[1] if "._" not in n)  # a private class by its public base
        if expected not in f[1]:
            return f"real raised {r[1][0]}: {r[2]}; fake raised {f[1][0]}: {f[2]}"
        return None
    if f[0] == "raise":
        return f"real gave {r[1]}; fake raised {f[1][0]}: {f[2]}"
    if r[1] != f[1]:
        return f"real gave {r[1]}; fake gave {f[1]}"
    return None


def _memory_verdict(msg: str, f: list, temporary_first: bool) -> str | None:
    """NumPy ran out of memory (the call is valid up to that allocation). The fake must hold
    the array NumPy's message names among its outputs, unless that array is a temporary
    (no output has its dtype and ndim). Where NumPy allocates temporaries before the result
    (TEMPORARY_FIRST), a later step it never reached may refuse the call: the fake may raise
    there (or refuse it as unsupported), not elsewhere."""
    m = _ALLOC.search(msg)
    if f[0] in ("raise", "unsupported"):
        if temporary_first:
            return None
        return f"real ran out of memory ({msg}); fake raised {f[1][0]}: {f[2]}"
    if not m:  # a Python-level MemoryError (a huge tuple): nothing names the array
        return None
    shape = list(eval(m.group(1)))  # a tuple of ints, from NumPy's own message
    dt = np.dtype(m.group(2)).str
    outs = _arrays(f[1])
    if any(a[1] == shape and a[2] == dt for a in outs):
        return None
    if any(a[2] == dt and len(a[1]) == len(shape) for a in outs):
        return f"real would allocate {m.group(1)} {m.group(2)}; fake gave {f[1]}"
    return None


@pytest.mark.parametrize("cid", list(CASES))
def test_bad_shape_call(real: dict, cid: str) -> None:
    first, second = _fake_outcome(cid)
    problem = _verdict(real[cid], first, cid)
    if problem is None and first[0] == "ok":
        assert second[:2] == first[:2], f"{cid}: second call differs: {second[1]} vs {first[1]}"
    if cid in KNOWN:
        assert problem is not None, f"{cid} now matches NumPy: remove it from KNOWN"
        pytest.xfail(KNOWN[cid])
    assert problem is None, f"{cid}: {problem}"


def test_table_covers_every_outcome(real: dict) -> None:
    """The table holds bad calls NumPy rejects, valid calls and valid calls too big to allocate."""
    kinds = {}
    for out in real.values():
        kinds[out[0]] = kinds.get(out[0], 0) + 1
    assert kinds.get("raise", 0) > 1000 and kinds.get("ok", 0) > 400 and kinds.get("memory", 0) > 40, kinds
    assert set(real) == set(CASES)


def test_oracle_runs_same_calls() -> None:
    """run_case reports a rejected shape as NumPy's exception type (sanity check of the helper)."""
    out = run_case(lambda: np.empty(-1), ())
    assert out[0] == "raise" and out[1][0] == "builtins.ValueError"


_BOUNDS = [(0.5, 2.0), (np.float32(1.0), 3), (np.ones(()), 2.0), (np.ones(3), np.full(3, 2.0)),
           (np.ones((2, 3)), 4.0), (np.asfortranarray(np.ones((2, 3))), np.ones(3) * 3),
           (1 + 1j, 2.0), (1j, np.ones(3, np.complex64)), (0.5j, np.ones(3, np.float32))]


@pytest.mark.parametrize("func", [np.linspace, np.logspace, np.geomspace])
@pytest.mark.parametrize("bounds", range(len(_BOUNDS)))
@pytest.mark.parametrize("num,endpoint", [(0, True), (1, True), (1, False), (2, True), (5, False)])
@pytest.mark.parametrize("axis,dtype", [(0, None), (-1, None), (1, None), (0, np.float32),
                                        (-1, np.int64), (0, complex)])
def test_spaced_sequences_layout(func, bounds, num, endpoint, axis, dtype) -> None:
    """The valid linspace/logspace/geomspace calls next to the bad counts: layout and views."""
    def fn(a, b):
        return func(a, b, num, endpoint=endpoint, dtype=dtype, axis=axis)

    def mk():
        return tuple(np.copy(x) if isinstance(x, np.ndarray) else x for x in _BOUNDS[bounds])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = run_case(fn, mk())
    fake, again = _in_mode(fn, mk)
    problem = _verdict(real, fake)
    assert problem is None, problem
    assert again[:2] == fake[:2]


_AWKWARD = {"C": lambda: np.ones((2, 3)), "F": lambda: np.asfortranarray(np.ones((2, 3))),
            "T": lambda: np.ones((3, 2), np.int8).T, "neg": lambda: np.ones((2, 6))[:, ::-2],
            "0d": lambda: np.ones((), np.complex64), "empty": lambda: np.ones((0, 3)),
            "bcast": lambda: np.broadcast_to(np.ones(3), (2, 3)), "1d": lambda: np.arange(4)}


@pytest.mark.parametrize("kind", list(_AWKWARD))
@pytest.mark.parametrize("reps", [0, 1, 2, (0,), (2, 0), (0, 1), (1, 1, 1), (2, 1, 3), True,
                                  np.bool_(True), np.array(2), np.array([1, 2]), (1, 2 ** 62),
                                  -1, (2, -1)])
def test_tile_awkward(kind, reps) -> None:
    """np.tile next to the bad counts: views of temporaries and of empty inputs, on awkward
    layouts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = run_case(lambda x: np.tile(x, reps), (_AWKWARD[kind](),))
    fake, again = _in_mode(lambda x: np.tile(x, reps), lambda: (_AWKWARD[kind](),))
    problem = _verdict(real, fake, "tile")
    assert problem is None, problem
    assert again[:2] == fake[:2]


@pytest.mark.parametrize("kind", list(_AWKWARD))
@pytest.mark.parametrize("count", [0, 2, -1, np.int64(-1), 2 ** 61, 2.5, np.array(2),
                                   np.array([1, 2]), [0, 0], [1, -1]])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_repeat_awkward(kind, count, axis) -> None:
    """np.repeat's counts as PyArray_Repeat reads them, on awkward layouts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = run_case(lambda x: np.repeat(x, count, axis), (_AWKWARD[kind](),))
    fake, again = _in_mode(lambda x: np.repeat(x, count, axis), lambda: (_AWKWARD[kind](),))
    problem = _verdict(real, fake, "repeat")
    assert problem is None, problem
    assert again[:2] == fake[:2]


def test_repeat_count_wrapping_to_a_valid_size() -> None:
    """4 * 2**62 items wrap npy_intp to 0: NumPy then copies 2**64 items into an empty array
    (a crash, so not run for real here); the fake refuses rather than guess."""
    with ft.FakeMode():
        x = np.arange(4, dtype=np.int8)
        with pytest.raises(ft.UnsupportedOperationError):
            np.repeat(x, 2 ** 62)
        assert np.repeat(x, 2 ** 60).shape == (2 ** 62,)
        with pytest.raises(ValueError, match="negative dimensions"):
            np.repeat(x, 2 ** 61)  # wraps to -2**63: NumPy's constructor refuses it


_FACTORIES = {
    "empty": lambda dt: np.empty((2, 3), dt), "zeros-F": lambda dt: np.zeros((2, 3), dt, order="F"),
    "ones": lambda dt: np.ones(3, dt), "full": lambda dt: np.full(2, 1, dt),
    "eye": lambda dt: np.eye(2, dtype=dt), "identity": lambda dt: np.identity(2, dt),
    "tri": lambda dt: np.tri(2, dtype=dt), "indices": lambda dt: np.indices((2,), dt),
    "zeros-huge": lambda dt: np.zeros((2**61, 2), dt),
}
# the prototype's layout decides empty_like's, so it is left to the kernels' own rules
_LIKE_UNSUPPORTED = {"(2,3)f8", "(2,)i4"}


# (V0, of itemsize 0, is left out: NumPy sets a fresh V0 array's contiguity flags from its
# order, which zero strides cannot tell apart)
@pytest.mark.parametrize("dt", ["(2,3)f8", "(2,)i4", "S", "U", "S0", "f8", "<U0", ">i2"])
@pytest.mark.parametrize("name", list(_FACTORIES))
def test_constructor_dtypes(name, dt) -> None:
    """A fresh array's dtype as NumPy's constructor resolves it: a subarray dtype's dimensions
    join the shape, an unsized string gets one character; sizes checked after that."""
    fn = _FACTORIES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = run_case(fn, (dt,))
    fake, _ = _in_mode(fn, lambda: (dt,))
    problem = _verdict(real, fake, name)
    assert problem is None, problem


@pytest.mark.parametrize("dt", sorted(_LIKE_UNSUPPORTED))
def test_like_with_subarray_dtype_is_refused(dt) -> None:
    """empty_like with a subarray dtype: not modelled yet, so refused rather than guessed."""
    with ft.FakeMode():
        x = np.ones((2, 3))
        with pytest.raises(ft.UnsupportedOperationError):
            np.empty_like(x, dtype=dt)


@pytest.mark.parametrize("shape", [3, (2, 3), (), True, -1, (2, -1), 1.0, None, (2**62, 4),
                                   (0, 2**62, 4), (1,) * 65, np.array([2, 3]), (2**63,)])
@pytest.mark.parametrize("dt,order", [("f8", "C"), ("(2,)i2", "F"), ("S", "C"), ("i1", "F")])
def test_ft_empty(shape, dt, order) -> None:
    """ft.empty reads and checks its shape as np.empty does (same exception type, same
    layout)."""
    real = run_case(lambda: np.empty(shape, dt, order), ())
    fake = run_case(lambda: ft.empty(shape, dt, order=order), ())
    if real[0] == "memory":
        assert fake[0] == "ok" and fake[1][1] == list(shape), fake
    else:
        assert _verdict(real, fake) is None, (real, fake)
