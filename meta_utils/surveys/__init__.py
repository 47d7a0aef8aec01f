"""The surveys: every public callable of NumPy's namespaces against real NumPy (``faketensor
coverage``: exactness, memory, numpy.ma), with the oracle and the awkward samples they use."""
