/* recipe's Bayer demosaic: see CDemosaic.h. Written here rather than taken from LibRaw because
 * LibRaw's demosaics run on the whole image at once (8 bytes a pixel held, no overlap with the
 * rest of the render, one thread for AHD); this one runs strip by strip as the engine asks.
 * The full-size passes are in their own files, each in a plain, an AVX2 and an AVX-512 variant
 * (Passes.h); this file picks one set at run time and runs them, and holds the half size. */
#include "Passes.h"

#include <stdlib.h>
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
    return PLANES * w * h + 3 * w + 64;
}

/* One set of the passes, for one vector width. */
typedef struct {
    void (*first_green) RCP_FIRST_GREEN_PARAMS;
    void (*other_difference) RCP_OTHER_DIFFERENCE_PARAMS;
    void (*differences) RCP_DIFFERENCES_PARAMS;
    void (*refine_green) RCP_REFINE_GREEN_PARAMS;
    void (*median) RCP_MEDIAN_PARAMS;
    void (*output) RCP_OUTPUT_PARAMS;
} passes;

#define PASSES(isa) {rcp_first_green_##isa, rcp_other_difference_##isa, rcp_differences_##isa, rcp_refine_green_##isa, \
                     rcp_median_differences_##isa, rcp_output_rows_##isa}
static const passes plain = PASSES(plain);
#if defined(__x86_64__)
static const passes avx2 = PASSES(avx2), avx512 = PASSES(avx512);
#endif

int rcp_demosaic_isa_supported(int isa) {
    switch (isa) {
    case RCP_ISA_PLAIN: return 1;
#if defined(__x86_64__)
    case RCP_ISA_AVX2: return __builtin_cpu_supports("avx2");
    case RCP_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")
            && __builtin_cpu_supports("avx512dq");
#endif
    default: return 0;
    }
}

/* The widest the CPU has, at most what RECIPE_DEMOSAIC_ISA names (plain, avx2, avx512): a way to
 * measure or compare the narrower paths on a machine with the wider ones. Read once. */
static int chosen = -1;

int rcp_demosaic_isa(void) {
    int isa = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (isa >= 0) return isa;
    int cap = RCP_ISA_AVX512;
    const char *asked = getenv("RECIPE_DEMOSAIC_ISA");
    if (asked && strcmp(asked, "plain") == 0) cap = RCP_ISA_PLAIN;
    else if (asked && strcmp(asked, "avx2") == 0) cap = RCP_ISA_AVX2;
    isa = cap;
    while (isa > RCP_ISA_PLAIN && !rcp_demosaic_isa_supported(isa)) isa--;
    __atomic_store_n(&chosen, isa, __ATOMIC_RELAXED);
    return isa;
}

int rcp_bayer_rows_isa(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride, float *scratch, int isa) {
    if (!rcp_demosaic_isa_supported(isa)) return -1;
    const passes *k = &plain;
#if defined(__x86_64__)
    if (isa == RCP_ISA_AVX2) k = &avx2;
    else if (isa == RCP_ISA_AVX512) k = &avx512;
#endif
    const int W = b->width;
    const int rows = y1 - y0;
    const int w = W + 2 * PAD, h = rows + 2 * PAD;
    const size_t n = (size_t)w * h;
    /* F: the mosaic, encoded; Ah, Av: the colour difference G − C along rows and along columns at
     * every sample; Gh, Gv: how much they change along their direction; Sh, Sv: those summed over
     * five samples across. Later, D: the final G − C at red and blue sites and G: green (in Gh's
     * and Gv's planes); E: the other colour's difference at red and blue sites (in Ah's); KR, KB:
     * G − R and G − B at every pixel (KR in Av's); T: the median's free plane; C: its three rows. */
    float *F = scratch, *Ah = F + n, *Av = Ah + n, *Gh = Av + n, *Gv = Gh + n, *Sh = Gv + n, *Sv = Sh + n, *KB = Sv + n, *T = KB + n;
    float *C = T + n;
    /* The pattern, relative to the strip's padded grid: row j, column i is visible (y0−PAD+j, i−PAD). */
    const int py = (y0 - PAD) & 1, px = (-PAD) & 1;
    const rcp_grid grid = {w, h, py, px, b->pattern};
    float *D = Gh, *G = Gv;
    /* 1–4. The mosaic, the directional differences, and the first estimate of green (FirstGreen.c). */
    k->first_green(b, y0, &grid, PAD, F, Ah, Av, Gh, Gv, Sh, Sv, D, G);
    /* 5. Red and blue: G − R and G − B at every pixel from D (OtherDifference.c, then
     * Differences.c); then green at red and blue sites again from those differences
     * (RefineGreen.c) and the differences again, REFINE_PASSES times. Each pass is good a few rows
     * and columns less far out than the one before (see PAD). */
    float *E = Ah, *KR = Av;
    int good = 7;  /* D and G are right from this many rows and columns in */
    for (int pass = 0; ; pass++) {
        k->other_difference(&grid, D, E, good + 3);
        k->differences(&grid, D, E, KR, KB, good + 4);
        good += 4;
        if (pass == REFINE_PASSES) break;
        k->refine_green(&grid, F, KR, KB, Sh, Sv, D, G, good + 3);
        good += 3;
    }
    /* 6. The median passes over the differences (Median.c): on the 18 Kodak photos as mosaics,
     * mean ΔE2000 1.89 → 1.54 with three passes after the first estimate, 1.41 → 1.38 after the
     * refinement. They leave KR and KB in other planes than they found them. */
    k->median(&grid, &KR, &KB, &T, C, good + 1, MEDIAN_PASSES);
    /* 7. Output rows, decoded back to linear light (squared) (Output.c). */
    k->output(&grid, PAD, rows, W, F, G, KR, KB, out, stride);
    return isa;
}

_Thread_local int rcp_demosaic_ran = -1;

int rcp_demosaic_last_isa(void) { return rcp_demosaic_ran; }

int rcp_median3x3_isa(const float *src, float *dst, int width, int height, int isa) {
    if (!rcp_demosaic_isa_supported(isa) || width < 3 || height < 3) return -1;
    void (*median) RCP_MEDIAN_PARAMS = rcp_median_differences_plain;
#if defined(__x86_64__)
    if (isa == RCP_ISA_AVX2) median = rcp_median_differences_avx2;
    else if (isa == RCP_ISA_AVX512) median = rcp_median_differences_avx512;
#endif
    const size_t n = (size_t)width * height;
    float *planes = calloc(3 * n + 3 * (size_t)width, sizeof(float));
    if (!planes) return -1;
    memcpy(planes, src, n * sizeof(float));
    float *KR = planes, *KB = planes + n, *T = planes + 2 * n;
    const int pattern[4] = {0, 1, 1, 2};
    const rcp_grid grid = {width, height, 0, 0, pattern};
    median(&grid, &KR, &KB, &T, planes + 3 * n, 1, 1);
    memcpy(dst, src, n * sizeof(float));
    for (int j = 1; j < height - 1; j++)
        memcpy(dst + (size_t)j * width + 1, KR + (size_t)j * width + 1, (size_t)(width - 2) * sizeof(float));
    free(planes);
    return isa;
}

void rcp_bayer_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride, float *scratch) {
    rcp_bayer_rows_isa(b, y0, y1, out, stride, scratch, rcp_demosaic_isa());
}

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
