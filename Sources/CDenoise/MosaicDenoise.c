/* The raw develop's denoise of a Bayer mosaic (CDenoise.h), a band of rows at a time.
 *
 * Each sample's noise is Poisson–Gaussian: variance = gain · signal + floor in raw units above
 * black. The generalised Anscombe transform (Murtagh, Starck and Bijaoui 1995) makes it about 1
 * whatever the level: t = 2 √(u + 3/8 + σ²), with u = signal / gain and σ² = floor / gain². Each
 * 2×2 cell's four transformed samples then go through an orthonormal transform (so the noise
 * stays 1 in each): luma Y = (R + B + G1 + G2)/2, the green difference (G1 − G2)/√2 (diagonal
 * detail, denoised as luma), and two chroma planes (R − B)/√2 and (R + B − G1 − G2)/2. Each
 * plane, a quarter of the mosaic's samples, goes through the plane denoiser (DCTDenoise.c) at a
 * threshold of 2.7 (BM3D's hard threshold for unit noise) times its strength; then the transform
 * back, and the closed-form approximation of the exact unbiased inverse of the Anscombe transform
 * (Mäkitalo and Foi 2011/2013), which the plain algebraic inverse would bias in the shadows. */
#include "CDenoise.h"

#include <math.h>
#include <string.h>

#define MARGIN 8            /* cells around a band the plane denoiser reads */
#define HARD_THRESHOLD 2.7f /* BM3D's λ for unit noise */

static inline int mirror(int i, int n) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

size_t rcp_mosaic_denoise_scratch(int width, int rows) {
    int w = (width + 1) / 2 + 2 * MARGIN, h = (rows + 1) / 2 + 1 + 2 * MARGIN;
    return 5 * (size_t)w * h + rcp_dct_denoise_scratch(w, h) + 64;
}

/* The closed-form approximation of the exact unbiased inverse of the generalised Anscombe
 * transform: u from the denoised D, σ² the Gaussian part in Poisson units. */
static inline float inverse_anscombe(float D, float s2) {
    const float a = 0.30618621784789724f; /* √(3/2) / 4 */
    const float c = 0.76546554461974310f; /* 5 √(3/2) / 8 */
    if (D < 1) D = 1;
    float r = 1 / D;
    return 0.25f * D * D + a * r - 1.375f * r * r + c * r * r * r - 0.125f - s2;
}

void rcp_mosaic_denoise_rows(const rcp_mosaic_denoise *d, int y0, int y1, uint16_t *out, size_t stride, float *scratch) {
    const int W = d->width, H = d->height;
    const int cy0 = y0 / 2, cy1 = (y1 + 1) / 2, cw = (W + 1) / 2;
    const int w = cw + 2 * MARGIN, h = cy1 - cy0 + 2 * MARGIN;
    const size_t n = (size_t)w * h;
    float *P[5] = {scratch, scratch + n, scratch + 2 * n, scratch + 3 * n, scratch + 4 * n};
    float *work = scratch + 5 * n;
    const float gain = d->gain, s2 = d->floor / (gain * gain), offset = 0.375f + s2;
    /* The positions of red, blue and the two greens in a cell. */
    int pr = 0, pb = 3, pg[2] = {1, 2}, g = 0;
    for (int p = 0; p < 4; p++) {
        if (d->pattern[p] == 0) pr = p;
        else if (d->pattern[p] == 2) pb = p;
        else if (g < 2) pg[g++] = p;
    }
    const float h2 = 0.70710678118654752f;
    /* 1. The cells, transformed, with their margins mirrored. */
    for (int j = 0; j < h; j++) {
        const int c = cy0 - MARGIN + j;
        const uint16_t *rows[2] = {
            d->raw + (size_t)(mirror(2 * c, H) + d->top) * d->raw_pitch + d->left,
            d->raw + (size_t)(mirror(2 * c + 1, H) + d->top) * d->raw_pitch + d->left,
        };
        for (int i = 0; i < w; i++) {
            const int cc = i - MARGIN;
            const int x[2] = {mirror(2 * cc, W), mirror(2 * cc + 1, W)};
            float t[4];
            for (int p = 0; p < 4; p++) {
                float u = ((float)rows[p >> 1][x[p & 1]] - d->black[p]) / gain + offset;
                t[p] = 2 * sqrtf(u > 0 ? u : 0);
            }
            const size_t at = (size_t)j * w + i;
            P[0][at] = 0.5f * (t[0] + t[1] + t[2] + t[3]);
            P[1][at] = h2 * (t[pg[0]] - t[pg[1]]);
            P[2][at] = h2 * (t[pr] - t[pb]);
            P[3][at] = 0.5f * (t[pr] + t[pb] - t[pg[0]] - t[pg[1]]);
        }
    }
    /* 2. Each plane denoised (luma and the green difference at the luma strength), the result
     * taking the place of its source (P[4] the spare). */
    for (int q = 0; q < 4; q++) {
        const float strength = q < 2 ? d->luma : d->chroma;
        if (strength <= 0) continue;
        /* The chroma planes are smooth: their patches every 4 rows (a quarter of the work
         * saved for 0.1 dB on the native Kodak mosaics). */
        rcp_dct_denoise(P[q], P[4], w, h, w, HARD_THRESHOLD * strength, q < 2 ? 2 : 4, work);
        float *t = P[q];
        P[q] = P[4];
        P[4] = t;
    }
    /* 3. Back: the transform's transpose, the inverse Anscombe transform, black added. */
    for (int c = cy0; c < cy1; c++) {
        const size_t at = (size_t)(c - cy0 + MARGIN) * w + MARGIN;
        for (int r = 0; r < 2; r++) {
            const int y = 2 * c + r;
            if (y < y0 || y >= y1 || y >= H) continue;
            uint16_t *o = out + (size_t)(y - y0) * stride;
            for (int cc = 0; cc < cw; cc++) {
                const float Y = 0.5f * P[0][at + cc], G = h2 * P[1][at + cc], R = h2 * P[2][at + cc], S = 0.5f * P[3][at + cc];
                float t[4];
                t[pr] = Y + R + S;
                t[pb] = Y - R + S;
                t[pg[0]] = Y - S + G;
                t[pg[1]] = Y - S - G;
                for (int s = 0; s < 2; s++) {
                    const int x = 2 * cc + s;
                    if (x >= W) break;
                    const int p = r * 2 + s;
                    float v = gain * inverse_anscombe(t[p], s2) + d->black[p];
                    v = v < 0 ? 0 : v > 65535 ? 65535 : v;
                    o[x] = (uint16_t)(v + 0.5f);
                }
            }
        }
    }
}
