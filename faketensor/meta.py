"""ArrayMeta, the one metadata record, and turning a kernel's array-like arguments into
metadata it can read."""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .layout import c_strides, contiguity

PY_SCALARS = (int, float, complex)


class ArrayMeta(NamedTuple):
    """The one metadata record of an array: what every kernel returns.

    Shape, dtype, strides (bytes), device and flags, and where its bytes live: a fresh
    allocation (``view_of`` None), or a view of an input (``view_of``, a fake or real
    array the kernel was given) at byte ``offset`` from that input's own start.

    ``writeable`` False makes it read-only; ``base_shape`` set on a fresh output makes
    it a view of a temporary owner of that shape (a reshape that had to copy).
    ``warn_on_write`` None on a result with ``base_shape`` marks a temporary owner that
    refuses writes (a read-only buffer, as ``np.frombuffer(bytes)``): never writeable.
    ``scalar`` marks a 0-d result NumPy returns as a scalar (``np.float64``, ...): read-only,
    its value held by the Python object, so it takes no data-allocator memory once returned
    (the kernel reports the 0-d array it was made from with ``transient``).
    ``pytype`` (int, float, complex or bool) on a ``scalar`` record marks a Python number
    whose value is unknown (``rng.normal()``): a weak operand under NEP 50, see ``weak_type``.
    ``value``, when not None, is the value every element of a fresh result holds.
    """

    shape: tuple
    dtype: np.dtype
    strides: tuple
    view_of: Any = None
    offset: int = 0
    writeable: bool | None = None
    base_shape: tuple | None = None
    device: str | None = None
    warn_on_write: bool | None = False
    scalar: bool = False
    pytype: type | None = None
    # the value every element of a fresh result holds, when the kernel knows it from the
    # metadata alone (lstsq's rank under its full-rank assumption): faketensor/_known.py
    value: Any = None

    # the ndarray attributes a kernel reads from its inputs, so records and fakes mix
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        shape = self.shape
        if len(shape) == 1:  # the length itself: a data-dependent one stays one (_sizes.py)
            return shape[0]
        return math.prod(shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    @property
    def flags(self) -> "MetaFlags":
        c, f = self._contiguity()
        return MetaFlags(c, f, self.writeable is not False, self._aligned())

    def _contiguity(self) -> tuple[bool, bool]:
        """(C, F) contiguity, as ``flags`` has them."""
        return contiguity(self.shape, self.strides, self.dtype.itemsize)

    def _aligned(self) -> bool:
        """IsAligned (numpy/_core/src/common/array_assign.c): a fresh allocation is aligned;
        a view when its start and every stride of an axis longer than 1 are multiples of
        the dtype's alignment, from the address of the input it views."""
        if self.view_of is None:
            return True
        base = self.view_of
        al = self.dtype.alignment
        if type(base) is ArrayMeta:  # a view of another kernel intermediate
            return (base._aligned() and self.offset % al == 0
                    and all(s % al == 0 for n, s in zip(self.shape, self.strides) if n > 1))
        st = getattr(base, "storage", None)
        addr = (st.alignment + base.storage_offset if st is not None
                else base.__array_interface__["data"][0]) + self.offset
        return addr % al == 0 and all(s % al == 0 for n, s in zip(self.shape, self.strides)
                                      if n > 1)


class MetaFlags(NamedTuple):
    """The flags of an ArrayMeta that follow from its fields (as ``ndarray.flags``)."""

    c_contiguous: bool
    f_contiguous: bool
    writeable: bool
    aligned: bool = True


def is_meta(x: Any) -> bool:
    """True for a fake (anything carrying a storage), a real ndarray or an ArrayMeta."""
    return hasattr(x, "storage_offset") or isinstance(x, np.ndarray) or type(x) is ArrayMeta


def weak_type(x: Any) -> type | None:
    """The Python type NumPy's dtype rules see for ``x`` when it is a Python number: int,
    float, complex or bool for a Python scalar or for a fake standing for one (a draw
    NumPy returns as a Python float, ``pytype`` set); None for anything else.

    int, float and complex are weak operands (NEP 50: ``float32_array * 1.5`` is float32);
    bool is np.bool_. Every kernel that resolves dtypes asks this, so a fake Python number
    promotes exactly as the number would."""
    t = type(x)
    if t is int or t is float or t is complex or t is bool:
        return t
    if t is np.ndarray:
        return None
    if t is ArrayMeta:
        return x.pytype
    return getattr(x, "pytype", None) if hasattr(x, "storage_offset") else None


_ZEROS = {bool: False, int: 0, float: 0.0, complex: 0j}


def as_number(x: Any) -> Any:
    """A fake Python number as a Python number of its type (zero), for the rules that take
    a Python scalar's value only for its type (``np.result_type(dt, x)``, the 0-d array
    NumPy makes of it); anything else as is. Its value is never used as a value."""
    if type(x) is ArrayMeta:
        return _ZEROS[x.pytype] if x.pytype is not None else x
    p = getattr(x, "pytype", None) if hasattr(x, "storage_offset") else None
    return x if p is None else _ZEROS[p]


def is_fake(x: Any) -> bool:
    return hasattr(x, "storage_offset")


def as_meta(x: Any) -> Any:
    """A fake, ndarray or ArrayMeta as is; a NumPy scalar, list or other array-like as a small real array;
    a list or tuple holding fakes as the fresh C array ``np.asarray`` stacks it into (an
    ArrayMeta: a kernel's view of it is a view of that temporary, as NumPy's is)."""
    if hasattr(x, "storage_offset") or isinstance(x, np.ndarray) or type(x) is ArrayMeta:
        return x
    if type(x) in (list, tuple) and nested_fakes(x):
        shape, dt = stack_shape(x)
        return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize),
                         device=_first_fake(x).storage.device)
    return np.asarray(x)


def nested_fakes(obj: Any) -> bool:
    """True when a fake is among the leaves of nested lists and tuples."""
    if hasattr(obj, "storage_offset"):
        return True
    if isinstance(obj, (list, tuple)):
        return any(nested_fakes(x) for x in obj)
    return False


def _first_fake(obj: Any) -> Any:
    if isinstance(obj, (list, tuple)):
        for x in obj:
            f = _first_fake(x)
            if f is not None:
                return f
        return None
    return obj if is_fake(obj) else None


def stack_shape(obj: Any) -> tuple:
    """Shape and dtype of np.array(obj) for nested lists whose leaves include fakes (every
    leaf of one shape; ragged nesting raises NumPy's ValueError)."""
    if isinstance(obj, (list, tuple)):
        if not obj:
            return (0,), np.dtype(float)
        subs = [stack_shape(x) for x in obj]
        shapes = {s for s, _ in subs}
        if len(shapes) != 1:
            raise ValueError("setting an array element with a sequence. The requested array has "
                             "an inhomogeneous shape after 1 dimensions.")
        dt = np.result_type(*[d for _, d in subs])
        return (len(obj),) + subs[0][0], dt
    m = as_meta(obj)
    return m.shape, m.dtype


def has_values(x: Any) -> bool:
    """True for what carries its values (Python and NumPy scalars, real arrays, lists):
    not a fake, not an ArrayMeta record."""
    return not (hasattr(x, "storage_offset") or type(x) is ArrayMeta)


def is_aligned(x: Any) -> bool:
    """``x.flags.aligned`` without making a flags object: a fake and an ArrayMeta answer
    from their own rule (``_aligned``, cached on a fake); anything else from its flags."""
    f = getattr(type(x), "_aligned", None)
    return f(x) if f is not None else bool(x.flags.aligned)


def contig(x: Any) -> tuple[bool, bool]:
    """``(x.flags.c_contiguous, x.flags.f_contiguous)`` without making a flags object (a
    fake's are cached on it)."""
    f = getattr(type(x), "_contiguity", None)
    if f is not None:
        return f(x)
    fl = x.flags
    return bool(fl.c_contiguous), bool(fl.f_contiguous)


def is_c_contig(x: Any) -> bool:
    return x.flags.c_contiguous


def is_f_contig(x: Any) -> bool:
    return x.flags.f_contiguous


def check_writeable(x: Any, what: str = "output array") -> None:
    """NumPy's ValueError for writing into a read-only array."""
    if not x.flags.writeable:
        raise ValueError(f"{what} is read-only")
