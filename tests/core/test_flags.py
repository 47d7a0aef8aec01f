"""``FakeArray.flags`` against ``ndarray.flags``: every attribute, key, ``num``, repr,
equality, the setters' rules and errors (numpy/_core/src/multiarray/flagsobject.c)."""
import warnings

import numpy as np
import pytest

import faketensor as ft

ATTRS = ("c_contiguous", "f_contiguous", "contiguous", "fortran", "owndata", "writeable",
         "aligned", "writebackifcopy", "behaved", "carray", "farray", "forc", "fnc", "num",
         "_writeable_no_warn")
KEYS = ("C", "F", "W", "B", "O", "A", "X", "CA", "FA", "FNC", "FORC", "CARRAY", "FARRAY",
        "FORTRAN", "BEHAVED", "OWNDATA", "ALIGNED", "WRITEABLE", "CONTIGUOUS",
        "C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEBACKIFCOPY", b"C", b"WRITEABLE",
        # unknown: lower case, misspelt, too long, not a string
        "c", "w", "contiguous", "K", "U", "UPDATEIFCOPY", "NUM", "", "WRITEABLEXXXXXXXXXXX",
        1, None, ("C",))


def _rec_field(xp):
    return xp.zeros(5, dtype=[("a", "i1"), ("b", "f8")])["b"]  # misaligned field view


def _readonly_view(xp):
    a = xp.zeros((4, 6))
    a.flags.writeable = False
    return a[::2, 1:]


# each builds an array of an awkward layout from the namespace it is given
LAYOUTS = {
    "C": lambda xp: xp.zeros((3, 4)),
    "F": lambda xp: xp.zeros((3, 4), order="F"),
    "T": lambda xp: xp.zeros((3, 4)).T,
    "step": lambda xp: xp.zeros((3, 8))[:, ::2],
    "rev": lambda xp: xp.zeros((3, 4))[::-1],
    "row": lambda xp: xp.zeros((3, 4))[1],
    "col": lambda xp: xp.zeros((3, 4))[:, 1],
    "0d": lambda xp: xp.zeros(()),
    "0d-view": lambda xp: xp.zeros((3,))[1, ...],
    "empty": lambda xp: xp.zeros((0, 3)),
    "empty-step": lambda xp: xp.zeros((4, 0))[::2],
    "ones-axes": lambda xp: xp.zeros((1, 5, 1)),
    "bcast": lambda xp: xp.broadcast_to(xp.zeros(3), (2, 3)),
    "bcast-arrays": lambda xp: xp.broadcast_arrays(xp.zeros(3), xp.zeros((2, 3)))[0],
    "readonly-view": _readonly_view,
    "field": _rec_field,
    "field-2d": lambda xp: xp.zeros((3, 2), dtype=[("a", "i1"), ("b", "i4")])["b"].T,
    "reshape": lambda xp: xp.zeros((3, 4)).T.reshape(12),
    "scalar": lambda xp: xp.zeros(3).sum(),
    "u1-step": lambda xp: xp.zeros((4, 4), np.uint8)[::2, ::3],
    "c16-real": lambda xp: xp.zeros((3, 2), np.complex128).real,
}


def _pair(name):
    make = LAYOUTS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = make(np)
        with ft.FakeMode():
            fake = make(np)
    assert ft.is_fake(fake)
    return real, fake


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("ok", fn())
        except Exception as e:  # compared by type and message
            return (type(e), str(e))


@pytest.mark.parametrize("name", LAYOUTS)
def test_every_attribute_and_key(name):
    real, fake = _pair(name)
    rf, ff = real.flags, fake.flags
    for attr in ATTRS:
        assert _outcome(lambda: getattr(ff, attr)) == _outcome(lambda: getattr(rf, attr)), \
            (name, attr)
    for key in KEYS:
        assert _outcome(lambda: ff[key]) == _outcome(lambda: rf[key]), (name, key)
    assert repr(ff) == repr(rf) and str(ff) == str(rf)
    assert ff == rf and rf == ff and not (ff != rf) and ff == fake.flags
    assert (ff == 3) is False and (ff != 3) is True


@pytest.mark.parametrize("name", LAYOUTS)
def test_setters(name):
    """Every settable flag through attribute and key, in both directions, then the flags
    the array has afterwards."""
    for attr, key in (("writeable", "W"), ("writeable", "WRITEABLE"), ("aligned", "A"),
                      ("writebackifcopy", "X"), ("writebackifcopy", b"WRITEBACKIFCOPY")):
        for value in (False, True, 0, 1):
            if attr == "aligned" and not value:
                continue  # clearing ALIGNED: test_clearing_aligned_is_refused
            for by_key in (False, True):
                real, fake = _pair(name)
                if by_key:
                    r = _outcome(lambda: real.flags.__setitem__(key, value))
                    f = _outcome(lambda: fake.flags.__setitem__(key, value))
                else:
                    r = _outcome(lambda: setattr(real.flags, attr, value))
                    f = _outcome(lambda: setattr(fake.flags, attr, value))
                assert f[0] == r[0], (name, attr, key, value, r, f)
                assert real.flags.num == fake.flags.num, (name, attr, value)


@pytest.mark.parametrize("name", ["C", "T", "bcast", "scalar"])
def test_attribute_errors(name):
    real, fake = _pair(name)
    for attr in ("writeable", "aligned", "writebackifcopy"):
        r = _outcome(lambda: delattr(real.flags, attr))
        assert _outcome(lambda: delattr(fake.flags, attr)) == r
    for attr in ("num", "c_contiguous", "fortran", "owndata", "behaved"):
        with pytest.raises(AttributeError):
            setattr(real.flags, attr, True)
        with pytest.raises(AttributeError):
            setattr(fake.flags, attr, True)
    for call in (lambda f: f.nosuch, lambda f: f < f, lambda f: hash(f),
                 lambda f: f.__setitem__("C", True), lambda f: f.__setitem__("w", True),
                 lambda f: f.__setitem__(1, True), lambda f: f["\xe9"]):
        assert _outcome(lambda: call(fake.flags))[0] == _outcome(lambda: call(real.flags))[0]


def test_snapshot():
    """A flags object keeps the bits it was read with; the array changes."""
    for xp in (np, None):
        if xp is None:
            with ft.FakeMode():
                a = np.zeros(3)
        else:
            a = xp.zeros(3)
        f = a.flags
        f.writeable = False
        assert f.writeable and not a.flags.writeable
        assert a.flags.num == 263 and f.num == 1287  # C|F|OWNDATA|ALIGNED (|WRITEABLE)


def test_readonly_base_rules():
    """NumPy's rules for setting WRITEABLE: not on a view of a read-only array, yes on a
    view of a writeable one made read-only, not on a NumPy scalar."""
    for xp_mode in (False, True):
        ctx = ft.FakeMode() if xp_mode else warnings.catch_warnings()
        with ctx:
            a = np.zeros((4, 4))
            v = a[1:]
            v.flags.writeable = False
            v.flags.writeable = True
            a.flags.writeable = False
            w = a[::2]
            with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True"):
                w.flags.writeable = True
            with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True"):
                w.flags["W"] = 1
            s = np.zeros(3).sum()
            with pytest.raises(ValueError, match="Cannot set flags on array scalars"):
                s.flags.writeable = False
            with pytest.raises(ValueError, match="WRITEBACKIFCOPY"):
                a.flags.writebackifcopy = True


def test_warn_on_write_read():
    """Reading writeable, behaved or carray of a broadcast_arrays result warns, as NumPy's
    flagsobj does; faketensor's own reads do not."""
    real, fake = _pair("bcast-arrays")
    for attr in ("writeable", "behaved", "carray", "W", "B", "CA"):
        for flags in (real.flags, fake.flags):
            with pytest.warns(FutureWarning, match="broadcast_array"):
                flags[attr] if attr.isupper() else getattr(flags, attr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fake.flags._writeable_no_warn and fake.flags.num == real.flags.num < 0
        with ft.FakeMode():
            fake + 1
    for flags in (real.flags, fake.flags):
        with pytest.raises(ValueError, match="cannot clear '_warn_on_write'"):
            flags._warn_on_write = False
    real, fake = _pair("C")
    real.flags._warn_on_write = True
    fake.flags._warn_on_write = True
    assert real.flags.num == fake.flags.num and repr(real.flags) == repr(fake.flags)


def test_clearing_aligned_is_refused():
    """``setflags(align=False)`` marks an aligned array unaligned in NumPy; fakes do not
    carry that mark and refuse instead of reporting a wrong flag."""
    with ft.FakeMode():
        a = np.zeros(3)
        with pytest.raises(ft.UnsupportedOperationError, match="ALIGNED"):
            a.flags.aligned = False
        with pytest.raises(ft.UnsupportedOperationError, match="ALIGNED"):
            a.flags["A"] = False


def test_layout_setters_refresh_flags():
    """Assigning ``dtype`` or ``shape`` in place changes contiguity and alignment; a
    flags object read before keeps the old bits, one read after has the new ones."""
    def run(xp_is_fake):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            if xp_is_fake:
                with ft.FakeMode():
                    a = np.zeros(17, np.uint8)[1:9]
            else:
                a = np.zeros(17, np.uint8)[1:9]
            before = a.flags
            a.dtype = np.int64
            middle = a.flags
            a.shape = (1, 1)
            return before.num, middle.num, a.flags.num, repr(a.flags)
    assert run(True) == run(False)


def _buffer_cases(xp_fake):
    """(array, how it was made) over bytes / bytearray owners, roots and views."""
    def make(src):
        if xp_fake == "convert":
            conv = ft.Converter()
            r = np.frombuffer(src, np.uint8)
            return conv.to_fake(r), conv.to_fake(r[1:])
        if xp_fake == "mode":
            with ft.FakeMode():
                r = np.frombuffer(src, np.uint8)
                return r, r[1:]
        r = np.frombuffer(src, np.uint8)
        return r, r[1:]
    return make


@pytest.mark.parametrize("how", ["convert", "mode"])
@pytest.mark.parametrize("owner", ["bytes", "bytearray"])
@pytest.mark.parametrize("steps", [
    (("root", True),), (("view", True),), (("root", False), ("view", True)),
    (("root", False), ("root", True), ("view", True)), (("view", False), ("view", True)),
])
def test_writeable_rules_of_buffer_owners(how, owner, steps):
    """_IsWriteable on arrays over a non-array owner: a read-only buffer (bytes) refuses,
    a writable one (bytearray) allows, also through a read-only root."""
    outcomes = []
    for kind in (None, how):
        src = b"x" * 8 if owner == "bytes" else bytearray(8)
        root, view = _buffer_cases(kind)(src)
        got = []
        for which, value in steps:
            a = root if which == "root" else view
            got.append(_outcome(lambda: setattr(a.flags, "writeable", value))[0])
            got.append((root.flags.num, view.flags.num))
        outcomes.append(got)
    assert outcomes[0] == outcomes[1]


def test_writeable_through_a_read_only_root():
    """A writeable view whose root was made read-only cannot be set writeable again
    (setflags asks _IsWriteable even when the flag is already set)."""
    for mode in (False, True):
        ctx = ft.FakeMode() if mode else warnings.catch_warnings()
        with ctx:
            a = np.zeros(4)
            v = a[1:]
            a.flags.writeable = False
            with pytest.raises(ValueError, match="cannot set WRITEABLE"):
                v.flags.writeable = True
            assert v.flags.writeable


@pytest.mark.parametrize("name", ["C", "F", "T", "step", "field", "readonly-view"])
def test_scipy_linalg_reads_flags(name):
    """scipy.linalg picks its LAPACK flavour and copy paths from ``flags``
    (``find_best_blas_type``'s prefer_fortran, ``flags['ALIGNED']``, ...): the same answers
    for a fake as for the real array."""
    sl = pytest.importorskip("scipy.linalg")
    real, fake = _pair(name)
    assert sl.blas.find_best_blas_type((real,)) == sl.blas.find_best_blas_type((fake,))
    for key in ("ALIGNED", "F_CONTIGUOUS", "C_CONTIGUOUS", "WRITEABLE", "FORTRAN"):
        assert real.flags[key] == fake.flags[key]
