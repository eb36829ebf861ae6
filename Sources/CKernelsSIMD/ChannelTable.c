/* A channel's table looked up (ChannelTables.swift): linear interpolation over its log-spaced
 * nodes, by an AVX2 gather where the CPU has it and a plain loop elsewhere. */
#include "Common.h"

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
#endif

int rk_channel_table_apply(const float *half, int entries, float *plane, int count, uint8_t *outside) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) return rk_apply_avx2(half, entries, plane, count, outside);
#endif
    return rk_apply_scalar(half, entries, plane, count, outside);
}
