/* Each colour difference replaced by the median of its 3 × 3 neighbourhood, several times (dcraw's
 * -m): the false colour a demosaic leaves along fine detail is a difference unlike its
 * neighbours', and a median removes it where a mean would spread it. */
#include "Passes.h"

#include <stddef.h>
#include <string.h>

/* The median of nine values by the 19 exchanges of Paeth's network (as in Devillard's opt_med9),
 * min and max only, so a loop of them vectorises. */
static inline float median9(float p0, float p1, float p2, float p3, float p4, float p5, float p6, float p7, float p8) {
    #define SORT2(a, b) { float lo_ = a < b ? a : b, hi_ = a < b ? b : a; a = lo_; b = hi_; }
    SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8); SORT2(p0, p1); SORT2(p3, p4); SORT2(p6, p7);
    SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8); SORT2(p0, p3); SORT2(p5, p8); SORT2(p4, p7);
    SORT2(p3, p6); SORT2(p1, p4); SORT2(p2, p5); SORT2(p4, p7); SORT2(p4, p2); SORT2(p6, p4);
    SORT2(p4, p2);
    #undef SORT2
    return p4;
}

void rcp_median_differences(const rcp_grid *g, float *KR, float *KB, float *T, int m, int passes) {
    const int w = g->w, h = g->h;
    for (int pass = 0; pass < passes; pass++) {
        const int lo = m + pass, hi = h - m - pass, hx = w - m - pass;
        for (int plane = 0; plane < 2; plane++) {
            float *src = plane ? KB : KR;
            for (int j = lo; j < hi; j++) {
                const float *u = src + (size_t)(j - 1) * w, *c = src + (size_t)j * w, *v = src + (size_t)(j + 1) * w;
                float *t = T + (size_t)j * w;
                for (int i = lo; i < hx; i++) t[i] = median9(u[i - 1], u[i], u[i + 1], c[i - 1], c[i], c[i + 1], v[i - 1], v[i], v[i + 1]);
            }
            for (int j = lo; j < hi; j++) memcpy(src + (size_t)j * w + lo, T + (size_t)j * w + lo, (size_t)(hx - lo) * sizeof(float));
        }
    }
}
