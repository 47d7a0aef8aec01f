"""CuPy's rule for ``cupy.einsum`` on CUDA fakes.

Replays cupy/linalg/_einsum.py (CuPy 14.2) on ArrayMeta records (as cupy/linalg.py): its own
subscripts parser and errors (``_parse_int_subscript`` / ``_parse_ellipsis_subscript`` are
CuPy's own pure functions, called as they are), diagonals as ``_transpose_ex`` views,
size-1 axes squeezed, unary sums, the path (``optimize``: False, True/'greedy', 'optimal'
through ``_einsum_opt``, or an explicit 'einsum_path'), pairwise ``reduced_binary_einsum``
(elementwise multiply or ``matmul`` of flattened transposes) and the final transpose and
reshape. Facts that differ from NumPy:
- a single operand without a sum returns a *view* of it (never the input itself), even
  with ``dtype=`` (the dtype is ignored then; 'ij->ji' is a transposed view);
- results of a contraction are views of the 3-d ``matmul`` output (a non-None base),
  often transposed (non-contiguous); an elementwise product is fresh C when its labels
  already are the output's;
- ``casting=``, ``out=``, ``order=`` raise TypeError; the result dtype is
  ``result_type`` of the operands (0-d arrays from Python scalars are not weak);
- any empty operand (two or more operands) gives ``zeros`` of the output shape;
- unary sums go through CUB by default (``CUPY_ACCELERATORS='cub'``): an F-contiguous
  (not C) operand summed over leading axes gives an F-ordered result
  (cupy/cuda/cub.pyx ``device_segmented_reduce``).
The cuTENSOR / cuTensorNet accelerators (not default) are not reproduced.
"""
from __future__ import annotations

import copy
import itertools
import math
import warnings
from typing import Any

import numpy as np

from ..._errors import UnsupportedOperationError
from ...meta import ArrayMeta
from .linalg import astype_meta, input_meta, new_meta, permuted, reshape_meta, ufunc_dtype, view_meta
from .core import on_cupy
from .core import cupy_module, reduction_ops, check_dtype, current_device, guess_loop, register_rules
from ...layout import broadcast_shapes
from ...meta import is_fake


_NAME = "cupy.einsum"
_SCALARS = (bool, int, float, complex, np.generic)


def _einsum_module() -> Any:
    import cupy.linalg._einsum as m
    return m


def _accelerators() -> list:
    """The routine accelerators; only CUB (the default) is reproduced."""
    from cupy._core import _accelerator as acc
    accs = list(acc.get_routine_accelerators())
    if any(a != acc.ACCELERATOR_CUB for a in accs):
        raise UnsupportedOperationError(_NAME, "cuTENSOR / cuTensorNet accelerators")
    return accs


def _as_operand(x: Any) -> ArrayMeta:
    """``cupy.asarray(op)``: a CUDA fake on the current device as it is; a Python / NumPy
    scalar becomes a fresh 0-d array."""
    if is_fake(x):
        if x.storage.device == "cpu":
            raise UnsupportedOperationError(_NAME, "a host (NumPy) operand is copied to the device")
        if x.storage.device != current_device():
            raise UnsupportedOperationError(_NAME, "an operand on another device")
        check_dtype(x.dtype)
        return input_meta(x)
    if isinstance(x, _SCALARS):
        return new_meta((), check_dtype(np.asarray(x).dtype))
    raise UnsupportedOperationError(_NAME, f"an operand of type {type(x).__name__}")


def _sublist(s: Any) -> str:
    if is_fake(s) or isinstance(s, np.ndarray):
        raise UnsupportedOperationError(_NAME, "an array given where a subscripts list belongs")
    return _einsum_module()._parse_int_subscript(s)


def _parse_input(args: tuple) -> tuple:
    """_einsum.py ``_parse_einsum_input``: (input subscripts, output or None, operands)."""
    m = _einsum_module()
    if len(args) == 0:
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand, or at least one operand and its corresponding subscripts list")
    if isinstance(args[0], str):
        subscripts, operands = args[0], list(args[1:])
        for s in subscripts:
            if s not in ".,-> " and s not in m.einsum_symbols:
                raise ValueError(f"invalid subscript '{s}' in einstein sum subscripts string, "
                                 "subscripts must be letters")
        subscripts = subscripts.replace("...", "@")
        if "." in subscripts:
            raise ValueError("einstein sum subscripts string contains a '.' that is not part "
                             "of an ellipsis ('...')")
        if "-" in subscripts or ">" in subscripts:
            invalid = subscripts.count("-") > 1 or subscripts.count(">") > 1
            parts = subscripts.split("->")
            if invalid or len(parts) != 2:
                raise ValueError("einstein sum subscript string does not contain proper '->' "
                                 "output specified")
            inputs, output = parts[0], parts[1].replace(" ", "")
        else:
            inputs, output = subscripts, None
        names = inputs.replace(" ", "").split(",")
        if len(names) != len(operands):
            more = "more" if len(operands) > len(names) else "fewer"
            raise ValueError(f"{more} operands provided to einstein sum function than "
                             "specified in the subscripts string")
        return names, output, [_as_operand(o) for o in operands]
    rest = list(args)
    operands = []
    subs: list[Any] = []
    while len(rest) >= 2:
        operands.append(rest.pop(0))
        subs.append(_sublist(rest.pop(0)))
    output = _sublist(rest[0]) if rest else None
    return subs, output, [_as_operand(o) for o in operands]


# --- CuPy primitives on ArrayMeta records ----------------------------------------------

def _rdt(result_dtype: Any) -> np.dtype:
    """``astype`` / ``zeros`` of the result dtype (TypeError / ValueError as CuPy)."""
    return check_dtype(np.dtype(result_dtype))


def _cub_order(p: ArrayMeta, axes: tuple, dt: np.dtype) -> str | None:
    """cupy/cuda/cub.pyx ``cub_reduction`` for a sum with ``dtype=``: the order of the
    segmented-reduce output ('C' / 'F'), or None where CuPy's own reduction runs."""
    if np.dtype(p.dtype) != dt:
        return None  # _cub_reduce_dtype_compatible: dtype must equal x.dtype
    c, f = p.flags.c_contiguous, p.flags.f_contiguous
    order = "C" if c else ("F" if f else None)
    if order is None or len(axes) == p.ndim:
        return None  # a full reduction (device_reduce) is 0-d either way
    if dt.char not in "ebBhHiIlLqQfdFD":
        return None
    if p.size:
        red = sorted(axes)
        if any(b - a != 1 for a, b in zip(red, red[1:])):
            return None
        if (order == "C" and red[-1] != p.ndim - 1) or (order == "F" and red[0] != 0):
            return None
    if math.prod(p.shape[i] for i in axes) <= 0 or p.size > 0x7FFFFFFF:
        return None
    if dt.char == "e" and order == "F":  # common._is_fp16_supported(): the device's
        raise UnsupportedOperationError(_NAME, "a CUB float16 sum depends on the device")
    return order


def _sum(p: ArrayMeta, axes: tuple, result_dtype: Any, accs: list) -> ArrayMeta:
    """``ndarray.sum(axis=axes, dtype=result_dtype)`` (_routines_math.pyx ``_ndarray_sum``)."""
    dt = np.dtype(result_dtype)
    k = reduction_ops("sum", dt)
    odt = np.dtype(guess_loop(k._ops, k.name, (p.dtype,), None, dt).out_types[0])
    shape = tuple(n for i, n in enumerate(p.shape) if i not in axes)
    order = _cub_order(p, axes, dt) if accs else None
    return new_meta(shape, check_dtype(odt), order or "C")


def _transpose_ex(p: ArrayMeta, axeses: list) -> ArrayMeta:
    """_einsum.py ``_transpose_ex``: a view whose strides are the sums of each group's."""
    shape = [p.shape[axes[0]] if axes else 1 for axes in axeses]
    strides = [sum(p.strides[a] for a in axes) for axes in axeses]
    return view_meta(p, shape, strides)


def _squeeze(p: ArrayMeta, axes: list) -> ArrayMeta:
    keep = [i for i in range(p.ndim) if i not in axes]
    return view_meta(p, [p.shape[i] for i in keep], [p.strides[i] for i in keep])


def _diagonals(inputs: list, operands: list, options: dict) -> None:
    """_einsum.py ``_einsum_diagonals`` (mutates its arguments)."""
    for idx, sub in enumerate(inputs):
        arr = operands[idx]
        if len(set(sub)) == len(sub):
            continue
        groups: dict = {}
        for axis, label in enumerate(sub):
            groups.setdefault(label, []).append(axis)
        items = list(groups.items())
        for label, axes in items:
            if options["broadcast_diagonal"]:
                axes = [a for a in axes if arr.shape[a] != 1]
            dims = {arr.shape[a] for a in axes}
            if len(dims) >= 2:
                d0, d1 = dims.pop(), dims.pop()
                raise ValueError(f"dimensions in operand {idx} for collapsing index "
                                 f"'{_einsum_module()._chr(label)}' don't match ({d0} != {d1})")
        inputs[idx] = [label for label, _ in items]
        operands[idx] = _transpose_ex(arr, [axes for _, axes in items])


def _multiply(a_shape: tuple, b_shape: tuple, a: ArrayMeta, b: ArrayMeta) -> ArrayMeta:
    """``arr0 * arr1``: a fresh C array of the broadcast shape (_kernel.pyx ufunc)."""
    return new_meta(broadcast_shapes(tuple(a_shape), tuple(b_shape)),
                ufunc_dtype("multiply", a.dtype, b.dtype))


def _expand_shape(shape: tuple, mode: list, mode_out: list) -> tuple:
    """The shape of _einsum.py ``_expand_dims_transpose`` (reshape, then transpose)."""
    modes, lengths = list(mode), list(shape)
    axes = []
    for i in mode_out:
        if i not in modes:
            modes.append(i)
            lengths.append(1)
        axes.append(modes.index(i))
    return tuple(lengths[a] for a in axes)


def _flatten_transpose(p: ArrayMeta, axeses: list) -> tuple:
    perm = [a for axes in axeses for a in axes]
    shapes = [[p.shape[a] for a in axes] for axes in axeses]
    return reshape_meta(permuted(p, perm), tuple(math.prod(s) for s in shapes)), shapes


def _binary(arr0: ArrayMeta, sub0: list, arr1: ArrayMeta, sub1: list, sub_others: list) -> tuple:
    """_einsum.py ``reduced_binary_einsum`` (the cuTENSOR branch excluded)."""
    m = _einsum_module()
    if len(sub0) == 0 or len(sub1) == 0:
        return _multiply(arr0.shape, arr1.shape, arr0, arr1), sub0 + sub1
    set0, set1, set_others = set(sub0), set(sub1), set(sub_others)
    shared = set0 & set1
    batch = shared & set_others
    contract = shared - batch
    bs0, cs0, ts0 = m._make_transpose_axes(sub0, batch, contract)
    bs1, cs1, ts1 = m._make_transpose_axes(sub1, batch, contract)
    sub_out = [sub0[a] for a in bs0] + [sub0[a] for a in ts0] + [sub1[a] for a in ts1]
    if not contract:
        if len(sub_out) == len(sub_others):
            sub_out = sub_others
        return _multiply(_expand_shape(arr0.shape, sub0, sub_out),
                         _expand_shape(arr1.shape, sub1, sub_out), arr0, arr1), sub_out
    tmp0, shapes0 = _flatten_transpose(arr0, [bs0, ts0, cs0])
    tmp1, shapes1 = _flatten_transpose(arr1, [bs1, cs1, ts1])
    # _routines_linalg.pyx matmul, 3-d: a fresh C (batch, m, n), then reshaped (a view)
    mm = new_meta(tmp0.shape[:2] + tmp1.shape[2:], np.promote_types(tmp0.dtype, tmp1.dtype))
    return reshape_meta(mm, tuple(shapes0[0] + shapes0[1] + shapes1[2])), sub_out


def _path(optimize: Any, inputs: list, output: list, dims: dict) -> list:
    """The contraction path of ``einsum`` (TypeError for an unknown ``optimize``)."""
    if optimize is False:
        return [tuple(range(len(inputs)))]
    if len(optimize) and (optimize[0] == "einsum_path"):
        return optimize[1:]
    from cupy.linalg._einsum_opt import _greedy_path, _optimal_path
    algorithms = {"greedy": _greedy_path, "optimal": _optimal_path}
    try:
        if len(optimize) == 2 and isinstance(optimize[1], (int, float)):
            algo = algorithms[optimize[0]]
            limit = int(optimize[1])
        else:
            algo = algorithms[optimize]
            limit = 2 ** 31
    except (TypeError, KeyError):
        raise TypeError(f"Did not understand the path (optimize): {optimize}") from None
    path = algo([set(s) for s in inputs], set(output), dims, limit)
    if any(len(ix) > 2 for ix in path):
        from cupy._util import PerformanceWarning
        warnings.warn("memory efficient einsum is not supported yet", PerformanceWarning,
                      stacklevel=4)
    return path


# --- the rule ----------------------------------------------------------------------------

def _output(output: Any, inputs: list, dims: dict, options: dict) -> list:
    m = _einsum_module()
    if output is None:
        flat = list(itertools.chain.from_iterable(inputs))
        return [lb for lb in sorted(set(flat)) if lb < 0 or flat.count(lb) == 1]
    if not options["sum_ellipsis"] and "@" not in output and -1 in dims:
        raise ValueError("output has more dimensions than subscripts given in einstein sum, "
                         "but no '...' ellipsis provided to broadcast the extra dimensions.")
    out = m._parse_ellipsis_subscript(output, None,
                                      ellipsis_len=sum(lb < 0 for lb in dims.keys()))
    seen = set(itertools.chain.from_iterable(inputs))
    for lb in out:
        if lb not in seen:
            raise ValueError("einstein sum subscripts string included output subscript "
                             f"'{m._chr(lb)}' which never appeared in an input")
    for lb in out:
        if out.count(lb) >= 2:
            raise ValueError("einstein sum subscripts string includes output subscript "
                             f"'{m._chr(lb)}' multiple times")
    return out


def _dimensions(inputs: list, operands: list) -> dict:
    dims: dict = {}
    for idx, sub in enumerate(inputs):
        for axis, lb in enumerate(sub):
            d = operands[idx].shape[axis]
            if lb not in dims or dims[lb] == 1:
                dims[lb] = d
            elif d not in (1, dims[lb]):
                raise ValueError(f"Size of label '{_einsum_module()._chr(lb)}' for operand "
                                 f"{idx} ({d}) does not match previous terms ({dims[lb]}).")
    return dims


def _einsum(args: tuple, kwargs: dict) -> ArrayMeta:
    m = _einsum_module()
    options = m.options
    accs = _accelerators()
    inputs, output, operands = _parse_input(args)
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    optimize = kwargs.pop("optimize", False)
    if optimize is True:
        optimize = "greedy"
    if kwargs:
        raise TypeError(f"Did not understand the following kwargs: {list(kwargs.keys())}")
    result_dtype = np.result_type(*[p.dtype for p in operands]) if dtype is None else dtype
    inputs = [m._parse_ellipsis_subscript(sub, idx, ndim=p.ndim)
              for idx, (sub, p) in enumerate(zip(inputs, operands))]
    dims = _dimensions(inputs, operands)
    output = _output(output, inputs, dims, options)
    _diagonals(inputs, operands, options)

    if len(operands) >= 2:
        if any(p.size == 0 for p in operands):
            return new_meta(tuple(dims[lb] for lb in output), _rdt(result_dtype))
        for idx, p in enumerate(operands):
            if 1 in p.shape:
                sq = [a for a in range(p.ndim) if p.shape[a] == 1]
                inputs[idx] = [lb for a, lb in enumerate(inputs[idx]) if p.shape[a] != 1]
                operands[idx] = _squeeze(p, sq)

    returns_view = len(operands) == 1
    for idx, sub in enumerate(inputs):
        others: Any = copy.copy(inputs)
        others[idx] = output
        others = set(itertools.chain.from_iterable(others))
        sum_axes = tuple(a for a, lb in enumerate(sub) if lb not in others)
        if sum_axes:
            returns_view = False
            inputs[idx] = [lb for a, lb in enumerate(sub) if a not in sum_axes]
            operands[idx] = _sum(operands[idx], sum_axes, result_dtype, accs)
    if returns_view:
        operands = [view_meta(p, p.shape, p.strides) for p in operands]
    else:
        operands = [astype_meta(p, _rdt(result_dtype), copy=False) for p in operands]

    for idx0, idx1 in m._iter_path_pairs(_path(optimize, inputs, output, dims)):
        arr0, sub0 = operands.pop(idx0), inputs.pop(idx0)
        arr1, sub1 = operands.pop(idx1), inputs.pop(idx1)
        others = list(itertools.chain(output, itertools.chain.from_iterable(inputs)))
        arr_out, sub_out = _binary(arr0, sub0, arr1, sub1, others)
        operands.append(arr_out)
        inputs.append(sub_out)

    arr0, = operands
    sub0, = inputs
    axes = [sub0.index(lb) for lb in output if lb in sub0]
    return reshape_meta(permuted(arr0, axes), tuple(dims[lb] for lb in output))


def cp_einsum(*operands: Any, **kwargs: Any) -> ArrayMeta:
    """cupy/linalg/_einsum.py ``einsum``: views for a single operand without a sum, else
    fresh arrays or views of the last product (a reshaped ``matmul`` result)."""
    return _einsum(operands, kwargs)


on_cupy(lambda: register_rules({"einsum": (cp_einsum, "copy")}, cupy_module()))
