#ifndef RECIPE_CDEMOSAIC_H
#define RECIPE_CDEMOSAIC_H

#include <stddef.h>
#include <stdint.h>

/* recipe's own Bayer demosaic (`demosaic: directional`), strip by strip, so that a raw streams
 * into the engine as a JPEG does: Hamilton–Adams green interpolation along the edge, both
 * directions blended by their local gradients (summed over 3×3, inverse squares), then red and
 * blue as colour differences (R − G, B − G) interpolated diagonally and then across, weighted by
 * the same gradients. No state between strips: any rows can be asked for, in any order, on any
 * thread. The mosaic is read through a margin of 6 rows and columns, mirrored at the image's edges
 * (by two, so the pattern keeps its phase). */

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

/* Half size: output row y of ((width + 1) / 2) pixels from mosaic rows 2y and 2y + 1, each 2×2
 * cell one pixel: the mean of its greens, and red and blue interpolated to the cell's centre from
 * the four samples of their colour around it (LibRaw's half-size mode takes the cell's own red and
 * blue, half a sample off: the planes then do not line up). For display sizes. */
void rcp_bayer_half_rows(const rcp_bayer *b, int y0, int y1, uint16_t *out, size_t stride);

#endif
