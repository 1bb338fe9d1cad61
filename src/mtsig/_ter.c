/*
 * mtsig._ter: the TER search (greedy shifts + beam edit distance) on integer word ids, in C.
 *
 * The search follows tercom's rules as sacreBLEU defines them (so that numbers are equal):
 *   - edit distance with unit costs, computed in a beam around the diagonal scaled by the length
 *     ratio (width 25, widened for very unequal lengths); the last row is computed in full;
 *     ties prefer match/substitution, then deleting a hypothesis word, then inserting a reference word;
 *   - shift candidates: hypothesis/reference spans that match (at most 10 words, start positions at
 *     most 50 apart), where the hypothesis span has an error, the reference span has an error and the
 *     span is not already aligned to itself; each is tried before each reference word it could go to;
 *   - the best candidate maximizes (gain, length, -start, -target); shifts are applied while the gain
 *     is positive, and the search stops after 1000 candidates in all (the last found shift is then
 *     not applied).
 * Rows of the edit-distance matrix for the unchanged prefix of a candidate are reused from the current
 * hypothesis: the beam of a row depends only on the lengths, so this changes no number.
 *
 * Candidates against a reference of at most 64 x MAX_BLOCKS words are first measured without the beam,
 * bit-parallel (Myers 1999, in Hyyro's form for the global distance: per hypothesis word, one 64-bit block
 * per 64 reference words, the blocks chained by the horizontal difference at their boundary). That
 * distance d is a lower bound of the beam's; it is the beam's whenever no path of cost d can leave the beam:
 * a path through cell (i, j) costs at least |i - j| + |(nh - i) - (nr - j)|, so when d is below the least
 * such bound over the cells outside the beam (computed once per segment), the best path lies inside it. When
 * d exceeds what the caller needs, so does the beam's distance. Otherwise the beam is computed as before.
 * The same bit vectors list, for each hypothesis word, the reference positions where a shifted span can
 * start, so the candidate loop visits only those (in the same order).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "_checks.h"

#define INF 0x3fffffff
#define MAX_SHIFT_SIZE 10
#define MAX_SHIFT_DIST 50
#define BEAM_WIDTH 25
#define MAX_CANDIDATES 1000
/* bit-parallel distances for references of up to 64 x MAX_BLOCKS words (beyond, a step costs about what
   a row of the beam costs) */
#define MAX_BLOCKS 8

enum { OP_NOP = 1, OP_SUB = 2, OP_DEL = 3, OP_INS = 4, OP_UNDEF = 0 };

typedef struct {
    int nr, cap;
    const int32_t *ref;
    int32_t *cost;  /* (nh+1) x (nr+1) costs of the current hypothesis */
    uint8_t *op;    /* matching operations */
    int32_t *row_a, *row_b;
    int32_t *cand, *best;
    int32_t *hyp_err, *ref_err, *align;
    uint8_t *trace;
    /* bit-parallel distance (nr <= 64 x MAX_BLOCKS): per hypothesis word the reference positions holding
     * it (nb blocks), for the current hypothesis, a candidate and the best candidate; the state after each
     * prefix of the current hypothesis (nb blocks); the least cost of a path leaving the beam; the bits of
     * the last block and its last reference position */
    int bits, nb;
    uint64_t *mask, *cand_mask, *best_mask, *vp, *vn, last_all, last_top;
    int32_t *dist, min_out;
    /* shift candidates checked in all before the search stops (sacreBLEU: 1000; tercom: no limit) */
    int64_t max_cand;
} Work;

static void beam_params(int nh, int nr, double *ratio, int *bw) {
    *ratio = nh ? (double)nr / (double)nh : 1.0;
    *bw = BEAM_WIDTH;
    if (BEAM_WIDTH < *ratio / 2.0) *bw = (int)ceil(*ratio / 2.0 + BEAM_WIDTH);
}

static void row_range(int i, int nh, int nr, double ratio, int bw, int *lo, int *hi) {
    int pd = (int)floor((double)i * ratio);
    *lo = pd - bw > 0 ? pd - bw : 0;
    *hi = pd + bw < nr + 1 ? pd + bw : nr + 1;
    if (i == nh) *hi = nr + 1;
}

/* Full matrix with operations for hypothesis h (length nh): returns the distance. */
static int full_ed(Work *w, const int32_t *h, int nh) {
    int nr = w->nr, W = nr + 1, lo, hi, bw;
    double ratio;
    beam_params(nh, nr, &ratio, &bw);
    for (int j = 0; j <= nr; j++) { w->cost[j] = j; w->op[j] = OP_INS; }
    for (int i = 1; i <= nh; i++) {
        int32_t *c = w->cost + (size_t)i * W, *p = c - W;
        uint8_t *o = w->op + (size_t)i * W;
        for (int j = 0; j <= nr; j++) { c[j] = INF; o[j] = OP_UNDEF; }
        row_range(i, nh, nr, ratio, bw, &lo, &hi);
        for (int j = lo; j < hi; j++) {
            if (j == 0) { c[0] = p[0] + 1; o[0] = OP_DEL; continue; }
            int match = h[i - 1] == w->ref[j - 1];
            int32_t best = c[j], v;
            uint8_t bo = o[j];
            v = p[j - 1] + (match ? 0 : 1);
            if (best > v) { best = v; bo = match ? OP_NOP : OP_SUB; }
            v = p[j] + 1;
            if (best > v) { best = v; bo = OP_DEL; }
            v = c[j - 1] + 1;
            if (best > v) { best = v; bo = OP_INS; }
            c[j] = best; o[j] = bo;
        }
    }
    return w->cost[(size_t)nh * W + nr];
}

/* Distance of candidate s whose first `p` words equal the current hypothesis's (rows 0..p reused); once
 * every cell of a row exceeds `limit`, so does the distance (costs only add up along a path), and that row's
 * smallest cell is returned instead: the caller only asks whether the distance is at most `limit`. */
static int cand_ed(Work *w, const int32_t *s, int nh, int p, int limit) {
    int nr = w->nr, W = nr + 1, lo, hi, bw;
    double ratio;
    if (p >= nh) return w->cost[(size_t)nh * W + nr];
    beam_params(nh, nr, &ratio, &bw);
    int32_t *prev = w->row_a, *cur = w->row_b;
    memcpy(prev, w->cost + (size_t)p * W, sizeof(int32_t) * W);
    for (int i = p + 1; i <= nh; i++) {
        for (int j = 0; j <= nr; j++) cur[j] = INF;
        row_range(i, nh, nr, ratio, bw, &lo, &hi);
        for (int j = lo; j < hi; j++) {
            if (j == 0) { cur[0] = prev[0] + 1; continue; }
            int32_t best = cur[j], v;
            v = prev[j - 1] + (s[i - 1] == w->ref[j - 1] ? 0 : 1);
            if (best > v) best = v;
            v = prev[j] + 1;
            if (best > v) best = v;
            v = cur[j - 1] + 1;
            if (best > v) best = v;
            cur[j] = best;
        }
        int32_t *t = prev; prev = cur; cur = t;
        int32_t low = INF;
        for (int j = lo; j < hi; j++) low = prev[j] < low ? prev[j] : low;
        if (low > limit) return low;
    }
    return prev[nr];
}

/* Alignment of the current hypothesis (after full_ed): errors per position, ref -> hyp positions. */
static int alignment(Work *w, int nh) {
    int nr = w->nr, W = nr + 1, i = nh, j = nr, n = 0;
    while (i > 0 || j > 0) {
        uint8_t o = w->op[(size_t)i * W + j];
        w->trace[n++] = o;
        if (o == OP_NOP || o == OP_SUB) { i--; j--; }
        else if (o == OP_INS) j--;
        else if (o == OP_DEL) i--;
        else return -1;
    }
    int ph = -1, pr = -1;
    for (int k = 0; k < nr; k++) { w->align[k] = -2; w->ref_err[k] = 0; }
    for (int k = 0; k < nh; k++) w->hyp_err[k] = 0;
    for (int k = n - 1; k >= 0; k--) {
        uint8_t o = w->trace[k];
        if (o == OP_NOP || o == OP_SUB) {
            ph++; pr++;
            w->align[pr] = ph;
            w->hyp_err[ph] = o == OP_SUB;
            w->ref_err[pr] = o == OP_SUB;
        } else if (o == OP_DEL) {  /* a hypothesis word without a reference word */
            ph++;
            w->hyp_err[ph] = 1;
        } else {  /* OP_INS: a reference word without a hypothesis word */
            pr++;
            w->align[pr] = ph;
            w->ref_err[pr] = 1;
        }
    }
    return 0;
}

/* Items [a, b) of h (items of `size` bytes) appended at out + *k items. */
static inline void put(const char *h, int a, int b, char *out, int *k, size_t size) {
    if (b <= a) return;
    memcpy(out + (size_t)*k * size, h + (size_t)a * size, (size_t)(b - a) * size);
    *k += b - a;
}

/* The hypothesis with the span [start, start + len) moved before position target, for words (size 4) and
 * masks (nb blocks of 8 bytes). */
static void shift_items(const void *hv, int nh, int start, int len, int target, void *outv, size_t size) {
    const char *h = (const char *)hv;
    char *out = (char *)outv;
    int k = 0;
    if (target < start) {
        put(h, 0, target, out, &k, size);
        put(h, start, start + len, out, &k, size);
        put(h, target, start, out, &k, size);
        put(h, start + len, nh, out, &k, size);
    } else if (target > start + len) {
        put(h, 0, start, out, &k, size);
        put(h, start + len, target, out, &k, size);
        put(h, start, start + len, out, &k, size);
        put(h, target, nh, out, &k, size);
    } else {
        int b = len + target < nh ? len + target : nh;
        put(h, 0, start, out, &k, size);
        put(h, start + len, b, out, &k, size);
        put(h, start, start + len, out, &k, size);
        put(h, len + target, nh, out, &k, size);
    }
}

/* One hypothesis word of the bit-parallel distance: reference positions `eq` holding it (nb blocks); vp/vn
 * the vertical +1/-1 differences down the reference. Returns the change of the distance of the whole
 * reference to the hypothesis prefix. Each block takes the horizontal difference at its first position
 * from the block before (the first block: +1, as the first row is 0, 1, 2, ...) and passes on its last. */
static inline int bp_step(const uint64_t *eq, uint64_t *vp, uint64_t *vn, int nb, uint64_t last_all,
                          uint64_t last_top) {
    int h_in = 1;
    for (int b = 0; b < nb; b++) {
        uint64_t all = b == nb - 1 ? last_all : ~(uint64_t)0, top = b == nb - 1 ? last_top : (uint64_t)1 << 63;
        uint64_t e = eq[b], p = vp[b], n = vn[b];
        uint64_t xv = e | n;
        if (h_in < 0) e |= 1; /* a -1 entering the block acts as a match at its first position */
        uint64_t xh = (((e & p) + p) ^ p) | e;
        uint64_t hp = n | ~(xh | p);
        uint64_t hn = p & xh;
        int h_out = (hp & top) ? 1 : (hn & top) ? -1 : 0;
        hp <<= 1;
        hn <<= 1;
        if (h_in > 0) hp |= 1;
        else if (h_in < 0) hn |= 1;
        vp[b] = (hn | ~(xv | hp)) & all;
        vn[b] = (hp & xv) & all;
        h_in = h_out;
    }
    return h_in;
}

/* The state of the bit-parallel distance after every prefix of the current hypothesis. */
static void bp_prefixes(Work *w, int nh) {
    int nb = w->nb;
    for (int b = 0; b < nb; b++) { w->vp[b] = b == nb - 1 ? w->last_all : ~(uint64_t)0; w->vn[b] = 0; }
    w->dist[0] = w->nr;
    for (int x = 0; x < nh; x++) {
        uint64_t *vp = w->vp + (size_t)(x + 1) * nb, *vn = w->vn + (size_t)(x + 1) * nb;
        memcpy(vp, vp - nb, sizeof(uint64_t) * nb);
        memcpy(vn, vn - nb, sizeof(uint64_t) * nb);
        w->dist[x + 1] = w->dist[x] + bp_step(w->mask + (size_t)x * nb, vp, vn, nb, w->last_all, w->last_top);
    }
}

/* The least cost of a path through a cell outside the beam (INF when the beam holds every cell). */
static int32_t least_outside(int nh, int nr) {
    int lo, hi, bw;
    double ratio;
    int32_t least = INF;
    beam_params(nh, nr, &ratio, &bw);
    for (int i = 1; i <= nh; i++) {
        row_range(i, nh, nr, ratio, bw, &lo, &hi);
        for (int j = 0; j <= nr; j++) {
            if (j >= lo && j < hi) continue;
            int32_t c = abs(i - j) + abs((nh - i) - (nr - j));
            if (c < least) least = c;
        }
    }
    return least;
}

/* The beam distance of the candidate in w->cand (first p words those of the current hypothesis), exact when
 * at most `limit`, and some value above `limit` otherwise (see cand_ed). */
static int candidate_distance(Work *w, int nh, int p, int limit) {
    if (!w->bits || p >= nh) return cand_ed(w, w->cand, nh, p, limit);
    int nb = w->nb;
    uint64_t vp[MAX_BLOCKS], vn[MAX_BLOCKS];
    memcpy(vp, w->vp + (size_t)p * nb, sizeof(uint64_t) * nb);
    memcpy(vn, w->vn + (size_t)p * nb, sizeof(uint64_t) * nb);
    int32_t d = w->dist[p];
    for (int x = p; x < nh; x++) d += bp_step(w->cand_mask + (size_t)x * nb, vp, vn, nb, w->last_all, w->last_top);
    if (d < w->min_out || d > limit) return d; /* the beam's distance, or both above the limit */
    return cand_ed(w, w->cand, nh, p, limit);
}

/* The best shift found so far in one pass over the candidates, and the candidates checked in all passes. */
typedef struct {
    int found, gain, len, start, idx, stop;
    int64_t checked;
} Best;

/* Every candidate span starting at hypothesis position sh and reference position sr (cur[sh] == ref[sr]):
 * spans of 1 .. MAX_SHIFT_SIZE matching words, each moved before every reference word it could go to. */
static void spans_at(Work *w, const int32_t *cur, int nh, int sh, int sr, int score, Best *b) {
    int nr = w->nr, len = 0;
    while (cur[sh + len] == w->ref[sr + len] && len < MAX_SHIFT_SIZE) {
        len++;
        int skip = 0, e = 0;
        for (int x = sh; x < sh + len; x++) e += w->hyp_err[x];
        if (e == 0) skip = 1;
        if (!skip) {
            e = 0;
            for (int x = sr; x < sr + len; x++) e += w->ref_err[x];
            if (e == 0) skip = 1;
        }
        if (!skip && sh <= w->align[sr] && w->align[sr] < sh + len) skip = 1;
        if (!skip) {
            int prev_idx = -1;
            for (int off = -1; off < len; off++) {
                int idx;
                if (sr + off == -1) idx = 0;
                else if (w->align[sr + off] != -2) idx = w->align[sr + off] + 1;
                else break;
                if (idx == prev_idx) continue;
                prev_idx = idx;
                shift_items(cur, nh, sh, len, idx, w->cand, sizeof(int32_t));
                if (w->bits) shift_items(w->mask, nh, sh, len, idx, w->cand_mask, sizeof(uint64_t) * w->nb);
                int p = idx < sh ? idx : sh;
                int ties_win = len > b->len || (len == b->len && (sh < b->start || (sh == b->start && idx < b->idx)));
                /* the largest distance at which this candidate would replace the best so far */
                int limit = !b->found ? INF : (ties_win ? score - b->gain : score - b->gain - 1);
                int gain = score - candidate_distance(w, nh, p, limit);
                b->checked++;
                if (!b->found || gain > b->gain || (gain == b->gain && ties_win)) {
                    b->found = 1; b->gain = gain; b->len = len; b->start = sh; b->idx = idx;
                    memcpy(w->best, w->cand, sizeof(int32_t) * nh);
                    if (w->bits) memcpy(w->best_mask, w->cand_mask, sizeof(uint64_t) * nh * w->nb);
                }
            }
            if (b->checked >= w->max_cand) b->stop = 1;
        }
        if (b->stop) break;
        if (nh == sh + len || nr == sr + len) break;
    }
}

/* The candidates of one pass, in tercom's order (hypothesis position, then reference position, at most
 * MAX_SHIFT_DIST apart). With the bit vectors, only the reference positions holding the hypothesis word
 * are visited (the others start no span), in the same order. */
static void all_spans(Work *w, const int32_t *cur, int nh, int score, Best *b) {
    int nr = w->nr, nb = w->nb;
    for (int sh = 0; sh < nh && !b->stop; sh++) {
        if (!w->bits) {
            for (int sr = 0; sr < nr && !b->stop; sr++)
                if (abs(sr - sh) <= MAX_SHIFT_DIST) spans_at(w, cur, nh, sh, sr, score, b);
            continue;
        }
        int lo = sh - MAX_SHIFT_DIST > 0 ? sh - MAX_SHIFT_DIST : 0;
        int hi = sh + MAX_SHIFT_DIST < nr - 1 ? sh + MAX_SHIFT_DIST : nr - 1;
        const uint64_t *m = w->mask + (size_t)sh * nb;
        for (int k = lo / 64; k <= hi / 64 && !b->stop; k++) {
            uint64_t bits = m[k];
            if (k == lo / 64) bits &= ~(uint64_t)0 << (lo % 64);
            if (k == hi / 64 && hi % 64 < 63) bits &= ((uint64_t)1 << (hi % 64 + 1)) - 1;
            while (bits && !b->stop) {
                spans_at(w, cur, nh, sh, 64 * k + mtsig_ctzll(bits), score, b);
                bits &= bits - 1;
            }
        }
    }
}

/* TER edits of hypothesis h against the reference in w; -1 on an internal error. */
static int64_t ter_edits(Work *w, const int32_t *h0, int nh) {
    int nr = w->nr;
    if (nr == 0) return nh;
    int32_t *cur = (int32_t *)malloc(sizeof(int32_t) * (nh + 1));
    if (!cur) return -2;
    memcpy(cur, h0, sizeof(int32_t) * nh);
    if (w->bits) {
        memset(w->mask, 0, sizeof(uint64_t) * (size_t)nh * w->nb);
        for (int x = 0; x < nh; x++)
            for (int j = 0; j < nr; j++) w->mask[(size_t)x * w->nb + j / 64] |= (uint64_t)(h0[x] == w->ref[j]) << (j % 64);
        w->min_out = least_outside(nh, nr);
    }
    int64_t shifts = 0;
    int64_t checked = 0;
    int score;
    for (;;) {
        score = full_ed(w, cur, nh);
        if (alignment(w, nh) < 0) { free(cur); return -1; }
        if (w->bits) bp_prefixes(w, nh);
        Best b = {0, 0, 0, 0, 0, 0, checked};
        all_spans(w, cur, nh, score, &b);
        checked = b.checked;
        if (checked >= w->max_cand) break;
        if (!b.found || b.gain <= 0) break;
        shifts++;
        memcpy(cur, w->best, sizeof(int32_t) * nh);
        if (w->bits) memcpy(w->mask, w->best_mask, sizeof(uint64_t) * nh * w->nb);
    }
    free(cur);
    return shifts + score;
}

static int work_init(Work *w, const int32_t *ref, int nr, int nh, int bit_parallel) {
    memset(w, 0, sizeof(*w));
    w->nr = nr; w->ref = ref;
    size_t cells = (size_t)(nh + 1) * (nr + 1);
    w->cost = (int32_t *)malloc(sizeof(int32_t) * cells);
    w->op = (uint8_t *)malloc(cells);
    w->row_a = (int32_t *)malloc(sizeof(int32_t) * (nr + 1));
    w->row_b = (int32_t *)malloc(sizeof(int32_t) * (nr + 1));
    w->cand = (int32_t *)malloc(sizeof(int32_t) * (nh + 1));
    w->best = (int32_t *)malloc(sizeof(int32_t) * (nh + 1));
    w->hyp_err = (int32_t *)malloc(sizeof(int32_t) * (nh + 1));
    w->ref_err = (int32_t *)malloc(sizeof(int32_t) * (nr + 1));
    w->align = (int32_t *)malloc(sizeof(int32_t) * (nr + 1));
    w->trace = (uint8_t *)malloc(nh + nr + 2);
    int ok = w->cost && w->op && w->row_a && w->row_b && w->cand && w->best && w->hyp_err && w->ref_err &&
             w->align && w->trace;
    w->bits = bit_parallel && nr >= 1 && nr <= 64 * MAX_BLOCKS;
    if (w->bits) {
        size_t nb = (size_t)(w->nb = (nr + 63) / 64), rest = (size_t)(nr - 64 * (w->nb - 1));
        w->last_all = rest == 64 ? ~(uint64_t)0 : (((uint64_t)1 << rest) - 1);
        w->last_top = (uint64_t)1 << (rest - 1);
        w->mask = (uint64_t *)malloc(sizeof(uint64_t) * (nh + 1) * nb);
        w->cand_mask = (uint64_t *)malloc(sizeof(uint64_t) * (nh + 1) * nb);
        w->best_mask = (uint64_t *)malloc(sizeof(uint64_t) * (nh + 1) * nb);
        w->vp = (uint64_t *)malloc(sizeof(uint64_t) * (nh + 1) * nb);
        w->vn = (uint64_t *)malloc(sizeof(uint64_t) * (nh + 1) * nb);
        w->dist = (int32_t *)malloc(sizeof(int32_t) * (nh + 1));
        ok = ok && w->mask && w->cand_mask && w->best_mask && w->vp && w->vn && w->dist;
    }
    return ok;
}

static void work_free(Work *w) {
    free(w->cost); free(w->op); free(w->row_a); free(w->row_b); free(w->cand); free(w->best);
    free(w->hyp_err); free(w->ref_err); free(w->align); free(w->trace);
    free(w->mask); free(w->cand_mask); free(w->best_mask); free(w->vp); free(w->vn); free(w->dist);
}

static int get_buf(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, int writable, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: expected items of %zd bytes", name, itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* ---- tercom's own search (tercom 0.7.25/0.8.0, as MultEval runs it); mtsig/metrics/tercom.py is its
 * reference, in Python. Costs are whole numbers (every edit costs 1), so int arithmetic is exact. ---- */

typedef struct {
    int nh, nr, beam, dist;
    const int32_t *ref;
    int32_t *cost;   /* (nr+1) x (nh+1), row i = reference position */
    char *move;      /* ' ', 'S', 'I', 'D' */
    char *path, *best_path;
    int path_len, best_path_len;
    int32_t *cur, *cand, *best;
    uint8_t *herr, *rerr;
    int32_t *ralign;
    int32_t *hits, *hits2; /* reference positions matching a span of the current hypothesis */
    int32_t *shifts;       /* candidate (start, end, newloc) triples, grouped by span length */
    int64_t nshifts, cap_shifts;
} TWork;

/* The beamed edit distance of h (nh words) to the reference; the path into t->path (reversed order is undone). */
static int tc_distance(TWork *t, const int32_t *h, char *path, int *path_len) {
    const int nh = t->nh, nr = t->nr, W = nh + 1;
    int32_t *S = t->cost;
    char *P = t->move;
    for (size_t k = 0; k < (size_t)(nr + 1) * W; k++) S[k] = -1;
    S[0] = 0;
    const int32_t big = INT32_MAX / 4;
    int32_t best_next = big;
    int first_next = 0, last_next = 0;
    for (int j = 0; j <= nh; j++) {
        int32_t best_prev = best_next;
        best_next = big;
        int first = first_next, last = last_next;
        first_next = -1;
        last_next = -1;
        if (first < 0) return -1; /* cannot happen: some cell of every column is reached */
        for (int i = first; i <= nr && i <= last; i++) {
            int32_t score = S[(size_t)i * W + j];
            if (score < 0 || (j < nh && score > best_prev + t->beam)) continue;
            if (first_next == -1) first_next = i;
            if (i < nr && j < nh) {
                int same = t->ref[i] == h[j];
                int32_t c = score + !same, *d = &S[(size_t)(i + 1) * W + j + 1];
                if (*d < 0 || c < *d) {
                    *d = c;
                    P[(size_t)(i + 1) * W + j + 1] = same ? ' ' : 'S';
                    if (c < best_next) best_next = c;
                } else if (same && c < best_next) {
                    best_next = c;
                }
            }
            last_next = i + 1;
            if (j < nh) {
                int32_t *d = &S[(size_t)i * W + j + 1];
                if (*d < 0 || *d > score + 1) { *d = score + 1; P[(size_t)i * W + j + 1] = 'I'; }
            }
            if (i < nr) {
                int32_t *d = &S[(size_t)(i + 1) * W + j];
                if (*d < 0 || *d > score + 1) {
                    *d = score + 1;
                    P[(size_t)(i + 1) * W + j] = 'D';
                    if (i >= last) last = i + 1;
                }
            }
        }
    }
    int i = nr, j = nh, n = 0;
    while (i > 0 || j > 0) {
        char m = P[(size_t)i * W + j];
        if (n >= nh + nr) return -1;
        path[n++] = m;
        if (m == ' ' || m == 'S') { i--; j--; }
        else if (m == 'D') i--;
        else if (m == 'I') j--;
        else return -1;
    }
    for (int a = 0, b = n - 1; a < b; a++, b--) { char x = path[a]; path[a] = path[b]; path[b] = x; }
    *path_len = n;
    return S[(size_t)nr * W + nh];
}

static int tc_errors(TWork *t, const char *path, int n) {
    int h = -1, r = -1;
    for (int k = 0; k < n; k++) {
        char m = path[k];
        if (m == ' ' || m == 'S') {
            h++; r++;
            if (h >= t->nh || r >= t->nr) return -1;
            t->herr[h] = t->rerr[r] = m == 'S';
            t->ralign[r] = h;
        } else if (m == 'I') {
            if (++h >= t->nh) return -1;
            t->herr[h] = 1;
        } else {
            if (++r >= t->nr) return -1;
            t->rerr[r] = 1;
            t->ralign[r] = h;
        }
    }
    return 0;
}

static int tc_push(TWork *t, int size, int start, int end, int newloc) {
    if (t->nshifts >= t->cap_shifts) {
        int64_t cap = t->cap_shifts * 2 + 64;
        int32_t *p = (int32_t *)realloc(t->shifts, sizeof(int32_t) * 4 * (size_t)cap);
        if (!p) return -1;
        t->shifts = p;
        t->cap_shifts = cap;
    }
    int32_t *s = t->shifts + 4 * t->nshifts++;
    s[0] = size; s[1] = start; s[2] = end; s[3] = newloc;
    return 0;
}

/* tercom's candidate shifts of t->cur, in its order (by start, reference position, target); the caller
 * visits them longest first. */
static int tc_candidates(TWork *t) {
    const int nh = t->nh, nr = t->nr, D = t->dist;
    const int32_t *cur = t->cur, *ref = t->ref, *ra = t->ralign;
    t->nshifts = 0;
    for (int start = 0; start < nh; start++) {
        int nhit = 0;
        for (int m = 0; m < nr; m++)
            if (ref[m] == cur[start]) t->hits[nhit++] = m;
        if (nhit == 0) continue;
        int ok = 0;
        for (int k = 0; k < nhit && !ok; k++) {
            int m = t->hits[k];
            if (start != ra[m] && ra[m] - start <= D && start - ra[m] - 1 <= D) ok = 1;
        }
        if (!ok) continue;
        ok = 1;
        int any_herr = 0;
        for (int end = start; ok && end < nh && end < start + MAX_SHIFT_SIZE; end++) {
            int len = end - start;
            if (len > 0) { /* keep the reference positions where the span continues */
                int kept = 0;
                for (int k = 0; k < nhit; k++) {
                    int m = t->hits[k];
                    if (m + len < nr && ref[m + len] == cur[end]) t->hits[kept++] = m;
                }
                nhit = kept;
            }
            ok = 0;
            if (nhit == 0) continue;
            any_herr |= t->herr[end];
            if (!any_herr) { ok = 1; continue; }
            for (int k = 0; k < nhit; k++) {
                int m = t->hits[k], a = ra[m];
                if (a == start || (a >= start && a <= end) || a - start > D || start - a > D) continue;
                ok = 1;
                int any_rerr = 0;
                for (int x = 0; x <= len && !any_rerr; x++) any_rerr = t->rerr[m + x];
                if (!any_rerr) continue;
                for (int off = -1; off <= len; off++) {
                    if (off == -1 && m == 0) {
                        if (tc_push(t, len, start, end, -1) < 0) return -2;
                    } else if (start != ra[m + off] && (off == 0 || ra[m + off] != a)) {
                        if (tc_push(t, len, start, end, ra[m + off]) < 0) return -2;
                    }
                }
            }
        }
    }
    return 0;
}

static void tc_shift(const int32_t *w, int n, int start, int end, int newloc, int32_t *out) {
    int c = 0;
    if (newloc == -1) {
        for (int i = start; i <= end; i++) out[c++] = w[i];
        for (int i = 0; i < start; i++) out[c++] = w[i];
        for (int i = end + 1; i < n; i++) out[c++] = w[i];
    } else if (newloc < start) {
        for (int i = 0; i <= newloc; i++) out[c++] = w[i];
        for (int i = start; i <= end; i++) out[c++] = w[i];
        for (int i = newloc + 1; i < start; i++) out[c++] = w[i];
        for (int i = end + 1; i < n; i++) out[c++] = w[i];
    } else if (newloc > end) {
        for (int i = 0; i < start; i++) out[c++] = w[i];
        for (int i = end + 1; i <= newloc; i++) out[c++] = w[i];
        for (int i = start; i <= end; i++) out[c++] = w[i];
        for (int i = newloc + 1; i < n; i++) out[c++] = w[i];
    } else {
        int k = end + (newloc - start);
        for (int i = 0; i < start; i++) out[c++] = w[i];
        for (int i = end + 1; i < n && i <= k; i++) out[c++] = w[i];
        for (int i = start; i <= end; i++) out[c++] = w[i];
        for (int i = k + 1; i < n; i++) out[c++] = w[i];
    }
}

/* Edits of one segment, or -1 (internal error) / -2 (no memory). */
static int64_t tc_segment(const int32_t *h0, int nh, const int32_t *ref, int nr, int beam, int dist) {
    if (nh == 0 || nr == 0) return (int64_t)nh + nr;
    TWork t;
    memset(&t, 0, sizeof(t));
    t.nh = nh; t.nr = nr; t.beam = beam; t.dist = dist; t.ref = ref;
    size_t cells = (size_t)(nr + 1) * (nh + 1);
    t.cost = (int32_t *)malloc(sizeof(int32_t) * cells);
    t.move = (char *)malloc(cells);
    t.path = (char *)malloc(nh + nr + 1);
    t.best_path = (char *)malloc(nh + nr + 1);
    t.cur = (int32_t *)malloc(sizeof(int32_t) * nh);
    t.cand = (int32_t *)malloc(sizeof(int32_t) * nh);
    t.best = (int32_t *)malloc(sizeof(int32_t) * nh);
    t.herr = (uint8_t *)calloc(nh, 1);
    t.rerr = (uint8_t *)calloc(nr, 1);
    t.ralign = (int32_t *)calloc(nr, sizeof(int32_t));
    t.hits = (int32_t *)malloc(sizeof(int32_t) * nr);
    int64_t result = -2;
    if (!(t.cost && t.move && t.path && t.best_path && t.cur && t.cand && t.best && t.herr && t.rerr && t.ralign &&
          t.hits))
        goto done;
    memcpy(t.cur, h0, sizeof(int32_t) * nh);
    int32_t num = tc_distance(&t, t.cur, t.path, &t.path_len);
    result = -1;
    if (num < 0) goto done;
    int64_t shifts = 0;
    for (;;) {
        if (tc_errors(&t, t.path, t.path_len) < 0) goto done;
        int rc = tc_candidates(&t);
        if (rc < 0) { result = rc; goto done; }
        int found = 0;
        int32_t best_cost = 0, best_num = num;
        for (int size = MAX_SHIFT_SIZE; size >= 0; size--) {
            const int32_t limit = 2 * (size + 1);
            int32_t fixed = num - (best_cost + best_num);
            if (fixed > limit || (best_cost != 0 && fixed == limit)) break;
            for (int64_t k = 0; k < t.nshifts; k++) {
                const int32_t *s = t.shifts + 4 * k;
                if (s[0] != size) continue;
                fixed = num - (best_cost + best_num);
                if (fixed > limit || (best_cost != 0 && fixed == limit)) break;
                tc_shift(t.cur, nh, s[1], s[2], s[3], t.cand);
                int plen;
                int32_t n2 = tc_distance(&t, t.cand, t.best_path + 0, &plen);
                if (n2 < 0) goto done;
                int32_t gain = (best_num + best_cost) - (n2 + 1);
                if (gain > 0 || (best_cost == 0 && gain == 0)) {
                    found = 1;
                    best_cost = 1;
                    best_num = n2;
                    memcpy(t.best, t.cand, sizeof(int32_t) * nh);
                    memcpy(t.path, t.best_path, plen); /* the current path is not read again this round */
                    t.best_path_len = plen;
                }
            }
        }
        if (!found) break;
        shifts++;
        memcpy(t.cur, t.best, sizeof(int32_t) * nh);
        t.path_len = t.best_path_len;
        num = best_num;
    }
    result = shifts + num;
done:
    free(t.cost); free(t.move); free(t.path); free(t.best_path); free(t.cur); free(t.cand); free(t.best);
    free(t.herr); free(t.rerr); free(t.ralign); free(t.hits); free(t.shifts);
    return result;
}

/* Both entry points: check the five buffers, then score every segment with sacreBLEU's search (tercom = 0) or
 * tercom's (tercom = 1). */
static PyObject *run_segments(PyObject *oh, PyObject *ohoff, PyObject *or_, PyObject *oroff, PyObject *oout,
                              int tercom, int bit_parallel, int64_t cap, int beam, int dist) {
    Py_buffer bh, bho, br, bro, bo;
    if (get_buf(oh, &bh, 4, 0, "hyp_ids") < 0) return NULL;
    if (get_buf(ohoff, &bho, 8, 0, "hyp_offsets") < 0) { PyBuffer_Release(&bh); return NULL; }
    if (get_buf(or_, &br, 4, 0, "ref_ids") < 0) { PyBuffer_Release(&bh); PyBuffer_Release(&bho); return NULL; }
    if (get_buf(oroff, &bro, 8, 0, "ref_offsets") < 0) {
        PyBuffer_Release(&bh); PyBuffer_Release(&bho); PyBuffer_Release(&br); return NULL;
    }
    if (get_buf(oout, &bo, 8, 1, "out") < 0) {
        PyBuffer_Release(&bh); PyBuffer_Release(&bho); PyBuffer_Release(&br); PyBuffer_Release(&bro); return NULL;
    }
    Py_ssize_t n = bho.len / 8 - 1;
    int err = 0;
    if (n < 0 || bro.len / 8 - 1 != n || bo.len / 8 != n) err = 1;
    else if (mtsig_check_offsets64(bho.buf, n, bh.len / 4, "hyp_offsets") < 0 ||
             mtsig_check_offsets64(bro.buf, n, br.len / 4, "ref_offsets") < 0)
        err = 4;
    for (Py_ssize_t s = 0; err == 0 && s < n; s++) { /* lengths the search's int indices can hold */
        const int64_t *HO = (const int64_t *)bho.buf, *RO = (const int64_t *)bro.buf;
        if (HO[s + 1] - HO[s] >= INT32_MAX / 2 || RO[s + 1] - RO[s] >= INT32_MAX / 2) err = 5;
    }
    if (!err) {
        const int32_t *H = (const int32_t *)bh.buf, *R = (const int32_t *)br.buf;
        const int64_t *HO = (const int64_t *)bho.buf, *RO = (const int64_t *)bro.buf;
        int64_t *OUT = (int64_t *)bo.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t s = 0; s < n && !err; s++) {
            int nh = (int)(HO[s + 1] - HO[s]), nr = (int)(RO[s + 1] - RO[s]);
            if (tercom) {
                int64_t e = tc_segment(H + HO[s], nh, R + RO[s], nr, beam, dist);
                if (e < 0) { err = e == -2 ? 2 : 3; break; }
                OUT[s] = e;
                continue;
            }
            Work w;
            if (!work_init(&w, R + RO[s], nr, nh, bit_parallel)) { work_free(&w); err = 2; break; }
            w.max_cand = cap;
            int64_t e = ter_edits(&w, H + HO[s], nh);
            work_free(&w);
            if (e < 0) { err = e == -2 ? 2 : 3; break; }
            OUT[s] = e;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&bh); PyBuffer_Release(&bho); PyBuffer_Release(&br); PyBuffer_Release(&bro);
    PyBuffer_Release(&bo);
    if (err == 1) { PyErr_SetString(PyExc_ValueError, "offset arrays and output do not agree in length"); return NULL; }
    if (err == 2) return PyErr_NoMemory();
    if (err == 3) { PyErr_SetString(PyExc_RuntimeError, "TER alignment failed (internal error)"); return NULL; }
    if (err == 4) return NULL; /* the offsets check set the error */
    if (err == 5) { PyErr_SetString(PyExc_ValueError, "a segment is too long for the TER search"); return NULL; }
    Py_RETURN_NONE;
}

/* edits(hyp_ids int32, hyp_offsets int64, ref_ids int32, ref_offsets int64, out int64, bit_parallel=1,
 *       max_candidates=1000) */
static PyObject *py_edits(PyObject *self, PyObject *args) {
    PyObject *oh, *ohoff, *or_, *oroff, *oout;
    int bit_parallel = 1, max_cand = MAX_CANDIDATES;
    if (!PyArg_ParseTuple(args, "OOOOO|pi", &oh, &ohoff, &or_, &oroff, &oout, &bit_parallel, &max_cand)) return NULL;
    if (max_cand < 0) {
        PyErr_SetString(PyExc_ValueError, "max_candidates must be 0 (no limit) or positive");
        return NULL;
    }
    return run_segments(oh, ohoff, or_, oroff, oout, 0, bit_parallel, max_cand == 0 ? INT64_MAX : max_cand, 0, 0);
}

/* tercom(hyp_ids int32, hyp_offsets int64, ref_ids int32, ref_offsets int64, out int64, beam=20, max_dist=50) */
static PyObject *py_tercom(PyObject *self, PyObject *args) {
    PyObject *oh, *ohoff, *or_, *oroff, *oout;
    int beam = 20, dist = MAX_SHIFT_DIST;
    if (!PyArg_ParseTuple(args, "OOOOO|ii", &oh, &ohoff, &or_, &oroff, &oout, &beam, &dist)) return NULL;
    if (beam < 0 || beam > 1000000 || dist < 0 || dist > 1000000) {
        PyErr_SetString(PyExc_ValueError, "beam and max_dist must be between 0 and 1,000,000");
        return NULL;
    }
    return run_segments(oh, ohoff, or_, oroff, oout, 1, 0, 0, beam, dist);
}

static PyMethodDef methods[] = {
    {"edits", py_edits, METH_VARARGS,
     "edits(hyp_ids, hyp_offsets, ref_ids, ref_offsets, out, bit_parallel=True, max_candidates=1000): TER edits of "
     "every segment (int64 out); bit_parallel=False measures every candidate in the beam (the same numbers, "
     "slower); max_candidates: shift candidates checked before the search stops (sacreBLEU's 1000; 0: no limit, "
     "as tercom)."},
    {"tercom", py_tercom, METH_VARARGS,
     "tercom(hyp_ids, hyp_offsets, ref_ids, ref_offsets, out, beam=20, max_dist=50): TER edits of every segment "
     "(int64 out) with tercom 0.7.25/0.8.0's own search (its beamed edit distance, candidate order and "
     "stopping rule; mtsig.metrics.tercom is the reference)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ter", "Compiled TER search.", -1, methods};

PyMODINIT_FUNC PyInit__ter(void) { return PyModule_Create(&module); }
