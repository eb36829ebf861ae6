/* The passes of recipe's full-size Bayer demosaic, one pass a file, each compiled for every
 * vector width the machine may have: CDemosaic.c picks one set at run time. Not part of the
 * module's interface.
 *
 * The variants of a pass are one source: the pass is a `static inline` body (always inlined),
 * and RCP_VARIANTS instantiates it as `<name>_plain` (the build's baseline: SSE2 on x86-64, NEON
 * on AArch64), and on x86-64 as `<name>_avx2` and `<name>_avx512` under their target attributes,
 * where the compiler vectorises the same loops 8 and 16 floats wide. Every variant makes the same
 * floats: the same IEEE operations in the same order, no fused multiply-adds (FP_CONTRACT OFF
 * here and -ffp-contract=off in Package.swift: AVX-512 implies FMA), no reassociation, square
 * roots and divisions exact. The plain variant is the reference the tests hold the others to. */
#ifndef RECIPE_CDEMOSAIC_PASSES_H
#define RECIPE_CDEMOSAIC_PASSES_H

#pragma STDC FP_CONTRACT OFF

#include <stddef.h>
#include <stdint.h>

#include "CDemosaic.h"

/* A strip's padded grid: w × h floats a plane, row j and column i of the grid at the pattern's
 * position ((j + py) & 1, (i + px) & 1). */
typedef struct {
    int w, h;
    int py, px;
    const int *pattern;  /* colour of the pattern's four positions: 0 R, 1 G, 2 B */
} rcp_grid;

static inline int rcp_colour(const rcp_grid *g, int j, int i) {
    return g->pattern[(((j + g->py) & 1) << 1) | ((i + g->px) & 1)];
}

/* A row or column index mirrored into 0…n−1 about its first and last sample (−1 → 1, n → n − 2),
 * which keeps the pattern's phase. */
static inline int rcp_mirror(int i, int n) {
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

#define RCP_INLINE static inline __attribute__((always_inline))

/* The width of the last pass this thread ran (rcp_demosaic_last_isa): each variant sets it. */
extern _Thread_local int rcp_demosaic_ran;

#if defined(__x86_64__)
#define RCP_TARGET_AVX2 __attribute__((target("avx2")))
#define RCP_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq"), min_vector_width(512)))
/* `void name_plain params { name args; }` and its AVX2 and AVX-512 twins. */
#define RCP_VARIANTS(name, params, args)                                                      \
    void name##_plain params { rcp_demosaic_ran = RCP_ISA_PLAIN; name args; }                 \
    RCP_TARGET_AVX2 void name##_avx2 params { rcp_demosaic_ran = RCP_ISA_AVX2; name args; }   \
    RCP_TARGET_AVX512 void name##_avx512 params { rcp_demosaic_ran = RCP_ISA_AVX512; name args; }
#define RCP_DECLARE(name, params) void name##_plain params; void name##_avx2 params; void name##_avx512 params;
#else
#define RCP_VARIANTS(name, params, args) void name##_plain params { rcp_demosaic_ran = RCP_ISA_PLAIN; name args; }
#define RCP_DECLARE(name, params) void name##_plain params;
#endif

/* Steps 1 to 4 (FirstGreen.c): the mosaic F (encoded, padded by mirroring) for visible rows
 * [y0 − PAD, y1 + PAD); the colour differences along rows and columns Ah, Av; their sums of change
 * Sh, Sv; and the first estimate of green G and of G − C at red and blue sites D. Gh, Gv scratch
 * (G and D may be Gv and Gh). */
#define RCP_FIRST_GREEN_PARAMS (const rcp_bayer *b, int y0, const rcp_grid *g, int pad, float *F, float *Ah, float *Av, \
                                float *Gh, float *Gv, float *Sh, float *Sv, float *D, float *G)
RCP_DECLARE(rcp_first_green, RCP_FIRST_GREEN_PARAMS)

/* At red and blue sites, the other colour's difference (E: G − B at red, G − R at blue) from D
 * (G − R at red, G − B at blue) at the eight nearest sites of that colour (OtherDifference.c).
 * Reads D three rows and columns around: m ≥ 3. */
#define RCP_OTHER_DIFFERENCE_PARAMS (const rcp_grid *g, const float *D, float *E, int m)
RCP_DECLARE(rcp_other_difference, RCP_OTHER_DIFFERENCE_PARAMS)

/* G − R and G − B at every pixel into KR and KB, from D and E at red and blue sites and from the
 * four neighbours at green sites (Differences.c). m ≥ 1. */
#define RCP_DIFFERENCES_PARAMS (const rcp_grid *g, const float *D, const float *E, float *KR, float *KB, int m)
RCP_DECLARE(rcp_differences, RCP_DIFFERENCES_PARAMS)

/* Green at red and blue sites again, from the colour differences around (RefineGreen.c), each
 * direction weighted by the first estimate's sums of change Sh and Sv: D and G rewritten there.
 * Reads KR and KB three rows and columns around and Sh and Sv four: m ≥ 4. */
#define RCP_REFINE_GREEN_PARAMS (const rcp_grid *g, const float *F, const float *KR, const float *KB, const float *Sh, \
                                 const float *Sv, float *D, float *G, int m)
RCP_DECLARE(rcp_refine_green, RCP_REFINE_GREEN_PARAMS)

/* *KR and *KB each replaced by its 3 × 3 median `passes` times (Median.c): each pass writes into
 * the free plane *T and swaps it with the plane it read, so the pointers come back changed. C is
 * three rows of w floats of scratch. The first pass covers [m, h − m) × [m, w − m), each later one a
 * row and a column less on every side. */
#define RCP_MEDIAN_PARAMS (const rcp_grid *g, float **KR, float **KB, float **T, float *C, int m, int passes)
RCP_DECLARE(rcp_median_differences, RCP_MEDIAN_PARAMS)

/* Step 7 (Output.c): `rows` output rows from green (F at green sites, G at red and blue ones), KR
 * and KB (row PAD + r, column PAD + x of the grid), decoded back to linear light (squared),
 * 16-bit RGB. */
#define RCP_OUTPUT_PARAMS (const rcp_grid *g, int pad, int rows, int width, const float *F, const float *G, \
                           const float *KR, const float *KB, uint16_t *out, size_t stride)
RCP_DECLARE(rcp_output_rows, RCP_OUTPUT_PARAMS)

/* The half size (HalfSize.c): rcp_bayer_half_rows on one width. */
#define RCP_HALF_PARAMS (const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride)
RCP_DECLARE(rcp_half_rows, RCP_HALF_PARAMS)

#endif
