"""dask integration: fakes as first-class dask chunks, and dask.array computed in a mode.

Nothing here imports dask: the import hook in ``modes/patching.py`` calls ``dask_imported``
with each module of ``HOOKED`` once its code has run (``installer.install`` does it for those
already imported, and ``rebind_dask`` points their NumPy originals at the patches), so the
order of ``import dask`` and ``import faketensor`` does not matter. Chunks: ``sizeof`` is
registered here; ``FakeArray.__dask_tokenize__`` (faketensor/_array.py) gives dask's tokens;
pickling is ``FakeArray.__reduce__`` (plain metadata, no buffers). Computing: see the
comment above ``_IN_TASK``; docs/guide/dask-array.md.
"""
from __future__ import annotations

import contextlib
import functools
import numbers
import sys
from contextvars import ContextVar, copy_context
from typing import Any, Iterator

import numpy as np

from .._array import FakeArray
from .._dispatch import STACK
from .._errors import UnsupportedOperationError
from .._paths import SPAWNED_FROM
from .._stack import paused
from .._storage import SCALAR


def sizeof_fake(x: FakeArray) -> int:
    """What ``dask.sizeof`` reports for the real array the fake stands for (dask/sizeof.py):
    an ndarray's ``nbytes``, counting a broadcast (stride 0) axis once; a CuPy array's
    ``nbytes``; ``sys.getsizeof`` of a NumPy scalar or a Python number. Virtual bytes: a
    view reports its own ``nbytes``, as dask does for a real view."""
    if x.pytype is not None or x.storage._tracker is SCALAR:
        return sys.getsizeof(x._zeros())  # the Python object dask measures; no data
    if x.storage.device != "cpu":
        return int(x.nbytes)  # sizeof_cupy_ndarray
    n = x.itemsize  # sizeof_numpy_ndarray: x[slice(1) where the stride is 0].nbytes
    for length, stride in zip(x.shape, x.strides):
        n *= min(length, 1) if stride == 0 else length
    return int(n)


# dask's modules the import hook hands to ``dask_imported`` once their code has run
HOOKED = ("dask.sizeof", "dask.tokenize", "dask.local", "dask.utils", "dask.threaded",
          "dask.multiprocessing", "dask.array.utils", "dask.array.core", "dask.array.random",
          "dask.array.reductions")


# module name -> the error that stopped its set-up (another dask version): computing in a
# mode then raises instead of risking real work (``_check_setup``)
SETUP_FAILED: dict[str, str] = {}


def dask_imported(module: Any) -> None:
    """Set up a freshly imported dask module (the import hook calls this). A set-up that
    fails (a dask without the function adapted) never breaks ``import dask``: it is noted in
    ``SETUP_FAILED`` and dask computes refuse inside a FakeMode."""
    try:
        _set_up(module)
    except Exception as e:  # noqa: BLE001  (any dask version's surprise)
        SETUP_FAILED[module.__name__] = f"{type(e).__name__}: {e}"


def _check_setup() -> None:
    if SETUP_FAILED:
        raise UnsupportedOperationError(
            "dask compute", "faketensor could not adapt this dask version ("
            + "; ".join(f"{k}: {v}" for k, v in SETUP_FAILED.items()) + ")")


def _set_up(module: Any) -> None:
    name = module.__name__
    if name == "dask.sizeof":
        module.sizeof.register(FakeArray, sizeof_fake)
    elif name == "dask.tokenize":
        from .patch_tables import original  # NumPy's dispatcher type, behind a patch or not
        module.normalize_token.register(type(original(np.sum)), _dispatcher_normalizer(module))
    elif name == "dask.local":
        _patch_execute_task(module)
    elif name == "dask.utils":
        _patch_getargspec(module)
    elif name == "dask.threaded":
        _wrap_get_async(module, _context_submit)
    elif name == "dask.multiprocessing":
        _wrap_get_async(module, _refuse_processes)
    elif name == "dask.array.random":
        _patch_random_state(module)
    elif name == "dask.array.core":
        _patch_concatenate3(module)
        _pause_outside_tasks(module, "apply_infer_dtype")
        _patch_from_array(module)
        _patch_implements(module)
    elif name == "dask.array.utils":
        _pause_outside_tasks(module, "compute_meta")
    elif name == "dask.array.reductions":
        if module.Number is numbers.Number:
            module.Number = NumberOrFakeScalar


class _NumberCheck(type):
    def __instancecheck__(cls, x: Any) -> bool:
        return isinstance(x, numbers.Number) or (
            type(x) is FakeArray and x.storage._tracker is SCALAR)

    def __subclasscheck__(cls, t: type) -> bool:
        return issubclass(t, numbers.Number)


class NumberOrFakeScalar(metaclass=_NumberCheck):
    """``numbers.Number`` as dask.array's reductions test it, a fake NumPy scalar included
    (the NumPy scalar it stands for is a Number): ``moment_agg`` (var/std over every axis)
    then compares the count with 0 as it does for real, a value read
    (``DataDependentError``, or the placeholder's answer), instead of assigning into the
    read-only scalar."""


def _patch_implements(core: Any) -> None:
    """``@implements(np.iscomplexobj)`` (dask/array/core.py) keys dask's
    ``__array_function__`` table by the function it is given: NumPy's namespace patch when
    dask.array is imported after faketensor, while NumPy's protocol hands over the original,
    which would miss the table; dask then computes the whole array to call NumPy on it
    (``da.std`` asks ``np.iscomplexobj``). Register the original too."""
    original = core.implements
    if getattr(original, "_ft_patch", False):
        return

    def implements(*numpy_functions):
        extra = tuple(f.__wrapped__ for f in numpy_functions if getattr(f, "_ft_patch", False))
        return original(*numpy_functions, *extra)

    functools.update_wrapper(implements, original)
    setattr(implements, "_ft_patch", True)
    _replace_in_dask(original, implements)
    table = core._HANDLED_FUNCTIONS  # registered before this hook ran
    for f, impl in list(table.items()):
        if getattr(f, "_ft_patch", False):
            table.setdefault(f.__wrapped__, impl)


def _patch_from_array(core: Any) -> None:
    """``da.from_array(x)`` (and ``da.asarray``/``da.array``, which call it) copies ``x``
    (``x = x.copy()``, dask/array/core.py) and slices the copy into chunks. Inside a FakeMode
    a real ndarray ``x`` is a pre-existing input: it becomes a fake first (as any real input
    of a call in the mode does), so the copy is a fake, charged as the real one is, and no
    real data is copied. A fake, in a mode or not, takes the steps dask takes for the
    ndarray it stands for (one name for one array, as its bytes would give)."""
    original = core.from_array
    if getattr(original, "_ft_patch", False):
        return
    import inspect
    signature = inspect.signature(original)

    def from_array(x, *args, **kwargs):
        mode = _fake_mode()
        if _IN_TASK.get() or mode is None and type(x) is not FakeArray:
            return original(x, *args, **kwargs)
        if mode is not None and type(x) is np.ndarray:
            with paused():
                x = mode._convert(x)
        if type(x) is FakeArray and x.storage.device == "cpu":
            bound = signature.bind(x, *args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments
            if not a["lock"] and a["getitem"] is None:
                return _from_ndarray(core, **a)
        return original(x, *args, **kwargs)

    functools.update_wrapper(from_array, original)
    setattr(from_array, "_ft_patch", True)
    _replace_in_dask(original, from_array)


def _from_ndarray(core: Any, x: FakeArray, chunks: Any, name: Any, lock: Any, asarray: Any,
                  fancy: Any, getitem: Any, meta: Any, inline_array: Any) -> Any:
    """``from_array``'s own steps for an ``np.ndarray`` (dask/array/core.py), on a fake
    standing for one (dask tests ``type(x) in (np.ndarray, MaskedArray)``, which a fake is
    not, and would take the ``getter`` path: another graph, other bytes): copy, chunk, name,
    and slice the copy into chunks now."""
    import uuid
    from itertools import product
    source, x = x, x.copy()
    if asarray is None:
        asarray = False  # not hasattr(x, "__array_function__")
    chunks = core.normalize_chunks(chunks, x.shape, dtype=x.dtype, previous_chunks=None)
    if name in (None, True):
        # dask tokenizes the copy by its bytes, so two from_array of one array share their
        # name and chunks; the fake copy's bytes are those of a C copy of the source
        token = core.tokenize(("C copy of", source), chunks, lock, asarray, fancy, getitem,
                              inline_array)
        name = name or f"array-{token}"
    elif name is False:
        name = f"array-{uuid.uuid1()}"
    if all(len(c) == 1 for c in chunks):
        dsk = {(name,) + (0,) * x.ndim: x}
    else:
        keys = product([name], *(range(len(bds)) for bds in chunks))
        dsk = dict(zip(keys, [x[slc] for slc in core.slices_from_chunks(chunks)]))
    return core.Array(dsk, name, chunks, meta=x if meta is None else meta, dtype=x.dtype)


def _pause_outside_tasks(module: Any, name: str) -> None:
    """dask runs the user's chunk function on 0-size or 1-element arrays while building a
    graph (``compute_meta``, ``apply_infer_dtype``: dtype and meta inference), from the
    user's own code: run it with the modes paused, as dask's other bookkeeping, so the meta
    is what the real run makes (a fake meta stays a fake, with no mode to charge)."""
    original = getattr(module, name)
    if getattr(original, "_ft_patch", False):
        return

    def wrapper(*args, **kwargs):
        if _IN_TASK.get():
            return original(*args, **kwargs)
        with paused():
            return original(*args, **kwargs)

    functools.update_wrapper(wrapper, original)
    setattr(wrapper, "_ft_patch", True)
    _replace_in_dask(original, wrapper)


def _patch_concatenate3(core: Any) -> None:
    """``concatenate3`` (dask/array/core.py: the final ``compute`` step and rechunk's merges)
    fills one ``np.empty`` result chunk by chunk when every chunk is an ndarray, and
    otherwise concatenates axis by axis (``_concatenate2``, with intermediates), deciding by
    ``type(chunk).__array_function__``. A fake stands for an ndarray, so in a mode take the
    ndarray path: the same steps, on fakes."""
    original = core.concatenate3
    if getattr(original, "_ft_patch", False):
        return

    def concatenate3(arrays):
        if _fake_mode() is None:
            return original(arrays)
        from dask import core as dcore
        arrays = core.concrete(arrays)
        leaves = list(dcore.flatten(arrays, container=(list, tuple)))
        if (not arrays or not any(type(a) is FakeArray for a in leaves)
                or not all(type(a) in (FakeArray, np.ndarray) for a in leaves)):
            return original(arrays)
        ndim = core.ndimlist(arrays)
        if not ndim:
            return arrays
        chunks = core.chunks_from_arrays(arrays)
        shape = tuple(map(sum, chunks))
        result = np.empty(shape=shape, dtype=core.deepfirst(arrays).dtype)
        for idx, arr in zip(core.slices_from_chunks(chunks), leaves):
            while arr.ndim < ndim:
                arr = arr[None, ...]
            result[idx] = arr
        return result

    functools.update_wrapper(concatenate3, original)
    setattr(concatenate3, "_ft_patch", True)
    _replace_in_dask(original, concatenate3)


def _replace_in_dask(old: Any, new: Any) -> None:
    """Bind ``new`` wherever a loaded dask module binds ``old`` at module level."""
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "dask" or name.startswith("dask.")):
            for attr, value in list(vars(module).items()):
                if value is old:
                    setattr(module, attr, new)


def _legacy_seeding_bytes(state_data: Any) -> int:
    """Data bytes ``np.random.RandomState(state_data)`` allocates and frees: mtrand.pyx
    ``RandomState.__init__`` seeds an ``MT19937()`` from a SeedSequence (624 uint32 words
    and two 8-byte scalars: 2512 bytes), then ``_mt19937.pyx`` ``_legacy_seeding`` holds the
    seed as int64 (8n) while making its uint32 copy (4n), plus 16 bytes of 0-d operands of
    its range check (checked against tracemalloc in tests/modes/test_dask.py)."""
    if not isinstance(state_data, (np.ndarray, FakeArray)):  # an int seed: no array copies
        return 2512
    return max(2512, 12 * state_data.size + 16)


def _patch_random_state(random: Any) -> None:
    """A ``da.random.RandomState`` task draws with ``np.random.RandomState(state)``, whose
    draws are real; in a task in a mode it draws with the same-named ``np.random`` function
    instead, whose kernel gives the metadata and transient bytes of the legacy draw."""
    original = random._apply_random
    if getattr(original, "_ft_patch", False):
        return

    def _apply_random(RandomState, funcname, state_data, size, args, kwargs):
        mode = _fake_mode() if _IN_TASK.get() else None
        if mode is None or not (RandomState is None or RandomState is np.random.RandomState):
            return original(RandomState, funcname, state_data, size, args, kwargs)
        mode._ledger._transient("cpu", _legacy_seeding_bytes(state_data))
        return getattr(np.random, funcname)(*args, size=size, **kwargs)

    functools.update_wrapper(_apply_random, original)
    setattr(_apply_random, "_ft_patch", True)
    random._apply_random = _apply_random


def rebind_dask(patched_of: Any) -> None:
    """dask modules imported before faketensor hold NumPy's originals (``chunk.sum =
    np.sum``, ``concatenate_lookup``'s ``np.concatenate``), and dask compares them with the
    namespace (``concatenate3`` takes a slower path when its lookup ``is not
    np.concatenate``), so the real run would differ with the import order. Point their
    module globals and Dispatch tables at the patches, as a later import would have bound
    them. ``patched_of(obj)`` is the patch of an original, or None."""
    for name, module in list(sys.modules.items()):
        if not (name == "dask" or name.startswith("dask.")) or module is None:
            continue
        for attr, value in list(vars(module).items()):
            try:
                new = patched_of(value)
            except TypeError:
                continue
            if new is not None:
                setattr(module, attr, new)
            elif type(value).__name__ == "Dispatch" and isinstance(getattr(value, "_lookup", None), dict):
                lookup = value._lookup
                for key, fn in list(lookup.items()):
                    new = patched_of(fn)
                    if new is not None:
                        lookup[key] = new


def _dispatcher_normalizer(tokenize: Any) -> Any:
    """dask tokenizes a NumPy function by pickling it by name; once NumPy's namespace holds
    faketensor's patch, pickle refuses the original (``numpy.sum`` is another object) and
    the token turns random: dask modules imported before faketensor hold originals
    (``dask.array.wrap`` keeps ``np.ones_like``). Tokenize an original as its patch."""
    default = tokenize.normalize_token.dispatch(object)

    def normalize_numpy_function(f: Any) -> Any:
        from .patch_tables import PATCH_TABLES
        for table in PATCH_TABLES:
            patched = table.get(id(f))
            if patched is not None:
                return default(patched)
        return default(f)

    return normalize_numpy_function


def _wrap_get_async(module: Any, in_mode: Any) -> None:
    """Replace the scheduler module's ``get_async`` (``dask.local.get_async``, looked up at
    each call) by one that, with a FakeMode in the calling thread, hands its ``submit`` to
    ``in_mode`` first."""
    original = module.get_async
    if getattr(original, "_ft_patch", False):
        return

    def get_async(submit, num_workers, *args, **kwargs):
        if _fake_mode() is None:
            return original(submit, num_workers, *args, **kwargs)
        submit = in_mode(submit)
        token = SPAWNED_FROM.set(sys._getframe(1))  # the tasks' ops are sited at compute()
        try:
            return original(submit, num_workers, *args, **kwargs)
        finally:
            SPAWNED_FROM.reset(token)

    functools.update_wrapper(get_async, original)
    setattr(get_async, "_ft_patch", True)
    module.get_async = get_async


def _context_submit(submit: Any) -> Any:
    """The threaded scheduler's tasks run in a copy of the submitting thread's context, so
    its mode stack, whatever the pool (dask's default pool does this already; a
    ``ThreadPoolExecutor`` given as ``pool=`` does not)."""
    def context_submit(fn, *args, **kwargs):
        return submit(copy_context().run, fn, *args, **kwargs)
    return context_submit


def _refuse_processes(submit: Any) -> Any:
    raise UnsupportedOperationError(
        "dask's processes scheduler", "it runs tasks in other processes, which the mode does "
        "not reach (their chunks would be computed for real); use the threaded (default) or "
        "synchronous scheduler inside a FakeMode")


def _patch_getargspec(utils: Any) -> None:
    """dask's ``getargspec`` unwraps once (``__wrapped__``) to reach NumPy's Python function
    behind ``np.sum``'s dispatcher; a namespace patch adds a layer, so look through it
    first (dask.array's reductions ask ``getargspec(np.sum)`` whether it takes ``dtype``)."""
    original = utils.getargspec
    if getattr(original, "_ft_patch", False):
        return

    def getargspec(func: Any) -> Any:
        if getattr(func, "_ft_patch", False):
            func = func.__wrapped__
        return original(func)

    functools.update_wrapper(getargspec, original)
    setattr(getargspec, "_ft_patch", True)
    _replace_in_dask(original, getargspec)


# --- dask.array in a FakeMode -------------------------------------------------------------
#
# Graph construction (``da.ones``, ``x + 1``, ``x.sum()``, ``rechunk``) is dask's
# bookkeeping: chunk sizes, metas, tokens. Its NumPy calls on real, tiny values (``np.max`` of
# chunk sizes, ``np.cumsum``, the 0-size ``_meta`` arrays) run for real, as they would
# without the mode (``graph_code``, read by the namespace patches). The tasks, run by
# ``dask.local.execute_task`` (the threaded, synchronous and processes schedulers), run in the
# mode: the scheduler's pool threads get the submitting thread's context (dask's own
# ContextAwareThreadPoolExecutor; ``inherit_mode_in_threads`` for a user's pool), and every
# real ndarray a task is given (a ``from_array`` slice inlined in the graph, a DataNode's
# value, a dependency's result) becomes a fake through the mode's converter before the task
# runs, so no chunk is computed for real.

_IN_TASK: ContextVar[bool] = ContextVar("faketensor_dask_task", default=False)


_GLUE = ("toolz.", "tlz.", "cytoolz.", "functools")  # dask calls through their helpers


def graph_code(frame: Any) -> bool:
    """True when ``frame`` runs dask's own code outside a task (graph construction; through
    toolz's ``compose`` and the like): its NumPy calls on real values are bookkeeping (chunk
    sizes, 0-size metas) and run for real. So are dask.distributed's (its comms' receive
    buffers, ``numpy.empty(n, "u1").data``, on event loops whose callbacks carry the context
    of the program's thread, modes included: meta_utils/planner/cluster.py)."""
    name = frame.f_globals.get("__name__") or ""
    while name.startswith(_GLUE) and frame.f_back is not None:
        frame = frame.f_back
        name = frame.f_globals.get("__name__") or ""
    return (name[:5] == "dask." or name[:12] == "distributed.") and not _IN_TASK.get()


@contextlib.contextmanager
def in_task() -> Iterator[None]:
    """Mark the block as running a dask task (for schedulers other than dask.local's, such as
    a distributed worker's): dask's own NumPy calls in it are the chunks' work, made fakes
    in the mode, not graph bookkeeping. Convert the task's real inputs with
    ``task_inputs_to_fakes`` first."""
    token = _IN_TASK.set(True)
    try:
        yield
    finally:
        _IN_TASK.reset(token)


def task_inputs_to_fakes(value: Any, mode: Any) -> Any:
    """``value`` (a dask task, its dependencies' data, or any container of them) with every
    real ndarray in it replaced by its fake through ``mode``'s converter (one memo: views of
    one real buffer share one fake storage); the same object where nothing is real."""
    with paused():
        return _to_fake(value, mode)


def _fake_mode() -> Any:
    """The innermost FakeMode on the stack, or None."""
    for m in reversed(STACK.get()):
        if getattr(m, "_is_fake_mode", False):
            return m
    return None


def _to_fake(value: Any, mode: Any) -> Any:
    """``value`` with every real ndarray in it (in lists, tuples, dicts and dask graph nodes)
    replaced by its fake; the same object where nothing changes."""
    t = type(value)
    if t is np.ndarray:
        return mode._convert(value)
    if t is list or t is tuple:
        new = [_to_fake(v, mode) for v in value]
        if any(a is not b for a, b in zip(new, value)):
            return t(new)
        return value
    if t is dict:
        new_d = {k: _to_fake(v, mode) for k, v in value.items()}
        if any(new_d[k] is not value[k] for k in value):
            return new_d
        return value
    if isinstance(value, _task_spec().GraphNode):
        return _node_to_fake(value, mode)
    return value


def _node_to_fake(node: Any, mode: Any) -> Any:
    ts = _task_spec()
    if isinstance(node, ts.DataNode):
        v = _to_fake(node.value, mode)
        return node if v is node.value else ts.DataNode(node.key, v)
    if isinstance(node, ts.Task):
        args = _to_fake(node.args, mode)
        kwargs = _to_fake(node.kwargs, mode)
        if args is node.args and kwargs is node.kwargs:
            return node
        new = object.__new__(type(node))
        for slot in type(node).get_all_slots():
            if hasattr(node, slot):
                setattr(new, slot, getattr(node, slot))
        new.args, new.kwargs = args, kwargs
        new._token = new._repr = None
        return new
    return node


def _task_spec() -> Any:
    import dask._task_spec as ts  # imported by dask.local, which calls us
    return ts


def _fake_loads(loads: Any, mode: Any) -> Any:
    def fake_loads(task_info: Any) -> tuple:
        task, data = loads(task_info)
        return task_inputs_to_fakes((task, data), mode)
    return fake_loads


def _patch_execute_task(local: Any) -> None:
    """``dask.local.execute_task`` (looked up at each call by ``batch_execute_tasks``) runs a
    task in the mode with its real arrays made fakes, when its thread has a FakeMode."""
    original = local.execute_task
    if getattr(original, "_ft_patch", False):
        return

    def execute_task(key, task_info, dumps, loads, get_id, pack_exception):
        mode = _fake_mode()
        if mode is None:
            return original(key, task_info, dumps, loads, get_id, pack_exception)
        _check_setup()
        # read by the progress line (meta_utils/planner/progress.py); racy across threads, a count only
        mode.dask_tasks = getattr(mode, "dask_tasks", 0) + 1
        with in_task():
            return original(key, task_info, dumps, _fake_loads(loads, mode), get_id,
                            pack_exception)

    functools.update_wrapper(execute_task, original)
    setattr(execute_task, "_ft_patch", True)
    local.execute_task = execute_task
