"""Sphinx configuration of the faketensor documentation (``make docs``).

Sphinx with the PyData theme and MyST-Parser: the stack of NumPy, SciPy, xarray and dask,
whose readers know its layout, and whose autodoc reads faketensor's docstrings."""
from __future__ import annotations

import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "docs"))

import faketensor  # noqa: E402  (the installed package: `pip install -e .[docs]`)

project = "faketensor"
author = "the faketensor authors"
copyright = "the faketensor authors"
release = faketensor.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**/README.md"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_preserve_defaults = True

intersphinx_mapping = {}  # the build reaches no network: links to NumPy's docs are plain

html_theme = "pydata_sphinx_theme"
html_title = f"faketensor {release}"
html_static_path = ["_static"]
html_extra_path = ["schema"]  # the JSON Schema, published beside the pages
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "getting-started": []}
