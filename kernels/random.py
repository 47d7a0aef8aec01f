"""np.random: legacy RandomState functions and Generator methods; output shape from size."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .creation import fresh, norm_shape
from .layout import broadcast_shapes
from .operands import as_meta
from .registry import Out, register

_F8 = np.dtype(np.float64)
_I8 = np.dtype(np.int64)


def _size_shape(size: Any) -> tuple | None:
    if size is None:
        return None
    return norm_shape(size)


def _param_shape(*params: Any) -> tuple:
    shapes = [as_meta(p).shape for p in params if p is not None and not isinstance(p, (int, float))]
    return broadcast_shapes(*shapes) if shapes else ()


def _out(shape: tuple | None, params: tuple, dt: np.dtype) -> Out:
    pshape = _param_shape(*params)
    if shape is None:
        shape = pshape
    elif pshape and broadcast_shapes(pshape, shape) != shape:
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.  "
                         f"Mismatch is between arg 0 with shape {pshape} and arg 1 with shape {shape}.")
    return fresh(shape, dt)


_DIMS_FUNCS = ("rand", "randn")
_SIZE_ONLY = ("random", "random_sample", "ranf", "sample", "standard_normal",
              "standard_exponential", "standard_cauchy")
_DISTS = {  # name: number of leading distribution parameters
    "normal": 2, "uniform": 2, "beta": 2, "binomial": 2, "chisquare": 1, "exponential": 1,
    "f": 2, "gamma": 2, "geometric": 1, "gumbel": 2, "hypergeometric": 3, "laplace": 2,
    "logistic": 2, "lognormal": 2, "logseries": 1, "negative_binomial": 2,
    "noncentral_chisquare": 2, "noncentral_f": 3, "pareto": 1, "poisson": 1, "power": 1,
    "rayleigh": 1, "standard_gamma": 1, "standard_t": 1, "triangular": 3, "vonmises": 2,
    "wald": 2, "weibull": 1, "zipf": 1,
}
_INT_DISTS = {"binomial", "geometric", "hypergeometric", "logseries", "negative_binomial",
              "poisson", "zipf"}


def _rand(*dims):
    return fresh(norm_shape(dims), _F8) if dims else Out((), _F8, ())


def _size_only(size=None, dtype=None, out=None):
    dt = np.dtype(dtype) if dtype is not None else _F8
    if out is not None:
        return out
    s = _size_shape(size)
    return fresh(s if s is not None else (), dt)


def _dist(name: str, nparams: int):
    def kernel(*args, size=None, **kw):
        params = list(args[:nparams]) + [kw.pop(k) for k in list(kw)]
        if len(args) > nparams:
            size = args[nparams]
        dt = _I8 if name in _INT_DISTS else _F8
        return _out(_size_shape(size), tuple(params), dt)
    kernel.__name__ = name
    return kernel


def _randint(low, high=None, size=None, dtype=int):
    dt = np.dtype(dtype)
    return _out(_size_shape(size), (low, high), dt)


def _integers(low, high=None, size=None, dtype=np.int64, endpoint=False):
    return _randint(low, high, size, dtype)


def _choice(a, size=None, replace=True, p=None, *rest, **kw):
    if isinstance(a, (int, np.integer)):
        dt = _I8
    else:
        dt = as_meta(a).dtype
    s = _size_shape(size)
    return fresh(s if s is not None else (), dt)


def _permutation(x, *rest, **kw):
    if isinstance(x, (int, np.integer)):
        return fresh((operator.index(x),), _I8)
    m = as_meta(x)
    return fresh(m.shape, m.dtype)


def _shuffle(x, *rest, **kw):
    return None


def _multivariate_normal(mean, cov, size=None, *rest, **kw):
    n = as_meta(mean).shape[-1] if not isinstance(mean, (int, float)) else 1
    s = _size_shape(size) or ()
    return fresh(s + (n,), _F8)


def _register_all() -> None:
    rs = np.random.mtrand._rand
    table = {n: _rand for n in _DIMS_FUNCS}
    table.update({n: _size_only for n in _SIZE_ONLY})
    table.update({n: _dist(n, k) for n, k in _DISTS.items()})
    table.update(randint=_randint, random_integers=_randint, choice=_choice,
                 permutation=_permutation, shuffle=_shuffle,
                 multivariate_normal=_multivariate_normal)
    for name, k in table.items():
        fn = getattr(rs, name, None)
        if fn is not None:
            register(fn, tags=("random", "factory"), name=f"np.random.{name}")(k)
            register(getattr(np.random, name), tags=("random", "factory"), name=f"np.random.{name}")(k)
    gen_table = dict(table)
    gen_table.update(integers=_integers, random=_size_only, standard_normal=_size_only,
                     permuted=_permutation)
    for name, k in gen_table.items():
        if hasattr(np.random.Generator, name):
            register(f"Generator.{name}", tags=("random", "factory"))(
                (lambda kk: (lambda self, *a, **kw: kk(*a, **kw)))(k))


_register_all()
