"""SciPy in a mode: scipy.special's ufuncs, scipy.fft and scipy.linalg on fakes, and a clear
error from every other SciPy function a fake reaches.

Installed module by module as SciPy imports them (the import hook in modes/patching.py
calls ``imported`` after each ``scipy.*`` module's code; modules imported before
faketensor are patched by ``install``). Three kinds of patch:

- scipy.special's ufuncs are NumPy ufuncs: ``FakeArray.__array_ufunc__`` and the generic
  ufunc kernel (kernels/numpy/umath.py) already resolve their loops from ``ufunc.types``;
  nothing is patched for them.
- SciPy's compiled cores with a rule in kernels/scipy/ (scipy.fft's pypocketfft
  transforms): SciPy's own Python layer runs on the fakes through NumPy's kernels and the
  core call goes to the rule when a fake is among its arguments (``core_patch``).
- the public scipy.linalg functions with a rule (kernels/scipy/linalg.py) go to it like a
  NumPy function with a kernel (``kernel_patch``).
- every other public SciPy function (``guard_patch``): run as it is; when a fake or a mode
  is involved and SciPy's code fails on it (its compiled code, Cython memoryviews or
  ``__array__`` got a fake), the error becomes ``UnsupportedOperationError`` naming the
  SciPy function the program called (the outermost guarded call), chained to the cause.
  DataDependentError keeps its type and gains the name of that SciPy function (the
  function read values).
"""
from __future__ import annotations

import functools
import sys
import threading
import types
from typing import Any

from .. import _array
from .._dispatch import STACK, dispatch
from .._errors import DataDependentError, UnsupportedOperationError
from .._numpy_version import scipy_fft_core
from .._stack import LIVE, paused
from . import patching

_FAKE = _array.FakeArray
_LIVE = LIVE
_get_stack = STACK.get

_PATCHED: dict[int, Any] = {}
patching.add_patch_table(_PATCHED)
_done: set = set()
_lock = threading.RLock()


def _fake_among(args: tuple, kwargs: dict) -> bool:
    """A fake among the arguments, or among the items of a list or tuple argument."""
    for a in (*args, *kwargs.values()):
        t = type(a)
        if t is _FAKE:
            return True
        if (t is list or t is tuple) and any(type(x) is _FAKE for x in a):
            return True
    return False


def _from_library(frame: Any) -> bool:
    """True when the frame runs NumPy's, SciPy's or faketensor's own Python code."""
    name = frame.f_globals.get("__name__") or ""
    return name.split(".", 1)[0] in ("numpy", "scipy", "faketensor")


def _remember(fn: Any, w: Any) -> Any:
    functools.update_wrapper(w, fn)
    setattr(w, "_ft_patch", True)
    _PATCHED[id(fn)] = w
    patching.keep_original(fn)  # keeps the id stable
    return w


def core_patch(fn: Any) -> Any:
    """A SciPy compiled core with a rule: the rule when a fake is among its arguments
    (SciPy's Python layer hands it the fakes NumPy's kernels made), else the real core."""
    w = _PATCHED.get(id(fn))
    if w is not None:
        return w

    def patched(*args, **kwargs):
        if _fake_among(args, kwargs):
            return dispatch(fn, (_FAKE,), args, kwargs)
        return fn(*args, **kwargs)
    return _remember(fn, patched)


def kernel_patch(fn: Any) -> Any:
    """A public SciPy function with a rule: NumPy's kernel patch (modes/patching.py) with
    SciPy's frame rule: inside a FakeMode the rule runs when a fake is among the arguments
    or the program called it (real arguments become fakes, as for NumPy's functions);
    SciPy's own calls with real arrays run for real. Outside any mode, fakes go to the
    rule too (SciPy has no dispatch protocol)."""
    w = _PATCHED.get(id(fn))
    if w is not None:
        return w
    w = patching.kernel_patch(fn, from_library=_from_library, fake_among=_fake_among,
                              table=_PATCHED)
    setattr(w, "_ft_patch", True)
    return w


class _Depth(threading.local):
    n = 0


_DEPTH = _Depth()
# the messages of errors SciPy's compiled code raises when handed a fake ("No matching
# signature found": a Cython fused function's dispatch, which takes arrays by their buffer)
_FAKE_MARKS = ("FakeArray", "fake array", "incompatible function arguments",
               "No matching signature found")


def _about_fake(e: BaseException) -> bool:
    if isinstance(e, NotImplementedError):  # FakeArray.__array__: no data to copy out
        return True
    if isinstance(e, (TypeError, ValueError, AttributeError, RuntimeError, BufferError)):
        msg = str(e)
        return any(m in msg for m in _FAKE_MARKS)
    return False


def qualname(fn: Any, module: str) -> str:
    return f"{module}.{getattr(fn, '__name__', type(fn).__name__)}"


def guard_patch(fn: Any, name: str) -> Any:
    """A public SciPy function with no rule (see the module docstring)."""
    w = _PATCHED.get(id(fn))
    if w is not None:
        return w

    def patched(*args, **kwargs):
        if not (_LIVE and _get_stack()) and not _fake_among(args, kwargs):
            return fn(*args, **kwargs)
        return _guarded(fn, name, args, kwargs)
    return _remember(fn, patched)


def _guarded(fn: Any, name: str, args: tuple, kwargs: dict) -> Any:
    """``fn(*args, **kwargs)`` with the outermost guarded call's errors naming ``name``."""
    _DEPTH.n += 1
    try:
        return fn(*args, **kwargs)
    except DataDependentError as e:  # the function read values: say which one did
        if _DEPTH.n > 1 or str(e).startswith(name):
            raise
        raise type(e)(f"{name}: {e}") from e
    except UnsupportedOperationError as e:
        if _DEPTH.n > 1 or getattr(e, "func", None) == name:
            raise
        raise UnsupportedOperationError(name, f"it reached {e.func if isinstance(e.func, str) else _op(e.func)} "
                                        f"({e})") from e
    except Exception as e:
        if _DEPTH.n > 1 or not _about_fake(e):
            raise
        raise UnsupportedOperationError(
            name, f"no rule for it; SciPy's implementation needs the data "
            f"({type(e).__name__}: {str(e).splitlines()[0][:120]})") from e
    finally:
        _DEPTH.n -= 1


_GUARDED_CLASSES: set = set()


def guard_class(cls: type, name: str) -> None:
    """A public SciPy class (``scipy.sparse.csr_array``): its constructor guarded as a public
    function is, under the class's public name (once per class, where it is defined)."""
    if id(cls) in _GUARDED_CLASSES or issubclass(cls, BaseException):
        return
    init = cls.__init__
    if not isinstance(init, types.FunctionType) or getattr(init, "_ft_class", None) is cls:
        return
    _GUARDED_CLASSES.add(id(cls))

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if not (_LIVE and _get_stack()) and not _fake_among(args, kwargs):
            return init(self, *args, **kwargs)
        return _guarded(init, name, (self, *args), kwargs)
    setattr(__init__, "_ft_class", cls)
    try:
        setattr(cls, "__init__", __init__)
    except (TypeError, AttributeError):  # an extension type
        _GUARDED_CLASSES.discard(id(cls))


def _op(func: Any) -> str:
    from .._errors import op_name
    return op_name(func)


def _public(modname: str) -> bool:
    parts = modname.split(".")
    return parts[0] == "scipy" and not any(p.startswith("_") or p == "tests" for p in parts)


def _guardable(obj: Any) -> bool:
    if isinstance(obj, types.FunctionType) or type(obj).__name__ == "_Function":  # uarray
        return (getattr(obj, "__module__", "") or "").startswith("scipy")
    return isinstance(obj, functools.partial)


def imported(module: Any) -> None:
    """Patch one SciPy module (once), after its code ran."""
    name = module.__name__
    with _lock:
        if name in _done:
            return
        _done.add(name)
        if name == FFT_CORE.package:
            _patch_fft_core(module)
        if name == "scipy.linalg":
            _patch_linalg(module)
        if name == "scipy.sparse":
            from . import sparse
            sparse.install(module)
        if name == "scipy.sparse.linalg":
            from . import sparse
            sparse.install_linalg(module)
        if name == "scipy.spatial._qhull":
            _patch_qhull(module)
        if _public(name):
            for attr, obj in list(vars(module).items()):
                if attr.startswith("_") or getattr(obj, "_ft_patch", False):
                    continue
                if _guardable(obj):
                    setattr(module, attr, _named(guard_patch(obj, f"{name}.{attr}"), name, attr))
                elif (isinstance(obj, type) and (obj.__module__ or "").startswith("scipy")
                      and obj.__name__ == attr):
                    guard_class(obj, f"{name}.{attr}")


def _named(w: Any, module: str, attr: str) -> Any:
    """The patch pickles by the public name it is installed under (pickle finds it there:
    a process without faketensor unpickles SciPy's own function)."""
    if w.__dict__.get("_ft_public") is None:
        w.__module__, w.__qualname__, w._ft_public = module, attr, True
    return w


# scipy.fft's compiled transforms with a rule (kernels/scipy/fft.py): pypocketfft before
# SciPy 1.18, pyduccfft from 1.18 (the same names and signatures)
FFT_CORE = scipy_fft_core()
POCKETFFT = ("c2c", "r2c", "c2r", "r2r_fftpack", "dct", "dst")


def _patch_fft_core(pkg: Any) -> None:
    """The core's transforms become rules; realtransforms' partials bound them at import,
    so they are rebuilt over the patched cores (here and in the backend's namespace);
    ``_datacopied`` learns that a fake is an array."""
    from ..kernels.scipy import fft  # noqa: F401  (registers the rules)
    pfft = getattr(pkg, FFT_CORE.module)
    for name in POCKETFFT:
        fn = getattr(pfft, name)
        if not getattr(fn, "_ft_patch", False):
            setattr(pfft, name, core_patch(fn))
    rt = sys.modules[f"{FFT_CORE.package}.realtransforms"]
    for attr in ("dct", "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn"):
        old = getattr(rt, attr)
        new: Any = functools.partial(old.func, old.args[0], core_patch(old.args[1]))
        new.__name__ = getattr(old, "__name__", attr)
        setattr(rt, attr, new)
        if getattr(pkg, attr, None) is old:
            setattr(pkg, attr, new)
    for modname in (f"{FFT_CORE.package}.basic", f"{FFT_CORE.package}.realtransforms"):
        mod = sys.modules[modname]
        setattr(mod, "_datacopied", _datacopied(getattr(mod, "_datacopied")))


def _datacopied(orig: Any) -> Any:
    def datacopied(arr: Any, original: Any) -> bool:
        """scipy.fft's helper: ``arr`` (from asarray(original)) is a copy. A fake
        ``original`` is an array, not an array-like with ``__array__``."""
        if type(original) is _FAKE:
            return arr is not original and getattr(arr, "base", None) is None
        return orig(arr, original)
    setattr(datacopied, "_ft_patch", True)
    return datacopied


# scipy.linalg's functions with a rule (kernels/scipy/linalg.py registers these names; the
# rules module may still be importing when scipy.linalg is: the patch finds the rule at
# call time)
LINALG = ("solve", "inv", "det", "lu", "lu_factor", "lu_solve", "qr", "svd", "svdvals", "eig",
          "eigvals", "eigh", "eigvalsh", "cholesky", "cho_factor", "cho_solve", "lstsq", "norm",
          "expm", "solve_triangular", "pinv")


def _patch_linalg(module: Any) -> None:
    from ..kernels.scipy import linalg  # noqa: F401  (registers the rules)
    for attr in LINALG:
        fn = getattr(module, attr, None)
        if fn is not None and not getattr(fn, "_ft_patch", False):
            setattr(module, attr, _named(kernel_patch(fn), module.__name__, attr))


# Qhull's classes: their constructors hand the array ``np.ascontiguousarray`` made (a fake,
# in a mode) to the compiled ``_Qhull``, whose argument check fails before its lock exists
# and whose deallocation then takes that NULL lock: the interpreter dies (SciPy 1.17
# _qhull.pyx ``_Qhull.__dealloc__``; ``_Qhull(b"d", "x", b"")`` crashes without any fake).
# Their answers (how many simplices, regions, facets) depend on the points' values anyway.
QHULL = ("Delaunay", "ConvexHull", "Voronoi", "HalfspaceIntersection")


def _patch_qhull(module: Any) -> None:
    """Qhull's constructors given a fake raise DataDependentError before SciPy's compiled
    code sees it (see ``QHULL``)."""
    for attr in QHULL:
        cls = getattr(module, attr, None)
        init = None if cls is None else cls.__dict__.get("__init__")
        if init is None or getattr(init, "_ft_patch", False):
            continue
        setattr(cls, "__init__", _refusing_init(init, f"scipy.spatial.{attr}"))


def _refusing_init(init: Any, name: str) -> Any:
    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if _fake_among(args, kwargs):
            raise DataDependentError(
                f"{name}: Qhull's result (how many simplices, facets or regions) depends on "
                "the values of the points, which a fake array does not have")
        if _LIVE and _get_stack():  # real points: Qhull runs on them for real (its
            with paused():          # compiled code would hand the mode its points)
                return init(self, *args, **kwargs)
        init(self, *args, **kwargs)
    setattr(__init__, "_ft_patch", True)
    return __init__


def install() -> None:
    """Patch the SciPy modules already imported (the import hook gets the later ones)."""
    for name in sorted(n for n in list(sys.modules) if n == "scipy" or n.startswith("scipy.")):
        mod = sys.modules.get(name)
        if mod is not None:
            imported(mod)
