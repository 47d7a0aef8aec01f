"""The import hook (modes/imports.py): library imports inside a mode run paused, the user's
modules run under it. Each import test runs in a fresh interpreter (a module imports once)."""
import os
import subprocess
import sys
import textwrap

import pytest

import faketensor as ft
from faketensor._paths import SCRIPT_DIRS, is_user_file, script_dirs
from faketensor.modes import imports


def run_py(code: str, cwd, *, timeout: int = 240) -> str:
    """Run ``code`` in a fresh interpreter in ``cwd``; its stdout (fails on a non-zero exit)."""
    env = dict(os.environ, PYTHONPATH=str(cwd))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


def test_scipy_and_pandas_import_inside_the_mode(tmp_path):
    pytest.importorskip("scipy")
    pytest.importorskip("pandas")
    out = run_py("""
        import numpy as np, faketensor as ft
        with ft.FakeMode() as mode:
            import scipy.linalg, pandas as pd, scipy.integrate
            x = np.empty((3, 4))
        from scipy.integrate._ivp import radau   # module constants made while importing
        print(type(x).__name__, type(radau.C).__name__, mode.memory.peak["cpu"])
        print(type(radau.__loader__).__name__, type(radau.__spec__.loader).__name__)
        print(pd.DataFrame({"a": [1, 2]})["a"].sum(), scipy.linalg.det(np.eye(2)))
    """, tmp_path)
    assert out.split("\n")[:3] == ["FakeArray ndarray 96", "SourceFileLoader SourceFileLoader",
                                   "3 1.0"]


def test_without_the_hook_pandas_breaks_inside_the_mode(tmp_path):
    """The control: the same import with the finder removed fails on fakes."""
    pytest.importorskip("pandas")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys, faketensor as ft
        from faketensor.modes import imports
        sys.meta_path.remove(imports.FINDER)
        with ft.FakeMode():
            import pandas
    """)], cwd=tmp_path, capture_output=True, text=True, timeout=240)
    # (on fakes, or on the np.broadcast a FakeMode serves, which compiled code cannot import)
    assert r.returncode != 0 and ("FakeArray" in r.stderr or "numpy.broadcast" in r.stderr), \
        r.stderr[-2000:]


def test_user_module_runs_under_the_mode_library_constants_are_real(tmp_path):
    pytest.importorskip("scipy")
    (tmp_path / "mymodel.py").write_text(textwrap.dedent("""
        import numpy as np
        W = np.zeros((1000, 1000))          # a fake: the user's module runs under the mode
        from scipy.integrate._ivp import radau   # a library imported from user code: paused
        C = radau.C
    """))
    out = run_py("""
        import numpy as np, faketensor as ft
        with ft.FakeMode() as mode:
            import mymodel
        print(type(mymodel.W).__name__, type(mymodel.C).__name__, mode.memory.peak["cpu"])
    """, tmp_path)
    assert out.split() == ["FakeArray", "ndarray", "8000000"]


def test_script_imports_only_the_script_folder_runs_under_the_mode(tmp_path):
    script, lib = tmp_path / "script", tmp_path / "lib"
    script.mkdir()
    lib.mkdir()
    (script / "helper.py").write_text("import numpy as np\nH = np.empty(10)\nimport otherlib\n")
    (lib / "otherlib.py").write_text("import numpy as np\nT = np.arange(5.0)\nimport lib2\n")
    (lib / "lib2.py").write_text("import numpy as np\nU = np.ones(3)\n")
    out = run_py(f"""
        import sys, numpy as np, faketensor as ft
        from faketensor.modes.imports import script_imports
        sys.path[:0] = [{str(script)!r}, {str(lib)!r}]
        with script_imports({str(script)!r}), ft.FakeMode() as mode:
            import helper
        print(type(helper.H).__name__, type(helper.otherlib.T).__name__,
              type(helper.otherlib.lib2.U).__name__, mode.memory.peak["cpu"])
    """, tmp_path)
    assert out.split() == ["FakeArray", "ndarray", "ndarray", "80"]


def test_without_script_imports_the_other_folder_is_user_code(tmp_path):
    """The default rule: outside site-packages and the standard library, code is the user's."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "otherlib.py").write_text("import numpy as np\nT = np.arange(5.0)\n")
    out = run_py(f"""
        import sys, faketensor as ft
        sys.path.insert(0, {str(lib)!r})
        with ft.FakeMode():
            import otherlib
        print(type(otherlib.T).__name__)
    """, tmp_path)
    assert out.split() == ["FakeArray"]


def test_whose_file():
    np_file = sys.modules["numpy"].__file__
    assert not is_user_file(np_file)
    assert not is_user_file(os.__file__)
    assert not is_user_file(ft.__file__)
    assert not is_user_file(imports.__file__)            # faketensor's sibling folders
    assert not is_user_file(None) and not is_user_file("built-in")
    assert not is_user_file("<frozen importlib._bootstrap>")
    assert is_user_file(__file__) and is_user_file("<stdin>")
    # a script folder holding the virtual environment: site-packages stays a library
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(np_file))))
    token = SCRIPT_DIRS.set(script_dirs(prefix))
    try:
        assert not is_user_file(np_file)
        assert not is_user_file(__file__)   # outside the script folder
    finally:
        SCRIPT_DIRS.reset(token)


def test_the_finder_is_idle_outside_a_mode():
    assert sys.meta_path[0] is imports.FINDER
    assert imports.FINDER.find_spec("json") is None
    with ft.FakeMode():
        spec = imports.FINDER.find_spec("json")
        assert type(spec.loader).__name__ == "_PausedLoader"
        assert imports.FINDER.find_spec("no_such_module_here") is None


def test_imports_from_threads_inheriting_the_mode(tmp_path):
    """Several threads importing at once inside the mode: libraries real, user modules fake."""
    pytest.importorskip("scipy")
    for i in range(4):
        (tmp_path / f"user{i}.py").write_text(f"import numpy as np\nW = np.empty({i + 1})\n")
    out = run_py("""
        import importlib, numpy as np, faketensor as ft
        from concurrent.futures import ThreadPoolExecutor
        from faketensor.modes.threads import inherit_mode_in_threads
        LIBS = ["scipy.integrate", "scipy.stats", "scipy.signal", "scipy.optimize"]
        def load(i):
            user = importlib.import_module(f"user{i}")
            lib = importlib.import_module(LIBS[i])
            return type(user.W).__name__
        with ft.FakeMode() as mode, inherit_mode_in_threads():
            # scipy's own package first: several threads starting it at once meet its circular
            # imports half-done (CPython's per-module import locks; plain Python fails alike)
            import scipy
            with ThreadPoolExecutor(4) as pool:
                kinds = list(pool.map(load, range(4)))
        from scipy.integrate._ivp import radau
        print(*kinds, type(radau.C).__name__, mode.memory.peak["cpu"])
    """, tmp_path)
    assert out.split() == ["FakeArray"] * 4 + ["ndarray", str(8 * (1 + 2 + 3 + 4))]
