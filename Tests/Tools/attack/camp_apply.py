"""Campaign 1: many `recipe apply` at once into one output folder and into nested and linked
ones, some with --shard, some SIGKILLed midway; then the output folders must be consistent,
nothing outside them may have changed, the inputs neither, and no record may be lost."""
import json
import os
import shutil
import threading
import time
from pathlib import Path

from common import (Stats, copy_recipes, diff, litter, parallel, photos_from_repo, run, sha256,
                    snapshot, temp_appears, wait_for_age, write_png)

FULL = 180


def setup(ctx, root: Path) -> dict:
    if root.exists():
        shutil.rmtree(root)
    photos = root / "photos"
    (photos / "sub").mkdir(parents=True)
    samples = photos_from_repo(ctx)
    for name in ("Landscape_1.jpg", "Portrait_8.jpg", "kodim03.png"):
        shutil.copy2(samples[name], photos / name)
    shutil.copy2(samples["Landscape_6.jpg"], photos / "sub" / "Landscape_6.jpg")
    if "kodim03-bayer.dng" in samples:
        shutil.copy2(samples["kodim03-bayer.dng"], photos / "sub" / "bayer.dng")
    recipes = copy_recipes(ctx, root / "recipes")
    # The guard: folders outside every OUTDIR, with links into them from the inputs and the outputs.
    guard, elsewhere = root / "guard", root / "elsewhere"
    guard.mkdir()
    elsewhere.mkdir()
    (root / "elsewhere2").mkdir()   # the target of the race's swapped link (--race)
    shutil.copy2(samples["Landscape_1.jpg"], guard / "secret.jpg")
    shutil.copy2(samples["Portrait_8.jpg"], guard / "target.jpg")
    (guard / "notes.txt").write_text("guard file: must never change\n")
    (elsewhere / "Landscape_1.jpg").write_bytes(b"decoy: an apply through out/sub would replace me\n")
    (elsewhere / "keep.txt").write_text("must never change\n")
    write_png(elsewhere / "kodim03.png", 4, 4)
    os.symlink("../guard/secret.jpg", photos / "linked-out.jpg")       # a file link leaving the folder
    os.symlink("../guard", photos / "linked-folder")                   # a folder link (not followed)
    out = root / "out"
    (out / "nested" / "deep").mkdir(parents=True)
    os.symlink("../elsewhere", out / "sub")                            # the reported escape
    os.symlink("../guard", out / "g")
    os.symlink("../guard/target.jpg", out / "Portrait_8.jpg")           # an output name already a link
    (root / "realout").mkdir()
    os.symlink("realout", root / "outlink")                            # a linked OUTDIR (the user named it)
    return {"photos": photos, "recipes": recipes, "out": out, "nested": out / "nested" / "deep",
            "realout": root / "realout", "outlink": root / "outlink", "elsewhere": elsewhere}


def configs(rng, env):
    """One run's arguments: (label, OUTDIR as given, extra args)."""
    r = rng.random()
    size = ["--size", str(rng.choice([200, 300, 500]))]
    if r < 0.30:
        return "out", env["out"], size
    if r < 0.40:
        return "out --name sub/", env["out"], size + ["--name", "sub/{stem}.{ext}"]
    if r < 0.47:
        return "out --name g/", env["out"], size + ["--name", "g/{dir}/{stem}.{ext}"]
    if r < 0.55:
        return "out --name {recipe}/", env["out"], size + ["--name", "{recipe}/{dir}/{stem}.{ext}"]
    if r < 0.58:
        return "out --name ../", env["out"], size + ["--name", rng.choice(["../{stem}.{ext}", "{dir}/../../{stem}.{ext}"])]
    if r < 0.70:
        return "nested", env["nested"], size
    if r < 0.82:
        return "outlink", env["outlink"], size
    k = rng.randrange(3)
    return "out --shard", env["out"], size + ["--shard", f"{k + 1}/3"]


def manifests(folder: Path):
    """(records, unreadable lines) of every manifest in an OUTDIR."""
    records, bad = [], 0
    for m in sorted(folder.glob(".recipe-manifest*.jsonl")):
        for line in m.read_bytes().splitlines():
            if not line.strip():
                continue
            try:
                records.append((m.name, json.loads(line)))
            except ValueError:
                bad += 1
    return records, bad


def outputs_in(folder: Path, skip=()):
    """The regular, visible files below an OUTDIR (links not followed), skipping nested OUTDIRs."""
    found = []
    skip = {os.path.abspath(s) for s in skip}
    for dirpath, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and os.path.abspath(os.path.join(dirpath, d)) not in skip]
        for f in files:
            p = Path(dirpath) / f
            if f.startswith(".") or p.is_symlink():
                continue
            found.append(p)
    return found


def check_consistent(ctx, st, label, folder, skip, repros):
    """Every output decodes (`recipe info` exits 0) and every manifest record names a file."""
    files = outputs_in(folder, skip)

    def info(p):
        res = run(ctx, [ctx.binary, "info", p], cwd=folder)
        st.process(res, allowed=(0,), what=f"{label}: output does not decode", aux=True,
                   repro=lambda r: repros.save("apply", "torn", r.argv, [p]))
    parallel(ctx, [lambda p=p: info(p) for p in files])
    records, bad = manifests(folder)
    if bad:
        st.note(f"{label}: {bad} manifest line(s) not readable as records (a run killed mid-append)")
    for name, rec in records:
        out = rec.get("output")
        if not isinstance(out, str) or not (folder / out).exists():
            st.fail("other", f"{label}: {name} lists {out!r}, which does not exist in {folder}")
    return len(files)


def json_lines(out: bytes):
    for line in out.splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


def settle(ctx, st, env, recipe, repros, label, outdir, must_fail_below=None):
    """A run nobody kills: it must finish, with every photo rendered or up to date (but those
    below `must_fail_below`, which must fail), and a dry run after it must have nothing left to
    render (a record lost would be rendered again)."""
    args = [ctx.binary, "apply", recipe, env["photos"], "-o", outdir, "--size", "300", "--jobs", "2"]
    res = run(ctx, args + ["--json"], cwd=env["root"])
    st.process(res, allowed=(1,) if must_fail_below else (0,), what=f"settle {label}", aux=True)
    failed = set()
    for rec in json_lines(res.stdout):
        if rec.get("status") == "failed":
            src = str(rec.get("source"))
            failed.add(src)
            if not (must_fail_below and src.startswith(str(must_fail_below) + "/")):
                st.fail("other", f"settle {label}: {src} failed: {rec.get('error')}")
        elif must_fail_below and str(rec.get("source", "")).startswith(str(must_fail_below) + "/"):
            st.fail("outside", f"settle {label}: {rec.get('source')} was {rec.get('status')}, though its output goes through a link")
    dry = run(ctx, args + ["--dry-run", "--json"], cwd=env["root"])
    st.process(dry, what=f"settle {label} --dry-run", aux=True)
    for rec in json_lines(dry.stdout):
        if rec.get("status") == "would-render" and str(rec.get("source")) not in failed:
            w = f"{rec.get('source')} ({rec.get('reason')})"
            st.fail("lost", f"settle {label}: rendered, yet a dry run right after would render {w} again (a lost record)",
                    repros.save("apply", "lost", args + ["--dry-run"], note=f"after the storm; state in {outdir}"))
    return res


def campaign(ctx, repros, race=False) -> Stats:
    st = Stats("1 concurrent applies")
    root = ctx.work / "apply"
    env = setup(ctx, root)
    env["root"] = root
    rng = ctx.rng("apply")
    real_outs = [env["out"], env["realout"]]
    before = snapshot(root, skip=real_outs)
    inputs = {str(p): sha256(p) for p in env["photos"].rglob("*") if p.is_file() and not p.is_symlink()}
    n = ctx.count(FULL)
    plans = []
    for i in range(n):
        label, outdir, extra = configs(rng, env)
        recipe = rng.choice(env["recipes"])
        kill = rng.uniform(0.03, 0.9) if rng.random() < 0.25 else None
        if kill is not None and "--size" in extra and rng.random() < 0.5:
            extra = extra[2:]  # full size: longer writes, so more kills land mid-write
        args = [ctx.binary, "apply", recipe.name, "../photos", "-o", os.path.relpath(outdir, root / "recipes"),
                "--jobs", "2", "--progress", "lines"] + extra
        if kill is not None and rng.random() < 0.4:
            kill = ("midway", outdir)   # killed as soon as a temporary shows in OUTDIR
        plans.append((i, label, args, kill))

    swap_stop = threading.Event()
    if race:
        swapper = threading.Thread(target=swap_links, args=(root, swap_stop), daemon=True)
        swapper.start()
        for i in range(0, n, 4):  # a quarter of the runs write through the swapped folder
            args = [ctx.binary, "apply", env["recipes"][0].name, "../photos", "-o", "../out", "--jobs", "2",
                    "--size", "200", "--name", "swap/{dir}/{stem}.{ext}"]
            plans[i] = (i, "out --name swap/ (race)", args, None)

    midway = []

    def one(plan):
        i, label, args, kill = plan
        if isinstance(kill, tuple):
            res = run(ctx, args, cwd=root / "recipes", kill_when=temp_appears(kill[1]))
            if res.killed:
                with st.lock:
                    midway.append(i)
        else:
            res = run(ctx, args, cwd=root / "recipes", kill_after=kill)
        st.process(res, what=f"apply #{i} ({label})",
                   repro=lambda r: repros.save("apply", "proc", r.argv, note=f"run inside recipes/ of {root}; label {label}"))
        return res
    results = parallel(ctx, [lambda p=p: one(p) for p in plans], st=st)
    last_kill = time.time() if any(r and r.killed for r in results) else 0.0
    swap_stop.set()
    if race:
        swapper.join()
    # Path escape (a) as it happens in the storm: the runs that named sub/ must have refused.
    for (i, label, args, kill), res in zip(plans, results):
        if res and label == "out --name sub/" and not res.killed and res.rc == 0:
            st.fail("outside", f"apply #{i}: --name sub/ (sub -> ../elsewhere) exited 0; it should refuse those photos")
    after = snapshot(root, skip=real_outs)
    for line in diff(before, after):
        kind = "other" if line.split(": ", 1)[1].startswith("photos/") else "outside"
        st.fail(kind, f"apply storm: {line}" + (" (an input changed)" if kind == "other" else ""),
                repros.save("apply", "outside", plans[0][2], note=f"after {n} concurrent applies under {root}: {line}"))
    for p, h in inputs.items():
        if not Path(p).exists() or sha256(p) != h:
            st.fail("other", f"input changed: {p}")
    # Consistent right after the storm, then after a settling run of each folder.
    left = [p for f in real_outs for p in litter(f, recursive=True)]
    st.note(f"{len(midway)} runs killed the moment a temporary showed in their OUTDIR; {len(left)} temporaries "
            f"left in the output folders after the storm (a later run holding OUTDIR's lock removes them at once)")
    count = check_consistent(ctx, st, "out", env["out"], [env["nested"]], repros)
    count += check_consistent(ctx, st, "out/nested/deep", env["nested"], [], repros)
    count += check_consistent(ctx, st, "realout", env["realout"], [], repros)
    st.note(f"{count} outputs checked after the storm; {st.killed} runs SIGKILLed on purpose")
    wait_for_age(last_kill)
    recipe = str(env["recipes"][0])
    settle(ctx, st, env, recipe, repros, "out", env["out"], env["photos"] / "sub")   # out/sub is a link: those fail
    settle(ctx, st, env, recipe, repros, "nested", env["nested"])
    settle(ctx, st, env, recipe, repros, "outlink", env["outlink"])
    for label, folder, skip in (("out", env["out"], [env["nested"]]), ("nested", env["nested"], []), ("realout", env["realout"], [])):
        check_consistent(ctx, st, f"{label} (settled)", folder, skip, repros)
        left = litter(folder)
        for p in left:
            st.fail("other", f"{label}: temporary left after a later run wrote into the folder: {p}")
    for p, h in inputs.items():
        if sha256(p) != h:
            st.fail("other", f"input changed: {p}")
    final = snapshot(root, skip=real_outs)
    for line in diff(before, final):
        st.fail("outside", f"after settling: {line}")
    return st


def swap_links(root: Path, stop: threading.Event):
    """The race: out/swap flips between a real folder and a link to ../elsewhere2."""
    path = root / "out" / "swap"
    while not stop.is_set():
        try:
            if path.is_symlink():
                path.unlink()
                path.mkdir()
            else:
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                os.symlink("../elsewhere2", path)
        except OSError:
            pass
        time.sleep(0.002)


# ---------------------------------------------------------------- path escape (a)

def escapes(ctx, repros) -> Stats:
    """`apply` through a linked folder inside OUTDIR: nothing may be written where it points."""
    st = Stats("a apply through out/sub -> ../elsewhere")
    root = ctx.work / "escape-a"
    if root.exists():
        shutil.rmtree(root)
    samples = photos_from_repo(ctx)
    photos = root / "photos"
    (photos / "sub").mkdir(parents=True)
    shutil.copy2(samples["kodim03.png"], photos / "kodim03.png")
    shutil.copy2(samples["Portrait_8.jpg"], photos / "sub" / "Portrait_8.jpg")
    recipe = copy_recipes(ctx, root / "recipes")[0]
    abs_elsewhere = root / "elsewhere-abs"
    cases = [
        # (label, links to make inside out/, --name, expect refusal of some photo)
        ("sub -> ../elsewhere, --name sub/", {"sub": "../elsewhere"}, "sub/{stem}.{ext}"),
        ("sub -> ../elsewhere, default name ({dir} = sub)", {"sub": "../elsewhere"}, None),
        ("a/sub -> ../../elsewhere, --name a/sub/", {"a/sub": "../../elsewhere"}, "a/sub/{stem}.{ext}"),
        ("sub -> absolute elsewhere", {"sub": str(abs_elsewhere)}, "sub/{stem}.{ext}"),
        ("sub -> ../elsewhere, --name sub/{dir}/", {"sub": "../elsewhere"}, "sub/{dir}/{stem}.{ext}"),
        ("kodim03.png is a link to elsewhere/victim.png", {"kodim03.png": "../elsewhere/victim.png"}, "{stem}.{ext}"),
        ("sub -> ../elsewhere, --shard 1/2", {"sub": "../elsewhere"}, "sub/{stem}.{ext}", ["--shard", "1/2"]),
        ("template ../", {}, "../elsewhere/{stem}.{ext}"),
        ("template {dir}/../../", {}, "{dir}/../../elsewhere/{stem}.{ext}"),
    ]
    for i, case in enumerate(cases):
        label, links, name = case[:3]
        extra = case[3] if len(case) > 3 else []
        for d in ("out", "elsewhere"):
            shutil.rmtree(root / d, ignore_errors=True)
            (root / d).mkdir()
        shutil.rmtree(abs_elsewhere, ignore_errors=True)
        abs_elsewhere.mkdir()
        for where in (root / "elsewhere", abs_elsewhere):
            (where / "keep.txt").write_text("must never change\n")
            write_png(where / "victim.png", 3, 3)
            write_png(where / "kodim03.png", 3, 3)
            (where / "Portrait_8.jpg").write_bytes(b"decoy")
        for rel, target in links.items():
            (root / "out" / rel).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, root / "out" / rel)
        before = snapshot(root, skip=[root / "out"])
        args = [ctx.binary, "apply", "recipes/" + recipe.name, "photos", "-o", "out", "--size", "200"] + extra
        if name:
            args += ["--name", name]
        res = run(ctx, args, cwd=root)
        st.process(res, what=f"(a) {label}", repro=lambda r: repros.save("escape-a", "proc", r.argv, [photos, root / "recipes"]))
        changes = diff(before, snapshot(root, skip=[root / "out"]))
        for line in changes:
            st.fail("outside", f"(a) {label}: {line} [{res.describe()}]",
                    repros.save("escape-a", "outside", args, [photos, root / "recipes"],
                                note=f"make out/ with links {links}, then run repro.sh; it changed: {line}"))
        if links and "victim" not in label and res.rc == 0:
            st.fail("outside", f"(a) {label}: exited 0 though outputs had to go through a link ({res.text(200)})")
        if ctx.verbose:
            print(f"  (a) {label}: {res.describe()} {res.text(160)}")
    return st
