#!/usr/bin/env python3
"""Bayer DNGs carrying opcode lists (a lens's own corrections), for recipe's DNG opcode tests.

Usage: make_opcode_dng.py OUTPUT.dng [--size 64x48] [--cfa RGGB] [--black 512] [--white 16383]
       [--level 0.25 | --ramp | --waves PERIOD] [--active-area T,L,B,R]
       [--warp KR0,KR1,KR2,KR3,KT0,KT1[;...]] [--warp-centre CX,CY] [--warp-flags 1]
       [--vignette K0,K1,K2,K3,K4] [--vignette-centre CX,CY] [--vignette-first]
       [--gain-map VxH] [--gain-map-phases] [--gain-map-amount 0.8]
       [--extra LIST:ID:FLAGS:NBYTES ...] [--list2-bytes FILE] [--list3-bytes FILE]
       [--expect-mosaic FILE.u16]

The opcode lists are serialised as the Adobe DNG Specification 1.4, chapter 7 "Opcode List
Processing" lays them out, big-endian whatever the file's byte order (this file is little-endian):
a LONG count of opcodes, then per opcode LONG id, LONG DNG version (1.3.0.0 = 0x01030000), LONG
flags (bit 0 optional, bit 1 skippable for previews), LONG byte count, and the parameters:

- WarpRectilinear (id 1, OpcodeList3): LONG N planes; per plane DOUBLE kr0 kr1 kr2 kr3 kt0 kt1;
  DOUBLE cx cy (the optical centre as fractions of the image).
- FixVignetteRadial (id 3, OpcodeList3): DOUBLE k0 k1 k2 k3 k4 cx cy.
- GainMap (id 9, OpcodeList2): LONG Top Left Bottom Right Plane Planes RowPitch ColPitch,
  LONG MapPointsV MapPointsH, DOUBLE MapSpacingV MapSpacingH MapOriginV MapOriginH, LONG
  MapPlanes, then MapPointsV x MapPointsH x MapPlanes FLOAT gains (row by row, each point's
  planes together). The map covers the image from origin 0 with spacing 1/(points - 1), and its
  gains are 1 + amount * r^2 (r = 1 at a corner) times a small per-phase factor, so that every
  point and every Bayer position differs. --gain-map-phases writes four maps, one per 2x2 Bayer
  position (Top/Left 0 or 1, pitch 2), as phones do; without it, one map over the whole image.

Flags default to 1 (optional) for the lens opcodes, as cameras write them (--warp-flags changes
the warp's). --extra adds an opcode with no meaning to list 1, 2 or 3 (NBYTES zero bytes of
parameters), e.g. `--extra 3:99:0:8` an unknown, non-optional one. --list2-bytes/--list3-bytes
write a file's bytes as the list instead (for malformed lists).

The mosaic: a flat field at --level of the white level above black (default), or --ramp, a
gradient of levels across the image, or --waves, a grey pattern of blobs PERIOD pixels apart
(levels 0.04 to 0.24: something for a warp to move, with room for a vignetting gain below white); CFA and levels as make_bayer_dng.py's camera. With
--active-area the stored image is larger and its ActiveArea tag names the part the opcodes
(and a reader's visible image) apply to. --expect-mosaic writes what a reader that applies the
GainMaps (bilinear between map points, pixel (row, col) at ((row + 0.5)/H, (col + 0.5)/W) of the
active area) should hold: uint16 little-endian, the active area row by row,
black + (value - black) * gain clipped to [0, white] and rounded half up.

Licences: numpy (BSD-3-Clause), pidng (MIT).
"""
import argparse
import os
import struct
import sys

import numpy as np
from pidng.core import RAW2DNG
from pidng.defs import CFAPattern, CalibrationIlluminant, PhotometricInterpretation
from pidng.dng import DNGTags, Tag, Type

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bayer_dng import COLOR_MATRIX_1, NEUTRAL, rational  # noqa: E402  (the same test camera)

VERSION_1_3 = 0x01030000


def opcode(op_id, flags, params):
    return struct.pack(">IIII", op_id, VERSION_1_3, flags, len(params)) + params


def opcode_list(opcodes):
    return struct.pack(">I", len(opcodes)) + b"".join(opcodes)


def warp_rectilinear(planes, cx, cy, flags):
    params = struct.pack(">I", len(planes)) + b"".join(struct.pack(">6d", *p) for p in planes)
    return opcode(1, flags, params + struct.pack(">2d", cx, cy))


def fix_vignette_radial(k, cx, cy, flags=1):
    return opcode(3, flags, struct.pack(">7d", *k, cx, cy))


def gain_map(area, plane, planes, pitch, points, spacing, origin, gains, flags=1):
    """`gains` has shape (pointsV, pointsH, mapPlanes), float32."""
    head = struct.pack(">4i4I", *area, plane, planes, *pitch)
    head += struct.pack(">2I4dI", *points, *spacing, *origin, gains.shape[2])
    return opcode(9, flags, head + gains.astype(">f4").tobytes())


def phase_gains(points, amount, phase):
    """1 + amount * r^2 at the grid points (r = 1 at a corner), times 1 + 0.03 * phase."""
    v = np.linspace(0, 1, points[0])[:, None] - 0.5
    h = np.linspace(0, 1, points[1])[None, :] - 0.5
    r2 = (v * v + h * h) / 0.5
    return ((1 + amount * r2) * (1 + 0.03 * phase)).astype(np.float32)[..., None]


def gain_at(maps, row, col, height, width):
    """The gain of each map at pixel (row, col): the specification's bilinear interpolation."""
    out = 1.0
    for m in maps:
        (t, l, b, r), (rp, cp) = m["area"], m["pitch"]
        if b > t and r > l:
            if not (t <= row < b and l <= col < r and (row - t) % rp == 0 and (col - l) % cp == 0):
                continue
        g = m["gains"][..., 0].astype(np.float64)
        fv = ((row + 0.5) / height - m["origin"][0]) / m["spacing"][0]
        fh = ((col + 0.5) / width - m["origin"][1]) / m["spacing"][1]
        fv = min(max(fv, 0.0), g.shape[0] - 1)
        fh = min(max(fh, 0.0), g.shape[1] - 1)
        i, j = min(int(fv), g.shape[0] - 2) if g.shape[0] > 1 else 0, min(int(fh), g.shape[1] - 2) if g.shape[1] > 1 else 0
        a, c = fv - i, fh - j
        i1, j1 = min(i + 1, g.shape[0] - 1), min(j + 1, g.shape[1] - 1)
        out *= (1 - a) * ((1 - c) * g[i, j] + c * g[i, j1]) + a * ((1 - c) * g[i1, j] + c * g[i1, j1])
    return out


def floats(text, n=None):
    v = [float(x) for x in text.split(",")]
    if n is not None and len(v) != n:
        sys.exit(f"expected {n} numbers: {text}")
    return v


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("output")
    p.add_argument("--size", default="64x48")
    p.add_argument("--cfa", default="RGGB", choices=["RGGB", "BGGR", "GRBG", "GBRG"])
    p.add_argument("--black", type=int, default=512)
    p.add_argument("--white", type=int, default=16383)
    p.add_argument("--level", type=float, default=0.25)
    p.add_argument("--ramp", action="store_true")
    p.add_argument("--waves", type=float)
    p.add_argument("--active-area")
    p.add_argument("--warp")
    p.add_argument("--warp-centre", default="0.5,0.5")
    p.add_argument("--warp-flags", type=int, default=1)
    p.add_argument("--vignette")
    p.add_argument("--vignette-centre", default="0.5,0.5")
    p.add_argument("--vignette-first", action="store_true")
    p.add_argument("--gain-map")
    p.add_argument("--gain-map-phases", action="store_true")
    p.add_argument("--gain-map-amount", type=float, default=0.8)
    p.add_argument("--extra", action="append", default=[])
    p.add_argument("--list2-bytes")
    p.add_argument("--list3-bytes")
    p.add_argument("--expect-mosaic")
    a = p.parse_args()

    w, h = map(int, a.size.split("x"))
    top, left, bottom, right = map(int, a.active_area.split(",")) if a.active_area else (0, 0, h, w)
    aw, ah = right - left, bottom - top
    lists = {1: [], 2: [], 3: []}

    maps = []
    if a.gain_map:
        points = tuple(map(int, a.gain_map.split("x")))
        spacing = tuple(1.0 / (n - 1) if n > 1 else 1.0 for n in points)
        phases = [(0, 0), (0, 1), (1, 0), (1, 1)] if a.gain_map_phases else [None]
        for k, phase in enumerate(phases):
            area, pitch = ((phase[0], phase[1], ah, aw), (2, 2)) if phase else ((0, 0, ah, aw), (1, 1))
            m = dict(area=area, pitch=pitch, spacing=spacing, origin=(0.0, 0.0),
                     gains=phase_gains(points, a.gain_map_amount, k))
            maps.append(m)
            lists[2].append(gain_map(area, 0, 1, pitch, points, spacing, (0.0, 0.0), m["gains"]))
    lens = []
    if a.warp:
        planes = [floats(s, 6) for s in a.warp.split(";")]
        lens.append(warp_rectilinear(planes, *floats(a.warp_centre, 2), a.warp_flags))
    if a.vignette:
        vignette = fix_vignette_radial(floats(a.vignette, 5), *floats(a.vignette_centre, 2))
        lens.insert(0, vignette) if a.vignette_first else lens.append(vignette)
    lists[3] += lens
    for extra in a.extra:
        number, op_id, flags, nbytes = map(int, extra.split(":"))
        lists[number].append(opcode(op_id, flags, bytes(nbytes)))

    # The mosaic: levels above black as fractions of white - black, stored over the whole frame.
    if a.ramp:
        level = np.linspace(0.05, 0.6, w)[None, :] * np.linspace(0.6, 1.0, h)[:, None]
    elif a.waves:
        across = 0.5 + 0.5 * np.sin(2 * np.pi * np.arange(w) / a.waves)
        down = 0.5 + 0.5 * np.sin(2 * np.pi * np.arange(h) / a.waves)
        level = 0.04 + 0.2 * down[:, None] * across[None, :]
    else:
        level = np.full((h, w), a.level)
    mosaic = np.rint(a.black + level * (a.white - a.black)).astype(np.uint16)

    t = DNGTags()
    pattern = getattr(CFAPattern, a.cfa)
    for tag, value in [(Tag.ImageWidth, w), (Tag.ImageLength, h), (Tag.RowsPerStrip, h), (Tag.BitsPerSample, 16),
                       (Tag.SamplesPerPixel, 1), (Tag.PlanarConfiguration, 1),
                       (Tag.PhotometricInterpretation, PhotometricInterpretation.Color_Filter_Array),
                       (Tag.CFARepeatPatternDim, [2, 2]), (Tag.CFAPattern, pattern), (Tag.CFAPlaneColor, [0, 1, 2]),
                       (Tag.CFALayout, 1), (Tag.BlackLevelRepeatDim, [1, 1]), (Tag.BlackLevel, a.black),
                       (Tag.WhiteLevel, a.white), (Tag.Make, "Recipe Test"), (Tag.Model, "Opcode Camera"),
                       (Tag.UniqueCameraModel, "Recipe Test Opcode Camera"), (Tag.Orientation, 1),
                       (Tag.ColorMatrix1, rational(COLOR_MATRIX_1.ravel())),
                       (Tag.CalibrationIlluminant1, CalibrationIlluminant.D65), (Tag.AsShotNeutral, rational(NEUTRAL))]:
        t.set(tag, value)
    if a.active_area:
        t.set(Tag.ActiveArea, [top, left, bottom, right])
    for number, tag in [(1, Tag.OpcodeList1), (2, Tag.OpcodeList2), (3, (51022, Type.Undefined))]:
        given = {2: a.list2_bytes, 3: a.list3_bytes}.get(number)
        data = open(given, "rb").read() if given else (opcode_list(lists[number]) if lists[number] else None)
        if data is not None:
            t.set(tag, list(data))

    Tag.TileOffsets, Tag.TileByteCounts = Tag.StripOffsets, Tag.StripByteCounts  # one strip, as make_bayer_dng.py
    writer = RAW2DNG()
    writer.options(t, path="", compress=False)
    with open(a.output, "wb") as f:
        f.write(writer.convert(mosaic))

    if a.expect_mosaic:
        visible = mosaic[top:bottom, left:right].astype(np.float64)
        out = np.empty_like(visible)
        for row in range(ah):
            for col in range(aw):
                v = a.black + (visible[row, col] - a.black) * gain_at(maps, row, col, ah, aw)
                out[row, col] = np.floor(min(max(v, 0.0), a.white) + 0.5)
        out.astype("<u2").tofile(a.expect_mosaic)
    print(f"wrote {a.output}: {w}x{h} {a.cfa}, OpcodeList1/2/3 with {len(lists[1])}/{len(lists[2])}/{len(lists[3])} opcodes")


if __name__ == "__main__":
    main()
