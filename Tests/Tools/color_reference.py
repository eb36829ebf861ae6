#!/usr/bin/env python3
"""Independent references for the OKLab colour controls (Tests/RecipeKernelsTests/ColorRangeTests.swift).

    color_reference.py range IMAGE.png 'JSON'   the colour-range mask's weights of an 8-bit PNG

The PNG is read with pypng (not the renderer's libpng decoder); sRGB decoded with the sRGB
formula; OKLab from Björn Ottosson's published matrices (https://bottosson.github.io/posts/oklab/);
the weights from the formulas documented in Sources/RecipeKernels/ColorRange.swift, written
here again with numpy in double precision. JSON holds hue_min, hue_max, hue_feather, chroma_min,
chroma_max, chroma_feather, lightness_min, lightness_max, lightness_feather. Prints the weights
after the pixels: the width and height (two little-endian uint32), the RGB bytes as pypng read
them, then the weights as little-endian float32, row by row.
"""
import json
import sys

import numpy as np
import png

M1 = np.array([[0.4122214708, 0.5363325363, 0.0514459929],
               [0.2119034982, 0.6806995451, 0.1073969566],
               [0.0883024619, 0.2817188376, 0.6299787005]])
M2 = np.array([[0.2104542553, 0.7936177850, -0.0040720468],
               [1.9779984951, -2.4285922050, 0.4505937099],
               [0.0259040371, 0.7827717662, -0.8086757660]])


def read_png(path):
    width, height, rows, info = png.Reader(filename=path).asRGB8()
    return np.vstack([np.frombuffer(bytes(r), dtype=np.uint8) for r in rows]).reshape(height, width, 3)


def oklch(rgb8):
    c = rgb8.astype(np.float64) / 255
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    lms = np.cbrt(lin @ M1.T)
    lab = lms @ M2.T
    L, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    h = np.degrees(np.arctan2(b, a)) % 360
    return L, np.hypot(a, b), h


def smooth(e0, e1, v):
    t = np.clip((v - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


def band(v, low, high, feather):
    if feather > 0:
        return smooth(low - feather, low, v) * (1 - smooth(high, high + feather, v))
    return ((v >= low) & (v <= high)).astype(np.float64)


def range_weights(rgb8, p):
    L, C, h = oklch(rgb8)
    start, end = p["hue_min"], p["hue_max"]
    width = (end - start) % 360
    if end - start >= 360 or (start == 0 and end == 360):
        wh = np.ones_like(h)
    else:
        d = (h - start % 360) % 360
        outside = np.minimum(d - width, 360 - d)
        f = p["hue_feather"]
        faded = 1 - smooth(0, f, outside) if f > 0 else np.zeros_like(h)
        wh = np.where(d <= width, 1.0, faded)
    return wh * band(C, p["chroma_min"], p["chroma_max"], p["chroma_feather"]) \
              * band(L, p["lightness_min"], p["lightness_max"], p["lightness_feather"])


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "range":
        sys.exit(__doc__)
    rgb8 = read_png(sys.argv[2])
    w = range_weights(rgb8, json.loads(sys.argv[3]))
    out = sys.stdout.buffer
    out.write(np.array([rgb8.shape[1], rgb8.shape[0]], dtype="<u4").tobytes())
    out.write(rgb8.tobytes())
    out.write(w.astype("<f4").tobytes())


if __name__ == "__main__":
    main()
