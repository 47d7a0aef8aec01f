"""The optional compiled accelerator (faketensor/_speedups.c, docs/internals/accelerator.md).

Everything else is declared in pyproject.toml. The extension is optional: without a C compiler
(or Python's headers) its build fails, setuptools says so and installs the package without it,
and faketensor runs its pure-Python patches. ``FAKETENSOR_BUILD_EXT=0`` skips the build."""
import glob
import os

from setuptools import Extension, setup

ext = [] if os.environ.get("FAKETENSOR_BUILD_EXT", "1") == "0" else [
    Extension("faketensor._speedups", ["faketensor/_speedups.c"], optional=True,
              depends=glob.glob("faketensor/_speedups_*.c"))]  # the files it includes

setup(ext_modules=ext)
