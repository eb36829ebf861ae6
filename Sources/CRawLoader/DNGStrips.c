/* A DNG's mosaic read from its strips directly: see DNGStrips.h. */
#include "DNGStrips.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The file as the walk reads it: every read checked against its size. */
typedef struct {
    int fd;
    uint64_t size;
    int big;
} tiff;

static int read_at(const tiff *t, uint64_t offset, void *buffer, size_t count) {
    if (offset > t->size || count > t->size - offset) return -1;
    uint8_t *p = buffer;
    while (count > 0) {
        ssize_t n = pread(t->fd, p, count, (off_t)offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        offset += (uint64_t)n;
        count -= (size_t)n;
    }
    return 0;
}

static uint32_t get16(const tiff *t, const uint8_t *p) { return t->big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0]; }

static uint32_t get32(const tiff *t, const uint8_t *p) {
    return t->big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* One IFD entry: its tag, type, count and the 4 bytes of its value or offset. */
typedef struct {
    uint32_t tag, type, count;
    uint8_t value[4];
} entry;

/* Value i of an entry of SHORT or LONG values (the types these tags take), into *v; −1 when the
 * type is another or the value lies outside the file. */
static int value(const tiff *t, const entry *e, uint32_t i, uint32_t *v) {
    uint32_t size = e->type == 3 ? 2 : e->type == 4 || e->type == 13 ? 4 : 0;
    if (!size || i >= e->count) return -1;
    uint8_t b[4];
    if ((uint64_t)e->count * size <= 4) memcpy(b, e->value + i * size, size);
    else if (read_at(t, (uint64_t)get32(t, e->value) + (uint64_t)i * size, b, size) != 0) return -1;
    *v = size == 2 ? get16(t, b) : get32(t, b);
    return 0;
}

/* All the values of a SHORT or LONG entry into `out` (entry count of them), in one read. */
static int values(const tiff *t, const entry *e, uint32_t *out) {
    uint32_t size = e->type == 3 ? 2 : e->type == 4 ? 4 : 0;
    if (!size || e->count == 0 || e->count > (1u << 20)) return -1;
    if ((uint64_t)e->count * size <= 4) {
        for (uint32_t i = 0; i < e->count; i++) out[i] = size == 2 ? get16(t, e->value + 2 * i) : get32(t, e->value);
        return 0;
    }
    uint8_t *b = malloc((size_t)e->count * size);
    if (!b) return -1;
    int status = read_at(t, get32(t, e->value), b, (size_t)e->count * size);
    for (uint32_t i = 0; status == 0 && i < e->count; i++) out[i] = size == 2 ? get16(t, b + 2 * i) : get32(t, b + 4 * i);
    free(b);
    return status;
}

/* What the walk keeps of an image's IFD. */
typedef struct {
    uint32_t subfile, width, height, bits, compression, photometric, samples, planar, fill;
    uint32_t rows_per_strip;
    int tiled, masked, has_strips;
    entry offsets, counts;
} image;

/* Images seen, and IFDs walked (a loop of IFDs ends the walk). */
#define MAX_IFDS 64
typedef struct {
    uint64_t walked[MAX_IFDS];
    int nwalked;
    int raws;      /* full-size CFA images found */
    image raw;     /* the last of them */
} walk;

static int walk_ifd(const tiff *t, walk *w, uint64_t offset, int depth);

static int walk_chain(const tiff *t, walk *w, uint64_t offset, int depth) {
    for (int k = 0; offset != 0 && k < MAX_IFDS; k++) {
        uint64_t next = 0;
        for (int i = 0; i < w->nwalked; i++)
            if (w->walked[i] == offset) return 0;
        if (w->nwalked == MAX_IFDS) return -1;
        w->walked[w->nwalked++] = offset;
        uint8_t b[4];
        int status = walk_ifd(t, w, offset, depth);
        if (status != 0) return status;
        uint8_t n[2];
        if (read_at(t, offset, n, 2) != 0) return -1;
        if (read_at(t, offset + 2 + 12 * (uint64_t)get16(t, n), b, 4) != 0) return -1;
        next = get32(t, b);
        offset = next;
    }
    return 0;
}

static int walk_ifd(const tiff *t, walk *w, uint64_t offset, int depth) {
    uint8_t b[2];
    if (read_at(t, offset, b, 2) != 0) return -1;
    uint32_t n = get16(t, b);
    uint8_t *table = malloc(12 * (size_t)n + 1);
    if (!table) return -1;
    if (read_at(t, offset + 2, table, 12 * (size_t)n) != 0) {
        free(table);
        return -1;
    }
    image im;
    memset(&im, 0, sizeof im);
    im.samples = 1;
    im.planar = 1;
    im.fill = 1;
    im.rows_per_strip = UINT32_MAX;
    entry sub = {0};
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *q = table + 12 * (size_t)i;
        entry e = {get16(t, q), get16(t, q + 2), get32(t, q + 4), {q[8], q[9], q[10], q[11]}};
        uint32_t v = 0;
        int one = value(t, &e, 0, &v) == 0;
        switch (e.tag) {
        case 254: if (one) im.subfile = v; break;
        case 256: if (one) im.width = v; break;
        case 257: if (one) im.height = v; break;
        case 258:
            /* one value a sample; they must agree */
            for (uint32_t s = 0; s < e.count && s < 16; s++) {
                if (value(t, &e, s, &v) != 0) v = 0;
                if (s == 0) im.bits = v;
                else if (v != im.bits) im.bits = 0;
            }
            break;
        case 259: if (one) im.compression = v; break;
        case 262: if (one) im.photometric = v; break;
        case 266: if (one) im.fill = v; break;
        case 273: im.offsets = e; im.has_strips = 1; break;
        case 277: if (one) im.samples = v; break;
        case 278: if (one) im.rows_per_strip = v; break;
        case 279: im.counts = e; break;
        case 284: if (one) im.planar = v; break;
        case 322: case 323: case 324: case 325: im.tiled = 1; break;
        case 330: sub = e; break;
        case 50830: im.masked = 1; break;
        default: break;
        }
    }
    free(table);
    /* NewSubFileType 0 is the main image (1: a reduced preview); 32803 a colour filter array */
    if (im.photometric == 32803 && im.subfile == 0) {
        w->raws++;
        w->raw = im;
    }
    if (sub.count && depth < 2) {
        for (uint32_t s = 0; s < sub.count && s < 32; s++) {
            uint32_t at;
            if (value(t, &sub, s, &at) != 0) return -1;
            int status = walk_chain(t, w, at, depth + 1);
            if (status != 0) return status;
        }
    }
    return 0;
}

int rcp_dng_find_layout(int fd, uint64_t size, int width, int height, rcp_dng_layout *layout) {
    memset(layout, 0, sizeof *layout);
    tiff t = {fd, size, 0};
    uint8_t h[8];
    if (read_at(&t, 0, h, 8) != 0) return RCP_DNG_NOT_TIFF;
    if (h[0] == 'M' && h[1] == 'M') t.big = 1;
    else if (!(h[0] == 'I' && h[1] == 'I')) return RCP_DNG_NOT_TIFF;
    if (get16(&t, h + 2) != 42) return RCP_DNG_NOT_TIFF;
    walk *w = calloc(1, sizeof *w);
    if (!w) return RCP_DNG_NOT_TIFF;
    int status = walk_chain(&t, w, get32(&t, h + 4), 0);
    image im = w->raw;
    int raws = w->raws;
    free(w);
    if (status != 0) return RCP_DNG_NOT_TIFF;
    if (raws != 1) return RCP_DNG_NO_RAW;
    if (im.compression != 1 || im.tiled || !im.has_strips || im.samples != 1 || im.planar != 1 || im.fill != 1 || im.masked
        || im.bits < 8 || im.bits > 16)
        return RCP_DNG_LAYOUT;
    if (width <= 0 || height <= 0 || im.width != (uint32_t)width || im.height != (uint32_t)height) return RCP_DNG_SIZE;
    const uint64_t row_bytes = ((uint64_t)width * im.bits + 7) / 8;
    const uint64_t need = row_bytes * (uint64_t)height;
    /* The strips, in order and each where the one before ends, hold at least the rows. */
    uint32_t rps = im.rows_per_strip == 0 || im.rows_per_strip > (uint32_t)height ? (uint32_t)height : im.rows_per_strip;
    uint64_t strips = ((uint64_t)height + rps - 1) / rps;
    if (im.offsets.count != strips || im.counts.count != strips) return RCP_DNG_STRIPS;
    uint32_t *at = malloc(2 * strips * sizeof *at);
    if (!at) return RCP_DNG_STRIPS;
    uint32_t *count = at + strips;
    int read = values(&t, &im.offsets, at) == 0 && values(&t, &im.counts, count) == 0;
    uint64_t first = at[0], end = first;
    for (uint32_t s = 0; read && s < strips; s++) {
        if (at[s] != end) read = 0;
        end = (uint64_t)at[s] + count[s];
    }
    free(at);
    if (!read) return RCP_DNG_STRIPS;
    if (end - first < need) return RCP_DNG_STRIPS;
    if (first > size || need > size - first) return RCP_DNG_TRUNCATED;
    layout->width = width;
    layout->height = height;
    layout->bits = (int)im.bits;
    layout->big_endian = t.big;
    layout->offset = first;
    layout->row_bytes = row_bytes;
    return RCP_DNG_OK;
}

void rcp_dng_unpack_row(const uint8_t *row, int width, int bits, uint16_t *out) {
    int x = 0;
    if (bits == 8) {
        for (; x < width; x++) out[x] = row[x];
        return;
    }
    if (bits == 12) {
        /* three bytes, two samples */
        for (; x + 1 < width; x += 2) {
            const uint8_t *p = row + 3 * (x >> 1);
            out[x] = (uint16_t)(p[0] << 4 | p[1] >> 4);
            out[x + 1] = (uint16_t)((p[1] & 15) << 8 | p[2]);
        }
        if (x < width) {
            const uint8_t *p = row + 3 * (x >> 1);
            out[x] = (uint16_t)(p[0] << 4 | p[1] >> 4);
        }
        return;
    }
    /* any depth: a bit buffer filled a byte at a time, most significant bit first */
    uint64_t buffer = 0;
    int have = 0;
    const uint8_t *p = row;
    const uint32_t mask = (1u << bits) - 1;
    for (; x < width; x++) {
        while (have < bits) {
            buffer = buffer << 8 | *p++;
            have += 8;
        }
        have -= bits;
        out[x] = (uint16_t)((buffer >> have) & mask);
    }
}

int rcp_dng_unpack(int fd, const rcp_dng_layout *l, const uint16_t *curve, uint16_t *out) {
    tiff t = {fd, UINT64_MAX, l->big_endian};
    const size_t w = (size_t)l->width, h = (size_t)l->height;
    if (l->bits == 16) {
        /* the rows are the samples: one read, then swapped to this machine's order if need be */
        if (read_at(&t, l->offset, out, w * h * 2) != 0) return -1;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const int swap = l->big_endian;
#else
        const int swap = !l->big_endian;
#endif
        if (swap)
            for (size_t i = 0; i < w * h; i++) out[i] = (uint16_t)(out[i] << 8 | out[i] >> 8);
    } else {
        /* packed: read a band of rows at a time (about 4 MiB), unpacked row by row */
        size_t band = (size_t)(((uint64_t)4 << 20) / l->row_bytes);
        if (band < 1) band = 1;
        if (band > h) band = h;
        uint8_t *rows = malloc(band * (size_t)l->row_bytes);
        if (!rows) return -1;
        for (size_t y = 0; y < h; y += band) {
            size_t n = h - y < band ? h - y : band;
            if (read_at(&t, l->offset + (uint64_t)y * l->row_bytes, rows, n * (size_t)l->row_bytes) != 0) {
                free(rows);
                return -1;
            }
            for (size_t r = 0; r < n; r++) rcp_dng_unpack_row(rows + r * (size_t)l->row_bytes, (int)w, l->bits, out + (y + r) * w);
        }
        free(rows);
    }
    if (curve)
        for (size_t i = 0; i < w * h; i++) out[i] = curve[out[i]];
    return 0;
}
