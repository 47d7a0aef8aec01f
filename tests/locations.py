"""Where the tests' own files are (tests/ and the checkout above it), for test files in any
folder under tests/."""
import pathlib

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parent
REPO = ROOT
