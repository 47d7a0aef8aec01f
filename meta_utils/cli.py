"""``faketensor inspect FILE...``: list the arrays in .npy / .npz / .safetensors files from headers."""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .files import inspect_file


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def inspect(paths: Sequence[str], out=None) -> int:
    """Print name, shape, dtype, order and bytes per array and a total; 1 if a file is bad."""
    out = out if out is not None else sys.stdout
    rc = 0
    total = 0
    for path in paths:
        try:
            infos = inspect_file(path)
        except (ValueError, OSError) as e:
            print(f"error: {e}", file=sys.stderr)
            rc = 1
            continue
        print(f"{path}:", file=out)
        for i in infos:
            order = "F" if i.fortran_order else "C"
            print(f"  {i.name:<30} {str(i.shape):<20} {str(i.dtype):<12} {order}  "
                  f"{i.nbytes:>15,d} B", file=out)
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
