"""Sinks never stop a plan: formatting, logging and plotting a fake are recorded with their line
and skipped (faketensor/_sinks.py, modes/matplotlib_patching.py); only a value that steers the
program stops. Each pattern also runs for real, to show the program completes the same way."""
from __future__ import annotations

import glob
import io
import json
import logging
import math
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor import _sinks

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from test_plan import FAKETENSOR, HERE, SCRIPTS, line_of, run_cli  # noqa: E402

NAN = float("nan")


def run_both(program, *args):
    """(real result, fake result, the mode's sinks): ``program(*args)`` on real arrays, then
    on their fakes in a mode that skips sinks."""
    real = program(*args)
    with ft.FakeMode(skip_sinks=True) as mode:
        fakes = [np.empty_like(a) if isinstance(a, np.ndarray) else a for a in args]
        fake = program(*fakes)
    return real, fake, list(mode.sinks)


# --- formatting ------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, want", [
    (".4f", "nan"), ("8.3f", "     nan"), ("<8.2e", "nan     "), ("+.1%", "+nan%"),
    ("g", "nan"), ("", None),
])
def test_f_string_with_spec_renders_nan_for_a_float(spec, want):
    def program(x):
        loss = x.mean()
        return f"{loss:{spec}}"
    real, fake, sinks = run_both(program, np.arange(4.0))
    if want is None:  # no spec: the fake's repr, no value read, no sink
        assert fake.startswith("FakeArray(shape=()") and sinks == []
        return
    assert fake == want == format(NAN, spec)
    assert len(fake) == len(format(NAN, spec)) and real == format(1.5, spec)
    assert [(s["kind"], s["call"], s["count"]) for s in sinks] == [("format", f"format(x, {spec!r})", 1)]


@pytest.mark.parametrize("spec, want", [("5d", "    ?"), ("<4d", "?   "), ("*^7,d", "***?***"),
                                        ("d", "?"), ("x", "?"), ("05d", "    ?")])
def test_an_integer_renders_a_marker_in_its_field(spec, want):
    real, fake, sinks = run_both(lambda x: f"{x.argmax():{spec}}", np.arange(4.0))
    assert fake == want and len(fake) == len(real) and real == format(3, spec)
    assert [s["kind"] for s in sinks] == ["format"]


def test_format_keeps_the_errors_of_the_real_call():
    with ft.FakeMode(skip_sinks=True):
        x = np.empty(3)
        with pytest.raises(TypeError):  # an ndarray with ndim > 0 refuses a spec
            f"{x:.3f}"
        with pytest.raises(ValueError):  # a float refuses an integer format code
            f"{x.sum():d}"


def test_percent_formatting():
    def program(x):
        loss, best = x.mean(), x.argmax()
        return "step %d: loss %.3f (%8.2e) %s" % (best, loss, loss, "ok")
    real, fake, sinks = run_both(program, np.arange(4.0))
    assert real == "step 3: loss 1.500 (1.50e+00) ok"
    assert fake == "step 0: loss nan (     nan) ok"  # int() must return an int: 0
    assert {(s["kind"], s["call"], s["count"]) for s in sinks} == {("%", "int()", 1),
                                                                    ("%", "float()", 2)}
    assert all(s["line"] == program.__code__.co_firstlineno + 2 for s in sinks)


def test_str_format():
    def program(x):
        return "{:.2f} | {:>6} | {}".format(x.sum(), x.argmin(), "text")
    real, fake, sinks = run_both(program, np.arange(4.0))
    assert real == "6.00 |      0 | text" and fake == "nan |      ? | text"
    assert [s["kind"] for s in sinks] == ["format", "format"]


def test_value_reads_formatted_at_once():
    """``float(x)`` / ``x.item()`` / ``int(x)`` whose result an f-string formats at once."""
    def program(x):
        s = x.sum()
        return f"{float(s):.2f} {s.item():>6.1f} {x.argmax().item():3d} {int(x.argmax())}"
    real, fake, sinks = run_both(program, np.arange(4.0))
    assert real == "6.00    6.0   3 3" and fake == "nan    nan   ? 0"
    assert {(s["kind"], s["call"]) for s in sinks} == {("f-string", "float()"),
                                                       ("f-string", "ndarray.item()"),
                                                       ("f-string", "int()")}


def test_logging_percent_args_log_nan_and_no_logging_error(capsys):
    stream = io.StringIO()
    log = logging.getLogger("faketensor-test-sinks")
    log.propagate = False
    handler = logging.StreamHandler(stream)
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        def program(x):
            log.info("loss %.3f after %d steps", x.mean(), x.argmax())
            return stream.getvalue().splitlines()[-1]
        real, fake, sinks = run_both(program, np.arange(4.0))
    finally:
        log.removeHandler(handler)
    assert real == "loss 1.500 after 3 steps" and fake == "loss nan after 0 steps"
    assert "Logging error" not in capsys.readouterr().err
    assert {(s["kind"], s["call"]) for s in sinks} == {("logging", "float()"), ("logging", "int()")}
    assert all(s["function"] == "program" for s in sinks)  # the user's line, not logging's


def test_value_reads_printed_at_once(capsys):
    """``print(x.item())``, ``print("loss", float(x))``: a call written as an argument of the
    builtin print is output; ``print(round(x.item(), 2))`` is not (round may do anything)."""
    def program(x):
        print(x.sum().item())
        print("loss", float(x.mean()), "best", x.argmax().item(), int(x.argmax()))
        return capsys.readouterr().out
    real, fake, sinks = run_both(program, np.arange(4.0))
    assert real == "6.0\nloss 1.5 best 3 3\n" and fake == "nan\nloss nan best ? 0\n"
    assert [(s["kind"], s["call"], s["line"] - program.__code__.co_firstlineno) for s in sinks] == [
        ("print", "ndarray.item()", 1), ("print", "float()", 2), ("print", "ndarray.item()", 2),
        ("print", "int()", 2)]
    with ft.FakeMode(skip_sinks=True):
        with pytest.raises(ft.DataDependentError):
            print(round(np.empty(3).sum().item(), 2))


def test_values_that_steer_the_program_still_stop():
    with ft.FakeMode(skip_sinks=True) as mode:
        x = np.empty(10)
        s, i = x.sum(), x.argmax()
        for steer in (lambda: bool(s > 0), lambda: float(s), lambda: x.item(0),
                      lambda: range(i), lambda: np.zeros(int(i)), lambda: [1, 2][i],
                      lambda: s.item(), lambda: round(s)):
            with pytest.raises(ft.DataDependentError):
                steer()
        with pytest.raises(ft.DataDependentError):
            if s > 0:  # noqa: SIM108
                pass
        with pytest.raises(ft.DataDependentError):
            kept = float(s)  # noqa: F841  (a value kept in a variable may steer later)
    assert list(mode.sinks) == []


def test_without_skip_sinks_formatting_raises():
    with ft.FakeMode() as mode:
        x = np.empty(3).sum()
        for out in (lambda: f"{x:.3f}", lambda: "%.3f" % x, lambda: "{:.1f}".format(x)):
            with pytest.raises(ft.DataDependentError):
                out()
    assert list(mode.sinks) == []


def test_a_known_value_formats_as_the_value():
    with ft.FakeMode(skip_sinks=True) as mode:
        z = np.zeros(3)  # every element known: 0.0
        assert f"{z[0]:.2f}" == "0.00" and "%.1f" % z[1] == "0.0"
    assert list(mode.sinks) == []


def test_placeholder_mode_keeps_its_placeholders():
    with ft.FakeMode(data_dependent="placeholder", skip_sinks=True) as mode:
        assert f"{np.empty(3).sum():.2f}" == "0.00"
    assert len(mode.placeholders) == 1 and list(mode.sinks) == []


INSTRUCTIONS = textwrap.dedent("""\
    import sys, types, logging, io
    pkg = types.ModuleType("faketensor"); pkg.__path__ = [{pkg!r}]; sys.modules["faketensor"] = pkg
    sys.modules.setdefault("numpy", types.ModuleType("numpy"))  # this interpreter may lack it
    from faketensor import _sinks
    got = []
    class F:
        def __float__(self):
            got.append(_sinks.output_use(sys._getframe(1))); return float("nan")
        def __int__(self):
            got.append(_sinks.output_use(sys._getframe(1))); return 0
        def item(self):
            got.append(_sinks.output_use(sys._getframe(1))); return 1.0
    x = F()
    a = "%.3f" % x
    a = "%d %s" % (x, 1)
    a = "%f"; a %= x
    b = f"{{float(x):.3f}}"; c = f"{{float(x)}}"; d = f"{{x.item():>8.2f}}"; e = f"{{float(x)!r}}"
    g = float(x)
    h = x.item()
    if float(x) > 0: pass
    logging.basicConfig(stream=io.StringIO()); logging.warning("%.2f", x)
    print("value", float(x), x.item(),
          int(x), file=io.StringIO())
    print(round(x.item()), file=io.StringIO())
    print(",".join(got))
""")
# this interpreter, and the other supported ones where pyenv has them (the bytecode differs)
INTERPRETERS = [sys.executable] + sorted(
    p for v in ("3.11", "3.12", "3.13")
    for p in glob.glob(os.path.expanduser(f"~/.pyenv/versions/{v}.*/bin/python"))[-1:])


@pytest.mark.parametrize("python", list(dict.fromkeys(INTERPRETERS)))
def test_output_use_reads_the_bytecode_of_each_python(python, tmp_path):
    """The calling instruction decides (3.11, 3.12, 3.13 differ): %-formatting, logging, a
    call formatted at once by an f-string; a kept value, a comparison are not output."""
    script = tmp_path / "uses.py"
    script.write_text(INSTRUCTIONS.format(pkg=os.path.dirname(_sinks.__file__)))
    r = subprocess.run([python, str(script)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [",".join(["%", "%", "%", "f-string", "f-string", "f-string",
                                          "f-string", "", "", "", "logging", "print", "print",
                                          "print", ""])]


# --- matplotlib ------------------------------------------------------------------------------

def _grid(n=40, m=30):
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 2, m))
    return x, y, x * y + 1


def _series(n=200):
    x = np.linspace(0, 1, n)
    return x, np.sin(3 * x) + 2


PLOTS = {  # name -> (the call, its data, the call the plan records)
    "plot": (lambda ax, x, y: ax.plot(x, y), _series, "Axes.plot"),
    "scatter": (lambda ax, x, y: ax.scatter(x, y, c=y, s=y), _series, "Axes.scatter"),
    "imshow": (lambda ax, x, y, z: ax.imshow(z), _grid, "Axes.imshow"),
    "imshow_rgb": (lambda ax, z: ax.imshow(z), lambda: (np.ones((20, 30, 3)) * 0.5,),
                   "Axes.imshow"),
    "pcolormesh": (lambda ax, x, y, z: ax.pcolormesh(x, y, z), _grid, "Axes.pcolormesh"),
    "pcolormesh_edges": (lambda ax, x, y, z: ax.pcolormesh(x, y, z[:-1, :-1]), _grid,
                         "Axes.pcolormesh"),
    "contour": (lambda ax, x, y, z: ax.contour(x, y, z), _grid, "Axes.contour"),
    "contourf": (lambda ax, x, y, z: ax.contourf(x, y, z, levels=5), _grid, "Axes.contourf"),
    "hist": (lambda ax, x, y: ax.hist(y, bins=12), _series, "Axes.hist"),
    "bar": (lambda ax, x, y: ax.bar(np.arange(12), y[:12]), _series, "Axes.bar"),
    "fill_between": (lambda ax, x, y: ax.fill_between(x, y - 1, y), _series,
                     "Axes.fill_between"),
    "errorbar": (lambda ax, x, y: ax.errorbar(x, y, yerr=y / 10), _series, "Axes.errorbar"),
    "quiver": (lambda ax, x, y, z: ax.quiver(x, y, z, z), _grid, "Axes.quiver"),
    "text": (lambda ax, x, y: ax.text(x[3], y.max(), "peak"), _series, "Axes.text"),
    "axhline": (lambda ax, x, y: ax.axhline(y.mean()), _series, "Axes.axhline"),
    "set_ylim": (lambda ax, x, y: ax.set_ylim(0, y.max()), _series, "Axes.set_ylim"),
    "pyplot.plot": (lambda ax, x, y: plt.plot(x, y), _series, "pyplot.plot"),
    "pyplot.imshow": (lambda ax, x, y, z: plt.imshow(z), _grid, "pyplot.imshow"),
    "pyplot.scatter": (lambda ax, x, y: plt.scatter(x, y), _series, "pyplot.scatter"),
}


def _shape_of(result):
    """What a program can rely on in a plotting call's result: its type and, for a list or
    tuple, the types and lengths of its items (arrays among them: shape and dtype)."""
    def one(v):
        if isinstance(v, np.ndarray) or ft.is_fake(v):
            return ("array", v.shape, str(v.dtype))
        return type(v).__name__
    if type(result) in (list, tuple):
        return type(result).__name__, [one(v) for v in result]
    return one(result)


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_plotting_fakes_is_a_sink(name, tmp_path):
    draw, data, call = PLOTS[name]

    def program(*arrays):
        fig, ax = plt.subplots(figsize=(4, 3), dpi=80)
        out = draw(ax, *arrays)
        path = tmp_path / "fig.png"
        path.unlink(missing_ok=True)
        fig.savefig(path)
        plt.close(fig)
        return out, path.exists()

    arrays = data()
    (real, real_wrote), (fake, fake_wrote), sinks = run_both(program, *arrays)
    assert real_wrote and not fake_wrote
    assert _shape_of(fake) == _shape_of(real)
    assert [(s["kind"], s["call"], s["count"]) for s in sinks] == [
        ("plot", call, 1), ("output", "Figure.savefig", 1)]


def test_artist_updates_and_colorbar(tmp_path):
    def program(x, y, u):
        fig, (a, b) = plt.subplots(1, 2, figsize=(4, 2), dpi=50)
        line, = a.plot(x, y)
        line.set_ydata(y * 2)
        line.set_data(x, y + 1)
        im = b.imshow(u)
        im.set_data(u * 2)
        im.set_clim(u.min(), u.max())
        cb = plt.colorbar(im)
        cb.set_label(f"max {u.max():.2f}")
        sc = a.scatter(x, y)
        sc.set_offsets(np.stack([x, y], axis=1))
        fig.canvas.draw()
        with warnings.catch_warnings():  # Agg cannot show: matplotlib warns, for real
            warnings.simplefilter("ignore", UserWarning)
            plt.pause(0.001)
            plt.show()
        plt.close(fig)
        return type(line).__name__, type(im).__name__, type(cb).__name__

    x, y = _series(50)
    real, fake, sinks = run_both(program, x, y, np.outer(y, y))
    assert real == fake == ("Line2D", "AxesImage", "Colorbar")
    calls = {s["call"] for s in sinks}
    assert {"Line2D.set_ydata", "Line2D.set_data", "AxesImage.set_data", "AxesImage.set_clim",
            "PathCollection.set_offsets", "FigureCanvasAgg.draw", "pyplot.pause",
            "pyplot.show"} <= calls


def test_artists_made_from_fakes_and_3d_axes():
    from matplotlib.patches import Circle, Rectangle

    def program(x, z):
        fig = plt.figure()
        ax = fig.add_subplot(1, 2, 1)
        ax.add_patch(Rectangle((x.min(), 0), x.max(), 1))
        ax.add_patch(Circle((0, 0), x.std()))
        ax3 = fig.add_subplot(1, 2, 2, projection="3d")
        gx, gy = np.meshgrid(np.arange(50.0), np.arange(40.0))
        surf = ax3.plot_surface(gx, gy, z)
        lines = ax3.plot(x, x, x)
        plt.close(fig)
        return type(surf).__name__, len(lines), len(ax.patches)

    real, fake, sinks = run_both(program, np.linspace(0, 1, 100), np.ones((40, 50)))
    assert real == fake == ("Poly3DCollection", 1, 2)
    assert [s["call"] for s in sinks] == ["Rectangle.__init__", "Circle.__init__",
                                          "Axes3D.plot_surface", "Axes3D.plot"]


def test_imsave_and_savefig_write_nothing_in_a_plan(tmp_path):
    import matplotlib.image as mimage

    def program(u, tag):
        plt.imsave(tmp_path / f"{tag}-a.png", u)
        mimage.imsave(tmp_path / f"{tag}-b.png", u)
        fig = plt.figure()
        fig.savefig(tmp_path / f"{tag}-c.png")  # a figure of real data only: skipped too
        plt.close(fig)
        return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(tag))

    real = program(np.ones((20, 30)), "real")
    with ft.FakeMode(skip_sinks=True) as mode:
        fake = program(np.empty((20, 30)), "fake")
    assert real == ["real-a.png", "real-b.png", "real-c.png"] and fake == []
    assert [s["call"] for s in mode.sinks] == ["pyplot.imsave", "matplotlib.image.imsave",
                                              "Figure.savefig"]


def test_figure_setup_runs_for_real_in_any_mode(tmp_path):
    """matplotlib's own NumPy work on its own values is real inside a mode; a figure with
    only real data is saved outside a plan; fakes in plain FakeMode raise naming the call."""
    with ft.FakeMode() as alone:
        np.ones(5)
    with ft.FakeMode() as mode:
        fig = plt.figure(figsize=(4, 3), dpi=80)
        ax = fig.add_subplot()
        ax.plot([0, 1, 2], [2, 1, 3])
        ax.set_xlabel("x")
        fig.savefig(tmp_path / "real.png")
        with pytest.raises(ft.DataDependentError, match="Axes.plot needs the values"):
            ax.plot(np.ones(5))
        plt.close(fig)
    assert (tmp_path / "real.png").exists() and list(mode.sinks) == []
    assert mode.memory.peak == alone.memory.peak  # np.ones(5), nothing of matplotlib's


def test_grid_spec_cells_are_matplotlib_work():
    """``grid[0:2, 0]`` computes the cell numbers with NumPy inside matplotlib: real, as
    without a mode (the axes land where they do for real), nothing charged."""
    def layout() -> tuple:
        fig = plt.figure(figsize=(4, 5), dpi=80)
        grid = plt.GridSpec(3, 1, wspace=0.0, hspace=0.3)
        return fig, [plt.subplot(grid[0:2, 0]), plt.subplot(grid[2, 0])]

    def bounds(fig: object, axes: list) -> list:
        out = [tuple(ax.get_position().bounds) for ax in axes]
        plt.close(fig)
        return out
    want = bounds(*layout())
    with ft.FakeMode() as mode:
        made = layout()
    assert bounds(*made) == want and list(mode.sinks) == []
    assert mode.memory.peak.get("cpu", 0) == 0


def test_stand_ins_are_small_and_keep_shape_relations():
    from faketensor.modes.matplotlib_patching import KEEP, lengths, stand_in
    assert lengths([(3, 4), (10**9,), (10**9 + 1, 20)]) == {20: KEEP + 1, 10**9: KEEP + 4,
                                                            10**9 + 1: KEEP + 5}
    with ft.FakeMode(skip_sinks=True) as mode:
        x = np.empty((10**8, 3), np.float32)
        fig, ax = plt.subplots()
        lines = ax.plot(x)  # three lines, each drawn on a stand-in of KEEP + 1 points
        plt.close(fig)
    s = stand_in(x, lengths([x.shape]))
    assert len(lines) == 3 and s.shape == (KEEP + 1, 3) and s.dtype == np.float32
    assert mode.memory.peak["cpu"] == 12 * 10**8  # the fake's own bytes, nothing more


def test_results_that_are_arrays_are_fakes():
    with ft.FakeMode(skip_sinks=True):
        fig, ax = plt.subplots()
        n, bins, patches = ax.hist(np.empty(10**6), bins=25)
        plt.close(fig)
    assert ft.is_fake(n) and n.shape == (25,) and bins.shape == (26,)
    assert len(patches) == 25


def test_outside_a_mode_matplotlib_is_untouched(tmp_path):
    from matplotlib.axes import Axes
    assert getattr(Axes.plot, "_ft_matplotlib", False) and Axes.plot.__wrapped__
    fig, ax = plt.subplots()
    line, = ax.plot(np.arange(5.0))
    line.set_ydata(np.ones(5))
    fig.savefig(tmp_path / "out.png")
    plt.close(fig)
    assert (tmp_path / "out.png").exists()


# --- the plan's report -----------------------------------------------------------------------

def test_plan_reports_sinks_in_text_json_and_html(tmp_path):
    def program():
        x = np.ones((100, 100)) * np.arange(100.0)
        loss = x.mean()
        print(f"loss {loss:.3f}")
        fig, ax = plt.subplots()
        ax.imshow(x)
        fig.savefig(tmp_path / "never.png")
        plt.close(fig)
        return loss

    p = ft.plan(program)
    assert p.status == "completed" and not (tmp_path / "never.png").exists()
    data = p.to_json()
    first = program.__code__.co_firstlineno
    assert [(s["kind"], s["call"], s["line"] - first) for s in data["sinks"]] == [
        ("format", "format(x, '.3f')", 3), ("plot", "Axes.imshow", 5),
        ("output", "Figure.savefig", 6)]
    json.dumps(data)
    text = p.report()
    assert "sinks: output skipped (3 lines, 3 uses; the plan went on):" in text
    assert "Axes.imshow 1x" in text
    from faketensor.meta_utils.planner.html import render_html
    page = render_html(data)
    assert 'id="sinks"' in page and "Figure.savefig" in page


MEASURE_WARM = """
import gc, io, os, runpy, sys
sys.path.insert(1, {tests!r})
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from memtools import measure_peak
np.random.default_rng(0)
# matplotlib imported and its caches warm (fonts, colormap, paths), as after a first figure:
# the plan counts the program's arrays, not matplotlib's own
fig, (ax, side) = plt.subplots(1, 2, figsize=(4, 2), dpi=40)
fig.colorbar(ax.imshow(np.ones((3, 3)), cmap="inferno"), ax=ax)
side.plot(np.ones(3)); ax.set_title("warm up")
fig.savefig(io.BytesIO(), format="png"); plt.close(fig); del fig, ax, side; gc.collect()
target, *args = sys.argv[1:]
sys.argv = [target, *args]
sys.path[0] = os.path.dirname(os.path.realpath(target))
peak, live = measure_peak(lambda: runpy.run_path(target, run_name="__main__"))
print("REAL", peak)
"""


def test_simulation_that_logs_and_draws_plans_to_the_end(tmp_path):
    real_dir, plan_dir = tmp_path / "real", tmp_path / "plan"
    real_dir.mkdir()
    plan_dir.mkdir()
    args = ("heat_plot.py", "128", "6", "2")
    rc, out, err, data = run_cli(*args, str(plan_dir), tmp_path=tmp_path)
    assert rc == 0, err
    assert data["status"] == "completed" and data["stopped_at"] is None
    assert os.listdir(plan_dir) == []  # a skipped savefig writes nothing
    r = subprocess.run([sys.executable, "-c", MEASURE_WARM.format(tests=HERE), *args,
                        str(real_dir)], cwd=SCRIPTS, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(real_dir)) == ["heat_0000.png", "heat_0002.png", "heat_0004.png"]
    assert data["devices"]["cpu"]["peak_bytes"] == int(r.stdout.split()[-1]) == 4 * 128 * 128 * 8
    # the program completes the same way: the same lines, the values unknown
    real_lines = [ln for ln in r.stdout.splitlines() if ln.startswith("step")]
    plan_lines = [ln for ln in out.splitlines() if ln.startswith("step")]
    assert len(real_lines) == len(plan_lines) == 6
    assert plan_lines[:2] == ["step    0: heat        nan, max nan", "step 0: heat nan"]
    assert [len(a.split(",")[0]) for a in real_lines[::2]] == [len(b.split(",")[0])
                                                              for b in plan_lines[::2]]
    assert out.splitlines()[-1] == "done (128, 128)" == r.stdout.splitlines()[-2]
    seen = {(s["kind"], s["call"], s["line"], s["count"]) for s in data["sinks"]}
    assert seen == {
        ("format", "format(x, '10.4f')", line_of("heat_plot.py", "SINK FORMAT"), 3),
        ("format", "format(x, '.3e')", line_of("heat_plot.py", "SINK FORMAT"), 3),
        ("logging", "float()", line_of("heat_plot.py", "SINK LOGGING"), 3),
        ("plot", "Axes.imshow", line_of("heat_plot.py", "SINK IMSHOW"), 3),
        ("plot", "Axes.plot", line_of("heat_plot.py", "SINK PLOT"), 3),
        ("plot", "Line2D.set_ydata", line_of("heat_plot.py", "SINK SET_YDATA"), 3),
        ("output", "Figure.savefig", line_of("heat_plot.py", "SINK SAVEFIG"), 3)}
    assert "Logging error" not in err and "sinks: output skipped (7 lines, 21 uses" in err



# --- faketensor run -m MODULE ARGS -----------------------------------------------------------

def test_run_m_passes_every_argument_after_the_module(tmp_path):
    rc, out, err, _ = run_cli("--top", "3", "-m", "semantics", "--vocab", "256", "-m", "x",
                              "--json", "y", tmp_path=tmp_path)
    assert rc == 0, err
    seen = json.loads(out)
    assert seen["argv"][1:] == ["--vocab", "256", "-m", "x", "--json", "y"]
    assert seen["name"] == "__main__" and seen["argv"][0].endswith("semantics.py")


def test_run_script_passes_options_after_the_script(tmp_path):
    rc, out, err, data = run_cli("semantics.py", "--top", "5", "-m", "x", tmp_path=tmp_path)
    assert rc == 0, err
    assert data["status"] == "completed"
    assert json.loads(out)["argv"] == ["semantics.py", "--top", "5", "-m", "x"]


@pytest.mark.parametrize("tokens, split", [
    (["--top", "3", "-m", "pkg", "--vocab", "256"], (["--top", "3"], "pkg", ["--vocab", "256"])),
    (["-mpkg", "a"], ([], "pkg", ["a"])),
    (["--json=o.json", "--dev", "cuda", "s.py", "-m", "x"], (["--json=o.json", "--dev", "cuda"],
                                                            None, ["s.py", "-m", "x"])),
    (["--", "-s.py", "1"], ([], None, ["-s.py", "1"])),
    (["-m"], (["-m"], None, [])),
])
def test_split_run(tokens, split):
    from faketensor.meta_utils.planner.cli import split_run
    assert split_run(tokens) == split


def test_run_m_without_a_module_is_refused():
    r = subprocess.run([FAKETENSOR, "run", "-m"], cwd=SCRIPTS, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2 and "-m" in r.stderr


def test_nan_is_what_a_float_sink_gives():
    with ft.FakeMode(skip_sinks=True):
        assert math.isnan(float("%.3f" % np.empty(2).sum()))
