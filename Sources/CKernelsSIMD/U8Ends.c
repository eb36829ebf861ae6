/* The 8-bit ends of a point pass (PointProgram.swift): interleaved RGB codes loaded into float
 * planes (plain, AVX2, AVX-512 VBMI), and stored back through a table (plain, AVX2), as a
 * search (AVX-512) or without a table (plain, AVX2). */
#include "Common.h"
#include <pthread.h>

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
