"""tests/xdist_scheduling.py, the suite's ``--dist loadgroup``: on a generated suite of
grouped and ungrouped tests, every test runs exactly once, each group on one worker, both
workers get work, and a failing test is reported as with xdist's own scheduler."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("xdist")
HERE = pathlib.Path(__file__).resolve().parent

CONFTEST = """
import pytest

def pytest_collection_modifyitems(config, items):
    if getattr(config.option, "loadgroup", False):
        from xdist_scheduling import name_groups
        name_groups(items)

@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist_scheduling import GroupScheduling
    return GroupScheduling(config, log)
"""

SUITE = """
import os
import pytest

def _note(name):
    with open(os.environ["FT_SCHED_LOG"], "a") as fh:
        fh.write(f"{name} {os.environ['PYTEST_XDIST_WORKER']}\\n")

@pytest.mark.parametrize("i", range(400))
def test_plain(i):
    _note(f"plain{i}")

@pytest.mark.xdist_group("big")
@pytest.mark.parametrize("i", range(150))
def test_big(i):
    _note(f"big{i}")

@pytest.mark.xdist_group("small")
@pytest.mark.parametrize("i", range(3))
def test_small(i):
    _note(f"small{i}")

def test_fails():
    _note("fails")
    assert False, "meant to fail"
"""


def test_every_test_once_groups_together(tmp_path: pathlib.Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_suite.py").write_text(textwrap.dedent(SUITE))
    log = tmp_path / "ran.txt"
    env = {**os.environ, "FT_SCHED_LOG": str(log), "PYTHONPATH": str(HERE)}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-n", "2", "--dist", "loadgroup", "-rf", str(tmp_path)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr  # the one failing test, nothing else
    tail = r.stdout.splitlines()[-1]
    assert "1 failed" in tail and "553 passed" in tail and "meant to fail" in r.stdout, r.stdout
    rows = [line.split() for line in log.read_text().splitlines()]
    names = [name for name, _ in rows]
    assert len(names) == len(set(names)) == 554  # each test once
    workers = {name: w for name, w in rows}
    for group, size in (("big", 150), ("small", 3)):
        assert len({workers[f"{group}{i}"] for i in range(size)}) == 1, group
    assert len(set(workers.values())) == 2  # both workers had work


@pytest.mark.xdist_group("scheduling_probe")
def test_this_suite_names_its_groups(request: pytest.FixtureRequest) -> None:
    """tests/conftest.py wires it in: under ``--dist loadgroup`` (the Makefile's) a grouped
    test carries its group in its id, which is what keeps a group on one worker."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("runs under -n N --dist loadgroup")
    assert request.node.nodeid.endswith("@scheduling_probe"), request.node.nodeid
