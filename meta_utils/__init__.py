"""Conversion both ways between real and fake arrays, and file headers."""
from .convert import Converter, ObjectArrayWarning, to_fake  # noqa: F401
from .files import FakeNpzFile, SafetensorsDict, load  # noqa: F401  (registers np.load)
