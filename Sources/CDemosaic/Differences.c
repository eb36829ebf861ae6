/* G − R and G − B at every pixel: at red and blue sites from D and E; at green sites the mean of
 * the four neighbours' (the two along the row are one colour, the two across it the other). */
#include "Passes.h"

#include <stddef.h>

void rcp_differences(const rcp_grid *g, const float *D, const float *E, float *KR, float *KB, int m) {
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
        for (int i = m; i < w - m; i++) {
            int c = (i & 1) ? c1 : c0;
            if (c == 1) {
                kr[i] = 0.25f * (along[i - 1] + along[i + 1] + across[i - w1] + across[i + w1]);
                kb[i] = 0.25f * (along2[i - 1] + along2[i + 1] + across2[i - w1] + across2[i + w1]);
            } else if (c == 0) { kr[i] = d[i]; kb[i] = e[i]; }
            else { kr[i] = e[i]; kb[i] = d[i]; }
        }
    }
}
