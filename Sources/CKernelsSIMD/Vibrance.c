/* Vibrance on a point pass's planes (PointProgram.swift): plain, AVX2. */
#include "Common.h"

/* ---- vibrance (glfx.js) ----------------------------------------------------------------------
 * t = (max − mean)·(−3·amount); each channel + (max − channel)·t: PointProgram's Swift loop's
 * operations in its order (max as Swift's y >= x ? y : x), without fused multiply-adds. */
#define RK_VIBRANCE_BODY                                                                            \
    const float k = -3 * amount;                                                                    \
    for (int i = 0; i < count; i++) {                                                               \
        float x = r[i], y = g[i], z = b[i];                                                         \
        float m = y >= x ? y : x;                                                                   \
        m = z >= m ? z : m;                                                                         \
        float t = (m - (x + y + z) * (1.0f / 3)) * k;                                               \
        r[i] = x + (m - x) * t;                                                                     \
        g[i] = y + (m - y) * t;                                                                     \
        b[i] = z + (m - z) * t;                                                                     \
    }
static void rk_vibrance_plain(float *r, float *g, float *b, int count, float amount) { RK_VIBRANCE_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static void rk_vibrance_avx2(float *restrict r, float *restrict g, float *restrict b, int count, float amount) { RK_VIBRANCE_BODY }
#endif

void rk_vibrance(float *r, float *g, float *b, int count, float amount) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) { rk_vibrance_avx2(r, g, b, count, amount); return; }
#endif
    rk_vibrance_plain(r, g, b, count, amount);
}
