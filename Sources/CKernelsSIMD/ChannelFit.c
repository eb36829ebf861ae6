/* A channel's table as polynomials (ChannelFit.swift makes them, ChannelTables.swift applies
 * them): AVX-512 VBMI where the CPU has it, the table's lookups (ChannelTable.c) elsewhere. */
#include "Common.h"

/* ---- A channel's table as polynomials (ChannelFit.swift) ------------------------------------
 * On these Zen 4 machines a gathered element costs about as much as a whole curve: the lookups
 * (ChannelTable.c) spend 0.7 ns a value, most of it in the gathers. Where the CPU has AVX-512 VBMI, the
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
