/* The sRGB transfer curves without a table (ChannelTables.swift), and a gain on linear light
 * applied to sRGB-encoded values, which evaluates the curves' polynomials (EncodedGain.swift):
 * plain, AVX2, AVX-512. */
#include "Common.h"

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
