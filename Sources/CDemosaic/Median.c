/* Each colour difference replaced by the median of its 3 × 3 neighbourhood, several times (dcraw's
 * -m): the false colour a demosaic leaves along fine detail is a difference unlike its
 * neighbours', and a median removes it where a mean would spread it. Plain, AVX2 and AVX-512 from
 * one source (Passes.h).
 *
 * The median of a 3 × 3 window is med3(the largest of the columns' minima, the median of their
 * medians, the smallest of their maxima) (Smith, "Implementing median filters in XC4000E FPGAs";
 * as in Devillard's and OpenCV's 3 × 3 medians). Each column of three is sorted once a row and
 * shared by the three windows that hold it: 18 min/max a pixel instead of the 38 of Paeth's
 * 19-exchange network. A median selects one of the nine values, so any way of finding it gives the
 * same float. Each pass writes into the free plane and swaps it with the plane it read (no copy
 * back). */
#include "Passes.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) < (b) ? (b) : (a))

/* The median of three, by four min/max. */
static inline float med3(float a, float b, float c) {
    return MAX(MIN(a, b), MIN(MAX(a, b), c));
}

/* One pass over one plane: rows [lo, hi), columns [lo, hx) of `dst` from `src`; C is three rows of
 * scratch for the sorted columns. */
static inline __attribute__((always_inline)) void median_plane(const rcp_grid *g, const float *src, float *dst, float *C,
                                                               int lo, int hi, int hx) {
    const int w = g->w;
    float *lows = C, *mids = C + w, *highs = C + 2 * w;
    for (int j = lo; j < hi; j++) {
        const float *u = src + (size_t)(j - 1) * w, *c = src + (size_t)j * w, *v = src + (size_t)(j + 1) * w;
        for (int i = lo - 1; i < hx + 1; i++) {
            float a = u[i], b = c[i], d = v[i];
            float l = MIN(a, b), h = MAX(a, b);
            lows[i] = MIN(l, d);
            highs[i] = MAX(h, d);
            mids[i] = MAX(l, MIN(h, d));
        }
        float *t = dst + (size_t)j * w;
        for (int i = lo; i < hx; i++) {
            float l = MAX(MAX(lows[i - 1], lows[i]), lows[i + 1]);
            float h = MIN(MIN(highs[i - 1], highs[i]), highs[i + 1]);
            t[i] = med3(l, med3(mids[i - 1], mids[i], mids[i + 1]), h);
        }
    }
}

RCP_INLINE void rcp_median_differences RCP_MEDIAN_PARAMS {
    const int h = g->h, w = g->w;
    for (int pass = 0; pass < passes; pass++) {
        const int lo = m + pass, hi = h - m - pass, hx = w - m - pass;
        for (int plane = 0; plane < 2; plane++) {
            float **src = plane ? KB : KR;
            median_plane(g, *src, *T, C, lo, hi, hx);
            float *read = *src;
            *src = *T;
            *T = read;
        }
    }
}

RCP_VARIANTS(rcp_median_differences, RCP_MEDIAN_PARAMS, (g, KR, KB, T, C, m, passes))
