/*
 * mtsig._meta: the kernel of tie-calibrated acc23 under PERM-BOTH (mtsig.metaeval.run._Acc23Table), equal to the
 * numpy steps it replaces, which stay as the reference and the fallback.
 *
 * acc23_block(words, pu, pv, good, group, qu, qv, qcode, qgain, qend, count_a, count_b, best_a, best_b): up to 64
 * PERM-BOTH draws at once. words is a C-contiguous uint64 (E,) array: bit d of words[e] is draw d's source bit of
 * entry e (1: from metric b) in hybrid a; hybrid b takes the other source everywhere. A pair p of entries (pu[p],
 * pv[p]) has code 2 * bit(pu[p]) + bit(pv[p]) in hybrid a and 3 - that code in hybrid b.
 *
 * - good is a C-contiguous uint8 (P, 4) array (the pair's agreement at epsilon 0 under each code) and group a
 *   C-contiguous int64 (P,) array of each pair's group in [0, G). count_a and count_b, C-contiguous int64 (D, G)
 *   arrays, become each draw's number of agreeing pairs per group in hybrid a and in hybrid b (D = rows, <= 64).
 * - qu, qv (int64), qcode (uint8, 0..3), qgain (float64) and qend (uint8) are the (Q,) candidates in the order of
 *   their absolute metric difference: the candidate of code qcode[q] of the pair (qu[q], qv[q]), its gain when it
 *   becomes a tie, and 1 where it is the last candidate of its run of equal differences. best_a and best_b,
 *   C-contiguous float64 (D,) arrays, become each draw's largest running sum of the selected candidates' gains at
 *   the end of a run, and 0 when none is larger: the sums are taken one candidate at a time in this order, as
 *   numpy's cumsum takes them (a candidate that is not selected adds nothing), so they are the same numbers.
 *
 * Every index is checked (an entry outside [0, E), a group outside [0, G), a code above 3 or shapes that do not
 * agree are a ValueError) before any loop reads through it; the loops release the GIL.
 *
 * pce_block(V, W, pairs, tol, ph, out): soft pairwise accuracy (pce) under PERM-BOTH (mtsig.metaeval.pce), equal
 * to its numpy reference. For K metrics, S systems and P permutations of the items: V is a C-contiguous float64
 * (K, S, P) array, each metric's sum over the items a permutation flips (Y = F @ z per system), W a C-contiguous
 * float64 (K, R, S, P) array, the same sums over the items each of R draws' masks also selects. For each pair q of
 * metrics (pairs, C-contiguous int64 (Q, 2), a = pairs[q, 0], b = pairs[q, 1]) and draw r, hybrid a's sums are
 * (V[b] + W[a, r]) - W[b, r] and hybrid b's (V[a] + W[b, r]) - W[a, r]; in each hybrid a permutation counts for
 * systems i < j when Y[i] - Y[j] <= tol[q] (C-contiguous float64 (Q,)), the pair's p-value is that count over P,
 * and pce is 1 - (the sum of |ph[i, j] - p| over i < j, row by row, one term at a time) / (S (S - 1) / 2), ph a
 * C-contiguous float64 (S, S) array. out, a C-contiguous float64 (Q, R) array, becomes pce(hybrid a) -
 * pce(hybrid b) (NaN when S < 2). A metric index outside [0, K) or shapes that do not agree are a ValueError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_checks.h"

/* a C-contiguous buffer of ndim dimensions whose item is `itemsize` bytes of one of `formats` */
static int get_view(PyObject *o, View *v, int ndim, const char *formats, Py_ssize_t itemsize, int writable,
                    const char *what, const char *type, const char *fn) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, &v->b, flags) < 0) return -1;
    v->held = 1;
    const char *f = v->b.format ? v->b.format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    int ok = v->b.ndim == ndim && f[0] != 0 && f[1] == 0 && strchr(formats, f[0]) != NULL &&
             v->b.itemsize == itemsize;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: %s: expected a C-contiguous %d-d %s array", fn, what, ndim, type);
        release(v);
        return -1;
    }
    return 0;
}

#define LANES 64

/* bit d of a draw mask, as a table: the loops over lanes then vectorize (a shift by the lane number does not) */
#define B_(i) (1ull << (i))
#define B8_(i) B_(i), B_(i + 1), B_(i + 2), B_(i + 3), B_(i + 4), B_(i + 5), B_(i + 6), B_(i + 7)
static const uint64_t LANE_BIT[LANES] = {B8_(0), B8_(8), B8_(16), B8_(24), B8_(32), B8_(40), B8_(48), B8_(56)};

/* the draws (bit d) whose hybrid a gives code c to a pair whose entries' words are wu, wv */
static inline uint64_t code_mask(int c, uint64_t wu, uint64_t wv) {
    return ((c & 2) ? wu : ~wu) & ((c & 1) ? wv : ~wv);
}

/* GCC and Clang on x86-64 build the loops twice, for AVX2 and for the baseline, and pick one when loaded */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define MTSIG_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MTSIG_CLONES
#endif

/* the loops of acc23_block on checked arrays; 1 when out of memory */
MTSIG_CLONES
static int scan(const uint64_t *words, const int64_t *pu, const int64_t *pv, const uint8_t *good, const int64_t *group,
                Py_ssize_t P, const int64_t *qu, const int64_t *qv, const uint8_t *qcode, const double *qgain,
                const uint8_t *qend, Py_ssize_t Q, Py_ssize_t G, Py_ssize_t D, int64_t *count_a, int64_t *count_b,
                double *best_a, double *best_b) {
    int failed = 0;
    int64_t *ca = (int64_t *)calloc((size_t)(G > 0 ? G : 1) * LANES, sizeof(int64_t));
    int64_t *cb = (int64_t *)calloc((size_t)(G > 0 ? G : 1) * LANES, sizeof(int64_t));
    if (ca == NULL || cb == NULL) {
        failed = 1;
    } else {
        /* agreement at epsilon 0 per group: each lane counts its draw's agreeing pairs */
        for (Py_ssize_t p = 0; p < P; p++) {
            uint64_t wu = words[pu[p]], wv = words[pv[p]];
            const uint8_t *gp = good + 4 * p;
            uint64_t ga = 0, gb = 0;
            for (int c = 0; c < 4; c++) {
                uint64_t m = code_mask(c, wu, wv);
                if (gp[c]) ga |= m;
                if (gp[3 - c]) gb |= m;
            }
            int64_t *restrict ra = ca + group[p] * LANES;
            int64_t *restrict rb = cb + group[p] * LANES;
            for (int d = 0; d < LANES; d++) ra[d] += (ga & LANE_BIT[d]) ? 1 : 0;
            for (int d = 0; d < LANES; d++) rb[d] += (gb & LANE_BIT[d]) ? 1 : 0;
        }
        for (Py_ssize_t d = 0; d < D; d++) {
            for (Py_ssize_t g = 0; g < G; g++) {
                count_a[d * G + g] = ca[g * LANES + d];
                count_b[d * G + g] = cb[g * LANES + d];
            }
        }
        /* the running sums of the gains, in the candidates' order; their largest value at the end of a run (a lane
           not selected adds 0.0, which leaves its sum as it is) */
        double sa[LANES], sb[LANES], ba[LANES], bb[LANES];
        for (int d = 0; d < LANES; d++) sa[d] = sb[d] = ba[d] = bb[d] = 0.0;
        for (Py_ssize_t q = 0; q < Q; q++) {
            uint64_t wu = words[qu[q]], wv = words[qv[q]];
            int c = qcode[q];
            uint64_t ma = code_mask(c, wu, wv), mb = code_mask(3 - c, wu, wv);
            double g = qgain[q];
            for (int d = 0; d < LANES; d++) sa[d] += (ma & LANE_BIT[d]) ? g : 0.0;
            for (int d = 0; d < LANES; d++) sb[d] += (mb & LANE_BIT[d]) ? g : 0.0;
            if (qend[q]) {
                for (int d = 0; d < LANES; d++) {
                    ba[d] = sa[d] > ba[d] ? sa[d] : ba[d];
                    bb[d] = sb[d] > bb[d] ? sb[d] : bb[d];
                }
            }
        }
        for (Py_ssize_t d = 0; d < D; d++) {
            best_a[d] = ba[d];
            best_b[d] = bb[d];
        }
    }
    free(ca);
    free(cb);
    return failed;
}

static PyObject *acc23_block(PyObject *self, PyObject *args) {
    PyObject *o[14];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10], &o[11], &o[12], &o[13]))
        return NULL;
    View v[14];
    memset(v, 0, sizeof v);
    static const char *names[14] = {"words", "pu", "pv", "good", "group", "qu", "qv", "qcode", "qgain", "qend",
                                    "count_a", "count_b", "best_a", "best_b"};
    static const int dims[14] = {1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 2, 1, 1};
    static const char *fmts[14] = {"QL", "ql", "ql", "B", "ql", "ql", "ql", "B", "d", "B", "ql", "ql", "d", "d"};
    static const Py_ssize_t sizes[14] = {8, 8, 8, 1, 8, 8, 8, 1, 8, 1, 8, 8, 8, 8};
    static const char *types[14] = {"uint64", "int64", "int64", "uint8", "int64", "int64", "int64", "uint8",
                                    "float64", "uint8", "int64", "int64", "float64", "float64"};
    for (int k = 0; k < 14; k++) {
        if (get_view(o[k], &v[k], dims[k], fmts[k], sizes[k], k >= 10, names[k], types[k], "acc23_block") < 0) {
            for (int j = 0; j < k; j++) release(&v[j]);
            return NULL;
        }
    }
    Py_ssize_t E = v[0].b.shape[0], P = v[1].b.shape[0], Q = v[5].b.shape[0];
    Py_ssize_t D = v[10].b.shape[0], G = v[10].b.shape[1];
    const char *bad = NULL;
    if (v[2].b.shape[0] != P || v[3].b.shape[0] != P || v[3].b.shape[1] != 4 || v[4].b.shape[0] != P)
        bad = "pu, pv, good (P, 4) and group (P,) do not agree";
    else if (v[6].b.shape[0] != Q || v[7].b.shape[0] != Q || v[8].b.shape[0] != Q || v[9].b.shape[0] != Q)
        bad = "qu, qv, qcode, qgain and qend do not agree";
    else if (D < 0 || D > LANES)
        bad = "count_a has more than 64 rows (draws)";
    else if (v[11].b.shape[0] != D || v[11].b.shape[1] != G || v[12].b.shape[0] != D || v[13].b.shape[0] != D)
        bad = "count_a, count_b (D, G), best_a and best_b (D,) do not agree";
    const uint64_t *words = (const uint64_t *)v[0].b.buf;
    const int64_t *pu = (const int64_t *)v[1].b.buf, *pv = (const int64_t *)v[2].b.buf;
    const uint8_t *good = (const uint8_t *)v[3].b.buf;
    const int64_t *group = (const int64_t *)v[4].b.buf;
    const int64_t *qu = (const int64_t *)v[5].b.buf, *qv = (const int64_t *)v[6].b.buf;
    const uint8_t *qcode = (const uint8_t *)v[7].b.buf;
    const double *qgain = (const double *)v[8].b.buf;
    const uint8_t *qend = (const uint8_t *)v[9].b.buf;
    for (Py_ssize_t p = 0; !bad && p < P; p++) {
        if (pu[p] < 0 || pu[p] >= E || pv[p] < 0 || pv[p] >= E) bad = "a pair's entry is outside [0, E)";
        else if (group[p] < 0 || group[p] >= G) bad = "a pair's group is outside [0, G)";
    }
    for (Py_ssize_t q = 0; !bad && q < Q; q++) {
        if (qu[q] < 0 || qu[q] >= E || qv[q] < 0 || qv[q] >= E) bad = "a candidate's entry is outside [0, E)";
        else if (qcode[q] > 3) bad = "a candidate's code is above 3";
    }
    if (bad) {
        PyErr_Format(PyExc_ValueError, "acc23_block: %s", bad);
        for (int k = 0; k < 14; k++) release(&v[k]);
        return NULL;
    }
    int64_t *count_a = (int64_t *)v[10].b.buf, *count_b = (int64_t *)v[11].b.buf;
    double *best_a = (double *)v[12].b.buf, *best_b = (double *)v[13].b.buf;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS;
    failed = scan(words, pu, pv, good, group, P, qu, qv, qcode, qgain, qend, Q, G, D, count_a, count_b, best_a,
                  best_b);
    Py_END_ALLOW_THREADS;
    for (int k = 0; k < 14; k++) release(&v[k]);
    if (failed) return PyErr_NoMemory();
    Py_RETURN_NONE;
}


/* permutations per pass of the counts: a pass's rows of both hybrids stay in the first-level cache */
#define PCE_CHUNK 256

/* the loops of pce_block on checked arrays; 1 when out of memory */
MTSIG_CLONES
static int pce_scan(const double *V, const double *W, const int64_t *pairs, const double *tol, const double *ph,
                    Py_ssize_t K, Py_ssize_t R, Py_ssize_t S, Py_ssize_t P, Py_ssize_t Q, double *out) {
    size_t SP = (size_t)S * (size_t)P, npairs = (size_t)S * (size_t)(S > 0 ? S - 1 : 0) / 2;
    double *ya = (double *)malloc((SP ? SP : 1) * sizeof(double));
    double *yb = (double *)malloc((SP ? SP : 1) * sizeof(double));
    int64_t *ca = (int64_t *)malloc((npairs ? npairs : 1) * sizeof(int64_t));
    int64_t *cb = (int64_t *)malloc((npairs ? npairs : 1) * sizeof(int64_t));
    int failed = ya == NULL || yb == NULL || ca == NULL || cb == NULL;
    (void)K;
    for (Py_ssize_t q = 0; !failed && q < Q; q++) {
        const Py_ssize_t a = (Py_ssize_t)pairs[2 * q], b = (Py_ssize_t)pairs[2 * q + 1];
        const double t = tol[q];
        const double *va = V + (size_t)a * SP, *vb = V + (size_t)b * SP;
        for (Py_ssize_t r = 0; r < R; r++) {
            const double *wa = W + ((size_t)a * (size_t)R + (size_t)r) * SP;
            const double *wb = W + ((size_t)b * (size_t)R + (size_t)r) * SP;
            for (size_t x = 0; x < SP; x++) {
                ya[x] = (vb[x] + wa[x]) - wb[x];
                yb[x] = (va[x] + wb[x]) - wa[x];
            }
            memset(ca, 0, (npairs ? npairs : 1) * sizeof(int64_t));
            memset(cb, 0, (npairs ? npairs : 1) * sizeof(int64_t));
            for (Py_ssize_t p0 = 0; p0 < P; p0 += PCE_CHUNK) {
                const Py_ssize_t n = P - p0 < PCE_CHUNK ? P - p0 : PCE_CHUNK;
                size_t at = 0;
                for (Py_ssize_t i = 0; i < S; i++) {
                    const double *ai = ya + (size_t)i * P + p0, *bi = yb + (size_t)i * P + p0;
                    for (Py_ssize_t j = i + 1; j < S; j++, at++) {
                        const double *aj = ya + (size_t)j * P + p0, *bj = yb + (size_t)j * P + p0;
                        int64_t na = 0, nb = 0;
                        for (Py_ssize_t p = 0; p < n; p++) {
                            na += (ai[p] - aj[p]) <= t;
                            nb += (bi[p] - bj[p]) <= t;
                        }
                        ca[at] += na;
                        cb[at] += nb;
                    }
                }
            }
            double sa = 0.0, sb = 0.0;
            size_t at = 0;
            for (Py_ssize_t i = 0; i < S; i++) {
                for (Py_ssize_t j = i + 1; j < S; j++, at++) {
                    const double h = ph[(size_t)i * (size_t)S + (size_t)j];
                    sa += fabs(h - (double)ca[at] / (double)P);
                    sb += fabs(h - (double)cb[at] / (double)P);
                }
            }
            out[(size_t)q * (size_t)R + (size_t)r] =
                npairs ? (1.0 - sa / (double)npairs) - (1.0 - sb / (double)npairs) : NAN;
        }
    }
    free(ya);
    free(yb);
    free(ca);
    free(cb);
    return failed;
}

static PyObject *pce_block(PyObject *self, PyObject *args) {
    PyObject *o[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5])) return NULL;
    View v[6];
    memset(v, 0, sizeof v);
    static const char *names[6] = {"V", "W", "pairs", "tol", "ph", "out"};
    static const int dims[6] = {3, 4, 2, 1, 2, 2};
    static const char *fmts[6] = {"d", "d", "ql", "d", "d", "d"};
    static const char *types[6] = {"float64", "float64", "int64", "float64", "float64", "float64"};
    for (int k = 0; k < 6; k++) {
        if (get_view(o[k], &v[k], dims[k], fmts[k], 8, k == 5, names[k], types[k], "pce_block") < 0) {
            for (int j = 0; j < k; j++) release(&v[j]);
            return NULL;
        }
    }
    Py_ssize_t K = v[0].b.shape[0], S = v[0].b.shape[1], P = v[0].b.shape[2];
    Py_ssize_t R = v[1].b.shape[1], Q = v[2].b.shape[0];
    const char *bad = NULL;
    if (v[1].b.shape[0] != K || v[1].b.shape[2] != S || v[1].b.shape[3] != P)
        bad = "V (K, S, P) and W (K, R, S, P) do not agree";
    else if (v[2].b.shape[1] != 2 || v[3].b.shape[0] != Q)
        bad = "pairs (Q, 2) and tol (Q,) do not agree";
    else if (v[4].b.shape[0] != S || v[4].b.shape[1] != S)
        bad = "ph is not (S, S)";
    else if (v[5].b.shape[0] != Q || v[5].b.shape[1] != R)
        bad = "out is not (Q, R)";
    else if (P < 1)
        bad = "no permutation (P = 0)";
    const int64_t *pairs = (const int64_t *)v[2].b.buf;
    for (Py_ssize_t q = 0; !bad && q < Q; q++) {
        if (pairs[2 * q] < 0 || pairs[2 * q] >= K || pairs[2 * q + 1] < 0 || pairs[2 * q + 1] >= K)
            bad = "a pair's metric is outside [0, K)";
    }
    if (bad) {
        PyErr_Format(PyExc_ValueError, "pce_block: %s", bad);
        for (int k = 0; k < 6; k++) release(&v[k]);
        return NULL;
    }
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS;
    failed = pce_scan((const double *)v[0].b.buf, (const double *)v[1].b.buf, pairs, (const double *)v[3].b.buf,
                      (const double *)v[4].b.buf, K, R, S, P, Q, (double *)v[5].b.buf);
    Py_END_ALLOW_THREADS;
    for (int k = 0; k < 6; k++) release(&v[k]);
    if (failed) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"acc23_block", acc23_block, METH_VARARGS,
     "acc23_block(words, pu, pv, good, group, qu, qv, qcode, qgain, qend, count_a, count_b, best_a, best_b): "
     "tie-calibrated acc23's agreement counts and best running gains for up to 64 PERM-BOTH draws."},
    {"pce_block", pce_block, METH_VARARGS,
     "pce_block(V, W, pairs, tol, ph, out): soft pairwise accuracy of both hybrids of R PERM-BOTH draws for Q pairs "
     "of metrics, from the permutations' partial sums; out[q, r] = pce(hybrid a) - pce(hybrid b)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_meta", NULL, -1, methods};

PyMODINIT_FUNC PyInit__meta(void) { return PyModule_Create(&module); }
