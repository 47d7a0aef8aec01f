"""Replay of a recording FakeMode's ops with the real kernels.

A recording mode's entries keep their arguments with fakes replaced by
``TraceRef(serial)`` (modes/trace.py), so the op graph survives the fakes' death.
``replay(mode, fakes)`` re-runs, with real NumPy, exactly
the entries that write to the storages the requested fakes depend on (plus every
random draw before the last of them, so random streams advance as they did).
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from ... import _dispatch
from ..._array import FakeArray
from ..._errors import MetadataMismatchError
from ..._pytree import tree_leaves, tree_map
from ...modes.trace import TraceIds, TraceRef

__all__ = ["TraceRef", "TraceIds", "replay"]


def _substitute(obj: Any, env: dict, op: str) -> Any:
    t = type(obj)
    if t is TraceRef:
        try:
            return env[obj.serial]
        except KeyError:
            raise ValueError(f"replay: an input of {op} is a fake that was neither produced "
                             "by a recorded op nor converted from a real array; pass it with "
                             "inputs=[(fake, real), ...]") from None
    if t is tuple or t is list:
        return t(_substitute(x, env, op) for x in obj)
    if t is dict:
        return {k: _substitute(v, env, op) for k, v in obj.items()}
    return obj


def _flat_real(obj: Any, acc: list) -> list:
    if isinstance(obj, (np.ndarray, np.generic)) or hasattr(obj, "__cuda_array_interface__"):
        acc.append(obj)
    elif type(obj) in (tuple, list):
        for x in obj:
            _flat_real(x, acc)
    elif type(obj) is dict:
        for x in obj.values():
            _flat_real(x, acc)
    return acc


def _check(e: Any, i: int, real: Any, ins: list) -> None:
    shape, dtype, strides = e.meta[i][:3]
    name = e.op
    rs, rd = np.shape(real), real.dtype
    if rs != shape:
        raise MetadataMismatchError(f"{name}: shape differs: fake {shape}, real {rs}")
    if rd != dtype:
        raise MetadataMismatchError(f"{name}: dtype differs: fake {dtype}, real {rd}")
    if isinstance(real, np.generic):
        return
    if real.strides != strides:
        raise MetadataMismatchError(f"{name}: strides differ: fake {strides}, real {real.strides}")
    kind = e.alias[i]
    if kind == "fresh":
        return
    src = ins[kind[1]] if kind[1] < len(ins) else None
    if kind[0] == "inplace" and src is not None and real is not src:
        raise MetadataMismatchError(f"{name}: fake writes output {i} in place, real does not")
    if kind[0] == "view" and isinstance(src, np.ndarray) and real.size and src.size \
            and not np.may_share_memory(real, src):
        raise MetadataMismatchError(f"{name}: fake output {i} is a view of input "
                                    f"{kind[1]}, real is a copy")


def replay(mode: Any, obj: Any, *, inputs: Any = (), check: bool = True) -> Any:
    """Real arrays for the fakes in obj, recomputed by re-running the recorded ops.

    ``mode`` is a ``FakeMode(record=True)`` (after or during recording). Fakes that entered
    the mode as real arrays replay as those arrays; other outside fakes can be given as
    ``inputs=[(fake, real), ...]``. Each real result is checked against the metadata the
    fake predicted (``MetadataMismatchError`` otherwise). Seed legacy ``np.random`` the
    same way before replay as before recording; Generators restart from the state they
    had when first used in the mode.
    """
    ids: TraceIds | None = getattr(mode, "ids", None)
    entries = getattr(mode, "trace", None)
    if ids is None or entries is None:
        raise TypeError("replay needs a FakeMode(record=True)")
    env: dict[int, Any] = dict(ids.real_inputs)
    for f, r in inputs:
        env[ids.of(f)] = r
    targets = []
    for leaf in tree_leaves(obj):
        if type(leaf) is FakeArray:
            s = ids.get(leaf)
            if s is None:
                raise ValueError(f"replay: {leaf!r} was not recorded by this mode")
            targets.append(s)
    storage_of = ids.storage_of
    needed_st = {storage_of[s] for s in targets if s not in env}
    todo = [False] * len(entries)
    last = -1
    for i in range(len(entries) - 1, -1, -1):
        e = entries[i]
        if any(storage_of.get(s) in needed_st for s in e.out_ids):
            todo[i] = True
            last = max(last, i)
            needed_st.update(storage_of[s] for s in e.in_ids if s not in env)
    for i in range(last):
        if "random" in entries[i].tags:
            todo[i] = True
    restored: set = set()
    token = _dispatch.STACK.set(())
    try:
        for i, e in enumerate(entries):
            if not todo[i]:
                continue
            args, kwargs = _substitute(e.spec, env, e.op)
            for a in tree_leaves((args, kwargs)):
                if isinstance(a, np.random.Generator) and id(a) not in restored:
                    restored.add(id(a))
                    hit = ids.generators.get(id(a))
                    if hit is not None and hit[0] is a:
                        a.bit_generator.state = hit[1]
            res = e.func(*args, **kwargs)  # no mode is active: the real kernel runs
            reals = _flat_real(res, [])
            if len(reals) != len(e.out_ids):
                if check:
                    raise MetadataMismatchError(
                        f"{e.op}: fake gave {len(e.out_ids)} arrays, real {len(reals)}")
                continue
            ins = [env.get(s) for s in e.in_ids]
            for k, (s, r) in enumerate(zip(e.out_ids, reals)):
                if check:
                    _check(e, k, r, ins)
                env[s] = r
    finally:
        _dispatch.STACK.reset(token)
    missing = [s for s in targets if s not in env]
    if missing:
        raise ValueError(f"replay: {len(missing)} requested fake(s) have no recorded producer")
    return tree_map(lambda x: env[cast(int, ids.get(x))] if type(x) is FakeArray else x, obj)
