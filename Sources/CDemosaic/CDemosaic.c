/* recipe's Bayer demosaic: see CDemosaic.h. Written here rather than taken from LibRaw because
 * LibRaw's demosaics run on the whole image at once (8 bytes a pixel held, no overlap with the
 * rest of the render, one thread for AHD); this one runs strip by strip as the engine asks. */
#include "CDemosaic.h"

#include <math.h>
#include <string.h>

#define PAD 6

size_t rcp_bayer_scratch(int width, int rows) {
    size_t w = (size_t)width + 2 * PAD, h = (size_t)rows + 2 * PAD;
    /* mosaic, green, horizontal and vertical gradients, their sums, two colour differences */
    return 7 * w * h + 64;
}

/* A row or column index mirrored into 0…n−1 about its first and last sample (−1 → 1, n → n − 2),
 * which keeps the pattern's phase. */
static inline int mirror(int i, int n) {
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

void rcp_bayer_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride, float *scratch) {
    const int W = b->width, H = b->height;
    const int rows = y1 - y0;
    const int w = W + 2 * PAD, h = rows + 2 * PAD;
    const size_t n = (size_t)w * h;
    /* mosaic, green, gradients along rows and columns, the horizontal share of each red or blue
     * site's green, and the two colour differences */
    float *F = scratch, *G = F + n, *dh = G + n, *dv = dh + n, *Dh = dv + n, *Kr = Dh + n, *Kb = Kr + n;

    /* 1. The normalised mosaic: (raw − black) × scale, clipped to 0…1, padded by mirroring. */
    for (int j = 0; j < h; j++) {
        int y = mirror(y0 - PAD + j, H);
        const uint16_t *src = b->raw + (size_t)(y + b->top) * b->raw_pitch + b->left;
        float *row = F + (size_t)j * w;
        int p = (y & 1) << 1;
        for (int i = 0; i < w; i++) {
            int x = mirror(i - PAD, W);
            int q = p | (x & 1);
            float v = ((float)src[x] - b->black[q]) * b->scale[q];
            row[i] = v < 0 ? 0 : v > 1 ? 1 : v;
        }
    }
    /* The pattern, relative to the strip's padded grid: row j, column i is visible (y0−PAD+j, i−PAD). */
    const int py = (y0 - PAD) & 1, px = (-PAD) & 1;
    #define COL(j, i) b->pattern[((((j) + py) & 1) << 1) | (((i) + px) & 1)]

    /* 2. Gradients along rows and columns, everywhere two samples of margin allow. */
    for (int j = 0; j < h; j++) {
        float *ph = dh + (size_t)j * w, *pv = dv + (size_t)j * w;
        const float *f = F + (size_t)j * w;
        for (int i = 0; i < w; i++) {
            if (i < 2 || i >= w - 2) { ph[i] = 0; } else {
                ph[i] = fabsf(f[i - 1] - f[i + 1]) + fabsf(2 * f[i] - f[i - 2] - f[i + 2]);
            }
            if (j < 2 || j >= h - 2) { pv[i] = 0; } else {
                pv[i] = fabsf(f[i - w] - f[i + w]) + fabsf(2 * f[i] - f[i - 2 * w] - f[i + 2 * w]);
            }
        }
    }
    /* 3. Green: at green sites the sample; elsewhere Hamilton–Adams along each direction, blended
     * by the inverse squares of the gradients summed over 3×3. */
    for (int j = 0; j < h; j++) {
        float *g = G + (size_t)j * w;
        const float *f = F + (size_t)j * w;
        for (int i = 0; i < w; i++) {
            if (COL(j, i) == 1 || j < 3 || j >= h - 3 || i < 3 || i >= w - 3) { g[i] = f[i]; Dh[(size_t)j * w + i] = 0.5f; continue; }
            float sh = 0, sv = 0;
            for (int dj = -1; dj <= 1; dj++) {
                const float *a = dh + (size_t)(j + dj) * w + i, *c = dv + (size_t)(j + dj) * w + i;
                sh += a[-1] + a[0] + a[1];
                sv += c[-1] + c[0] + c[1];
            }
            float gh = 0.5f * (f[i - 1] + f[i + 1]) + 0.25f * (2 * f[i] - f[i - 2] - f[i + 2]);
            float gv = 0.5f * (f[i - w] + f[i + w]) + 0.25f * (2 * f[i] - f[i - 2 * w] - f[i + 2 * w]);
            float wh = 1 / (1e-6f + sh * sh), wv = 1 / (1e-6f + sv * sv);
            float v = (wh * gh + wv * gv) / (wh + wv);
            /* No overshoot past the four greens around it by more than their spread. */
            float lo = fminf(fminf(f[i - 1], f[i + 1]), fminf(f[i - w], f[i + w]));
            float hi = fmaxf(fmaxf(f[i - 1], f[i + 1]), fmaxf(f[i - w], f[i + w]));
            float spread = hi - lo;
            v = v < lo - spread ? lo - spread : v > hi + spread ? hi + spread : v;
            g[i] = v < 0 ? 0 : v;
            Dh[(size_t)j * w + i] = wh / (wh + wv); /* the horizontal share, for the chroma below */
        }
    }
    /* 4. Colour differences where the colour was sampled, then at the other colour's sites from
     * the four diagonal neighbours (weighted by the diagonal gradients of green). */
    for (size_t k = 0; k < n; k++) { Kr[k] = 0; Kb[k] = 0; }
    for (int j = 0; j < h; j++) {
        for (int i = 0; i < w; i++) {
            size_t k = (size_t)j * w + i;
            int c = COL(j, i);
            if (c == 0) Kr[k] = F[k] - G[k];
            else if (c == 2) Kb[k] = F[k] - G[k];
        }
    }
    for (int j = 1; j < h - 1; j++) {
        for (int i = 1; i < w - 1; i++) {
            int c = COL(j, i);
            if (c == 1) continue;
            size_t k = (size_t)j * w + i;
            float *K = c == 0 ? Kb : Kr; /* the other colour's difference */
            float d1 = fabsf(G[k - w + 1] - G[k + w - 1]) + fabsf(K[k - w + 1] - K[k + w - 1]);
            float d2 = fabsf(G[k - w - 1] - G[k + w + 1]) + fabsf(K[k - w - 1] - K[k + w + 1]);
            float w1 = 1 / (1e-6f + d1 * d1), w2 = 1 / (1e-6f + d2 * d2);
            K[k] = (w1 * 0.5f * (K[k - w + 1] + K[k + w - 1]) + w2 * 0.5f * (K[k - w - 1] + K[k + w + 1])) / (w1 + w2);
        }
    }
    /* 5. Output rows: at green sites both differences from the four neighbours, along the edge. */
    for (int r = 0; r < rows; r++) {
        int j = r + PAD;
        uint16_t *o = (uint16_t *)((char *)out + (size_t)r * stride);
        for (int x = 0; x < W; x++) {
            int i = x + PAD;
            size_t k = (size_t)j * w + i;
            float g = G[k], kr, kb;
            if (COL(j, i) == 1) {
                /* the horizontal share of the nearest red or blue sites' decision */
                float sh = 0.25f * (Dh[k - 1] + Dh[k + 1] + Dh[k - w] + Dh[k + w]);
                float sv = 1 - sh;
                kr = sh * 0.5f * (Kr[k - 1] + Kr[k + 1]) + sv * 0.5f * (Kr[k - w] + Kr[k + w]);
                kb = sh * 0.5f * (Kb[k - 1] + Kb[k + 1]) + sv * 0.5f * (Kb[k - w] + Kb[k + w]);
            } else {
                kr = Kr[k];
                kb = Kb[k];
            }
            float rgb[3] = {g + kr, g, g + kb};
            for (int c = 0; c < 3; c++) {
                float v = rgb[c] * 65535.0f + 0.5f;
                o[3 * x + c] = v <= 0 ? 0 : v >= 65535 ? 65535 : (uint16_t)v;
            }
        }
    }
    #undef COL
}

/* The normalised sample at mosaic (y, x), mirrored into the image. */
static inline float sample(const rcp_bayer *b, int y, int x) {
    y = mirror(y, b->height);
    x = mirror(x, b->width);
    int p = ((y & 1) << 1) | (x & 1);
    float v = ((float)b->raw[(size_t)(y + b->top) * b->raw_pitch + b->left + x] - b->black[p]) * b->scale[p];
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* One output pixel of the half size: the mirrored way, for the edges. */
static void half_cell(const rcp_bayer *b, int y, int x, const int dy[3], const int dx[3], uint16_t *o) {
    float rgb[3];
    float g = 0;
    for (int q = 0; q < 4; q++)
        if (b->pattern[q] == 1) g += sample(b, 2 * y + (q >> 1), 2 * x + (q & 1));
    rgb[1] = 0.5f * g;
    for (int c = 0; c < 3; c += 2) {
        int sy = dy[c] ? -2 : 2, sx = dx[c] ? -2 : 2;
        int yy = 2 * y + dy[c], xx = 2 * x + dx[c];
        rgb[c] = (9 * sample(b, yy, xx) + 3 * sample(b, yy + sy, xx) + 3 * sample(b, yy, xx + sx) + sample(b, yy + sy, xx + sx)) / 16;
    }
    for (int c = 0; c < 3; c++) {
        float v = rgb[c] * 65535.0f + 0.5f;
        o[3 * x + c] = v <= 0 ? 0 : v >= 65535 ? 65535 : (uint16_t)v;
    }
}

void rcp_bayer_half_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride) {
    const int w = (b->width + 1) / 2;
    /* Where red and blue sit in the cell, and which way the cell's centre lies from them. */
    int dy[3] = {0, 0, 0}, dx[3] = {0, 0, 0};
    for (int q = 0; q < 4; q++)
        if (b->pattern[q] != 1) { dy[b->pattern[q]] = q >> 1; dx[b->pattern[q]] = q & 1; }
    for (int y = y0; y < y1; y++) {
        uint16_t *o = (uint16_t *)((char *)out + (size_t)(y - y0) * stride);
        int x = 0;
        if (2 * y >= 2 && 2 * y + 3 < b->height) {
            /* Inside the image (no mirroring): the same sums read straight from the rows. */
            const uint16_t *rows[6];  /* mosaic rows 2y − 2 … 2y + 3 */
            for (int k = 0; k < 6; k++) rows[k] = b->raw + (size_t)(2 * y - 2 + k + b->top) * b->raw_pitch + b->left;
            for (x = 1; 2 * x + 3 < b->width; x++) {
                float rgb[3];
                #define S(r, c) ({ int rr_ = (r), cc_ = (c); int p_ = (((rr_) & 1) << 1) | ((cc_) & 1); \
                    float v_ = ((float)rows[(rr_) - 2 * y + 2][cc_] - b->black[p_]) * b->scale[p_]; v_ < 0 ? 0 : v_ > 1 ? 1 : v_; })
                float g = 0;
                for (int q = 0; q < 4; q++)
                    if (b->pattern[q] == 1) g += S(2 * y + (q >> 1), 2 * x + (q & 1));
                rgb[1] = 0.5f * g;
                for (int c = 0; c < 3; c += 2) {
                    int sy = dy[c] ? -2 : 2, sx = dx[c] ? -2 : 2;
                    int yy = 2 * y + dy[c], xx = 2 * x + dx[c];
                    rgb[c] = (9 * S(yy, xx) + 3 * S(yy + sy, xx) + 3 * S(yy, xx + sx) + S(yy + sy, xx + sx)) / 16;
                }
                #undef S
                for (int c = 0; c < 3; c++) {
                    float v = rgb[c] * 65535.0f + 0.5f;
                    o[3 * x + c] = v <= 0 ? 0 : v >= 65535 ? 65535 : (uint16_t)v;
                }
            }
            /* the first and last cells go the mirrored way below */
            for (int e = 0; e < 2; e++) {
                int xe = e == 0 ? 0 : x;
                for (int xx = xe; xx < (e == 0 ? 1 : w); xx++) half_cell(b, y, xx, dy, dx, o);
            }
            continue;
        }
        for (; x < w; x++) half_cell(b, y, x, dy, dx, o);
    }
}
