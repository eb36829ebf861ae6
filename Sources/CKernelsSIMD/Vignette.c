/* A vignette's gains, and planes scaled by a gain a pixel (PointProgram.swift): plain, AVX2. */
#include "Common.h"

/* ---- a vignette's gains ----------------------------------------------------------------------
 * k = 1 − amount·smoothstep(inner, outer, d), d = √((x + ½ − cx)² + dy2)·scale for the `count`
 * pixels from column x0: the operations of FastMath.smoothstep and the vignette step's Swift
 * loop, in their order and without fused multiply-adds, so either gives the same floats. */
static inline float rk_vignette_one(float px, float dy2, float cx, float scale, float inner, float outer, float amount) {
    float dx = px - cx;
    float d = sqrtf(dx * dx + dy2) * scale;
    float m;
    if (outer > inner) {
        float t = (d - inner) / (outer - inner);
        t = t > 0 ? t : 0;
        t = t > 1 ? 1 : t;
        m = t * t * (3 - 2 * t);
    } else {
        m = d >= outer ? 1 : 0;
    }
    return 1 - amount * m;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static int rk_vignette_gains_avx2(float *out, int count, int x0, float dy2, float cx, float scale, float inner, float outer, float amount) {
    if (!(outer > inner)) return 0;
    const __m256 lanes = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    const __m256 vcx = _mm256_set1_ps(cx), vdy2 = _mm256_set1_ps(dy2), vscale = _mm256_set1_ps(scale);
    const __m256 vinner = _mm256_set1_ps(inner), span = _mm256_set1_ps(outer - inner), vamount = _mm256_set1_ps(amount);
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256 px = _mm256_add_ps(lanes, _mm256_set1_ps((float)(x0 + i) + 0.5f));
        __m256 dx = _mm256_sub_ps(px, vcx);
        __m256 d = _mm256_mul_ps(_mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), vdy2)), vscale);
        __m256 t = _mm256_div_ps(_mm256_sub_ps(d, vinner), span);
        t = _mm256_and_ps(t, _mm256_cmp_ps(t, zero, _CMP_GT_OQ));      /* 0 where not > 0, NaN too */
        t = _mm256_blendv_ps(t, one, _mm256_cmp_ps(t, one, _CMP_GT_OQ));
        __m256 m = _mm256_mul_ps(_mm256_mul_ps(t, t), _mm256_sub_ps(_mm256_set1_ps(3.0f), _mm256_mul_ps(_mm256_set1_ps(2.0f), t)));
        _mm256_storeu_ps(out + i, _mm256_sub_ps(one, _mm256_mul_ps(vamount, m)));
    }
    return i;
}
#endif

void rk_vignette_gains(float *out, int count, int x0, float dy2, float cx, float scale, float inner, float outer, float amount) {
    int i = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) i = rk_vignette_gains_avx2(out, count, x0, dy2, cx, scale, inner, outer, amount);
#endif
    for (; i < count; i++) out[i] = rk_vignette_one((float)(x0 + i) + 0.5f, dy2, cx, scale, inner, outer, amount);
}

/* r, g and b times the pixel's gain. */
void rk_scale_planes(float *r, float *g, float *b, const float *gain, int count) {
    for (int i = 0; i < count; i++) {
        r[i] *= gain[i];
        g[i] *= gain[i];
        b[i] *= gain[i];
    }
}
