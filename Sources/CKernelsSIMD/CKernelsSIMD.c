#include "CKernelsSIMD.h"
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <math.h>
#include <pthread.h>

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

static inline int rk_scalar_one(const float *half, int entries, float *v, uint8_t *outside) {
    uint32_t raw;
    memcpy(&raw, v, 4);
    uint32_t bits = raw & 0x7FFFFFFFu;
    const float *t = half + ((raw >> 31) ? 2 * entries : 0);
    if (bits >= RK_LOWEST_BITS && bits < RK_HIGHEST_BITS) {
        uint32_t i = ((((bits >> 23) - RK_EXPONENT_BIAS) << RK_NODE_BITS) | ((bits >> RK_FRACTION_BITS) & ((1u << RK_NODE_BITS) - 1))) + 1;
        float fraction = (float)(bits & ((1u << RK_FRACTION_BITS) - 1)) * (1.0f / (float)(1u << RK_FRACTION_BITS));
        *v = t[2 * i] + t[2 * i + 1] * fraction;
        *outside = 0;
        return 0;
    }
    if (bits == 0) {
        *v = t[0];
        *outside = 0;
        return 0;
    }
    *outside = 1;
    return 1;
}

static int rk_apply_scalar(const float *half, int entries, float *plane, int count, uint8_t *outside) {
    int left = 0;
    for (int k = 0; k < count; k++) left += rk_scalar_one(half, entries, plane + k, outside + k);
    return left;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2,fma")))
static int rk_apply_avx2(const float *half, int entries, float *plane, int count, uint8_t *outside) {
    const __m256i absMask = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i lowest = _mm256_set1_epi32((int)RK_LOWEST_BITS - 1);
    const __m256i highest = _mm256_set1_epi32((int)RK_HIGHEST_BITS);
    const __m256i bias = _mm256_set1_epi32(RK_EXPONENT_BIAS);
    const __m256i nodeMask = _mm256_set1_epi32((1 << RK_NODE_BITS) - 1);
    const __m256i fracMask = _mm256_set1_epi32((1 << RK_FRACTION_BITS) - 1);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i oneBits = _mm256_set1_epi32(0x3F800000);
    const __m256i negHalf = _mm256_set1_epi32(entries);
    const __m256 onef = _mm256_set1_ps(1.0f);
    int left = 0, k = 0;
    for (; k + 8 <= count; k += 8) {
        __m256i raw = _mm256_loadu_si256((const __m256i *)(plane + k));
        __m256i bits = _mm256_and_si256(raw, absMask);
        /* Magnitudes as bit patterns compare as unsigned ints do; all are below 2^31 here. */
        __m256i inside = _mm256_and_si256(_mm256_cmpgt_epi32(bits, lowest), _mm256_cmpgt_epi32(highest, bits));
        __m256i zero = _mm256_cmpeq_epi32(bits, _mm256_setzero_si256());
        __m256i sign = _mm256_and_si256(_mm256_srai_epi32(raw, 31), negHalf);
        __m256i node = _mm256_or_si256(
            _mm256_slli_epi32(_mm256_sub_epi32(_mm256_srli_epi32(bits, 23), bias), RK_NODE_BITS),
            _mm256_and_si256(_mm256_srli_epi32(bits, RK_FRACTION_BITS), nodeMask));
        /* Inside: node + 1; zero: entry 0; other lanes read entry 0 and are put back below. */
        __m256i index = _mm256_add_epi32(_mm256_and_si256(_mm256_add_epi32(node, one), inside), sign);
        __m256 fraction = _mm256_sub_ps(
            _mm256_castsi256_ps(_mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(bits, fracMask), RK_NODE_BITS), oneBits)), onef);
        fraction = _mm256_and_ps(fraction, _mm256_castsi256_ps(inside));
        /* One 64-bit gather per four lanes fetches each cell's value and step (AMD's gathers cost
         * by the element: pairs halve them). Then [v0 d0 v1 d1 v2 d2 v3 d3], [v4 d4 … v7 d7]
         * are split into values and steps, back in lane order. */
        const long long *pairs = (const long long *)half;
        __m256 p0 = _mm256_castsi256_ps(_mm256_i32gather_epi64(pairs, _mm256_castsi256_si128(index), 8));
        __m256 p1 = _mm256_castsi256_ps(_mm256_i32gather_epi64(pairs, _mm256_extracti128_si256(index, 1), 8));
        __m256 low = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(p0, p1, 0x88)), 0xD8));
        __m256 step = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(p0, p1, 0xDD)), 0xD8));
        __m256 out = _mm256_fmadd_ps(step, fraction, low);
        __m256i used = _mm256_or_si256(inside, zero);
        out = _mm256_blendv_ps(_mm256_castsi256_ps(raw), out, _mm256_castsi256_ps(used));
        _mm256_storeu_ps(plane + k, out);
        int usedBits = _mm256_movemask_ps(_mm256_castsi256_ps(used));
        if (usedBits == 0xFF) {
            memset(outside + k, 0, 8);
        } else {
            for (int j = 0; j < 8; j++) {
                outside[k + j] = (usedBits >> j) & 1 ? 0 : 1;
                left += outside[k + j];
            }
        }
    }
    return left + rk_apply_scalar(half, entries, plane + k, count - k, outside + k);
}

/* A load and a test of what the runtime's start-up found (no state of our own to race on). */
static int rk_has_avx2(void) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

int rk_channel_table_apply(const float *half, int entries, float *plane, int count, uint8_t *outside) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) return rk_apply_avx2(half, entries, plane, count, outside);
#endif
    return rk_apply_scalar(half, entries, plane, count, outside);
}

/* ---- A channel's table as polynomials (ChannelFit.swift) ------------------------------------
 * On these Zen 4 machines a gathered element costs about as much as a whole curve: the lookups
 * above spend 0.7 ns a value, most of it in the gathers. Where the CPU has AVX-512 VBMI, the
 * values in [2^-14, 4) go through up to 32 degree-5 polynomials instead, kept in registers and
 * picked by permutes, with no memory access a value: the octave and the top three mantissa bits
 * name one of 128 cells, a byte permute maps the cell to its polynomial (or to 255: the table),
 * a second polynomial takes over from a split point within the cell (a kink of the curve: the
 * sRGB toe, a levels point), and the mantissa mapped onto [-1, 1] runs through Horner's rule.
 * ChannelFit checked each polynomial against the steps in double precision to 1e-6 of the value
 * (plus 1e-9) when it was made; lanes anywhere else (negative, tiny, 4 and up, a cell without a
 * polynomial) take the table's lookup here, by masked gathers. In a microbenchmark on the P3
 * chain's contrast run (72 M values from photo24, L1-resident rows) 34 ms against 53 ms. The
 * loop calls nothing (a byte-masked store zeroes a step's flags, not memset): a call in it made
 * the compiler save the 20-odd coefficient and constant registers on every entry, for a tile of
 * 256 values (the P3 chain's fits 48 -> 43 ms of CPU in perf, 10 alternating runs). */
/* One step of rk_apply_fit_avx512 at k: sixteen lanes (FULL) or the last count - k under 16,
 * through a mask; FULL is a constant, so each use compiles without the other's branches. */
#define RK_FIT_STEP(FULL)                                                                           \
    __mmask16 live = FULL ? (__mmask16)0xFFFF : (__mmask16)((1u << (count - k)) - 1);               \
    __m512i raw = FULL ? _mm512_loadu_si512((const void *)(plane + k)) : _mm512_maskz_loadu_epi32(live, (const void *)(plane + k)); \
    /* Sign, exponent and three mantissa bits, less the first cell's: below 128 for positive        \
     * values in [2^-14, 4) (a negative value's sign bit puts it far above). */                     \
    __m512i cell = _mm512_sub_epi32(_mm512_srli_epi32(raw, 20), firstCell);                         \
    __mmask16 fitted = _mm512_cmplt_epu32_mask(cell, cellCount);                                    \
    __m512i poly = _mm512_and_si512(_mm512_permutex2var_epi8(cellsLo, cell, cellsHi), byteMask);    \
    fitted &= _mm512_cmplt_epu32_mask(poly, polyCount);                                             \
    fitted |= (__mmask16)~live; /* lanes past the count: nothing to look up, nothing stored */      \
    __m512 m = _mm512_castsi512_ps(_mm512_or_si512(_mm512_and_si512(raw, mantissa), oneBits));      \
    poly = _mm512_mask_add_epi32(poly, _mm512_cmp_ps_mask(m, _mm512_permutex2var_ps(splitLo, poly, splitHi), _CMP_GE_OQ), poly, onei); \
    __m512 t = _mm512_fmadd_ps(m, _mm512_permutex2var_ps(scaleLo, poly, scaleHi), _mm512_permutex2var_ps(offsetLo, poly, offsetHi)); \
    __m512 p = _mm512_permutex2var_ps(lo[RK_FIT_DEGREE], poly, hi[RK_FIT_DEGREE]);                  \
    for (int i = RK_FIT_DEGREE - 1; i >= 0; i--) p = _mm512_fmadd_ps(p, t, _mm512_permutex2var_ps(lo[i], poly, hi[i])); \
    if (fitted != 0xFFFF) {                                                                         \
        __m512i bits = _mm512_and_si512(raw, absMask);                                              \
        __mmask16 inside = _mm512_cmpge_epu32_mask(bits, lowest) & _mm512_cmplt_epu32_mask(bits, highest); \
        __mmask16 zero = _mm512_testn_epi32_mask(bits, bits);                                       \
        __m512i node = _mm512_add_epi32(_mm512_slli_epi32(_mm512_sub_epi32(_mm512_srli_epi32(bits, 23), bias), RK_NODE_BITS), \
                                        _mm512_add_epi32(_mm512_and_si512(_mm512_srli_epi32(bits, RK_FRACTION_BITS), nodeMask), onei)); \
        /* Inside: node + 1; zero: entry 0; negative values from the second half. */                \
        __m512i index = _mm512_maskz_mov_epi32(inside, node);                                       \
        index = _mm512_mask_add_epi32(index, _mm512_movepi32_mask(raw), index, negHalf);            \
        __m512 fraction = _mm512_maskz_sub_ps(inside, _mm512_castsi512_ps(_mm512_or_si512(          \
            _mm512_slli_epi32(_mm512_and_si512(bits, fracMask), RK_NODE_BITS), oneBits)), onef);    \
        __mmask16 need = (__mmask16)~fitted;                                                        \
        __m512 p0 = _mm512_castsi512_ps(_mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)need, \
                                                                    _mm512_castsi512_si256(index), pairs, 8)); \
        __m512 p1 = _mm512_castsi512_ps(_mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)(need >> 8), \
                                                                    _mm512_extracti64x4_epi64(index, 1), pairs, 8)); \
        __m512 looked = _mm512_fmadd_ps(_mm512_permutex2var_ps(p0, odds, p1), fraction, _mm512_permutex2var_ps(p0, evens, p1)); \
        __mmask16 used = inside | zero;                                                             \
        looked = _mm512_mask_blend_ps(used, _mm512_castsi512_ps(raw), looked);                      \
        p = _mm512_mask_blend_ps(fitted, looked, p);                                                \
        __mmask16 done = used | fitted;                                                             \
        if (done != 0xFFFF) {                                                                       \
            for (int j = 0; j < 16 && k + j < count; j++) {                                         \
                int off = !((done >> j) & 1);                                                       \
                outside[k + j] = (uint8_t)off;                                                      \
                left += off;                                                                        \
            }                                                                                       \
        } else {                                                                                    \
            _mm_mask_storeu_epi8(outside + k, live, _mm_setzero_si128());                           \
        }                                                                                           \
    } else {                                                                                        \
        _mm_mask_storeu_epi8(outside + k, live, _mm_setzero_si128());                               \
    }                                                                                               \
    if (FULL) _mm512_storeu_ps(plane + k, p); else _mm512_mask_storeu_ps(plane + k, live, p);

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi,fma")))
/* `planes` planes `tile` floats apart through the same fit, each of `count` values; their flags
 * `count` bytes apart in `outsides`. Several planes a call (a fit the three channels share) load
 * the coefficients and constants once: 5% less time a value on a tile's three planes. */
static int rk_apply_fit_avx512(const float *half, int entries, const float *fit, float *planes, int tile, int nplanes, int count,
                               uint8_t *outsides) {
    __m512 lo[RK_FIT_DEGREE + 1], hi[RK_FIT_DEGREE + 1];
    for (int i = 0; i <= RK_FIT_DEGREE; i++) {
        lo[i] = _mm512_loadu_ps(fit + RK_FIT_POLYS * i);
        hi[i] = _mm512_loadu_ps(fit + RK_FIT_POLYS * i + 16);
    }
    const float *scale = fit + RK_FIT_SCALE, *offset = fit + RK_FIT_OFFSET, *split = fit + RK_FIT_SPLIT;
    const __m512 scaleLo = _mm512_loadu_ps(scale), scaleHi = _mm512_loadu_ps(scale + 16);
    const __m512 offsetLo = _mm512_loadu_ps(offset), offsetHi = _mm512_loadu_ps(offset + 16);
    const __m512 splitLo = _mm512_loadu_ps(split), splitHi = _mm512_loadu_ps(split + 16);
    const uint8_t *cells = (const uint8_t *)(fit + RK_FIT_CELLS);
    const __m512i cellsLo = _mm512_loadu_si512(cells), cellsHi = _mm512_loadu_si512(cells + 64);
    const __m512i firstCell = _mm512_set1_epi32((127 + RK_FIT_LOWEST_EXPONENT) << 3);
    const __m512i cellCount = _mm512_set1_epi32(RK_FIT_CELL_COUNT), polyCount = _mm512_set1_epi32(RK_FIT_POLYS);
    const __m512i mantissa = _mm512_set1_epi32(0x007FFFFF), oneBits = _mm512_set1_epi32(0x3F800000);
    const __m512i byteMask = _mm512_set1_epi32(0xFF), onei = _mm512_set1_epi32(1);
    /* The table's lookup for the lanes the polynomials leave: rk_apply_avx2's steps, 16 lanes. */
    const __m512i absMask = _mm512_set1_epi32(0x7FFFFFFF);
    const __m512i lowest = _mm512_set1_epi32((int)RK_LOWEST_BITS), highest = _mm512_set1_epi32((int)RK_HIGHEST_BITS);
    const __m512i bias = _mm512_set1_epi32(RK_EXPONENT_BIAS), nodeMask = _mm512_set1_epi32((1 << RK_NODE_BITS) - 1);
    const __m512i fracMask = _mm512_set1_epi32((1 << RK_FRACTION_BITS) - 1), negHalf = _mm512_set1_epi32(entries);
    const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odds = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    const __m512 onef = _mm512_set1_ps(1.0f);
    const long long *pairs = (const long long *)half;
    int left = 0;
    /* Sixteen lanes a step; the last step takes the lanes left (under 16) through a mask, so a
     * value gets the same float wherever it sits in the row. */
    for (int c = 0; c < nplanes; c++) {
        float *plane = planes + (ptrdiff_t)c * tile;
        uint8_t *outside = outsides + (ptrdiff_t)c * count;
        for (int k = 0; k < count; k += 16) {
            if (count - k >= 16) {
                RK_FIT_STEP(1)
            } else {
                RK_FIT_STEP(0)
            }
        }
    }
    return left;
}
#endif

int rk_channel_fit_supported(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

int rk_channel_fit_apply(const float *half, int entries, const float *fit, float *plane, int count, uint8_t *outside) {
    return rk_channel_fit_apply_planes(half, entries, fit, plane, count, 1, count, outside);
}

int rk_channel_fit_apply_planes(const float *half, int entries, const float *fit, float *planes, int tile, int nplanes, int count,
                                uint8_t *outside) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (fit && rk_channel_fit_supported()) return rk_apply_fit_avx512(half, entries, fit, planes, tile, nplanes, count, outside);
#endif
    int left = 0;
    for (int c = 0; c < nplanes; c++)
        left += rk_channel_table_apply(half, entries, planes + (ptrdiff_t)c * tile, count, outside + (ptrdiff_t)c * count);
    return left;
}

/* ---- Bicubic rotation (straighten) ---------------------------------------------------------
 *
 * Written with the compilers' vector extensions, not intrinsics: 4-float vectors are SSE on
 * x86-64 and NEON on arm64. Swift's SIMD4 version of this loop spilled its 16 taps and weights
 * to the stack and rebuilt each broadcast weight from memory (20 ns a pixel on photo24's
 * straighten); here they stay in registers. The same multiplications and additions run in the
 * same order as the Swift reference did, with no fused multiply-add, so every CPU (and the AVX
 * build, which only gains 3-operand instructions) gives the same bytes. */
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

static inline void rk_cubic(float t, float w[4]) {
    float t2 = t * t;
    w[0] = ((-0.5f * t + 1.0f) * t - 0.5f) * t;
    w[1] = (1.5f * t - 2.5f) * t2 + 1.0f;
    w[2] = ((-1.5f * t + 2.0f) * t + 0.5f) * t;
    w[3] = (0.5f * t - 0.5f) * t2;
}

static inline int rk_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

#define RK_ROTATE_BODY                                                                              \
    const unsigned char *src = (const unsigned char *)image;                                        \
    int ring = ring_rows < height ? ring_rows : 0;                                                  \
    double max_x = (double)width - 0.5, max_y = (double)height - 0.5;                               \
    double hi_x = (double)width, hi_y = (double)height;                                             \
    int last_x = width - 1, last_y = height - 1;                                                    \
    ptrdiff_t off[4] = {0, 0, 0, 0};                                                                \
    long cy = LONG_MIN;                                                                             \
    for (int j = 0; j < count; j++) {                                                               \
        double x = start_x + (double)j * step_x, y = start_y + (double)j * step_y;                  \
        float *o = out + 3 * (ptrdiff_t)j;                                                          \
        if (black_outside && !(x >= -0.5 && x <= max_x && y >= -0.5 && y <= max_y)) {              \
            o[0] = 0; o[1] = 0; o[2] = 0;                                                           \
            continue;                                                                               \
        }                                                                                           \
        double px = x < -1 ? -1 : x > hi_x ? hi_x : x;                                              \
        double py = y < -1 ? -1 : y > hi_y ? hi_y : y;                                              \
        int ix = (int)(px + 1) - 1, iy = (int)(py + 1) - 1;                                         \
        if (iy != cy) {                                                                             \
            for (int r = 0; r < 4; r++) {                                                           \
                int row = rk_clampi(iy - 1 + r, 0, last_y);                                         \
                off[r] = (ptrdiff_t)(ring ? row % ring : row) * row_stride;                         \
            }                                                                                       \
            cy = iy;                                                                                \
        }                                                                                           \
        float wx[4], wy[4];                                                                         \
        rk_cubic((float)(px - (double)ix), wx);                                                     \
        rk_cubic((float)(py - (double)iy), wy);                                                     \
        rk_v4 acc = {0, 0, 0, 0};                                                                   \
        if (ix >= 1 && ix + 2 < last_x) {                                                           \
            ptrdiff_t c = 12 * (ptrdiff_t)(ix - 1);                                                 \
            for (int r = 0; r < 4; r++) {                                                           \
                const unsigned char *p = src + off[r] + c;                                          \
                rk_v4 h = rk_load4(p) * wx[0];                                                      \
                h += rk_load4(p + 12) * wx[1];                                                      \
                h += rk_load4(p + 24) * wx[2];                                                      \
                h += rk_load4(p + 36) * wx[3];                                                      \
                acc += h * wy[r];                                                                   \
            }                                                                                       \
        } else {                                                                                    \
            ptrdiff_t c[4];                                                                         \
            for (int k = 0; k < 4; k++) c[k] = 12 * (ptrdiff_t)rk_clampi(ix - 1 + k, 0, last_x);    \
            for (int r = 0; r < 4; r++) {                                                           \
                const unsigned char *p = src + off[r];                                              \
                rk_v4 h = rk_load3(p + c[0]) * wx[0];                                               \
                h += rk_load3(p + c[1]) * wx[1];                                                    \
                h += rk_load3(p + c[2]) * wx[2];                                                    \
                h += rk_load3(p + c[3]) * wx[3];                                                    \
                acc += h * wy[r];                                                                   \
            }                                                                                       \
        }                                                                                           \
        o[0] = acc[0]; o[1] = acc[1]; o[2] = acc[2];                                                \
    }

#define RK_ROTATE_PARAMS                                                                            \
    const void *image, ptrdiff_t row_stride, int width, int height, int ring_rows, double start_x,  \
    double start_y, double step_x, double step_y, int count, int black_outside, float *out

static void rk_rotate_row_plain(RK_ROTATE_PARAMS) { RK_ROTATE_BODY }

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* AVX2 without FMA: two pixels a 256-bit vector (one in each half), each with the operations of
 * RK_ROTATE_BODY in their order, so the same floats; pixels whose taps cross the edge or whose
 * pair straddles a row go one at a time. 13 ns a pixel against 16.5 for the body above compiled
 * for AVX2 (photo24's square-crop straighten, one core). */
/* One pixel's position, taps and weights, as RK_ROTATE_BODY computes them. */
typedef struct { int inside; int ix, iy; float wx[4], wy[4]; double px, py; } rk_tap;

static inline void rk_where(double x, double y, double max_x, double max_y, double hi_x, double hi_y, int black_outside, rk_tap *t) {
    if (black_outside && !(x >= -0.5 && x <= max_x && y >= -0.5 && y <= max_y)) { t->inside = 0; return; }
    t->inside = 1;
    double px = x < -1 ? -1 : x > hi_x ? hi_x : x;
    double py = y < -1 ? -1 : y > hi_y ? hi_y : y;
    t->ix = (int)(px + 1) - 1; t->iy = (int)(py + 1) - 1;
    rk_cubic((float)(px - (double)t->ix), t->wx);
    rk_cubic((float)(py - (double)t->iy), t->wy);
}

/* Pixels `first` up to `end` of the row (each at its own j, so a span gives the whole row's floats). */
__attribute__((target("avx2")))
static void rk_rotate_span_avx2(const void *image, ptrdiff_t row_stride, int width, int height, int ring_rows, double start_x,
                   double start_y, double step_x, double step_y, int first, int end, int black_outside, float *out) {
    const unsigned char *src = (const unsigned char *)image;
    int ring = ring_rows < height ? ring_rows : 0;
    double max_x = (double)width - 0.5, max_y = (double)height - 0.5;
    double hi_x = (double)width, hi_y = (double)height;
    int last_x = width - 1, last_y = height - 1;
    int j = first;
    for (; j + 2 <= end; j += 2) {
        rk_tap a, b;
        rk_where(start_x + (double)j * step_x, start_y + (double)j * step_y, max_x, max_y, hi_x, hi_y, black_outside, &a);
        rk_where(start_x + (double)(j + 1) * step_x, start_y + (double)(j + 1) * step_y, max_x, max_y, hi_x, hi_y, black_outside, &b);
        float *o = out + 3 * (ptrdiff_t)j;
        /* Both inside the interior and on the same rows: two pixels a 256-bit vector. */
        if (a.inside && b.inside && a.iy == b.iy && a.ix >= 1 && a.ix + 2 < last_x && b.ix >= 1 && b.ix + 2 < last_x) {
            const unsigned char *pa = src + 12 * (ptrdiff_t)(a.ix - 1), *pb = src + 12 * (ptrdiff_t)(b.ix - 1);
            __m256 acc = _mm256_setzero_ps();
            for (int r = 0; r < 4; r++) {
                int row = rk_clampi(a.iy - 1 + r, 0, last_y);
                ptrdiff_t off = (ptrdiff_t)(ring ? row % ring : row) * row_stride;
                const unsigned char *qa = pa + off, *qb = pb + off;
                __m256 w0 = _mm256_set_m128(_mm_set1_ps(b.wx[0]), _mm_set1_ps(a.wx[0]));
                __m256 w1 = _mm256_set_m128(_mm_set1_ps(b.wx[1]), _mm_set1_ps(a.wx[1]));
                __m256 w2 = _mm256_set_m128(_mm_set1_ps(b.wx[2]), _mm_set1_ps(a.wx[2]));
                __m256 w3 = _mm256_set_m128(_mm_set1_ps(b.wx[3]), _mm_set1_ps(a.wx[3]));
                __m256 h = _mm256_mul_ps(_mm256_loadu2_m128((const float *)qb, (const float *)qa), w0);
                h = _mm256_add_ps(h, _mm256_mul_ps(_mm256_loadu2_m128((const float *)(qb + 12), (const float *)(qa + 12)), w1));
                h = _mm256_add_ps(h, _mm256_mul_ps(_mm256_loadu2_m128((const float *)(qb + 24), (const float *)(qa + 24)), w2));
                h = _mm256_add_ps(h, _mm256_mul_ps(_mm256_loadu2_m128((const float *)(qb + 36), (const float *)(qa + 36)), w3));
                __m256 wy = _mm256_set_m128(_mm_set1_ps(b.wy[r]), _mm_set1_ps(a.wy[r]));
                acc = _mm256_add_ps(acc, _mm256_mul_ps(h, wy));
            }
            float v[8];
            _mm256_storeu_ps(v, acc);
            o[0] = v[0]; o[1] = v[1]; o[2] = v[2]; o[3] = v[4]; o[4] = v[5]; o[5] = v[6];
            continue;
        }
        /* Otherwise each pixel the general way. */
        rk_tap *ts[2] = {&a, &b};
        for (int k = 0; k < 2; k++) {
            rk_tap *t = ts[k];
            float *p3 = o + 3 * k;
            if (!t->inside) { p3[0] = 0; p3[1] = 0; p3[2] = 0; continue; }
            ptrdiff_t off[4];
            for (int r = 0; r < 4; r++) { int row = rk_clampi(t->iy - 1 + r, 0, last_y); off[r] = (ptrdiff_t)(ring ? row % ring : row) * row_stride; }
            __m128 acc = _mm_setzero_ps();
            ptrdiff_t c[4];
            for (int q = 0; q < 4; q++) c[q] = 12 * (ptrdiff_t)rk_clampi(t->ix - 1 + q, 0, last_x);
            for (int r = 0; r < 4; r++) {
                const unsigned char *p = src + off[r];
                float f[4][4];
                for (int q = 0; q < 4; q++) { memcpy(f[q], p + c[q], 12); f[q][3] = 0; }
                __m128 h = _mm_mul_ps(_mm_loadu_ps(f[0]), _mm_set1_ps(t->wx[0]));
                h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[1]), _mm_set1_ps(t->wx[1])));
                h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[2]), _mm_set1_ps(t->wx[2])));
                h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[3]), _mm_set1_ps(t->wx[3])));
                acc = _mm_add_ps(acc, _mm_mul_ps(h, _mm_set1_ps(t->wy[r])));
            }
            float v[4];
            _mm_storeu_ps(v, acc);
            p3[0] = v[0]; p3[1] = v[1]; p3[2] = v[2];
        }
    }
    if (j < end) {
        /* the odd last pixel */
        rk_tap a;
        rk_where(start_x + (double)j * step_x, start_y + (double)j * step_y, max_x, max_y, hi_x, hi_y, black_outside, &a);
        float *p3 = out + 3 * (ptrdiff_t)j;
        if (!a.inside) { p3[0] = 0; p3[1] = 0; p3[2] = 0; return; }
        ptrdiff_t off[4], c[4];
        for (int r = 0; r < 4; r++) { int row = rk_clampi(a.iy - 1 + r, 0, last_y); off[r] = (ptrdiff_t)(ring ? row % ring : row) * row_stride; }
        for (int q = 0; q < 4; q++) c[q] = 12 * (ptrdiff_t)rk_clampi(a.ix - 1 + q, 0, last_x);
        __m128 acc = _mm_setzero_ps();
        for (int r = 0; r < 4; r++) {
            const unsigned char *p = src + off[r];
            float f[4][4];
            for (int q = 0; q < 4; q++) { memcpy(f[q], p + c[q], 12); f[q][3] = 0; }
            __m128 h = _mm_mul_ps(_mm_loadu_ps(f[0]), _mm_set1_ps(a.wx[0]));
            h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[1]), _mm_set1_ps(a.wx[1])));
            h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[2]), _mm_set1_ps(a.wx[2])));
            h = _mm_add_ps(h, _mm_mul_ps(_mm_loadu_ps(f[3]), _mm_set1_ps(a.wx[3])));
            acc = _mm_add_ps(acc, _mm_mul_ps(h, _mm_set1_ps(a.wy[r])));
        }
        float v[4];
        _mm_storeu_ps(v, acc);
        p3[0] = v[0]; p3[1] = v[1]; p3[2] = v[2];
    }
}

__attribute__((target("avx2")))
static void rk_rotate_row_avx2(RK_ROTATE_PARAMS) {
    rk_rotate_span_avx2(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, 0, count,
                        black_outside, out);
}

/* rk_cubic on sixteen lanes, with its operations in its order. */
typedef struct { __m512 w[4]; } rk_cubic16;

__attribute__((target("avx512f"), always_inline))
static inline rk_cubic16 rk_cubic_avx512(__m512 t) {
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
    __m512 t2 = _mm512_mul_ps(t, t);
    rk_cubic16 c;
    c.w[0] = _mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), t), one), t), half), t);
    c.w[1] = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(1.5f), t), _mm512_set1_ps(2.5f)), t2), one);
    c.w[2] = _mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(-1.5f), t), _mm512_set1_ps(2.0f)), t), half), t);
    c.w[3] = _mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(half, t), half), t2);
    return c;
}

/* A group's window: the four taps' window pixels a lane, the load masks of its up to 96 floats,
 * whether it holds more than 16 pixels. */
typedef struct { __m512i tap[4]; __mmask16 load[6]; int wide; } rk_window;

/* One source row's horizontal sums of a group, per channel: the window from `p` split into its
 * channels (float 3p + c is pixel p's channel c; the low five bits of an index pick from two
 * registers, floats 32 on from the third), each tap a permute of it. */
__attribute__((target("avx512f"), always_inline))
static inline void rk_rotate_hsums(const float *p, const rk_window *win, const rk_cubic16 *wx, __m512 h[3]) {
    const __m512i split[3] = {
        _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45),
        _mm512_setr_epi32(1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46),
        _mm512_setr_epi32(2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38, 41, 44, 47)};
    const __mmask16 third[3] = {0xF800, 0xF800, 0xFC00};
    __m512 z[6];
    for (int q = 0; q < 6; q++) z[q] = _mm512_maskz_loadu_ps(win->load[q], p + 16 * q);
    for (int c = 0; c < 3; c++) {
        __m512 lo = _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(z[0], split[c], z[1]), third[c], split[c], z[2]);
        __m512 hi = win->wide ? _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(z[3], split[c], z[4]), third[c], split[c], z[5])
                              : _mm512_setzero_ps();
        __m512 v = _mm512_mul_ps(_mm512_permutex2var_ps(lo, win->tap[0], hi), wx->w[0]);
        v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_permutex2var_ps(lo, win->tap[1], hi), wx->w[1]));
        v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_permutex2var_ps(lo, win->tap[2], hi), wx->w[2]));
        h[c] = _mm512_add_ps(v, _mm512_mul_ps(_mm512_permutex2var_ps(lo, win->tap[3], hi), wx->w[3]));
    }
}

/* AVX-512: sixteen pixels a group, one channel a register. Where the sixteen lie inside the
 * picture, away from its columns' edges, on four source rows or (the tilt crossing a source row
 * in the group) five, and within 32 source columns (a straighten or a rotation at a scale near
 * 1), each row's window is loaded once and split into its channels, and each tap is a permute of
 * that window by the pixels' columns; the positions,
 * weights, multiplications and additions are RK_ROTATE_BODY's, in its order and precision, so
 * the same floats. Other groups, and the last pixels of a row, go through the AVX2 span.
 * photo24's square-crop straighten (2000×2000 pixels at 0.96 source columns a pixel, a row down
 * every 38): 87 → 33 ms of CPU a render (perf); a 4-ns-a-pixel bound by its permutes alone (the
 * window's split costs as much as the taps: splitting each source row once, planar, is the next
 * step if rotations matter more). */
__attribute__((target("avx512f,avx512dq,avx2")))
static void rk_rotate_row_avx512(RK_ROTATE_PARAMS) {
    const unsigned char *src = (const unsigned char *)image;
    int ring = ring_rows < height ? ring_rows : 0;
    int last_y = height - 1;
    /* x in [1, width − 3) puts the four columns inside the row and the pixel inside the picture;
     * y in [−0.5, height − 0.5] inside it too, where no clamp of the body changes y. */
    const __m512d x_lo = _mm512_set1_pd(1.0), x_hi = _mm512_set1_pd((double)(width - 3));
    const __m512d y_lo = _mm512_set1_pd(-0.5), y_hi = _mm512_set1_pd((double)height - 0.5);
    const __m512d sx = _mm512_set1_pd(start_x), sy = _mm512_set1_pd(start_y);
    const __m512d dx = _mm512_set1_pd(step_x), dy = _mm512_set1_pd(step_y), one = _mm512_set1_pd(1.0);
    const __m512d lanes_a = _mm512_setr_pd(0, 1, 2, 3, 4, 5, 6, 7), lanes_b = _mm512_setr_pd(8, 9, 10, 11, 12, 13, 14, 15);
    /* Output float 16q + i is pixel (16q + i) / 3's channel (16q + i) mod 3: red and green from a
     * two-register permute (green's indices + 16), blue by a masked one. */
    const __m512i join[3] = {
        _mm512_setr_epi32(0, 16, 0, 1, 17, 1, 2, 18, 2, 3, 19, 3, 4, 20, 4, 5),
        _mm512_setr_epi32(21, 5, 6, 22, 6, 7, 23, 7, 8, 24, 8, 9, 25, 9, 10, 26),
        _mm512_setr_epi32(10, 11, 27, 11, 12, 28, 12, 13, 29, 13, 14, 30, 14, 15, 31, 15)};
    const __mmask16 join_blue[3] = {0x4924, 0x2492, 0x9249};
    ptrdiff_t off[5] = {0, 0, 0, 0, 0};
    int cy = INT_MIN;
    int j = 0;
    for (; j + 16 <= count; j += 16) {
        __m512d jd = _mm512_set1_pd((double)j);
        __m512d ja = _mm512_add_pd(jd, lanes_a), jb = _mm512_add_pd(jd, lanes_b);
        __m512d xa = _mm512_add_pd(sx, _mm512_mul_pd(ja, dx)), xb = _mm512_add_pd(sx, _mm512_mul_pd(jb, dx));
        __m512d ya = _mm512_add_pd(sy, _mm512_mul_pd(ja, dy)), yb = _mm512_add_pd(sy, _mm512_mul_pd(jb, dy));
        __mmask8 ok = _mm512_cmp_pd_mask(xa, x_lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(xa, x_hi, _CMP_LT_OQ)
            & _mm512_cmp_pd_mask(xb, x_lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(xb, x_hi, _CMP_LT_OQ)
            & _mm512_cmp_pd_mask(ya, y_lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(ya, y_hi, _CMP_LE_OQ)
            & _mm512_cmp_pd_mask(yb, y_lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(yb, y_hi, _CMP_LE_OQ);
        if (ok != 0xFF) goto general;
        /* (int)(p + 1) − 1, as the body truncates. */
        __m256i m1 = _mm256_set1_epi32(1);
        __m256i ixa = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(xa, one)), m1);
        __m256i ixb = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(xb, one)), m1);
        __m256i iya = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(ya, one)), m1);
        __m256i iyb = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(yb, one)), m1);
        /* Positions move monotonically along the row (each rounding step is monotonic), so the
         * group's first and last pixels bound its rows and columns. */
        __m512i iys = _mm512_inserti64x4(_mm512_castsi256_si512(iya), iyb, 1);
        int iy_first = _mm256_extract_epi32(iya, 0), iy_last = _mm256_extract_epi32(iyb, 7);
        int iy = iy_first < iy_last ? iy_first : iy_last;
        int rows = (iy_first < iy_last ? iy_last : iy_first) - iy + 4;
        if (rows > 5) goto general;
        /* The lanes a row further down (the tilt crossed a source row in the group): their r-th
         * row is the window's r + 1-th. */
        __mmask16 below = _mm512_cmpneq_epi32_mask(iys, _mm512_set1_epi32(iy));
        __m512i ix = _mm512_inserti64x4(_mm512_castsi256_si512(ixa), ixb, 1);
        int ix_first = _mm256_extract_epi32(ixa, 0), ix_last = _mm256_extract_epi32(ixb, 7);
        int lo = ix_first < ix_last ? ix_first : ix_last, hi = ix_first < ix_last ? ix_last : ix_first;
        if (hi - lo > 28) goto general;
        int n = hi - lo + 4; /* window pixels, from column lo − 1 */
        __m512i rel = _mm512_sub_epi32(ix, _mm512_set1_epi32(lo));
        /* (float)(p − (double)i) and rk_cubic's weights, lane by lane. */
        __m512 fx = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_sub_pd(xa, _mm512_cvtepi32_pd(ixa)))),
                                       _mm512_cvtpd_ps(_mm512_sub_pd(xb, _mm512_cvtepi32_pd(ixb))), 1);
        __m512 fy = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(_mm512_sub_pd(ya, _mm512_cvtepi32_pd(iya)))),
                                       _mm512_cvtpd_ps(_mm512_sub_pd(yb, _mm512_cvtepi32_pd(iyb))), 1);
        rk_cubic16 wx = rk_cubic_avx512(fx), wy = rk_cubic_avx512(fy);
        if (iy != cy) {
            for (int r = 0; r < 5; r++) {
                int row = rk_clampi(iy - 1 + r, 0, last_y);
                off[r] = (ptrdiff_t)(ring ? row % ring : row) * row_stride;
            }
            cy = iy;
        }
        rk_window win;
        for (int k = 0; k < 4; k++) win.tap[k] = _mm512_add_epi32(rel, _mm512_set1_epi32(k));
        for (int q = 0; q < 6; q++) {
            int left = 3 * n - 16 * q;
            win.load[q] = left >= 16 ? 0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
        }
        win.wide = n > 16;
        const unsigned char *first = src + 12 * (ptrdiff_t)(lo - 1);
        __m512 acc[3] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
        __m512 ha[3], hb[3];
        /* A lane's r-th row is the window's r-th, or its r + 1-th for the lanes below; each lane
         * adds its four rows in order. Written out so that the sums stay in registers. */
#define RK_ROT_ROW(w, H) rk_rotate_hsums((const float *)(first + off[w]), &win, &wx, H)
#define RK_ROT_ADD(A, B, r) \
        for (int c = 0; c < 3; c++) acc[c] = _mm512_add_ps(acc[c], _mm512_mul_ps(_mm512_mask_blend_ps(below, A[c], B[c]), wy.w[r]))
        if (rows == 4) {
            RK_ROT_ROW(0, ha); RK_ROT_ADD(ha, ha, 0);
            RK_ROT_ROW(1, ha); RK_ROT_ADD(ha, ha, 1);
            RK_ROT_ROW(2, ha); RK_ROT_ADD(ha, ha, 2);
            RK_ROT_ROW(3, ha); RK_ROT_ADD(ha, ha, 3);
        } else {
            RK_ROT_ROW(0, ha); RK_ROT_ROW(1, hb); RK_ROT_ADD(ha, hb, 0);
            RK_ROT_ROW(2, ha); RK_ROT_ADD(hb, ha, 1);
            RK_ROT_ROW(3, hb); RK_ROT_ADD(ha, hb, 2);
            RK_ROT_ROW(4, ha); RK_ROT_ADD(hb, ha, 3);
        }
#undef RK_ROT_ROW
#undef RK_ROT_ADD
        float *o = out + 3 * (ptrdiff_t)j;
        for (int q = 0; q < 3; q++)
            _mm512_storeu_ps(o + 16 * q, _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(acc[0], join[q], acc[1]), join_blue[q], join[q], acc[2]));
        continue;
    general:
        rk_rotate_span_avx2(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, j, j + 16,
                            black_outside, out);
    }
    if (j < count)
        rk_rotate_span_avx2(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, j, count,
                            black_outside, out);
}
#endif

int rk_rotate_row_path(int path, RK_ROTATE_PARAMS) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (path == 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
        rk_rotate_row_avx512(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, count,
                             black_outside, out);
        return 2;
    }
    if (path >= 1 && __builtin_cpu_supports("avx2")) {
        rk_rotate_row_avx2(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, count,
                           black_outside, out);
        return 1;
    }
#endif
    rk_rotate_row_plain(image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, count,
                        black_outside, out);
    return 0;
}

void rk_rotate_row(RK_ROTATE_PARAMS) {
    (void)rk_rotate_row_path(2, image, row_stride, width, height, ring_rows, start_x, start_y, step_x, step_y, count,
                             black_outside, out);
}

/* ---- 8-bit ends of a point pass -------------------------------------------------------------
 *
 * The load: interleaved RGB codes through a 256-entry table per channel into three planes. The
 * store: each plane's values clamped to [0, 1], scaled to the table's `levels - 1` and rounded to
 * the nearest index (ties to even: the 1.5·2^23 addition), looked up, interleaved. Written as two
 * loops, the index arithmetic (which vectorises: no fused multiply-add, so every CPU rounds the
 * same) and the lookups (which do not). In Swift the store's per-lane index extraction and the
 * checked 3·i arithmetic cost three times these loops (two thirds of the 5-op chain's pass). */
#define RK_U8_LOAD_BODY                                                                             \
    float *r = planes, *g = planes + tile, *b = planes + 2 * (ptrdiff_t)tile;                     \
    for (int i = 0; i < count; i++) {                                                               \
        r[i] = table[px[3 * i]];                                                                    \
        g[i] = table[256 + px[3 * i + 1]];                                                          \
        b[i] = table[512 + px[3 * i + 2]];                                                          \
    }

#define RK_U8_STORE_BODY                                                                            \
    uint32_t index[3][RK_STORE_CHUNK];                                                              \
    const float top = (float)(levels - 1);                                                          \
    for (int start = 0; start < count; start += RK_STORE_CHUNK) {                                   \
        int n = count - start < RK_STORE_CHUNK ? count - start : RK_STORE_CHUNK;                    \
        for (int c = 0; c < 3; c++) {                                                               \
            const float *plane = planes + (ptrdiff_t)c * tile + start;                              \
            for (int i = 0; i < n; i++) {                                                           \
                float v = plane[i];                                                                 \
                v = v > 0.0f ? v : 0.0f; /* NaN too */                                              \
                v = v < 1.0f ? v : 1.0f;                                                            \
                float s = v * top;                                                                  \
                s = s + 12582912.0f;                                                                \
                uint32_t bits;                                                                      \
                memcpy(&bits, &s, 4);                                                               \
                index[c][i] = bits - 0x4B400000u;                                                   \
            }                                                                                       \
        }                                                                                           \
        const uint8_t *t0 = table, *t1 = table + levels, *t2 = table + 2 * (ptrdiff_t)levels;      \
        uint8_t *o = px + 3 * (ptrdiff_t)start;                                                     \
        for (int i = 0; i < n; i++) {                                                               \
            o[3 * i] = t0[index[0][i]];                                                             \
            o[3 * i + 1] = t1[index[1][i]];                                                         \
            o[3 * i + 2] = t2[index[2][i]];                                                         \
        }                                                                                           \
    }

#define RK_STORE_CHUNK 256

static void rk_u8_load_plain(const uint8_t *px, const float *table, float *planes, int tile, int count) { RK_U8_LOAD_BODY }
static void rk_u8_store_plain(const float *planes, int tile, int count, const uint8_t *table, int levels, uint8_t *px) {
    RK_U8_STORE_BODY
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* AVX2 without FMA, as the rotation: the same operations, eight lanes. */
__attribute__((target("avx2")))
static void rk_u8_load_avx2(const uint8_t *px, const float *table, float *planes, int tile, int count) { RK_U8_LOAD_BODY }
__attribute__((target("avx2")))
static void rk_u8_store_avx2(const float *planes, int tile, int count, const uint8_t *table, int levels, uint8_t *px) {
    RK_U8_STORE_BODY
}
#endif

void rk_u8_load(const uint8_t *px, const float *table, float *planes, int tile, int count) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) { rk_u8_load_avx2(px, table, planes, tile, count); return; }
#endif
    rk_u8_load_plain(px, table, planes, tile, count);
}

/* ---- The 8-bit load with AVX-512 byte permutes ----------------------------------------------
 * A load table's 256 floats a channel are 1 KiB: four 256-byte planes (byte k of each float), and
 * 256 bytes are four 64-byte registers, which VPERMI2B (AVX-512 VBMI) looks 64 codes up in, two
 * at a time, the code's top bit picking the pair. So 64 pixels take: three loads, six permutes to
 * split the channels, and a channel 8 permutes, 4 blends and 8 unpacks to rebuild its floats,
 * with no scalar load a sample. 24 MP took 8–20 ms against 37–78 ms for the scalar lookups in a
 * microbenchmark. The unpacks work within 128-bit lanes, so the codes are split out in the order
 * that makes them write floats 0…63 in order: position p = 16L + 4K + j of the channel's register
 * holds pixel 16K + 4L + j (`rk_load_order`). */
static const uint8_t rk_load_order[64] = {
    0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51, 4, 5, 6, 7, 20, 21, 22, 23, 36, 37, 38, 39, 52, 53, 54, 55,
    8, 9, 10, 11, 24, 25, 26, 27, 40, 41, 42, 43, 56, 57, 58, 59, 12, 13, 14, 15, 28, 29, 30, 31, 44, 45, 46, 47, 60, 61, 62, 63};

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx512f,avx512bw,avx512vbmi")))
static int rk_u8_load_vbmi(const uint8_t *px, const uint8_t *bytes, float *planes, int tile, int count) {
    /* Byte 3·order[p] + c of the 192 a group holds: from its first 128 (below 128), or from its
     * last 128 at 3·order[p] + c − 64 (a permute's index keeps 7 bits). */
    const __m512i order = _mm512_loadu_si512(rk_load_order);
    const __m512i thrice = _mm512_add_epi8(order, _mm512_add_epi8(order, order));
    __m512i first[3], last[3];
    __mmask64 fromLast[3];
    for (int c = 0; c < 3; c++) {
        first[c] = _mm512_add_epi8(thrice, _mm512_set1_epi8((char)c));
        last[c] = _mm512_sub_epi8(first[c], _mm512_set1_epi8(64));
        fromLast[c] = _mm512_cmpge_epu8_mask(first[c], _mm512_set1_epi8((char)128));
    }
    int i = 0;
    for (; i + 64 <= count; i += 64) {
        const uint8_t *q = px + 3 * (ptrdiff_t)i;
        __m512i v0 = _mm512_loadu_si512(q), v1 = _mm512_loadu_si512(q + 64), v2 = _mm512_loadu_si512(q + 128);
        for (int c = 0; c < 3; c++) {
            __m512i code = _mm512_mask_blend_epi8(fromLast[c], _mm512_permutex2var_epi8(v0, first[c], v1),
                                                  _mm512_permutex2var_epi8(v1, last[c], v2));
            __mmask64 high = _mm512_movepi8_mask(code);
            const uint8_t *t = bytes + 1024 * c;
            __m512i b[4];
            for (int k = 0; k < 4; k++) {
                const uint8_t *plane = t + 256 * k;
                __m512i low = _mm512_permutex2var_epi8(_mm512_loadu_si512(plane), code, _mm512_loadu_si512(plane + 64));
                __m512i up = _mm512_permutex2var_epi8(_mm512_loadu_si512(plane + 128), code, _mm512_loadu_si512(plane + 192));
                b[k] = _mm512_mask_blend_epi8(high, low, up);
            }
            __m512i w01lo = _mm512_unpacklo_epi8(b[0], b[1]), w01hi = _mm512_unpackhi_epi8(b[0], b[1]);
            __m512i w23lo = _mm512_unpacklo_epi8(b[2], b[3]), w23hi = _mm512_unpackhi_epi8(b[2], b[3]);
            float *o = planes + (ptrdiff_t)c * tile + i;
            _mm512_storeu_si512(o, _mm512_unpacklo_epi16(w01lo, w23lo));
            _mm512_storeu_si512(o + 16, _mm512_unpackhi_epi16(w01lo, w23lo));
            _mm512_storeu_si512(o + 32, _mm512_unpacklo_epi16(w01hi, w23hi));
            _mm512_storeu_si512(o + 48, _mm512_unpackhi_epi16(w01hi, w23hi));
        }
    }
    return i;
}
#endif

void rk_u8_load_bytes(const uint8_t *px, const uint8_t *bytes, const float *table, float *planes, int tile, int count) {
    int i = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw")) i = rk_u8_load_vbmi(px, bytes, planes, tile, count);
#endif
    /* The rest (or all, without AVX-512 VBMI): the float table. */
    if (i < count) rk_u8_load(px + 3 * (ptrdiff_t)i, table, planes + i, tile, count - i);
}

/* ---- The 8-bit store as a search -------------------------------------------------------------
 * A clamp-safe store table (never decreasing, 0 at index 0 and 255 at the last) is fixed by its
 * 255 thresholds: code c starts at T[c], the first index whose code is at least c, and an
 * index's code is the number of thresholds at or below it. Eight steps of a binary search find
 * it, each a comparison with one threshold per lane; the thresholds a step can need are at most
 * 128 16-bit words, looked up by word permutes (AVX-512 BW) from registers. So the store takes
 * no scalar load a sample: 32 indices go through the search at once, where the table store
 * (above) looks each code up alone in 192 KiB of tables, out of L1 as often as the photo's
 * values jump about. Same indices, so the same bytes. On 72 M values (L1-resident tiles, the
 * 5-op chain's pass): photo24's 35 → 26 ms, the P3 chain's (noisier values) 52 → 23 ms; in the
 * render, a pass thread's store 12.5–15 → 10 ms (sRGB) and 20 → 14 ms (P3).
 *
 * `search` holds each channel's thresholds in RK_STORE_SEARCH_WORDS words, by step: step b
 * (7 down to 0, one word, then two, … then 128) holds T[p·2^(b+1) + 2^b] for each prefix p of
 * the code's bits above b (rk_u8_store_search_table). */
/* Where a channel's code for pixel p of a 64-pixel group sits among the 64 bytes the group's two
 * searches give (the packing's order, rk_store_indices): the interleave reads it from there. */
static uint8_t rk_store_order[64];
/* Output byte q of each of the three 64-byte stores: first from the red and green codes (index
 * into their 128 bytes), then the blue ones put in (index 64 + its byte; q keeps the byte). */
static uint8_t rk_store_mix[3][2][64];
static pthread_once_t rk_store_once = PTHREAD_ONCE_INIT;
static void rk_store_tables(void) {
    for (int h = 0; h < 2; h++) {
        for (int w = 0; w < 32; w++) {
            int k = w / 8, j = w % 8;
            rk_store_order[32 * h + (j < 4 ? 4 * k + j : 16 + 4 * k + j - 4)] = (uint8_t)(32 * h + w);
        }
    }
    for (int o = 0; o < 3; o++) {
        for (int q = 0; q < 64; q++) {
            int byte = 64 * o + q, pixel = byte / 3, channel = byte % 3, at = rk_store_order[pixel];
            rk_store_mix[o][0][q] = (uint8_t)(channel == 0 ? at : channel == 1 ? 64 + at : 0);
            rk_store_mix[o][1][q] = (uint8_t)(channel == 2 ? 64 + at : q);
        }
    }
}

/* Also builds the interleave's tables (once a process), so the store, which needs a search
 * table to search, finds them ready without a check a tile. */
void rk_u8_store_search_table(const uint8_t *table, int levels, uint16_t *search) {
    pthread_once(&rk_store_once, rk_store_tables);
    for (int c = 0; c < 3; c++) {
        const uint8_t *t = table + (ptrdiff_t)c * levels;
        uint32_t first[256];
        int i = 0;
        first[0] = 0;
        for (int code = 1; code < 256; code++) {
            while (i < levels - 1 && t[i] < code) i++;
            first[code] = (uint32_t)i;
        }
        uint16_t *out = search + RK_STORE_SEARCH_WORDS * c;
        int offset = 0;
        for (int b = 7; b >= 0; b--) {
            int n = 1 << (7 - b);
            for (int p = 0; p < n; p++) out[offset + p] = (uint16_t)first[(p << (b + 1)) + (1 << b)];
            offset += n;
        }
        out[offset] = 0; /* the 256th word: padding */
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* 32 values of a plane as table indices, as RK_U8_STORE_BODY makes them: clamped to [0, 1] (max
 * with 0 first: NaN becomes 0), times 65535 (no fused multiply-add), rounded to the nearest, ties
 * to even (the conversion's default rounding, as the 1.5·2^23 addition). Packed to 16 bits within
 * 128-bit lanes: word 8k + j is value 4k + j of the first 16 for j < 4, 4k + j − 4 of the second. */
__attribute__((target("avx512f,avx512bw,avx512vbmi")))
static inline __m512i rk_store_indices(const float *p) {
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), top = _mm512_set1_ps(65535.0f);
    __m512 a = _mm512_min_ps(_mm512_max_ps(_mm512_loadu_ps(p), zero), one);
    __m512 b = _mm512_min_ps(_mm512_max_ps(_mm512_loadu_ps(p + 16), zero), one);
    return _mm512_packus_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(a, top)), _mm512_cvtps_epi32(_mm512_mul_ps(b, top)));
}

/* The codes of a 64-pixel group's six vectors of 32 indices (two a channel): the binary search
 * over the channel's thresholds `t`, the six searches a step at a time, in step: each step waits
 * for the one before (a permute and a comparison, about 8 cycles), and written one search after
 * the other the CPU could not reach far enough ahead to overlap them (no faster than the table). */
__attribute__((target("avx512f,avx512bw,avx512vbmi")))
static inline void rk_store_search(__m512i code[6], const __m512i index[6], const uint16_t *search) {
    const __m512i one = _mm512_set1_epi16(1);
    for (int v = 0; v < 6; v++) {
        const uint16_t *t = search + RK_STORE_SEARCH_WORDS * (v / 2);
        code[v] = _mm512_maskz_mov_epi16(_mm512_cmpge_epu16_mask(index[v], _mm512_set1_epi16((short)t[0])), one);
    }
    int offset = 1;
    for (int b = 6; b >= 0; b--) {
        int n = 1 << (7 - b);
        for (int v = 0; v < 6; v++) {
            const uint16_t *t = search + RK_STORE_SEARCH_WORDS * (v / 2) + offset;
            __m512i threshold;
            if (n <= 32) {
                threshold = _mm512_permutexvar_epi16(code[v], _mm512_loadu_si512((const void *)t));
            } else if (n == 64) {
                threshold = _mm512_permutex2var_epi16(_mm512_loadu_si512((const void *)t), code[v], _mm512_loadu_si512((const void *)(t + 32)));
            } else {
                __m512i low = _mm512_permutex2var_epi16(_mm512_loadu_si512((const void *)t), code[v], _mm512_loadu_si512((const void *)(t + 32)));
                __m512i high = _mm512_permutex2var_epi16(_mm512_loadu_si512((const void *)(t + 64)), code[v],
                                                         _mm512_loadu_si512((const void *)(t + 96)));
                threshold = _mm512_mask_blend_epi16(_mm512_cmpge_epu16_mask(code[v], _mm512_set1_epi16(64)), low, high);
            }
            __m512i doubled = _mm512_add_epi16(code[v], code[v]);
            code[v] = _mm512_mask_add_epi16(doubled, _mm512_cmpge_epu16_mask(index[v], threshold), doubled, one);
        }
        offset += n;
    }
}

/* Groups of 64 pixels; returns how many pixels it stored (the rest take the table). */
__attribute__((target("avx512f,avx512bw,avx512vbmi")))
static int rk_u8_store_search_avx512(const float *planes, int tile, int count, const uint16_t *search, uint8_t *px) {
    __m512i mix[3][2];
    for (int o = 0; o < 3; o++) {
        mix[o][0] = _mm512_loadu_si512((const void *)rk_store_mix[o][0]);
        mix[o][1] = _mm512_loadu_si512((const void *)rk_store_mix[o][1]);
    }
    int i = 0;
    for (; i + 64 <= count; i += 64) {
        __m512i index[6], code[6], codes[3];
        for (int v = 0; v < 6; v++) index[v] = rk_store_indices(planes + (ptrdiff_t)(v / 2) * tile + i + 32 * (v % 2));
        rk_store_search(code, index, search);
        for (int c = 0; c < 3; c++) {
            codes[c] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(code[2 * c])),
                                          _mm512_cvtepi16_epi8(code[2 * c + 1]), 1);
        }
        uint8_t *o = px + 3 * (ptrdiff_t)i;
        for (int k = 0; k < 3; k++) {
            __m512i rg = _mm512_permutex2var_epi8(codes[0], mix[k][0], codes[1]);
            _mm512_storeu_si512((void *)(o + 64 * k), _mm512_permutex2var_epi8(rg, mix[k][1], codes[2]));
        }
    }
    return i;
}
#endif

int rk_u8_store_search_supported(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
#else
    return 0;
#endif
}

void rk_u8_store(const float *planes, int tile, int count, const uint8_t *table, int levels, const uint16_t *search, uint8_t *px) {
    int i = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (search && levels == 65536 && rk_u8_store_search_supported()) i = rk_u8_store_search_avx512(planes, tile, count, search, px);
    if (i == count) return;
    planes += i;
    px += 3 * (ptrdiff_t)i;
    count -= i;
    if (__builtin_cpu_supports("avx2")) { rk_u8_store_avx2(planes, tile, count, table, levels, px); return; }
#endif
    rk_u8_store_plain(planes, tile, count, table, levels, px);
}

/* ---- The 8-bit store without a table ---------------------------------------------------------
 * A pass with nothing after its body (the last op's values are the codes' own: a ×255 store)
 * quantises directly, as SampleConversion.quantize8 does: (uint8)(clamp(v, 0, 1)·255 + 0.5), NaN
 * as 0, a multiply and an add (no fused multiply-add), so every CPU gets the same bytes. The
 * AVX2 path converts 16 pixels a plane at a time and interleaves them with byte shuffles: no
 * lookup a sample (the table store gathers one byte a sample from 64 KiB). */
static inline uint8_t rk_quantize8(float v) {
    v = v > 0.0f ? v : 0.0f; /* NaN too */
    v = v < 1.0f ? v : 1.0f;
    float s = v * 255.0f;
    return (uint8_t)(int32_t)(s + 0.5f);
}

static void rk_u8_store_direct_plain(const float *planes, int tile, int count, uint8_t *px, int from) {
    const float *r = planes, *g = planes + tile, *b = planes + 2 * (ptrdiff_t)tile;
    for (int i = from; i < count; i++) {
        px[3 * i] = rk_quantize8(r[i]);
        px[3 * i + 1] = rk_quantize8(g[i]);
        px[3 * i + 2] = rk_quantize8(b[i]);
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* Sixteen values of a plane as bytes: max with 0 first (NaN becomes 0, as above), then min with 1. */
__attribute__((target("avx2")))
static inline __m128i rk_quantize16(const float *p) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), scale = _mm256_set1_ps(255.0f), half = _mm256_set1_ps(0.5f);
    __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    a = _mm256_min_ps(_mm256_max_ps(a, zero), one);
    b = _mm256_min_ps(_mm256_max_ps(b, zero), one);
    __m256i ia = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(a, scale), half));
    __m256i ib = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(b, scale), half));
    /* 32 → 16 bits within 128-bit lanes, then the lanes put back in order. */
    __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(ia, ib), 0xD8);
    __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
    return _mm_packus_epi16(lo, hi);
}

__attribute__((target("avx2")))
static void rk_u8_store_direct_avx2(const float *planes, int tile, int count, uint8_t *px) {
    /* Output byte j of a 48-byte group is channel j % 3 of pixel j / 3: per 16-byte block, the
     * source byte each channel's plane gives it (0x80: none). */
    static const int8_t masks[3][3][16] = {
        {{0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1, 5},
         {-1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1},
         {-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1}},
        {{-1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10, -1},
         {5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10},
         {-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1}},
        {{-1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1, -1},
         {-1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1},
         {10, -1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15}},
    };
    const float *r = planes, *g = planes + tile, *b = planes + 2 * (ptrdiff_t)tile;
    int i = 0;
    for (; i + 16 <= count; i += 16) {
        __m128i c[3] = {rk_quantize16(r + i), rk_quantize16(g + i), rk_quantize16(b + i)};
        for (int q = 0; q < 3; q++) {
            __m128i out = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(c[0], _mm_loadu_si128((const __m128i *)masks[q][0])),
                                                    _mm_shuffle_epi8(c[1], _mm_loadu_si128((const __m128i *)masks[q][1]))),
                                       _mm_shuffle_epi8(c[2], _mm_loadu_si128((const __m128i *)masks[q][2])));
            _mm_storeu_si128((__m128i *)(px + 3 * i + 16 * q), out);
        }
    }
    rk_u8_store_direct_plain(planes, tile, count, px, i);
}
#endif

void rk_u8_store_direct(const float *planes, int tile, int count, uint8_t *px) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) { rk_u8_store_direct_avx2(planes, tile, count, px); return; }
#endif
    rk_u8_store_direct_plain(planes, tile, count, px, 0);
}

void rk_u8_store_direct_without_avx2(const float *planes, int tile, int count, uint8_t *px) {
    rk_u8_store_direct_plain(planes, tile, count, px, 0);
}

/* ---- A fused 8-bit pass's colour cache ------------------------------------------------------
 * A pass from 8-bit codes to 8-bit codes whose steps read no position is a function of the
 * pixel's three codes alone, and a photo repeats its colours: photo24 has 1.0 M distinct colours
 * in 24 M pixels, and a pixel's colour was seen a few pixels before more often than not. So a
 * thread keeps what it rendered in a direct-mapped table of 2^RK_CACHE_BITS entries (256 KiB),
 * looked up sixteen pixels at a time by a gather, and runs the pass (load, body, store) only on
 * the pixels it misses, packed, then files their codes (rk_u8_cache_fill). A hit gives the bytes
 * the pass gave that colour, so the output is the same whatever the cache held (tested).
 *
 * The key is the colour r | g << 8 | b << 16, mixed by a multiplication by an odd constant mod
 * 2^24 (a bijection, so the 24 bits are the colour's: no false hit): its high RK_CACHE_BITS bits
 * pick the entry, the low 8 are the tag. An entry is the three output codes in its low 24 bits and
 * the tag in the high 8. No bit is left to mark an empty entry, so a table starts full: entry i
 * holds the codes of the colour whose mixed key is i << 8 (tag 0), rendered by the pass
 * (rk_u8_cache_prefill_colours lists them; 65,536 pixels, about 0.2 ms a thread). The high bits of
 * the product depend on every bit of the colour; the low ones only on the low bits (the first
 * draft indexed by those: 59% hits on the P3 photo against 88%). 2^16 entries of 4 bytes rather
 * than 2^17 with a bit to mark them filled: 84% of photo24's P3 pixels hit against 88%, but the
 * table stays in L2 beside the decoder's and encoder's data on the same core (the P3 chain's CPU
 * 236.9 → 225.4 ms, 20 alternating runs).
 *
 * Four groups of sixteen a step, their gathers issued before any result is used: one at a time the
 * gather's latency was bare (a Zen 4 gather of sixteen entries takes 6–10 ns alone): 1.05 → 0.63
 * ns a pixel on photo24's rows, the table warm. */
static inline uint32_t rk_cache_mix(uint32_t key) { return (key * RK_CACHE_MIX) & 0xFFFFFFu; }
static inline uint32_t rk_cache_tag(uint32_t m) { return m & ((1u << (24 - RK_CACHE_BITS)) - 1); }

static int rk_u8_cache_lookup_plain(const uint8_t *in, int count, const uint32_t *cache, uint8_t *out, uint8_t *miss_px,
                                    uint16_t *miss_at) {
    int misses = 0;
    for (int i = 0; i < count; i++) {
        const uint8_t *p = in + 3 * (ptrdiff_t)i;
        uint8_t r = p[0], g = p[1], b = p[2];
        uint32_t m = rk_cache_mix((uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16), e = cache[m >> (24 - RK_CACHE_BITS)];
        if (e >> 24 == rk_cache_tag(m)) {
            uint8_t *o = out + 3 * (ptrdiff_t)i;
            o[0] = (uint8_t)e;
            o[1] = (uint8_t)(e >> 8);
            o[2] = (uint8_t)(e >> 16);
        } else {
            uint8_t *q = miss_px + 3 * (ptrdiff_t)misses;
            q[0] = r;
            q[1] = g;
            q[2] = b;
            miss_at[misses++] = (uint16_t)i;
        }
    }
    return misses;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define RK_CACHE_GROUPS 4
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))
static int rk_u8_cache_lookup_avx512(const uint8_t *in, int count, const uint32_t *cache, uint8_t *out, uint8_t *miss_px,
                                     uint16_t *miss_at) {
    /* Dword j of a group from bytes 3j, 3j + 1, 3j + 2 (the fourth zeroed), and back. */
    static const uint8_t spread[64] = {0,  1,  2,  0, 3,  4,  5,  0, 6,  7,  8,  0, 9,  10, 11, 0, 12, 13, 14, 0, 15, 16,
                                       17, 0,  18, 19, 20, 0, 21, 22, 23, 0, 24, 25, 26, 0, 27, 28, 29, 0, 30, 31, 32, 0,
                                       33, 34, 35, 0, 36, 37, 38, 0, 39, 40, 41, 0, 42, 43, 44, 0, 45, 46, 47, 0};
    static const uint8_t pack[64] = {0,  1,  2,  4,  5,  6,  8,  9,  10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25, 26, 28,
                                     29, 30, 32, 33, 34, 36, 37, 38, 40, 41, 42, 44, 45, 46, 48, 49, 50, 52, 53, 54, 56, 57,
                                     58, 60, 61, 62, 0};
    const __m512i spreadIndex = _mm512_loadu_si512(spread), packIndex = _mm512_loadu_si512(pack);
    const __m512i mix = _mm512_set1_epi32((int)RK_CACHE_MIX), low24 = _mm512_set1_epi32(0xFFFFFF);
    const __m512i tagBits = _mm512_set1_epi32((1 << (24 - RK_CACHE_BITS)) - 1);
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    int misses = 0;
    for (int k = 0; k < count; k += 16 * RK_CACHE_GROUPS) {
        __m512i key[RK_CACHE_GROUPS], entry[RK_CACHE_GROUPS], tag[RK_CACHE_GROUPS];
        __mmask16 live[RK_CACHE_GROUPS];
        for (int h = 0; h < RK_CACHE_GROUPS; h++) {
            int left = count - k - 16 * h, n = left < 0 ? 0 : left < 16 ? left : 16;
            live[h] = (__mmask16)((1u << n) - 1);
            __m512i raw = _mm512_maskz_loadu_epi8((__mmask64)((1ULL << (3 * n)) - 1), in + 3 * (ptrdiff_t)(k + 16 * h));
            key[h] = _mm512_maskz_permutexvar_epi8(0x7777777777777777ULL, spreadIndex, raw);
            __m512i m = _mm512_and_si512(_mm512_mullo_epi32(key[h], mix), low24);
            tag[h] = _mm512_and_si512(m, tagBits);
            entry[h] = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), live[h], _mm512_srli_epi32(m, 24 - RK_CACHE_BITS),
                                                   (const int *)cache, 4);
        }
        for (int h = 0; h < RK_CACHE_GROUPS && live[h]; h++) {
            int at = k + 16 * h;
            __mmask16 hit = _mm512_mask_cmpeq_epi32_mask(live[h], _mm512_srli_epi32(entry[h], 24), tag[h]);
            __m512i codes = _mm512_permutexvar_epi8(packIndex, entry[h]);
            uint8_t *o = out + 3 * (ptrdiff_t)at;
            if (live[h] == 0xFFFF) {
                /* Every lane's three bytes (48): a miss's are written again by the fill. */
                _mm256_storeu_si256((__m256i *)o, _mm512_castsi512_si256(codes));
                _mm_storeu_si128((__m128i *)(o + 32), _mm512_extracti32x4_epi32(codes, 2));
            } else {
                _mm512_mask_storeu_epi8(o, (__mmask64)((1ULL << (3 * __builtin_popcount(live[h]))) - 1), codes);
            }
            __mmask16 miss = (__mmask16)(live[h] & ~hit);
            if (miss) {
                int c = __builtin_popcount(miss);
                __m512i keys = _mm512_maskz_compress_epi32(miss, key[h]);
                _mm512_mask_storeu_epi8(miss_px + 3 * (ptrdiff_t)misses, (__mmask64)((1ULL << (3 * c)) - 1),
                                        _mm512_permutexvar_epi8(packIndex, keys));
                __m256i where = _mm512_cvtepi32_epi16(_mm512_maskz_compress_epi32(miss, _mm512_add_epi32(lanes, _mm512_set1_epi32(at))));
                _mm256_mask_storeu_epi16(miss_at + misses, (__mmask16)((1u << c) - 1), where);
                misses += c;
            }
        }
    }
    return misses;
}
#endif

int rk_u8_cache_supported(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512vbmi");
#else
    return 0;
#endif
}

int rk_u8_cache_lookup(const uint8_t *in, int count, const uint32_t *cache, uint8_t *out, uint8_t *miss_px, uint16_t *miss_at) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_u8_cache_supported()) return rk_u8_cache_lookup_avx512(in, count, cache, out, miss_px, miss_at);
#endif
    return rk_u8_cache_lookup_plain(in, count, cache, out, miss_px, miss_at);
}

int rk_u8_cache_lookup_without_avx512(const uint8_t *in, int count, const uint32_t *cache, uint8_t *out, uint8_t *miss_px,
                                      uint16_t *miss_at) {
    return rk_u8_cache_lookup_plain(in, count, cache, out, miss_px, miss_at);
}

void rk_u8_cache_prefill_colours(uint8_t *px) {
    /* The inverse of RK_CACHE_MIX mod 2^32 by Newton's iteration (each step doubles the bits
     * right: 3 → 6 → 12 → 24 → 48), so mod 2^24 too. */
    uint32_t inverse = RK_CACHE_MIX;
    for (int i = 0; i < 4; i++) inverse *= 2u - RK_CACHE_MIX * inverse;
    for (uint32_t i = 0; i < (1u << RK_CACHE_BITS); i++) {
        uint32_t key = ((i << (24 - RK_CACHE_BITS)) * inverse) & 0xFFFFFFu;
        px[3 * i] = (uint8_t)key;
        px[3 * i + 1] = (uint8_t)(key >> 8);
        px[3 * i + 2] = (uint8_t)(key >> 16);
    }
}

void rk_u8_cache_prefill(uint32_t *cache, const uint8_t *codes) {
    for (uint32_t i = 0; i < (1u << RK_CACHE_BITS); i++)
        cache[i] = (uint32_t)codes[3 * i] | (uint32_t)codes[3 * i + 1] << 8 | (uint32_t)codes[3 * i + 2] << 16;
}

void rk_u8_cache_fill(const uint8_t *miss_px, const uint8_t *miss_out, const uint16_t *miss_at, int misses, uint32_t *cache,
                      uint8_t *out) {
    for (int i = 0; i < misses; i++) {
        const uint8_t *p = miss_px + 3 * (ptrdiff_t)i, *o = miss_out + 3 * (ptrdiff_t)i;
        uint32_t m = rk_cache_mix((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16);
        cache[m >> (24 - RK_CACHE_BITS)] = rk_cache_tag(m) << 24 | (uint32_t)o[0] | (uint32_t)o[1] << 8 | (uint32_t)o[2] << 16;
        uint8_t *d = out + 3 * (ptrdiff_t)miss_at[i];
        d[0] = o[0];
        d[1] = o[1];
        d[2] = o[2];
    }
}

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

/* ---- 3D LUT, tetrahedral ----------------------------------------------------------------------
 * PointProgram.lookup3D's per-pixel half, as the Swift did it (the same cell, the same tetrahedron
 * by the same comparisons, the same weights summed in the same order: the same floats), with a
 * corner's three values in one vector. In Swift the corners were twelve scalar loads and the
 * branches spilled the fractions: a 3D LUT was most of film-look's pass. */
static inline rk_v4 rk_lut_entry(const float *t, int i) { return rk_load3((const unsigned char *)(t + 3 * (ptrdiff_t)i)); }

static void rk_lut3d_scalar(const float *table, int size, float *planes, int tile, int count, const float *domain_min,
                          const float *scale, float amount) {
    float *r = planes, *g = planes + tile, *b = planes + 2 * (ptrdiff_t)tile;
    const float top = (float)(size - 1), last = (float)(size - 2);
    const int step[3] = {1, size, size * size};
    /* The tetrahedra in the order Swift's branches pick them: the axes by falling fraction. */
    static const unsigned char order[6][3] = {{0, 1, 2}, {0, 2, 1}, {2, 0, 1}, {2, 1, 0}, {1, 2, 0}, {1, 0, 2}};
    for (int i = 0; i < count; i++) {
        float v[3] = {r[i], g[i], b[i]}, f[3];
        int base = 0;
        for (int c = 0; c < 3; c++) {
            float q = (v[c] - domain_min[c]) * scale[c];
            q = q > 0.0f ? q : 0.0f; /* NaN too */
            q = q > top ? top : q;
            int low = (int)(q > last ? last : q); /* q >= 0: truncation is the floor */
            base += low * step[c];
            f[c] = q - (float)low;
        }
        /* Without branches (a photo's noise flips the fractions' order from pixel to pixel): */
        int p = f[0] > f[1], tetra = p ? (f[1] > f[2] ? 0 : f[0] > f[2] ? 1 : 2) : (f[2] > f[1] ? 3 : f[2] > f[0] ? 4 : 5);
        const unsigned char *o = order[tetra];
        float x1 = f[o[0]], x2 = f[o[1]], x3 = f[o[2]];
        int a = base + step[o[0]], c = a + step[o[1]];
        rk_v4 out = rk_lut_entry(table, base) * (1 - x1) + rk_lut_entry(table, a) * (x1 - x2) + rk_lut_entry(table, c) * (x2 - x3)
            + rk_lut_entry(table, base + step[0] + step[1] + step[2]) * x3;
        r[i] += (out[0] - r[i]) * amount;
        g[i] += (out[1] - g[i]) * amount;
        b[i] += (out[2] - b[i]) * amount;
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* Eight pixels at a time: the tetrahedron picked by blends on the same comparisons, each corner
 * loaded whole per pixel; separate multiplications and additions in the scalar loop's order, so
 * the same floats. */
__attribute__((target("avx2")))
static int rk_lut3d_avx2(const float *table, int size, float *planes, int tile, int count, const float *domain_min,
                         const float *scale, float amount) {
    float *pl[3] = {planes, planes + tile, planes + 2 * (ptrdiff_t)tile};
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), mix = _mm256_set1_ps(amount);
    const __m256 top = _mm256_set1_ps((float)(size - 1)), last = _mm256_set1_ps((float)(size - 2));
    const __m256i dr = _mm256_set1_epi32(1), dg = _mm256_set1_epi32(size), db = _mm256_set1_epi32(size * size);
    const __m256i far = _mm256_set1_epi32(1 + size + size * size), three = _mm256_set1_epi32(3);
    int k = 0;
    for (; k + 8 <= count; k += 8) {
        __m256 v[3], f[3];
        __m256i low[3];
        for (int c = 0; c < 3; c++) {
            v[c] = _mm256_loadu_ps(pl[c] + k);
            __m256 q = _mm256_mul_ps(_mm256_sub_ps(v[c], _mm256_set1_ps(domain_min[c])), _mm256_set1_ps(scale[c]));
            q = _mm256_and_ps(q, _mm256_cmp_ps(q, zero, _CMP_GT_OQ)); /* NaN and below 0: 0 */
            q = _mm256_blendv_ps(q, top, _mm256_cmp_ps(q, top, _CMP_GT_OQ));
            low[c] = _mm256_cvttps_epi32(_mm256_blendv_ps(q, last, _mm256_cmp_ps(q, last, _CMP_GT_OQ)));
            f[c] = _mm256_sub_ps(q, _mm256_cvtepi32_ps(low[c]));
        }
        __m256i base = _mm256_add_epi32(_mm256_add_epi32(low[0], _mm256_mullo_epi32(low[1], dg)), _mm256_mullo_epi32(low[2], db));
        __m256 fr = f[0], fg = f[1], fb = f[2];
        __m256 p = _mm256_cmp_ps(fr, fg, _CMP_GT_OQ), q1 = _mm256_cmp_ps(fg, fb, _CMP_GT_OQ), s = _mm256_cmp_ps(fr, fb, _CMP_GT_OQ);
        __m256 t = _mm256_cmp_ps(fb, fg, _CMP_GT_OQ), u = _mm256_cmp_ps(fb, fr, _CMP_GT_OQ);
        __m256 qs = _mm256_or_ps(q1, s), tu = _mm256_or_ps(t, u);
        __m256 x1 = _mm256_blendv_ps(_mm256_blendv_ps(fg, fb, t), _mm256_blendv_ps(fb, fr, qs), p);
        __m256 x2 = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(fr, fb, u), fg, t),
                                     _mm256_blendv_ps(_mm256_blendv_ps(fr, fb, s), fg, q1), p);
        __m256 x3 = _mm256_blendv_ps(_mm256_blendv_ps(fb, fr, tu), _mm256_blendv_ps(fg, fb, q1), p);
#define RK_SEL(a, b, m) _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), m))
        __m256i o1 = RK_SEL(RK_SEL(dg, db, t), RK_SEL(db, dr, qs), p);
        __m256i o2 = RK_SEL(RK_SEL(RK_SEL(dr, db, u), dg, t), RK_SEL(RK_SEL(dr, db, s), dg, q1), p);
#undef RK_SEL
        __m256i i0 = _mm256_mullo_epi32(base, three);
        __m256i i1 = _mm256_mullo_epi32(_mm256_add_epi32(base, o1), three);
        __m256i i2 = _mm256_mullo_epi32(_mm256_add_epi32(_mm256_add_epi32(base, o1), o2), three);
        __m256i i3 = _mm256_mullo_epi32(_mm256_add_epi32(base, far), three);
        __m256 w0 = _mm256_sub_ps(one, x1), w1 = _mm256_sub_ps(x1, x2), w2 = _mm256_sub_ps(x2, x3);
        /* The corners by pixel, not by channel: a pair of pixels (j, j + 4) per vector, each
         * corner's r g b in one 16-byte load (AMD's gathers cost by the element: twelve 8-lane
         * gathers were most of the kernel). The first three corners are never the table's last
         * entry, so their fourth float is still in the table; the far corner never is its first,
         * so it is read from one float earlier and rotated into place. */
        int32_t at[4][8];
        _mm256_storeu_si256((__m256i *)at[0], i0);
        _mm256_storeu_si256((__m256i *)at[1], i1);
        _mm256_storeu_si256((__m256i *)at[2], i2);
        _mm256_storeu_si256((__m256i *)at[3], i3);
        __m256 px[4];
#pragma clang loop unroll(full)
        for (int j = 0; j < 4; j++) {
            const __m256i pick = _mm256_setr_epi32(j, j, j, j, j + 4, j + 4, j + 4, j + 4);
            __m256 c0 = _mm256_loadu2_m128(table + at[0][j + 4], table + at[0][j]);
            __m256 c1 = _mm256_loadu2_m128(table + at[1][j + 4], table + at[1][j]);
            __m256 c2 = _mm256_loadu2_m128(table + at[2][j + 4], table + at[2][j]);
            __m256 c3 = _mm256_permute_ps(_mm256_loadu2_m128(table + at[3][j + 4] - 1, table + at[3][j] - 1), 0x39);
            __m256 out = _mm256_mul_ps(c0, _mm256_permutevar8x32_ps(w0, pick));
            out = _mm256_add_ps(out, _mm256_mul_ps(c1, _mm256_permutevar8x32_ps(w1, pick)));
            out = _mm256_add_ps(out, _mm256_mul_ps(c2, _mm256_permutevar8x32_ps(w2, pick)));
            px[j] = _mm256_add_ps(out, _mm256_mul_ps(c3, _mm256_permutevar8x32_ps(x3, pick)));
        }
        /* [r0 g0 b0 · | r4 g4 b4 ·] … [r3 g3 b3 · | r7 g7 b7 ·] back to planes. */
        __m256 t0 = _mm256_unpacklo_ps(px[0], px[1]), t1 = _mm256_unpackhi_ps(px[0], px[1]);
        __m256 t2 = _mm256_unpacklo_ps(px[2], px[3]), t3 = _mm256_unpackhi_ps(px[2], px[3]);
        __m256 out[3] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE), _mm256_shuffle_ps(t1, t3, 0x44)};
        for (int c = 0; c < 3; c++)
            _mm256_storeu_ps(pl[c] + k, _mm256_add_ps(v[c], _mm256_mul_ps(_mm256_sub_ps(out[c], v[c]), mix)));
    }
    return k;
}
#endif

void rk_lut3d_tetrahedral(const float *table, int size, float *planes, int tile, int count, const float *domain_min,
                          const float *scale, float amount) {
    int done = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) done = rk_lut3d_avx2(table, size, planes, tile, count, domain_min, scale, amount);
#endif
    rk_lut3d_scalar(table, size, planes + done, tile, count - done, domain_min, scale, amount);
}

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


/* ---- sRGB transfer curves without a table ----------------------------------------------------
 * |v|^p = 2^(e·p)·m^p with v = m·2^e, m in [1, 2): the scale from a 16-entry table picked by a
 * permute (no gather: on the Zen 4 these machines have, a gather costs about 1.5 cycles an
 * element, as much as the whole curve here), m^p a degree-7 polynomial in m − 1.5 fitted on
 * Chebyshev nodes (relative error 2e-7 in float arithmetic). */
static const float rk_enc_poly[8] = {1.184053659e+00f, 3.289037347e-01f, -6.395599246e-02f, 2.250492945e-02f,
                                     -9.634766728e-03f, 4.586605355e-03f, -2.716104267e-03f, 1.485560322e-03f};
static const float rk_lin_poly[8] = {2.646177769e+00f, 4.233884335e+00f, 1.975812316e+00f, 1.756282002e-01f,
                                     -1.755237393e-02f, 3.740677144e-03f, -1.153057558e-03f, 4.048163828e-04f};
/* 2^(e/2.4) for e = -9…6 (encoding: |v| in (0.0031308, 16)), 2^(2.4·e) for e = -4…3 (decoding:
 * (|v| + 0.055)/1.055 in (0.0905, 15.2)). */
static const float rk_enc_scale[16] = {7.432544231e-02f, 9.921256453e-02f, 1.324328929e-01f, 1.767766923e-01f,
                                       2.359685749e-01f, 3.149802685e-01f, 4.204482138e-01f, 5.612310171e-01f,
                                       7.491535544e-01f, 1.000000000e+00f, 1.334839821e+00f, 1.781797409e+00f,
                                       2.378414154e+00f, 3.174802065e+00f, 4.237852573e+00f, 5.656854153e+00f};
static const float rk_lin_scale[8] = {1.288581989e-03f, 6.801176351e-03f, 3.589682281e-02f, 1.894645691e-01f,
                                      1.000000000e+00f, 5.278031826e+00f, 2.785761833e+01f, 1.470333862e+02f};

/* The same one lane at a time, its operations and its choice of scale. */
static inline float rk_power1(float y, int to_linear) {
    const float *poly = to_linear ? rk_lin_poly : rk_enc_poly;
    uint32_t bits;
    memcpy(&bits, &y, 4);
    int32_t index = (int32_t)(bits >> 23) - (to_linear ? 127 - 4 : 127 - 9);
    uint32_t mbits = (bits & 0x007FFFFFu) | 0x3F800000u;
    float m;
    memcpy(&m, &mbits, 4);
    float t = m - 1.5f;
    float p = fmaf(poly[7], t, poly[6]);
    for (int k = 5; k >= 0; k--) p = fmaf(p, t, poly[k]);
    float scale = to_linear ? rk_lin_scale[index & 7] : (index > 7 ? rk_enc_scale + 8 : rk_enc_scale)[index & 7];
    return p * scale;
}

static inline float rk_curve_scalar(float a, int to_linear) {
    if (to_linear) return rk_power1((a + 0.055f) * (1.0f / 1.055f), 1);
    return 1.055f * rk_power1(a, 0) - 0.055f;
}

static int rk_srgb_one(float *v, int to_linear, uint8_t *outside) {
    float x = *v, a = fabsf(x);
    if (!(a < 16.0f)) {
        *outside = 1;
        return 1;
    }
    float r;
    if (to_linear) r = a <= 0.04045f ? a * (1.0f / 12.92f) : rk_curve_scalar(a, 1);
    else r = a <= 0.0031308f ? a * 12.92f : rk_curve_scalar(a, 0);
    *v = copysignf(r, x);
    *outside = 0;
    return 0;
}

static int rk_srgb_plain(float *plane, int count, int to_linear, uint8_t *outside) {
    int left = 0;
    for (int i = 0; i < count; i++) left += rk_srgb_one(plane + i, to_linear, outside + i);
    return left;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* m^p·2^(e·p) of positive normal floats, v = m·2^e, eight lanes: p = 1/2.4 with the encoding
 * constants (e from −9 to 6), p = 2.4 with the decoding ones (e from −4 to 3). The scale comes
 * from two registers by a permute (the index's low bits) and a blend (bit 3). */
__attribute__((target("avx2,fma")))
static inline __m256 rk_power8(__m256 y, int to_linear) {
    const float *poly = to_linear ? rk_lin_poly : rk_enc_poly;
    __m256i bits = _mm256_castps_si256(y);
    __m256i index = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(to_linear ? 127 - 4 : 127 - 9));
    __m256 t = _mm256_sub_ps(_mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)),
                                                                 _mm256_set1_epi32(0x3F800000))),
                             _mm256_set1_ps(1.5f));
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(poly[7]), t, _mm256_set1_ps(poly[6]));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(poly[5]));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(poly[4]));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(poly[3]));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(poly[2]));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(poly[1]));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(poly[0]));
    __m256 scale;
    if (to_linear) {
        scale = _mm256_permutevar8x32_ps(_mm256_loadu_ps(rk_lin_scale), index);
    } else {
        scale = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(rk_enc_scale), index),
                                 _mm256_permutevar8x32_ps(_mm256_loadu_ps(rk_enc_scale + 8), index),
                                 _mm256_castsi256_ps(_mm256_cmpgt_epi32(index, _mm256_set1_epi32(7))));
    }
    return _mm256_mul_ps(p, scale);
}

/* One body per direction, its constants known to the compiler (a run-time flag kept them in
 * memory and the branches in the loop: 0.6 ns a value, as slow as the table). */
#define RK_SRGB_AVX2_BODY(TO_LINEAR)                                                     \
    const __m256 signMask = _mm256_set1_ps(-0.0f), sixteen = _mm256_set1_ps(16.0f);                  \
    const __m256 threshold = _mm256_set1_ps(TO_LINEAR ? 0.04045f : 0.0031308f);                     \
    const __m256 slope = _mm256_set1_ps(TO_LINEAR ? 1.0f / 12.92f : 12.92f);                         \
    int left = 0, k = 0;                                                                              \
    for (; k + 8 <= count; k += 8) {                                                                  \
        __m256 x = _mm256_loadu_ps(plane + k);                                                        \
        __m256 a = _mm256_andnot_ps(signMask, x);                                                     \
        __m256 inside = _mm256_cmp_ps(a, sixteen, _CMP_LT_OQ); /* false for NaN too */                \
        __m256 y = TO_LINEAR ? _mm256_mul_ps(_mm256_add_ps(a, _mm256_set1_ps(0.055f)), _mm256_set1_ps(1.0f / 1.055f)) : a; \
        __m256 r = rk_power8(y, TO_LINEAR);                                                           \
        if (!TO_LINEAR) r = _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(1.055f), r), _mm256_set1_ps(0.055f)); \
        r = _mm256_blendv_ps(r, _mm256_mul_ps(a, slope), _mm256_cmp_ps(a, threshold, _CMP_LE_OQ));   \
        r = _mm256_or_ps(r, _mm256_and_ps(x, signMask));                                              \
        _mm256_storeu_ps(plane + k, _mm256_blendv_ps(x, r, inside));                                  \
        int in = _mm256_movemask_ps(inside);                                                          \
        uint64_t flags = 0;                                                                           \
        if (in != 0xFF) {                                                                             \
            for (int j = 0; j < 8; j++)                                                               \
                if (!((in >> j) & 1)) { flags |= (uint64_t)1 << (8 * j); left++; }                    \
        }                                                                                             \
        memcpy(outside + k, &flags, 8);                                                               \
    }                                                                                                 \
    return left + rk_srgb_plain(plane + k, count - k, TO_LINEAR, outside + k);

__attribute__((target("avx2,fma")))
static int rk_srgb_decode_avx2(float *plane, int count, uint8_t *outside) { RK_SRGB_AVX2_BODY(1) }
__attribute__((target("avx2,fma")))
static int rk_srgb_encode_avx2(float *plane, int count, uint8_t *outside) { RK_SRGB_AVX2_BODY(0) }
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* m^p·2^(e·p) sixteen lanes at a time: rk_power8's operations and choice of scale, lane for lane
 * (the sRGB curves' AVX-512 body and the gains on encoded values use it). */
__attribute__((target("avx512f,avx512dq")))
static inline __m512 rk_power16(__m512 y, int to_linear) {
    const float *poly = to_linear ? rk_lin_poly : rk_enc_poly;
    /* Decoding's 8 scales twice (the AVX2 body's index & 7), encoding's 16. */
    const __m512 scales = to_linear ? _mm512_broadcast_f32x8(_mm256_loadu_ps(rk_lin_scale)) : _mm512_loadu_ps(rk_enc_scale);
    __m512i bits = _mm512_castps_si512(y);
    __m512i index = _mm512_sub_epi32(_mm512_srli_epi32(bits, 23), _mm512_set1_epi32(to_linear ? 127 - 4 : 127 - 9));
    __m512 t = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi32(0x007FFFFF)),
                                                                 _mm512_set1_epi32(0x3F800000))),
                             _mm512_set1_ps(1.5f));
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(poly[7]), t, _mm512_set1_ps(poly[6]));
    for (int i = 5; i >= 0; i--) p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(poly[i]));
    return _mm512_mul_ps(p, _mm512_permutexvar_ps(index, scales));
}

/* The AVX2 body's operations sixteen lanes at a time where the CPU has AVX-512 (the same floats:
 * the scale is the same table entry, by one 16-entry permute, for every value the curve keeps).
 * 72 M values: 26 ms against 42 ms for the AVX2 body on these Zen 4 machines (microbenchmark),
 * which run a 512-bit operation as two 256-bit halves but issue half the instructions. */
#define RK_SRGB_AVX512_BODY(TO_LINEAR)                                                                  \
    const __m512 signMask = _mm512_set1_ps(-0.0f), sixteen = _mm512_set1_ps(16.0f);                  \
    const __m512 threshold = _mm512_set1_ps(TO_LINEAR ? 0.04045f : 0.0031308f);                     \
    const __m512 slope = _mm512_set1_ps(TO_LINEAR ? 1.0f / 12.92f : 12.92f);                         \
    int left = 0, k = 0;                                                                              \
    for (; k + 16 <= count; k += 16) {                                                                \
        __m512 x = _mm512_loadu_ps(plane + k);                                                        \
        __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(_mm512_castps_si512(signMask), _mm512_castps_si512(x))); \
        __mmask16 inside = _mm512_cmp_ps_mask(a, sixteen, _CMP_LT_OQ); /* false for NaN too */         \
        __m512 y = TO_LINEAR ? _mm512_mul_ps(_mm512_add_ps(a, _mm512_set1_ps(0.055f)), _mm512_set1_ps(1.0f / 1.055f)) : a; \
        __m512 r = rk_power16(y, TO_LINEAR);                                                          \
        if (!TO_LINEAR) r = _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(1.055f), r), _mm512_set1_ps(0.055f)); \
        r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, threshold, _CMP_LE_OQ), r, _mm512_mul_ps(a, slope)); \
        r = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r),                               \
                                                _mm512_and_si512(_mm512_castps_si512(x), _mm512_castps_si512(signMask)))); \
        _mm512_storeu_ps(plane + k, _mm512_mask_blend_ps(inside, x, r));                              \
        if (inside != 0xFFFF) {                                                                       \
            for (int j = 0; j < 16; j++) {                                                            \
                int off = !((inside >> j) & 1);                                                       \
                outside[k + j] = (uint8_t)off;                                                        \
                left += off;                                                                          \
            }                                                                                         \
        } else {                                                                                      \
            memset(outside + k, 0, 16);                                                               \
        }                                                                                             \
    }                                                                                                 \
    return left + rk_srgb_plain(plane + k, count - k, TO_LINEAR, outside + k);

__attribute__((target("avx512f,avx512dq")))
static int rk_srgb_decode_avx512(float *plane, int count, uint8_t *outside) { RK_SRGB_AVX512_BODY(1) }
__attribute__((target("avx512f,avx512dq")))
static int rk_srgb_encode_avx512(float *plane, int count, uint8_t *outside) { RK_SRGB_AVX512_BODY(0) }
#endif

int rk_srgb_curve_avx2(float *plane, int count, int to_linear, uint8_t *outside) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) return to_linear ? rk_srgb_decode_avx2(plane, count, outside) : rk_srgb_encode_avx2(plane, count, outside);
#endif
    return rk_srgb_plain(plane, count, to_linear, outside);
}

int rk_srgb_curve(float *plane, int count, int to_linear, uint8_t *outside) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
        return to_linear ? rk_srgb_decode_avx512(plane, count, outside) : rk_srgb_encode_avx512(plane, count, outside);
#endif
    return rk_srgb_curve_avx2(plane, count, to_linear, outside);
}

/* ---- a gain on linear light, applied to sRGB-encoded values -----------------------------------
 * Above the curve's toe, v = 1.055·L^(1/2.4) − 0.055, so light scaled by g is, encoded,
 * v′ = g^(1/2.4)·(v + 0.055) − 0.055: one multiply-add a value where a decode and an encode cost
 * two curve evaluations. g^(1/2.4) is the encoding curve's m^p·2^(e·p) above (one evaluation a
 * pixel, not a value). Where v or v′ sits at or below the toe (0.04045), or a value or gain is
 * outside the curves' range, the vector takes the exact decode, gain and encode instead. */
static inline float rk_root24_scalar(float g) {
    if (g >= 0.001953125f && g < 128.0f) return rk_power1(g, 0);
    return g > 0 ? powf(g, 1.0f / 2.4f) : 0.0f;
}

static float rk_gain_exact(float v, float g) {
    float x = v;
    uint8_t outside;
    rk_srgb_one(&x, 1, &outside);
    if (outside) x = (v < 0 ? -1.0f : 1.0f) * powf((fabsf(v) + 0.055f) / 1.055f, 2.4f);
    float y = x * g;
    float e = y;
    rk_srgb_one(&e, 0, &outside);
    if (outside) e = (y < 0 ? -1.0f : 1.0f) * (1.055f * powf(fabsf(y), 1.0f / 2.4f) - 0.055f);
    return e;
}

static void rk_gain_one(float *r, float *g, float *b, float gain) {
    float root = rk_root24_scalar(gain);
    float *c[3] = {r, g, b};
    int above = 1;
    float f[3];
    for (int k = 0; k < 3; k++) {
        float a = fabsf(*c[k]);
        f[k] = root * (a + 0.055f) - 0.055f;
        above &= a > 0.04045f && f[k] > 0.04045f && a < 16.0f;
    }
    for (int k = 0; k < 3; k++) *c[k] = above ? copysignf(f[k], *c[k]) : rk_gain_exact(*c[k], gain);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* Eight magnitudes a (< 16) decoded, scaled by g and encoded again, each side's toe exact; lanes
 * whose scaled light reaches 16 are flagged in *outside for the scalar path. */
__attribute__((target("avx2,fma")))
static inline __m256 rk_gain_exact8(__m256 a, __m256 g, int *outside) {
    const __m256 offset = _mm256_set1_ps(0.055f);
    __m256 lin = _mm256_blendv_ps(rk_power8(_mm256_mul_ps(_mm256_add_ps(a, offset), _mm256_set1_ps(1.0f / 1.055f)), 1),
                                  _mm256_mul_ps(a, _mm256_set1_ps(1.0f / 12.92f)), _mm256_cmp_ps(a, _mm256_set1_ps(0.04045f), _CMP_LE_OQ));
    __m256 y = _mm256_mul_ps(lin, g);
    *outside = _mm256_movemask_ps(_mm256_cmp_ps(y, _mm256_set1_ps(16.0f), _CMP_NLT_UQ));
    __m256 safe = _mm256_max_ps(y, _mm256_set1_ps(0.0031308f));
    __m256 curve = _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(1.055f), rk_power8(safe, 0)), offset);
    return _mm256_blendv_ps(curve, _mm256_mul_ps(y, _mm256_set1_ps(12.92f)), _mm256_cmp_ps(y, _mm256_set1_ps(0.0031308f), _CMP_LE_OQ));
}

/* From planes sr, sg, sb into r, g, b (the same planes for in place: every group's values are
 * read before its results are written). */
/* The rows shadows/highlights scales were read some 240 rows before its mask was ready, so they
 * come back from L3 or memory: a third of the gain loop's samples sat on its loads. Both bodies
 * ask for them 256 values (1 KiB a plane) ahead. basic-corrections' gains: 50 → 37 and 77 → 60 ms
 * of CPU with AVX-512, 67 → 45 and 60 → 51 with AVX2 (that body alone); warm-portrait's 57 → 51
 * and 71 → 67 (perf, 10 alternating runs each). */
static inline void rk_gain_prefetch(const float *sr, const float *sg, const float *sb, int k, int count) {
    if (k + 256 < count) {
        _mm_prefetch((const char *)(sr + k + 256), _MM_HINT_T0);
        _mm_prefetch((const char *)(sg + k + 256), _MM_HINT_T0);
        _mm_prefetch((const char *)(sb + k + 256), _MM_HINT_T0);
    }
}

__attribute__((target("avx2,fma")))
static int rk_encoded_gain_avx2(const float *sr, const float *sg, const float *sb, float *r, float *g, float *b,
                                const float *gain, int count) {
    const __m256 signMask = _mm256_set1_ps(-0.0f), toe = _mm256_set1_ps(0.04045f), offset = _mm256_set1_ps(0.055f);
    const __m256 low = _mm256_set1_ps(0.001953125f), high = _mm256_set1_ps(128.0f), sixteen = _mm256_set1_ps(16.0f);
    const float *sources[3] = {sr, sg, sb};
    float *planes[3] = {r, g, b};
    const int inPlace = sr == r;
    int k = 0;
    for (; k + 8 <= count; k += 8) {
        rk_gain_prefetch(sr, sg, sb, k, count);
        __m256 gv = _mm256_loadu_ps(gain + k);
        __m256 vr = _mm256_loadu_ps(sr + k), vg = _mm256_loadu_ps(sg + k), vb = _mm256_loadu_ps(sb + k);
        /* Gains of 1 (a vignette's centre, often half the picture) leave the values as they are. */
        if (_mm256_movemask_ps(_mm256_cmp_ps(gv, _mm256_set1_ps(1.0f), _CMP_EQ_OQ)) == 0xFF) {
            if (!inPlace) { _mm256_storeu_ps(r + k, vr); _mm256_storeu_ps(g + k, vg); _mm256_storeu_ps(b + k, vb); }
            continue;
        }
        /* A gain outside the polynomial's range (0 at a full vignette's corner): the pixels one
         * by one. */
        if (_mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(gv, low, _CMP_GE_OQ), _mm256_cmp_ps(gv, high, _CMP_LT_OQ))) != 0xFF) {
            if (!inPlace) { _mm256_storeu_ps(r + k, vr); _mm256_storeu_ps(g + k, vg); _mm256_storeu_ps(b + k, vb); }
            for (int j = 0; j < 8; j++) rk_gain_one(r + k + j, g + k + j, b + k + j, gain[k + j]);
            continue;
        }
        __m256 root = rk_power8(gv, 0);
        /* The common case first: every value of the eight pixels positive, above the toe and
         * below 16, and so is the darkest result (the map is increasing). */
        __m256 lo = _mm256_min_ps(vr, _mm256_min_ps(vg, vb)), hi = _mm256_max_ps(vr, _mm256_max_ps(vg, vb));
        __m256 darkest = _mm256_fmsub_ps(root, _mm256_add_ps(lo, offset), offset);
        __m256 plain = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(lo, toe, _CMP_GT_OQ), _mm256_cmp_ps(darkest, toe, _CMP_GT_OQ)),
                                     _mm256_cmp_ps(hi, sixteen, _CMP_LT_OQ));
        if (_mm256_movemask_ps(plain) == 0xFF) {
            _mm256_storeu_ps(r + k, _mm256_fmsub_ps(root, _mm256_add_ps(vr, offset), offset));
            _mm256_storeu_ps(g + k, _mm256_fmsub_ps(root, _mm256_add_ps(vg, offset), offset));
            _mm256_storeu_ps(b + k, _mm256_fmsub_ps(root, _mm256_add_ps(vb, offset), offset));
            continue;
        }
        for (int c = 0; c < 3; c++) {
            __m256 v = _mm256_loadu_ps(sources[c] + k);
            __m256 a = _mm256_andnot_ps(signMask, v);
            __m256 f = _mm256_fmsub_ps(root, _mm256_add_ps(a, offset), offset);
            /* Above the toe on both sides: the affine map. In the toe on both sides: the light is
             * the value over 12.92 either way, so the value times the gain. */
            __m256 above = _mm256_and_ps(_mm256_cmp_ps(a, toe, _CMP_GT_OQ), _mm256_cmp_ps(f, toe, _CMP_GT_OQ));
            __m256 scaled = _mm256_mul_ps(a, gv);
            __m256 below = _mm256_and_ps(_mm256_cmp_ps(a, toe, _CMP_LE_OQ), _mm256_cmp_ps(scaled, toe, _CMP_LE_OQ));
            __m256 out = _mm256_blendv_ps(scaled, f, above);
            int settled = _mm256_movemask_ps(_mm256_or_ps(above, below)) & _mm256_movemask_ps(_mm256_cmp_ps(a, sixteen, _CMP_LT_OQ));
            if (settled != 0xFF) {
                /* Across the toe (or NaN, or beyond the curves' range): decode, gain, encode. */
                int outside = 0;
                __m256 exact = rk_gain_exact8(_mm256_min_ps(a, _mm256_set1_ps(15.0f)), gv, &outside);
                out = _mm256_blendv_ps(exact, out, _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                    _mm256_and_si256(_mm256_set1_epi32(settled), _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128)), _mm256_setzero_si256())));
                int scalar = (outside | _mm256_movemask_ps(_mm256_cmp_ps(a, sixteen, _CMP_NLT_UQ))) & ~settled;
                if (scalar) {
                    float lanes[8];
                    _mm256_storeu_ps(lanes, out);
                    for (int j = 0; j < 8; j++)
                        if ((scalar >> j) & 1) lanes[j] = fabsf(rk_gain_exact(sources[c][k + j], gain[k + j]));
                    out = _mm256_loadu_ps(lanes);
                }
            }
            _mm256_storeu_ps(planes[c] + k, _mm256_or_ps(out, _mm256_and_ps(v, signMask)));
        }
    }
    return k;
}
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* The AVX2 body sixteen pixels at a time, lane for lane the same operations, so the same floats:
 * a lane's result depends only on its own value and gain, except where a group of eight has
 * gains of exactly 1 or outside the polynomial's range (the group left alone, or taken pixel by
 * pixel); a block of sixteen whose halves differ there goes to the AVX2 body. Fewer instructions
 * and branches a pixel: basic-corrections' shadows/highlights spent 38 ms of its 81 ms thread here. */
__attribute__((target("avx512f,avx512dq")))
static inline __m512 rk_gain_exact16(__m512 a, __m512 g, __mmask16 *outside) {
    const __m512 offset = _mm512_set1_ps(0.055f);
    __m512 lin = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(0.04045f), _CMP_LE_OQ),
                                      rk_power16(_mm512_mul_ps(_mm512_add_ps(a, offset), _mm512_set1_ps(1.0f / 1.055f)), 1),
                                      _mm512_mul_ps(a, _mm512_set1_ps(1.0f / 12.92f)));
    __m512 y = _mm512_mul_ps(lin, g);
    *outside = _mm512_cmp_ps_mask(y, _mm512_set1_ps(16.0f), _CMP_NLT_UQ);
    __m512 safe = _mm512_max_ps(y, _mm512_set1_ps(0.0031308f));
    __m512 curve = _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(1.055f), rk_power16(safe, 0)), offset);
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(y, _mm512_set1_ps(0.0031308f), _CMP_LE_OQ), curve,
                                _mm512_mul_ps(y, _mm512_set1_ps(12.92f)));
}

__attribute__((target("avx512f,avx512dq")))
static int rk_encoded_gain_avx512(const float *sr, const float *sg, const float *sb, float *r, float *g, float *b,
                                  const float *gain, int count) {
    const __m512 signMask = _mm512_set1_ps(-0.0f), toe = _mm512_set1_ps(0.04045f), offset = _mm512_set1_ps(0.055f);
    const __m512 low = _mm512_set1_ps(0.001953125f), high = _mm512_set1_ps(128.0f), sixteen = _mm512_set1_ps(16.0f);
    const __m512 onef = _mm512_set1_ps(1.0f);
    const float *sources[3] = {sr, sg, sb};
    float *planes[3] = {r, g, b};
    const int inPlace = sr == r;
    int k = 0;
    for (; k + 16 <= count; k += 16) {
        rk_gain_prefetch(sr, sg, sb, k, count);
        __m512 gv = _mm512_loadu_ps(gain + k);
        __mmask16 ones = _mm512_cmp_ps_mask(gv, onef, _CMP_EQ_OQ);
        __mmask16 inRange = _mm512_cmp_ps_mask(gv, low, _CMP_GE_OQ) & _mm512_cmp_ps_mask(gv, high, _CMP_LT_OQ);
        if (ones == 0xFFFF) {
            if (!inPlace) {
                _mm512_storeu_ps(r + k, _mm512_loadu_ps(sr + k));
                _mm512_storeu_ps(g + k, _mm512_loadu_ps(sg + k));
                _mm512_storeu_ps(b + k, _mm512_loadu_ps(sb + k));
            }
            continue;
        }
        /* A half of gains of 1, or a gain outside the polynomial's range: the AVX2 body's groups. */
        if ((ones & 0xFF) == 0xFF || (ones >> 8) == 0xFF || inRange != 0xFFFF) {
            rk_encoded_gain_avx2(sr + k, sg + k, sb + k, r + k, g + k, b + k, gain + k, 16);
            continue;
        }
        __m512 vr = _mm512_loadu_ps(sr + k), vg = _mm512_loadu_ps(sg + k), vb = _mm512_loadu_ps(sb + k);
        __m512 root = rk_power16(gv, 0);
        __m512 lo = _mm512_min_ps(vr, _mm512_min_ps(vg, vb)), hi = _mm512_max_ps(vr, _mm512_max_ps(vg, vb));
        __m512 darkest = _mm512_fmsub_ps(root, _mm512_add_ps(lo, offset), offset);
        __mmask16 plain = _mm512_cmp_ps_mask(lo, toe, _CMP_GT_OQ) & _mm512_cmp_ps_mask(darkest, toe, _CMP_GT_OQ)
                        & _mm512_cmp_ps_mask(hi, sixteen, _CMP_LT_OQ);
        if (plain == 0xFFFF) {
            _mm512_storeu_ps(r + k, _mm512_fmsub_ps(root, _mm512_add_ps(vr, offset), offset));
            _mm512_storeu_ps(g + k, _mm512_fmsub_ps(root, _mm512_add_ps(vg, offset), offset));
            _mm512_storeu_ps(b + k, _mm512_fmsub_ps(root, _mm512_add_ps(vb, offset), offset));
            continue;
        }
        for (int c = 0; c < 3; c++) {
            __m512 v = _mm512_loadu_ps(sources[c] + k);
            __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(_mm512_castps_si512(signMask), _mm512_castps_si512(v)));
            __m512 f = _mm512_fmsub_ps(root, _mm512_add_ps(a, offset), offset);
            __mmask16 above = _mm512_cmp_ps_mask(a, toe, _CMP_GT_OQ) & _mm512_cmp_ps_mask(f, toe, _CMP_GT_OQ);
            __m512 scaled = _mm512_mul_ps(a, gv);
            __mmask16 below = _mm512_cmp_ps_mask(a, toe, _CMP_LE_OQ) & _mm512_cmp_ps_mask(scaled, toe, _CMP_LE_OQ);
            __m512 out = _mm512_mask_blend_ps(above, scaled, f);
            __mmask16 settled = (above | below) & _mm512_cmp_ps_mask(a, sixteen, _CMP_LT_OQ);
            if (settled != 0xFFFF) {
                __mmask16 outside;
                __m512 exact = rk_gain_exact16(_mm512_min_ps(a, _mm512_set1_ps(15.0f)), gv, &outside);
                out = _mm512_mask_blend_ps(settled, exact, out);
                __mmask16 scalar = (outside | _mm512_cmp_ps_mask(a, sixteen, _CMP_NLT_UQ)) & (__mmask16)~settled;
                if (scalar) {
                    float lanes[16];
                    _mm512_storeu_ps(lanes, out);
                    for (int j = 0; j < 16; j++)
                        if ((scalar >> j) & 1) lanes[j] = fabsf(rk_gain_exact(sources[c][k + j], gain[k + j]));
                    out = _mm512_loadu_ps(lanes);
                }
            }
            _mm512_storeu_ps(planes[c] + k, _mm512_castsi512_ps(_mm512_or_si512(
                _mm512_castps_si512(out), _mm512_and_si512(_mm512_castps_si512(v), _mm512_castps_si512(signMask)))));
        }
    }
    return k;
}
#endif

/* The AVX2 body's operations one lane at a time, its decisions taken over the same groups of
 * eight pixels (the row's tail a shorter group), so a CPU without AVX2 gets the same floats. */
static inline float rk_gain_exact1(float a, float g, int *outside) {
    float lin = a <= 0.04045f ? a * (1.0f / 12.92f) : rk_power1((a + 0.055f) * (1.0f / 1.055f), 1);
    float y = lin * g;
    *outside = !(y < 16.0f);
    float safe = y > 0.0031308f ? y : 0.0031308f;
    float curve = 1.055f * rk_power1(safe, 0) - 0.055f;
    return y <= 0.0031308f ? y * 12.92f : curve;
}

static void rk_encoded_gain_group(float *r, float *g, float *b, const float *gain, int n) {
    const float toe = 0.04045f, offset = 0.055f;
    int ones = 1, inRange = 1;
    for (int j = 0; j < n; j++) {
        ones &= gain[j] == 1.0f;
        inRange &= gain[j] >= 0.001953125f && gain[j] < 128.0f;
    }
    if (ones) return;
    if (!inRange) {
        for (int j = 0; j < n; j++) rk_gain_one(r + j, g + j, b + j, gain[j]);
        return;
    }
    float root[8];
    int plain = 1;
    for (int j = 0; j < n; j++) {
        root[j] = rk_power1(gain[j], 0);
        float m1 = g[j] < b[j] ? g[j] : b[j], lo = r[j] < m1 ? r[j] : m1;
        float n1 = g[j] > b[j] ? g[j] : b[j], hi = r[j] > n1 ? r[j] : n1;
        float darkest = fmaf(root[j], lo + offset, -offset);
        plain &= lo > toe && darkest > toe && hi < 16.0f;
    }
    float *planes[3] = {r, g, b};
    for (int c = 0; c < 3; c++) {
        float *p = planes[c];
        for (int j = 0; j < n; j++) {
            float v = p[j];
            if (plain) {
                p[j] = fmaf(root[j], v + offset, -offset);
                continue;
            }
            float a = fabsf(v), f = fmaf(root[j], a + offset, -offset), scaled = a * gain[j];
            int above = a > toe && f > toe, below = a <= toe && scaled <= toe;
            float out = above ? f : scaled;
            if (!((above || below) && a < 16.0f)) {
                int outside;
                out = rk_gain_exact1(a < 15.0f ? a : 15.0f, gain[j], &outside);
                if (outside || !(a < 16.0f)) out = fabsf(rk_gain_exact(v, gain[j]));
            }
            p[j] = copysignf(out, v);
        }
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
static int rk_has_avx512_gain(void) {
    return rk_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}
#endif

static void rk_encoded_gain_plain(float *r, float *g, float *b, const float *gain, int count, int from) {
    for (int k = from; k < count; k += 8) rk_encoded_gain_group(r + k, g + k, b + k, gain + k, count - k < 8 ? count - k : 8);
}

void rk_encoded_gain(float *r, float *g, float *b, const float *gain, int count) {
    int k = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx512_gain()) k = rk_encoded_gain_avx512(r, g, b, r, g, b, gain, count);
    if (rk_has_avx2()) k += rk_encoded_gain_avx2(r + k, g + k, b + k, r + k, g + k, b + k, gain + k, count - k);
#endif
    rk_encoded_gain_plain(r, g, b, gain, count, k);
}

void rk_encoded_gain_from(const float *fr, const float *fg, const float *fb, float *r, float *g, float *b, const float *gain,
                          int count) {
    int k = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx512_gain()) k = rk_encoded_gain_avx512(fr, fg, fb, r, g, b, gain, count);
    if (rk_has_avx2()) k += rk_encoded_gain_avx2(fr + k, fg + k, fb + k, r + k, g + k, b + k, gain + k, count - k);
#endif
    /* The rest (a row's last pixels, or all of it without AVX2) copied, then in place. */
    memcpy(r + k, fr + k, (size_t)(count - k) * sizeof(float));
    memcpy(g + k, fg + k, (size_t)(count - k) * sizeof(float));
    memcpy(b + k, fb + k, (size_t)(count - k) * sizeof(float));
    rk_encoded_gain_plain(r, g, b, gain, count, k);
}

void rk_encoded_gain_without_avx2(float *r, float *g, float *b, const float *gain, int count) {
    rk_encoded_gain_plain(r, g, b, gain, count, 0);
}

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
