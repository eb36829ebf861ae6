"""Campaign 3: camera raw files with mutated bytes (bit flips, truncation, duplicated chunks,
zeroed spans, TIFF tags declaring huge sizes, huge ISO-BMFF box sizes), each through
`recipe render X -o out.jpg` and `recipe info X`: exit 0, or non-zero with a message naming the
file; never a signal, never a hang; an output either decodes or is absent, with no temporary left."""
import random
import shutil
import struct

from common import Stats, parallel, run

FULL = 2400
RAW_EXT = {".dng", ".cr2", ".cr3", ".nef", ".arw", ".raf", ".orf", ".rw2", ".pef", ".srw", ".kdc",
           ".mrw", ".qtk", ".3fr", ".erf", ".iiq", ".x3f", ".dcr", ".mos", ".nrw", ".sr2", ".gpr"}
TYPE_SIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4}
# Tags whose huge values make a reader allocate or seek: sizes, offsets, counts of samples.
SIZE_TAGS = {256, 257, 258, 273, 277, 278, 279, 322, 323, 324, 325, 330, 513, 514, 34665, 50714, 50717,
             33421, 33422, 50829, 50830, 51008, 51009, 51022, 61440, 61441, 61442, 61443}


def sources(ctx) -> list:
    """The corpus's raw/ (every raw below it) when given, else the repository's sample DNG and
    Tests/Fixtures/raw."""
    found = []
    if ctx.corpus and (ctx.corpus / "raw").is_dir():
        found = [p for p in sorted((ctx.corpus / "raw").rglob("*")) if p.is_file() and p.suffix.lower() in RAW_EXT]
    if not found:
        cands = [ctx.repo / "Recipes" / "photos" / "kodim03-bayer.dng"]
        cands += sorted((ctx.repo / "Tests" / "Fixtures" / "raw").rglob("*"))
        found = [p for p in cands if p.is_file() and p.suffix.lower() in RAW_EXT]
    return found


# ---------------------------------------------------------------- mutators

def tiff_entries(data: bytes):
    """(offset of each 12-byte IFD entry, tag, type, count) of a TIFF-based raw, IFD chain and
    sub-IFDs followed; empty for anything else."""
    if data[:2] == b"II":
        e = "<"
    elif data[:2] == b"MM":
        e = ">"
    else:
        return []
    if len(data) < 8:
        return []
    out, todo, seen = [], [struct.unpack_from(e + "I", data, 4)[0]], set()
    while todo and len(seen) < 64:
        off = todo.pop()
        if off in seen or off + 2 > len(data) or off < 8:
            continue
        seen.add(off)
        n = struct.unpack_from(e + "H", data, off)[0]
        if n > 1000:
            continue
        for k in range(n):
            pos = off + 2 + 12 * k
            if pos + 12 > len(data):
                break
            tag, typ, count = struct.unpack_from(e + "HHI", data, pos)
            out.append((pos, tag, typ, count))
            if tag in (330, 34665, 34853, 40965) and typ in (4, 13) and count >= 1:
                if count == 1:
                    todo.append(struct.unpack_from(e + "I", data, pos + 8)[0])
                else:
                    ptr = struct.unpack_from(e + "I", data, pos + 8)[0]
                    for j in range(min(count, 8)):
                        if ptr + 4 * j + 4 <= len(data):
                            todo.append(struct.unpack_from(e + "I", data, ptr + 4 * j)[0])
        nxt = off + 2 + 12 * n
        if nxt + 4 <= len(data):
            todo.append(struct.unpack_from(e + "I", data, nxt)[0])
    return out


HUGE32 = [0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x10000000, 0x00FFFFFF, 65535, 0]
HUGE16 = [0xFFFF, 0x8000, 0x7FFF, 0]


def m_tiff_tags(rng, data: bytearray) -> str:
    entries = tiff_entries(bytes(data))
    if not entries:
        return m_huge_ints(rng, data)
    e = "<" if data[:2] == b"II" else ">"
    picks = [x for x in entries if x[1] in SIZE_TAGS] or entries
    did = []
    for _ in range(rng.randint(1, 3)):
        pos, tag, typ, count = rng.choice(picks)
        what = rng.random()
        if what < 0.35:       # a huge count: the value no longer fits, and points anywhere
            struct.pack_into(e + "I", data, pos + 4, rng.choice(HUGE32))
            did.append(f"tag {tag} count")
        elif what < 0.85:     # a huge value (width, height, offset, byte count)
            if typ == 3 and count == 1:
                struct.pack_into(e + "H", data, pos + 8, rng.choice(HUGE16))
            else:
                struct.pack_into(e + "I", data, pos + 8, rng.choice(HUGE32))
            did.append(f"tag {tag} value")
        else:                 # a wrong type
            struct.pack_into(e + "H", data, pos + 2, rng.choice([0, 5, 12, 13, 99]))
            did.append(f"tag {tag} type")
    return "tiff " + ", ".join(did)


def m_huge_ints(rng, data: bytearray) -> str:
    for _ in range(rng.randint(1, 6)):
        pos = rng.randrange(0, max(1, min(len(data) - 4, 4096))) if rng.random() < 0.7 else rng.randrange(0, max(1, len(data) - 4))
        data[pos:pos + 4] = struct.pack(rng.choice("<>") + "I", rng.choice(HUGE32))
    return "huge ints"


def m_boxes(rng, data: bytearray) -> str:
    """ISO-BMFF (CR3) box sizes made huge or zero."""
    hits = [i - 4 for i in range(4, min(len(data), 1 << 16) - 4) if data[i:i + 4] in (b"ftyp", b"moov", b"uuid", b"trak", b"mdat", b"CMT1", b"CRAW", b"PRVW", b"THMB")]
    if not hits:
        return m_huge_ints(rng, data)
    for _ in range(rng.randint(1, 3)):
        pos = rng.choice(hits)
        data[pos:pos + 4] = struct.pack(">I", rng.choice([1, 0, 0xFFFFFFFF, 0x7FFFFFFF, 8]))
    return "box sizes"


def m_flip(rng, data: bytearray) -> str:
    n = rng.choice([1, 2, 8, 64, 512])
    head = rng.random() < 0.5
    for _ in range(n):
        pos = rng.randrange(0, min(len(data), 8192)) if head else rng.randrange(0, len(data))
        data[pos] ^= 1 << rng.randrange(8)
    return f"{n} bit flips" + (" (header)" if head else "")


def m_truncate(rng, data: bytearray) -> str:
    keep = rng.choice([0, 1, 7, 8, 16, 64, 512, rng.randrange(1, max(2, len(data))), len(data) // 2, len(data) - 1])
    del data[keep:]
    return f"truncated to {keep}"


def m_duplicate(rng, data: bytearray) -> str:
    start = rng.randrange(0, len(data))
    size = rng.choice([16, 256, 4096, 65536])
    chunk = data[start:start + size]
    at = rng.randrange(0, len(data))
    times = rng.choice([1, 2, 16])
    data[at:at] = chunk * times
    return f"{len(chunk)} bytes duplicated {times}x"


def m_zero(rng, data: bytearray) -> str:
    start = rng.randrange(0, len(data))
    size = rng.choice([4, 64, 1024, 65536, len(data)])
    data[start:start + size] = bytes(len(data[start:start + size]))
    return f"{size} bytes zeroed"


MUTATORS = [m_tiff_tags, m_tiff_tags, m_flip, m_truncate, m_duplicate, m_zero, m_huge_ints, m_boxes]


def mutate(rng, data: bytes):
    data = bytearray(data)
    done = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        if not data:
            break
        done.append(rng.choice(MUTATORS)(rng, data))
    return bytes(data), "; ".join(done)


# ---------------------------------------------------------------- the campaign

def campaign(ctx, repros) -> Stats:
    st = Stats("3 mutated raws")
    root = ctx.work / "raws"
    if root.exists():
        shutil.rmtree(root)
    srcs = sources(ctx)
    if not srcs:
        st.fail("other", "no raw files to mutate")
        return st
    blobs = {p: p.read_bytes() for p in srcs}
    st.note(f"{len(srcs)} raw sources: {', '.join(p.name for p in srcs)}")
    n = ctx.count(FULL)
    rng = ctx.rng("raws")
    plans = []
    for i in range(n):
        src = srcs[i % len(srcs)]
        plans.append((i, src, rng.randrange(1 << 30)))

    outcomes = {}

    def one(plan):
        i, src, seed = plan
        r = random.Random(seed)
        data, how = mutate(r, blobs[src])
        folder = root / f"{i // 100:03d}" / f"m{i}"
        folder.mkdir(parents=True)
        name = f"m{i}-{src.stem[:24]}{src.suffix}"
        x = folder / name
        x.write_bytes(data)
        failures_before = len(st.failures)
        rep = lambda res: repros.save("raws", "case", res.argv, [x], note=f"{src.name}, mutated: {how}", setup="mkdir -p out")
        for args in ([ctx.binary, "render", name, "-o", "out/out.jpg"], [ctx.binary, "info", name]):
            (folder / "out").mkdir(exist_ok=True)
            res = run(ctx, args, cwd=folder)
            ok = st.process(res, what=f"{args[1]} of {src.name} ({how})", repro=rep)
            with st.lock:
                key = f"{args[1]} exit {res.rc}"
                outcomes[key] = outcomes.get(key, 0) + 1
            if ok and res.rc != 0 and name not in res.stderr.decode("utf-8", "replace"):
                st.fail("other", f"{args[1]} of {src.name} ({how}): exit {res.rc}, and its message does not name {name}: {res.text(300)}",
                        rep(res))
            if args[1] == "render" and not res.hang:
                out = folder / "out" / "out.jpg"
                if out.exists():
                    blob = out.read_bytes()
                    chk = run(ctx, [ctx.binary, "info", "out/out.jpg"], cwd=folder)
                    if chk.rc != 0 or not blob.endswith(b"\xff\xd9"):
                        st.fail("other", f"render of {src.name} ({how}) left an output that does not decode (render {res.describe()}; info exit {chk.rc})",
                                rep(res))
                    if res.rc != 0:
                        st.fail("other", f"render of {src.name} ({how}) exited {res.rc} yet wrote out/out.jpg", rep(res))
                elif res.rc == 0:
                    st.fail("other", f"render of {src.name} ({how}) exited 0 without writing out/out.jpg", rep(res))
                for p in (folder / "out").iterdir():
                    if p.name != "out.jpg":
                        st.fail("other", f"render of {src.name} ({how}) left {p.name} beside its output ({res.describe()})", rep(res))
        if len(st.failures) == failures_before:
            shutil.rmtree(folder, ignore_errors=True)
    parallel(ctx, [lambda p=p: one(p) for p in plans], st=st)
    st.note(f"{n} mutated files, each rendered and described: " + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
    return st
