/* Lens correction (LensMap.swift, LensWarpStep.swift): where each output pixel's red, green and
 * blue lie in the source (lensfun's models and the DNG WarpRectilinear opcode), and the bicubic
 * sampling of a planar ring of source rows at those positions.
 *
 * The maps are lensfun 0.3.3's (libs/lensfun/modifier.cpp, mod-coord.cpp, mod-subpix.cpp): the
 * same normalisation, the same order (scale, distortion, TCA), the same Newton iteration for the
 * inverse; in double precision where lensfun uses float, so positions agree with lensfun's to
 * well under a thousandth of a pixel. They are evaluated here rather than through lensfun's
 * lfModifier because lensfun maps a grid of whole output pixels of its own: the plan composes
 * the lens with the straighten, crops and flips after it into one resampling, whose output
 * pixels fall between lensfun's grid points, and a call per pixel into lensfun costs more than
 * the sampling itself. */
#include "Common.h"

/* Newton's iteration stops within this of the root (lensfun's NEWTON_EPS). */
#define RK_NEWTON_EPS 0.00001

/* rd of ru for the radial distortion models (lensfun's ModifyCoord_Dist_*), as the factor rd/ru. */
static inline double rk_distortion_factor(const rk_lens_map *m, double ru2) {
    switch (m->distortion) {
    case RK_LENS_POLY3: return 1.0 - m->d[0] + m->d[0] * ru2;
    case RK_LENS_POLY5: return 1.0 + m->d[0] * ru2 + m->d[1] * ru2 * ru2;
    case RK_LENS_PTLENS: {
        double r = sqrt(ru2);
        return m->d[0] * ru2 * r + m->d[1] * ru2 + m->d[2] * r + (1.0 - m->d[0] - m->d[1] - m->d[2]);
    }
    default: return 1.0;
    }
}

/* ru of rd: the inverse of the distortion (lensfun's ModifyCoord_UnDist_*), by Newton from ru = rd;
 * the factor ru/rd, or 1 (the point left where it is) when it does not converge in 6 steps or
 * gives a negative radius, as lensfun does. */
static inline double rk_undistortion_factor(const rk_lens_map *m, double rd) {
    if (rd == 0.0 || m->distortion == RK_LENS_NONE || m->distortion == RK_LENS_DNG) return 1.0;
    double ru = rd;
    for (int step = 0;; step++) {
        double ru2 = ru * ru;
        double f = ru * rk_distortion_factor(m, ru2) - rd;
        if (f >= -RK_NEWTON_EPS && f < RK_NEWTON_EPS) break;
        if (step > 5) return 1.0;
        double d;
        switch (m->distortion) {
        case RK_LENS_POLY3: d = 3.0 * m->d[0] * ru2 + 1.0 - m->d[0]; break;
        case RK_LENS_POLY5: d = 1.0 + 3.0 * m->d[0] * ru2 + 5.0 * m->d[1] * ru2 * ru2; break;
        default: d = 4.0 * m->d[0] * ru2 * ru + 3.0 * m->d[1] * ru2 + 2.0 * m->d[2] * ru + (1.0 - m->d[0] - m->d[1] - m->d[2]); break;
        }
        ru -= f / d;
    }
    return ru < 0.0 ? 1.0 : ru / rd;
}

/* The factor a TCA model scales red (c = 0) or blue (c = 1) by at radius² r2 (lensfun's
 * ModifyCoord_TCA_*), or its inverse by Newton (ModifyCoord_UnTCA_*). */
static inline double rk_tca_factor(const rk_lens_map *m, int c, double r2) {
    if (m->tca == RK_TCA_LINEAR) return m->t[c];
    /* poly3: v, c, b terms of red at t[0], t[2], t[4] and of blue at t[1], t[3], t[5]. */
    return m->t[4 + c] * r2 + m->t[2 + c] * sqrt(r2) + m->t[c];
}

static inline double rk_untca_factor(const rk_lens_map *m, int c, double rd) {
    if (m->tca == RK_TCA_LINEAR) return 1.0 / m->t[c];
    if (rd == 0.0) return 1.0;
    double v = m->t[c], cc = m->t[2 + c], b = m->t[4 + c], ru = rd;
    for (int step = 0;; step++) {
        double ru2 = ru * ru, f = b * ru2 * ru + cc * ru2 + v * ru - rd;
        if (f >= -RK_NEWTON_EPS && f < RK_NEWTON_EPS) break;
        if (step > 5) return 1.0;
        ru -= f / (3.0 * b * ru2 + 2.0 * cc * ru + v);
    }
    return ru > 0.0 ? ru / rd : 1.0;
}

/* The DNG WarpRectilinear of plane p (DNG 1.4 §6, "WarpRectilinear"): a position relative to the
 * optical centre, in units of the distance to the farthest corner, to its source position. */
static inline void rk_dng_warp(const rk_lens_map *m, int p, double x, double y, double *ox, double *oy) {
    const double *kr = m->dng_kr[p], *kt = m->dng_kt[p];
    double r2 = x * x + y * y;
    double f = kr[0] + r2 * (kr[1] + r2 * (kr[2] + r2 * kr[3]));
    *ox = f * x + kt[0] * (2.0 * x * y) + kt[1] * (r2 + 2.0 * x * x);
    *oy = f * y + kt[0] * (r2 + 2.0 * y * y) + kt[1] * (2.0 * x * y);
}

double rk_lens_map_row(const rk_lens_map *m, double x0, double y0, double dx, double dy, int count, float *out) {
    float lowest = -INFINITY;
    for (int j = 0; j < count; j++) {
        double x = x0 + (double)j * dx, y = y0 + (double)j * dy;
        float *o = out + 6 * (ptrdiff_t)j;
        if (m->distortion == RK_LENS_DNG) {
            /* In the DNG's stored frame (the photo before its EXIF orientation): centre and
             * farthest-corner distance in pixels there; the source position turned back. */
            const double *s = m->to_stored, *b = m->from_stored;
            double xs = s[0] * x + s[1] * y + s[4], ys = s[2] * x + s[3] * y + s[5];
            double u = (xs - m->dng_cx) / m->dng_m, v = (ys - m->dng_cy) / m->dng_m;
            for (int c = 0; c < 3; c++) {
                double sx, sy;
                rk_dng_warp(m, m->dng_planes == 3 ? c : 0, u, v, &sx, &sy);
                double px = m->dng_cx + m->dng_m * sx, py = m->dng_cy + m->dng_m * sy;
                o[2 * c] = (float)(b[0] * px + b[1] * py + b[4]);
                o[2 * c + 1] = (float)(b[2] * px + b[3] * py + b[5]);
                if (o[2 * c + 1] > lowest) lowest = o[2 * c + 1];
            }
            continue;
        }
        double nx = x * m->norm_scale - m->center_x, ny = y * m->norm_scale - m->center_y;
        double gx, gy;
        if (!m->reverse) {
            nx *= m->pre_scale;
            ny *= m->pre_scale;
            double k = rk_distortion_factor(m, nx * nx + ny * ny);
            gx = nx * k;
            gy = ny * k;
        } else {
            double k = rk_undistortion_factor(m, sqrt(nx * nx + ny * ny));
            gx = nx * k * m->post_scale;
            gy = ny * k * m->post_scale;
        }
        double rx = gx, ry = gy, bx = gx, by = gy;
        if (m->tca != RK_TCA_NONE) {
            double r2 = gx * gx + gy * gy;
            double kr = m->reverse ? rk_untca_factor(m, 0, sqrt(r2)) : rk_tca_factor(m, 0, r2);
            double kb = m->reverse ? rk_untca_factor(m, 1, sqrt(r2)) : rk_tca_factor(m, 1, r2);
            rx = gx * kr; ry = gy * kr;
            bx = gx * kb; by = gy * kb;
        }
        o[0] = (float)((rx + m->center_x) * m->norm_unscale);
        o[1] = (float)((ry + m->center_y) * m->norm_unscale);
        o[2] = (float)((gx + m->center_x) * m->norm_unscale);
        o[3] = (float)((gy + m->center_y) * m->norm_unscale);
        o[4] = (float)((bx + m->center_x) * m->norm_unscale);
        o[5] = (float)((by + m->center_y) * m->norm_unscale);
        float y3 = o[1] > o[3] ? o[1] : o[3];
        if (o[5] > y3) y3 = o[5];
        if (y3 > lowest) lowest = y3;
    }
    return lowest;
}

/* The ring rows a sample reads, and where they are: the rows it holds are [lo, hi], source row
 * `lo` in slot `lo_slot`; a row is found from it without a division (a tap row is never more than
 * the ring's height past `lo`). */
typedef struct {
    const unsigned char *src;
    ptrdiff_t stride, plane_bytes;
    int width, height, ring, lo, hi, lo_slot;
} rk_ring_view;

static inline const unsigned char *rk_ring_row(const rk_ring_view *v, int row) {
    row = rk_clampi(row, v->lo, v->hi);
    int slot = v->lo_slot + (row - v->lo);
    if (v->ring && slot >= v->ring) slot -= v->ring;
    return v->src + (ptrdiff_t)slot * v->stride;
}

/* Where a sample at (x, y) reads: its four rows, its first column, and its weights; 0 when (x, y)
 * lies outside the picture's area [−0.5, W − 0.5]×[−0.5, H − 0.5] (the sample is 0 there). */
typedef struct {
    const unsigned char *rows[4];
    int ix, interior;
    float wx[4], wy[4];
} rk_taps;

static inline int rk_locate(const rk_ring_view *v, float x, float y, rk_taps *t) {
    if (!(x >= -0.5f && x <= (float)v->width - 0.5f && y >= -0.5f && y <= (float)v->height - 0.5f)) return 0;
    int ix = (int)(x + 1.0f) - 1, iy = (int)(y + 1.0f) - 1;
    rk_cubic(x - (float)ix, t->wx);
    rk_cubic(y - (float)iy, t->wy);
    for (int r = 0; r < 4; r++) t->rows[r] = rk_ring_row(v, iy - 1 + r);
    t->ix = ix;
    t->interior = ix >= 1 && ix + 2 <= v->width - 1;
    return 1;
}

/* The sample of plane `plane` (0 red, 1 green, 2 blue) at the located taps: four rows of four
 * neighbours, clamp-to-edge at the picture's sides. */
static inline float rk_tap_plane(const rk_ring_view *v, const rk_taps *t, int plane) {
    ptrdiff_t base = (ptrdiff_t)plane * v->plane_bytes;
    if (t->interior) {
        ptrdiff_t c = base + 4 * (ptrdiff_t)(t->ix - 1);
        rk_v4 acc = rk_load4(t->rows[0] + c) * t->wy[0];
        acc += rk_load4(t->rows[1] + c) * t->wy[1];
        acc += rk_load4(t->rows[2] + c) * t->wy[2];
        acc += rk_load4(t->rows[3] + c) * t->wy[3];
        acc *= (rk_v4){t->wx[0], t->wx[1], t->wx[2], t->wx[3]};
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
    int c[4];
    for (int k = 0; k < 4; k++) c[k] = rk_clampi(t->ix - 1 + k, 0, v->width - 1);
    float acc = 0.0f;
    for (int r = 0; r < 4; r++) {
        const float *p = (const float *)(t->rows[r] + base);
        acc += (((p[c[0]] * t->wx[0] + p[c[1]] * t->wx[1]) + p[c[2]] * t->wx[2]) + p[c[3]] * t->wx[3]) * t->wy[r];
    }
    return acc;
}

void rk_warp_row(const void *image, ptrdiff_t row_stride, int width, int height, int ring_rows, int first_row, int last_row,
                 const float *positions, int count, float *out) {
    rk_ring_view v;
    v.src = (const unsigned char *)image;
    v.stride = row_stride;
    v.plane_bytes = (ptrdiff_t)width * 4;
    v.width = width;
    v.height = height;
    v.ring = ring_rows < height ? ring_rows : 0;
    v.lo = first_row > 0 ? first_row : 0;
    v.hi = last_row < height - 1 ? last_row : height - 1;
    if (v.hi < v.lo) v.hi = v.lo;
    v.lo_slot = v.ring ? v.lo % v.ring : v.lo;
    float *r = out, *g = out + count, *b = out + 2 * (ptrdiff_t)count;
    for (int j = 0; j < count; j++) {
        const float *p = positions + 6 * (ptrdiff_t)j;
        rk_taps t;
        if (p[0] == p[2] && p[1] == p[3] && p[4] == p[2] && p[5] == p[3]) {
            /* No TCA here: the three planes share their taps and weights. */
            if (!rk_locate(&v, p[2], p[3], &t)) { r[j] = g[j] = b[j] = 0.0f; continue; }
            r[j] = rk_tap_plane(&v, &t, 0);
            g[j] = rk_tap_plane(&v, &t, 1);
            b[j] = rk_tap_plane(&v, &t, 2);
            continue;
        }
        float *o[3] = {r, g, b};
        for (int c = 0; c < 3; c++) o[c][j] = rk_locate(&v, p[2 * c], p[2 * c + 1], &t) ? rk_tap_plane(&v, &t, c) : 0.0f;
    }
}
