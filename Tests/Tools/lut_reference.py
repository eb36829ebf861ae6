#!/usr/bin/env python3
"""Tetrahedral and trilinear lookups in a .cube 3D table, written with numpy from
ops-reference.md §5 (FilmLight TN-0057 as ffmpeg's interp_tetrahedral has it; red fastest).
Usage: lut_reference.py FILE.cube tetrahedral|trilinear R G B [R G B ...] -> one "r g b" line each."""
import sys
import numpy as np

def load(path):
    size, rows, lo, hi = 0, [], np.zeros(3), np.ones(3)
    for line in open(path):
        w = line.split('#')[0].split()
        if not w or w[0] == 'TITLE':
            continue
        if w[0] == 'LUT_3D_SIZE':
            size = int(w[1])
        elif w[0] == 'DOMAIN_MIN':
            lo = np.array([float(x) for x in w[1:4]])
        elif w[0] == 'DOMAIN_MAX':
            hi = np.array([float(x) for x in w[1:4]])
        else:
            rows.append([float(x) for x in w])
    t = np.array(rows).reshape(size, size, size, 3)  # [b][g][r]
    return size, t, lo, hi

def lookup(size, t, lo, hi, p, tetra):
    q = np.clip((np.array(p) - lo) / (hi - lo) * (size - 1), 0, size - 1)
    i = np.minimum(q.astype(int), size - 2)
    fr, fg, fb = q - i
    c = lambda a, b, d: t[i[2] + d, i[1] + b, i[0] + a]
    if not tetra:
        c00 = c(0, 0, 0) * (1 - fr) + c(1, 0, 0) * fr; c10 = c(0, 1, 0) * (1 - fr) + c(1, 1, 0) * fr
        c01 = c(0, 0, 1) * (1 - fr) + c(1, 0, 1) * fr; c11 = c(0, 1, 1) * (1 - fr) + c(1, 1, 1) * fr
        return (c00 * (1 - fg) + c10 * fg) * (1 - fb) + (c01 * (1 - fg) + c11 * fg) * fb
    if fr > fg:
        if fg > fb: return (1 - fr) * c(0, 0, 0) + (fr - fg) * c(1, 0, 0) + (fg - fb) * c(1, 1, 0) + fb * c(1, 1, 1)
        if fr > fb: return (1 - fr) * c(0, 0, 0) + (fr - fb) * c(1, 0, 0) + (fb - fg) * c(1, 0, 1) + fg * c(1, 1, 1)
        return (1 - fb) * c(0, 0, 0) + (fb - fr) * c(0, 0, 1) + (fr - fg) * c(1, 0, 1) + fg * c(1, 1, 1)
    if fb > fg: return (1 - fb) * c(0, 0, 0) + (fb - fg) * c(0, 0, 1) + (fg - fr) * c(0, 1, 1) + fr * c(1, 1, 1)
    if fb > fr: return (1 - fg) * c(0, 0, 0) + (fg - fb) * c(0, 1, 0) + (fb - fr) * c(0, 1, 1) + fr * c(1, 1, 1)
    return (1 - fg) * c(0, 0, 0) + (fg - fr) * c(0, 1, 0) + (fr - fb) * c(1, 1, 0) + fb * c(1, 1, 1)

size, t, lo, hi = load(sys.argv[1])
vals = [float(v) for v in sys.argv[3:]]
for k in range(0, len(vals), 3):
    print(" ".join("%.9f" % v for v in lookup(size, t, lo, hi, vals[k:k + 3], sys.argv[2] == 'tetrahedral')))
