#ifndef RECIPE_CLENSFUNLOADER_H
#define RECIPE_CLENSFUNLOADER_H

/* lensfun's lens database (liblensfun.so.1, lensfun 0.3.x) behind a few plain C calls, loaded the
 * first time a photo asks for a lens correction rather than linked: only the photos that need it
 * pay for it (liblensfun brings GLib and libstdc++ with it, and reading its database of XML files
 * takes tens of milliseconds). lensfun's own types stay in CLensfunLoader.c, so Swift sees only
 * these structs. The database is read-only once loaded: every call below may run on any thread. */

typedef struct rcp_lensfun_db rcp_lensfun_db;

/* A camera of the database. Names are lensfun's default (untranslated) spelling. */
typedef struct {
    char maker[64], model[96], variant[64], mount[48];
    float crop_factor;
    int score;                        /* lensfun's score for a search (0 in a plain listing) */
} rcp_lensfun_camera;

/* A lens of the database (one calibration set: the same lens model measured on two sensor sizes is
 * two entries). `index` names it in the calls below. */
typedef struct {
    int index;
    int score;                        /* lensfun's score for a search (0 in a plain listing) */
    char maker[64], model[128];
    /* The model's translations ("lang\ttext" lines, '\n'-separated): other names of the lens. */
    char other_names[256];
    char mounts[16][48];
    int mount_count;
    float crop_factor, aspect_ratio, center_x, center_y;
    int type;                         /* lfLensType: 1 rectilinear, 2 fisheye, … (0 unknown) */
    float min_focal, max_focal, min_aperture, max_aperture; /* 0 when unknown */
    int distortion_count, tca_count, vignetting_count;      /* calibration entries */
} rcp_lensfun_lens;

/* A mount and the mounts whose lenses fit it (through an adapter or as they are). */
typedef struct {
    char name[48];
    char compat[64][48];
    int compat_count;
} rcp_lensfun_mount;

/* One interpolated calibration: lensfun's model number (lfDistortionModel, lfTCAModel or
 * lfVignettingModel; 0 none) and its terms in lensfun's order (distortion: k1 | k1 k2 | a b c;
 * TCA linear: kr kb; TCA poly3: vr vb cr cb br bb; vignetting pa: k1 k2 k3). */
typedef struct {
    int model;
    float terms[6];
} rcp_lensfun_calibration;

/* Loads liblensfun once (thread-safe); 1 when it is there, else 0 with *message saying why. */
int rcp_lensfun_load(const char **message);

/* Reads the database: lensfun's own search (the system database, newer data fetched with
 * lensfun-update-data, the user's own files) when `directory` is NULL, else every XML file in
 * `directory`. NULL with *status: -1 the library cannot be loaded, -2 out of memory, else lensfun's
 * lfError (2: no database found). */
rcp_lensfun_db *rcp_lensfun_open(const char *directory, int *status);
void rcp_lensfun_close(rcp_lensfun_db *db);

int rcp_lensfun_camera_count(const rcp_lensfun_db *db);
/* Camera `index` of the whole list; 0 when out of range. */
int rcp_lensfun_camera_at(const rcp_lensfun_db *db, int index, rcp_lensfun_camera *out);
/* lensfun's camera search (case-insensitive, spaces compressed, maker as EXIF spells it); returns
 * how many were found, the first `capacity` of them written to `out`. */
int rcp_lensfun_find_cameras(const rcp_lensfun_db *db, const char *maker, const char *model, rcp_lensfun_camera *out, int capacity);

int rcp_lensfun_mount_count(const rcp_lensfun_db *db);
/* Mount `index` of the whole list; 0 when out of range. */
int rcp_lensfun_mount_at(const rcp_lensfun_db *db, int index, rcp_lensfun_mount *out);

int rcp_lensfun_lens_count(const rcp_lensfun_db *db);
/* Lens `index` of the whole list; 0 when out of range. */
int rcp_lensfun_lens_at(const rcp_lensfun_db *db, int index, rcp_lensfun_lens *out);
/* lensfun's own lens search (lf_db_find_lenses_hd) for the camera `camera_maker` `camera_model`
 * (NULL or not found: any camera) and a lens description; `loose` is LF_SEARCH_LOOSE. Returns how
 * many were found, best first, the first `capacity` written to `out` with lensfun's scores. */
int rcp_lensfun_find_lenses(const rcp_lensfun_db *db, const char *camera_maker, const char *camera_model,
                            const char *lens_maker, const char *lens_model, int loose, rcp_lensfun_lens *out, int capacity);

/* lensfun's interpolation of lens `index`'s calibration at a focal length (mm), aperture
 * (f-number) and focus distance (m); 1 with *out filled, 0 when the lens has no such data. */
int rcp_lensfun_distortion(const rcp_lensfun_db *db, int index, float focal, rcp_lensfun_calibration *out);
int rcp_lensfun_tca(const rcp_lensfun_db *db, int index, float focal, rcp_lensfun_calibration *out);
int rcp_lensfun_vignetting(const rcp_lensfun_db *db, int index, float focal, float aperture, float distance,
                           rcp_lensfun_calibration *out);

/* lensfun's automatic scale (lfModifier::GetAutoScale) for lens `index` on a `width`×`height` image
 * of a camera of crop factor `crop` at `focal` mm, with its distortion and TCA corrections on or
 * off: the magnification that leaves no empty border. 0 when it cannot be found. */
float rcp_lensfun_auto_scale(const rcp_lensfun_db *db, int index, float crop, int width, int height, float focal, int distortion,
                             int tca);

#endif
