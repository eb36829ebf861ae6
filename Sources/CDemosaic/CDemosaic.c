/* recipe's Bayer demosaic: see CDemosaic.h. Written here rather than taken from LibRaw because
 * LibRaw's demosaics run on the whole image at once (8 bytes a pixel held, no overlap with the
 * rest of the render, one thread for AHD); this one runs strip by strip as the engine asks. */
#include "CDemosaic.h"
#include "Passes.h"

#include <math.h>
#include <string.h>

/* Passes of the refinement of green (RefineGreen.c) and of the median (Median.c). */
#ifndef REFINE_PASSES
#define REFINE_PASSES 1
#endif
#ifndef MEDIAN_PASSES
#define MEDIAN_PASSES 3
#endif
/* The margin a strip is read through: the first estimate of green is good 7 rows and columns in
 * from the padded grid's edges, each refinement pass of green costs 7 more (the other colour's
 * difference reads 3 around, the differences at every pixel 1, the refined green 3), the last
 * differences 4 and each median pass 1; rounded up to even, so the pattern keeps its phase. */
#define PAD ((7 + 7 * REFINE_PASSES + 4 + MEDIAN_PASSES + 1) & ~1)

/* Planes of the strip's padded grid the full demosaic keeps. */
#define PLANES 9

size_t rcp_bayer_scratch(int width, int rows) {
    size_t w = (size_t)width + 2 * PAD, h = (size_t)rows + 2 * PAD;
    return PLANES * w * h + 64;
}

/* A row or column index mirrored into 0…n−1 about its first and last sample (−1 → 1, n → n − 2),
 * which keeps the pattern's phase. */
static inline int mirror(int i, int n) {
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

/* The weights of a colour difference 0…4 samples away along a direction (Pekkucuksen and
 * Altunbasak's filter). */
#define F0 0.56f
#define F1 0.35f
#define F2 0.08f
#define F3 0.01f

void rcp_bayer_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride, float *scratch) {
    const int W = b->width, H = b->height;
    const int rows = y1 - y0;
    const int w = W + 2 * PAD, h = rows + 2 * PAD;
    const size_t n = (size_t)w * h;
    /* F: the mosaic, encoded; Ah, Av: the colour difference G − C along rows and along columns at
     * every sample; Gh, Gv: how much they change along their direction; Sh, Sv: those summed over
     * five samples across. Later, D: the final G − C at red and blue sites and G: green (in Gh's
     * and Gv's planes); E: the other colour's difference at red and blue sites (in Ah's); KR, KB:
     * G − R and G − B at every pixel (KR in Av's); T: the median's scratch. */
    float *F = scratch, *Ah = F + n, *Av = Ah + n, *Gh = Av + n, *Gv = Gh + n, *Sh = Gv + n, *Sv = Sh + n, *KB = Sv + n, *T = KB + n;
    /* The pattern, relative to the strip's padded grid: row j, column i is visible (y0−PAD+j, i−PAD). */
    const int py = (y0 - PAD) & 1, px = (-PAD) & 1;
    const rcp_grid grid = {w, h, py, px, b->pattern};
    #define COL(j, i) b->pattern[((((j) + py) & 1) << 1) | (((i) + px) & 1)]
    /* 1. The mosaic, (raw − black) × scale clipped to 0…1, then square-rooted: the differences
     * between colours are interpolated on a roughly perceptual scale, so an error in the shadows
     * weighs what it looks like (interpolating linear light puts them on dark edges). Padded by
     * mirroring. */
    for (int j = 0; j < h; j++) {
        int y = mirror(y0 - PAD + j, H);
        const uint16_t *src = b->raw + (size_t)(y + b->top) * b->raw_pitch + b->left;
        float *row = F + (size_t)j * w;
        const int p = (y & 1) << 1;
        const float b0 = b->black[p], s0 = b->scale[p], b1 = b->black[p | 1], s1 = b->scale[p | 1];
        float *vis = row + PAD;  /* PAD is even: visible column x has x's parity */
        for (int x = 0; x < W; x++) {
            float v = ((float)src[x] - ((x & 1) ? b1 : b0)) * ((x & 1) ? s1 : s0);
            vis[x] = sqrtf(v < 0 ? 0 : v > 1 ? 1 : v);
        }
        for (int i = 0; i < PAD; i++) {
            row[i] = vis[mirror(i - PAD, W)];
            row[w - 1 - i] = vis[mirror(W - 1 + PAD - i, W)];
        }
    }

    /* 2. Along each row and each column, the missing colour by Hamilton–Adams (the neighbours'
     * mean, corrected by the sample's own second difference), and so G − C at every sample. */
    for (int j = 0; j < h; j++) {
        const float *f = F + (size_t)j * w;
        float *ah = Ah + (size_t)j * w, *av = Av + (size_t)j * w;
        /* G − C = sign × (sample − estimate): + at green sites, − at red and blue */
        const float se = COL(j, 0) == 1 ? 1.0f : -1.0f, so = -se;
        ah[0] = ah[1] = ah[w - 2] = ah[w - 1] = 0;
        for (int i = 2; i < w - 2; i++) {
            float e = 0.5f * (f[i - 1] + f[i + 1]) + 0.25f * (2 * f[i] - f[i - 2] - f[i + 2]);
            ah[i] = ((i & 1) ? so : se) * (f[i] - e);
        }
        if (j < 2 || j >= h - 2) { memset(av, 0, (size_t)w * sizeof(float)); continue; }
        for (int i = 0; i < w; i++) {
            float e = 0.5f * (f[i - w] + f[i + w]) + 0.25f * (2 * f[i] - f[i - 2 * w] - f[i + 2 * w]);
            av[i] = ((i & 1) ? so : se) * (f[i] - e);
        }
    }
    /* 3. How much each difference changes along its direction … */
    for (int j = 0; j < h; j++) {
        float *gh = Gh + (size_t)j * w, *gv = Gv + (size_t)j * w;
        const float *ah = Ah + (size_t)j * w, *av = Av + (size_t)j * w;
        gh[0] = gh[w - 1] = 0;
        for (int i = 1; i < w - 1; i++) gh[i] = fabsf(ah[i - 1] - ah[i + 1]);
        if (j < 1 || j >= h - 1) { memset(gv, 0, (size_t)w * sizeof(float)); continue; }
        for (int i = 0; i < w; i++) gv[i] = fabsf(av[i - w] - av[i + w]);
    }
    /* … summed over five samples across it (a 5 × 5 window is then five of these sums along it,
     * in step 4): Gh over five rows, Gv over five columns. */
    for (int j = 0; j < h; j++) {
        float *sh = Sh + (size_t)j * w, *sv = Sv + (size_t)j * w;
        const float *gv = Gv + (size_t)j * w;
        if (j < 2 || j >= h - 2) memset(sh, 0, (size_t)w * sizeof(float));
        else {
            const float *c = Gh + (size_t)j * w;
            for (int i = 0; i < w; i++) sh[i] = c[i - 2 * w] + c[i - w] + c[i] + c[i + w] + c[i + 2 * w];
        }
        sv[0] = sv[1] = sv[w - 2] = sv[w - 1] = 0;
        for (int i = 2; i < w - 2; i++) sv[i] = gv[i - 2] + gv[i - 1] + gv[i] + gv[i + 1] + gv[i + 2];
    }
    float *D = Gh, *G = Gv;
    /* 4. Green at red and blue sites: the colour difference from each of the four directions
     * (north, south, west, east; the differences along it, nearest weighted most), weighted by the
     * inverse square of how much the differences change in that direction's 5 × 5 window. */
    for (int j = 0; j < h; j++) {
        float *d = D + (size_t)j * w, *g = G + (size_t)j * w;
        const float *f = F + (size_t)j * w;
        memcpy(g, f, (size_t)w * sizeof(float));
        memset(d, 0, (size_t)w * sizeof(float));
        if (j < 4 || j >= h - 4) continue;
        const int first = COL(j, 4) == 1 ? 5 : 4;  /* the row's first red or blue site from 4 on */
        const float *sv = Sv + (size_t)j * w, *sh = Sh + (size_t)j * w;
        const float *av = Av + (size_t)j * w, *ah = Ah + (size_t)j * w;
        const size_t w1 = (size_t)w, w2 = 2 * w1, w3 = 3 * w1, w4 = 4 * w1;
        for (int i = first; i < w - 4; i += 2) {
            float sn = sv[i] + sv[i - w1] + sv[i - w2] + sv[i - w3] + sv[i - w4];
            float ss = sv[i] + sv[i + w1] + sv[i + w2] + sv[i + w3] + sv[i + w4];
            float sw = sh[i] + sh[i - 1] + sh[i - 2] + sh[i - 3] + sh[i - 4];
            float se = sh[i] + sh[i + 1] + sh[i + 2] + sh[i + 3] + sh[i + 4];
            float vn = F0 * av[i] + F1 * av[i - w1] + F2 * av[i - w2] + F3 * av[i - w3];
            float vs = F0 * av[i] + F1 * av[i + w1] + F2 * av[i + w2] + F3 * av[i + w3];
            float hw = F0 * ah[i] + F1 * ah[i - 1] + F2 * ah[i - 2] + F3 * ah[i - 3];
            float he = F0 * ah[i] + F1 * ah[i + 1] + F2 * ah[i + 2] + F3 * ah[i + 3];
            float wn = 1 / (1e-10f + sn * sn), ws = 1 / (1e-10f + ss * ss);
            float ww = 1 / (1e-10f + sw * sw), we = 1 / (1e-10f + se * se);
            float v = (wn * vn + ws * vs + ww * hw + we * he) / (wn + ws + ww + we);
            d[i] = v;
            g[i] = f[i] + v;
        }
    }
    /* 5. Red and blue: G − R and G − B at every pixel from D (rcp_other_difference, then
     * rcp_differences); then green at red and blue sites again from those differences and the
     * differences again, REFINE_PASSES times. Each pass is good a few rows and columns less far
     * out than the one before (see PAD). */
    float *E = Ah, *KR = Av;
    int good = 7;  /* D and G are right from this many rows and columns in */
    for (int pass = 0; ; pass++) {
        rcp_other_difference(&grid, D, E, good + 3);
        rcp_differences(&grid, D, E, KR, KB, good + 4);
        good += 4;
        if (pass == REFINE_PASSES) break;
        rcp_refine_green(&grid, F, KR, KB, Sh, Sv, D, G, good + 3);
        good += 3;
    }
    /* 6. The median passes over the differences (Median.c): on the 18 Kodak photos as mosaics,
     * mean ΔE2000 1.89 → 1.54 with three passes after the first estimate, 1.41 → 1.38 after the
     * refinement. */
    rcp_median_differences(&grid, KR, KB, T, good + 1, MEDIAN_PASSES);
    /* 7. Output rows, decoded back to linear light (squared). */
    for (int r = 0; r < rows; r++) {
        int j = r + PAD;
        const float *g = G + (size_t)j * w + PAD, *kr = KR + (size_t)j * w + PAD, *kb = KB + (size_t)j * w + PAD;
        uint16_t *o = (uint16_t *)((char *)out + (size_t)r * stride);
        for (int x = 0; x < W; x++) {
            float vr = g[x] - kr[x], vg = g[x], vb = g[x] - kb[x];
            vr = vr < 0 ? 0 : vr > 1 ? 1 : vr;
            vg = vg < 0 ? 0 : vg > 1 ? 1 : vg;
            vb = vb < 0 ? 0 : vb > 1 ? 1 : vb;
            o[3 * x] = (uint16_t)(vr * vr * 65535.0f + 0.5f);
            o[3 * x + 1] = (uint16_t)(vg * vg * 65535.0f + 0.5f);
            o[3 * x + 2] = (uint16_t)(vb * vb * 65535.0f + 0.5f);
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

/* A sample, black subtracted, white balanced and scaled so white is 1, clipped to 0…1. */
static inline float norm(uint16_t v, float black, float scale) {
    float f = ((float)v - black) * scale;
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

void rcp_bayer_half_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride) {
    const int w = (b->width + 1) / 2;
    /* Where red and blue sit in the cell, and which way the cell's centre lies from them. */
    int dy[3] = {0, 0, 0}, dx[3] = {0, 0, 0};
    int gq[2] = {0, 0}, ng = 0;
    for (int q = 0; q < 4; q++) {
        if (b->pattern[q] != 1) { dy[b->pattern[q]] = q >> 1; dx[b->pattern[q]] = q & 1; }
        else if (ng < 2) gq[ng++] = q;
    }
    /* The interior cells, 1 ≤ x < xe, read straight from the rows (no mirroring). */
    int xe = 1;
    while (2 * xe + 3 < b->width) xe++;
    for (int y = y0; y < y1; y++) {
        uint16_t *o = (uint16_t *)((char *)out + (size_t)(y - y0) * stride);
        if (!(2 * y >= 2 && 2 * y + 3 < b->height) || ng != 2 || xe <= 1) {
            for (int x = 0; x < w; x++) half_cell(b, y, x, dy, dx, o);
            continue;
        }
        #define ROW(r) (b->raw + (size_t)((r) + b->top) * b->raw_pitch + b->left)
        #define POS(r, c) (((((r) & 1) << 1) | ((c) & 1)))
        /* Greens: the mean of the cell's two. */
        {
            const int r1 = 2 * y + (gq[0] >> 1), c1 = gq[0] & 1, r2 = 2 * y + (gq[1] >> 1), c2 = gq[1] & 1;
            const uint16_t *a = ROW(r1) + c1, *n = ROW(r2) + c2;
            const float ba = b->black[POS(r1, c1)], sa = b->scale[POS(r1, c1)];
            const float bn = b->black[POS(r2, c2)], sn = b->scale[POS(r2, c2)];
            for (int x = 1; x < xe; x++) {
                float v = 0.5f * (norm(a[2 * x], ba, sa) + norm(n[2 * x], bn, sn));
                o[3 * x + 1] = (uint16_t)(v * 65535.0f + 0.5f);
            }
        }
        /* Red and blue at the cell's centre from the four samples of their colour around it: the
         * cell's own (rows a) and its neighbours one cell over in y (rows n) and in x (sx, ±2),
         * 9 : 3 : 3 : 1, the bilinear weights a quarter cell away. Plain loops the compiler
         * vectorises. */
        for (int c = 0; c < 3; c += 2) {
            const int yy = 2 * y + dy[c], xx = dx[c];
            const int sy = dy[c] ? -2 : 2, sx = dx[c] ? -2 : 2;
            const uint16_t *a = ROW(yy) + xx, *n = ROW(yy + sy) + xx;
            /* the four samples are of one colour, so one black and one scale */
            const float bl = b->black[POS(yy, xx)], sc = b->scale[POS(yy, xx)];
            for (int x = 1; x < xe; x++) {
                float v = (9 * norm(a[2 * x], bl, sc) + 3 * norm(n[2 * x], bl, sc)
                           + 3 * norm(a[2 * x + sx], bl, sc) + norm(n[2 * x + sx], bl, sc)) / 16;
                o[3 * x + c] = (uint16_t)(v * 65535.0f + 0.5f);
            }
        }
        #undef ROW
        #undef POS
        /* the first and last cells go the mirrored way */
        half_cell(b, y, 0, dy, dx, o);
        for (int x = xe; x < w; x++) half_cell(b, y, x, dy, dx, o);
    }
}
