"""``make example``: the package and its required dependencies only, in a venv of its own,
installed quietly, then the example planned."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from locations import REPO  # tests/ and the checkout

ROOT = str(REPO)
ALLOWED = {"faketensor", "numpy", "wrapt", "pip", "setuptools"}  # pip's own, and the package's


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_example_installs_only_what_the_example_needs(tmp_path):
    venv = tmp_path / "venv-example"
    # FAKETENSOR_BUILD_EXT=0: the editable install would rebuild the checkout's compiled
    # accelerator in place, under the other worker's interpreters that have it loaded; the
    # venv imports the one already built
    r = subprocess.run(["make", "-s", "example", f"EXAMPLE_VENV={venv}"], cwd=ROOT,
                       capture_output=True, text=True, timeout=900,
                       env={**os.environ, "FAKETENSOR_BUILD_EXT": "0"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "faketensor plan of examples/transformer_1b.py: completed" in r.stderr
    assert "1.07 B parameters" in r.stdout
    for noise in ("Collecting", "Installing", "Successfully", "WARNING", "notice"):
        assert noise not in r.stdout + r.stderr
    # what the venv has installed (made by uv it has no pip to ask)
    listing = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import importlib.metadata as m, json; "
         "print(json.dumps([d.metadata['Name'] for d in m.distributions()]))"],
        capture_output=True, text=True, timeout=120)
    names = {n.lower() for n in json.loads(listing.stdout)}
    assert names <= ALLOWED, names - ALLOWED
    assert not any(n.startswith("cupy") for n in names)
    assert {"faketensor", "numpy", "wrapt"} <= names
