#!/usr/bin/env python3
"""Reference values of the DNG lens opcodes' formulas, for recipe's tests to compare with.

Usage: dng_opcode_reference.py [request.json] > answer.json   (the request from stdin without a file)

An independent numpy reading of the Adobe DNG Specification 1.4, chapter 7 "Opcode List
Processing", written from the specification's own frame, not from recipe's code: the image
covers [0, W] x [0, H], pixel (column j, row i) has its centre at (j + 0.5, i + 0.5), the optical
centre (cx, cy) is at (cx * W, cy * H), and r = 1 at the corner of the image farthest from it.
Positions asked and answered are pixel indices (column j's centre at x = j), the convention of
recipe's DNGLensMaps: the frame's x is the index's x + 0.5.

request: {"width": W, "height": H, "points": [[x, y], ...],
          "warp": {"planes": [[kr0, kr1, kr2, kr3, kt0, kt1], ...], "cx": .., "cy": ..},   (optional)
          "vignette": {"k": [k0, .., k4], "cx": .., "cy": ..},                             (optional)
          "gainmap": {"points": [V, H], "spacing": [sv, sh], "origin": [ov, oh],          (optional)
                      "gains": [...V*H...], "pixels": [[row, col], ...]}}
answer:  {"warp": [[[x, y] per point] per plane], "vignette": [gain per point],
          "gainmap": [gain per pixel]}   (floats printed with repr: every bit kept)

Licences: numpy (BSD-3-Clause).
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_opcode_dng import gain_at  # noqa: E402  (the GainMap interpolation the tool's expected mosaics use)


def frame(cx, cy, width, height):
    """The optical centre and the unit radius in the specification's frame."""
    centre = np.array([cx * width, cy * height])
    corners = np.array([[0, 0], [width, 0], [0, height], [width, height]], dtype=np.float64)
    return centre, np.max(np.hypot(*(corners - centre).T))


def warp(planes, cx, cy, width, height, points):
    centre, m = frame(cx, cy, width, height)
    p = np.asarray(points, dtype=np.float64) + 0.5            # pixel indices -> the frame
    d = (p - centre) / m
    dx, dy = d[:, 0], d[:, 1]
    r2 = dx ** 2 + dy ** 2
    out = []
    for kr0, kr1, kr2, kr3, kt0, kt1 in planes:
        f = kr0 + kr1 * r2 + kr2 * r2 ** 2 + kr3 * r2 ** 3
        xs = centre[0] + m * (f * dx + kt0 * 2 * dx * dy + kt1 * (r2 + 2 * dx ** 2))
        ys = centre[1] + m * (f * dy + kt1 * 2 * dx * dy + kt0 * (r2 + 2 * dy ** 2))
        out.append(np.stack([xs - 0.5, ys - 0.5], axis=1).tolist())  # back to pixel indices
    return out


def vignette(k, cx, cy, width, height, points):
    centre, m = frame(cx, cy, width, height)
    p = np.asarray(points, dtype=np.float64) + 0.5
    r2 = np.sum(((p - centre) / m) ** 2, axis=1)
    return (1 + sum(kk * r2 ** (n + 1) for n, kk in enumerate(k))).tolist()


def main():
    with (open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin) as f:
        q = json.load(f)
    w, h, pts = q["width"], q["height"], q.get("points", [])
    answer = {}
    if "warp" in q:
        answer["warp"] = warp(q["warp"]["planes"], q["warp"]["cx"], q["warp"]["cy"], w, h, pts)
    if "vignette" in q:
        answer["vignette"] = vignette(q["vignette"]["k"], q["vignette"]["cx"], q["vignette"]["cy"], w, h, pts)
    if "gainmap" in q:
        g = q["gainmap"]
        gains = np.asarray(g["gains"], dtype=np.float32).reshape(g["points"][0], g["points"][1], 1)
        m = dict(area=(0, 0, 0, 0), pitch=(1, 1), spacing=g["spacing"], origin=g["origin"], gains=gains)
        answer["gainmap"] = [gain_at([m], r, c, h, w) for r, c in g["pixels"]]
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
