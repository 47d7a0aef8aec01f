/* The kernel cache's hit path in C (issue 30; docs/internals/accelerator.md).

   Included from _speedups.c. Four functions, each the compiled twin of a Python function that
   stays the reference and the fallback:

   - ``signature(func, args, kwargs, fakes)``: faketensor/_cache.py ``signature_python``'s key
     (equal tuple, so the same hash), the same ``fakes``, NOKEY in the same cases;
   - ``make_fake(shape, dtype, strides, storage, offset=0, base=None, writeable=True)``:
     faketensor/_array.py ``make_fake_python``, a FakeArray allocated and filled directly;
   - ``new_storage(nbytes, device)``: ``FakeStorage(nbytes, device)``;
   - ``run_fake(func, args, kwargs, ...)``: faketensor/_runner.py ``_run_fake_python``, whose
     fresh-output cache hit it does whole, calling back into Python for everything else.

   ``setup(name, *objects)`` hands each one the Python objects it reads, once, at import: it
   checks their layout (exact types, slots that are plain object slots of the class, found by
   their member descriptors' offsets) and answers False, so that the Python function is used,
   when anything is not as expected. After set-up, a function given anything it does not know
   (a subclass, a missing slot, a big offset, a keyword argument) calls its Python twin, which
   decides; so the compiled path only ever does what the Python code would do. */

#define FC_SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))
#define FC_MAX_VALUE_TYPES 16
#define FC_MAX_DEPTH 32     /* nested sequences deeper than this: the Python signature */
#define FC_MAX_PAIRS 256    /* more fakes than this in one call: the Python signature */

enum { FC_NOKEY = 0, FC_OK = 1, FC_ERROR = -1, FC_FALLBACK = -2 };

static struct {
    /* make_fake: FakeArray and its slots' offsets (FakeSlots' member descriptors) */
    PyTypeObject *fake_type;
    PyObject *make_fake_python;
    Py_ssize_t a_shape, a_dtype, a_strides, a_storage, a_offset, a_base, a_writeable, a_warn,
        a_cf, a_al, a_pytype, a_trace_ids, a_trace_ref;
    /* new_storage: FakeStorage and its slots */
    PyTypeObject *storage_type;
    Py_ssize_t s_nbytes, s_device, s_alignment, s_tracker, s_key, s_known, s_content, s_recipe,
        s_trace_ids, s_trace_serial;
    PyObject *alignment;  /* 64, FakeStorage's default */
    /* signature */
    PyObject *signature_python, *value_key, *scalar, *sizes_made, *bounded_shape, *nokey,
        *nested, *kwargs_marker, *cpu;
    PyObject *value_types[FC_MAX_VALUE_TYPES];
    int n_value_types;
    Py_ssize_t max_sequence;
    /* run_fake */
    PyObject *run_fake_python, *run_miss, *instantiate, *entries, *info, *one;
    PyObject *zero;  /* make_fake's default offset */
    PyTypeObject *entry_type, *fresh_type, *view_type, *meta_type;
    Py_ssize_t i_hits, i_enabled, e_template, e_costs, e_flops, e_findings;
    Py_ssize_t m_shape, m_dtype, m_strides, m_offset, m_writeable, m_base_shape, m_device,
        m_scalar, m_value, m_warn_on_write, m_fields;
    int array_ready, storage_ready, signature_ready, run_ready;
} FC;

/* ---- set-up -------------------------------------------------------------------------- */

/* The offset of ``name``, a plain writable object slot that ``owner`` itself declares
   (``__slots__``), read from its member descriptor; -1 when it is anything else. */
static Py_ssize_t
fc_slot_offset(PyTypeObject *owner, PyTypeObject *user, const char *name)
{
    PyObject *dict = PyObject_GetAttrString((PyObject *)owner, "__dict__");
    if (dict == NULL) {
        PyErr_Clear();
        return -1;
    }
    PyObject *d = PyMapping_GetItemString(dict, name);
    Py_DECREF(dict);
    if (d == NULL) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t off = -1;
    if (Py_TYPE(d) == &PyMemberDescr_Type) {
        PyMemberDescrObject *md = (PyMemberDescrObject *)d;
        PyMemberDef *m = md->d_member;
        if (md->d_common.d_type == owner && m->type == T_OBJECT_EX && !(m->flags & READONLY)
                && m->offset >= (Py_ssize_t)sizeof(PyObject)
                && m->offset + (Py_ssize_t)sizeof(PyObject *) <= owner->tp_basicsize
                && m->offset + (Py_ssize_t)sizeof(PyObject *) <= user->tp_basicsize) {
            off = m->offset;
        }
    }
    Py_DECREF(d);
    return off;
}

/* A heap type whose instances ``tp_alloc`` makes with every slot NULL, that has no
   ``__dict__`` and that keeps the same layout as ``base`` (NULL: not checked). */
static int
fc_plain_type(PyObject *t, PyTypeObject *base)
{
    if (!PyType_Check(t)) {
        return 0;
    }
    PyTypeObject *tp = (PyTypeObject *)t;
    if (!(tp->tp_flags & Py_TPFLAGS_HEAPTYPE) || tp->tp_itemsize != 0 || tp->tp_dictoffset != 0
            || tp->tp_alloc != PyType_GenericAlloc) {
        return 0;
    }
#ifdef Py_TPFLAGS_MANAGED_DICT
    if (tp->tp_flags & Py_TPFLAGS_MANAGED_DICT) {
        return 0;
    }
#endif
    if (base != NULL && (!PyType_IsSubtype(tp, base) || tp->tp_basicsize != base->tp_basicsize)) {
        return 0;
    }
    return 1;
}

static void
fc_set(PyObject **field, PyObject *value)
{
    Py_XSETREF(*field, Py_XNewRef(value));
}

static int
fc_setup_make_fake(PyObject *const *a, Py_ssize_t n)
{
    /* (FakeSlots, FakeArray, make_fake_python) */
    if (n != 3 || !fc_plain_type(a[0], NULL) || !fc_plain_type(a[1], (PyTypeObject *)a[0])
            || !PyCallable_Check(a[2])) {
        return 0;
    }
    PyTypeObject *slots = (PyTypeObject *)a[0], *fake = (PyTypeObject *)a[1];
    Py_ssize_t *offs[] = {&FC.a_shape, &FC.a_dtype, &FC.a_strides, &FC.a_storage, &FC.a_offset,
                          &FC.a_base, &FC.a_writeable, &FC.a_warn, &FC.a_cf, &FC.a_al,
                          &FC.a_pytype, &FC.a_trace_ids, &FC.a_trace_ref};
    const char *names[] = {"shape", "dtype", "strides", "storage", "storage_offset", "_base",
                           "_writeable", "_warn_on_write", "_cf", "_al", "pytype", "_trace_ids",
                           "_trace_ref"};
    for (int i = 0; i < 13; i++) {
        Py_ssize_t off = fc_slot_offset(slots, fake, names[i]);
        if (off < 0) {
            return 0;
        }
        *offs[i] = off;
    }
    if (FC.zero == NULL && (FC.zero = PyLong_FromLong(0)) == NULL) {
        return -1;
    }
    fc_set((PyObject **)&FC.fake_type, a[1]);
    fc_set(&FC.make_fake_python, a[2]);
    FC.array_ready = 1;
    return 1;
}

static int
fc_setup_new_storage(PyObject *const *a, Py_ssize_t n)
{
    /* (FakeStorage,) */
    if (n != 1 || !fc_plain_type(a[0], NULL)) {
        return 0;
    }
    PyTypeObject *st = (PyTypeObject *)a[0];
    Py_ssize_t *offs[] = {&FC.s_nbytes, &FC.s_device, &FC.s_alignment, &FC.s_tracker,
                          &FC.s_key, &FC.s_known, &FC.s_content, &FC.s_recipe,
                          &FC.s_trace_ids, &FC.s_trace_serial};
    const char *names[] = {"nbytes", "device", "alignment", "_tracker", "_key", "known",
                           "content", "recipe", "_trace_ids", "_trace_serial"};
    for (int i = 0; i < 10; i++) {
        Py_ssize_t off = fc_slot_offset(st, st, names[i]);
        if (off < 0) {
            return 0;
        }
        *offs[i] = off;
    }
    if (FC.alignment == NULL && (FC.alignment = PyLong_FromLong(64)) == NULL) {
        return -1;
    }
    fc_set((PyObject **)&FC.storage_type, a[0]);
    FC.storage_ready = 1;
    return 1;
}

static int
fc_setup_signature(PyObject *const *a, Py_ssize_t n)
{
    /* (signature_python, _value_key, SCALAR, _VALUES, SIZES_MADE, bounded_shape, NOKEY,
        _NESTED, _KWARGS, MAX_SEQUENCE) */
    if (n != 10 || !FC.array_ready || !FC.storage_ready || !PyCallable_Check(a[0])
            || !PyCallable_Check(a[1]) || !PyFrozenSet_CheckExact(a[3])
            || PySet_GET_SIZE(a[3]) > FC_MAX_VALUE_TYPES || !PyList_CheckExact(a[4])
            || !PyCallable_Check(a[5]) || !PyLong_CheckExact(a[9])) {
        return 0;
    }
    Py_ssize_t max_sequence = PyLong_AsSsize_t(a[9]);
    if (max_sequence < 0) {
        PyErr_Clear();
        return 0;
    }
    PyObject *types[FC_MAX_VALUE_TYPES];
    int nt = 0;
    PyObject *it = PyObject_GetIter(a[3]), *t;
    if (it == NULL) {
        return -1;
    }
    while ((t = PyIter_Next(it)) != NULL) {
        Py_DECREF(t);  /* the frozenset holds it */
        if (!PyType_Check(t) || nt == FC_MAX_VALUE_TYPES) {
            Py_DECREF(it);
            return 0;
        }
        types[nt++] = t;
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        return -1;
    }
    if (FC.cpu == NULL && (FC.cpu = PyUnicode_InternFromString("cpu")) == NULL) {
        return -1;
    }
    for (int i = 0; i < FC.n_value_types; i++) {
        Py_CLEAR(FC.value_types[i]);
    }
    for (int i = 0; i < nt; i++) {
        FC.value_types[i] = Py_NewRef(types[i]);
    }
    FC.n_value_types = nt;
    fc_set(&FC.signature_python, a[0]);
    fc_set(&FC.value_key, a[1]);
    fc_set(&FC.scalar, a[2]);
    fc_set(&FC.sizes_made, a[4]);
    fc_set(&FC.bounded_shape, a[5]);
    fc_set(&FC.nokey, a[6]);
    fc_set(&FC.nested, a[7]);
    fc_set(&FC.kwargs_marker, a[8]);
    FC.max_sequence = max_sequence;
    FC.signature_ready = 1;
    return 1;
}

/* The index of ``name`` in a NamedTuple class's ``_fields``; -1 if absent. */
static Py_ssize_t
fc_field(PyObject *fields, const char *name)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fields); i++) {
        PyObject *f = PyTuple_GET_ITEM(fields, i);
        if (PyUnicode_Check(f) && PyUnicode_CompareWithASCIIString(f, name) == 0) {
            return i;
        }
    }
    return -1;
}

static int
fc_setup_run_fake(PyObject *const *a, Py_ssize_t n)
{
    /* (_run_fake_python, _run_miss, _instantiate, ENTRIES, INFO, CacheEntry, FreshOut,
        ViewOut, ArrayMeta) */
    if (n != 9 || !FC.signature_ready || !PyCallable_Check(a[0]) || !PyCallable_Check(a[1])
            || !PyCallable_Check(a[2]) || !PyDict_Check(a[3]) || !fc_plain_type(a[5], NULL)
            || !PyType_Check(a[6]) || !PyType_Check(a[7]) || !PyType_Check(a[8])) {
        return 0;
    }
    PyTypeObject *info_type = Py_TYPE(a[4]);
    if (!fc_plain_type((PyObject *)info_type, NULL)
            || info_type->tp_setattro != PyObject_GenericSetAttr) {
        return 0;
    }
    Py_ssize_t hits = fc_slot_offset(info_type, info_type, "hits");
    Py_ssize_t enabled = fc_slot_offset(info_type, info_type, "enabled");
    PyTypeObject *entry = (PyTypeObject *)a[5];
    Py_ssize_t tmpl = fc_slot_offset(entry, entry, "template");
    Py_ssize_t costs = fc_slot_offset(entry, entry, "costs");
    Py_ssize_t flops = fc_slot_offset(entry, entry, "flops");  /* read by the compiled _record */
    Py_ssize_t findings = fc_slot_offset(entry, entry, "findings");
    if (hits < 0 || enabled < 0 || tmpl < 0 || costs < 0 || flops < 0 || findings < 0) {
        return 0;
    }
    /* FreshOut(meta, nbytes), ViewOut(meta, source) and ArrayMeta: NamedTuples, read by
       position */
    PyTypeObject *fresh = (PyTypeObject *)a[6], *view = (PyTypeObject *)a[7],
                 *meta = (PyTypeObject *)a[8];
    if (!PyType_IsSubtype(fresh, &PyTuple_Type) || !PyType_IsSubtype(view, &PyTuple_Type)
            || !PyType_IsSubtype(meta, &PyTuple_Type)) {
        return 0;
    }
    PyObject *ff = PyObject_GetAttrString(a[6], "_fields");
    PyObject *vf = ff == NULL ? NULL : PyObject_GetAttrString(a[7], "_fields");
    PyObject *mf = vf == NULL ? NULL : PyObject_GetAttrString(a[8], "_fields");
    int ok = 0;
    if (mf != NULL && PyTuple_CheckExact(ff) && PyTuple_CheckExact(vf) && PyTuple_CheckExact(mf)
            && PyTuple_GET_SIZE(ff) == 2 && fc_field(ff, "meta") == 0
            && fc_field(ff, "nbytes") == 1 && PyTuple_GET_SIZE(vf) == 2
            && fc_field(vf, "meta") == 0 && fc_field(vf, "source") == 1) {
        const char *names[] = {"shape", "dtype", "strides", "offset", "writeable", "base_shape",
                               "device", "scalar", "value", "warn_on_write"};
        Py_ssize_t *idx[] = {&FC.m_shape, &FC.m_dtype, &FC.m_strides, &FC.m_offset,
                             &FC.m_writeable, &FC.m_base_shape, &FC.m_device, &FC.m_scalar,
                             &FC.m_value, &FC.m_warn_on_write};
        ok = 1;
        for (int i = 0; i < 10; i++) {
            if ((*idx[i] = fc_field(mf, names[i])) < 0) {
                ok = 0;
            }
        }
        FC.m_fields = PyTuple_GET_SIZE(mf);
    }
    PyErr_Clear();
    Py_XDECREF(ff);
    Py_XDECREF(vf);
    Py_XDECREF(mf);
    if (!ok) {
        return 0;
    }
    if (FC.one == NULL && (FC.one = PyLong_FromLong(1)) == NULL) {
        return -1;
    }
    FC.i_hits = hits;
    FC.i_enabled = enabled;
    FC.e_template = tmpl;
    FC.e_costs = costs;
    FC.e_flops = flops;
    FC.e_findings = findings;
    fc_set(&FC.run_fake_python, a[0]);
    fc_set(&FC.run_miss, a[1]);
    fc_set(&FC.instantiate, a[2]);
    fc_set(&FC.entries, a[3]);
    fc_set(&FC.info, a[4]);
    fc_set((PyObject **)&FC.entry_type, a[5]);
    fc_set((PyObject **)&FC.fresh_type, a[6]);
    fc_set((PyObject **)&FC.view_type, a[7]);
    fc_set((PyObject **)&FC.meta_type, a[8]);
    FC.run_ready = 1;
    return 1;
}

static PyObject *
fc_setup(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "setup(name, *objects): name must be a str");
        return NULL;
    }
    PyObject *name = args[0];
    int r;
    if (PyUnicode_CompareWithASCIIString(name, "make_fake") == 0) {
        r = fc_setup_make_fake(args + 1, nargs - 1);
    }
    else if (PyUnicode_CompareWithASCIIString(name, "new_storage") == 0) {
        r = fc_setup_new_storage(args + 1, nargs - 1);
    }
    else if (PyUnicode_CompareWithASCIIString(name, "signature") == 0) {
        r = fc_setup_signature(args + 1, nargs - 1);
    }
    else if (PyUnicode_CompareWithASCIIString(name, "run_fake") == 0) {
        r = fc_setup_run_fake(args + 1, nargs - 1);
    }
    else {
        PyErr_Format(PyExc_ValueError, "setup(): no compiled function %R", name);
        return NULL;
    }
    if (r < 0) {
        return NULL;
    }
    return Py_NewRef(r ? Py_True : Py_False);
}

/* ---- make_fake, new_storage ---------------------------------------------------------- */

static PyObject *
fc_new_fake(PyObject *shape, PyObject *dtype, PyObject *strides, PyObject *storage,
            PyObject *offset, PyObject *base, PyObject *writeable)
{
    PyTypeObject *t = FC.fake_type;
    PyObject *a = t->tp_alloc(t, 0);  /* every slot NULL; GC-tracked; weakref slot empty */
    if (a == NULL) {
        return NULL;
    }
    FC_SLOT(a, FC.a_shape) = Py_NewRef(shape);
    FC_SLOT(a, FC.a_dtype) = Py_NewRef(dtype);
    FC_SLOT(a, FC.a_strides) = Py_NewRef(strides);
    FC_SLOT(a, FC.a_storage) = Py_NewRef(storage);
    FC_SLOT(a, FC.a_offset) = Py_NewRef(offset);
    FC_SLOT(a, FC.a_base) = Py_NewRef(base);
    FC_SLOT(a, FC.a_writeable) = Py_NewRef(writeable);
    FC_SLOT(a, FC.a_warn) = Py_NewRef(Py_False);
    FC_SLOT(a, FC.a_cf) = Py_NewRef(Py_None);
    FC_SLOT(a, FC.a_al) = Py_NewRef(Py_None);
    FC_SLOT(a, FC.a_pytype) = Py_NewRef(Py_None);
    FC_SLOT(a, FC.a_trace_ids) = Py_NewRef(Py_None);
    FC_SLOT(a, FC.a_trace_ref) = Py_NewRef(Py_None);
    return a;
}

static PyObject *
fc_make_fake(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargsf,
             PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (!FC.array_ready) {
        PyErr_SetString(PyExc_RuntimeError, "make_fake: not set up");
        return NULL;
    }
    if (kwnames != NULL || n < 4 || n > 7) {
        return PyObject_Vectorcall(FC.make_fake_python, args, nargsf, kwnames);
    }
    return fc_new_fake(args[0], args[1], args[2], args[3], n > 4 ? args[4] : FC.zero,
                       n > 5 ? args[5] : Py_None, n > 6 ? args[6] : Py_True);
}

static PyObject *
fc_new_storage_impl(PyObject *nbytes, PyObject *device)
{
    if (!PyLong_CheckExact(nbytes)) {  /* FakeStorage.__init__ converts it with int() */
        PyObject *a[2] = {nbytes, device};
        return PyObject_Vectorcall((PyObject *)FC.storage_type, a, 2, NULL);
    }
    PyTypeObject *t = FC.storage_type;
    PyObject *s = t->tp_alloc(t, 0);  /* its __del__ (tp_finalize) runs when it dies */
    if (s == NULL) {
        return NULL;
    }
    FC_SLOT(s, FC.s_nbytes) = Py_NewRef(nbytes);
    FC_SLOT(s, FC.s_device) = Py_NewRef(device);
    FC_SLOT(s, FC.s_alignment) = Py_NewRef(FC.alignment);
    FC_SLOT(s, FC.s_tracker) = Py_NewRef(Py_None);
    FC_SLOT(s, FC.s_key) = Py_NewRef(Py_None);
    FC_SLOT(s, FC.s_known) = Py_NewRef(Py_None);
    FC_SLOT(s, FC.s_content) = Py_NewRef(Py_None);
    FC_SLOT(s, FC.s_recipe) = Py_NewRef(Py_None);
    FC_SLOT(s, FC.s_trace_ids) = Py_NewRef(Py_None);
    FC_SLOT(s, FC.s_trace_serial) = Py_NewRef(Py_None);
    return s;
}

static PyObject *
fc_new_storage(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargsf,
               PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (!FC.storage_ready) {
        PyErr_SetString(PyExc_RuntimeError, "new_storage: not set up");
        return NULL;
    }
    if (kwnames != NULL || n != 2) {
        return PyObject_Vectorcall((PyObject *)FC.storage_type, args, nargsf, kwnames);
    }
    return fc_new_storage_impl(args[0], args[1]);
}

/* ---- signature ----------------------------------------------------------------------- */

/* A growing array of owned references, on the stack while short. */
typedef struct {
    PyObject **v;
    Py_ssize_t n, cap;
    PyObject *stack[32];
} fc_parts;

static void
fc_parts_init(fc_parts *p)
{
    p->v = p->stack;
    p->n = 0;
    p->cap = 32;
}

static void
fc_parts_free(fc_parts *p)
{
    for (Py_ssize_t i = 0; i < p->n; i++) {
        Py_DECREF(p->v[i]);
    }
    if (p->v != p->stack) {
        PyMem_Free(p->v);
    }
    p->n = 0;
}

/* Appends ``o`` (a new reference, stolen; NULL: an error already set). */
static int
fc_push(fc_parts *p, PyObject *o)
{
    if (o == NULL) {
        return -1;
    }
    if (p->n == p->cap) {
        Py_ssize_t cap = p->cap * 2;
        PyObject **v = PyMem_Malloc(cap * sizeof(PyObject *));
        if (v == NULL) {
            Py_DECREF(o);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(v, p->v, p->n * sizeof(PyObject *));
        if (p->v != p->stack) {
            PyMem_Free(p->v);
        }
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = o;
    return 0;
}

/* The parts as a tuple (the references move into it); NULL on error. */
static PyObject *
fc_parts_tuple(fc_parts *p)
{
    PyObject *t = PyTuple_New(p->n);
    if (t == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < p->n; i++) {
        PyTuple_SET_ITEM(t, i, p->v[i]);
    }
    p->n = 0;
    return t;
}

static int
fc_is_value_type(PyTypeObject *t)
{
    for (int i = 0; i < FC.n_value_types; i++) {
        if ((PyObject *)t == FC.value_types[i]) {
            return 1;
        }
    }
    return 0;
}

/* ``v & 15`` for an int that fits 64 bits; NULL (no error) for anything else. */
static PyObject *
fc_low4(PyObject *v)
{
    if (!PyLong_CheckExact(v)) {
        return NULL;
    }
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow) {
        return NULL;
    }
    return PyLong_FromLongLong(x & 15);  /* 0..15: a cached small int, never fails */
}

/* The key of the fake ``x`` (exactly a FakeArray), appended to ``fakes``: _add_keys' 10-tuple
   at the top level, _value_key's 9-tuple when ``nested``. */
static int
fc_fake_key(PyObject *x, PyObject *fakes, int nested, PyObject **out)
{
    PyObject *st = FC_SLOT(x, FC.a_storage);
    if (st == NULL || Py_TYPE(st) != FC.storage_type) {
        return FC_FALLBACK;
    }
    PyObject *dev = FC_SLOT(st, FC.s_device);
    if (dev == NULL || !PyUnicode_CheckExact(dev)) {
        return FC_FALLBACK;
    }
    if (dev != FC.cpu && PyUnicode_Compare(dev, FC.cpu) != 0) {
        return FC_NOKEY;
    }
    if (!nested) {  /* SIZES_MADE[0] and bounded_shape(x.shape) */
        if (PyList_GET_SIZE(FC.sizes_made) < 1) {
            return FC_FALLBACK;
        }
        PyObject *made = Py_NewRef(PyList_GET_ITEM(FC.sizes_made, 0));
        int on = PyObject_IsTrue(made);
        Py_DECREF(made);
        if (on < 0) {
            return FC_ERROR;
        }
        if (on) {
            PyObject *shape = FC_SLOT(x, FC.a_shape);
            if (shape == NULL) {
                return FC_FALLBACK;
            }
            PyObject *r = PyObject_CallOneArg(FC.bounded_shape, shape);
            if (r == NULL) {
                return FC_ERROR;
            }
            int b = PyObject_IsTrue(r);
            Py_DECREF(r);
            if (b < 0) {
                return FC_ERROR;
            }
            if (b) {
                return FC_NOKEY;
            }
            st = FC_SLOT(x, FC.a_storage);  /* read again after Python code ran */
            if (st == NULL || Py_TYPE(st) != FC.storage_type) {
                return FC_FALLBACK;
            }
        }
    }
    PyObject *shape = FC_SLOT(x, FC.a_shape), *strides = FC_SLOT(x, FC.a_strides),
             *dtype = FC_SLOT(x, FC.a_dtype), *w = FC_SLOT(x, FC.a_writeable),
             *warn = FC_SLOT(x, FC.a_warn), *base = FC_SLOT(x, FC.a_base),
             *off = FC_SLOT(x, FC.a_offset), *align = FC_SLOT(st, FC.s_alignment),
             *tracker = FC_SLOT(st, FC.s_tracker), *pytype = FC_SLOT(x, FC.a_pytype);
    if (shape == NULL || strides == NULL || dtype == NULL || w == NULL || warn == NULL
            || base == NULL || off == NULL || align == NULL || tracker == NULL
            || (!nested && pytype == NULL)) {
        return FC_FALLBACK;
    }
    PyObject *off4 = fc_low4(off), *align4 = fc_low4(align);
    if (off4 == NULL || align4 == NULL) {
        Py_XDECREF(off4);
        Py_XDECREF(align4);
        return FC_FALLBACK;
    }
    PyObject *k = PyTuple_New(nested ? 9 : 10);
    if (k == NULL) {
        Py_DECREF(off4);
        Py_DECREF(align4);
        return FC_ERROR;
    }
    PyTuple_SET_ITEM(k, 0, Py_NewRef(shape));
    PyTuple_SET_ITEM(k, 1, Py_NewRef(strides));
    PyTuple_SET_ITEM(k, 2, Py_NewRef(dtype));
    PyTuple_SET_ITEM(k, 3, Py_NewRef(w));
    PyTuple_SET_ITEM(k, 4, Py_NewRef(warn));
    PyTuple_SET_ITEM(k, 5, Py_NewRef(base == Py_None ? Py_True : Py_False));
    PyTuple_SET_ITEM(k, 6, off4);
    PyTuple_SET_ITEM(k, 7, align4);
    PyTuple_SET_ITEM(k, 8, Py_NewRef(tracker == FC.scalar ? Py_True : Py_False));
    if (!nested) {
        PyTuple_SET_ITEM(k, 9, Py_NewRef(pytype));
    }
    if (PyList_Append(fakes, x) < 0) {
        Py_DECREF(k);
        return FC_ERROR;
    }
    *out = k;
    return FC_OK;
}

static int fc_value_key(PyObject *x, PyObject *fakes, int depth, PyObject **out);

/* _value_key of a tuple or list ``x`` (type ``t``). */
static int
fc_sequence_key(PyObject *x, PyTypeObject *t, PyObject *fakes, int depth, PyObject **out)
{
    if (depth >= FC_MAX_DEPTH) {
        return FC_FALLBACK;
    }
    if (Py_SIZE(x) > FC.max_sequence) {
        return FC_NOKEY;
    }
    fc_parts p;
    fc_parts_init(&p);
    if (fc_push(&p, Py_NewRef((PyObject *)t)) < 0) {
        return FC_ERROR;
    }
    /* Py_SIZE read each time: a list is walked as Python's iterator walks it */
    for (Py_ssize_t i = 0; i < Py_SIZE(x); i++) {
        PyObject *v = Py_NewRef(t == &PyList_Type ? PyList_GET_ITEM(x, i) : PyTuple_GET_ITEM(x, i));
        PyObject *k = NULL;
        int r = fc_value_key(v, fakes, depth + 1, &k);
        Py_DECREF(v);
        if (r != FC_OK) {
            fc_parts_free(&p);
            return r;
        }
        if (fc_push(&p, k) < 0) {
            fc_parts_free(&p);
            return FC_ERROR;
        }
    }
    PyObject *tup = fc_parts_tuple(&p);
    fc_parts_free(&p);
    if (tup == NULL) {
        return FC_ERROR;
    }
    *out = tup;
    return FC_OK;
}

static int
fc_small(PyObject *v)
{
    return v == Py_None || PyLong_CheckExact(v);
}

/* _value_key of a slice. */
static int
fc_slice_key(PyObject *x, PyObject *fakes, int depth, PyObject **out)
{
    PySliceObject *s = (PySliceObject *)x;
    if (fc_small(s->start) && fc_small(s->stop) && fc_small(s->step)) {
        *out = PyTuple_Pack(4, (PyObject *)&PySlice_Type, s->start, s->stop, s->step);
        return *out == NULL ? FC_ERROR : FC_OK;
    }
    if (depth >= FC_MAX_DEPTH) {
        return FC_FALLBACK;
    }
    /* all three ends are keyed (fakes collected) before any NOKEY is looked for */
    PyObject *ends[3] = {s->start, s->stop, s->step};
    PyObject *keys[3] = {NULL, NULL, NULL};
    int nokey = 0;
    for (int i = 0; i < 3; i++) {
        PyObject *e = Py_NewRef(ends[i]);
        int r = fc_value_key(e, fakes, depth + 1, &keys[i]);
        Py_DECREF(e);
        if (r == FC_NOKEY) {
            nokey = 1;
            keys[i] = NULL;
        }
        else if (r != FC_OK) {
            for (int j = 0; j < i; j++) {
                Py_XDECREF(keys[j]);
            }
            return r;
        }
    }
    int r = FC_NOKEY;
    if (!nokey) {
        PyObject *k = PyTuple_Pack(3, keys[0], keys[1], keys[2]);
        *out = k == NULL ? NULL : PyTuple_Pack(2, (PyObject *)&PySlice_Type, k);
        Py_XDECREF(k);
        r = *out == NULL ? FC_ERROR : FC_OK;
    }
    for (int i = 0; i < 3; i++) {
        Py_XDECREF(keys[i]);
    }
    return r;
}

/* faketensor/_cache.py _value_key: fakes, plain values, sequences and slices here,
   anything else (dtypes, NumPy scalars, objects) by the Python function. */
static int
fc_value_key(PyObject *x, PyObject *fakes, int depth, PyObject **out)
{
    PyTypeObject *t = Py_TYPE(x);
    if (t == FC.fake_type) {
        return fc_fake_key(x, fakes, 1, out);
    }
    if (fc_is_value_type(t)) {
        *out = PyTuple_Pack(2, (PyObject *)t, x);
        return *out == NULL ? FC_ERROR : FC_OK;
    }
    if (t == &PyTuple_Type || t == &PyList_Type) {
        return fc_sequence_key(x, t, fakes, depth, out);
    }
    if (t == &PySlice_Type) {
        return fc_slice_key(x, fakes, depth, out);
    }
    PyObject *a[2] = {x, fakes};
    PyObject *k = PyObject_Vectorcall(FC.value_key, a, 2, NULL);
    if (k == NULL) {
        return FC_ERROR;
    }
    if (k == FC.nokey) {
        Py_DECREF(k);
        return FC_NOKEY;
    }
    *out = k;
    return FC_OK;
}

/* faketensor/_cache.py _add_keys over ``n`` values. */
static int
fc_add_keys(PyObject *const *values, Py_ssize_t n, fc_parts *p, PyObject *fakes)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = values[i];
        PyTypeObject *t = Py_TYPE(x);
        PyObject *k = NULL;
        int r;
        if (t == FC.fake_type) {
            r = fc_fake_key(x, fakes, 0, &k);
            if (r != FC_OK) {
                return r;
            }
            if (fc_push(p, k) < 0) {
                return FC_ERROR;
            }
        }
        else if (fc_is_value_type(t)) {
            if (fc_push(p, Py_NewRef((PyObject *)t)) < 0 || fc_push(p, Py_NewRef(x)) < 0) {
                return FC_ERROR;
            }
        }
        else {
            r = fc_value_key(x, fakes, 0, &k);
            if (r != FC_OK) {
                return r;
            }
            if (fc_push(p, Py_NewRef(FC.nested)) < 0 || fc_push(p, k) < 0) {
                return FC_ERROR;
            }
        }
    }
    return FC_OK;
}

/* ``b.storage_offset - a.storage_offset`` for two fakes. */
static PyObject *
fc_distance(PyObject *a, PyObject *b)
{
    PyObject *oa = FC_SLOT(a, FC.a_offset), *ob = FC_SLOT(b, FC.a_offset);
    if (oa == NULL || ob == NULL) {
        return NULL;
    }
    return PyNumber_Subtract(ob, oa);
}

/* The last parts: which fakes are one fake or share a storage, and how far apart. */
static int
fc_add_pairs(fc_parts *p, PyObject *fakes)
{
    Py_ssize_t n = PyList_GET_SIZE(fakes);
    if (n < 2) {
        return FC_OK;
    }
    if (n > FC_MAX_PAIRS) {
        return FC_FALLBACK;
    }
    PyObject **f = ((PyListObject *)fakes)->ob_item;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (Py_TYPE(f[i]) != FC.fake_type || FC_SLOT(f[i], FC.a_storage) == NULL
                || FC_SLOT(f[i], FC.a_offset) == NULL) {
            return FC_FALLBACK;
        }
    }
    if (n == 2) {
        if (FC_SLOT(f[0], FC.a_storage) != FC_SLOT(f[1], FC.a_storage)) {
            return fc_push(p, Py_NewRef(Py_False)) < 0 ? FC_ERROR : FC_OK;
        }
        PyObject *d = fc_distance(f[0], f[1]);
        if (d == NULL) {
            return FC_ERROR;
        }
        PyObject *k = PyTuple_Pack(2, f[0] == f[1] ? Py_True : Py_False, d);
        Py_DECREF(d);
        return fc_push(p, k) < 0 ? FC_ERROR : FC_OK;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t seen = i, j = i;
        PyObject *st = FC_SLOT(f[i], FC.a_storage);
        for (Py_ssize_t m = 0; m < i; m++) {
            if (f[m] == f[i]) {
                seen = m;
                break;
            }
        }
        for (Py_ssize_t m = 0; m < i; m++) {
            if (FC_SLOT(f[m], FC.a_storage) == st) {
                j = m;
                break;
            }
        }
        PyObject *d = fc_distance(f[j], f[i]);
        if (d == NULL) {
            return FC_ERROR;
        }
        PyObject *a = PyLong_FromSsize_t(seen), *b = PyLong_FromSsize_t(j);
        PyObject *k = (a == NULL || b == NULL) ? NULL : PyTuple_Pack(3, a, b, d);
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_DECREF(d);
        if (fc_push(p, k) < 0) {
            return FC_ERROR;
        }
    }
    return FC_OK;
}

static int
fc_signature_impl(PyObject *func, PyObject *args, PyObject *kwargs, PyObject *fakes,
                  PyObject **out)
{
    if (!PyTuple_CheckExact(args) || !PyList_CheckExact(fakes)
            || !(kwargs == Py_None || PyDict_CheckExact(kwargs))) {
        return FC_FALLBACK;
    }
    fc_parts p;
    fc_parts_init(&p);
    int r = FC_ERROR;
    if (fc_push(&p, Py_NewRef(func)) < 0) {
        goto done;
    }
    r = fc_add_keys(((PyTupleObject *)args)->ob_item, PyTuple_GET_SIZE(args), &p, fakes);
    if (r != FC_OK) {
        goto done;
    }
    if (kwargs != Py_None && PyDict_GET_SIZE(kwargs)) {
        r = FC_ERROR;
        if (fc_push(&p, Py_NewRef(FC.kwargs_marker)) < 0) {
            goto done;
        }
        Py_ssize_t pos = 0, nkw = PyDict_GET_SIZE(kwargs);
        PyObject *k, *v;
        while (PyDict_Next(kwargs, &pos, &k, &v)) {
            if (fc_push(&p, Py_NewRef(k)) < 0) {
                goto done;
            }
        }
        /* the values, held while keyed (Python code may run for them) */
        PyObject *vals = PyTuple_New(nkw);
        if (vals == NULL) {
            goto done;
        }
        Py_ssize_t i = 0;
        pos = 0;
        while (PyDict_Next(kwargs, &pos, &k, &v) && i < nkw) {
            PyTuple_SET_ITEM(vals, i++, Py_NewRef(v));
        }
        if (i != nkw) {
            Py_DECREF(vals);
            r = FC_FALLBACK;
            goto done;
        }
        r = fc_add_keys(((PyTupleObject *)vals)->ob_item, nkw, &p, fakes);
        Py_DECREF(vals);
        if (r != FC_OK) {
            goto done;
        }
    }
    r = fc_add_pairs(&p, fakes);
    if (r == FC_OK) {
        *out = fc_parts_tuple(&p);
        if (*out == NULL) {
            r = FC_ERROR;
        }
    }
done:
    fc_parts_free(&p);
    return r;
}

/* The key (a new reference: a tuple, or NOKEY), or NULL with an error set. */
static PyObject *
fc_signature_key(PyObject *func, PyObject *args, PyObject *kwargs, PyObject *fakes)
{
    Py_ssize_t start = PyList_CheckExact(fakes) ? PyList_GET_SIZE(fakes) : 0;
    PyObject *key = NULL;
    int r = fc_signature_impl(func, args, kwargs, fakes, &key);
    if (r == FC_OK) {
        return key;
    }
    if (r == FC_NOKEY) {
        return Py_NewRef(FC.nokey);
    }
    if (r == FC_ERROR) {
        return NULL;
    }
    /* something the compiled path does not know: forget the fakes it collected, ask Python */
    if (PyList_CheckExact(fakes) && PyList_GET_SIZE(fakes) > start
            && PyList_SetSlice(fakes, start, PyList_GET_SIZE(fakes), NULL) < 0) {
        return NULL;
    }
    PyObject *a[4] = {func, args, kwargs, fakes};
    return PyObject_Vectorcall(FC.signature_python, a, 4, NULL);
}

static PyObject *
fc_signature(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargsf,
             PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (!FC.signature_ready) {
        PyErr_SetString(PyExc_RuntimeError, "signature: not set up");
        return NULL;
    }
    if (kwnames != NULL || n != 4) {
        return PyObject_Vectorcall(FC.signature_python, args, nargsf, kwnames);
    }
    return fc_signature_key(args[0], args[1], args[2], args[3]);
}

/* ---- run_fake ------------------------------------------------------------------------ */

/* ``lst.append(v)``, for a list or anything with an append method. */
static int
fc_append(PyObject *lst, PyObject *v)
{
    if (PyList_CheckExact(lst)) {
        return PyList_Append(lst, v);
    }
    PyObject *r = PyObject_CallMethod(lst, "append", "O", v);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* The device of a hit's outputs: ``fakes[0].storage.device if fakes else (device or "cpu")``
   (a borrowed reference, or NULL on error). */
static PyObject *
fc_hit_device(PyObject *fakes, PyObject *device, PyObject **hold)
{
    if (PyList_GET_SIZE(fakes) > 0) {
        PyObject *f = PyList_GET_ITEM(fakes, 0);
        if (Py_TYPE(f) == FC.fake_type) {
            PyObject *st = FC_SLOT(f, FC.a_storage);
            if (st != NULL && Py_TYPE(st) == FC.storage_type && FC_SLOT(st, FC.s_device) != NULL) {
                return FC_SLOT(st, FC.s_device);
            }
        }
        PyObject *st = PyObject_GetAttrString(f, "storage");
        if (st == NULL) {
            return NULL;
        }
        *hold = PyObject_GetAttrString(st, "device");
        Py_DECREF(st);
        return *hold;
    }
    int t = PyObject_IsTrue(device);
    if (t < 0) {
        return NULL;
    }
    return t ? device : FC.cpu;
}

/* A view of the call's fake at ``tmpl.source`` (_runner._realize_out of a view): FC_OK with
   ``*out`` set, FC_ERROR, or FC_FALLBACK for anything unusual (then _instantiate decides). */
static int
fc_view_hit(PyObject *tmpl, PyObject *fakes, PyObject **out)
{
    PyObject *m = PyTuple_GET_ITEM(tmpl, 0), *src = PyTuple_GET_ITEM(tmpl, 1);
    if (Py_TYPE(m) != FC.meta_type || PyTuple_GET_SIZE(m) != FC.m_fields
            || !PyLong_CheckExact(src)) {
        return FC_FALLBACK;
    }
    int overflow;
    long long i = PyLong_AsLongLongAndOverflow(src, &overflow);
    if (overflow || i < 0 || i >= PyList_GET_SIZE(fakes)) {
        return FC_FALLBACK;
    }
    PyObject *v = PyList_GET_ITEM(fakes, i);
    if (Py_TYPE(v) != FC.fake_type) {
        return FC_FALLBACK;
    }
    PyObject *b = FC_SLOT(v, FC.a_base), *st = FC_SLOT(v, FC.a_storage),
             *off = FC_SLOT(v, FC.a_offset), *w = FC_SLOT(v, FC.a_writeable),
             *warn = FC_SLOT(v, FC.a_warn);
    if (b == NULL || st == NULL || off == NULL || w == NULL || warn == NULL) {
        return FC_FALLBACK;
    }
    Py_INCREF(v);
    PyObject *base = (b == Py_None || Py_TYPE(b) != FC.fake_type) ? v : b;
    Py_INCREF(base);
    PyObject *f = NULL, *offset = PyNumber_Add(off, PyTuple_GET_ITEM(m, FC.m_offset));
    PyObject *mw = PyTuple_GET_ITEM(m, FC.m_writeable),
             *mwarn = PyTuple_GET_ITEM(m, FC.m_warn_on_write);
    int r = FC_ERROR;
    if (offset == NULL) {
        goto done;
    }
    /* ``v._writeable and res.writeable is not False`` */
    int t = PyObject_IsTrue(w);
    if (t < 0) {
        goto done;
    }
    f = fc_new_fake(PyTuple_GET_ITEM(m, FC.m_shape), PyTuple_GET_ITEM(m, FC.m_dtype),
                    PyTuple_GET_ITEM(m, FC.m_strides), st, offset, base,
                    !t ? w : mw == Py_False ? Py_False : Py_True);
    if (f == NULL) {
        goto done;
    }
    /* the warn-on-write flag: set by the kernel, or kept from a read-only view's input */
    t = PyObject_IsTrue(mwarn);
    if (t == 0 && mw == Py_False && mwarn != Py_None) {
        warn = FC_SLOT(v, FC.a_warn);  /* read again: Python code may have run */
        if (warn == NULL) {
            PyErr_SetString(PyExc_AttributeError, "_warn_on_write");
            t = -1;
        }
        else {
            t = PyObject_IsTrue(warn);
        }
    }
    if (t < 0) {
        Py_CLEAR(f);
        goto done;
    }
    if (t) {
        Py_SETREF(FC_SLOT(f, FC.a_warn), Py_NewRef(Py_True));
    }
    *out = f;
    r = FC_OK;
done:
    Py_XDECREF(offset);
    Py_DECREF(base);
    Py_DECREF(v);
    return r;
}

/* A cache hit: the count, the entry and its costs handed out, the outputs made (a fresh one
   here, anything else by _runner._instantiate). */
static PyObject *
fc_hit(PyObject *hit, PyObject *fakes, PyObject *device, PyObject *costs, PyObject *entry_out)
{
    PyObject *info = FC.info;
    PyObject *hits = FC_SLOT(info, FC.i_hits);
    if (hits == NULL) {
        PyErr_SetString(PyExc_AttributeError, "'CacheInfo' object has no attribute 'hits'");
        return NULL;
    }
    PyObject *more = PyNumber_InPlaceAdd(hits, FC.one);
    if (more == NULL) {
        return NULL;
    }
    Py_XSETREF(FC_SLOT(info, FC.i_hits), more);
    PyObject *hold = NULL, *tmpl = NULL, *c = NULL, *res = NULL;
    PyObject *dev = fc_hit_device(fakes, device, &hold);
    if (dev == NULL) {
        return NULL;
    }
    if (Py_TYPE(hit) == FC.entry_type && FC_SLOT(hit, FC.e_template) != NULL
            && FC_SLOT(hit, FC.e_costs) != NULL) {
        tmpl = Py_NewRef(FC_SLOT(hit, FC.e_template));
        c = Py_NewRef(FC_SLOT(hit, FC.e_costs));
    }
    else {
        tmpl = PyObject_GetAttrString(hit, "template");
        c = tmpl == NULL ? NULL : PyObject_GetAttrString(hit, "costs");
        if (c == NULL) {
            goto done;
        }
    }
    if (entry_out != Py_None && fc_append(entry_out, hit) < 0) {
        goto done;
    }
    if (c != Py_None && costs != Py_None && fc_append(costs, c) < 0) {
        goto done;
    }
    if (Py_TYPE(tmpl) == FC.fresh_type && PyTuple_GET_SIZE(tmpl) == 2) {
        PyObject *m = PyTuple_GET_ITEM(tmpl, 0);
        if (Py_TYPE(m) == FC.meta_type && PyTuple_GET_SIZE(m) == FC.m_fields
                && PyTuple_GET_ITEM(m, FC.m_base_shape) == Py_None
                && PyTuple_GET_ITEM(m, FC.m_scalar) == Py_False
                && PyTuple_GET_ITEM(m, FC.m_value) == Py_None) {
            /* one fresh array, the common case */
            PyObject *mdev = PyTuple_GET_ITEM(m, FC.m_device);
            int t = PyObject_IsTrue(mdev);
            if (t < 0) {
                goto done;
            }
            PyObject *st = fc_new_storage_impl(PyTuple_GET_ITEM(tmpl, 1), t ? mdev : dev);
            if (st == NULL) {
                goto done;
            }
            res = fc_new_fake(PyTuple_GET_ITEM(m, FC.m_shape), PyTuple_GET_ITEM(m, FC.m_dtype),
                              PyTuple_GET_ITEM(m, FC.m_strides), st,
                              PyTuple_GET_ITEM(m, FC.m_offset), Py_None,
                              PyTuple_GET_ITEM(m, FC.m_writeable) == Py_False ? Py_False : Py_True);
            Py_DECREF(st);
            goto done;
        }
    }
    if (Py_TYPE(tmpl) == FC.view_type && PyTuple_GET_SIZE(tmpl) == 2) {
        int r = fc_view_hit(tmpl, fakes, &res);
        if (r != FC_FALLBACK) {
            goto done;
        }
    }
    PyObject *a[3] = {tmpl, fakes, dev};
    res = PyObject_Vectorcall(FC.instantiate, a, 3, NULL);
done:
    Py_XDECREF(tmpl);
    Py_XDECREF(c);
    Py_XDECREF(hold);
    return res;
}

static PyObject *
fc_run_fake(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargsf,
            PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (!FC.run_ready) {
        PyErr_SetString(PyExc_RuntimeError, "run_fake: not set up");
        return NULL;
    }
    if (kwnames != NULL || n < 3 || n > 9 || (n == 9 && args[8] != Py_None
                                                && !PyList_CheckExact(args[8]))) {
        return PyObject_Vectorcall(FC.run_fake_python, args, nargsf, kwnames);
    }
    /* (func, args, kwargs, convert=None, device=None, prepared=False, costs=None,
        entry_out=None, fakes=None) */
    PyObject *call[10] = {args[0], args[1], args[2], Py_None, Py_None, Py_False, Py_None,
                          Py_None, Py_None, NULL};
    for (Py_ssize_t i = 3; i < n; i++) {
        call[i] = args[i];
    }
    PyObject *own = NULL;
    if (call[8] == Py_None) {
        call[8] = own = PyList_New(0);
        if (own == NULL) {
            return NULL;
        }
    }
    PyObject *fakes = call[8], *res = NULL, *key = NULL;
    PyObject *enabled = FC_SLOT(FC.info, FC.i_enabled);
    int on = enabled == Py_True ? 1 : enabled == Py_False ? 0 : -2;
    if (on == -2) {
        if (enabled == NULL) {  /* as Python's ``info.enabled`` would fail */
            Py_XDECREF(own);
            return PyObject_Vectorcall(FC.run_fake_python, args, nargsf, kwnames);
        }
        on = PyObject_IsTrue(enabled);
        if (on < 0) {
            goto done;
        }
    }
    if (on) {
        key = fc_signature_key(call[0], call[1], call[2], fakes);
        if (key == NULL) {
            goto done;
        }
        if (key != FC.nokey) {
            PyObject *hit = PyDict_GetItemWithError(FC.entries, key);
            if (hit != NULL) {
                Py_INCREF(hit);
                res = fc_hit(hit, fakes, call[4], call[6], call[7]);
                Py_DECREF(hit);
                goto done;
            }
            if (PyErr_Occurred()) {
                if (!PyErr_ExceptionMatches(PyExc_TypeError)) {  /* an unhashable func */
                    goto done;
                }
                PyErr_Clear();
                Py_SETREF(key, Py_NewRef(FC.nokey));
            }
        }
    }
    else {
        key = Py_NewRef(FC.nokey);
    }
    call[9] = key;
    res = PyObject_Vectorcall(FC.run_miss, call, 10, NULL);
done:
    Py_XDECREF(key);
    Py_XDECREF(own);
    return res;
}

/* ---- module -------------------------------------------------------------------------- */

static PyMethodDef fc_methods[] = {
    {"setup", (PyCFunction)(void (*)(void))fc_setup, METH_FASTCALL,
     "setup(name, *objects): hand a compiled function the Python objects it reads; False "
     "when they are not laid out as it expects (then use the Python function)"},
    {"make_fake", (PyCFunction)(void (*)(void))fc_make_fake, METH_FASTCALL | METH_KEYWORDS,
     "make_fake(shape, dtype, strides, storage, offset=0, base=None, writeable=True)"},
    {"new_storage", (PyCFunction)(void (*)(void))fc_new_storage, METH_FASTCALL | METH_KEYWORDS,
     "new_storage(nbytes, device): FakeStorage(nbytes, device)"},
    {"signature", (PyCFunction)(void (*)(void))fc_signature, METH_FASTCALL | METH_KEYWORDS,
     "signature(func, args, kwargs, fakes): the kernel cache's key of a call"},
    {"run_fake", (PyCFunction)(void (*)(void))fc_run_fake, METH_FASTCALL | METH_KEYWORDS,
     "run_fake(func, args, kwargs, convert=None, device=None, prepared=False, costs=None, "
     "entry_out=None, fakes=None): _runner._run_fake with its fresh-output hit compiled"},
    {NULL, NULL, 0, NULL},
};

static int
speedups_cache_init(PyObject *m)
{
    return PyModule_AddFunctions(m, fc_methods);
}
