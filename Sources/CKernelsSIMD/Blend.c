/* The blend modes on a row (BlendMode.swift's blendRow): AVX2, the scalar loop for the rest. */
#include "Common.h"

/* ---- Blend rows ---------------------------------------------------------------------------------
 * BlendMode.blendRow's formulas (mode 0 normal, 1 multiply, 2 screen, 3 overlay, 4 soft light),
 * their operations in the same order, eight samples a step with AVX2 (Swift's SIMD8 is two SSE
 * halves on the x86-64 baseline). The scalar loop finishes the row, and stands for it all on other
 * CPUs. */
static inline float rk_blend_one(float cb, float cs, int mode) {
    switch (mode) {
    case 0: return cs;
    case 1: return cb * cs;
    case 2: return cb + cs - cb * cs;
    case 3: {
        float b2 = 2 * cb - 1;
        return cb <= 0.5f ? cs * (2 * cb) : cs + b2 - cs * b2;
    }
    default: {
        if (cs <= 0.5f) return cb - (1 - 2 * cs) * cb * (1 - cb);
        float d = cb <= 0.25f ? ((16 * cb - 12) * cb + 4) * cb : __builtin_sqrtf(cb);
        return cb + (2 * cs - 1) * (d - cb);
    }
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static int rk_blend_avx2(const float *base, const float *top, float *out, int count, int mode, float opacity) {
    const __m256 o = _mm256_set1_ps(opacity), one = _mm256_set1_ps(1), two = _mm256_set1_ps(2), half = _mm256_set1_ps(0.5f);
    const __m256 quarter = _mm256_set1_ps(0.25f), c16 = _mm256_set1_ps(16), c12 = _mm256_set1_ps(12), c4 = _mm256_set1_ps(4);
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256 cb = _mm256_loadu_ps(base + i), cs = _mm256_loadu_ps(top + i), f;
        switch (mode) {
        case 0: f = cs; break;
        case 1: f = _mm256_mul_ps(cb, cs); break;
        case 2: f = _mm256_sub_ps(_mm256_add_ps(cb, cs), _mm256_mul_ps(cb, cs)); break;
        case 3: {
            __m256 dark = _mm256_mul_ps(cs, _mm256_mul_ps(two, cb));
            __m256 b2 = _mm256_sub_ps(_mm256_mul_ps(two, cb), one);
            __m256 light = _mm256_sub_ps(_mm256_add_ps(cs, b2), _mm256_mul_ps(cs, b2));
            f = _mm256_blendv_ps(light, dark, _mm256_cmp_ps(cb, half, _CMP_LE_OQ));
            break;
        }
        default: {
            __m256 poly = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(c16, cb), c12), cb), c4), cb);
            __m256 d = _mm256_blendv_ps(_mm256_sqrt_ps(cb), poly, _mm256_cmp_ps(cb, quarter, _CMP_LE_OQ));
            __m256 darken = _mm256_sub_ps(cb, _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(one, _mm256_mul_ps(two, cs)), cb), _mm256_sub_ps(one, cb)));
            __m256 light = _mm256_add_ps(cb, _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(two, cs), one), _mm256_sub_ps(d, cb)));
            f = _mm256_blendv_ps(light, darken, _mm256_cmp_ps(cs, half, _CMP_LE_OQ));
            break;
        }
        }
        _mm256_storeu_ps(out + i, _mm256_add_ps(cb, _mm256_mul_ps(o, _mm256_sub_ps(f, cb))));
    }
    return i;
}
#endif

void rk_blend_row(const float *base, const float *top, float *out, int count, int mode, float opacity) {
    int i = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) i = rk_blend_avx2(base, top, out, count, mode, opacity);
#endif
    for (; i < count; i++) {
        float cb = base[i];
        out[i] = cb + opacity * (rk_blend_one(cb, top[i], mode) - cb);
    }
}
