"""Outcomes of real readers and of faketensor on one file, for differential comparison."""
from __future__ import annotations

import warnings

import numpy as np

import faketensor as ft
from faketensor.meta_utils.convert.files import FakeNpzFile

FLAGS = ("c_contiguous", "f_contiguous", "writeable", "owndata", "aligned")
# real failures that only reading array data can see (out of scope for header-only reads)
DATA_ERRORS = ("Bad CRC-32", "Compressed file ended", "Error -3 while decompressing")


def meta(x) -> tuple:
    if isinstance(x, bytes):
        return ("bytes", len(x))
    return ("array", x.shape, x.dtype.str, x.dtype.descr if x.dtype.names else None, x.strides,
            tuple(getattr(x.flags, f) for f in FLAGS), x.base is None)


def outcome(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn()
        except Exception as e:  # compared by type
            return ("error", e), tuple(sorted({x.category.__name__ for x in w
                                               if not issubclass(x.category, ResourceWarning)}))
    return ("ok", r), tuple(sorted({x.category.__name__ for x in w
                                    if not issubclass(x.category, ResourceWarning)}))


def _npz_outcomes(z) -> list:
    res = []
    for k in dict.fromkeys(list(z.files) + ["nope"]):
        (kind, v), warns = outcome(lambda: z[k])
        res.append((k, kind, v if kind == "error" else meta(v), warns))
    return res


def real_np_load(path: str, **kw):
    """(kind, value-or-exception, warnings); npz files expanded member by member."""
    def run():
        r = np.load(path, **kw)
        if isinstance(r, np.lib.npyio.NpzFile):
            with r:
                return ("npz", _npz_outcomes(r))
        m = meta(r)
        del r
        return m
    return outcome(run)


def fake_load(loader, path: str, **kw):
    def run():
        r = loader(path, **kw)
        if isinstance(r, FakeNpzFile):
            with r:
                return ("npz", _npz_outcomes(r))
        return meta(r)
    return outcome(run)


def in_mode_np_load(path, **kw):
    with ft.FakeMode():
        return np.load(path, **kw)


def compare(real, fake, where: str) -> str | None:
    """None when the fake outcome matches the real one; else a description of the mismatch."""
    (rk, rv), rw = real
    (fk, fv), fw = fake
    if rk == "error":
        if isinstance(rv, MemoryError):  # NumPy failed to allocate: the fake sees a bad file
            return None if fk == "error" and isinstance(fv, ValueError) else \
                f"{where}: real MemoryError, fake {fk} {fv!r:.200}"
        if any(m in str(rv) for m in DATA_ERRORS):
            return None
        if fk != "error":
            return f"{where}: real {type(rv).__name__}: {str(rv)[:150]}; fake accepted {fv!r:.200}"
        if not isinstance(fv, type(rv)):
            return f"{where}: real {type(rv).__name__}: {str(rv)[:150]}; fake {type(fv).__name__}: {str(fv)[:150]}"
        return None
    if fk == "error":
        return f"{where}: real accepted {rv!r:.200}; fake {type(fv).__name__}: {str(fv)[:200]}"
    if rv != fv:
        if rv[0] == "npz" and fv[0] == "npz" and len(rv[1]) == len(fv[1]):
            for (k, a, b, w1), (k2, c, d, w2) in zip(rv[1], fv[1]):
                msg = compare(((a, b), w1), ((c, d), w2), f"{where}[{k!r}]")
                if msg:
                    return msg
            return None
        return f"{where}: real {rv!r:.300} vs fake {fv!r:.300}"
    if rw != fw:
        return f"{where}: warnings differ: real {rw}, fake {fw}"
    return None


def real_safetensors(path: str):
    """The safetensors library's verdict on a file: its tensors' names, shapes and dtypes."""
    from safetensors import safe_open

    def run():
        with safe_open(path, framework="numpy") as f:
            return ("st", sorted((k, tuple(f.get_slice(k).get_shape()), f.get_slice(k).get_dtype())
                                 for k in f.keys()), f.metadata())
    return outcome(run)


def fake_safetensors(path: str):
    from faketensor.meta_utils.convert.headers import SAFETENSORS_DTYPES, _numpy_dtype

    names = {}
    for name in SAFETENSORS_DTYPES:  # with ml_dtypes installed, bfloat16 and float8 too
        try:
            names[_numpy_dtype(name, "", "")] = name
        except ft.UnsupportedOperationError:
            pass

    def run():
        r = ft.load(path)
        for k, f in r.items():
            assert f.flags.c_contiguous and f.flags.owndata and f.strides == \
                tuple(np.empty(f.shape, f.dtype).strides if 0 not in f.shape else f.strides)
        return ("st", sorted((k, f.shape, names[f.dtype]) for k, f in r.items()), r.metadata)
    return outcome(run)


def compare_safetensors(real, fake, where: str) -> str | None:
    """The library's SafetensorError is a ValueError for faketensor; a dtype NumPy cannot
    hold is UnsupportedOperationError (the library accepts the file)."""
    (rk, rv), _ = real
    (fk, fv), _ = fake
    if rk == "error":
        if fk == "error" and type(fv) is ValueError:
            return None
        if fk == "error" and isinstance(fv, EOFError) and "No data left" in str(fv):
            return None  # an empty file: ft.load answers as np.load does
        return f"{where}: library refused ({str(rv)[:150]}); fake {fk} {fv!r:.200}"
    if fk == "error":
        if isinstance(fv, ft.UnsupportedOperationError) and "NumPy cannot hold" in str(fv):
            return None
        return f"{where}: library accepted {rv!r:.200}; fake {type(fv).__name__}: {str(fv)[:200]}"
    return None if rv == fv else f"{where}: library {rv!r:.300} vs fake {fv!r:.300}"
