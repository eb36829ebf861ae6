/* The colour controls that work in OKLab / OKLCh (ColorMixer.swift, ColorGrade.swift,
 * MaskShape.swift): the colour mixer, colour grading and the colour-range mask's weights, on a
 * point pass's planes of linear-light sRGB. Plain and AVX2 variants share one body each, written
 * without branches (selects only) so that the compiler vectorises it; the functions it calls
 * (a cube root, atan2, sine and cosine of small angles) are polynomials here rather than libm's,
 * which does not vectorise. They agree with the double-precision references in Swift
 * (PointStep.reference, MaskShape.weight) to about 1e-5; the AVX2 variant gives the plain one's
 * floats (the same operations in the same order, no contraction).
 *
 * OKLab is Björn Ottosson's (2020): linear sRGB → LMS (M1), cube roots, → Lab (M2), and back with
 * the inverses. The matrices are his published ones. */
#include "Common.h"
#include <stdint.h>

static const float rk_m1[9] = {0.4122214708f, 0.5363325363f, 0.0514459929f,
                               0.2119034982f, 0.6806995451f, 0.1073969566f,
                               0.0883024619f, 0.2817188376f, 0.6299787005f};
static const float rk_m2[9] = {0.2104542553f, 0.7936177850f, -0.0040720468f,
                               1.9779984951f, -2.4285922050f, 0.4505937099f,
                               0.0259040371f, 0.7827717662f, -0.8086757660f};
static const float rk_m2_inverse[9] = {1.0f, 0.3963377774f, 0.2158037573f,
                                       1.0f, -0.1055613458f, -0.0638541728f,
                                       1.0f, -0.0894841775f, -1.2914855480f};
static const float rk_m1_inverse[9] = {4.0767416621f, -3.3077115913f, 0.2309699292f,
                                       -1.2684380046f, 2.6097574011f, -0.3413193965f,
                                       -0.0041960863f, -0.7034186147f, 1.7076147010f};

/* The real cube root with the input's sign: an estimate from the float's bits (the exponent
 * divided by three, through a float so that the division vectorises), then two Halley steps
 * (each triples the correct digits: 5 % → 1e-4 → 1e-12). 0 stays 0. */
static inline float rk_cbrt(float v) {
    float x = fabsf(v);
    int32_t bits;
    __builtin_memcpy(&bits, &x, 4);
    bits = (int32_t)((float)bits * (1.0f / 3)) + 0x2a514067;
    float y;
    __builtin_memcpy(&y, &bits, 4);
    float y3 = y * y * y;
    y = y * (y3 + 2 * x) / (2 * y3 + x);
    y3 = y * y * y;
    y = y * (y3 + 2 * x) / (2 * y3 + x);
    y = x > 0 ? y : 0.0f;
    return v < 0 ? -y : y;
}

/* atan2(y, x) in degrees, in [0, 360): the octant reduced to t in [0, 1], atan(t) from Hastings'
 * odd polynomial of degree 11 (error under 1e-5 rad), the octant put back. atan2(0, 0) is 0. */
static inline float rk_hue_degrees(float y, float x) {
    float ax = fabsf(x), ay = fabsf(y);
    float hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax;
    float t = lo / (hi > 1e-30f ? hi : 1e-30f);
    float s = t * t;
    float r = t * (0.99997726f + s * (-0.33262347f + s * (0.19354346f + s * (-0.11643287f + s * (0.05265332f + s * -0.01172120f)))));
    r = ay > ax ? 1.57079632679f - r : r;
    r = x < 0 ? 3.14159265359f - r : r;
    r = y < 0 ? -r : r;
    float h = r * 57.2957795131f;
    h = h < 0 ? h + 360 : h;
    return h >= 360 ? h - 360 : h;
}

/* smoothstep(e0, e1, v): 3t² − 2t³ of t = (v − e0)/(e1 − e0) clamped to [0, 1] (e1 > e0). */
static inline float rk_smooth(float e0, float e1, float v) {
    float t = (v - e0) / (e1 - e0);
    t = t < 0 ? 0.0f : t;
    t = t > 1 ? 1.0f : t;
    return t * t * (3 - 2 * t);
}

/* The same with 1/(e1 − e0) given (`inverse`): a product where the edges are the loop's
 * constants, instead of a division a pixel (a vector division costs what ten products do). */
static inline float rk_smooth_inv(float e0, float inverse, float v) {
    float t = (v - e0) * inverse;
    t = t < 0 ? 0.0f : t;
    t = t > 1 ? 1.0f : t;
    return t * t * (3 - 2 * t);
}

static inline void rk_to_oklab(float r, float g, float b, float *L, float *A, float *B) {
    float l = rk_cbrt(rk_m1[0] * r + rk_m1[1] * g + rk_m1[2] * b);
    float m = rk_cbrt(rk_m1[3] * r + rk_m1[4] * g + rk_m1[5] * b);
    float s = rk_cbrt(rk_m1[6] * r + rk_m1[7] * g + rk_m1[8] * b);
    *L = rk_m2[0] * l + rk_m2[1] * m + rk_m2[2] * s;
    *A = rk_m2[3] * l + rk_m2[4] * m + rk_m2[5] * s;
    *B = rk_m2[6] * l + rk_m2[7] * m + rk_m2[8] * s;
}

static inline void rk_from_oklab(float L, float A, float B, float *r, float *g, float *b) {
    float l = rk_m2_inverse[0] * L + rk_m2_inverse[1] * A + rk_m2_inverse[2] * B;
    float m = rk_m2_inverse[3] * L + rk_m2_inverse[4] * A + rk_m2_inverse[5] * B;
    float s = rk_m2_inverse[6] * L + rk_m2_inverse[7] * A + rk_m2_inverse[8] * B;
    l = l * l * l;
    m = m * m * m;
    s = s * s * s;
    *r = rk_m1_inverse[0] * l + rk_m1_inverse[1] * m + rk_m1_inverse[2] * s;
    *g = rk_m1_inverse[3] * l + rk_m1_inverse[4] * m + rk_m1_inverse[5] * s;
    *b = rk_m1_inverse[6] * l + rk_m1_inverse[7] * m + rk_m1_inverse[8] * s;
}

/* ---- the colour mixer ------------------------------------------------------------------------
 * Band k's weight rises from 0 at centre k−1 to 1 at centre k and falls to 0 at centre k+1, a
 * smoothstep of the hue's place between the two centres: neighbouring weights sum to 1. The shifts
 * at the pixel's hue are the two bands' values mixed by it, times smoothstep(0.01, 0.04,
 * chroma·min(1, 2L)) (greys, and near-blacks, whose chroma the cube roots inflate, are left alone). The hue interval is found by comparisons, the last band's (from the
 * highest centre round to the lowest) the default. */
#define RK_MIXER_BODY                                                                               \
    float centre[8], inverse[8], hue[9], sat[9], lum[9];                                            \
    for (int k = 0; k < 8; k++) {                                                                   \
        centre[k] = m->centre[k], inverse[k] = 1 / m->span[k];                                      \
        hue[k] = m->hue[k], sat[k] = m->saturation[k], lum[k] = m->luminance[k];                    \
    }                                                                                               \
    hue[8] = hue[0], sat[8] = sat[0], lum[8] = lum[0];                                              \
    _Pragma("clang loop vectorize(enable)")                                                         \
    for (int i = 0; i < count; i++) {                                                               \
        float L, A, B;                                                                              \
        rk_to_oklab(r[i], g[i], b[i], &L, &A, &B);                                                  \
        float chroma = sqrtf(A * A + B * B);                                                        \
        float h = rk_hue_degrees(B, A);                                                             \
        float d = h - centre[7];                                                                    \
        d = d < 0 ? d + 360 : d;                                                                    \
        float t = rk_smooth_inv(0, inverse[7], d);                                                  \
        float dh = hue[7] + (hue[8] - hue[7]) * t;                                                  \
        float ds = sat[7] + (sat[8] - sat[7]) * t;                                                  \
        float dl = lum[7] + (lum[8] - lum[7]) * t;                                                  \
        _Pragma("clang loop unroll(full)")                                                          \
        for (int k = 0; k < 7; k++) {                                                               \
            int in = (h >= centre[k]) & (h < centre[k + 1]);                                        \
            float u = rk_smooth_inv(0, inverse[k], h - centre[k]);                                  \
            float nh = hue[k] + (hue[k + 1] - hue[k]) * u;                                          \
            float ns = sat[k] + (sat[k + 1] - sat[k]) * u;                                          \
            float nl = lum[k] + (lum[k + 1] - lum[k]) * u;                                          \
            dh = in ? nh : dh;                                                                      \
            ds = in ? ns : ds;                                                                      \
            dl = in ? nl : dl;                                                                      \
        }                                                                                           \
        float dim = 2 * L < 1 ? 2 * L : 1.0f;                                                       \
        float grey = rk_smooth_inv(0.01f, 1 / 0.03f, chroma * dim);                                 \
        float x = dh * grey, x2 = x * x;                                                            \
        float sn = x * (1 + x2 * (-1.0f / 6 + x2 * (1.0f / 120 + x2 * (-1.0f / 5040))));             \
        float cs = 1 + x2 * (-0.5f + x2 * (1.0f / 24 + x2 * (-1.0f / 720 + x2 * (1.0f / 40320))));   \
        float sc = 1 + ds * grey;                                                                   \
        sc = sc < 0 ? 0.0f : sc;                                                                    \
        float A2 = (A * cs - B * sn) * sc, B2 = (A * sn + B * cs) * sc;                             \
        rk_from_oklab(L * (1 + dl * grey), A2, B2, &r[i], &g[i], &b[i]);                            \
    }
static void rk_color_mixer_plain(float *r, float *g, float *b, int count, const rk_color_mixer *m) { RK_MIXER_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static void rk_color_mixer_avx2(float *restrict r, float *restrict g, float *restrict b, int count, const rk_color_mixer *m) { RK_MIXER_BODY }
#endif

void rk_color_mixer_planes(float *r, float *g, float *b, int count, const rk_color_mixer *m) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) { rk_color_mixer_avx2(r, g, b, count, m); return; }
#endif
    rk_color_mixer_plain(r, g, b, count, m);
}

/* ---- colour grading --------------------------------------------------------------------------
 * The zones' weights from the pixel's lightness x = L clamped to [0, 1]: shadows
 * 1 − smoothstep(shadow_from, shadow_to, x), highlights smoothstep(highlight_from, highlight_to, x),
 * midtones the rest. The weighted tints (and the global one) are added to a and b, times
 * min(1, 4x) (black stays black); the weighted lightness offsets to L. */
#define RK_GRADE_BODY                                                                               \
    const float shadow_inverse = 1 / (q->shadow_to - q->shadow_from);                               \
    const float highlight_inverse = 1 / (q->highlight_to - q->highlight_from);                      \
    for (int i = 0; i < count; i++) {                                                               \
        float L, A, B;                                                                              \
        rk_to_oklab(r[i], g[i], b[i], &L, &A, &B);                                                  \
        float x = L < 0 ? 0.0f : (L > 1 ? 1.0f : L);                                                \
        float ws = 1 - rk_smooth_inv(q->shadow_from, shadow_inverse, x);                            \
        float wh = rk_smooth_inv(q->highlight_from, highlight_inverse, x);                          \
        float wm = 1 - ws - wh;                                                                     \
        float da = ws * q->a[0] + wm * q->a[1] + wh * q->a[2] + q->a[3];                            \
        float db = ws * q->b[0] + wm * q->b[1] + wh * q->b[2] + q->b[3];                            \
        float dl = ws * q->lightness[0] + wm * q->lightness[1] + wh * q->lightness[2] + q->lightness[3]; \
        float k = 4 * x;                                                                            \
        k = k > 1 ? 1.0f : k;                                                                       \
        rk_from_oklab(L + dl, A + da * k, B + db * k, &r[i], &g[i], &b[i]);                         \
    }
static void rk_color_grade_plain(float *r, float *g, float *b, int count, const rk_color_grade *q) { RK_GRADE_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static void rk_color_grade_avx2(float *restrict r, float *restrict g, float *restrict b, int count, const rk_color_grade *q) { RK_GRADE_BODY }
#endif

void rk_color_grade_planes(float *r, float *g, float *b, int count, const rk_color_grade *q) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) { rk_color_grade_avx2(r, g, b, count, q); return; }
#endif
    rk_color_grade_plain(r, g, b, count, q);
}

/* ---- the colour-range mask -------------------------------------------------------------------
 * The product of three bands: the hue's (inside the arc from hue_from over hue_width degrees 1,
 * outside 1 − smoothstep(0, feather, the distance to the arc), or 0 with no feather; 1 everywhere
 * for a whole circle), the chroma's and the lightness's (1 in [low, high], smoothstep fades of
 * width feather beyond, hard edges with no feather). */
static inline float rk_band(float v, float low, float high, float feather) {
    float rise = feather > 0 ? rk_smooth(low - feather, low, v) : (v >= low ? 1.0f : 0.0f);
    float fall = feather > 0 ? 1 - rk_smooth(high, high + feather, v) : (v <= high ? 1.0f : 0.0f);
    return rise * fall;
}

#define RK_RANGE_BODY                                                                               \
    _Pragma("clang loop vectorize(enable)")                                                         \
    for (int i = 0; i < count; i++) {                                                               \
        float L, A, B;                                                                              \
        rk_to_oklab(r[i], g[i], b[i], &L, &A, &B);                                                  \
        float chroma = sqrtf(A * A + B * B);                                                        \
        float d = rk_hue_degrees(B, A) - q->hue_from;                                               \
        d = d < 0 ? d + 360 : d;                                                                    \
        float outside = d - q->hue_width;                                                           \
        float back = 360 - d;                                                                       \
        outside = back < outside ? back : outside;                                                  \
        float wh = d <= q->hue_width ? 1.0f                                                         \
                 : (q->hue_feather > 0 ? 1 - rk_smooth(0, q->hue_feather, outside) : 0.0f);          \
        wh = q->whole_circle ? 1.0f : wh;                                                           \
        w[i] = wh * rk_band(chroma, q->chroma_low, q->chroma_high, q->chroma_feather)               \
                  * rk_band(L, q->lightness_low, q->lightness_high, q->lightness_feather);          \
    }
static void rk_color_range_plain(const float *r, const float *g, const float *b, int count, const rk_color_range *q, float *w) { RK_RANGE_BODY }
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
static void rk_color_range_avx2(const float *restrict r, const float *restrict g, const float *restrict b, int count,
                                const rk_color_range *q, float *restrict w) { RK_RANGE_BODY }
#endif

void rk_color_range_weights(const float *r, const float *g, const float *b, int count, const rk_color_range *q, float *w) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (rk_has_avx2()) { rk_color_range_avx2(r, g, b, count, q, w); return; }
#endif
    rk_color_range_plain(r, g, b, count, q, w);
}
