// CPNGShim: the setjmp/longjmp trap around libpng (same reason as CJPEGShim: libpng reports fatal
// errors by longjmp, which Swift cannot do). Each function that may call png_error sets its own
// jump point and returns 0 on failure with the message in `message`. Getters that cannot fail are
// called straight from Swift.
#ifndef RECIPE_CPNGSHIM_H
#define RECIPE_CPNGSHIM_H

#include <stdio.h>
#include <png.h>

#define RCP_PNG_MAX_WARNINGS 8
#define RCP_PNG_MESSAGE 256

typedef struct rcp_png {
    png_structp png;
    png_infop info;
    png_infop end_info;
    int is_writer;
    char message[RCP_PNG_MESSAGE];             /* the fatal error, when a call returned 0 */
    int warning_count;
    int distinct_warnings;
    char warnings[RCP_PNG_MAX_WARNINGS][RCP_PNG_MESSAGE];
} rcp_png;

/* Reader. `r` must be zero-filled. Reads the signature and every chunk up to the first IDAT. */
int rcp_png_reader_open(rcp_png *r, FILE *file, png_uint_32 max_width, png_uint_32 max_height);
/* Expands palette/low-bit gray/tRNS, keeps 16 bits in host byte order; returns passes (1 or 7). */
int rcp_png_reader_configure(rcp_png *r, int *passes);
int rcp_png_reader_read_rows(rcp_png *r, png_bytepp rows, png_uint_32 count);
int rcp_png_reader_read_end(rcp_png *r);

/* Writer. `w` must be zero-filled. */
int rcp_png_writer_open(rcp_png *w, FILE *file);
int rcp_png_writer_header(rcp_png *w, png_uint_32 width, png_uint_32 height, int bit_depth,
                          int color_type, int compression_level);
int rcp_png_writer_set_iccp(rcp_png *w, png_const_charp name, png_const_bytep profile,
                            png_uint_32 length);
int rcp_png_writer_set_exif(rcp_png *w, png_bytep exif, png_uint_32 length);
int rcp_png_writer_set_text(rcp_png *w, png_const_textp text, int count);
int rcp_png_writer_set_gama(rcp_png *w, double file_gamma);
int rcp_png_writer_set_srgb(rcp_png *w, int intent);
int rcp_png_writer_write_info(rcp_png *w);
int rcp_png_writer_write_rows(rcp_png *w, png_bytepp rows, png_uint_32 count);
int rcp_png_writer_finish(rcp_png *w);

void rcp_png_destroy(rcp_png *p);

#endif
