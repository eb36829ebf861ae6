/* The estimate of a mosaic's noise model (CDenoise.h): variance = gain · signal + floor.
 *
 * Principal components of small patches (Liu, Tanaka and Okutomi, "Single-image noise level
 * estimation for blind denoising", IEEE TIP 2013): a photo's 4×4 patches lie close to a subspace
 * of few dimensions, and white noise adds the same variance in every direction, so the smallest
 * eigenvalue of the patches' covariance is the noise's variance. Texture is kept out as that
 * paper does: the patches whose own variance is well above the noise found are dropped and the
 * covariance taken again (three rounds). The patches (each colour plane of the mosaic, 4×4 cells
 * of one colour, black subtracted) are sorted by level into bins; each bin gives the variance at
 * its median level, corrected for the smallest eigenvalue's bias on a finite sample (its
 * Marchenko–Pastur edge, (1 − √(16/n))²); a line through the bins, weighted by 1/variance,
 * is the model. Patches with a clipped sample are left out. */
#include "CDenoise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S 4                 /* patch side */
#define D (S * S)           /* dimensions */
#define BINS 12
#define MAX_PATCHES 120000  /* at most this many patches are read (a stride keeps to it): 10,000 a bin */
#define ROUNDS 3

typedef struct { float level; int index; } entry;

static int by_level(const void *a, const void *b) {
    float x = ((const entry *)a)->level, y = ((const entry *)b)->level;
    return (x > y) - (x < y);
}

/* The smallest eigenvalue of the symmetric D×D matrix a (destroyed): cyclic Jacobi rotations. */
static double smallest_eigenvalue(double a[D][D]) {
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = 0;
        for (int p = 0; p < D; p++)
            for (int q = p + 1; q < D; q++) off += a[p][q] * a[p][q];
        if (off < 1e-18) break;
        for (int p = 0; p < D; p++)
            for (int q = p + 1; q < D; q++) {
                if (fabs(a[p][q]) < 1e-300) continue;
                double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < D; k++) {
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < D; k++) {
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
            }
    }
    double m = a[0][0];
    for (int k = 1; k < D; k++) m = a[k][k] < m ? a[k][k] : m;
    return m;
}

/* The noise variance of patches `set` (n of them, D floats each), or −1 when too few; *level:
 * the mean level of the patches it was measured on (the selection keeps the quieter, so darker,
 * patches of a bin: the bin's own median level would put the variance too far right). */
static double bin_variance(const float *patches, int *set, int n, double *level) {
    double variance = -1;
    for (int round = 0; round < ROUNDS && n >= 20 * D; round++) {
        double mean[D] = {0}, cov[D][D], all = 0;
        memset(cov, 0, sizeof cov);
        for (int i = 0; i < n; i++) {
            const float *x = patches + (size_t)set[i] * D;
            for (int k = 0; k < D; k++) mean[k] += x[k];
        }
        for (int k = 0; k < D; k++) { mean[k] /= n; all += mean[k]; }
        *level = all / D;
        for (int i = 0; i < n; i++) {
            const float *x = patches + (size_t)set[i] * D;
            double v[D];
            for (int k = 0; k < D; k++) v[k] = x[k] - mean[k];
            for (int p = 0; p < D; p++)
                for (int q = p; q < D; q++) cov[p][q] += v[p] * v[q];
        }
        for (int p = 0; p < D; p++)
            for (int q = p; q < D; q++) cov[q][p] = cov[p][q] /= n;
        const double edge = 1 - sqrt((double)D / n);
        variance = smallest_eigenvalue(cov) / (edge * edge);
        /* Keep the patches whose own variance is within reach of noise of that variance. */
        const double limit = variance * (1 + 3 * sqrt(2.0 / (D - 1))) * 1.5;
        int kept = 0;
        for (int i = 0; i < n; i++) {
            const float *x = patches + (size_t)set[i] * D;
            double m = 0, t = 0;
            for (int k = 0; k < D; k++) m += x[k];
            m /= D;
            for (int k = 0; k < D; k++) t += (x[k] - m) * (x[k] - m);
            if (t / (D - 1) < limit) set[kept++] = set[i];
        }
        if (kept < 20 * D) break;
        n = kept;
    }
    return variance;
}

int rcp_mosaic_noise_estimate(const rcp_mosaic_denoise *d, float white, float *gain, float *floor) {
    *gain = 0;
    *floor = 0;
    const int cw = d->width / 2, ch = d->height / 2;
    if (cw < 2 * S || ch < 2 * S) return 0;
    /* The stride (in cells) that keeps the patches of the four planes under MAX_PATCHES. */
    int stride = S;
    while (4.0 * (cw / stride) * (ch / stride) > MAX_PATCHES) stride++;
    const size_t most = 4 * (size_t)(cw / stride + 1) * (ch / stride + 1);
    float *patches = malloc(sizeof(float) * D * most);
    entry *entries = malloc(sizeof(entry) * most);
    int *set = malloc(sizeof(int) * most);
    if (!patches || !entries || !set) { free(patches); free(entries); free(set); return 0; }
    int n = 0;
    for (int p = 0; p < 4; p++) {
        const float black = d->black[p], clip = white - 0.02f * (white - black);
        for (int cy = 0; cy + S <= ch; cy += stride)
            for (int cx = 0; cx + S <= cw; cx += stride) {
                float *x = patches + (size_t)n * D, sum = 0;
                int clipped = 0;
                for (int j = 0; j < S; j++) {
                    const uint16_t *row = d->raw + (size_t)(2 * (cy + j) + (p >> 1) + d->top) * d->raw_pitch + d->left + (p & 1);
                    for (int i = 0; i < S; i++) {
                        const float v = row[2 * (cx + i)];
                        clipped |= v == 0 || v >= clip;
                        x[j * S + i] = v - black;
                        sum += v - black;
                    }
                }
                if (clipped) continue;
                entries[n].level = sum / D;
                entries[n].index = n;
                n++;
            }
    }
    qsort(entries, (size_t)n, sizeof(entry), by_level);
    double sw = 0, swx = 0, swy = 0, swxx = 0, swxy = 0;
    int used = 0;
    for (int k = 0; k < BINS; k++) {
        const int start = (int)((long)n * k / BINS), end = (int)((long)n * (k + 1) / BINS);
        for (int i = start; i < end; i++) set[i - start] = entries[i].index;
        double level = 0;
        const double v = bin_variance(patches, set, end - start, &level);
        if (v <= 0) continue;
        const double w = 1 / v;
        sw += w; swx += w * level; swy += w * v; swxx += w * level * level; swxy += w * level * v;
        used++;
    }
    free(patches);
    free(entries);
    free(set);
    const double det = sw * swxx - swx * swx;
    if (used < 2 || !(det > 0)) return 0;
    double a = (sw * swxy - swx * swy) / det, b = (swy - a * swx) / sw;
    if (a <= 0) {  /* no signal-dependent part found: all the variance is the floor */
        a = 0;
        b = swy / sw;
    }
    *gain = (float)a;
    *floor = (float)(b > 0 ? b : 0);
    return used;
}

/* ---- a plane's noise, for the denoise of rendered photos ---------------------------------------
 * Donoho's estimate: the median absolute value of the finest diagonal Haar detail,
 * (a − b − c + d)/2 over each 2×2 block (white noise of deviation σ gives it deviation σ), divided
 * by 0.6745 (the median of |N(0, 1)|). Edges are few among a photo's blocks, so the median
 * stays with the noise. Sorted in a copy (at most 65,536 blocks, taken at a stride). */
static int by_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

float rcp_plane_noise_sigma(const float *plane, int w, int h, int pitch) {
    const int bw = w / 2, bh = h / 2;
    if (bw < 1 || bh < 1) return 0;
    int stride = 1;
    while ((long)(bw / stride) * (bh / stride) > 65536) stride++;
    float *d = malloc(sizeof(float) * (size_t)(bw / stride + 1) * (bh / stride + 1));
    if (!d) return 0;
    int n = 0;
    for (int by = 0; by < bh; by += stride)
        for (int bx = 0; bx < bw; bx += stride) {
            const float *r0 = plane + (size_t)(2 * by) * pitch + 2 * bx, *r1 = r0 + pitch;
            d[n++] = fabsf(r0[0] - r0[1] - r1[0] + r1[1]) * 0.5f;
        }
    qsort(d, (size_t)n, sizeof(float), by_float);
    const float median = d[n / 2];
    free(d);
    return median / 0.6745f;
}
