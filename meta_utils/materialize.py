"""Fake -> real: ``materialize`` (filled buffers with the fakes' layout) and ``replay``."""
def materialize(obj, *, fill="empty", replay=False, trace=None):
    raise NotImplementedError


def replay(trace, obj):
    raise NotImplementedError
