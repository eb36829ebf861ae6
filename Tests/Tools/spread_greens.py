#!/usr/bin/env python3
"""Moves the two green samples of every 2x2 cell of a Bayer DNG apart, keeping their mean.

Usage: spread_greens.py INPUT.dng OUTPUT.dng [--spread 400]

The known answer for a half-size develop (each 2x2 cell one pixel, its green the mean of the
cell's two greens): INPUT and OUTPUT have the same mean of greens in every cell, so their
half-size develops must be the same picture, while a develop that takes one green of the cell
(or weighs the two unequally) sees the OUTPUT's greens `spread` codes apart. Cell (i, j) moves its
first green by +d and its second by -d, d = spread on a checkerboard of cells with the sign
flipped every other cell, and clamped so that both samples stay within [BlackLevel, WhiteLevel]
(no sample clips, so the mean is exactly kept).

Reads what Tests/Tools/make_bayer_dng.py writes: a little-endian TIFF whose CFA image
(PhotometricInterpretation 32803) is one uncompressed 16-bit strip, with CFARepeatPatternDim 2x2,
CFAPattern, BlackLevel and WhiteLevel; every other byte is copied as it is. numpy (BSD-3-Clause).
"""
import argparse
import struct
import sys

import numpy as np

TYPES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8, 11: 4, 12: 8}


def ifds(data):
    """Every IFD (its entries by tag: (type, count, value bytes)), IFD0's chain and sub-IFDs."""
    assert data[:4] == b"II*\x00", "not a little-endian TIFF"
    todo, seen = [struct.unpack_from("<I", data, 4)[0]], set()
    while todo:
        offset = todo.pop()
        if offset == 0 or offset in seen:
            continue
        seen.add(offset)
        n = struct.unpack_from("<H", data, offset)[0]
        entries = {}
        for k in range(n):
            tag, typ, count, raw = struct.unpack_from("<HHI4s", data, offset + 2 + 12 * k)
            size = TYPES.get(typ, 1) * count
            value = raw[:size] if size <= 4 else data[struct.unpack("<I", raw)[0]:struct.unpack("<I", raw)[0] + size]
            entries[tag] = (typ, count, value)
        yield entries
        todo.append(struct.unpack_from("<I", data, offset + 2 + 12 * n)[0])
        if 330 in entries:
            typ, count, value = entries[330]
            todo.extend(struct.unpack("<%dI" % count, value))


def number(entry, index=0):
    typ, count, value = entry
    if typ == 3:
        return struct.unpack_from("<H", value, 2 * index)[0]
    if typ == 4:
        return struct.unpack_from("<I", value, 4 * index)[0]
    if typ == 5:
        a, b = struct.unpack_from("<II", value, 8 * index)
        return a / b
    raise ValueError("type %d" % typ)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--spread", type=int, default=400)
    a = p.parse_args()
    data = bytearray(open(a.input, "rb").read())
    cfa = [e for e in ifds(data) if 262 in e and number(e[262]) == 32803]
    if len(cfa) != 1:
        sys.exit("spread_greens.py: %s has %d CFA images, not one" % (a.input, len(cfa)))
    e = cfa[0]
    width, height = number(e[256]), number(e[257])
    assert number(e[258]) == 16 and (259 not in e or number(e[259]) == 1), "not uncompressed 16-bit"
    assert e[273][1] == 1, "not one strip"
    start = number(e[273])
    pattern = list(e[33422][2][:4])
    black = int(number(e[50714])) if 50714 in e else 0
    white = int(number(e[50717]))
    greens = [q for q in range(4) if pattern[q] == 1]
    assert len(greens) == 2, "not a Bayer pattern with two greens: %r" % pattern
    mosaic = np.frombuffer(bytes(data[start:start + 2 * width * height]), dtype="<u2").reshape(height, width).astype(np.int64)
    h2, w2 = height // 2, width // 2
    (y1, x1), (y2, x2) = [(q >> 1, q & 1) for q in greens]
    g1 = mosaic[y1:2 * h2:2, x1:2 * w2:2]
    g2 = mosaic[y2:2 * h2:2, x2:2 * w2:2]
    i, j = np.meshgrid(np.arange(h2), np.arange(w2), indexing="ij")
    d = np.where((i + j) % 2 == 0, a.spread, -a.spread)
    # Both samples stay within [black, white]: +d is bounded by g1's room up and g2's room down.
    d = np.where(d > 0, np.minimum(d, np.minimum(white - g1, g2 - black)), -np.minimum(-d, np.minimum(g1 - black, white - g2)))
    mosaic[y1:2 * h2:2, x1:2 * w2:2] = g1 + d
    mosaic[y2:2 * h2:2, x2:2 * w2:2] = g2 - d
    data[start:start + 2 * width * height] = mosaic.astype("<u2").tobytes()
    open(a.output, "wb").write(data)
    print("spread_greens.py: %dx%d, %d cells moved, mean |d| %.1f codes (black %d, white %d)"
          % (width, height, int((d != 0).sum()), float(np.abs(d).mean()), black, white))


if __name__ == "__main__":
    main()
