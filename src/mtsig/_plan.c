/*
 * mtsig._plan: the kernels of the resampling plans (mtsig.resample), each equal to the numpy steps it
 * replaces, which stay as the reference and the fallback.
 *
 * counts(idx, out): bootstrap weights. idx is a C-contiguous int64 (R, N) array of draws in [0, N); out a
 * C-contiguous float32 or float64 (R, N) array. Row r of out becomes the number of times each column was
 * drawn in row r of idx (numpy: bincount of idx + N * row, reshaped). Small integers: exact in either type.
 *
 * group_sums(pick, G, out): stratified totals without the weight matrix. pick is a C-contiguous int64 (R, N)
 * array of subset numbers in [0, T); G a C-contiguous float32 (N, T, c) array (G[i, s] = the statistics of
 * segment i's outputs in subset s, summed); out a C-contiguous float32 (R, c) array. Row r of out becomes
 * sum_i G[i, pick[r, i]], which is W @ S for the 0/1 membership rows W of the picked subsets. The caller
 * uses it only for integer statistics whose sums float32 holds exactly (then no order of summation changes a
 * digit).
 *
 * bits(src, out): randomization weights. src is a C-contiguous uint8 1-d array of random bytes; out a
 * C-contiguous float32 or float64 (R, N) array. Flat entry i of out becomes bit i of src, the most significant
 * bit of each byte first (numpy: unpackbits of src, cut to R * N and reshaped). src must hold R * N bits.
 *
 * seed_pcg64(words), random_bytes(state, out) and draws(state, bound, out): numpy's random streams (mtsig.pcg).
 * seed_pcg64 returns the state of PCG64(SeedSequence(...)) from the SeedSequence's entropy words (32-bit words, as
 * mtsig.pcg.entropy assembles them): the four 64-bit words (state high, state low, increment high, increment low)
 * that mtsig.pcg.pcg64_state, its Python reference, computes. random_bytes fills the C-contiguous uint8 1-d array
 * out with what Generator.bytes(len(out)) returns; draws fills the C-contiguous int64 (R, N) array out with what
 * Generator.integers(0, bound, (R, N)) returns, for 1 <= bound <= 2**32 (numpy's 32-bit path: Lemire's
 * multiply-and-reject on the buffered 32-bit halves of the 64-bit outputs, low half first). draw_counts(state, out)
 * is draws(state, N, idx) followed by counts(idx, out) for the C-contiguous float32 or float64 (R, N) array out,
 * in one pass without idx: bootstrap weights straight from the stream.
 *
 * The array kernels release the GIL while they run. All check every index, size and word (an index out of range, a
 * short src or an entropy word of more than 32 bits is a ValueError; a state word that is not a whole number in
 * [0, 2**64) is a TypeError or an OverflowError).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_checks.h"

/* a C-contiguous buffer of ndim dimensions and the given item format ('q' int64, 'B' uint8, 'f' float32,
   'd' float64; "fd" accepts either float type) */
static int get_view(PyObject *o, View *v, int ndim, const char *formats, int writable, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, &v->b, flags) < 0) return -1;
    v->held = 1;
    const char *f = v->b.format ? v->b.format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    int ok = v->b.ndim == ndim && f[0] != 0 && f[1] == 0 && strchr(formats, f[0]) != NULL;
    if (ok && f[0] == 'q') ok = v->b.itemsize == 8;
    if (ok && f[0] == 'l') ok = v->b.itemsize == 8;
    if (!ok) {
        const char *type = formats[0] == 'q'   ? "int64"
                           : formats[0] == 'B' ? "uint8"
                           : formats[1] == 'd' ? "float32 or float64"
                                               : "float32";
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous %d-d %s array", what, ndim, type);
        release(v);
        return -1;
    }
    return 0;
}

static PyObject *counts(PyObject *self, PyObject *args) {
    PyObject *io, *oo;
    if (!PyArg_ParseTuple(args, "OO", &io, &oo)) return NULL;
    View iv = {0}, ov = {0};
    if (get_view(io, &iv, 2, "ql", 0, "idx") < 0) return NULL;
    if (get_view(oo, &ov, 2, "fd", 1, "out") < 0) {
        release(&iv);
        return NULL;
    }
    Py_ssize_t R = iv.b.shape[0], N = iv.b.shape[1];
    if (ov.b.shape[0] != R || ov.b.shape[1] != N) {
        PyErr_SetString(PyExc_ValueError, "counts: idx and out must have the same shape");
        goto fail;
    }
    const int64_t *idx = (const int64_t *)iv.b.buf;
    int is_f32 = ov.b.itemsize == 4;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    memset(ov.b.buf, 0, (size_t)ov.b.len);
    for (Py_ssize_t r = 0; r < R && !bad; r++) {
        const int64_t *row = idx + r * N;
        if (is_f32) {
            float *o = (float *)ov.b.buf + r * N;
            for (Py_ssize_t j = 0; j < N; j++) {
                int64_t k = row[j];
                if (k < 0 || k >= N) {
                    bad = 1;
                    break;
                }
                o[k] += 1.0f;
            }
        } else {
            double *o = (double *)ov.b.buf + r * N;
            for (Py_ssize_t j = 0; j < N; j++) {
                int64_t k = row[j];
                if (k < 0 || k >= N) {
                    bad = 1;
                    break;
                }
                o[k] += 1.0;
            }
        }
    }
    Py_END_ALLOW_THREADS;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "counts: a draw is outside [0, N)");
        goto fail;
    }
    release(&iv);
    release(&ov);
    Py_RETURN_NONE;
fail:
    release(&iv);
    release(&ov);
    return NULL;
}

/* rows per pass of group_sums: their accumulators (ROWS x c doubles) stay in the first-level cache while
   the segments are walked once */
#define ROWS 256

static PyObject *group_sums(PyObject *self, PyObject *args) {
    PyObject *po, *go, *oo;
    if (!PyArg_ParseTuple(args, "OOO", &po, &go, &oo)) return NULL;
    View pv = {0}, gv = {0}, ov = {0};
    if (get_view(po, &pv, 2, "ql", 0, "pick") < 0) return NULL;
    if (get_view(go, &gv, 3, "f", 0, "G") < 0 || get_view(oo, &ov, 2, "f", 1, "out") < 0) {
        release(&pv);
        release(&gv);
        return NULL;
    }
    Py_ssize_t R = pv.b.shape[0], N = pv.b.shape[1], T = gv.b.shape[1], c = gv.b.shape[2];
    if (gv.b.shape[0] != N || ov.b.shape[0] != R || ov.b.shape[1] != c) {
        PyErr_SetString(PyExc_ValueError, "group_sums: pick (R, N), G (N, T, c) and out (R, c) do not agree");
        goto fail;
    }
    const int64_t *pick = (const int64_t *)pv.b.buf;
    const float *G = (const float *)gv.b.buf;
    float *out = (float *)ov.b.buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    memset(out, 0, (size_t)ov.b.len);
    for (Py_ssize_t r0 = 0; r0 < R && !bad; r0 += ROWS) {
        Py_ssize_t r1 = r0 + ROWS < R ? r0 + ROWS : R;
        for (Py_ssize_t i = 0; i < N && !bad; i++) {
            const float *gi = G + i * T * c;
            for (Py_ssize_t r = r0; r < r1; r++) {
                int64_t s = pick[r * N + i];
                if (s < 0 || s >= T) {
                    bad = 1;
                    break;
                }
                const float *restrict g = gi + s * c;
                float *restrict o = out + r * c;
                for (Py_ssize_t k = 0; k < c; k++) o[k] += g[k];
            }
        }
    }
    Py_END_ALLOW_THREADS;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "group_sums: a subset number is outside [0, T)");
        goto fail;
    }
    release(&pv);
    release(&gv);
    release(&ov);
    Py_RETURN_NONE;
fail:
    release(&pv);
    release(&gv);
    release(&ov);
    return NULL;
}

static PyObject *bits(PyObject *self, PyObject *args) {
    PyObject *so, *oo;
    if (!PyArg_ParseTuple(args, "OO", &so, &oo)) return NULL;
    View sv = {0}, ov = {0};
    if (get_view(so, &sv, 1, "B", 0, "src") < 0) return NULL;
    if (get_view(oo, &ov, 2, "fd", 1, "out") < 0) {
        release(&sv);
        return NULL;
    }
    Py_ssize_t total = ov.b.shape[0] * ov.b.shape[1];
    if (sv.b.shape[0] < total / 8 + (total % 8 != 0)) {
        PyErr_Format(PyExc_ValueError, "bits: src holds %zd bits, out needs %zd", sv.b.shape[0] * 8, total);
        release(&sv);
        release(&ov);
        return NULL;
    }
    const unsigned char *src = (const unsigned char *)sv.b.buf;
    int is_f32 = ov.b.itemsize == 4;
    Py_BEGIN_ALLOW_THREADS;
    Py_ssize_t whole = total / 8;
    if (is_f32) {
        float *o = (float *)ov.b.buf;
        for (Py_ssize_t j = 0; j < whole; j++, o += 8) {
            unsigned v = src[j];
            for (int q = 0; q < 8; q++) o[q] = (float)((v >> (7 - q)) & 1u);
        }
        for (Py_ssize_t q = 0; q < total - whole * 8; q++) o[q] = (float)((src[whole] >> (7 - q)) & 1u);
    } else {
        double *o = (double *)ov.b.buf;
        for (Py_ssize_t j = 0; j < whole; j++, o += 8) {
            unsigned v = src[j];
            for (int q = 0; q < 8; q++) o[q] = (double)((v >> (7 - q)) & 1u);
        }
        for (Py_ssize_t q = 0; q < total - whole * 8; q++) o[q] = (double)((src[whole] >> (7 - q)) & 1u);
    }
    Py_END_ALLOW_THREADS;
    release(&sv);
    release(&ov);
    Py_RETURN_NONE;
}

/* PCG64, continued from a state seeded in Python: numpy's next_uint64 (step the 128-bit LCG, then the XSL-RR
   output of the new state) and its next_uint32 (the low half of a 64-bit output, its high half kept for the next
   call). The 128-bit product uses 64-bit halves only, so every compiler builds the same numbers. */
typedef struct {
    uint64_t hi, lo, inc_hi, inc_lo;
    int has32;
    uint32_t buf32;
} Pcg64;

#define PCG_MULT_HI 0x2360ED051FC65DA4ULL
#define PCG_MULT_LO 0x4385DF649FCCF645ULL

static inline void mul_64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

static inline uint64_t pcg_next64(Pcg64 *g) {
    uint64_t hi, lo;
    mul_64x64(g->lo, PCG_MULT_LO, &hi, &lo);
    hi += g->hi * PCG_MULT_LO + g->lo * PCG_MULT_HI;
    lo += g->inc_lo;
    hi += g->inc_hi + (lo < g->inc_lo);
    g->hi = hi;
    g->lo = lo;
    uint64_t x = hi ^ lo;
    unsigned rot = (unsigned)(hi >> 58);
    return (x >> rot) | (x << ((64u - rot) & 63u));
}

static inline uint32_t pcg_next32(Pcg64 *g) {
    if (g->has32) {
        g->has32 = 0;
        return g->buf32;
    }
    uint64_t v = pcg_next64(g);
    g->has32 = 1;
    g->buf32 = (uint32_t)(v >> 32);
    return (uint32_t)v;
}

/* the four state words (each a Python int in [0, 2**64)) */
static int get_state(PyObject *words[4], Pcg64 *g) {
    uint64_t w[4];
    for (int i = 0; i < 4; i++) {
        if (!PyLong_Check(words[i])) {
            PyErr_SetString(PyExc_TypeError, "state: expected four whole numbers");
            return -1;
        }
        unsigned long long v = PyLong_AsUnsignedLongLong(words[i]);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        w[i] = (uint64_t)v;
    }
    g->hi = w[0];
    g->lo = w[1];
    g->inc_hi = w[2];
    g->inc_lo = w[3];
    g->has32 = 0;
    g->buf32 = 0;
    return 0;
}

/* SeedSequence (numpy): the pool of four 32-bit words hashed from the entropy words, and the state drawn from it */
#define SS_INIT_A 0x43B0D7E5u
#define SS_MULT_A 0x931E8875u
#define SS_INIT_B 0x8B51F9DDu
#define SS_MULT_B 0x58F38DEDu
#define SS_MIX_L 0xCA01F9DDu
#define SS_MIX_R 0x4973F715u

static inline uint32_t ss_hash(uint32_t value, uint32_t *c) {
    value ^= *c;
    *c *= SS_MULT_A;
    value *= *c;
    return value ^ (value >> 16);
}

static inline uint32_t ss_mix(uint32_t x, uint32_t y) {
    uint32_t r = SS_MIX_L * x - SS_MIX_R * y;
    return r ^ (r >> 16);
}

static PyObject *seed_pcg64(PyObject *self, PyObject *arg) {
    PyObject *seq = PySequence_Fast(arg, "seed_pcg64: expected a sequence of 32-bit words");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    uint32_t pool[4], c = SS_INIT_A;
    uint32_t first[4] = {0, 0, 0, 0};
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyLong_Check(items[i])) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "seed_pcg64: expected whole numbers");
            return NULL;
        }
        unsigned long long v = PyLong_AsUnsignedLongLong(items[i]);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (v > 0xFFFFFFFFull) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "seed_pcg64: word %zd is not a 32-bit word", i);
            return NULL;
        }
        if (i < 4) first[i] = (uint32_t)v;
    }
    for (int i = 0; i < 4; i++) pool[i] = ss_hash(first[i], &c);
    for (int src = 0; src < 4; src++)
        for (int dst = 0; dst < 4; dst++)
            if (src != dst) pool[dst] = ss_mix(pool[dst], ss_hash(pool[src], &c));
    for (Py_ssize_t src = 4; src < n; src++) {
        uint32_t w = (uint32_t)PyLong_AsUnsignedLongLong(items[src]);
        for (int dst = 0; dst < 4; dst++) pool[dst] = ss_mix(pool[dst], ss_hash(w, &c));
    }
    Py_DECREF(seq);
    uint32_t half[8], b = SS_INIT_B;
    for (int i = 0; i < 8; i++) {
        uint32_t v = pool[i % 4] ^ b;
        b *= SS_MULT_B;
        v *= b;
        half[i] = v ^ (v >> 16);
    }
    uint64_t v[4];
    for (int i = 0; i < 4; i++) v[i] = (uint64_t)half[2 * i] | ((uint64_t)half[2 * i + 1] << 32);
    /* PCG64's seeding: increment = 2 * sequence + 1; from state 0, one step, add the start, one step */
    Pcg64 g;
    g.inc_hi = (v[2] << 1) | (v[3] >> 63);
    g.inc_lo = (v[3] << 1) | 1u;
    g.lo = g.inc_lo + v[1];
    g.hi = g.inc_hi + v[0] + (g.lo < v[1]);
    g.has32 = 0;
    g.buf32 = 0;
    (void)pcg_next64(&g);
    return Py_BuildValue("(KKKK)", (unsigned long long)g.hi, (unsigned long long)g.lo,
                         (unsigned long long)g.inc_hi, (unsigned long long)g.inc_lo);
}

static PyObject *random_bytes(PyObject *self, PyObject *args) {
    PyObject *words[4], *oo;
    if (!PyArg_ParseTuple(args, "(OOOO)O", &words[0], &words[1], &words[2], &words[3], &oo)) return NULL;
    Pcg64 g;
    if (get_state(words, &g) < 0) return NULL;
    View ov = {0};
    if (get_view(oo, &ov, 1, "B", 1, "out") < 0) return NULL;
    unsigned char *o = (unsigned char *)ov.b.buf;
    Py_ssize_t n = ov.b.shape[0];
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i += 8) {
        uint64_t v = pcg_next64(&g);
        Py_ssize_t m = n - i < 8 ? n - i : 8;
        for (Py_ssize_t q = 0; q < m; q++) o[i + q] = (unsigned char)(v >> (8 * q));
    }
    Py_END_ALLOW_THREADS;
    release(&ov);
    Py_RETURN_NONE;
}

/* numpy's bounded 32-bit draw in [0, excl) for 2 <= excl < 2**32 (threshold = 2**32 mod excl): Lemire's
   multiply, rejecting the low products below the threshold */
static inline uint32_t lemire32(Pcg64 *g, uint32_t excl, uint32_t threshold) {
    uint64_t m = (uint64_t)pcg_next32(g) * excl;
    uint32_t left = (uint32_t)m;
    if (left < excl) {
        while (left < threshold) {
            m = (uint64_t)pcg_next32(g) * excl;
            left = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

static PyObject *draws(PyObject *self, PyObject *args) {
    PyObject *words[4], *oo;
    long long bound;
    if (!PyArg_ParseTuple(args, "(OOOO)LO", &words[0], &words[1], &words[2], &words[3], &bound, &oo)) return NULL;
    if (bound < 1 || bound > 4294967296LL) {
        PyErr_Format(PyExc_ValueError, "draws: bound must be in [1, 2**32], got %lld", bound);
        return NULL;
    }
    Pcg64 g;
    if (get_state(words, &g) < 0) return NULL;
    View ov = {0};
    if (get_view(oo, &ov, 2, "ql", 1, "out") < 0) return NULL;
    int64_t *o = (int64_t *)ov.b.buf;
    Py_ssize_t n = ov.b.shape[0] * ov.b.shape[1];
    Py_BEGIN_ALLOW_THREADS;
    if (bound == 1) {
        for (Py_ssize_t i = 0; i < n; i++) o[i] = 0;
    } else if (bound == 4294967296LL) {
        for (Py_ssize_t i = 0; i < n; i++) o[i] = (int64_t)pcg_next32(&g);
    } else {
        const uint32_t excl = (uint32_t)bound;
        const uint32_t threshold = (uint32_t)(0xFFFFFFFFu - (excl - 1u)) % excl; /* 2**32 mod bound */
        for (Py_ssize_t i = 0; i < n; i++) o[i] = (int64_t)lemire32(&g, excl, threshold);
    }
    Py_END_ALLOW_THREADS;
    release(&ov);
    Py_RETURN_NONE;
}

static PyObject *draw_counts(PyObject *self, PyObject *args) {
    PyObject *words[4], *oo;
    if (!PyArg_ParseTuple(args, "(OOOO)O", &words[0], &words[1], &words[2], &words[3], &oo)) return NULL;
    Pcg64 g;
    if (get_state(words, &g) < 0) return NULL;
    View ov = {0};
    if (get_view(oo, &ov, 2, "fd", 1, "out") < 0) return NULL;
    Py_ssize_t R = ov.b.shape[0], N = ov.b.shape[1];
    if (N > 4294967295LL) {
        PyErr_SetString(PyExc_ValueError, "draw_counts: at most 2**32 - 1 columns");
        release(&ov);
        return NULL;
    }
    int is_f32 = ov.b.itemsize == 4;
    Py_BEGIN_ALLOW_THREADS;
    memset(ov.b.buf, 0, (size_t)ov.b.len);
    if (N == 1) { /* numpy draws nothing for a bound of 1: every draw is 0 */
        for (Py_ssize_t r = 0; r < R; r++) {
            if (is_f32)
                ((float *)ov.b.buf)[r] = 1.0f;
            else
                ((double *)ov.b.buf)[r] = 1.0;
        }
    } else if (N > 1) {
        const uint32_t excl = (uint32_t)N;
        const uint32_t threshold = (uint32_t)(0xFFFFFFFFu - (excl - 1u)) % excl;
        for (Py_ssize_t r = 0; r < R; r++) {
            if (is_f32) {
                float *o = (float *)ov.b.buf + r * N;
                for (Py_ssize_t j = 0; j < N; j++) o[lemire32(&g, excl, threshold)] += 1.0f;
            } else {
                double *o = (double *)ov.b.buf + r * N;
                for (Py_ssize_t j = 0; j < N; j++) o[lemire32(&g, excl, threshold)] += 1.0;
            }
        }
    }
    Py_END_ALLOW_THREADS;
    release(&ov);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"counts", counts, METH_VARARGS,
     "counts(idx, out): out[r] = how often each column was drawn in idx[r] (int64 (R, N) -> float (R, N))."},
    {"group_sums", group_sums, METH_VARARGS,
     "group_sums(pick, G, out): out[r] = sum_i G[i, pick[r, i]] (int64 (R, N), float32 (N, T, c) -> (R, c))."},
    {"draw_counts", draw_counts, METH_VARARGS,
     "draw_counts(state, out): counts(draws(state, N, idx), out) in one pass, without idx (float (R, N))."},
    {"bits", bits, METH_VARARGS,
     "bits(src, out): flat out[i] = bit i of src, most significant first (uint8 (B,) -> float (R, N))."},
    {"seed_pcg64", seed_pcg64, METH_O,
     "seed_pcg64(words): the PCG64 state (4 words) SeedSequence seeds from these entropy words (mtsig.pcg)."},
    {"random_bytes", random_bytes, METH_VARARGS,
     "random_bytes(state, out): out = Generator.bytes(len(out)) of the PCG64 state (4 words) -> uint8 (B,)."},
    {"draws", draws, METH_VARARGS,
     "draws(state, bound, out): out = Generator.integers(0, bound, out.shape) of the PCG64 state -> int64 (R, N)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_plan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__plan(void) { return PyModule_Create(&module); }
