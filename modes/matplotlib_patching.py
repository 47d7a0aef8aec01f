"""matplotlib in a mode: its own work runs for real, fakes given to it are sinks.

Installed module by module as matplotlib imports them (the import hook in modes/patching.py
calls ``imported`` after each ``matplotlib.*`` module's code; modules imported before
faketensor are patched by ``install``; mpl_toolkits' too). Patched: pyplot's functions, and
the constructors and public methods of matplotlib's artists (Figure, Axes, Axis, Line2D,
AxesImage, collections, patches, Text, ...), colorbars, scalar mappables, canvases and grid
specs (their indexing too: ``grid[0:2, 0]`` computes cell numbers with NumPy);
getters (``get_*``, ``is_*``) and the artists' own ``draw`` are left alone. Outside any mode a patched callable reads one module global
and calls the original. Inside a mode:

- a call with no fake among its arguments runs with the modes paused: matplotlib's own
  NumPy calls on its own real values (transforms, ticks, colormaps) are real, as they would
  be without the mode (a figure, axes, labels, colorbars are set up for real);
- a call given fakes (``ax.plot(x, y)``, ``im.set_data(u)``, ``ax.set_ylim(0, top)``) is a
  sink. In a mode that skips sinks (every plan) it is recorded in ``mode.sinks`` at the
  user's line and made on small real stand-ins: each fake becomes an array of its dtype and
  rank whose axes of at most ``KEEP`` elements keep their length and longer ones shrink
  (distinct lengths stay distinct and ordered, gaps of up to ``GAP`` kept, so matplotlib's
  shape checks still pass or fail as they would), holding ``1, 2, 3, ...``. What it returns
  is real (``line, = ax.plot(x, y)`` then ``line.set_ydata(y2)``; ``plt.colorbar(im)``), but
  arrays among its results (``n, bins, _ = ax.hist(x)``) are fakes: their values are unknown.
  Without ``skip_sinks`` it raises DataDependentError naming the call;
- in a mode that skips sinks, what only draws or writes the figure (``savefig``,
  ``imsave``, ``show``, ``pause``, ``draw``, a canvas's ``draw``/``draw_idle``/
  ``flush_events``) is recorded and skipped: nothing is rendered and no file is written.

``imread`` is left alone: an image read is data entering the program.
"""
from __future__ import annotations

import functools
import sys
import types
import weakref
from typing import Any, Callable

import numpy as np

from .. import _array
from .._errors import DataDependentError
from .._stack import STACK, LIVE, paused

_FAKE = _array.FakeArray
_LIVE = LIVE
_get_stack = STACK.get

KEEP = 16  # axes up to this length keep it in a stand-in (RGB(A) channels, a few lines)
GAP = 3    # the largest gap kept between two longer lengths (pcolormesh's edges: n + 1)

# what only draws or writes the figure: skipped in a plan
OUTPUT = frozenset({"savefig", "imsave", "show", "pause", "draw", "draw_idle",
                    "flush_events", "start_event_loop", "print_figure", "waitforbuttonpress"})
# pyplot functions left alone: data entering the program (an image read is the program's
# data, made as NumPy makes it, not matplotlib's own work)
_PYPLOT_SKIP = frozenset({"imread"})
# left alone: getters and hooks matplotlib calls while drawing (never given user data)
_SKIP_PREFIX = ("get_", "is_", "_")
_SKIP = frozenset({"draw", "draw_artist", "pchanged", "stale_callback", "contains",
                   "findobj", "properties", "have_units", "convert_xunits", "convert_yunits",
                   "add_callback", "remove_callback", "update_from", "format_cursor_data",
                   "mouseover", "axes", "figure", "stale"})
_WRAPPED = "_ft_matplotlib"  # marks a patched callable (never patched twice)
_done: set = set()


def _has_fake(x: Any, depth: int = 0) -> bool:
    """A fake among ``x``: itself, or in a list, tuple or dict (three levels deep)."""
    if isinstance(x, _FAKE):
        return True
    if depth < 3:
        t = type(x)
        if t is list or t is tuple:
            return any(_has_fake(v, depth + 1) for v in x)
        if t is dict:
            return any(_has_fake(v, depth + 1) for v in x.values())
    return False


def _fakes(x: Any, acc: list, depth: int = 0) -> list:
    if isinstance(x, _FAKE):
        acc.append(x)
    elif depth < 3:
        t = type(x)
        if t is list or t is tuple:
            for v in x:
                _fakes(v, acc, depth + 1)
        elif t is dict:
            for v in x.values():
                _fakes(v, acc, depth + 1)
    return acc


def lengths(shapes: list) -> dict:
    """Axis length -> stand-in length for the fakes of one call: lengths up to ``KEEP``
    stay, longer ones map in order to ``KEEP + 1, ...`` keeping gaps of up to ``GAP``."""
    out: dict = {}
    prev = cur = None
    for n in sorted({n for s in shapes for n in s if n > KEEP}):
        cur = KEEP + 1 if prev is None or cur is None else cur + min(n - prev, GAP)
        out[n] = cur
        prev = n
    return out


def stand_in(x: Any, table: dict) -> Any:
    """A small real array (or scalar) standing for fake ``x``: its dtype and rank, the
    lengths ``table`` gives, values ``1, 2, 3, ...`` (call with the modes paused)."""
    shape = tuple(table.get(n, n) for n in x.shape)
    size = int(np.prod(shape, dtype=np.int64))
    try:
        a = (np.arange(size) + 1).astype(x.dtype).reshape(shape)
    except (TypeError, ValueError):
        a = np.zeros(shape, x.dtype)
    if x.pytype is not None:
        return x.pytype(a.item())
    if a.ndim == 0:
        return a[()]
    _hold(a, x)
    return a


# fake behind each live stand-in: what matplotlib keeps of a stand-in (an artist's view of its
# data, as ``quiver`` keeps its positions until ``cla()``) keeps the fake's bytes held in the
# plan, as the real program's array stays alive while matplotlib holds it
_HELD: dict = {}


def _hold(standin: np.ndarray, fake: Any) -> None:
    """Keep ``fake`` alive as long as ``standin`` or any view of it is (NumPy's views
    reference the array owning the data, so the hold is on that one)."""
    owner = standin if standin.base is None else standin.base
    key = id(owner)
    _HELD.setdefault(key, []).append(fake)
    weakref.finalize(owner, _HELD.pop, key, None)


def _replace(x: Any, table: dict, depth: int = 0) -> Any:
    if isinstance(x, _FAKE):
        return stand_in(x, table)
    if depth < 3:
        t = type(x)
        if t is list or t is tuple:
            return t(_replace(v, table, depth + 1) for v in x)
        if t is dict:
            return {k: _replace(v, table, depth + 1) for k, v in x.items()}
    return x


def _results(out: Any) -> Any:
    """Arrays among what a sink returned become fakes of their shape and dtype (their
    values came from stand-ins); artists and everything else stay as they are."""
    if isinstance(out, np.ndarray):
        return _array.empty(out.shape, out.dtype)
    t = type(out)
    if (t is tuple or t is list) and any(isinstance(v, np.ndarray) for v in out):
        return t(_results(v) for v in out)
    return out


def _fake_mode() -> Any:
    for m in reversed(_get_stack()):
        if getattr(m, "_is_fake_mode", False):
            return m
    return None


def _describe(fakes: list) -> str:
    shown = ", ".join(f"{f.shape} {f.dtype}" for f in fakes[:4])
    return shown + (f" and {len(fakes) - 4} more" if len(fakes) > 4 else "")


def _call(fn: Any, name: str, args: tuple, kwargs: dict) -> Any:
    """``fn(*args, **kwargs)`` inside a mode (see the module's docstring)."""
    mode = _fake_mode()
    skip = mode is not None and getattr(mode, "skip_sinks", False)
    short = name.rsplit(".", 1)[-1]
    if skip and short in OUTPUT:
        mode.sinks.add("output", name, f"{name} skipped: a plan draws and writes nothing")
        return None
    if not (_has_fake(args) or _has_fake(kwargs)):
        with paused():
            return fn(*args, **kwargs)
    fakes = _fakes(args, []) + _fakes(kwargs, [])
    if not skip:
        raise DataDependentError(
            f"matplotlib {name} needs the values of a fake array ({_describe(fakes)}) to "
            "draw it; a plan (faketensor run, ft.plan) records such a call and skips it")
    table = lengths([f.shape for f in fakes])
    with paused():
        out = fn(*_replace(args, table), **_replace(kwargs, table))
    mode.sinks.add("plot", name, f"{name} given fakes ({_describe(fakes)}): made on small "
                   "stand-ins, nothing drawn from the fakes")
    return _results(out)


def wrap(fn: Callable, name: str, cls: type | None = None) -> Callable:
    """``fn`` patched as the module's docstring says; ``name`` is how records call it (for a
    method of ``cls``, the class of the object it is called on, then the method's name)."""
    if getattr(fn, _WRAPPED, False):
        return fn

    @functools.wraps(fn)
    def patched(*args: Any, **kwargs: Any) -> Any:
        if not _LIVE or not _get_stack():
            return fn(*args, **kwargs)
        called = name
        if cls is not None and args and isinstance(args[0], cls):
            called = f"{type(args[0]).__name__}.{fn.__name__}"
        return _call(fn, called, args, kwargs)

    setattr(patched, _WRAPPED, True)
    return patched


def _bases() -> tuple:
    """The classes whose subclasses' methods are patched, among those imported so far."""
    found = []
    for mod, names in (("matplotlib.artist", ("Artist",)),
                       ("matplotlib.backend_bases", ("FigureCanvasBase",)),
                       ("matplotlib.colorbar", ("Colorbar",)),
                       ("matplotlib.cm", ("ScalarMappable",)),
                       ("matplotlib.gridspec", ("GridSpecBase", "SubplotSpec")),
                       ("matplotlib.colorizer", ("Colorizer", "_ColorizerInterface",
                                                 "_ScalarMappable"))):
        m = sys.modules.get(mod)
        for n in names:
            c = getattr(m, n, None) if m is not None else None
            if isinstance(c, type):
                found.append(c)
    return tuple(found)


def _patch_class(cls: type) -> None:
    canvas = any(c.__name__ == "FigureCanvasBase" for c in cls.__mro__)
    # a grid spec's indexing computes the cell numbers with NumPy: matplotlib's own work
    # (``grid[0:2, 0]``), real as the rest of the figure's layout
    ctors = ("__init__", "__getitem__") if any(
        c.__name__ == "GridSpecBase" for c in cls.__mro__) else ("__init__",)
    for attr, fn in list(vars(cls).items()):
        if not isinstance(fn, types.FunctionType) or getattr(fn, _WRAPPED, False):
            continue
        if attr in OUTPUT and (canvas or attr != "draw"):
            pass  # a canvas's draw, a figure's savefig: skipped in a plan
        elif attr not in ctors and (attr.startswith(_SKIP_PREFIX) or attr in _SKIP):
            continue  # constructors are patched: Rectangle((x0, y0), w, h) given fakes
        setattr(cls, attr, wrap(fn, f"{cls.__name__}.{attr}", cls))


def imported(module: types.ModuleType) -> None:
    """Patch one matplotlib module after its code ran (once)."""
    name = module.__name__
    if name in _done:
        return
    _done.add(name)
    if name == "matplotlib.pyplot":
        for attr, fn in list(vars(module).items()):
            if (isinstance(fn, types.FunctionType) and not attr.startswith("_")
                    and attr not in _PYPLOT_SKIP and getattr(fn, "__module__", None) == name):
                setattr(module, attr, wrap(fn, f"pyplot.{attr}"))
    imsave = getattr(module, "imsave", None) if name == "matplotlib.image" else None
    if isinstance(imsave, types.FunctionType):
        setattr(module, "imsave", wrap(imsave, "matplotlib.image.imsave"))
    bases = _bases()
    if not bases:
        return
    for obj in list(vars(module).values()):
        if (isinstance(obj, type) and obj.__module__ == name and issubclass(obj, bases)):
            _patch_class(obj)


def install() -> None:
    """Patch the matplotlib modules imported so far."""
    for name in sorted(n for n in list(sys.modules)
                       if n == "matplotlib" or n.startswith(("matplotlib.", "mpl_toolkits."))):
        module = sys.modules.get(name)
        if module is not None:
            imported(module)
