"""The structure the package keeps, checked on its source as installed (pyproject's
package-dir: faketensor/{kernels,modes,meta_utils} from four folders):

- the layer contract and "no import cycle inside a package" in pyproject.toml
  ([tool.importlinter]: ``layers`` and ``acyclic_siblings``), checked with import-linter;
- no module imports or reads another module's private (underscore) name, unless that module
  exists to share them (a ``_common`` module), and none writes another module's state
  (assigns its attributes, stores into or mutates its tables, sets a function's
  ``__globals__``): an owner exposes a registration function instead. An ast scan.

Each check is also run on a copy with one such import or write added, and fails there."""
import ast
import pathlib
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _installed_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    """The package laid out as installed, with pyproject.toml, under tmp_path."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for pkg, folder in cfg["tool"]["setuptools"]["package-dir"].items():
        shutil.copytree(ROOT / folder, tmp_path.joinpath(*pkg.split(".")), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def _lint(tree: pathlib.Path) -> subprocess.CompletedProcess:
    pytest.importorskip("importlinter")
    return subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command;"
                           "lint_imports_command()", "pyproject.toml", "--no-cache"],
                          cwd=tree, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})


def _append(path: pathlib.Path, line: str) -> None:
    path.write_text(path.read_text() + "\n" + line + "\n")


def test_imports_point_down_the_layers_and_no_package_has_a_cycle(tmp_path):
    run = _lint(_installed_copy(tmp_path))
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "2 kept, 0 broken" in run.stdout


def test_a_kernel_importing_a_mode_breaks_the_contract(tmp_path):
    """The check can fail: the same run on a tree where a kernel imports the modes."""
    tree = _installed_copy(tmp_path)
    _append(tree / "faketensor" / "kernels" / "numpy" / "views.py", "from ...modes import fake_mode  # noqa")
    run = _lint(tree)
    assert run.returncode != 0 and "faketensor.kernels.numpy.views -> faketensor.modes" in run.stdout


CYCLES = [  # (file, an import closing a cycle, the package it is in)
    ("layout.py", "from . import meta  # noqa", "faketensor"),  # meta imports layout
    ("kernels/cupy/core.py", "from . import views  # noqa", "faketensor.kernels.cupy"),
    ("modes/base.py", "from . import fake_mode  # noqa", "faketensor.modes"),
    ("meta_utils/planner/report.py", "def _f():\n    from . import plan  # noqa", "faketensor.meta_utils"),
]


def test_an_import_cycle_inside_a_package_breaks_the_contract(tmp_path):
    """One import closing a cycle, a function-level one too, is found in each package (one
    run on a copy with all four added)."""
    tree = _installed_copy(tmp_path)
    for importer, line, _ in CYCLES:
        _append(tree / "faketensor" / importer, line)
    run = _lint(tree)
    assert run.returncode != 0
    for _, _, package in CYCLES:
        assert f"No cycles are allowed in {package}." in run.stdout, run.stdout


MUTATORS = {"append", "extend", "add", "update", "setdefault", "pop", "popitem", "clear",
            "remove", "discard", "insert", "__setitem__", "__delitem__"}


def package_files(root: pathlib.Path) -> dict:
    """Module name -> (file, is a package), for the package as installed (pyproject's package-dir)."""
    cfg = tomllib.loads((root / "pyproject.toml").read_text())
    files = {}
    for pkg, folder in cfg["tool"]["setuptools"]["package-dir"].items():
        for p in sorted((root / folder).rglob("*.py")):
            rel = list(p.relative_to(root / folder).with_suffix("").parts)
            ispkg = rel[-1] == "__init__"
            if ispkg:
                rel = rel[:-1]
            name = ".".join([pkg] + rel)
            if name.count(".") - pkg.count(".") != len(rel):
                continue
            files.setdefault(name, (p, ispkg))
    return files


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def _shares(module):
    """A module that exists to share its names (``_common``) may be read freely."""
    return module.rpartition(".")[2] == "_common"


def reaching(root: pathlib.Path = ROOT, only: str | None = None) -> list[str]:
    """Each place a module of the package reads another's private name or writes its state
    (``only``: in that one file, relative to ``root``; each module is scanned on its own, with
    the names of all the others)."""
    files = package_files(root)
    out = []
    for name, (path, ispkg) in files.items():
        if only is not None and path != root / only:
            continue
        tree = ast.parse(path.read_text())
        here = name.split(".") if ispkg else name.split(".")[:-1]
        modules = {}   # local name -> faketensor module
        imported = {}  # local name -> (module, name) of a non-module name from another module
        where = f"{path.relative_to(root)}"

        def resolve(node):
            if node.level:
                base = here[:len(here) - node.level + 1]
                return ".".join(base + ([node.module] if node.module else []))
            return node.module or ""

        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                src = resolve(node)
                if not src.startswith("faketensor"):
                    continue
                for a in node.names:
                    full = f"{src}.{a.name}"
                    if full in files:
                        modules[a.asname or a.name] = full
                    else:
                        imported[a.asname or a.name] = (src, a.name)
                        if _private(a.name) and not _shares(src) and src != name:
                            out.append(f"{where}:{node.lineno}: imports private {src}.{a.name}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("faketensor") and a.asname:
                        modules[a.asname] = a.name

        def owner(expr):
            """The other module whose state ``expr`` is: mod.NAME, or NAME imported from it."""
            if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) \
                    and expr.value.id in modules and modules[expr.value.id] != name:
                return f"{modules[expr.value.id]}.{expr.attr}"
            if isinstance(expr, ast.Name) and expr.id in imported:
                src, n = imported[expr.id]
                return f"{src}.{n}"
            return None

        stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        stored |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
                   for a in n.posonlyargs + n.args + n.kwonlyargs}
        for k in stored & set(imported):  # shadowed by a local name somewhere: not followed
            del imported[k]
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in modules:
                mod = modules[node.value.id]
                if f"{mod}.{node.attr}" in files or mod == name:
                    continue
                if isinstance(node.ctx, (ast.Store, ast.Del)):
                    out.append(f"{where}:{node.lineno}: writes {mod}.{node.attr}")
                elif _private(node.attr) and not _shares(mod):
                    out.append(f"{where}:{node.lineno}: reads private {mod}.{node.attr}")
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
                o = owner(node.value)
                if isinstance(node.value, ast.Attribute) and node.value.attr == "__globals__":
                    out.append(f"{where}:{node.lineno}: writes a function's module globals")
                elif o:
                    out.append(f"{where}:{node.lineno}: writes into {o}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in MUTATORS:
                    o = owner(node.func.value)
                    if o:
                        out.append(f"{where}:{node.lineno}: {node.func.attr}s {o}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("setattr", "delattr") and node.args \
                    and isinstance(node.args[0], ast.Name) and node.args[0].id in modules:
                out.append(f"{where}:{node.lineno}: {node.func.id} on {modules[node.args[0].id]}")
    return out



def test_no_module_reaches_into_another():
    found = reaching()
    assert not found, "\n".join(found)


@pytest.mark.parametrize("importer, line, expect", [
    ("kernels/numpy/histograms.py", "from .reductions import _meta  # noqa",
     "imports private faketensor.kernels.numpy.reductions._meta"),
    ("modes/masked.py", "patching._ORIGINALS.clear()",
     "clears faketensor.modes.patching._ORIGINALS"),
    ("faketensor/_chararray.py", "VIEW_AS = None\nfrom ._array import VIEW_AS\nVIEW_AS[str] = str",
     None),  # a name rebound in the module is its own: not followed
    ("faketensor/_chararray.py", "from ._array import PYTHON_ENTRIES\nPYTHON_ENTRIES[str] = str",
     "writes into faketensor._array.PYTHON_ENTRIES"),
    ("kernels/cupy/views.py", "_cr.CURRENT_DEVICE = None", "writes faketensor.kernels.cupy.core.CURRENT_DEVICE"),
    ("kernels/cupy/views.py", "cupy_module.__globals__['_cp'] = None", "writes a function's module globals"),
])
def test_the_scan_finds_a_module_reaching_into_another(tmp_path, importer, line, expect):
    """The scan can fail: a copy of the source with one such import or write added. Only the
    changed module is scanned (the scan reads each module on its own; the whole unchanged
    package is test_no_module_reaches_into_another's, and a full scan of the copy cost ~17 s
    a case)."""
    for folder in ("faketensor", "kernels", "modes", "meta_utils"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    _append(tmp_path / importer, line)
    found = reaching(tmp_path, only=importer)
    if expect is None:
        assert not found, found
    else:
        assert any(f.startswith(importer + ":") and expect in f for f in found), found
