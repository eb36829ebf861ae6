#ifndef RECIPE_CDENOISE_H
#define RECIPE_CDENOISE_H

/* recipe's noise reduction: a plane denoiser (8×8 DCT shrinkage of overlapping patches), the raw
 * develop's denoise of a Bayer mosaic (variance-stabilised, in a luma/chroma transform of each
 * 2×2 cell) and the estimate of a mosaic's noise model (variance = gain·signal + floor).
 *
 * Written here rather than taken from a library: the denoisers of the field (BM3D, non-local
 * means in OpenCV or scikit-image, darktable's and RawTherapee's wavelets) work on whole images
 * held at once, in other processes' languages or inside their GUIs; this one runs a band of rows
 * at a time inside recipe's streamed develop and render, within the memory budget.
 * Built -O3 (Package.swift): the debug build's tests would take minutes at -O0. */

#include <stddef.h>
#include <stdint.h>

/* ---- the plane denoiser (DCTDenoise.c) ------------------------------------------------------ */

/* Floats `rcp_dct_denoise_scratch(w, h)` the plane denoiser needs for a w×h plane. */
size_t rcp_dct_denoise_scratch(int w, int h);

/* Denoises the w×h plane `in` (row pitch `pitch` floats) whose noise is white with standard
 * deviation 1 (scale the plane first): every 8×8 patch at even offsets is taken to the DCT, its
 * coefficients under `threshold` (the mean, its DC, kept) set to zero, and the patches brought back
 * and averaged where they overlap, each weighted by 1/(the coefficients it kept) (BM3D's weights).
 * Writes rows and columns [8, h − 8) × [8, w − 8) of `out` (same pitch): the 8 samples around
 * are margin, which the caller pads (mirrored). w and h at least 24. threshold 0: a copy.
 * ystep: the patches' rows every 2 samples, or every 4 (half the work; for smooth planes such
 * as chroma); their columns are every 2. Patch rows start at the plane's row 0. */
void rcp_dct_denoise(const float *in, float *out, int w, int h, int pitch, float threshold, int ystep, float *scratch);

/* The same on the scalar path whatever the CPU (the tests compare the dispatched paths with it). */
void rcp_dct_denoise_plain(const float *in, float *out, int w, int h, int pitch, float threshold, int ystep, float *scratch);

/* ---- the raw develop's denoise (MosaicDenoise.c) -------------------------------------------- */

/* A Bayer mosaic and what its denoise needs: the noise model in raw units above black
 * (variance of a sample = gain · (sample − black) + floor) and the strengths. */
typedef struct {
    const uint16_t *raw;     /* the frame, raw_pitch samples a row */
    int raw_pitch;
    int top, left;           /* where the visible image starts in the frame */
    int width, height;       /* the visible image */
    int pattern[4];          /* colour of (0,0), (0,1), (1,0), (1,1): 0 R, 1 G, 2 B */
    float black[4];          /* per pattern position, raw units */
    float gain, floor;       /* the noise model: variance = gain · signal + floor (raw units) */
    float luma, chroma;      /* threshold multipliers of the luma and chroma planes (0: untouched) */
} rcp_mosaic_denoise;

/* Floats of scratch rcp_mosaic_denoise_rows needs for rows `rows` of a mosaic `width` wide. */
size_t rcp_mosaic_denoise_scratch(int width, int rows);

/* Denoised mosaic rows [y0, y1) of the visible image (y0 even), as uint16 raw values (black
 * included, like the frame), into `out` (`stride` samples a row). Reads 16 rows around them
 * (mirrored at the image's edges). */
void rcp_mosaic_denoise_rows(const rcp_mosaic_denoise *d, int y0, int y1, uint16_t *out, size_t stride, float *scratch);

/* ---- the noise model's estimate (NoiseEstimate.c) ------------------------------------------- */

/* Estimates the mosaic's noise model from its two greens: the difference of the two greens of
 * each 2×2 cell, in blocks of 16×16 cells; the blocks sorted by level into bins, each bin's
 * quietest blocks (its 20th percentile of variance, so texture does not count) as the noise at
 * that level, and a line fitted through the bins. `white`: the white level (blocks near it are
 * left out). Returns the number of bins used (0: too few flat blocks; *gain and *floor are 0). */
int rcp_mosaic_noise_estimate(const rcp_mosaic_denoise *d, float white, float *gain, float *floor);

/* The standard deviation of a plane's white noise (Donoho's: the median absolute finest diagonal
 * Haar detail / 0.6745), for the denoise of rendered photos; 0 for a plane under 2×2. */
float rcp_plane_noise_sigma(const float *plane, int w, int h, int pitch);

#endif
