/* Float planes moved: plane to plane (PointProgram.swift), and planes to and from interleaved
 * float RGB (StraightenStep.swift, ResampleStep.swift): plain, AVX2. */
#include "Common.h"

/* ---- Planes to planes ---------------------------------------------------------------------------
 * A point pass's tile in and out of a row of float planes (float rows between stages are planar:
 * a row's r, g and b planes one after the other), and any three equally spaced planes: a loop
 * of vector moves, no call per plane for a tile's 256 bytes. */
typedef float rk_v8 __attribute__((vector_size(32), aligned(4)));

void rk_copy_planes(const float *from, ptrdiff_t from_stride, float *to, ptrdiff_t to_stride, int count) {
    for (int c = 0; c < 3; c++) {
        const float *s = from + c * from_stride;
        float *d = to + c * to_stride;
        int i = 0;
        for (; i + 8 <= count; i += 8) *(rk_v8 *)(d + i) = *(const rk_v8 *)(s + i);
        for (; i < count; i++) d[i] = s[i];
    }
}

/* ---- Planes <-> interleaved float RGB ---------------------------------------------------------
 * Plain loops the compiler turns into shuffles (Swift wrote a SIMD8's lanes out one by one: the
 * unsharp mask's and shadows-highlights' rows spent more on that than on their arithmetic). */
#define RK_INTERLEAVE_BODY                                                                          \
    for (int i = 0; i < count; i++) {                                                               \
        out[3 * i] = r[i];                                                                          \
        out[3 * i + 1] = g[i];                                                                      \
        out[3 * i + 2] = b[i];                                                                      \
    }
#define RK_DEINTERLEAVE_BODY                                                                        \
    for (int i = 0; i < count; i++) {                                                               \
        r[i] = in[3 * i];                                                                           \
        g[i] = in[3 * i + 1];                                                                       \
        b[i] = in[3 * i + 2];                                                                       \
    }
static void rk_interleave_plain(const float *r, const float *g, const float *b, float *out, int count) { RK_INTERLEAVE_BODY }
static void rk_deinterleave_plain(const float *in, float *r, float *g, float *b, int count) { RK_DEINTERLEAVE_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static void rk_interleave_avx2(const float *r, const float *g, const float *b, float *out, int count) { RK_INTERLEAVE_BODY }
__attribute__((target("avx2")))
static void rk_deinterleave_avx2(const float *in, float *r, float *g, float *b, int count) { RK_DEINTERLEAVE_BODY }
#endif

void rk_interleave3f(const float *r, const float *g, const float *b, float *out, int count) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) { rk_interleave_avx2(r, g, b, out, count); return; }
#endif
    rk_interleave_plain(r, g, b, out, count);
}

void rk_deinterleave3f(const float *in, float *r, float *g, float *b, int count) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) { rk_deinterleave_avx2(in, r, g, b, count); return; }
#endif
    rk_deinterleave_plain(in, r, g, b, count);
}
