// CJPEGShim: the setjmp/longjmp trap around libjpeg.
//
// libjpeg reports fatal errors by calling error_exit, which must not return; the only safe way to
// get back to the caller is longjmp. Swift cannot longjmp (it would skip Swift frames' cleanup), so
// every libjpeg call that may fail goes through one of the small C functions below, each of which
// sets its own jump point and returns 0 on failure with the message in `err.message`.
// Everything else (parameters, marker lists, pixel loops) is done from Swift.
#ifndef RECIPE_CJPEGSHIM_H
#define RECIPE_CJPEGSHIM_H

#include <stdio.h>
#include <setjmp.h>
#include <jpeglib.h>

#define RCP_JPEG_MAX_WARNINGS 8
/* Bytes the decoder reads from its file a call (rcp_jpeg_source): 256 KiB. */
#define RCP_JPEG_READ_BUFFER 262144

typedef struct rcp_jpeg_error_mgr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];           /* the fatal error, when a call returned 0 */
    int warning_count;                        /* every warning libjpeg emitted */
    int distinct_warnings;                    /* entries used in the two arrays below */
    int warning_codes[RCP_JPEG_MAX_WARNINGS]; /* J_MESSAGE_CODE of each distinct warning */
    char warnings[RCP_JPEG_MAX_WARNINGS][JMSG_LENGTH_MAX];
} rcp_jpeg_error_mgr;

/* A whole-image coefficient array libjpeg asked its memory manager for (progressive files). */
typedef struct rcp_jpeg_coefficient_array {
    jvirt_barray_ptr array;
    JDIMENSION blocks_per_row;
    JDIMENSION rows;
} rcp_jpeg_coefficient_array;

typedef struct rcp_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;      /* first member: a j_common_ptr casts back to us */
    rcp_jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    int max_scans;                            /* progressive scan limit (0 = none) */
    int created;
    /* The memory manager's own methods, wrapped so that the zero-filled coefficient arrays of a
       progressive file are backed by transparent huge pages (see rcp_realize_virt_arrays). */
    __typeof__(((struct jpeg_memory_mgr *)0)->request_virt_barray) request_virt_barray;
    __typeof__(((struct jpeg_memory_mgr *)0)->realize_virt_arrays) realize_virt_arrays;
    int coefficient_array_count;
    rcp_jpeg_coefficient_array coefficient_arrays[MAX_COMPONENTS];
    size_t coefficient_bytes;                 /* the zero-filled arrays' size in bytes */
    size_t huge_page_bytes;                   /* the part of it advised for huge pages */
} rcp_jpeg_decoder;

typedef struct rcp_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    rcp_jpeg_error_mgr err;
    int created;
} rcp_jpeg_encoder;

/* Decoder. `d` must be zero-filled. Saves APP1/APP2/APP13 and COM markers, reads the header. */
int rcp_jpeg_decoder_open(rcp_jpeg_decoder *d, FILE *file, int max_scans);
int rcp_jpeg_decoder_calc_output(rcp_jpeg_decoder *d);
int rcp_jpeg_decoder_start(rcp_jpeg_decoder *d);
int rcp_jpeg_decoder_read(rcp_jpeg_decoder *d, JSAMPARRAY rows, unsigned int max_lines,
                          unsigned int *lines_read);
int rcp_jpeg_decoder_finish(rcp_jpeg_decoder *d);
/* After start: decode only columns [*xoffset, *xoffset + *width) (libjpeg widens them to whole
   iMCU columns and says so through the pointers; output_width becomes *width), then skip the
   first `lines` rows (entropy-decoded, not transformed). 0 on a libjpeg error. */
int rcp_jpeg_decoder_window(rcp_jpeg_decoder *d, unsigned int *xoffset, unsigned int *width,
                            unsigned int lines);
void rcp_jpeg_decoder_destroy(rcp_jpeg_decoder *d);

/* Encoder. `e` must be zero-filled. luma_h/luma_v: 2,2 = 4:2:0; 2,1 = 4:2:2; 1,1 = 4:4:4. */
int rcp_jpeg_encoder_open(rcp_jpeg_encoder *e, FILE *file);
int rcp_jpeg_encoder_configure(rcp_jpeg_encoder *e, unsigned int width, unsigned int height,
                               int components, int quality, int luma_h, int luma_v,
                               int progressive, int optimize, int write_jfif);
int rcp_jpeg_encoder_start(rcp_jpeg_encoder *e);
int rcp_jpeg_encoder_write_marker(rcp_jpeg_encoder *e, int marker, const JOCTET *data,
                                  unsigned int length);
int rcp_jpeg_encoder_write_icc(rcp_jpeg_encoder *e, const JOCTET *data, unsigned int length);
int rcp_jpeg_encoder_write(rcp_jpeg_encoder *e, JSAMPARRAY rows, unsigned int count);
int rcp_jpeg_encoder_finish(rcp_jpeg_encoder *e);
void rcp_jpeg_encoder_destroy(rcp_jpeg_encoder *e);

#endif
