"""CuPy rules for selection and index functions on CUDA fakes."""
