/* lensfun's database through its C API, loaded on the first lens look-up (see CLensfunLoader.h).
 * The calls go through the pointers below; the fields of lfLens and lfCamera are read from its
 * header (<lensfun/lensfun.h>, lensfun 0.3.3), whose C view of those structs is the library's ABI
 * (soname liblensfun.so.1). Names are lensfun's multi-language strings: the default spelling
 * first, then "lang\0text\0" pairs; the default is taken as it is, never the locale's translation,
 * so a match does not depend on LANG. */
#include "CLensfunLoader.h"
#include "CLibraryLoader.h"

#include <lensfun/lensfun.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __typeof__(lf_db_new) *p_lf_db_new;
static __typeof__(lf_db_destroy) *p_lf_db_destroy;
static __typeof__(lf_db_load) *p_lf_db_load;
static __typeof__(lf_db_load_directory) *p_lf_db_load_directory;
static __typeof__(lf_db_get_cameras) *p_lf_db_get_cameras;
static __typeof__(lf_db_find_cameras) *p_lf_db_find_cameras;
static __typeof__(lf_db_get_lenses) *p_lf_db_get_lenses;
static __typeof__(lf_db_find_lenses_hd) *p_lf_db_find_lenses_hd;
static __typeof__(lf_lens_interpolate_distortion) *p_lf_lens_interpolate_distortion;
static __typeof__(lf_lens_interpolate_tca) *p_lf_lens_interpolate_tca;
static __typeof__(lf_lens_interpolate_vignetting) *p_lf_lens_interpolate_vignetting;
static __typeof__(lf_db_get_mounts) *p_lf_db_get_mounts;
static __typeof__(lf_free) *p_lf_free;
static __typeof__(lf_modifier_new) *p_lf_modifier_new;
static __typeof__(lf_modifier_initialize) *p_lf_modifier_initialize;
static __typeof__(lf_modifier_get_auto_scale) *p_lf_modifier_get_auto_scale;
static __typeof__(lf_modifier_destroy) *p_lf_modifier_destroy;

static const rcp_symbol symbols[] = {
    RCP_SYMBOL(lf_db_new),
    RCP_SYMBOL(lf_db_destroy),
    RCP_SYMBOL(lf_db_load),
    RCP_SYMBOL(lf_db_load_directory),
    RCP_SYMBOL(lf_db_get_cameras),
    RCP_SYMBOL(lf_db_find_cameras),
    RCP_SYMBOL(lf_db_get_lenses),
    RCP_SYMBOL(lf_db_find_lenses_hd),
    RCP_SYMBOL(lf_lens_interpolate_distortion),
    RCP_SYMBOL(lf_lens_interpolate_tca),
    RCP_SYMBOL(lf_lens_interpolate_vignetting),
    RCP_SYMBOL(lf_db_get_mounts),
    RCP_SYMBOL(lf_free),
    RCP_SYMBOL(lf_modifier_new),
    RCP_SYMBOL(lf_modifier_initialize),
    RCP_SYMBOL(lf_modifier_get_auto_scale),
    RCP_SYMBOL(lf_modifier_destroy),
    {0, 0},
};
static rcp_library library = {"liblensfun.so.1", symbols, PTHREAD_ONCE_INIT};

static void load(void) { rcp_library_open(&library); }

int rcp_lensfun_load(const char **message) { return rcp_library_load(&library, load, message); }

struct rcp_lensfun_db {
    lfDatabase *db;
    const lfLens *const *lenses;
    int lens_count;
    const lfCamera *const *cameras;
    int camera_count;
    const lfMount *const *mounts;
    int mount_count;
};

rcp_lensfun_db *rcp_lensfun_open(const char *directory, int *status) {
    if (!rcp_lensfun_load(NULL)) { *status = -1; return NULL; }
    rcp_lensfun_db *d = calloc(1, sizeof *d);
    if (!d || !(d->db = p_lf_db_new())) { free(d); *status = -2; return NULL; }
    int error = directory ? (p_lf_db_load_directory(d->db, directory) ? LF_NO_ERROR : LF_NO_DATABASE) : p_lf_db_load(d->db);
    d->lenses = p_lf_db_get_lenses(d->db);
    d->cameras = p_lf_db_get_cameras(d->db);
    while (d->lenses && d->lenses[d->lens_count]) d->lens_count++;
    while (d->cameras && d->cameras[d->camera_count]) d->camera_count++;
    d->mounts = p_lf_db_get_mounts(d->db);
    while (d->mounts && d->mounts[d->mount_count]) d->mount_count++;
    if (error != LF_NO_ERROR || d->lens_count == 0) {
        *status = error != LF_NO_ERROR ? error : LF_NO_DATABASE;
        rcp_lensfun_close(d);
        return NULL;
    }
    *status = 0;
    return d;
}

void rcp_lensfun_close(rcp_lensfun_db *d) {
    if (!d) return;
    if (d->db) p_lf_db_destroy(d->db);
    free(d);
}

static void copy(char *to, size_t size, const char *from) { snprintf(to, size, "%s", from ? from : ""); }

/* The translations after a multi-language string's default: "lang\ttext" lines. */
static void translations(char *to, size_t size, const char *ml) {
    to[0] = 0;
    if (!ml) return;
    const char *p = ml + strlen(ml) + 1;
    size_t used = 0;
    while (*p) {
        const char *lang = p, *text = p + strlen(p) + 1;
        int n = snprintf(to + used, size - used, "%s%s\t%s", used ? "\n" : "", lang, text);
        if (n < 0 || (size_t)n >= size - used) { to[used] = 0; return; }
        used += (size_t)n;
        p = text + strlen(text) + 1;
    }
}

static void fill_camera(const lfCamera *c, rcp_lensfun_camera *out) {
    memset(out, 0, sizeof *out);
    copy(out->maker, sizeof out->maker, c->Maker);
    copy(out->model, sizeof out->model, c->Model);
    copy(out->variant, sizeof out->variant, c->Variant);
    copy(out->mount, sizeof out->mount, c->Mount);
    out->crop_factor = c->CropFactor;
    out->score = c->Score;
}

static int count(void *const *list) {
    int n = 0;
    while (list && list[n]) n++;
    return n;
}

static void fill_lens(const rcp_lensfun_db *d, const lfLens *l, rcp_lensfun_lens *out) {
    memset(out, 0, sizeof *out);
    out->index = -1;
    for (int i = 0; i < d->lens_count; i++)
        if (d->lenses[i] == l) { out->index = i; break; }
    out->score = l->Score;
    copy(out->maker, sizeof out->maker, l->Maker);
    copy(out->model, sizeof out->model, l->Model);
    translations(out->other_names, sizeof out->other_names, l->Model);
    for (int i = 0; l->Mounts && l->Mounts[i] && out->mount_count < 16; i++)
        copy(out->mounts[out->mount_count++], sizeof out->mounts[0], l->Mounts[i]);
    out->crop_factor = l->CropFactor;
    out->aspect_ratio = l->AspectRatio;
    out->center_x = l->CenterX;
    out->center_y = l->CenterY;
    out->type = l->Type;
    out->min_focal = l->MinFocal;
    out->max_focal = l->MaxFocal;
    out->min_aperture = l->MinAperture;
    out->max_aperture = l->MaxAperture;
    out->distortion_count = count((void *const *)l->CalibDistortion);
    out->tca_count = count((void *const *)l->CalibTCA);
    out->vignetting_count = count((void *const *)l->CalibVignetting);
}

int rcp_lensfun_camera_count(const rcp_lensfun_db *d) { return d->camera_count; }

int rcp_lensfun_camera_at(const rcp_lensfun_db *d, int index, rcp_lensfun_camera *out) {
    if (index < 0 || index >= d->camera_count) return 0;
    fill_camera(d->cameras[index], out);
    return 1;
}

int rcp_lensfun_find_cameras(const rcp_lensfun_db *d, const char *maker, const char *model, rcp_lensfun_camera *out, int capacity) {
    const lfCamera **found = p_lf_db_find_cameras(d->db, maker, model);
    int n = 0;
    for (; found && found[n]; n++)
        if (n < capacity) fill_camera(found[n], &out[n]);
    if (found) p_lf_free(found);
    return n;
}

int rcp_lensfun_mount_count(const rcp_lensfun_db *d) { return d->mount_count; }

int rcp_lensfun_mount_at(const rcp_lensfun_db *d, int index, rcp_lensfun_mount *out) {
    if (index < 0 || index >= d->mount_count) return 0;
    memset(out, 0, sizeof *out);
    const lfMount *m = d->mounts[index];
    copy(out->name, sizeof out->name, m->Name);
    for (int i = 0; m->Compat && m->Compat[i] && out->compat_count < 64; i++)
        copy(out->compat[out->compat_count++], sizeof out->compat[0], m->Compat[i]);
    return 1;
}

int rcp_lensfun_lens_count(const rcp_lensfun_db *d) { return d->lens_count; }

int rcp_lensfun_lens_at(const rcp_lensfun_db *d, int index, rcp_lensfun_lens *out) {
    if (index < 0 || index >= d->lens_count) return 0;
    fill_lens(d, d->lenses[index], out);
    return 1;
}

int rcp_lensfun_find_lenses(const rcp_lensfun_db *d, const char *camera_maker, const char *camera_model,
                            const char *lens_maker, const char *lens_model, int loose, rcp_lensfun_lens *out, int capacity) {
    const lfCamera *camera = NULL;
    const lfCamera **cameras = camera_model ? p_lf_db_find_cameras(d->db, camera_maker, camera_model) : NULL;
    if (cameras) camera = cameras[0];
    const lfLens **found = p_lf_db_find_lenses_hd(d->db, camera, lens_maker, lens_model, loose ? LF_SEARCH_LOOSE : 0);
    int n = 0;
    for (; found && found[n]; n++)
        if (n < capacity) fill_lens(d, found[n], &out[n]);
    if (found) p_lf_free(found);
    if (cameras) p_lf_free(cameras);
    return n;
}

int rcp_lensfun_distortion(const rcp_lensfun_db *d, int index, float focal, rcp_lensfun_calibration *out) {
    memset(out, 0, sizeof *out);
    lfLensCalibDistortion c;
    if (index < 0 || index >= d->lens_count || !p_lf_lens_interpolate_distortion(d->lenses[index], focal, &c)) return 0;
    out->model = c.Model;
    for (int i = 0; i < 3; i++) out->terms[i] = c.Terms[i];
    return c.Model != LF_DIST_MODEL_NONE;
}

int rcp_lensfun_tca(const rcp_lensfun_db *d, int index, float focal, rcp_lensfun_calibration *out) {
    memset(out, 0, sizeof *out);
    lfLensCalibTCA c;
    if (index < 0 || index >= d->lens_count || !p_lf_lens_interpolate_tca(d->lenses[index], focal, &c)) return 0;
    out->model = c.Model;
    for (int i = 0; i < 6; i++) out->terms[i] = c.Terms[i];
    return c.Model != LF_TCA_MODEL_NONE;
}

int rcp_lensfun_vignetting(const rcp_lensfun_db *d, int index, float focal, float aperture, float distance,
                           rcp_lensfun_calibration *out) {
    memset(out, 0, sizeof *out);
    lfLensCalibVignetting c;
    if (index < 0 || index >= d->lens_count
        || !p_lf_lens_interpolate_vignetting(d->lenses[index], focal, aperture, distance, &c)) return 0;
    out->model = c.Model;
    for (int i = 0; i < 3; i++) out->terms[i] = c.Terms[i];
    return c.Model != LF_VIGNETTING_MODEL_NONE;
}

float rcp_lensfun_auto_scale(const rcp_lensfun_db *d, int index, float crop, int width, int height, float focal, int distortion,
                             int tca) {
    if (index < 0 || index >= d->lens_count || width < 1 || height < 1 || !(crop > 0) || !(focal > 0)) return 0;
    const lfLens *lens = d->lenses[index];
    lfModifier *modifier = p_lf_modifier_new(lens, crop, width, height);
    if (!modifier) return 0;
    int flags = (distortion ? LF_MODIFY_DISTORTION : 0) | (tca ? LF_MODIFY_TCA : 0);
    /* Scale 1 adds no scale callback; the geometry stays the lens's own. */
    p_lf_modifier_initialize(modifier, lens, LF_PF_F32, focal, 8.0f, 1000.0f, 1.0f, lens->Type, flags, 0);
    float scale = p_lf_modifier_get_auto_scale(modifier, 0);
    p_lf_modifier_destroy(modifier);
    return scale > 0 && scale < 100 ? scale : 0;
}
