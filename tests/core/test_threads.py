"""inherit_mode_in_threads (modes/threads.py): threads and pool tasks started inside run
with the starting thread's mode stack; memory from several threads adds up exactly."""
import gc
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import faketensor as ft
from faketensor.modes.threads import inherit_mode_in_threads


def layer(i):
    x = np.ones((64, 32 + i))
    return (x.T @ x).sum(axis=0)


def test_pool_map_runs_under_the_mode():
    with ft.FakeMode(record=True) as mode, inherit_mode_in_threads():
        with ThreadPoolExecutor(4) as pool:
            outs = list(pool.map(layer, range(16)))
    assert all(ft.is_fake(o) and o.shape == (32 + i,) for i, o in enumerate(outs))
    ops = [e.op for e in mode.trace]
    assert ops.count("np.ones") == 16 and ops.count("np.matmul") == 16
    assert mode.memory.live["cpu"] == sum(8 * (32 + i) for i in range(16))


def test_without_the_block_threads_run_for_real():
    """The control: a pool outside the block computes real arrays."""
    with ft.FakeMode() as mode:
        with ThreadPoolExecutor(2) as pool:
            outs = list(pool.map(layer, range(2)))
    assert all(type(o) is np.ndarray for o in outs) and mode.memory.peak == {}


def test_thread_sees_the_stack_when_started():
    seen = {}

    def work(name):
        seen[name] = ft.is_fake(np.zeros(3))

    with ft.FakeMode(), inherit_mode_in_threads():
        t = threading.Thread(target=work, args=("inside",))
        t.start()
        t.join()
    t = threading.Thread(target=work, args=("after",))
    t.start()
    t.join()
    assert seen == {"inside": True, "after": False}


def test_pool_workers_keep_no_stale_mode():
    """Workers started inside the block serve tasks submitted after it without the mode."""
    pool = ThreadPoolExecutor(1)
    try:
        with ft.FakeMode(), inherit_mode_in_threads():
            assert ft.is_fake(pool.submit(np.zeros, 3).result())
        assert type(pool.submit(np.zeros, 3).result()) is np.ndarray
    finally:
        pool.shutdown()


def test_nested_threads_inherit():
    def outer():
        box = []
        t = threading.Thread(target=lambda: box.append(np.empty(10)))
        t.start()
        t.join()
        return box[0]

    with ft.FakeMode() as mode, inherit_mode_in_threads():
        with ThreadPoolExecutor(2) as pool:
            out = pool.submit(outer).result()
    assert ft.is_fake(out) and mode.memory.live["cpu"] == 80


@pytest.mark.parametrize("record", [False, True])
def test_memory_from_many_threads_adds_up(record):
    """8 threads allocating and freeing concurrently: every event counted once."""
    n_threads, n_ops = 8, 400
    barrier = threading.Barrier(n_threads)

    def work(t):
        barrier.wait()
        keep = None
        for i in range(n_ops):
            a = np.empty((t + 1, 100))
            b = a + 1.0
            keep = b if i == n_ops - 1 else None
            del a, b
        return keep

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # interleave the threads between bytecodes
    try:
        with ft.FakeMode(record=record) as mode, inherit_mode_in_threads():
            with ThreadPoolExecutor(n_threads) as pool:
                kept = list(pool.map(work, range(n_threads)))
    finally:
        sys.setswitchinterval(switch)
    live = dict(mode.memory.live)
    allocations = mode.memory.allocations
    assert live["cpu"] == sum(800 * (t + 1) for t in range(n_threads))
    assert allocations == 2 * n_threads * n_ops
    assert mode.memory.peak["cpu"] <= 2 * sum(800 * (t + 1) for t in range(n_threads)) + 16 * n_threads
    if record:
        assert len(mode.trace) == 2 * n_threads * n_ops
        serials = [i for e in mode.trace for i in e.out_ids]  # one serial per fake, never two
        assert len(set(serials)) == len(serials) == 2 * n_threads * n_ops
    del kept
    assert mode.memory.live["cpu"] == 0


# The no-mode fast path of the namespace patches (faketensor/_stack.py LIVE): it may skip the
# context variable only when no context anywhere holds a mode.

def test_live_stacks_empty_outside_every_mode():
    from faketensor._stack import LIVE
    gc.collect()  # contexts of earlier tests' finished threads (some may live on)
    before = len(LIVE)
    assert type(np.zeros(3)) is np.ndarray
    with ft.FakeMode():
        assert len(LIVE) == before + 1 and ft.is_fake(np.zeros(3))
        with ft.FakeMode():
            assert ft.is_fake(np.zeros(3)) and ft.is_fake(np.ones(2).sum())
        assert ft.is_fake(np.zeros(3))
    assert len(LIVE) == before and type(np.zeros(3)) is np.ndarray


def test_a_context_outliving_its_mode_still_intercepts():
    """A copied context (a thread's, a task's) keeps its stack after the block exits: the
    patched factories in it still make fakes, and the other threads run for real."""
    import contextvars
    from faketensor._stack import LIVE
    gc.collect()
    before = len(LIVE)
    with ft.FakeMode():
        ctx = contextvars.copy_context()
    assert len(LIVE) == before + 1  # the copy holds the stack
    assert type(np.zeros(3)) is np.ndarray
    assert ft.is_fake(ctx.run(np.zeros, 3)) and ft.is_fake(ctx.run(np.random.standard_normal, 3))
    del ctx
    assert len(LIVE) == before


def test_thread_started_in_the_block_outlives_it():
    go, out = threading.Event(), []
    with ft.FakeMode(), inherit_mode_in_threads():
        t = threading.Thread(target=lambda: (go.wait(), out.append(np.zeros(3))))
        t.start()
    other = []
    u = threading.Thread(target=lambda: other.append(np.zeros(3)))
    u.start()
    u.join()
    go.set()
    t.join()
    assert ft.is_fake(out[0]) and type(other[0]) is np.ndarray


def test_nested_user_mode_dispatch_allocates_one_stack():
    """A mode's handler runs under the stack below it, made once per stack (LIVE's value)."""
    from faketensor._stack import LIVE

    class Count(ft.Mode):
        n = 0

        def __array_dispatch__(self, func, types, args, kwargs):
            Count.n += 1
            return func(*args, **kwargs)

    gc.collect()  # contexts of earlier tests' finished threads
    before = len(LIVE)
    with ft.FakeMode(), Count():
        x = np.ones(4)
        live = len(LIVE)
        for _ in range(5):
            x = x + 1
        assert len(LIVE) == live and Count.n == 6 and ft.is_fake(x)
    assert len(LIVE) == before  # both stacks gone with the block


def _mixed_ops(t: int, n: int) -> list:
    """n rounds of small mixed ops (new fakes on every op: the trace's id tables fill and
    sweep); returns the last round's arrays."""
    a = np.zeros((t + 2, 6))
    keep: list = []
    for i in range(n):
        b = a + i
        c = b.T @ a
        d = c.sum(0)
        e = d[::2].copy()
        f = np.concatenate([np.ones(3) for _ in range(3)])
        keep = [e, f, np.sort(f)[None, :]]
    return keep


def test_one_recording_mode_entered_by_eight_threads_keeps_exact_totals(monkeypatch):
    """One FakeMode(record=True) entered by 8 threads at once, kernel cache on, a few
    seconds of mixed ops: no thread fails, and the trace, FLOPs, allocations and live bytes
    equal a serial run of the same ops in one thread; the peak lies between the serial
    run's and the sum of every thread's."""
    import time

    from faketensor.modes import trace
    monkeypatch.setattr(trace, "SWEEP_MIN", 128)  # sweeps of the id tables every few ops
    assert ft.cache_info().enabled
    n_threads, stop_at = 8, time.monotonic() + 4.0
    rounds = [0] * n_threads
    kept: list = [None] * n_threads
    errors: list = []
    mode = ft.FakeMode(record=True)
    barrier = threading.Barrier(n_threads)

    def work(t: int) -> None:
        try:
            barrier.wait()
            with mode:
                while time.monotonic() < stop_at:
                    kept[t] = _mixed_ops(t, 50)
                    rounds[t] += 50
        except BaseException as e:  # reported below, with the thread
            errors.append((t, repr(e)))

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        sys.setswitchinterval(switch)
    assert errors == []
    assert len(mode.trace) > 40 * 128  # enough new fakes to sweep the id tables many times

    serial = ft.FakeMode(record=True)
    with serial:
        serial_kept: list = [None] * n_threads
        for t in range(n_threads):
            for _ in range(rounds[t] // 50):
                serial_kept[t] = _mixed_ops(t, 50)
    assert len(mode.trace) == len(serial.trace)
    assert mode.flops == serial.flops
    assert mode.memory.allocations == serial.memory.allocations
    assert mode.memory.live == serial.memory.live
    one_peak = []
    for t in range(n_threads):
        alone = ft.FakeMode(record=True)
        with alone:
            _ = _mixed_ops(t, 2)
        one_peak.append(alone.memory.peak["cpu"])
    assert serial.memory.peak["cpu"] <= mode.memory.peak["cpu"] <= sum(one_peak) + serial.memory.live["cpu"]
    serials = [i for e in mode.trace for i in e.out_ids]  # one serial per fake, never two
    assert len(set(serials)) == len(serials)
    del kept, serial_kept
    gc.collect()
    assert mode.memory.live["cpu"] == 0 == serial.memory.live["cpu"]
