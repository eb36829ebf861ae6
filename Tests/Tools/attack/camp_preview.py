"""Campaign 5: hostile requests to `recipe preview` (one photo, and a folder with a link out of
it): bad methods, huge heads and bodies, bad JSON, traversal (`/../`, `%2e%2e`, NUL), partial
and slow requests, bad Host and Origin, bad websocket upgrades. The server must stay up (a good
request answers after each batch), never die, never serve a file outside what it serves, and
answer or close every request within the request timeout."""
import os
import random
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

from common import Stats, diff, parallel, photos_from_repo, signal_name, snapshot

FULL = 2750
SEND_PY = """import socket, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
data = open("request.bin", "rb").read().replace(b"TOKEN", token.encode()).replace(b"PORT", str(port).encode())
s = socket.create_connection(("127.0.0.1", port)); s.sendall(data); start = time.monotonic()
s.settimeout(30)
try:
    while True:
        got = s.recv(65536)
        if not got: print("closed after %.1f s" % (time.monotonic() - start)); break
        print(got[:300])
except socket.timeout:
    print("no answer and not closed in 30 s")
"""
CANARY = "ATTACK-CANARY-7f3e9b"
PASSWD = "root:x:0:0"


class Server:
    """One `recipe preview` process, its URL read from the first line of its stdout."""

    def __init__(self, ctx, args, cwd, log: Path):
        self.ctx, self.args, self.cwd, self.log = ctx, args, cwd, log
        self.proc = None
        self.port = self.token = None
        self.starts = 0

    def start(self):
        self.starts += 1
        err = open(self.log.with_suffix(f".{self.starts}.stderr"), "wb")
        env = dict(os.environ)
        if self.ctx.preview_binary:
            # `recipe preview` runs recipe-preview from beside itself or from PATH: a link to the
            # one given, in a folder of its own, first on PATH.
            folder = self.ctx.work / "preview-bin"
            folder.mkdir(exist_ok=True)
            link = folder / "recipe-preview"
            if not link.is_symlink():
                os.symlink(self.ctx.preview_binary, link)
            env["PATH"] = f"{folder}{os.pathsep}{env.get('PATH', '')}"
        self.proc = subprocess.Popen([self.ctx.binary, "preview"] + self.args, cwd=self.cwd, stdout=subprocess.PIPE,
                                     stderr=err, stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        deadline = time.monotonic() + 60
        line = b""
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if line or self.proc.poll() is not None:
                break
        text = line.decode("utf-8", "replace").strip()
        if not text.startswith("http://"):
            err.close()
            why = self.log.with_suffix(f".{self.starts}.stderr").read_text(errors="replace").strip()
            raise RuntimeError(f"recipe preview {' '.join(self.args)} printed no URL (exit {self.proc.poll()}): {text!r} {why[:400]}")
        hostport, _, query = text[len("http://"):].partition("/")
        self.host, _, port = hostport.rpartition(":")
        self.port = int(port)
        self.token = query.split("token=", 1)[1].split("&")[0]
        threading.Thread(target=lambda: self.proc.stdout.read(), daemon=True).start()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def exchange(port, parts, timeout, read_limit=8 << 20, until_close=False):
    """Sends the parts ((bytes, seconds to wait first) each) on a new connection and reads until a
    whole response or the close (`until_close`: the close only). Returns (status or None, head, body, outcome) where outcome is
    'answered', 'closed' (closed or reset with no answer) or 'hang' (neither within timeout)."""
    start = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=min(5, timeout))
    except OSError as e:
        return None, b"", b"", f"refused: {e}"
    data = b""
    try:
        for chunk, wait in parts:
            if wait:
                time.sleep(wait)
            try:
                s.sendall(chunk)
            except OSError:
                break
        while True:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                return parse(data)[:3] + ("hang",)
            s.settimeout(left)
            try:
                got = s.recv(65536)
            except socket.timeout:
                return parse(data)[:3] + ("hang",)
            except OSError:
                got = b""
            if not got:
                status, head, body, complete = parse(data)
                return status, head, body, "answered" if status else "closed"
            data += got
            status, head, body, complete = parse(data)
            if (complete and not until_close) or len(data) > read_limit:
                return status, head, body, "answered"
    finally:
        s.close()


def parse(data: bytes):
    """(status, head, body, complete) of what has arrived."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None, data, b"", False
    head, body = data[:end], data[end + 4:]
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        status = None
    length = None
    chunked = False
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            try:
                length = int(v.strip())
            except ValueError:
                pass
        if k.strip().lower() == b"transfer-encoding" and b"chunked" in v.lower():
            chunked = True
    if status == 101:
        return status, head, body, True
    if length is not None:
        return status, head, body[:length], len(body) >= length
    if chunked:
        return status, head, body, body.endswith(b"0\r\n\r\n")
    return status, head, body, False


# ---------------------------------------------------------------- the requests

def requests(r: random.Random, srv: Server, folder_mode: bool):
    """One hostile (or good) request: (label, parts, what it must not be)."""
    host = f"127.0.0.1:{srv.port}"
    t = srv.token
    good_host = f"Host: {host}\r\n"

    def req(line, headers=None, body=b"", host_line=good_host):
        h = host_line + "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        return [(line.encode("latin-1", "replace") + b"\r\n" + h.encode("latin-1", "replace") + b"\r\n" + body, 0)]
    k = r.random()
    photo = r.choice(["0", "1"]) if folder_mode else "0"
    pic = r.choice(["render.jpg", "before.jpg", "stage-1.jpg", "upto-2.jpg", "thumb.jpg"])
    if k < 0.10:
        return "good state", req(f"GET /api/state?token={t} HTTP/1.1"), "good"
    if k < 0.14:
        return "good picture", req(f"GET /api/photo/{photo}/{pic}?token={t} HTTP/1.1"), "any"
    if k < 0.20:
        tok = r.choice(["", "token=", "token=" + t[:-1], "token=" + t.upper(), "token=" + t + "x", "TOKEN=" + t, "token=%00" + t])
        path = r.choice(["/", "/api/state", f"/api/photo/0/{pic}", "/preview.js", "/ws"])
        return "no or bad token", req(f"GET {path}?{tok} HTTP/1.1"), "not200"
    if k < 0.26:
        m = r.choice(["FOO", "PUT", "DELETE", "TRACE", "OPTIONS", "PATCH", "CONNECT", "G\x00ET", "get", "GET GET", "\x16\x03\x01", "P\u00d3ST"])
        return "bad method", req(f"{m} /api/state?token={t} HTTP/1.1"), "any"
    if k < 0.32:
        v = r.choice([1, 2, 3, 4])
        if v == 1:
            return "huge header", req(f"GET /api/state?token={t} HTTP/1.1", {"X-Big": "a" * r.choice([17000, 70000, 1 << 20])}), "not200"
        if v == 2:
            return "many headers", req(f"GET /api/state?token={t} HTTP/1.1", {f"X-H{i}": "v" for i in range(r.choice([101, 1000, 10000]))}), "not200"
        if v == 3:
            return "huge URL", req(f"GET /api/state?token={t}&x={'a' * r.choice([17000, 100000, 2000000])} HTTP/1.1"), "not200"
        return "huge header name", req(f"GET /api/state?token={t} HTTP/1.1", {"X" * 20000: "v"}), "not200"
    if k < 0.40:
        route = r.choice(["/api/params", "/api/write-params", "/api/stage/1", "/api/state", "/ws"])
        body = r.choice([b"{", b"{\"warmth\": }", b"\x00" * 100, b"[" * 10000, b"{\"warmth\": NaN}", b"a" * (1 << 20), b"null"])
        v = r.random()
        if v < 0.5:
            return "body", req(f"POST {route}?token={t} HTTP/1.1", {"Content-Type": "application/json", "Content-Length": str(len(body))}, body), "not200"
        if v < 0.7:
            return "declared huge body", req(f"POST {route}?token={t} HTTP/1.1", {"Content-Length": r.choice(["10000000000", "99999999999999999999", "-1", "1e3", " 5", "5, 6"])}, body[:100]), "not200"
        if v < 0.85:
            return "chunked body", req(f"POST {route}?token={t} HTTP/1.1", {"Transfer-Encoding": r.choice(["chunked", "gzip, chunked", "chunkedx"])}, b"zz\r\n" + body[:50] + b"\r\n"), "not200"
        return "two lengths", req(f"POST {route}?token={t} HTTP/1.1", {"Content-Length": "3", "Content-length": "50"}, b"abc"), "not200"
    if k < 0.52:
        path = r.choice([
            "/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/api/photo/../../../etc/passwd",
            "/api/photo/0/../../../../secret.txt", "/api/photo/%2e%2e%2fsecret.txt/render.jpg", "/secret.txt",
            "/api/photo/0/..%2f..%2fsecret.txt", "//etc/passwd", "/api/photo/-1/render.jpg", "/api/photo/99999999999/render.jpg",
            "/api/photo/00000000001/render.jpg", "/api/photo/+0/render.jpg", "/api/photo/0x0/render.jpg", "/api/photo/1e0/render.jpg",
            "/api/photo/%30/render.jpg", "/api/photo/0/render.jpg%00.txt", "/api/photo/0/../../../guard/secret.txt",
            "/api/photo/0/stage-0.jpg", "/api/photo/0/stage-257.jpg", "/api/photo/0/stage-99999999999.jpg", "/api/photo/0/upto--1.jpg",
            "/api/photo/0/region.jpg", "/preview.js/../../secret.txt", "/index.html%00", "/%00", "/api/photo/0/" + "a" * 5000 + ".jpg",
            "/\\..\\..\\secret.txt", "/api/photo/0/render.jpg/..", "/api/photo/ 0/render.jpg", "/api/photo/0/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
            "/" + "../" * 40 + "etc/passwd", "/api/photo/0/thumb.jpg;/../../secret.txt", "/recipe-objects/", "/look.recipe.yaml",
        ])
        sep = "&" if "?" in path else "?"
        return "traversal", req(f"GET {path}{sep}token={t} HTTP/1.1"), "nofile"
    if k < 0.56:
        q = r.choice(["x=0&y=0&w=4097&h=1", "x=-2147483648&y=0&w=1&h=1", "x=2147483647&y=2147483647&w=4096&h=4096",
                      "x=00000000000&y=0&w=1&h=1", "x=1.5&y=0&w=1&h=1", "x=0&y=0&w=0&h=0", "x=%00&y=0&w=1&h=1",
                      "x=-0&y=-0&w=1&h=1", "x=0&y=0&w=4096&h=4096", "x=0&x=1&y=0&w=1&h=1"])
        return "region", req(f"GET /api/photo/{photo}/region.jpg?token={t}&{q} HTTP/1.1"), "any"
    if k < 0.64:
        q = r.choice(["warmth=nan", "warmth=inf", "warmth=1e400", "warmth=0x1", "warmth=", "warmth=-1e308", "warmth=" + "9" * 5000,
                      "nosuch=1", "warmth=7000&warmth=8000", "warmth=%00", "warmth=1%0a2", "%00=1", "warmth=6000",
                      "warmth=7000&" + "&".join(f"p{i}=1" for i in range(3000))])
        return "params", req(f"POST /api/params?token={t}&{q} HTTP/1.1", {"Content-Length": "0"}), "any"
    if k < 0.70:
        q = r.choice(["on=2", "on=", "on=1&on=0", "", "on=1"])
        return "stage toggle", req(f"POST /api/stage/{r.choice(['1', '0', '257', '-1', '9' * 20, 'x'])}?token={t}&{q} HTTP/1.1"), "any"
    if k < 0.78:
        v = r.random()
        if v < 0.3:
            return "bad Host", req(f"GET /api/state?token={t} HTTP/1.1", host_line=f"Host: {r.choice(['evil.example', 'evil.example:' + str(srv.port), '127.0.0.1', 'localhost:1', '127.0.0.1:' + str(srv.port) + '.evil.example', '[::1]:1', ''])}\r\n"), "not200"
        if v < 0.45:
            return "no Host", req(f"GET /api/state?token={t} HTTP/1.1", host_line=""), "not200"
        if v < 0.55:
            return "two Hosts", req(f"GET /api/state?token={t} HTTP/1.1", host_line=good_host + good_host), "not200"
        route = r.choice(["/api/params?warmth=5000&", "/api/write-params?", "/api/stage/1?on=0&"])
        return "bad Origin", req(f"POST {route}token={t} HTTP/1.1", {"Origin": r.choice(["http://evil.example", "null", f"http://127.0.0.1:{srv.port}.evil.example", f"https://127.0.0.1:{srv.port}", f"http://localhost:{srv.port + 1}"]), "Content-Length": "0"}), "not200"
    if k < 0.84:
        head = f"GET /api/state?token={t} HTTP/1.1\r\n{good_host}".encode()
        cut = r.randrange(1, len(head))
        v = r.random()
        if v < 0.5:
            return "partial then silence", [(head[:cut], 0)], "closes"
        if v < 0.8:
            return "slowloris", [(head[i:i + 3], 0.9 if i else 0) for i in range(0, min(len(head), 30), 3)], "closes"
        return "idle connection", [(b"", 0)], "closes"
    if k < 0.90:
        v = r.choice(["no key", "bad version", "body", "bad origin", "not ws", "frame bomb"])
        hdr = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
        if v == "no key":
            hdr.pop("Sec-WebSocket-Key")
        elif v == "bad version":
            hdr["Sec-WebSocket-Version"] = "12"
        elif v == "body":
            hdr["Content-Length"] = "5"
        elif v == "bad origin":
            hdr["Origin"] = "http://evil.example"
        path = "/api/state" if v == "not ws" else "/ws"
        parts = req(f"GET {path}?token={t} HTTP/1.1", hdr, b"hello" if v == "body" else b"")
        if v == "frame bomb":
            parts.append((b"\x81\xff" + b"\x7f" + b"\xff" * 7 + b"\x00\x00\x00\x00" + os.urandom(64), 0.3))
            return "websocket frame bomb", parts, "closes"
        return f"websocket {v}", parts, "any" if v == "frame bomb" else "not101" if v in ("bad origin",) else "any"
    v = r.choice(["http09", "h2", "garbage", "tls", "pipelined", "nul", "bare lf", "absolute URI", "lone CR"])
    if v == "http09":
        return "HTTP/0.9", [(b"GET /\r\n", 0)], "any"
    if v == "h2":
        return "HTTP/2 preface", [(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + os.urandom(32), 0)], "any"
    if v == "garbage":
        return "binary garbage", [(os.urandom(r.choice([1, 100, 10000])), 0)], "any"
    if v == "tls":
        return "TLS hello", [(bytes.fromhex("16030100a5010000a10303") + os.urandom(160), 0)], "any"
    if v == "pipelined":
        one = f"GET /api/state?token={t} HTTP/1.1\r\n{good_host}\r\n".encode()
        return "pipelined", [(one * r.choice([2, 50, 500]), 0)], "any"
    if v == "nul":
        return "NUL in head", [(f"GET /api/state?token={t} HTTP/1.1\r\n{good_host}X-A: a\x00b\r\n\r\n".encode(), 0)], "any"
    if v == "bare lf":
        return "bare LF", [(f"GET /api/state?token={t} HTTP/1.1\n{good_host.strip()}\n\n".encode(), 0)], "any"
    if v == "absolute URI":
        return "absolute URI", req(f"GET http://evil.example/api/state?token={t} HTTP/1.1"), "note200"
    return "lone CR", [(f"GET /api/state?token={t} HTTP/1.1\r{good_host.strip()}\r\r".encode(), 0)], "any"


def check_answer(st, srv, label, parts, rule, status, head, body, outcome, seconds, repros, ctx):
    text = body.decode("utf-8", "replace")
    raw = b"".join(p for p, _ in parts)

    def rep(kind):
        generic = raw.replace(srv.token.encode(), b"TOKEN").replace(str(srv.port).encode(), b"PORT")
        return repros.save("preview", kind, ["recipe", "preview"] + srv.args, [],
                           note=f"{label}; outcome {outcome}, status {status}, {seconds:.1f} s.\n"
                                f"Run repro.sh (the server, as the harness started it, in a folder with the photo and "
                                f"recipe), then send request.bin with TOKEN and PORT replaced by the printed URL's, "
                                f"on one connection, e.g. with send.py.\n\n{generic[:2000]!r}",
                           blobs={"request.bin": generic, "send.py": SEND_PY.encode()})
    if outcome == "hang":
        st.fail("hang", f"preview: {label}: no answer and not closed in {seconds:.0f} s", rep("hang"))
    elif outcome.startswith("refused"):
        st.fail("other", f"preview: {label}: connection {outcome}", rep("refused"))
    if CANARY in text or PASSWD in text:
        st.fail("outside", f"preview: {label}: served a file it must not (status {status})", rep("served"))
    if status is not None and status >= 500 and status != 503:
        st.fail("other", f"preview: {label}: answered {status}: {text[:200]}", rep("5xx"))
    if rule in ("not200", "nofile") and status is not None and 200 <= status < 300:
        ctype = next((l for l in head.split(b"\r\n") if l.lower().startswith(b"content-type")), b"")
        if rule == "not200" or b"image/jpeg" not in ctype and b"json" not in ctype:
            st.fail("other", f"preview: {label}: answered {status} ({ctype.decode('latin-1')}) where it must refuse", rep("accepted"))
    if rule == "nofile" and status is not None and 200 <= status < 300:
        path = raw.split(b" ", 2)[1].split(b"?")[0].decode("latin-1") if raw.count(b" ") >= 2 else "?"
        message = f"preview: traversal-like path {path} answered {status} (a picture of the served photo)"
        if message not in st.notes:
            st.note(message)
    if rule == "note200" and status == 200:
        message = f"preview: {label} naming another host (its Host header this server's) answered 200"
        if message not in st.notes:
            st.note(message)
    if rule == "not101" and status == 101:
        st.fail("other", f"preview: {label}: upgraded a websocket from another site's Origin", rep("accepted"))
    if rule == "closes" and outcome == "answered" and seconds > 10:
        st.note(f"preview: {label}: answered only after {seconds:.1f} s")


def campaign(ctx, repros) -> Stats:
    st = Stats("5 hostile preview requests")
    root = ctx.work / "preview"
    if root.exists():
        shutil.rmtree(root)
    samples = photos_from_repo(ctx)
    site, folder, guard = root / "site", root / "folder", root / "guard"
    for d in (site, folder, guard):
        d.mkdir(parents=True)
    shutil.copy2(samples["kodim03.png"], site / "photo.png")
    shutil.copy2(samples["kodim03.png"], folder / "a.png")
    shutil.copy2(samples["Portrait_8.jpg"], folder / "b.jpg")
    look = ctx.repo / "Recipes" / "warm-portrait.recipe.yaml"
    shutil.copy2(look, site / "look.recipe.yaml")
    shutil.copy2(look, root / "look.recipe.yaml")
    for d in (site, root, guard):
        (d / "secret.txt").write_text(f"{CANARY}: must never be served\n")
    shutil.copy2(samples["Landscape_1.jpg"], guard / f"{CANARY}.jpg")
    os.symlink(f"../guard/{CANARY}.jpg", folder / "c-link-out.jpg")
    before = snapshot(root)
    logs = ctx.work / "preview-logs"
    logs.mkdir(exist_ok=True)
    servers = [Server(ctx, ["photo.png", "look.recipe.yaml", "--port", "0", "--size", "400"], site, logs / "single"),
               Server(ctx, ["look.recipe.yaml", "folder", "--port", "0", "--size", "300"], root, logs / "grid")]
    try:
        for s in servers:
            s.start()
    except RuntimeError as e:
        st.fail("other", f"the preview server did not start: {e} (recipe-preview must be beside recipe, on PATH, or given with --preview-binary)")
        return st
    n = ctx.count(FULL)
    st.note(f"servers on ports {', '.join(str(s.port) for s in servers)}")
    down = threading.Lock()

    def liveness(srv, why):
        """A good request must answer 200; a dead server is a crash (and is restarted)."""
        with down:
            status, head, body, outcome = exchange(srv.port, [(f"GET /api/state?token={srv.token} HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n\r\n".encode(), 0)], ctx.request_timeout)
            if status == 200:
                return True
            rc = srv.proc.poll()
            if rc is not None:
                how = f"signal {signal_name(-rc)}" if rc < 0 else f"exit {rc}"
                st.fail("crash", f"preview server died ({how}) {why}; stderr in {srv.log.with_suffix(f'.{srv.starts}.stderr')}",
                        repros.save("preview", "died", ["recipe", "preview"] + srv.args, note=f"died {why}"))
                srv.start()
            else:
                st.fail("other", f"preview: a good request got {status} ({outcome}) {why}")
            return False

    seen = {}

    def one(i):
        r = random.Random(f"{ctx.seed}:preview:{i}")
        srv = servers[i % 2]
        label, parts, rule = requests(r, srv, folder_mode=(i % 2 == 1))
        start = time.monotonic()
        status, head, body, outcome = exchange(srv.port, parts, ctx.request_timeout, until_close=label == "websocket frame bomb")
        seconds = time.monotonic() - start
        with st.lock:
            st.runs += 1
            key = label.split(" (")[0]
            got = f"{status}" if outcome == "answered" else outcome
            seen.setdefault(key, {})
            seen[key][got] = seen[key].get(got, 0) + 1
        check_answer(st, srv, label, parts, rule, status, head, body, outcome, seconds, repros, ctx)
        if rule == "good" and status != 200:
            liveness(srv, f"after request #{i} ({label})")
        if not srv.alive():
            liveness(srv, f"during request #{i} ({label})")
    batch = 250
    for startn in range(0, n, batch):
        parallel(ctx, [lambda i=i: one(i) for i in range(startn, min(n, startn + batch))], jobs=max(ctx.jobs, 12), st=st)
        for s in servers:
            liveness(s, f"after requests up to #{min(n, startn + batch)}")
        if startn == (n // batch // 2) * batch:
            swap_check(st, servers[1], folder, guard, ctx)
    # The folder grid must not list the link out of the folder.
    srv = servers[1]
    status, head, body, outcome = exchange(srv.port, [(f"GET /api/state?token={srv.token} HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n\r\n".encode(), 0)], ctx.request_timeout)
    if CANARY in body.decode("utf-8", "replace"):
        st.fail("outside", "preview folder mode lists the photo behind a link out of the folder")
    for s in servers:
        liveness(s, "at the end")
        s.stop()
    for line in diff(before, snapshot(root)):
        st.fail("outside", f"preview: {line}")
    st.note(f"{n} requests on 2 servers; {sum(s.starts - 1 for s in servers)} restarts; answers by kind: " + "; ".join(
        f"{k} " + " ".join(f"{a}×{c}" for a, c in sorted(v.items())) for k, v in sorted(seen.items())))
    return st


def swap_check(st, srv, folder: Path, guard: Path, ctx):
    """A photo of the folder replaced by a link out of it while the preview runs: 404 from then
    on, served again once a file is back."""
    b = folder / "b.jpg"
    keep = folder.parent.parent / "preview-b.jpg.kept"
    os.rename(b, keep)
    os.symlink(f"../guard/{CANARY}.jpg", b)
    try:
        for pic in ("render.jpg", "before.jpg", "thumb.jpg"):
            status, head, body, outcome = exchange(srv.port, [(f"GET /api/photo/1/{pic}?token={srv.token} HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n\r\n".encode(), 0)], ctx.request_timeout)
            with st.lock:
                st.runs += 1
            if status == 200:
                st.fail("outside", f"preview served /api/photo/1/{pic} after b.jpg became a link out of the folder")
            if outcome == "hang":
                st.fail("hang", f"preview: /api/photo/1/{pic} of a swapped photo did not answer")
    finally:
        b.unlink()
        os.rename(keep, b)
