"""``faketensor coverage --memory``: whether the memory figures of the surveyed calls equal
NumPy's allocator, call by call.

Every sample of the coverage survey (``survey.py``) whose fake metadata is exact runs once
more for real under NumPy-only tracemalloc (``memtrace.traced_call``) and once on the fakes
of the same inputs inside ``FakeMode``; the peak and live bytes above the inputs (the way
``memtrace.op_peaks`` measures one op) must agree to the byte. A call whose kernel says its
bytes besides the outputs are not modelled (``registry.unmodelled``: value-dependent
temporaries) is counted apart, as "unmodelled", not as exact.

Statuses per callable: ``exact`` (every sample measured agrees), ``differs`` (some sample
does not: the first difference is kept, as real/fake peak and live), ``unmodelled`` (none
differs, some said so), ``not measured`` (no sample whose metadata is exact: nothing to
compare). The share is exact / measured, per namespace.

``measure_call`` is the comparison of one call, also used on other corpora of real calls
(tests/planner/test_memory_survey.py replays NumPy's own test calls with it).
"""
from __future__ import annotations

import time
import warnings
from typing import Any, Callable, Iterable, NamedTuple

import numpy as np

from ..._convert import Converter
from .memtrace import as_program, traced_call
from .oracle import copy_tree, to_fakes
from .samples import Sample
from .survey import Callee, build_sample, callees, no_array, recipe, run_sample, survey_session

MEMORY_STATUSES = ("exact", "differs", "unmodelled", "not measured")


class Measured(NamedTuple):
    """One call measured both ways: ``verdict`` is "exact", "differs", "unmodelled" or "skip"
    (the real call raised, or the fake did: nothing to compare)."""
    verdict: str
    real: tuple[int, int]   # (peak, live) bytes above the inputs
    fake: tuple[int, int]
    why: str = ""           # the kernel's reason for "unmodelled", the exception for "skip"

    def difference(self) -> str:
        return (f"real peak {self.real[0]} live {self.real[1]}, "
                f"fake peak {self.fake[0]} live {self.fake[1]}")


def prime() -> None:
    """Make NumPy's lasting first-call allocations before anything is measured: the first
    Generator caches 16 bytes for good; np.median's first call imports numpy.ma, whose module
    arrays stay alive."""
    np.random.default_rng(0)
    np.median(np.ones(4))


def _real_figures(build: Callable[[], tuple[tuple, dict]], make: Callable[[], Callable],
                  call: Callable[..., Any]) -> tuple[int, int] | BaseException:
    args, kwargs = build()
    fn = make()  # a Generator's seeding allocates: made before the measurement
    try:
        peak, live, res = traced_call(lambda: call(fn, args, kwargs))
    except Exception as e:  # nothing to compare
        return e
    del res
    return peak, live


def measure_call(build: Callable[[], tuple[tuple, dict]], make: Callable[[], Callable],
                 call: Callable[..., Any] = as_program) -> Measured:
    """The call ``call(make(), *build())`` measured on real NumPy and on fakes of the same
    inputs in ``FakeMode`` (``build`` makes fresh real inputs each time; the fake side
    converts a copy before entering the mode, so the inputs are not counted). A real figure
    that differs is measured a second time: a first call's lasting cache (a module imported,
    a table built) is not the call's."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        real = _real_figures(build, make, call)
        if isinstance(real, BaseException):
            return Measured("skip", (0, 0), (0, 0), f"real {type(real).__name__}")
        fake_or_error = _fake_figures(build, make, call)
        if isinstance(fake_or_error, BaseException):
            return Measured("skip", real, (0, 0), f"fake {type(fake_or_error).__name__}")
        fake, why = fake_or_error
        if fake != real:
            again = _real_figures(build, make, call)
            real = again if not isinstance(again, BaseException) else real
    if fake == real:
        return Measured("exact", real, fake)
    return Measured("unmodelled" if why else "differs", real, fake, why)


def _fake_figures(build: Callable[[], tuple[tuple, dict]], make: Callable[[], Callable],
                  call: Callable[..., Any]) -> tuple[tuple[int, int], str] | BaseException:
    from ...modes import FakeMode
    args, kwargs = to_fakes(build(), Converter())
    try:
        with FakeMode() as mode:
            fn = make()  # a Generator made inside the mode draws fakes
            stats = mode.memory
            base = stats.live.get("cpu", 0)
            stats.reset_peak("cpu")
            res = call(fn, args, kwargs)
            figures = stats.peak["cpu"] - base, stats.live.get("cpu", 0) - base
            del res
    except Exception as e:  # nothing to compare
        return e
    why = "; ".join(f"{name}: {row[0]}" for name, row in mode.memory_unmodelled.items())
    return figures, why


class MemRow(NamedTuple):
    name: str
    namespace: str
    status: str    # one of MEMORY_STATUSES
    measured: int  # samples measured (metadata exact, both calls returned)
    exact: int     # of them, to the byte
    unmodelled: int
    detail: str    # the first difference (real/fake peak and live) or the kernel's reason
    first: str     # the sample id it concerns


def _builder(c: Callee, s: Sample) -> Callable[[], tuple[tuple, dict]]:
    """Fresh real inputs of sample ``s`` (copies with the same layouts) at each call."""
    def build() -> tuple[tuple, dict]:
        return copy_tree(build_sample(c, s))
    return build


def _samples(c: Callee, per_template: int | None) -> list[Sample]:
    templates, _ = recipe(c)
    out: list[Sample] = []
    for tmpl in templates:
        s = tmpl.expand(c.backend)
        out += s if per_template is None else s[:per_template]
    return out


def measure_memory(c: Callee, per_template: int | None = None,
                   found: list | None = None) -> MemRow:
    """Compare the memory figures of every sample of ``c`` whose fake metadata is exact
    (``per_template``: only the first samples of each argument template; ``found``: gets
    (name, sample id, Measured) of every sample not exact)."""
    n = exact = unmod = 0
    first: dict[str, tuple[str, str]] = {}
    if no_array(c) is None:
        for s in _samples(c, per_template):
            out = run_sample(c, s)  # the metadata; also the call's first run (its caches)
            if out.verdict != "ok" or not out.answered:
                continue
            m = measure_call(_builder(c, s), c.make)
            if m.verdict == "skip":
                continue
            n += 1
            exact += m.verdict == "exact"
            unmod += m.verdict == "unmodelled"
            if found is not None and m.verdict != "exact":
                found.append((c.name, s.id, m))
            if m.verdict == "differs":
                first.setdefault("differs", (m.difference(), s.id))
            elif m.verdict == "unmodelled":
                first.setdefault("unmodelled", (m.why, s.id))
    status = ("not measured" if n == 0 else "differs" if "differs" in first
              else "unmodelled" if unmod else "exact")
    detail, sid = first.get(status, ("", ""))
    return MemRow(c.name, c.namespace, status, n, exact, unmod, detail, sid)


def memory_survey(names: Iterable[str] | None = None, per_template: int | None = None,
                  found: list | None = None) -> dict:
    """Measure every surveyed NumPy callable (or those named): rows and per-namespace shares
    (``found``: see ``measure_memory``)."""
    wanted = set(names) if names is not None else None
    start = time.perf_counter()
    rows = []
    prime()
    with survey_session():
        for c in callees("numpy"):
            if wanted is None or c.name in wanted:
                rows.append(measure_memory(c, per_template, found))
    return {"seconds": round(time.perf_counter() - start, 1), "rows": rows,
            "namespaces": memory_shares(rows)}


def _count(rows: list[MemRow]) -> dict:
    counts = {s: 0 for s in MEMORY_STATUSES}
    for r in rows:
        counts[r.status] += 1
    measured = len(rows) - counts["not measured"]
    return {"callables": len(rows), **counts, "measured": measured,
            "calls": sum(r.measured for r in rows), "calls_exact": sum(r.exact for r in rows),
            "calls_unmodelled": sum(r.unmodelled for r in rows),
            "share_exact": counts["exact"] / measured if measured else 0.0}


def memory_shares(rows: list[MemRow]) -> dict:
    """Counts per status and the memory-exact share of the measured callables, per namespace
    and in total."""
    out = {ns: _count([r for r in rows if r.namespace == ns])
           for ns in dict.fromkeys(r.namespace for r in rows)}
    out["total"] = _count(rows)
    return out


def memory_table(namespaces: dict) -> list[str]:
    """The per-namespace table of ``faketensor coverage --memory``."""
    lines = [f"{'namespace':<16}{'callables':>10}{'measured':>9}{'exact':>7}{'differs':>8}"
             f"{'unmod':>7}{'calls':>8}{'exact calls':>12}{'memory exact':>15}"]
    for ns, c in namespaces.items():
        lines.append(f"{ns:<16}{c['callables']:>10}{c['measured']:>9}{c['exact']:>7}"
                     f"{c['differs']:>8}{c['unmodelled']:>7}{c['calls']:>8}{c['calls_exact']:>12}"
                     f"{100 * c['share_exact']:>14.1f}%")
    return lines
