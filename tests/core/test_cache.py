"""The kernel cache: results reused only for calls whose inputs have the same metadata."""
import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor import _cache


@pytest.fixture(autouse=True)
def fresh_cache():
    old = ft.set_cache_enabled(True)
    ft.clear_cache()
    yield
    ft.set_cache_enabled(old)


def meta(x):
    # flags.num: every flag bit, read without the FutureWarning that reading ``writeable``
    # of a broadcast_arrays result gives (as in NumPy)
    return (x.shape, x.dtype, x.strides, x.flags.num)


def test_second_call_with_equal_metadata_hits():
    a, b = ft.empty((3, 4)), ft.empty((3, 4))
    r1 = a + b
    info = ft.cache_info()
    assert (info.hits, info.misses) == (0, 1)
    c, d = ft.empty((3, 4)), ft.empty((3, 4))
    r2 = c + d
    assert (info.hits, info.misses) == (1, 1)
    assert meta(r1) == meta(r2) and r1.storage is not r2.storage
    assert not np.shares_memory(r2, c) and not np.shares_memory(r2, r1)


@pytest.mark.parametrize("other", [
    lambda: ft.empty((4, 3)).T,                     # strides
    lambda: ft.empty((3, 4), np.float32),           # dtype
    lambda: ft.empty((3, 5))[:, :4],                # strides and owndata
    lambda: ft.empty((3, 4), order="F"),            # F order
    lambda: ft.empty((1, 3, 4))[0],                 # owndata only
])
def test_any_metadata_difference_misses(other):
    a, x = ft.empty((3, 4)), other()
    assert meta(x) != meta(a) or x.base is not None
    ft.clear_cache()
    first = a.sum(axis=0)
    second = x.sum(axis=0)
    assert ft.cache_info().misses == 2 and ft.cache_info().hits == 0
    assert second.shape == first.shape


def test_read_only_input_misses_and_stays_read_only():
    a = ft.empty((4,))
    a.setflags(write=False)
    v1 = a[1:]
    b = ft.empty((4,))
    v2 = b[1:]
    assert not v1.flags.writeable and v2.flags.writeable
    assert ft.cache_info().hits == 0


def test_views_point_at_this_calls_input():
    a, b = ft.empty((5, 6)), ft.empty((5, 6))
    va = a[1:, ::2]
    vb = b[1:, ::2]
    assert ft.cache_info().hits == 1
    assert vb.base is b and va.base is a
    assert vb.storage is b.storage and vb.storage_offset == va.storage_offset == 8 * 6


def test_inplace_results_are_this_calls_inputs():
    a, b = ft.empty((3,)), ft.empty((3,))
    assert np.add(a, b, out=b) is b
    c, d = ft.empty((3,)), ft.empty((3,))
    assert np.add(c, d, out=d) is d
    assert ft.cache_info().hits == 1
    assert np.add(c, d, out=c) is c  # another position: another key


def test_aliasing_among_inputs_is_part_of_the_key():
    base = ft.empty((6,))
    x, y = base[:3], base[:3]          # distinct fakes on one storage
    u, v = ft.empty((3,)), ft.empty((3,))
    ft.clear_cache()
    np.add(x, x, out=x)
    assert np.add(x, y, out=y) is y    # same metadata, other aliasing: a miss, right answer
    assert np.add(u, v, out=v) is v
    assert ft.cache_info().hits == 0


def test_multiple_outputs_and_lists():
    a, b = ft.empty((3, 1)), ft.empty((1, 4))
    r1 = np.broadcast_arrays(a, b)
    c, d = ft.empty((3, 1)), ft.empty((1, 4))
    r2 = np.broadcast_arrays(c, d)
    assert ft.cache_info().hits == 1
    assert type(r1) is type(r2) and r2[0].base is c and r2[1].base is d
    assert [meta(x) for x in r1] == [meta(x) for x in r2]
    q, r = np.divmod(ft.empty((2,)), ft.empty((2,)))
    assert q.storage is not r.storage


def test_memory_is_counted_on_hits():
    with ft.FakeMode() as mode:
        a = np.zeros((1000,))
        xs = [a + a for _ in range(3)]
        assert ft.cache_info().hits >= 2
        assert mode.memory.live["cpu"] == 4 * 8000
        del xs
        assert mode.memory.live["cpu"] == 8000
    assert mode.memory.peak["cpu"] == 4 * 8000


def test_uncacheable_calls_still_work():
    real = np.ones((3, 4))  # a real array among the inputs: converted, never cached
    with ft.FakeMode():
        fake = np.zeros((3, 4))
        r = fake + real
        rng = np.random.default_rng(0)
        s = rng.permutation(fake)  # a random rule that is not a plain draw: never cached
    assert r.shape == (3, 4) and s.shape == (3, 4)
    assert ft.cache_info().uncacheable >= 2
    assert ft.cache_info().bypassed.get("a random draw") == 1
    assert np.shares_memory(fake, fake) is True  # a plain result is never cached
    assert _cache.signature(np.add, (fake, object()), {}, []) is _cache.NOKEY


def test_errors_are_not_cached():
    a, b = ft.empty((3,)), ft.empty((4,))
    for _ in range(2):
        with pytest.raises(ValueError):
            a + b
    assert ft.cache_info().misses == 0


def test_python_scalar_values_are_part_of_the_key():
    a = ft.empty((3,), np.uint8)
    assert (a + 3).dtype == np.uint8
    with pytest.raises(OverflowError):
        a + 300
    assert (a + 3.0).dtype == np.float64
    assert (a + True).dtype == np.uint8


def test_complex_astype_warns_every_time():
    a = ft.empty((3,), np.complex128)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a.astype(np.float64)
        a.astype(np.float64)
    assert sum(issubclass(x.category, np.exceptions.ComplexWarning) for x in w) == 2


def test_disabled_cache_gives_the_same_results():
    a = ft.empty((4, 6), order="F")
    cached = [meta(f(a)) for f in (lambda x: x.T, lambda x: x.reshape(-1), lambda x: x[::2])]
    ft.set_cache_enabled(False)
    plain = [meta(f(a)) for f in (lambda x: x.T, lambda x: x.reshape(-1), lambda x: x[::2])]
    assert cached == plain and not _cache.ENTRIES


def test_oldest_entries_are_evicted_by_bytes(monkeypatch):
    ft.clear_cache()
    ft.empty((1,)).sum()
    one = _cache.ENTRIES.nbytes
    monkeypatch.setattr(_cache.ENTRIES, "max_bytes", 4 * one + one // 2)
    for n in range(1, 10):
        ft.empty((n,)).sum()
    assert len(_cache.ENTRIES) == 4
    assert _cache.ENTRIES.nbytes <= _cache.ENTRIES.max_bytes


def test_a_view_of_a_larger_temporary_counts_the_temporary():
    """ArrayMeta(base_shape=...) bigger than the view (a slice of a copy): the storage holds the
    whole temporary, so memory accounting counts it."""
    from faketensor._runner import realize
    from faketensor.meta import ArrayMeta
    out = ArrayMeta((2, 3), np.dtype(np.float64), (24, 8), base_shape=(4, 3))
    f = realize(out, "cpu")
    assert f.storage.nbytes == 96 and f.base.shape == (4, 3) and f.nbytes == 48


# --- bypass reasons -------------------------------------------------------------------

def _bypassed() -> dict:
    return dict(ft.cache_info().bypassed)


def test_each_bypass_is_counted_under_its_reason():
    from faketensor import _cache
    ft.clear_cache()
    with ft.FakeMode():
        a = np.ones((4, 5))
        np.random.shuffle(a)  # a random rule that is not a plain draw
        a[[0, 1, 2, 3] * 20]  # an index list longer than MAX_SEQUENCE
    got = _bypassed()
    assert got.get("a random draw", 0) >= 1
    assert got.get(_cache.BYPASS_ARGUMENTS, 0) >= 1
    assert ft.cache_info().uncacheable == sum(got.values())
    old = ft.set_cache_enabled(False)
    try:
        with ft.FakeMode():
            np.ones(3) + 1
    finally:
        ft.set_cache_enabled(old)
    assert _bypassed().get(_cache.BYPASS_DISABLED, 0) >= 1


def test_a_kernel_that_warns_warns_on_every_call():
    from faketensor import _cache
    ft.clear_cache()
    with ft.FakeMode():
        z = np.ones(4, complex)
        for _ in range(3):
            with pytest.warns(np.exceptions.ComplexWarning):
                z.astype(np.float64)
    assert _bypassed().get(_cache.BYPASS_WARNED, 0) == 3


def test_overlapping_operands_are_cached_by_their_distance():
    """Two fakes on one storage are keyed by their byte distance: an overlapping out= (NumPy
    copies the input first) and a disjoint one never share a cached result."""
    def peaks():
        res = []
        for lo in (0, 8000, 8192, 0, 8000):
            with ft.FakeMode() as mode:
                a = np.ones(1 << 15)
                np.add(a[lo:lo + 4096], 1.0, out=a[8192:8192 + 4096])
            res.append(mode.memory.peak["cpu"])
        return res
    ft.clear_cache()
    cached = peaks()
    assert cached[0] == cached[2] < cached[1] == cached[4]
    old = ft.set_cache_enabled(False)
    try:
        assert peaks() == cached
    finally:
        ft.set_cache_enabled(old)


def test_entries_are_named_records_holding_costs_flops_and_findings():
    """Each entry names its parts (``CacheEntry``: template, costs, flops, findings), each
    template its kind (fresh, view, input, sequence), and the costs their fields; a recording
    mode keeps the call's FLOPs and findings in the entry for the next call of that signature."""
    from faketensor.kernels.registry import Costs
    a = ft.empty((4, 5), np.float32)
    with ft.FakeMode(record=True) as mode:
        b = a.astype(np.float64)    # fresh output, no costs
        v = b.T                     # a view of the input at position 0
        c = np.add(b, 1, out=b)     # the input returned as is
        q, r = np.linalg.qr(b)      # a tuple of fresh outputs
        mode.trace.clear()
        a.astype(np.float64)        # the same signature again: a hit, FLOPs read from the entry
    entries = list(_cache.ENTRIES.values())
    assert all(type(e) is _cache.CacheEntry for e in entries)
    kinds = {type(e.template) for e in entries}
    assert {_cache.FreshOut, _cache.ViewOut, _cache.InputOut, _cache.SeqOut} <= kinds
    view = next(e.template for e in entries if type(e.template) is _cache.ViewOut)
    assert view.source == 0 and view.meta.view_of is None and view.meta.shape == (5, 4)
    seq = next(e.template for e in entries if type(e.template) is _cache.SeqOut)
    assert seq.kind is not None and all(type(t) is _cache.FreshOut for t in seq.items)
    assert all(e.costs is None or type(e.costs) is Costs for e in entries)
    assert any(type(e.costs) is Costs and e.costs.transient == 8 for e in entries)  # the 0-d of 1
    assert all(e.flops is not None and e.findings is not None for e in entries)
    assert mode.trace[0].flops == 0 and ft.cache_info().hits >= 1
    del v, c, q, r


def test_draws_are_cached_by_arguments_not_by_generator_state():
    """A plain draw's result depends on its arguments and the generator's class: the second
    draw of a signature is a hit, from another generator too, and each hit is a new storage
    charged as the first was; other arguments, dtypes or owners miss."""
    ft.clear_cache()
    with ft.FakeMode() as mode:
        g1, g2 = np.random.default_rng(0), np.random.default_rng(1)
        a = g1.standard_normal((100, 3), dtype=np.float32)
        hits = ft.cache_info().hits
        b = g2.standard_normal((100, 3), dtype=np.float32)
        c = g1.standard_normal((100, 3), dtype=np.float32)
        assert ft.cache_info().hits == hits + 2
        d = g1.standard_normal((100, 3))  # float64: another signature
        e = np.random.standard_normal((100, 3))  # the legacy global generator: another op
        i = g1.integers(0, 10, (7,))
        j = g2.integers(0, 10, (7,))
        assert ft.cache_info().hits == hits + 3
        for x, (shape, dt) in zip((a, b, c, d, e, i, j),
                                  [((100, 3), np.float32)] * 3 + [((100, 3), np.float64)] * 2
                                  + [((7,), np.int64)] * 2):
            assert x.shape == shape and x.dtype == dt
        assert len({id(x.storage) for x in (a, b, c)}) == 3
        pools = 2 * 16  # each generator's seed pool (FakeMode._default_rng)
        assert mode.memory.live["cpu"] == 3 * 1200 + 2 * 2400 + 2 * 56 + pools
        del b, c
        assert mode.memory.live["cpu"] == 1200 + 2 * 2400 + 2 * 56 + pools


def test_draws_that_raise_or_warn_are_checked_on_every_call():
    """NumPy's value checks depend on the plain values in the signature: a draw that raises is
    never cached, so the same bad draw raises every time."""
    ft.clear_cache()
    with ft.FakeMode():
        g = np.random.default_rng(0)
        g.normal(0.0, 1.0, (4,))
        g.normal(0.0, 1.0, (4,))
        for _ in range(2):
            with pytest.raises(ValueError):
                g.normal(0.0, -1.0, (4,))
