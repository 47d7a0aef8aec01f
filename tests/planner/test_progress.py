"""The progress line of long plans (meta_utils/planner/progress.py): one self-rewriting line on a
terminal's stderr, erased at the end; nothing on a stderr that is not a terminal."""
from __future__ import annotations

import io
import os
import subprocess
import time

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.planner.progress import CLEAR, LABEL, Progress
from test_plan import FAKETENSOR, SCRIPTS

pty = pytest.importorskip("pty")


def run_on_terminal(*args: str, env: dict) -> tuple[int, str]:
    """(returncode, what reached the terminal) of ``faketensor ARGS`` with stderr on a
    pseudo-terminal (stdout a pipe)."""
    master, slave = os.openpty()
    p = subprocess.Popen([FAKETENSOR, *args], cwd=SCRIPTS, stdout=subprocess.PIPE,
                         stderr=slave, env={**os.environ, **env})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    p.stdout.read()
    p.stdout.close()
    return p.wait(timeout=120), b"".join(chunks).decode()


def test_a_long_plan_shows_a_line_on_a_terminal_and_erases_it():
    rc, tty = run_on_terminal("run", "slow_plan.py", "1.5", env={"FAKETENSOR_PROGRESS_DELAY": "0.2"})
    assert rc == 0, tty
    lines = [s for s in tty.split(CLEAR) if s.startswith("planning")]
    assert len(lines) >= 2, tty  # rewritten in place
    assert all(" ops, " in s and s.rstrip().endswith(" s") and "\n" not in s for s in lines)
    counts = [int(s.split(": ")[1].split(" ops")[0].replace(",", "")) for s in lines]
    assert counts == sorted(counts) and counts[-1] > counts[0]
    report = tty.index("faketensor plan of slow_plan.py")
    assert tty.rindex(CLEAR) < report  # erased before the report is printed
    assert not tty[tty.rindex(CLEAR) + len(CLEAR):report].startswith("planning")


def test_a_short_plan_shows_nothing():
    rc, tty = run_on_terminal("run", "stencil.py", "20", "2", env={})
    assert rc == 0 and "faketensor plan of" in tty
    assert "planning" not in tty and "\x1b[K" not in tty


def test_not_a_terminal_gets_nothing():
    r = subprocess.run([FAKETENSOR, "run", "slow_plan.py", "1"], cwd=SCRIPTS, capture_output=True,
                       text=True, timeout=120, env={**os.environ, "FAKETENSOR_PROGRESS_DELAY": "0"})
    assert r.returncode == 0, r.stderr
    assert "\x1b[K" not in r.stderr and "planning" not in r.stderr and "\r" not in r.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_line_names_the_sweep_value_and_can_be_turned_off(monkeypatch):
    stream = Terminal()
    mode = ft.FakeMode(record=True)
    token = LABEL.set("N=512 (plan 3) ")
    try:
        with Progress(mode, stream=stream, delay=0, interval=0.01), mode:
            np.ones(10) + 1
            time.sleep(0.1)
    finally:
        LABEL.reset(token)
    text = stream.getvalue()
    assert text.startswith(CLEAR + "planning N=512 (plan 3): ")
    assert text.endswith(CLEAR + "planning N=512 (plan 3): 2 ops, 0 s" + CLEAR)
    monkeypatch.setenv("FAKETENSOR_PROGRESS", "0")
    stream = Terminal()
    with Progress(mode, stream=stream, delay=0, interval=0.01):
        time.sleep(0.05)
    assert stream.getvalue() == ""


def test_a_sweep_names_the_value_being_planned():
    rc, tty = run_on_terminal("sweep", "--memory-limit", "1GiB", "--param", "S=1:4",
                              "slow_plan.py", "0.{S}", env={"FAKETENSOR_PROGRESS_DELAY": "0.3"})
    assert rc == 0, tty
    lines = [s for s in tty.split(CLEAR) if s.startswith("planning")]
    assert any(s.startswith("planning S=4 (plan 1): ") for s in lines), tty
    assert tty.rindex(CLEAR) < tty.index("faketensor sweep slow_plan.py")


def test_the_line_counts_dask_tasks(monkeypatch):
    pytest.importorskip("dask.array")
    monkeypatch.chdir(SCRIPTS)
    p = ft.plan_script("dask_pipeline.py", ["2000", "500", "250", "threads"])
    assert p.status == "completed" and p.mode.dask_tasks > 0
    with Progress(p.mode, stream=Terminal(), delay=60) as progress:
        line = progress.line()
    assert f"{p.ops:,} ops, {p.mode.dask_tasks:,} dask tasks" in line
