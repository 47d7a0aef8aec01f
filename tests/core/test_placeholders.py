"""FakeMode(data_dependent="placeholder"): values read from fakes are placeholders (the value
of an all-zero array, NumPy's errors where NumPy refuses), each use listed at its user line."""
import operator
import textwrap

import numpy as np
import pytest

import faketensor as ft

TRAIN = textwrap.dedent("""\
    import numpy as np
    def train(steps):
        rng = np.random.default_rng(0)
        w = rng.standard_normal((64, 10))
        best = np.inf
        for step in range(steps):
            x = rng.standard_normal((32, 64))
            loss = ((x @ w) ** 2).mean()
            if loss < best:
                best = loss
            w -= 0.01 * x.T @ (x @ w) / 32
        err, it, tol = np.abs(w).max(), 0, 1e-3
        while err > tol and it < 5:
            err = err * 0.5
            it += 1
        msg = f"loss {float(loss):.3f} after {int(it)} sweeps"
        return w, best, msg
""")


def load_train(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(TRAIN)
    ns: dict = {}
    exec(compile(TRAIN, str(path), "exec"), ns)
    return ns["train"], str(path)


def test_training_loop_plans_to_the_end_with_placeholders(tmp_path):
    train, path = load_train(tmp_path)
    with ft.FakeMode(data_dependent="placeholder") as mode:
        w, best, msg = train(7)
    assert ft.is_fake(w) and w.shape == (64, 10)
    # ``loss < best`` reads loss as its placeholder 0.0, which it holds from then on: the
    # first loss is the best, and float(loss) reads the known 0.0 (no placeholder)
    assert ft.is_fake(best) and float(best) == 0.0 and msg == "loss 0.000 after 0 sweeps"
    sites = [(p["file"], p["line"], p["function"], p["count"]) for p in mode.placeholders]
    assert sites == [(path, 9, "train", 7), (path, 13, "train", 1)]
    assert mode.placeholders[0]["message"].startswith(
        "bool() (through a result computed from it) of a fake array (shape=(), dtype=float64) "
        "gave the placeholder 0.0")


def test_training_loop_stops_in_stop_mode(tmp_path):
    train, path = load_train(tmp_path)
    with pytest.raises(ft.DataDependentError, match=r"bool\(\) needs the values") as info:
        with ft.FakeMode() as mode:
            train(7)
    user = [f for f in info.traceback if str(f.path) == path]
    assert user[-1].lineno + 1 == 9   # pytest's line numbers start at 0
    assert mode.data_dependent == "stop" and list(mode.placeholders) == []


def test_bad_setting():
    with pytest.raises(ValueError, match="data_dependent"):
        ft.FakeMode(data_dependent="guess")


def _outcome(f):
    try:
        v = f()
    except Exception as e:  # noqa: BLE001 - the exception type is the answer
        return type(e)
    return type(v), v


VALUE_READS = {
    "bool": bool, "float": float, "int": int, "complex": complex, "index": operator.index,
    "item()": lambda a: a.item(), "item(0)": lambda a: a.item(0), "item(-1)": lambda a: a.item(-1),
    "item(99)": lambda a: a.item(99), "item(0,1)": lambda a: a.item(0, 1),
    "tolist": lambda a: a.tolist(), "tobytes": lambda a: a.tobytes(),
    "format": lambda a: format(a, ".2f"), "range": lambda a: range(a), "round": round,
}
SHAPES = [(), (1,), (1, 1), (0,), (3, 4), (2, 0, 3)]
DTYPES = ["?", "i1", "u8", "f4", "f8", "c16", "U3", "S2", "M8[s]", "m8[D]", "V4", "i2,f4"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_placeholders_are_what_numpy_gives_for_zeros(shape, dtype):
    """Differential: each value read on a fake equals the same read on real zeros, value
    and type, or raises the same exception type."""
    real = np.zeros(shape, dtype)
    with ft.FakeMode(data_dependent="placeholder") as mode:
        fake = np.empty(shape, dtype)  # values unknown (np.zeros' are known: no placeholder)
        for name, read in VALUE_READS.items():
            want, got = _outcome(lambda: read(real)), _outcome(lambda: read(fake))
            assert got == want, (name, got, want)
            if isinstance(want, tuple) and name != "range":
                assert type(got[1]) is type(want[1]), name
    reads = sum(1 for r in VALUE_READS.values() if isinstance(_outcome(lambda: r(real)), tuple))
    if real.size == 0:  # an empty array's values are known (none): read with no placeholder
        reads = 0
    # the first read's placeholder is from then on the fake's known value: later reads of
    # it are no placeholders
    assert sum(p["count"] for p in mode.placeholders) == min(reads, 1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_stop_raises_numpys_error_first(shape, dtype):
    """In "stop", a read NumPy refuses for this shape or dtype raises NumPy's exception type;
    a read NumPy answers raises DataDependentError, unless the array is empty (no values:
    NumPy's answer)."""
    real = np.zeros(shape, dtype)
    with ft.FakeMode() as mode:
        fake = np.empty(shape, dtype)
        for name, read in VALUE_READS.items():
            want, got = _outcome(lambda: read(real)), _outcome(lambda: read(fake))
            if real.size == 0:
                assert got == want, name
            else:
                assert got == (ft.DataDependentError if isinstance(want, tuple) else want), name
    assert list(mode.placeholders) == []


@pytest.mark.parametrize("dtype", ["?", "i1", "u8", "f2", "f8", "c16", "M8[s]"])
@pytest.mark.filterwarnings("ignore:Casting complex values to real:numpy.exceptions.ComplexWarning")
def test_numpy_scalars(dtype):  # float() of a complex scalar warns, real or placeholder
    """A reduction's NumPy scalar: the same reads, and round() as NumPy scalars define it."""
    real = np.zeros(3, dtype).max()
    with ft.FakeMode(data_dependent="placeholder") as mode:
        fake = np.empty(3, dtype).max()
        for name, read in VALUE_READS.items():
            want, got = _outcome(lambda: read(real)), _outcome(lambda: read(fake))
            assert got == want, (name, got, want)
        want = _outcome(lambda: round(real, 2))
        got = _outcome(lambda: round(fake, 2))  # a fake scalar, not a placeholder: refused
        assert got == (ft.UnsupportedOperationError if isinstance(want, tuple) else want)
    assert type(real) is not np.ndarray and ft.is_fake(fake)


def test_value_reads_outside_placeholder_mode_raise():
    with ft.FakeMode(data_dependent="placeholder"):
        x = np.empty(())
        with ft.FakeMode():  # the innermost FakeMode decides
            with pytest.raises(ft.DataDependentError):
                bool(x)
    for read in (bool, float, lambda a: a.item(), lambda a: a.tolist()):
        with pytest.raises(ft.DataDependentError):
            read(x)


def test_writing_values_out_writes_no_placeholder(tmp_path):
    """A write is recorded (mode.io), never made of placeholder values; dumps(), which
    returns the pickled values, still raises."""
    with ft.FakeMode(data_dependent="placeholder") as mode:
        x = np.ones(3)
        x.tofile(str(tmp_path / "x.bin"))
        with pytest.raises(ft.DataDependentError):
            x.dumps()
    assert not (tmp_path / "x.bin").exists() and list(mode.placeholders) == []
    assert [(e["op"], e["bytes"], e["written"]) for e in mode.io] == [
        ("ndarray.tofile", 24, False)]


def test_big_lists_are_refused():
    with ft.FakeMode(data_dependent="placeholder"):
        x = np.empty((4096, 4096))
        with pytest.raises(ft.DataDependentError, match="at most"):
            x.tolist()
        assert len(x[:2, :3].tolist()) == 2


@pytest.mark.parametrize("op", [
    lambda x: np.nonzero(x), lambda x: x[x > 0], lambda x: np.unique(x.astype(int)),
    lambda x: np.flatnonzero(x), lambda x: np.bincount(x.astype(int)),
    lambda x: np.allclose(x, x), lambda x: np.array_equal(x, x),
], ids=["nonzero", "mask", "unique", "flatnonzero", "bincount", "allclose", "array_equal"])
def test_data_dependent_kernels_keep_raising(op):
    """A result whose shape depends on values has no honest placeholder: these raise (with
    bounded sizes refused; by default a length is a bounded size, docs/guide/bounded-sizes.md)."""
    with ft.FakeMode(data_dependent="placeholder", sizes=ft.SizePolicy("refuse")) as mode:
        x = np.empty(5)
        with pytest.raises(ft.DataDependentError):
            op(x)
    assert list(mode.placeholders) == []


def test_the_line_is_the_users_not_the_librarys(tmp_path):
    """A library function reading a value on the user's behalf: the user's call is blamed."""
    from faketensor.modes.imports import script_imports
    script, lib = tmp_path / "script", tmp_path / "lib"
    script.mkdir()
    lib.mkdir()
    (lib / "solver_lib.py").write_text("def converged(err, tol):\n    return bool(err < tol)\n")
    main = script / "main.py"
    src = ("import numpy as np\nimport solver_lib\nerr = np.empty(())\n"
           "done = solver_lib.converged(err, 1e-3)\n")
    main.write_text(src)
    import sys
    sys.path.insert(0, str(lib))
    try:
        with script_imports(script), ft.FakeMode(data_dependent="placeholder") as mode:
            ns: dict = {}
            exec(compile(src, str(main), "exec"), ns)
    finally:
        sys.path.remove(str(lib))
        sys.modules.pop("solver_lib", None)
    assert ns["done"] is True  # err read as its placeholder 0: 0 < 1e-3
    assert [(p["file"], p["line"], p["function"], p["count"]) for p in mode.placeholders] == [
        (str(main), 4, "<module>", 1)]


@pytest.mark.parametrize("dtype", [d for d in DTYPES if "," not in d])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_known_values_are_read_without_placeholders(shape, dtype):
    """np.zeros' values are known (faketensor/_known.py; not for structured dtypes): every
    read equals the real one, in "stop" too, and no placeholder is recorded."""
    real = np.zeros(shape, dtype)
    with ft.FakeMode() as mode:
        fake = np.zeros(shape, dtype)
        for name, read in VALUE_READS.items():
            want, got = _outcome(lambda: read(real)), _outcome(lambda: read(fake))
            assert got == want, (name, got, want)
    assert list(mode.placeholders) == []
