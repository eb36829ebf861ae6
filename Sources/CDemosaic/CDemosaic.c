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

int rcp_bayer_half_rows_isa(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride, int isa) {
    if (!rcp_demosaic_isa_supported(isa)) return -1;
#if defined(__x86_64__)
    if (isa == RCP_ISA_AVX2) rcp_half_rows_avx2(b, y0, y1, out, stride);
    else if (isa == RCP_ISA_AVX512) rcp_half_rows_avx512(b, y0, y1, out, stride);
    else
#endif
        rcp_half_rows_plain(b, y0, y1, out, stride);
    return isa;
}

void rcp_bayer_half_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride) {
    rcp_bayer_half_rows_isa(b, y0, y1, out, stride, rcp_demosaic_isa());
}
