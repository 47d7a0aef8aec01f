"""The largest size that fits: plan a program at several values of one integer parameter and
find, by bisection, the largest whose planned peak fits a memory limit on every device it names.

``sweep(fn, params, memory_limit=...)`` plans ``fn`` (a Python function taking the parameter
values); ``sweep_script(path, argv, ...)`` / ``sweep_module(name, argv, ...)`` plan a program
whose arguments hold ``{NAME}`` (``faketensor sweep``, meta_utils/planner/cli.py). Each plan runs in a
fresh state: a new recording FakeMode, the script run again as ``__main__``, and the modules
it imported from its own folder imported again.

The bisection assumes the values that fit are those up to the answer: the peak does not
decrease as the parameter grows, and a plan that stops (a needed value, an error) does not
stop only at small values. A plan contradicting this is reported (``contradictions``). The
peak as a function of the parameter is fitted over the completed plans: a polynomial of low
degree with rational coefficients through the largest values, checked on at least one plan
it was not fitted on (``fits``; None: "no polynomial fit").
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from typing import (TYPE_CHECKING, Any, Callable, Iterator, Mapping, NamedTuple, Sequence, TextIO,
                    Union)

from ..._paths import SCRIPT_DIRS, is_user_file, script_dirs
from .plan import Plan, plan, plan_module, plan_script
from .progress import LABEL, STARTED

if TYPE_CHECKING:
    from fractions import Fraction  # imported where used: it imports decimal
from .report import human, parse_limits

EXIT_FITS = 0
EXIT_NONE_FITS = 3
MAX_DEGREE = 3
MIN_FIT_POINTS = 5  # plans completed before fitting: extra values are planned when fewer

Limits = Union[str, int, Mapping[str, int]]


class Trial(NamedTuple):
    """One plan of the sweep: the varied value, every parameter's value, the outcome
    ("fits", "over" the limit, or "stopped"), peak bytes per device, why it stopped or
    which devices are over, the order it was planned in (1 first) and its seconds."""

    value: int
    params: dict
    result: str
    peak: dict
    reason: str | None
    order: int
    seconds: float


class Fit(NamedTuple):
    """The peak on one device as a polynomial in the parameter: rational coefficients,
    lowest degree first, exact on every completed plan with the value in [low, high]
    (``points`` of them, at least one beyond the ``degree + 1`` it was fitted through)."""

    device: str
    coefficients: tuple
    degree: int
    points: int
    low: int
    high: int

    def text(self, name: str) -> str:
        """``24*N^2 + 800*N + 128``."""
        return poly_text(self.coefficients, name)

    def __call__(self, x: int) -> Fraction:
        """The fitted peak at ``x``."""
        from fractions import Fraction
        return sum((c * x ** i for i, c in enumerate(self.coefficients)), Fraction(0))


class SweepResult:
    """What a sweep found: ``largest_fitting`` (None when no value fits), the ``trials`` in
    the order planned, the fitted peaks ``fits`` (device -> Fit or None), ``contradictions``
    to the monotonicity the bisection assumes, and ``exit_code`` (0 a value fits, 3 none)."""

    def __init__(self, *, name: str, param: str, lo: int, hi: int, step: int, fixed: dict,
                 limits: dict, largest: int | None, trials: list[Trial], fits: dict,
                 contradictions: list[str], seconds: float) -> None:
        self.name, self.param, self.lo, self.hi, self.step = name, param, lo, hi, step
        self.fixed, self.limits = fixed, limits
        self.largest_fitting = largest
        self.trials, self.fits, self.contradictions = trials, fits, contradictions
        self.seconds = seconds
        self.exit_code = EXIT_FITS if largest is not None else EXIT_NONE_FITS

    @property
    def assumes(self) -> str:
        """The monotonicity the bisection relies on, in words."""
        return (f"the values that fit are those up to the answer: the peak does not decrease as "
                f"{self.param} grows, and a plan that stops at a value stops at every larger one")

    def to_json(self) -> dict[str, Any]:
        """The answer under ``"largest_fitting"``, with the table of plans and the fits."""
        return {
            "largest_fitting": self.largest_fitting,
            "param": self.param, "range": [self.lo, self.hi], "step": self.step,
            "fixed": self.fixed, "limits": self.limits, "program": self.name,
            "exit_code": self.exit_code,
            "trials": [{"value": t.value, "params": t.params, "result": t.result,
                        "peak_bytes": t.peak, "reason": t.reason, "order": t.order,
                        "seconds": round(t.seconds, 6)} for t in sorted(self.trials)],
            "fit": {dev: None if f is None else {
                        "polynomial": f.text(self.param), "degree": f.degree,
                        "coefficients": [str(c) for c in f.coefficients],
                        "exact_on": [f.low, f.high], "points": f.points}
                    for dev, f in self.fits.items()},
            "monotone": not self.contradictions,
            "contradictions": self.contradictions,
            "assumes": self.assumes,
            "wall_seconds": round(self.seconds, 6),
        }

    def save_json(self, path: str) -> None:
        """Write ``to_json()`` to ``path`` (``faketensor sweep --json``)."""
        import json  # here: import faketensor stays light
        with open(path, "w") as f:
            json.dump(self.to_json(), f, indent=1)
            f.write("\n")

    def report(self) -> str:
        """The table of plans (by value), the answer and the fitted peaks, as text."""
        devs = [d for d in self.limits if d != "worker"]
        fixed = "".join(f", {k}={v}" for k, v in self.fixed.items())
        lim = ", ".join(f"{d} {human(b)}" for d, b in self.limits.items())
        step = f" (multiples of {self.step})" if self.step != 1 else ""
        lines = [f"faketensor sweep {self.name}: {self.param} in [{self.lo}, {self.hi}]{step}"
                 f"{fixed}; limit {lim}; {len(self.trials)} plans in {self.seconds:.1f} s"]
        w = max(len(self.param), *(len(str(t.value)) for t in self.trials)) if self.trials else 5
        head = f"  {self.param:>{w}}  " + "".join(f"{d + ' peak (B)':>22}" for d in devs)
        lines.append(head + "  result   #  seconds")
        for t in sorted(self.trials):
            peaks = "".join(f"{t.peak.get(d, 0):>22,}" for d in devs)
            why = f"  {t.reason}" if t.reason else ""
            lines.append(f"  {t.value:>{w}}  {peaks}  {t.result:<7}{t.order:>3}  {t.seconds:7.2f}"
                         f"{why}")
        if self.largest_fitting is None:
            lines.append(f"no value of {self.param} in [{self.lo}, {self.hi}] fits")
        else:
            t = next(t for t in self.trials if t.value == self.largest_fitting)
            peaks = ", ".join(f"{d} {human(t.peak.get(d, 0))} of {human(self.limits[d])}"
                              for d in devs)
            lines.append(f"largest fitting: {self.param}={self.largest_fitting} (peak {peaks})")
        for dev, f in self.fits.items():
            if f is None:
                lines.append(f"peak {dev}({self.param}): no polynomial fit")
            else:
                n = sum(1 for t in self.trials if t.result != "stopped")
                lines.append(f"peak {dev}({self.param}) = {f.text(self.param)} bytes (exact on "
                             f"{f.points} of {n} completed plans, {self.param} in "
                             f"[{f.low}, {f.high}])")
        lines.append(f"assumes {self.assumes}")
        if self.contradictions:
            lines.append("NOT MONOTONE, the answer may be wrong:")
            lines += [f"  {c}" for c in self.contradictions]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"SweepResult({self.param}={self.largest_fitting}, plans={len(self.trials)}, "
                f"monotone={not self.contradictions})")


# --- the search ------------------------------------------------------------------------------

def search(plan_at: Callable[[dict], Plan], param: str, lo: int, hi: int, *, limits: dict,
           step: int = 1, fixed: Mapping[str, int] | None = None, name: str = "",
           on_trial: Callable[[Trial], None] | None = None) -> SweepResult:
    """Bisect the multiples of ``step`` in [lo, hi] for the largest value of ``param`` whose
    plan (``plan_at({param: value, **fixed})``) completes within ``limits`` (device -> bytes)."""
    if step < 1:
        raise ValueError(f"step must be a positive integer, not {step}")
    first, last = -(-lo // step) * step, (hi // step) * step
    if first > last:
        raise ValueError(f"no multiple of {step} in [{lo}, {hi}]")
    fixed = dict(fixed or {})
    count = (last - first) // step
    trials: dict[int, Trial] = {}
    t0 = time.perf_counter()

    def at(k: int) -> Trial:
        value = first + k * step
        if value not in trials:
            params = {param: value, **fixed}
            token = LABEL.set(f"{param}={value} (plan {len(trials) + 1}) ")
            since = STARTED.set(t0)  # the progress line counts from the sweep's start
            t = time.perf_counter()
            try:
                p = plan_at(params)
            finally:
                LABEL.reset(token)
                STARTED.reset(since)
            trials[value] = _trial(value, params, p, limits, len(trials) + 1,
                                   time.perf_counter() - t)
            if on_trial is not None:
                on_trial(trials[value])
        return trials[value]

    if at(count).result == "fits":
        best: int | None = count
    elif at(0).result != "fits":
        best = None
    else:
        good, bad = 0, count
        while bad - good > 1:
            mid = (good + bad) // 2
            if at(mid).result == "fits":
                good = mid
            else:
                bad = mid
        best = good
    for k in _spread(count):  # enough completed plans to fit and check a polynomial
        if sum(t.result != "stopped" for t in trials.values()) >= MIN_FIT_POINTS:
            break
        at(k)
    done = list(trials.values())
    return SweepResult(name=name, param=param, lo=lo, hi=hi, step=step, fixed=fixed,
                       limits=dict(limits), largest=None if best is None else first + best * step,
                       trials=done, fits={d: fit_peak(done, d) for d in limits if d != "worker"},
                       contradictions=contradictions(done, [d for d in limits if d != "worker"]),
                       seconds=time.perf_counter() - t0)


def _spread(count: int) -> list[int]:
    """Grid indices spread over [0, count]: the quarters first, then the eighths, ..."""
    out: list[int] = []
    parts = 4
    while len(out) < count + 1 and parts <= 4 * (count + 1):
        for i in range(parts + 1):
            k = round(i * count / parts)
            if k not in out:
                out.append(k)
        parts *= 2
    return out


def _trial(value: int, params: dict, p: Plan, limits: dict, order: int, seconds: float) -> Trial:
    peak = dict(p.peak)
    if p.status == "completed" and p.exit_code != 0:
        return Trial(value, params, "stopped", peak, f"exited with status {p.exit_code}", order,
                     seconds)
    if p.status != "completed":
        stop = p.stopped_at or {}
        where = f" at {os.path.basename(stop['file'])}:{stop['line']}" if stop.get("file") else ""
        msg = stop.get("message") or p.status
        return Trial(value, params, "stopped", peak, f"{p.status}{where}: {msg}", order, seconds)
    over = p.over_limit(limits)
    if over:
        return Trial(value, params, "over", peak, "over on " + ", ".join(over), order, seconds)
    return Trial(value, params, "fits", peak, None, order, seconds)


def contradictions(trials: Sequence[Trial], devices: Sequence[str]) -> list[str]:
    """Where the plans contradict the monotonicity the bisection assumes: a value that fits
    above one that does not, or a peak that falls as the value grows."""
    out = []
    ordered = sorted(trials)
    for i, a in enumerate(ordered):
        b = next((b for b in ordered[i + 1:] if b.result == "fits"), None)
        if a.result != "fits" and b is not None:
            out.append(f"{a.value} does not fit ({a.result}) but {b.value} does")
    done = [t for t in ordered if t.result != "stopped"]
    for dev in devices:
        for a, b in zip(done, done[1:]):
            if b.peak.get(dev, 0) < a.peak.get(dev, 0):
                out.append(f"the {dev} peak falls from {a.peak.get(dev, 0):,} B at {a.value} to "
                           f"{b.peak.get(dev, 0):,} B at {b.value}")
    return out


# --- the fit ---------------------------------------------------------------------------------

def fit_peak(trials: Sequence[Trial], device: str, max_degree: int = MAX_DEGREE) -> Fit | None:
    """The lowest-degree polynomial with rational coefficients through the completed plans of
    the largest values that also holds on at least one more plan; it holds on every plan down
    to ``low``. None when no degree up to ``max_degree`` does."""
    pts = sorted(((t.value, t.peak.get(device, 0)) for t in trials if t.result != "stopped"),
                 reverse=True)
    best: Fit | None = None
    for d in range(max_degree + 1):
        if len(pts) < d + 2:
            break
        coef = interpolate(pts[: d + 1])
        held = 0
        for x, y in pts[d + 1:]:
            if _eval(coef, x) != y:
                break
            held += 1
        if held and (best is None or d + 1 + held > best.points):
            best = Fit(device, _trim(coef), len(_trim(coef)) - 1, d + 1 + held,
                       pts[d + held][0], pts[0][0])
    return best


def interpolate(points: Sequence[tuple[int, int]]) -> tuple[Fraction, ...]:
    """Coefficients (lowest degree first) of the polynomial through ``points``, exact
    (Lagrange's form expanded in rationals)."""
    from fractions import Fraction
    n = len(points)
    coef = [Fraction(0)] * n
    for i, (xi, yi) in enumerate(points):
        basis = [Fraction(1)]  # prod over j != i of (x - xj) / (xi - xj)
        denom = Fraction(1)
        for j, (xj, _) in enumerate(points):
            if j == i:
                continue
            basis = [Fraction(0)] + basis  # times x
            for k in range(len(basis) - 1):
                basis[k] -= xj * basis[k + 1]
            denom *= xi - xj
        for k, b in enumerate(basis):
            coef[k] += yi * b / denom
    return tuple(coef)


def _eval(coef: Sequence[Fraction], x: int) -> Fraction:
    from fractions import Fraction
    y = Fraction(0)
    for c in reversed(coef):
        y = y * x + c
    return y


def _trim(coef: Sequence[Fraction]) -> tuple[Fraction, ...]:
    out = list(coef)
    while len(out) > 1 and out[-1] == 0:
        out.pop()
    return tuple(out)


def poly_text(coef: Sequence[Fraction], name: str) -> str:
    """``3/2*N^2 - 8*N + 128`` (highest degree first)."""
    terms = []
    for k in range(len(coef) - 1, -1, -1):
        c = coef[k]
        if c == 0 and len(coef) > 1:
            continue
        mag = abs(c)
        var = "" if k == 0 else name if k == 1 else f"{name}^{k}"
        num = str(mag) if (mag != 1 or not var) else ""
        body = num + ("*" if num and var else "") + var
        terms.append(("- " if c < 0 else "+ ") + body)
    text = " ".join(terms) if terms else "+ 0"
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


# --- programs --------------------------------------------------------------------------------

def _limits(memory_limit: Limits, device: str | None) -> dict:
    if isinstance(memory_limit, str):
        return parse_limits(memory_limit, device or "cpu")
    if isinstance(memory_limit, int):
        return {device or "cpu": memory_limit}
    return dict(memory_limit)


def substitute(argv: Sequence[str], values: Mapping[str, int]) -> list[str]:
    """``argv`` with every ``{NAME}`` replaced by its value (other braces left alone)."""
    out = []
    for a in argv:
        for k, v in values.items():
            a = a.replace("{" + k + "}", str(v))
        out.append(a)
    return out


@contextlib.contextmanager
def fresh_modules(folder: str) -> Iterator[None]:
    """Modules imported inside the block from ``folder`` (the program's own) are taken out
    of ``sys.modules`` afterwards, so the next plan imports them again under its own mode."""
    before = set(sys.modules)
    try:
        yield
    finally:
        token = SCRIPT_DIRS.set(script_dirs(folder))
        try:
            for name in [n for n in sys.modules if n not in before]:
                f = getattr(sys.modules.get(name), "__file__", None)
                if (f and not name.startswith("faketensor") and is_user_file(f)):
                    sys.modules.pop(name, None)
        finally:
            SCRIPT_DIRS.reset(token)


def sweep_program(target: str, argv: Sequence[str], param: str, lo: int, hi: int, *,
                  memory_limit: Limits, step: int = 1, fixed: Mapping[str, int] | None = None,
                  module: bool = False, device: Any = None, data_dependent: str = "stop",
                  on_trial: Callable[[Trial], None] | None = None,
                  output: TextIO | None = None) -> SweepResult:
    """Sweep ``python target *argv`` (``python -m target`` with ``module``), ``{NAME}`` in
    the target and arguments replaced by each value; the program's stdout goes to ``output``
    (discarded by default)."""
    limits = _limits(memory_limit, device)
    names = {param, *(fixed or {})}
    missing = [n for n in names if not any("{" + n + "}" in a for a in (target, *argv))]
    if missing:
        raise ValueError(f"no {{{missing[0]}}} in the program's arguments")
    folder = os.getcwd() if module else None

    def plan_at(values: dict) -> Plan:
        path, *args = substitute([target, *argv], values)
        sink = output if output is not None else io.StringIO()
        where = folder or os.path.dirname(os.path.realpath(path))
        with fresh_modules(where), contextlib.redirect_stdout(sink):
            if module:
                return plan_module(path, args, device=device, data_dependent=data_dependent)
            return plan_script(path, args, device=device, data_dependent=data_dependent)

    name = ("-m " if module else "") + target
    return search(plan_at, param, lo, hi, limits=limits, step=step, fixed=fixed, name=name,
                  on_trial=on_trial)


def sweep(fn: Callable, params: tuple[int, int] | Mapping[str, Any], *, memory_limit: Limits,
          step: int = 1, device: str | None = None) -> SweepResult:
    """The largest value that fits: ``params`` is ``(lo, hi)`` (``fn(value)`` is planned)
    or ``{"B": (lo, hi), "T": 1024, ...}`` (the first varied, the others fixed;
    ``fn(B=value, T=1024)``). ``memory_limit``: ``"8GiB"``, ``"cpu=8GiB,cuda:0=80GiB"``,
    bytes, or device -> bytes; ``device`` names the device a bare size is for."""
    if isinstance(params, tuple):
        (lo, hi), param, fixed, positional = params, "n", {}, True
    else:
        items = list(params.items())
        if not items or not isinstance(items[0][1], tuple):
            raise ValueError("the first parameter must be a (lo, hi) range")
        (param, (lo, hi)), positional = items[0], False
        fixed = dict(items[1:])
        bad = [k for k, v in fixed.items() if isinstance(v, tuple)]
        if bad:
            raise ValueError(f"only the first parameter is varied; {bad[0]} is a range")

    def plan_at(values: dict) -> Plan:
        return plan(fn, values[param]) if positional else plan(fn, **values)

    name = getattr(fn, "__qualname__", None) or repr(fn)
    return search(plan_at, param, lo, hi, limits=_limits(memory_limit, device), step=step,
                  fixed=fixed, name=name)


__all__ = ["sweep", "sweep_program", "search", "SweepResult", "Trial", "Fit", "fit_peak",
           "interpolate", "poly_text", "substitute", "contradictions", "EXIT_FITS",
           "EXIT_NONE_FITS"]
