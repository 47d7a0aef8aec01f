"""NumPy's lazily loaded namespaces (numpy.random, ...) are set up for fakes when NumPy loads
them, not at ``import faketensor`` (issue 30): every way in gives the same patched result.
Each case runs in a fresh interpreter, the only place such a namespace is not loaded yet."""
import json
import subprocess
import sys
import textwrap

import pytest

#: run first in every case: faketensor imported, numpy.random not loaded yet
PRELUDE = """
import sys
import numpy as np
import faketensor as ft
assert "numpy.random" not in sys.modules, "import faketensor loaded numpy.random"
"""

#: run last in every case: numpy.random set up once, its draws fakes in a mode, real outside
CHECK = """
from faketensor.modes.fake_generator import FakeGenerator
assert getattr(np.random.rand, "_ft_patch", False) and getattr(np.random.mtrand.rand, "_ft_patch", False)
assert getattr(np.random.default_rng, "_ft_patch", False)
with ft.FakeMode():
    outs = [np.random.rand(3), np.random.normal(size=(2, 3)), np.random.default_rng(1).integers(5, size=4)]
    assert type(np.random.default_rng()) is FakeGenerator
assert all(ft.is_fake(o) for o in outs), [type(o) for o in outs]
assert [o.shape for o in outs] == [(3,), (2, 3), (4,)]
real = np.random.default_rng(0).normal(size=3)
assert type(real) is np.ndarray
assert (real == np.random.Generator(np.random.PCG64(0)).normal(size=3)).all()
print("ok")
"""


def run_py(code: str, timeout: int = 240) -> str:
    """Run ``code`` in a fresh interpreter; its stdout (fails on a non-zero exit)."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


WAYS = {
    # the first touch of np.random is a draw inside a mode (numpy.__getattr__ imports it)
    "draw-in-mode": """
        with ft.FakeMode():
            x = np.random.rand(3)
        assert ft.is_fake(x), type(x)
    """,
    # ... or a generator made inside a mode
    "default-rng-in-mode": """
        with ft.FakeMode():
            y = np.random.default_rng().normal(size=3)
        assert ft.is_fake(y) and y.shape == (3,), type(y)
    """,
    "import-in-mode": """
        with ft.FakeMode():
            import numpy.random
            assert ft.is_fake(numpy.random.standard_normal(4))
    """,
    "from-import-in-mode": """
        with ft.FakeMode():
            from numpy.random import default_rng
            assert ft.is_fake(default_rng(0).normal(size=3))
        assert type(default_rng(0).normal(size=3)) is np.ndarray
    """,
    "import-as-outside": """
        import numpy.random as npr
        assert type(npr.rand(2)) is np.ndarray
        with ft.FakeMode():
            assert ft.is_fake(npr.rand(2))
    """,
    "from-import-outside": """
        from numpy.random import default_rng, rand
        with ft.FakeMode():
            assert ft.is_fake(rand(2)) and ft.is_fake(default_rng(3).random(2))
    """,
    # the registry's users: the rules are registered when numpy.random loads
    "rules-registered": """
        from faketensor.kernels.registry import REGISTRY
        assert not any(k.name == "np.random.normal" for k in REGISTRY.values())
        import numpy.random
        names = {k.name for k in REGISTRY.values()}
        assert {"np.random.normal", "np.random.get_state", "Generator.normal"} <= names
    """,
    # the rule module imported before numpy.random (it does not load it), then the draws
    "kernel-module-first": """
        import faketensor.kernels.numpy.random as rules
        assert "numpy.random" not in sys.modules
        with ft.FakeMode():
            assert ft.is_fake(np.random.randn(2, 2))
    """,
    "fake-generator-module-first": """
        from faketensor.modes.fake_generator import FakeGenerator
        with ft.FakeMode():
            assert type(np.random.default_rng(0)) is FakeGenerator
    """,
}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_numpy_random_every_way_in(way):
    assert run_py(PRELUDE + textwrap.dedent(WAYS[way]) + CHECK).strip() == "ok"


def test_numpy_random_imported_before_faketensor():
    code = """
        import sys
        import numpy.random
        import numpy as np
        import faketensor as ft
    """
    assert run_py(textwrap.dedent(code) + CHECK).strip() == "ok"


def test_numpy_random_first_loaded_by_threads_at_once():
    """Threads that touch np.random first at the same moment, each in its own mode: the set-up
    runs once (a second registration would raise DuplicateKernelError), every draw a fake."""
    code = """
        import threading
        barrier = threading.Barrier(4)
        got = []

        def draw():
            with ft.FakeMode():
                barrier.wait()
                got.append(np.random.rand(3))

        threads = [threading.Thread(target=draw) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(got) == 4 and all(ft.is_fake(g) for g in got), got
    """
    assert run_py(PRELUDE + textwrap.dedent(code) + CHECK).strip() == "ok"


def test_patched_draws_and_originals_pickle_after_a_lazy_load():
    """The draws patched when numpy.random loads pickle by name, and ``default_rng``'s
    original (a Cython function) unpickles as the patched function (installer
    ``_pickle_originals_as_patches``), as when numpy.random was loaded at ``import faketensor``."""
    code = """
        import pickle
        from faketensor.modes.patch_tables import original
        rand, rng = np.random.rand, np.random.default_rng
        assert pickle.loads(pickle.dumps(rand)) is rand
        assert pickle.loads(pickle.dumps(rng)) is rng
        assert original(rng) is not rng and pickle.loads(pickle.dumps(original(rng))) is rng
    """
    assert run_py(PRELUDE + "import numpy.random\n" + textwrap.dedent(code) + CHECK).strip() == "ok"


def test_planner_first_use_of_numpy_random_inside_the_plan(tmp_path):
    """``faketensor run``: the script's first np.random use is inside the plan (the runner's
    import hook pauses library imports); the draws are planned to the byte."""
    script = tmp_path / "draws.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        print("loaded before:", "numpy.random" in sys.modules)
        x = np.random.rand(1000, 1000)
        y = np.random.default_rng(0).normal(size=(1000, 1000))
        z = x + y
    """))
    out = tmp_path / "plan.json"
    r = subprocess.run([sys.executable, "-m", "faketensor", "run", "--json", str(out), str(script)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "loaded before: False" in r.stdout
    report = json.loads(out.read_text())
    # x, y, z of 8 MB each (the generator and its seed pool are gone by z)
    assert report["devices"]["cpu"]["peak_bytes"] == 3 * 8_000_000


def test_ops_lists_numpy_random_rules_in_a_fresh_process():
    """``faketensor ops`` lists every rule, numpy.random's included (it loads it first)."""
    r = subprocess.run([sys.executable, "-m", "faketensor", "ops", "--json"], capture_output=True,
                       text=True, timeout=240)
    assert r.returncode == 0, r.stderr[-3000:]
    names = {row["kernel"] for row in json.loads(r.stdout)}
    assert {"np.random.normal", "Generator.integers", "np.random.set_state"} <= names


def test_numpy_polynomial_first_used_inside_a_mode():
    """numpy.polynomial's evaluators are made fake-aware when NumPy loads it: a Polynomial
    first used in a mode evaluates a fake x with the real call's shape."""
    code = """
        assert "numpy.polynomial" not in sys.modules
        with ft.FakeMode():
            p = np.polynomial.Polynomial([1.0, 2.0, 3.0])
            y = p(np.zeros((4, 3)))
            c = np.polynomial.chebyshev.chebval(np.ones((2, 5)), np.ones(3))
        assert ft.is_fake(y) and y.shape == (4, 3), y
        assert ft.is_fake(c) and c.shape == (2, 5), c
        from numpy.polynomial import polynomial as P
        assert getattr(P.polyval, "_ft_patch", False)
        assert type(P.Polynomial([1.0, 2.0])(np.ones(3))) is np.ndarray
        print("ok")
    """
    assert run_py(PRELUDE + textwrap.dedent(code)).strip() == "ok"


def test_numpy_polynomial_imported_before_faketensor():
    code = """
        import numpy.polynomial
        import numpy as np
        import faketensor as ft
        with ft.FakeMode():
            y = np.polynomial.Polynomial([1.0, 2.0])(np.zeros((2, 2)))
        assert ft.is_fake(y) and y.shape == (2, 2)
        print("ok")
    """
    assert run_py(code).strip() == "ok"


def test_cupy_rules_load_on_the_first_cuda_op():
    """CuPy's rules (kernels/cupy/) load on the first call on a CUDA fake, not at ``import
    faketensor``; the first op may be a factory in a CUDA mode or a method of a CUDA fake."""
    for first in ("""
            with ft.FakeMode(device="cuda"):
                x = np.zeros((3, 4))
                y = x.sum(axis=0)
            assert y.fake_device == "cuda:0" and y.shape == (4,), y
        """, """
            x = ft.empty((3, 4), device="cuda")
            h = x.get()
            assert h.fake_device == "cpu" and h.shape == (3, 4), h
        """):
        code = PRELUDE + """
assert "faketensor.kernels.cupy" not in sys.modules
""" + textwrap.dedent(first) + """
assert "faketensor.kernels.cupy" in sys.modules
print("ok")
"""
        assert run_py(code).strip() == "ok"


FFT_CHECK = """
from faketensor.kernels.registry import REGISTRY
assert getattr(np.fft.fft, "_ft_patch", False) and getattr(np.fft.fftfreq, "_ft_patch", False)
assert sum(k.name in ("fft", "rfftn", "fftfreq") for k in REGISTRY.values()) == 3
with ft.FakeMode():
    outs = [np.fft.rfft(np.zeros((4, 8)), axis=0), np.fft.fftfreq(10), np.fft.ifft2(np.zeros((3, 4)))]
assert [(o.shape, str(o.dtype)) for o in outs] == [((3, 8), "complex128"), ((10,), "float64"),
                                                  ((3, 4), "complex128")], outs
assert all(ft.is_fake(o) for o in outs)
assert type(np.fft.fft(np.ones(4))) is np.ndarray
print("ok")
"""


@pytest.mark.parametrize("first", [
    "with ft.FakeMode():\n    assert ft.is_fake(np.fft.fft(np.zeros(8)))",  # first touch in a mode
    "from numpy.fft import rfft\nwith ft.FakeMode():\n    assert ft.is_fake(rfft(np.zeros(8)))",
    "import faketensor.kernels.numpy.fft\nassert 'numpy.fft' not in sys.modules",
])
def test_numpy_fft_every_way_in(first):
    code = PRELUDE.replace('"numpy.random"', '"numpy.fft"') + first + "\n" + FFT_CHECK
    assert run_py(code).strip() == "ok"


def test_numpy_fft_imported_before_faketensor():
    code = "import numpy.fft\nimport numpy as np\nimport faketensor as ft\n" + FFT_CHECK
    assert run_py(code).strip() == "ok"
