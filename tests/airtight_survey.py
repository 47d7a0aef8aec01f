"""Which NumPy entry points allocate real array memory inside ``FakeMode`` (run as a script:
``python tests/airtight_survey.py`` prints one JSON object, name -> verdict).

Every public callable of numpy, numpy.linalg, numpy.fft, numpy.random (module functions,
and the methods of a real Generator and RandomState made before the mode),
numpy.lib.stride_tricks, numpy.rec, numpy.char, numpy.strings and numpy.ma, the index
tricks objects and the ndarray subclasses' constructors is called inside ``FakeMode`` with
real or plain-Python arguments of a large requested size: the first argument recipe the
signature accepts (no TypeError) decides. NumPy's own allocations are traced (tracemalloc's
NumPy domain, tests/memtools.py) while each call runs; a peak of 64 KiB or more or a
MemoryError is ``alloc`` (a call still running after 3 s is stopped and judged by its peak
so far). Real arrays given
as arguments exist before the mode (256 KiB each): converting them allocates nothing.

The process runs under an address-space limit, so a call that would allocate gigabytes
for real fails fast with MemoryError (and is reported) instead of exhausting the machine.
"""
from __future__ import annotations

import inspect
import json
import os
import resource
import signal
import sys
import tempfile
import tracemalloc
import warnings

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402

import faketensor as ft  # noqa: E402
from memtools import numpy_tracing  # noqa: E402

THRESHOLD = 64 * 1024
N = 2 ** 15                    # elements: 256 KiB of float64
SHAPE = (256, 128)
# callables that make no arrays from their arguments: test runners, printing, configuration
SKIP = frozenset({"np.test", "np.info", "np.show_config", "np.show_runtime", "np.get_include",
                  "np.set_printoptions", "np.printoptions", "np.get_printoptions", "np.seterr",
                  "np.errstate", "np.seterrcall", "np.setbufsize", "np.getbufsize",
                  "np.geterr", "np.geterrcall", "np.random.seed", "RandomState.seed",
                  "np.random.set_state", "RandomState.set_state", "np.set_printoptions",
                  "np.ma.test", "np.linalg.test", "np.fft.test", "np.random.test"})


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _recipes(tmp: str) -> list:
    """Argument recipes, tried in order: (args, kwargs) built fresh outside the mode."""
    A = np.linspace(0.0, 1.0, N)
    M = A.reshape(SHAPE)
    I = np.arange(N)
    S = np.array(["abcd"] * N)
    return [
        ((), {}),
        ((A,), {}),
        ((A, A), {}),
        ((M,), {}),
        ((M, M), {}),
        ((N,), {}),
        ((SHAPE,), {}),
        ((), {"size": N}),
        ((1.0,), {"size": N}),
        ((1.0, 1.0), {"size": N}),
        ((0.5, 0.5, 0.5), {"size": N}),
        ((I,), {}),
        ((S,), {}),
        ((S, S), {}),
        ((A, 1), {}),
        ((A, 0.5), {}),
        ((M, 1), {}),
        ((A, A, A), {}),
        ((M, M, M), {}),
        ((SHAPE, np.float64), {}),
        ((N, 2), {}),
        ((N, 2, N), {}),
        ((N, N), {}),
        ((tmp,), {}),
    ]


def _callables() -> list:
    """(name, callable) for every public callable of the surveyed namespaces."""
    import numpy.ma as ma
    import numpy.rec as rec
    out = []
    mods = [(np, "np"), (np.linalg, "np.linalg"), (np.fft, "np.fft"), (np.random, "np.random"),
            (np.lib.stride_tricks, "np.lib.stride_tricks"), (rec, "np.rec"), (np.char, "np.char"),
            (np.strings, "np.strings")]
    for mod, prefix in mods:
        for name, fn in sorted(vars(mod).items()):
            if name.startswith("_") or not callable(fn) or inspect.ismodule(fn):
                continue
            if isinstance(fn, type) and not issubclass(fn, np.ndarray):
                continue  # dtypes, scalar types, errors, classes that hold no array data
            out.append((f"{prefix}.{name}", fn))
    for name in ("array", "masked_array", "zeros", "ones", "empty", "arange", "masked_all",
                 "masked_values", "masked_equal", "asarray", "identity", "indices",
                 "frombuffer", "fromfunction"):
        out.append((f"np.ma.{name}", getattr(ma, name)))
    rng = np.random.default_rng(0)
    rs = np.random.RandomState(0)
    for obj, prefix in ((rng, "Generator"), (rs, "RandomState")):
        for name in sorted(dir(obj)):
            fn = getattr(obj, name)
            if not name.startswith("_") and callable(fn) and name not in ("bit_generator",):
                out.append((f"{prefix}.{name}", fn))
    for name in ("mgrid", "ogrid"):
        obj = getattr(np, name)
        out.append((f"np.{name}[large]", lambda key, obj=obj: obj[0:SHAPE[0], 0:SHAPE[1]]))
    for name in ("r_", "c_"):
        obj = getattr(np, name)
        out.append((f"np.{name}[large]", lambda key, obj=obj: obj[0:N, 0:N]))
    out.append(("np.s_[large]", lambda key: np.s_[0:N]))
    out.append(("np.index_exp[large]", lambda key: np.index_exp[0:N]))
    return out


def _one(fn, recipes) -> tuple[str, int]:
    """(verdict, NumPy bytes at the peak) of the first recipe the signature accepts."""
    last = "no-recipe"
    for args, kwargs in recipes:
        signal.setitimer(signal.ITIMER_REAL, 3.0)
        peak = 0
        try:
            with numpy_tracing():
                base = tracemalloc.get_traced_memory()[0]
                tracemalloc.reset_peak()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        with ft.FakeMode():
                            r = fn(*args, **kwargs)
                    verdict = "ok"
                    if isinstance(r, np.ndarray) and not ft.is_fake(r):
                        verdict = "real-result"
                    del r
                except TypeError as e:
                    verdict = "TypeError"
                    last = f"TypeError: {e}"[:80]
                except (MemoryError, _Timeout) as e:
                    verdict = type(e).__name__
                except (ft.UnsupportedOperationError, ft.DataDependentError) as e:
                    verdict = type(e).__name__
                except Exception as e:  # NumPy's error for these arguments
                    verdict = f"raised {type(e).__name__}"
                peak = tracemalloc.get_traced_memory()[1] - base
        except _Timeout:
            verdict = "_Timeout"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if verdict == "TypeError" and peak < THRESHOLD:
            continue
        return verdict, peak
    return last, 0


def survey() -> dict:
    signal.signal(signal.SIGALRM, _alarm)
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "data.bin")
    with open(path, "wb") as f:
        f.write(b"\0" * (N * 8))
    recipes = _recipes(path)
    out = {}
    for name, fn in _callables():
        if name in SKIP:
            continue
        print(name, file=sys.stderr, flush=True)
        if name.endswith("]"):
            rs = [((None,), {})]
        elif name in ("np.memmap", "np.fromfile", "np.rec.fromfile"):
            rs = [((path,), {})]
        else:
            rs = recipes
        verdict, peak = _one(fn, rs)
        alloc = peak >= THRESHOLD or verdict == "MemoryError"
        out[name] = {"verdict": verdict, "peak": peak, "alloc": alloc}
    return out


if __name__ == "__main__":
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (6 * 2 ** 30, hard))
    json.dump(survey(), sys.stdout, indent=0, sort_keys=True)
