#!/usr/bin/env python3
"""Independent PNG reference decoder for the tests: pypng (pure Python, no libpng).

Usage: png_reference.py IN.png OUT.pam

Writes the decoded samples as a Netpbm PAM, expanded the way recipe's decoder promises: palette to
RGB(A), tRNS to an alpha channel, gray of 1/2/4 bits scaled to 8 bits by bit replication
(v * 255 / (2**bits - 1)), 16-bit kept as 16-bit. gAMA and sBIT are not applied (samples as stored; pypng would rescale sBIT files, so that chunk is
removed before decoding).
"""
import io
import sys

import png


def main(src, dst):
    chunks = [c for c in png.Reader(filename=src).chunks() if c[0] != b"sBIT"]
    buf = io.BytesIO()
    png.write_chunks(buf, chunks)
    width, height, rows, info = png.Reader(bytes=buf.getvalue()).asDirect()
    planes = info["planes"]
    bits = info["bitdepth"]
    out_bits = 16 if bits == 16 else 8
    scale = 1 if bits in (8, 16) else 255 // ((1 << bits) - 1)
    maxval = (1 << out_bits) - 1
    data = bytearray()
    for row in rows:
        for v in row:
            v *= scale
            if out_bits == 16:
                data += bytes(((v >> 8) & 0xFF, v & 0xFF))
            else:
                data.append(v)
    header = (f"P7\nWIDTH {width}\nHEIGHT {height}\nDEPTH {planes}\nMAXVAL {maxval}\n"
              f"TUPLTYPE X\nENDHDR\n")
    with open(dst, "wb") as f:
        f.write(header.encode() + bytes(data))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
