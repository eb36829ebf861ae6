/* Loads libheif when the first HEIF or AVIF is opened, not when recipe starts: linking it costs
 * every process about 3 ms before main (libde265's, x265's and aom's start-up code and
 * relocations: 4.1 ms for an empty C program linked with -lheif, 0.8 ms without), a twentieth of
 * a JPEG identity render. Each libheif function recipe calls is defined here with libheif's own
 * prototype and forwards to the symbol dlsym found, so RecipeCodecs calls libheif as usual.
 *
 * Generated from <libheif/heif.h> (libheif 1.15) for the functions Sources/RecipeCodecs/HEIF
 * uses; a new call there needs its line here (the link fails until it has one). */
#include "CHeifLoader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static __typeof__(heif_context_add_XMP_metadata) *p_heif_context_add_XMP_metadata;
static __typeof__(heif_context_add_exif_metadata) *p_heif_context_add_exif_metadata;
static __typeof__(heif_context_alloc) *p_heif_context_alloc;
static __typeof__(heif_context_encode_image) *p_heif_context_encode_image;
static __typeof__(heif_context_free) *p_heif_context_free;
static __typeof__(heif_context_get_encoder_for_format) *p_heif_context_get_encoder_for_format;
static __typeof__(heif_context_get_number_of_top_level_images) *p_heif_context_get_number_of_top_level_images;
static __typeof__(heif_context_get_primary_image_handle) *p_heif_context_get_primary_image_handle;
static __typeof__(heif_context_read_from_file) *p_heif_context_read_from_file;
static __typeof__(heif_context_set_maximum_image_size_limit) *p_heif_context_set_maximum_image_size_limit;
static __typeof__(heif_context_write) *p_heif_context_write;
static __typeof__(heif_decode_image) *p_heif_decode_image;
static __typeof__(heif_decoding_options_alloc) *p_heif_decoding_options_alloc;
static __typeof__(heif_decoding_options_free) *p_heif_decoding_options_free;
static __typeof__(heif_encoder_release) *p_heif_encoder_release;
static __typeof__(heif_encoder_set_lossless) *p_heif_encoder_set_lossless;
static __typeof__(heif_encoder_set_lossy_quality) *p_heif_encoder_set_lossy_quality;
static __typeof__(heif_encoder_set_parameter_integer) *p_heif_encoder_set_parameter_integer;
static __typeof__(heif_encoding_options_alloc) *p_heif_encoding_options_alloc;
static __typeof__(heif_encoding_options_free) *p_heif_encoding_options_free;
static __typeof__(heif_image_add_plane) *p_heif_image_add_plane;
static __typeof__(heif_image_create) *p_heif_image_create;
static __typeof__(heif_image_get_decoding_warnings) *p_heif_image_get_decoding_warnings;
static __typeof__(heif_image_get_height) *p_heif_image_get_height;
static __typeof__(heif_image_get_plane) *p_heif_image_get_plane;
static __typeof__(heif_image_get_plane_readonly) *p_heif_image_get_plane_readonly;
static __typeof__(heif_image_get_width) *p_heif_image_get_width;
static __typeof__(heif_image_handle_get_height) *p_heif_image_handle_get_height;
static __typeof__(heif_image_handle_get_ispe_height) *p_heif_image_handle_get_ispe_height;
static __typeof__(heif_image_handle_get_ispe_width) *p_heif_image_handle_get_ispe_width;
static __typeof__(heif_image_handle_get_list_of_metadata_block_IDs) *p_heif_image_handle_get_list_of_metadata_block_IDs;
static __typeof__(heif_image_handle_get_luma_bits_per_pixel) *p_heif_image_handle_get_luma_bits_per_pixel;
static __typeof__(heif_image_handle_get_metadata) *p_heif_image_handle_get_metadata;
static __typeof__(heif_image_handle_get_metadata_content_type) *p_heif_image_handle_get_metadata_content_type;
static __typeof__(heif_image_handle_get_metadata_size) *p_heif_image_handle_get_metadata_size;
static __typeof__(heif_image_handle_get_metadata_type) *p_heif_image_handle_get_metadata_type;
static __typeof__(heif_image_handle_get_nclx_color_profile) *p_heif_image_handle_get_nclx_color_profile;
static __typeof__(heif_image_handle_get_number_of_depth_images) *p_heif_image_handle_get_number_of_depth_images;
static __typeof__(heif_image_handle_get_number_of_metadata_blocks) *p_heif_image_handle_get_number_of_metadata_blocks;
static __typeof__(heif_image_handle_get_number_of_thumbnails) *p_heif_image_handle_get_number_of_thumbnails;
static __typeof__(heif_image_handle_get_raw_color_profile) *p_heif_image_handle_get_raw_color_profile;
static __typeof__(heif_image_handle_get_raw_color_profile_size) *p_heif_image_handle_get_raw_color_profile_size;
static __typeof__(heif_image_handle_get_width) *p_heif_image_handle_get_width;
static __typeof__(heif_image_handle_has_alpha_channel) *p_heif_image_handle_has_alpha_channel;
static __typeof__(heif_image_handle_is_premultiplied_alpha) *p_heif_image_handle_is_premultiplied_alpha;
static __typeof__(heif_image_handle_release) *p_heif_image_handle_release;
static __typeof__(heif_image_release) *p_heif_image_release;
static __typeof__(heif_image_set_nclx_color_profile) *p_heif_image_set_nclx_color_profile;
static __typeof__(heif_image_set_raw_color_profile) *p_heif_image_set_raw_color_profile;
static __typeof__(heif_init) *p_heif_init;
static __typeof__(heif_nclx_color_profile_alloc) *p_heif_nclx_color_profile_alloc;
static __typeof__(heif_nclx_color_profile_free) *p_heif_nclx_color_profile_free;

static char problem[256];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int missing(const char *name) {
    snprintf(problem, sizeof problem, "libheif has no %s (too old?)", name);
    return 0;
}

static int resolve(void *h) {
    if (!(p_heif_context_add_XMP_metadata = (__typeof__(heif_context_add_XMP_metadata) *)dlsym(h, "heif_context_add_XMP_metadata"))) return missing("heif_context_add_XMP_metadata");
    if (!(p_heif_context_add_exif_metadata = (__typeof__(heif_context_add_exif_metadata) *)dlsym(h, "heif_context_add_exif_metadata"))) return missing("heif_context_add_exif_metadata");
    if (!(p_heif_context_alloc = (__typeof__(heif_context_alloc) *)dlsym(h, "heif_context_alloc"))) return missing("heif_context_alloc");
    if (!(p_heif_context_encode_image = (__typeof__(heif_context_encode_image) *)dlsym(h, "heif_context_encode_image"))) return missing("heif_context_encode_image");
    if (!(p_heif_context_free = (__typeof__(heif_context_free) *)dlsym(h, "heif_context_free"))) return missing("heif_context_free");
    if (!(p_heif_context_get_encoder_for_format = (__typeof__(heif_context_get_encoder_for_format) *)dlsym(h, "heif_context_get_encoder_for_format"))) return missing("heif_context_get_encoder_for_format");
    if (!(p_heif_context_get_number_of_top_level_images = (__typeof__(heif_context_get_number_of_top_level_images) *)dlsym(h, "heif_context_get_number_of_top_level_images"))) return missing("heif_context_get_number_of_top_level_images");
    if (!(p_heif_context_get_primary_image_handle = (__typeof__(heif_context_get_primary_image_handle) *)dlsym(h, "heif_context_get_primary_image_handle"))) return missing("heif_context_get_primary_image_handle");
    if (!(p_heif_context_read_from_file = (__typeof__(heif_context_read_from_file) *)dlsym(h, "heif_context_read_from_file"))) return missing("heif_context_read_from_file");
    if (!(p_heif_context_set_maximum_image_size_limit = (__typeof__(heif_context_set_maximum_image_size_limit) *)dlsym(h, "heif_context_set_maximum_image_size_limit"))) return missing("heif_context_set_maximum_image_size_limit");
    if (!(p_heif_context_write = (__typeof__(heif_context_write) *)dlsym(h, "heif_context_write"))) return missing("heif_context_write");
    if (!(p_heif_decode_image = (__typeof__(heif_decode_image) *)dlsym(h, "heif_decode_image"))) return missing("heif_decode_image");
    if (!(p_heif_decoding_options_alloc = (__typeof__(heif_decoding_options_alloc) *)dlsym(h, "heif_decoding_options_alloc"))) return missing("heif_decoding_options_alloc");
    if (!(p_heif_decoding_options_free = (__typeof__(heif_decoding_options_free) *)dlsym(h, "heif_decoding_options_free"))) return missing("heif_decoding_options_free");
    if (!(p_heif_encoder_release = (__typeof__(heif_encoder_release) *)dlsym(h, "heif_encoder_release"))) return missing("heif_encoder_release");
    if (!(p_heif_encoder_set_lossless = (__typeof__(heif_encoder_set_lossless) *)dlsym(h, "heif_encoder_set_lossless"))) return missing("heif_encoder_set_lossless");
    if (!(p_heif_encoder_set_lossy_quality = (__typeof__(heif_encoder_set_lossy_quality) *)dlsym(h, "heif_encoder_set_lossy_quality"))) return missing("heif_encoder_set_lossy_quality");
    if (!(p_heif_encoder_set_parameter_integer = (__typeof__(heif_encoder_set_parameter_integer) *)dlsym(h, "heif_encoder_set_parameter_integer"))) return missing("heif_encoder_set_parameter_integer");
    if (!(p_heif_encoding_options_alloc = (__typeof__(heif_encoding_options_alloc) *)dlsym(h, "heif_encoding_options_alloc"))) return missing("heif_encoding_options_alloc");
    if (!(p_heif_encoding_options_free = (__typeof__(heif_encoding_options_free) *)dlsym(h, "heif_encoding_options_free"))) return missing("heif_encoding_options_free");
    if (!(p_heif_image_add_plane = (__typeof__(heif_image_add_plane) *)dlsym(h, "heif_image_add_plane"))) return missing("heif_image_add_plane");
    if (!(p_heif_image_create = (__typeof__(heif_image_create) *)dlsym(h, "heif_image_create"))) return missing("heif_image_create");
    if (!(p_heif_image_get_decoding_warnings = (__typeof__(heif_image_get_decoding_warnings) *)dlsym(h, "heif_image_get_decoding_warnings"))) return missing("heif_image_get_decoding_warnings");
    if (!(p_heif_image_get_height = (__typeof__(heif_image_get_height) *)dlsym(h, "heif_image_get_height"))) return missing("heif_image_get_height");
    if (!(p_heif_image_get_plane = (__typeof__(heif_image_get_plane) *)dlsym(h, "heif_image_get_plane"))) return missing("heif_image_get_plane");
    if (!(p_heif_image_get_plane_readonly = (__typeof__(heif_image_get_plane_readonly) *)dlsym(h, "heif_image_get_plane_readonly"))) return missing("heif_image_get_plane_readonly");
    if (!(p_heif_image_get_width = (__typeof__(heif_image_get_width) *)dlsym(h, "heif_image_get_width"))) return missing("heif_image_get_width");
    if (!(p_heif_image_handle_get_height = (__typeof__(heif_image_handle_get_height) *)dlsym(h, "heif_image_handle_get_height"))) return missing("heif_image_handle_get_height");
    if (!(p_heif_image_handle_get_ispe_height = (__typeof__(heif_image_handle_get_ispe_height) *)dlsym(h, "heif_image_handle_get_ispe_height"))) return missing("heif_image_handle_get_ispe_height");
    if (!(p_heif_image_handle_get_ispe_width = (__typeof__(heif_image_handle_get_ispe_width) *)dlsym(h, "heif_image_handle_get_ispe_width"))) return missing("heif_image_handle_get_ispe_width");
    if (!(p_heif_image_handle_get_list_of_metadata_block_IDs = (__typeof__(heif_image_handle_get_list_of_metadata_block_IDs) *)dlsym(h, "heif_image_handle_get_list_of_metadata_block_IDs"))) return missing("heif_image_handle_get_list_of_metadata_block_IDs");
    if (!(p_heif_image_handle_get_luma_bits_per_pixel = (__typeof__(heif_image_handle_get_luma_bits_per_pixel) *)dlsym(h, "heif_image_handle_get_luma_bits_per_pixel"))) return missing("heif_image_handle_get_luma_bits_per_pixel");
    if (!(p_heif_image_handle_get_metadata = (__typeof__(heif_image_handle_get_metadata) *)dlsym(h, "heif_image_handle_get_metadata"))) return missing("heif_image_handle_get_metadata");
    if (!(p_heif_image_handle_get_metadata_content_type = (__typeof__(heif_image_handle_get_metadata_content_type) *)dlsym(h, "heif_image_handle_get_metadata_content_type"))) return missing("heif_image_handle_get_metadata_content_type");
    if (!(p_heif_image_handle_get_metadata_size = (__typeof__(heif_image_handle_get_metadata_size) *)dlsym(h, "heif_image_handle_get_metadata_size"))) return missing("heif_image_handle_get_metadata_size");
    if (!(p_heif_image_handle_get_metadata_type = (__typeof__(heif_image_handle_get_metadata_type) *)dlsym(h, "heif_image_handle_get_metadata_type"))) return missing("heif_image_handle_get_metadata_type");
    if (!(p_heif_image_handle_get_nclx_color_profile = (__typeof__(heif_image_handle_get_nclx_color_profile) *)dlsym(h, "heif_image_handle_get_nclx_color_profile"))) return missing("heif_image_handle_get_nclx_color_profile");
    if (!(p_heif_image_handle_get_number_of_depth_images = (__typeof__(heif_image_handle_get_number_of_depth_images) *)dlsym(h, "heif_image_handle_get_number_of_depth_images"))) return missing("heif_image_handle_get_number_of_depth_images");
    if (!(p_heif_image_handle_get_number_of_metadata_blocks = (__typeof__(heif_image_handle_get_number_of_metadata_blocks) *)dlsym(h, "heif_image_handle_get_number_of_metadata_blocks"))) return missing("heif_image_handle_get_number_of_metadata_blocks");
    if (!(p_heif_image_handle_get_number_of_thumbnails = (__typeof__(heif_image_handle_get_number_of_thumbnails) *)dlsym(h, "heif_image_handle_get_number_of_thumbnails"))) return missing("heif_image_handle_get_number_of_thumbnails");
    if (!(p_heif_image_handle_get_raw_color_profile = (__typeof__(heif_image_handle_get_raw_color_profile) *)dlsym(h, "heif_image_handle_get_raw_color_profile"))) return missing("heif_image_handle_get_raw_color_profile");
    if (!(p_heif_image_handle_get_raw_color_profile_size = (__typeof__(heif_image_handle_get_raw_color_profile_size) *)dlsym(h, "heif_image_handle_get_raw_color_profile_size"))) return missing("heif_image_handle_get_raw_color_profile_size");
    if (!(p_heif_image_handle_get_width = (__typeof__(heif_image_handle_get_width) *)dlsym(h, "heif_image_handle_get_width"))) return missing("heif_image_handle_get_width");
    if (!(p_heif_image_handle_has_alpha_channel = (__typeof__(heif_image_handle_has_alpha_channel) *)dlsym(h, "heif_image_handle_has_alpha_channel"))) return missing("heif_image_handle_has_alpha_channel");
    if (!(p_heif_image_handle_is_premultiplied_alpha = (__typeof__(heif_image_handle_is_premultiplied_alpha) *)dlsym(h, "heif_image_handle_is_premultiplied_alpha"))) return missing("heif_image_handle_is_premultiplied_alpha");
    if (!(p_heif_image_handle_release = (__typeof__(heif_image_handle_release) *)dlsym(h, "heif_image_handle_release"))) return missing("heif_image_handle_release");
    if (!(p_heif_image_release = (__typeof__(heif_image_release) *)dlsym(h, "heif_image_release"))) return missing("heif_image_release");
    if (!(p_heif_image_set_nclx_color_profile = (__typeof__(heif_image_set_nclx_color_profile) *)dlsym(h, "heif_image_set_nclx_color_profile"))) return missing("heif_image_set_nclx_color_profile");
    if (!(p_heif_image_set_raw_color_profile = (__typeof__(heif_image_set_raw_color_profile) *)dlsym(h, "heif_image_set_raw_color_profile"))) return missing("heif_image_set_raw_color_profile");
    if (!(p_heif_init = (__typeof__(heif_init) *)dlsym(h, "heif_init"))) return missing("heif_init");
    if (!(p_heif_nclx_color_profile_alloc = (__typeof__(heif_nclx_color_profile_alloc) *)dlsym(h, "heif_nclx_color_profile_alloc"))) return missing("heif_nclx_color_profile_alloc");
    if (!(p_heif_nclx_color_profile_free = (__typeof__(heif_nclx_color_profile_free) *)dlsym(h, "heif_nclx_color_profile_free"))) return missing("heif_nclx_color_profile_free");
    return 1;
}

static void load(void) {
    void *h = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(problem, sizeof problem, "%s", e ? e : "libheif.so.1 cannot be loaded");
        return;
    }
    loaded = resolve(h);
}

int rcp_heif_load(const char **message) {
    pthread_once(&once, load);
    if (!loaded && message) *message = problem;
    return loaded;
}

struct heif_error heif_context_add_XMP_metadata(struct heif_context* a0, const struct heif_image_handle* a1, const void* a2, int a3) { return p_heif_context_add_XMP_metadata(a0, a1, a2, a3); }
struct heif_error heif_context_add_exif_metadata(struct heif_context* a0, const struct heif_image_handle* a1, const void* a2, int a3) { return p_heif_context_add_exif_metadata(a0, a1, a2, a3); }
struct heif_context* heif_context_alloc(void) { return p_heif_context_alloc(); }
struct heif_error heif_context_encode_image(struct heif_context* a0, const struct heif_image* a1, struct heif_encoder* a2, const struct heif_encoding_options* a3, struct heif_image_handle** a4) { return p_heif_context_encode_image(a0, a1, a2, a3, a4); }
void heif_context_free(struct heif_context* a0) { p_heif_context_free(a0); }
struct heif_error heif_context_get_encoder_for_format(struct heif_context* a0, enum heif_compression_format a1, struct heif_encoder** a2) { return p_heif_context_get_encoder_for_format(a0, a1, a2); }
int heif_context_get_number_of_top_level_images(struct heif_context* a0) { return p_heif_context_get_number_of_top_level_images(a0); }
struct heif_error heif_context_get_primary_image_handle(struct heif_context* a0, struct heif_image_handle** a1) { return p_heif_context_get_primary_image_handle(a0, a1); }
struct heif_error heif_context_read_from_file(struct heif_context* a0, const char* a1, const struct heif_reading_options* a2) { return p_heif_context_read_from_file(a0, a1, a2); }
void heif_context_set_maximum_image_size_limit(struct heif_context* a0, int a1) { p_heif_context_set_maximum_image_size_limit(a0, a1); }
struct heif_error heif_context_write(struct heif_context* a0, struct heif_writer* a1, void* a2) { return p_heif_context_write(a0, a1, a2); }
struct heif_error heif_decode_image(const struct heif_image_handle* a0, struct heif_image** a1, enum heif_colorspace a2, enum heif_chroma a3, const struct heif_decoding_options* a4) { return p_heif_decode_image(a0, a1, a2, a3, a4); }
struct heif_decoding_options* heif_decoding_options_alloc(void) { return p_heif_decoding_options_alloc(); }
void heif_decoding_options_free(struct heif_decoding_options* a0) { p_heif_decoding_options_free(a0); }
void heif_encoder_release(struct heif_encoder* a0) { p_heif_encoder_release(a0); }
struct heif_error heif_encoder_set_lossless(struct heif_encoder* a0, int a1) { return p_heif_encoder_set_lossless(a0, a1); }
struct heif_error heif_encoder_set_lossy_quality(struct heif_encoder* a0, int a1) { return p_heif_encoder_set_lossy_quality(a0, a1); }
struct heif_error heif_encoder_set_parameter_integer(struct heif_encoder* a0, const char* a1, int a2) { return p_heif_encoder_set_parameter_integer(a0, a1, a2); }
struct heif_encoding_options* heif_encoding_options_alloc(void) { return p_heif_encoding_options_alloc(); }
void heif_encoding_options_free(struct heif_encoding_options* a0) { p_heif_encoding_options_free(a0); }
struct heif_error heif_image_add_plane(struct heif_image* a0, enum heif_channel a1, int a2, int a3, int a4) { return p_heif_image_add_plane(a0, a1, a2, a3, a4); }
struct heif_error heif_image_create(int a0, int a1, enum heif_colorspace a2, enum heif_chroma a3, struct heif_image** a4) { return p_heif_image_create(a0, a1, a2, a3, a4); }
int heif_image_get_decoding_warnings(struct heif_image* a0, int a1, struct heif_error* a2, int a3) { return p_heif_image_get_decoding_warnings(a0, a1, a2, a3); }
int heif_image_get_height(const struct heif_image* a0, enum heif_channel a1) { return p_heif_image_get_height(a0, a1); }
uint8_t* heif_image_get_plane(struct heif_image* a0, enum heif_channel a1, int* a2) { return p_heif_image_get_plane(a0, a1, a2); }
const uint8_t* heif_image_get_plane_readonly(const struct heif_image* a0, enum heif_channel a1, int* a2) { return p_heif_image_get_plane_readonly(a0, a1, a2); }
int heif_image_get_width(const struct heif_image* a0, enum heif_channel a1) { return p_heif_image_get_width(a0, a1); }
int heif_image_handle_get_height(const struct heif_image_handle* a0) { return p_heif_image_handle_get_height(a0); }
int heif_image_handle_get_ispe_height(const struct heif_image_handle* a0) { return p_heif_image_handle_get_ispe_height(a0); }
int heif_image_handle_get_ispe_width(const struct heif_image_handle* a0) { return p_heif_image_handle_get_ispe_width(a0); }
int heif_image_handle_get_list_of_metadata_block_IDs(const struct heif_image_handle* a0, const char* a1, heif_item_id* a2, int a3) { return p_heif_image_handle_get_list_of_metadata_block_IDs(a0, a1, a2, a3); }
int heif_image_handle_get_luma_bits_per_pixel(const struct heif_image_handle* a0) { return p_heif_image_handle_get_luma_bits_per_pixel(a0); }
struct heif_error heif_image_handle_get_metadata(const struct heif_image_handle* a0, heif_item_id a1, void* a2) { return p_heif_image_handle_get_metadata(a0, a1, a2); }
const char* heif_image_handle_get_metadata_content_type(const struct heif_image_handle* a0, heif_item_id a1) { return p_heif_image_handle_get_metadata_content_type(a0, a1); }
size_t heif_image_handle_get_metadata_size(const struct heif_image_handle* a0, heif_item_id a1) { return p_heif_image_handle_get_metadata_size(a0, a1); }
const char* heif_image_handle_get_metadata_type(const struct heif_image_handle* a0, heif_item_id a1) { return p_heif_image_handle_get_metadata_type(a0, a1); }
struct heif_error heif_image_handle_get_nclx_color_profile(const struct heif_image_handle* a0, struct heif_color_profile_nclx** a1) { return p_heif_image_handle_get_nclx_color_profile(a0, a1); }
int heif_image_handle_get_number_of_depth_images(const struct heif_image_handle* a0) { return p_heif_image_handle_get_number_of_depth_images(a0); }
int heif_image_handle_get_number_of_metadata_blocks(const struct heif_image_handle* a0, const char* a1) { return p_heif_image_handle_get_number_of_metadata_blocks(a0, a1); }
int heif_image_handle_get_number_of_thumbnails(const struct heif_image_handle* a0) { return p_heif_image_handle_get_number_of_thumbnails(a0); }
struct heif_error heif_image_handle_get_raw_color_profile(const struct heif_image_handle* a0, void* a1) { return p_heif_image_handle_get_raw_color_profile(a0, a1); }
size_t heif_image_handle_get_raw_color_profile_size(const struct heif_image_handle* a0) { return p_heif_image_handle_get_raw_color_profile_size(a0); }
int heif_image_handle_get_width(const struct heif_image_handle* a0) { return p_heif_image_handle_get_width(a0); }
int heif_image_handle_has_alpha_channel(const struct heif_image_handle* a0) { return p_heif_image_handle_has_alpha_channel(a0); }
int heif_image_handle_is_premultiplied_alpha(const struct heif_image_handle* a0) { return p_heif_image_handle_is_premultiplied_alpha(a0); }
void heif_image_handle_release(const struct heif_image_handle* a0) { p_heif_image_handle_release(a0); }
void heif_image_release(const struct heif_image* a0) { p_heif_image_release(a0); }
struct heif_error heif_image_set_nclx_color_profile(struct heif_image* a0, const struct heif_color_profile_nclx* a1) { return p_heif_image_set_nclx_color_profile(a0, a1); }
struct heif_error heif_image_set_raw_color_profile(struct heif_image* a0, const char* a1, const void* a2, const size_t a3) { return p_heif_image_set_raw_color_profile(a0, a1, a2, a3); }
struct heif_error heif_init(struct heif_init_params* a0) { return p_heif_init(a0); }
struct heif_color_profile_nclx* heif_nclx_color_profile_alloc(void) { return p_heif_nclx_color_profile_alloc(); }
void heif_nclx_color_profile_free(struct heif_color_profile_nclx* a0) { p_heif_nclx_color_profile_free(a0); }
