#include "CJPEGShim.h"
#include <jerror.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Huge pages for a progressive file's coefficient buffer.

   A progressive JPEG keeps every DCT coefficient of the image until its last scan: 69 MiB for a
   24 MP photo, zero-filled by libjpeg row by row as the first scan reaches it. In 4 KiB pages that
   is 17,600 page faults, each zeroing its page in the kernel: about 40 ms of system time on a
   0.19 s render. Advising the arrays for transparent huge pages (MADV_HUGEPAGE; the system default
   is often "madvise", i.e. only where asked) makes that about 35 faults of 2 MiB. The memory is
   the same: libjpeg zero-fills and then writes every row anyway.

   libjpeg allocates the arrays inside realize_virt_arrays through its private allocator, so the
   wrappers below go through the memory manager's public methods instead: request_virt_barray
   notes each zero-filled array and its size, and after the real realize_virt_arrays, the rows of
   each are looked up with access_virt_barray. Arrays that are not zero-filled (a multi-scan
   baseline file) are left alone, since reading their rows before they are written is an error. */
static jvirt_barray_ptr rcp_request_virt_barray(j_common_ptr cinfo, int pool_id, boolean pre_zero,
                                                JDIMENSION blocksperrow, JDIMENSION numrows,
                                                JDIMENSION maxaccess) {
    rcp_jpeg_decoder *d = (rcp_jpeg_decoder *)cinfo;
    jvirt_barray_ptr array = d->request_virt_barray(cinfo, pool_id, pre_zero, blocksperrow,
                                                    numrows, maxaccess);
    if (pre_zero && d->coefficient_array_count < MAX_COMPONENTS) {
        rcp_jpeg_coefficient_array *entry = &d->coefficient_arrays[d->coefficient_array_count++];
        entry->array = array;
        entry->blocks_per_row = blocksperrow;
        entry->rows = numrows;
        d->coefficient_bytes += (size_t)blocksperrow * numrows * sizeof(JBLOCK);
    }
    return array;
}

static void rcp_realize_virt_arrays(j_common_ptr cinfo) {
    rcp_jpeg_decoder *d = (rcp_jpeg_decoder *)cinfo;
    d->realize_virt_arrays(cinfo);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < d->coefficient_array_count; i++) {
        rcp_jpeg_coefficient_array *entry = &d->coefficient_arrays[i];
        if (entry->rows == 0 || entry->blocks_per_row == 0) continue;
        size_t row_bytes = (size_t)entry->blocks_per_row * sizeof(JBLOCK);
        /* Reading a zero-filled array's rows only zero-fills them early; it changes no state. */
        JBLOCKARRAY first = cinfo->mem->access_virt_barray(cinfo, entry->array, 0, 1, FALSE);
        JBLOCKARRAY last = cinfo->mem->access_virt_barray(cinfo, entry->array, entry->rows - 1, 1,
                                                          FALSE);
        uintptr_t start = (uintptr_t)first[0];
        /* libjpeg allocates an array's rows in chunks of up to 1 GB: advise one contiguous span. */
        if ((uintptr_t)last[0] != start + (size_t)(entry->rows - 1) * row_bytes) continue;
        uintptr_t end = start + (size_t)entry->rows * row_bytes;
        start = (start + page - 1) & ~(page - 1);
        end &= ~(page - 1);
        if (end <= start) continue;
        /* A kernel without transparent huge pages says EINVAL: the 4 KiB pages serve as before. */
        if (madvise((void *)start, end - start, MADV_HUGEPAGE) == 0)
            d->huge_page_bytes += end - start;
    }
}

/* A source manager like libjpeg's stdio one (jdatasrc.c: the same end-of-file handling, a warning
 * and a fake EOI; an empty file an error), reading RCP_JPEG_READ_BUFFER bytes a call where
 * jpeg_stdio_src reads 4 KiB: photo24's 4.6 MB took 1,150 read(2)s on the decoder's thread, the
 * thread a plain render waits for. The buffer comes from the decompressor's permanent pool. */
typedef struct {
    struct jpeg_source_mgr pub;
    FILE *file;
    JOCTET *buffer;
    boolean start_of_file;
} rcp_source;

static void rcp_source_init(j_decompress_ptr c) { ((rcp_source *)c->src)->start_of_file = TRUE; }

static boolean rcp_source_fill(j_decompress_ptr c) {
    rcp_source *s = (rcp_source *)c->src;
    size_t n = fread(s->buffer, 1, RCP_JPEG_READ_BUFFER, s->file);
    if (n == 0) {
        if (s->start_of_file) ERREXIT(c, JERR_INPUT_EMPTY);
        WARNMS(c, JWRN_JPEG_EOF);
        s->buffer[0] = (JOCTET)0xFF;
        s->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    }
    s->pub.next_input_byte = s->buffer;
    s->pub.bytes_in_buffer = n;
    s->start_of_file = FALSE;
    return TRUE;
}

static void rcp_source_skip(j_decompress_ptr c, long count) {
    struct jpeg_source_mgr *src = c->src;
    if (count <= 0) return;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)(*src->fill_input_buffer)(c);
    }
    src->next_input_byte += (size_t)count;
    src->bytes_in_buffer -= (size_t)count;
}

static void rcp_source_term(j_decompress_ptr c) { (void)c; }

static void rcp_jpeg_source(j_decompress_ptr c, FILE *file) {
    rcp_source *s = (rcp_source *)(*c->mem->alloc_small)((j_common_ptr)c, JPOOL_PERMANENT, sizeof(rcp_source));
    s->buffer = (JOCTET *)(*c->mem->alloc_large)((j_common_ptr)c, JPOOL_PERMANENT, RCP_JPEG_READ_BUFFER);
    s->file = file;
    s->pub.init_source = rcp_source_init;
    s->pub.fill_input_buffer = rcp_source_fill;
    s->pub.skip_input_data = rcp_source_skip;
    s->pub.resync_to_restart = jpeg_resync_to_restart;
    s->pub.term_source = rcp_source_term;
    s->pub.bytes_in_buffer = 0;
    s->pub.next_input_byte = NULL;
    c->src = &s->pub;
}

int rcp_jpeg_decoder_open(rcp_jpeg_decoder *d, FILE *file, int max_scans) {
    rcp_init_error(&d->err);
    d->cinfo.err = &d->err.pub;
    d->max_scans = max_scans;
    if (setjmp(d->err.jump)) return 0;
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    d->request_virt_barray = d->cinfo.mem->request_virt_barray;
    d->realize_virt_arrays = d->cinfo.mem->realize_virt_arrays;
    d->cinfo.mem->request_virt_barray = rcp_request_virt_barray;
    d->cinfo.mem->realize_virt_arrays = rcp_realize_virt_arrays;
    d->progress.progress_monitor = rcp_progress;
    d->cinfo.progress = &d->progress;
    rcp_jpeg_source(&d->cinfo, file);
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

int rcp_jpeg_decoder_window(rcp_jpeg_decoder *d, unsigned int *xoffset, unsigned int *width,
                            unsigned int lines) {
    if (setjmp(d->err.jump)) return 0;
    JDIMENSION x = *xoffset, w = *width;
    jpeg_crop_scanline(&d->cinfo, &x, &w);
    *xoffset = x;
    *width = w;
    if (lines > 0 && jpeg_skip_scanlines(&d->cinfo, lines) != lines) {
        snprintf(d->err.message, sizeof d->err.message, "could not skip to row %u", lines);
        return 0;
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
