/* Steps 1 to 4 of the full-size demosaic: the mosaic encoded, the colour differences along rows
 * and columns, how much they change, and green at red and blue sites from the four directions
 * (Pekkucuksen and Altunbasak's estimate). Plain, AVX2 and AVX-512 from one source (Passes.h). */
#include "Passes.h"

/* The weights of a colour difference 0…4 samples away along a direction (Pekkucuksen and
 * Altunbasak's filter). */
#define F0 0.56f
#define F1 0.35f
#define F2 0.08f
#define F3 0.01f

RCP_INLINE void rcp_first_green RCP_FIRST_GREEN_PARAMS {
    const int W = b->width, H = b->height, PAD = pad;
    const int w = g->w, h = g->h, py = g->py, px = g->px;
    #define COL(j, i) g->pattern[((((j) + py) & 1) << 1) | (((i) + px) & 1)]
    /* 1. The mosaic, (raw − black) × scale clipped to 0…1, then square-rooted: the differences
     * between colours are interpolated on a roughly perceptual scale, so an error in the shadows
     * weighs what it looks like (interpolating linear light puts them on dark edges). Padded by
     * mirroring. */
    for (int j = 0; j < h; j++) {
        int y = rcp_mirror(y0 - PAD + j, H);
        const uint16_t *src = b->raw + (size_t)(y + b->top) * b->raw_pitch + b->left;
        float *row = F + (size_t)j * w;
        const int p = (y & 1) << 1;
        const float b0 = b->black[p], s0 = b->scale[p], b1 = b->black[p | 1], s1 = b->scale[p | 1];
        float *vis = row + PAD;  /* PAD is even: visible column x has x's parity */
        for (int x = 0; x < W; x++) {
            float v = ((float)src[x] - ((x & 1) ? b1 : b0)) * ((x & 1) ? s1 : s0);
            vis[x] = __builtin_sqrtf(v < 0 ? 0 : v > 1 ? 1 : v);
        }
        for (int i = 0; i < PAD; i++) {
            row[i] = vis[rcp_mirror(i - PAD, W)];
            row[w - 1 - i] = vis[rcp_mirror(W - 1 + PAD - i, W)];
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
        if (j < 2 || j >= h - 2) { __builtin_memset(av, 0, (size_t)w * sizeof(float)); continue; }
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
        for (int i = 1; i < w - 1; i++) gh[i] = __builtin_fabsf(ah[i - 1] - ah[i + 1]);
        if (j < 1 || j >= h - 1) { __builtin_memset(gv, 0, (size_t)w * sizeof(float)); continue; }
        for (int i = 0; i < w; i++) gv[i] = __builtin_fabsf(av[i - w] - av[i + w]);
    }
    /* … summed over five samples across it (a 5 × 5 window is then five of these sums along it,
     * in step 4): Gh over five rows, Gv over five columns. */
    for (int j = 0; j < h; j++) {
        float *sh = Sh + (size_t)j * w, *sv = Sv + (size_t)j * w;
        const float *gv = Gv + (size_t)j * w;
        if (j < 2 || j >= h - 2) __builtin_memset(sh, 0, (size_t)w * sizeof(float));
        else {
            const float *c = Gh + (size_t)j * w;
            for (int i = 0; i < w; i++) sh[i] = c[i - 2 * w] + c[i - w] + c[i] + c[i + w] + c[i + 2 * w];
        }
        sv[0] = sv[1] = sv[w - 2] = sv[w - 1] = 0;
        for (int i = 2; i < w - 2; i++) sv[i] = gv[i - 2] + gv[i - 1] + gv[i] + gv[i + 1] + gv[i + 2];
    }
    /* 4. Green at red and blue sites: the colour difference from each of the four directions
     * (north, south, west, east; the differences along it, nearest weighted most), weighted by the
     * inverse square of how much the differences change in that direction's 5 × 5 window. */
    for (int j = 0; j < h; j++) {
        float *d = D + (size_t)j * w, *gr = G + (size_t)j * w;
        const float *f = F + (size_t)j * w;
        /* D and G are written at red and blue sites only, from row and column 4 in: every later
         * pass reads them there and further in (green at green sites is F's; the other samples
         * keep step 3's Gh and Gv, never read) */
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
            gr[i] = f[i] + v;
        }
    }
    #undef COL
}

RCP_VARIANTS(rcp_first_green, RCP_FIRST_GREEN_PARAMS, (b, y0, g, pad, F, Ah, Av, Gh, Gv, Sh, Sv, D, G))
