/*
 * mtsig._tok: the 13a tokenization rules and word coding, in C.
 *
 * rules_13a(lines, perl_ws, rules=True) -> list of token lists (rules=False: str.split of each line, the same
 * tokens, repeated ones interned as below). Each line is framed by one space and rewritten by the
 * four rules of mteval-v13a's default tokenization, in order, each as a left-to-right scan that replaces
 * non-overlapping two-character matches exactly as Perl's s///g and Python's re.sub do:
 *   1. every character of  { | } ~  [ \ ] ^ _ `  space ! " # $ % &  ( ) * +  : ; < = > ? @  /  is padded
 *      with a space on each side;
 *   2. (non-digit)(period or comma)    -> "$1 $2 "
 *   3. (period or comma)(non-digit)    -> " $1 $2"
 *   4. (digit)(dash)                   -> "$1 $2 "
 * (digits are ASCII 0-9, as [0-9] in both regex engines), then split on whitespace: Python's str.split()
 * rules, or Perl's \s (the same set without U+001C..U+001F) when perl_ws is true. The preparation before
 * the rules (entities, case, <skipped>, whitespace runs) stays in Python; mtsig.tokenize keeps the same rules
 * as regular expressions, the reference these functions are tested against.
 *
 * pair_codes(...): the n-gram lookup of mtsig.metrics.ngrams, each search within one prefix's entries;
 * clip_counts(...): its clipped counts per segment.
 *
 * code_words(token_lists, vocab, grow) -> (ids bytes of int64, lengths bytes of int64): the id of every
 * token in vocab (a dict str -> int); unknown tokens get the next id when grow is true, -1 otherwise.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_checks.h"

typedef struct {
    Py_UCS4 *a, *b;
    Py_ssize_t cap;
} Buf;

static int buf_reserve(Buf *w, Py_ssize_t n) {
    if (n <= w->cap) return 0;
    Py_ssize_t cap = n * 2;
    Py_UCS4 *a = PyMem_Realloc(w->a, (size_t)cap * sizeof(Py_UCS4));
    if (!a) return -1;
    w->a = a;
    Py_UCS4 *b = PyMem_Realloc(w->b, (size_t)cap * sizeof(Py_UCS4));
    if (!b) return -1;
    w->b = b;
    w->cap = cap;
    return 0;
}

static inline int is_pad(Py_UCS4 c) {
    return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
           (c >= ':' && c <= '@') || c == '/';
}

static inline int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static inline int is_pc(Py_UCS4 c) { return c == '.' || c == ','; }

static inline int is_ws(Py_UCS4 c, int perl) {
    if (perl && c >= 0x1c && c <= 0x1f) return 0;
    return Py_UNICODE_ISSPACE(c);
}

/* rule 2, 3 or 4 from src (n chars) into dst; returns the new length (at most 2 n) */
static Py_ssize_t rule(int which, const Py_UCS4 *s, Py_ssize_t n, Py_UCS4 *d) {
    Py_ssize_t i = 0, k = 0;
    while (i < n) {
        if (i + 1 < n) {
            Py_UCS4 x = s[i], y = s[i + 1];
            int hit = which == 2 ? (!is_digit(x) && is_pc(y)) : which == 3 ? (is_pc(x) && !is_digit(y))
                                                                            : (is_digit(x) && y == '-');
            if (hit) {
                if (which == 3) {
                    d[k++] = ' ';
                    d[k++] = x;
                    d[k++] = ' ';
                    d[k++] = y;
                } else {
                    d[k++] = x;
                    d[k++] = ' ';
                    d[k++] = y;
                    d[k++] = ' ';
                }
                i += 2;
                continue;
            }
        }
        d[k++] = s[i++];
    }
    return k;
}

/* Tokens already made in this call, by their characters: a repeated token is the same str object, made
 * once (its hash, computed once, then serves every dictionary lookup of code_words). Open addressing, at
 * most half full; a token is looked up by an FNV-1a hash of its characters and compared in full. */
typedef struct {
    PyObject **slot;
    uint64_t *hash;
    size_t mask, used;
} Interned;

static uint64_t chars_hash(const Py_UCS4 *c, Py_ssize_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t k = 0; k < n; k++) h = (h ^ c[k]) * 1099511628211ULL;
    return h;
}

static int same_chars(PyObject *t, const Py_UCS4 *c, Py_ssize_t n) {
    if (PyUnicode_GET_LENGTH(t) != n) return 0;
    int kind = PyUnicode_KIND(t);
    const void *data = PyUnicode_DATA(t);
    for (Py_ssize_t k = 0; k < n; k++)
        if (PyUnicode_READ(kind, data, k) != c[k]) return 0;
    return 1;
}

static int interned_grow(Interned *t) {
    size_t cap = t->slot ? 2 * (t->mask + 1) : 4096;
    PyObject **slot = PyMem_Calloc(cap, sizeof(PyObject *));
    uint64_t *hash = PyMem_Calloc(cap, sizeof(uint64_t));
    if (!slot || !hash) {
        PyMem_Free(slot);
        PyMem_Free(hash);
        return -1;
    }
    for (size_t i = 0; t->slot && i <= t->mask; i++) {
        if (!t->slot[i]) continue;
        size_t j = (size_t)t->hash[i] & (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = t->slot[i];
        hash[j] = t->hash[i];
    }
    PyMem_Free(t->slot);
    PyMem_Free(t->hash);
    t->slot = slot;
    t->hash = hash;
    t->mask = cap - 1;
    return 0;
}

static void interned_free(Interned *t) {
    for (size_t i = 0; t->slot && i <= t->mask; i++) Py_XDECREF(t->slot[i]);
    PyMem_Free(t->slot);
    PyMem_Free(t->hash);
}

static PyObject *make_str(const Py_UCS4 *c, Py_ssize_t n);

/* a new reference to the token of characters c[0..n), made or found in t */
static PyObject *interned_str(Interned *t, const Py_UCS4 *c, Py_ssize_t n) {
    if (!t->slot || 2 * (t->used + 1) > t->mask + 1) {
        if (interned_grow(t) < 0) return PyErr_NoMemory();
    }
    uint64_t h = chars_hash(c, n);
    size_t j = (size_t)h & t->mask;
    while (t->slot[j]) {
        if (t->hash[j] == h && same_chars(t->slot[j], c, n)) {
            Py_INCREF(t->slot[j]);
            return t->slot[j];
        }
        j = (j + 1) & t->mask;
    }
    PyObject *s = make_str(c, n);
    if (!s) return NULL;
    Py_INCREF(s);
    t->slot[j] = s;
    t->hash[j] = h;
    t->used++;
    return s;
}

/* a str of n characters: ASCII tokens (most of them) are written byte by byte, others converted */
static PyObject *make_str(const Py_UCS4 *c, Py_ssize_t n) {
    Py_UCS4 max = 0;
    for (Py_ssize_t k = 0; k < n; k++) max |= c[k];
    if (max >= 128) return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, c, n);
    PyObject *t = PyUnicode_New(n, 127);
    if (!t) return NULL;
    Py_UCS1 *d = PyUnicode_1BYTE_DATA(t);
    for (Py_ssize_t k = 0; k < n; k++) d[k] = (Py_UCS1)c[k];
    return t;
}

static PyObject *tokens_of(PyObject *line, Buf *w, Interned *seen, int perl, int rules) {
    if (!PyUnicode_Check(line)) {
        PyErr_SetString(PyExc_TypeError, "rules_13a: lines must be str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(line);
    if (buf_reserve(w, 24 * n + 16) < 0) return PyErr_NoMemory();
    int kind = PyUnicode_KIND(line);
    const void *data = PyUnicode_DATA(line);
    Py_UCS4 *a = w->a, *b = w->b;
    Py_ssize_t m = 0;
    if (!rules) { /* the line as it is, split on whitespace */
        for (Py_ssize_t i = 0; i < n; i++) b[m++] = PyUnicode_READ(kind, data, i);
    } else {
        a[m++] = ' ';
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (is_pad(c)) {
                a[m++] = ' ';
                a[m++] = c;
                a[m++] = ' ';
            } else {
                a[m++] = c;
            }
        }
        a[m++] = ' ';
        m = rule(2, a, m, b);
        m = rule(3, b, m, a);
        m = rule(4, a, m, b);
    }
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Py_ssize_t i = 0;
    while (i < m) {
        while (i < m && is_ws(b[i], perl)) i++;
        Py_ssize_t j = i;
        while (j < m && !is_ws(b[j], perl)) j++;
        if (j > i) {
            PyObject *t = interned_str(seen, b + i, j - i);
            if (!t || PyList_Append(out, t) < 0) {
                Py_XDECREF(t);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(t);
        }
        i = j;
    }
    return out;
}

static PyObject *rules_13a(PyObject *self, PyObject *args) {
    PyObject *lines;
    int perl, rules = 1;
    if (!PyArg_ParseTuple(args, "Op|p", &lines, &perl, &rules)) return NULL;
    PyObject *seq = PySequence_Fast(lines, "rules_13a: lines must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    Buf w = {NULL, NULL, 0};
    Interned seen = {NULL, NULL, 0, 0};
    if (!out) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *toks = tokens_of(PySequence_Fast_GET_ITEM(seq, i), &w, &seen, perl, rules);
        if (!toks) goto fail;
        PyList_SET_ITEM(out, i, toks);
    }
    PyMem_Free(w.a);
    PyMem_Free(w.b);
    interned_free(&seen);
    Py_DECREF(seq);
    return out;
fail:
    PyMem_Free(w.a);
    PyMem_Free(w.b);
    interned_free(&seen);
    Py_XDECREF(out);
    Py_DECREF(seq);
    return NULL;
}

static PyObject *code_words(PyObject *self, PyObject *args) {
    PyObject *lists, *vocab;
    int grow;
    if (!PyArg_ParseTuple(args, "OO!p", &lists, &PyDict_Type, &vocab, &grow)) return NULL;
    PyObject *seq = PySequence_Fast(lists, "code_words: a sequence of token lists");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyList_Check(t) && !PyTuple_Check(t)) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "code_words: token lists must be lists or tuples");
            return NULL;
        }
        total += PySequence_Fast_GET_SIZE(t);
    }
    PyObject *ids = PyBytes_FromStringAndSize(NULL, total * (Py_ssize_t)sizeof(int64_t));
    PyObject *lens = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (!ids || !lens) goto fail;
    int64_t *pi = (int64_t *)PyBytes_AS_STRING(ids), *pl = (int64_t *)PyBytes_AS_STRING(lens);
    Py_ssize_t k = 0;
    /* Only exact str tokens and exact int ids are taken: their hashing, comparison and conversion run no Python
     * code, so no token or value can resize a list while it is read; the sizes are re-read all the same and the
     * output is never written past the total counted above. */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t m = PySequence_Fast_GET_SIZE(t);
        pl[i] = m;
        for (Py_ssize_t j = 0; j < m && j < PySequence_Fast_GET_SIZE(t); j++) {
            PyObject *word = PySequence_Fast_GET_ITEM(t, j);
            if (!PyUnicode_CheckExact(word)) {
                PyErr_SetString(PyExc_TypeError, "code_words: tokens must be str");
                goto fail;
            }
            if (k >= total) {
                PyErr_SetString(PyExc_ValueError, "code_words: the token lists changed while they were read");
                goto fail;
            }
            PyObject *v = PyDict_GetItemWithError(vocab, word);
            if (v) {
                if (!PyLong_CheckExact(v)) {
                    PyErr_SetString(PyExc_TypeError, "code_words: vocabulary ids must be int");
                    goto fail;
                }
                pi[k++] = PyLong_AsLongLong(v);
                if (pi[k - 1] == -1 && PyErr_Occurred()) goto fail;
            } else if (PyErr_Occurred()) {
                goto fail;
            } else if (grow) {
                int64_t id = (int64_t)PyDict_GET_SIZE(vocab);
                PyObject *o = PyLong_FromLongLong(id);
                if (!o || PyDict_SetItem(vocab, word, o) < 0) {
                    Py_XDECREF(o);
                    goto fail;
                }
                Py_DECREF(o);
                pi[k++] = id;
            } else {
                pi[k++] = -1;
            }
        }
    }
    Py_DECREF(seq);
    return Py_BuildValue("(NN)", ids, lens);
fail:
    Py_XDECREF(ids);
    Py_XDECREF(lens);
    Py_DECREF(seq);
    return NULL;
}

/* pair_codes(table int64, starts int64, prev int64, nxt int64, V, out int64): for each i, the position in
 * the sorted table of prev[i] * V + nxt[i], or -1 when it is absent. The entries with prefix p are
 * table[starts[p]:starts[p + 1]], so each search runs within the few entries of one prefix. */
static PyObject *pair_codes(PyObject *self, PyObject *args) {
    Py_buffer bt, bs, bp, bn, bo;
    long long V;
    if (!PyArg_ParseTuple(args, "y*y*y*y*Lw*", &bt, &bs, &bp, &bn, &V, &bo)) return NULL;
    Py_ssize_t nt = bt.len / 8, ns = bs.len / 8, nq = bp.len / 8;
    int ok = bn.len / 8 == nq && bo.len / 8 == nq && ns >= 1;
    if (ok) {
        const int64_t *T = bt.buf, *S = bs.buf, *P = bp.buf, *N = bn.buf;
        int64_t *O = bo.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < nq; i++) {
            int64_t p = P[i], w = N[i], r = -1;
            if (p >= 0 && w >= 0 && p + 1 < ns) {
                int64_t lo = S[p], hi = S[p + 1], key = p * V + w;
                if (lo < 0) lo = 0;
                if (hi > nt) hi = nt;
                while (lo < hi) {
                    int64_t mid = lo + (hi - lo) / 2;
                    if (T[mid] < key) lo = mid + 1;
                    else hi = mid;
                }
                if (lo < nt && T[lo] == key) r = lo;
            }
            O[i] = r;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&bt); PyBuffer_Release(&bs); PyBuffer_Release(&bp); PyBuffer_Release(&bn);
    PyBuffer_Release(&bo);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "pair_codes: array lengths do not agree");
        return NULL;
    }
    Py_RETURN_NONE;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void sort_i64(int64_t *v, Py_ssize_t n) {
    if (n > 32) {
        qsort(v, (size_t)n, sizeof(int64_t), cmp_i64);
        return;
    }
    for (Py_ssize_t i = 1; i < n; i++) {
        int64_t x = v[i];
        Py_ssize_t j = i;
        while (j > 0 && v[j - 1] > x) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
}

/* clip_counts(off, code, C, ref_keys, ref_max, ref_starts, weights or None, matches, info or None): per
 * segment s (n-grams at off[s]:off[s + 1], code -1 for none), the sum over its distinct n-grams of
 * min(count, the most any reference segment has), from the sorted keys s * C + code of the references
 * (those of segment s at ref_starts[s]:ref_starts[s + 1]); with weights, also the sum of min(...) x weight.
 * Sums run in ascending code order, as np.bincount over the sorted distinct keys adds them. */
static PyObject *clip_counts(PyObject *self, PyObject *args) {
    Py_buffer bo, bc, bk, bm, bs, bout;
    Py_buffer bw = {0}, bi = {0};
    long long C;
    PyObject *ow, *oi;
    if (!PyArg_ParseTuple(args, "y*y*Ly*y*y*Ow*O", &bo, &bc, &C, &bk, &bm, &bs, &ow, &bout, &oi)) return NULL;
    int has_w = ow != Py_None, has_i = oi != Py_None, err = 0;
    if (has_w && PyObject_GetBuffer(ow, &bw, PyBUF_C_CONTIGUOUS) < 0) err = 1;
    if (!err && has_i && PyObject_GetBuffer(oi, &bi, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) err = 1;
    Py_ssize_t N = bo.len / 8 - 1, T = bc.len / 8;
    if (!err && (N < 0 || bs.len / 8 != N + 1 || bout.len / 8 != N || bm.len != bk.len || has_w != has_i ||
                 (has_i && bi.len / 8 != N))) {
        PyErr_SetString(PyExc_ValueError, "clip_counts: array lengths do not agree");
        err = 1;
    }
    if (!err && (mtsig_check_offsets64(bo.buf, N, T, "clip_counts: segment offsets") < 0 ||
                 mtsig_check_offsets64(bs.buf, N, bk.len / 8, "clip_counts: reference key starts") < 0))
        err = 1;
    int64_t *buf = NULL;
    if (!err) {
        buf = (int64_t *)malloc(sizeof(int64_t) * (size_t)(T > 0 ? T : 1));
        if (!buf) { PyErr_NoMemory(); err = 1; }
    }
    if (!err) {
        const int64_t *off = bo.buf, *code = bc.buf, *rk = bk.buf, *rmax = bm.buf, *rs = bs.buf;
        const double *W = has_w ? (const double *)bw.buf : NULL;
        double *M = bout.buf, *I = has_i ? (double *)bi.buf : NULL;
        Py_ssize_t nk = bk.len / 8, nw = has_w ? bw.len / 8 : 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t s = 0; s < N; s++) {
            Py_ssize_t k = 0;
            for (int64_t t = off[s]; t < off[s + 1] && t < T; t++)
                if (code[t] >= 0) buf[k++] = code[t];
            sort_i64(buf, k);
            int64_t j = rs[s] > 0 ? rs[s] : 0, end = rs[s + 1] < nk ? rs[s + 1] : nk;
            double m = 0.0, inf = 0.0;
            for (Py_ssize_t i = 0; i < k; i++) {
                int64_t c = buf[i], cnt = 1;
                while (i + 1 < k && buf[i + 1] == c) { cnt++; i++; }
                int64_t key = (int64_t)s * C + c;
                while (j < end && rk[j] < key) j++;
                if (j < end && rk[j] == key) {
                    int64_t clip = cnt < rmax[j] ? cnt : rmax[j];
                    m += (double)clip;
                    if (W && c < nw) inf += (double)clip * W[c];
                }
            }
            M[s] = m;
            if (I) I[s] = inf;
        }
        Py_END_ALLOW_THREADS
    }
    free(buf);
    PyBuffer_Release(&bo); PyBuffer_Release(&bc); PyBuffer_Release(&bk); PyBuffer_Release(&bm);
    PyBuffer_Release(&bs); PyBuffer_Release(&bout);
    if (bw.obj) PyBuffer_Release(&bw);
    if (bi.obj) PyBuffer_Release(&bi);
    if (err) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"clip_counts", clip_counts, METH_VARARGS,
     "clip_counts(off, code, C, ref_keys, ref_max, ref_starts, weights, matches, info): clipped n-gram "
     "matches per segment (and their information with weights), as the n-gram matcher sums them."},
    {"pair_codes", pair_codes, METH_VARARGS,
     "pair_codes(table, starts, prev, nxt, V, out): positions of prev * V + nxt in a sorted int64 table "
     "(entries of prefix p at starts[p]:starts[p + 1]), -1 when absent."},
    {"rules_13a", rules_13a, METH_VARARGS,
     "rules_13a(lines, perl_ws, rules=True): 13a rules on each line (framed by spaces), split on whitespace; "
     "rules=False: each line split on whitespace only (str.split)."},
    {"code_words", code_words, METH_VARARGS, "ids of every token in a vocabulary dict, and the list lengths."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tok", NULL, -1, methods};

PyMODINIT_FUNC PyInit__tok(void) { return PyModule_Create(&module); }
