/* The unsharp mask's per-pixel half (UnsharpMask.swift): plain, AVX2. */
#include "Common.h"

/* ---- the unsharp mask's per-pixel half, straight into the output row's planes --------------------
 * UnsharpMask.apply's operations in its order (v + amount·d where |2·d| is not below the
 * threshold, d the value's, or with `luma` the luma's, difference from the blurred), without fused
 * multiply-adds. */
/* Two loops, not one with `luma ? … : …` inside: the compiler made the per-channel read of
 * `blurred` a masked load, which for the luma (one plane, the rest of the row past its end)
 * cost a fault-suppression assist per vector on AMD: three quarters of clarity's emit. */
#define RK_UNSHARP_BODY                                                                             \
    const float *r = original, *g = original + width, *b = original + 2 * (ptrdiff_t)width;       \
    if (luma) {                                                                                     \
        for (int x = from; x < width; x++) {                                                        \
            float v[3] = {r[x], g[x], b[x]};                                                        \
            float d = 0.2126f * v[0] + 0.7152f * v[1] + 0.0722f * v[2] - blurred[x];                \
            float a = 2 * d;                                                                        \
            a = a < 0 ? -a : a;                                                                     \
            for (int c = 0; c < 3; c++) out[c * (ptrdiff_t)width + x] = a < threshold ? v[c] : v[c] + amount * d; \
        }                                                                                           \
        return;                                                                                     \
    }                                                                                               \
    for (int c = 0; c < 3; c++) {                                                                   \
        const float *v = original + c * (ptrdiff_t)width, *bl = blurred + c * (ptrdiff_t)width;     \
        float *o = out + c * (ptrdiff_t)width;                                                      \
        for (int x = from; x < width; x++) {                                                        \
            float d = v[x] - bl[x];                                                                 \
            float a = 2 * d;                                                                        \
            a = a < 0 ? -a : a;                                                                     \
            o[x] = a < threshold ? v[x] : v[x] + amount * d;                                        \
        }                                                                                           \
    }
/* From column `from` (the AVX2 loop's leftovers, or 0). */
static void rk_unsharp_plain(const float *original, const float *blurred, int width, float amount, float threshold, int luma,
                             float *out, int from) { RK_UNSHARP_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* In intrinsics: left to the compiler, the threshold's choice became masked stores (microcoded
 * on AMD). Eight pixels a step; the row's last few by the plain loop. */
__attribute__((target("avx2")))
static int rk_unsharp_avx2(const float *restrict original, const float *restrict blurred, int width, float amount, float threshold,
                           int luma, float *restrict out) {
    const __m256 k = _mm256_set1_ps(amount), t = _mm256_set1_ps(threshold), abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 wr = _mm256_set1_ps(0.2126f), wg = _mm256_set1_ps(0.7152f), wb = _mm256_set1_ps(0.0722f);
    const ptrdiff_t w = width;
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        __m256 v[3] = {_mm256_loadu_ps(original + x), _mm256_loadu_ps(original + w + x), _mm256_loadu_ps(original + 2 * w + x)};
        __m256 d = _mm256_setzero_ps();
        if (luma)
            d = _mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(wr, v[0]), _mm256_mul_ps(wg, v[1])), _mm256_mul_ps(wb, v[2])),
                              _mm256_loadu_ps(blurred + x));
        for (int c = 0; c < 3; c++) {
            __m256 dc = luma ? d : _mm256_sub_ps(v[c], _mm256_loadu_ps(blurred + c * w + x));
            __m256 a = _mm256_and_ps(_mm256_add_ps(dc, dc), abs);
            __m256 sharpened = _mm256_add_ps(v[c], _mm256_mul_ps(k, dc));
            _mm256_storeu_ps(out + c * w + x, _mm256_blendv_ps(sharpened, v[c], _mm256_cmp_ps(a, t, _CMP_LT_OQ)));
        }
    }
    return x;
}
#endif

void rk_unsharp_row(const float *original, const float *blurred, int width, float amount, float threshold, int luma, float *out) {
    int x = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) x = rk_unsharp_avx2(original, blurred, width, amount, threshold, luma, out);
#endif
    rk_unsharp_plain(original, blurred, width, amount, threshold, luma, out, x);
}
