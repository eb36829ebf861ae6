/* A fused 8-bit pass's colour cache (PixelCache.swift, PointProgram.swift): the lookup (plain,
 * AVX-512), the prefill and the fill. */
#include "Common.h"

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
