#!/usr/bin/env python3
"""A DNG's OpcodeList3 lens opcodes applied by numpy to a render made without them, for recipe's
test of `lens: camera` through the command line.

Usage: dng_opcode_render_reference.py PLAIN.png OUT.png --warp KR0,KR1,KR2,KR3,KT0,KT1[;...]
       [--warp-centre CX,CY] [--vignette K0,K1,K2,K3,K4] [--vignette-centre CX,CY] [--vignette-first]

PLAIN.png is the photo rendered without its lens corrections: a 16-bit sRGB PNG. Its samples are
taken to linear light (the sRGB curve), and the opcodes are run in the order the file lists them
(Adobe DNG Specification 1.4, chapter 7): FixVignetteRadial multiplies each pixel by
1 + k0 r^2 + k1 r^4 + ... at the pixel's centre; WarpRectilinear makes each output pixel from
the source position its formula gives (plane 0 red, 1 green, 2 blue; one plane for all three).
The formulas are dng_opcode_reference.py's (written from the specification, not from recipe).
The sampling is Catmull-Rom bicubic (a = -0.5) in linear light, the taps clamped to the edge,
and 0 at a position outside the picture's area [-0.5, W - 0.5] x [-0.5, H - 0.5]. OUT.png is
the result clipped to [0, 1], sRGB-encoded, 16 bits.

Licences: numpy (BSD-3-Clause), pypng (MIT).
"""
import argparse
import os
import sys

import numpy as np
import png

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dng_opcode_reference import vignette, warp  # noqa: E402  (the specification's formulas)


def to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def to_srgb(v):
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.power(np.maximum(v, 0), 1 / 2.4) - 0.055)


def catmull_rom(t):
    t2, t3 = t * t, t * t * t
    return [(-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2]


def sample(plane, xs, ys):
    """Catmull-Rom samples of one plane at (xs, ys), pixel indices."""
    h, w = plane.shape
    ix, iy = np.floor(xs).astype(int), np.floor(ys).astype(int)
    wx, wy = catmull_rom(xs - ix), catmull_rom(ys - iy)
    out = np.zeros_like(xs)
    for r in range(4):
        rows = np.clip(iy - 1 + r, 0, h - 1)
        for c in range(4):
            out += plane[rows, np.clip(ix - 1 + c, 0, w - 1)] * wx[c] * wy[r]
    inside = (xs >= -0.5) & (xs <= w - 0.5) & (ys >= -0.5) & (ys <= h - 0.5)
    return np.where(inside, out, 0.0)


def numbers(text):
    return [float(x) for x in text.split(",")]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("plain")
    p.add_argument("output")
    p.add_argument("--warp", required=True)
    p.add_argument("--warp-centre", default="0.5,0.5")
    p.add_argument("--vignette")
    p.add_argument("--vignette-centre", default="0.5,0.5")
    p.add_argument("--vignette-first", action="store_true")
    a = p.parse_args()

    width, height, rows, info = png.Reader(filename=a.plain).asRGB()
    if info["bitdepth"] != 16:
        sys.exit(f"{a.plain}: {info['bitdepth']}-bit, not 16-bit")
    image = to_linear(np.array([list(r) for r in rows], dtype=np.float64).reshape(height, width, 3) / 65535)
    ys, xs = np.mgrid[0:height, 0:width]
    points = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)

    def vignetted(img):
        cx, cy = numbers(a.vignette_centre)
        gain = np.asarray(vignette(numbers(a.vignette), cx, cy, width, height, points)).reshape(height, width)
        return img * gain[..., None]

    if a.vignette and a.vignette_first:
        image = vignetted(image)
    cx, cy = numbers(a.warp_centre)
    planes = [numbers(s) for s in a.warp.split(";")]
    positions = np.asarray(warp(planes, cx, cy, width, height, points))   # planes x points x 2
    out = np.empty_like(image)
    for c in range(3):
        at = positions[c if len(planes) == 3 else 0]
        out[..., c] = sample(image[..., c], at[:, 0], at[:, 1]).reshape(height, width)
    if a.vignette and not a.vignette_first:
        out = vignetted(out)
    encoded = np.rint(to_srgb(np.clip(out, 0, 1)) * 65535).astype(np.uint16)
    with open(a.output, "wb") as f:
        png.Writer(width, height, bitdepth=16, greyscale=False).write(f, encoded.reshape(height, width * 3).tolist())


if __name__ == "__main__":
    main()
