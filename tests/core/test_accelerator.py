"""The compiled outside-any-mode path of the namespace patches (faketensor/_speedups.c,
docs/internals/accelerator.md) and its pure-Python fallback (``FAKETENSOR_PURE_PYTHON=1``):
both make patches that behave the same, in a mode and outside, as functions do (names,
signatures, pickling, copying, method binding). The whole suite runs both ways
(``make test-pure``); here each property is checked in both builds side by side."""
import copy
import importlib.util
import inspect
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import faketensor as ft
from faketensor import _accel

BUILT = _accel.PATCH is not None
# whether the module is there, used or not (FAKETENSOR_PURE_PYTHON=1 turns it off in this process
# only: a fresh interpreter told otherwise uses it)
COMPILED = importlib.util.find_spec("faketensor._speedups") is not None


def run_py(code: str, pure: bool) -> str:
    """Run ``code`` in a fresh interpreter, with the accelerator turned off if ``pure``."""
    env = dict(os.environ)
    env["FAKETENSOR_PURE_PYTHON"] = "1" if pure else "0"
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=240, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


BEHAVIOUR = """
    import copy, inspect, pickle, types
    import numpy as np
    import faketensor as ft
    from faketensor import _accel
    out = {"accelerated": _accel.PATCH is not None and type(np.zeros) is _accel.PATCH}
    for name in ("zeros", "concatenate", "empty_like"):
        f = getattr(np, name)
        out[name] = (f.__name__, f.__qualname__, f.__module__, f._ft_patch,
                     pickle.loads(pickle.dumps(f)) is f, copy.copy(f) is f,
                     copy.deepcopy(f) is f, str(inspect.signature(f)),
                     f.__doc__ == f.__wrapped__.__doc__)
    out["randn"] = (np.random.randn.__module__, np.random.randn.__qualname__,
                    pickle.loads(pickle.dumps(np.random.randn)) is np.random.randn)
    class Holder:
        make = np.zeros  # a patch binds as a method, as a function does
    out["bound"] = type(Holder().make).__name__
    out["outside"] = [repr(np.zeros(2)), repr(np.concatenate([np.ones(1), np.zeros(1)])),
                      np.random.RandomState(0).randn(2).shape]
    f = ft.empty((3, 4))
    out["fake outside"] = [type(np.concatenate([f, f])).__name__,
                           np.concatenate([f, f]).shape, type(np.zeros_like(f)).__name__]
    try:
        np.random.randn(f)
    except Exception as e:
        out["draw of a fake"] = type(e).__name__
    with ft.FakeMode(record=True) as mode:
        x = np.zeros((3, 4))
        y = np.concatenate([x, x], axis=1)
        z = np.random.standard_normal((2, 2))
    out["inside"] = [type(v).__name__ for v in (x, y, z)] + [y.shape, mode.memory.peak]
    out["ops"] = [e.op for e in mode.trace]
    print(repr(out))
"""


def test_both_builds_behave_the_same():
    import ast
    pure = ast.literal_eval(run_py(BEHAVIOUR, pure=True))
    fast = ast.literal_eval(run_py(BEHAVIOUR, pure=False))
    assert pure.pop("accelerated") is False
    assert fast.pop("accelerated") is COMPILED
    assert fast == pure
    assert pure["zeros"] == ("zeros", "zeros", "numpy", True, True, True, True,
                             str(inspect.signature(np.zeros.__wrapped__)), True)
    assert pure["bound"] == "method"
    assert pure["fake outside"] == ["FakeArray", (6, 4), "FakeArray"]
    assert pure["inside"][:3] == ["FakeArray"] * 3


@pytest.mark.skipif(not BUILT, reason="the accelerator is not built here (no C compiler at "
                    "install time) or turned off (FAKETENSOR_PURE_PYTHON=1): the pure-Python patches are checked by the test above")
def test_the_compiled_patch_calls_through_only_outside_any_mode():
    """Outside any mode with no fake among the arguments the original is called directly
    (the Python patch is not entered); in a mode, or with a fake, the Python patch runs."""
    calls = []

    def original(*args, **kwargs):
        return ("original", args, kwargs)

    def slow(*args, **kwargs):
        calls.append((args, kwargs))
        return ("slow", args, kwargs)

    live: dict = {}
    p = _accel.PATCH(original, slow, live, ft.FakeArray)
    assert p(1, 2, k=3) == ("original", (1, 2), {"k": 3}) and not calls
    f = ft.empty(2)
    assert p(1, f)[0] == "slow" and p(k=f)[0] == "slow" and len(calls) == 2
    live[0] = None  # a mode somewhere in the process
    assert p(1) == ("slow", (1,), {}) and len(calls) == 3
    live.clear()
    untyped = _accel.PATCH(original, slow, live, None)
    assert untyped(f)[0] == "original"
    with pytest.raises(TypeError):
        _accel.PATCH(original, slow, [], None)
    with pytest.raises(TypeError):
        _accel.PATCH(original, slow, live, 3)
    assert p._ft_original is original and p._ft_slow is slow


@pytest.mark.skipif(not BUILT, reason="the accelerator is not built here (no C compiler at "
                    "install time) or turned off (FAKETENSOR_PURE_PYTHON=1): nothing compiled to check")
def test_numpy_patches_are_compiled_and_match_their_python_patch():
    """Every NumPy patch that may call its original straight through is compiled; its
    Python patch is what it calls otherwise, and names the compiled one (a mode's ``func``)."""
    kinds = {type(np.zeros), type(np.concatenate), type(np.random.randn), type(np.load)}
    assert kinds == {_accel.PATCH}
    with ft.FakeMode(record=True) as mode:
        np.zeros(3)
    assert mode.trace[0].func is np.zeros
    assert pickle.loads(pickle.dumps(np.zeros)) is np.zeros
    assert copy.deepcopy(np.zeros) is np.zeros
