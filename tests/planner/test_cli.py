"""``faketensor inspect``: the listing, and names from files that never reach the terminal raw."""
from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from faketensor.meta_utils.planner import cli
from locations import ROOT  # tests/ and the checkout

HOSTILE_NAMES = [
    "\x1b[31mred\x1b[0m",            # ANSI colour
    "\x1b]0;pwned\x07title",          # OSC: sets the terminal title
    "\x9b2J",                         # C1 CSI: clears the screen on some terminals
    "line\nbreak\r\ttab\x00nul\x7f",  # newlines, tab, NUL, DEL
    "\u202eevil\u200b",               # bidi override, zero-width space
    "back\\slash\\x1b",               # a literal backslash escape is not an escape
    "caf\u00e9 \u65e5\u672c \U0001f600",  # printable non-ASCII stays readable
    "x" * 10_000,                     # very long
    "",                               # empty
]
# lone surrogates: in file paths (bytes that are not UTF-8); a .safetensors header that
# escapes one is refused, as the safetensors library refuses it
SURROGATE_NAMES = ["\ud800", "a\udcffb", "\udfff\ud800"]


def _safetensors(path, names) -> None:
    header = {n: {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]}
              for i, n in enumerate(names)}
    h = json.dumps(header).encode()  # ensure_ascii: surrogates as \ud800 escapes
    path.write_bytes(struct.pack("<Q", len(h)) + h + b"\0" * (4 * len(names)))


def _npz(path, names) -> None:
    one = io.BytesIO()
    np.save(one, np.zeros(2, "f4"))
    with zipfile.ZipFile(path, "w") as zf:
        for n in names:
            zf.writestr(n + ".npy", one.getvalue())


def _is_clean(text: str) -> bool:
    text.encode("utf-8")  # no surrogates
    return all(c.isprintable() or c == "\n" for c in text)


def test_listing(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.ones((3, 4), "f4"))
    np.savez(tmp_path / "b.npz", x=np.zeros(10), y=np.asfortranarray(np.ones((2, 3))))
    _safetensors(tmp_path / "c.safetensors", ["w", "v"])
    rc = cli.main(["inspect", str(tmp_path / "a.npy"), str(tmp_path / "b.npz"),
                   str(tmp_path / "c.safetensors")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "(3, 4)" in out and "float32" in out and "  y " in out and " F " in out
    assert f"total: {48 + 80 + 48 + 8:,d} B" in out
    (tmp_path / "bad.npy").write_bytes(b"junk")
    assert cli.main(["inspect", str(tmp_path / "bad.npy")]) == 1
    assert "bad.npy" in capsys.readouterr().err


@pytest.mark.parametrize("name", HOSTILE_NAMES + SURROGATE_NAMES, ids=range(12))
def test_escape_is_clean_and_reversible(name):
    for enc in ("utf-8", "ascii", "latin-1", "cp1252"):
        e = cli.escape(name, enc)
        assert _is_clean(e) and (e.encode(enc) or True)
    e = cli.escape(name, "ascii")
    assert e.encode("ascii").decode("unicode_escape") == name


@pytest.mark.parametrize("kind", ["npz", "safetensors"])
def test_hostile_names_escaped(tmp_path, capsys, kind):
    names = HOSTILE_NAMES
    p = tmp_path / f"h.{kind}"
    (_npz if kind == "npz" else _safetensors)(p, names)
    assert cli.main(["inspect", str(p)]) == 0
    out = capsys.readouterr().out
    assert _is_clean(out) and "\x1b" not in out
    if kind == "npz":  # zipfile cuts a member name at its first NUL
        names = [n.split("\0")[0] for n in names]
    for n in names:
        assert cli.escape(n) in out
    assert "\\x1b[31mred\\x1b[0m" in out and "back\\\\slash" in out and "caf\u00e9" in out


def test_surrogate_names_in_safetensors_refused_cleanly(tmp_path, capsys):
    p = tmp_path / "\x1b[1ms.safetensors"
    _safetensors(p, ["ok"] + SURROGATE_NAMES)
    assert cli.main(["inspect", str(p)]) == 1
    captured = capsys.readouterr()
    assert _is_clean(captured.err) and "surrogate" in captured.err and "\\x1b[1ms" in captured.err
    assert _is_clean(captured.out)


def test_errors_escaped(tmp_path, capsys):
    p = tmp_path / "\x1b[2Jbad\n.npy"
    p.write_bytes(b"\x93NUMPY\x01\x00\xff\xff{}")
    assert cli.main(["inspect", str(p)]) == 1
    err = capsys.readouterr().err
    assert _is_clean(err) and "\\x1b[2Jbad\\n.npy" in err


@pytest.mark.parametrize("encoding", ["utf-8", "ascii", "latin-1"])
def test_command_never_crashes(tmp_path, encoding):
    """The real command, in a fresh interpreter, with terminals that hold less than UTF-8."""
    st, nz = tmp_path / "h.safetensors", tmp_path / "h.npz"
    _safetensors(st, HOSTILE_NAMES)
    _npz(nz, HOSTILE_NAMES)
    files = [str(st), str(nz)]
    if sys.platform != "win32":  # a file name that is not UTF-8 (surrogateescape)
        raw = os.path.join(os.fsencode(tmp_path), b"\xff\x1b[1m.npy")
        np.save(raw.decode("utf-8", "surrogateescape"), np.zeros(3))
        files.append(raw)
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    res = subprocess.run([sys.executable, "-m", "faketensor.meta_utils.planner.cli", "inspect", *files],
                         capture_output=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    out = res.stdout.decode(encoding)
    assert _is_clean(out) and "\\x1b[31mred" in out
    if sys.platform != "win32":
        assert "\\udcff\\x1b[1m.npy" in out and f"total: {4 * 9 + 8 * 9 + 24:,d} B" in out
    bad = tmp_path / "\udcff.safetensors"  # refused (surrogate names): a clean error, no crash
    _safetensors(bad, SURROGATE_NAMES)
    res = subprocess.run([sys.executable, "-m", "faketensor.meta_utils.planner.cli", "inspect", str(bad)],
                         capture_output=True, env=env, timeout=120)
    assert res.returncode == 1 and b"Traceback" not in res.stderr
    assert _is_clean(res.stderr.decode(encoding))


# --- faketensor ops / coverage ----------------------------------------------------------

def test_ops_lists_each_kernel_with_its_source():
    out = io.StringIO()
    assert cli.list_ops("numpy", True, out) == 0
    rows = json.loads(out.getvalue())
    by_op = {r["op"]: r for r in rows}
    row = by_op["numpy.transpose"]
    path, line = row["source"].rsplit(":", 1)
    root = str(ROOT)
    with open(os.path.join(root, path)) as f:
        text = f.read().splitlines()
    assert "def " in text[int(line) - 1] or "@" in text[int(line) - 1]
    assert "view" in row["tags"] and row["cacheable"]
    assert "data-dependent" in by_op["numpy.nonzero"]["tags"] and not by_op["numpy.nonzero"]["cacheable"]
    assert all(r["backend"] == "numpy" for r in rows)
    assert "numpy.random.Generator.normal" in by_op


def test_coverage_statuses_and_share():
    from faketensor.meta_utils.surveys.coverage import coverage, share
    rows = {r.name: r for r in coverage("numpy")}
    assert rows["numpy.sum"].status == "kernel" and rows["numpy.sum"].source
    assert rows["numpy.nonzero"].status == "data-dependent"
    assert rows["numpy.unique"].status == "kernel"  # NumPy's Python on fakes (python_entry)
    assert rows["numpy.ndarray.reshape"].status == "kernel"
    assert rows["numpy.ufunc.reduce"].status == "kernel"
    assert rows["numpy.base_repr"].status == "not dispatched"
    s = share(list(rows.values()))
    assert s["dispatched"] == len(rows) - s["counts"]["not dispatched"]
    assert 0 < s["share"] <= 1


def test_cli_ops_and_coverage_run_as_commands():
    for args in (["ops", "--backend", "numpy"], ["coverage", "--kernels"]):
        run = subprocess.run([sys.executable, "-m", "faketensor.meta_utils.planner.cli", *args],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
    assert "dispatched callables reach a kernel" in run.stdout


def test_version(capsys):
    """``faketensor --version`` prints the package's one version (faketensor/_version.py)."""
    import faketensor as ft
    from importlib.metadata import version
    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"faketensor {ft.__version__}"
    assert version("faketensor") == ft.__version__


def test_marked_typed():
    """The package ships py.typed, so type checkers read its hints."""
    from importlib.resources import files
    assert files("faketensor").joinpath("py.typed").is_file()
