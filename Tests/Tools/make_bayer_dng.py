#!/usr/bin/env python3
"""Bayer-mosaic DNG test fixtures made from real sRGB photos, for recipe's camera-raw tests.

Usage: make_bayer_dng.py INPUT.(png|jpg) OUTPUT.dng [--cfa RGGB|BGGR|GRBG|GBRG]
       [--orientation 1|3|6|8] [--black 512] [--white 16383] [--bits 10|12|14|16]
       [--make "Recipe Test"] [--model "Bayer Camera"] [--crop WxH+X+Y]
       [--exposure-time N/D] [--baseline-exposure N/D] [--gain EV]
       [--noise GAIN,FLOOR [--seed N]] [--iso N]

The DNG is built so that the input photo is exactly what an ideal raw develop (as-shot white
balance, ColorMatrix1 colour, sRGB output, no brightening) gives back; a real demosaic only
loses what the mosaic threw away.

- Input: 8/16-bit PNG (pypng; grey repeated to RGB, alpha dropped) or JPEG (`djpeg -pnm`).
  Width and height are made even (a last odd row/column is dropped), also after --crop.
  LibRaw (dcraw_emu) refuses raws under 22 pixels a side: keep reference fixtures at least 22x22.
- sRGB is decoded with the exact IEC 61966-2-1 curve (0.04045 / 12.92 / 2.4) to linear sRGB
  (D65), in float64.
- The fixed camera: camera = M_CAM_RGB . linear_sRGB with M_CAM_RGB = diag(NEUTRAL) . M0, where
  the rows of M0 sum to 1, so sRGB white (1,1,1) maps to NEUTRAL = (0.55, 1.0, 0.72) (green
  largest, as in real sensors). Every entry is non-negative, so every in-gamut sRGB colour maps
  into [0, NEUTRAL] <= 1: no clipping and no negative values in the mosaic.
- Tags (DNG 1.4): ColorMatrix1 = M_CAM_RGB . inv(M_SRGB_XYZ) (XYZ D65 -> camera), with
  CalibrationIlluminant1 = 21 (D65); AsShotNeutral = NEUTRAL; BlackLevel (repeat dim 1x1) and
  WhiteLevel; CFARepeatPatternDim 2x2 and CFAPattern; PhotometricInterpretation 32803 (CFA);
  Make, Model, UniqueCameraModel ("Make Model"), Orientation, BaselineExposure 0; the mosaic as
  one uncompressed strip (RowsPerStrip = height), little-endian; 10, 12 and 14 bits packed most
  significant bit first, each row from a byte boundary (as DNG and LibRaw's reader have it). EXIF (ExposureTime 1/125,
  FNumber 5.6, ISO 200, FocalLength 50, DateTimeOriginal, ExifVersion 0230) goes in an EXIF IFD.
- Mosaic value = black + round(camera * (white - black)), the CFA's channel per pixel, uint16.
- --gain EV overexposes: the light reaching the sensor is the photo's times 2^EV, and each
  channel clips at the white level as a sensor saturates (camera = min(1, 2^EV * camera)), so
  the photo's bright parts become real clipped highlights (white in the photo: every channel
  clipped; a bright colour: some). The develop no longer gives the photo back where it clipped.
- --noise GAIN,FLOOR adds a sensor's noise to the mosaic, Poisson-Gaussian in raw units above
  black: the signal s (DN) is read as Poisson(s / GAIN) electrons times GAIN, plus Gaussian read
  noise of variance FLOOR, so a sample varies with variance GAIN*s + FLOOR; rounded and clipped
  to 0...white (values below black stay, as a real sensor's do). Seeded (--seed, default 1): the
  same file every run. The denoise tests use three strengths of a full-frame 14-bit sensor
  (black 512, white 16383; 50,000 electrons full well at ISO 100, so 0.33 DN per electron there;
  read noise about 2.5, 2 and 1.8 electrons): ISO 800 GAIN 2.1 FLOOR 28, ISO 3200 GAIN 8.5
  FLOOR 290, ISO 12800 GAIN 34 FLOOR 3700. --iso writes the EXIF ISO (default 200).
- Orientation says how to show the stored pixels, so the stored mosaic is the INVERSE of that
  transform applied to the photo: orientation 6 stores the photo rotated 90 deg counter-clockwise
  (a viewer rotates it back clockwise), 8 stores it rotated clockwise, 3 rotated 180 deg. A
  reader that applies the orientation (dcraw_emu does by default) shows the input photo again.

pidng quirks worked around: it always writes DNGVersion 1.4 / DNGBackwardVersion 1.0 and
Software "PiDNG" itself (setting them again would duplicate the tags); it writes the image as one
tile (TileOffsets/TileByteCounts, no TileWidth/TileLength), which we turn into one strip by
pointing its Tag.TileOffsets/TileByteCounts at the strip tags (LibRaw 0.20 reads uncompressed DNG
as strips and misreads a tile wider than the image); its EXIF-IFD tag type cannot be built
(str + bytes bug), so a LONG tag is given pidng's sub-IFD writer by hand.

Licences: numpy (BSD-3-Clause), pidng (MIT), pypng (MIT); djpeg is libjpeg-turbo's tool, run
as a subprocess.
"""
import argparse
import re
import subprocess
import sys

import numpy as np
import png
from pidng.core import RAW2DNG
from pidng.defs import CFAPattern, CalibrationIlluminant, PhotometricInterpretation
from pidng.dng import DNGTags, Tag, Type, dngIFD, dngTag

NEUTRAL = np.array([0.55, 1.0, 0.72])
M0 = np.array([[0.60, 0.32, 0.08],
               [0.18, 0.72, 0.10],
               [0.06, 0.24, 0.70]])
M_CAM_RGB = NEUTRAL[:, None] * M0
M_SRGB_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],   # linear sRGB -> XYZ (D65)
                       [0.2126729, 0.7151522, 0.0721750],
                       [0.0193339, 0.1191920, 0.9503041]])
COLOR_MATRIX_1 = M_CAM_RGB @ np.linalg.inv(M_SRGB_XYZ)    # XYZ (D65) -> camera
DEN = 1000000                                              # (S)RATIONAL denominator


def read_image(path):
    """RGB float64 in [0, 1], shape (h, w, 3)."""
    with open(path, "rb") as f:
        magic = f.read(8)
    if magic.startswith(b"\x89PNG"):
        w, h, rows, info = png.Reader(filename=path).asDirect()
        a = np.vstack([np.asarray(r, dtype=np.float64) for r in rows]).reshape(h, w, info["planes"])
        a /= (1 << info["bitdepth"]) - 1
    elif magic.startswith(b"\xff\xd8"):
        a = read_pnm(subprocess.run(["djpeg", "-pnm", path], check=True, capture_output=True).stdout)
    else:
        sys.exit(f"{path}: not a PNG or JPEG")
    a = a[..., :1] if a.shape[2] in (1, 2) else a[..., :3]
    return np.repeat(a, 3, axis=2) if a.shape[2] == 1 else a


def read_pnm(data):
    m = re.match(rb"(P[56])\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    kind, w, h, maxval = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
    planes = 3 if kind == b"P6" else 1
    a = np.frombuffer(data, dtype=">u2" if maxval > 255 else np.uint8, count=w * h * planes,
                      offset=m.end())
    return a.reshape(h, w, planes).astype(np.float64) / maxval


def srgb_to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def rational(values):
    return [[int(round(v * DEN)), DEN] for v in values]


def preview_jpeg(img, orientation, long_edge):
    """The photo in the DNG's stored orientation, box-filtered down to about `long_edge` (a
    camera's preview is rendered and smaller), as baseline JPEG bytes (cjpeg -quality 90)."""
    stored = {1: img, 3: np.rot90(img, 2), 6: np.rot90(img, 1), 8: np.rot90(img, -1)}[orientation]
    f = max(1, int(np.ceil(max(stored.shape[:2]) / long_edge)))
    h, w = stored.shape[0] // f * f, stored.shape[1] // f * f
    small = stored[:h, :w].reshape(h // f, f, w // f, f, 3).mean(axis=(1, 3))
    ppm = b"P6 %d %d 255\n" % (w // f, h // f) + np.clip(np.rint(small * 255), 0, 255).astype(np.uint8).tobytes()
    return subprocess.run(["cjpeg", "-quality", "90"], input=ppm, capture_output=True, check=True).stdout, w // f, h // f


def pack_rows(mosaic, bits):
    """Samples of `bits` bits packed most significant bit first, each row padded to a whole byte
    (pidng's own pack14 is not a bit packing, and its pack12 masks with 10 bits)."""
    h, w = mosaic.shape
    v = mosaic.astype(np.uint16)
    planes = ((v[..., None] >> np.arange(bits - 1, -1, -1, dtype=np.uint16)) & 1).astype(np.uint8)
    return np.packbits(planes.reshape(h, w * bits), axis=1)


def point_preview_at(dng, offset):
    """Sets the StripOffsets of the preview sub-IFD (IFD0's SubIFDs entry) to `offset`."""
    import struct
    def entries(ifd):
        (n,) = struct.unpack_from("<H", dng, ifd)
        for i in range(n):
            e = ifd + 2 + 12 * i
            yield e, struct.unpack_from("<H", dng, e)[0]
    (ifd0,) = struct.unpack_from("<I", dng, 4)
    sub = next(struct.unpack_from("<I", dng, e + 8)[0] for e, tag in entries(ifd0) if tag == 330)
    strip = next(e for e, tag in entries(sub) if tag == 273)
    struct.pack_into("<I", dng, strip + 8, offset)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--cfa", default="RGGB", choices=["RGGB", "BGGR", "GRBG", "GBRG"])
    p.add_argument("--orientation", type=int, default=1, choices=[1, 3, 6, 8])
    p.add_argument("--black", type=int, default=512)
    p.add_argument("--white", type=int, default=16383)
    p.add_argument("--bits", type=int, default=16, choices=[10, 12, 14, 16],
                   help="bits a sample: 16 as shorts, the others packed (give --white below 2**bits)")
    p.add_argument("--make", default="Recipe Test")
    p.add_argument("--model", default="Bayer Camera")
    p.add_argument("--crop", help="WxH+X+Y sub-rectangle of the photo")
    p.add_argument("--exposure-time", default="1/125", help="EXIF ExposureTime as N/D seconds")
    p.add_argument("--baseline-exposure", default="0/1", help="BaselineExposure as N/D EV (signed)")
    p.add_argument("--gain", type=float, default=0.0, metavar="EV",
                   help="overexpose by EV stops: the sensor's channels clip at the white level")
    p.add_argument("--noise", metavar="GAIN,FLOOR", help="Poisson-Gaussian sensor noise: variance GAIN*signal + FLOOR (DN)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--iso", type=int, default=200)
    p.add_argument("--preview", type=int, metavar="PX",
                   help="embed a JPEG preview of the photo (stored orientation, long edge PX, cjpeg -quality 90) "
                        "as IFD0's JPEGInterchangeFormat, the way LibRaw finds a camera's preview")
    a = p.parse_args()
    if not 0 <= a.black < a.white < (1 << a.bits):
        sys.exit("need 0 <= black < white < 2**bits")

    img = read_image(a.input)
    if a.crop:
        m = re.fullmatch(r"(\d+)x(\d+)\+(\d+)\+(\d+)", a.crop) or sys.exit("--crop WxH+X+Y")
        w, h, x, y = map(int, m.groups())
        img = img[y:y + h, x:x + w]
    img = img[:img.shape[0] // 2 * 2, :img.shape[1] // 2 * 2]
    if img.size == 0:
        sys.exit("empty image")

    cam = srgb_to_linear(img) @ M_CAM_RGB.T
    if a.gain:
        cam = np.minimum(1.0, cam * 2.0 ** a.gain)
    stored = {1: cam, 3: np.rot90(cam, 2), 6: np.rot90(cam, 1), 8: np.rot90(cam, -1)}[a.orientation]
    h, w = stored.shape[:2]

    pattern = getattr(CFAPattern, a.cfa)            # 0 = R, 1 = G, 2 = B, row-major 2x2
    chan = np.tile(np.array(pattern).reshape(2, 2), (h // 2, w // 2))
    value = np.take_along_axis(stored, chan[..., None], axis=2)[..., 0]
    signal = value * (a.white - a.black)
    if a.noise:
        gain, floor = (float(v) for v in a.noise.split(","))
        rng = np.random.default_rng(a.seed)
        signal = rng.poisson(np.maximum(signal, 0) / gain) * gain + rng.normal(0, np.sqrt(floor), signal.shape)
    mosaic = np.clip(a.black + np.rint(signal), 0, a.white)

    t = DNGTags()
    t.set(Tag.ImageWidth, w)
    t.set(Tag.ImageLength, h)
    t.set(Tag.RowsPerStrip, h)
    t.set(Tag.BitsPerSample, a.bits)
    t.set(Tag.SamplesPerPixel, 1)
    t.set(Tag.PlanarConfiguration, 1)
    t.set(Tag.PhotometricInterpretation, PhotometricInterpretation.Color_Filter_Array)
    t.set(Tag.CFARepeatPatternDim, [2, 2])
    t.set(Tag.CFAPattern, pattern)
    t.set(Tag.CFAPlaneColor, [0, 1, 2])
    t.set(Tag.CFALayout, 1)
    t.set(Tag.BlackLevelRepeatDim, [1, 1])
    t.set(Tag.BlackLevel, a.black)
    t.set(Tag.WhiteLevel, a.white)
    t.set(Tag.Make, a.make)
    t.set(Tag.Model, a.model)
    t.set(Tag.UniqueCameraModel, f"{a.make} {a.model}")
    t.set(Tag.Orientation, a.orientation)
    t.set(Tag.ColorMatrix1, rational(COLOR_MATRIX_1.ravel()))
    t.set(Tag.CalibrationIlluminant1, CalibrationIlluminant.D65)
    t.set(Tag.AsShotNeutral, rational(NEUTRAL))
    t.set(Tag.BaselineExposure, [[int(v) for v in a.baseline_exposure.split("/")]])
    t.set(Tag.DateTime, "2020:06:15 12:00:00")

    exif = dngIFD()
    for tag, value in [(Tag.ExposureTime, [[int(v) for v in a.exposure_time.split("/")]]), (Tag.FNumber, [[56, 10]]),
                       (Tag.PhotographicSensitivity, [a.iso]), (Tag.ExifVersion, list(b"0230")),
                       (Tag.DateTimeOriginal, "2020:06:15 12:00:00"),
                       (Tag.FocalLength, [[50, 1]])]:
        exif.tags.append(dngTag(tag, value))
    t.set((Tag.EXIF_IFD[0], Type.Long), [0])        # pidng's Type.IFD tag cannot be built...
    t.get((Tag.EXIF_IFD[0], Type.Long)).subIFD = exif  # ...but its sub-IFD writer works

    if a.preview:
        # As cameras write it: a sub-IFD (NewSubFileType 1) holding one JPEG strip, 8-bit YCbCr,
        # compression 7; LibRaw takes the largest 8-bit IFD as the embedded preview.
        jpeg, pw, ph = preview_jpeg(img, a.orientation, a.preview)
        prev = dngIFD()
        for tag, kind, value in [(254, Type.Long, [1]), (256, Type.Long, [pw]), (257, Type.Long, [ph]),
                                 (258, Type.Short, [8, 8, 8]), (259, Type.Short, [7]), (262, Type.Short, [6]),
                                 (273, Type.Long, [0]), (277, Type.Short, [3]), (278, Type.Long, [ph]),
                                 (279, Type.Long, [len(jpeg)])]:
            prev.tags.append(dngTag((tag, kind), value))
        t.set((330, Type.Long), [0])
        t.get((330, Type.Long)).subIFD = prev

    Tag.TileOffsets, Tag.TileByteCounts = Tag.StripOffsets, Tag.StripByteCounts  # one strip
    if a.bits != 16:
        import pidng.core
        packer = lambda rows: pack_rows(rows, a.bits)  # noqa: E731
        pidng.core.pack10 = pidng.core.pack12 = pidng.core.pack14 = packer
    writer = RAW2DNG()
    writer.options(t, path="", compress=False)
    data = bytearray(writer.convert(mosaic.astype(np.uint16)))
    if a.preview:
        point_preview_at(data, len(data))
        data += jpeg
    with open(a.output, "wb") as f:
        f.write(data)
    shown = f" (shown {h}x{w})" if a.orientation in (6, 8) else ""
    print(f"wrote {a.output}: {w}x{h}{shown} {a.bits}-bit {a.cfa} black {a.black} white {a.white} "
          f"orientation {a.orientation} AsShotNeutral {' '.join(f'{v:g}' for v in NEUTRAL)}")


if __name__ == "__main__":
    main()
