/*
 * mtsig._meteor: METEOR 1.5's alignment search (the beam search of meteor-1.5.jar's Aligner), in C, and the
 * paraphrase table's lookups (phrase_hashes, phrases, para_find: see their section below).
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

#include "_checks.h"

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

static void swap_path(Path *a, Path *b) {
    Path t = *a;
    *a = *b;
    *b = t;
}

/* Put the k first paths of p[0 .. n) in the order cmp_path gives (a total order: ties end with the insertion
 * order, so this equals a stable sort of the whole pool followed by taking k, as the jar does); the rest are
 * left in any order. Quickselect, then a sort of the k. */
static void sort_top(Path *p, Py_ssize_t n, Py_ssize_t k) {
    Py_ssize_t lo = 0, hi = n - 1;
    if (k < n) {
        while (lo < hi) {
            Py_ssize_t mid = lo + (hi - lo) / 2;
            swap_path(&p[mid], &p[hi]);
            Py_ssize_t store = lo;
            for (Py_ssize_t q = lo; q < hi; q++)
                if (cmp_path(&p[q], &p[hi]) < 0) swap_path(&p[q], &p[store++]);
            swap_path(&p[store], &p[hi]);
            if (store == k) break;
            if (store < k) lo = store + 1; else hi = store - 1;
        }
    } else {
        k = n;
    }
    if (k > 1) qsort(p, (size_t)k, sizeof(Path), cmp_path);
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

/* The search over candidates grouped by reference position; writes the chosen candidates' indices (fixed
 * ones first, by reference position, then the best path's from its end) to chosen (room for n2) and their
 * number to *n_chosen. Returns 0, or -1 with no memory. */
static int search_core(const int32_t *cands, const int32_t *off, int n1, int n2, const double *w, int beam,
                       int *chosen, int *n_chosen) {
    int rc = -1;
    *n_chosen = 0;
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
        sort_top(cur->p, cur->n, beam);
        nxt->n = 0;
        if (step(cur, nxt, pos, n1, n2, beam, cands, off, fixed, w, &ar) < 0) goto fail;
        for (Py_ssize_t k = 0; k < nxt->n; k++) nxt->p[k].order = (int)k;
        Pool *t = cur;
        cur = nxt;
        nxt = t;
    }
    sort_top(cur->p, cur->n, 1);
    for (int j = 0; j < n2; j++)
        if (fixed[j] >= 0) chosen[(*n_chosen)++] = fixed[j];
    for (int node = cur->p[0].chain; node >= 0; node = ar.a[node].parent) chosen[(*n_chosen)++] = ar.a[node].cand;
    rc = 0;
fail:
    PyMem_Free(fixed);
    PyMem_Free(cov1);
    PyMem_Free(cov2);
    PyMem_Free(a.p);
    PyMem_Free(a.mem);
    PyMem_Free(b.p);
    PyMem_Free(b.mem);
    PyMem_Free(ar.a);
    return rc;
}

static PyObject *run_search(const int32_t *cands, const int32_t *off, int n1, int n2, const double *w,
                            int beam) {
    int n_chosen = 0;
    int *chosen = PyMem_Malloc(sizeof(int) * (size_t)(n2 + 1));
    if (!chosen || search_core(cands, off, n1, n2, w, beam, chosen, &n_chosen) < 0) {
        PyMem_Free(chosen);
        return PyErr_NoMemory();
    }
    PyObject *out = PyList_New(n_chosen);
    for (int k = 0; out && k < n_chosen; k++) {
        PyObject *v = PyLong_FromLong(chosen[k]);
        if (!v) Py_CLEAR(out);
        else PyList_SET_ITEM(out, k, v);
    }
    PyMem_Free(chosen);
    return out;
}

/* Every candidate (ref_start, ref_len, test_start, test_len, stage) of group j starts at reference position j,
 * lies within both lines and names a stage that has a weight: what the search indexes by. */
static int check_candidates(const int32_t *cands, const int32_t *off, int n1, int n2, int n_weights) {
    for (int j = 0; j < n2; j++)
        for (int c = off[j]; c < off[j + 1]; c++) {
            const int32_t *m = cands + 5 * (Py_ssize_t)c;
            if (m[0] != j || m[1] < 0 || m[1] > n2 - j || m[2] < 0 || m[3] < 0 || m[2] > n1 - m[3] || m[4] < 0 ||
                m[4] >= n_weights) {
                PyErr_Format(PyExc_ValueError, "search: candidate %d does not fit the lines or the weights", c);
                return -1;
            }
        }
    return 0;
}

static PyObject *py_search(PyObject *self, PyObject *args) {
    Py_buffer cb, ob;
    int n1, n2, beam;
    PyObject *wobj;
    if (!PyArg_ParseTuple(args, "y*y*iiOi", &cb, &ob, &n1, &n2, &wobj, &beam)) return NULL;
    PyObject *out = NULL;
    double w[64];
    /* a tuple copy: an item's __float__ cannot resize what is being read */
    PyObject *seq = PyList_Check(wobj) || PyTuple_Check(wobj) ? PySequence_Tuple(wobj) : NULL;
    if (!seq) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "weights must be a list or tuple");
        goto end;
    }
    Py_ssize_t nw = PySequence_Fast_GET_SIZE(seq);
    if (nw > 64) {
        PyErr_SetString(PyExc_ValueError, "too many stages");
        Py_DECREF(seq);
        goto end;
    }
    for (Py_ssize_t k = 0; k < nw; k++) w[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
    Py_DECREF(seq);
    if (PyErr_Occurred()) goto end;
    if (ob.len != (Py_ssize_t)sizeof(int32_t) * ((Py_ssize_t)n2 + 1) || n1 < 0 || n2 < 0 || beam < 1 ||
        n1 > INT32_MAX / 4 || n2 > INT32_MAX / 4) {
        PyErr_SetString(PyExc_ValueError, "search: inconsistent sizes");
        goto end;
    }
    const int32_t *off = ob.buf;
    if (mtsig_check_offsets32(off, n2, cb.len / (Py_ssize_t)(5 * sizeof(int32_t)), "search: candidate offsets") < 0)
        goto end;
    if (check_candidates(cb.buf, off, n1, n2, (int)nw) < 0) goto end;
    out = run_search(cb.buf, off, n1, n2, w, beam);
end:
    PyBuffer_Release(&cb);
    PyBuffer_Release(&ob);
    return out;
}

/* ------------------------------------------------------------------------------------------------------
 * The paraphrase table's phrase index. Phrases are UTF-8 strings (words joined by one space) stored one after
 * another in a blob with int64 offsets; the index is their 64-bit FNV-1a hashes sorted, with the phrase id of
 * each, and bucket offsets by the hashes' top bits (so a lookup touches one or two cache lines). A lookup hashes
 * an n-gram, finds the equal hashes and compares the bytes, so a hash collision can never make a match. mtsig.meteor.resources holds the numpy reference of the hash (fnv1a_numpy).
 */
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

static inline uint64_t fnv(uint64_t h, const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++) h = (h ^ s[k]) * FNV_PRIME;
    return h;
}

static Py_ssize_t lower_u64(const uint64_t *a, Py_ssize_t n, uint64_t key) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* phrase_hashes(blob, offsets) -> bytes: the uint64 FNV-1a hash of each phrase, in id order */
static PyObject *py_phrase_hashes(PyObject *self, PyObject *args) {
    Py_buffer bb, ob;
    if (!PyArg_ParseTuple(args, "y*y*", &bb, &ob)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t n = ob.len / (Py_ssize_t)sizeof(int64_t) - 1;
    const int64_t *off = ob.buf;
    if (mtsig_check_offsets64(off, n, bb.len, "phrase_hashes: offsets") < 0) goto end;
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(uint64_t));
    if (!out) goto end;
    uint64_t *h = (uint64_t *)PyBytes_AS_STRING(out);
    const unsigned char *blob = bb.buf;
    for (Py_ssize_t k = 0; k < n; k++) h[k] = fnv(FNV_OFFSET, blob + off[k], off[k + 1] - off[k]);
end:
    PyBuffer_Release(&bb);
    PyBuffer_Release(&ob);
    return out;
}

typedef struct {
    const uint64_t *hash;
    const int32_t *id;
    Py_ssize_t n;
    const uint32_t *bucket; /* bucket[b] .. bucket[b + 1]: the sorted hashes whose top `bits` bits are b */
    int bits;
    const unsigned char *blob;
    const int64_t *off;
    Py_ssize_t n_phrases, blob_len;
} PhraseIndex;

/* the id of the phrase made of words[p .. p+len) whose hash is h, -1 when there is none, or -2 (ValueError
 * set) when the index arrays do not agree: buckets, ids and offsets are checked where they are read, so a
 * crafted or corrupt index costs nothing to check up front and can never be read out of bounds */
static long find_phrase(const PhraseIndex *ix, uint64_t h, const char **w, const Py_ssize_t *wl, int p, int len,
                        Py_ssize_t total) {
    uint64_t b = ix->bits ? h >> (64 - ix->bits) : 0;
    Py_ssize_t lo = ix->bucket[b], hi = ix->bucket[b + 1];
    if (lo > hi || hi > ix->n) goto bad;
    for (Py_ssize_t k = lo + lower_u64(ix->hash + lo, hi - lo, h); k < hi && ix->hash[k] == h; k++) {
        int32_t id = ix->id[k];
        if (id < 0 || id >= ix->n_phrases) goto bad;
        if (ix->off[id] < 0 || ix->off[id] > ix->off[id + 1] || ix->off[id + 1] > ix->blob_len) goto bad;
        if (ix->off[id + 1] - ix->off[id] != total) continue;
        const unsigned char *s = ix->blob + ix->off[id];
        int same = 1;
        for (int q = p; q < p + len && same; q++) {
            if (q > p) same = *s++ == ' ';
            same = same && memcmp(s, w[q], (size_t)wl[q]) == 0;
            s += wl[q];
        }
        if (same) return id;
    }
    return -1;
bad:
    PyErr_SetString(PyExc_ValueError, "phrases: the phrase index arrays do not agree");
    return -2;
}

/* phrases(words, max_len, hashes, ids, buckets, blob, offsets) -> (starts, lengths, phrase ids) of every
 * n-gram of words that is a phrase of the table, by start then length. buckets: uint32, 2**bits + 1 entries */
static PyObject *py_phrases(PyObject *self, PyObject *args) {
    PyObject *words;
    int max_len;
    Py_buffer hb, ib, kb, bb, ob;
    if (!PyArg_ParseTuple(args, "O!iy*y*y*y*y*", &PyList_Type, &words, &max_len, &hb, &ib, &kb, &bb, &ob))
        return NULL;
    PyObject *res = NULL, *starts = NULL, *lens = NULL, *ids = NULL;
    Py_ssize_t n = PyList_GET_SIZE(words);
    const char **w = PyMem_Malloc((size_t)(n + 1) * sizeof(char *));
    Py_ssize_t *wl = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    PhraseIndex ix = {hb.buf, ib.buf, hb.len / (Py_ssize_t)sizeof(uint64_t), kb.buf, 0, bb.buf, ob.buf,
                      ob.len / (Py_ssize_t)sizeof(int64_t) - 1, bb.len};
    Py_ssize_t nbuckets = kb.len / (Py_ssize_t)sizeof(uint32_t) - 1;
    while (((Py_ssize_t)1 << ix.bits) < nbuckets) ix.bits++;
    if (!w || !wl) {
        PyErr_NoMemory();
        goto end;
    }
    if (ib.len / (Py_ssize_t)sizeof(int32_t) != ix.n || nbuckets < 1 || ((Py_ssize_t)1 << ix.bits) != nbuckets ||
        ix.bits > 32 || (Py_ssize_t)ix.bucket[nbuckets] != ix.n || ix.n_phrases < 0 || max_len < 0) {
        PyErr_SetString(PyExc_ValueError, "phrases: inconsistent index arrays");
        goto end;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *o = PyList_GET_ITEM(words, k);
        if (!PyUnicode_Check(o)) {
            PyErr_SetString(PyExc_TypeError, "phrases: words must be str");
            goto end;
        }
        w[k] = PyUnicode_AsUTF8AndSize(o, &wl[k]);
        if (!w[k]) goto end;
    }
    starts = PyList_New(0);
    lens = PyList_New(0);
    ids = PyList_New(0);
    if (!starts || !lens || !ids) goto end;
    for (int p = 0; p < n; p++) {
        uint64_t h = FNV_OFFSET;
        Py_ssize_t total = 0;
        for (int len = 1; len <= max_len && p + len <= n; len++) {
            int q = p + len - 1;
            if (len > 1) {
                h = fnv(h, (const unsigned char *)" ", 1);
                total++;
            }
            h = fnv(h, (const unsigned char *)w[q], wl[q]);
            total += wl[q];
            long id = find_phrase(&ix, h, w, wl, p, len, total);
            if (id == -2) goto end;
            if (id < 0) continue;
            PyObject *a = PyLong_FromLong(p), *b = PyLong_FromLong(len), *c = PyLong_FromLong(id);
            int bad = !a || !b || !c || PyList_Append(starts, a) || PyList_Append(lens, b) || PyList_Append(ids, c);
            Py_XDECREF(a);
            Py_XDECREF(b);
            Py_XDECREF(c);
            if (bad) goto end;
        }
    }
    res = PyTuple_Pack(3, starts, lens, ids);
end:
    Py_XDECREF(starts);
    Py_XDECREF(lens);
    Py_XDECREF(ids);
    PyMem_Free(w);
    PyMem_Free(wl);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&ob);
    return res;
}

typedef struct {
    long p, len, order, q, olen;
} ParaHit;

static int cmp_hit(const void *x, const void *y) {
    const long *a = (const long *)x, *b = (const long *)y;
    for (int k = 0; k < 5; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

static int long_list(PyObject *lst, long **out, Py_ssize_t *n) {
    /* a tuple copy: an item's __index__ cannot resize what is being read */
    PyObject *seq = PyList_Check(lst) || PyTuple_Check(lst) ? PySequence_Tuple(lst) : NULL;
    if (!seq) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "para_find: expected lists of ints");
        return -1;
    }
    *n = PySequence_Fast_GET_SIZE(seq);
    *out = PyMem_Malloc((size_t)(*n + 1) * sizeof(long));
    if (!*out) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < *n; k++) (*out)[k] = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
    Py_DECREF(seq);
    return PyErr_Occurred() ? -1 : 0;
}

typedef struct {
    long *start, *len, *id;
    Py_ssize_t n;
} PhraseList;

typedef struct {
    const int64_t *pairs;
    const int32_t *order;
    Py_ssize_t n;
    const uint32_t *start; /* start[id] .. start[id + 1]: the pairs of phrase id */
    Py_ssize_t n_phrases;
} PairTable;

typedef struct {
    ParaHit *a;
    Py_ssize_t n, cap;
} Hits;

static void phrase_list_free(PhraseList *pl) {
    PyMem_Free(pl->start);
    PyMem_Free(pl->len);
    PyMem_Free(pl->id);
}

/* (starts, lengths, ids) as phrases() returns them */
static int phrase_list(PyObject *obj, PhraseList *pl) {
    Py_ssize_t n[3];
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 3) {
        PyErr_SetString(PyExc_TypeError, "expected (starts, lengths, ids)");
        return -1;
    }
    if (long_list(PyTuple_GET_ITEM(obj, 0), &pl->start, &n[0]) || long_list(PyTuple_GET_ITEM(obj, 1), &pl->len, &n[1]) ||
        long_list(PyTuple_GET_ITEM(obj, 2), &pl->id, &n[2]))
        return -1;
    if (n[0] != n[1] || n[1] != n[2]) {
        PyErr_SetString(PyExc_ValueError, "starts, lengths and ids differ in length");
        return -1;
    }
    pl->n = n[0];
    return 0;
}

static int hit_push(Hits *out, ParaHit h) {
    if (out->n == out->cap) {
        Py_ssize_t cap = out->cap * 2 + 16;
        ParaHit *grown = PyMem_Realloc(out->a, (size_t)cap * sizeof(ParaHit));
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        out->a = grown;
        out->cap = cap;
    }
    out->a[out->n++] = h;
    return 0;
}

static int cmp_id_index(const void *x, const void *y) {
    const long *a = x, *b = y;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : (a[1] > b[1]));
}

/* Every table listing of (a phrase of src, a phrase of other), sorted by (src pos, src len, file position,
 * other pos, other len). The other side's ids are sorted once; each src phrase's pairs (sorted by paraphrase
 * id) are merged with them. */
static int para_hits(const PairTable *t, const PhraseList *src, const PhraseList *oth, Hits *out) {
    out->n = 0;
    if (!src->n || !oth->n) return 0;
    long *o = PyMem_Malloc((size_t)oth->n * 2 * sizeof(long)); /* (id, index) sorted */
    if (!o) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < oth->n; k++) o[2 * k] = oth->id[k], o[2 * k + 1] = k;
    qsort(o, (size_t)oth->n, 2 * sizeof(long), cmp_id_index);
    int rc = 0;
    for (Py_ssize_t si = 0; si < src->n && rc == 0; si++) {
        long a = src->id[si];
        if (a < 0 || a >= t->n_phrases) continue;
        Py_ssize_t k = t->start[a], hi = t->start[a + 1], x = 0;
        if (k > hi || hi > t->n) { /* checked where read: the table is large, a lookup touches one entry */
            PyErr_SetString(PyExc_ValueError, "inconsistent paraphrase pair arrays");
            rc = -1;
            break;
        }
        while (k < hi && x < oth->n && rc == 0) {
            long b = (long)(t->pairs[k] & 0xFFFFFFFF);
            if (b < o[2 * x]) k++;
            else if (b > o[2 * x]) x++;
            else {
                /* every listing of (a, b) with every occurrence of b in other */
                Py_ssize_t x_end = x;
                while (x_end < oth->n && o[2 * x_end] == b) x_end++;
                for (; k < hi && (long)(t->pairs[k] & 0xFFFFFFFF) == b && rc == 0; k++)
                    for (Py_ssize_t y = x; y < x_end && rc == 0; y++) {
                        Py_ssize_t oi = o[2 * y + 1];
                        rc = hit_push(out, (ParaHit){src->start[si], src->len[si], t->order[k], oth->start[oi],
                                                     oth->len[oi]});
                    }
                x = x_end;
            }
        }
    }
    PyMem_Free(o);
    if (rc == 0 && out->n > 1) qsort(out->a, (size_t)out->n, sizeof(ParaHit), cmp_hit); /* a may be NULL at 0 */
    return rc;
}

static int pair_table(PairTable *t, Py_buffer *b) {
    *t = (PairTable){b[0].buf, b[1].buf, b[0].len / (Py_ssize_t)sizeof(int64_t), b[2].buf,
                     b[2].len / (Py_ssize_t)sizeof(uint32_t) - 1};
    int ok = b[1].len / (Py_ssize_t)sizeof(int32_t) == t->n && t->n_phrases >= 0 && t->start[t->n_phrases] == t->n;
    if (!ok) PyErr_SetString(PyExc_ValueError, "inconsistent paraphrase pair arrays");
    return ok ? 0 : -1;
}

/* para_find(pairs, order, pair_start, src, other) -> [(src_pos, other_pos, src_len, other_len)]: every pair
 * (a phrase of src, a phrase of other) listed in the table (pairs: sorted src_id << 32 | dst_id; order: file
 * position of each; pair_start: uint32, where each phrase's pairs start, and their number last), each listing once, sorted by (src_pos, src_len, file position, other_pos, other_len). src and other
 * are (starts, lengths, ids) as phrases() returns them. */
static PyObject *py_para_find(PyObject *self, PyObject *args) {
    Py_buffer tb[3];
    PyObject *src, *oth;
    if (!PyArg_ParseTuple(args, "y*y*y*OO", &tb[0], &tb[1], &tb[2], &src, &oth)) return NULL;
    PyObject *out = NULL;
    PhraseList a = {0}, b = {0};
    Hits hits = {0};
    PairTable t;
    if (pair_table(&t, tb) < 0) goto end;
    if (phrase_list(src, &a) || phrase_list(oth, &b) || para_hits(&t, &a, &b, &hits)) goto end;
    out = PyList_New(hits.n);
    for (Py_ssize_t k = 0; out && k < hits.n; k++) {
        ParaHit *h = &hits.a[k];
        PyObject *v = Py_BuildValue("(llll)", h->p, h->q, h->len, h->olen);
        if (!v) Py_CLEAR(out);
        else PyList_SET_ITEM(out, k, v);
    }
end:
    phrase_list_free(&a);
    phrase_list_free(&b);
    PyMem_Free(hits.a);
    for (int k = 0; k < 3; k++) PyBuffer_Release(&tb[k]);
    return out;
}

/* ------------------------------------------------------------------------------------------------------
 * One segment from words to statistics: the stages' candidates in the jar's order, the search, the row.
 * mtsig.meteor.scorer.PairScorer.row_python is the reference (and its notes the rules).
 */
enum { EXACT, STEM, SYNONYM, PARAPHRASE };
#define N_STATS 23
/* The most paths the alignment search may expand for one segment (beam x candidates): about 15 s and 0.9 GB
 * (1,600 copies of one word against 1,600: 40 x 2.56 million candidates). Beyond, the segment is refused. */
#define MAX_SEARCH_WORK 100000000.0

typedef struct {
    const int32_t *key, *stem, *syn_off, *syn_id, *size;
    const uint8_t *fw;
    Py_ssize_t n_words, n_syn;
} Vocab;

typedef struct {
    int32_t *a; /* rows of (ref_start, ref_len, test_start, test_len, stage) in the order found */
    Py_ssize_t n, cap;
} Cands;

static int cand_add(Cands *c, int j, int len, int i, int mlen, int stage) {
    if (c->n == c->cap) {
        Py_ssize_t cap = c->cap * 2 + 64;
        int32_t *grown = PyMem_Realloc(c->a, (size_t)cap * 5 * sizeof(int32_t));
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        c->a = grown;
        c->cap = cap;
    }
    int32_t *m = c->a + 5 * c->n++;
    m[0] = j, m[1] = len, m[2] = i, m[3] = mlen, m[4] = stage;
    return 0;
}

static int share_synset(const Vocab *v, int a, int b) {
    int32_t x = v->syn_off[a], xe = v->syn_off[a + 1], y = v->syn_off[b], ye = v->syn_off[b + 1];
    while (x < xe && y < ye) {
        if (v->syn_id[x] == v->syn_id[y]) return 1;
        if (v->syn_id[x] < v->syn_id[y]) x++; else y++;
    }
    return 0;
}

/* one-word candidates of a stage: for each reference word, the hypothesis words in order */
static int word_stage(Cands *c, const Vocab *v, int mod, int stage, const int32_t *h, int n1, const int32_t *r,
                      int n2) {
    for (int j = 0; j < n2; j++) {
        for (int i = 0; i < n1; i++) {
            int hit;
            if (mod == EXACT) hit = v->key[h[i]] == v->key[r[j]];
            else if (v->key[h[i]] == v->key[r[j]]) hit = 0; /* later stages skip exact matches */
            else if (mod == STEM) hit = v->stem[h[i]] == v->stem[r[j]];
            else hit = share_synset(v, h[i], r[j]);
            if (hit && cand_add(c, j, 1, i, 1, stage) < 0) return -1;
        }
    }
    return 0;
}

static int para_stage(Cands *c, const PairTable *t, const PhraseList *ph, const PhraseList *pr, int stage,
                      Hits *hits) {
    if (para_hits(t, pr, ph, hits) < 0) return -1; /* reference phrases found in the hypothesis first */
    for (Py_ssize_t k = 0; k < hits->n; k++)
        if (cand_add(c, hits->a[k].p, hits->a[k].len, hits->a[k].q, hits->a[k].olen, stage) < 0) return -1;
    if (para_hits(t, ph, pr, hits) < 0) return -1;
    for (Py_ssize_t k = 0; k < hits->n; k++)
        if (cand_add(c, hits->a[k].q, hits->a[k].olen, hits->a[k].p, hits->a[k].len, stage) < 0) return -1;
    return 0;
}

static int cmp_match(const void *x, const void *y) {
    const int32_t *a = x, *b = y;
    for (int k = 0; k < 5; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* the statistics row of the chosen matches (see mtsig.meteor.scorer) */
static void fill_row(double *row, const Vocab *v, const int32_t *h, int n1, const int32_t *r, int n2,
                     int32_t *chosen, int n_chosen) {
    memset(row, 0, N_STATS * sizeof(double));
    for (int i = 0; i < n1; i++) {
        row[0] += v->size[h[i]];
        if (v->fw[h[i]]) row[2] += v->size[h[i]];
    }
    for (int j = 0; j < n2; j++) {
        row[1] += v->size[r[j]];
        if (v->fw[r[j]]) row[3] += v->size[r[j]];
    }
    if (n_chosen > 1) qsort(chosen, (size_t)n_chosen, 5 * sizeof(int32_t), cmp_match);
    int chunks = 0, last = -1, idx = 0, words1 = 0, words2 = 0;
    for (int k = 0; k < n_chosen; k++) {
        const int32_t *m = chosen + 5 * k;
        int base = 4 + 4 * m[4];
        for (int i = m[2]; i < m[2] + m[3]; i++) row[base + (v->fw[h[i]] ? 2 : 0)] += v->size[h[i]];
        for (int j = m[0]; j < m[0] + m[1]; j++) row[base + 1 + (v->fw[r[j]] ? 2 : 0)] += v->size[r[j]];
        words1 += m[3];
        words2 += m[1];
        if (m[0] > idx && last != -1) { /* a gap in the reference ends the chunk */
            chunks++;
            last = -1;
        }
        if (last != -1 && m[2] != last) chunks++;
        idx = m[0] + m[1];
        last = m[2] + m[3];
    }
    row[20] = chunks + (last != -1 ? 1 : 0);
    row[21] = words1;
    row[22] = words2;
}

typedef struct {
    const int32_t *h, *r;
    int n1, n2;
    const unsigned char *stages;
    int n_stages, beam;
    const double *w;
    const PhraseList *ph, *pr;
    const PairTable *table;
} Segment;

static int segment_row(const Segment *sg, const Vocab *v, double *row) {
    Cands gen = {0};
    Hits hits = {0};
    int32_t *grouped = NULL, *off = NULL, *chosen_rows = NULL;
    int *chosen = NULL, n_chosen = 0, rc = -1, n_stages = sg->n_stages;
    int same = sg->n1 == sg->n2;
    for (int k = 0; same && k < sg->n1; k++) same = v->key[sg->h[k]] == v->key[sg->r[k]];
    if (same && n_stages > 1) n_stages = 1; /* identical: the first stage only, as the jar */
    for (int s = 0; s < n_stages; s++) {
        int mod = sg->stages[s];
        if (mod == PARAPHRASE) {
            if (!sg->table || !sg->ph || !sg->pr) {
                PyErr_SetString(PyExc_ValueError, "segment: the paraphrase stage needs phrases and a table");
                goto end;
            }
            if (para_stage(&gen, sg->table, sg->ph, sg->pr, s, &hits) < 0) goto end;
        } else if (word_stage(&gen, v, mod, s, sg->h, sg->n1, sg->r, sg->n2) < 0) {
            goto end;
        }
    }
    if ((double)sg->beam * (double)(gen.n + sg->n2) > MAX_SEARCH_WORK) {
        PyErr_Format(PyExc_ValueError, "segment: the alignment search would expand %lld paths (beam %d x %zd "
                     "candidate matches), more than %lld", (long long)sg->beam * (long long)(gen.n + sg->n2),
                     sg->beam, gen.n, (long long)MAX_SEARCH_WORK);
        goto end;
    }
    /* group by reference position, keeping the order found (a counting sort) */
    grouped = PyMem_Malloc((size_t)(gen.n + 1) * 5 * sizeof(int32_t));
    off = PyMem_Calloc((size_t)sg->n2 + 2, sizeof(int32_t));
    chosen = PyMem_Malloc((size_t)(sg->n2 + 1) * sizeof(int));
    chosen_rows = PyMem_Malloc((size_t)(sg->n2 + 1) * 5 * sizeof(int32_t));
    if (!grouped || !off || !chosen || !chosen_rows) {
        PyErr_NoMemory();
        goto end;
    }
    for (Py_ssize_t k = 0; k < gen.n; k++) off[gen.a[5 * k] + 1]++;
    for (int j = 0; j < sg->n2; j++) off[j + 1] += off[j];
    for (int j = 0; j < sg->n2; j++) chosen[j] = off[j]; /* chosen serves as the cursor of each position */
    for (Py_ssize_t k = 0; k < gen.n; k++)
        memcpy(grouped + 5 * chosen[gen.a[5 * k]]++, gen.a + 5 * k, 5 * sizeof(int32_t));
    if (search_core(grouped, off, sg->n1, sg->n2, sg->w, sg->beam, chosen, &n_chosen) < 0) {
        PyErr_NoMemory();
        goto end;
    }
    for (int k = 0; k < n_chosen; k++) memcpy(chosen_rows + 5 * k, grouped + 5 * chosen[k], 5 * sizeof(int32_t));
    fill_row(row, v, sg->h, sg->n1, sg->r, sg->n2, chosen_rows, n_chosen);
    rc = 0;
end:
    PyMem_Free(gen.a);
    PyMem_Free(hits.a);
    PyMem_Free(grouped);
    PyMem_Free(off);
    PyMem_Free(chosen);
    PyMem_Free(chosen_rows);
    return rc;
}
/* vocabulary arrays (key, stem, syn_off, syn_id, size: int32; fw: uint8) checked against the word ids used */
static int vocab_check(Vocab *v, Py_buffer *b, const int32_t *const *ids, const int *n) {
    v->key = b[0].buf, v->stem = b[1].buf, v->syn_off = b[2].buf, v->syn_id = b[3].buf, v->size = b[4].buf;
    v->fw = b[5].buf;
    v->n_words = b[0].len / 4;
    v->n_syn = b[3].len / 4;
    int ok = b[1].len / 4 == v->n_words && b[2].len / 4 == v->n_words + 1 && b[4].len / 4 == v->n_words &&
             b[5].len == v->n_words;
    for (Py_ssize_t k = 0; ok && k < v->n_words; k++)
        ok = v->syn_off[k] >= 0 && v->syn_off[k] <= v->syn_off[k + 1] && v->syn_off[k + 1] <= v->n_syn;
    for (int side = 0; side < 2; side++)
        for (int k = 0; ok && k < n[side]; k++) ok = ids[side][k] >= 0 && ids[side][k] < v->n_words;
    if (!ok) PyErr_SetString(PyExc_ValueError, "segment: inconsistent vocabulary arrays or word ids");
    return ok ? 0 : -1;
}

/* segment(hyp_ids, ref_ids, vocab, stages, weights, beam, hyp_phrases, ref_phrases, table, out): the 23
 * statistics of one hypothesis against one reference into out (float64 x 23). hyp_ids/ref_ids: int32 word
 * ids; vocab: (key, stem, syn_off, syn_id, size, fw) arrays by word id; stages: bytes of module codes;
 * weights: the search weight of each stage; phrases: (starts, lengths, ids) or None; table: (pairs, order,
 * pair_start) as para_find takes them, or None. */
static PyObject *py_segment(PyObject *self, PyObject *args) {
    Py_buffer hb, rb, ob, vb[6], tb[3];
    PyObject *vocab, *weights, *ph_obj, *pr_obj, *table_obj;
    const char *stages;
    Py_ssize_t n_stages;
    int beam, nv = 0, nt = 0;
    if (!PyArg_ParseTuple(args, "y*y*O!y#OiOOOw*", &hb, &rb, &PyTuple_Type, &vocab, &stages, &n_stages, &weights,
                          &beam, &ph_obj, &pr_obj, &table_obj, &ob))
        return NULL;
    PyObject *res = NULL;
    PhraseList ph = {0}, pr = {0};
    PairTable table = {0};
    double w[64];
    Vocab v;
    Segment sg = {hb.buf, rb.buf, (int)(hb.len / 4), (int)(rb.len / 4), (const unsigned char *)stages,
                  (int)n_stages, beam, w, NULL, NULL, NULL};
    if (!PyArg_ParseTuple(vocab, "y*y*y*y*y*y*", &vb[0], &vb[1], &vb[2], &vb[3], &vb[4], &vb[5])) goto end;
    nv = 6;
    const int32_t *ids[2] = {sg.h, sg.r};
    int n[2] = {sg.n1, sg.n2};
    if (vocab_check(&v, vb, ids, n) < 0) goto end;
    if (n_stages < 1 || n_stages > 4 || beam < 1 || ob.len != N_STATS * (Py_ssize_t)sizeof(double) ||
        PySequence_Size(weights) != n_stages) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "segment: inconsistent stages, weights or out");
        goto end;
    }
    for (Py_ssize_t k = 0; k < n_stages; k++) {
        PyObject *x = PySequence_GetItem(weights, k);
        w[k] = x ? PyFloat_AsDouble(x) : -1.0;
        Py_XDECREF(x);
        if (stages[k] < EXACT || stages[k] > PARAPHRASE) PyErr_SetString(PyExc_ValueError, "segment: bad stage");
        if (PyErr_Occurred()) goto end;
    }
    if (table_obj != Py_None) {
        if (!PyArg_ParseTuple(table_obj, "y*y*y*", &tb[0], &tb[1], &tb[2])) goto end;
        nt = 3;
        if (pair_table(&table, tb) < 0) goto end;
        sg.table = &table;
    }
    if (ph_obj != Py_None && pr_obj != Py_None) {
        if (phrase_list(ph_obj, &ph) || phrase_list(pr_obj, &pr)) goto end;
        for (int side = 0; side < 2; side++) {
            const PhraseList *pl = side ? &pr : &ph;
            for (Py_ssize_t k = 0; k < pl->n; k++)
                if (pl->start[k] < 0 || pl->len[k] < 1 || pl->start[k] + pl->len[k] > n[side]) {
                    PyErr_SetString(PyExc_ValueError, "segment: a phrase outside its line");
                    goto end;
                }
        }
        sg.ph = &ph;
        sg.pr = &pr;
    }
    if (segment_row(&sg, &v, ob.buf) == 0) res = Py_NewRef(Py_None);
end:
    phrase_list_free(&ph);
    phrase_list_free(&pr);
    for (int k = 0; k < nv; k++) PyBuffer_Release(&vb[k]);
    for (int k = 0; k < nt; k++) PyBuffer_Release(&tb[k]);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&ob);
    return res;
}

/* java_hash(word) -> Java's String.hashCode of word (over UTF-16 code units, 32-bit signed) */
static PyObject *py_java_hash(PyObject *self, PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "java_hash: expected str");
        return NULL;
    }
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    uint32_t h = 0;
    for (Py_ssize_t k = 0, n = PyUnicode_GET_LENGTH(arg); k < n; k++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        if (c > 0xFFFF) {
            h = 31 * h + (0xD800 + ((c - 0x10000) >> 10));
            c = 0xDC00 + ((c - 0x10000) & 0x3FF);
        }
        h = 31 * h + c;
    }
    return PyLong_FromLong((long)(int32_t)h);
}

static PyMethodDef methods[] = {
    {"search", py_search, METH_VARARGS, "METEOR 1.5's alignment search (see the module source)."},
    {"phrase_hashes", py_phrase_hashes, METH_VARARGS, "FNV-1a 64 hash of each phrase of a blob."},
    {"phrases", py_phrases, METH_VARARGS, "The n-grams of a line that are phrases of the table."},
    {"para_find", py_para_find, METH_VARARGS, "Paraphrase pairs between the phrases of two lines."},
    {"java_hash", py_java_hash, METH_O, "Java's String.hashCode of a str."},
    {"segment", py_segment, METH_VARARGS, "The statistics of one hypothesis against one reference."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_meteor", NULL, -1, methods};

PyMODINIT_FUNC PyInit__meteor(void) { return PyModule_Create(&module); }
