"""What differs between the NumPy versions faketensor supports, decided here by version.

The support window is NumPy ``SUPPORTED[0]`` to ``SUPPORTED[1]`` (docs/guide/install.md);
importing faketensor with an older NumPy raises ImportError naming it. Rules never test for
a NumPy feature with try/except or hasattr: they ask this module, which answers from the
version, so a difference is written once and is found by reading one file:

- functions a version lacks (``since``): a rule registered for ``since((2, 3),
  "strings.slice")`` is not registered on older versions (kernels/registry.py skips
  ``Absent`` ops);
- private helpers whose signature or behaviour changed (``QUANTILE_WEAK_Q``, ...);
- behaviour of public calls that changed between versions (the flags below, each citing
  the NumPy change).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


def _parse(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


VERSION: tuple[int, int] = _parse(np.__version__)
# The oldest and newest NumPy (major, minor) the test matrix runs (noxfile.py).
SUPPORTED: tuple[tuple[int, int], tuple[int, int]] = ((2, 2), (2, 4))

if VERSION < SUPPORTED[0]:
    raise ImportError(
        f"faketensor supports NumPy {SUPPORTED[0][0]}.{SUPPORTED[0][1]} to "
        f"{SUPPORTED[1][0]}.{SUPPORTED[1][1]}; this is NumPy {np.__version__}: "
        f"pip install 'numpy>={SUPPORTED[0][0]}.{SUPPORTED[0][1]}'")


def at_least(major: int, minor: int) -> bool:
    """True when the running NumPy is ``major.minor`` or newer."""
    return VERSION >= (major, minor)


class Absent(NamedTuple):
    """A NumPy function the running version lacks: ``register`` skips it."""
    name: str
    since: tuple[int, int]


def since(version: tuple[int, int], path: str) -> Any:
    """``numpy.<path>`` (dotted) when the running NumPy has it (from ``version`` on), else
    ``Absent``: the op of a rule for a function newer than the running NumPy."""
    if VERSION < version:
        return Absent("numpy." + path, version)
    obj: Any = np
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


# --- private helpers whose signature changed ---------------------------------------------
# numpy/lib/_function_base_impl.py ``_quantile(arr, quantiles, axis, method, out, weights,
# weak_q)``: ``weak_q`` (whether q was a Python float, NEP 50) is new in 2.4
# (numpy/numpy#28595); 2.2 and 2.3 take no such argument and keep q's own dtype.
QUANTILE_WEAK_Q: bool = at_least(2, 4)


# --- public behaviour that changed --------------------------------------------------------
# ``out=...`` (a ufunc, a reduction or np.sum-style function returns an array, never a NumPy
# scalar) is new in 2.3 (numpy/numpy#28576); before it raises TypeError, with the message of
# the argument check it fails (ufunc_object.c _set_out_array / PyArray_OutputConverter).
OUT_ELLIPSIS: bool = at_least(2, 3)


def ufunc_array(ufunc: np.ufunc, *args: Any) -> Any:
    """``ufunc(*args, out=...)``: the result as an array, also 0-d, on every version (before
    2.3, ``np.asanyarray`` of the call, as 2.2's own Python does: gh-13105)."""
    if OUT_ELLIPSIS:
        return ufunc(*args, out=...)
    return np.asanyarray(ufunc(*args))


def check_out_ellipsis(out: Any, message: str = "output must be an array") -> None:
    """The TypeError a NumPy before 2.3 raises for ``out=...``."""
    if out is Ellipsis and not OUT_ELLIPSIS:
        raise TypeError(message)

# A ufunc called with ``where=`` and no ``out`` keyword warns (UserWarning, "'where' used
# without 'out', expect unitialized memory in output") from 2.4 on (ufunc_object.c
# ufunc_generic_fastcall); 2.2 and 2.3 say nothing.
WHERE_WITHOUT_OUT_WARNS: bool = at_least(2, 4)

# np.trim_zeros takes a tuple of axes (and ``axis=()``: the input as it is) from 2.4 on;
# 2.2 and 2.3 take one axis (normalize_axis_index) and ignore it for a 1-d input
# (numpy/lib/_function_base_impl.py trim_zeros).
TRIM_ZEROS_AXES: bool = at_least(2, 4)

# einsum(optimize=...) contracts two operands with ``bmm_einsum`` (matmul on reshaped
# operands) and einsum_path's contraction list holds (indices, equation, remaining) from 2.4
# on; 2.2 and 2.3 contract with tensordot where BLAS can, and list (indices, removed,
# equation, remaining, blas) (numpy/_core/einsumfunc.py einsum).
EINSUM_BMM: bool = at_least(2, 4)

# np.strings' (and np.char's) Python functions take part in ``__array_function__`` from 2.3
# on; in 2.2 most call ``np.asarray`` on their argument straight away (strings.py), so a
# fake reaches their rules only through the namespace patch (modes/patching.py).
STRINGS_DISPATCH: bool = at_least(2, 3)
STRING_MODULES: tuple[str, ...] = ("numpy.strings", "numpy.char")


def dispatches(module: str, fn: Any) -> bool:
    """Whether ``module.fn`` hands fakes to ``__array_function__`` on this NumPy (before 2.3
    np.strings' and np.char's Python functions, undecorated, do not)."""
    if STRINGS_DISPATCH or module not in STRING_MODULES:
        return True
    return hasattr(fn, "_implementation")  # array_function_dispatch's mark

# Deprecations that became errors in 2.3 (2.2 warns DeprecationWarning and goes on):
# ndarray.conj of a non-numeric dtype returns the array itself (calculation.c
# PyArray_Conjugate), a boolean partition index is taken as 0 or 1 (item_selection.c
# partition_prep_kth_array).
DEPRECATIONS_EXPIRED_23: bool = at_least(2, 3)

# np.unique's ``sorted`` keyword is new in 2.3 (numpy/lib/_arraysetops_impl.py).
UNIQUE_SORTED: bool = at_least(2, 3)
# ... and with it the hash-table path of _unique1d (``_unique_hash``, a C function of
# numpy/_core/src/multiarray/unique.cpp that returns NotImplemented for dtypes it lacks).
UNIQUE_HASH: bool = at_least(2, 3)
# ... and takes ``equal_nan=`` from 2.4 (2.3: ``_unique_hash(ar_)``, numpy/lib/_arraysetops_impl.py).
UNIQUE_HASH_EQUAL_NAN: bool = at_least(2, 4)

# np.count_nonzero without an axis returns a Python int before 2.3 (numpy/_core/numeric.py
# ``return multiarray.count_nonzero(a)``), an np.intp from 2.3 on.
COUNT_NONZERO_INTP: bool = at_least(2, 3)


# --- NumPy's private names the rules use, and the versions they exist in -------------------
# module -> {name: (first, last) NumPy version the rules use it on; None = no bound}. A rule
# uses a name only on the versions listed (tests/core/test_versions.py resolves every one on the
# running NumPy), so a NumPy that moves one fails that test, not a user's call.
PRIVATE: dict[str, dict[str, tuple[Any, Any]]] = {
    "numpy._core._exceptions": {n: (None, None) for n in (
        "_UFuncInputCastingError", "_UFuncNoLoopError", "_UFuncOutputCastingError")},
    "numpy._core._internal": {},
    "numpy._core._methods": {"_clip": (None, None)},
    "numpy._core.umath": {
        **{n: (None, None) for n in (
            "_center", "_ljust", "_rjust", "_zfill", "_expandtabs", "_expandtabs_length",
            "_replace", "_partition", "_rpartition", "_strip_chars", "_strip_whitespace",
            "_lstrip_chars", "_lstrip_whitespace", "_rstrip_chars", "_rstrip_whitespace",
            "count", "endswith", "find", "index", "rfind", "rindex", "startswith", "str_len",
            "clip")},
        "_slice": ((2, 3), None),  # np.strings.slice's ufunc
    },
    "numpy._core.multiarray": {"compare_chararrays": (None, None)},
    "numpy._core.einsumfunc": {
        "_flop_count": (None, None), "_parse_einsum_input": (None, None),
        "_parse_eq_to_batch_matmul": ((2, 4), None), "_parse_output_order": ((2, 4), None)},
    "numpy._core.records": {},
    "numpy.lib._function_base_impl": {n: (None, None) for n in (
        "_quantile", "_QuantileMethods", "_quantile_is_valid", "_get_gamma", "_get_indexes",
        "_calculate_shapes", "_parse_input_dimensions")},
    "numpy.lib._histograms_impl": {"_hist_bin_selectors": (None, None)},
    "numpy.lib._arraypad_impl": {"_as_pairs": (None, None)},
    "numpy.lib._arraysetops_impl": {"unique": (None, None)},
    "numpy.lib._utils_impl": {"_median_nancheck": (None, None)},
}


def private_names() -> list[tuple[str, str]]:
    """(module, name) of every private NumPy name the rules use on the running version."""
    out = []
    for module, names in PRIVATE.items():
        for name, (first, last) in names.items():
            if (first is None or VERSION >= first) and (last is None or VERSION <= last):
                out.append((module, name))
    return out


# --- SciPy: what differs between the SciPy versions the SciPy rules support ----------------
def scipy_version() -> tuple[int, int] | None:
    """SciPy's (major, minor) as installed, read from its metadata (SciPy is not imported)."""
    from importlib import metadata
    try:
        return _parse(metadata.version("scipy"))
    except metadata.PackageNotFoundError:
        return None


class FFTCore(NamedTuple):
    """scipy.fft's compiled backend: its package, and the pybind11 module of transforms."""
    package: str
    module: str


def scipy_fft_core() -> FFTCore:
    """SciPy 1.18 moved scipy.fft from pocketfft (``scipy.fft._pocketfft.pypocketfft``) to
    ducc0 (``scipy.fft._duccfft.pyduccfft``); both expose the same transforms with the same
    signatures (c2c, r2c, c2r, r2r_fftpack, dct, dst)."""
    v = scipy_version()
    if v is not None and v >= (1, 18):
        return FFTCore("scipy.fft._duccfft", "pyduccfft")
    return FFTCore("scipy.fft._pocketfft", "pypocketfft")
