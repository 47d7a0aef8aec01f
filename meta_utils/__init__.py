"""Conversion both ways between real and fake arrays, and file headers."""
from .convert import Converter, to_fake  # noqa: F401
