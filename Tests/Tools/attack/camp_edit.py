"""Campaign 2: many `recipe edit PHOTO --stage …` on the same few photos at once, with `revert`,
`history` and `check` among them, some SIGKILLed. Every edit that exited 0 must be in the final
sidecar unless a revert that exited 0 removed it; sidecars always check; no temporaries are left
once a later command writes in the folder; the originals never change.

Also path escape (b): `history --extract` of a sidecar whose frozen base names its `source:`
with `..`, an absolute path, or a name that is a link in the extract folder."""
import os
import re
import shutil
import threading
import time
from pathlib import Path

from common import (Stats, diff, litter, parallel, photos_from_repo, run, sha256, snapshot,
                    temp_appears, wait_for_age)

FULL = 260

STAGES = [
    ("exposure", lambda r: f"{r.uniform(-1, 1):.3f}"),
    ("vibrance", lambda r: f"{r.uniform(-0.5, 0.5):.3f}"),
    ("contrast", lambda r: f"{r.uniform(0.8, 1.2):.3f}"),
    ("saturation", lambda r: f"{r.uniform(0.5, 1.5):.3f}"),
    ("brightness", lambda r: f"{r.uniform(-0.1, 0.1):.3f}"),
    ("gamma", lambda r: f"{r.uniform(0.8, 1.2):.3f}"),
    ("sepia", lambda r: f"{r.uniform(0, 1):.3f}"),
    ("grayscale", lambda r: f"{r.uniform(0, 1):.3f}"),
    ("vignette", lambda r: f"{r.uniform(0, 0.5):.3f}"),
    ("hue", lambda r: f"{r.uniform(-30, 30):.2f}"),
]
ID = re.compile(r"^\s*(?:-\s+)?id:\s*[\"']?([A-Za-z0-9_.-]+)", re.M)


def ids_in(path: Path) -> set:
    try:
        return set(ID.findall(path.read_text("utf-8", "replace")))
    except OSError:
        return set()


def setup(ctx, root: Path):
    if root.exists():
        shutil.rmtree(root)
    samples = photos_from_repo(ctx)
    photos = []
    for folder, name, source in (("shared", "a.png", "kodim03.png"), ("shared", "b.jpg", "Portrait_8.jpg"),
                                 ("solo", "c.jpg", "Landscape_1.jpg"), ("raw", "d.dng", "kodim03-bayer.dng")):
        if source not in samples:
            continue
        (root / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy2(samples[source], root / folder / name)
        photos.append(root / folder / name)
    (root / "guard").mkdir()
    (root / "guard" / "keep.txt").write_text("must never change\n")
    os.symlink("../guard", root / "shared" / "guard-link")
    return photos


def campaign(ctx, repros) -> Stats:
    st = Stats("2 concurrent edits")
    root = ctx.work / "edit"
    photos = setup(ctx, root)
    rng = ctx.rng("edit")
    originals = {p: sha256(p) for p in photos}
    before = snapshot(root)
    n = ctx.count(FULL)
    lock = threading.Lock()
    ok_edits = {p: [] for p in photos}      # ids whose edit exited 0, in order
    failed_edits = {p: [] for p in photos}
    unknown = set()                          # killed edits and the stages of killed reverts
    removed, disabled, targeted = set(), set(), set()
    midway = []
    plans = []
    for i in range(n):
        r = rng.random()
        kind = "edit" if r < 0.66 else "revert" if r < 0.80 else "history" if r < 0.92 else "check"
        photo = rng.choice(photos)
        op, value = rng.choice(STAGES)
        kill = rng.uniform(0.05, 0.8) if kind in ("edit", "revert") and rng.random() < 0.15 else None
        plans.append((i, kind, photo, f"{{id: atk-{i}, {op}: {value(rng)}}}", kill, rng.random()))

    def one(plan):
        i, kind, photo, stage, kill, coin = plan
        sidecar = photo.with_name(photo.name + ".recipe.yaml")
        rep = lambda r: repros.save("edit", "proc", r.argv, note=f"concurrent with other edits of {photo.name}; folder {photo.parent}")
        if kind == "edit":
            sid = f"atk-{i}"
            args = [ctx.binary, "edit", photo.name, "--stage", stage] + (["--size", "300"] if coin < 0.5 else [])
            if kill is not None and coin > 0.6:   # killed as soon as a temporary shows in the folder
                res = run(ctx, args, cwd=photo.parent, kill_when=temp_appears(photo.parent))
                if res.killed:
                    with lock:
                        midway.append(i)
            else:
                res = run(ctx, args, cwd=photo.parent, kill_after=kill)
            st.process(res, allowed=(0,), what=f"edit #{i}", repro=rep)
            with lock:
                if res.killed:
                    unknown.add(sid)
                elif res.rc == 0:
                    ok_edits[photo].append(sid)
                else:
                    failed_edits[photo].append(sid)
        elif kind == "revert":
            with lock:
                choices = [s for s in ok_edits[photo] if s not in targeted]
                sid = choices[int(coin * len(choices))] if choices else None
                if sid:
                    targeted.add(sid)
            if sid is None:
                kind = "history"
            else:
                disable = coin < 0.25
                args = [ctx.binary, "revert", photo.name, "--stage", sid] + (["--disable"] if disable else [])
                res = run(ctx, args, cwd=photo.parent, kill_after=kill)
                st.process(res, allowed=(0,), what=f"revert #{i}", repro=rep)
                with lock:
                    if res.killed:
                        unknown.add(sid)
                    elif res.rc == 0:
                        (disabled if disable else removed).add(sid)
        if kind == "history":
            res = run(ctx, [ctx.binary, "history", photo.name], cwd=photo.parent)
            st.process(res, allowed=(0, 1) if not sidecar.exists() else (0,), what=f"history #{i}", repro=rep)
        elif kind == "check" and sidecar.exists():
            res = run(ctx, [ctx.binary, "check", sidecar.name], cwd=photo.parent)
            st.process(res, allowed=(0,), what=f"check of a sidecar mid-storm #{i}",
                       repro=lambda r: repros.save("edit", "check", r.argv, [sidecar]))
    parallel(ctx, [lambda p=p: one(p) for p in plans], st=st)
    st.note(f"{sum(len(v) for v in ok_edits.values())} edits exited 0, {len(removed)} stages removed and "
            f"{len(disabled)} disabled by reverts that exited 0, {st.killed} processes SIGKILLed on purpose")
    storm_end = time.time()
    st.note(f"{len(midway)} edits killed the moment a temporary showed in their folder; "
            f"{sum(len(litter(f)) for f in {p.parent for p in photos})} temporaries in the photo folders after the storm")

    # The final sidecars.
    for photo in photos:
        sidecar = photo.with_name(photo.name + ".recipe.yaml")
        if not sidecar.exists():
            if ok_edits[photo]:
                st.fail("lost", f"{sidecar} is gone, though {len(ok_edits[photo])} edits of it exited 0")
            continue
        res = run(ctx, [ctx.binary, "check", sidecar.name], cwd=photo.parent)
        st.process(res, allowed=(0,), what=f"final check of {sidecar.name}", aux=True,
                   repro=lambda r: repros.save("edit", "check", r.argv, [sidecar]))
        present = ids_in(sidecar)
        for sid in ok_edits[photo]:
            if sid in unknown:
                continue
            if sid in removed and sid in present:
                st.fail("lost", f"{sidecar.name}: {sid} is still there though its revert exited 0 (a lost revert)",
                        repros.save("edit", "lost", ["recipe", "check", sidecar.name], [sidecar]))
            elif sid not in removed and sid not in present:
                st.fail("lost", f"{sidecar.name}: stage {sid} is gone though its edit exited 0 and no revert removed it",
                        repros.save("edit", "lost", ["recipe", "check", sidecar.name], [sidecar]))
        stray = [s for s in failed_edits[photo] if s in present]
        if stray:
            st.note(f"{sidecar.name}: stages of edits that exited non-zero are in it: {', '.join(stray)}")
    # Temporaries: once over a minute old and unheld, the next write into the folder removes them.
    wait_for_age(storm_end if st.killed else 0)
    for folder in sorted({p.parent for p in photos}):
        photo = next(p for p in photos if p.parent == folder)
        res = run(ctx, [ctx.binary, "render", photo.name], cwd=folder)
        st.process(res, allowed=(0,), what=f"a later render in {folder.name}/", aux=True)
        for p in litter(folder):
            st.fail("other", f"temporary left after a later command wrote into {folder.name}/: {p}")
    for p, h in originals.items():
        if sha256(p) != h:
            st.fail("other", f"original changed: {p}")
    # Nothing but the sidecars, current versions, objects and (removed) temporaries may change.
    allowed = []
    for p in photos:
        rel = os.path.relpath(p.parent, root)
        allowed += [f"{rel}/{p.name}.recipe.yaml", f"{rel}/{p.stem}.edited{p.suffix}",
                    f"{rel}/{p.stem}.edited.jpg", f"{rel}/recipe-objects"]
    after = snapshot(root)
    for line in diff(before, after, allowed):
        if "recipe-tmp" in line:
            continue
        st.fail("outside", f"edit storm: {line}")
    return st


# ---------------------------------------------------------------- path escape (b)

SOURCES = [
    "x/../../../F.xmp",
    "../F.xmp",
    "../../../../../../../../../../../../F.xmp",
    "kept/../../F.xmp",
    "..",
    ".",
    "x/..",
    "/",
    "ABSOLUTE/F.xmp",          # replaced by an absolute path into the guard folder
    "F.xmp/",
    "x/../../../victim.xmp",
    "\"..\\\\..\\\\F.xmp\"",
    "\"\"",
]


def escapes(ctx, repros) -> Stats:
    st = Stats("b history --extract with source: ..")
    root = ctx.work / "escape-b"
    if root.exists():
        shutil.rmtree(root)
    samples = photos_from_repo(ctx)
    home = root / "a" / "b" / "c"
    home.mkdir(parents=True)
    guard = root / "guard"
    guard.mkdir()
    (guard / "victim.xmp").write_text("victim: must never change\n")
    photo = home / "photo.png"
    shutil.copy2(samples["kodim03.png"], photo)
    foreign = home / "other.xmp"
    foreign.write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'><!-- another tool's edit --></x:xmpmeta>\n")
    rendered = home / "rendered.png"
    shutil.copy2(samples["kodim03.png"], rendered)
    res = run(ctx, [ctx.binary, "edit", photo.name, "--foreign", foreign.name, "--rendered", rendered.name,
                    "--format", "org.example.attack", "--format-version", "1", "--stage", "exposure: 0.2"], cwd=home)
    if not st.process(res, allowed=(0,), what="(b) making a sidecar with a frozen base", aux=True):
        return st
    sidecar = home / (photo.name + ".recipe.yaml")
    text = sidecar.read_text()
    m = re.search(r"^(\s*source:\s*)(.*)$", text, re.M)
    if not m:
        st.fail("other", f"(b) the sidecar names no `source:`:\n{text[:400]}")
        return st
    pristine = text
    cases = [(s, False) for s in SOURCES] + [("x/../../../F.xmp", True), ("F.xmp", True)]
    for source, link_in_kept in cases:
        source = source.replace("ABSOLUTE", str(guard))
        kept = home / "kept"
        shutil.rmtree(kept, ignore_errors=True)
        kept.mkdir()
        for stale in list(root.rglob("F.xmp")):
            stale.unlink()
        sidecar.write_text(pristine[:m.start(2)] + source + pristine[m.end(2):])
        if link_in_kept:
            # A file already in the extract folder, under the name the data gets, that is a link out.
            name = "1-base-1." + source.rstrip("/").split("/")[-1]
            os.symlink(os.path.relpath(guard / "victim.xmp", kept), kept / name)
            os.symlink(os.path.relpath(guard / "victim.xmp", kept), kept / "1-base-1.pixels.png")
        chk = run(ctx, [ctx.binary, "check", sidecar.name], cwd=home)
        st.process(chk, what=f"(b) check with source: {source}", aux=True)
        before = snapshot(root, skip=[kept])
        args = [ctx.binary, "history", photo.name, "--extract", "kept"]
        res = run(ctx, args, cwd=home)
        label = f"source: {source}" + (" with a link in kept/ under the extracted name" if link_in_kept else "")
        st.process(res, what=f"(b) {label}",
                   repro=lambda r: repros.save("escape-b", "proc", r.argv, [photo, sidecar, home / "recipe-objects"]))
        for line in diff(before, snapshot(root, skip=[kept])):
            st.fail("outside", f"(b) {label}: {line} [{res.describe()}]",
                    repros.save("escape-b", "outside", args, [photo, sidecar, home / "recipe-objects"], setup="mkdir -p kept",
                                note=f"sidecar with {label}; it changed: {line}"))
        for p in kept.rglob("*"):
            if p.is_symlink() and not link_in_kept:
                st.fail("outside", f"(b) {label}: extract left a link {p} -> {os.readlink(p)}")
        if ctx.verbose:
            print(f"  (b) {label}: check {chk.rc}, {res.describe()} {res.text(160)}; kept: {sorted(x.name for x in kept.iterdir())}")
    sidecar.write_text(pristine)
    return st
