"""The package version: one place, read by pyproject.toml, ``ft.__version__`` and the CLI."""
__version__ = "0.1.0"
