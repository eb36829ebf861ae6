#!/usr/bin/env python3
"""Compare two same-size RGB images, both taken as sRGB: how far is a develop from the original.

Usage: image_compare.py A B [--crop-border N] [--json]
       image_compare.py --self-test

Prints the mean and max absolute difference in 8-bit codes over all channels (16-bit images are
scaled to 0-255 floats first), PSNR in dB (peak 255) and the mean and 95th percentile CIEDE2000.
--json prints {"mad", "max", "psnr", "de_mean", "de_p95"} instead (psnr is null for identical
images: JSON has no infinity). --crop-border N ignores N pixels at each edge (demosaic borders).

Reads PNG (pypng: 8/16-bit, grey repeated to RGB, alpha dropped), binary PPM/PGM (P5/P6, 8-bit or
16-bit big-endian, as dcraw_emu writes) and JPEG (decoded by `djpeg -pnm`). No TIFF.

Colour difference: sRGB (exact IEC 61966-2-1 curve) -> linear -> XYZ (D65, the sRGB matrix) ->
CIELAB with the D65 white of that matrix (Xn, Yn, Zn = 0.95047, 1, 1.08883), no chromatic
adaptation -> CIEDE2000 as written in Sharma, Wu and Dalal, "The CIEDE2000 color-difference
formula: implementation notes, supplementary test data, and mathematical observations", Color Res.
Appl. 30(1), 2005. --self-test checks it against all 34 pairs of that paper's test data (both
orders, to 1e-4) and exits 1 on a mismatch.

Licences: numpy (BSD-3-Clause), pypng (MIT); djpeg is libjpeg-turbo's tool, run as a subprocess.
"""
import argparse
import json
import re
import subprocess
import sys

import numpy as np
import png

M_SRGB_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                       [0.2126729, 0.7151522, 0.0721750],
                       [0.0193339, 0.1191920, 0.9503041]])
WHITE_D65 = M_SRGB_XYZ.sum(axis=1)

# Sharma, Wu, Dalal (2005), Table 1: L1 a1 b1, L2 a2 b2, dE00.
SHARMA = [
    (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
    (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
    (50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412),
    (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
    (50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
    (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
    (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
    (50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977),
    (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
    (50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000),
    (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
    (63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630),
    (61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731),
    (35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645),
    (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
    (36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146),
    (90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441),
    (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
    (6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377),
    (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
]


def read_image(path):
    """RGB float64 in 8-bit code units (0-255), shape (h, w, 3)."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"\x89PNG"):
        w, h, rows, info = png.Reader(bytes=data).asDirect()
        a = np.vstack([np.asarray(r, dtype=np.float64) for r in rows]).reshape(h, w, info["planes"])
        a *= 255.0 / ((1 << info["bitdepth"]) - 1)
    elif data.startswith(b"\xff\xd8"):
        a = read_pnm(subprocess.run(["djpeg", "-pnm", path], check=True, capture_output=True).stdout)
    elif data[:2] in (b"P5", b"P6"):
        a = read_pnm(data)
    else:
        sys.exit(f"{path}: not a PNG, PPM/PGM or JPEG")
    a = a[..., :1] if a.shape[2] in (1, 2) else a[..., :3]
    return np.repeat(a, 3, axis=2) if a.shape[2] == 1 else a


def read_pnm(data):
    header = rb"(P[56])(?:\s|#[^\n]*\n)+(\d+)(?:\s|#[^\n]*\n)+(\d+)(?:\s|#[^\n]*\n)+(\d+)\s"
    m = re.match(header, data)
    kind, w, h, maxval = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
    planes = 3 if kind == b"P6" else 1
    a = np.frombuffer(data, dtype=">u2" if maxval > 255 else np.uint8, count=w * h * planes,
                      offset=m.end())
    return a.reshape(h, w, planes).astype(np.float64) * (255.0 / maxval)


def srgb_to_lab(rgb255):
    v = np.clip(rgb255 / 255.0, 0.0, 1.0)
    lin = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    t = (lin @ M_SRGB_XYZ.T) / WHITE_D65
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]),
                     200 * (f[..., 1] - f[..., 2])], axis=-1)


def ciede2000(lab1, lab2):
    """CIEDE2000 (kL = kC = kH = 1) of Lab arrays (..., 3), vectorised."""
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, dtype=np.float64), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, dtype=np.float64), -1, 0)
    cbar7 = ((np.hypot(a1, b1) + np.hypot(a2, b2)) / 2) ** 7
    g = 0.5 * (1 - np.sqrt(cbar7 / (cbar7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    zero = c1p * c2p == 0

    dlp, dcp = L2 - L1, c2p - c1p
    dhp = h2p - h1p
    dhp = np.where(dhp > 180, dhp - 360, np.where(dhp < -180, dhp + 360, dhp))
    dhp = np.where(zero, 0.0, dhp)
    dHp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dhp / 2))

    lbar, cbarp = (L1 + L2) / 2, (c1p + c2p) / 2
    hsum = h1p + h2p
    hbar = np.where(np.abs(h1p - h2p) <= 180, hsum / 2,
                    np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2))
    hbar = np.where(zero, hsum, hbar)
    t = (1 - 0.17 * np.cos(np.radians(hbar - 30)) + 0.24 * np.cos(np.radians(2 * hbar))
         + 0.32 * np.cos(np.radians(3 * hbar + 6)) - 0.20 * np.cos(np.radians(4 * hbar - 63)))
    dtheta = 30 * np.exp(-(((hbar - 275) / 25) ** 2))
    rc = 2 * np.sqrt(cbarp ** 7 / (cbarp ** 7 + 25.0 ** 7))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / np.sqrt(20 + (lbar - 50) ** 2)
    sc = 1 + 0.045 * cbarp
    sh = 1 + 0.015 * cbarp * t
    rt = -np.sin(np.radians(2 * dtheta)) * rc
    return np.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (dHp / sh) ** 2
                   + rt * (dcp / sc) * (dHp / sh))


def self_test():
    d = np.array(SHARMA)
    want = d[:, 6]
    worst = 0.0
    for got in (ciede2000(d[:, 0:3], d[:, 3:6]), ciede2000(d[:, 3:6], d[:, 0:3])):
        for i in np.nonzero(np.abs(got - want) > 1e-4)[0]:
            print(f"pair {i + 1}: got {got[i]:.6f}, want {want[i]:.4f}")
        worst = max(worst, float(np.abs(got - want).max()))
    ok = worst <= 1e-4
    print(f"CIEDE2000 self-test: {len(SHARMA)} Sharma pairs x 2 orders, "
          f"max error {worst:.2e}: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


def compare(a, b, border=0):
    if a.shape != b.shape:
        sys.exit(f"size mismatch: {a.shape[1]}x{a.shape[0]} vs {b.shape[1]}x{b.shape[0]}")
    if border:
        a, b = a[border:-border, border:-border], b[border:-border, border:-border]
    diff = np.abs(a - b)
    mse = float(np.mean(diff ** 2))
    de = ciede2000(srgb_to_lab(a), srgb_to_lab(b))
    return {"mad": float(diff.mean()), "max": float(diff.max()),
            "psnr": float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse),
            "de_mean": float(de.mean()), "de_p95": float(np.percentile(de, 95))}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a", nargs="?")
    p.add_argument("b", nargs="?")
    p.add_argument("--crop-border", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    if args.self_test:
        sys.exit(self_test())
    if not (args.a and args.b):
        p.error("need two images (or --self-test)")
    r = compare(read_image(args.a), read_image(args.b), args.crop_border)
    if args.json:
        print(json.dumps({k: None if v == float("inf") else v for k, v in r.items()}))
    else:
        print(f"MAD {r['mad']:.3f}  max {r['max']:.1f}  PSNR {r['psnr']:.2f} dB  "
              f"dE00 mean {r['de_mean']:.3f}  p95 {r['de_p95']:.3f}")


if __name__ == "__main__":
    main()
