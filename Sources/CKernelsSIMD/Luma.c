/* The luma of three planes (BlurStage.swift): plain, AVX2. */
#include "Common.h"

/* ---- luma of three planes --------------------------------------------------------------------
 * 0.2126·r + 0.7152·g + 0.0722·b, products and sums in that order without fused multiply-adds:
 * the floats of the Swift expression it replaces (which the compiler left scalar). */
#define RK_LUMA_BODY                                                                                \
    for (int i = 0; i < count; i++) out[i] = 0.2126f * r[i] + 0.7152f * g[i] + 0.0722f * b[i];
static void rk_luma_plain(const float *r, const float *g, const float *b, float *out, int count) { RK_LUMA_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static void rk_luma_avx2(const float *restrict r, const float *restrict g, const float *restrict b, float *restrict out, int count) { RK_LUMA_BODY }
#endif

void rk_luma3f(const float *r, const float *g, const float *b, float *out, int count) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) { rk_luma_avx2(r, g, b, out, count); return; }
#endif
    rk_luma_plain(r, g, b, out, count);
}
