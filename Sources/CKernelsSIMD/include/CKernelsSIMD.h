#ifndef CKERNELSSIMD_H
#define CKERNELSSIMD_H

#include <stddef.h>
#include <stdint.h>

/* Table lookups with linear interpolation over `ChannelTables`' log-spaced nodes (see
 * Sources/RecipeKernels/ChannelTables.swift for the layout). Swift has no gather: eight scalar
 * loads and lane inserts cost more than the curve they replace, so this one loop is C, with an
 * AVX2 gather where the CPU has it (checked once at run time) and a plain loop elsewhere.
 *
 * `half` points at a channel's table: `entries` pairs (f(node), f(next node) - f(node)) for the
 * nodes 0, 2^-30 … and 16, then `entries` pairs at the negated nodes. Each of the `count` values of `plane` is replaced by its interpolated
 * table value when its magnitude is 0 or in [2^-30, 16); other values (NaN, infinities, 16 and
 * up, tiny non-zero values) are left as they are with `outside[i] = 1` (else 0), for the caller
 * to run through the steps themselves. Returns how many were left. */
/* Nodes per octave, as bits of the mantissa: 2^RK_NODE_BITS (ChannelTables reads it from here). */
#define RK_NODE_BITS 9

int rk_channel_table_apply(const float *half, int entries, float *plane, int count, uint8_t *outside);

/* A channel's table as polynomials (ChannelFit.swift makes them): `fit` holds RK_FIT_FLOATS
 * floats. Float RK_FIT_POLYS·i + p is the coefficient of t^i of polynomial p (up to RK_FIT_POLYS,
 * degree RK_FIT_DEGREE); polynomial p's t is m·scale[p] + offset[p] for the value's mantissa m in
 * [1, 2); from split[p] up (+infinity: never) polynomial p + 1 takes over. The RK_FIT_CELL_COUNT
 * bytes from float RK_FIT_CELLS name each cell's polynomial (255: none), cell 8·o + j holding the
 * values 2^(RK_FIT_LOWEST_EXPONENT + o)·[1 + j/8, 1 + (j+1)/8). rk_channel_fit_apply gives
 * rk_channel_table_apply's results, with the polynomials' values for the values they cover, where
 * rk_channel_fit_supported (AVX-512 with VBMI) and `fit` is not NULL; the table's otherwise. */
#define RK_FIT_POLYS 32
#define RK_FIT_DEGREE 5
#define RK_FIT_LOWEST_EXPONENT (-14)
#define RK_FIT_CELL_COUNT 128
/* (An enum: Swift imports its constants; it does not import macros that are expressions.) */
enum {
    RK_FIT_SCALE = RK_FIT_POLYS * (RK_FIT_DEGREE + 1),
    RK_FIT_OFFSET = RK_FIT_SCALE + RK_FIT_POLYS,
    RK_FIT_SPLIT = RK_FIT_OFFSET + RK_FIT_POLYS,
    RK_FIT_CELLS = RK_FIT_SPLIT + RK_FIT_POLYS,
    RK_FIT_FLOATS = RK_FIT_CELLS + RK_FIT_CELL_COUNT / 4
};
int rk_channel_fit_supported(void);
int rk_channel_fit_apply(const float *half, int entries, const float *fit, float *plane, int count, uint8_t *outside);
/* rk_channel_fit_apply on `nplanes` planes `tile` floats apart, all through the same table and
 * fit, `count` values each; plane c's flags at outside + c·count. Returns the flags set. */
int rk_channel_fit_apply_planes(const float *half, int entries, const float *fit, float *planes, int tile, int nplanes, int count,
                                uint8_t *outside);
 
/* One output row of a bicubic (Catmull-Rom) rotation: `count` float RGB pixels into `out`, pixel j
 * sampling `image` (float RGB, `width`×`height`, rows `row_stride` bytes apart; with `ring_rows`
 * below `height`, source row y in slot y mod `ring_rows`) at (start_x + j·step_x, start_y + j·step_y),
 * clamp-to-edge, black outside the picture's area when `black_outside`. See Rotation.swift. */
void rk_rotate_row(const void *image, ptrdiff_t row_stride, int width, int height, int ring_rows, double start_x,
                   double start_y, double step_x, double step_y, int count, int black_outside, float *out);
/* rk_rotate_row through one path, for tests: 2 AVX-512, 1 AVX2, 0 the plain body (a path the CPU
 * lacks falls to the next); returns the path taken. Every path gives the same floats. */
int rk_rotate_row_path(int path, const void *image, ptrdiff_t row_stride, int width, int height, int ring_rows,
                       double start_x, double start_y, double step_x, double step_y, int count, int black_outside,
                       float *out);

/* A lens correction's map (LensWarp.c, LensMap.swift): lensfun's normalisation and models, or a
 * DNG WarpRectilinear. */
enum { RK_LENS_NONE = 0, RK_LENS_POLY3 = 1, RK_LENS_POLY5 = 2, RK_LENS_PTLENS = 3, RK_LENS_DNG = 4 };
enum { RK_TCA_NONE = 0, RK_TCA_LINEAR = 1, RK_TCA_POLY3 = 2 };
typedef struct {
    /* lensfun's lfModifier: pixel → normalised (x·norm_scale − centre) and back ((x + centre)·norm_unscale). */
    double norm_scale, norm_unscale, center_x, center_y;
    /* Correcting: normalised positions times pre_scale (1/scale) before the distortion. Adding
     * distortion (reverse): the inverse of the distortion, then times post_scale (scale). */
    double pre_scale, post_scale;
    int reverse;
    int distortion; /* RK_LENS_* */
    double d[3];
    int tca;        /* RK_TCA_*: linear kr, kb in t[0], t[1]; poly3 vr, vb, cr, cb, br, bb in t[0…5] */
    double t[6];
    /* RK_LENS_DNG: 1 or 3 planes of kr0…kr3 and kt0, kt1; the optical centre and the distance to
     * the farthest corner, in pixels. */
    int dng_planes;
    double dng_kr[3][4], dng_kt[3][2];
    double dng_cx, dng_cy, dng_m;
    /* RK_LENS_DNG: the canvas's pixel (x, y) in the DNG's stored frame, a·x + b·y + tx, c·x + d·y + ty
     * (the EXIF orientation undone), and back: six numbers each (a, b, c, d, tx, ty). */
    double to_stored[6], from_stored[6];
} rk_lens_map;
/* The source positions of `count` output pixels at (x0 + j·dx, y0 + j·dy) of the corrected canvas:
 * six floats a pixel, red x, y, green x, y, blue x, y, in source pixel indices (pixel x's centre at x). */
/* Returns the largest source row position among them (−infinity when none is finite): how far
 * down the source the row reaches. */
double rk_lens_map_row(const rk_lens_map *map, double x0, double y0, double dx, double dy, int count, float *out);
/* `count` output pixels sampled bicubic (Catmull-Rom) from a planar float RGB ring (each row the
 * red, green and blue planes of `width` floats; with `ring_rows` below `height`, source row y in
 * slot y mod `ring_rows`), each channel at its own position from `positions` (rk_lens_map_row's
 * layout); clamp-to-edge, 0 outside the picture's area; rows outside [first_row, last_row] (what
 * the ring holds) clamped into it. Writes three planes of `count` floats at `out`. */
void rk_warp_row(const void *image, ptrdiff_t row_stride, int width, int height, int ring_rows, int first_row, int last_row,
                 const float *positions, int count, float *out);

/* The 8-bit ends of a point pass (PointProgram+Execution.swift). `rk_u8_load`: `count` interleaved
 * RGB codes from `px` through `table` (256 floats per channel, r then g then b) into three planes
 * `tile` floats apart. `rk_u8_store`: the planes' values clamped to [0, 1] (NaN as 0), scaled by
 * `levels - 1`, rounded to the nearest (ties to even), through `table` (`levels` codes per
 * channel), into `count` interleaved RGB pixels at `px`. */
void rk_u8_load(const uint8_t *px, const float *table, float *planes, int tile, int count);
/* rk_u8_load's floats, from `bytes` as well (the table's floats as four planes of 256 bytes a
 * channel: byte k of code v's float of channel c at 1024·c + 256·k + v): AVX-512 VBMI byte
 * permutes where the CPU has them, `table` otherwise and for a last group under 64 pixels. */
void rk_u8_load_bytes(const uint8_t *px, const uint8_t *bytes, const float *table, float *planes, int tile, int count);
/* `search` (or NULL): the table's thresholds from rk_u8_store_search_table, for a table that is
 * clamp-safe (never decreasing, code 0 at index 0 and 255 at the last) and has 65536 levels;
 * then, where the CPU has AVX-512 BW and VBMI, groups of 64 pixels find their codes by a binary
 * search instead of a lookup a sample: the same bytes. */
void rk_u8_store(const float *planes, int tile, int count, const uint8_t *table, int levels, const uint16_t *search, uint8_t *px);
#define RK_STORE_SEARCH_WORDS 256
/* Fills 3·RK_STORE_SEARCH_WORDS words of `search` from a clamp-safe `table` (`levels` a channel). */
void rk_u8_store_search_table(const uint8_t *table, int levels, uint16_t *search);
int rk_u8_store_search_supported(void);
/* The store of a pass with no steps after its body: each value clamped to [0, 1] (NaN as 0), times
 * 255, plus 0.5, truncated (SampleConversion.quantize8), without a table; the second without AVX2
 * on any CPU (for tests: the same bytes). */
void rk_u8_store_direct(const float *planes, int tile, int count, uint8_t *px);
void rk_u8_store_direct_without_avx2(const float *planes, int tile, int count, uint8_t *px);

/* A fused 8-bit pass's colour cache (PixelCache.swift): 2^RK_CACHE_BITS entries of 32 bits, every
 * one valid from the start: rk_u8_cache_prefill_colours writes the 2^RK_CACHE_BITS colours entry
 * i is for (3 bytes each), and rk_u8_cache_prefill files the pass's codes for them (3 bytes each,
 * in that order). rk_u8_cache_lookup looks up `count` (at most 65536) interleaved RGB pixels of `in`:
 * a hit's three output codes go to `out` (which may be `in`); the misses are listed, their pixels
 * packed into `miss_px` (3 bytes each) and their indices into `miss_at`, and counted in the
 * return value (their bytes of `out` are left for rk_u8_cache_fill). rk_u8_cache_fill files the
 * misses' output codes `miss_out` (3 bytes each, as the pass gave them) in the cache and writes
 * them to `out` at their indices. A hit returns what was filed for that colour. */
#define RK_CACHE_BITS 16
#define RK_CACHE_MIX 0x9E3779B1u
int rk_u8_cache_supported(void);
int rk_u8_cache_lookup(const uint8_t *in, int count, const uint32_t *cache, uint8_t *out, uint8_t *miss_px, uint16_t *miss_at);
/* The scalar lookup, for tests (the same hits and misses as rk_u8_cache_lookup). */
int rk_u8_cache_lookup_without_avx512(const uint8_t *in, int count, const uint32_t *cache, uint8_t *out, uint8_t *miss_px,
                                      uint16_t *miss_at);
void rk_u8_cache_fill(const uint8_t *miss_px, const uint8_t *miss_out, const uint16_t *miss_at, int misses, uint32_t *cache,
                      uint8_t *out);
void rk_u8_cache_prefill_colours(uint8_t *px);
void rk_u8_cache_prefill(uint32_t *cache, const uint8_t *codes);

/* out = m·rgb + bias on `count` pixels of three planes `tile` floats apart, in place; `m` is
 * row-major 3×4 (the 4th column the bias). */
void rk_matrix_planes(float *planes, int tile, int count, const float *m);

/* A 3D .cube table (`size`³ RGB entries, red fastest) over `count` pixels of three planes `tile`
 * floats apart, tetrahedral, mixed with the input by `amount`: PointProgram.lookup3D's values.
 * `domain_min` and `scale` (3 each): a value's table coordinate is (v − min)·scale. */
void rk_lut3d_tetrahedral(const float *table, int size, float *planes, int tile, int count, const float *domain_min,
                          const float *scale, float amount);

/* Three planes of `count` floats, `from_stride` floats apart from `from`, to three planes
 * `to_stride` floats apart from `to` (a tile of a planar float row and back). */
void rk_copy_planes(const float *from, ptrdiff_t from_stride, float *to, ptrdiff_t to_stride, int count);

/* Three planes of `count` floats into `count` interleaved RGB pixels, and back. */
void rk_interleave3f(const float *r, const float *g, const float *b, float *out, int count);
void rk_deinterleave3f(const float *in, float *r, float *g, float *b, int count);

/* out[i] = base[i] + opacity·(B(base[i], top[i]) − base[i]) for `count` samples (`out` may be
 * `base`), B the W3C blend mode `mode`: 0 normal, 1 multiply, 2 screen, 3 overlay, 4 soft light.
 * BlendMode.blendRow's floats. */
void rk_blend_row(const float *base, const float *top, float *out, int count, int mode, float opacity);

/* The sRGB transfer curves (IEC 61966-2-1), sign-symmetric and unclamped, on `count` floats of
 * `plane` in place: `to_linear` 1 decodes, 0 encodes. The power is 2^(e·p)·m^p for the value's
 * exponent e and mantissa m: a per-exponent constant times a degree-7 polynomial in m (relative
 * error 2e-7, a tenth of ChannelTables'), with no table to gather from. Values of 16 or more in
 * magnitude, infinities and NaN are left as they are with `outside[i] = 1` (else 0); returns
 * how many. The AVX-512, AVX2 and plain paths give the same floats (fused multiply-adds in all:
 * the hardware's, or fmaf). */
int rk_srgb_curve(float *plane, int count, int to_linear, uint8_t *outside);
/* The same without AVX-512 on any CPU (for tests: the AVX-512, AVX2 and plain paths give the same
 * floats). */
int rk_srgb_curve_avx2(float *plane, int count, int to_linear, uint8_t *outside);

/* Shadows/highlights' gains 2^(shadows·(1 − y)² − highlights·y²) of `count` blurred lumas (y
 * clamped to [0, 1], NaN to 0): ShadowsHighlights.gain's floats. The second without AVX2 on any
 * CPU (for tests: the two give the same floats). */
void rk_sh_gains(const float *yb, float *out, int count, float shadows, float highlights);
void rk_sh_gains_without_avx2(const float *yb, float *out, int count, float shadows, float highlights);

/* Scales the light of `count` pixels given as sRGB-encoded planes by `gain` (one a pixel), in
 * place: v' = gain^(1/2.4)·(v + 0.055) − 0.055 above the curve's toe (exact there), the exact
 * decode, gain and encode for vectors with a value at or below it. Values are sign-symmetric. */
void rk_encoded_gain(float *r, float *g, float *b, const float *gain, int count);
/* The same without AVX2 on any CPU (for tests: the two give the same floats). */
void rk_encoded_gain_without_avx2(float *r, float *g, float *b, const float *gain, int count);
/* The same from planes `fr`, `fg`, `fb` into `r`, `g`, `b` (another row), in one pass: the same
 * floats as copying them and scaling in place. */
void rk_encoded_gain_from(const float *fr, const float *fg, const float *fb, float *r, float *g, float *b, const float *gain,
                          int count);

/* A vignette's gains for `count` pixels of a row from column x0: 1 − amount·smoothstep(inner,
 * outer, √((x + ½ − cx)² + dy2)·scale), the same floats as FastMath.smoothstep's lanes. */
void rk_vignette_gains(float *out, int count, int x0, float dy2, float cx, float scale, float inner, float outer, float amount);

/* r, g and b times the pixel's gain, in place. */
void rk_scale_planes(float *r, float *g, float *b, const float *gain, int count);

/* out[i] = 0.2126·r[i] + 0.7152·g[i] + 0.0722·b[i] (Rec. 709 luma), in that order, no fused
 * multiply-add. out must not overlap the planes. */
void rk_luma3f(const float *r, const float *g, const float *b, float *out, int count);

/* glfx.js vibrance on three planes in place: t = (max − mean)·(−3·amount), v + (max − v)·t. */
void rk_vibrance(float *r, float *g, float *b, int count, float amount);

/* The colour controls in OKLab (OKLab.c), on three planes of linear-light sRGB. */
/* A colour mixer: eight bands by OKLCh hue, `centre` increasing in [0, 360) degrees, `span[k]`
 * the degrees from centre k to the next (the last round to the first); each band's hue shift in
 * radians, its saturation (chroma factor − 1) and its luminance (lightness factor − 1). */
typedef struct {
    float centre[8], span[8], hue[8], saturation[8], luminance[8];
} rk_color_mixer;
void rk_color_mixer_planes(float *r, float *g, float *b, int count, const rk_color_mixer *m);
/* Colour grading: the shadows', midtones', highlights' and global tints as OKLab a, b offsets and
 * lightness offsets; the shadows fade out over [shadow_from, shadow_to] of lightness, the
 * highlights in over [highlight_from, highlight_to]. */
typedef struct {
    float a[4], b[4], lightness[4];
    float shadow_from, shadow_to, highlight_from, highlight_to;
} rk_color_grade;
void rk_color_grade_planes(float *r, float *g, float *b, int count, const rk_color_grade *q);
/* A colour-range mask: the arc of OKLCh hues from `hue_from` over `hue_width` degrees (every hue
 * when `whole_circle`), chroma and lightness bands, each with its feather. Weights to `w`. */
typedef struct {
    float hue_from, hue_width, hue_feather;
    int whole_circle;
    float chroma_low, chroma_high, chroma_feather;
    float lightness_low, lightness_high, lightness_feather;
} rk_color_range;
void rk_color_range_weights(const float *r, const float *g, const float *b, int count, const rk_color_range *q, float *w);

/* acc[i] += times·src[i] (a product, then a sum). acc must not overlap src. */
void rk_axpy(float *acc, const float *src, float times, int count);

/* dst[x] = a + weight[x]·(b − a), a = src[column[x]], b = src[column[x] + 1], for x < count; src
 * needs 8 readable floats past the last sample read. */
void rk_coarse_lerp(const float *src, const int32_t *column, const float *weight, float *dst, int count);

/* One row of the unsharp mask: `original` three planes of `width` encoded values, `blurred` three
 * planes (or the blurred luma alone with `luma`); `out` gets three planes of `width` floats. */
void rk_unsharp_row(const float *original, const float *blurred, int width, float amount, float threshold, int luma, float *out);

/* The direct Gaussian (GaussianBlur): `dst[x]` = Σₖ taps[k]·padded[x + k] for x < width (the
 * row padded by the caller); and six output rows at once, `lines + j·stride` gets
 * Σₖ taps[k]·rows[j + k] at columns from..<to, from the n + 5 rows in order. Swift's sums, the
 * same floats. */
void rk_blur_horizontal(const float *padded, float *dst, int width, const float *taps, int n);
void rk_blur_vertical6(const float *const *rows, const float *taps, int n, float *lines, ptrdiff_t stride, int from, int to);

#endif
