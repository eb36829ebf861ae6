/* A 3D LUT's tetrahedral interpolation over a point pass's planes (PointProgram.swift's
 * lookup3D): scalar, AVX2. */
#include "Common.h"

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
