/* G − R and G − B at every pixel: at red and blue sites from D and E; at green sites the mean of
 * the four neighbours' (the two along the row are one colour, the two across it the other). */
#include "Passes.h"

RCP_INLINE void rcp_differences RCP_DIFFERENCES_PARAMS {
    const int w = g->w, h = g->h;
    const size_t w1 = (size_t)w;
    for (int j = m; j < h - m; j++) {
        const float *d = D + (size_t)j * w, *e = E + (size_t)j * w;
        float *kr = KR + (size_t)j * w, *kb = KB + (size_t)j * w;
        const int c0 = rcp_colour(g, j, 0), c1 = rcp_colour(g, j, 1);
        const int red_row = c0 == 0 || c1 == 0;
        /* along the row: D's colour on a red row is red (D = G − R), across it blue; and the reverse */
        const float *along = red_row ? d : e, *across = red_row ? e : d;
        const float *along2 = red_row ? e : d, *across2 = red_row ? d : e;
        /* at the row's red or blue sites: on a red row KR is D and KB is E; the reverse on a blue one */
        const float *site_r = red_row ? d : e, *site_b = red_row ? e : d;
        const int green_parity = c0 == 1 ? 0 : 1;
        /* both values at every column and the one the column's colour needs kept: a select the
         * compiler vectorises at every width (a branch per sample did not, on AArch64) */
        for (int i = m; i < w - m; i++) {
            float at_green_r = 0.25f * (along[i - 1] + along[i + 1] + across[i - w1] + across[i + w1]);
            float at_green_b = 0.25f * (along2[i - 1] + along2[i + 1] + across2[i - w1] + across2[i + w1]);
            int green = (i & 1) == green_parity;
            kr[i] = green ? at_green_r : site_r[i];
            kb[i] = green ? at_green_b : site_b[i];
        }
    }
}

RCP_VARIANTS(rcp_differences, RCP_DIFFERENCES_PARAMS, (g, D, E, KR, KB, m))
