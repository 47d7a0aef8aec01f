"""The kernel registry: (op, backend) -> metadata rule + tags, filled by ``register``.

An op is a NumPy or CuPy callable, or a key string for what has no callable of its own:
``"ufunc.__call__"``, ``"ufunc.reduce"``, ... (ufunc methods; the kernel gets the ufunc
first) and ``"ndarray.NAME"`` (array methods). The backend says whose rules the kernel
follows: ``"numpy"``, or ``"cupy"`` for CUDA fakes and the cupy namespace.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import inspect
import sys
import threading
import types
from typing import Any, Callable, Collection, NamedTuple, Protocol, cast

import numpy as np

from .._numpy_version import Absent
from ..meta import ArrayMeta
from . import flops as _flops

TAGS = frozenset({"view", "inplace", "factory", "random", "data-dependent", "ufunc",
                  "reduction", "copy", "query"})
BACKENDS = ("numpy", "cupy")

# Kernels with these tags are never cached: their results are not a function of metadata
# alone (random draws, values).
NOCACHE = frozenset({"random", "data-dependent"})
# A "random" rule whose function has ``cache_draws = True`` is cached all the same: its result
# and memory depend on the draw's arguments (shapes, dtypes, plain values) and the generator's
# class, never on the generator's state (kernels/numpy/random.py ``_draw``).


class Rule(Protocol):
    """A registered rule as its module sees it: called with NumPy's arguments; its
    ``keep_real`` names the arguments (positions, keyword names) whose real arrays reach it
    unconverted (faketensor/_runner.py)."""

    __name__: str
    keep_real: Collection[int | str]

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


def keep_real(fn: Any, *where: int | str) -> None:
    """Mark the arguments (positions, keyword names) of ``fn`` whose real arrays reach it
    unconverted, because the rule reads their values (index arrays, ``kth``, ``q``)."""
    fn.keep_real = frozenset(where)


class Kernel(NamedTuple):
    fn: Callable
    tags: frozenset
    name: str
    backend: str = "numpy"
    # results may be reused for inputs of the same metadata: not for random or
    # data-dependent kernels, nor for CuPy's (they read the current device)
    cacheable: bool = True
    values: frozenset = frozenset()  # positions and names of VALUE_PARAMS (kept real)
    flops: Callable | None = None  # its own FLOP rule (kernels/flops.py), else its tags'

    @property
    def nocache(self) -> str:
        """Why results of this kernel are never cached ("" when they are)."""
        if self.backend != "numpy":
            return "a CuPy rule (reads the current device)"
        if "random" in self.tags:
            return "a random draw"
        if "data-dependent" in self.tags:
            return "data-dependent"
        return ""

    @property
    def source(self) -> str:
        """``file:line`` of the rule (for ``faketensor ops`` and error messages); an adapter
        registered in a rule's place (a bound-method shim) names it as ``fn.rule``."""
        fn = inspect.unwrap(getattr(self.fn, "rule", self.fn))
        code = getattr(fn, "__code__", None)
        if code is None:
            return "?"
        line = code.co_firstlineno
        if "<locals>" in getattr(fn, "__qualname__", ""):  # made by a factory, one per op
            line = naming_line(code, self.name.rpartition(".")[2]) or line
        return f"{code.co_filename}:{line}"


@functools.lru_cache(maxsize=None)
def _naming_lines(filename: str) -> dict:
    """name -> the lines of ``filename`` naming it as a string or an attribute (``np.NAME``)
    where rules are described: a module-level table, a dict's key, the names a loop
    runs over, an argument of a ``register...`` call."""
    try:
        with open(filename, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError):
        return {}
    places: list = []
    for top in tree.body:
        if isinstance(top, (ast.Assign, ast.AnnAssign)) and top.value is not None:
            places.append(top.value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and "register" in ast.unparse(node.func):
            places.extend(node.args)
        elif isinstance(node, ast.Dict):  # a table of rules, where it is built
            places.extend(k for k in node.keys if k is not None)
        elif isinstance(node, ast.For) and isinstance(node.iter, (ast.Tuple, ast.List)):
            places.append(node.iter)  # for name in ("unique_all", ...): the rules of a loop
    out: dict = {}
    for place in places:
        for sub in ast.walk(place):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                out.setdefault(sub.value, []).append(sub.lineno)
            elif isinstance(sub, ast.Attribute):
                out.setdefault(sub.attr, []).append(sub.lineno)
    return {k: sorted(set(v)) for k, v in out.items()}


_NAME_PREFIXES = frozenset({"np", "cp", "cupy", "ndarray", "query"})  # rules' names: PREFIX_op


def naming_line(code: Any, name: str) -> int | None:
    """Where a rule made by a factory (one function per op) is defined: the first line of
    its module naming the op where rules are described (its entry in a table of parameters,
    its registration), outside the factory; None if none does (the factory is the rule)."""
    lines = _naming_lines(code.co_filename)
    body = range(code.co_firstlineno, max((n for _, _, n in code.co_lines() if n), default=0) + 1)
    short = name.rpartition(".")[2]
    prefix, _, rest = short.partition("_")
    for cand in (short, rest if prefix in _NAME_PREFIXES else ""):  # np_nonzero: nonzero
        for line in lines.get(cand, ()):
            if line not in body:
                return line
    return None


# Parameters whose value a kernel reads (converters.axis, ...): a real array passed there
# (``axis=np.array(1)``, ``axes=np.array([0, 1])``) stays real instead of becoming a fake
# without values, so it converts as in NumPy.
VALUE_PARAMS = frozenset({"axis", "axes", "axis1", "axis2", "source", "destination", "kth", "bins",
                          "start"})


def _value_params(fn: Callable, prefix: int) -> frozenset:
    """Call positions (less ``prefix`` leading kernel arguments) and names of fn's VALUE_PARAMS.
    A plain function is read from its code object (inspect.signature for each of ~500 rules
    was a fifth of ``import faketensor``); anything else through inspect.signature."""
    code = getattr(fn, "__code__", None)
    if (type(fn) is types.FunctionType and code is not None and "__wrapped__" not in fn.__dict__
            and "__signature__" not in fn.__dict__):
        flags = code.co_flags
        n = code.co_argcount + code.co_kwonlyargcount + bool(flags & inspect.CO_VARARGS) \
            + bool(flags & inspect.CO_VARKEYWORDS)
        names = code.co_varnames[:n]
        if VALUE_PARAMS.isdisjoint(names):
            return frozenset()
        found: set = {name for name in names if name in VALUE_PARAMS}
        found.update(i - prefix for i, name in enumerate(names[:code.co_argcount])
                     if name in VALUE_PARAMS and i >= prefix)
        return frozenset(found)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return frozenset()
    out: set = set()
    for i, p in enumerate(params):
        if p.name in VALUE_PARAMS:
            out.add(p.name)
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and i >= prefix:
                out.add(i - prefix)
    return frozenset(out)


REGISTRY: dict[tuple[Any, str], Kernel] = {}


class DuplicateKernelError(ValueError):
    """A second kernel registered for an (op, backend) that has one."""


class Costs(NamedTuple):
    """The bytes a real call allocates besides its outputs (see ``CallRecord``)."""

    transient: int = 0
    scratch: int = 0
    early: int = 0
    notes: tuple = ()


class CallRecord(threading.local):
    """What the running kernel reports besides its outputs (one record per thread).

    ``costs`` is None or a ``Costs(transient, scratch, early, notes)``. ``transient``: bytes the real
    call takes from the library's data allocator and frees before returning (casting
    copies of operands, fft's complex copy, sort buffers), alive together with the
    outputs; they raise the peak, not the final live. ``early``: the most such bytes
    alive at once before the outputs exist (the 0-d arrays NumPy makes from scalar
    operands). ``scratch``: the largest C-heap block the real call holds (ufunc iteration
    buffers, LAPACK work arrays, pocketfft and mergesort scratch), invisible to the data
    allocator and reported apart. ``notes``: ``((kind, nbytes), ...)``, what some of
    those bytes were, for a plan's findings (``FINDING_KINDS``; see ``note``). ``skip_cache``: the result must not be reused (see
    ``uncached``). The runner resets both before a kernel runs and sets ``costs`` from
    the cache on a hit.
    """

    costs: Costs | None = None
    skip_cache: bool = False
    # set by FakeMode for each call: the mode makes placeholders (``assume`` may answer)
    placeholders: bool = False


CALL = CallRecord()


def uncached() -> None:
    """Mark the running kernel's result as not reusable: its call has a side effect
    (a warning NumPy emits on every call) that a cached result would drop."""
    CALL.skip_cache = True


# The kinds of hidden copies a kernel can name with ``note`` / ``transient(kind=...)``: a
# plan lists them as findings (modes/findings.py). ``implicit_copy``: an operand copied before
# the operation (casting copies of product operands, BLAS/LAPACK contiguous copies, the copies
# of reshapes inside composites); ``overlap_copy``: an input copied because an output
# partially overlaps it (NPY_ITER_COPY_IF_OVERLAP).
FINDING_KINDS = ("implicit_copy", "overlap_copy")


def transient(nbytes: int, before_outputs: bool = False, kind: str | None = None) -> None:
    """The real call also allocates ``nbytes`` through the data allocator and frees them
    before returning: alive together with the outputs (call once per buffer), or, with
    ``before_outputs``, the most alive at once before the outputs are allocated. ``kind``
    (one of ``FINDING_KINDS``) also notes what the bytes were (``note``)."""
    if not nbytes:
        return
    c = CALL.costs or _NONE
    notes = c.notes if kind is None else c.notes + ((kind, int(nbytes)),)
    if before_outputs:
        CALL.costs = Costs(c.transient, c.scratch, max(c.early, int(nbytes)), notes)
    else:
        CALL.costs = Costs(c.transient + int(nbytes), c.scratch, c.early, notes)


def note(kind: str, nbytes: int) -> None:
    """Name ``nbytes`` of the running call's hidden bytes (reported with ``transient`` or
    ``scratch`` by the caller, possibly summed with others) as a copy of ``kind``: the
    helper that decides a copy happens notes it, so its callers keep one rule."""
    if not nbytes:
        return
    c = CALL.costs or _NONE
    CALL.costs = Costs(c.transient, c.scratch, c.early, c.notes + ((kind, int(nbytes)),))


UNMODELLED = "memory_unmodelled"


def unmodelled(reason: str) -> None:
    """The running kernel's outputs are exact but the bytes the real call allocates besides
    them are not modelled: the mode lists the function under ``memory_unmodelled`` (with
    ``reason``) instead of reporting a peak that may be too low without a word."""
    c = CALL.costs or _NONE
    CALL.costs = Costs(c.transient, c.scratch, c.early, c.notes + ((UNMODELLED, reason),))


ASSUMED = "assumed"


def assume(reason: str) -> bool:
    """May the running kernel answer for typical values where the metadata depend on them
    (a matrix of full rank)? Only in ``FakeMode(data_dependent="placeholder")``: then the
    assumption is listed in ``mode.placeholders`` at the user's line, like a placeholder
    value, and the result is not cached. Otherwise False: the kernel raises
    DataDependentError as before."""
    if not CALL.placeholders:
        return False
    CALL.skip_cache = True
    c = CALL.costs or _NONE
    CALL.costs = Costs(c.transient, c.scratch, c.early, c.notes + ((ASSUMED, reason),))
    return True


def scratch(nbytes: int) -> None:
    """The real call holds ``nbytes`` of C-heap scratch at its largest (not the data allocator)."""
    if not nbytes:
        return
    c = CALL.costs or _NONE
    CALL.costs = Costs(c.transient, max(c.scratch, int(nbytes)), c.early, c.notes)


_NONE = Costs()


def pyarray_return(res: Any) -> Any:
    """PyArray_Return (multiarray/scalarapi.c) on a kernel result: a fresh 0-d array becomes
    the NumPy scalar the real call returns; its 0-d data was allocated and freed on the way.
    Views, ``out=`` arrays and arrays of one or more dimensions are returned as they are."""
    if type(res) is tuple:
        return tuple(pyarray_return(r) for r in res)
    if (type(res) is ArrayMeta and not res.shape and not res.scalar and res.view_of is None
            and res.base_shape is None):
        transient(res.dtype.itemsize)
        return res._replace(scalar=True, strides=())
    return res


def scalar_result(res: Any) -> Any:
    """A composite's fresh 0-d result is the NumPy scalar the ufunc or reduction it ended in
    returned (that step already reported the 0-d array it made on the way)."""
    if type(res) is tuple:
        return tuple(scalar_result(r) for r in res)
    if (type(res) is ArrayMeta and not res.shape and res.view_of is None
            and res.base_shape is None):
        return res._replace(scalar=True, strides=())
    return res


@contextlib.contextmanager
def quiet():
    """Run another kernel for its metadata only: the bytes it reports are dropped (the
    calling kernel counts what the real call allocates itself)."""
    saved = CALL.costs
    try:
        yield
    finally:
        CALL.costs = saved


# The FLOP rule of a kernel with none of its own, by tag, first match (kernels/flops.py):
# elementwise ops count their output elements, reductions their input elements, and data
# movement nothing.
FLOP_DEFAULTS: tuple[tuple[str, Callable], ...] = (
    ("ufunc", _flops.elementwise), ("reduction", _flops.input_elements),
    ("view", _flops.zero), ("copy", _flops.zero), ("factory", _flops.zero),
    ("random", _flops.zero), ("inplace", _flops.zero), ("query", _flops.zero),
    ("data-dependent", _flops.zero))


def flop_rule(kernel: Kernel) -> Callable | None:
    """The kernel's FLOP rule: its own, else its tags' default; None when it has neither."""
    if kernel.flops is not None:
        return kernel.flops
    for tag, rule in FLOP_DEFAULTS:
        if tag in kernel.tags:
            return rule
    return None


def register(*ops: Any, tags: tuple[str, ...] = (), name: str | None = None,
             backend: str = "numpy", flops: Callable | None = None) -> Callable[[Callable], Rule]:
    """Register ``fn`` as the ``backend`` rule for each op; a second rule for one raises.

    ``flops``: the op's FLOP rule, ``rule(result, *args, **kwargs) -> int`` (kernels/flops.py),
    where its tags' default (``FLOP_DEFAULTS``) does not count it."""
    bad = set(tags) - TAGS
    if bad:
        raise ValueError(f"unknown kernel tags {sorted(bad)}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}")

    def deco(fn: Callable) -> Rule:
        for op in ops:
            if isinstance(op, Absent):  # a function the running NumPy lacks (_numpy_version)
                continue
            prefix = 1 if isinstance(op, str) and op.startswith("ufunc.") else 0
            # an adapter in a rule's place (``fn.rule``) is named after the op it serves
            kname = name or (op if isinstance(op, str) and hasattr(fn, "rule") else fn.__name__)
            kernel = Kernel(fn, frozenset(tags), kname, backend,
                            backend == "numpy" and (NOCACHE.isdisjoint(tags)
                                                    or getattr(fn, "cache_draws", False)),
                            _value_params(fn, prefix), flops)
            old = REGISTRY.get((op, backend))
            if old is not None:
                raise DuplicateKernelError(
                    f"{op!r} already has a {backend} kernel, {old.name} ({old.source}); "
                    f"not registering {kernel.name} ({kernel.source})")
            REGISTRY[(op, backend)] = kernel
        return cast(Rule, fn)

    return deco


def once_loaded(module: str) -> Callable[[Callable[[Any], None]], Callable[[], None]]:
    """A registration of the rules of a namespace NumPy imports lazily (numpy.random,
    numpy.fft), run once: the decorated ``fn(loaded_module)`` becomes a function of no
    arguments that imports ``module`` (whose import hook may call it back first: the lock is
    re-entrant) and runs ``fn`` the first time only, whichever thread comes first."""
    def deco(fn: Callable[[Any], None]) -> Callable[[], None]:
        lock = threading.RLock()
        done = False

        def run() -> None:
            nonlocal done
            if done:
                return
            importlib.import_module(module)
            with lock:
                if not done:
                    fn(sys.modules[module])
                    done = True
        return functools.wraps(fn)(run)
    return deco


def lookup(op: Any, backend: str = "numpy") -> Kernel | None:
    """The kernel registered for (op, backend), or None; a patched namespace function
    finds the kernel of the function it wraps."""
    try:
        k = REGISTRY.get((op, backend))
    except TypeError:  # unhashable
        return None
    inner = getattr(op, "__wrapped__", None)
    return k if k is not None or inner is None else lookup(inner, backend)
