#include "CPNGShim.h"
#include <string.h>

static void rcp_png_error(png_structp png, png_const_charp msg) {
    rcp_png *p = (rcp_png *)png_get_error_ptr(png);
    snprintf(p->message, sizeof p->message, "%s", msg ? msg : "unknown libpng error");
    png_longjmp(png, 1);
}

static void rcp_png_warning(png_structp png, png_const_charp msg) {
    rcp_png *p = (rcp_png *)png_get_error_ptr(png);
    p->warning_count++;
    const char *m = msg ? msg : "unknown libpng warning";
    for (int i = 0; i < p->distinct_warnings; i++)
        if (strncmp(p->warnings[i], m, RCP_PNG_MESSAGE - 1) == 0) return;
    if (p->distinct_warnings < RCP_PNG_MAX_WARNINGS)
        snprintf(p->warnings[p->distinct_warnings++], RCP_PNG_MESSAGE, "%s", m);
}

int rcp_png_reader_open(rcp_png *r, FILE *file, png_uint_32 max_width, png_uint_32 max_height) {
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, rcp_png_error, rcp_png_warning);
    if (!r->png) { snprintf(r->message, sizeof r->message, "out of memory"); return 0; }
    r->info = png_create_info_struct(r->png);
    r->end_info = png_create_info_struct(r->png);
    if (!r->info || !r->end_info) { snprintf(r->message, sizeof r->message, "out of memory"); return 0; }
    if (setjmp(png_jmpbuf(r->png))) return 0;
    png_init_io(r->png, file);
    /* Damage in ancillary chunks and a few recoverable stream faults become warnings;
       a bad CRC in a critical chunk stays an error. */
    png_set_benign_errors(r->png, 1);
    png_set_crc_action(r->png, PNG_CRC_DEFAULT, PNG_CRC_WARN_DISCARD);
    png_set_user_limits(r->png, max_width, max_height);
    png_read_info(r->png, r->info);
    return 1;
}

int rcp_png_reader_configure(rcp_png *r, int *passes) {
    if (setjmp(png_jmpbuf(r->png))) return 0;
    png_set_expand(r->png);            /* palette -> RGB, gray 1/2/4 -> 8, tRNS -> alpha */
    png_set_tRNS_to_alpha(r->png);
#if PNG_LIBPNG_VER >= 10500
    {
        const int one = 1;
        /* host byte order for 16-bit samples, so Swift reads them as UInt16 */
        if (*(const char *)&one == 1) png_set_swap(r->png);
    }
#endif
    *passes = png_set_interlace_handling(r->png);
    png_read_update_info(r->png, r->info);
    return 1;
}

int rcp_png_reader_read_rows(rcp_png *r, png_bytepp rows, png_uint_32 count) {
    if (setjmp(png_jmpbuf(r->png))) return 0;
    png_read_rows(r->png, rows, NULL, count);
    return 1;
}

int rcp_png_reader_read_end(rcp_png *r) {
    if (setjmp(png_jmpbuf(r->png))) return 0;
    png_read_end(r->png, r->end_info);
    return 1;
}

int rcp_png_writer_open(rcp_png *w, FILE *file) {
    w->is_writer = 1;
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, rcp_png_error, rcp_png_warning);
    if (!w->png) { snprintf(w->message, sizeof w->message, "out of memory"); return 0; }
    w->info = png_create_info_struct(w->png);
    if (!w->info) { snprintf(w->message, sizeof w->message, "out of memory"); return 0; }
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_init_io(w->png, file);
    png_set_benign_errors(w->png, 1);
    return 1;
}

int rcp_png_writer_header(rcp_png *w, png_uint_32 width, png_uint_32 height, int bit_depth,
                          int color_type, int compression_level) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_set_IHDR(w->png, w->info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(w->png, compression_level);
    return 1;
}

int rcp_png_writer_set_iccp(rcp_png *w, png_const_charp name, png_const_bytep profile,
                            png_uint_32 length) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_set_iCCP(w->png, w->info, name, PNG_COMPRESSION_TYPE_BASE, profile, length);
    return 1;
}

int rcp_png_writer_set_exif(rcp_png *w, png_bytep exif, png_uint_32 length) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_set_eXIf_1(w->png, w->info, length, exif);
    return 1;
}

int rcp_png_writer_set_text(rcp_png *w, png_const_textp text, int count) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_set_text(w->png, w->info, text, count);
    return 1;
}

int rcp_png_writer_set_gama(rcp_png *w, double file_gamma) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_set_gAMA(w->png, w->info, file_gamma);
    return 1;
}

int rcp_png_writer_set_srgb(rcp_png *w, int intent) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_set_sRGB_gAMA_and_cHRM(w->png, w->info, intent);
    return 1;
}

int rcp_png_writer_write_info(rcp_png *w) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_write_info(w->png, w->info);
    /* libpng 1.6.39's png_write_end writes an eXIf chunk still in the info struct a second time,
       after IDAT (the PNG spec allows one; exiftool warns). It is written now, before IDAT, where
       readers look for it: drop it from the struct so png_write_end has none to repeat. */
    png_free_data(w->png, w->info, PNG_FREE_EXIF, -1);
    {
        const int one = 1;
        if (*(const char *)&one == 1) png_set_swap(w->png);
    }
    return 1;
}

int rcp_png_writer_write_rows(rcp_png *w, png_bytepp rows, png_uint_32 count) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_write_rows(w->png, rows, count);
    return 1;
}

int rcp_png_writer_finish(rcp_png *w) {
    if (setjmp(png_jmpbuf(w->png))) return 0;
    png_write_end(w->png, w->info);
    return 1;
}

void rcp_png_destroy(rcp_png *p) {
    if (!p->png) return;
    if (p->is_writer) png_destroy_write_struct(&p->png, &p->info);
    else png_destroy_read_struct(&p->png, &p->info, &p->end_info);
    p->png = NULL;
}
