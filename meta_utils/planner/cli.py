"""The ``faketensor`` command.

``faketensor run [options] SCRIPT [ARGS...]`` / ``faketensor run [options] -m MODULE [ARGS...]``:
plan a program's memory and FLOPs on fakes, as ``python SCRIPT ARGS`` would run it; the
report goes to stderr. Exit status: the script's own (``sys.exit``), 1 when it raised, 2
when it needed a value or an unsupported function, 3 when a peak exceeds ``--memory-limit``,
4 when a finding of a kind named in ``--fail-on`` occurred (upcast, implicit_copy, overlap_copy).
``faketensor sweep --memory-limit SIZE --param NAME=LO:HI [--param NAME=VALUE] [--step N] SCRIPT
ARGS...``: the largest NAME in [LO, HI] whose plan fits (``{NAME}`` in ARGS replaced by each value
tried; meta_utils/planner/sweep.py); the value on stdout; exit 0 when one fits, 3 when none does.
``faketensor inspect FILE...``: list the arrays in .npy / .npz / .safetensors files from headers.
``faketensor ops [--backend numpy|cupy] [--json]``: every registered kernel: source, tags, FLOP rule.
``faketensor coverage [--backend numpy|cupy] [--json] [--all] [--check] [--only NAME] [--kernels]
[--memory]``: every public callable run on awkward samples against real NumPy, classified exact /
data-dependent / wrong / unsupported / not dispatched / untested, with the shares per namespace
(``--check``: exit 1 unless the goal is met; ``--kernels``: only whether a call reaches a kernel;
``--memory``: the peak and live bytes of every exact call against NumPy's allocator).
"""
from __future__ import annotations

import argparse
import codecs
import json
import os
import sys
from typing import Any, Sequence, TextIO

from ..._version import __version__
from ..convert.files import inspect_file
from .report import human


def escape(text: str, encoding: str | None = "utf-8") -> str:
    """text safe for a terminal: backslashes, and characters that are not printable (control,
    format, surrogates) or that ``encoding`` cannot hold, written as Python escapes."""
    enc = codecs.lookup(encoding or "utf-8").name
    if text.isprintable() and "\\" not in text and (enc == "utf-8" or _encodes(text, enc)):
        return text
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch.isprintable() and _encodes(ch, enc):
            out.append(ch)
        else:
            out.append(ascii(ch)[1:-1])  # \x1b, \n, \u202e, \ud800, \U0001f600
    return "".join(out)


def _encodes(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeError:
        return False
    return True


def _encoding(stream: TextIO) -> str:
    return getattr(stream, "encoding", None) or "utf-8"


def inspect(paths: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Print name, shape, dtype, order and bytes per array and a total; 1 if a file is bad.

    Names come from the files (zip members, safetensors keys) and are escaped: a name never
    reaches the terminal as control sequences, and no name can make the listing fail."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    enc, err_enc = _encoding(out), _encoding(err)
    rc = 0
    total = 0
    for path in paths:
        try:
            infos = inspect_file(path)
        except Exception as e:  # any reason a file is refused is reported, never a crash
            msg = str(e) if str(path) in str(e) else f"{path}: {type(e).__name__}: {e}"
            print(escape(f"error: {msg}", err_enc), file=err)
            rc = 1
            continue
        print(escape(f"{path}:", enc), file=out)
        for i in infos:
            order = "F" if i.fortran_order else "C"
            print(f"  {escape(i.name, enc):<30} {str(i.shape):<20} "
                  f"{escape(str(i.dtype), enc):<12} {order}  {i.nbytes:>15,d} B", file=out)
            total += i.nbytes
    print(f"total: {total:,d} B ({human(total)})", file=out)
    return rc


def list_ops(backend: str | None, as_json: bool, out: TextIO | None = None) -> int:
    """Print every registered kernel: op, backend, kernel name, file:line, tags."""
    from ..surveys.coverage import ops
    out = out if out is not None else sys.stdout
    rows = ops(backend)
    if as_json:
        json.dump([r._asdict() for r in rows], out, indent=1)
        print(file=out)
        return 0
    for r in rows:
        tags = ",".join(r.tags + (("cacheable",) if r.cacheable else ()))
        print(f"{r.op:<44} {r.backend:<6} {r.source:<40} {tags:<24} flops={r.flops}", file=out)
    print(f"{len(rows)} kernels", file=out)
    return 0


def show_kernel_coverage(backend: str, as_json: bool, out: TextIO | None = None) -> int:
    """Print each public callable's status and the share that reaches a kernel."""
    from ..surveys.coverage import coverage, share
    out = out if out is not None else sys.stdout
    rows = coverage(backend)
    summary = share(rows)
    if as_json:
        json.dump({"backend": backend, "callables": [r._asdict() for r in rows], **summary},
                  out, indent=1)
        print(file=out)
        return 0
    for r in rows:
        print(f"{r.name:<48} {r.status:<15} {r.source}", file=out)
    counts = ", ".join(f"{n} {s}" for s, n in sorted(summary["counts"].items()))
    print(f"{backend}: {summary['covered']} of {summary['dispatched']} dispatched callables reach "
          f"a kernel ({100 * summary['share']:.1f}%); {counts}", file=out)
    return 0


_COLUMNS = (("exact", "exact"), ("data-dependent", "data-dep"), ("wrong", "wrong"),
            ("unsupported", "unsupp"), ("not dispatched", "not-disp"), ("untested", "untested"),
            ("no array", "no-array"))


def coverage_table(namespaces: dict) -> list[str]:
    """The per-namespace table: counts per status, the exact share of the callables whose
    output metadata does not depend on values, and the value-dependent ones refusing."""
    head = f"{'namespace':<14}{'callables':>10}" + "".join(f"{h:>9}" for _, h in _COLUMNS)
    lines = [head + f"{'exact / value-independent':>30}{'refusing / value-dependent':>29}"]
    for ns, c in namespaces.items():
        share = f"{c['exact_of_independent']}/{c['value_independent']} {100 * c['share_exact']:5.1f}%"
        lines.append(f"{ns:<14}{c['callables']:>10}" + "".join(f"{c[k]:>9}" for k, _ in _COLUMNS)
                     + f"{share:>30}{c['refusing_of_dependent']:>22}/{c['value_dependent']:<6}")
    return lines


def show_coverage(backend: str, as_json: bool, show_all: bool = False, check: bool = False,
                  out: TextIO | None = None, only: Sequence[str] | None = None) -> int:
    """Measure every public callable on fakes against the real library (meta_utils/surveys/survey.py)
    and print the table, the callables that are not exact grouped by status, and the goal;
    with ``check``, exit 1 unless the goal is met; ``only``: measure just these callables."""
    from ..surveys.survey import not_exact, survey
    out = out if out is not None else sys.stdout
    res = survey(backend, only)
    if not res["measured"]:
        if as_json:
            json.dump({k: v for k, v in res.items() if k != "rows"}, out, indent=1)
            print(file=out)
        else:
            print(f"{backend}: {res['reason']}", file=out)
        return 1 if check else 0
    rows = res["rows"]
    if not rows:
        return _no_callable(backend, out)
    if as_json:
        _dump_rows(res, out)
    else:
        if show_all:
            for r in rows:
                print(f"{r.name:<46} {r.status:<15} {r.agree + r.refused:>4}/{r.samples:<4} "
                      f"{'value-dependent' if r.value_dependent else '':<16}{escape(r.detail)}", file=out)
            print(file=out)
        for status, group in not_exact(rows).items():
            if not group:
                continue
            print(f"{status} ({len(group)}):", file=out)
            for r in group:
                where = f" [{r.first}]" if r.first else ""
                print(f"  {r.name:<44} {r.agree + r.refused:>4}/{r.samples:<4} "
                      f"{escape(r.detail)}{escape(where)}", file=out)
        print(file=out)
        for line in coverage_table(res["namespaces"]):
            print(line, file=out)
        total, g = res["namespaces"]["total"], res["goal"]
        print(f"{backend}: {total['exact_of_independent']} of {total['value_independent']} callables whose "
              f"output metadata does not depend on values are exact ({100 * g['share_exact']:.1f}%, "
              f"goal {100 * g['target']:.0f}%); {total['refusing_of_dependent']} of "
              f"{total['value_dependent']} value-dependent ones raise DataDependentError; "
              f"{total['samples']} calls in {res['seconds']} s", file=out)
    return 1 if check and not res["goal"]["met"] else 0


def _no_callable(backend: str, out: TextIO) -> int:
    print(f"{backend}: no callable of that name", file=sys.stderr if out is sys.stdout else out)
    return 1


def _dump_rows(res: dict, out: TextIO) -> None:
    """A survey's figures as JSON, its rows under "callables"."""
    doc = {k: v for k, v in res.items() if k != "rows"}
    doc["callables"] = [r._asdict() for r in res["rows"]]
    json.dump(doc, out, indent=1)
    print(file=out)


def show_memory_coverage(as_json: bool, show_all: bool = False, out: TextIO | None = None,
                         only: Sequence[str] | None = None) -> int:
    """Compare the memory figures of every surveyed NumPy call whose metadata is exact with
    NumPy's allocator (meta_utils/surveys/memsurvey.py): the callables not exact with their first
    difference, then the memory-exact share per namespace."""
    from ..surveys.memsurvey import memory_survey, memory_table
    out = out if out is not None else sys.stdout
    res = memory_survey(only)
    rows = res["rows"]
    if not rows:
        return _no_callable("numpy", out)
    if as_json:
        _dump_rows(res, out)
        return 0
    for status in ("differs", "unmodelled") + (("exact", "not measured") if show_all else ()):
        group = [r for r in rows if r.status == status]
        if group:
            print(f"memory {status} ({len(group)}):", file=out)
        for r in group:
            where = f" [{r.first}]" if r.first else ""
            print(f"  {r.name:<44} {r.exact:>4}/{r.measured:<4} {escape(r.detail)}{escape(where)}",
                  file=out)
    print(file=out)
    for line in memory_table(res["namespaces"]):
        print(line, file=out)
    total = res["namespaces"]["total"]
    print(f"numpy: {total['exact']} of {total['measured']} callables measured are memory exact "
          f"({100 * total['share_exact']:.1f}%); {total['calls_exact']} of {total['calls']} calls "
          f"({total['calls_unmodelled']} unmodelled) in {res['seconds']} s", file=out)
    return 0


def run(args: argparse.Namespace, err: TextIO | None = None) -> int:
    """``faketensor run``: plan the program, print the report, write --json / --html."""
    from .plan import EXIT_FINDINGS, EXIT_OVER_LIMIT, plan_module, plan_script, print_error
    from .report import parse_limits
    err = err if err is not None else sys.stderr
    device = args.device
    try:
        fail_on = parse_kinds(args.fail_on) if args.fail_on else ()
    except ValueError as e:
        print(f"faketensor run: --fail-on: {e}", file=err)
        return 2
    try:
        limits = parse_limits(args.memory_limit, device or "cpu") if args.memory_limit else None
    except ValueError as e:
        print(f"faketensor run: --memory-limit: {e}", file=err)
        return 2
    try:
        sizes = parse_assume_sizes(args.assume_size or [])
    except ValueError as e:
        print(f"faketensor run: --assume-size: {e}", file=err)
        return 2
    kw = dict(device=device, data_dependent=args.data_dependent, top=args.top,
              assume_sizes=sizes)
    if args.module:
        p = plan_module(args.module, args.target, **kw)
    else:
        if not args.target:
            print("faketensor run: give a SCRIPT or -m MODULE", file=err)
            return 2
        try:
            p = plan_script(args.target[0], args.target[1:], **kw)
        except FileNotFoundError as e:
            print(f"faketensor run: {e}", file=err)
            return 2
    if p.status == "error":
        print_error(p, err)
    err.flush()
    print(p.report(top=args.top, limits=limits), file=err)
    if args.json:
        p.save_json(args.json)
    if args.html:
        p.save_html(args.html)
    if p.exit_code == 0 and limits and p.over_limit(limits):
        return EXIT_OVER_LIMIT
    if p.exit_code == 0 and fail_on and p.failing(fail_on):
        print(f"faketensor run: failing on findings: {', '.join(fail_on)}", file=err)
        return EXIT_FINDINGS
    return p.exit_code


def parse_assume_sizes(texts: Sequence[str]) -> dict[str, float]:
    """``["12=0.5", "lbm.py:30=0"]`` -> ``{"12": 0.5, "lbm.py:30": 0.0}``: the data-dependent
    sizes made at those lines, fixed at that fraction of their range."""
    out: dict[str, float] = {}
    for text in texts:
        where, sep, frac = text.rpartition("=")
        line = where.rpartition(":")[2]
        try:
            f = float(frac)
        except ValueError:
            f = -1.0
        if not sep or not line.isdigit() or not 0.0 <= f <= 1.0:
            raise ValueError(f"{text!r}: write LINE=FRACTION or FILE:LINE=FRACTION, the "
                             "fraction between 0 and 1")
        out[where] = f
    return out


def parse_kinds(text: str) -> tuple[str, ...]:
    """``"upcast,overlap_copy"`` -> the finding kinds; an unknown one raises ValueError."""
    from .plan import FINDING_KINDS
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    bad = [k for k in kinds if k not in FINDING_KINDS]
    if bad or not kinds:
        raise ValueError(f"unknown finding kind {', '.join(bad) or repr(text)}; "
                         f"choose from {', '.join(FINDING_KINDS)}")
    return kinds


def parse_param(text: str) -> tuple[str, int, int]:
    """``"B=1:4096"`` -> ("B", 1, 4096); ``"T=1024"`` -> ("T", 1024, 1024)."""
    name, sep, rng = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise ValueError(f"{text!r}: write NAME=LO:HI (or NAME=VALUE for a fixed one)")
    lo, colon, hi = rng.partition(":")
    try:
        a, b = int(lo), int(hi if colon else lo)
    except ValueError:
        raise ValueError(f"{text!r}: the values must be integers") from None
    if a > b:
        raise ValueError(f"{text!r}: LO is above HI")
    return name, a, b


def sweep(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``faketensor sweep``: the largest value of the first --param whose plan fits the
    limit; the value on stdout, the table of plans and the fitted peak on stderr."""
    from .sweep import sweep_program
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        params = [parse_param(p) for p in args.param]
        if not params:
            raise ValueError("give the parameter to vary: --param NAME=LO:HI")
        (name, lo, hi), rest = params[0], params[1:]
        if lo == hi and not args.param[0].partition("=")[2].count(":"):
            raise ValueError(f"the first --param is the one varied: write {name}=LO:HI")
        varied = [n for n, a, b in rest if a != b]
        if varied:
            raise ValueError(f"only the first --param is varied; give {varied[0]} one value")
        fixed = {n: a for n, a, _ in rest}
        if len({name, *fixed}) != len(params):
            raise ValueError("a parameter is given twice")
    except ValueError as e:
        print(f"faketensor sweep: --param: {e}", file=err)
        return 2
    target = args.module or (args.target[0] if args.target else None)
    argv = args.target if args.module else args.target[1:]
    if target is None:
        print("faketensor sweep: give a SCRIPT or -m MODULE", file=err)
        return 2
    if not args.module and "{" not in target and not os.path.exists(target):
        print(f"faketensor sweep: can't open file {target!r}: no such file", file=err)
        return 2
    try:
        res = sweep_program(target, argv, name, lo, hi, memory_limit=args.memory_limit,
                            step=args.step, fixed=fixed, module=bool(args.module),
                            device=args.device, data_dependent=args.data_dependent)
    except (ValueError, FileNotFoundError) as e:
        print(f"faketensor sweep: {e}", file=err)
        return 2
    print(res.report(), file=err)
    if args.json:
        res.save_json(args.json)
    if res.largest_fitting is not None:
        print(res.largest_fitting, file=out)
    return res.exit_code


def _sweep_parser(sub: Any) -> None:
    p = sub.add_parser("sweep", help="the largest value of a parameter whose plan fits a memory limit",
                       description="Plan SCRIPT ARGS (or -m MODULE ARGS) with {NAME} in ARGS "
                       "replaced by values of NAME, and find by bisection the largest that fits "
                       "--memory-limit on every device it names (assuming the peak does not "
                       "decrease as NAME grows). Prints the value on stdout, and the plans and "
                       "the peak fitted as a polynomial in NAME on stderr. Exit 0 when a value "
                       "fits, 3 when none does, 2 on bad arguments.")
    p.add_argument("--memory-limit", metavar="SIZE", required=True,
                   help="8GiB, or per device: cpu=8GiB,cuda:0=80GiB")
    p.add_argument("--param", action="append", default=[], metavar="NAME=LO:HI",
                   help="the parameter varied (the first given); NAME=VALUE: one held fixed")
    p.add_argument("--step", type=int, default=1, metavar="N",
                   help="try only multiples of N")
    p.add_argument("--device", default=None,
                   help="where CuPy arrays live: cpu, cuda or cuda:N (no GPU needed)")
    p.add_argument("--data-dependent", choices=("stop", "placeholder"), default="stop",
                   help="a plan needing a value stops (does not fit), or goes on with placeholders")
    p.add_argument("--json", metavar="PATH", help="write the answer and the plans as JSON")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a module as python -m")
    p.add_argument("target", nargs=argparse.REMAINDER, metavar="SCRIPT [ARGS...]")


# the options of ``faketensor run`` that take a value (split_run uses them to find where the
# program's own arguments start)
RUN_VALUE_OPTIONS = ("--device", "--memory-limit", "--fail-on", "--json", "--html",
                     "--data-dependent", "--top", "--assume-size")


def split_run(tokens: Sequence[str]) -> tuple[list[str], str | None, list[str]]:
    """``faketensor run``'s arguments as (its own options, MODULE of ``-m`` or None, the
    program's: SCRIPT and its arguments, or the module's arguments). As with ``python``,
    everything after ``-m MODULE`` or the script goes to the program, options included
    (``run -m pkg --vocab 256``)."""
    tokens = list(tokens)
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t == "--":
            return tokens[:i], None, tokens[i + 1:]
        if t == "-m":
            if i + 1 == len(tokens):
                return tokens, None, []  # argparse says -m needs a value
            return tokens[:i], tokens[i + 1], tokens[i + 2:]
        if t.startswith("-m") and not t.startswith("--"):
            return tokens[:i], t[2:], tokens[i + 1:]
        if t.startswith("-") and t != "-":
            name = t.split("=", 1)[0]
            takes = [o for o in RUN_VALUE_OPTIONS if o.startswith(name)] if name[:2] == "--" else []
            i += 2 if "=" not in t and (name in RUN_VALUE_OPTIONS or len(takes) == 1) else 1
            continue
        return tokens[:i], None, tokens[i:]
    return tokens, None, []


def _run_parser(sub: Any) -> None:
    p = sub.add_parser("run", help="plan a script's memory and FLOPs without running it",
                       description="Run SCRIPT (or -m MODULE) as python would, on fake arrays, "
                       "and report its memory per device and FLOPs on stderr.")
    p.add_argument("--device", default=None,
                   help="where CuPy arrays live: cpu, cuda or cuda:N (no GPU needed)")
    p.add_argument("--memory-limit", metavar="SIZE",
                   help="24GiB, or per device: cpu=24GiB,cuda:0=80GB; exit 3 when exceeded")
    p.add_argument("--fail-on", metavar="KIND[,KIND...]",
                   help="exit 4 when a finding of these kinds occurs: upcast, implicit_copy, "
                   "overlap_copy (the report is still written)")
    p.add_argument("--json", metavar="PATH", help="write the report as JSON")
    p.add_argument("--html", metavar="PATH", help="write the report as one HTML page")
    p.add_argument("--data-dependent", choices=("stop", "placeholder"), default="stop",
                   help="stop (exit 2) at the first value needed, or go on with placeholders")
    p.add_argument("--assume-size", action="append", default=[], metavar="LINE=FRACTION",
                   help="fix the data-dependent sizes made at LINE (or FILE:LINE) at that "
                        "fraction of their range (repeatable; docs/guide/bounded-sizes.md)")
    p.add_argument("--top", type=int, default=10, help="allocation sites and lines listed")
    p.add_argument("-m", dest="module", metavar="MODULE",
                   help="run a module as python -m (every argument after MODULE is the module's)")
    p.add_argument("target", nargs=argparse.REMAINDER, metavar="SCRIPT [ARGS...]")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="faketensor", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"faketensor {__version__}")
    sub = parser.add_subparsers(dest="cmd", required=True)
    _run_parser(sub)
    _sweep_parser(sub)
    p = sub.add_parser("inspect", help="list the arrays in array files from their headers")
    p.add_argument("files", nargs="+")
    p = sub.add_parser("ops", help="list every registered kernel with its file:line, tags and FLOP rule")
    p.add_argument("--backend", choices=("numpy", "cupy"))
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("coverage", help="measure every public callable on fakes against the real library")
    p.add_argument("--backend", choices=("numpy", "cupy"), default="numpy")
    p.add_argument("--json", action="store_true")
    p.add_argument("--all", action="store_true", help="list every callable, not only those not exact")
    p.add_argument("--check", action="store_true", help="exit 1 unless the goal is met")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="measure only this callable (numpy.isin, numpy.ndarray.conj; repeatable)")
    p.add_argument("--kernels", action="store_true",
                   help="only whether a call on fakes reaches a kernel (no measurement)")
    p.add_argument("--memory", action="store_true",
                   help="peak and live bytes of each exact call against NumPy's allocator (numpy only)")
    argv = list(sys.argv[1:] if argv is None else argv)
    program: list[str] | None = None
    if "run" in argv and all(t.startswith("-") for t in argv[:argv.index("run")]):
        at = argv.index("run") + 1
        opts, module, program = split_run(argv[at:])
        argv = argv[:at] + opts + (["-m", module] if module is not None else [])
    args = parser.parse_args(argv)
    if program is not None:
        args.target = program
    if args.cmd in ("run", "sweep"):
        if args.device is not None:
            from ..._storage import parse_device
            try:
                args.device = parse_device(args.device)
            except ValueError as e:
                parser.error(str(e))
        return run(args) if args.cmd == "run" else sweep(args)
    if args.cmd == "inspect":
        return inspect(args.files)
    if args.cmd == "ops":
        return list_ops(args.backend, args.json)
    if args.cmd == "coverage":
        if args.kernels:
            return show_kernel_coverage(args.backend, args.json)
        if args.memory:
            if args.backend != "numpy":
                parser.error("--memory measures NumPy's allocator: --backend numpy only")
            return show_memory_coverage(args.json, args.all, only=args.only)
        return show_coverage(args.backend, args.json, args.all, args.check, only=args.only)
    return 2


if __name__ == "__main__":
    sys.exit(main())
