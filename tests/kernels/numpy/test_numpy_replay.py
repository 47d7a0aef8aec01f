"""Differential replay of calls captured from NumPy's own test files (tests/replay/).

Each call runs on real arrays and, inside ``FakeMode``, on fakes of the same arrays made
with one ``ft.Converter``; shape, dtype, strides, flags, aliasing and exception type must agree.
Allowed fake outcomes besides agreement: ``DataDependentError`` (the answer needs values),
``UnsupportedOperationError`` (no exact rule), and success where the real call failed only
because of the values in its arrays (the same call on zero-filled arrays succeeds with the
fake's metadata: a value check a fake assumes passes). Anything else is a mismatch; the
known ones are listed in tests/replay/known_mismatches.txt, which fails on unexpected success.

``corpus_train`` holds calls from the files the fixes were made against, ``corpus_heldout``
calls from other files (how the fixes generalise). Every call is replayed (about 15,000,
some seconds), a second time with the real arrays handed to FakeMode as they are (the
mode converts them; lists and scalars stay as given); ``pytest -s`` prints the tally of
outcomes per chunk.
"""
from __future__ import annotations

import collections
import gzip
import hashlib
import json
import os
import warnings
from typing import Any

import numpy as np
import pytest

import faketensor as ft
from oracle import _same_family, compare_meta
from locations import TESTS  # tests/ and the checkout

HERE = os.path.join(str(TESTS), "replay")
KNOWN_FILE = os.path.join(HERE, "known_mismatches.txt")
CHUNKS = 4


# --- decoding (the inverse of capture_numpy_tests.Encoder) ----------------------------

def _dtype(spec: Any) -> np.dtype:
    if isinstance(spec, str):
        return np.dtype(spec)
    return np.lib.format.descr_to_dtype(_tuplify(spec[1]))


def _tuplify(d: Any) -> Any:
    """JSON lists back into the tuples a dtype descr is made of."""
    if isinstance(d, list):
        if d and isinstance(d[0], list):
            return [_tuplify(x) for x in d]
        return tuple(_tuplify(x) for x in d) if d and isinstance(d[0], str) else d
    return d


def _buffer(spec: list, zero: bool) -> np.ndarray:
    data = bytes.fromhex(spec[0])
    raw = np.zeros(len(data) + 128, np.uint8)
    start = (spec[1] - raw.__array_interface__["data"][0]) % 16  # the same offset in both runs
    buf = raw[start:start + len(data)]
    if not zero:
        buf[:] = np.frombuffer(data, np.uint8)
    return buf


_TYPES = {"int": int, "float": float, "complex": complex, "bool": bool, "str": str,
          "bytes": bytes, "object": object}


def decode(rec: dict, zero: bool = False) -> tuple[tuple, dict]:
    """A call's (args, kwargs) with fresh arrays (values zeroed with ``zero``)."""
    bufs = [_buffer(b, zero) for b in rec["b"]]

    def val(x: Any) -> Any:
        if isinstance(x, list):
            return [val(v) for v in x]
        if not isinstance(x, dict):
            return x
        if "A" in x:
            a = np.ndarray(tuple(x["shape"]), _dtype(x["dtype"]), buffer=bufs[x["A"]],
                           offset=x["o"], strides=tuple(x["strides"]))
            if not x["w"]:
                a.flags.writeable = False
            return a
        if "g" in x:  # a NumPy scalar: dtype and raw bytes
            return np.frombuffer(bytes.fromhex(x["h"]), _dtype(x["g"]))[0]
        (tag, v), = x.items()
        if tag == "T":
            return tuple(val(e) for e in v)
        if tag == "i":
            return int(v)
        if tag == "f":
            return float(v)
        if tag == "c":
            return complex(val(v[0]), val(v[1]))
        if tag == "s":
            return slice(*(val(e) for e in v))
        if tag == "E":
            return Ellipsis
        if tag == "y":
            return bytes.fromhex(v)
        if tag == "d":
            return _dtype(v)
        if tag == "t":
            return _TYPES[v] if v in _TYPES else getattr(np, v.split(".", 1)[1])
        raise ValueError(f"unknown corpus tag {tag!r}")

    return tuple(val(a) for a in rec["a"]), {k: val(v) for k, v in rec["k"].items()}


def call(rec: dict, args: tuple, kwargs: dict) -> Any:
    """Make the recorded call: ``numpy.X``, ``ndarray.NAME`` (self first) or ``ufunc:NAME.meth``."""
    op = rec["f"]
    if op.startswith("ndarray."):
        return getattr(args[0], op[8:])(*args[1:], **kwargs)
    if op.startswith("ufunc:"):
        name, _, meth = op[6:].partition(".")
        fn = getattr(np, name)
        return (getattr(fn, meth) if meth else fn)(*args, **kwargs)
    obj: Any = np
    for part in op.split(".")[1:]:
        obj = getattr(obj, part)
    return obj(*args, **kwargs)


def call_id(rec: dict) -> str:
    key = json.dumps([rec["f"], rec["a"], rec["k"], rec["b"]], sort_keys=True)
    return rec["f"] + ":" + hashlib.sha1(key.encode()).hexdigest()[:10]


# --- running one call both ways -------------------------------------------------------

def _arrays(obj: Any) -> list:
    if isinstance(obj, (list, tuple)):
        return [a for x in obj for a in _arrays(x)]
    if isinstance(obj, dict):
        return [a for x in obj.values() for a in _arrays(x)]
    return [obj] if isinstance(obj, np.ndarray) or ft.is_fake(obj) else []


_COMPARABLE = (np.ndarray, np.generic, int, float, complex, bool, str, bytes, type(None),
               np.dtype, tuple, list)


def _comparable(r: Any) -> bool:
    if isinstance(r, (tuple, list)):
        return all(_comparable(x) for x in r)
    return type(r) is np.ndarray or (isinstance(r, _COMPARABLE) and not isinstance(r, np.ndarray))


def _to_fakes(obj: Any, conv: Any) -> Any:
    """Arrays in nested tuples, lists and dicts to fakes through one memo (aliasing kept)."""
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_fakes(x, conv) for x in obj)
    if isinstance(obj, dict):
        return {k: _to_fakes(v, conv) for k, v in obj.items()}
    return conv.to_fake(obj) if isinstance(obj, np.ndarray) else obj


def _compare(r: Any, f: Any, rins: list, fins: list, where: str) -> None:
    """compare_meta, except that a NumPy scalar the fake side computed from plain Python
    values (``linspace(..., retstep=True)``'s step) must equal the real one."""
    if isinstance(r, (tuple, list)) and isinstance(f, (tuple, list)) and len(r) == len(f):
        for i, (x, y) in enumerate(zip(r, f)):
            _compare(x, y, rins, fins, f"{where}[{i}]")
        return
    if isinstance(r, np.generic) and isinstance(f, np.generic):
        assert type(r) is type(f) and (r == f or (r != r and f != f)), f"{where}: {r!r} vs {f!r}"
        return
    compare_meta(r, f, rins, fins, where)


def _has_fake(obj: Any) -> bool:
    if isinstance(obj, (list, tuple)):
        return any(_has_fake(x) for x in obj)
    return ft.is_fake(obj)


def _run(rec: dict, how: str, zero: bool = False) -> tuple[Any, list]:
    """(result or exception, input arrays) of the call made ``how``: "real"; "fakes" (arrays
    made fakes with one Converter, then called inside FakeMode); "mode" (real arrays handed
    to FakeMode, which converts them itself and keeps value arguments such as axis= real)."""
    args, kwargs = decode(rec, zero)
    if how == "fakes":
        args, kwargs = _to_fakes((args, kwargs), ft.Converter())
    ins = _arrays((args, kwargs))
    mode = ft.FakeMode() if how != "real" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if mode is None:
                return call(rec, args, kwargs), ins
            with mode:
                res = call(rec, args, kwargs)
        except Exception as e:  # compared by type
            res = e
    if how == "mode":  # the fakes the mode made of the real inputs (one memo)
        ins = [mode.converter.to_fake(x) if isinstance(x, np.ndarray) else x for x in ins]
    return res, ins


def outcome(rec: dict, how: str = "fakes") -> tuple[str, str]:
    """(kind, detail): kind is match, data-dependent, unsupported, value-check, real (NumPy ran
    for real: no fake in or out), skip (a result of no comparable type) or mismatch."""
    r, rins = _run(rec, "real")
    if not isinstance(r, Exception) and not _comparable(r):
        return "skip", type(r).__name__
    f, fins = _run(rec, how)
    if isinstance(f, ft.DataDependentError):
        return "data-dependent", str(f)
    if isinstance(f, ft.UnsupportedOperationError):
        return "unsupported", str(f)
    if isinstance(r, Exception):
        if isinstance(f, Exception):
            if type(f) is type(r) or isinstance(f, type(r)) or _same_family(r, f):
                return "match", ""
            return "mismatch", f"real {type(r).__name__}: {r}; fake {type(f).__name__}: {f}"
        r0, rins = _run(rec, "real", zero=True)
        if isinstance(r0, Exception):
            return "mismatch", f"real {type(r).__name__}: {r}; fake gave {f!r}"
        try:
            _compare(r0, f, rins, fins, rec["f"])
        except AssertionError as e:
            return "mismatch", f"real raised {type(r).__name__} on values; on zeros: {e}"
        return "value-check", f"{type(r).__name__}: {r}"
    if isinstance(f, Exception):
        return "mismatch", f"fake {type(f).__name__}: {f}; real gave {type(r).__name__}"
    if not _has_fake(f) and (how == "mode" or not any(ft.is_fake(x) for x in fins)):
        # no fake among the inputs (or real ones, with "mode") and none made: NumPy itself ran
        # (methods of real arrays, ufuncs on Python scalars and lists run for real inside
        # FakeMode, by design); nothing of faketensor's to check
        return "real", ""
    try:
        _compare(r, f, rins, fins, rec["f"])
    except AssertionError as e:
        return "mismatch", str(e)
    return "match", ""


# --- the corpus and the test ------------------------------------------------------------

def load(split: str) -> list:
    with gzip.open(os.path.join(HERE, f"corpus_{split}.jsonl.gz"), "rt") as fh:
        return [json.loads(line) for line in fh]


def known() -> dict:
    out = {}
    if os.path.exists(KNOWN_FILE):
        with open(KNOWN_FILE) as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith("#"):
                    cid, _, why = line.partition(" ")
                    out[cid] = why
    return out


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("split", ["train", "heldout"])
def test_replay_numpy_test_calls(split: str, chunk: int) -> None:
    recs = load(split)[chunk::CHUNKS]
    expected = known()
    tally: collections.Counter = collections.Counter()
    failures = []
    for rec in recs:
        kind, detail = outcome(rec)
        tally[kind] += 1
        cid = call_id(rec)
        if kind == "mismatch" and cid not in expected:
            failures.append(f"{cid} ({rec['src']}): {detail}")
        elif kind != "mismatch" and cid in expected:
            failures.append(f"{cid}: listed as a known mismatch but now {kind}")
    print(f"\n{split}[{chunk}]: {len(recs)} calls: " +
          ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    assert not failures, f"{len(failures)} unexpected outcomes:\n" + "\n".join(failures[:60])


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("split", ["train", "heldout"])
def test_replay_with_real_inputs(split: str, chunk: int) -> None:
    """The same calls with their real arrays handed to FakeMode, which converts them itself
    (modes/patching.kernel_patch: NumPy functions with a kernel run it on all-real
    arguments). A mismatch must be listed in known_mismatches.txt; the unexpected-success
    check is the fakes run's (a listed call may differ only there)."""
    recs = load(split)[chunk::CHUNKS]
    expected = known()
    tally: collections.Counter = collections.Counter()
    failures = []
    for rec in recs:
        kind, detail = outcome(rec, "mode")
        tally[kind] += 1
        cid = call_id(rec)
        if kind == "mismatch" and cid not in expected:
            failures.append(f"{cid} ({rec['src']}): {detail}")
    print(f"\n{split}[{chunk}] with real inputs: {len(recs)} calls: " +
          ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    assert not failures, f"{len(failures)} unexpected outcomes:\n" + "\n".join(failures[:60])
