"""The code examples of the documentation (docs/**/*.md), as tests/test_docs.py runs them.

A fenced block is an example when its language is ``python`` or ``console``. Every example
runs, unless the line right before its fence is a MyST comment ``% notest: REASON`` (the
reason is required). Python blocks of one page run in order in one namespace, in a fresh
interpreter started in the repository's root. Console blocks run each ``$ faketensor ...``
or ``$ python ...`` command through the CLI and check the output loosely: the plan's status
line, every ``(N B)`` byte figure shown, and the exit status after ``$ echo $?``."""
from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

FENCE = re.compile(r"^(`{3,})\s*(\{code-block\}\s*)?([\w-]*)\s*$")
NOTEST = re.compile(r"^%\s*notest:\s*(\S.*)$")


class Block(NamedTuple):
    """One fenced block of a page: its language, first line of code, code, skip reason."""
    page: str
    lang: str
    line: int
    code: str
    notest: str | None


def pages() -> list[Path]:
    """Every Markdown page of the docs (built ones and sources alike), sorted."""
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a page, in order."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(3)
        mark = NOTEST.match(lines[i - 1]) if i else None
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        out.append(Block(str(path.relative_to(ROOT)), lang, i + 2, "\n".join(lines[i + 1:j]),
                         mark.group(1) if mark else None))
        i = j + 1
    return out


def examples(lang: str) -> dict[str, list[Block]]:
    """Per page, its blocks of ``lang`` (``python`` or ``console``)."""
    found: dict[str, list[Block]] = {}
    for p in pages():
        bs = [b for b in blocks(p) if b.lang == lang]
        if bs:
            found[str(p.relative_to(ROOT))] = bs
    return found


class Command(NamedTuple):
    """One ``$ command`` of a console block and the output shown under it."""
    argv: str
    shown: str


def commands(block: Block) -> list[Command]:
    out: list[Command] = []
    for line in block.code.split("\n"):
        if line.startswith("$ "):
            out.append(Command(line[2:].strip(), ""))
        elif out:
            out[-1] = Command(out[-1].argv, out[-1].shown + line + "\n")
    return out


RUNNER = r'''
import sys, traceback
ns = {"__name__": "__main__"}
for page, line, code in BLOCKS:
    try:
        exec(compile("\n" * (line - 1) + code, page, "exec"), ns)
    except BaseException:
        traceback.print_exc()
        print(f"FAILED: the example at {page}:{line}", file=sys.stderr)
        sys.exit(1)
print(f"ran {len(BLOCKS)} examples")
'''


def python_program(bs: list[Block]) -> str:
    """A program that runs the page's python blocks in one namespace, naming the one that fails."""
    runnable = [(b.page, b.line, b.code) for b in bs if b.notest is None]
    return f"BLOCKS = {runnable!r}\n" + RUNNER
