/* At red and blue sites, the other colour's difference (G − B at red, G − R at blue) from the
 * eight nearest samples of that colour: the 7 × 7 filter of Pekkucuksen and Altunbasak, 10/32
 * each diagonal neighbour, −1/32 each of the two beyond it on either side. */
#include "Passes.h"

RCP_INLINE void rcp_other_difference RCP_OTHER_DIFFERENCE_PARAMS {
    const int w = g->w, h = g->h;
    const size_t w1 = (size_t)w, w3 = 3 * w1;
    for (int j = m; j < h - m; j++) {
        float *e = E + (size_t)j * w;
        const float *d = D + (size_t)j * w;
        const int first = rcp_colour(g, j, m) == 1 ? m + 1 : m;  /* the row's first red or blue site */
        for (int i = first; i < w - m; i += 2) {
            float near = d[i - w1 - 1] + d[i - w1 + 1] + d[i + w1 - 1] + d[i + w1 + 1];
            float far = d[i - w3 - 1] + d[i - w3 + 1] + d[i + w3 - 1] + d[i + w3 + 1]
                      + d[i - w1 - 3] + d[i - w1 + 3] + d[i + w1 - 3] + d[i + w1 + 3];
            e[i] = (10 * near - far) / 32;
        }
    }
}

RCP_VARIANTS(rcp_other_difference, RCP_OTHER_DIFFERENCE_PARAMS, (g, D, E, m))
