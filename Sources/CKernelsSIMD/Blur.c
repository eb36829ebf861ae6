/* The Gaussian blurs' row loops: acc += times·src (DecimatedGaussian.swift, GaussianBlur.swift),
 * a coarse row interpolated back to fine columns (DecimatedGaussian.swift) and the direct
 * Gaussian's passes (GaussianBlur.swift): plain, AVX2. */
#include "Common.h"

/* ---- acc += times·src -------------------------------------------------------------------------
 * A product then a sum (no fused multiply-add), eight lanes a step with AVX2. */
#define RK_AXPY_BODY for (int i = 0; i < count; i++) acc[i] = acc[i] + times * src[i];
static void rk_axpy_plain(float *acc, const float *src, float times, int count) { RK_AXPY_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static void rk_axpy_avx2(float *restrict acc, const float *restrict src, float times, int count) { RK_AXPY_BODY }
#endif

void rk_axpy(float *acc, const float *src, float times, int count) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) { rk_axpy_avx2(acc, src, times, count); return; }
#endif
    rk_axpy_plain(acc, src, times, count);
}

/* ---- a coarse row interpolated back to fine columns --------------------------------------------
 * dst[x] = a + w[x]·(b − a), a = src[column[x]], b = src[column[x] + 1]: DecimatedGaussian's
 * Swift loop, its operations in its order. The columns of eight neighbouring pixels lie within
 * eight coarse samples of the first (the grid is at least 2 times coarser), so a load from there
 * and a permute stand for the gathers. src must have 8 readable floats past its last sample. */
static void rk_coarse_lerp_plain(const float *src, const int32_t *column, const float *weight, float *dst, int from, int count) {
    for (int x = from; x < count; x++) {
        float a = src[column[x]], b = src[column[x] + 1];
        dst[x] = a + weight[x] * (b - a);
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static int rk_coarse_lerp_avx2(const float *src, const int32_t *column, const float *weight, float *dst, int count) {
    int x = 0;
    for (; x + 8 <= count; x += 8) {
        int first = column[x];
        __m256i index = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(column + x)), _mm256_set1_epi32(first));
        if (column[x + 7] - first > 7) break;  /* not within the permute's reach: the rest plainly */
        __m256 a = _mm256_permutevar8x32_ps(_mm256_loadu_ps(src + first), index);
        __m256 b = _mm256_permutevar8x32_ps(_mm256_loadu_ps(src + first + 1), index);
        _mm256_storeu_ps(dst + x, _mm256_add_ps(a, _mm256_mul_ps(_mm256_loadu_ps(weight + x), _mm256_sub_ps(b, a))));
    }
    return x;
}
#endif

void rk_coarse_lerp(const float *src, const int32_t *column, const float *weight, float *dst, int count) {
    int x = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) x = rk_coarse_lerp_avx2(src, column, weight, dst, count);
#endif
    rk_coarse_lerp_plain(src, column, weight, dst, x, count);
}

/* ---- the direct Gaussian's passes ----------------------------------------------------------
 * GaussianBlur.horizontal's and .vertical's sums in their order (each output a sum from 0 of
 * tap · value, tap by tap; no fused multiply-adds), so the same floats; eight lanes with AVX2
 * where Swift's SIMD8 compiles to SSE on this baseline build. */
static void rk_blur_horizontal_plain(const float *padded, float *dst, int width, const float *taps, int n, int from) {
    for (int x = from; x < width; x++) {
        float acc = 0;
        for (int k = 0; k < n; k++) acc += taps[k] * padded[x + k];
        dst[x] = acc;
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static int rk_blur_horizontal_avx2(const float *padded, float *dst, int width, const float *taps, int n) {
    int x = 0;
    for (; x + 32 <= width; x += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int k = 0; k < n; k++) {
            __m256 w = _mm256_set1_ps(taps[k]);
            const float *p = padded + x + k;
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(w, _mm256_loadu_ps(p)));
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(w, _mm256_loadu_ps(p + 8)));
            a2 = _mm256_add_ps(a2, _mm256_mul_ps(w, _mm256_loadu_ps(p + 16)));
            a3 = _mm256_add_ps(a3, _mm256_mul_ps(w, _mm256_loadu_ps(p + 24)));
        }
        _mm256_storeu_ps(dst + x, a0);
        _mm256_storeu_ps(dst + x + 8, a1);
        _mm256_storeu_ps(dst + x + 16, a2);
        _mm256_storeu_ps(dst + x + 24, a3);
    }
    for (; x + 8 <= width; x += 8) {
        __m256 a = _mm256_setzero_ps();
        for (int k = 0; k < n; k++) a = _mm256_add_ps(a, _mm256_mul_ps(_mm256_set1_ps(taps[k]), _mm256_loadu_ps(padded + x + k)));
        _mm256_storeu_ps(dst + x, a);
    }
    return x;
}
#endif

void rk_blur_horizontal(const float *padded, float *dst, int width, const float *taps, int n) {
    int x = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) x = rk_blur_horizontal_avx2(padded, dst, width, taps, n);
#endif
    rk_blur_horizontal_plain(padded, dst, width, taps, n, x);
}

static void rk_blur_vertical6_plain(const float *const *rows, const float *taps, int n, float *lines, ptrdiff_t stride, int from, int to) {
    for (int i = from; i < to; i++) {
        for (int j = 0; j < 6; j++) {
            float acc = 0;
            for (int k = 0; k < n; k++) acc += taps[k] * rows[j + k][i];
            lines[j * stride + i] = acc;
        }
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static int rk_blur_vertical6_avx2(const float *const *rows, const float *taps, int n, float *lines, ptrdiff_t stride, int from, int to) {
    int i = from;
#define RK_TAP(a, k) a = _mm256_add_ps(a, _mm256_mul_ps(_mm256_set1_ps(taps[k]), v))
    for (; i + 8 <= to; i += 8) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
        /* Input row t feeds output j with tap t − j: the first five and last five rows feed
         * only some outputs, the rows between all six. */
        for (int t = 0; t < 5; t++) {
            __m256 v = _mm256_loadu_ps(rows[t] + i);
            RK_TAP(a0, t);
            if (t >= 1) RK_TAP(a1, t - 1);
            if (t >= 2) RK_TAP(a2, t - 2);
            if (t >= 3) RK_TAP(a3, t - 3);
            if (t >= 4) RK_TAP(a4, t - 4);
        }
        for (int t = 5; t < n; t++) {
            __m256 v = _mm256_loadu_ps(rows[t] + i);
            RK_TAP(a0, t);
            RK_TAP(a1, t - 1);
            RK_TAP(a2, t - 2);
            RK_TAP(a3, t - 3);
            RK_TAP(a4, t - 4);
            RK_TAP(a5, t - 5);
        }
        for (int t = n; t < n + 5; t++) {
            __m256 v = _mm256_loadu_ps(rows[t] + i);
            if (t - 1 < n) RK_TAP(a1, t - 1);
            if (t - 2 < n) RK_TAP(a2, t - 2);
            if (t - 3 < n) RK_TAP(a3, t - 3);
            if (t - 4 < n) RK_TAP(a4, t - 4);
            RK_TAP(a5, t - 5);
        }
        _mm256_storeu_ps(lines + i, a0);
        _mm256_storeu_ps(lines + stride + i, a1);
        _mm256_storeu_ps(lines + 2 * stride + i, a2);
        _mm256_storeu_ps(lines + 3 * stride + i, a3);
        _mm256_storeu_ps(lines + 4 * stride + i, a4);
        _mm256_storeu_ps(lines + 5 * stride + i, a5);
    }
#undef RK_TAP
    return i;
}
#endif

void rk_blur_vertical6(const float *const *rows, const float *taps, int n, float *lines, ptrdiff_t stride, int from, int to) {
    int i = from;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) i = rk_blur_vertical6_avx2(rows, taps, n, lines, stride, from, to);
#endif
    rk_blur_vertical6_plain(rows, taps, n, lines, stride, i, to);
}
