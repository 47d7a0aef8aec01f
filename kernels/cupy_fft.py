"""CuPy rules for cupy.fft on CUDA fakes."""
