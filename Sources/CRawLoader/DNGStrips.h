/* A DNG's mosaic read from its strips directly, for the layouts LibRaw 0.20 reads through
 * packed_dng_load_raw: uncompressed, one sample a pixel, 8 to 16 bits (16 as shorts, the others
 * packed most significant bit first, each row from a byte boundary), in strips that follow one
 * another. LibRaw reads those a sample at a time through its bit reader and buffered file
 * (rcp_raw_unpack_mosaic's main cost at 24 MP); here the rows are one read and a loop the compiler
 * vectorises. Everything else (tiles, compression, masked areas, several raw images) is LibRaw's.
 * Private to CRawLoader. */
#ifndef RECIPE_DNGSTRIPS_H
#define RECIPE_DNGSTRIPS_H

#include <stddef.h>
#include <stdint.h>

/* Where a DNG's raw image lies and how it is stored. */
typedef struct {
    int width, height, bits;
    int big_endian;          /* the file's byte order ("MM"): 16-bit samples are swapped */
    uint64_t offset;         /* the first strip: the rows follow one another from here */
    uint64_t row_bytes;      /* bytes a row: width × bits / 8, rounded up */
} rcp_dng_layout;

/* Why a file's layout is not read here (0: it is). */
enum {
    RCP_DNG_OK = 0,
    RCP_DNG_NOT_TIFF = 1,      /* no TIFF header, or an IFD or value outside the file */
    RCP_DNG_NO_RAW = 2,        /* no full-size CFA image, or more than one */
    RCP_DNG_LAYOUT = 3,        /* compressed, tiled, several samples or planes, masked areas, an odd fill order or bit depth */
    RCP_DNG_SIZE = 4,          /* not the size LibRaw's header gave */
    RCP_DNG_STRIPS = 5,        /* strips out of order or apart, or fewer bytes than the rows need */
    RCP_DNG_TRUNCATED = 6,     /* the rows run past the end of the file */
};

/* Finds the raw image of the TIFF/DNG open as `fd` (`size` bytes) and checks that it is a layout
 * read here and `width` × `height` (LibRaw's raw_width and raw_height). Reads only what it walks,
 * every offset checked against `size`. */
int rcp_dng_find_layout(int fd, uint64_t size, int width, int height, rcp_dng_layout *layout);

/* The rows of `layout` into `out` (width × height samples, row after row), each sample through
 * `curve` (LibRaw's linearisation table, 65536 entries) unless `curve` is NULL. 0, or −1 when the
 * file cannot be read. */
int rcp_dng_unpack(int fd, const rcp_dng_layout *layout, const uint16_t *curve, uint16_t *out);

/* The samples of one packed row (`bits` 8 to 15, most significant bit first) into `out`. */
void rcp_dng_unpack_row(const uint8_t *row, int width, int bits, uint16_t *out);

#endif
