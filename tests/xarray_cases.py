"""xarray calls compared between real NumPy data and fakes (tests/test_xarray.py).

Each case is ``fn(xp_arrays) -> xarray object``; ``leaves`` flattens a DataArray, Dataset,
Variable (or a tuple of them) into its structure (type, dims, names, coordinate names,
index names) and its arrays (the data of every variable), for the differential comparison.
"""
from __future__ import annotations

from typing import Any

import numpy as np

xr = None  # imported by the test module (importorskip)


def leaves(obj: Any) -> tuple[list, list]:
    """(structure, arrays) of an xarray result: arrays are each variable's ``.data``."""
    import xarray as xr
    if isinstance(obj, tuple):
        structure, arrays = [], []
        for o in obj:
            s, a = leaves(o)
            structure.append(s)
            arrays.extend(a)
        return structure, arrays
    if isinstance(obj, xr.Dataset):
        names = sorted(obj.variables, key=str)
        return ([type(obj).__name__, dict(obj.sizes), names, sorted(obj.coords, key=str),
                 sorted(obj.xindexes, key=str), [obj.variables[n].dims for n in names]],
                [obj.variables[n].data for n in names])
    if isinstance(obj, xr.DataArray):
        names = sorted(obj.coords, key=str)
        return ([type(obj).__name__, obj.name, obj.dims, names, sorted(obj.xindexes, key=str),
                 [obj.coords[n].dims for n in names]],
                [obj.variable.data] + [obj.coords[n].variable.data for n in names])
    if isinstance(obj, xr.Variable):
        return [type(obj).__name__, obj.dims], [obj.data]
    return [obj], []


def da(a, dims=("x", "y"), **kw):
    import xarray as xr
    return xr.DataArray(a, dims=dims, **kw)


def _ds(a, b):
    import xarray as xr
    return xr.Dataset({"a": (("x", "y"), a), "b": (("y",), b)}, coords={"x": [10, 20, 30]})


def _cases() -> dict:
    import xarray as xr
    c = {
        # construction and coordinates
        "DataArray": lambda a, b: da(a),
        "DataArray coords list": lambda a, b: da(a, coords={"x": [10, 20, 30], "y": list("abcd")}),
        "DataArray non-index coord": lambda a, b: da(a, coords={"lon": (("y",), b)}),
        "Variable": lambda a, b: xr.Variable(("x", "y"), a),
        "Dataset": lambda a, b: _ds(a, b),
        "copy": lambda a, b: da(a).copy(),
        "copy shallow": lambda a, b: da(a).copy(deep=False),
        "astype": lambda a, b: da(a).astype(np.float32),
        # arithmetic
        "add scalar": lambda a, b: da(a) + 1,
        "mul self": lambda a, b: da(a) * da(a),
        "broadcast dims": lambda a, b: da(a) + da(b, dims=("y",)),
        "broadcast transposed": lambda a, b: da(a) - da(a).T,
        "neg": lambda a, b: -da(a),
        "ufunc": lambda a, b: np.sqrt(da(a)),
        "compare": lambda a, b: da(a) > 0,
        "where": lambda a, b: xr.where(da(a) > 0, da(a), 0.0),
        "iadd": lambda a, b: _iadd(da(a)),
        "dataset arithmetic": lambda a, b: _ds(a, b) * 2,
        # reductions
        "sum x": lambda a, b: da(a).sum("x"),
        "sum all": lambda a, b: da(a).sum(),
        "mean y": lambda a, b: da(a).mean("y"),
        "mean skipna False": lambda a, b: da(a).mean("y", skipna=False),
        "std": lambda a, b: da(a).std("x"),
        "var ddof": lambda a, b: da(a).var("x", ddof=1),
        "max": lambda a, b: da(a).max("y"),
        "min keep_attrs": lambda a, b: da(a, attrs={"u": "m"}).min("x", keep_attrs=True),
        "prod": lambda a, b: da(a).prod("x"),
        "cumsum": lambda a, b: da(a).cumsum("y"),
        "dataset mean": lambda a, b: _ds(a, b).mean("x"),
        "dataset sum all": lambda a, b: _ds(a, b).sum(),
        # indexing by position
        "isel int": lambda a, b: da(a).isel(x=1),
        "isel slice": lambda a, b: da(a).isel(x=slice(0, 2)),
        "isel step": lambda a, b: da(a).isel(y=slice(None, None, -2)),
        "isel list": lambda a, b: da(a).isel(y=[0, 2, 3]),
        "isel two lists": lambda a, b: da(a).isel(x=[0, 2], y=[1, 3]),
        "getitem": lambda a, b: da(a)[1:, 0],
        "sel label": lambda a, b: da(a, coords={"x": [10, 20, 30]}).sel(x=20),
        "sel slice": lambda a, b: da(a, coords={"x": [10, 20, 30]}).sel(x=slice(15, 30)),
        "sel list": lambda a, b: da(a, coords={"x": [10, 20, 30]}).sel(x=[30, 10]),
        "loc": lambda a, b: da(a, coords={"x": [10, 20, 30]}).loc[20:],
        "dataset isel": lambda a, b: _ds(a, b).isel(y=slice(1, 3)),
        "dataset getitem": lambda a, b: _ds(a, b)["a"],
        # shape
        "transpose": lambda a, b: da(a).transpose(),
        "transpose named": lambda a, b: da(a).transpose("y", "x"),
        "T": lambda a, b: da(a).T,
        "dataset transpose": lambda a, b: _ds(a, b).transpose("y", "x"),
        "expand_dims": lambda a, b: da(a).expand_dims("z"),
        "squeeze": lambda a, b: da(a).isel(x=slice(0, 1)).squeeze(),
        "stack": lambda a, b: da(a).stack(z=("x", "y")),
        "concat x": lambda a, b: xr.concat([da(a), da(a)], "x"),
        "concat new": lambda a, b: xr.concat([da(a), da(a)], "t"),
        "concat coords": lambda a, b: xr.concat(
            [da(a, coords={"x": [1, 2, 3]}), da(a, coords={"x": [4, 5, 6]})], "x"),
        "concat datasets": lambda a, b: xr.concat([_ds(a, b), _ds(a, b)], "x"),
        "merge": lambda a, b: xr.merge([da(a, name="p"), da(b, dims=("y",), name="q")]),
        "assign": lambda a, b: _ds(a, b).assign(c=lambda d: d.a * 2),
        "roll": lambda a, b: da(a).roll(y=1),
        "diff": lambda a, b: da(a).diff("y"),
        "dot": lambda a, b: xr.dot(da(a), da(b, dims=("y",))),
        "clip": lambda a, b: da(a).clip(0, 1),
        "broadcast": lambda a, b: xr.broadcast(da(a), da(b, dims=("y",))),
        "values": lambda a, b: da(a).values,
        "to_numpy": lambda a, b: da(a).to_numpy(),
    }
    return c


def _iadd(d):
    d += 1
    return d


CASES = None


def cases() -> dict:
    global CASES
    if CASES is None:
        CASES = _cases()
    return CASES
