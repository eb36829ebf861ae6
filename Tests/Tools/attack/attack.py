#!/usr/bin/env python3
"""Attack runs against the `recipe` binary: concurrent applies, concurrent edits, mutated raws,
hostile recipes, hostile preview requests, and two path escapes (apply through a linked folder in
OUTDIR; history --extract of a frozen base whose source climbs with `..`).

    python3 Tests/Tools/attack/attack.py --recipe-binary PATH --work DIR [--corpus DIR]
        [--scale 1.0] [--seed 1] [--jobs 8] [--timeout 120] [--only apply,edit,...]
        [--repros DIR] [--race]

Prints, per campaign, runs, crashes (signals we did not send), hangs (timeouts), files written
outside their folder, lost stages or records, other failures; exits 1 on any failure, 2 on a usage
error. See README.md beside this file. Python 3.10+, standard library only."""
import argparse
import os
import sys
import time
import traceback
from pathlib import Path

sys.dont_write_bytecode = True  # leave no __pycache__ in the repository
sys.path.insert(0, str(Path(__file__).resolve().parent))

import camp_apply    # noqa: E402
import camp_edit     # noqa: E402
import camp_preview  # noqa: E402
import camp_raws     # noqa: E402
import camp_recipes  # noqa: E402
from common import Context, Repros, Stats  # noqa: E402

CAMPAIGNS = {
    "apply": lambda ctx, rp, a: camp_apply.campaign(ctx, rp, race=a.race),
    "edit": lambda ctx, rp, a: camp_edit.campaign(ctx, rp),
    "raws": lambda ctx, rp, a: camp_raws.campaign(ctx, rp),
    "recipes": lambda ctx, rp, a: camp_recipes.campaign(ctx, rp),
    "preview": lambda ctx, rp, a: camp_preview.campaign(ctx, rp),
    "escape-a": lambda ctx, rp, a: camp_apply.escapes(ctx, rp),
    "escape-b": lambda ctx, rp, a: camp_edit.escapes(ctx, rp),
}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--recipe-binary", required=True, help="the recipe executable (recipe-preview beside it for the preview campaign)")
    p.add_argument("--corpus", help="the shared corpus folder (its raw/ feeds the mutated raws)")
    p.add_argument("--work", required=True, help="a scratch folder (made; its campaign folders are replaced)")
    p.add_argument("--scale", type=float, default=1.0, help="multiplies every count (1.0: 180 applies, 260 edits, "
                   "2,400 raws, 360 recipe runs, 2,750 requests)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=8, help="processes at once (8-16 intended)")
    p.add_argument("--timeout", type=float, default=120, help="seconds a process may run; past it, a hang")
    p.add_argument("--request-timeout", type=float, default=15, help="seconds a preview request may take to be answered or closed")
    p.add_argument("--only", help="comma-separated campaigns: " + ",".join(CAMPAIGNS))
    p.add_argument("--repros", help="where failures are copied with their command (default: WORK/repros)")
    p.add_argument("--preview-binary", help="recipe-preview, for the preview campaign, when it is neither beside "
                   "recipe nor on PATH (linked into WORK/preview-bin, first on PATH)")
    p.add_argument("--race", action="store_true", help="campaign 1 also swaps out/swap between a folder and a link "
                   "out while applies write through it (a check-then-write race; off by default)")
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args(argv)

    binary = Path(os.path.abspath(a.recipe_binary))
    if not binary.is_file() or not os.access(binary, os.X_OK):
        p.error(f"{a.recipe_binary}: not an executable file")
    only = [c.strip() for c in a.only.split(",")] if a.only else list(CAMPAIGNS)
    for c in only:
        if c not in CAMPAIGNS:
            p.error(f"--only: unknown campaign {c!r} (campaigns: {', '.join(CAMPAIGNS)})")
    work = Path(a.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    ctx = Context(binary=str(binary), repo=Path(__file__).resolve().parents[3],
                  corpus=Path(a.corpus).resolve() if a.corpus else None, work=work,
                  repros=Path(a.repros).resolve() if a.repros else work / "repros",
                  scale=a.scale, seed=a.seed, timeout=a.timeout, jobs=a.jobs,
                  request_timeout=a.request_timeout, verbose=a.verbose,
                  preview_binary=os.path.abspath(a.preview_binary) if a.preview_binary else None)
    ctx.repros.mkdir(parents=True, exist_ok=True)
    repros = Repros(ctx.repros)
    print(f"recipe: {binary}\nwork: {work}\nscale {a.scale}, seed {a.seed}, {a.jobs} at once, "
          f"timeout {a.timeout:g} s per process", flush=True)
    results = []
    for name in only:
        print(f"\n== {name}", flush=True)
        start = time.monotonic()
        try:
            st = CAMPAIGNS[name](ctx, repros, a)
        except Exception:
            st = Stats(name)
            st.fail("other", f"the harness failed: {traceback.format_exc()}")
        st.seconds = time.monotonic() - start
        results.append(st)
        report(st)
    print("\n" + table(results))
    print(f"\nrepros: {ctx.repros}" if any(s.failed for s in results) else "")
    return 1 if any(s.failed for s in results) else 0


def report(st: Stats):
    for n in st.notes:
        print(f"  note: {n}")
    for f in st.failures[:60]:
        print(f"  FAIL [{f.kind}] {f.message}" + (f"\n       repro: {f.repro}" if f.repro else ""))
    if len(st.failures) > 60:
        print(f"  … and {len(st.failures) - 60} more failures")
    print(f"  {st.name}: {st.runs} runs, {st.crashes} crashes, {st.hangs} hangs, {st.outside} outside, "
          f"{st.lost} lost, {st.other} other, {st.killed} SIGKILLed on purpose, {st.checks} checking processes, "
          f"{st.seconds:.0f} s", flush=True)


def table(results) -> str:
    head = ("campaign", "runs", "crashes", "hangs", "outside writes", "lost", "other", "killed (ours)", "checks", "seconds")
    rows = [head] + [(s.name, s.runs, s.crashes, s.hangs, s.outside, s.lost, s.other, s.killed, s.checks, f"{s.seconds:.0f}") for s in results]
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(head))]
    lines = ["| " + " | ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    verdict = "FAILED" if any(s.failed for s in results) else "passed"
    return "\n".join(lines) + f"\n\n{verdict}"


if __name__ == "__main__":
    sys.exit(main())
