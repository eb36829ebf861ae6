#ifndef RECIPE_CDEMOSAIC_H
#define RECIPE_CDEMOSAIC_H

#include <stddef.h>
#include <stdint.h>

/* recipe's own Bayer demosaic (`demosaic: directional`), strip by strip, so that a raw streams
 * into the engine as a JPEG does. The gradient-based, threshold-free method of Pekkucuksen and
 * Altunbasak (ICIP 2010): along every row and column the missing colour by Hamilton–Adams, so a
 * colour difference G − C at every sample; green at red and blue sites from those differences in
 * the four directions, each weighted by how little the differences change in its 5 × 5 window;
 * then G − R and G − B at the other colour's sites by a 7 × 7 filter and at green sites from the
 * four neighbours. Green at red and blue sites is then estimated once more from those colour
 * differences around it (Menon et al.'s refinement), the differences again, and three 3 × 3
 * median passes over them (dcraw's -m 3). It runs on the square root of the white-balanced
 * samples, so that the errors it cannot avoid fall evenly on a roughly perceptual scale rather
 * than on dark edges. No state between strips: any rows can be asked for, in any order, on any
 * thread, and give the same pixels however the image is cut. The mosaic is read through a margin
 * of 22 rows and columns, mirrored at the image's edges (by two, so the pattern keeps its
 * phase). */

/* The mosaic of one raw file, as LibRaw unpacked it. */
typedef struct {
    const uint16_t *raw;     /* the sensor's frame, raw_pitch samples a row */
    int raw_pitch;
    int top, left;           /* where the visible image starts in the frame */
    int width, height;       /* the visible image */
    int pattern[4];          /* colour of (0,0), (0,1), (1,0), (1,1) of the visible image: 0 R, 1 G, 2 B */
    float black[4];          /* per pattern position, raw units */
    float scale[4];          /* per pattern position: white-balance multiplier / (white − black) */
} rcp_bayer;

/* Floats of scratch a strip of `rows` rows of `width` pixels needs. */
size_t rcp_bayer_scratch(int width, int rows);

/* Demosaics visible rows [y0, y1) into 16-bit RGB, interleaved, `stride` bytes apart: camera RGB,
 * white balanced, white at 65535, clipped to 0…65535 (highlights clip). */
void rcp_bayer_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride, float *scratch);

/* The vector widths the full-size demosaic is built for (one source, see Passes.h): the build's
 * baseline (SSE2 on x86-64, NEON on AArch64), AVX2 (8 floats) and AVX-512 (16 floats). Every one
 * gives the same floats, so the same pixels. */
enum { RCP_ISA_PLAIN = 0, RCP_ISA_AVX2 = 1, RCP_ISA_AVX512 = 2 };

/* 1 when this CPU runs `isa`. */
int rcp_demosaic_isa_supported(int isa);

/* The width rcp_bayer_rows uses: the widest this CPU has, at most what the environment variable
 * RECIPE_DEMOSAIC_ISA names (plain, avx2 or avx512), read once. */
int rcp_demosaic_isa(void);

/* rcp_bayer_rows on the passes of one width; returns `isa`, or −1 (nothing written) when this CPU
 * does not run it. For the tests that hold every width to the plain one. */
int rcp_bayer_rows_isa(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride, float *scratch, int isa);

/* The width of the passes this thread ran last (−1: none yet): what a forced or chosen width
 * really ran, for the tests. */
int rcp_demosaic_last_isa(void);

/* The demosaic's 3 × 3 median (Median.c) of the plane `src` (width × height floats, rows after
 * one another) into `dst` on the passes of `isa`: each sample one row and column in from the edges
 * the median of the nine around it, the edges copied. Returns `isa`, or −1 when the CPU does not
 * run it. For the tests that hold the median to a sort. */
int rcp_median3x3_isa(const float *src, float *dst, int width, int height, int isa);

/* Half size: output row y of ((width + 1) / 2) pixels from mosaic rows 2y and 2y + 1, each 2×2
 * cell one pixel: the mean of its greens, and red and blue interpolated to the cell's centre from
 * the four samples of their colour around it (LibRaw's half-size mode takes the cell's own red and
 * blue, half a sample off: the planes then do not line up). For display sizes. */
void rcp_bayer_half_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride);

/* rcp_bayer_half_rows on the loops of one width; returns `isa`, or −1 (nothing written) when this
 * CPU does not run it. */
int rcp_bayer_half_rows_isa(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride, int isa);

#endif
