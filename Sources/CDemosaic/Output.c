/* Step 7 of the full-size demosaic: red, green and blue from green and the two colour
 * differences, decoded back to linear light (squared) as 16-bit samples. Plain, AVX2 and AVX-512
 * from one source (Passes.h). */
#include "Passes.h"

RCP_INLINE void rcp_output_rows RCP_OUTPUT_PARAMS {
    const int w = g->w;
    for (int r = 0; r < rows; r++) {
        int j = r + pad;
        const float *f = F + (size_t)j * w + pad, *gs = G + (size_t)j * w + pad;
        const float *kr = KR + (size_t)j * w + pad, *kb = KB + (size_t)j * w + pad;
        const int green_parity = rcp_colour(g, j, pad) == 1 ? 0 : 1;  /* of visible column x */
        uint16_t *o = (uint16_t *)((char *)out + (size_t)r * stride);
        for (int x = 0; x < width; x++) {
            float gr = (x & 1) == green_parity ? f[x] : gs[x];
            float vr = gr - kr[x], vg = gr, vb = gr - kb[x];
            vr = vr < 0 ? 0 : vr > 1 ? 1 : vr;
            vg = vg < 0 ? 0 : vg > 1 ? 1 : vg;
            vb = vb < 0 ? 0 : vb > 1 ? 1 : vb;
            o[3 * x] = (uint16_t)(vr * vr * 65535.0f + 0.5f);
            o[3 * x + 1] = (uint16_t)(vg * vg * 65535.0f + 0.5f);
            o[3 * x + 2] = (uint16_t)(vb * vb * 65535.0f + 0.5f);
        }
    }
}

RCP_VARIANTS(rcp_output_rows, RCP_OUTPUT_PARAMS, (g, pad, rows, width, F, G, KR, KB, out, stride))
