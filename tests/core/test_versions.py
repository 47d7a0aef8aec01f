"""The support window (faketensor/_numpy_version.py, docs/guide/install.md): importing on
every supported NumPy, the ImportError below it, functions a version lacks left
unregistered, and the library folders known before the import hook exists (Python 3.13)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap

import numpy as np
import pytest

import faketensor as ft
from faketensor import _numpy_version as npv
from faketensor import _paths
from faketensor.kernels.registry import REGISTRY, lookup, register
from locations import REPO  # tests/ and the checkout

ROOT = str(REPO)


def test_running_numpy_is_in_the_window():
    assert npv.SUPPORTED[0] <= npv.VERSION
    assert npv.VERSION == tuple(int(p) for p in np.__version__.split(".")[:2])
    assert npv.at_least(*npv.VERSION) and not npv.at_least(npv.VERSION[0], npv.VERSION[1] + 1)


def test_smoke_a_fake_on_this_numpy():
    with ft.FakeMode(record=True) as mode:
        x = np.ones((1000, 100), np.float32)
        y = (x @ x.T).sum(axis=0)
    assert (y.shape, y.dtype) == ((1000,), np.float32)
    assert mode.memory.peak["cpu"] == 400_000 + 4_000_000 + 4_000


@pytest.mark.parametrize("version", ["2.1.3", "2.0.0", "1.26.4"])
def test_older_numpy_raises_importerror_naming_the_window(tmp_path, version):
    stub = tmp_path / "numpy"
    stub.mkdir()
    (stub / "__init__.py").write_text(f"__version__ = {version!r}\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
    r = subprocess.run([sys.executable, "-c", "import faketensor"], env=env, cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    lo, hi = npv.SUPPORTED
    assert last.startswith("ImportError: faketensor supports NumPy "
                           f"{lo[0]}.{lo[1]} to {hi[0]}.{hi[1]}; this is NumPy {version}")


def test_since_gives_the_function_or_absent():
    assert npv.since((2, 0), "linalg.matrix_norm") is np.linalg.matrix_norm
    future = (npv.VERSION[0], npv.VERSION[1] + 1)
    absent = npv.since(future, "no_such_function")
    assert absent == npv.Absent("numpy.no_such_function", future)


def test_registry_skips_a_function_this_numpy_lacks():
    future = (npv.VERSION[0], npv.VERSION[1] + 1)
    absent = npv.since(future, "strings.not_yet")
    before = dict(REGISTRY)

    @register(absent, tags=("copy",), name="strings.not_yet")
    def not_yet(a):
        raise AssertionError("never called")

    assert REGISTRY == before and lookup(absent) is None


def test_strings_slice_registered_exactly_where_numpy_has_it():
    if npv.at_least(2, 3):
        assert lookup(np.strings.slice) is not None
    else:
        assert not hasattr(np.strings, "slice")


def test_library_roots_read_nothing_from_sysconfig_after_import(monkeypatch):
    """Python 3.13's sysconfig imports its configuration on first use; from inside the import
    hook that import re-entered the hook half-way (AttributeError: 'abi_thread')."""
    def boom(*a, **k):
        raise AssertionError("sysconfig read after import")
    monkeypatch.setattr(sysconfig, "get_paths", boom)
    monkeypatch.setattr(_paths, "_roots", None)
    roots = _paths.library_roots()
    assert _paths._norm(sysconfig.get_path.__globals__["__file__"]).startswith(
        tuple(r.rstrip(os.sep) for r in roots))


def test_planning_imports_a_module_in_a_fresh_interpreter(tmp_path):
    """The import hook's first question (is this a library file?) during a plan."""
    script = tmp_path / "imports.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import json, decimal, fractions, statistics
        x = np.zeros((100, 100))
        y = x + 1
    """))
    exe = os.path.join(os.path.dirname(sys.executable), "faketensor")
    r = subprocess.run([exe, "run", "--json", "plan.json", str(script)], capture_output=True,
                       text=True, timeout=120, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "plan.json").read_text())
    assert data["status"] == "completed" and data["devices"]["cpu"]["peak_bytes"] >= 2 * 80_000  # x, y


@pytest.mark.parametrize("module,name", npv.private_names())
def test_private_numpy_names_the_rules_use_exist_here(module, name):
    import importlib
    assert hasattr(importlib.import_module(module), name)
