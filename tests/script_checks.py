"""Checks of the scripts under tests/plan_scripts shared by the SciPy tests: a script's
``main(n)`` in a FakeMode against the real run, and ``faketensor run`` of it against the
real run measured in a fresh interpreter."""
from __future__ import annotations

import os
import subprocess
import sys

from memtools import measure_peak
from oracle import compare_meta

HERE = os.path.dirname(os.path.abspath(__file__))


def main_fake_equals_real(module: str, n: int) -> None:
    """``plan_scripts/<module>.main(n)`` faked: the result's metadata, NumPy's peak and live
    bytes as the real call's."""
    import faketensor as ft
    sys.path.insert(0, os.path.join(HERE, "plan_scripts"))
    try:
        script = __import__(module)
    finally:
        sys.path.pop(0)
    keep: list = []
    real_peak, real_live = measure_peak(lambda: keep.append(script.main(n)))
    with ft.FakeMode() as mode:
        fake = script.main(n)
        compare_meta(keep[0], fake, [], [])
    assert (mode.memory.peak["cpu"], mode.memory.live["cpu"]) == (real_peak, real_live)


def run_plans_the_real_peak(script: str, arg: str, imports: str, tmp_path) -> tuple:
    """``faketensor run script arg`` completes with the real run's peak (``imports``: the
    SciPy modules imported before measuring, as a plan runs imports paused). Returns the
    plan's (stdout, JSON report)."""
    from test_plan import MEASURE, SCRIPTS, run_cli
    rc, out, err, data = run_cli(script, arg, tmp_path=tmp_path)
    assert rc == 0, err
    assert data["status"] == "completed"
    measure = MEASURE.format(tests=HERE).replace(
        "import numpy as np\n", f"import numpy as np\nimport {imports}\n")
    r = subprocess.run([sys.executable, "-c", measure, "", script, arg],
                       cwd=SCRIPTS, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert data["devices"]["cpu"]["peak_bytes"] == int(r.stdout.split()[-1])
    return out, data
