"""Writing fakes inside a FakeMode: nothing is written, ``mode.io`` records the bytes the
real call writes (checked against the files real NumPy writes), the plan reports them;
outside a mode a fake refuses to be written; real arrays are written as usual."""
import io
import json
import os
import warnings

import numpy as np
import pytest

import faketensor as ft

# (name, real array maker): awkward layouts, dtypes whose header differs
ARRAYS = {
    "C": lambda: np.zeros((3, 4)),
    "F": lambda: np.zeros((3, 5), np.float32, order="F"),
    "T": lambda: np.zeros((3, 4), np.int16).T,
    "step": lambda: np.zeros((4, 10), ">i4")[:, ::3],
    "rev": lambda: np.zeros((7,), np.complex64)[::-1],
    "0d": lambda: np.zeros((), np.uint8),
    "empty": lambda: np.zeros((0, 3)),
    "long-shape": lambda: np.zeros((1,) * 20),
    "wide": lambda: np.zeros((123456, 0)),
    "struct": lambda: np.zeros((2, 3), [("a", "<i4"), ("b", ">f8", (2,))]),
    "datetime": lambda: np.zeros((2, 2), "M8[ms]"),
    "str": lambda: np.zeros((2,), "U7"),
    "bool-bcast": lambda: np.broadcast_to(np.zeros(3, bool), (4, 3)),
}


def _real_size(write, tmp_path, name):
    path = tmp_path / name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(str(path))
    found = [p for p in os.listdir(tmp_path) if p.startswith(name)]
    assert len(found) == 1
    return os.path.getsize(tmp_path / found[0]), found[0]


def _fake_event(write, tmp_path, name, make_args):
    with ft.FakeMode() as mode:
        args = make_args()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = write(str(tmp_path / name), *args)
    assert out is None
    assert not [p for p in os.listdir(tmp_path) if p.startswith(name)], "a fake was written"
    (event,) = mode.io
    return event


def _converted(*makers):
    """Fakes of the real arrays (the same layouts as the real run)."""
    return lambda: [ft.to_fake(m()) for m in makers]


@pytest.mark.parametrize("name", ARRAYS)
def test_save_bytes_exact(name, tmp_path):
    size, fname = _real_size(lambda p: np.save(p, ARRAYS[name]()), tmp_path, "r" + name)
    event = _fake_event(lambda p, a: np.save(p, a), tmp_path, "f" + name,
                        _converted(ARRAYS[name]))
    assert event["bytes"] == size and event["exact"] and not event["written"]
    assert event["op"] == "np.save" and event["path"].endswith("f" + name + ".npy")
    assert event["file"] == __file__ and event["function"] == "<lambda>"


def test_save_fakes_made_in_the_mode(tmp_path):
    size, _ = _real_size(lambda p: np.save(p, np.ones((5, 6))[::2].T), tmp_path, "r")
    with ft.FakeMode() as mode:
        np.save(str(tmp_path / "f.npy"), np.ones((5, 6))[::2].T)
    assert mode.io[0]["bytes"] == size and mode.io[0]["path"] == str(tmp_path / "f.npy")
    assert os.listdir(tmp_path) == ["r.npy"]


@pytest.mark.parametrize("members", [
    ("C",), ("C", "T", "0d"), ("struct", "empty", "long-shape", "str"),
])
@pytest.mark.parametrize("named", [False, True])
def test_savez_bytes_exact(members, named, tmp_path):
    makers = [ARRAYS[m] for m in members]
    names = ["a", "long_member_name_" * 3, "\u00e9t\u00e9", "d"][:len(makers)] if named else []

    def call(p, *arrays):
        if named:
            return np.savez(p, **dict(zip(names, arrays)))
        return np.savez(p, *arrays)
    size, _ = _real_size(lambda p: call(p, *[m() for m in makers]), tmp_path, "r")
    event = _fake_event(call, tmp_path, "f", _converted(*makers))
    assert (event["bytes"], event["exact"], event["arrays"]) == (size, True, len(makers))
    assert event["path"].endswith("f.npz")


def test_savez_many_members_and_real_values(tmp_path):
    """Real values among fakes (a list, a scalar) count as NumPy makes arrays of them."""
    def call(p, *a):
        return np.savez(p, *a, extra=[1, 2, 3], s=2.5)
    size, _ = _real_size(lambda p: call(p, *[np.zeros(i) for i in range(30)]), tmp_path, "r")
    event = _fake_event(call, tmp_path, "f", lambda: [np.zeros(i) for i in range(30)])
    assert event["bytes"] == size and event["exact"] and not event["written"]


@pytest.mark.parametrize("seekable", [True, False])
def test_savez_to_file_objects(seekable):
    """A file object: its name or type in the event; an unseekable one gets zip64 data
    descriptors, as zipfile writes them; writing starts at the object's position."""
    class Stream(io.RawIOBase):
        def __init__(self):
            self.n = 0

        def writable(self):
            return True

        def seekable(self):
            return False

        def write(self, b):
            self.n += len(b)
            return len(b)

    def target():
        if seekable:
            f = io.BytesIO()
            f.write(b"x" * 10)
            return f
        return Stream()
    real_target = target()
    np.savez(real_target, np.zeros((3, 4)), b=np.zeros(2, np.int8))
    real = real_target.tell() - 10 if seekable else real_target.n
    with ft.FakeMode() as mode:
        np.savez(target(), np.zeros((3, 4)), b=np.zeros(2, np.int8))
    (event,) = mode.io
    assert event["bytes"] == real and event["exact"]
    assert event["path"] == ("<BytesIO>" if seekable else "<Stream>")


def test_savez_compressed_counts_the_container(tmp_path):
    with ft.FakeMode() as mode:
        np.savez_compressed(str(tmp_path / "c"), np.zeros((100, 100)))
        np.savez(str(tmp_path / "s"), np.zeros((100, 100)))
    compressed, stored = mode.io
    assert compressed["bytes"] == stored["bytes"] and not compressed["exact"]
    assert "deflate" in compressed["note"] and compressed["path"].endswith("c.npz")
    assert os.listdir(tmp_path) == []


def test_errors_as_numpy(tmp_path):
    p = str(tmp_path / "x")
    obj = lambda: np.zeros((2, 2), object)  # noqa: E731
    flt = lambda: np.zeros((2, 2))  # noqa: E731
    for make, call in ((obj, lambda o: np.save(p, o, allow_pickle=False)),
                       (obj, lambda o: np.savez(p, o, allow_pickle=False)),
                       (flt, lambda o: np.savez(p, o, arr_0=o)),
                       (flt, lambda o: np.savetxt(p, o[0, 0])),
                       (flt, lambda o: np.savetxt(p, o[None])),
                       (obj, lambda o: o.tofile(p))):
        with pytest.raises(Exception) as real:
            call(make())
        for f in os.listdir(tmp_path):
            os.remove(tmp_path / f)
        with ft.FakeMode() as mode:
            with pytest.raises(type(real.value), match=str(real.value)[:20]):
                call(make())
        assert not mode.io and os.listdir(tmp_path) == []
    with ft.FakeMode():
        with pytest.raises(TypeError):
            np.save(p)


def test_value_dependent_sizes(tmp_path):
    """Text and pickles: the size depends on the values (None, or the exact part)."""
    with ft.FakeMode() as mode:
        a = np.zeros((3, 4))
        np.savetxt(str(tmp_path / "t.txt"), a)
        a.tofile(str(tmp_path / "t.csv"), sep=",")
        a.tofile(str(tmp_path / "b.bin"))
        a.dump(str(tmp_path / "d.pkl"))
        np.save(str(tmp_path / "o"), np.zeros(3, object))
    txt, csv, binary, dump, obj = mode.io
    assert txt["bytes"] is csv["bytes"] is dump["bytes"] is None
    assert not (txt["exact"] or csv["exact"] or dump["exact"] or obj["exact"])
    assert binary["bytes"] == 96 and binary["exact"] and binary["path"].endswith("b.bin")
    assert obj["bytes"] == 128  # the header alone: the pickle's size depends on values
    assert os.listdir(tmp_path) == []


def test_outside_a_mode_a_fake_is_not_written(tmp_path):
    f = ft.empty((3, 4))
    for call in (lambda: np.save(str(tmp_path / "a"), f),
                 lambda: np.savez(str(tmp_path / "b"), f),
                 lambda: np.savez_compressed(str(tmp_path / "c"), x=f),
                 lambda: np.savetxt(str(tmp_path / "d"), f),
                 lambda: f.tofile(str(tmp_path / "e")), lambda: f.dump(str(tmp_path / "g")),
                 f.dumps):
        with pytest.raises(ft.DataDependentError, match="values"):
            call()
    assert os.listdir(tmp_path) == []
    with ft.FakeMode():
        with pytest.raises(ft.DataDependentError, match="pickled values"):
            np.zeros(3).dumps()


def test_real_arrays_are_written_inside_a_mode(tmp_path):
    """The data of a real array exists: saving it inside a mode writes the file, and the
    write is recorded."""
    real = np.arange(12.0).reshape(3, 4)
    with ft.FakeMode() as mode:
        np.save(str(tmp_path / "r"), real)
        np.savez(str(tmp_path / "z"), a=real, b=real.T)
    assert np.array_equal(np.load(tmp_path / "r.npy"), real)
    with np.load(tmp_path / "z.npz") as z:
        assert np.array_equal(z["b"], real.T)
    save, savez = mode.io
    assert save["written"] and save["bytes"] == os.path.getsize(tmp_path / "r.npy")
    assert savez["written"] and savez["bytes"] == os.path.getsize(tmp_path / "z.npz")


def test_plan_reports_io(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("import numpy as np\n"
                      "a = np.zeros((1000, 1000))\n"
                      "np.save('out.npy', a)\n"
                      "np.savetxt('out.txt', a[:3])\n")
    plan = ft.plan_script(str(script))
    data = plan.to_json()
    json.dumps(data)
    save, txt = data["io"]
    assert (save["line"], save["op"], save["path"], save["bytes"]) == (
        3, "np.save", "out.npy", 8_000_128)
    assert save["file"] == str(script) and txt["bytes"] is None and txt["line"] == 4
    text = plan.report()
    assert "files written (2" in text and "np.save out.npy" in text
    page = tmp_path / "plan.html"
    plan.save_html(str(page))
    html = page.read_text()
    assert 'id="io"' in html and "out.npy" in html and "depends on values" in html
    assert not os.path.exists(tmp_path / "out.npy") and not os.path.exists("out.npy")


@pytest.mark.parametrize("limits", [(300, 65535), (2000, 65535), (10**9, 3)])
def test_savez_zip64_records(limits, tmp_path, monkeypatch):
    """The zip64 parts of the container (sizes and offsets past ZIP64_LIMIT in the central
    directory, the zip64 end record for many members or a large archive), exercised at
    small sizes by lowering zipfile's limits for both the real and the fake run."""
    monkeypatch.setattr("zipfile.ZIP64_LIMIT", limits[0])
    monkeypatch.setattr("zipfile.ZIP_FILECOUNT_LIMIT", limits[1])
    sizes = [(10, 10), (3,), (50,), (), (7, 3)]

    def call(p, *arrays):
        return np.savez(p, *arrays)
    size, _ = _real_size(lambda p: call(p, *[np.zeros(s) for s in sizes]), tmp_path, "r")
    event = _fake_event(call, tmp_path, "f", lambda: [np.zeros(s) for s in sizes])
    assert event["bytes"] == size and event["exact"]
