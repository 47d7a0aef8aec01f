"""CuPy rules for cupy.linalg on CUDA fakes."""
