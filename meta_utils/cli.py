"""``faketensor inspect FILE...``: list the arrays in .npy / .npz / .safetensors files from headers."""
from __future__ import annotations

import argparse
import codecs
import sys
from typing import Sequence, TextIO

from .files import inspect_file


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


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
    print(f"total: {total:,d} B ({_human(total)})", file=out)
    return rc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="faketensor", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("inspect", help="list the arrays in array files from their headers")
    p.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    if args.cmd == "inspect":
        return inspect(args.files)
    return 2


if __name__ == "__main__":
    sys.exit(main())
