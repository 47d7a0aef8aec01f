"""copy.copy, copy.deepcopy and pickle of patched functions behave as on the originals."""
from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import numpy as np
import pytest

import faketensor as ft  # noqa: F401  (installs the patches)
from faketensor.modes import patching

PATCHED = sorted(patching._PATCHED.values(), key=lambda f: (f.__module__ or "", f.__qualname__))


def _ids(f):
    return f"{f.__module__}.{f.__qualname__}"


def test_every_factory_is_patched():
    assert isinstance(np.zeros, patching.PatchedFunction)
    assert isinstance(np.random.randn, patching.PatchedFunction)
    assert len(PATCHED) > 40


@pytest.mark.parametrize("fn", PATCHED, ids=_ids)
def test_copy_and_deepcopy_as_original(fn):
    orig = patching.original(fn)
    assert orig is not fn
    c = copy.copy(orig)
    assert c is orig or c == orig  # functions are atomic; methods copy as equal methods
    assert copy.copy(fn) is fn
    d_orig = copy.deepcopy(orig)
    holder = {"f": fn, "fs": [fn, fn]}
    deep = copy.deepcopy(holder)
    if d_orig is orig:
        assert copy.deepcopy(fn) is fn and deep["f"] is fn and deep["fs"][1] is fn
    else:  # a method of the global RandomState: bound to a deep copy of the state, as unpatched
        d = copy.deepcopy(fn)
        assert type(d) is type(d_orig) and d.__name__ == d_orig.__name__
        assert type(d.__self__) is type(orig.__self__) and d.__self__ is not orig.__self__
        assert deep["f"] is deep["fs"][0] is deep["fs"][1]  # one memo, as for any object


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
@pytest.mark.parametrize("fn", PATCHED, ids=_ids)
def test_pickle_as_original(fn, protocol):
    orig = patching.original(fn)
    back = pickle.loads(pickle.dumps(fn, protocol))
    if isinstance(getattr(orig, "__self__", None), np.random.RandomState):
        # a method of the global RandomState pickles with a copy of its state (unpatched):
        # the original does the same (it cannot be pickled here, its name is patched)
        assert type(back) is type(orig) and back.__name__ == orig.__name__
        assert type(back.__self__) is np.random.RandomState and back.__self__ is not orig.__self__
        assert back.__self__.get_state()[1].tolist() == orig.__self__.get_state()[1].tolist()
    else:  # pickled by name: the name now holds the patched version
        assert back is fn


def test_unpickles_in_a_process_without_faketensor():
    data = pickle.dumps([np.zeros, np.load, np.random.default_rng])
    assert b"faketensor" not in data
    code = ("import pickle, sys, numpy as np; fs = pickle.loads(sys.stdin.buffer.read()); "
            "assert fs == [np.zeros, np.load, np.random.default_rng]; "
            "assert 'faketensor' not in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == b"ok", out.stderr.decode()
