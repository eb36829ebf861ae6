/* Shadows/highlights' gains (ShadowsHighlights.swift): plain, AVX2. */
#include "Common.h"

/* ---- shadows/highlights' gains --------------------------------------------------------------
 * 2^(shadows·(1 − y)² − highlights·y²), y the blurred luma clamped to [0, 1] (NaN to 0):
 * ShadowsHighlights.gain's operations (FastMath.clamp, FastMath.exp2's degree-7 polynomial) in
 * its order, without fused multiply-adds, so Swift's lanes and these give the same floats. Swift
 * compiles its SIMD8 to SSE on this baseline build; here AVX2 runs eight lanes at once. */
static inline float rk_sh_gain_one(float yb, float shadows, float highlights) {
    float y = yb > 0 ? yb : 0.0f;
    y = yb > 1 ? 1.0f : y;
    float rest = 1 - y;
    float c = shadows * rest * rest - highlights * y * y;
    c = c < -126 ? -126.0f : c;
    c = c > 127 ? 127.0f : c;
    float shifted = c + 12582912.0f, n = shifted - 12582912.0f;
    float z = (c - n) * 0.6931471805599453f;
    float p = z * (1.0f / 5040) + (1.0f / 720);
    p = p * z + (1.0f / 120);
    p = p * z + (1.0f / 24);
    p = p * z + (1.0f / 6);
    p = p * z + 0.5f;
    p = p * z + 1;
    p = p * z + 1;
    int32_t integer;
    memcpy(&integer, &shifted, 4);
    int32_t bits = (integer - 0x4B400000 + 127) << 23;
    float scale;
    memcpy(&scale, &bits, 4);
    return p * scale;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static int rk_sh_gains_avx2(const float *yb, float *out, int count, float shadows, float highlights) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), s = _mm256_set1_ps(shadows), h = _mm256_set1_ps(highlights);
    const __m256 lo = _mm256_set1_ps(-126.0f), hi = _mm256_set1_ps(127.0f), magic = _mm256_set1_ps(12582912.0f);
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256 v = _mm256_loadu_ps(yb + i);
        __m256 y = _mm256_and_ps(v, _mm256_cmp_ps(v, zero, _CMP_GT_OQ)); /* NaN and ≤ 0: 0 */
        y = _mm256_blendv_ps(y, one, _mm256_cmp_ps(v, one, _CMP_GT_OQ));
        __m256 rest = _mm256_sub_ps(one, y);
        __m256 c = _mm256_sub_ps(_mm256_mul_ps(_mm256_mul_ps(s, rest), rest), _mm256_mul_ps(_mm256_mul_ps(h, y), y));
        c = _mm256_blendv_ps(c, lo, _mm256_cmp_ps(c, lo, _CMP_LT_OQ));
        c = _mm256_blendv_ps(c, hi, _mm256_cmp_ps(c, hi, _CMP_GT_OQ));
        __m256 shifted = _mm256_add_ps(c, magic), n = _mm256_sub_ps(shifted, magic);
        __m256 z = _mm256_mul_ps(_mm256_sub_ps(c, n), _mm256_set1_ps(0.6931471805599453f));
        __m256 p = _mm256_add_ps(_mm256_mul_ps(z, _mm256_set1_ps(1.0f / 5040)), _mm256_set1_ps(1.0f / 720));
        p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f / 120));
        p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f / 24));
        p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.0f / 6));
        p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(0.5f));
        p = _mm256_add_ps(_mm256_mul_ps(p, z), one);
        p = _mm256_add_ps(_mm256_mul_ps(p, z), one);
        __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(shifted), _mm256_set1_epi32(0x4B400000)),
                                                          _mm256_set1_epi32(127)), 23);
        _mm256_storeu_ps(out + i, _mm256_mul_ps(p, _mm256_castsi256_ps(bits)));
    }
    return i;
}
#endif

void rk_sh_gains_without_avx2(const float *yb, float *out, int count, float shadows, float highlights) {
    for (int i = 0; i < count; i++) out[i] = rk_sh_gain_one(yb[i], shadows, highlights);
}

void rk_sh_gains(const float *yb, float *out, int count, float shadows, float highlights) {
    int i = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) i = rk_sh_gains_avx2(yb, out, count, shadows, highlights);
#endif
    rk_sh_gains_without_avx2(yb + i, out + i, count - i, shadows, highlights);
}
