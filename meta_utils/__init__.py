"""The utilities above the modes: conversion and files (convert/), the planner, its CLI and
reports (planner/), the coverage and memory surveys (surveys/)."""
from .._convert import Converter, ObjectArrayWarning, to_fake  # noqa: F401
from .convert.files import FakeNpzFile, SafetensorsDict  # noqa: F401  (registers np.load)
from .convert.files import ft_load as load  # noqa: F401
