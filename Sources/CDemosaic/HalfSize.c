/* The half size: each 2×2 cell of the mosaic one pixel (see CDemosaic.h). Plain, AVX2 and
 * AVX-512 from one source (Passes.h): the interior rows' loops vectorise, the edges go the
 * mirrored way a cell at a time. */
#include "Passes.h"

/* The normalised sample at mosaic (y, x), mirrored into the image. */
static inline float sample(const rcp_bayer *b, int y, int x) {
    y = rcp_mirror(y, b->height);
    x = rcp_mirror(x, b->width);
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
static inline __attribute__((always_inline)) float norm(uint16_t v, float black, float scale) {
    float f = ((float)v - black) * scale;
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

RCP_INLINE void rcp_half_rows RCP_HALF_PARAMS {
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

RCP_VARIANTS(rcp_half_rows, RCP_HALF_PARAMS, (b, y0, y1, out, stride))
