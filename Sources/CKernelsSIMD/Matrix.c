/* A 3x4 matrix over a point pass's planes (PointProgram.swift, ChannelTables.swift): plain,
 * AVX2, AVX-512. */
#include "Common.h"

/* ---- A 3x4 matrix over a point pass's planes ------------------------------------------------
 * out = m·rgb + bias, each row evaluated as ((m0·r + m1·g) + m2·b) + m3, as PointProgram's Swift
 * loop did (the same bytes); eight lanes a step where the CPU has AVX2 (Swift's SIMD8 is two SSE
 * halves on the x86-64 baseline). */
#define RK_MATRIX_BODY                                                                              \
    float *r = planes, *g = planes + tile, *b = planes + 2 * (ptrdiff_t)tile;                     \
    for (int i = 0; i < count; i++) {                                                               \
        float x = r[i], y = g[i], z = b[i];                                                         \
        r[i] = m[0] * x + m[1] * y + m[2] * z + m[3];                                               \
        g[i] = m[4] * x + m[5] * y + m[6] * z + m[7];                                               \
        b[i] = m[8] * x + m[9] * y + m[10] * z + m[11];                                             \
    }

static void rk_matrix_plain(float *planes, int tile, int count, const float *m) { RK_MATRIX_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static void rk_matrix_avx2(float *planes, int tile, int count, const float *m) { RK_MATRIX_BODY }
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* Sixteen lanes where the CPU has AVX-512: the body's multiplications and additions in its order
 * ((m0·x + m1·y) + m2·z) + m3, none fused, so the same floats; the last lanes under 16 as above. */
__attribute__((target("avx512f")))
static void rk_matrix_avx512(float *planes, int tile, int count, const float *m) {
    float *r = planes, *g = planes + tile, *b = planes + 2 * (ptrdiff_t)tile;
    __m512 c[12];
    for (int j = 0; j < 12; j++) c[j] = _mm512_set1_ps(m[j]);
    int i = 0;
    for (; i + 16 <= count; i += 16) {
        __m512 x = _mm512_loadu_ps(r + i), y = _mm512_loadu_ps(g + i), z = _mm512_loadu_ps(b + i);
        for (int row = 0; row < 3; row++) {
            const __m512 *k = c + 4 * row;
            __m512 v = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(k[0], x), _mm512_mul_ps(k[1], y)), _mm512_mul_ps(k[2], z)), k[3]);
            _mm512_storeu_ps((row == 0 ? r : row == 1 ? g : b) + i, v);
        }
    }
    if (i < count) rk_matrix_avx2(planes + i, tile, count - i, m);
}
#endif

void rk_matrix_planes(float *planes, int tile, int count, const float *m) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx512f")) { rk_matrix_avx512(planes, tile, count, m); return; }
    if (__builtin_cpu_supports("avx2")) { rk_matrix_avx2(planes, tile, count, m); return; }
#endif
    rk_matrix_plain(planes, tile, count, m);
}
