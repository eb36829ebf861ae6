/* The plane denoiser (CDenoise.h): 8×8 DCT shrinkage of patches every 2 samples (every 4 rows on
 * request: the chroma planes, half the cost of each for 0.1 dB), averaged with
 * BM3D's weights. Plain and AVX2 (+FMA) variants of one body, side by side; the exported function
 * picks one at run time. The two differ only in the rounding of fused multiply-adds (the AVX2
 * variant is allowed them): within 1e-5 of each other on unit-variance noise (DenoiseKernelTests).
 *
 * The DCT is separable, and patches at the same column share their rows' horizontal transforms:
 * each row's 8-point transforms are taken once at every even column (H), the vertical transforms,
 * the threshold and the inverse vertical transforms run patch by patch, 8 patches side by side
 * (one lane each), and their results are summed back in the same row-transformed form (A), so
 * the inverse horizontal transform also runs once a row. */
#include "CDenoise.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define LANES 8

/* The orthonormal DCT-II basis: C[k][i] = a_k cos(π (2i + 1) k / 16). */
static float dct_basis[8][8];
static int dct_ready;

static void dct_init(void) {
    if (__atomic_load_n(&dct_ready, __ATOMIC_ACQUIRE)) return;
    float c[8][8];
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < 8; i++)
            c[k][i] = (float)((k == 0 ? sqrt(1.0 / 8) : sqrt(2.0 / 8)) * cos(M_PI * (2 * i + 1) * k / 16.0));
    /* Every thread writes the same values: a race between two first callers is harmless. */
    memcpy(dct_basis, c, sizeof c);
    __atomic_store_n(&dct_ready, 1, __ATOMIC_RELEASE);
}

typedef struct {
    int nx, ny, nxp, half;
    float *H, *A, *W, *even, *odd, *ev2, *od2;
} layout;

static layout lay_out(int w, int h, int ystep, float *scratch) {
    layout l;
    l.nx = (w - 8) / 2 + 1;
    l.ny = (h - 8) / ystep + 1;
    l.nxp = (l.nx + LANES - 1) / LANES * LANES;
    l.half = (w + 1) / 2 + LANES + 4;
    float *p = scratch;
    l.H = p; p += (size_t)h * 8 * l.nxp;
    l.A = p; p += (size_t)h * 8 * l.nxp;
    l.W = p; p += (size_t)h * l.nxp;
    l.even = p; p += l.half;
    l.odd = p; p += l.half;
    l.ev2 = p; p += l.half;
    l.od2 = p;
    return l;
}

size_t rcp_dct_denoise_scratch(int w, int h) {
    size_t nx = (size_t)((w - 8) / 2 + 1), nxp = (nx + LANES - 1) / LANES * LANES, half = (size_t)(w + 1) / 2 + LANES + 4;
    return (size_t)h * 8 * nxp * 2 + (size_t)h * nxp + 4 * half + 16;
}

/* The body, compiled once per variant (always inlined into each). */
static inline __attribute__((always_inline)) void
denoise_body(const float *restrict in, float *restrict out, int w, int h, int pitch, float threshold, int ystep, float *restrict scratch) {
    const layout L = lay_out(w, h, ystep, scratch);
    const int nx = L.nx, ny = L.ny, nxp = L.nxp;
    float C[8][8];
    memcpy(C, dct_basis, sizeof C);
    /* 1. Each row's horizontal transforms at every even column: H[j][k][xi], xi the patch column. */
    for (int j = 0; j < h; j++) {
        const float *row = in + (size_t)j * pitch;
        float *restrict ev = L.even, *restrict od = L.odd;
        for (int m = 0; m < L.half; m++) {
            ev[m] = 2 * m < w ? row[2 * m] : 0;
            od[m] = 2 * m + 1 < w ? row[2 * m + 1] : 0;
        }
        for (int k = 0; k < 8; k++) {
            float *restrict hk = L.H + ((size_t)j * 8 + k) * nxp;
            for (int xi = 0; xi < nxp; xi++) hk[xi] = 0;
            for (int i = 0; i < 8; i++) {
                const float c = C[k][i];
                const float *restrict src = (i & 1) ? od + (i >> 1) : ev + (i >> 1);
                for (int xi = 0; xi < nxp; xi++) hk[xi] += c * src[xi];
            }
        }
    }
    memset(L.A, 0, sizeof(float) * (size_t)h * 8 * nxp);
    memset(L.W, 0, sizeof(float) * (size_t)h * nxp);
    /* 2. Patch by patch, 8 side by side: the vertical transform, the threshold, BM3D's weight
     * (1 / the coefficients kept), the inverse vertical transform summed into A. */
    for (int yi = 0; yi < ny; yi++) {
        const int y = ystep * yi;
        for (int xb = 0; xb < nxp; xb += LANES) {
            /* The first row sets B (a memset of it cost 16 % of a render's instructions). */
            float B[64][LANES];
            for (int k = 0; k < 8; k++) {
                const float *restrict hv = L.H + ((size_t)y * 8 + k) * nxp + xb;
                for (int k2 = 0; k2 < 8; k2++) {
                    const float c = C[k2][0];
                    for (int l = 0; l < LANES; l++) B[k2 * 8 + k][l] = c * hv[l];
                }
            }
            for (int j = 1; j < 8; j++)
                for (int k = 0; k < 8; k++) {
                    const float *restrict hv = L.H + ((size_t)(y + j) * 8 + k) * nxp + xb;
                    for (int k2 = 0; k2 < 8; k2++) {
                        const float c = C[k2][j];
                        for (int l = 0; l < LANES; l++) B[k2 * 8 + k][l] += c * hv[l];
                    }
                }
            float kept[LANES];
            for (int l = 0; l < LANES; l++) kept[l] = 1;
            for (int q = 1; q < 64; q++)
                for (int l = 0; l < LANES; l++) {
                    const int keep = fabsf(B[q][l]) >= threshold;
                    B[q][l] = keep ? B[q][l] : 0.0f;
                    kept[l] += keep ? 1.0f : 0.0f;
                }
            float weight[LANES];
            for (int l = 0; l < LANES; l++) weight[l] = xb + l < nx ? 1.0f / kept[l] : 0.0f;
            for (int q = 0; q < 64; q++)
                for (int l = 0; l < LANES; l++) B[q][l] *= weight[l];
            for (int j = 0; j < 8; j++) {
                float *restrict wv = L.W + (size_t)(y + j) * nxp + xb;
                for (int l = 0; l < LANES; l++) wv[l] += weight[l];
                for (int k = 0; k < 8; k++) {
                    float *restrict av = L.A + ((size_t)(y + j) * 8 + k) * nxp + xb;
                    for (int k2 = 0; k2 < 8; k2++) {
                        const float c = C[k2][j];
                        for (int l = 0; l < LANES; l++) av[l] += c * B[k2 * 8 + k][l];
                    }
                }
            }
        }
    }
    /* 3. Each row's inverse horizontal transforms, the weights spread the same way, and the
     * weighted sum divided by the weights, over the rows and columns every patch reaches. */
    for (int j = 8; j < h - 8; j++) {
        float *restrict oe = L.even, *restrict oo = L.odd, *restrict we = L.ev2, *restrict wo = L.od2;
        for (int m = 0; m < L.half; m++) oe[m] = oo[m] = we[m] = wo[m] = 0;
        const float *restrict wrow = L.W + (size_t)j * nxp;
        for (int i = 0; i < 8; i++) {
            float *restrict dst = (i & 1) ? oo + (i >> 1) : oe + (i >> 1);
            float *restrict wdst = (i & 1) ? wo + (i >> 1) : we + (i >> 1);
            for (int xi = 0; xi < nx; xi++) wdst[xi] += wrow[xi];
            for (int k = 0; k < 8; k++) {
                const float c = C[k][i];
                const float *restrict ak = L.A + ((size_t)j * 8 + k) * nxp;
                for (int xi = 0; xi < nx; xi++) dst[xi] += c * ak[xi];
            }
        }
        float *o = out + (size_t)j * pitch;
        for (int x = 8; x < w - 8; x++) {
            const int m = x >> 1;
            o[x] = (x & 1) ? oo[m] / wo[m] : oe[m] / we[m];
        }
    }
}

void rcp_dct_denoise_plain(const float *in, float *out, int w, int h, int pitch, float threshold, int ystep, float *scratch) {
    dct_init();
    denoise_body(in, out, w, h, pitch, threshold, ystep == 4 ? 4 : 2, scratch);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2,fma")))
static void denoise_avx2(const float *in, float *out, int w, int h, int pitch, float threshold, int ystep, float *scratch) {
    denoise_body(in, out, w, h, pitch, threshold, ystep, scratch);
}
#endif

void rcp_dct_denoise(const float *in, float *out, int w, int h, int pitch, float threshold, int ystep, float *scratch) {
    dct_init();
    ystep = ystep == 4 ? 4 : 2;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        denoise_avx2(in, out, w, h, pitch, threshold, ystep, scratch);
        return;
    }
#endif
    denoise_body(in, out, w, h, pitch, threshold, ystep, scratch);
}
