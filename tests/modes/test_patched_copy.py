"""copy.copy, copy.deepcopy and pickle of patched functions behave as on the originals (the
draws of np.random's global RandomState: as module functions, by name)."""
from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import numpy as np
import pytest

import faketensor as ft  # noqa: F401  (installs the patches)
from faketensor.modes import patch_tables

PATCHED = sorted(patch_tables._PATCHED.values(), key=lambda f: (f.__module__ or "", f.__qualname__))


def _ids(f):
    return f"{f.__module__}.{f.__qualname__}"


def test_every_factory_is_patched():
    for fn in (np.zeros, np.random.randn, np.load, np.fft.fftfreq):
        assert getattr(fn, "_ft_patch", False) and patch_tables.original(fn) is not fn
    assert len(PATCHED) > 40


def _global_draw(orig):
    return isinstance(getattr(orig, "__self__", None), np.random.RandomState)


@pytest.mark.parametrize("fn", PATCHED, ids=_ids)
def test_copy_and_deepcopy_as_original(fn):
    orig = patch_tables.original(fn)
    assert orig is not fn
    c = copy.copy(orig)
    assert c is orig or c == orig  # functions are atomic; methods copy as equal methods
    assert copy.copy(fn) is fn
    holder = {"f": fn, "fs": [fn, fn]}
    deep = copy.deepcopy(holder)
    # a draw of the global RandomState is patched as the module function np.random.NAME
    # (a plain function, for speed): it deep-copies as itself, still drawing from the global
    # state, where the unpatched bound method would be bound to a copy of the state
    assert copy.deepcopy(fn) is fn and deep["f"] is fn and deep["fs"][1] is fn
    if not _global_draw(orig):
        assert copy.deepcopy(orig) is orig


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
@pytest.mark.parametrize("fn", PATCHED, ids=_ids)
def test_pickle_as_original(fn, protocol):
    named = sys.modules.get(fn.__module__)
    for part in fn.__qualname__.split("."):
        named = getattr(named, part, None)
    if named is None:
        # NumPy names it where it is not (np.char.join is numpy.strings._join): neither the
        # original nor the patched function pickles
        with pytest.raises(pickle.PicklingError):
            pickle.dumps(fn, protocol)
        return
    back = pickle.loads(pickle.dumps(fn, protocol))
    assert back is fn  # pickled by name (np.random.NAME for a global draw): the patched one


def test_unpickles_in_a_process_without_faketensor():
    data = pickle.dumps([np.zeros, np.load, np.random.default_rng, np.random.randn])
    assert b"faketensor" not in data
    code = ("import pickle, sys, numpy as np; fs = pickle.loads(sys.stdin.buffer.read()); "
            "assert fs == [np.zeros, np.load, np.random.default_rng, np.random.randn]; "
            "assert 'faketensor' not in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == b"ok", out.stderr.decode()
