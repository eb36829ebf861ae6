#!/usr/bin/env python3
"""Reference lens maps from lensfun itself, through lensfunpy (PyPI; it wraps lensfun 0.3.4,
whose maths and interpolation are 0.3.3's), over the system's lensfun database.

For each case (a camera and lens of the database, a focal length, aperture and distance, an
image size, a scale) it prints, as one JSON document on stdout:

- the calibration lensfun interpolates for that focal length / aperture / distance (model and
  terms), with the lens's calibration crop factor, aspect ratio and centre (read from the XML:
  lensfunpy does not expose the last two);
- lensfun's per-channel source positions for a grid of output pixels (its
  apply_subpixel_geometry_distortion, one pixel a call so that no row accumulates rounding);
- the vignetting gain at the same pixels (apply_color_modification on an image of ones).

Usage: lens_reference.py [--db DIR]   (default /usr/share/lensfun/version_1)
"""
import argparse
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
import lensfunpy

# (camera maker, camera model, lens maker, lens model, focal, aperture, distance, width, height, scale)
# Chosen to cover every model the database uses (ptlens, poly3, poly5 distortion; linear and poly3
# TCA; pa vignetting), focal lengths on and between calibration points, a lens calibrated on
# another crop factor than the camera's, portrait and 4:3 frames, and fixed and automatic scale.
CASES = [
    ("NIKON CORPORATION", "NIKON D3S", "Nikon", "Nikon AF-S Zoom-Nikkor 24-70mm f/2.8G ED", 35, 5.6, 10, 4256, 2832, 1.0),
    ("NIKON CORPORATION", "NIKON D3S", "Nikon", "Nikon AF-S Zoom-Nikkor 24-70mm f/2.8G ED", 24, 2.8, 1000, 4256, 2832, 0.0),
    ("NIKON CORPORATION", "NIKON D3S", "Nikon", "Nikon AF-S Zoom-Nikkor 24-70mm f/2.8G ED", 50, 8, 3, 2832, 4256, 0.0),
    ("NIKON CORPORATION", "NIKON D7000", "Nikon", "Nikon AF-S DX Nikkor 35mm f/1.8G", 35, 1.8, 2, 4928, 3264, 0.0),
    ("NIKON CORPORATION", "NIKON D7000", "Nikon", "Nikon AF-S Zoom-Nikkor 24-70mm f/2.8G ED", 30, 4, 5, 4928, 3264, 1.0),
    ("Canon", "Canon EOS 5D Mark II", "Canon", "Canon EF 24-70mm f/2.8L USM", 24, 2.8, 1000, 5616, 3744, 0.0),
    ("Canon", "Canon EOS 5D Mark II", "Canon", "Canon EF 24-70mm f/2.8L USM", 45, 5.6, 1000, 3744, 5616, 1.0),
    ("Canon", "Canon EOS 5D Mark II", "Canon", "Canon EF 70-200mm f/4L IS USM", 100, 4, 10, 5616, 3744, 0.0),
    ("Canon", "Canon EOS 5D Mark II", "Canon", "Canon EF 70-200mm f/2.8L IS USM", 135, 2.8, 1000, 5616, 3744, 0.0),
    ("Canon", "Canon EOS 7D", "Canon", "Canon EF 35mm f/2 IS USM", 35, 2, 1000, 5184, 3456, 1.0),
    ("Canon", "Canon EOS 7D", "Canon", "Canon EF 24mm f/2.8", 24, 8, 1000, 5184, 3456, 0.0),
    ("Canon", "Canon PowerShot G12", "Canon", "Canon PowerShot G12 & compatibles (Standard)", 10, 4, 1000, 3648, 2736, 0.0),
    ("Canon", "Canon PowerShot G12", "Canon", "Canon PowerShot G12 & compatibles (Standard)", 20, 5.6, 1000, 3648, 2736, 1.0),
    ("OLYMPUS IMAGING CORP.", "E-M5", "Olympus", "Olympus Zuiko Digital ED 14-42mm f/3.5-5.6", 14, 3.5, 1000, 4608, 3456, 0.0),
    ("OLYMPUS IMAGING CORP.", "E-M5", "Olympus", "Olympus Zuiko Digital ED 14-42mm f/3.5-5.6", 25, 8, 2, 4608, 3456, 1.0),
    ("OLYMPUS IMAGING CORP.", "E-M5", "Olympus", "Olympus Zuiko Digital ED 9-18mm f/4.0-5.6", 9, 4, 1000, 4608, 3456, 0.0),
    ("OLYMPUS IMAGING CORP.", "E-M5", "Olympus", "OLYMPUS M.30mm F3.5 Macro", 30, 3.5, 0.5, 4608, 3456, 1.0),
    ("Panasonic", "DMC-GH4", "Leica", "Leica DG 12-60mm f/2.8-4.0", 12, 2.8, 1000, 4608, 3456, 0.0),
    ("Panasonic", "DMC-GH4", "Leica", "Leica DG 12-60mm f/2.8-4.0", 40, 4, 1000, 3456, 4608, 0.0),
    ("Sony", "ILCE-7M2", "Zeiss", "Carl Zeiss Distagon T* 2,8/21 ZF.2", 21, 2.8, 1000, 6000, 4000, 0.0),
    ("Pentax", "Pentax K-5", "Tamron", "Tamron 35-70mm f/3.5 CF Macro", 50, 5.6, 1000, 4928, 3264, 0.0),
    ("Pentax", "Pentax K-5", "Samyang", "Samyang 500mm f/6.3 MC IF Mirror Lens", 500, 6.3, 1000, 4928, 3264, 1.0),
    ("Sony", "ILCE-6000", "Sigma", "Sigma 70mm f/2.8 EX DG Macro", 70, 2.8, 1000, 6000, 4000, 1.0),
    ("Canon", "Canon EOS 600D", "Canon", "Canon EF 100-400mm f/4.5-5.6L IS II USM", 200, 5.6, 1000, 5184, 3456, 1.0),
    ("Canon", "Canon EOS 600D", "Canon", "Canon EF-S 18-55mm f/3.5-5.6 IS", 18, 3.5, 1000, 5184, 3456, 0.0),
    ("NIKON CORPORATION", "NIKON D3S", "Nikon", "Nikon AF-S Zoom-Nikkor 14-24mm f/2.8G ED 146", 14, 2.8, 1000, 6016, 4016, 0.0),
]


def xml_lens(db_dir, maker, model):
    """The <lens> element of the database for maker and model (its aspect ratio and centre)."""
    for path in sorted(glob.glob(os.path.join(db_dir, "*.xml"))):
        for lens in ET.parse(path).getroot().iter("lens"):
            if (lens.findtext("model") or "").strip() == model and (lens.findtext("maker") or "").strip() == maker:
                return lens
    return None


def aspect_and_center(element):
    aspect, cx, cy = 1.5, 0.0, 0.0  # lensfun's defaults
    if element is not None:
        text = element.findtext("aspect-ratio")
        if text:
            if ":" in text:
                a, b = text.split(":")
                aspect = float(a) / float(b)
            else:
                aspect = float(text)
        center = element.find("center")
        if center is not None:
            cx, cy = float(center.get("x", 0)), float(center.get("y", 0))
    return max(aspect, 1 / aspect), cx, cy


def grid(width, height):
    xs = sorted({0, 1, width // 7, width // 3, width // 2, 2 * width // 3, width - 2, width - 1})
    ys = sorted({0, height // 5, height // 2, 3 * height // 4, height - 1})
    return [(x, y) for y in ys for x in xs]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", default="/usr/share/lensfun/version_1")
    args = parser.parse_args()
    db = lensfunpy.Database(sorted(glob.glob(os.path.join(args.db, "*.xml"))), load_common=False, load_bundled=False)
    out = []
    for (cmaker, cmodel, lmaker, lmodel, focal, aperture, distance, width, height, scale) in CASES:
        cams = db.find_cameras(cmaker, cmodel)
        if not cams:
            sys.exit(f"lens_reference: no camera {cmaker} {cmodel} in the database")
        cam = cams[0]
        lens = next((l for l in db.find_lenses(cam, None, None, loose_search=True) if l.model == lmodel and l.maker == lmaker), None)
        if lens is None:
            lens = next((l for l in db.lenses if l.model == lmodel and l.maker == lmaker), None)
        if lens is None:
            sys.exit(f"lens_reference: no lens {lmaker} {lmodel} in the database")
        aspect, cx, cy = aspect_and_center(xml_lens(args.db, lmaker, lmodel))
        case = {"camera": f"{cmaker} {cmodel}", "lens": lmodel, "focal": focal, "aperture": aperture, "distance": distance,
                "width": width, "height": height, "scale": scale, "cameraCrop": cam.crop_factor,
                "lensCrop": lens.crop_factor, "aspectRatio": aspect, "centerX": cx, "centerY": cy}
        d = lens.interpolate_distortion(focal)
        if d is not None:
            case["distortion"] = {"model": d.model.name.lower(), "terms": [float(t) for t in d.terms]}
        t = lens.interpolate_tca(focal)
        if t is not None:
            case["tca"] = {"model": t.model.name.lower(), "terms": [float(v) for v in t.terms]}
        v = lens.interpolate_vignetting(focal, aperture, distance)
        if v is not None:
            case["vignetting"] = {"model": v.model.name.lower(), "terms": [float(k) for k in v.terms]}
        flags = lensfunpy.ModifyFlags.DISTORTION | lensfunpy.ModifyFlags.TCA | lensfunpy.ModifyFlags.VIGNETTING
        flags |= lensfunpy.ModifyFlags.SCALE
        mod = lensfunpy.Modifier(lens, cam.crop_factor, width, height)
        mod.initialize(focal, aperture, distance, scale=scale, pixel_format=np.float32, flags=flags)
        # The vignetting gains of the whole image at once: lensfun's colour callbacks walk rows
        # from their start position; an image of ones comes back as the gains.
        vmod = lensfunpy.Modifier(lens, cam.crop_factor, width, height)
        vmod.initialize(focal, aperture, distance, scale=1.0, pixel_format=np.float32, flags=lensfunpy.ModifyFlags.VIGNETTING)
        gains = np.ones((height, width, 3), dtype=np.float32)
        if not vmod.apply_color_modification(gains):
            gains = None
        points = []
        for (x, y) in grid(width, height):
            p = mod.apply_subpixel_geometry_distortion(float(x), float(y), 1, 1)
            entry = {"x": x, "y": y}
            if p is not None:
                entry["position"] = [float(v) for v in p[0, 0].reshape(-1)]  # red x, y, green x, y, blue x, y
            if gains is not None:
                entry["gain"] = float(gains[y, x, 1])
            points.append(entry)
        case["points"] = points
        out.append(case)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
