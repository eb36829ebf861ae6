/* What the kernel files of this target share (private: the API is include/CKernelsSIMD.h): the
 * headers, no contraction into fused multiply-adds, a channel table's geometry, the AVX2 check and
 * the 4-float vectors. Every .c file here includes it first, so the pragma below covers it. */
#ifndef RK_COMMON_H
#define RK_COMMON_H

#include "CKernelsSIMD.h"
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <math.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Multiplications and additions stay separate operations everywhere (no contraction into fused
 * multiply-adds, which arm64 compilers do by default): the kernels give the bytes Swift's
 * reference gives, on every CPU. Explicit FMA intrinsics are unaffected. The one exception by
 * design: a channel table's polynomials (rk_channel_fit_apply) run only where the CPU has AVX-512
 * VBMI, the table's lookups elsewhere; the two agree with the steps to 2e-6, so renders on the
 * two kinds of CPU may differ by 1 code on a few samples in 100,000 (each the same on any
 * thread count). */
#pragma STDC FP_CONTRACT OFF

/* The table's geometry, as ChannelTables.swift defines it: 512 nodes per octave (9 mantissa bits)
 * from 2^-30 to 16. */
#define RK_LOWEST_BITS 0x30800000u /* 2^-30 */
#define RK_HIGHEST_BITS 0x41800000u /* 16 */
#define RK_EXPONENT_BIAS (127 - 30)
#define RK_FRACTION_BITS (23 - RK_NODE_BITS)

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* A load and a test of what the runtime's start-up found (no state of our own to race on). */
static inline int rk_has_avx2(void) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

/* Four floats in one vector, with the compilers' vector extensions (SSE on x86-64, NEON on
 * arm64), and their unaligned loads: the rotation (Rotate.c) and the 3D LUT (LUT3D.c) use them. */
typedef float rk_v4 __attribute__((vector_size(16)));

static inline rk_v4 rk_load4(const unsigned char *p) {
    rk_v4 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

static inline rk_v4 rk_load3(const unsigned char *p) {
    float f[3];
    __builtin_memcpy(f, p, sizeof f);
    return (rk_v4){f[0], f[1], f[2], 0.0f};
}

/* Catmull-Rom (Keys a = −0.5) weights of the taps at −1, 0, 1, 2 for a sample at fraction t past
 * tap 0: the rotation (Rotate.c) and the lens warp (LensWarp.c). */
static inline void rk_cubic(float t, float w[4]) {
    float t2 = t * t;
    w[0] = ((-0.5f * t + 1.0f) * t - 0.5f) * t;
    w[1] = (1.5f * t - 2.5f) * t2 + 1.0f;
    w[2] = ((-1.5f * t + 2.0f) * t + 0.5f) * t;
    w[3] = (0.5f * t - 0.5f) * t2;
}

static inline int rk_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

#endif
