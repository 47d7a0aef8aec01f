"""What ``import faketensor`` leaves unimported (issue 30: at most 100 ms over ``import numpy``):
numpy.ma's, numpy.random's, numpy.fft's and numpy.polynomial's patches go in when NumPy first imports them,
CuPy's rules on the first CUDA op, the planner's names on first use, and stdlib modules only a
command needs (zipfile, json, runpy, fractions, importlib.abc's tempfile and shutil) load where used.
Each test runs in a fresh interpreter (a module imports once)."""
import subprocess
import sys
import textwrap


def run_py(code: str) -> str:
    """Run ``code`` in a fresh interpreter; its stdout (fails on a non-zero exit)."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


DEFERRED = ("numpy.ma", "faketensor.modes.masked", "zipfile", "json", "runpy", "fractions",
            "decimal", "importlib.abc", "importlib.resources", "tempfile", "shutil", "traceback",
            # NumPy's lazily loaded namespaces, set up when NumPy loads them
            # (tests/modes/test_lazy_namespaces.py), and what only they or a command need
            "numpy.random", "numpy.polynomial", "numpy.fft", "secrets", "hashlib",
            "faketensor.kernels.numpy.random", "faketensor.kernels.numpy.fft",
            "faketensor.modes.fake_generator", "dataclasses", "mmap",
            "faketensor.kernels.cupy", "faketensor.meta_utils.planner.plan",
            "faketensor.meta_utils.planner.sweep", "faketensor.meta_utils.planner.explain")


def test_import_faketensor_leaves_these_unimported():
    out = run_py(f"""
        import sys
        import numpy
        before = set(sys.modules)
        import faketensor
        print(sorted(m for m in {DEFERRED!r} if m in sys.modules and m not in before))
    """)
    assert out.strip() == "[]"


MA_CODE = """
    import numpy as np
    def compute():
        a = np.ma.array(np.zeros((3, 4), dtype=np.float32), mask=np.eye(3, 4, dtype=bool))
        outs = [a.sum(axis=0), a.mean(axis=1), a[1:, ::2], (a * 2).filled(0),
                np.ma.masked_where(a.data > 0, a)]
        kind = {"FakeArray": "ndarray"}  # a plain fake stands for an ndarray
        return [(kind.get(type(o).__name__, type(o).__name__), o.shape, str(o.dtype))
                for o in outs]
    real = compute()
    import faketensor as ft
    with ft.FakeMode():
        fake = compute()
    assert fake == real, (fake, real)
    print("ok", len(real))
"""


def test_numpy_ma_first_imported_inside_a_mode():
    """numpy.ma imported lazily (NumPy's ``__getattr__``) for the first time in a FakeMode:
    its module code runs paused, then the patches go in, and masked arrays come out fake with
    the shapes and dtypes of the real computation."""
    code = """
        import sys
        import numpy as np
        import faketensor as ft
        assert "numpy.ma" not in sys.modules
        with ft.FakeMode():
            a = np.ma.array(np.zeros((3, 4)), mask=np.eye(3, 4, dtype=bool))
            s = a.sum(axis=0)
            assert ft.is_fake(a.data) and ft.is_fake(s.data), (type(a.data), type(s.data))
            print(type(a).__name__, a.shape, s.shape, s.dtype)
    """
    assert run_py(code).split() == ["MaskedArray", "(3,", "4)", "(4,)", "float64"]


def test_numpy_ma_imported_before_faketensor_or_after_it():
    for first in ("import numpy.ma", "import faketensor", "import faketensor.modes.masked"):
        # numpy.ma before faketensor; faketensor first (numpy.ma through the hook, outside a
        # mode); the patches' own module imported first (it imports numpy.ma itself)
        assert run_py(first + "\n" + textwrap.dedent(MA_CODE)).strip() == "ok 5", first


def test_value_params_read_from_code_objects_match_inspect_signature():
    """Each rule's ``values`` (read from its code object at registration, for import time) are
    those inspect.signature gives."""
    import inspect

    from faketensor.kernels.registry import REGISTRY, VALUE_PARAMS

    def by_signature(fn, prefix):
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            return frozenset()
        out: set = set()
        for i, p in enumerate(params):
            if p.name in VALUE_PARAMS:
                out.add(p.name)
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and i >= prefix:
                    out.add(i - prefix)
        return frozenset(out)

    wrong = []
    for (op, backend), k in REGISTRY.items():
        prefix = 1 if isinstance(op, str) and op.startswith("ufunc.") else 0
        if k.values != by_signature(k.fn, prefix):
            wrong.append((op, k.name, k.values, by_signature(k.fn, prefix)))
    assert len(REGISTRY) > 400 and not wrong, wrong[:5]
    assert any(k.values for k in REGISTRY.values())  # the comparison saw some value params
