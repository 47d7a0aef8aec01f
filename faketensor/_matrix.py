"""``np.matrix`` of fakes: ``FakeMatrix``, a FakeArray that behaves as NumPy's matrix class
(numpy/matrixlib/defmatrix.py), whose Python code this module follows line by line.

A FakeMatrix never reaches a kernel: every operation runs on a plain FakeArray view of it
(``_plain``), and the array results are made matrices as NumPy makes them, by
``__array_finalize__``: a result of NumPy's own making is a matrix from the start, so the
fake is retyped in place and its shape set to 2-d as ``matrix.__array_finalize__`` sets it
(``(1, 1)`` for 0-d, ``(1, n)`` for 1-d, the axes longer than 1 for more). So ``*`` is
``np.dot``, ``**`` ``matrix_power``, reductions keep two dimensions (``_collapse`` /
``_align``), ``m[i]`` follows ``matrix.__getitem__``, ``.A`` / ``.A1`` / ``.H`` / ``.I`` /
``.T`` are defmatrix's. Ufuncs and the ndarray methods listed in ``_KEPT`` keep the
subclass; NumPy functions other than those in ``_FUNCTIONS`` refuse a FakeMatrix with
UnsupportedOperationError (each decides the result type its own way), as do the ndarray
methods not listed.
"""
from __future__ import annotations

from typing import Any, Callable, cast

import numpy as np

from ._array import BINARY, COMPARE, UNARY, DISPATCHED_METHODS, FakeArray, make_fake, rebuild
from ._errors import UnsupportedOperationError
from ._storage import SCALAR


class FakeMatrix(FakeArray):
    """A fake ``np.matrix``: 2-d, ``*`` as matrix product (numpy/matrixlib/defmatrix.py)."""

    __slots__ = ()
    __array_priority__ = 10.0

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """The ufunc on plain views; its new arrays become matrices (ufuncs allocate their
        outputs with the subtype of highest ``__array_priority__``); ``out=`` arrays stay
        what they are."""
        pairs: dict = {}
        ins, keep = ufunc_operands_of(inputs, kwargs, pairs, FakeMatrix)
        if method != "__call__":
            raise UnsupportedOperationError(f"{ufunc.__name__}.{method}",
                                            "np.matrix operands (ufunc methods)")
        return _wrap(getattr(ufunc, method)(*ins, **kwargs), pairs, keep, _WRAP)

    def __reduce__(self) -> tuple:
        """Pickled as a FakeArray is (``FakeArray.__reduce__``), rebuilt as a matrix (as
        np.matrix pickles with its class)."""
        return (rebuild_matrix, FakeArray.__reduce__(self)[1])

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        rule = _FUNCTIONS.get(func)
        if rule is None:
            name = getattr(func, "__name__", repr(func))
            raise UnsupportedOperationError(f"np.{name}", "np.matrix operands (only ufuncs, "
                                            "np.dot and np.concatenate keep the matrix class)")
        return rule(*args, **kwargs)

    # --- defmatrix.py ------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        """matrix.__getitem__: ndarray indexing (no finalize), a 0-d result as its scalar,
        a 1-d one made a row (or a column when the second index is a scalar)."""
        pairs: dict = {}
        out = _plain(self, pairs)[_plain(index, pairs)]
        if type(out) is not FakeArray or out.storage._tracker is SCALAR:
            return out
        if out.base is None:  # a fancy index: NumPy wraps the ndarray it made
            out = plain_view(out)
        retype_matrix(out, finalize=False)
        if out.ndim == 0:
            return _plain(out, {})[()]
        if out.ndim == 1:
            sh = out.shape[0]
            try:
                n = len(index)
            except Exception:  # noqa: BLE001  (defmatrix: any failure means 0)
                n = 0
            if n > 1 and np.isscalar(index[1]):
                _set_shape(out, (sh, 1))
            else:
                _set_shape(out, (1, sh))
        return out

    def __setitem__(self, index: Any, value: Any) -> None:
        _plain(self, {})[index] = _plain(value, {})

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, (np.ndarray, list, tuple, FakeArray)):
            return _dot(self, asmatrix(other))
        if np.isscalar(other) or not hasattr(other, "__rmul__"):
            return _dot(self, other)
        return NotImplemented

    def __rmul__(self, other: Any) -> Any:
        return _dot(other, self)

    def __imul__(self, other: Any) -> Any:
        self[:] = self * other
        return self

    def __pow__(self, other: Any) -> Any:
        pairs: dict = {}
        plain = _plain(self, pairs)
        res = np.linalg.matrix_power(plain, other)
        # n == 0: ``empty_like(a)`` (the subtype) filled with eye; otherwise matmul's wrap
        return _wrap(res, pairs, set(), _RETYPE if _is_zero(other) else _WRAP)

    def __ipow__(self, other: Any) -> Any:
        self[:] = self ** other
        return self

    def __rpow__(self, other: Any) -> Any:
        return NotImplemented

    def _align(self, axis: Any) -> Any:
        if axis is None:
            return self[0, 0]
        if axis == 0:
            return self
        if axis == 1:
            return self.transpose()
        raise ValueError("unsupported axis")

    def _collapse(self, axis: Any) -> Any:
        return self[0, 0] if axis is None else self

    def tolist(self) -> Any:
        return self.A.tolist()

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        return _method(self, "sum", axis, dtype, out, keepdims=True)._collapse(axis)

    def squeeze(self, axis: Any = None) -> Any:
        return _method(self, "squeeze", axis=axis)

    def flatten(self, order: Any = "C") -> Any:
        return _method(self, "flatten", order=order)

    def mean(self, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        return _method(self, "mean", axis, dtype, out, keepdims=True)._collapse(axis)

    def std(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0) -> Any:
        return _method(self, "std", axis, dtype, out, ddof, keepdims=True)._collapse(axis)

    def var(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0) -> Any:
        return _method(self, "var", axis, dtype, out, ddof, keepdims=True)._collapse(axis)

    def prod(self, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        return _method(self, "prod", axis, dtype, out, keepdims=True)._collapse(axis)

    def any(self, axis: Any = None, out: Any = None) -> Any:
        return _method(self, "any", axis, out, keepdims=True)._collapse(axis)

    def all(self, axis: Any = None, out: Any = None) -> Any:
        return _method(self, "all", axis, out, keepdims=True)._collapse(axis)

    def max(self, axis: Any = None, out: Any = None) -> Any:
        return _method(self, "max", axis, out, keepdims=True)._collapse(axis)

    def argmax(self, axis: Any = None, out: Any = None) -> Any:
        return _aligned(_method(self, "argmax", axis, out), axis)

    def min(self, axis: Any = None, out: Any = None) -> Any:
        return _method(self, "min", axis, out, keepdims=True)._collapse(axis)

    def argmin(self, axis: Any = None, out: Any = None) -> Any:
        return _aligned(_method(self, "argmin", axis, out), axis)

    def ptp(self, axis: Any = None, out: Any = None) -> Any:
        pairs: dict = {}
        res = _wrap(np.ptp(_plain(self, pairs), axis), pairs, set(), _WRAP)
        return res if axis is None else res._align(axis)

    @property
    def I(self) -> Any:  # noqa: E743  (defmatrix's name)
        m, n = self.shape
        pairs: dict = {}
        plain = _plain(self, pairs)
        inv = np.linalg.inv(plain) if m == n else np.linalg.pinv(plain)
        return asmatrix(_wrap(inv, pairs, set(), _WRAP))

    @property
    def A(self) -> Any:
        """``self.__array__()``: an ndarray view of the matrix."""
        return _plain(self, {})

    @property
    def A1(self) -> Any:
        return self.A.ravel()

    def ravel(self, order: Any = "C") -> Any:
        return _method(self, "ravel", order=order)

    @property
    def T(self) -> Any:
        return self.transpose()

    @property
    def H(self) -> Any:
        if issubclass(self.dtype.type, np.complexfloating):
            return self.transpose().conjugate()
        return self.transpose()

    def getT(self) -> Any:
        return self.T

    def getA(self) -> Any:
        return self.A

    def getA1(self) -> Any:
        return self.A1

    def getH(self) -> Any:
        return self.H

    def getI(self) -> Any:
        return self.I

    def __repr__(self) -> str:
        return "Fake" + super().__repr__().replace("FakeArray", "Matrix", 1)


def _is_zero(n: Any) -> bool:
    try:
        return int(n) == 0
    except (TypeError, ValueError):
        return False


def _aligned(res: Any, axis: Any) -> Any:
    """``res._align(axis)``; with axis None NumPy's argmax/argmin already gave the scalar
    ``self[0, 0]`` stands for."""
    return res if type(res) is FakeArray else res._align(axis)


# ndarray methods that keep the subclass (their new arrays are matrices, finalized)
_KEPT = ("astype", "clip", "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal",
         "fill", "repeat", "reshape", "round", "swapaxes", "take", "transpose", "view",
         "__copy__", "__deepcopy__")


def _kept(name: str) -> Callable:
    def meth(self: FakeMatrix, *args: Any, **kwargs: Any) -> Any:
        return _method(self, name, *args, **kwargs)
    meth.__name__ = name
    meth.__doc__ = f"ndarray.{name} on the matrix's plain view; new arrays made matrices."
    return meth


def _refused(name: str) -> Callable:
    def meth(self: FakeMatrix, *args: Any, **kwargs: Any) -> Any:
        raise UnsupportedOperationError(f"matrix.{name}", "not reproduced for np.matrix")
    meth.__name__ = name
    return meth


for _n in _KEPT:
    setattr(FakeMatrix, _n, _kept(_n))
for _n in DISPATCHED_METHODS:
    if _n not in FakeMatrix.__dict__:
        setattr(FakeMatrix, _n, _refused(_n))


def _ufunc_ops(ufunc: np.ufunc) -> tuple:
    def fwd(self: FakeMatrix, other: Any) -> Any:
        return ufunc(self, other)

    def rev(self: FakeMatrix, other: Any) -> Any:
        return ufunc(other, self)

    def inplace(self: FakeMatrix, other: Any) -> Any:
        return ufunc(self, other, out=(self,))
    return fwd, rev, inplace


for _n, _u in BINARY.items():
    if _n in ("mul", "pow"):
        continue
    _f, _r, _i = _ufunc_ops(_u)
    setattr(FakeMatrix, f"__{_n}__", _f)
    setattr(FakeMatrix, f"__r{_n}__", _r)
    setattr(FakeMatrix, f"__i{_n}__", _i)
for _n, _u in COMPARE.items():
    setattr(FakeMatrix, f"__{_n}__", _ufunc_ops(_u)[0])
for _n, _u in UNARY.items():
    setattr(FakeMatrix, f"__{_n}__", (lambda uf: lambda self: uf(self))(_u))
FakeMatrix.__hash__ = None  # type: ignore[assignment]  # unhashable, as np.matrix is


# --- views and retyping --------------------------------------------------------------------

def plain_view(f: FakeArray, shape: tuple | None = None, strides: tuple | None = None) -> FakeArray:
    """A plain fake viewing all of f (``f.view()``): base collapsed to the owner as NumPy does."""
    b = f._base
    base = f if (b is None or not isinstance(b, FakeArray)) else b
    v = make_fake(tuple(f.shape) if shape is None else shape, f.dtype,
                  tuple(f.strides) if strides is None else strides, f.storage, f.storage_offset,
                  base, f._writeable)
    if f._warn_on_write:
        object.__setattr__(v, "_warn_on_write", True)
    return v


def _set_shape(f: FakeArray, shape: tuple) -> None:
    """``self.shape = shape`` as defmatrix does it (a reshape that must not copy)."""
    from ._meta_setters import adopt
    from .kernels.registry import REGISTRY
    adopt(f, REGISTRY[("ndarray.reshape", "numpy")].fn(f, shape))
    object.__setattr__(f, "_cf", None)
    object.__setattr__(f, "_al", None)


def _finalize(m: FakeArray) -> None:
    """matrix.__array_finalize__: 2-d as is; more dimensions: the axes longer than 1 (a
    ValueError if more than two remain); 0-d: (1, 1); 1-d: (1, n)."""
    ndim = m.ndim
    if ndim == 2:
        return
    if ndim > 2:
        newshape = tuple(x for x in m.shape if x > 1)
        ndim = len(newshape)
        if ndim == 2:
            _set_shape(m, newshape)
            return
        if ndim > 2:
            raise ValueError("shape too large to be a matrix.")
    else:
        newshape = tuple(m.shape)
    if ndim == 0:
        _set_shape(m, (1, 1))
    elif ndim == 1:
        _set_shape(m, (1, newshape[0]))


MADE = [False]  # set once a FakeMatrix exists (the namespace patches then look for them)


def retype_matrix(f: FakeArray, finalize: bool = True) -> FakeMatrix:
    """f, made a matrix in place (a result NumPy allocates with the matrix subtype)."""
    MADE[0] = True
    object.__setattr__(f, "__class__", FakeMatrix)
    if finalize:
        _finalize(f)
    return cast("FakeMatrix", f)  # its class was just set


def rebuild_matrix(*payload: Any) -> FakeMatrix:
    """A pickled FakeMatrix: ``_array.rebuild``'s checked fake, made a matrix."""
    return retype_matrix(rebuild(*payload))


def as_matrix_view(f: FakeArray) -> FakeMatrix:
    """``f.view(matrix)``: a new view, finalized."""
    return retype_matrix(plain_view(f))


def plain_of(x: Any, pairs: dict, cls: type) -> Any:
    """A fake of subclass ``cls`` as a plain FakeArray view (remembered in ``pairs``); lists
    and tuples of them item by item; anything else as it is (matrix and chararray alike)."""
    if type(x) is cls:
        v = plain_view(cast(FakeArray, x))
        pairs[id(v)] = (v, x)
        return v
    if type(x) in (list, tuple) and any(type(i) is cls for i in x):
        return type(x)(plain_of(i, pairs, cls) for i in x)
    return x


def _plain(x: Any, pairs: dict) -> Any:
    return plain_of(x, pairs, FakeMatrix)


def ufunc_operands_of(inputs: tuple, kwargs: dict, pairs: dict, cls: type) -> tuple[tuple, set]:
    """A ufunc's operands with fakes of subclass ``cls`` as plain views (``plain_of``), its
    ``out=`` arrays too (``kwargs`` updated); returns (inputs, ids of the out= views, which
    stay what they are when the result is wrapped)."""
    ins = tuple(plain_of(x, pairs, cls) for x in inputs)
    out = kwargs.get("out")
    if out is None:
        return ins, set()
    outs = tuple(plain_of(o, pairs, cls) for o in (out if isinstance(out, tuple) else (out,)))
    kwargs["out"] = outs if isinstance(out, tuple) else outs[0]
    return ins, {id(o) for o in outs}


_WRAP, _RETYPE = "wrap", "retype"


NEW = object()  # as_it_was: a new plain fake, for the caller to make an instance of its class


def as_it_was(res: Any, pairs: dict, keep: set) -> Any:
    """A result computed on plain views, when it needs no new class: the subclass instance a
    view in ``pairs`` stands for, or ``res`` itself (not a fake, an ``out=`` array in
    ``keep``, a NumPy scalar); ``NEW`` for a new plain fake."""
    if type(res) is not FakeArray:
        return res
    got = pairs.get(id(res))
    if got is not None and got[0] is res:
        return got[1]
    if id(res) in keep or res.storage._tracker is SCALAR:
        return res
    return NEW


def _wrap(res: Any, pairs: dict, keep: set, how: str = _RETYPE) -> Any:
    """A result computed on plain views: a view standing for a matrix is that matrix, new
    plain fakes become matrices (scalars, out= arrays and inputs stay as they are): made a
    matrix in place where NumPy allocates it with the subtype (``_RETYPE``), viewed as one
    where NumPy wraps an ndarray result (``_WRAP``: ``__array_wrap__`` of ufuncs,
    reductions and linalg is ``arr.view(matrix)``, so the matrix does not own its data)."""
    if type(res) in (tuple, list):
        return type(res)(_wrap(r, pairs, keep, how) for r in res)
    kept = as_it_was(res, pairs, keep)
    if kept is not NEW:
        return kept
    return as_matrix_view(res) if how == _WRAP else retype_matrix(res)


# ndarray methods that run a ufunc (or its reduction) and wrap its ndarray result (round:
# on floats only; integers are copied, complex parts rounded into a new array of the subtype)
_WRAPPED = frozenset({"sum", "mean", "std", "var", "prod", "any", "all", "max", "min", "cumsum",
                      "cumprod", "round", "clip", "conj", "conjugate"})


def _method(m: FakeMatrix, name: str, *args: Any, **kwargs: Any) -> Any:
    """``N.ndarray.<name>(self, ...)``: the method on a plain view, new arrays made matrices."""
    pairs: dict = {}
    plain = _plain(m, pairs)
    args = tuple(_plain(a, pairs) for a in args)
    kwargs = {k: _plain(v, pairs) for k, v in kwargs.items()}
    keep = {id(a) for a in (*args, *kwargs.values()) if type(a) is FakeArray}
    res = getattr(plain, name)(*args, **kwargs)
    if name == "view" and _view_type(args, kwargs) is not None:
        return res  # ``m.view(np.ndarray)``: the plain view is the answer
    if name in ("conj", "conjugate") and res is plain:
        return m  # a real dtype: conj returns the array itself
    wrapped = name in _WRAPPED and not (name == "round" and m.dtype.kind not in "f")
    return _wrap(res, pairs, keep, _WRAP if wrapped else _RETYPE)


def _view_type(args: tuple, kwargs: dict) -> Any:
    """The ndarray class ``view(dtype, type)`` asks for (other than matrix), or None."""
    for v in (*args, kwargs.get("dtype"), kwargs.get("type")):
        if isinstance(v, type) and issubclass(v, np.ndarray) and v is not np.matrix:
            return v
    return None


def _dot(a: Any, b: Any, out: Any = None) -> Any:
    """np.dot with a matrix operand (multiarraymodule.c PyArray_MatrixProduct2): the result
    allocated with the matrix subtype; a scalar operand outside BLAS's dtypes goes to
    ``multiply`` instead, whose result is wrapped."""
    pairs: dict = {}
    pa, pb = _plain(a, pairs), _plain(b, pairs)
    res = np.dot(pa, pb) if out is None else np.dot(pa, pb, _plain(out, pairs))
    scalar = np.ndim(pa) == 0 or np.ndim(pb) == 0
    blas = getattr(res, "dtype", None) in _BLAS
    keep = {id(out)} if out is not None else set()
    return _wrap(res, pairs, keep, _WRAP if scalar and not blas else _RETYPE)


_BLAS = tuple(np.dtype(t) for t in ("f4", "f8", "c8", "c16"))


def _concatenate(arrays: Any, axis: Any = 0, out: Any = None, **kwargs: Any) -> Any:
    """np.concatenate: the result allocated with the subtype of highest priority."""
    pairs: dict = {}
    keep = {id(out)} if out is not None else set()
    plain = _plain(list(arrays), pairs)
    if axis is None and out is None and any(np.size(x) for x in plain):
        # the 1-d result is allocated as a matrix, which __array_finalize__ makes (1, n):
        # NumPy then fails to copy the first raveled operand into it
        n = sum(np.size(x) for x in plain)
        raise ValueError(f"cannot copy from array of size {np.size(plain[0])} into an array "
                         f"of size {n}")
    return _wrap(np.concatenate(plain, axis, _plain(out, pairs), **kwargs), pairs, keep)


def unpatched(fn: Any) -> Any:
    """NumPy's own function behind a namespace patch (the one ``__array_function__`` gets)."""
    while getattr(fn, "_ft_patch", False):
        fn = fn.__wrapped__
    return fn


def _on_plain(fn: Any) -> Callable:
    """A function whose answer is not an array (np.shares_memory), on the plain views."""
    def rule(*args: Any, **kwargs: Any) -> Any:
        pairs: dict = {}
        return fn(*(_plain(a, pairs) for a in args), **{k: _plain(v, pairs) for k, v in kwargs.items()})
    return rule


_FUNCTIONS: dict = {unpatched(np.dot): _dot, unpatched(np.concatenate): _concatenate,
                    unpatched(np.shares_memory): _on_plain(np.shares_memory),
                    unpatched(np.may_share_memory): _on_plain(np.may_share_memory),
                    unpatched(np.ndim): _on_plain(np.ndim), unpatched(np.shape): _on_plain(np.shape),
                    unpatched(np.size): _on_plain(np.size)}


# --- construction (defmatrix.py matrix.__new__ / asmatrix) ---------------------------------

def matrix_new(data: Any, dtype: Any = None, copy: bool = True) -> Any:
    """``matrix.__new__`` for fake data (the PendingDeprecationWarning is the caller's)."""
    if type(data) is FakeMatrix:
        dtype2 = data.dtype
        if dtype is None:
            dtype = dtype2
        if dtype2 == dtype and not copy:
            return data
        return data.astype(dtype)
    if type(data) is FakeArray:
        intype = data.dtype if dtype is None else np.dtype(dtype)
        new = as_matrix_view(data)
        if intype != data.dtype:
            return new.astype(intype)
        return new.copy() if copy else new
    raise UnsupportedOperationError("np.matrix", f"data of type {type(data).__name__}")


def matrix_from_array(arr: FakeArray) -> FakeMatrix:
    """The end of ``matrix.__new__`` for data that is not an ndarray, once ``N.array`` made
    it the fake ``arr``: ``N.ndarray.__new__(subtype, shape, arr.dtype, buffer=arr,
    order=order)``, a view of arr's buffer, 2-d (0-d: (1, 1), 1-d: (1, n)), in F order when
    arr is 2-d and Fortran-ordered."""
    from .layout import c_strides, f_strides
    ndim = arr.ndim
    shape = tuple(arr.shape)
    if ndim > 2:
        raise ValueError("matrix must be 2-dimensional")
    if ndim == 0:
        shape = (1, 1)
    elif ndim == 1:
        shape = (1, shape[0])
    fortran = ndim == 2 and arr.flags.f_contiguous
    st = (f_strides if fortran else c_strides)(shape, arr.dtype.itemsize)
    v = make_fake(shape, arr.dtype, st, arr.storage, arr.storage_offset, arr, arr._writeable)
    return retype_matrix(v, finalize=False)


def asmatrix(data: Any, dtype: Any = None) -> Any:
    """``matrix(data, dtype=dtype, copy=False)`` for fakes and matrices; anything else
    through np.asmatrix (real data, or a list of fakes made an array first)."""
    if type(data) in (FakeArray, FakeMatrix):
        return matrix_new(data, dtype, copy=False)
    return np.asmatrix(data, dtype)


del _n, _u, _f, _r, _i
