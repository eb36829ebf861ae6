"""Campaign 4: malformed and hostile recipes through `check`, `explain`, `render`, `apply` and
`fmt`: exit 0, or 1/2 with a diagnostic; never a signal or a hang; `fmt` never replaces a linked
recipe with a plain file; nothing written outside the outputs and the recipe itself."""
import os
import shutil

from common import CUBE, Stats, diff, parallel, photos_from_repo, run, snapshot, write_png

FULL = 360          # processes: five commands per recipe
COMMANDS = 5
HEAD = "format: dev.recipe.edit\nversion: 1.2\n"
OK = HEAD + "stages:\n  - exposure: 0.1\n"


def stage(s: str) -> bytes:
    return (HEAD + "stages:\n  - " + s + "\n").encode()


def wm(image: str, extra: str = "") -> bytes:
    return (OK + f"output:\n  watermark: {{image: {image}{extra}}}\n").encode()


# Each builder gets (rng, the case's folder, the guard folder) and returns the recipe's bytes; it
# may lay files (LUTs, links, FIFOs) beside the recipe.

def deep_seq(r, d, g):
    n = r.choice([1000, 10000, 200000])
    return (HEAD + "stages: " + "[" * n + "]" * n + "\n").encode()


def deep_map(r, d, g):
    n = r.choice([1000, 10000, 200000])
    return (HEAD + "stages:\n  - exposure: " + "{a: " * n + "1" + "}" * n + "\n").encode()


def deep_block(r, d, g):
    n = r.choice([500, 3000])
    return (HEAD + "stages:\n" + "".join("  " * k + "- \n" for k in range(1, n)) + "  " * n + "- exposure: 1\n").encode()


def alias_bomb(r, d, g):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for k in range(1, 10):
        lines.append(f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 9) + "]")
    return (HEAD + "\n".join(lines) + "\nstages:\n  - exposure: 0.1\n    note: *a9\n").encode()


def alias_stages(r, d, g):
    return (HEAD + "x: &s [{exposure: 0.1}, {exposure: 0.1}]\ny: &t [*s, *s, *s, *s, *s, *s, *s, *s]\n"
            "z: &u [*t, *t, *t, *t, *t, *t, *t, *t]\nstages: *u\n").encode()


def alias_cycle(r, d, g):
    return (HEAD + "stages: &a\n  - *a\n  - exposure: 0.1\n").encode()


def huge_numbers(r, d, g):
    v = r.choice(["1e308", "1e400", "-1e400", "99999999999999999999999999999999", "4.9e-324",
                  "0x7fffffffffffffff", "1" * 5000, "-0", "1_000_000", "0o777"])
    return stage(r.choice([f"exposure: {v}", f"blur: {v}", f"resize: {{width: {v}, height: {v}}}",
                           f"crop: [0, 0, {v}, {v}]", f"vignette: {{amount: {v}, radius: {v}}}",
                           f"curve: [[0, 0], [{v}, 0.5], [1, 1]]", f"rotate: {v}", f"straighten: {v}"]))


def nan_inf(r, d, g):
    v = r.choice([".nan", ".NaN", ".inf", "-.inf", ".Inf", "nan", "inf", "NaN", "-.INF"])
    return stage(r.choice([f"exposure: {v}", f"matrix: [[{v}, 0, 0], [0, 1, 0], [0, 0, 1]]",
                           f"white-balance: {{temp: {v}}}", f"levels: {{gamma: {v}}}",
                           f"sharpen: {{amount: 1, sigma: {v}}}", f"lut: {{file: x.cube, amount: {v}}}"]))


def huge_resize(r, d, g):
    return stage(r.choice(["resize: {width: 1000000, height: 1000000}", "resize: {width: 2147483647}",
                           "blur: 100000", "straighten: 44.99999", "crop: {aspect: 100000:1}",
                           "clarity: {amount: 1, radius: 100000}"]))


def unknown_keys(r, d, g):
    return r.choice([(OK + "colour: blue\n"), (HEAD + "stages:\n  - exposur: 0.1\n"),
                     (HEAD + "stages:\n  - exposure: 0.1\n    frobnicate: true\n"),
                     (HEAD + "stages:\n  - {exposure: 0.1, blur: 1}\n"),
                     (OK + "output: {wattermark: {image: x.png}}\n")]).encode()


def wrong_types(r, d, g):
    return r.choice([HEAD + "stages: hello\n", HEAD + "stages: {exposure: 1}\n", "format: [1]\nversion: {a: 1}\nstages: []\n",
                     HEAD + "stages:\n  - exposure: [1, 2]\n", HEAD + "stages:\n  - exposure: {ev: yes}\n",
                     HEAD + "stages:\n  - exposure: \"0.1\"\n", HEAD + "stages:\n  - 42\n", HEAD + "stages:\n  - null\n",
                     HEAD + "stages:\n  - lut: 7\n", OK + "output: 12\n", OK + "output: {watermark: [1, 2]}\n",
                     OK + "params: [1, 2]\n", "42\n", "- a\n- b\n", "version: 1.2\n"]).encode()


def lut_dotdot(r, d, g):
    rel = os.path.relpath(g / "secret.cube", d)
    return stage(f"lut: {{file: {r.choice([rel, '../../guard/secret.cube', '../' * 30 + 'etc/passwd', 'x/../../../guard/secret.cube'])}}}")


def lut_absolute(r, d, g):
    return stage(f"lut: {{file: {r.choice([str(g / 'secret.cube'), '/etc/passwd', '/dev/zero', '/dev/urandom', '/proc/self/mem', '/dev/stdin', '/proc/self/fd/0', '/'])}}}")


def lut_link_out(r, d, g):
    os.symlink(os.path.relpath(g / "secret.cube", d), d / "look.cube")
    return stage("lut: {file: look.cube}")


def lut_link_chain(r, d, g):
    os.symlink("sub/look.cube", d / "look.cube")
    (d / "sub").mkdir()
    os.symlink(os.path.relpath(g, d / "sub"), d / "sub" / "out")
    os.symlink("out/secret.cube", d / "sub" / "look.cube")
    return stage("lut: {file: look.cube}")


def lut_fifo(r, d, g):
    os.mkfifo(d / "look.cube")
    return stage("lut: {file: look.cube}")


def lut_special(r, d, g):
    (d / "folder.cube").mkdir()
    os.symlink("/dev/zero", d / "zero.cube")
    os.symlink("loop.cube", d / "loop.cube")
    return stage(f"lut: {{file: {r.choice(['folder.cube', 'zero.cube', 'loop.cube', 'missing.cube'])}}}")


def lut_huge(r, d, g):
    (d / "big.cube").write_text(r.choice(["LUT_3D_SIZE 100000\n0 0 0\n", "LUT_3D_SIZE 256\n" + "0 0 0\n" * 10,
                                          "LUT_1D_SIZE 4294967295\n0 0 0\n", "LUT_3D_SIZE -1\n",
                                          "LUT_3D_SIZE 2\n" + "nan inf -inf\n" * 8, "\x00" * 1000]))
    return stage("lut: {file: big.cube}")


def wm_dotdot(r, d, g):
    return wm(r.choice([os.path.relpath(g / "secret.png", d), "../../guard/secret.png", "../" * 30 + "etc/passwd"]))


def wm_absolute(r, d, g):
    return wm(r.choice([str(g / "secret.png"), "/etc/passwd", "/dev/zero", "/dev/urandom", "/proc/self/mem"]))


def wm_link_out(r, d, g):
    os.symlink(os.path.relpath(g / "secret.png", d), d / "logo.png")
    return wm("logo.png")


def wm_fifo(r, d, g):
    os.mkfifo(d / "logo.png")
    return wm("logo.png")


def wm_bomb(r, d, g):
    write_png(d / "logo.png", 1, 1, declared=r.choice([(100000, 100000), (0x7fffffff, 1), (1, 0x7fffffff), (0, 0)]))
    return wm("logo.png")


def wm_params(r, d, g):
    write_png(d / "logo.png", 8, 8)
    return wm("logo.png", r.choice([", scale: 1e9%", ", scale: -5%", ", opacity: .nan", ", margin: 1e400%",
                                    ", position: center-of-the-universe", ", scale: 0%", ", opacity: 99"]))


def output_hostile(r, d, g):
    return (OK + "output:\n  " + r.choice(["quality: 1000000000", "max-bytes: -5", "max-bytes: 1", "format: ../../x",
                                           "format: \"jpeg\\u0000png\"", "profile: /etc/passwd", "profile: ../../guard/secret.cube",
                                           "metadata: {keep: all, strip: [location, {a: 1}]}", "sharpen: {for: matte, amount: 1e308}",
                                           "quality: .nan"]) + "\n").encode()


def bom(r, d, g):
    return r.choice([b"\xef\xbb\xbf" + OK.encode(), b"\xef\xbb\xbf\xef\xbb\xbf" + OK.encode(), b"\xff\xfe" + OK.encode("utf-16-le"),
                     b"\xfe\xff" + OK.encode("utf-16-be"), OK.encode() + b"\xef\xbb\xbf"])


def bad_utf8(r, d, g):
    bad = r.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80\x80", b"\xe2\x82"])
    return r.choice([OK.encode() + b"# comment " + bad + b"\n", HEAD.encode() + b"note: " + bad + b"\n" + b"stages:\n  - exposure: 0.1\n",
                     HEAD.encode() + b"stages:\n  - id: " + bad + b"\n    exposure: 0.1\n", HEAD.encode() + b"stages:\n  - expos" + bad + b"ure: 0.1\n"])


def ten_mb(r, d, g):
    big = "x" * (10 << 20)
    return r.choice([OK + f"note: \"{big}\"\n", OK + f"# {big}\n", HEAD + f"stages:\n  - {big}: 1\n",
                     HEAD + f"stages:\n  - id: {big}\n    exposure: 0.1\n", OK + f"{big}: 1\n"]).encode()


def sidecar_sized(r, d, g):
    return (OK + "note: \"" + "y" * (17 << 20) + "\"\n").encode()


def conflict_markers(r, d, g):
    return r.choice([HEAD + "stages:\n<<<<<<< ours\n  - exposure: 0.1\n=======\n  - exposure: 0.2\n>>>>>>> theirs\n",
                     "<<<<<<< HEAD\n" + OK + "=======\n" + OK + ">>>>>>> branch\n",
                     HEAD + "stages:\n  - exposure: {conflict: {ours: 0.1, theirs: 0.2, base: 0}}\n"]).encode()


def nul_bytes(r, d, g):
    return r.choice([OK.encode() + b"\x00", HEAD.encode() + b"stages:\n  - exposure: 0.1\x00\n", b"\x00" * 4096,
                     HEAD.encode() + b"stages:\n  - lut: {file: \"a.cube\\0../../x\"}\n"])


def many_stages(r, d, g):
    n = r.choice([257, 10000, 100000])
    return (HEAD + "stages:\n" + "  - exposure: 0.001\n" * n).encode()


def yaml_tags(r, d, g):
    return r.choice([HEAD + "stages:\n  - !!python/object/apply:os.system [\"touch PWNED\"]\n",
                     HEAD + "stages:\n  - exposure: !!binary aGVsbG8=\n", HEAD + "stages: !custom\n  - exposure: 0.1\n",
                     "%YAML 1.1\n%TAG ! tag:example.com,2000:\n---\n" + OK, HEAD + "stages:\n  - exposure: !!float 0.1\n",
                     HEAD + "stages:\n  - exposure: !!str 0.1\n", "%YAML 9.9\n---\n" + OK]).encode()


def documents(r, d, g):
    return r.choice(["", "---\n", "# only a comment\n", OK + "---\n" + OK, "...\n", OK + "...\ngarbage: [\n", "---\n---\n---\n",
                     "\n" * 100000, " " * 100000, "\t" + OK]).encode()


def duplicates(r, d, g):
    return r.choice([OK + "stages: []\n", HEAD + "version: 1.2\nstages:\n  - exposure: 0.1\n",
                     HEAD + "stages:\n  - exposure: 0.1\n    exposure: 0.2\n",
                     HEAD + "stages:\n  - {id: a, exposure: 0.1}\n  - {id: a, exposure: 0.2}\n"]).encode()


def merge_keys(r, d, g):
    return (HEAD + "base: &b {exposure: 0.1}\nstages:\n  - <<: *b\n    id: x\n  - <<: [*b, *b]\n").encode()


def params_hostile(r, d, g):
    v = r.choice([".nan", "1e400", "\"abc\"", "[1]", "{a: 1}", "null", "-.inf"])
    return (HEAD + f"params:\n  p: {{default: {v}}}\n  \"$q\": {{default: 1}}\nstages:\n  - exposure: $p\n  - blur: $missing\n").encode()


def line_endings(r, d, g):
    return r.choice([OK.replace("\n", "\r\n"), OK.replace("\n", "\r"), OK.replace("  ", "\t"),
                     OK.replace("\n", "\u2028"), OK + "\x1b[31m# escape\x1b[0m\n"]).encode()


def unicode_tricks(r, d, g):
    return r.choice([HEAD + "stages:\n  - id: \u202eevil\u202c\n    exposure: 0.1\n",
                     HEAD + "stages:\n  - \u0435xposure: 0.1\n",   # a Cyrillic e
                     HEAD + "stages:\n  - exposure: \uff10.1\n",
                     HEAD + "note: \"" + "\U0001F600" * 100000 + "\"\nstages:\n  - exposure: 0.1\n",
                     HEAD + "stages:\n  - id: \u0000\u200b\ufeff\n    exposure: 0.1\n"]).encode()


def long_line(r, d, g):
    return (HEAD + "stages: [" + ", ".join(["{exposure: 0.0001}"] * 60000) + "]\n").encode()


def version_odd(r, d, g):
    return r.choice(["format: dev.recipe.edit\nversion: 99\nstages: []\n", "format: dev.recipe.edit\nversion: 1.999999999999999999\nstages: []\n",
                     "format: com.other\nversion: 1\nstages: []\n", "format: dev.recipe.edit\nversion: -1\nstages: []\n",
                     "format: dev.recipe.edit\nversion: 1.0\nstages:\n  - exposure: 0.1\n"]).encode()


def blend_cycle(r, d, g):
    return (HEAD + "stages:\n  - id: a\n    blend: {with: b}\n  - id: b\n    blend: {with: a}\n  - id: c\n    blend: {with: c}\n").encode()


def sidecar_original(r, d, g):
    return (HEAD + "original: {file: ../../guard/secret.png, sha256: " + "0" * 64 + ", size: -1}\nstages:\n"
            "  - base: {format: x, version: \"1\", source: ../../../F, pixels: {sha256: ../../x, size: 1, type: jpeg}, data: hi, data-sha256: 00}\n"
            "  - exposure: 0.1\n").encode()


BUILDERS = [deep_seq, deep_map, deep_block, alias_bomb, alias_stages, alias_cycle, huge_numbers, nan_inf,
            huge_resize, unknown_keys, wrong_types, lut_dotdot, lut_absolute, lut_link_out, lut_link_chain,
            lut_fifo, lut_special, lut_huge, wm_dotdot, wm_absolute, wm_link_out, wm_fifo, wm_bomb, wm_params,
            output_hostile, bom, bad_utf8, ten_mb, sidecar_sized, conflict_markers, nul_bytes, many_stages,
            yaml_tags, documents, duplicates, merge_keys, params_hostile, line_endings, unicode_tricks,
            long_line, version_odd, blend_cycle, sidecar_original]


def campaign(ctx, repros) -> Stats:
    st = Stats("4 hostile recipes")
    root = ctx.work / "recipes"
    if root.exists():
        shutil.rmtree(root)
    for d in ("photos", "guard", "cases", "real", "out", "outa"):
        (root / d).mkdir(parents=True)
    samples = photos_from_repo(ctx)
    shutil.copy2(samples["kodim03.png"], root / "photos" / "p.png")
    guard = root / "guard"
    (guard / "secret.cube").write_text(CUBE)
    write_png(guard / "secret.png", 16, 16)
    (guard / "keep.txt").write_text("must never change\n")
    rng = ctx.rng("recipes")
    n = max(1, ctx.count(FULL) // COMMANDS)
    cases = []
    for i in range(n):
        build = BUILDERS[i % len(BUILDERS)]
        d = root / "cases" / f"r{i:03d}"
        d.mkdir()
        data = build(rng, d, guard)
        linked = rng.random() < 0.3
        recipe = d / "look.recipe.yaml"
        if linked:
            target = root / "real" / f"r{i:03d}.recipe.yaml"
            target.write_bytes(data)
            os.symlink(os.path.relpath(target, d), recipe)
        else:
            recipe.write_bytes(data)
            target = recipe
        cases.append((i, build.__name__, d, recipe, target, linked))
    # One dangling link as a recipe: fmt must refuse it and write nothing.
    dangling = root / "cases" / "dangling"
    dangling.mkdir()
    os.symlink("../../real/nothing.recipe.yaml", dangling / "look.recipe.yaml")
    before = snapshot(root, skip=[root / "out", root / "outa"])

    def one(case):
        i, kind, d, recipe, target, linked = case
        rel_photo = os.path.relpath(root / "photos" / "p.png", d)
        out = os.path.relpath(root / "out" / f"r{i:03d}.jpg", d)
        outa = os.path.relpath(root / "outa" / f"r{i:03d}", d)
        commands = [
            ["check", recipe.name],
            ["explain", recipe.name, "--photo", rel_photo],
            ["render", rel_photo, "--recipe", recipe.name, "-o", out, "--size", "300"],
            ["apply", recipe.name, os.path.dirname(rel_photo), "-o", outa, "--size", "300"],
            ["fmt", recipe.name],
        ]
        files = [d, target] if linked else [d]
        for cmd in commands:
            res = run(ctx, [ctx.binary] + cmd, cwd=d)
            st.process(res, what=f"{cmd[0]} of a {kind} recipe (cases/r{i:03d})",
                       repro=lambda r: repros.save("recipes", kind, r.argv, files,
                                                   note=f"{kind}; the recipe {'is a link to ' + str(target) if linked else 'is look.recipe.yaml'}; "
                                                        f"paths as in the work folder: cases/r{i:03d}/ beside photos/, guard/, out/"))
        if linked and not recipe.is_symlink():
            st.fail("outside", f"fmt replaced the linked recipe cases/r{i:03d}/look.recipe.yaml ({kind}) with a plain file",
                    repros.save("recipes", "fmt-link", [ctx.binary, "fmt", recipe.name], files))
    parallel(ctx, [lambda c=c: one(c) for c in cases], st=st)
    res = run(ctx, [ctx.binary, "fmt", "look.recipe.yaml"], cwd=dangling)
    st.process(res, what="fmt of a dangling linked recipe")
    if res.rc == 0:
        st.fail("other", "fmt of a recipe that is a link to nothing exited 0")
    allowed = []
    for i, kind, d, recipe, target, linked in cases:
        allowed.append(os.path.relpath(target, root))
    after = snapshot(root, skip=[root / "out", root / "outa"])
    for line in diff(before, after, allowed):
        st.fail("outside", f"hostile recipes: {line}")
    for p in list((root / "out").rglob("*")) + list((root / "outa").rglob("*")):
        if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in (".jpg", ".png"):
            res = run(ctx, [ctx.binary, "info", p.name], cwd=p.parent)
            st.process(res, allowed=(0,), what=f"output {p.relative_to(root)} does not decode", aux=True)
    for p in root.rglob("*"):
        if "recipe-tmp" in p.name:
            st.note(f"temporary left: {p.relative_to(root)}")
    st.note(f"{len(cases)} hostile recipes ({len(BUILDERS)} kinds, {sum(1 for c in cases if c[5])} of them links), {COMMANDS} commands each")
    return st
