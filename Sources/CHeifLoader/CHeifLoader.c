/* Loads libheif when the first HEIF or AVIF is opened, not when recipe starts: linking it costs
 * every process about 3 ms before main (libde265's, x265's and aom's start-up code and
 * relocations: 4.1 ms for an empty C program linked with -lheif, 0.8 ms without), a twentieth of
 * a JPEG identity render. Each libheif function recipe calls is defined here with libheif's own
 * prototype and forwards to the symbol dlsym found, so RecipeCodecs calls libheif as usual.
 *
 * Generated from <libheif/heif.h> (libheif 1.15) for the functions Sources/RecipeCodecs/HEIF
 * uses; a new call there needs its line here (the link fails until it has one). */
#include "CHeifLoader.h"
#include "CLibraryLoader.h"

static __typeof__(heif_context_add_XMP_metadata) *p_heif_context_add_XMP_metadata;
static __typeof__(heif_context_add_exif_metadata) *p_heif_context_add_exif_metadata;
static __typeof__(heif_context_alloc) *p_heif_context_alloc;
static __typeof__(heif_context_encode_image) *p_heif_context_encode_image;
static __typeof__(heif_context_free) *p_heif_context_free;
static __typeof__(heif_context_get_encoder) *p_heif_context_get_encoder;
static __typeof__(heif_context_get_number_of_top_level_images) *p_heif_context_get_number_of_top_level_images;
static __typeof__(heif_context_get_primary_image_handle) *p_heif_context_get_primary_image_handle;
static __typeof__(heif_context_read_from_file) *p_heif_context_read_from_file;
static __typeof__(heif_context_set_maximum_image_size_limit) *p_heif_context_set_maximum_image_size_limit;
static __typeof__(heif_context_write) *p_heif_context_write;
static __typeof__(heif_decode_image) *p_heif_decode_image;
static __typeof__(heif_decoding_options_alloc) *p_heif_decoding_options_alloc;
static __typeof__(heif_decoding_options_free) *p_heif_decoding_options_free;
static __typeof__(heif_encoder_descriptor_get_name) *p_heif_encoder_descriptor_get_name;
static __typeof__(heif_encoder_descriptor_supports_lossless_compression) *p_heif_encoder_descriptor_supports_lossless_compression;
static __typeof__(heif_encoder_release) *p_heif_encoder_release;
static __typeof__(heif_encoder_set_lossless) *p_heif_encoder_set_lossless;
static __typeof__(heif_encoder_set_lossy_quality) *p_heif_encoder_set_lossy_quality;
static __typeof__(heif_encoder_set_parameter_integer) *p_heif_encoder_set_parameter_integer;
static __typeof__(heif_encoder_set_parameter_string) *p_heif_encoder_set_parameter_string;
static __typeof__(heif_encoding_options_alloc) *p_heif_encoding_options_alloc;
static __typeof__(heif_encoding_options_free) *p_heif_encoding_options_free;
static __typeof__(heif_get_encoder_descriptors) *p_heif_get_encoder_descriptors;
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
static __typeof__(heif_get_version) *p_heif_get_version;
static __typeof__(heif_init) *p_heif_init;
static __typeof__(heif_nclx_color_profile_alloc) *p_heif_nclx_color_profile_alloc;
static __typeof__(heif_nclx_color_profile_free) *p_heif_nclx_color_profile_free;

static const rcp_symbol symbols[] = {
    RCP_SYMBOL(heif_context_add_XMP_metadata),
    RCP_SYMBOL(heif_context_add_exif_metadata),
    RCP_SYMBOL(heif_context_alloc),
    RCP_SYMBOL(heif_context_encode_image),
    RCP_SYMBOL(heif_context_free),
    RCP_SYMBOL(heif_context_get_encoder),
    RCP_SYMBOL(heif_context_get_number_of_top_level_images),
    RCP_SYMBOL(heif_context_get_primary_image_handle),
    RCP_SYMBOL(heif_context_read_from_file),
    RCP_SYMBOL(heif_context_set_maximum_image_size_limit),
    RCP_SYMBOL(heif_context_write),
    RCP_SYMBOL(heif_decode_image),
    RCP_SYMBOL(heif_decoding_options_alloc),
    RCP_SYMBOL(heif_decoding_options_free),
    RCP_SYMBOL(heif_encoder_descriptor_get_name),
    RCP_SYMBOL(heif_encoder_descriptor_supports_lossless_compression),
    RCP_SYMBOL(heif_encoder_release),
    RCP_SYMBOL(heif_encoder_set_lossless),
    RCP_SYMBOL(heif_encoder_set_lossy_quality),
    RCP_SYMBOL(heif_encoder_set_parameter_integer),
    RCP_SYMBOL(heif_encoder_set_parameter_string),
    RCP_SYMBOL(heif_encoding_options_alloc),
    RCP_SYMBOL(heif_encoding_options_free),
    RCP_SYMBOL(heif_get_encoder_descriptors),
    RCP_SYMBOL(heif_image_add_plane),
    RCP_SYMBOL(heif_image_create),
    RCP_SYMBOL(heif_image_get_decoding_warnings),
    RCP_SYMBOL(heif_image_get_height),
    RCP_SYMBOL(heif_image_get_plane),
    RCP_SYMBOL(heif_image_get_plane_readonly),
    RCP_SYMBOL(heif_image_get_width),
    RCP_SYMBOL(heif_image_handle_get_height),
    RCP_SYMBOL(heif_image_handle_get_ispe_height),
    RCP_SYMBOL(heif_image_handle_get_ispe_width),
    RCP_SYMBOL(heif_image_handle_get_list_of_metadata_block_IDs),
    RCP_SYMBOL(heif_image_handle_get_luma_bits_per_pixel),
    RCP_SYMBOL(heif_image_handle_get_metadata),
    RCP_SYMBOL(heif_image_handle_get_metadata_content_type),
    RCP_SYMBOL(heif_image_handle_get_metadata_size),
    RCP_SYMBOL(heif_image_handle_get_metadata_type),
    RCP_SYMBOL(heif_image_handle_get_nclx_color_profile),
    RCP_SYMBOL(heif_image_handle_get_number_of_depth_images),
    RCP_SYMBOL(heif_image_handle_get_number_of_metadata_blocks),
    RCP_SYMBOL(heif_image_handle_get_number_of_thumbnails),
    RCP_SYMBOL(heif_image_handle_get_raw_color_profile),
    RCP_SYMBOL(heif_image_handle_get_raw_color_profile_size),
    RCP_SYMBOL(heif_image_handle_get_width),
    RCP_SYMBOL(heif_image_handle_has_alpha_channel),
    RCP_SYMBOL(heif_image_handle_is_premultiplied_alpha),
    RCP_SYMBOL(heif_image_handle_release),
    RCP_SYMBOL(heif_image_release),
    RCP_SYMBOL(heif_image_set_nclx_color_profile),
    RCP_SYMBOL(heif_image_set_raw_color_profile),
    RCP_SYMBOL(heif_get_version),
    RCP_SYMBOL(heif_init),
    RCP_SYMBOL(heif_nclx_color_profile_alloc),
    RCP_SYMBOL(heif_nclx_color_profile_free),
    {0, 0},
};
static rcp_library library = {"libheif.so.1", symbols, PTHREAD_ONCE_INIT};

static void load(void) { rcp_library_open(&library); }

int rcp_heif_load(const char **message) { return rcp_library_load(&library, load, message); }

const char *rcp_heif_version(void) { return rcp_heif_load(NULL) ? p_heif_get_version() : NULL; }

struct heif_error heif_context_add_XMP_metadata(struct heif_context* a0, const struct heif_image_handle* a1, const void* a2, int a3) { return p_heif_context_add_XMP_metadata(a0, a1, a2, a3); }
struct heif_error heif_context_add_exif_metadata(struct heif_context* a0, const struct heif_image_handle* a1, const void* a2, int a3) { return p_heif_context_add_exif_metadata(a0, a1, a2, a3); }
struct heif_context* heif_context_alloc(void) { return p_heif_context_alloc(); }
struct heif_error heif_context_encode_image(struct heif_context* a0, const struct heif_image* a1, struct heif_encoder* a2, const struct heif_encoding_options* a3, struct heif_image_handle** a4) { return p_heif_context_encode_image(a0, a1, a2, a3, a4); }
void heif_context_free(struct heif_context* a0) { p_heif_context_free(a0); }
struct heif_error heif_context_get_encoder(struct heif_context* a0, const struct heif_encoder_descriptor* a1, struct heif_encoder** a2) { return p_heif_context_get_encoder(a0, a1, a2); }
int heif_context_get_number_of_top_level_images(struct heif_context* a0) { return p_heif_context_get_number_of_top_level_images(a0); }
struct heif_error heif_context_get_primary_image_handle(struct heif_context* a0, struct heif_image_handle** a1) { return p_heif_context_get_primary_image_handle(a0, a1); }
struct heif_error heif_context_read_from_file(struct heif_context* a0, const char* a1, const struct heif_reading_options* a2) { return p_heif_context_read_from_file(a0, a1, a2); }
void heif_context_set_maximum_image_size_limit(struct heif_context* a0, int a1) { p_heif_context_set_maximum_image_size_limit(a0, a1); }
struct heif_error heif_context_write(struct heif_context* a0, struct heif_writer* a1, void* a2) { return p_heif_context_write(a0, a1, a2); }
struct heif_error heif_decode_image(const struct heif_image_handle* a0, struct heif_image** a1, enum heif_colorspace a2, enum heif_chroma a3, const struct heif_decoding_options* a4) { return p_heif_decode_image(a0, a1, a2, a3, a4); }
struct heif_decoding_options* heif_decoding_options_alloc(void) { return p_heif_decoding_options_alloc(); }
void heif_decoding_options_free(struct heif_decoding_options* a0) { p_heif_decoding_options_free(a0); }
const char* heif_encoder_descriptor_get_name(const struct heif_encoder_descriptor* a0) { return p_heif_encoder_descriptor_get_name(a0); }
int heif_encoder_descriptor_supports_lossless_compression(const struct heif_encoder_descriptor* a0) { return p_heif_encoder_descriptor_supports_lossless_compression(a0); }
void heif_encoder_release(struct heif_encoder* a0) { p_heif_encoder_release(a0); }
struct heif_error heif_encoder_set_lossless(struct heif_encoder* a0, int a1) { return p_heif_encoder_set_lossless(a0, a1); }
struct heif_error heif_encoder_set_lossy_quality(struct heif_encoder* a0, int a1) { return p_heif_encoder_set_lossy_quality(a0, a1); }
struct heif_error heif_encoder_set_parameter_integer(struct heif_encoder* a0, const char* a1, int a2) { return p_heif_encoder_set_parameter_integer(a0, a1, a2); }
struct heif_error heif_encoder_set_parameter_string(struct heif_encoder* a0, const char* a1, const char* a2) { return p_heif_encoder_set_parameter_string(a0, a1, a2); }
struct heif_encoding_options* heif_encoding_options_alloc(void) { return p_heif_encoding_options_alloc(); }
void heif_encoding_options_free(struct heif_encoding_options* a0) { p_heif_encoding_options_free(a0); }
int heif_get_encoder_descriptors(enum heif_compression_format a0, const char* a1, const struct heif_encoder_descriptor** a2, int a3) { return p_heif_get_encoder_descriptors(a0, a1, a2, a3); }
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
