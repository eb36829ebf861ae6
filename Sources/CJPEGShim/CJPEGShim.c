#include "CJPEGShim.h"
#include <string.h>

static void rcp_error_exit(j_common_ptr cinfo) {
    rcp_jpeg_error_mgr *err = (rcp_jpeg_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

/* msg_level -1 is a warning (corrupt data); >= 0 are trace messages, which we ignore. */
static void rcp_emit_message(j_common_ptr cinfo, int msg_level) {
    rcp_jpeg_error_mgr *err = (rcp_jpeg_error_mgr *)cinfo->err;
    if (msg_level >= 0) return;
    err->warning_count++;
    int code = cinfo->err->msg_code;
    for (int i = 0; i < err->distinct_warnings; i++)
        if (err->warning_codes[i] == code) return;
    if (err->distinct_warnings < RCP_JPEG_MAX_WARNINGS) {
        int i = err->distinct_warnings++;
        err->warning_codes[i] = code;
        (*cinfo->err->format_message)(cinfo, err->warnings[i]);
    }
}

static void rcp_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void rcp_init_error(rcp_jpeg_error_mgr *err) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = rcp_error_exit;
    err->pub.emit_message = rcp_emit_message;
    err->pub.output_message = rcp_output_message;
}

/* Hostile progressive files can hold thousands of tiny scans (a CPU bomb); djpeg's -maxscans does
   the same check. */
static void rcp_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    rcp_jpeg_decoder *d = (rcp_jpeg_decoder *)cinfo;
    if (d->max_scans > 0 && d->cinfo.input_scan_number > d->max_scans) {
        rcp_jpeg_error_mgr *err = &d->err;
        snprintf(err->message, sizeof err->message,
                 "progressive JPEG has more than %d scans (limit against CPU exhaustion)",
                 d->max_scans);
        longjmp(err->jump, 1);
    }
}

int rcp_jpeg_decoder_open(rcp_jpeg_decoder *d, FILE *file, int max_scans) {
    rcp_init_error(&d->err);
    d->cinfo.err = &d->err.pub;
    d->max_scans = max_scans;
    if (setjmp(d->err.jump)) return 0;
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    d->progress.progress_monitor = rcp_progress;
    d->cinfo.progress = &d->progress;
    jpeg_stdio_src(&d->cinfo, file);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 13, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_COM, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);
    return 1;
}

int rcp_jpeg_decoder_calc_output(rcp_jpeg_decoder *d) {
    if (setjmp(d->err.jump)) return 0;
    jpeg_calc_output_dimensions(&d->cinfo);
    return 1;
}

int rcp_jpeg_decoder_start(rcp_jpeg_decoder *d) {
    if (setjmp(d->err.jump)) return 0;
    jpeg_start_decompress(&d->cinfo);
    return 1;
}

int rcp_jpeg_decoder_read(rcp_jpeg_decoder *d, JSAMPARRAY rows, unsigned int max_lines,
                          unsigned int *lines_read) {
    *lines_read = 0;
    if (setjmp(d->err.jump)) return 0;
    unsigned int total = 0;
    while (total < max_lines && d->cinfo.output_scanline < d->cinfo.output_height) {
        JDIMENSION n = jpeg_read_scanlines(&d->cinfo, rows + total, max_lines - total);
        total += n;
        *lines_read = total;
        if (n == 0) break; /* suspension cannot happen with a stdio source; guard anyway */
    }
    return 1;
}

int rcp_jpeg_decoder_finish(rcp_jpeg_decoder *d) {
    if (setjmp(d->err.jump)) return 0;
    jpeg_finish_decompress(&d->cinfo);
    return 1;
}

void rcp_jpeg_decoder_destroy(rcp_jpeg_decoder *d) {
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    d->created = 0;
}

int rcp_jpeg_encoder_open(rcp_jpeg_encoder *e, FILE *file) {
    rcp_init_error(&e->err);
    e->cinfo.err = &e->err.pub;
    if (setjmp(e->err.jump)) return 0;
    jpeg_create_compress(&e->cinfo);
    e->created = 1;
    jpeg_stdio_dest(&e->cinfo, file);
    return 1;
}

int rcp_jpeg_encoder_configure(rcp_jpeg_encoder *e, unsigned int width, unsigned int height,
                               int components, int quality, int luma_h, int luma_v,
                               int progressive, int optimize, int write_jfif) {
    if (setjmp(e->err.jump)) return 0;
    e->cinfo.image_width = width;
    e->cinfo.image_height = height;
    e->cinfo.input_components = components;
    e->cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&e->cinfo);
    jpeg_set_quality(&e->cinfo, quality, TRUE);
    if (components == 3) {
        e->cinfo.comp_info[0].h_samp_factor = luma_h;
        e->cinfo.comp_info[0].v_samp_factor = luma_v;
        e->cinfo.comp_info[1].h_samp_factor = 1;
        e->cinfo.comp_info[1].v_samp_factor = 1;
        e->cinfo.comp_info[2].h_samp_factor = 1;
        e->cinfo.comp_info[2].v_samp_factor = 1;
    }
    e->cinfo.optimize_coding = optimize ? TRUE : FALSE;
    e->cinfo.write_JFIF_header = write_jfif ? TRUE : FALSE;
    if (progressive) jpeg_simple_progression(&e->cinfo);
    return 1;
}

int rcp_jpeg_encoder_start(rcp_jpeg_encoder *e) {
    if (setjmp(e->err.jump)) return 0;
    jpeg_start_compress(&e->cinfo, TRUE);
    return 1;
}

int rcp_jpeg_encoder_write_marker(rcp_jpeg_encoder *e, int marker, const JOCTET *data,
                                  unsigned int length) {
    if (setjmp(e->err.jump)) return 0;
    jpeg_write_marker(&e->cinfo, marker, data, length);
    return 1;
}

int rcp_jpeg_encoder_write_icc(rcp_jpeg_encoder *e, const JOCTET *data, unsigned int length) {
    if (setjmp(e->err.jump)) return 0;
    jpeg_write_icc_profile(&e->cinfo, data, length);
    return 1;
}

int rcp_jpeg_encoder_write(rcp_jpeg_encoder *e, JSAMPARRAY rows, unsigned int count) {
    if (setjmp(e->err.jump)) return 0;
    unsigned int done = 0;
    while (done < count) {
        JDIMENSION n = jpeg_write_scanlines(&e->cinfo, rows + done, count - done);
        if (n == 0) break;
        done += n;
    }
    return 1;
}

int rcp_jpeg_encoder_finish(rcp_jpeg_encoder *e) {
    if (setjmp(e->err.jump)) return 0;
    jpeg_finish_compress(&e->cinfo);
    return 1;
}

void rcp_jpeg_encoder_destroy(rcp_jpeg_encoder *e) {
    if (e->created) jpeg_destroy_compress(&e->cinfo);
    e->created = 0;
}
