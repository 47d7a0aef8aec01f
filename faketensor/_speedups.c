/* The outside-any-mode path of a namespace patch, in C (issue 30; docs/internals/accelerator.md).

   ``Patch(original, slow, live, fake_type)`` is a callable that stands in a NumPy namespace for
   ``original``. While ``live`` (faketensor/_stack.py LIVE: empty while no context in the process
   has a mode) is empty and no positional argument or keyword value is exactly ``fake_type``
   (None: not checked), it calls ``original`` straight through with the caller's vectorcall
   arguments; otherwise it calls ``slow``, the pure-Python patch, which decides everything as it
   does without this module. So the module only skips work whose answer is known: it never
   changes what a call does. Instances carry a ``__dict__`` (functools.update_wrapper's
   ``__name__``, ``__wrapped__``, ``_ft_patch``), bind as methods like a function, and pickle
   and copy by the name they are bound to, as a plain function does. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include "_speedups_cache.c"
#include "_speedups_record.c"

typedef struct {
    PyObject_HEAD
    PyObject *original;
    PyObject *slow;
    PyObject *live;       /* a dict */
    PyObject *fake_type;  /* a type, or NULL */
    PyObject *dict;
    vectorcallfunc vectorcall;
} PatchObject;

static PyObject *
patch_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PatchObject *self = (PatchObject *)callable;
    if (PyDict_GET_SIZE(self->live) == 0) {
        PyObject *ft = self->fake_type;
        if (ft == NULL) {
            return PyObject_Vectorcall(self->original, args, nargsf, kwnames);
        }
        Py_ssize_t n = PyVectorcall_NARGS(nargsf);
        if (kwnames != NULL) {
            n += PyTuple_GET_SIZE(kwnames);
        }
        Py_ssize_t i = 0;
        for (; i < n; i++) {
            if ((PyObject *)Py_TYPE(args[i]) == ft) {
                break;
            }
        }
        if (i == n) {
            return PyObject_Vectorcall(self->original, args, nargsf, kwnames);
        }
    }
    return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
}

static PyObject *
patch_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *original, *slow, *live, *fake_type;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Patch() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "Patch", 4, 4, &original, &slow, &live, &fake_type)) {
        return NULL;
    }
    if (!PyCallable_Check(original) || !PyCallable_Check(slow)) {
        PyErr_SetString(PyExc_TypeError, "Patch(): original and slow must be callable");
        return NULL;
    }
    if (!PyDict_CheckExact(live)) {
        PyErr_SetString(PyExc_TypeError, "Patch(): live must be a dict");
        return NULL;
    }
    if (fake_type != Py_None && !PyType_Check(fake_type)) {
        PyErr_SetString(PyExc_TypeError, "Patch(): fake_type must be a type or None");
        return NULL;
    }
    PatchObject *self = (PatchObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->original = Py_NewRef(original);
    self->slow = Py_NewRef(slow);
    self->live = Py_NewRef(live);
    self->fake_type = fake_type == Py_None ? NULL : Py_NewRef(fake_type);
    self->dict = NULL;
    self->vectorcall = patch_vectorcall;
    return (PyObject *)self;
}

static int
patch_traverse(PatchObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->original);
    Py_VISIT(self->slow);
    Py_VISIT(self->live);
    Py_VISIT(self->fake_type);
    Py_VISIT(self->dict);
    return 0;
}

static int
patch_clear(PatchObject *self)
{
    Py_CLEAR(self->original);
    Py_CLEAR(self->slow);
    Py_CLEAR(self->live);
    Py_CLEAR(self->fake_type);
    Py_CLEAR(self->dict);
    return 0;
}

static void
patch_dealloc(PatchObject *self)
{
    PyObject_GC_UnTrack(self);
    patch_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
patch_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    /* binds as a method, as the plain-function patch does */
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

static PyObject *
patch_repr(PatchObject *self)
{
    PyObject *name = PyObject_GetAttrString((PyObject *)self, "__qualname__");
    if (name == NULL) {
        PyErr_Clear();
        return PyUnicode_FromFormat("<function %R at %p>", self->original, self);
    }
    PyObject *r = PyUnicode_FromFormat("<function %S at %p>", name, self);
    Py_DECREF(name);
    return r;
}

static PyObject *
patch_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    /* a string: pickle saves the object by name (module and qualified name), and copy
       returns it as is, as for a plain function */
    return PyObject_GetAttrString(self, "__qualname__");
}

static PyMethodDef patch_methods[] = {
    {"__reduce__", (PyCFunction)patch_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef patch_members[] = {
    {"_ft_original", T_OBJECT, offsetof(PatchObject, original), READONLY,
     "the function called straight through outside any mode"},
    {"_ft_slow", T_OBJECT, offsetof(PatchObject, slow), READONLY,
     "the pure-Python patch, called while a mode may be active or a fake is an argument"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef patch_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PatchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "faketensor._speedups.Patch",
    .tp_doc = PyDoc_STR("Patch(original, slow, live, fake_type): a namespace patch whose "
                        "outside-any-mode call goes straight to original"),
    .tp_basicsize = sizeof(PatchObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = patch_new,
    .tp_dealloc = (destructor)patch_dealloc,
    .tp_traverse = (traverseproc)patch_traverse,
    .tp_clear = (inquiry)patch_clear,
    .tp_vectorcall_offset = offsetof(PatchObject, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = patch_descr_get,
    .tp_dictoffset = offsetof(PatchObject, dict),
    .tp_repr = (reprfunc)patch_repr,
    .tp_methods = patch_methods,
    .tp_members = patch_members,
    .tp_getset = patch_getset,
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "faketensor._speedups",
    .m_doc = "The compiled outside-any-mode path of faketensor's namespace patches.",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    if (PyType_Ready(&PatchType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&speedups_module);
    if (m == NULL) {
        return NULL;
    }
    if (record_init(m) < 0) { Py_DECREF(m); return NULL; }
    Py_INCREF(&PatchType);
    if (PyModule_AddObject(m, "Patch", (PyObject *)&PatchType) < 0) {
        Py_DECREF(&PatchType);
        Py_DECREF(m);
        return NULL;
    }
    if (speedups_cache_init(m) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
