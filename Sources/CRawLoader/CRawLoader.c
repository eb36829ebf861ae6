/* Camera raw files through LibRaw's C API, loaded on the first raw file (see CRawLoader.h): linked,
 * libraw_r brings libstdc++, libgomp and their start-up code into every process. The calls LibRaw
 * makes go through the pointers below; the fields of libraw_data_t are read from its header
 * (<libraw/libraw.h>, LibRaw 0.20), whose layout is the library's ABI (soname libraw_r.so.20).
 *
 * Only this file sees LibRaw's types: Swift gets the flat rcp_raw_info and the developed image. */
#include "CRawLoader.h"
#include "CLibraryLoader.h"
#include "DNGStrips.h"

#include <libraw/libraw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(RCP_RAW_FILE_UNSUPPORTED == LIBRAW_FILE_UNSUPPORTED, "LibRaw error code");
_Static_assert(RCP_RAW_REQUEST_FOR_NONEXISTENT_IMAGE == LIBRAW_REQUEST_FOR_NONEXISTENT_IMAGE, "LibRaw error code");
_Static_assert(RCP_RAW_NOT_IMPLEMENTED == LIBRAW_NOT_IMPLEMENTED, "LibRaw error code");
_Static_assert(RCP_RAW_UNSUFFICIENT_MEMORY == LIBRAW_UNSUFFICIENT_MEMORY, "LibRaw error code");
_Static_assert(RCP_RAW_DATA_ERROR == LIBRAW_DATA_ERROR, "LibRaw error code");
_Static_assert(RCP_RAW_IO_ERROR == LIBRAW_IO_ERROR, "LibRaw error code");
_Static_assert(RCP_RAW_BAD_CROP == LIBRAW_BAD_CROP, "LibRaw error code");
_Static_assert(RCP_RAW_TOO_BIG == LIBRAW_TOO_BIG, "LibRaw error code");
_Static_assert(RCP_RAW_MEMPOOL_OVERFLOW == LIBRAW_MEMPOOL_OVERFLOW, "LibRaw error code");

static __typeof__(libraw_init) *p_libraw_init;
static __typeof__(libraw_open_file) *p_libraw_open_file;
static __typeof__(libraw_open_buffer) *p_libraw_open_buffer;
static __typeof__(libraw_unpack) *p_libraw_unpack;
static __typeof__(libraw_unpack_thumb) *p_libraw_unpack_thumb;
static __typeof__(libraw_dcraw_process) *p_libraw_dcraw_process;
static __typeof__(libraw_close) *p_libraw_close;
static __typeof__(libraw_strerror) *p_libraw_strerror;
static __typeof__(libraw_version) *p_libraw_version;
static __typeof__(libraw_COLOR) *p_libraw_COLOR;
static __typeof__(libraw_set_dataerror_handler) *p_libraw_set_dataerror_handler;
static __typeof__(libraw_get_decoder_info) *p_libraw_get_decoder_info;

static const rcp_symbol symbols[] = {
    RCP_SYMBOL(libraw_init),
    RCP_SYMBOL(libraw_open_file),
    RCP_SYMBOL(libraw_open_buffer),
    RCP_SYMBOL(libraw_unpack),
    RCP_SYMBOL(libraw_unpack_thumb),
    RCP_SYMBOL(libraw_dcraw_process),
    RCP_SYMBOL(libraw_close),
    RCP_SYMBOL(libraw_strerror),
    RCP_SYMBOL(libraw_version),
    RCP_SYMBOL(libraw_COLOR),
    RCP_SYMBOL(libraw_set_dataerror_handler),
    RCP_SYMBOL(libraw_get_decoder_info),
    {0, 0},
};
static rcp_library library = {"libraw_r.so.20", symbols, PTHREAD_ONCE_INIT};

static void load(void) { rcp_library_open(&library); }

int rcp_raw_load(const char **message) { return rcp_library_load(&library, load, message); }

const char *rcp_raw_version(void) { return rcp_raw_load(NULL) ? p_libraw_version() : NULL; }

const char *rcp_raw_strerror(int code) { return rcp_raw_load(NULL) ? p_libraw_strerror(code) : "LibRaw cannot be loaded"; }

struct rcp_raw {
    libraw_data_t *data;
    rcp_raw_problems problems;
    /* The file's bytes and zeros after them, for a file opened padded (LibRaw reads from it). */
    void *buffer;
    /* The file's path (not for one opened padded), and the mosaic read from a DNG's strips. */
    char *path;
    uint16_t *strips;
};

/* LibRaw calls this for each data error while unpacking: offset -1 for an unexpected end of file. */
static void data_error(void *context, const char *file, const int offset) {
    (void)file;
    rcp_raw_problems *p = context;
    if (offset < 0) p->end_of_file = 1;
    else if (p->first_offset < 0) p->first_offset = offset;
    p->data_errors++;
}

static void copy(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from);
}

static rcp_raw *open_raw(const char *path, size_t pad, rcp_raw_info *info, int *code) {
    memset(info, 0, sizeof *info);
    if (!rcp_raw_load(NULL)) { *code = 1; return NULL; }
    libraw_data_t *d = p_libraw_init(0);
    if (!d) { *code = LIBRAW_UNSUFFICIENT_MEMORY; return NULL; }
    rcp_raw *raw = calloc(1, sizeof *raw);
    if (!raw) { p_libraw_close(d); *code = LIBRAW_UNSUFFICIENT_MEMORY; return NULL; }
    raw->data = d;
    raw->problems.first_offset = -1;
    if (pad == 0 && !(raw->path = strdup(path))) {
        rcp_raw_close(raw);
        *code = LIBRAW_UNSUFFICIENT_MEMORY;
        return NULL;
    }
    p_libraw_set_dataerror_handler(d, data_error, &raw->problems);
    int status;
    if (pad == 0) {
        status = p_libraw_open_file(d, path);
    } else {
        /* The whole file, then `pad` zero bytes: what is missing of a cut file reads as black. */
        FILE *f = fopen(path, "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
        if (!f || size < 0 || fseek(f, 0, SEEK_SET) != 0 || !(raw->buffer = calloc(1, (size_t)size + pad))
            || fread(raw->buffer, 1, (size_t)size, f) != (size_t)size) {
            if (f) fclose(f);
            *code = raw->buffer ? LIBRAW_IO_ERROR : LIBRAW_UNSUFFICIENT_MEMORY;
            rcp_raw_close(raw);
            return NULL;
        }
        fclose(f);
        status = p_libraw_open_buffer(d, raw->buffer, (size_t)size + pad);
    }
    if (status != LIBRAW_SUCCESS) {
        /* What was identified before the failure names the camera in the message. */
        copy(info->make, sizeof info->make, d->idata.make);
        copy(info->model, sizeof info->model, d->idata.model);
        *code = status;
        rcp_raw_close(raw);
        return NULL;
    }
    copy(info->make, sizeof info->make, d->idata.make);
    copy(info->model, sizeof info->model, d->idata.model);
    copy(info->software, sizeof info->software, d->idata.software);
    copy(info->lens, sizeof info->lens, d->lens.Lens[0] ? d->lens.Lens : d->lens.makernotes.Lens);
    copy(info->lens_make, sizeof info->lens_make, d->lens.LensMake);
    libraw_decoder_info_t decoder;
    if (p_libraw_get_decoder_info(d, &decoder) == LIBRAW_SUCCESS && decoder.decoder_name)
        copy(info->decoder, sizeof info->decoder, decoder.decoder_name);
    info->timestamp = (int64_t)d->other.timestamp;
    info->iso = d->other.iso_speed;
    info->shutter = d->other.shutter;
    info->aperture = d->other.aperture;
    info->focal_length = d->other.focal_len;
    const libraw_makernotes_lens_t *mn = &d->lens.makernotes;
    info->lens_id = mn->LensID == (unsigned long long)-1 || mn->LensID > (unsigned long long)INT64_MAX ? -1 : (long long)mn->LensID;
    info->focal_length_35mm = d->lens.FocalLengthIn35mmFormat ? d->lens.FocalLengthIn35mmFormat : mn->FocalLengthIn35mmFormat;
    info->lens_min_focal = d->lens.MinFocal > 0 ? d->lens.MinFocal : mn->MinFocal;
    info->lens_max_focal = d->lens.MaxFocal > 0 ? d->lens.MaxFocal : mn->MaxFocal;
    info->lens_max_aperture_wide = d->lens.MaxAp4MinFocal > 0 ? d->lens.MaxAp4MinFocal : mn->MaxAp4MinFocal;
    info->lens_max_aperture_tele = d->lens.MaxAp4MaxFocal > 0 ? d->lens.MaxAp4MaxFocal : mn->MaxAp4MaxFocal;
    const libraw_gps_info_t *g = &d->other.parsed_gps;
    if (g->gpsparsed) {
        info->has_gps = 1;
        info->latitude = g->latitude[0] + g->latitude[1] / 60.0 + g->latitude[2] / 3600.0;
        info->longitude = g->longitude[0] + g->longitude[1] / 60.0 + g->longitude[2] / 3600.0;
        if (g->latref == 'S') info->latitude = -info->latitude;
        if (g->longref == 'W') info->longitude = -info->longitude;
        info->altitude = g->altref == 1 ? -g->altitude : g->altitude;
    }
    info->raw_width = d->sizes.raw_width;
    info->raw_height = d->sizes.raw_height;
    info->width = d->sizes.width;
    info->height = d->sizes.height;
    info->flip = d->sizes.flip;
    info->colors = d->idata.colors;
    info->filters = d->idata.filters;
    copy(info->cdesc, sizeof info->cdesc, d->idata.cdesc);
    if (d->idata.filters > 1000 && d->idata.colors == 3) {
        for (int i = 0; i < 4; i++) {
            int c = p_libraw_COLOR(d, i >> 1, i & 1);
            info->cfa[i] = (c >= 0 && c < 4) ? d->idata.cdesc[c] : '?';
        }
    }
    info->dng_version = d->idata.dng_version;
    info->black = d->color.black;
    info->maximum = d->color.maximum;
    memcpy(info->cam_mul, d->color.cam_mul, sizeof info->cam_mul);
    memcpy(info->pre_mul, d->color.pre_mul, sizeof info->pre_mul);
    memcpy(info->cam_xyz, d->color.cam_xyz, sizeof info->cam_xyz);
    if (info->cam_xyz[0][0] == 0 && info->cam_xyz[1][1] == 0 && d->idata.dng_version) {
        /* A DNG's ColorMatrix stays in dng_color (LibRaw 0.20 leaves cam_xyz empty): the second
         * when there are two, as dcraw reads them (ColorMatrix2 is for D65 by convention). */
        int k = d->color.dng_color[1].colormatrix[0][0] != 0 ? 1 : 0;
        memcpy(info->cam_xyz, d->color.dng_color[k].colormatrix, sizeof info->cam_xyz);
    }
    memcpy(info->rgb_cam, d->color.rgb_cam, sizeof info->rgb_cam);
    info->baseline_exposure = d->idata.dng_version ? d->color.dng_levels.baseline_exposure : 0;
    info->thumb_format = d->thumbnail.tformat;
    info->thumb_width = d->thumbnail.twidth;
    info->thumb_height = d->thumbnail.theight;
    info->thumb_length = d->thumbnail.tlength;
    *code = 0;
    return raw;
}

rcp_raw *rcp_raw_open(const char *path, rcp_raw_info *info, int *code) { return open_raw(path, 0, info, code); }

rcp_raw *rcp_raw_open_padded(const char *path, size_t pad, rcp_raw_info *info, int *code) {
    return open_raw(path, pad ? pad : 1, info, code);
}

int rcp_raw_develop_image(rcp_raw *raw, const rcp_raw_develop *develop, rcp_raw_problems *problems) {
    libraw_data_t *d = raw->data;
    libraw_output_params_t *o = &d->params;
    /* Scene-referred: linear camera RGB (no output matrix, no curve, no brightening), 16 bits. */
    o->output_color = 0;
    o->output_bps = 16;
    o->gamm[0] = 1;
    o->gamm[1] = 1;
    o->no_auto_bright = 1;
    /* The white level is the camera's, not the brightest value of this photo (LibRaw lowers it to
     * that when it lies within 75% of it: a content-dependent brightening). */
    o->adjust_maximum_thr = 0;
    o->user_qual = develop->quality;
    o->half_size = develop->half_size;
    o->use_camera_wb = develop->white_balance == 0;
    o->use_auto_wb = develop->white_balance == 1;
    if (develop->white_balance == 2) memcpy(o->user_mul, develop->multipliers, sizeof o->user_mul);
    o->highlight = develop->highlight;
    o->aber[0] = develop->aberration_red > 0 ? 1 / develop->aberration_red : 1;
    o->aber[2] = develop->aberration_blue > 0 ? 1 / develop->aberration_blue : 1;
    o->threshold = develop->noise_threshold;
    if (develop->max_memory_mb) o->max_raw_memory_mb = develop->max_memory_mb;
    int status = p_libraw_unpack(d);
    if (status == LIBRAW_SUCCESS) status = p_libraw_dcraw_process(d);
    raw->problems.process_warnings = d->process_warnings;
    *problems = raw->problems;
    return status;
}

/* The mosaic of a DNG that LibRaw unpacks with packed_dng_load_raw, read from its strips instead
 * (DNGStrips.c): the frame LibRaw's raw_image would hold, sample for sample. 0 when read; 1 when
 * the file is not such a DNG, LibRaw would refuse it (its memory limit) or the read failed, and
 * LibRaw's unpack is then the way. */
static int unpack_strips(rcp_raw *raw, unsigned max_memory_mb) {
    libraw_data_t *d = raw->data;
    if (!raw->path || !d->idata.dng_version) return 1;
    libraw_decoder_info_t decoder;
    if (p_libraw_get_decoder_info(d, &decoder) != LIBRAW_SUCCESS || !decoder.decoder_name
        || strncmp(decoder.decoder_name, "packed_dng_load_raw", 19) != 0)
        return 1;
    const int width = d->sizes.raw_width, height = d->sizes.raw_height;
    if (width <= 0 || height <= 0 || width < d->sizes.width + d->sizes.left_margin || height < d->sizes.height + d->sizes.top_margin)
        return 1;
    /* LibRaw refuses a frame over its limit (rows + 8, 2 bytes a sample): it says so, not us */
    unsigned limit = max_memory_mb ? max_memory_mb : d->params.max_raw_memory_mb;
    if ((uint64_t)width * ((uint64_t)height + 8) * 2 > (uint64_t)limit * 1024 * 1024) return 1;
    int fd = open(raw->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    struct stat st;
    rcp_dng_layout layout;
    int status = 1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
        && rcp_dng_find_layout(fd, (uint64_t)st.st_size, width, height, &layout) == RCP_DNG_OK) {
        uint16_t *frame = malloc((size_t)width * (size_t)height * 2);
        /* LibRaw's linearisation table: the identity unless the DNG has a LinearizationTable */
        const uint16_t *curve = d->color.curve;
        int identity = 1;
        for (int i = 0; i < 0x10000 && identity; i++) identity = curve[i] == i;
        if (frame && rcp_dng_unpack(fd, &layout, identity ? NULL : curve, frame) == 0) {
            free(raw->strips);
            raw->strips = frame;
            status = 0;
        } else {
            free(frame);
        }
    }
    close(fd);
    return status;
}

int rcp_raw_strips_layout(const char *path, int width, int height, int *bits) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return RCP_DNG_NOT_TIFF;
    struct stat st;
    rcp_dng_layout layout;
    int status = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? rcp_dng_find_layout(fd, (uint64_t)st.st_size, width, height, &layout)
                                                            : RCP_DNG_NOT_TIFF;
    close(fd);
    if (bits) *bits = status == RCP_DNG_OK ? layout.bits : 0;
    return status;
}

int rcp_raw_unpack_mosaic(rcp_raw *raw, unsigned max_memory_mb, rcp_raw_mosaic *m, rcp_raw_problems *problems) {
    const char *asked = getenv("RECIPE_RAW_UNPACK");
    int reader = asked && strcmp(asked, "libraw") == 0 ? RCP_RAW_READER_LIBRAW : RCP_RAW_READER_ANY;
    return rcp_raw_unpack_mosaic_by(raw, max_memory_mb, reader, m, problems);
}

int rcp_raw_unpack_mosaic_by(rcp_raw *raw, unsigned max_memory_mb, int reader, rcp_raw_mosaic *m, rcp_raw_problems *problems) {
    libraw_data_t *d = raw->data;
    memset(m, 0, sizeof *m);
    if (d->idata.filters < 1000 || d->idata.colors != 3 || d->idata.is_foveon) return 1;
    if (max_memory_mb) d->params.max_raw_memory_mb = max_memory_mb;
    const uint16_t *frame = NULL;
    int pitch = 0;
    if (reader != RCP_RAW_READER_LIBRAW && unpack_strips(raw, max_memory_mb) == 0) {
        /* identify's levels are the unpack's: packed_dng_load_raw and what LibRaw's unpack does
         * after it change none of them for a DNG without masked areas (it moves the part the
         * four cblack share into black, which leaves each sum below as it was) */
        frame = raw->strips;
        pitch = d->sizes.raw_width;
        m->reader = RCP_RAW_READER_STRIPS;
        *problems = raw->problems;
    } else {
        if (reader == RCP_RAW_READER_STRIPS) return 1;
        int status = p_libraw_unpack(d);
        raw->problems.process_warnings = d->process_warnings;
        *problems = raw->problems;
        if (status != LIBRAW_SUCCESS) return status;
        if (!d->rawdata.raw_image) return 1;
        frame = d->rawdata.raw_image;
        pitch = (int)(d->rawdata.sizes.raw_pitch / 2);
        if (pitch < d->sizes.raw_width) pitch = d->sizes.raw_width;
        m->reader = RCP_RAW_READER_LIBRAW;
    }
    const libraw_colordata_t *c = &d->color;
    /* A black level that varies beyond the 2×2 pattern (cblack[4] × cblack[5] larger than 2×2
     * in phase with it) is LibRaw's to apply. */
    unsigned bh = c->cblack[4], bw = c->cblack[5];
    if ((bh && bh != 1 && bh != 2) || (bw && bw != 1 && bw != 2)) return 1;
    m->raw = frame;
    m->raw_pitch = pitch;
    m->frame_width = d->sizes.raw_width;
    m->frame_height = d->sizes.raw_height;
    m->top = d->sizes.top_margin;
    m->left = d->sizes.left_margin;
    m->width = d->sizes.width;
    m->height = d->sizes.height;
    for (int q = 0; q < 4; q++) {
        int row = q >> 1, col = q & 1;
        int colour = p_libraw_COLOR(d, row, col);
        if (colour < 0 || colour > 3) return 1;
        m->pattern[q] = colour == 3 ? 1 : colour;
        float black = (float)c->black + (float)c->cblack[colour];
        if (bh && bw) black += (float)c->cblack[6 + (row % bh) * bw + col % bw];
        m->black[q] = black;
    }
    m->maximum = (float)c->maximum;
    return m->maximum > m->black[0] ? 0 : 1;
}

const uint16_t *rcp_raw_image(rcp_raw *raw, int *width, int *height, double *gain) {
    libraw_data_t *d = raw->data;
    *width = d->sizes.iwidth;
    *height = d->sizes.iheight;
    /* scale_colors divided the multipliers by the largest one when a highlight mode keeps what
     * lies above the white level (by the smallest otherwise): the samples are then darker by the
     * smallest normalised multiplier. */
    double smallest = 1;
    for (int c = 0; c < 4; c++)
        if (d->color.pre_mul[c] > 0 && d->color.pre_mul[c] < smallest) smallest = d->color.pre_mul[c];
    *gain = 1 / smallest;
    return d->image ? &d->image[0][0] : NULL;
}

void rcp_raw_used_multipliers(rcp_raw *raw, float multipliers[4]) {
    const float *m = raw->data->color.pre_mul;
    float smallest = 0;
    for (int c = 0; c < 4; c++)
        if (m[c] > 0 && (smallest == 0 || m[c] < smallest)) smallest = m[c];
    for (int c = 0; c < 4; c++) multipliers[c] = smallest > 0 ? m[c] / smallest : 0;
}

const unsigned char *rcp_raw_thumbnail(rcp_raw *raw, size_t *length, int *format, int *width, int *height, int *colors, int *code) {
    libraw_data_t *d = raw->data;
    *code = p_libraw_unpack_thumb(d);
    if (*code != LIBRAW_SUCCESS || !d->thumbnail.thumb) return NULL;
    *length = d->thumbnail.tlength;
    *format = d->thumbnail.tformat;
    *width = d->thumbnail.twidth;
    *height = d->thumbnail.theight;
    *colors = d->thumbnail.tcolors;
    return (const unsigned char *)d->thumbnail.thumb;
}

void rcp_raw_close(rcp_raw *raw) {
    if (!raw) return;
    if (raw->data) p_libraw_close(raw->data);
    free(raw->buffer);
    free(raw->path);
    free(raw->strips);
    free(raw);
}
