/* Bicubic rotation (straighten), a row at a time (Rotation.swift): the plain body, AVX2, AVX-512. */
#include "Common.h"

/* ---- Bicubic rotation (straighten) ---------------------------------------------------------
 *
 * Written with the compilers' vector extensions, not intrinsics: 4-float vectors are SSE on
 * x86-64 and NEON on arm64. Swift's SIMD4 version of this loop spilled its 16 taps and weights
 * to the stack and rebuilt each broadcast weight from memory (20 ns a pixel on photo24's
 * straighten); here they stay in registers. The same multiplications and additions run in the
 * same order as the Swift reference did, with no fused multiply-add, so every CPU (and the AVX
 * build, which only gains 3-operand instructions) gives the same bytes. */


#define RK_ROTATE_BODY                                                                              \
    const unsigned char *src = (const unsigned char *)image;                                        \
    int ring = ring_rows < height ? ring_rows : 0;                                                  \
    double max_x = (double)width - 0.5, max_y = (double)height - 0.5;                               \
    double hi_x = (double)width, hi_y = (double)height;                                             \
    int last_x = width - 1, last_y = height - 1;                                                    \
    ptrdiff_t off[4] = {0, 0, 0, 0};                                                                \
    long cy = LONG_MIN;                                                                             \
    for (int j = 0; j < count; j++) {                                                               \
        double x = start_x + (double)j * step_x, y = start_y + (double)j * step_y;                  \
        float *o = out + 3 * (ptrdiff_t)j;                                                          \
        if (black_outside && !(x >= -0.5 && x <= max_x && y >= -0.5 && y <= max_y)) {              \
            o[0] = 0; o[1] = 0; o[2] = 0;                                                           \
            continue;                                                                               \
        }                                                                                           \
        double px = x < -1 ? -1 : x > hi_x ? hi_x : x;                                              \
        double py = y < -1 ? -1 : y > hi_y ? hi_y : y;                                              \
        int ix = (int)(px + 1) - 1, iy = (int)(py + 1) - 1;                                         \
        if (iy != cy) {                                                                             \
            for (int r = 0; r < 4; r++) {                                                           \
                int row = rk_clampi(iy - 1 + r, 0, last_y);                                         \
                off[r] = (ptrdiff_t)(ring ? row % ring : row) * row_stride;                         \
            }                                                                                       \
            cy = iy;                                                                                \
        }                                                                                           \
        float wx[4], wy[4];                                                                         \
        rk_cubic((float)(px - (double)ix), wx);                                                     \
        rk_cubic((float)(py - (double)iy), wy);                                                     \
        rk_v4 acc = {0, 0, 0, 0};                                                                   \
        if (ix >= 1 && ix + 2 < last_x) {                                                           \
            ptrdiff_t c = 12 * (ptrdiff_t)(ix - 1);                                                 \
            for (int r = 0; r < 4; r++) {                                                           \
                const unsigned char *p = src + off[r] + c;                                          \
                rk_v4 h = rk_load4(p) * wx[0];                                                      \
                h += rk_load4(p + 12) * wx[1];                                                      \
                h += rk_load4(p + 24) * wx[2];                                                      \
                h += rk_load4(p + 36) * wx[3];                                                      \
                acc += h * wy[r];                                                                   \
            }                                                                                       \
        } else {                                                                                    \
            ptrdiff_t c[4];                                                                         \
            for (int k = 0; k < 4; k++) c[k] = 12 * (ptrdiff_t)rk_clampi(ix - 1 + k, 0, last_x);    \
            for (int r = 0; r < 4; r++) {                                                           \
                const unsigned char *p = src + off[r];                                              \
                rk_v4 h = rk_load3(p + c[0]) * wx[0];                                               \
                h += rk_load3(p + c[1]) * wx[1];                                                    \
                h += rk_load3(p + c[2]) * wx[2];                                                    \
                h += rk_load3(p + c[3]) * wx[3];                                                    \
                acc += h * wy[r];                                                                   \
            }                                                                                       \
        }                                                                                           \
        o[0] = acc[0]; o[1] = acc[1]; o[2] = acc[2];                                                \
    }

#define RK_ROTATE_PARAMS                                                                            \
    const void *image, ptrdiff_t row_stride, int width, int height, int ring_rows, double start_x,  \
    double start_y, double step_x, double step_y, int count, int black_outside, float *out

static void rk_rotate_row_plain(RK_ROTATE_PARAMS) { RK_ROTATE_BODY }

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* AVX2 without FMA: two pixels a 256-bit vector (one in each half), each with the operations of
 * RK_ROTATE_BODY in their order, so the same floats; pixels whose taps cross the edge or whose
 * pair straddles a row go one at a time. 13 ns a pixel against 16.5 for the body above compiled
 * for AVX2 (photo24's square-crop straighten, one core). */
/* One pixel's position, taps and weights, as RK_ROTATE_BODY computes them. */
typedef struct { int inside; int ix, iy; float wx[4], wy[4]; double px, py; } rk_tap;

static inline void rk_where(double x, double y, double max_x, double max_y, double hi_x, double hi_y, int black_outside, rk_tap *t) {
    if (black_outside && !(x >= -0.5 && x <= max_x && y >= -0.5 && y <= max_y)) { t->inside = 0; return; }
    t->inside = 1;
    double px = x < -1 ? -1 : x > hi_x ? hi_x : x;
    double py = y < -1 ? -1 : y > hi_y ? hi_y : y;
    t->ix = (int)(px + 1) - 1; t->iy = (int)(py + 1) - 1;
    rk_cubic((float)(px - (double)t->ix), t->wx);
    rk_cubic((float)(py - (double)t->iy), t->wy);
}

/* Pixels `first` up to `end` of the row (each at its own j, so a span gives the whole row's floats). */
__attribute__((target("avx2")))
static void rk_rotate_span_avx2(const void *image, ptrdiff_t row_stride, int width, int height, int ring_rows, double start_x,
                   double start_y, double step_x, double step_y, int first, int end, int black_outside, float *out) {
    const unsigned char *src = (const unsigned char *)image;
    int ring = ring_rows < height ? ring_rows : 0;
    double max_x = (double)width - 0.5, max_y = (double)height - 0.5;
    double hi_x = (double)width, hi_y = (double)height;
    int last_x = width - 1, last_y = height - 1;
    int j = first;
    for (; j + 2 <= end; j += 2) {
        rk_tap a, b;
        rk_where(start_x + (double)j * step_x, start_y + (double)j * step_y, max_x, max_y, hi_x, hi_y, black_outside, &a);
        rk_where(start_x + (double)(j + 1) * step_x, start_y + (double)(j + 1) * step_y, max_x, max_y, hi_x, hi_y, black_outside, &b);
        float *o = out + 3 * (ptrdiff_t)j;
        /* Both inside the interior and on the same rows: two pixels a 256-bit vector. */
        if (a.inside && b.inside && a.iy == b.iy && a.ix >= 1 && a.ix + 2 < last_x && b.ix >= 1 && b.ix + 2 < last_x) {
            const unsigned char *pa = src + 12 * (ptrdiff_t)(a.ix - 1), *pb = src + 12 * (ptrdiff_t)(b.ix - 1);
            __m256 acc = _mm256_setzero_ps();
            for (int r = 0; r < 4; r++) {
                int row = rk_clampi(a.iy - 1 + r, 0, last_y);
                ptrdiff_t off = (ptrdiff_t)(ring ? row % ring : row) * row_stride;
                const unsigned char *qa = pa + off, *qb = pb + off;
                __m256 w0 = _mm256_set_m128(_mm_set1_ps(b.wx[0]), _mm_set1_ps(a.wx[0]));
                __m256 w1 = _mm256_set_m128(_mm_set1_ps(b.wx[1]), _mm_set1_ps(a.wx[1]));
                __m256 w2 = _mm256_set_m128(_mm_set1_ps(b.wx[2]), _mm_set1_ps(a.wx[2]));
                __m256 w3 = _mm256_set_m128(_mm_set1_ps(b.wx[3]), _mm_set1_ps(a.wx[3]));
                __m256 h = _mm256_mul_ps(_mm256_loadu2_m128((const float *)qb, (const float *)qa), w0);
                h = _mm256_add_ps(h, _mm256_mul_ps(_mm256_loadu2_m128((const float *)(qb + 12), (const float *)(qa + 12)), w1));
                h = _mm256_add_ps(h, _mm256_mul_ps(_mm256_loadu2_m128((const float *)(qb + 24), (const float *)(qa + 24)), w2));
                h = _mm256_add_ps(h, _mm256_mul_ps(_mm256_loadu2_m128((const float *)(qb + 36), (const float *)(qa + 36)), w3));
                __m256 wy = _mm256_set_m128(_mm_set1_ps(b.wy[r]), _mm_set1_ps(a.wy[r]));
                acc = _mm256_add_ps(acc, _mm256_mul_ps(h, wy));
            }
            float v[8];
            _mm256_storeu_ps(v, acc);
            o[0] = v[0]; o[1] = v[1]; o[2] = v[2]; o[3] = v[4]; o[4] = v[5]; o[5] = v[6];
            continue;
        }
        /* Otherwise each pixel the general way. */
        rk_tap *ts[2] = {&a, &b};
        for (int k = 0; k < 2; k++) {
            rk_tap *t = ts[k];
            float *p3 = o + 3 * k;
            if (!t->inside) { p3[0] = 0; p3[1] = 0; p3[2] = 0; continue; }
            ptrdiff_t off[4];
            for (int r = 0; r < 4; r++) { int row = rk_clampi(t->iy - 1 + r, 0, last_y); off[r] = (ptrdiff_t)(ring ? row % ring : row) * row_stride; }
            __m128 acc = _mm_setzero_ps();
            ptrdiff_t c[4];
            for (int q = 0; q < 4; q++) c[q] = 12 * (ptrdiff_t)rk_clampi(t->ix - 1 + q, 0, last_x);
            for (int r = 0; r < 4; r++) {
                const unsigned char *p = src + off[r];
                float f[4][4];
                for (int q = 0; q < 4; q++) { memcpy(f[q], p + c[q], 12); f[q][3] = 0; }
                __m128 h = _mm_mul_ps(_mm_loadu_ps(f[0]), _mm_set1_ps(t->wx[0]));
                h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[1]), _mm_set1_ps(t->wx[1])));
                h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[2]), _mm_set1_ps(t->wx[2])));
                h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[3]), _mm_set1_ps(t->wx[3])));
                acc = _mm_add_ps(acc, _mm_mul_ps(h, _mm_set1_ps(t->wy[r])));
            }
            float v[4];
            _mm_storeu_ps(v, acc);
            p3[0] = v[0]; p3[1] = v[1]; p3[2] = v[2];
        }
    }
    if (j < end) {
        /* the odd last pixel */
        rk_tap a;
        rk_where(start_x + (double)j * step_x, start_y + (double)j * step_y, max_x, max_y, hi_x, hi_y, black_outside, &a);
        float *p3 = out + 3 * (ptrdiff_t)j;
        if (!a.inside) { p3[0] = 0; p3[1] = 0; p3[2] = 0; return; }
        ptrdiff_t off[4], c[4];
        for (int r = 0; r < 4; r++) { int row = rk_clampi(a.iy - 1 + r, 0, last_y); off[r] = (ptrdiff_t)(ring ? row % ring : row) * row_stride; }
        for (int q = 0; q < 4; q++) c[q] = 12 * (ptrdiff_t)rk_clampi(a.ix - 1 + q, 0, last_x);
        __m128 acc = _mm_setzero_ps();
        for (int r = 0; r < 4; r++) {
            const unsigned char *p = src + off[r];
            float f[4][4];
            for (int q = 0; q < 4; q++) { memcpy(f[q], p + c[q], 12); f[q][3] = 0; }
            __m128 h = _mm_mul_ps(_mm_loadu_ps(f[0]), _mm_set1_ps(a.wx[0]));
            h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[1]), _mm_set1_ps(a.wx[1])));
            h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[2]), _mm_set1_ps(a.wx[2])));
            h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[3]), _mm_set1_ps(a.wx[3])));
            acc = _mm_add_ps(acc, _mm_mul_ps(h, _mm_set1_ps(a.wy[r])));
        }
        float v[4];
        _mm_storeu_ps(v, acc);
        p3[0] = v[0]; p3[1] = v[1]; p3[2] = v[2];
    }
}

__attribute__((target("avx2")))
static void rk_rotate_row_avx2(RK_ROTATE_PARAMS) {
    rk_rotate_span_avx2(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, 0, count,
                        black_outside, out);
}

/* rk_cubic on sixteen lanes, with its operations in its order. */
typedef struct { __m512 w[4]; } rk_cubic16;

__attribute__((target("avx512f"), always_inline))
static inline rk_cubic16 rk_cubic_avx512(__m512 t) {
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
    __m512 t2 = _mm512_mul_ps(t, t);
    rk_cubic16 c;
    c.w[0] = _mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), t), one), t), half), t);
    c.w[1] = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(1.5f), t), _mm512_set1_ps(2.5f)), t2), one);
    c.w[2] = _mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(-1.5f), t), _mm512_set1_ps(2.0f)), t), half), t);
    c.w[3] = _mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(half, t), half), t2);
    return c;
}

/* A group's window: the four taps' window pixels a lane, the load masks of its up to 96 floats,
 * whether it holds more than 16 pixels. */
typedef struct { __m512i tap[4]; __mmask16 load[6]; int wide; } rk_window;

/* One source row's horizontal sums of a group, per channel: the window from `p` split into its
 * channels (float 3p + c is pixel p's channel c; the low five bits of an index pick from two
 * registers, floats 32 on from the third), each tap a permute of it. */
__attribute__((target("avx512f"), always_inline))
static inline void rk_rotate_hsums(const float *p, const rk_window *win, const rk_cubic16 *wx, __m512 h[3]) {
    const __m512i split[3] = {
        _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45),
        _mm512_setr_epi32(1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46),
        _mm512_setr_epi32(2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38, 41, 44, 47)};
    const __mmask16 third[3] = {0xF800, 0xF800, 0xFC00};
    __m512 z[6];
    for (int q = 0; q < 6; q++) z[q] = _mm512_maskz_loadu_ps(win->load[q], p + 16 * q);
    for (int c = 0; c < 3; c++) {
        __m512 lo = _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(z[0], split[c], z[1]), third[c], split[c], z[2]);
        __m512 hi = win->wide ? _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(z[3], split[c], z[4]), third[c], split[c], z[5])
                              : _mm512_setzero_ps();
        __m512 v = _mm512_mul_ps(_mm512_permutex2var_ps(lo, win->tap[0], hi), wx->w[0]);
        v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_permutex2var_ps(lo, win->tap[1], hi), wx->w[1]));
        v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_permutex2var_ps(lo, win->tap[2], hi), wx->w[2]));
        h[c] = _mm512_add_ps(v, _mm512_mul_ps(_mm512_permutex2var_ps(lo, win->tap[3], hi), wx->w[3]));
    }
}

/* AVX-512: sixteen pixels a group, one channel a register. Where the sixteen lie inside the
 * picture, away from its columns' edges, on four source rows or (the tilt crossing a source row
 * in the group) five, and within 32 source columns (a straighten or a rotation at a scale near
 * 1), each row's window is loaded once and split into its channels, and each tap is a permute of
 * that window by the pixels' columns; the positions,
 * weights, multiplications and additions are RK_ROTATE_BODY's, in its order and precision, so
 * the same floats. Other groups, and the last pixels of a row, go through the AVX2 span.
 * photo24's square-crop straighten (2000×2000 pixels at 0.96 source columns a pixel, a row down
 * every 38): 87 → 33 ms of CPU a render (perf); a 4-ns-a-pixel bound by its permutes alone (the
 * window's split costs as much as the taps: splitting each source row once, planar, is the next
 * step if rotations matter more). */
__attribute__((target("avx512f,avx512dq,avx2")))
static void rk_rotate_row_avx512(RK_ROTATE_PARAMS) {
    const unsigned char *src = (const unsigned char *)image;
    int ring = ring_rows < height ? ring_rows : 0;
    int last_y = height - 1;
    /* x in [1, width − 3) puts the four columns inside the row and the pixel inside the picture;
     * y in [−0.5, height − 0.5] inside it too, where no clamp of the body changes y. */
    const __m512d x_lo = _mm512_set1_pd(1.0), x_hi = _mm512_set1_pd((double)(width - 3));
    const __m512d y_lo = _mm512_set1_pd(-0.5), y_hi = _mm512_set1_pd((double)height - 0.5);
    const __m512d sx = _mm512_set1_pd(start_x), sy = _mm512_set1_pd(start_y);
    const __m512d dx = _mm512_set1_pd(step_x), dy = _mm512_set1_pd(step_y), one = _mm512_set1_pd(1.0);
    const __m512d lanes_a = _mm512_setr_pd(0, 1, 2, 3, 4, 5, 6, 7), lanes_b = _mm512_setr_pd(8, 9, 10, 11, 12, 13, 14, 15);
    /* Output float 16q + i is pixel (16q + i) / 3's channel (16q + i) mod 3: red and green from a
     * two-register permute (green's indices + 16), blue by a masked one. */
    const __m512i join[3] = {
        _mm512_setr_epi32(0, 16, 0, 1, 17, 1, 2, 18, 2, 3, 19, 3, 4, 20, 4, 5),
        _mm512_setr_epi32(21, 5, 6, 22, 6, 7, 23, 7, 8, 24, 8, 9, 25, 9, 10, 26),
        _mm512_setr_epi32(10, 11, 27, 11, 12, 28, 12, 13, 29, 13, 14, 30, 14, 15, 31, 15)};
    const __mmask16 join_blue[3] = {0x4924, 0x2492, 0x9249};
    ptrdiff_t off[5] = {0, 0, 0, 0, 0};
    int cy = INT_MIN;
    int j = 0;
    for (; j + 16 <= count; j += 16) {
        __m512d jd = _mm512_set1_pd((double)j);
        __m512d ja = _mm512_add_pd(jd, lanes_a), jb = _mm512_add_pd(jd, lanes_b);
        __m512d xa = _mm512_add_pd(sx, _mm512_mul_pd(ja, dx)), xb = _mm512_add_pd(sx, _mm512_mul_pd(jb, dx));
        __m512d ya = _mm512_add_pd(sy, _mm512_mul_pd(ja, dy)), yb = _mm512_add_pd(sy, _mm512_mul_pd(jb, dy));
        __mmask8 ok = _mm512_cmp_pd_mask(xa, x_lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(xa, x_hi, _CMP_LT_OQ)
            & _mm512_cmp_pd_mask(xb, x_lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(xb, x_hi, _CMP_LT_OQ)
            & _mm512_cmp_pd_mask(ya, y_lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(ya, y_hi, _CMP_LE_OQ)
            & _mm512_cmp_pd_mask(yb, y_lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(yb, y_hi, _CMP_LE_OQ);
        if (ok != 0xFF) goto general;
        /* (int)(p + 1) − 1, as the body truncates. */
        __m256i m1 = _mm256_set1_epi32(1);
        __m256i ixa = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(xa, one)), m1);
        __m256i ixb = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(xb, one)), m1);
        __m256i iya = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(ya, one)), m1);
        __m256i iyb = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(yb, one)), m1);
        /* Positions move monotonically along the row (each rounding step is monotonic), so the
         * group's first and last pixels bound its rows and columns. */
        __m512i iys = _mm512_inserti64x4(_mm512_castsi256_si512(iya), iyb, 1);
        int iy_first = _mm256_extract_epi32(iya, 0), iy_last = _mm256_extract_epi32(iyb, 7);
        int iy = iy_first < iy_last ? iy_first : iy_last;
        int rows = (iy_first < iy_last ? iy_last : iy_first) - iy + 4;
        if (rows > 5) goto general;
        /* The lanes a row further down (the tilt crossed a source row in the group): their r-th
         * row is the window's r + 1-th. */
        __mmask16 below = _mm512_cmpneq_epi32_mask(iys, _mm512_set1_epi32(iy));
        __m512i ix = _mm512_inserti64x4(_mm512_castsi256_si512(ixa), ixb, 1);
        int ix_first = _mm256_extract_epi32(ixa, 0), ix_last = _mm256_extract_epi32(ixb, 7);
        int lo = ix_first < ix_last ? ix_first : ix_last, hi = ix_first < ix_last ? ix_last : ix_first;
        if (hi - lo > 28) goto general;
        int n = hi - lo + 4; /* window pixels, from column lo − 1 */
        __m512i rel = _mm512_sub_epi32(ix, _mm512_set1_epi32(lo));
        /* (float)(p − (double)i) and rk_cubic's weights, lane by lane. */
        __m512 fx = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_sub_pd(xa, _mm512_cvtepi32_pd(ixa)))),
                                       _mm512_cvtpd_ps(_mm512_sub_pd(xb, _mm512_cvtepi32_pd(ixb))), 1);
        __m512 fy = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_sub_pd(ya, _mm512_cvtepi32_pd(iya)))),
                                       _mm512_cvtpd_ps(_mm512_sub_pd(yb, _mm512_cvtepi32_pd(iyb))), 1);
        rk_cubic16 wx = rk_cubic_avx512(fx), wy = rk_cubic_avx512(fy);
        if (iy != cy) {
            for (int r = 0; r < 5; r++) {
                int row = rk_clampi(iy - 1 + r, 0, last_y);
                off[r] = (ptrdiff_t)(ring ? row % ring : row) * row_stride;
            }
            cy = iy;
        }
        rk_window win;
        for (int k = 0; k < 4; k++) win.tap[k] = _mm512_add_epi32(rel, _mm512_set1_epi32(k));
        for (int q = 0; q < 6; q++) {
            int left = 3 * n - 16 * q;
            win.load[q] = left >= 16 ? 0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
        }
        win.wide = n > 16;
        const unsigned char *first = src + 12 * (ptrdiff_t)(lo - 1);
        __m512 acc[3] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
        __m512 ha[3], hb[3];
        /* A lane's r-th row is the window's r-th, or its r + 1-th for the lanes below; each lane
         * adds its four rows in order. Written out so that the sums stay in registers. */
#define RK_ROT_ROW(w, H) rk_rotate_hsums((const float *)(first + off[w]), &win, &wx, H)
#define RK_ROT_ADD(A, B, r) \
        for (int c = 0; c < 3; c++) acc[c] = _mm512_add_ps(acc[c], _mm512_mul_ps(_mm512_mask_blend_ps(below, A[c], B[c]), wy.w[r]))
        if (rows == 4) {
            RK_ROT_ROW(0, ha); RK_ROT_ADD(ha, ha, 0);
            RK_ROT_ROW(1, ha); RK_ROT_ADD(ha, ha, 1);
            RK_ROT_ROW(2, ha); RK_ROT_ADD(ha, ha, 2);
            RK_ROT_ROW(3, ha); RK_ROT_ADD(ha, ha, 3);
        } else {
            RK_ROT_ROW(0, ha); RK_ROT_ROW(1, hb); RK_ROT_ADD(ha, hb, 0);
            RK_ROT_ROW(2, ha); RK_ROT_ADD(hb, ha, 1);
            RK_ROT_ROW(3, hb); RK_ROT_ADD(ha, hb, 2);
            RK_ROT_ROW(4, ha); RK_ROT_ADD(hb, ha, 3);
        }
#undef RK_ROT_ROW
#undef RK_ROT_ADD
        float *o = out + 3 * (ptrdiff_t)j;
        for (int q = 0; q < 3; q++)
            _mm512_storeu_ps(o + 16 * q, _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(acc[0], join[q], acc[1]), join_blue[q], join[q], acc[2]));
        continue;
    general:
        rk_rotate_span_avx2(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, j, j + 16,
                            black_outside, out);
    }
    if (j < count)
        rk_rotate_span_avx2(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, j, count,
                            black_outside, out);
}
#endif

int rk_rotate_row_path(int path, RK_ROTATE_PARAMS) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (path == 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
        rk_rotate_row_avx512(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, count,
                             black_outside, out);
        return 2;
    }
    if (path >= 1 && __builtin_cpu_supports("avx2")) {
        rk_rotate_row_avx2(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, count,
                           black_outside, out);
        return 1;
    }
#endif
    rk_rotate_row_plain(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, count,
                        black_outside, out);
    return 0;
}

void rk_rotate_row(RK_ROTATE_PARAMS) {
    (void)rk_rotate_row_path(2, image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, count,
                             black_outside, out);
}
