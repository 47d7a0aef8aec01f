"""NumPy entry points written in Python that build arrays from Python values (``np.mgrid``,
``np.ogrid``, ``np.r_``, ``np.c_``, ``np.fromfunction``, ``np.rec.fromarrays``, ...).

Their code reaches NumPy's factories through module-internal names (``_nx.arange``,
``indices``, ``array``) that the namespace patches do not cover, so inside a mode they would
allocate real arrays. In a FakeMode (called from the program, not from NumPy's own code)
each runs as a copy of NumPy's own function whose module globals resolve to the patched
namespace: the first arrays are fakes, and every later step reaches the mode through NumPy's
protocols, so the steps, their temporaries and their frees are NumPy's own, one op each.

A constructor of a Python ndarray subclass (``recarray``, ``memmap``, ``matrix``) is
patched at ``__new__``: in a mode it dispatches to its kernel, whose fake (a FakeArray, not
an instance of the subclass) has the metadata the real constructor gives.
"""
from __future__ import annotations

import functools
import sys
import types
from typing import Any, Callable

import numpy as np

from .. import _array
from .._dispatch import dispatch
from .._stack import paused
from . import patching

_REBOUND: dict[int, Callable] = {}
_STRING_SCALARS = (type(np.str_("")), type(np.bytes_(b"")))  # the classes, not their patches
# np.NAME functions with no kernel whose Python code builds arrays from Python values, or
# computes with ufuncs and ndarray methods on its (real) arguments
PYTHON_ENTRIES = ("fromfunction", "bmat", "asmatrix", "isposinf", "isneginf", "fix",
                  # np.nonzero's composites: their lengths are bounded sizes (faketensor/_sizes.py)
                  "flatnonzero", "argwhere", "extract",
                  # the distinct values: _unique1d's masks make the bounded sizes
                  "unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
                  "intersect1d", "union1d", "setdiff1d", "setxor1d")
_REBOUND_INTERSECT: list = [None]  # np.intersect1d's rebound copy (under its wrapper)
_UNIQUE_USERS = ("unique", "unique_values", "unique_counts", "unique_inverse", "unique_all")


class _AnyArrayMeta(type(np.ndarray)):  # type: ignore[misc]  # a metaclass computed at runtime
    """``isinstance(x, N.ndarray)`` in rebound code: true of fakes too (NumPy's Python code
    takes its ndarray branch for them, as for the arrays they stand for)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, (np.ndarray, _array.FakeArray))


class _AnyArray(np.ndarray, metaclass=_AnyArrayMeta):
    """``N.ndarray`` as rebound code sees it (see _AnyArrayMeta)."""


_CHARARRAY_TYPE: Any = type(np.char.chararray)  # the metaclass, computed at runtime


class _AnyCharArrayMeta(_CHARARRAY_TYPE):
    """``isinstance(x, chararray)`` in rebound code: true of FakeCharArrays too."""

    def __instancecheck__(cls, obj: Any) -> bool:
        from .._chararray import FakeCharArray
        return isinstance(obj, (np.char.chararray, FakeCharArray))


class _AnyCharArray(np.char.chararray, metaclass=_AnyCharArrayMeta):
    """``chararray`` as rebound code sees it: fakes that are chararrays are its instances,
    and ``x.view(chararray)`` of a fake makes a FakeCharArray (faketensor/_chararray.py)."""


class _PatchedModule:
    """A NumPy module as rebound code sees it: attributes with a namespace patch resolve to
    the patch, ``ndarray`` to a class fakes are instances of, the rest to the module's own."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        if name == "ndarray":
            return _AnyArray
        value = getattr(self._module, name)
        return _patched_value(value)


def _patched_value(value: Any) -> Any:
    if value is np.char.chararray:
        return _AnyCharArray
    if value is np.ndarray:  # ``from .numeric import ndarray`` (defchararray): as N.ndarray
        return _AnyArray
    if any(value is t for t in _STRING_SCALARS):  # defchararray's ``issubclass(obj.dtype.type, str_)``
        return value
    if isinstance(value, types.ModuleType) and value.__name__.split(".")[0] == "numpy":
        return _PatchedModule(value)
    try:
        return patching.patched_or_self(value)
    except TypeError:
        return value


def rebound(fn: Callable, names: dict | None = None) -> Callable:
    """A copy of NumPy's Python function fn whose module globals resolve to the patched
    namespace (each NumPy module a ``_PatchedModule``, each patched function its patch);
    ``names`` rebinds more of the copy's own globals (a private helper replaced by a rule)."""
    r = _REBOUND.get(id(fn))
    if r is None:
        g = dict(_patched_globals(fn.__globals__))
        # the program's code, not NumPy's, for the patches' caller checks (patching.from_numpy)
        g["__name__"] = f"<faketensor: {fn.__module__} in a mode>"
        r = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
        r.__kwdefaults__ = fn.__kwdefaults__
        _REBOUND[id(fn)] = r
        _REBOUND_GLOBALS[id(fn)] = g
    if names:
        _REBOUND_GLOBALS[id(fn)].update(names)  # the copy's own namespace, not NumPy's
    return r


_REBOUND_GLOBALS: dict = {}
#: (id(module globals), their size, how many patches exist) -> (the globals, their patched copy)
_PATCHED_GLOBALS: dict = {}


def _patched_globals(g: dict) -> dict:
    """A NumPy module's globals as its rebound functions see them (``_patched_value`` of
    each), worked out once per module while neither they nor the patches change: the ~85
    functions rebound at ``import faketensor`` come from a dozen modules."""
    key = (id(g), len(g), patching.patch_count())
    hit = _PATCHED_GLOBALS.get(key)
    if hit is None or hit[0] is not g:
        out = {k: _patched_value(v) for k, v in g.items()}
        out["__builtins__"] = g["__builtins__"]
        hit = _PATCHED_GLOBALS[key] = (g, out)
    return hit[1]


def _fake_mode_of_program() -> Any:
    """The FakeMode at the bottom of the stack when the caller of the patched entry point is
    the program (not NumPy's or faketensor's own code), else None."""
    stack = patching.get_stack()
    if stack and stack[0]._is_fake_mode and not patching.from_numpy(sys._getframe(2)):
        return stack[0]
    return None


def _converted(x: Any, convert: Callable) -> Any:
    """x with real ndarrays (itself, or the items of a list or tuple) converted to fakes."""
    if isinstance(x, np.ndarray):
        return convert(x)
    t = type(x)
    if (t is tuple or t is list) and any(isinstance(v, np.ndarray) for v in x):
        return t(convert(v) if isinstance(v, np.ndarray) else v for v in x)
    return x


def python_entry(fn: Callable) -> Callable:
    """fn, run in a FakeMode as its ``rebound`` copy, real ndarray arguments converted
    through the mode's memo (see the module docstring); a function NumPy wraps for
    ``__array_function__`` runs its implementation (the mode is already chosen). The copy
    is made on the first call in a mode (``rebound`` keeps it): making the ~25 copies and
    their modules' patched globals was a tenth of ``import faketensor``."""
    impl = getattr(fn, "_implementation", fn)

    def patched(*args, **kwargs):
        if patching.get_stack():
            res = patching.host_call(fn, args, kwargs, sys._getframe(1))  # pandas' np.r_
            if res is not patching.DISPATCH:
                return res
        mode = _fake_mode_of_program()
        if mode is not None:
            conv = mode._convert
            args = tuple(_converted(a, conv) for a in args)
            kwargs = {k: _converted(v, conv) for k, v in kwargs.items()}
            return rebound(impl)(*args, **kwargs)
        return fn(*args, **kwargs)
    functools.update_wrapper(patched, fn)
    patching.mark_patch(patched)
    patching.record_patch(fn, patched)  # pickles by name, as the other patches
    if hasattr(fn, "_implementation"):  # the original, called with a fake, asks its argument
        _array.register_python_entry(fn, _entry_for_protocol(impl))
    return patched


def _entry_for_protocol(impl: Callable) -> Callable:
    """What ``FakeArray.__array_function__`` runs for the original of a python entry: the
    rebound copy of ``impl`` in a FakeMode (real ndarray arguments converted), else nothing
    (NOT_RUN)."""
    def run(args: tuple, kwargs: dict) -> Any:
        stack = patching.get_stack()
        if not (stack and stack[0]._is_fake_mode):
            if stack or not any(isinstance(a, _array.FakeArray) for a in (*args, *kwargs.values())):
                return _array.NOT_RUN
        r = rebound(impl)
        if not (stack and stack[0]._is_fake_mode):
            from .fake_mode import FakeMode
            from .._sizes import inherited
            with FakeMode(sizes=inherited()):  # fakes outside a mode: NumPy's code in one
                return r(*args, **kwargs)
        conv = stack[0]._convert
        args = tuple(_converted(a, conv) for a in args)
        kwargs = {k: _converted(v, conv) for k, v in kwargs.items()}
        return r(*args, **kwargs)
    return run


def _bmat_entry(fn: Callable) -> Callable:
    """np.bmat with a string: NumPy reads the names from its caller's frame, which is this
    wrapper's caller (the program's) here."""
    r = rebound(fn)

    def patched(obj, ldict=None, gdict=None):
        if isinstance(obj, str) and gdict is None:  # NumPy would read this wrapper's frame
            frame = sys._getframe(1)
            gdict = frame.f_globals
            ldict = frame.f_locals if ldict is None else ldict
        mode = _fake_mode_of_program()
        if mode is None:
            return fn(obj, ldict, gdict)
        return r(_converted(obj, mode._convert), ldict, gdict)
    functools.update_wrapper(patched, fn)
    patching.mark_patch(patched)
    patching.record_patch(fn, patched)
    return patched


def matrix_constructor(new: Callable) -> Callable:
    """``matrix.__new__`` (numpy/matrixlib/defmatrix.py) for fake data, or for any data the
    program gives inside a FakeMode: a FakeMatrix (faketensor/_matrix.py) made as NumPy makes
    the matrix: a view of an array (``data.view(matrix)``, finalized; a copy or astype when
    asked), or of the array ``N.array(data)`` makes of other data."""
    from .. import _matrix
    import warnings

    def patched(subtype, data, dtype=None, copy=True):
        mode = _fake_mode_of_program()
        fake = isinstance(data, _array.FakeArray)
        if mode is None and not fake:
            return new(subtype, data, dtype, copy)
        if subtype is not np.matrix:
            raise patching_unsupported("np.matrix", "a subclass of np.matrix")
        warnings.warn("the matrix subclass is not the recommended way to represent matrices "
                      "or deal with linear algebra (see https://docs.scipy.org/doc/numpy/user/"
                      "numpy-for-matlab-users.html). Please adjust your code to use regular "
                      "ndarray.", PendingDeprecationWarning, stacklevel=2)
        if mode is not None and isinstance(data, np.ndarray):
            data = mode._convert(data)
        if isinstance(data, _array.FakeArray):
            return _matrix.matrix_new(data, dtype, copy)
        if isinstance(data, str):
            from numpy.matrixlib.defmatrix import _convert_from_string
            data = _convert_from_string(data)
        arr = np.array(data, dtype=dtype, copy=None if not copy else True)
        if not isinstance(arr, _array.FakeArray):
            return new(subtype, data, dtype, copy)
        return _matrix.matrix_from_array(arr)
    functools.update_wrapper(patched, new)
    patching.mark_patch(patched)
    patching.keep_original(new)
    return patched


def chararray_constructor(new: Callable) -> Callable:
    """``chararray.__new__`` (defchararray.py) in a FakeMode: its kernel's fresh array
    (kernels/numpy/subclasses.py), made a FakeCharArray (faketensor/_chararray.py)."""
    from .._chararray import retype

    def patched(subtype, *args, **kwargs):
        if subtype is _AnyCharArray:
            subtype = np.char.chararray
        if patching.get_stack():
            res = patching.host_call(new, (subtype,) + args, kwargs, sys._getframe(1))
            if res is not patching.DISPATCH:
                return res
        if _fake_mode_of_program() is None:
            return new(subtype, *args, **kwargs)
        if subtype is not np.char.chararray:
            raise patching_unsupported("np.char.chararray", "a subclass of chararray")
        return retype(dispatch(new, (), (subtype,) + args, kwargs))
    functools.update_wrapper(patched, new)
    patching.mark_patch(patched)
    patching.keep_original(new)
    return patched


# chararray's own code that a FakeCharArray does not run: its construction, finalization
# and ``__array_wrap__`` (faketensor/_chararray.py does what they do), element access
_CHARARRAY_NATIVE = frozenset({"__new__", "__array_wrap__", "__array_finalize__",
                               "__getitem__"})


def install_chararray_methods() -> None:
    """The Python methods of ``np.char.chararray`` (comparisons, ``+``, ``*``, ``%``, the
    string methods, ``argsort``) on FakeCharArray, as NumPy's code run against the patched
    namespace: each makes the calls the real method makes, on the fake."""
    from .._chararray import FakeCharArray
    for name, fn in vars(np.char.chararray).items():
        if name in _CHARARRAY_NATIVE or not isinstance(fn, types.FunctionType):
            continue
        mine = FakeCharArray.__dict__.get(name)
        if mine is None or getattr(mine, "_ft_rebound", False) or getattr(mine, "_ft_ndarray",
                                                                          False):
            method = rebound(fn)
            setattr(method, "_ft_rebound", True)  # a mark on the function
            setattr(FakeCharArray, name, method)


def patching_unsupported(name: str, why: str) -> Exception:
    from .._errors import UnsupportedOperationError
    return UnsupportedOperationError(name, why)


def constructor(new: Callable) -> Callable:
    """A Python ndarray subclass's ``__new__``, dispatching in a FakeMode to the kernel
    registered for ``new``."""
    def patched(*args, **kwargs):
        if patching.get_stack():
            res = patching.host_call(new, args, kwargs, sys._getframe(1))
            if res is not patching.DISPATCH:
                return res
        if _fake_mode_of_program() is not None:
            return dispatch(new, (), args, kwargs)
        return new(*args, **kwargs)
    functools.update_wrapper(patched, new)
    patching.mark_patch(patched)
    patching.keep_original(new)
    return patched


def _has_fake(obj: Any) -> bool:
    if isinstance(obj, _array.FakeArray):
        return True
    if type(obj) in (list, tuple):
        return any(_has_fake(x) for x in obj)
    if type(obj) is dict:
        return any(_has_fake(x) for x in obj.values())
    return False


def fake_method(fn: Callable) -> Callable:
    """A Python method of a NumPy class (``vectorize._call_as_normal``) dispatching to the
    kernel registered for ``fn`` in a FakeMode, or outside one when a fake is among its
    arguments (its Python code would hand the fake to C code)."""
    def patched(self, *args, **kwargs):
        stack = patching.get_stack()
        if stack and stack[0]._is_fake_mode:
            return dispatch(fn, (), (self,) + args, kwargs)
        if _has_fake((args, kwargs)):
            return dispatch(fn, (_array.FakeArray,), (self,) + args, kwargs)
        return fn(self, *args, **kwargs)
    functools.update_wrapper(patched, fn)
    patching.mark_patch(patched)
    patching.keep_original(fn)
    return patched


# numpy.polynomial's evaluators: ``isinstance(x, np.ndarray) and tensor`` decides whether
# c gets a unit axis per dimension of x (numpy/polynomial/polynomial.py ``polyval``), so a
# fake x must take the ndarray branch, whoever calls (Polynomial.__call__ is NumPy's code)
POLY_VALS = (("polynomial", "polyval", "Polynomial"), ("chebyshev", "chebval", "Chebyshev"),
             ("legendre", "legval", "Legendre"), ("laguerre", "lagval", "Laguerre"),
             ("hermite", "hermval", "Hermite"), ("hermite_e", "hermeval", "HermiteE"))


def fake_aware(fn: Callable) -> Callable:
    """fn run as its ``rebound`` copy (``np.ndarray`` answering for fakes) when a fake is
    among its arguments, or in a FakeMode called from the program (real ndarray arguments
    converted); NumPy's own fn otherwise."""
    r = rebound(fn)

    def patched(*args, **kwargs):
        if _has_fake((args, kwargs)):
            return r(*args, **kwargs)
        mode = _fake_mode_of_program()
        if mode is not None:
            conv = mode._convert
            return r(*(_converted(a, conv) for a in args),
                     **{k: _converted(v, conv) for k, v in kwargs.items()})
        return fn(*args, **kwargs)
    functools.update_wrapper(patched, fn)
    patching.mark_patch(patched)
    patching.record_patch(fn, patched)
    return patched


def install_poly_vals() -> None:
    """numpy.polynomial's evaluators made fake-aware, once NumPy has loaded numpy.polynomial
    (lazily, on first use: modes/installer.py calls this then)."""
    import importlib
    for mod_name, name, cls_name in POLY_VALS:
        mod = importlib.import_module(f"numpy.polynomial.{mod_name}")
        fn = getattr(mod, name)
        if getattr(fn, "_ft_patch", False):
            continue
        p = fake_aware(fn)
        setattr(mod, name, p)
        cls = getattr(mod, cls_name)
        if cls.__dict__.get("_val") is not None:  # the class's staticmethod(polyval)
            type.__setattr__(cls, "_val", staticmethod(p))


def _set(owner: Any, name: str, value: Any) -> None:
    if isinstance(owner, type):
        type.__setattr__(owner, name, staticmethod(value) if name == "__new__" else value)
    else:
        setattr(owner, name, value)


class _Converter:
    """``_array_converter`` (a C class) as rebound _unique1d uses it: the arrays as given,
    results as they are (a fake is no ndarray subclass to wrap back into)."""

    def __init__(self, *arrays: Any) -> None:
        self.arrays = arrays

    def __iter__(self) -> Any:
        return iter(self.arrays)

    def wrap(self, arr: Any, **kwargs: Any) -> Any:
        return arr


def _known_values(x: Any) -> Any:
    """A fake's (or a real argument's) values when known (faketensor/_known.py), else None."""
    from .. import _known
    if type(x) is _array.FakeArray:  # (a masked array's values are not its data's)
        return _known.real(x) if _known.has_values(x) else None
    if (type(x) in (list, tuple, np.ndarray)) and not _has_fakes(x):
        with paused():
            return np.asarray(x)
    return None


def _has_fakes(x: Any) -> bool:
    if isinstance(x, _array.FakeArray):
        return True
    return isinstance(x, (list, tuple)) and any(_has_fakes(v) for v in x)


# the op of a size np.unique made of unknown floating-point values (see ``nan_read``)
NO_NAN_OP = "np.unique, assuming no NaN"


def nan_read(ar: Any, args: tuple, kwargs: dict) -> bool:
    """Whether _unique1d of the fake ``ar`` would read a value: with ``equal_nan`` (the
    default) its sorting path asks ``np.isnan(aux[-1])`` of floating-point, complex and
    datetime values. The count is ``1 <= k <= n`` whatever the answer; unknown values are
    assumed not NaN (kernels/numpy/arraysetops.py ``unique_nan_check``), and the size says
    so."""
    from numpy.lib import _arraysetops_impl as impl
    from .._numpy_version import UNIQUE_HASH
    if not isinstance(ar, _array.FakeArray) or ar.dtype.kind not in "cfmM" or not ar.size:
        return False
    if not kwargs.get("equal_nan", True):
        return False
    optional = any(args[:3]) or any(kwargs.get(k) for k in ("return_index", "return_inverse",
                                                           "return_counts"))
    if optional or not UNIQUE_HASH:
        return True
    with paused():  # the hash path takes this dtype, or NumPy sorts
        return getattr(impl, "_unique_hash")(np.zeros(1, ar.dtype)) is NotImplemented


class _UniqueNumpy(_PatchedModule):
    """``np`` as rebound _unique1d sees it: ``np.isnan`` of a 0-d fake (its NaN check,
    ``np.isnan(aux[-1])``) is the ``unique_nan_check`` op, which answers without stopping
    and charges what isnan of a NumPy scalar allocates."""

    def __getattr__(self, name: str) -> Any:
        if name == "isnan":
            return _unique_isnan
        return super().__getattr__(name)


def _unique_isnan(x: Any, *args: Any, **kwargs: Any) -> Any:
    if not args and not kwargs and isinstance(x, _array.FakeArray) and x.ndim == 0:
        return _NAN_CHECK[0](x)
    return _patched_value(np.isnan)(x, *args, **kwargs)


def to_kernel(op: Callable) -> Callable:
    """A callable that hands a call on fakes to ``op``'s kernel through the mode stack: a
    user mode above the FakeMode (the ``%%faketensor`` magic's) gets this callable as
    ``func``, and calling it goes on down to the FakeMode; ``op`` itself (a C function, or
    a Python one on real values) would never reach it."""
    def call(*args: Any, **kwargs: Any) -> Any:
        stack = patching.get_stack()
        if stack and not stack[-1]._is_fake_mode:
            return dispatch(call, (), args, kwargs)
        return dispatch(op, (_array.FakeArray,), args, kwargs)
    functools.update_wrapper(call, op)
    return call


_NAN_CHECK: list = [None]  # to_kernel(unique_nan_check), made at install


def _install_unique() -> None:
    """_unique1d rebound for the unique functions: the counts its masks make are the
    distinct values of its argument (``1 <= k <= n``, the same size for the same unwritten
    array: faketensor/_sizes.py ``counting``), and its one C call on the values,
    ``_unique_hash`` (NumPy >= 2.3), reaches the mode (kernels/numpy/arraysetops.py)."""
    from numpy.lib import _arraysetops_impl as impl
    from .._numpy_version import UNIQUE_HASH
    from .. import _sizes
    from ..kernels.numpy.arraysetops import unique_nan_check
    _NAN_CHECK[0] = to_kernel(unique_nan_check)
    u1_orig = getattr(impl, "_unique1d")
    u1 = rebound(u1_orig, {"np": _UniqueNumpy(np)})
    if UNIQUE_HASH:
        real_hash = getattr(impl, "_unique_hash")
        hash_kernel = to_kernel(real_hash)

        def unique_hash(ar: Any, **kwargs: Any) -> Any:
            # kwargs: ``equal_nan`` from NumPy 2.4 on (UNIQUE_HASH_EQUAL_NAN), none on 2.3
            if not isinstance(ar, _array.FakeArray):
                return real_hash(ar, **kwargs)
            with paused():  # whether the dtype has a hash path: asked of one element
                if real_hash(np.zeros(1, ar.dtype), **kwargs) is NotImplemented:
                    return NotImplemented
            return hash_kernel(ar, **kwargs)
        rebound(u1_orig, {"_unique_hash": unique_hash, "_array_converter": _Converter})

    def unique1d(ar: Any, *args: Any, **kwargs: Any) -> Any:
        vals = _known_values(ar)
        exact = None
        op = "np.unique"
        if isinstance(ar, _array.FakeArray) and ar.dtype.itemsize == 0 and ar.size:
            exact = 1  # rows of no elements (unique along an axis of an empty array): all equal
        elif vals is not None:  # known values: the count itself
            with paused():
                exact = np.unique(vals.ravel(), equal_nan=kwargs.get("equal_nan", True)).size
        elif nan_read(ar, args, kwargs):  # the NaN check assumes no NaN (_UniqueNumpy)
            op = NO_NAN_OP
        with _sizes.counting(1, op, ar, "unique", exact=exact):
            return u1(ar, *args, **kwargs)
    for name in _UNIQUE_USERS:
        fn = getattr(impl, name)
        rebound(getattr(fn, "_implementation", fn), {"_unique1d": unique1d})
    # setdiff1d's _isin: the isin rule (its table path reads the values' range)
    rebound(getattr(impl.setdiff1d, "_implementation"), {"_isin": impl.isin})
    inter = rebound(getattr(impl.intersect1d, "_implementation"))
    _REBOUND_INTERSECT[0] = inter

    def intersect1d(ar1: Any, ar2: Any, *args: Any, **kwargs: Any) -> Any:
        hi = min(np.size(ar1), np.size(ar2))  # common values: at most the shorter input's
        v1, v2 = _known_values(ar1), _known_values(ar2)
        exact = None
        if v1 is not None and v2 is not None:
            with paused():
                exact = impl.intersect1d(v1, v2).size
        with _sizes.counting(0, "np.intersect1d", None, "intersect", hi, exact):
            return inter(ar1, ar2, *args, **kwargs)
    _REBOUND[id(getattr(impl.intersect1d, "_implementation"))] = intersect1d  # python_entry's


def _refresh_unique() -> None:
    """After the entries are patched: the set functions' rebound globals see the patches
    (``unique`` in ``setdiff1d`` is the patched np.unique), the overrides above kept."""
    from numpy.lib import _arraysetops_impl as impl
    keep = ("_unique1d", "_isin", "_unique_hash", "_array_converter")
    for name in (*_UNIQUE_USERS, "intersect1d", "union1d", "setdiff1d", "setxor1d"):
        fn = getattr(impl, name)
        fn = getattr(fn, "_implementation", fn)
        g = rebound(fn).__globals__ if name != "intersect1d" else None
        for target in ([g] if g is not None else []) + (
                [_REBOUND_INTERSECT[0].__globals__] if name == "intersect1d" else []):
            for k, v in fn.__globals__.items():
                if k not in keep and k != "__name__" and k != "__builtins__":
                    target[k] = _patched_value(v)


def install() -> None:
    """Patch the entry points (once, from ``installer.install``)."""
    from numpy.lib import _index_tricks_impl as it
    import numpy._core.records as rec
    rec_ns = np.rec
    for owner, name in ((it.nd_grid, "__getitem__"), (it.AxisConcatenator, "__getitem__")):
        fn = owner.__dict__[name]
        if not getattr(fn, "_ft_patch", False):
            _set(owner, name, python_entry(fn))
    _install_unique()
    for name in PYTHON_ENTRIES:
        fn = getattr(np, name)
        if not getattr(fn, "_ft_patch", False):
            setattr(np, name, (_bmat_entry if name == "bmat" else python_entry)(fn))
    _refresh_unique()
    for name in ("array", "asarray"):  # a chararray view of the converted array: refused
        fn = getattr(np.char, name)
        if not getattr(fn, "_ft_patch", False):
            setattr(np.char, name, python_entry(fn))
    for name in ("fromarrays", "array", "fromstring", "fromfile"):
        fn = getattr(rec, name)
        if getattr(fn, "_ft_patch", False):
            continue
        p = python_entry(fn)
        setattr(rec, name, p)
        if getattr(rec_ns, name, None) is fn:
            setattr(rec_ns, name, p)
    from . import iterators
    iterators.install()  # np.broadcast, np.nditer
    vec = np.vectorize.__dict__["_call_as_normal"]
    if not getattr(vec, "_ft_patch", False):  # np.vectorize(f, otypes=...)(fakes)
        _set(np.vectorize, "_call_as_normal", fake_method(vec))
    for cls in (np.recarray, np.memmap, np.matrix, np.char.chararray):
        new = cls.__dict__["__new__"]
        new = getattr(new, "__func__", new)
        if not getattr(new, "_ft_patch", False):
            make = (matrix_constructor if cls is np.matrix else chararray_constructor
                    if cls is np.char.chararray else constructor)
            _set(cls, "__new__", make(new))
    install_chararray_methods()
