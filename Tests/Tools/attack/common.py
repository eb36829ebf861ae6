"""Shared pieces of the attack harness: running a process with a timeout (a timeout is a hang),
telling our own SIGKILLs from crashes, per-campaign counters, tree snapshots for "nothing written
outside", and repro folders for every failure. Python 3 standard library only."""
import concurrent.futures
import hashlib
import os
import random
import shlex
import shutil
import signal
import stat
import subprocess
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path


# ---------------------------------------------------------------- the run's settings

@dataclass
class Context:
    binary: str          # the recipe executable (absolute)
    repo: Path           # the repository this harness lives in (for Recipes/ and Tests/Fixtures/)
    corpus: Path | None  # the shared corpus (optional)
    work: Path           # scratch folder, made by the harness
    repros: Path         # where failures are copied with their command
    scale: float
    seed: int
    timeout: float       # per process; over it is a hang
    jobs: int            # processes at once
    request_timeout: float = 15.0  # per preview request
    preview_binary: str | None = None  # recipe-preview, when it is not beside recipe nor on PATH
    verbose: bool = False

    def count(self, full: int) -> int:
        """A campaign's count at this scale (at least 1 when the scale is above 0)."""
        return max(1, int(round(full * self.scale))) if self.scale > 0 else 0

    def rng(self, name: str) -> random.Random:
        return random.Random(f"{self.seed}:{name}")


# ---------------------------------------------------------------- processes

@dataclass
class Result:
    argv: list
    cwd: str
    rc: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    seconds: float = 0.0
    hang: bool = False        # ran past the timeout (then killed)
    killed: bool = False      # we sent SIGKILL on purpose, and it was still running

    @property
    def signal(self) -> int | None:
        return -self.rc if self.rc is not None and self.rc < 0 else None

    @property
    def crashed(self) -> bool:
        """Died by a signal we did not send."""
        return self.signal is not None and not self.killed and not self.hang

    def text(self, limit: int = 600) -> str:
        err = self.stderr.decode("utf-8", "replace").strip()
        return err[:limit] + (" …" if len(err) > limit else "")

    def command(self) -> str:
        return " ".join(shlex.quote(str(a)) for a in self.argv)

    def describe(self) -> str:
        if self.hang:
            state = f"no answer in {self.seconds:.0f} s (killed)"
        elif self.signal is not None:
            state = f"killed by signal {signal_name(self.signal)}" + (" (ours)" if self.killed else "")
        else:
            state = f"exit {self.rc}"
        return f"{state}: (cd {shlex.quote(self.cwd)} && {self.command()})"


def signal_name(n: int) -> str:
    try:
        return signal.Signals(n).name
    except ValueError:
        return str(n)


def run(ctx: Context, argv, cwd, kill_after: float | None = None, timeout: float | None = None,
        env: dict | None = None, stdin_bytes: bytes | None = None, kill_when=None) -> Result:
    """Runs argv in its own process group. `kill_after` seconds in, or as soon as `kill_when()`
    says so (polled every 5 ms), SIGKILL (on purpose); past `timeout` (default ctx.timeout),
    SIGKILL and a hang. Its output is drained all along, so a chatty process never blocks."""
    argv = [str(a) for a in argv]
    timeout = ctx.timeout if timeout is None else timeout
    res = Result(argv=argv, cwd=str(cwd))
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.PIPE if stdin_bytes is not None else subprocess.DEVNULL,
                            start_new_session=True, env=env)
    bufs = (bytearray(), bytearray())

    def drain(stream, buf):
        for chunk in iter(lambda: stream.read1(65536), b""):
            buf.extend(chunk)
    threads = [threading.Thread(target=drain, args=(s, b), daemon=True) for s, b in zip((proc.stdout, proc.stderr), bufs)]
    if stdin_bytes is not None:
        def feed():
            try:
                proc.stdin.write(stdin_bytes)
                proc.stdin.close()
            except OSError:
                pass
        threads.append(threading.Thread(target=feed, daemon=True))
    for t in threads:
        t.start()
    while True:
        elapsed = time.monotonic() - start
        step = timeout - elapsed
        if kill_after is not None:
            step = min(step, kill_after - elapsed)
        if kill_when is not None:
            step = min(step, 0.005)
        try:
            proc.wait(timeout=max(step, 0.001))
            break
        except subprocess.TimeoutExpired:
            elapsed = time.monotonic() - start
            if (kill_after is not None and elapsed >= kill_after) or (kill_when is not None and kill_when()):
                killpg(proc)
                res.killed = True
            elif elapsed >= timeout:
                killpg(proc)
                res.hang = True
            else:
                continue
            proc.wait()
            break
    for t in threads:
        t.join(timeout=30)
    res.rc = proc.returncode
    res.stdout, res.stderr = bytes(bufs[0]), bytes(bufs[1])
    res.seconds = time.monotonic() - start
    if res.killed and res.rc is not None and res.rc >= 0:
        res.killed = False  # it had finished on its own
    return res


def killpg(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except PermissionError:
        proc.kill()


def parallel(ctx: Context, tasks, jobs: int | None = None, st=None):
    """Runs the callables `tasks` on ctx.jobs threads (each typically runs one process);
    returns their results in order. An exception in a task is re-raised after all have run, or,
    with `st`, counted there as a failure of the harness (and its result is None)."""
    def guarded(t):
        try:
            return t()
        except Exception:
            if st is None:
                raise
            st.fail("other", f"the harness failed in a task: {traceback.format_exc()}")
            return None
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs or ctx.jobs) as pool:
        futures = [pool.submit(guarded, t) for t in tasks]
        concurrent.futures.wait(futures)
        return [f.result() for f in futures]


# ---------------------------------------------------------------- counters

@dataclass
class Failure:
    kind: str      # crash, hang, outside, lost, other
    message: str
    repro: str = ""


@dataclass
class Stats:
    name: str
    runs: int = 0
    crashes: int = 0
    hangs: int = 0
    outside: int = 0
    lost: int = 0
    other: int = 0
    killed: int = 0          # processes we SIGKILLed on purpose
    checks: int = 0          # processes the harness ran to verify (info, check, settling runs)
    seconds: float = 0.0
    notes: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def failed(self) -> bool:
        return bool(self.crashes or self.hangs or self.outside or self.lost or self.other)

    def fail(self, kind: str, message: str, repro: str = ""):
        counter = {"crash": "crashes", "hang": "hangs"}.get(kind, kind)
        with self.lock:
            setattr(self, counter, getattr(self, counter) + 1)
            self.failures.append(Failure(kind, message, repro))

    def note(self, message: str):
        with self.lock:
            self.notes.append(message)

    def process(self, res: Result, allowed=(0, 1, 2), diagnostic=True, repro=None, what="", aux=False) -> bool:
        """Counts one process and classifies how it ended. `repro` (callable giving a repro
        folder) is called only on a failure. True when it ended acceptably (a SIGKILL of ours
        included)."""
        with self.lock:
            if aux:
                self.checks += 1
            else:
                self.runs += 1
            if res.killed:
                self.killed += 1
        prefix = f"{what}: " if what else ""
        problem = None
        if res.hang:
            problem = ("hang", f"{prefix}{res.describe()}")
        elif res.crashed:
            problem = ("crash", f"{prefix}{res.describe()}\n    {res.text()}")
        elif res.killed:
            return True
        elif res.rc not in allowed:
            problem = ("other", f"{prefix}unexpected {res.describe()}\n    {res.text()}")
        elif res.rc != 0 and diagnostic and not res.stderr.strip():
            problem = ("other", f"{prefix}{res.describe()} with no diagnostic on stderr")
        if problem:
            self.fail(problem[0], problem[1], repro(res) if repro else "")
            return False
        return True


# ---------------------------------------------------------------- repro folders

class Repros:
    """Each failure gets a folder: the inputs it needs and `repro.sh` with the exact command,
    written to run from inside that folder with the binary as $RECIPE (first argument)."""

    def __init__(self, root: Path, per_kind: int = 8):
        self.root = root
        self.per_kind = per_kind
        self.counts: dict = {}
        self.lock = threading.Lock()

    def save(self, campaign: str, kind: str, argv, files=(), note: str = "", blobs=None, setup: str = "") -> str:
        with self.lock:
            n = self.counts.get((campaign, kind), 0) + 1
            self.counts[(campaign, kind)] = n
        if n > self.per_kind:
            return ""
        folder = self.root / f"{campaign}-{kind}-{n:02d}"
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for f in files:
            f = Path(f)
            try:
                if f.is_symlink():
                    os.symlink(os.readlink(f), folder / f.name)
                elif f.is_dir():
                    shutil.copytree(f, folder / f.name, symlinks=True)
                elif f.exists() and stat.S_ISREG(f.stat().st_mode):
                    shutil.copy2(f, folder / f.name)
            except OSError as e:
                note += f"\n(could not copy {f}: {e})"
        for name, data in (blobs or {}).items():
            (folder / name).write_bytes(data)
        cmd = " ".join("\"$RECIPE\"" if i == 0 else shlex.quote(str(a)) for i, a in enumerate(argv))
        (folder / "repro.sh").write_text(
            "#!/bin/sh\n# usage: sh repro.sh /path/to/recipe   (run inside this folder)\n"
            f"RECIPE=\"${{1:?the recipe binary}}\"\n{setup + chr(10) if setup else ''}{cmd}\necho \"exit $?\"\n")
        if note:
            (folder / "NOTE.txt").write_text(note.strip() + "\n")
        return str(folder)


# ---------------------------------------------------------------- files

def sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def snapshot(root: Path, skip=()) -> dict:
    """Every entry below root, links not followed: relative path -> what it is (a file's size and
    SHA-256, a link's target, a folder, a FIFO). Folders in `skip` (paths) are not entered."""
    root = Path(root)
    skip = {os.path.abspath(s) for s in skip}
    out = {}

    def walk(d: str):
        try:
            entries = list(os.scandir(d))
        except OSError as e:
            out[os.path.relpath(d, root) + "/"] = ("unreadable", str(e))
            return
        for e in entries:
            p = e.path
            rel = os.path.relpath(p, root)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir",)
                if os.path.abspath(p) not in skip:
                    walk(p)
            elif stat.S_ISREG(st.st_mode):
                try:
                    out[rel] = ("file", st.st_size, sha256(p))
                except OSError as ex:
                    out[rel] = ("file", st.st_size, f"unreadable: {ex}")
            elif stat.S_ISFIFO(st.st_mode):
                out[rel] = ("fifo",)
            else:
                out[rel] = ("special", stat.S_IFMT(st.st_mode))
    walk(str(root))
    return out


def diff(before: dict, after: dict, allowed=()) -> list:
    """What appeared, changed or went between two snapshots, as lines; `allowed` paths (relative)
    and anything below them are ignored."""
    allowed = tuple(a.rstrip("/") for a in allowed)

    def ok(p):
        return any(p == a or p.startswith(a + "/") for a in allowed)
    lines = []
    for p in sorted(set(before) | set(after)):
        if ok(p):
            continue
        b, a = before.get(p), after.get(p)
        if b == a:
            continue
        if b is None:
            lines.append(f"appeared: {p} {a[0]}")
        elif a is None:
            lines.append(f"went: {p} {b[0]}")
        else:
            lines.append(f"changed: {p} ({b[0]} -> {a[0]})")
    return lines


def litter(folder: Path, recursive=False) -> list:
    """Temporaries recipe leaves when killed (`.NAME.recipe-tmp-XXXXXX`)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    it = folder.rglob("*") if recursive else folder.iterdir()
    return sorted(str(p) for p in it if "recipe-tmp" in p.name and not p.is_symlink())


def temp_appears(folder):
    """A `kill_when` for run(): true once a `*recipe-tmp*` file exists below folder (links to
    folders not followed), i.e. while some writer is midway."""
    folder = os.path.realpath(folder)

    def check():
        for _, _, files in os.walk(folder):
            if any("recipe-tmp" in f for f in files):
                return True
        return False
    return check


def write_png(path, width: int, height: int, rgba: bool = True, pixels: bytes | None = None,
              declared: tuple | None = None):
    """A small PNG (solid colour, or given pixel rows); `declared` writes other IHDR dimensions
    than the data has (a decompression bomb's header)."""
    import struct
    import zlib
    channels = 4 if rgba else 3
    if pixels is None:
        row = bytes([200, 30, 30, 160][:channels]) * width
        pixels = b"".join(b"\x00" + row for _ in range(height))
    w, h = declared or (width, height)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6 if rgba else 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(pixels, 9)) + chunk(b"IEND", b""))
    Path(path).write_bytes(data)


CUBE = "TITLE \"attack identity\"\nLUT_3D_SIZE 2\n" + "".join(
    f"{r} {g} {b}\n" for b in (0, 1) for g in (0, 1) for r in (0, 1))


def photos_from_repo(ctx: Context) -> dict:
    """The sample photos of Recipes/photos by name."""
    d = ctx.repo / "Recipes" / "photos"
    return {p.name: p for p in sorted(d.iterdir()) if p.suffix.lower() in (".jpg", ".png", ".dng")}


def bundled_recipes(ctx: Context) -> list:
    return sorted((ctx.repo / "Recipes").glob("*.recipe.yaml"))


def copy_recipes(ctx: Context, dest: Path) -> list:
    """The bundled recipes with their LUTs, copied, so nothing of the repository is named."""
    dest.mkdir(parents=True, exist_ok=True)
    for r in bundled_recipes(ctx):
        shutil.copy2(r, dest / r.name)
    luts = ctx.repo / "Recipes" / "luts"
    if luts.is_dir():
        shutil.copytree(luts, dest / "luts", dirs_exist_ok=True)
    return sorted(dest.glob("*.recipe.yaml"))


def wait_for_age(since: float, seconds: float = 62.0):
    """Sleeps until `seconds` have passed since `since` (time.time()): recipe removes a killed
    writer's temporaries only once they are over a minute old."""
    left = since + seconds - time.time()
    if left > 0:
        time.sleep(left)
