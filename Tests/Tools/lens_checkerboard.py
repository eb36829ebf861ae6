#!/usr/bin/env python3
"""A checkerboard photographed through a lens, by lensfun's own forward model (lensfunpy,
`reverse=True`: the distortion and TCA a lens adds), for the known-answer lens tests.

    lens_checkerboard.py OUT.f32 CAMERA_MAKER CAMERA_MODEL LENS_MAKER LENS_MODEL FOCAL WIDTH HEIGHT SQUARE

Writes OUT.f32: WIDTH×HEIGHT pixels of float32 linear light, little-endian, each row its red,
green and blue planes (the engine's float rows). Prints JSON on stdout: the calibration lensfun
interpolates (as lens_reference.py prints it, with the lens's aspect ratio and centre from the
XML), the camera's crop factor, the square's size.

Each distorted pixel's channels are sampled from the analytic checkerboard at the position
lensfun's reverse model gives for that channel: squares of SQUARE pixels, edges at multiples of
SQUARE − 0.5 (pixel centres at whole numbers), anti-aliased by a Gaussian edge profile of
σ 0.6 px (the board as a lens would blur it slightly). No image resampling is involved, so the
only interpolation is the one `recipe` makes when it corrects the board.
"""
import glob
import json
import math
import os
import sys

import numpy as np
import lensfunpy
from scipy.special import erf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lens_reference import aspect_and_center, xml_lens  # noqa: E402


def board(x, y, square):
    """The anti-aliased checkerboard at positions (x, y): 0.05 or 0.8 (linear light)."""
    def wave(t):
        # +1 in even squares, -1 in odd ones, through 0 at each edge with an erf profile.
        u = (t + 0.5) / square
        k = np.floor(u)
        frac = (u - k) * square
        near = np.minimum(frac, square - frac)
        sign = np.where(k.astype(np.int64) % 2 == 0, 1.0, -1.0)
        return sign * erf(near / (0.6 * math.sqrt(2)))
    return 0.425 + 0.375 * wave(x) * wave(y)


def main():
    out, cmaker, cmodel, lmaker, lmodel, focal, width, height, square = sys.argv[1:10]
    focal, width, height, square = float(focal), int(width), int(height), float(square)
    db_dir = "/usr/share/lensfun/version_1"
    db = lensfunpy.Database(sorted(glob.glob(os.path.join(db_dir, "*.xml"))), load_common=False, load_bundled=False)
    cam = db.find_cameras(cmaker, cmodel)[0]
    lens = next(l for l in db.lenses if l.model == lmodel and l.maker == lmaker)
    mod = lensfunpy.Modifier(lens, cam.crop_factor, width, height)
    flags = lensfunpy.ModifyFlags.DISTORTION | lensfunpy.ModifyFlags.TCA
    mod.initialize(focal, 8.0, 1000.0, scale=1.0, pixel_format=np.float32, flags=flags, reverse=True)
    coords = mod.apply_subpixel_geometry_distortion()  # (h, w, 3, 2): where each channel comes from
    planes = np.empty((height, 3, width), dtype=np.float32)
    for c in range(3):
        planes[:, c, :] = board(coords[:, :, c, 0].astype(np.float64), coords[:, :, c, 1].astype(np.float64), square)
    planes.astype("<f4").tofile(out)
    d = lens.interpolate_distortion(focal)
    t = lens.interpolate_tca(focal)
    aspect, cx, cy = aspect_and_center(xml_lens(db_dir, lmaker, lmodel))
    info = {"cameraCrop": cam.crop_factor, "lensCrop": lens.crop_factor, "square": square,
            "aspectRatio": aspect, "centerX": cx, "centerY": cy,
            "distortion": {"model": d.model.name.lower(), "terms": [float(v) for v in d.terms]} if d else None,
            "tca": {"model": t.model.name.lower(), "terms": [float(v) for v in t.terms]} if t else None}
    json.dump(info, sys.stdout)


if __name__ == "__main__":
    main()
