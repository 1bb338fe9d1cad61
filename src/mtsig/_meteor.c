/*
 * mtsig._meteor: METEOR 1.5's alignment search (the beam search of meteor-1.5.jar's Aligner), in C.
 *
 * search(cands, offsets, n1, n2, weights, beam) -> list of chosen candidate indices.
 *   cands:   int32 buffer of K rows (ref_start, ref_len, test_start, test_len, stage), grouped by ref_start
 *            in the order the stages found them; offsets: int32 buffer of n2 + 1 row offsets per ref position.
 *   weights: the search weight of each stage (tuple of floats).
 * The Python version in mtsig.meteor.align (search) is the reference, and its docstring lists the jar's
 * behaviours reproduced here: int truncation of the weighted match counts, the distance added to the
 * parent path, fixed one-to-one matches, stable sorting by (more matches, fewer chunks, less distance).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int m1, m2, chunks, idx, last, dist, chain, order;
    unsigned char *used; /* n1 bytes for the hypothesis, then n2 for the reference */
} Path;

typedef struct {
    int cand, parent;
} Node;

typedef struct {
    Path *p;
    Py_ssize_t n, cap;
    unsigned char *mem;
    Py_ssize_t memcap;
    int width;
} Pool;

static int pool_reserve(Pool *pl, Py_ssize_t n) {
    if (n <= pl->cap) return 0;
    Py_ssize_t cap = n * 2 + 8;
    Path *p = PyMem_Realloc(pl->p, (size_t)cap * sizeof(Path));
    if (!p) return -1;
    pl->p = p;
    unsigned char *mem = PyMem_Realloc(pl->mem, (size_t)cap * (size_t)(pl->width > 0 ? pl->width : 1));
    if (!mem) return -1;
    pl->mem = mem;
    pl->cap = cap;
    for (Py_ssize_t k = 0; k < pl->n; k++) pl->p[k].used = pl->mem + k * pl->width;
    return 0;
}

static Path *pool_push(Pool *pl, const Path *src) {
    Path *d = &pl->p[pl->n];
    unsigned char *u = pl->mem + pl->n * pl->width;
    *d = *src;
    d->used = u;
    if (pl->width) memcpy(u, src->used, (size_t)pl->width);
    d->order = (int)pl->n;
    pl->n++;
    return d;
}

static int cmp_path(const void *a, const void *b) {
    const Path *x = a, *y = b;
    int sx = x->m1 + x->m2, sy = y->m1 + y->m2;
    if (sx != sy) return sy > sx ? 1 : -1;
    if (x->chunks != y->chunks) return x->chunks < y->chunks ? -1 : 1;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}

typedef struct {
    Node *a;
    Py_ssize_t n, cap;
} Arena;

static int arena_push(Arena *ar, int cand, int parent) {
    if (ar->n == ar->cap) {
        Py_ssize_t cap = ar->cap * 2 + 64;
        Node *a = PyMem_Realloc(ar->a, (size_t)cap * sizeof(Node));
        if (!a) return -1;
        ar->a = a;
        ar->cap = cap;
    }
    ar->a[ar->n].cand = cand;
    ar->a[ar->n].parent = parent;
    return (int)ar->n++;
}

static void take(Path *p, const int32_t *m, double w) {
    p->m1 = (int)((double)p->m1 + (double)m[3] * w);
    p->m2 = (int)((double)p->m2 + (double)m[1] * w);
    if (p->last != -1 && m[2] != p->last) p->chunks++;
    p->idx = m[0] + m[1];
    p->last = m[2] + m[3];
}

static int overlaps(const Path *p, const int32_t *m, int n1) {
    for (int k = 0; k < m[1]; k++)
        if (p->used[n1 + m[0] + k]) return 1;
    for (int k = 0; k < m[3]; k++)
        if (p->used[m[2] + k]) return 1;
    return 0;
}

static void mark(Path *p, const int32_t *m, int n1) {
    for (int k = 0; k < m[1]; k++) p->used[n1 + m[0] + k] = 1;
    for (int k = 0; k < m[3]; k++) p->used[m[2] + k] = 1;
}

/* One step of the search at reference position cur: expands the first `beam` paths of cur_pool into nxt. */
static int step(Pool *cur_pool, Pool *nxt, int cur, int n1, int n2, int beam, const int32_t *cands,
                const int32_t *off, const int *fixed, const double *w, Arena *ar) {
    Py_ssize_t take_n = cur_pool->n < beam ? cur_pool->n : beam;
    int width = cur < n2 ? off[cur + 1] - off[cur] + 1 : 1;
    if (pool_reserve(nxt, take_n * width + 1) < 0) return -1;
    for (Py_ssize_t r = 0; r < take_n; r++) {
        Path *p = &cur_pool->p[r];
        if (cur == n2) {
            if (p->last != -1) p->chunks++;
            pool_push(nxt, p);
            continue;
        }
        if (p->used[n1 + cur]) {
            if (cur < p->idx) {
                pool_push(nxt, p);
            } else if (fixed[p->idx] >= 0) {
                const int32_t *m = cands + 5 * fixed[p->idx];
                take(p, m, w[m[4]]);
                p->dist += abs(m[0] - m[2]);
                pool_push(nxt, p);
            }
            continue;
        }
        for (int c = off[cur]; c < off[cur + 1]; c++) {
            const int32_t *m = cands + 5 * c;
            if (overlaps(p, m, n1)) continue;
            Path *q = pool_push(nxt, p);
            mark(q, m, n1);
            take(q, m, w[m[4]]);
            q->chain = arena_push(ar, c, p->chain);
            if (q->chain < 0) return -1;
            p->dist += abs(m[0] - m[2]); /* to the parent, as the jar */
        }
        if (p->last != -1) {
            p->chunks++;
            p->last = -1;
        }
        p->idx++;
        pool_push(nxt, p);
    }
    if (nxt->n == 0) pool_push(nxt, &cur_pool->p[0]);
    return 0;
}

static PyObject *run_search(const int32_t *cands, const int32_t *off, int n1, int n2, const double *w,
                            int beam) {
    PyObject *out = NULL;
    int *fixed = PyMem_Malloc(sizeof(int) * (size_t)(n2 + 1));
    int *cov1 = PyMem_Calloc((size_t)n1 + 1, sizeof(int));
    int *cov2 = PyMem_Calloc((size_t)n2 + 1, sizeof(int));
    Pool a = {0}, b = {0};
    Arena ar = {0};
    a.width = b.width = n1 + n2;
    if (!fixed || !cov1 || !cov2) goto fail;
    int K = off[n2];
    for (int c = 0; c < K; c++) {
        const int32_t *m = cands + 5 * c;
        for (int k = 0; k < m[3]; k++) cov1[m[2] + k]++;
        for (int k = 0; k < m[1]; k++) cov2[m[0] + k]++;
    }
    if (pool_reserve(&a, 1) < 0) goto fail;
    Path start = {0, 0, 0, 0, -1, 0, -1, 0, NULL};
    a.n = 1;
    a.p[0] = start;
    a.p[0].used = a.mem;
    memset(a.mem, 0, (size_t)(n1 + n2 > 0 ? n1 + n2 : 1));
    for (int j = 0; j < n2; j++) {
        fixed[j] = -1;
        if (off[j + 1] - off[j] != 1) continue;
        const int32_t *m = cands + 5 * off[j];
        int ok = 1;
        for (int k = 0; k < m[1] && ok; k++) ok = cov2[j + k] == 1;
        for (int k = 0; k < m[3] && ok; k++) ok = cov1[m[2] + k] == 1;
        if (ok) {
            fixed[j] = off[j];
            mark(&a.p[0], m, n1);
        }
    }
    fixed[n2] = -1;
    Pool *cur = &a, *nxt = &b;
    for (int pos = 0; pos <= n2; pos++) {
        qsort(cur->p, (size_t)cur->n, sizeof(Path), cmp_path);
        nxt->n = 0;
        if (step(cur, nxt, pos, n1, n2, beam, cands, off, fixed, w, &ar) < 0) goto fail;
        for (Py_ssize_t k = 0; k < nxt->n; k++) nxt->p[k].order = (int)k;
        Pool *t = cur;
        cur = nxt;
        nxt = t;
    }
    qsort(cur->p, (size_t)cur->n, sizeof(Path), cmp_path);
    out = PyList_New(0);
    if (!out) goto fail;
    for (int j = 0; j < n2; j++) {
        if (fixed[j] >= 0) {
            PyObject *v = PyLong_FromLong(fixed[j]);
            if (!v || PyList_Append(out, v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
        }
    }
    for (int node = cur->p[0].chain; node >= 0; node = ar.a[node].parent) {
        PyObject *v = PyLong_FromLong(ar.a[node].cand);
        if (!v || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            goto fail;
        }
        Py_DECREF(v);
    }
    goto done;
fail:
    Py_CLEAR(out);
    if (!PyErr_Occurred()) PyErr_NoMemory();
done:
    PyMem_Free(fixed);
    PyMem_Free(cov1);
    PyMem_Free(cov2);
    PyMem_Free(a.p);
    PyMem_Free(a.mem);
    PyMem_Free(b.p);
    PyMem_Free(b.mem);
    PyMem_Free(ar.a);
    return out;
}

static PyObject *py_search(PyObject *self, PyObject *args) {
    Py_buffer cb, ob;
    int n1, n2, beam;
    PyObject *wobj;
    if (!PyArg_ParseTuple(args, "y*y*iiOi", &cb, &ob, &n1, &n2, &wobj, &beam)) return NULL;
    PyObject *out = NULL;
    double w[64];
    PyObject *seq = PySequence_Fast(wobj, "weights must be a sequence");
    if (!seq) goto end;
    Py_ssize_t nw = PySequence_Fast_GET_SIZE(seq);
    if (nw > 64) {
        PyErr_SetString(PyExc_ValueError, "too many stages");
        Py_DECREF(seq);
        goto end;
    }
    for (Py_ssize_t k = 0; k < nw; k++) w[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
    Py_DECREF(seq);
    if (PyErr_Occurred()) goto end;
    if (ob.len != (Py_ssize_t)sizeof(int32_t) * (n2 + 1) || n1 < 0 || n2 < 0 || beam < 1) {
        PyErr_SetString(PyExc_ValueError, "search: inconsistent sizes");
        goto end;
    }
    const int32_t *off = ob.buf;
    if (cb.len < (Py_ssize_t)sizeof(int32_t) * 5 * off[n2]) {
        PyErr_SetString(PyExc_ValueError, "search: candidates buffer too short");
        goto end;
    }
    out = run_search(cb.buf, off, n1, n2, w, beam);
end:
    PyBuffer_Release(&cb);
    PyBuffer_Release(&ob);
    return out;
}

static PyMethodDef methods[] = {
    {"search", py_search, METH_VARARGS, "METEOR 1.5's alignment search (see the module source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_meteor", NULL, -1, methods};

PyMODINIT_FUNC PyInit__meteor(void) { return PyModule_Create(&module); }
