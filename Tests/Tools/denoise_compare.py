#!/usr/bin/env python3
"""Denoisers side by side on raws with a known answer (issue 56's measurement).

Usage: denoise_compare.py RECIPE_BIN OUTDIR PHOTO.png [PHOTO.png ...] [--strengths 800,3200,12800]
           [--scale 2] [--no-bm3d] [--no-rt] [--no-nlm] [--summary]

For each photo and each strength:
1. The clean photo: the PNG enlarged SCALE times (vips resize, bicubic) and its centre cut to the
   photo's own size (SCALE 1: the photo as it is). A sensor behind a lens does not record
   full-contrast detail at its pixel pitch as a downsampled film scan does: the enlarged photo is
   the realistic case, the photo as it is the hardest one (its own grain then reads as noise).
2. A Bayer DNG of it (make_bayer_dng.py) with Poisson-Gaussian noise of a full-frame 14-bit sensor:
   ISO 800 gain 2.1 floor 28, ISO 3200 gain 8.5 floor 290, ISO 12800 gain 34 floor 3700 (DN;
   variance = gain * signal + floor), seeded; "clean" adds none.
3. Developed by recipe with `develop: {denoise: 1}` (ours) and without (the noisy develop); by
   rawtherapee-cli on a neutral profile with its noise reduction (Directional Pyramid Denoising,
   Lab, manual chroma) at each of a sweep of settings; the noisy develop denoised by BM3D (PyPI
   bm3d, bm3d_rgb) with the true sigma (the standard deviation of noisy minus clean develop) and by
   scikit-image's non-local means (h = 0.8 sigma, fast mode, 5x5 patches, 13x13 search).
4. Each against the clean photo: PSNR (peak 255 on 8-bit codes) and mean CIEDE2000 (image_compare.py),
   over the area RawTherapee keeps (4 pixels cut at each edge) less 4 more pixels.
Results go to OUTDIR/results.jsonl, one line a photo and strength (a run can be stopped and
continued); --summary prints the means, and RawTherapee's best setting by mean PSNR.

Licences: numpy, scipy (BSD-3-Clause), bm3d (free for non-commercial use; a test reference, not
shipped), scikit-image (BSD-3-Clause); vips, rawtherapee-cli run as subprocesses.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"800": (2.1, 28), "3200": (8.5, 290), "12800": (34, 3700)}
RT_SETTINGS = [(l, 15) for l in (25, 40, 60)]  # its Chroma setting moved nothing here (15 and 40 alike)
RT_PP3 = """[Version]
AppVersion=5.9
Version=346

[Directional Pyramid Denoising]
Enabled=true
Enhance=false
Median=false
Luma={luma}
Ldetail=50
Chroma={chroma}
Method=Lab
LMethod=SLI
CMethod=MAN
C2Method=AUTO
SMethod=shal
MedMethod=soft
RGBMethod=soft
MethodMed=none
Redchro=0
Bluechro=0
Gamma=1.7
Passes=1
"""


def run(*cmd, **kw):
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, **kw)


def read16(path):
    import png
    r = png.Reader(filename=path)
    w, h, rows, info = r.asDirect()
    a = np.vstack([np.asarray(row) for row in rows]).reshape(h, w, info["planes"])[..., :3].astype(np.float64)
    return a / (65535.0 if info["bitdepth"] == 16 else 255.0)


def write16(path, a):
    import png
    h, w, _ = a.shape
    v = np.clip(np.rint(a * 65535), 0, 65535).astype(np.uint16).reshape(h, w * 3)
    with open(path, "wb") as f:
        png.Writer(w, h, bitdepth=16, greyscale=False).write(f, v)


def cut(src, dst, w, h):
    run("vips", "crop", src, dst, 8, 8, w - 16, h - 16)


def compare(a, b):
    out = run(sys.executable, os.path.join(HERE, "image_compare.py"), a, b, "--json").stdout
    j = json.loads(out)
    return {"psnr": j["psnr"], "de": j["de_mean"]}


def one(binary, outdir, photo, iso, scale, bm3d_on, rt_on, nlm_on=True):
    name = os.path.splitext(os.path.basename(photo))[0]
    d = os.path.join(outdir, f"{name}-{iso}")
    os.makedirs(d, exist_ok=True)
    clean = os.path.join(outdir, f"{name}-x{scale}.png")
    w, h = (int(v) for v in run("vipsheader", "-f", "width", photo).stdout.split() + run("vipsheader", "-f", "height", photo).stdout.split())
    if not os.path.exists(clean):
        if scale == 1:
            run("vips", "copy", photo, clean)
        else:
            big = clean + ".big.png"
            run("vips", "resize", photo, big, scale, "--kernel", "cubic")
            bw, bh = int(run("vipsheader", "-f", "width", big).stdout), int(run("vipsheader", "-f", "height", big).stdout)
            run("vips", "crop", big, clean, (bw - w) // 2, (bh - h) // 2, w, h)
            os.remove(big)
    dng = os.path.join(d, "noisy.dng")
    args = [] if iso == "clean" else ["--noise", "%s,%s" % MODELS[iso], "--iso", iso]
    run(sys.executable, os.path.join(HERE, "make_bayer_dng.py"), clean, dng, *args)
    ref = os.path.join(d, "ref.png")
    cut(clean, ref, w, h)
    res = {"photo": name, "iso": iso, "scale": scale}
    recipes = {"noisy": "", "ours": "{denoise: 1}"}
    for key, develop in recipes.items():
        r = os.path.join(d, key + ".recipe.yaml")
        with open(r, "w") as f:
            f.write("format: dev.recipe.edit\nversion: 1.4\nstages:\n  - develop: %s\n" % (develop or "{}"))
        png16 = os.path.join(d, key + ".png")
        run(binary, "render", dng, "--recipe", r, "-o", png16)
        cut(png16, os.path.join(d, key + ".cut.png"), w, h)
        res[key] = compare(os.path.join(d, key + ".cut.png"), ref)
    if iso != "clean" and (bm3d_on or nlm_on):
        clean_dng = os.path.join(d, "clean.dng")
        run(sys.executable, os.path.join(HERE, "make_bayer_dng.py"), clean, clean_dng)
        cd = os.path.join(d, "clean-dev.png")
        run(binary, "render", clean_dng, "--recipe", os.path.join(d, "noisy.recipe.yaml"), "-o", cd)
        noisy, cleandev = read16(os.path.join(d, "noisy.png")), read16(cd)
        sigma = float(np.std(noisy - cleandev))
        res["sigma"] = sigma
        if bm3d_on:
            import bm3d
            out = os.path.join(d, "bm3d.png")
            write16(out, np.clip(bm3d.bm3d_rgb(noisy, sigma), 0, 1))
            cut(out, out + ".cut.png", w, h)
            res["bm3d"] = compare(out + ".cut.png", ref)
        if nlm_on:
            from skimage.restoration import denoise_nl_means
            out = os.path.join(d, "nlm.png")
            write16(out, np.clip(denoise_nl_means(noisy, h=0.8 * sigma, sigma=sigma, fast_mode=True, patch_size=5,
                                                  patch_distance=6, channel_axis=-1), 0, 1))
            cut(out, out + ".cut.png", w, h)
            res["nlm"] = compare(out + ".cut.png", ref)
    if rt_on:
        res["rt"] = {}
        for luma, chroma in RT_SETTINGS if iso != "clean" else [(0, 0)]:
            pp3 = os.path.join(d, f"rt-{luma}-{chroma}.pp3")
            with open(pp3, "w") as f:
                f.write(RT_PP3.format(luma=luma, chroma=chroma).replace("Enabled=true", "Enabled=%s" % ("true" if luma or chroma else "false")))
            tif = os.path.join(d, f"rt-{luma}-{chroma}.tif")
            run("rawtherapee-cli", "-o", tif, "-t", "-b16", "-Y", "-p", pp3, "-c", dng)
            # RawTherapee keeps the image less 4 pixels at each edge: 4 more cut here.
            out = tif + ".cut.png"
            run("vips", "crop", tif, out, 4, 4, w - 16, h - 16)
            res["rt"][f"{luma}/{chroma}"] = compare(out, ref)
    return res


def summary(outdir):
    rows = [json.loads(l) for l in open(os.path.join(outdir, "results.jsonl"))]
    for iso in ["clean"] + list(MODELS):
        rs = [r for r in rows if r["iso"] == iso]
        if not rs:
            continue
        def mean(key, field="psnr"):
            v = [r[key][field] for r in rs if key in r]
            return (sum(v) / len(v)) if v else float("nan")
        line = f"{iso:>6} ({len(rs)} photos): noisy {mean('noisy'):.2f} dB, ours {mean('ours'):.2f} dB (dE {mean('ours', 'de'):.2f})"
        for key in ("bm3d", "nlm"):
            if any(key in r for r in rs):
                line += f", {key} {mean(key):.2f} dB (dE {mean(key, 'de'):.2f})"
        if any("rt" in r for r in rs):
            settings = rs[0]["rt"].keys()
            best = max(settings, key=lambda s: np.mean([r["rt"][s]["psnr"] for r in rs if "rt" in r]))
            line += ", RawTherapee best %s: %.2f dB (dE %.2f)" % (best, np.mean([r["rt"][best]["psnr"] for r in rs if "rt" in r]),
                                                               np.mean([r["rt"][best]["de"] for r in rs if "rt" in r]))
        if any("sigma" in r for r in rs):
            line += ", true sigma %.4f" % np.mean([r["sigma"] for r in rs if "sigma" in r])
        print(line)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("outdir")
    p.add_argument("photos", nargs="*")
    p.add_argument("--strengths", default="clean,800,3200,12800")
    p.add_argument("--scale", type=int, default=2)
    p.add_argument("--no-bm3d", action="store_true")
    p.add_argument("--no-rt", action="store_true")
    p.add_argument("--no-nlm", action="store_true")
    p.add_argument("--summary", action="store_true")
    a = p.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    if a.summary:
        summary(a.outdir)
        return
    done = set()
    path = os.path.join(a.outdir, "results.jsonl")
    if os.path.exists(path):
        done = {(r["photo"], r["iso"]) for r in map(json.loads, open(path))}
    for photo in a.photos:
        for iso in a.strengths.split(","):
            name = os.path.splitext(os.path.basename(photo))[0]
            if (name, iso) in done:
                continue
            r = one(a.binary, a.outdir, photo, iso, a.scale, not a.no_bm3d, not a.no_rt, not a.no_nlm)
            with open(path, "a") as f:
                f.write(json.dumps(r) + "\n")
            print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
