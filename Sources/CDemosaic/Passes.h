/* The passes of recipe's full-size Bayer demosaic that CDemosaic.c runs after green is first
 * estimated, one pass a file. They work on planes of the strip's padded grid (see CDemosaic.c),
 * each over the rows and columns `m` or more in from the grid's edges. Not part of the module's
 * interface. */
#ifndef RECIPE_CDEMOSAIC_PASSES_H
#define RECIPE_CDEMOSAIC_PASSES_H

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

/* At red and blue sites, the other colour's difference (E: G − B at red, G − R at blue) from D
 * (G − R at red, G − B at blue) at the eight nearest sites of that colour (OtherDifference.c).
 * Reads D three rows and columns around: m ≥ 3. */
void rcp_other_difference(const rcp_grid *g, const float *D, float *E, int m);

/* G − R and G − B at every pixel into KR and KB, from D and E at red and blue sites and from the
 * four neighbours at green sites (Differences.c). m ≥ 1. */
void rcp_differences(const rcp_grid *g, const float *D, const float *E, float *KR, float *KB, int m);

/* Green at red and blue sites again, from the colour differences around (RefineGreen.c), each
 * direction weighted by the first estimate's sums of change Sh and Sv: D and G rewritten there.
 * Reads KR and KB three rows and columns around and Sh and Sv four: m ≥ 4. */
void rcp_refine_green(const rcp_grid *g, const float *F, const float *KR, const float *KB, const float *Sh,
                      const float *Sv, float *D, float *G, int m);

/* KR and KB each replaced by its 3 × 3 median `passes` times, T a scratch plane (Median.c). The
 * first pass covers [m, h − m) × [m, w − m), each later one a row and a column less on every side. */
void rcp_median_differences(const rcp_grid *g, float *KR, float *KB, float *T, int m, int passes);

#endif
