/* The per-op pieces of a recording FakeMode, in C (issue 30; docs/internals/accelerator.md).

   Included by _speedups.c. Three pieces, each the compiled twin of a pure-Python reference that
   stays the fallback and the specification (FAKETENSOR_PURE_PYTHON=1 runs the references):

   - ``IdsBase``: the base class of modes/trace.py ``TraceIds`` with its tables (``_by_id``,
     ``_storage_ids``, ``storage_of``, ``weak``: dicts), ``_count`` and ``_sweep_at``, and the
     methods ``ref`` (a fake's TraceRef, assigned on first sight) and ``args_spec`` (a call's
     positional arguments with fakes replaced by their TraceRefs); ``TraceIds._py_ref`` and
     ``_py_args_spec`` are the references.
   - ``site_here(sites, depth)``: modes/sites.py ``Sites.here``'s common path (the innermost
     user frame), looking up the two dicts; anything new (a code object not seen, an
     instruction not seen) is answered by the Python methods ``_see`` and ``_intern``.
   - ``fold_feed(fold, log, start, end)``: modes/memory.py ``PeakFold.feed`` for a fold without
     a timeline (the one a recording mode runs after each op).

   Anything unexpected (a table that is not a dict, a value of another type) is handed to the
   Python code, never guessed at. Threads sharing a mode: a new serial is given in a section
   that allocates no garbage-collected object (so no Python code, and no other thread, runs
   inside it); every object that needs one is made before it. */

static PyObject *R_ref_type;    /* modes/trace.py TraceRef (a subclass of int) */
static PyObject *R_fake_type;   /* faketensor FakeArray */
static PyObject *R_storage_type;  /* faketensor FakeStorage */
static PyObject *R_plain;       /* the frozenset of types a spec keeps as they are */
static PyObject *R_trace_globals;  /* modes/trace.py's globals: SWEEP_MIN is read there */
static PyObject *R_getframe;    /* sys._getframe */
static PyObject *R_spawned;     /* the ContextVar _paths.SPAWNED_FROM */
static PyObject *R_device_fold; /* modes/memory.py DeviceFold */
static PyObject *R_pool_round;  /* memory.POOL_ROUND, an int > 0 */

static PyObject *S__twins;  /* TraceIds._twins: id(program's Generator) -> (weakref, twin) */
static PyObject *S_storage, *S_py_ref, *S_py_args_spec, *S_spec, *S_see, *S_intern, *S_user,
                *S_at, *S_f_lineno, *S_here, *S_devices, *S_timeline, *S_pool, *S_live, *S_peak,
                *S_pool_live, *S_pool_peak, *S_allocations, *S_allocated, *S_peak_op,
                *S_peak_row, *S_cpu, *S_sweep_min, *S_feed;

/* ---- TraceIds ------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *by_id;        /* id(fake) -> TraceRef */
    PyObject *storage_ids;  /* id(storage) -> storage serial */
    PyObject *storage_of;   /* fake serial -> storage serial */
    PyObject *weak;         /* serial -> weak reference */
    PyObject *count;        /* an iterator of serials (itertools.count) */
    Py_ssize_t sweep_at;    /* rows of _by_id before the next sweep of dead rows */
} IdsObject;

/* Serials(start): the serials a TraceIds gives, an iterator as itertools.count (Python's
   ``next(ids._count)``), whose next value the compiled ids read and advance in place, with no
   int made for a fake's serial (its TraceRef is made from the number). */
typedef struct {
    PyObject_HEAD
    long long next;
} SerialsObject;

static PyObject *
serials_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    long long start = 1;
    if ((kwds != NULL && PyDict_GET_SIZE(kwds)) || !PyArg_ParseTuple(args, "|L:Serials", &start)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "Serials(start=1)");
        }
        return NULL;
    }
    SerialsObject *self = (SerialsObject *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->next = start;
    }
    return (PyObject *)self;
}

static PyObject *
serials_next(SerialsObject *self)
{
    if (self->next == LLONG_MAX) {
        return NULL;  /* StopIteration: TraceIds says the counter ended */
    }
    return PyLong_FromLongLong(self->next++);
}

static PyObject *
serials_reduce(SerialsObject *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("O(L)", (PyObject *)Py_TYPE(self), self->next);
}

static PyObject *
serials_repr(SerialsObject *self)
{
    return PyUnicode_FromFormat("Serials(%lld)", self->next);
}

static PyMethodDef serials_methods[] = {
    {"__reduce__", (PyCFunction)serials_reduce, METH_NOARGS, "Pickled and copied by the next serial."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SerialsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "faketensor._speedups.Serials",
    .tp_doc = PyDoc_STR("Serials(start=1): the serials a TraceIds gives (itertools.count's twin)."),
    .tp_basicsize = sizeof(SerialsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = serials_new,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)serials_next,
    .tp_methods = serials_methods,
    .tp_repr = (reprfunc)serials_repr,
};

/* The next serial of these ids as a C number (the counter advanced), or -1 when the counter is
   not a Serials (then ``PyIter_Next`` gives it) */
static long long
ids_serial_number(IdsObject *self)
{
    if (Py_TYPE(self->count) != &SerialsType) {
        return -1;
    }
    SerialsObject *c = (SerialsObject *)self->count;
    return c->next < LLONG_MAX ? c->next++ : -1;
}

/* The next serial of these ids, a new int; NULL with an error when the counter ended */
static PyObject *
ids_next_serial(IdsObject *self)
{
    long long v = ids_serial_number(self);
    PyObject *s = v >= 0 ? PyLong_FromLongLong(v) : PyIter_Next(self->count);
    if (s == NULL && !PyErr_Occurred()) {
        PyErr_SetString(PyExc_RuntimeError, "TraceIds: the serial counter ended");
    }
    return s;
}

static int
ids_ready(IdsObject *self)
{
    return self->by_id != NULL && PyDict_CheckExact(self->by_id)
        && self->storage_ids != NULL && PyDict_CheckExact(self->storage_ids)
        && self->storage_of != NULL && PyDict_CheckExact(self->storage_of)
        && self->weak != NULL && PyDict_CheckExact(self->weak)
        && self->count != NULL && PyIter_Check(self->count) && R_ref_type != NULL;
}

/* Whether the weak reference ``w`` points at ``obj`` (NULL: at nothing, its object gone),
   by identity, keeping no reference: PyWeakref_GetRef from Python 3.13, which deprecates
   PyWeakref_GetObject (to be removed in 3.15) */
static int
weak_points_at(PyObject *w, PyObject *obj)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *r = NULL;
    if (PyWeakref_GetRef(w, &r) < 0) {
        PyErr_Clear();
        return 0;
    }
    int same = r == obj;
    Py_XDECREF(r);  /* alive before this call: others hold it */
    return same;
#else
    PyObject *r = PyWeakref_GetObject(w);
    if (r == NULL) {
        PyErr_Clear();
        return 0;
    }
    return r == (obj != NULL ? obj : Py_None);
#endif
}

/* The serial (a borrowed TraceRef) of ``obj`` in ``table`` (keyed by id) when its weak
   reference still points at ``obj``; NULL without an error when there is none. */
static PyObject *
ids_lookup(IdsObject *self, PyObject *table, PyObject *key, PyObject *obj)
{
    PyObject *r = PyDict_GetItemWithError(table, key);
    if (r == NULL) {
        return NULL;
    }
    PyObject *w = PyDict_GetItemWithError(self->weak, r);
    if (w == NULL) {
        return NULL;
    }
    if (!PyWeakref_CheckRef(w) || !weak_points_at(w, obj)) {
        return NULL;
    }
    return r;
}

static int
ids_sweep(IdsObject *self)
{
    /* TraceIds._sweep: the dead rows of both tables dropped (their keys listed first) */
    PyObject *tables[2] = {self->by_id, self->storage_ids};
    PyObject *dead = PyList_New(0);
    if (dead == NULL) {
        return -1;
    }
    for (int t = 0; t < 2; t++) {
        PyObject *table = tables[t];
        Py_ssize_t pos = 0;
        PyObject *k, *s;
        if (PyList_SetSlice(dead, 0, PyList_GET_SIZE(dead), NULL) < 0) {
            goto fail;
        }
        while (PyDict_Next(table, &pos, &k, &s)) {
            PyObject *w = PyDict_GetItemWithError(self->weak, s);
            if (w == NULL) {
                if (PyErr_Occurred()) {
                    goto fail;
                }
                PyErr_SetObject(PyExc_KeyError, s);
                goto fail;
            }
            if (!PyWeakref_CheckRef(w)) {
                PyErr_SetString(PyExc_TypeError, "TraceIds.weak holds a value that is not a weak reference");
                goto fail;
            }
            if (weak_points_at(w, NULL) && PyList_Append(dead, k) < 0) {
                goto fail;
            }
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(dead); i++) {
            if (PyDict_DelItem(table, PyList_GET_ITEM(dead, i)) < 0) {
                goto fail;
            }
        }
    }
    Py_DECREF(dead);
    Py_ssize_t min = 4096;
    PyObject *m = R_trace_globals ? PyDict_GetItemWithError(R_trace_globals, S_sweep_min) : NULL;
    if (m != NULL && PyLong_Check(m)) {
        min = PyLong_AsSsize_t(m);
        if (min == -1 && PyErr_Occurred()) {
            return -1;
        }
    }
    else if (PyErr_Occurred()) {
        return -1;
    }
    Py_ssize_t n = 2 * PyDict_GET_SIZE(self->by_id);
    self->sweep_at = n > min ? n : min;
    return 0;
fail:
    Py_DECREF(dead);
    return -1;
}

/* The offsets of the serial caches on a fake (FakeSlots' _trace_ids, _trace_ref) and on a
   storage (FakeStorage's _trace_ids, _trace_serial); -1 until configured */
static Py_ssize_t FT_ids = -1, FT_ref = -1, SS_ids = -1, SS_serial = -1;

/* An exact FakeArray (for the fake's offsets) or FakeStorage (the storage's), whose slots'
   offsets are known */
static int
ids_slotted(PyObject *obj, Py_ssize_t off)
{
    PyTypeObject *t = Py_TYPE(obj);
    return off >= 0 && ((off == FT_ids && t == FC.fake_type)
                        || (off == SS_ids && t == FC.storage_type));
}

/* Whether these ids may keep obj's serial on obj itself (TraceIds._new_ref): its cache slot
   is unset, None or these ids */
static int
ids_owns_slot(IdsObject *self, PyObject *obj, Py_ssize_t off)
{
    if (!ids_slotted(obj, off)) {
        return 0;
    }
    PyObject *t = FC_SLOT(obj, off);
    return t == NULL || t == Py_None || t == (PyObject *)self;
}

/* Whether no ids has seen obj, a slotted fake or storage: its cache slot unset or None (so it
   is in no id table either: a row goes there only when another ids holds the slot) */
static int
ids_unseen(PyObject *obj, Py_ssize_t off)
{
    if (!ids_slotted(obj, off)) {
        return 0;
    }
    PyObject *t = FC_SLOT(obj, off);
    return t == NULL || t == Py_None;
}

/* The serial obj keeps on itself for these ids (borrowed); NULL when there is none. A slot is
   set only on the object these ids numbered, and never copied (a fake or storage pickles and
   copies without it), so it needs no weak reference to check. */
static PyObject *
ids_slot_hit(IdsObject *self, PyObject *obj, Py_ssize_t ids_off, Py_ssize_t serial_off)
{
    if (!ids_slotted(obj, ids_off) || FC_SLOT(obj, ids_off) != (PyObject *)self) {
        return NULL;
    }
    return FC_SLOT(obj, serial_off);
}

/* A fake's TraceRef here (borrowed), from its slot or the id table; NULL without an error
   when it has none. */
static PyObject *
ids_known(IdsObject *self, PyObject *fake)
{
    if (ids_unseen(fake, FT_ids)) {
        return NULL;
    }
    PyObject *r = ids_slot_hit(self, fake, FT_ids, FT_ref);
    if (r != NULL || PyErr_Occurred()) {
        return r;
    }
    PyObject *key = PyLong_FromVoidPtr(fake);
    if (key == NULL) {
        return NULL;
    }
    r = ids_lookup(self, self->by_id, key, fake);
    Py_DECREF(key);
    return r;
}

/* Whether ref_small may write a TraceRef's digit in place: set by record_configure once a
   TraceRef so made compared equal (value and hash) to the int it stands for */
static int ref_small_ok = 0;

/* A TraceRef of 0 < v < PyLong_BASE without the type call (its one digit written in place, in
   CPython's layout of this version: ob_size before 3.12, lv_tag since) */
static PyObject *
ref_small(long v)
{
    PyTypeObject *t = (PyTypeObject *)R_ref_type;
    PyObject *o = t->tp_alloc(t, 1);
    if (o == NULL) {
        return NULL;
    }
#ifdef _PyLong_NON_SIZE_BITS
    ((PyLongObject *)o)->long_value.lv_tag = (uintptr_t)1 << _PyLong_NON_SIZE_BITS;
    ((PyLongObject *)o)->long_value.ob_digit[0] = (digit)v;
#else
    Py_SET_SIZE(o, 1);
    ((PyLongObject *)o)->ob_digit[0] = (digit)v;
#endif
    return o;
}

/* TraceRef(serial), a new reference */
static PyObject *
ref_make(PyObject *serial)
{
    if (ref_small_ok && PyLong_CheckExact(serial)) {
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(serial, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (!overflow && v > 0 && v < (long)PyLong_BASE) {
            return ref_small(v);
        }
    }
    return PyObject_CallOneArg(R_ref_type, serial);
}

/* Whether ref_small makes TraceRefs equal to the type call's on this build (checked once) */
static int
ref_small_check(void)
{
    PyTypeObject *t = (PyTypeObject *)R_ref_type;
    if (t->tp_basicsize != PyLong_Type.tp_basicsize || t->tp_itemsize != PyLong_Type.tp_itemsize
            || t->tp_alloc == NULL) {
        return 0;
    }
    long vals[3] = {1, 12345, (long)PyLong_BASE - 1};
    for (int i = 0; i < 3; i++) {
        PyObject *a = ref_small(vals[i]);
        PyObject *b = PyLong_FromLong(vals[i]);
        int ok = a != NULL && b != NULL && Py_TYPE(a) == t && PyObject_RichCompareBool(a, b, Py_EQ) == 1
            && PyObject_Hash(a) == PyObject_Hash(b) && PyLong_AsLong(a) == vals[i]
            && PyObject_RichCompareBool(a, b, Py_LT) == 0;
        Py_XDECREF(a);
        Py_XDECREF(b);
        if (!ok) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* TraceIds._new_ref: a new reference to the fake's TraceRef, its serial assigned now. */
static PyObject *
ids_new_ref(IdsObject *self, PyObject *fake)
{
    PyObject *r = NULL, *wr = NULL, *st = NULL, *key = NULL, *skey = NULL, *swr = NULL,
             *serial = NULL, *s = NULL;
    /* everything that may run the garbage collector first: the fake's weak reference, and its
       storage's when the storage's row would go to the id table (another ids keeps the slot) */
    wr = PyWeakref_NewRef(fake, NULL);
    if (wr == NULL) {
        goto done;
    }
    st = FC.array_ready && Py_TYPE(fake) == FC.fake_type ? Py_XNewRef(FC_SLOT(fake, FC.a_storage)) : NULL;
    if (st == NULL && (st = PyObject_GetAttr(fake, S_storage)) == NULL) {
        goto done;
    }
    if (!ids_owns_slot(self, st, SS_ids)) {
        if ((swr = PyWeakref_NewRef(st, NULL)) == NULL) {
            goto done;
        }
        if (PyWeakref_CheckRefExact(swr) && PyObject_GC_IsTracked(swr)) {
            PyObject_GC_UnTrack(swr);
        }
    }
    long long v = ids_serial_number(self);
    if (v > 0 && v < (long long)PyLong_BASE && ref_small_ok) {
        r = ref_small((long)v);  /* no int made for the serial */
    }
    else {
        serial = v >= 0 ? PyLong_FromLongLong(v) : ids_next_serial(self);
        r = serial != NULL ? ref_make(serial) : NULL;
    }
    if (r == NULL) {
        goto done;
    }
    /* a TraceRef (an int) and a weak reference without a callback refer to nothing the
       collector could free: untracked, a long trace costs it nothing to visit */
    if (PyObject_IS_GC(r) && PyObject_GC_IsTracked(r)) {
        PyObject_GC_UnTrack(r);
    }
    if (PyWeakref_CheckRefExact(wr) && PyObject_GC_IsTracked(wr)) {
        PyObject_GC_UnTrack(wr);
    }
    /* another thread may have given it a serial meanwhile (the collector may have run its
       code above): look once more, then change the tables and slots without making any
       object it tracks (a serial taken here in vain is skipped: only ever in such a race) */
    PyObject *hit = ids_known(self, fake);
    if (hit != NULL) {
        Py_SETREF(r, Py_NewRef(hit));
        goto done;
    }
    if (PyErr_Occurred() || PyDict_SetItem(self->weak, r, wr) < 0) {
        Py_CLEAR(r);
        goto done;
    }
    if (ids_owns_slot(self, fake, FT_ids)) {  /* the fake keeps its row */
        Py_XSETREF(FC_SLOT(fake, FT_ids), Py_NewRef((PyObject *)self));
        Py_XSETREF(FC_SLOT(fake, FT_ref), Py_NewRef(r));
    }
    else if ((key = PyLong_FromVoidPtr(fake)) == NULL || PyDict_SetItem(self->by_id, key, r) < 0) {
        Py_CLEAR(r);
        goto done;
    }
    PyObject *known = ids_slot_hit(self, st, SS_ids, SS_serial);
    if (known == NULL && !ids_unseen(st, SS_ids)) {
        if ((skey = PyLong_FromVoidPtr(st)) == NULL) {
            Py_CLEAR(r);
            goto done;
        }
        known = ids_lookup(self, self->storage_ids, skey, st);
    }
    if (known != NULL) {
        s = Py_NewRef(known);
    }
    else {
        if (PyErr_Occurred()) {
            Py_CLEAR(r);
            goto done;
        }
        s = ids_next_serial(self);
        if (s == NULL) {
            Py_CLEAR(r);
            goto done;
        }
        if (ids_owns_slot(self, st, SS_ids)) {  /* the storage keeps its row: no weak reference */
            Py_XSETREF(FC_SLOT(st, SS_ids), Py_NewRef((PyObject *)self));
            Py_XSETREF(FC_SLOT(st, SS_serial), Py_NewRef(s));
        }
        else if ((swr == NULL && (swr = PyWeakref_NewRef(st, NULL)) == NULL)  /* the slot was
                    free above, taken since: only ever in a race between recording threads */
                 || PyDict_SetItem(self->weak, s, swr) < 0
                 || (skey == NULL && (skey = PyLong_FromVoidPtr(st)) == NULL)
                 || PyDict_SetItem(self->storage_ids, skey, s) < 0) {
            Py_CLEAR(r);
            goto done;
        }
    }
    if (PyDict_SetItem(self->storage_of, r, s) < 0) {
        Py_CLEAR(r);
        goto done;
    }
    if (PyDict_GET_SIZE(self->by_id) > self->sweep_at && ids_sweep(self) < 0) {
        Py_CLEAR(r);
        goto done;
    }
done:
    Py_XDECREF(wr);
    Py_XDECREF(st);
    Py_XDECREF(key);
    Py_XDECREF(skey);
    Py_XDECREF(swr);
    Py_XDECREF(serial);
    Py_XDECREF(s);
    return r;
}

/* TraceIds.ref for an object of the exact fake type: a new reference to its TraceRef. */
static PyObject *
ids_ref_fake(IdsObject *self, PyObject *fake)
{
    PyObject *r = ids_known(self, fake);
    if (r != NULL) {
        return Py_NewRef(r);
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    return ids_new_ref(self, fake);
}

static PyObject *
ids_ref(IdsObject *self, PyObject *fake)
{
    /* any object (a fake of a subclass too): the tables change in C only, never under the
       Python method's lock while C changes them */
    if (!ids_ready(self)) {
        return PyObject_CallMethodOneArg((PyObject *)self, S_py_ref, fake);
    }
    return ids_ref_fake(self, fake);
}

/* Whether the collector could never free anything through ``x``: an object it does not track
   (an int, a str, a TraceRef or spec left untracked here), or an exact tuple of such, nested
   up to three deep. */
static int
record_inert_in(PyObject *x, int depth)
{
    if (!PyObject_IS_GC(x) || !PyObject_GC_IsTracked(x)) {
        return 1;
    }
    if (!PyTuple_CheckExact(x) || depth == 0) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(x); i++) {
        if (!record_inert_in(PyTuple_GET_ITEM(x, i), depth - 1)) {
            return 0;
        }
    }
    return 1;
}

static inline int
record_inert(PyObject *x)
{
    if (!PyType_IS_GC(Py_TYPE(x))) {  /* most values (ints, strs, TraceRefs): no call */
        return 1;
    }
    if (!PyObject_IS_GC(x) || !PyObject_GC_IsTracked(x)) {
        return 1;
    }
    return record_inert_in(x, 3);  /* an entry's meta rows: a tuple of (shape, ...) tuples */
}

/* Leave a tuple the code just made untracked when the collector could free nothing through it,
   as CPython untracks a tuple of atoms the first time it visits it. */
static void
record_untrack_tuple(PyObject *t)
{
    if (PyObject_GC_IsTracked(t) && record_inert(t)) {
        PyObject_GC_UnTrack(t);
    }
}

/* The twin TraceIds._generator made for ``x`` (borrowed), when x is a program's Generator the
   ids have seen (its row in ``_twins`` still pointing at it); NULL without an error when not
   found (then the Python ``spec`` decides, and makes a twin for a Generator seen first). */
static PyObject *
ids_twin(IdsObject *self, PyObject *x)
{
    PyObject *twins = PyObject_GetAttr((PyObject *)self, S__twins);
    if (twins == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *twin = NULL;
    if (PyDict_CheckExact(twins) && PyDict_GET_SIZE(twins)) {
        PyObject *key = PyLong_FromVoidPtr(x);
        PyObject *hit = key != NULL ? PyDict_GetItemWithError(twins, key) : NULL;
        Py_XDECREF(key);
        if (hit != NULL && PyTuple_CheckExact(hit) && PyTuple_GET_SIZE(hit) == 2
                && PyWeakref_CheckRefExact(PyTuple_GET_ITEM(hit, 0))
                && weak_points_at(PyTuple_GET_ITEM(hit, 0), x)) {
            twin = PyTuple_GET_ITEM(hit, 1);  /* the dict keeps the row, the row the twin */
        }
    }
    Py_DECREF(twins);
    PyErr_Clear();
    return twin;
}

/* One argument's spec: a fake's TraceRef, a plain value itself, a seen Generator's twin,
   anything else by the Python ``spec`` (a new reference). */
static PyObject *
ids_spec_item(IdsObject *self, PyObject *x)
{
    PyObject *t = (PyObject *)Py_TYPE(x);
    if (t == R_fake_type) {
        return ids_ref_fake(self, x);
    }
    int plain = PySet_Contains(R_plain, t);
    if (plain < 0) {
        return NULL;
    }
    if (!plain && PyTuple_CheckExact(x)) {
        /* a tuple (a shape, ``out=(fake,)``): the tuple of its items' specs; one of plain
           values only is its own spec (an equal tuple) */
        Py_ssize_t n = PyTuple_GET_SIZE(x);
        PyObject *out = NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *y = ids_spec_item(self, PyTuple_GET_ITEM(x, i));
            if (y == NULL) {
                Py_XDECREF(out);
                return NULL;
            }
            if (out == NULL && y != PyTuple_GET_ITEM(x, i)) {
                if ((out = PyTuple_New(n)) == NULL) {
                    Py_DECREF(y);
                    return NULL;
                }
                for (Py_ssize_t j = 0; j < i; j++) {
                    PyTuple_SET_ITEM(out, j, Py_NewRef(PyTuple_GET_ITEM(x, j)));
                }
            }
            if (out != NULL) {
                PyTuple_SET_ITEM(out, i, y);
            }
            else {
                Py_DECREF(y);
            }
        }
        if (out == NULL) {
            return Py_NewRef(x);
        }
        record_untrack_tuple(out);
        return out;
    }
    if (plain) {
        return Py_NewRef(x);
    }
    PyObject *twin = ids_twin(self, x);
    return twin != NULL ? Py_NewRef(twin) : PyObject_CallMethodOneArg((PyObject *)self, S_spec, x);
}

static PyObject *
ids_args_spec(IdsObject *self, PyObject *args)
{
    if (!ids_ready(self) || !PyTuple_CheckExact(args) || R_plain == NULL) {
        return PyObject_CallMethodOneArg((PyObject *)self, S_py_args_spec, args);
    }
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *out = PyTuple_New(n);
    if (out == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *y = ids_spec_item(self, PyTuple_GET_ITEM(args, i));
        if (y == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, y);
    }
    /* fakes' TraceRefs and atoms only (the common spec): nothing in it the collector could
       free, so it is not tracked, as CPython untracks a tuple of atoms when it first visits
       it (a TraceRef, an untracked int subclass, would keep it tracked there) */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *y = PyTuple_GET_ITEM(out, i);
        PyObject *t = (PyObject *)Py_TYPE(y);
        if (t != R_ref_type && !PyLong_CheckExact(y) && !PyFloat_CheckExact(y)
                && !PyBool_Check(y) && y != Py_None && !PyUnicode_CheckExact(y)
                && y != Py_Ellipsis && !PyComplex_CheckExact(y)) {
            return out;
        }
    }
    if (n > 0 && PyObject_GC_IsTracked(out)) {
        PyObject_GC_UnTrack(out);
    }
    return out;
}

/* TraceIds.kwargs_spec for a call's non-empty keywords (an exact dict): a new dict, in the
   keywords' order, of their specs */
static PyObject *
ids_kwargs_spec(IdsObject *self, PyObject *kwargs)
{
    PyObject *out = PyDict_New();
    if (out == NULL) {
        return NULL;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *x;
    while (PyDict_Next(kwargs, &pos, &k, &x)) {
        Py_INCREF(k);
        Py_INCREF(x);
        PyObject *y = ids_spec_item(self, x);
        int bad = y == NULL || PyDict_SetItem(out, k, y) < 0;
        Py_DECREF(k);
        Py_DECREF(x);
        Py_XDECREF(y);
        if (bad) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

static PyObject *
ids_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    IdsObject *self = (IdsObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->sweep_at = 4096;
    return (PyObject *)self;
}

static int
ids_traverse(IdsObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->by_id);
    Py_VISIT(self->storage_ids);
    Py_VISIT(self->storage_of);
    Py_VISIT(self->weak);
    Py_VISIT(self->count);
    return 0;
}

static int
ids_clear(IdsObject *self)
{
    Py_CLEAR(self->by_id);
    Py_CLEAR(self->storage_ids);
    Py_CLEAR(self->storage_of);
    Py_CLEAR(self->weak);
    Py_CLEAR(self->count);
    return 0;
}

static void
ids_dealloc(IdsObject *self)
{
    PyObject_GC_UnTrack(self);
    ids_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef ids_methods[] = {
    {"ref", (PyCFunction)ids_ref, METH_O, "The TraceRef of a fake (its serial assigned on first sight)."},
    {"args_spec", (PyCFunction)ids_args_spec, METH_O,
     "spec(args) for a call's positional arguments, fakes and plain values inline."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef ids_members[] = {
    {"_by_id", T_OBJECT_EX, offsetof(IdsObject, by_id), 0, "id(fake) -> its TraceRef"},
    {"_storage_ids", T_OBJECT_EX, offsetof(IdsObject, storage_ids), 0, "id(storage) -> storage serial"},
    {"storage_of", T_OBJECT_EX, offsetof(IdsObject, storage_of), 0, "fake serial -> storage serial"},
    {"weak", T_OBJECT_EX, offsetof(IdsObject, weak), 0, "fake serial (and a tabled storage's) -> weak reference"},
    {"_count", T_OBJECT_EX, offsetof(IdsObject, count), 0, "the serials to give"},
    {"_sweep_at", T_PYSSIZET, offsetof(IdsObject, sweep_at), 0, "rows before the next sweep"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject IdsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "faketensor._speedups.IdsBase",
    .tp_doc = PyDoc_STR("The tables of modes/trace.py TraceIds, with ref and args_spec in C."),
    .tp_basicsize = sizeof(IdsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_new = ids_new,
    .tp_dealloc = (destructor)ids_dealloc,
    .tp_traverse = (traverseproc)ids_traverse,
    .tp_clear = (inquiry)ids_clear,
    .tp_methods = ids_methods,
    .tp_members = ids_members,
};

/* ---- Sites.here ----------------------------------------------------------------------- */

static PyObject *
site_here_py(PyObject *sites, Py_ssize_t depth)
{
    /* the Python method, called from here: its frame stands where this function's would */
    PyObject *d = PyLong_FromSsize_t(depth);
    if (d == NULL) {
        return NULL;
    }
    PyObject *args[3] = {sites, Py_False, d};
    PyObject *r = PyObject_VectorcallMethod(S_here, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(d);
    return r;
}

/* Sites.here(False, depth) as called from the current Python frame's callee (``up``: how many
   Python frames lie between the caller and Sites.here's own frame, 1 for a call from
   FakeMode._record's Python frame, 2 from the compiled _record) */
static PyObject *R_sites_type;  /* modes/sites.py Sites */
static Py_ssize_t SI_user = -1, SI_at = -1;  /* its slots _user and _at */

/* sites.<name> (a new reference), from its slot when it is a Sites */
static PyObject *
sites_get(PyObject *sites, Py_ssize_t off, PyObject *name)
{
    if (off >= 0 && (PyObject *)Py_TYPE(sites) == R_sites_type && FC_SLOT(sites, off) != NULL) {
        return Py_NewRef(FC_SLOT(sites, off));
    }
    return PyObject_GetAttr(sites, name);
}

/* Sites.here's answers remembered in C, direct-mapped: whether a code object is the user's,
   and the stack index of a user frame's (code, f_lasti). Rows are keyed by the Sites' serial
   (``_serial``, never reused) and the code object's address (kept alive by the Sites'
   ``_codes`` while it lives, so an address of a dead Sites' code never matches a live serial);
   both answers never change once given (``_user`` and ``_at`` only grow). A miss asks the
   dicts, as before. */
#define SITE_ROWS 2048
typedef struct { long long sites; const void *code; int user; } UserRow;
typedef struct { long long sites; const void *code; int lasti; PyObject *index; } AtRow;
static UserRow site_user_rows[SITE_ROWS];
static AtRow site_at_rows[SITE_ROWS];
static Py_ssize_t SI_serial = -1;  /* Sites' slot _serial */

static size_t
site_row(long long serial, const void *code, int lasti)
{
    size_t h = ((size_t)code >> 4) ^ ((size_t)serial * 0x9E3779B1u) ^ ((size_t)lasti * 0x85EBCA77u);
    return (h ^ (h >> 11)) & (SITE_ROWS - 1);
}

/* Note a user frame's answer in its row (an int: dropping the row's old one runs no code) */
static void
site_remember(AtRow *ar, long long serial, PyObject *code, int lasti, PyObject *index)
{
    if (ar == NULL || !PyLong_CheckExact(index)) {
        return;
    }
    PyObject *old = ar->index;
    ar->sites = serial;
    ar->code = (const void *)code;
    ar->lasti = lasti;
    ar->index = Py_NewRef(index);
    Py_XDECREF(old);
}

/* The Sites' serial, or -1 when it has none readable (then nothing is remembered) */
static long long
site_serial(PyObject *sites)
{
    if (SI_serial < 0 || (PyObject *)Py_TYPE(sites) != R_sites_type) {
        return -1;
    }
    PyObject *v = FC_SLOT(sites, SI_serial);
    if (v == NULL || !PyLong_CheckExact(v)) {
        return -1;
    }
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || n < 0) {
        PyErr_Clear();
        return -1;
    }
    return n;
}

static PyObject *
site_lookup(PyObject *sites, Py_ssize_t depth, Py_ssize_t up)
{
    if (depth - up < 0 || R_getframe == NULL || R_spawned == NULL) {
        return site_here_py(sites, depth - up + 1);
    }
    PyObject *user = sites_get(sites, SI_user, S_user);
    if (user == NULL) {
        return NULL;
    }
    PyObject *at = sites_get(sites, SI_at, S_at);
    if (at == NULL) {
        Py_DECREF(user);
        return NULL;
    }
    PyObject *result = NULL, *f = NULL, *code = NULL, *key = NULL, *u = NULL, *lasti = NULL,
             *atkey = NULL, *line = NULL, *linekey = NULL;
    if (!PyDict_CheckExact(user) || !PyDict_CheckExact(at)) {
        result = site_here_py(sites, depth - up + 1);
        goto done;
    }
    {
        /* Sites.here's sys._getframe(depth) is taken in its own frame; this function has none */
        PyObject *d = PyLong_FromSsize_t(depth - up);
        if (d == NULL) {
            goto done;
        }
        f = PyObject_CallOneArg(R_getframe, d);
        Py_DECREF(d);
        if (f == NULL) {
            goto done;
        }
    }
    int parent_taken = 0;
    long long serial = site_serial(sites);
    while (1) {
        if (!PyFrame_Check(f)) {  /* the end of the walk (None), or not a frame */
            if (f != Py_None) {  /* not expected: the Python method decides */
                result = site_here_py(sites, depth - up + 1);
                goto done;
            }
            if (parent_taken) {
                result = PyLong_FromLong(0);
                goto done;
            }
            parent_taken = 1;
            Py_DECREF(f);
            if (PyContextVar_Get(R_spawned, Py_None, &f) < 0) {
                f = NULL;
                goto done;
            }
            continue;
        }
        code = (PyObject *)PyFrame_GetCode((PyFrameObject *)f);
        int is_user = -1;
        UserRow *ur = NULL;
        if (serial >= 0) {
            ur = &site_user_rows[site_row(serial, code, -1)];
            if (ur->sites == serial && ur->code == (const void *)code) {
                is_user = ur->user;
            }
        }
        if (is_user < 0) {
            key = PyLong_FromVoidPtr(code);
            if (key == NULL) {
                goto done;
            }
            u = PyDict_GetItemWithError(user, key);
            if (u != NULL) {
                Py_INCREF(u);
            }
            else if (PyErr_Occurred()) {
                goto done;
            }
            else {
                u = PyObject_CallMethodOneArg(sites, S_see, code);
                if (u == NULL) {
                    goto done;
                }
            }
            is_user = PyObject_IsTrue(u);
            Py_CLEAR(u);
            if (is_user < 0) {
                goto done;
            }
            if (ur != NULL) {
                ur->sites = serial;
                ur->code = (const void *)code;
                ur->user = is_user;
            }
        }
        if (is_user) {
            int li = PyFrame_GetLasti((PyFrameObject *)f);
            AtRow *ar = NULL;
            if (serial >= 0) {
                ar = &site_at_rows[site_row(serial, code, li)];
                if (ar->sites == serial && ar->code == (const void *)code && ar->lasti == li
                        && ar->index != NULL) {
                    result = Py_NewRef(ar->index);
                    goto done;
                }
            }
            if (key == NULL && (key = PyLong_FromVoidPtr(code)) == NULL) {
                goto done;
            }
            lasti = PyLong_FromLong(li);
            if (lasti == NULL) {
                goto done;
            }
            atkey = PyTuple_Pack(2, key, lasti);
            if (atkey == NULL) {
                goto done;
            }
            PyObject *i = PyDict_GetItemWithError(at, atkey);
            if (i != NULL) {
                result = Py_NewRef(i);
                site_remember(ar, serial, code, li, i);
                goto done;
            }
            if (PyErr_Occurred()) {
                goto done;
            }
            line = PyObject_GetAttr(f, S_f_lineno);
            if (line == NULL) {
                goto done;
            }
            linekey = PyTuple_Pack(2, key, line);
            if (linekey == NULL) {
                goto done;
            }
            PyObject *got = PyObject_CallMethodOneArg(sites, S_intern, linekey);
            if (got == NULL || PyDict_SetItem(at, atkey, got) < 0) {
                Py_XDECREF(got);
                goto done;
            }
            result = got;
            site_remember(ar, serial, code, li, got);
            goto done;
        }
        Py_CLEAR(code);
        Py_CLEAR(key);
        PyObject *back = (PyObject *)PyFrame_GetBack((PyFrameObject *)f);
        Py_DECREF(f);
        f = back != NULL ? back : Py_NewRef(Py_None);
    }
done:
    Py_XDECREF(user);
    Py_XDECREF(at);
    Py_XDECREF(f);
    Py_XDECREF(code);
    Py_XDECREF(key);
    Py_XDECREF(u);
    Py_XDECREF(lasti);
    Py_XDECREF(atkey);
    Py_XDECREF(line);
    Py_XDECREF(linekey);
    return result;
}

static Py_ssize_t SI_whole_at = -1, SI_stop = -1;  /* Sites' slots _whole_at and stop */

/* Sites.here(True, depth) as site_lookup is to Sites.here(False, depth): the whole user stack's
   key, (id(code), f_lasti) per user frame up to ``stop``, looked up in ``_whole_at``; a code
   object or a stack not seen yet is left to the Python method, which walks again and keeps
   it */
static PyObject *
site_whole(PyObject *sites, Py_ssize_t depth, Py_ssize_t up)
{
    if (depth - up < 0 || R_getframe == NULL || R_spawned == NULL || SI_whole_at < 0
            || (PyObject *)Py_TYPE(sites) != R_sites_type) {
        goto python;
    }
    PyObject *user = FC_SLOT(sites, SI_user), *whole_at = FC_SLOT(sites, SI_whole_at),
             *stop = FC_SLOT(sites, SI_stop);
    if (user == NULL || whole_at == NULL || stop == NULL || !PyDict_CheckExact(user)
            || !PyDict_CheckExact(whole_at)) {
        goto python;
    }
    PyObject *key = PyList_New(0), *f = NULL, *result = NULL;
    if (key == NULL) {
        return NULL;
    }
    {
        PyObject *d = PyLong_FromSsize_t(depth - up);
        if (d == NULL) {
            goto fail;
        }
        f = PyObject_CallOneArg(R_getframe, d);
        Py_DECREF(d);
        if (f == NULL) {
            goto fail;
        }
    }
    int parent_taken = 0, unseen = 0;
    while (1) {
        if (!PyFrame_Check(f)) {
            if (f != Py_None) {
                unseen = 1;
                break;
            }
            if (parent_taken) {
                break;
            }
            parent_taken = 1;
            Py_DECREF(f);
            if (PyContextVar_Get(R_spawned, Py_None, &f) < 0) {
                f = NULL;
                goto fail;
            }
            continue;
        }
        PyObject *code = (PyObject *)PyFrame_GetCode((PyFrameObject *)f);
        if (code == stop) {
            Py_DECREF(code);
            break;
        }
        PyObject *ckey = PyLong_FromVoidPtr(code);
        Py_DECREF(code);
        if (ckey == NULL) {
            goto fail;
        }
        PyObject *u = PyDict_GetItemWithError(user, ckey);
        if (u == NULL) {
            Py_DECREF(ckey);
            if (PyErr_Occurred()) {
                goto fail;
            }
            unseen = 1;  /* a code object not seen yet: the Python method sees it */
            break;
        }
        int is_user = PyObject_IsTrue(u);
        if (is_user < 0) {
            Py_DECREF(ckey);
            goto fail;
        }
        if (is_user) {
            PyObject *lasti = PyLong_FromLong(PyFrame_GetLasti((PyFrameObject *)f));
            int bad = lasti == NULL || PyList_Append(key, ckey) < 0 || PyList_Append(key, lasti) < 0;
            Py_XDECREF(lasti);
            if (bad) {
                Py_DECREF(ckey);
                goto fail;
            }
        }
        Py_DECREF(ckey);
        PyObject *back = (PyObject *)PyFrame_GetBack((PyFrameObject *)f);
        Py_DECREF(f);
        f = back != NULL ? back : Py_NewRef(Py_None);
    }
    Py_CLEAR(f);
    if (!unseen) {
        PyObject *at = PyList_AsTuple(key);
        if (at == NULL) {
            goto fail;
        }
        PyObject *i = PyDict_GetItemWithError(whole_at, at);
        Py_DECREF(at);
        if (i != NULL) {
            result = Py_NewRef(i);
        }
        else if (PyErr_Occurred()) {
            goto fail;
        }
    }
    Py_DECREF(key);
    if (result != NULL) {
        return result;
    }
    goto python;
fail:
    Py_XDECREF(f);
    Py_DECREF(key);
    return NULL;
python:
    {
        PyObject *d = PyLong_FromSsize_t(depth - up + 1);
        if (d == NULL) {
            return NULL;
        }
        PyObject *a[3] = {sites, Py_True, d};
        PyObject *r = PyObject_VectorcallMethod(S_here, a, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(d);
        return r;
    }
}

static PyObject *
site_here(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "site_here(sites, depth)");
        return NULL;
    }
    Py_ssize_t depth = PyLong_AsSsize_t(args[1]);
    if (depth == -1 && PyErr_Occurred()) {
        return NULL;
    }
    return site_lookup(args[0], depth, 1);
}

/* ---- PeakFold.feed ---------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *pool, *live, *peak, *pool_live, *pool_peak, *allocations, *allocated, *peak_op,
             *peak_row;
    /* live, peak, allocations and allocated as machine integers, while fold_fast folds a
       device's events: ``shadow`` when they hold the figures, ``dirty`` when the objects
       above are behind them (the getters bring them up to date: fold_sync) */
    long long v_live, v_peak, v_allocations, v_allocated;
    char shadow, dirty;
} FoldObject;

/* The objects brought up to the machine integers (0, or -1 on an error) */
static int
fold_sync(FoldObject *f)
{
    if (!f->dirty) {
        return 0;
    }
    PyObject *l = PyLong_FromLongLong(f->v_live), *p = PyLong_FromLongLong(f->v_peak),
             *n = PyLong_FromLongLong(f->v_allocations), *a = PyLong_FromLongLong(f->v_allocated);
    if (l == NULL || p == NULL || n == NULL || a == NULL) {
        Py_XDECREF(l);
        Py_XDECREF(p);
        Py_XDECREF(n);
        Py_XDECREF(a);
        return -1;
    }
    Py_XSETREF(f->live, l);
    Py_XSETREF(f->peak, p);
    Py_XSETREF(f->allocations, n);
    Py_XSETREF(f->allocated, a);
    f->dirty = 0;
    return 0;
}

/* The objects as the figures, the machine integers forgotten (before any other code reads
   or changes them) */
static int
fold_unshadow(FoldObject *f)
{
    if (fold_sync(f) < 0) {
        return -1;
    }
    f->shadow = 0;
    return 0;
}

static PyObject *Zero, *One;

static int
fold_traverse(FoldObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->pool);
    Py_VISIT(self->live);
    Py_VISIT(self->peak);
    Py_VISIT(self->pool_live);
    Py_VISIT(self->pool_peak);
    Py_VISIT(self->allocations);
    Py_VISIT(self->allocated);
    Py_VISIT(self->peak_op);
    Py_VISIT(self->peak_row);
    return 0;
}

static int
fold_clear(FoldObject *self)
{
    Py_CLEAR(self->pool);
    Py_CLEAR(self->live);
    Py_CLEAR(self->peak);
    Py_CLEAR(self->pool_live);
    Py_CLEAR(self->pool_peak);
    Py_CLEAR(self->allocations);
    Py_CLEAR(self->allocated);
    Py_CLEAR(self->peak_op);
    Py_CLEAR(self->peak_row);
    return 0;
}

static void
fold_dealloc(FoldObject *self)
{
    PyObject_GC_UnTrack(self);
    fold_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#define FOLD_MEMBER(name, doc) {#name, T_OBJECT_EX, offsetof(FoldObject, name), 0, doc}
static PyMemberDef fold_members[] = {
    FOLD_MEMBER(pool, "counted as CuPy's pool counts too (a CUDA device)"),
    FOLD_MEMBER(pool_live, "pool bytes held now"),
    FOLD_MEMBER(pool_peak, "pool bytes held at most"),
    FOLD_MEMBER(peak_op, "the op that first reached the report's peak"),
    FOLD_MEMBER(peak_row, "the log row that first reached the report's peak"),
    {NULL, 0, 0, 0, NULL},
};
#undef FOLD_MEMBER

/* live, peak, allocations, allocated: read up to date, set with the machine integers
   forgotten; unset, they raise AttributeError as a member does */
static PyObject *
fold_get(FoldObject *f, void *closure)
{
    if (fold_sync(f) < 0) {
        return NULL;
    }
    PyObject *v = *(PyObject **)((char *)f + (Py_ssize_t)closure);
    if (v == NULL) {
        PyErr_SetString(PyExc_AttributeError, "DeviceFold: a figure is not set");
        return NULL;
    }
    return Py_NewRef(v);
}

static int
fold_put(FoldObject *f, PyObject *value, void *closure)
{
    if (fold_unshadow(f) < 0) {
        return -1;
    }
    PyObject **slot = (PyObject **)((char *)f + (Py_ssize_t)closure);
    if (value == NULL && *slot == NULL) {
        PyErr_SetString(PyExc_AttributeError, "DeviceFold: a figure is not set");
        return -1;
    }
    Py_XSETREF(*slot, Py_XNewRef(value));
    return 0;
}

#define FOLD_FIGURE(name, doc) {#name, (getter)fold_get, (setter)fold_put, doc, \
                                (void *)offsetof(FoldObject, name)}
static PyGetSetDef fold_getset[] = {
    FOLD_FIGURE(live, "allocator bytes held now"),
    FOLD_FIGURE(peak, "allocator bytes held at most"),
    FOLD_FIGURE(allocations, "storages charged"),
    FOLD_FIGURE(allocated, "bytes charged"),
    {NULL, NULL, NULL, NULL, NULL},
};
#undef FOLD_FIGURE

static PyTypeObject FoldType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "faketensor._speedups.DeviceFoldBase",
    .tp_doc = PyDoc_STR("The fields of modes/memory.py DeviceFold, read by fold_feed in C."),
    .tp_basicsize = sizeof(FoldObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)fold_dealloc,
    .tp_traverse = (traverseproc)fold_traverse,
    .tp_clear = (inquiry)fold_clear,
    .tp_members = fold_members,
    .tp_getset = fold_getset,
};

/* a <- a + b (new references; a may be NULL: then an AttributeError, as Python would raise) */
static int
fold_add(PyObject **a, PyObject *b)
{
    if (*a == NULL) {
        PyErr_SetString(PyExc_AttributeError, "DeviceFold: a figure is not set");
        return -1;
    }
    PyObject *r = PyNumber_Add(*a, b);
    if (r == NULL) {
        return -1;
    }
    Py_SETREF(*a, r);
    return 0;
}

static void
fold_set(PyObject **a, PyObject *b)
{
    Py_XSETREF(*a, Py_NewRef(b));
}

/* x > y, as Python compares them (-1 on an error) */
static int
fold_gt(PyObject *x, PyObject *y)
{
    if (x == NULL || y == NULL) {
        PyErr_SetString(PyExc_AttributeError, "DeviceFold: a figure is not set");
        return -1;
    }
    return PyObject_RichCompareBool(x, y, Py_GT);
}

/* memory.pool_bytes(n): 0 for n <= 0, else n rounded up to POOL_ROUND */
static PyObject *
fold_pool_bytes(PyObject *n)
{
    int pos = PyObject_RichCompareBool(n, Zero, Py_GT);
    if (pos <= 0) {
        return pos < 0 ? NULL : Py_NewRef(Zero);
    }
    PyObject *neg = PyNumber_Negative(n);
    if (neg == NULL) {
        return NULL;
    }
    PyObject *q = PyNumber_FloorDivide(neg, R_pool_round);
    Py_DECREF(neg);
    if (q == NULL) {
        return NULL;
    }
    PyObject *nq = PyNumber_Negative(q);
    Py_DECREF(q);
    if (nq == NULL) {
        return NULL;
    }
    PyObject *r = PyNumber_Multiply(nq, R_pool_round);
    Py_DECREF(nq);
    return r;
}

/* the peak op and row (and rose) after an event took the report's figure higher */
static int
fold_mark(FoldObject *f, PyObject *op, Py_ssize_t r, int *rose)
{
    PyObject *row = PyLong_FromSsize_t(r);
    if (row == NULL) {
        return -1;
    }
    fold_set(&f->peak_op, op);
    Py_XSETREF(f->peak_row, row);
    *rose = 1;
    return 0;
}

/* the value of an exact int that fits a long long (0 when it does not: use the slow path) */
static int
fold_small(PyObject *x, long long *v)
{
    if (x == NULL || !PyLong_CheckExact(x)) {
        return 0;
    }
    int overflow;
    *v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (overflow || (*v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* One event of a device not counted in pool bytes, in machine integers when every figure
   involved is an int well inside a long long: 1 done, 0 not taken (nothing changed), -1 error */
static int
fold_fast(FoldObject *f, PyObject *op, PyObject *sid, PyObject *d, Py_ssize_t r, int *rose)
{
    const long long lim = (long long)1 << 61;
    long long s, dv;
    if (!fold_small(sid, &s) || !fold_small(d, &dv) || dv >= lim || dv <= -lim) {
        return fold_unshadow(f) < 0 ? -1 : 0;
    }
    if (!f->shadow) {  /* the figures into machine integers, when each is an int in range */
        if (!fold_small(f->live, &f->v_live) || !fold_small(f->peak, &f->v_peak)
                || !fold_small(f->allocations, &f->v_allocations)
                || !fold_small(f->allocated, &f->v_allocated)) {
            return 0;
        }
        f->shadow = 1;
        f->dirty = 0;
    }
    long long live = f->v_live;
    if (live >= lim || live <= -lim || f->v_allocations >= lim || f->v_allocated >= lim
            || f->v_allocated <= -lim) {
        return fold_unshadow(f) < 0 ? -1 : 0;
    }
    if (s == 0) {  /* a transient */
        if (live + dv > f->v_peak) {
            f->v_peak = live + dv;
            f->dirty = 1;
            if (fold_mark(f, op, r, rose) < 0) {
                return -1;
            }
        }
        return 1;
    }
    f->v_live = live + dv;
    f->dirty = 1;
    if (dv > 0) {
        f->v_allocations += 1;
        f->v_allocated += dv;
        if (live + dv > f->v_peak) {
            f->v_peak = live + dv;
            if (fold_mark(f, op, r, rose) < 0) {
                return -1;
            }
        }
    }
    return 1;
}

static PyObject *R_peak_fold;  /* modes/memory.py PeakFold */
static Py_ssize_t PF_devices = -1, PF_timeline = -1;  /* its slots */

/* fold.<name> (a new reference), from its slot when it is a PeakFold */
static PyObject *
fold_attr(PyObject *fold, Py_ssize_t off, PyObject *name)
{
    if (off >= 0 && (PyObject *)Py_TYPE(fold) == R_peak_fold && FC_SLOT(fold, off) != NULL) {
        return Py_NewRef(FC_SLOT(fold, off));
    }
    return PyObject_GetAttr(fold, name);
}

static PyObject *
fold_feed_py(PyObject *fold, PyObject *const *args)
{
    PyObject *a[4] = {fold, args[1], args[2], args[3]};
    return PyObject_VectorcallMethod(S_feed, a, 4 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *
fold_feed(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    /* fold_feed(fold, log, start, end): PeakFold.feed (modes/memory.py), which it calls for
       a fold keeping a timeline or anything unexpected */
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "fold_feed(fold, log, start, end)");
        return NULL;
    }
    PyObject *fold = args[0], *log = args[1];
    if (R_device_fold == NULL || R_pool_round == NULL || !PyList_CheckExact(log)
            || !PyLong_CheckExact(args[2]) || !PyLong_CheckExact(args[3])) {
        return fold_feed_py(fold, args);
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[2]), end = PyLong_AsSsize_t(args[3]);
    if ((start == -1 || end == -1) && PyErr_Occurred()) {
        PyErr_Clear();
        return fold_feed_py(fold, args);
    }
    if (start < 0 || end > PyList_GET_SIZE(log)) {
        return fold_feed_py(fold, args);
    }
    PyObject *timeline = fold_attr(fold, PF_timeline, S_timeline);
    if (timeline == NULL) {
        return NULL;
    }
    int has_timeline = timeline != Py_None;
    Py_DECREF(timeline);
    if (has_timeline) {
        return fold_feed_py(fold, args);
    }
    PyObject *devices = fold_attr(fold, PF_devices, S_devices);
    if (devices == NULL) {
        return NULL;
    }
    if (!PyDict_CheckExact(devices)) {
        Py_DECREF(devices);
        return fold_feed_py(fold, args);
    }
    {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(devices, &pos, &k, &v)) {
            if (!PyObject_TypeCheck(v, &FoldType)) {
                Py_DECREF(devices);
                return fold_feed_py(fold, args);
            }
        }
    }
    int rose = 0, ok = 0;
    PyObject *cur = NULL, *fo = NULL, *op = NULL, *sid = NULL, *dev = NULL, *d = NULL,
             *row = NULL, *b = NULL, *p = NULL;
    for (Py_ssize_t r = start; r < end; r += 4) {
        if (r + 3 >= PyList_GET_SIZE(log)) {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            goto done;
        }
        Py_XSETREF(op, Py_NewRef(PyList_GET_ITEM(log, r)));
        Py_XSETREF(sid, Py_NewRef(PyList_GET_ITEM(log, r + 1)));
        Py_XSETREF(dev, Py_NewRef(PyList_GET_ITEM(log, r + 2)));
        Py_XSETREF(d, Py_NewRef(PyList_GET_ITEM(log, r + 3)));
        Py_CLEAR(row);  /* made when an event marks the peak */
        int differ = cur == NULL ? 1 : PyObject_RichCompareBool(dev, cur, Py_NE);
        if (differ < 0) {
            goto done;
        }
        if (differ) {
            PyObject *got = PyDict_GetItemWithError(devices, dev);
            if (got != NULL) {
                Py_INCREF(got);
            }
            else if (PyErr_Occurred()) {
                goto done;
            }
            else {
                int not_cpu = PyObject_RichCompareBool(dev, S_cpu, Py_NE);
                if (not_cpu < 0) {
                    goto done;
                }
                got = PyObject_CallOneArg(R_device_fold, not_cpu ? Py_True : Py_False);
                if (got == NULL) {
                    goto done;
                }
                if (PyDict_SetItem(devices, dev, got) < 0) {
                    Py_DECREF(got);
                    goto done;
                }
            }
            if (!PyObject_TypeCheck(got, &FoldType)) {
                Py_DECREF(got);
                PyErr_SetString(PyExc_TypeError, "fold_feed: configure('device_fold') is not a DeviceFoldBase");
                goto done;
            }
            Py_XSETREF(fo, got);
            Py_XSETREF(cur, Py_NewRef(dev));
        }
        FoldObject *f = (FoldObject *)fo;
        if (f->pool == NULL) {
            PyErr_SetString(PyExc_AttributeError, "DeviceFold: pool is not set");
            goto done;
        }
        int pool = PyObject_IsTrue(f->pool);
        if (pool < 0) {
            goto done;
        }
        if (!pool) {
            int fast = fold_fast(f, op, sid, d, r, &rose);
            if (fast < 0) {
                goto done;
            }
            if (fast) {
                continue;
            }
        }
        if (fold_unshadow(f) < 0) {  /* the slow path reads and changes the objects */
            goto done;
        }
        int transient = PyObject_RichCompareBool(sid, Zero, Py_EQ);
        if (transient < 0) {
            goto done;
        }
        if (transient) {  /* alive with the live set, for one call */
            Py_XSETREF(p, f->live ? PyNumber_Add(f->live, d) : NULL);
            if (p == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_AttributeError, "DeviceFold: live is not set");
                }
                goto done;
            }
            int gt = fold_gt(p, f->peak);
            if (gt < 0) {
                goto done;
            }
            if (gt) {
                fold_set(&f->peak, p);
                if (!pool && fold_mark(f, op, r, &rose) < 0) {
                    goto done;
                }
            }
            if (pool) {
                Py_XSETREF(b, fold_pool_bytes(d));
                if (b == NULL) {
                    goto done;
                }
                Py_XSETREF(p, f->pool_live ? PyNumber_Add(f->pool_live, b) : NULL);
                if (p == NULL) {
                    if (!PyErr_Occurred()) {
                        PyErr_SetString(PyExc_AttributeError, "DeviceFold: pool_live is not set");
                    }
                    goto done;
                }
                gt = fold_gt(p, f->pool_peak);
                if (gt < 0) {
                    goto done;
                }
                if (gt) {
                    fold_set(&f->pool_peak, p);
                    if (fold_mark(f, op, r, &rose) < 0) {
                        goto done;
                    }
                }
            }
            continue;
        }
        if (fold_add(&f->live, d) < 0) {
            goto done;
        }
        PyObject *live = Py_NewRef(f->live);
        int up = PyObject_RichCompareBool(d, Zero, Py_GT);
        if (up < 0) {
            Py_DECREF(live);
            goto done;
        }
        if (up) {
            if (fold_add(&f->allocations, One) < 0) {
                Py_DECREF(live);
                goto done;
            }
            if (!pool && fold_add(&f->allocated, d) < 0) {
                Py_DECREF(live);
                goto done;
            }
            int gt = fold_gt(live, f->peak);
            if (gt < 0) {
                Py_DECREF(live);
                goto done;
            }
            if (gt) {
                fold_set(&f->peak, live);
                if (!pool && fold_mark(f, op, r, &rose) < 0) {
                    goto done;
                }
            }
        }
        Py_DECREF(live);
        if (pool) {
            if (up) {
                Py_XSETREF(b, fold_pool_bytes(d));
            }
            else {
                PyObject *nd = PyNumber_Negative(d);
                PyObject *pb = nd ? fold_pool_bytes(nd) : NULL;
                Py_XDECREF(nd);
                Py_XSETREF(b, pb ? PyNumber_Negative(pb) : NULL);
                Py_XDECREF(pb);
            }
            if (b == NULL || fold_add(&f->pool_live, b) < 0) {
                goto done;
            }
            int bpos = PyObject_RichCompareBool(b, Zero, Py_GT);
            if (bpos < 0) {
                goto done;
            }
            if (bpos) {
                if (fold_add(&f->allocated, b) < 0) {
                    goto done;
                }
                int gt = fold_gt(f->pool_live, f->pool_peak);
                if (gt < 0) {
                    goto done;
                }
                if (gt) {
                    fold_set(&f->pool_peak, f->pool_live);
                    if (fold_mark(f, op, r, &rose) < 0) {
                        goto done;
                    }
                }
            }
        }
    }
    ok = 1;
done:
    Py_DECREF(devices);
    Py_XDECREF(cur);
    Py_XDECREF(fo);
    Py_XDECREF(op);
    Py_XDECREF(sid);
    Py_XDECREF(dev);
    Py_XDECREF(d);
    Py_XDECREF(row);
    Py_XDECREF(b);
    Py_XDECREF(p);
    if (!ok) {
        return NULL;
    }
    return Py_NewRef(rose ? Py_True : Py_False);
}


/* ---- RecordState ------------------------------------------------------------------------ */

/* A FakeMode's per-op recording state in one object (modes/fake_mode.py RecordState), read by
   the compiled _record and quick_call at fixed offsets instead of the mode's attributes */
typedef struct {
    PyObject_HEAD
    PyObject *ids, *stats, *sites, *trace, *findings, *flops, *find, *quick, *ledger;
} StateObject;

static int
state_traverse(StateObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->ids);
    Py_VISIT(self->stats);
    Py_VISIT(self->sites);
    Py_VISIT(self->trace);
    Py_VISIT(self->findings);
    Py_VISIT(self->flops);
    Py_VISIT(self->find);
    Py_VISIT(self->quick);
    Py_VISIT(self->ledger);
    return 0;
}

static int
state_clear(StateObject *self)
{
    Py_CLEAR(self->ids);
    Py_CLEAR(self->stats);
    Py_CLEAR(self->sites);
    Py_CLEAR(self->trace);
    Py_CLEAR(self->findings);
    Py_CLEAR(self->flops);
    Py_CLEAR(self->find);
    Py_CLEAR(self->quick);
    Py_CLEAR(self->ledger);
    return 0;
}

static void
state_dealloc(StateObject *self)
{
    PyObject_GC_UnTrack(self);
    state_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef state_members[] = {
    {"ids", T_OBJECT_EX, offsetof(StateObject, ids), 0, "the mode's TraceIds"},
    {"stats", T_OBJECT_EX, offsetof(StateObject, stats), 0, "the mode's memory stats"},
    {"sites", T_OBJECT_EX, offsetof(StateObject, sites), 0, "the mode's Sites"},
    {"trace", T_OBJECT_EX, offsetof(StateObject, trace), 0, "the mode's trace (a list)"},
    {"findings", T_OBJECT_EX, offsetof(StateObject, findings), 0, "the mode's findings (a list)"},
    {"flops", T_OBJECT_EX, offsetof(StateObject, flops), 0, "the recorded ops' FLOPs together"},
    {"find", T_OBJECT_EX, offsetof(StateObject, find), 0, "whether ops are scanned for findings"},
    {"quick", T_OBJECT_EX, offsetof(StateObject, quick), 0, "whether quick_call answers"},
    {"ledger", T_OBJECT_EX, offsetof(StateObject, ledger), 0, "what a new storage is charged to"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "faketensor._speedups.RecordState",
    .tp_doc = PyDoc_STR("A FakeMode's per-op recording state (modes/fake_mode.py RecordState)."),
    .tp_basicsize = sizeof(StateObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)state_dealloc,
    .tp_traverse = (traverseproc)state_traverse,
    .tp_clear = (inquiry)state_clear,
    .tp_members = state_members,
};

static PyObject *S_state;

/* The mode's RecordState (a new reference) when it is one with every field set; NULL, with an
   error only when reading the attribute failed */
static PyObject *R_fake_mode_type;  /* modes/fake_mode.py FakeMode */
static Py_ssize_t MS_state = -1;     /* its slot _state */

static StateObject *
mode_state(PyObject *mode)
{
    PyObject *st;
    if (MS_state >= 0 && (PyObject *)Py_TYPE(mode) == R_fake_mode_type
            && FC_SLOT(mode, MS_state) != NULL) {  /* a FakeMode (not a subclass): its slot */
        st = Py_NewRef(FC_SLOT(mode, MS_state));
    }
    else if ((st = PyObject_GetAttr(mode, S_state)) == NULL) {
        return NULL;
    }
    StateObject *so = (StateObject *)st;
    if (!PyObject_TypeCheck(st, &StateType) || so->ids == NULL || so->stats == NULL
            || so->sites == NULL || so->trace == NULL || so->findings == NULL
            || so->flops == NULL || so->find == NULL || so->quick == NULL || so->ledger == NULL) {
        Py_DECREF(st);
        return NULL;
    }
    return so;
}

/* ---- FakeMode._record ------------------------------------------------------------------- */

/* TraceEntry's fields, by their member descriptors (checked at set-up) */
enum {E_FUNC, E_ARGS, E_KWARGS, E_OUT, E_META, E_NBYTES, E_TRANSIENT, E_SCRATCH, E_SITE,
      E_FLOPS, E_IDS, E_ALIAS, E_IN_IDS, E_COUNT};
static const char *entry_fields[E_COUNT] = {"func", "_args", "_kwargs", "_out", "_meta", "nbytes",
    "transient", "scratch", "site", "flops", "_ids", "_alias", "_in_ids"};
static PyMemberDef *R_entry_members[E_COUNT];
static PyObject *R_entry_type;      /* modes/trace.py TraceEntry */
static PyObject *R_no_kwargs;       /* trace.NO_KWARGS */
static PyObject *R_recording_stats; /* modes/memory.py RecordingStats */
/* its slots' offsets (MemoryStats' log, _figures, _lock; its own _pos, rising), -1 unknown */
static Py_ssize_t ST_log = -1, ST_figures = -1, ST_lock = -1, ST_pos = -1, ST_rising = -1,
                  ST_folding = -1, ST_trace = -1;

/* stats.<name> (a new reference) of a RecordingStats, from its slot */
static PyObject *
stat_get(PyObject *stats, Py_ssize_t off, PyObject *name)
{
    if (off >= 0 && (PyObject *)Py_TYPE(stats) == R_recording_stats) {
        PyObject *v = FC_SLOT(stats, off);
        if (v != NULL) {
            return Py_NewRef(v);
        }
    }
    return PyObject_GetAttr(stats, name);
}

/* stats.<name> = v, in its slot */
static int
stat_set(PyObject *stats, Py_ssize_t off, PyObject *name, PyObject *v)
{
    if (off >= 0 && (PyObject *)Py_TYPE(stats) == R_recording_stats) {
        Py_XSETREF(FC_SLOT(stats, off), Py_NewRef(v));
        return 0;
    }
    return PyObject_SetAttr(stats, name, v);
}

/* RecordingStats: a subclass of a slotted MemoryStats; its slots' offsets noted */
static int
stats_configure(PyObject *type)
{
    if (!PyType_Check(type) || ((PyTypeObject *)type)->tp_base == NULL) {
        return 0;
    }
    PyTypeObject *t = (PyTypeObject *)type, *base = t->tp_base;
    Py_ssize_t log = fc_slot_offset(base, t, "log"), figures = fc_slot_offset(base, t, "_figures"),
               lock = fc_slot_offset(base, t, "_lock"), pos = fc_slot_offset(t, t, "_pos"),
               rising = fc_slot_offset(t, t, "rising"), folding = fc_slot_offset(t, t, "_folding");
    if (log < 0 || figures < 0 || lock < 0 || pos < 0 || rising < 0 || folding < 0) {
        return 0;
    }
    ST_log = log, ST_figures = figures, ST_lock = lock, ST_pos = pos, ST_rising = rising;
    ST_folding = folding;
    ST_trace = fc_slot_offset(t, t, "_trace");
    return 1;
}
/* ---- RecordingStats' events ------------------------------------------------------------ */

/* RecordingStats._alloc, _charge, _free and _transient in C: each event appends
   (len(trace), id(storage) or 0, device, bytes) to the log, as the Python methods do (kept as
   _py_alloc, ... in modes/memory.py: the reference, and the fallback for a subclass, a storage
   of another type or a figure that is not an int). No Python code runs between the appends. */
static PyObject *S_py_alloc, *S_py_charge, *S_py_free, *S_py_transient;

/* Whether ``stats`` is an exact RecordingStats whose log and trace are lists */
static int
stats_plain(PyObject *stats)
{
    if ((PyObject *)Py_TYPE(stats) != R_recording_stats || ST_log < 0 || ST_trace < 0) {
        return 0;
    }
    PyObject *log = FC_SLOT(stats, ST_log), *trace = FC_SLOT(stats, ST_trace);
    return log != NULL && trace != NULL && PyList_CheckExact(log) && PyList_CheckExact(trace);
}

/* Append one event to a plain RecordingStats' log (0, or -1 with the log as it was) */
static int
stats_event(PyObject *stats, PyObject *sid, PyObject *dev, PyObject *n)
{
    PyObject *log = FC_SLOT(stats, ST_log), *trace = FC_SLOT(stats, ST_trace);
    /* the op index: the events of one op share one int (an int is immutable; the GIL keeps
       the last one made) */
    static PyObject *last_op = NULL;
    Py_ssize_t ops = PyList_GET_SIZE(trace);
    PyObject *op;
    if (last_op != NULL && PyLong_AsSsize_t(last_op) == ops) {
        op = Py_NewRef(last_op);
    }
    else {
        if ((op = PyLong_FromSsize_t(ops)) == NULL) {
            return -1;
        }
        Py_XSETREF(last_op, Py_NewRef(op));
    }
    Py_ssize_t k = PyList_GET_SIZE(log);
    if (PyObject_GC_IsTracked(log)) {
        /* ints and device names only (every writer of a RecordingStats' log appends such):
           nothing for the collector to find there, and a long log costs each pass that
           visits it one call an item */
        PyObject_GC_UnTrack(log);
    }
    int bad = PyList_Append(log, op) < 0 || PyList_Append(log, sid) < 0
              || PyList_Append(log, dev) < 0 || PyList_Append(log, n) < 0;
    Py_DECREF(op);
    if (bad) {
        PyObject *exc, *val, *tb;
        PyErr_Fetch(&exc, &val, &tb);
        PyList_SetSlice(log, k, PyList_GET_SIZE(log), NULL);
        PyErr_Restore(exc, val, tb);
        return -1;
    }
    return 0;
}

/* id(storage) as an int, shared by the events of one storage: a storage's alloc and its free
   (most often soon after) find the int the other made in a direct-mapped row keyed by the
   address, so the log holds one int per storage, not one per event (a new reference) */
#define SID_ROWS 512
static struct { const void *addr; PyObject *sid; } sid_rows[SID_ROWS];

static PyObject *
stats_sid(PyObject *storage)
{
    size_t h = ((size_t)storage >> 4) & (SID_ROWS - 1);
    if (sid_rows[h].addr == (const void *)storage && sid_rows[h].sid != NULL) {
        return Py_NewRef(sid_rows[h].sid);
    }
    PyObject *sid = PyLong_FromVoidPtr(storage);
    if (sid != NULL) {
        PyObject *old = sid_rows[h].sid;  /* an int: dropping it runs no code */
        sid_rows[h].addr = (const void *)storage;
        sid_rows[h].sid = Py_NewRef(sid);
        Py_XDECREF(old);
    }
    return sid;
}

/* -n for a storage's charged bytes, shared by the frees of storages of one size (a
   direct-mapped row keyed by the value; a new reference) */
#define NEG_ROWS 256
static PyObject *neg_rows[NEG_ROWS][2];  /* (n, -n) */

static PyObject *
stats_neg(PyObject *n)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);  /* n is an exact int */
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return PyNumber_Negative(n);
    }
    size_t h = ((size_t)v ^ ((size_t)v >> 9) ^ ((size_t)v >> 17)) & (NEG_ROWS - 1);
    PyObject **row = neg_rows[h];
    if (row[0] != NULL && PyLong_AsLongLong(row[0]) == v) {
        return Py_NewRef(row[1]);
    }
    PyErr_Clear();
    PyObject *neg = PyNumber_Negative(n);
    if (neg != NULL) {
        PyObject *o0 = row[0], *o1 = row[1];  /* ints: dropping them runs no code */
        row[0] = Py_NewRef(n);
        row[1] = Py_NewRef(neg);
        Py_XDECREF(o0);
        Py_XDECREF(o1);
    }
    return neg;
}

/* A FakeStorage's bytes and device (borrowed) when both are as the fast path needs them */
static int
stats_storage(PyObject *storage, PyObject **n, PyObject **dev, int *cpu)
{
    if (!FC.storage_ready || Py_TYPE(storage) != FC.storage_type) {
        return 0;
    }
    *n = FC_SLOT(storage, FC.s_nbytes);
    *dev = FC_SLOT(storage, FC.s_device);
    if (*n == NULL || *dev == NULL || !PyLong_CheckExact(*n) || !PyUnicode_CheckExact(*dev)) {
        return 0;
    }
    *cpu = *dev == FC.cpu || PyUnicode_Compare(*dev, FC.cpu) == 0;
    return 1;
}

/* The bytes charged for a storage: nbytes, at least one on the cpu (memory.charged_bytes) */
static PyObject *
stats_charged(PyObject *n, int cpu)
{
    if (!cpu || n == One) {
        return n;
    }
    int overflow = 0;  /* n is an exact int: no error */
    return PyLong_AsLongLongAndOverflow(n, &overflow) == 0 && !overflow ? One : n;
}

static PyObject *
stats_charge(PyObject *self, PyObject *storage)
{
    PyObject *n, *dev;
    int cpu;
    if (!stats_plain(self) || !stats_storage(storage, &n, &dev, &cpu)) {
        return PyObject_CallMethodOneArg(self, S_py_charge, storage);
    }
    PyObject *sid = stats_sid(storage);
    if (sid == NULL) {
        return NULL;
    }
    PyObject *c = stats_charged(n, cpu);
    int bad = stats_event(self, sid, dev, c) < 0;
    Py_DECREF(sid);
    return bad ? NULL : Py_NewRef(c);
}

static PyObject *
stats_alloc(PyObject *self, PyObject *storage)
{
    if (!stats_plain(self) || !FC.storage_ready || Py_TYPE(storage) != FC.storage_type
            || FC_SLOT(storage, FC.s_tracker) == NULL) {
        return PyObject_CallMethodOneArg(self, S_py_alloc, storage);
    }
    if (FC_SLOT(storage, FC.s_tracker) != Py_None) {  /* charged once */
        return PyLong_FromLong(0);
    }
    Py_SETREF(FC_SLOT(storage, FC.s_tracker), Py_NewRef(self));
    return stats_charge(self, storage);
}

static PyObject *
stats_free(PyObject *self, PyObject *storage)
{
    PyObject *n, *dev;
    int cpu;
    if (!stats_plain(self) || !stats_storage(storage, &n, &dev, &cpu)) {
        return PyObject_CallMethodOneArg(self, S_py_free, storage);
    }
    PyObject *sid = stats_sid(storage);
    PyObject *neg = sid != NULL ? stats_neg(stats_charged(n, cpu)) : NULL;
    int bad = sid == NULL || neg == NULL || stats_event(self, sid, dev, neg) < 0;
    Py_XDECREF(sid);
    Py_XDECREF(neg);
    return bad ? NULL : Py_NewRef(Py_None);
}

static PyObject *
stats_transient(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !stats_plain(self)) {
        PyObject *a[3] = {self, nargs > 0 ? args[0] : NULL, nargs > 1 ? args[1] : NULL};
        if (nargs != 2) {
            PyErr_SetString(PyExc_TypeError, "_transient(dev, nbytes)");
            return NULL;
        }
        return PyObject_VectorcallMethod(S_py_transient, a, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    }
    int some = PyObject_IsTrue(args[1]);
    if (some < 0) {
        return NULL;
    }
    if (some && stats_event(self, Zero, args[0], args[1]) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef stats_defs[] = {
    {"_alloc", (PyCFunction)stats_alloc, METH_O, "Charge a new storage (once); it is freed when it dies."},
    {"_charge", (PyCFunction)stats_charge, METH_O, "Log a storage's charge; its bytes."},
    {"_free", (PyCFunction)stats_free, METH_O, "Log a storage's release."},
    {"_transient", (PyCFunction)(void (*)(void))stats_transient, METH_FASTCALL,
     "Log buffers alive with the live set for the length of one call."},
    {NULL, NULL, 0, NULL},
};

/* stats_methods(): RecordingStats' event methods in C, as method descriptors of the configured
   RecordingStats (modes/memory.py sets them on the class) */
static PyObject *
stats_methods(PyObject *module, PyObject *unused)
{
    if (R_recording_stats == NULL || ST_trace < 0) {
        PyErr_SetString(PyExc_RuntimeError, "stats_methods(): configure('recording_stats', ...) first");
        return NULL;
    }
    PyObject *out = PyDict_New();
    if (out == NULL) {
        return NULL;
    }
    for (PyMethodDef *d = stats_defs; d->ml_name != NULL; d++) {
        PyObject *m = PyDescr_NewMethod((PyTypeObject *)R_recording_stats, d);
        if (m == NULL || PyDict_SetItemString(out, d->ml_name, m) < 0) {
            Py_XDECREF(m);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(m);
    }
    return out;
}

static PyObject *R_costs_type;      /* kernels/registry.py Costs (transient, scratch, ...) */
static PyObject *R_static_ops;      /* the package's op types (MethodOp, Patch): never in a cycle */
static PyObject *S_ids, *S_memory, *S_sites, *S_trace, *S_flops, *S_find, *S_findings, *S_pos,
                *S_log, *S_lock, *S_figures, *S_rising, *S_shape, *S_dtype, *S_strides,
                *S_storage_offset, *S_device, *S_acquire, *S_release, *S_fold, *S_site, *S_replace,
                *S_first_flops, *S_first_findings;

static int
entry_configure(PyObject *type)
{
    /* made as TraceEntry.one makes it: object.__new__, the fields set, no __init__ */
    if (!PyType_Check(type) || ((PyTypeObject *)type)->tp_new != PyBaseObject_Type.tp_new) {
        return 0;
    }
    PyObject *d = ((PyTypeObject *)type)->tp_dict;
    for (int i = 0; i < E_COUNT; i++) {
        PyObject *descr = PyDict_GetItemString(d, entry_fields[i]);
        if (descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
            return 0;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY) || m->offset < (Py_ssize_t)sizeof(PyObject)
                || m->offset + (Py_ssize_t)sizeof(PyObject *) > ((PyTypeObject *)type)->tp_basicsize) {
            return 0;
        }
        R_entry_members[i] = m;
    }
    return 1;
}

/* Costs: a tuple subclass (a NamedTuple) whose first fields are ``transient`` and ``scratch`` */
static int
costs_configure(PyObject *type)
{
    if (!PyType_Check(type) || !PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type)) {
        return 0;
    }
    PyObject *fields = PyObject_GetAttrString(type, "_fields");
    if (fields == NULL) {
        PyErr_Clear();
        return 0;
    }
    int ok = PyTuple_Check(fields) && PyTuple_GET_SIZE(fields) >= 2
        && PyUnicode_Check(PyTuple_GET_ITEM(fields, 0)) && PyUnicode_Check(PyTuple_GET_ITEM(fields, 1))
        && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(fields, 0), "transient") == 0
        && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(fields, 1), "scratch") == 0;
    Py_DECREF(fields);
    return ok;
}

typedef struct {
    PyObject_HEAD
    PyObject *py;  /* the Python FakeMode._record */
    vectorcallfunc vectorcall;
} RecordObject;

/* Whether folding log[pos:] into stats' figures runs no Python code (so, under the GIL, no
   other thread between its first and last step): the figures keep no timeline and know every
   device the events name (a new one's DeviceFold is made in Python); 0 also when unsure */
static int
fold_is_plain(PyObject *stats, PyObject *log, Py_ssize_t pos)
{
    PyObject *figures = FC_SLOT(stats, ST_figures);
    if (figures == NULL || (PyObject *)Py_TYPE(figures) != R_peak_fold || PF_devices < 0
            || FC_SLOT(figures, PF_timeline) != Py_None) {
        return 0;
    }
    PyObject *devices = FC_SLOT(figures, PF_devices);
    if (devices == NULL || !PyDict_CheckExact(devices)) {
        return 0;
    }
    Py_ssize_t n = PyList_GET_SIZE(log);
    PyObject *seen = NULL;
    for (Py_ssize_t r = pos; r + 3 < n; r += 4) {
        PyObject *dev = PyList_GET_ITEM(log, r + 2);
        if (dev == seen) {
            continue;
        }
        if (!PyUnicode_CheckExact(dev)) {
            return 0;
        }
        PyObject *f = PyDict_GetItemWithError(devices, dev);
        if (f == NULL || !PyObject_TypeCheck(f, &FoldType)) {
            PyErr_Clear();
            return 0;
        }
        seen = dev;
    }
    return (n - pos) % 4 == 0;
}

/* RecordingStats._fold, the log being ahead of the figures: with its lock, and ``_folding``
   set while it folds; without the lock when no fold is under way (``_folding`` is set by
   every fold that takes the lock, before it reads ``_pos``) and this one runs no Python code
   (``fold_is_plain``), since it then runs whole while this thread holds the GIL */
static int
record_fold(PyObject *stats, PyObject *log, PyObject *pos)
{
    int slots = ST_folding >= 0 && (PyObject *)Py_TYPE(stats) == R_recording_stats;
    if (slots && FC_SLOT(stats, ST_folding) == Py_False && PyLong_CheckExact(pos)) {
        Py_ssize_t start = PyLong_AsSsize_t(pos);
        if (start == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (start >= 0 && start <= PyList_GET_SIZE(log) && fold_is_plain(stats, log, start)) {
            PyObject *end = PyLong_FromSsize_t(PyList_GET_SIZE(log));
            if (end == NULL) {
                return -1;
            }
            PyObject *args[4] = {FC_SLOT(stats, ST_figures), log, pos, end};
            PyObject *rose = fold_feed(NULL, args, 4);
            if (rose == NULL) {
                Py_DECREF(end);
                return -1;
            }
            Py_XSETREF(FC_SLOT(stats, ST_pos), end);
            if (rose == Py_True) {
                Py_XSETREF(FC_SLOT(stats, ST_rising), Py_NewRef(Py_True));
            }
            Py_DECREF(rose);
            return 0;
        }
    }
    PyObject *lock = stat_get(stats, ST_lock, S_lock);
    if (lock == NULL) {
        return -1;
    }
    PyObject *got = PyObject_CallMethodNoArgs(lock, S_acquire);
    if (got == NULL) {
        Py_DECREF(lock);
        return -1;
    }
    Py_DECREF(got);
    int ok = -1;
    PyObject *figures = NULL, *end = NULL, *rose = NULL, *folding = NULL;
    if (slots) {  /* a fold under way: no other thread folds without the lock meanwhile */
        folding = FC_SLOT(stats, ST_folding);
        FC_SLOT(stats, ST_folding) = Py_NewRef(Py_True);
    }
    Py_INCREF(pos);
    Py_SETREF(pos, stat_get(stats, ST_pos, S_pos));  /* another thread may have folded */
    if (pos == NULL) {
        goto done;
    }
    end = PyLong_FromSsize_t(PyList_GET_SIZE(log));
    figures = stat_get(stats, ST_figures, S_figures);
    if (end == NULL || figures == NULL) {
        goto done;
    }
    PyObject *args[4] = {figures, log, pos, end};
    rose = fold_feed(NULL, args, 4);
    if (rose == NULL || stat_set(stats, ST_pos, S_pos, end) < 0) {
        goto done;
    }
    if (rose == Py_True && stat_set(stats, ST_rising, S_rising, Py_True) < 0) {
        goto done;
    }
    ok = 0;
done:
    if (slots) {
        Py_XSETREF(FC_SLOT(stats, ST_folding), folding);
    }
    {
        PyObject *exc_type, *exc_value, *exc_tb;
        PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
        PyObject *rel = PyObject_CallMethodNoArgs(lock, S_release);
        if (rel == NULL) {
            Py_XDECREF(exc_type);
            Py_XDECREF(exc_value);
            Py_XDECREF(exc_tb);
            ok = -1;
        }
        else {
            Py_DECREF(rel);
            PyErr_Restore(exc_type, exc_value, exc_tb);
        }
    }
    Py_DECREF(lock);
    Py_XDECREF(pos);
    Py_XDECREF(end);
    Py_XDECREF(figures);
    Py_XDECREF(rose);
    return ok;
}

static PyObject *
record_py(RecordObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    return PyObject_Vectorcall(self->py, args, nargsf, kwnames);
}

/* Meta rows made lately, direct-mapped by their fields' addresses: a fake made from a
   kernel-cache entry's template shares its shape and strides tuples (and dtype, offset and
   device objects) with every other fake of that entry, so its row is found here and shared,
   not made again (a row keeps its fields alive, so an address matched is the object's own) */
#define META_ROWS 1024
static PyObject *meta_rows[META_ROWS];

/* An output's meta row, ``(shape, dtype, strides, storage_offset, device)``, read from the
   fake's and its storage's slots when their layout was checked at set-up (shared when the
   same field objects made the last row in its cache slot). */
static PyObject *
record_meta(PyObject *o)
{
    PyObject *meta = NULL;
    if (FC.array_ready && FC.storage_ready && Py_TYPE(o) == FC.fake_type) {
        PyObject *shape = FC_SLOT(o, FC.a_shape), *dtype = FC_SLOT(o, FC.a_dtype),
                 *strides = FC_SLOT(o, FC.a_strides), *offset = FC_SLOT(o, FC.a_offset),
                 *st = FC_SLOT(o, FC.a_storage);
        if (shape != NULL && dtype != NULL && strides != NULL && offset != NULL && st != NULL
                && Py_TYPE(st) == FC.storage_type && FC_SLOT(st, FC.s_device) != NULL) {
            PyObject *dev = FC_SLOT(st, FC.s_device);
            size_t h = ((size_t)shape >> 4) ^ (((size_t)strides >> 4) * 31u)
                       ^ (((size_t)dtype >> 4) * 131u) ^ ((size_t)offset >> 4) ^ ((size_t)dev >> 6);
            h = (h ^ (h >> 13)) & (META_ROWS - 1);
            PyObject *row = meta_rows[h];
            if (row != NULL && PyTuple_GET_ITEM(row, 0) == shape && PyTuple_GET_ITEM(row, 1) == dtype
                    && PyTuple_GET_ITEM(row, 2) == strides && PyTuple_GET_ITEM(row, 3) == offset
                    && PyTuple_GET_ITEM(row, 4) == dev) {
                return Py_NewRef(row);  /* the same objects: the same row (a tuple, shared) */
            }
            meta = PyTuple_Pack(5, shape, dtype, strides, offset, dev);
            if (meta != NULL) {
                record_untrack_tuple(meta);
                Py_XSETREF(meta_rows[h], Py_NewRef(meta));
            }
            return meta;
        }
    }
    PyObject *fields[5] = {NULL, NULL, NULL, NULL, NULL}, *st = NULL;
    if ((fields[0] = PyObject_GetAttr(o, S_shape)) != NULL
            && (fields[1] = PyObject_GetAttr(o, S_dtype)) != NULL
            && (fields[2] = PyObject_GetAttr(o, S_strides)) != NULL
            && (fields[3] = PyObject_GetAttr(o, S_storage_offset)) != NULL
            && (st = PyObject_GetAttr(o, S_storage)) != NULL
            && (fields[4] = PyObject_GetAttr(st, S_device)) != NULL) {
        meta = PyTuple_Pack(5, fields[0], fields[1], fields[2], fields[3], fields[4]);
    }
    for (int i = 0; i < 5; i++) {
        Py_XDECREF(fields[i]);
    }
    Py_XDECREF(st);
    return meta;
}

/* The outputs' TraceRefs and meta rows: the one output's as themselves, several as tuples
   (TraceEntry keeps them so); 0, or -1 with an error. */
static int
record_outs(IdsObject *ids, PyObject *outs, PyObject **ref, PyObject **meta)
{
    Py_ssize_t n = PyList_GET_SIZE(outs);
    if (n == 1) {
        PyObject *o = PyList_GET_ITEM(outs, 0);
        if ((*ref = ids_ref_fake(ids, o)) == NULL) {
            return -1;
        }
        if ((*meta = record_meta(o)) == NULL) {
            Py_CLEAR(*ref);
            return -1;
        }
        return 0;
    }
    PyObject *refs = PyTuple_New(n), *metas = PyTuple_New(n);
    if (refs == NULL || metas == NULL) {
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {  /* every ref first, as the Python method's list */
        PyObject *r = ids_ref_fake(ids, PyList_GET_ITEM(outs, i));
        if (r == NULL) {
            goto fail;
        }
        PyTuple_SET_ITEM(refs, i, r);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = record_meta(PyList_GET_ITEM(outs, i));
        if (m == NULL) {
            goto fail;
        }
        PyTuple_SET_ITEM(metas, i, m);
    }
    record_untrack_tuple(refs);
    record_untrack_tuple(metas);
    *ref = refs;
    *meta = metas;
    return 0;
fail:
    Py_XDECREF(refs);
    Py_XDECREF(metas);
    return -1;
}

/* findings.extend(f._replace(site=site) for f in found), findings being the mode's */
static int
record_findings(PyObject *acc, PyObject *found, PyObject *site)
{
    Py_INCREF(acc);
    PyObject *kwnames = PyTuple_Pack(1, S_site);
    int ok = kwnames != NULL && PyList_CheckExact(acc) ? 0 : -1;
    if (ok == 0) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(found); i++) {
            PyObject *a[2] = {PyTuple_GET_ITEM(found, i), site};
            PyObject *f = PyObject_VectorcallMethod(S_replace, a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                                    kwnames);
            if (f == NULL || PyList_Append(acc, f) < 0) {
                Py_XDECREF(f);
                ok = -1;
                break;
            }
            Py_DECREF(f);
        }
    }
    else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "FakeMode.findings is not a list");
    }
    Py_XDECREF(kwnames);
    Py_DECREF(acc);
    return ok;
}

static PyObject *record_op(RecordObject *self, PyObject *const *args, size_t nargsf,
                           PyObject *kwnames, StateObject *known);

static PyObject *
record_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    return record_op((RecordObject *)callable, args, nargsf, kwnames, NULL);
}

static PyObject *
record_op(RecordObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames,
          StateObject *known)
{
    /* FakeMode._record(self, func, args, kwargs, out, outs, nbytes, costs, depth, used) for an
       op with fake outputs and a kernel-cache entry (its first call has its FLOPs and findings
       worked out by the Python methods _first_flops and _first_findings); anything else runs
       the Python method. ``known``: the mode's RecordState when the caller
       has it (borrowed), else NULL */
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || nargs != 10 || R_entry_type == NULL || R_no_kwargs == NULL
            || R_recording_stats == NULL || R_fake_type == NULL || R_costs_type == NULL) {
        return record_py(self, args, nargsf, kwnames);
    }
    PyObject *mode = args[0], *func = args[1], *cargs = args[2], *kwargs = args[3],
             *outs = args[5], *nbytes = args[6], *costs = args[7], *depth_o = args[8],
             *used = args[9];
    if ((costs != Py_None && (Py_TYPE(costs) != (PyTypeObject *)R_costs_type
                              || PyTuple_GET_SIZE(costs) < 2))
            || !PyTuple_CheckExact(cargs) || !PyDict_CheckExact(kwargs)
            || !PyList_CheckExact(outs) || PyList_GET_SIZE(outs) < 1 || !PyList_CheckExact(used)
            || PyList_GET_SIZE(used) < 1 || !PyLong_CheckExact(depth_o)) {
        return record_py(self, args, nargsf, kwnames);
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(outs); i++) {
        if ((PyObject *)Py_TYPE(PyList_GET_ITEM(outs, i)) != R_fake_type) {
            return record_py(self, args, nargsf, kwnames);
        }
    }
    Py_ssize_t depth = PyLong_AsSsize_t(depth_o);
    if (depth == -1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *transient = costs != Py_None ? PyTuple_GET_ITEM(costs, 0) : Zero,
             *scratch = costs != Py_None ? PyTuple_GET_ITEM(costs, 1) : Zero;
    StateObject *state = NULL;
    PyObject *result = NULL, *entry = NULL, *flops = NULL, *find = NULL, *found = NULL,
             *ids = NULL, *stats = NULL, *sites = NULL, *trace = NULL, *log = NULL, *pos = NULL,
             *total = NULL, *rising = NULL, *site = NULL, *spec = NULL, *kwspec = NULL,
             *ref = NULL, *meta = NULL, *e = NULL;
    entry = Py_NewRef(PyList_GET_ITEM(used, 0));
    /* everything the common path needs, checked before anything changes */
    if (FC.run_ready && Py_TYPE(entry) == FC.entry_type && FC_SLOT(entry, FC.e_flops) != NULL
            && FC_SLOT(entry, FC.e_findings) != NULL) {  /* a CacheEntry: its slots */
        flops = Py_NewRef(FC_SLOT(entry, FC.e_flops));
        found = Py_NewRef(FC_SLOT(entry, FC.e_findings));
    }
    else if ((flops = PyObject_GetAttr(entry, S_flops)) == NULL
            || (found = PyObject_GetAttr(entry, S_findings)) == NULL) {
        goto done;
    }
    if (known != NULL) {
        state = (StateObject *)Py_NewRef((PyObject *)known);
    }
    else if ((state = mode_state(mode)) == NULL) {  /* not laid out as expected: the Python method */
        PyErr_Clear();
        result = record_py(self, args, nargsf, kwnames);
        goto done;
    }
    find = Py_NewRef(state->find);
    ids = Py_NewRef(state->ids);
    stats = Py_NewRef(state->stats);
    sites = Py_NewRef(state->sites);
    trace = Py_NewRef(state->trace);
    int finding = PyObject_IsTrue(find);
    if (finding < 0) {
        goto done;
    }
    if ((finding && found != Py_None && !PyTuple_CheckExact(found))
            || !PyObject_TypeCheck(ids, &IdsType) || !ids_ready((IdsObject *)ids)
            || R_plain == NULL
            || (PyObject *)Py_TYPE(stats) != R_recording_stats || !PyList_CheckExact(trace)) {
        result = record_py(self, args, nargsf, kwnames);
        goto done;
    }
    if (flops == Py_None) {  /* the entry's first call: FakeMode._first_flops counts and keeps */
        PyObject *a[6] = {mode, func, cargs, kwargs, args[4], entry};
        PyObject *got = PyObject_VectorcallMethod(S_first_flops, a,
                                                  6 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        if (got == NULL) {
            goto done;
        }
        Py_SETREF(flops, got);
    }
    if ((spec = ids_args_spec((IdsObject *)ids, cargs)) == NULL) {
        goto done;
    }
    kwspec = PyDict_GET_SIZE(kwargs) ? ids_kwargs_spec((IdsObject *)ids, kwargs)
                                     : Py_NewRef(R_no_kwargs);
    if (kwspec == NULL) {
        goto done;
    }
    if (PyObject_GC_IsTracked(kwspec)) {  /* a fake's TraceRef made the dict tracked */
        Py_ssize_t p = 0;
        PyObject *k, *v;
        int inert = 1;
        while (inert && PyDict_Next(kwspec, &p, &k, &v)) {
            inert = PyUnicode_CheckExact(k) && record_inert(v);
        }
        if (inert) {
            PyObject_GC_UnTrack(kwspec);
        }
    }
    /* self.flops += flops (nothing to add for the int 0, CPython's one object: a view, a copy) */
    if (flops != Zero) {
        if ((total = PyNumber_InPlaceAdd(state->flops, flops)) == NULL) {
            goto done;
        }
        Py_SETREF(state->flops, Py_NewRef(total));
    }
    /* the fold after each op: may this op be the peak? */
    if ((log = stat_get(stats, ST_log, S_log)) == NULL || (pos = stat_get(stats, ST_pos, S_pos)) == NULL) {
        goto done;
    }
    if (!PyList_CheckExact(log)) {
        PyObject *r = PyObject_CallMethodNoArgs(stats, S_fold);
        if (r == NULL) {
            goto done;
        }
        Py_DECREF(r);
    }
    else {
        int same = PyLong_CheckExact(pos) ? PyLong_AsSsize_t(pos) == PyList_GET_SIZE(log) : 0;
        if (PyErr_Occurred()) {
            goto done;
        }
        if (!same && record_fold(stats, log, pos) < 0) {
            goto done;
        }
    }
    if ((rising = stat_get(stats, ST_rising, S_rising)) == NULL) {
        goto done;
    }
    int whole = PyObject_IsTrue(rising);
    if (whole < 0) {
        goto done;
    }
    if (whole) {
        if (stat_set(stats, ST_rising, S_rising, Py_False) < 0) {
            goto done;
        }
        site = site_whole(sites, depth, 2);  /* Sites.here(True, ...) */
    }
    else {
        site = site_lookup(sites, depth, 2);
    }
    if (site == NULL) {
        goto done;
    }
    if (finding && found == Py_None) {  /* the entry's first call: FakeMode._first_findings */
        PyObject *a[8] = {mode, func, cargs, kwargs, outs, costs, site, entry};
        PyObject *got = PyObject_VectorcallMethod(S_first_findings, a,
                                                  8 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        if (got == NULL) {
            goto done;
        }
        Py_DECREF(got);
    }
    else if (finding && PyTuple_GET_SIZE(found) && record_findings(state->findings, found, site) < 0) {
        goto done;
    }
    if (record_outs((IdsObject *)ids, outs, &ref, &meta) < 0) {
        goto done;
    }
    /* TraceEntry.one (or TraceEntry(...) for several outputs: the same fields) */
    e = ((PyTypeObject *)R_entry_type)->tp_alloc((PyTypeObject *)R_entry_type, 0);
    if (e == NULL) {
        goto done;
    }
    PyObject *values[E_COUNT] = {func, spec, kwspec, ref, meta, nbytes, transient, scratch,
                                 site, flops, ids, Py_None, Py_None};
    int inert = record_inert(func) || (R_static_ops != NULL
                                       && PySet_Contains(R_static_ops, (PyObject *)Py_TYPE(func)) > 0);
    for (int i = 0; i < E_COUNT; i++) {  /* a fresh object's empty slots (T_OBJECT_EX) */
        PyObject **slot = (PyObject **)((char *)e + R_entry_members[i]->offset);
        Py_XSETREF(*slot, Py_NewRef(values[i]));
        if (inert && i != E_IDS && i != E_FUNC && PyType_IS_GC(Py_TYPE(values[i]))
                && !record_inert(values[i])) {
            inert = 0;
        }
    }
    PyErr_Clear();  /* PySet_Contains cannot fail on a type; nothing else set one */
    /* nothing in the entry leads back to it (the ids hold no entry; func is a NumPy callable
       or one of the package's own op objects), so the collector need not visit it: a trace of
       millions of ops costs it nothing */
    if (inert && PyObject_GC_IsTracked(e)) {
        PyObject_GC_UnTrack(e);
    }
    if (PyList_Append(trace, e) < 0) {
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(state);
    Py_XDECREF(entry);
    Py_XDECREF(flops);
    Py_XDECREF(find);
    Py_XDECREF(found);
    Py_XDECREF(ids);
    Py_XDECREF(stats);
    Py_XDECREF(sites);
    Py_XDECREF(trace);
    Py_XDECREF(log);
    Py_XDECREF(pos);
    Py_XDECREF(total);
    Py_XDECREF(rising);
    Py_XDECREF(site);
    Py_XDECREF(spec);
    Py_XDECREF(kwspec);
    Py_XDECREF(ref);
    Py_XDECREF(meta);
    Py_XDECREF(e);
    return result;
}

static PyObject *quick_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames);

static PyObject *
record_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *py, *kind = NULL;
    if ((kwds != NULL && PyDict_GET_SIZE(kwds)) || !PyArg_UnpackTuple(args, "RecordMethod", 1, 2, &py, &kind)
            || (kind != NULL && !PyUnicode_Check(kind))) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "RecordMethod(function, kind='record')");
        }
        return NULL;
    }
    int quick = 0;
    if (kind != NULL) {
        quick = PyUnicode_CompareWithASCIIString(kind, "quick") == 0;
        if (!quick && PyUnicode_CompareWithASCIIString(kind, "record") != 0) {
            PyErr_SetString(PyExc_ValueError, "RecordMethod: kind is 'record' or 'quick'");
            return NULL;
        }
    }
    if (!PyCallable_Check(py)) {
        PyErr_SetString(PyExc_TypeError, "RecordMethod(): the function must be callable");
        return NULL;
    }
    RecordObject *self = (RecordObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->py = Py_NewRef(py);
    self->vectorcall = quick ? quick_vectorcall : record_vectorcall;
    return (PyObject *)self;
}

static int
record_traverse(RecordObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->py);
    return 0;
}

static int
record_clear(RecordObject *self)
{
    Py_CLEAR(self->py);
    return 0;
}

static void
record_dealloc(RecordObject *self)
{
    PyObject_GC_UnTrack(self);
    record_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
record_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

static PyMemberDef record_members[] = {
    {"__wrapped__", T_OBJECT, offsetof(RecordObject, py), READONLY, "the Python method"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject RecordType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "faketensor._speedups.RecordMethod",
    .tp_doc = PyDoc_STR("RecordMethod(function): FakeMode._record with its common op in C."),
    .tp_basicsize = sizeof(RecordObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = record_new,
    .tp_dealloc = (destructor)record_dealloc,
    .tp_traverse = (traverseproc)record_traverse,
    .tp_clear = (inquiry)record_clear,
    .tp_vectorcall_offset = offsetof(RecordObject, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = record_descr_get,
    .tp_members = record_members,
};

/* ---- FakeMode.quick_call --------------------------------------------------------------- */

static PyObject *R_quick_hit;      /* faketensor/_runner.py quick_hit */
static PyObject *R_record_method;  /* FakeMode._record as compiled (a RecordMethod) */
static PyObject *R_quick_depth;    /* the depth _record is given from here: one frame fewer
                                      than from the Python quick_call */
static PyObject *S__record;

static PyObject *
quick_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    /* FakeMode.quick_call(self, func, args, kwargs): quick_hit, then the op charged and
       recorded as the Python method does */
    RecordObject *self = (RecordObject *)callable;
    if (kwnames != NULL || PyVectorcall_NARGS(nargsf) != 4 || R_quick_hit == NULL
            || R_record_method == NULL || R_quick_depth == NULL || !FC.run_ready
            || !FC.storage_ready || !FC.array_ready) {
        return record_py(self, args, nargsf, kwnames);
    }
    PyObject *mode = args[0];
    StateObject *state = mode_state(mode);
    if (state == NULL) {  /* not laid out as expected: the Python method */
        PyErr_Clear();
        return record_py(self, args, nargsf, kwnames);
    }
    int on = PyObject_IsTrue(state->quick);
    if (on <= 0) {
        Py_DECREF(state);
        return on < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *ledger = Py_NewRef(state->ledger);
    PyObject *used = PyList_New(0), *out = NULL, *outs = NULL, *got = NULL;
    if (used == NULL) {
        Py_DECREF(ledger);
        Py_DECREF(state);
        return NULL;
    }
    PyObject *a[5] = {args[1], args[2], args[3], ledger, used};
    out = PyObject_Vectorcall(R_quick_hit, a, 5, NULL);
    Py_DECREF(ledger);
    if (out == NULL || out == Py_None) {
        goto done;
    }
    PyObject *hit = PyList_GET_SIZE(used) ? PyList_GET_ITEM(used, 0) : NULL;
    PyObject *tmpl = hit != NULL && Py_TYPE(hit) == FC.entry_type ? FC_SLOT(hit, FC.e_template) : NULL;
    PyObject *costs = hit != NULL && Py_TYPE(hit) == FC.entry_type ? FC_SLOT(hit, FC.e_costs) : NULL;
    PyObject *st = Py_TYPE(out) == FC.fake_type ? FC_SLOT(out, FC.a_storage) : NULL;
    if (tmpl == NULL || costs == NULL || st == NULL || Py_TYPE(st) != FC.storage_type
            || FC_SLOT(st, FC.s_nbytes) == NULL || FC_SLOT(st, FC.s_device) == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "quick_call: quick_hit answered without its cache entry");
        Py_CLEAR(out);
        goto done;
    }
    PyObject *nbytes = Zero;
    if (Py_TYPE(tmpl) == FC.fresh_type) {  /* memory.charged_bytes: an empty cpu array's byte */
        nbytes = FC_SLOT(st, FC.s_nbytes);
        int empty = PyLong_CheckExact(nbytes) ? PyObject_Not(nbytes) : 0;
        if (empty < 0) {
            Py_CLEAR(out);
            goto done;
        }
        if (empty) {
            int cpu = PyObject_RichCompareBool(FC_SLOT(st, FC.s_device), FC.cpu, Py_EQ);
            if (cpu < 0) {
                Py_CLEAR(out);
                goto done;
            }
            if (cpu) {
                nbytes = One;
            }
        }
    }
    if ((outs = PyList_New(1)) == NULL) {
        Py_CLEAR(out);
        goto done;
    }
    PyList_SET_ITEM(outs, 0, Py_NewRef(out));
    PyObject *r[10] = {mode, args[1], args[2], args[3], out, outs, nbytes, costs, R_quick_depth,
                       used};
    if (_PyType_Lookup(Py_TYPE(mode), S__record) == R_record_method) {
        got = record_op((RecordObject *)R_record_method, r, 10, NULL, state);
    }
    else {  /* a subclass's own _record */
        got = PyObject_VectorcallMethod(S__record, r, 10 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    }
    if (got == NULL) {
        Py_CLEAR(out);
    }
done:
    Py_DECREF(state);
    Py_DECREF(used);
    Py_XDECREF(outs);
    Py_XDECREF(got);
    return out;
}

/* ---- set-up ----------------------------------------------------------------------------- */

static int
record_set(PyObject **slot, PyObject *value)
{
    Py_XSETREF(*slot, Py_NewRef(value));
    return 0;
}

static PyObject *
record_configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    /* configure(name, value): hand the C code one of the Python objects it works with,
       checked here, once (the Python modules call it when they are imported) */
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "configure(name, value)");
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(args[0]);
    PyObject *v = args[1];
    if (name == NULL) {
        return NULL;
    }
    int ok = 0;
    PyObject **slot = NULL;
    if (strcmp(name, "ref_type") == 0) {
        ok = PyType_Check(v) && PyType_IsSubtype((PyTypeObject *)v, &PyLong_Type);
        slot = &R_ref_type;
        if (ok) {
            Py_XSETREF(R_ref_type, Py_NewRef(v));
            ref_small_ok = ref_small_check();
        }
    }
    else if (strcmp(name, "fake_type") == 0) {
        /* FakeArray, on FakeSlots' layout: its serial cache's slots noted (unusable: -1) */
        ok = PyType_Check(v);
        if (ok && ((PyTypeObject *)v)->tp_base != NULL) {
            PyTypeObject *t = (PyTypeObject *)v;
            FT_ids = fc_slot_offset(t->tp_base, t, "_trace_ids");
            FT_ref = fc_slot_offset(t->tp_base, t, "_trace_ref");
            if (FT_ids < 0 || FT_ref < 0) {
                FT_ids = FT_ref = -1;
            }
        }
        slot = &R_fake_type;
    }
    else if (strcmp(name, "storage_type") == 0) {
        ok = PyType_Check(v);
        if (ok) {
            PyTypeObject *t = (PyTypeObject *)v;
            SS_ids = fc_slot_offset(t, t, "_trace_ids");
            SS_serial = fc_slot_offset(t, t, "_trace_serial");
            if (SS_ids < 0 || SS_serial < 0) {
                SS_ids = SS_serial = -1;
            }
        }
        slot = &R_storage_type;
    }
    else if (strcmp(name, "plain") == 0) {
        ok = PyFrozenSet_CheckExact(v);
        slot = &R_plain;
    }
    else if (strcmp(name, "trace_globals") == 0) {
        ok = PyDict_CheckExact(v);
        slot = &R_trace_globals;
    }
    else if (strcmp(name, "getframe") == 0) {
        ok = PyCFunction_Check(v);
        slot = &R_getframe;
    }
    else if (strcmp(name, "spawned_from") == 0) {
        ok = PyContextVar_CheckExact(v);
        slot = &R_spawned;
    }
    else if (strcmp(name, "device_fold") == 0) {
        ok = PyType_Check(v) && PyType_IsSubtype((PyTypeObject *)v, &FoldType);
        slot = &R_device_fold;
    }
    else if (strcmp(name, "pool_round") == 0) {
        ok = PyLong_CheckExact(v) && PyLong_AsLongLong(v) > 0;
        PyErr_Clear();
        slot = &R_pool_round;
    }
    else if (strcmp(name, "entry_type") == 0) {
        ok = entry_configure(v);
        slot = &R_entry_type;
    }
    else if (strcmp(name, "no_kwargs") == 0) {
        ok = PyDict_CheckExact(v) && PyDict_GET_SIZE(v) == 0;
        slot = &R_no_kwargs;
    }
    else if (strcmp(name, "costs_type") == 0) {
        ok = costs_configure(v);
        slot = &R_costs_type;
    }
    else if (strcmp(name, "quick_hit") == 0) {
        ok = PyCallable_Check(v);
        slot = &R_quick_hit;
    }
    else if (strcmp(name, "record_method") == 0) {
        ok = Py_IS_TYPE(v, &RecordType) && ((RecordObject *)v)->vectorcall == record_vectorcall;
        slot = &R_record_method;
    }
    else if (strcmp(name, "quick_depth") == 0) {
        ok = PyLong_CheckExact(v);
        slot = &R_quick_depth;
    }
    else if (strcmp(name, "sites_type") == 0) {
        ok = PyType_Check(v);
        if (ok) {
            SI_user = fc_slot_offset((PyTypeObject *)v, (PyTypeObject *)v, "_user");
            SI_at = fc_slot_offset((PyTypeObject *)v, (PyTypeObject *)v, "_at");
            SI_whole_at = fc_slot_offset((PyTypeObject *)v, (PyTypeObject *)v, "_whole_at");
            SI_stop = fc_slot_offset((PyTypeObject *)v, (PyTypeObject *)v, "stop");
            SI_serial = fc_slot_offset((PyTypeObject *)v, (PyTypeObject *)v, "_serial");
            ok = SI_user >= 0 && SI_at >= 0 && SI_whole_at >= 0 && SI_stop >= 0;
        }
        slot = &R_sites_type;
    }
    else if (strcmp(name, "peak_fold") == 0) {
        ok = PyType_Check(v);
        if (ok) {
            PF_devices = fc_slot_offset((PyTypeObject *)v, (PyTypeObject *)v, "devices");
            PF_timeline = fc_slot_offset((PyTypeObject *)v, (PyTypeObject *)v, "timeline");
            ok = PF_devices >= 0 && PF_timeline >= 0;
        }
        slot = &R_peak_fold;
    }
    else if (strcmp(name, "static_ops") == 0) {
        ok = PyFrozenSet_CheckExact(v);
        slot = &R_static_ops;
    }
    else if (strcmp(name, "fake_mode_type") == 0) {
        ok = PyType_Check(v);
        if (ok) {
            MS_state = fc_slot_offset((PyTypeObject *)v, (PyTypeObject *)v, "_state");
            ok = MS_state >= 0;
        }
        slot = &R_fake_mode_type;
    }
    else if (strcmp(name, "recording_stats") == 0) {
        ok = stats_configure(v);
        slot = &R_recording_stats;
    }
    else {
        PyErr_Format(PyExc_ValueError, "configure(): no setting %R", args[0]);
        return NULL;
    }
    if (ok < 0) {
        return NULL;
    }
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "configure(): %R is not a valid %s", v, name);
        return NULL;
    }
    record_set(slot, v);
    Py_RETURN_NONE;
}

static PyObject *
ref_in_place(PyObject *module, PyObject *unused)
{
    return PyBool_FromLong(ref_small_ok);
}

/* ---- TraceRef ---------------------------------------------------------------------------- */

/* modes/trace.py TraceRef as a static subtype of int: its instances are not tracked by the
   garbage collector (a heap subclass's are, and each one made counts toward a collection) */
static PyObject *
traceref_repr(PyObject *self)
{
    PyObject *n = PyNumber_Long(self);
    if (n == NULL) {
        return NULL;
    }
    PyObject *r = PyUnicode_FromFormat("TraceRef(serial=%S)", n);
    Py_DECREF(n);
    return r;
}

static PyObject *
traceref_serial(PyObject *self, void *closure)
{
    return PyNumber_Long(self);
}

static PyGetSetDef traceref_getset[] = {
    {"serial", (getter)traceref_serial, NULL, "The serial number, as an int.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TraceRefType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "faketensor.modes.trace.TraceRef",
    .tp_doc = PyDoc_STR("A recorded fake, by serial number, inside a trace entry's arguments "
                        "(an int subclass, one per fake)."),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_repr = traceref_repr,
    .tp_getset = traceref_getset,
};

static PyMethodDef record_functions[] = {
    {"stats_methods", (PyCFunction)stats_methods, METH_NOARGS,
     "RecordingStats' _alloc, _charge, _free and _transient in C (method descriptors)."},
    {"ref_in_place", (PyCFunction)ref_in_place, METH_NOARGS,
     "Whether new TraceRefs are made in place (their int digit written) rather than by the type call."},
    {"configure", (PyCFunction)(void (*)(void))record_configure, METH_FASTCALL,
     "configure(name, value): a Python object the recording code works with, checked once."},
    {"site_here", (PyCFunction)(void (*)(void))site_here, METH_FASTCALL,
     "site_here(sites, depth): Sites.here(False, depth) (modes/sites.py)."},
    {"fold_feed", (PyCFunction)(void (*)(void))fold_feed, METH_FASTCALL,
     "fold_feed(fold, log, start, end): PeakFold.feed (modes/memory.py) for a fold without a timeline."},
    {NULL, NULL, 0, NULL},
};

/* A static type made ready and added to the module under ``name``: 0, or -1 with an error */
static int
record_add_type(PyObject *m, PyTypeObject *type, const char *name)
{
    if (PyType_Ready(type) < 0) {
        return -1;
    }
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

static int
record_init(PyObject *m)
{
#define INTERN(var, s) if ((var = PyUnicode_InternFromString(s)) == NULL) return -1
    INTERN(S_storage, "storage");
    INTERN(S_py_ref, "_py_ref");
    INTERN(S_py_alloc, "_py_alloc");
    INTERN(S_py_charge, "_py_charge");
    INTERN(S_py_free, "_py_free");
    INTERN(S_py_transient, "_py_transient");
    INTERN(S_py_args_spec, "_py_args_spec");
    INTERN(S_spec, "spec");
    INTERN(S__twins, "_twins");
    INTERN(S_see, "_see");
    INTERN(S_intern, "_intern");
    INTERN(S_user, "_user");
    INTERN(S_at, "_at");
    INTERN(S_f_lineno, "f_lineno");
    INTERN(S_here, "here");
    INTERN(S_devices, "devices");
    INTERN(S_timeline, "timeline");
    INTERN(S_pool, "pool");
    INTERN(S_live, "live");
    INTERN(S_peak, "peak");
    INTERN(S_pool_live, "pool_live");
    INTERN(S_pool_peak, "pool_peak");
    INTERN(S_allocations, "allocations");
    INTERN(S_allocated, "allocated");
    INTERN(S_peak_op, "peak_op");
    INTERN(S_peak_row, "peak_row");
    INTERN(S_cpu, "cpu");
    INTERN(S_sweep_min, "SWEEP_MIN");
    INTERN(S_feed, "feed");
    INTERN(S_ids, "ids");
    INTERN(S_memory, "memory");
    INTERN(S_sites, "sites");
    INTERN(S_trace, "trace");
    INTERN(S_flops, "flops");
    INTERN(S_first_flops, "_first_flops");
    INTERN(S_first_findings, "_first_findings");
    INTERN(S_find, "find");
    INTERN(S_findings, "findings");
    INTERN(S_pos, "_pos");
    INTERN(S_log, "log");
    INTERN(S_lock, "_lock");
    INTERN(S_figures, "_figures");
    INTERN(S_rising, "rising");
    INTERN(S_shape, "shape");
    INTERN(S_dtype, "dtype");
    INTERN(S_strides, "strides");
    INTERN(S_storage_offset, "storage_offset");
    INTERN(S_device, "device");
    INTERN(S_acquire, "acquire");
    INTERN(S_release, "release");
    INTERN(S_fold, "_fold");
    INTERN(S_site, "site");
    INTERN(S_state, "_state");
    INTERN(S__record, "_record");
    INTERN(S_replace, "_replace");
#undef INTERN
    TraceRefType.tp_base = &PyLong_Type;
    if ((Zero = PyLong_FromLong(0)) == NULL || (One = PyLong_FromLong(1)) == NULL
            || record_add_type(m, &TraceRefType, "TraceRef") < 0
            || record_add_type(m, &SerialsType, "Serials") < 0
            || record_add_type(m, &IdsType, "IdsBase") < 0
            || record_add_type(m, &FoldType, "DeviceFoldBase") < 0
            || record_add_type(m, &StateType, "RecordState") < 0
            || record_add_type(m, &RecordType, "RecordMethod") < 0) {
        return -1;
    }
    return PyModule_AddFunctions(m, record_functions);
}
