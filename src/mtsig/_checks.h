/* Checks shared by the C entry points of mtsig: every offsets array a caller passes is checked before any
 * loop reads through it, so inconsistent input is a Python ValueError, never a read or write out of bounds.
 *
 * An offsets array of n + 1 entries cuts a flat array of `total` items into n consecutive runs: it must start
 * at 0, never decrease, and end at most at `total`. */
#ifndef MTSIG_CHECKS_H
#define MTSIG_CHECKS_H

#include <Python.h>
#include <stdint.h>

/* Portability: MSVC (Windows wheels) spells C99's restrict and GCC's count-trailing-zeros differently. */
#if defined(_MSC_VER)
#include <intrin.h>
#define restrict __restrict
static __inline int mtsig_ctzll(unsigned long long x) {
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
#else
#define mtsig_ctzll(x) __builtin_ctzll(x)
#endif

/* A buffer a caller passed, and whether it is held (released once, by release). */
typedef struct {
    Py_buffer b;
    int held;
} View;

static inline void release(View *v) {
    if (v->held) PyBuffer_Release(&v->b);
    v->held = 0;
}

static inline int mtsig_check_offsets64(const int64_t *off, Py_ssize_t n, Py_ssize_t total, const char *name) {
    if (n < 0) {
        PyErr_Format(PyExc_ValueError, "%s: an offsets array needs at least one entry", name);
        return -1;
    }
    if (off[0] != 0) {
        PyErr_Format(PyExc_ValueError, "%s: offsets must start at 0, not %lld", name, (long long)off[0]);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (off[k + 1] < off[k]) {
            PyErr_Format(PyExc_ValueError, "%s: offsets decrease at entry %zd", name, k + 1);
            return -1;
        }
    }
    if (off[n] > (int64_t)total) {
        PyErr_Format(PyExc_ValueError, "%s: offsets end at %lld beyond the %zd items", name, (long long)off[n],
                     total);
        return -1;
    }
    return 0;
}

static inline int mtsig_check_offsets32(const int32_t *off, Py_ssize_t n, Py_ssize_t total, const char *name) {
    if (n < 0) {
        PyErr_Format(PyExc_ValueError, "%s: an offsets array needs at least one entry", name);
        return -1;
    }
    if (off[0] != 0) {
        PyErr_Format(PyExc_ValueError, "%s: offsets must start at 0, not %ld", name, (long)off[0]);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (off[k + 1] < off[k]) {
            PyErr_Format(PyExc_ValueError, "%s: offsets decrease at entry %zd", name, k + 1);
            return -1;
        }
    }
    if ((Py_ssize_t)off[n] > total) {
        PyErr_Format(PyExc_ValueError, "%s: offsets end at %ld beyond the %zd items", name, (long)off[n], total);
        return -1;
    }
    return 0;
}

#endif
