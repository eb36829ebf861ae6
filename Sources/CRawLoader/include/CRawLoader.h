#ifndef RECIPE_CRAWLOADER_H
#define RECIPE_CRAWLOADER_H

#include <stddef.h>
#include <stdint.h>

/* Camera raw files through LibRaw (libraw_r.so.20), loaded on the first raw file rather than at
 * every start: LibRaw brings libstdc++ and libgomp with it. One handle per file; LibRaw's own
 * types stay in CRawLoader.c, so Swift sees only these. */

typedef struct rcp_raw rcp_raw;

/* LibRaw's error codes (enum LibRaw_errors, checked against <libraw/libraw_const.h> in the .c). */
enum {
    RCP_RAW_FILE_UNSUPPORTED = -2,
    RCP_RAW_REQUEST_FOR_NONEXISTENT_IMAGE = -3,
    RCP_RAW_NOT_IMPLEMENTED = -8,
    RCP_RAW_UNSUFFICIENT_MEMORY = -100007,
    RCP_RAW_DATA_ERROR = -100008,
    RCP_RAW_IO_ERROR = -100009,
    RCP_RAW_BAD_CROP = -100011,
    RCP_RAW_TOO_BIG = -100012,
    RCP_RAW_MEMPOOL_OVERFLOW = -100013,
};

/* What the file's header says, read by rcp_raw_open before any pixel is unpacked. */
typedef struct {
    char make[64], model[64], lens[128], lens_make[128], software[64];
    /* LibRaw's name for the decoder of this format ("lossless_jpeg_load_raw", …). */
    char decoder[64];
    int64_t timestamp;            /* seconds since 1970, 0 when unknown */
    float iso, shutter, aperture, focal_length;
    int has_gps;
    double latitude, longitude, altitude; /* signed decimal degrees, metres */
    int raw_width, raw_height;    /* the sensor's stored frame */
    int width, height;            /* the visible image a full develop gives, stored orientation */
    int flip;                     /* LibRaw's flip code: 0, 3 (180°), 5 (90° CCW), 6 (90° CW) */
    int colors;                   /* 3 for RGB mosaics, 4 for CMYG or RGBE ones, 1 for monochrome */
    unsigned filters;             /* LibRaw's CFA code: 0 none, 9 X-Trans, else a Bayer pattern */
    char cfa[5];                  /* the 2x2 Bayer pattern from the top-left ("RGGB"), "" if none */
    char cdesc[5];
    unsigned dng_version;         /* 0 when not a DNG */
    unsigned black, maximum;      /* black and white levels in raw units */
    float cam_mul[4];             /* the camera's as-shot white balance multipliers (0: none) */
    float pre_mul[4];             /* daylight multipliers from the camera matrix */
    float cam_xyz[4][3];          /* XYZ (D65) to camera, the camera matrix (DNG ColorMatrix) */
    float rgb_cam[3][4];          /* LibRaw's camera to linear sRGB matrix */
    float baseline_exposure;      /* DNG BaselineExposure in stops (0 when absent) */
    int thumb_format;             /* 0 none, 1 JPEG, 2 8-bit bitmap, 3 16-bit bitmap, 4/5 other */
    int thumb_width, thumb_height;
    unsigned thumb_length;
    /* The lens as the maker notes identify it, for the lens database: LibRaw's maker-note lens ID
     * (-1 when none), the focal length in 35 mm terms (0: unknown) and the lens's focal and widest
     * aperture range (0: unknown). */
    long long lens_id;
    float focal_length_35mm;
    float lens_min_focal, lens_max_focal, lens_max_aperture_wide, lens_max_aperture_tele;
} rcp_raw_info;

/* How to develop: LibRaw's raw-domain settings. */
typedef struct {
    int quality;                 /* demosaic: 0 linear, 1 VNG, 2 PPG, 3 AHD, 4 DCB, 11 DHT, 12 AAHD */
    int half_size;               /* 1: each 2x2 cell of the mosaic becomes one pixel (no demosaic) */
    int white_balance;           /* 0 as shot, 1 auto (grey world), 2 `multipliers`, 3 daylight */
    float multipliers[4];
    int highlight;               /* 0 clip, 1 unclip, 2 blend, 3-9 rebuild */
    double aberration_red;       /* chromatic aberration scale of red and blue (1: none) */
    double aberration_blue;
    float noise_threshold;       /* wavelet denoising threshold (0: none) */
    unsigned max_memory_mb;      /* LibRaw's own allocation limit for the raw data */
} rcp_raw_develop;

/* Problems met while unpacking: LibRaw's data-error callback. */
typedef struct {
    int data_errors;             /* how many */
    int end_of_file;             /* 1 when the data ended before the image did */
    long long first_offset;      /* byte offset of the first corrupt data (-1: none or EOF) */
    unsigned process_warnings;   /* LibRaw's LIBRAW_WARN_* bits */
} rcp_raw_problems;

/* Loads LibRaw once (thread-safe); 1 when it is there, else 0 with *message saying why. */
int rcp_raw_load(const char **message);

/* LibRaw's version string ("0.20.2-Release"); NULL when it cannot be loaded. */
const char *rcp_raw_version(void);

/* Opens and identifies `path` (header only). NULL with *code (LibRaw's error code, or 1 when
 * LibRaw cannot be loaded) on failure. */
rcp_raw *rcp_raw_open(const char *path, rcp_raw_info *info, int *code);

/* The same, from the file's bytes followed by `pad` zero bytes (read into memory): a file cut
 * short then unpacks, the missing part black. For `--allow-damaged` only. */
rcp_raw *rcp_raw_open_padded(const char *path, size_t pad, rcp_raw_info *info, int *code);

/* Unpacks the mosaic and develops it into linear camera RGB, white balanced (16 bits per
 * sample, the white level at 65535 for the smallest multiplier). Returns 0 or LibRaw's error code. */
int rcp_raw_develop_image(rcp_raw *raw, const rcp_raw_develop *develop, rcp_raw_problems *problems);

/* Who unpacked a mosaic: LibRaw, or recipe from a DNG's strips (DNGStrips.h). */
enum { RCP_RAW_READER_ANY = 0, RCP_RAW_READER_LIBRAW = 1, RCP_RAW_READER_STRIPS = 2 };

/* The unpacked mosaic of a Bayer sensor, for recipe's own demosaic (CDemosaic). */
typedef struct {
    const uint16_t *raw;     /* the sensor's frame, valid until rcp_raw_close */
    int raw_pitch;           /* samples a row */
    int frame_width, frame_height; /* the frame: raw_width × raw_height */
    int reader;              /* RCP_RAW_READER_LIBRAW or RCP_RAW_READER_STRIPS */
    int top, left, width, height;
    int pattern[4];          /* colour of (0,0), (0,1), (1,0), (1,1) of the visible image: 0 R, 1 G, 2 B */
    float black[4];          /* per pattern position */
    float maximum;
} rcp_raw_mosaic;

/* Unpacks the mosaic only (no develop). Returns 0, LibRaw's error code, or 1 when the sensor is
 * not a plain 3-colour Bayer mosaic this path takes (the caller develops through LibRaw).
 * A DNG that LibRaw would unpack sample by sample (uncompressed, 8 to 16 bits, in strips; see
 * DNGStrips.h) is read from its strips instead, the same samples; everything else, and every
 * file when the environment variable RECIPE_RAW_UNPACK is `libraw`, is LibRaw's unpack. */
int rcp_raw_unpack_mosaic(rcp_raw *raw, unsigned max_memory_mb, rcp_raw_mosaic *mosaic, rcp_raw_problems *problems);

/* The same with the reader chosen: RCP_RAW_READER_ANY as above, RCP_RAW_READER_LIBRAW always
 * LibRaw's unpack, RCP_RAW_READER_STRIPS only the strips (1 when the file is not read so). For the
 * tests that hold the two readers to the same frame. */
int rcp_raw_unpack_mosaic_by(rcp_raw *raw, unsigned max_memory_mb, int reader, rcp_raw_mosaic *mosaic, rcp_raw_problems *problems);

/* Whether the strip reader takes `path` as a DNG whose raw image is `width` × `height`: 0 when it
 * does (*bits: its bits a sample), else why not: 1 not a TIFF or an IFD or value outside the
 * file, 2 no full-size CFA image or several, 3 a layout it leaves to LibRaw (compressed, tiled,
 * masked areas, …), 4 another size, 5 strips out of order or short, 6 rows past the end of the
 * file. Reads the file's structure only (no LibRaw): for the tests of damaged files. */
int rcp_raw_strips_layout(const char *path, int width, int height, int *bits);

/* The developed image: 4 samples a pixel (the first three used), `width` × `height`, stored
 * orientation. `gain` is what the samples must be multiplied by so that the white level of the
 * smallest multiplier is 1 (above 1 when a highlight mode kept what lies above it). */
const uint16_t *rcp_raw_image(rcp_raw *raw, int *width, int *height, double *gain);

/* The multipliers the develop used, normalised to the smallest = 1. */
void rcp_raw_used_multipliers(rcp_raw *raw, float multipliers[4]);

/* Unpacks the embedded preview: its bytes (JPEG, or a bitmap of thumb_width × thumb_height ×
 * colours at 8 bits) and their count; NULL when there is none. Valid until rcp_raw_close. */
const unsigned char *rcp_raw_thumbnail(rcp_raw *raw, size_t *length, int *format, int *width, int *height, int *colors, int *code);

/* LibRaw's message for an error code. */
const char *rcp_raw_strerror(int code);

void rcp_raw_close(rcp_raw *raw);

#endif
