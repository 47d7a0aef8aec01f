"""A generated table of np.random calls and the worker that checks a slice of it.

``calls()`` lists every public np.random function and every drawing method of Generator
and RandomState with sizes None/int/tuple/0/()/bad, parameters as scalars, lists and
arrays of awkward layouts (F-order, transposed, reversed, broadcast, 0-d, empty), bad
scalar parameters, and each owner's extra arguments (dtype, out, axis, p, ...).

``python tests/random_corpus.py START STOP`` runs calls[START:STOP] in this process and
prints one line per call: ``START i`` before it runs, then ``OK i`` or ``BAD i message``,
so that a parent that sees the process die from a signal knows which call killed it.

Each call runs for real (outside any mode, fresh generator) and on fakes in five ways:
``mod`` np.random.NAME inside FakeMode; ``gen`` a Generator from np.random.default_rng
inside the mode; ``gen_out`` / ``rs_out`` a Generator / RandomState made outside the mode
and used inside; ``rs_in`` a RandomState made inside the mode. The first two must give
exactly the real metadata or the real exception type; the others (real generators) must
raise UnsupportedOperationError, raise the real exception type, or return a non-array
result of the real type (a scalar draw that never reaches NumPy's Python-level lookups),
and never a real array.
"""
from __future__ import annotations

import sys
import warnings
from typing import Any, NamedTuple

import numpy as np

# Parameter names whose values NumPy converts to int64 (arrays of them must be integer).
INT_PARAMS = {("binomial", "n"), ("hypergeometric", "ngood"), ("hypergeometric", "nbad"),
              ("hypergeometric", "nsample")}


class A(NamedTuple):
    """An array argument, built fresh for every run: layout, shape, dtype, fill value."""

    layout: str
    shape: tuple
    dtype: str = "f8"
    fill: Any = 1.0


class Call(NamedTuple):
    owner: str    # "gen" (Generator method), "rs" (RandomState method), "mod" (np.random.NAME)
    name: str
    args: tuple
    kwargs: dict


def build(a: A) -> np.ndarray:
    """A real array of the requested layout, filled with a valid value."""
    dt = np.dtype(a.dtype)
    shape = a.shape
    if a.layout == "c":
        return np.full(shape, a.fill, dt)
    if a.layout == "f":
        return np.asfortranarray(np.full(shape, a.fill, dt))
    if a.layout == "t":
        return np.full(shape[::-1], a.fill, dt).T
    if a.layout == "rev":
        return np.full(shape, a.fill, dt)[..., ::-1]
    if a.layout == "step":
        return np.full(shape[:-1] + (2 * shape[-1],), a.fill, dt)[..., ::2]
    if a.layout == "bcast":
        return np.broadcast_to(np.full((1,) + shape[1:], a.fill, dt), shape)
    if a.layout == "ro":
        x = np.full(shape, a.fill, dt)
        x.flags.writeable = False
        return x
    raise ValueError(a.layout)


def materialize_args(obj: Any) -> Any:
    if isinstance(obj, A):
        return build(obj)
    if isinstance(obj, tuple):
        return tuple(materialize_args(x) for x in obj)
    if isinstance(obj, list):
        return [materialize_args(x) for x in obj]
    if isinstance(obj, dict):
        return {k: materialize_args(v) for k, v in obj.items()}
    return obj


# --- the table -----------------------------------------------------------------------

_NEUTRAL = {"p": 0.5, "low": 0.0, "loc": 0.0, "mu": 0.0, "mean": 2.0, "left": 0.0,
            "mode": 1.0, "right": 2.0, "ngood": 3, "nbad": 3, "nsample": 2}


def _owners(name: str) -> list[str]:
    out = []
    if hasattr(np.random.Generator, name):
        out.append("gen")
    if hasattr(np.random.RandomState, name):
        out += ["rs", "mod"]
    return out


def _fill_for(dtype: str, value: Any) -> Any:
    """A valid parameter value that the dtype can hold (1 where an integer cannot hold it)."""
    kind = np.dtype(dtype).kind
    if kind in "biu":
        return int(value) if float(value).is_integer() and value >= 0 else 1
    if kind in "US":
        return str(value)
    if kind in "Mm":
        return 2
    return value


def _dist_calls(name: str, params: tuple) -> list[tuple]:
    """(args, kwargs) cases for a size-and-parameters draw."""
    neutral = [_NEUTRAL.get(p, 2.0) for p in params]

    def arr(i, layout, shape, dtype=None, fill=None):
        dt = dtype or ("i8" if (name, params[i]) in INT_PARAMS else "f8")
        return A(layout, shape, dt, neutral[i] if fill is None else fill)

    def with_(i, value):
        v = list(neutral)
        v[i] = value
        return tuple(v)

    cases: list[tuple] = [
        (tuple(neutral), {}),
        (tuple(neutral), {"size": 3}),
        (tuple(neutral), {"size": (2, 3)}),
        (tuple(neutral), {"size": 0}),
        (tuple(neutral), {"size": ()}),
        (tuple(neutral), {"size": -1}),
        (tuple(neutral), {"size": 2.5}),
        (tuple(neutral), {"size": [2, 1]}),
    ]
    if not params:
        return cases
    last = len(params) - 1
    cases += [
        (with_(0, arr(0, "rev", (3,))), {}),
        (with_(0, arr(0, "f", (2, 3))), {}),
        (with_(0, arr(0, "t", (2, 3))), {"size": (2, 3)}),
        (with_(0, arr(0, "c", (1, 3))), {"size": (2, 3)}),
        (with_(0, arr(0, "c", (3,))), {"size": (4,)}),
        (with_(0, arr(0, "c", (3,))), {"size": (2, 3)}),
        (with_(0, arr(0, "c", (2, 3))), {"size": (3,)}),
        (with_(0, arr(0, "c", ())), {}),
        (with_(0, arr(0, "c", ())), {"size": 2}),
        (with_(0, arr(0, "c", (0,))), {}),
        (with_(0, arr(0, "c", (0,))), {"size": 0}),
        (with_(0, arr(0, "c", (3,), dtype="f4")), {}),
        (with_(0, arr(0, "c", (3,), dtype="c16")), {}),
        (with_(0, arr(0, "c", (3,), dtype="i1", fill=int(neutral[0]) if float(neutral[0]).is_integer() else 1)), {}),
        (with_(0, [neutral[0]] * 3), {}),
        (with_(0, [neutral[0]] * 3), {"size": (2, 3)}),
        (with_(0, -1), {}),
        (with_(0, -1), {"size": 3}),
        (with_(last, -1.0), {}),
        (with_(last, float("nan")), {}),
        (with_(0, np.float32(neutral[0])), {}),
        (tuple(neutral), {"size": np.int64(3)}),
        (tuple(neutral), {"size": np.array([2, 3])}),
        ((), {**dict(zip(params, neutral)), "size": (2, 1)}),
        ((), {**dict(zip(params, neutral)), params[0]: arr(0, "f", (2, 3))}),
    ] + [(with_(0, arr(0, "c", (2,), dtype=dt, fill=_fill_for(dt, neutral[0]))), {})
         for dt in ("?", "u8", "f2", "g", "c8", "U3", "M8[s]", "O", ">f8")]
    if len(params) > 1:
        v = list(neutral)
        v[0] = arr(0, "step", (3,))
        v[last] = arr(last, "bcast", (2, 1))
        cases += [(tuple(v), {}), (tuple(v), {"size": (2, 3)}), (tuple(v), {"size": (3,)})]
        v = list(neutral)
        v[last] = arr(last, "c", (3,))
        v[0] = -1
        cases.append((tuple(v), {}))
    return cases


def calls() -> list[Call]:
    """The whole table (deterministic)."""
    import faketensor.kernels.numpy.random as kr
    out: list[Call] = []

    def add(name: str, cases: list, owners: list | None = None) -> None:
        for owner in owners or _owners(name):
            for args, kwargs in cases:
                out.append(Call(owner, name, args, kwargs))

    for name, params in kr.DISTRIBUTIONS.items():
        add(name, _dist_calls(name, params))
    # Generator's dtype= and out=
    for name in ("random", "standard_normal", "standard_exponential", "standard_gamma"):
        pre = (2.0,) if name == "standard_gamma" else ()
        add(name, [
            (pre, {"dtype": np.float32}), (pre, {"dtype": "f4", "size": (2, 3)}),
            (pre, {"dtype": np.int32}), (pre, {"dtype": np.float16}),
            (pre, {"out": A("c", (3,))}), (pre, {"out": A("f", (2, 3))}),
            (pre, {"out": A("t", (2, 3))}), (pre, {"out": A("rev", (3,))}),
            (pre, {"out": A("c", (3,), "f4")}), (pre, {"out": A("c", (3,), "f4"), "dtype": "f4"}),
            (pre, {"out": A("c", (3,)), "size": 3}), (pre, {"out": A("c", (3,)), "size": 4}),
            (pre, {"out": A("ro", (3,))}), (pre, {"out": A("c", (2, 3)), "size": (2, 3)}),
        ], ["gen"])
    add("standard_gamma", [((A("c", (3,), fill=2.0),), {"out": A("c", (2, 3))}),
                           ((A("c", (3,), fill=2.0),), {"out": A("c", (3, 2))})], ["gen"])
    add("standard_exponential", [((), {"method": "inv", "size": 2}), ((), {"method": "bad"})], ["gen"])
    # rand / randn (legacy dims), ranf / sample (mtrand aliases)
    dims = [((), {}), ((2, 3), {}), ((0,), {}), ((-1,), {}), ((2.5,), {}), (((2, 3),), {})]
    add("rand", dims)
    add("randn", dims)
    size_only = [((), {}), ((3,), {}), (((2, 3),), {}), ((), {"size": 0}), ((-1,), {})]
    add("ranf", size_only, ["mod"])
    add("sample", size_only, ["mod"])
    add("tomaxint", size_only, ["rs"])
    # integers / randint / random_integers
    int_cases = [
        ((5,), {}), ((5,), {"size": 3}), ((2, 9), {"size": (2, 3)}), ((5,), {"size": 0}),
        ((5,), {"size": ()}), ((0,), {}), ((0,), {"size": 0}), ((5, 2), {}), ((-1, 5), {}),
        ((A("c", (3,), "i8", 5),), {}), ((A("f", (2, 3), "i8", 1), 9), {}),
        ((0, A("rev", (3,), "i8", 9)), {"size": (2, 3)}), ((0, A("c", (3,), "i8", 9)), {"size": (4,)}),
        ((0, A("c", (2, 3), "i8", 9)), {"size": (3,)}), ((A("c", (), "i8", 5),), {}),
        ((A("c", (3,), "f8", 5),), {}), (([1, 2, 3], 9), {}), ((5,), {"size": -1}),
    ]
    dtypes = [np.int8, np.uint8, "u2", np.int32, np.uint64, bool, int, np.bool_, np.float64, ">i4"]
    add("integers", int_cases + [((2,), {"dtype": d}) for d in dtypes]
        + [((2,), {"dtype": d, "size": 3}) for d in dtypes]
        + [((-1, 2), {"dtype": np.uint8}), ((0, 300), {"dtype": np.uint8}),
           ((0, 300), {"dtype": np.uint8, "size": 0}), ((5, 5), {"endpoint": True}),
           ((5,), {"endpoint": True, "size": 2})])
    add("randint", int_cases + [((2,), {"dtype": d}) for d in dtypes]
        + [((2,), {"dtype": d, "size": 3}) for d in dtypes]
        + [((-1, 2), {"dtype": np.uint8}), ((0, 300), {"dtype": "u1", "size": 2})])
    add("random_integers", [((5,), {}), ((5,), {"size": 3}), ((1, 5), {"size": (2, 2)}),
                            ((1, A("c", (3,), "i8", 5)), {}), ((1, A("c", (), "i8", 5)), {}),
                            ((A("c", (1,), "i8", 5),), {}), ((0,), {})])
    # choice
    two_d = A("f", (4, 3))
    choice = [
        ((5,), {}), ((5,), {"size": 3}), ((5,), {"size": (2, 2)}), ((5,), {"size": ()}),
        ((0,), {}), ((0,), {"size": 0}), ((-3,), {}), ((5,), {"size": 6, "replace": False}),
        ((5,), {"size": 3, "replace": False}), ((5,), {"size": -1}),
        ((A("rev", (5,)),), {}), ((A("rev", (5,)),), {"size": (2, 3)}),
        ((A("rev", (5,)),), {"size": ()}), ((A("c", (0,)),), {"size": 2}),
        ((A("c", (5,), "i2", 1),), {"size": 4, "replace": False}),
        ((two_d,), {}), ((two_d,), {"size": 2}),
        ((A("c", (), "i8", 4),), {"size": 2}), ((A("c", (), "f8", 4),), {"size": 2}),
        (([1, 2, 3],), {"size": 2}), ((2.5,), {}),
        ((3,), {"p": [0.2, 0.3, 0.5]}), ((3,), {"p": [0.2, 0.3, 0.6]}), ((3,), {"p": [0.5, 0.5]}),
        ((3,), {"p": A("rev", (3,), fill=1 / 3), "size": 4}), ((3,), {"p": A("c", (3, 1), fill=1 / 3)}),
        ((3,), {"p": A("c", (4,), fill=0.25)}), ((3,), {"p": [0.5, 0.5, 0.0], "size": 3, "replace": False}),
        ((A("c", (), "i8", 4),), {"p": A("c", (4,), fill=0.25)}),
    ]
    gen_choice = [
        ((two_d,), {"axis": 1}), ((two_d,), {"axis": 1, "size": (2, 2)}), ((two_d,), {"axis": -1}),
        ((two_d,), {"axis": 2}), ((A("t", (2, 3, 4)),), {"axis": 1, "size": 5}),
        ((two_d,), {"axis": 1, "size": ()}), ((two_d,), {"axis": 0, "shuffle": False, "replace": False,
                                                          "size": 2}),
    ]
    add("choice", choice)
    add("choice", gen_choice, ["gen"])
    # permutation, shuffle, permuted
    perm = [((5,), {}), ((-2,), {}), ((np.int32(4),), {}), ((np.uint64(3),), {}),
            ((A("rev", (5,)),), {}), ((A("f", (3, 4)),), {}), ((A("t", (2, 3, 4)),), {}),
            ((A("c", ()),), {}), ((A("c", (0, 3)),), {}), (([1, 2, 3],), {}), ((A("bcast", (3, 2)),), {})]
    add("permutation", perm)
    add("permutation", [((A("f", (3, 4)),), {"axis": 1}), ((A("t", (2, 3, 4)),), {"axis": -1}),
                        ((A("f", (3, 4)),), {"axis": 2}), ((A("c", (5,)),), {"axis": -1})], ["gen"])
    shuf = [((A("rev", (5,)),), {}), ((A("f", (3, 4)),), {}), ((A("ro", (3,)),), {}),
            ((A("c", ()),), {}), ((A("c", (0,)),), {}), ((A("bcast", (3, 2)),), {})]
    add("shuffle", shuf)
    add("shuffle", [((A("f", (3, 4)),), {"axis": 1}), ((A("f", (3, 4)),), {"axis": 5})], ["gen"])
    add("permuted", [
        ((A("f", (3, 4)),), {}), ((A("f", (3, 4)),), {"axis": 0}), ((A("t", (2, 3, 4)),), {"axis": 1}),
        ((A("rev", (5,)),), {}), ((A("step", (3, 4)),), {}), ((A("f", (3, 4)),), {"axis": 3}),
        ((A("c", (3, 4)),), {"out": A("f", (3, 4))}), ((A("c", (3, 4)),), {"out": A("step", (3, 4))}),
        ((A("c", (3, 4)),), {"out": A("c", (4, 3))}), ((A("c", (3, 4)),), {"out": A("ro", (3, 4))}),
        ((A("c", (3, 4)),), {"out": A("c", (3, 4), "f4")}), ((A("c", (3, 4), "f4"),), {"out": A("c", (3, 4))}),
        (([1.0, 2.0],), {}), ((A("c", ()),), {}),
    ], ["gen"])
    # multinomial, dirichlet, multivariate
    add("multinomial", [
        ((5, [0.5, 0.5]), {}), ((5, [0.5, 0.5]), {"size": 3}), ((5, [0.5, 0.5]), {"size": (2, 2)}),
        ((5, [0.5, 0.5]), {"size": 0}), ((5, []), {}), ((5, 0.5), {}), ((5, [0.7, 0.7]), {}),
        ((-1, [0.5, 0.5]), {}), ((5, A("rev", (4,), fill=0.25)), {"size": 2}),
        ((5, A("f", (2, 3), fill=0.2)), {}), ((5, A("f", (2, 3), fill=0.2)), {"size": (4, 2)}),
        ((5, A("f", (2, 3), fill=0.2)), {"size": 2}), ((A("c", (3,), "i8", 5), [0.5, 0.5]), {}),
        ((A("c", (3,), "i8", 5), [0.5, 0.5]), {"size": (2, 3)}), ((A("c", (), "i8", 5), [0.5, 0.5]), {}),
    ])
    add("dirichlet", [
        (([1.0, 2.0, 3.0],), {}), (([1.0, 2.0],), {"size": 4}), (([1.0, 2.0],), {"size": (2, 2)}),
        (([1.0, 2.0],), {"size": 0}), (([-1.0, 2.0],), {}), (([0.0, 1.0],), {}),
        ((A("rev", (3,)),), {"size": 2}), ((A("c", (2, 2)),), {}), ((A("c", ()),), {}),
        (([[1.0, 2.0]],), {}), ((A("c", (3,), "c16"),), {}),
    ])
    mvn = [
        (([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]), {}), (([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]), {"size": 3}),
        (([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]), {"size": (2, 2)}),
        (([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]]), {"check_valid": "raise"}),
        (([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]), {"check_valid": "bad"}),
        (([0.0], [[1.0, 0.0], [0.0, 1.0]]), {}), (([[0.0]], [[1.0]]), {}),
        ((A("rev", (3,)), A("f", (3, 3))), {"size": 2}), ((A("c", (3,), "f4"), A("t", (3, 3))), {}),
        ((A("c", (3,)), A("c", (3, 2))), {}), ((A("c", (2,), "i8", 1), [[1.0, 0.0], [0.0, 1.0]]), {}),
        ((A("c", (2,), "c16"), [[1.0, 0.0], [0.0, 1.0]]), {}),
    ]
    add("multivariate_normal", mvn)
    add("multivariate_normal", [(([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]), {"method": m})
                                for m in ("cholesky", "eigh", "bad")]
        + [((A("c", (2,), "f2"), [[1.0, 0.0], [0.0, 1.0]]), {"method": "cholesky", "check_valid": "bad"})],
        ["gen"])
    add("multivariate_hypergeometric", [
        (([2, 3, 4], 3), {}), (([2, 3, 4], 3), {"size": 2}), (([2, 3, 4], 3), {"size": (2, 2)}),
        (([2, 3, 4], 30), {}), (([2, 3, 4], -1), {}), (([2, 3, 4], 3), {"method": "count"}),
        (([2, 3, 4], 3), {"method": "bad"}), ((A("rev", (3,), "i8", 2), 3), {}),
        ((A("c", (2, 2), "i8", 2), 3), {}), ((A("c", (3,), "f8", 2), 3), {}), (([2, 3], 2.5), {}),
    ])
    add("bytes", [((5,), {}), ((0,), {}), ((-1,), {}), ((2.5,), {}), ((np.int64(3),), {})])
    _fake_parameter_calls(add)
    return out


def _fake_parameter_calls(add) -> None:
    """Every parameter an array (a fake in the mode) at once, by keyword and by position,
    with and without size, of dtypes NumPy casts (float32, int64, bool) and awkward layouts."""
    import faketensor.kernels.numpy.random as kr
    for name, params in kr.DISTRIBUTIONS.items():
        if not params:
            continue
        neutral = [_NEUTRAL.get(p, 2.0) for p in params]

        def arr(i, layout, shape, dt=None):
            isint = (name, params[i]) in INT_PARAMS
            d = dt or ("i8" if isint else "f8")
            v = neutral[i]
            return A(layout, shape, d, _fill_for(d, v) if np.dtype(d).kind != "f" else float(v))

        every = lambda layout, shape, dt=None: tuple(arr(i, layout, shape, dt) for i in range(len(params)))
        cases = [
            ((), dict(zip(params, every("c", (2, 3))))),
            ((), {**dict(zip(params, every("f", (2, 3)))), "size": (2, 3)}),
            ((), {**dict(zip(params, every("t", (2, 3)))), "size": (4, 2, 3)}),
            ((), {**dict(zip(params, every("rev", (3,)))), "size": (2, 2)}),
            (every("bcast", (2, 3), "f4"), {}),
            (every("step", (3,), "i8"), {"size": 3}),
            (every("c", (), "f4"), {}),
            (every("c", (), "f8"), {"size": 2}),
            (every("c", (0, 3)), {}),
            (every("c", (1,)), {"size": ()}),
            ((), {params[-1]: arr(len(params) - 1, "f", (2, 3))}),
        ]
        add(name, cases)
    add("uniform", [((), {"low": A("c", (3,), fill=0.0), "high": A("c", (2, 1), fill=1.0), "size": (2, 3)}),
                    ((), {"low": A("rev", (3,), "f4", 0.0), "high": A("c", (), "i8", 2)})])
    add("binomial", [((A("c", (3,), "i4", 4), A("f", (2, 3), "f4", 0.5)), {}),
                     ((A("c", (3,), "i8", 4), A("c", (3,), "f8", 0.5)), {"size": (2, 3)}),
                     ((A("c", (3,), "f8", 4.0), 0.5), {}), ((A("c", (3,), "u8", 4), 0.5), {})])
    add("integers", [((A("c", (3,), "i8", 0), A("c", (2, 1), "i8", 9)), {"endpoint": True}),
                     ((A("rev", (3,), "i4", 1), A("c", (3,), "i2", 9)), {"dtype": np.int8}),
                     ((A("c", (3,), "u1", 1), A("c", (3,), "u1", 9)), {"dtype": np.uint8, "endpoint": True}),
                     ((A("c", (3,), "i8", 1),), {"dtype": np.uint64, "size": (2, 3)}),
                     ((A("c", (3,), "i8", 1),), {"dtype": bool, "endpoint": True}),
                     ((A("c", (3,), "i8", 1), 5), {"dtype": np.int16, "size": (4, 3)})], ["gen"])
    add("randint", [((A("c", (3,), "i8", 0), A("c", (2, 1), "i8", 9)), {}),
                    ((A("rev", (3,), "i4", 1), A("c", (3,), "i2", 9)), {"dtype": np.int8})], ["rs", "mod"])
    add("choice", [((A("c", (5,)),), {"p": A("rev", (5,), fill=0.2), "size": 3, "replace": False}),
                   ((5,), {"p": A("c", (5,), "f4", 0.2), "size": (2, 2)}),
                   ((A("c", (), "i8", 5),), {"size": 3, "replace": False}),
                   ((A("c", (), "i8", 5),), {})])
    add("choice", [((A("f", (4, 3)),), {"p": A("c", (3,), fill=1 / 3), "axis": 1, "size": 2}),
                   ((A("f", (4, 3)),), {"replace": False, "axis": 1, "size": 2, "shuffle": False}),
                   ((A("c", (), "i8", 5),), {"size": 3, "replace": False, "shuffle": False})], ["gen"])
    add("multinomial", [((A("c", (2,), "i8", 5), A("c", (2, 3), fill=1 / 3)), {}),
                        ((A("c", (), "i8", 5), A("rev", (3,), "f4", 1 / 3)), {"size": 2})], ["gen"])
    add("dirichlet", [((A("c", (3,), "f4", 1.0),), {"size": (2, 2)}), ((A("step", (3,), "i8", 1),), {})])
    add("multivariate_normal", [  # a fake covariance is assumed valid: all-ones is PSD, not PD
        ((A("rev", (3,)), A("f", (3, 3))), {"method": m, "size": (2, 2)}) for m in ("svd", "eigh")]
        + [((A("c", (2,), "f4"), [[2.0, 1.0], [1.0, 2.0]]), {"method": "cholesky", "size": 3}),
           ((A("c", (2,)), A("c", (2, 2))), {"check_valid": "ignore", "tol": 1e-3})], ["gen"])
    add("multivariate_normal", [((A("rev", (3,)), A("f", (3, 3))), {"size": (2, 2)}),
                                ((A("c", (3,), "f4"), A("t", (3, 3))), {"check_valid": "raise"})], ["rs", "mod"])
    add("multivariate_hypergeometric", [((A("c", (3,), "i8", 2), A("c", (), "i8", 3)), {"size": 2}),
                                        ((A("c", (3,), "i4", 2), 3), {"method": "marginals", "size": (2, 2)})])
    add("permuted", [((A("c", (3, 4)),), {"axis": -1, "out": A("f", (3, 4))}),
                     ((A("bcast", (3, 4)),), {"axis": 0})], ["gen"])
    add("random", [((), {"size": (2, 3), "dtype": np.float32, "out": A("f", (2, 3), "f4")}),
                   ((), {"out": A("c", (0, 3))})], ["gen"])
    add("standard_normal", [((), {"dtype": "float32", "out": A("c", (2, 3), "f4")}),
                            ((), {"dtype": np.float64, "out": A("f", (2, 3), "f8"), "size": [2, 3]})], ["gen"])
    add("standard_exponential", [((), {"method": "inv", "dtype": np.float32, "size": 3}),
                                 ((), {"method": "zig", "dtype": np.float32, "out": A("c", (3,), "f4")}),
                                 ((), {"method": "inv", "out": A("f", (2, 3))})], ["gen"])


# --- the worker --------------------------------------------------------------------------


def _scalar_dtype(x: Any) -> np.dtype | None:
    if isinstance(x, bool):
        return np.dtype(bool)
    if isinstance(x, int):
        return np.dtype("long")
    if isinstance(x, float):
        return np.dtype(np.float64)
    return None


def _real_owner(call: Call) -> Any:
    if call.owner == "gen":
        return np.random.default_rng(0)
    if call.owner == "rs":
        return np.random.RandomState(0)
    return np.random


def _variants(call: Call) -> list[str]:
    if call.owner == "gen":
        return ["gen", "gen_out"]
    if call.owner == "rs":
        return ["rs_out", "rs_in"]
    return ["mod"]


def check_call(call: Call) -> str | None:
    """None if every variant of the call agrees with NumPy, else a description."""
    import faketensor as ft
    from oracle import _arrays, compare_meta

    real_args, real_kwargs = materialize_args((call.args, call.kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            real: Any = getattr(_real_owner(call), call.name)(*real_args, **real_kwargs)
        except Exception as e:  # compared by type below
            real = e
    problems = []
    for variant in _variants(call):
        args, kwargs = materialize_args((call.args, call.kwargs))
        conv = ft.Converter()

        def fk(x):
            if isinstance(x, (list, tuple)):
                return type(x)(fk(v) for v in x)
            if isinstance(x, dict):
                return {k: fk(v) for k, v in x.items()}
            return conv.to_fake(x) if isinstance(x, np.ndarray) else x

        fargs, fkwargs = fk((args, {k: v for k, v in kwargs.items() if k != "size"}))
        if "size" in kwargs:  # a real size array stays real inside the mode (keep_real)
            fkwargs["size"] = kwargs["size"]
        outside = {"gen_out": np.random.default_rng(0), "rs_out": np.random.RandomState(0)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                with ft.FakeMode():
                    if variant == "gen":
                        owner: Any = np.random.default_rng(0)
                    elif variant == "rs_in":
                        owner = np.random.RandomState(0)
                    elif variant == "mod":
                        owner = np.random
                    else:
                        owner = outside[variant]
                    fake: Any = getattr(owner, call.name)(*fargs, **fkwargs)
            except Exception as e:  # compared by type below
                fake = e
        where = f"{variant}.{call.name}"
        try:
            if variant == "mod" and refuses(call):
                assert isinstance(fake, ft.DataDependentError), \
                    f"{where}: the result's storage depends on a fake's value; fake gave {fake!r}"
            elif variant in ("gen", "mod"):
                _compare_exact(real, fake, _arrays((args, kwargs)), _arrays((fargs, fkwargs)),
                               where, compare_meta)
            else:
                _compare_real_generator(real, fake, where)
        except AssertionError as e:
            problems.append(str(e))
    return "; ".join(problems) or None


def refuses(call: Call) -> bool:
    """Legacy choice(a, size, replace=False) with a 0-d fake ``a``: a view of
    permutation(a), whose storage size is a's value (DataDependentError)."""
    a = call.args[0] if call.args else None
    return (call.name == "choice" and isinstance(a, A) and a.shape == ()
            and call.kwargs.get("replace", True) is False and call.kwargs.get("p") is None
            and call.kwargs.get("size") is not None)


def real_is_bytes(x: Any) -> bool:
    return type(x) is bytes


def _compare_exact(real: Any, fake: Any, ri: list, fi: list, where: str, compare_meta) -> None:
    import faketensor as ft
    if isinstance(real, Exception):
        assert isinstance(fake, Exception), f"{where}: real raised {type(real).__name__}: {real}; fake gave {fake!r}"
        from oracle import _same_family
        assert isinstance(fake, type(real)) or _same_family(real, fake), \
            f"{where}: real raised {type(real).__name__}: {real}; fake raised {type(fake).__name__}: {fake}"
        return
    if real_is_bytes(real):
        assert type(fake).__name__ == "FakeBytes" and len(fake) == len(real), \
            f"{where}: real bytes of length {len(real)}, fake {fake!r}"
        return
    assert not isinstance(fake, Exception), \
        f"{where}: fake raised {type(fake).__name__}: {fake}; real gave {getattr(real, 'shape', real)!r}"
    sdt = _scalar_dtype(real)
    if sdt is not None:
        assert ft.is_fake(fake) and fake.shape == () and fake.dtype == sdt, \
            f"{where}: real {type(real).__name__}, fake {fake!r}"
        # a Python number is a fake Python number of its type; a NumPy scalar is not one
        want = type(real) if type(real) in (bool, int, float, complex) else None
        assert fake.pytype is want, \
            f"{where}: real {type(real).__name__}, fake stands for {fake.pytype}"
        return
    if isinstance(real, np.generic):
        assert ft.is_fake(fake) and fake.pytype is None, \
            f"{where}: real {type(real).__name__}, fake stands for {getattr(fake, 'pytype', fake)}"
    compare_meta(real, fake, ri, fi, where)


def _compare_real_generator(real: Any, fake: Any, where: str) -> None:
    """A generator that is not a FakeGenerator: refuse, the real error, or a scalar draw."""
    import faketensor as ft
    if isinstance(fake, (NotImplementedError, ft.DataDependentError)):
        return  # UnsupportedOperationError, or a fake refusing to give NumPy's C code its data
    if isinstance(real, Exception):
        assert isinstance(fake, type(real)), \
            f"{where}: real raised {type(real).__name__}, fake gave {type(fake).__name__}: {fake}"
        return
    assert not isinstance(fake, Exception), f"{where}: {type(fake).__name__}: {fake}"
    assert not isinstance(fake, np.ndarray) and not ft.is_fake(fake), \
        f"{where}: a real generator returned {type(fake).__name__} inside FakeMode"
    assert type(fake) is type(real), f"{where}: {type(fake).__name__} vs real {type(real).__name__}"


def main(start: int, stop: int) -> None:
    table = calls()
    for i in range(start, min(stop, len(table))):
        print(f"START {i}", flush=True)
        try:
            msg = check_call(table[i])
        except Exception as e:  # a harness error is a failure too
            msg = f"harness: {type(e).__name__}: {e}"
        if msg is None:
            print(f"OK {i}", flush=True)
        else:
            print(f"BAD {i} {table[i].owner}.{table[i].name}{table[i].args!r}{table[i].kwargs!r}: "
                  + msg.replace("\n", " "), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
