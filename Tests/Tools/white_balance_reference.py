#!/usr/bin/env python3
"""Golden white-balance matrices, written from ops-reference.md §2.3-§3 with numpy (independent of
the Swift code): DNG SDK temp/tint -> xy (Robertson isotherms, tint scale -3000, 325 entry
u=0.24792), Bradford adaptation, wrapped to linear sRGB (matrix derived from the primaries).
Usage: white_balance_reference.py TEMP TINT [TARGET_TEMP TARGET_TINT] -> 9 numbers, row-major."""
import sys
import numpy as np

T = [(0, .18006, .26352, -.24341), (10, .18066, .26589, -.25479), (20, .18133, .26846, -.26876),
     (30, .18208, .27119, -.28539), (40, .18293, .27407, -.30470), (50, .18388, .27709, -.32675),
     (60, .18494, .28021, -.35156), (70, .18611, .28342, -.37915), (80, .18740, .28668, -.40955),
     (90, .18880, .28997, -.44278), (100, .19032, .29326, -.47888), (125, .19462, .30141, -.58204),
     (150, .19962, .30921, -.70471), (175, .20525, .31647, -.84901), (200, .21142, .32312, -1.0182),
     (225, .21807, .32909, -1.2168), (250, .22511, .33439, -1.4512), (275, .23247, .33904, -1.7298),
     (300, .24010, .34308, -2.0637), (325, .24792, .34655, -2.4681), (350, .25591, .34951, -2.9641),
     (375, .26400, .35200, -3.5814), (400, .27218, .35407, -4.3633), (425, .28039, .35577, -5.3762),
     (450, .28863, .35714, -6.7262), (475, .29685, .35823, -8.5955), (500, .30505, .35907, -11.324),
     (525, .31320, .35968, -15.628), (550, .32129, .36011, -23.325), (575, .32931, .36038, -40.770),
     (600, .33724, .36051, -116.45)]

def xy(temp, tint):
    r = 1e6 / temp
    for i in range(30):
        if r < T[i + 1][0] or i == 29:
            break
    f = (T[i + 1][0] - r) / (T[i + 1][0] - T[i][0])
    u = T[i][1] * f + T[i + 1][1] * (1 - f)
    v = T[i][2] * f + T[i + 1][2] * (1 - f)
    d1 = np.array([1, T[i][3]]) / np.hypot(1, T[i][3])
    d2 = np.array([1, T[i + 1][3]]) / np.hypot(1, T[i + 1][3])
    d = d1 * f + d2 * (1 - f)
    d /= np.linalg.norm(d)
    u += d[0] * tint / -3000.0
    v += d[1] * tint / -3000.0
    den = u - 4 * v + 2
    return 1.5 * u / den, v / den

def XYZ(x, y):
    return np.array([x / y, 1.0, (1 - x - y) / y])

P = np.array([XYZ(.64, .33), XYZ(.30, .60), XYZ(.15, .06)]).T
S = np.linalg.solve(P, XYZ(.3127, .3290))
RGB2XYZ = P * S
BR = np.array([[.8951, .2664, -.1614], [-.7502, 1.7135, .0367], [.0389, -.0685, 1.0296]])

def matrix(t, ti, tt=6500, tti=0):
    s, d = BR @ XYZ(*xy(t, ti)), BR @ XYZ(*xy(tt, tti))
    M = np.linalg.inv(BR) @ np.diag(d / s) @ BR
    return np.linalg.inv(RGB2XYZ) @ M @ RGB2XYZ

args = [float(a) for a in sys.argv[1:]]
print(" ".join("%.9f" % v for v in matrix(*args).flatten()))
