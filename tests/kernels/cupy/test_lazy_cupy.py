"""``import faketensor`` imports neither CuPy nor pytest nor scipy; CuPy's rules and namespace
patches arrive when cupy is imported, in either order, or at the first op on a CUDA fake
(modes/cupy_patching.py import hook, kernels/cupy/core.py load_cupy). Each case runs in a
fresh interpreter."""
from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("cupy")

CHECK = """
import sys, numpy as np
import faketensor as ft
from faketensor.kernels.registry import REGISTRY
assert (cupy.zeros, "cupy") in REGISTRY or (cupy.zeros.__wrapped__, "cupy") in REGISTRY
assert getattr(cupy.zeros, "__wrapped__", None) is not None, "cupy.zeros is not patched"
with ft.FakeMode():
    x = cupy.zeros((3, 4), cupy.float32)
    y = (x + 1).sum(axis=0)
assert ft.is_fake(y) and y.shape == (4,) and y.fake_device == "cuda:0", y
assert 'pytest' not in sys.modules
print("ok")
"""

CASES = {
    "faketensor_then_cupy": "import faketensor\nimport cupy\n" + CHECK,
    "cupy_then_faketensor": "import cupy\nimport faketensor\n" + CHECK,
    "cupyx_imports_cupy": "import faketensor\nimport cupyx\nimport cupy\n" + CHECK,
    "import_inside_mode": ("import faketensor as ft\nwith ft.FakeMode():\n    import cupy\n"
                           "    z = cupy.ones(5)\nassert ft.is_fake(z)\n" + CHECK),
    "cuda_mode_before_cupy": (
        "import sys, numpy as np, faketensor as ft\n"
        "with ft.FakeMode(device='cuda:1'):\n"
        "    x = np.zeros((3, 4))\n"
        "    assert 'cupy' not in sys.modules\n"
        "    s = x.sum(0)\n"  # CuPy's rule: the first op on a CUDA fake imports cupy
        "assert s.shape == (4,) and s.fake_device == 'cuda:1', s\n"
        "assert 'cupy' in sys.modules\nimport cupy\n" + CHECK),
}


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", sorted(CASES))
def test_cupy_rules_in_either_import_order(case):
    r = _run(CASES[case])
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr


def test_import_faketensor_is_light():
    r = _run("import sys, faketensor\n"
             "heavy = sorted(m for m in ('cupy', 'pytest', 'scipy', 'torch') if m in sys.modules)\n"
             "print(heavy)")
    assert r.returncode == 0 and r.stdout.strip() == "[]", (r.stdout, r.stderr)
