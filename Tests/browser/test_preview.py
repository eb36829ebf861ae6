#!/usr/bin/env python3
"""Browser tests of `recipe preview` (issue 22): Debian's chromium driven by Playwright.

Each test starts `recipe preview --port 0` on a copy of a sample photo and a small recipe in a
temporary folder, reads the URL from the first line of stdout, and drives the page. Run:
    python3 Tests/browser/test_preview.py            (RECIPE_BIN: the binary, default .build/debug/recipe)
Skips (exit 0, saying so) only when chromium or Playwright is truly missing; CI installs both
(.ci/setup --tests).
"""
import http.client
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
import urllib.error

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("RECIPE_BIN", os.path.join(ROOT, ".build/debug/recipe"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PHOTO = os.path.join(ROOT, "Recipes/photos/Landscape_1.jpg")
SIZE = "320"  # small renders keep the debug build quick

RECIPE = """# A test look. This comment must survive writing params back.
format: dev.recipe.edit
version: 1.1
params:
  lift: {default: 0.2, doc: exposure in stops}  # the knob
stages:
  - exposure: $lift
  - saturation: 1.4
  - vignette: {amount: 0.5}
"""


def read(path):
    with open(path) as f:
        return f.read()


def save_atomically(path, text):
    """What editors do: write a temporary file beside it, then rename it over."""
    tmp = path + ".tmp~"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class Preview:
    """A running `recipe preview` and its URL parts."""

    def __init__(self, args, cwd, size=SIZE):
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([BIN, "preview", *args, "--port", "0", "--size", size], cwd=cwd,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self.stop()
            self.log.seek(0)
            raise AssertionError(f"first stdout line is not the URL: {self.url!r}; stderr: {self.log.read()}")
        self.base, self.token = self.url.split("/?token=")
        self.port = int(self.base.rsplit(":", 1)[1])

    def get(self, path, token=True):
        """(status, body) of a GET; `path` is sent exactly as given (no normalisation)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        sep = "&" if "?" in path else "?"
        conn.request("GET", path + (f"{sep}token={self.token}" if token else ""))
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, body

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.log.close()


class PreviewTests(unittest.TestCase):
    browser = None

    @classmethod
    def setUpClass(cls):
        from playwright.sync_api import sync_playwright
        cls.pw = sync_playwright().start()
        cls.browser = cls.pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.pw.stop()

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="recipe-preview-test-")
        shutil.copy(PHOTO, os.path.join(self.dir, "photo.jpg"))
        self.recipe = os.path.join(self.dir, "look.recipe.yaml")
        with open(self.recipe, "w") as f:
            f.write(RECIPE)
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, *args, size=SIZE):
        server = Preview(list(args) or ["photo.jpg", "look.recipe.yaml"], self.dir, size)
        self.servers.append(server)
        return server

    def open(self, server, height=800):
        page = self.browser.new_page(viewport={"width": 1280, "height": height})
        self.errors = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.goto(server.url)
        page.wait_for_function("window.previewLoads.length > 0", timeout=120000)
        return page

    def shown(self, server, page):
        """The bytes of the picture the page shows now (fetched by its URL)."""
        src = page.get_attribute("#after", "src")
        status, body = server.get(src.split("?token=")[0] + "?" + src.split("&", 1)[1], token=True)
        self.assertEqual(status, 200, body[:200])
        return body

    def mean(self, page):
        """Mean of the shown picture's samples (0-255), decoded by the browser."""
        return page.evaluate("""() => { const i = document.getElementById('after'); const c = document.createElement('canvas');
            c.width = i.naturalWidth; c.height = i.naturalHeight; const x = c.getContext('2d'); x.drawImage(i, 0, 0);
            const d = x.getImageData(0, 0, c.width, c.height).data; let s = 0, n = 0;
            for (let k = 0; k < d.length; k += 4) { s += d[k] + d[k + 1] + d[k + 2]; n += 3; } return s / n; }""")

    def wait_new_picture(self, page, count, timeout=120000):
        page.wait_for_function(f"window.previewLoads.length > {count}", timeout=timeout)

    # ---- the server's policy

    def test_token_and_paths(self):
        s = self.start()
        # Without the token, or with a wrong one: 403 for everything, known path or not.
        for path in ["/", "/api/state", "/api/photo/0/render.jpg", "/preview.js", "/etc/passwd"]:
            self.assertEqual(s.get(path, token=False)[0], 403, path)
            self.assertEqual(s.get(path + "?token=" + "0" * 32, token=False)[0], 403, path)
        self.assertEqual(s.get("/api/photo/0/render.jpg")[0], 200)
        # With the token, nothing but the photo list: no .., no absolute path, no file names.
        outside = os.path.join(self.dir, "..", "secret.txt")
        for path in ["/../../../etc/passwd", "/api/photo/0/../../../../etc/passwd", "//etc/passwd", "/etc/passwd",
                     "/api/photo/%2e%2e/render.jpg", "/api/photo/..%2F..%2Fetc%2Fpasswd/render.jpg", "/photo.jpg",
                     "/look.recipe.yaml", "/api/photo/1/render.jpg", "/api/photo/-1/render.jpg", "/api/photo/00/render.jpg",
                     "/api/photo/" + self.dir + "/photo.jpg", "/api/", "/api/photo/", "/api/photo/0/"]:
            status, body = s.get(path)
            self.assertIn(status, (403, 404), path)
            self.assertNotIn(b"root:", body)
            self.assertFalse(body.startswith(b"\xff\xd8"), path)

    def test_symlink_out_of_folder_is_not_served(self):
        shoot = os.path.join(self.dir, "shoot")
        outside = os.path.join(self.dir, "outside")
        os.makedirs(shoot)
        os.makedirs(outside)
        shutil.copy(PHOTO, os.path.join(shoot, "a.jpg"))
        shutil.copy(PHOTO, os.path.join(outside, "private.jpg"))
        os.symlink(os.path.join(outside, "private.jpg"), os.path.join(shoot, "link.jpg"))
        s = self.start("look.recipe.yaml", "shoot")
        status, body = s.get("/api/state")
        self.assertEqual(status, 200)
        self.assertIn(b'"name":"a.jpg"', body)
        self.assertNotIn(b"link.jpg", body)
        self.assertNotIn(b"private", body)
        for path in ["/api/photo/1/render.jpg", "/api/photo/1/thumb.jpg", "/shoot/link.jpg", "/link.jpg", "/outside/private.jpg"]:
            self.assertIn(s.get(path)[0], (403, 404), path)
        self.assertEqual(s.get("/api/photo/0/thumb.jpg")[0], 200)

    # ---- live editing in the browser

    def test_save_changes_the_picture_and_typo_shows_diagnostic(self):
        s = self.start()
        page = self.open(s)
        first, first_mean = self.shown(s, page), self.mean(page)
        n = page.evaluate("window.previewLoads.length")
        save_atomically(self.recipe, RECIPE.replace("saturation: 1.4", "saturation: 0.2").replace("amount: 0.5", "amount: 0"))
        self.wait_new_picture(page, n)
        second = self.shown(s, page)
        self.assertNotEqual(first, second)
        self.assertGreater(self.mean(page), first_mean)  # no vignette: brighter on average
        # A typo: the diagnostic of `recipe check`, with its did-you-mean, over the last good picture.
        n = page.evaluate("window.previewLoads.length")
        broken = RECIPE.replace("  - saturation: 1.4", "  - saturaton: 1.4")
        save_atomically(self.recipe, broken)
        page.wait_for_selector("#diagnostics:not([hidden])", timeout=60000)
        shown = page.inner_text("#diagnostics")
        check = subprocess.run([BIN, "check", "look.recipe.yaml"], cwd=self.dir, capture_output=True, text=True)
        self.assertEqual(check.returncode, 2)  # recipe errors (the exit-status table)
        self.assertIn("did you mean `saturation`", shown)
        self.assertIn("look.recipe.yaml:8:5: error[R204]", shown)
        self.assertEqual(shown.strip(), check.stdout.strip())
        self.assertEqual(page.evaluate("window.previewLoads.length"), n)
        self.assertEqual(self.shown(s, page), second)  # the last good picture stays
        # Fixed by deleting and creating the file again: the diagnostics clear, a new picture comes.
        os.remove(self.recipe)
        time.sleep(0.3)
        with open(self.recipe, "w") as f:
            f.write(RECIPE)
        page.wait_for_selector("#diagnostics", state="hidden", timeout=60000)
        self.wait_new_picture(page, n)
        self.assertEqual(self.shown(s, page), first)  # the same recipe gives the same bytes
        self.assertEqual(self.errors, [])

    def test_param_slider_and_write_back(self):
        s = self.start()
        page = self.open(s)
        first, first_mean = self.shown(s, page), self.mean(page)
        n = page.evaluate("window.previewLoads.length")
        slider = page.locator('.param[data-name="lift"] input[type=range]')
        self.assertEqual(slider.get_attribute("min"), "-10")
        slider.fill("1.5")  # sets the value and fires input, as a drag does
        self.wait_new_picture(page, n)
        self.assertNotEqual(self.shown(s, page), first)
        self.assertGreater(self.mean(page), first_mean + 10)
        # Written into the file as the new default: only the default's value changes; every other
        # byte (comments, and `vignette: {amount: 0.5}`, which fmt would shorten) is kept.
        page.click("#write-params")
        page.wait_for_function("document.getElementById('write-result').textContent.includes('written')", timeout=30000)
        self.assertEqual(read(self.recipe), RECIPE.replace("default: 0.2,", "default: 1.5,"))

    def test_stage_toggle_and_stage_click(self):
        s = self.start()
        page = self.open(s)
        first = self.shown(s, page)
        page.wait_for_selector("#stages li[data-index='3']")
        n = page.evaluate("window.previewLoads.length")
        page.click("#stages li[data-index='2'] .stage-toggle")  # saturation off, on the page only
        self.wait_new_picture(page, n)
        without = self.shown(s, page)
        self.assertNotEqual(without, first)
        self.assertEqual(read(self.recipe), RECIPE)  # the file is untouched
        self.assertIn("off", page.get_attribute("#stages li[data-index='2']", "class"))
        n = page.evaluate("window.previewLoads.length")
        page.click("#stages li[data-index='2'] .stage-toggle")
        self.wait_new_picture(page, n)
        self.assertEqual(self.shown(s, page), first)
        # Clicking a stage shows the picture up to it; its thumbnail is there too.
        n = page.evaluate("window.previewLoads.length")
        page.click("#stages li[data-index='1'] .op")
        self.wait_new_picture(page, n)
        self.assertIn("upto-1.jpg", page.get_attribute("#after", "src"))
        upto = self.shown(s, page)
        self.assertNotEqual(upto, first)
        status, thumb = s.get("/api/photo/0/stage-1.jpg")
        self.assertEqual(status, 200)
        self.assertTrue(thumb.startswith(b"\xff\xd8"))

    def test_region_histogram_and_clipping(self):
        s = self.start()
        page = self.open(s)
        page.check("#histogram-toggle")
        page.check("#clipping-toggle")
        page.wait_for_function("window.previewClipping !== undefined", timeout=30000)
        clipping = page.evaluate("window.previewClipping")
        self.assertEqual(clipping["pixels"], 320 * 213)
        self.assertIn("clipped highlights", page.inner_text("#clip-counts"))
        # 1:1: a region of the full-size (1800×1200) render.
        status, body = s.get("/api/photo/0/region.jpg?x=100&y=50&w=300&h=200&")
        self.assertEqual(status, 200, body[:200])
        page.check("#zoom-toggle")
        page.click("#after", position={"x": 160, "y": 100}, force=True)
        page.wait_for_function("document.getElementById('region-note').textContent.startsWith('1:1')", timeout=120000)
        self.assertIn("of 1800×1200", page.inner_text("#region-note"))

    def test_folder_grid_bad_photo_and_robustness(self):
        shoot = os.path.join(self.dir, "shoot")
        os.makedirs(shoot)
        shutil.copy(PHOTO, os.path.join(shoot, "a.jpg"))
        with open(os.path.join(shoot, "b-broken.jpg"), "wb") as f:
            f.write(b"\xff\xd8\xff\xe0 this is not a JPEG")
        s = self.start("look.recipe.yaml", "shoot")
        page = self.browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(s.url)
        page.wait_for_selector(".tile[data-index='1'] .error", timeout=120000)
        self.assertIn("b-broken.jpg", page.inner_text(".tile[data-index='1'] .error"))
        page.wait_for_function("document.querySelector(\".tile[data-index='0'] img\").naturalWidth > 0", timeout=120000)
        # A click opens the single view.
        page.click(".tile[data-index='0']")
        page.wait_for_function("window.previewLoads.length > 0", timeout=120000)
        self.assertEqual(page.inner_text("#photo-name"), "a.jpg")
        page.close()  # a closed tab
        # A client that goes away mid-request, then 100 requests at once: all answered.
        for _ in range(5):
            c = socket.create_connection(("127.0.0.1", s.port))
            c.sendall(f"GET /api/photo/0/before.jpg?token={s.token} HTTP/1.1\r\nHost: 127.0.0.1:{s.port}\r\n\r\n".encode())
            c.recv(100)
            c.close()
        results = []
        def one(i):
            path = ["/api/state", "/api/photo/0/thumb.jpg", "/api/photo/0/stage-1.jpg", "/api/photo/1/thumb.jpg"][i % 4]
            try:
                results.append((path, s.get(path)[0]))
            except Exception as e:
                results.append((path, repr(e)))
        threads = [threading.Thread(target=one, args=(i,)) for i in range(100)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(results), 100)
        for path, status in results:
            self.assertEqual(status, 422 if path == "/api/photo/1/thumb.jpg" else 200, path)
        self.assertIsNone(s.proc.poll(), "the server is still running")

    # ---- the page's rough edges: each of these tests failed before its fix

    def folder(self, *names):
        """A folder `shoot` beside the recipe: copies of the sample photo, and a file that is not a
        JPEG for each name containing "broken"."""
        shoot = os.path.join(self.dir, "shoot")
        os.makedirs(shoot)
        for name in names:
            if "broken" in name:
                with open(os.path.join(shoot, name), "wb") as f:
                    f.write(b"\xff\xd8\xff\xe0 this is not a JPEG")
            else:
                shutil.copy(PHOTO, os.path.join(shoot, name))
        return shoot

    def drawn(self, page, selector):
        """How each element matching `selector` is drawn: "none" (not drawn: hidden, no box),
        "picture" (a decoded picture) or "broken" (a box with no picture: an icon or its alt text)."""
        return page.evaluate("""(sel) => Array.from(document.querySelectorAll(sel)).map((i) => {
            const s = getComputedStyle(i), r = i.getBoundingClientRect();
            if (s.display === 'none' || s.visibility === 'hidden' || r.width === 0 || r.height === 0) return 'none';
            return i.complete && i.naturalWidth > 0 ? 'picture' : 'broken'; })""", selector)

    def rect(self, page, selector):
        return page.evaluate("(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); "
                             "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; }",
                             selector)

    def hit(self, page, x, y):
        """The id of the element a click at (x, y) reaches (what is seen there)."""
        return page.evaluate("([x, y]) => { const e = document.elementFromPoint(x, y); return e ? e.id : null; }", [x, y])

    def screenshot(self, page, name):
        """With PREVIEW_SCREENSHOTS=DIR, the page as PNG, for a person to look at."""
        folder = os.environ.get("PREVIEW_SCREENSHOTS")
        if folder:
            os.makedirs(folder, exist_ok=True)
            page.screenshot(path=os.path.join(folder, name + ".png"))

    def wait_tiles(self, page, indices):
        page.wait_for_function("(ks) => ks.every((k) => { const i = document.querySelector(`.tile[data-index='${k}'] img`); "
                               "return i && i.naturalWidth > 0; })", arg=indices, timeout=120000)

    def test_grid_mode_shows_no_broken_stage_pictures(self):
        self.folder("a.jpg", "b.jpg")
        s = self.start("look.recipe.yaml", "shoot")
        page = self.browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(s.url)
        self.wait_tiles(page, [0, 1])
        page.wait_for_selector("#stages li[data-index='3']")
        self.assertNotIn("broken", self.drawn(page, "#stages img"))
        self.assertEqual(page.locator("#stages li").count(), 4)  # the stages are still listed, with their toggles
        self.assertEqual(page.locator("#stages .stage-toggle").count(), 3)
        self.screenshot(page, "grid")
        # A photo opened: the strip has its thumbnails, all of them real pictures.
        page.click(".tile[data-index='0']")
        page.wait_for_function("Array.from(document.querySelectorAll('#stages img')).every((i) => i.complete && i.naturalWidth > 0)",
                               timeout=120000)
        self.assertEqual(self.drawn(page, "#stages img"), ["picture"] * 4)
        # Back to the grid: no broken pictures again.
        page.click("#grid-button")
        page.wait_for_selector("#grid:not([hidden])")
        self.assertNotIn("broken", self.drawn(page, "#stages img"))

    def test_failed_photo_clears_picture_and_timing(self):
        self.folder("a.jpg", "b-broken.jpg")
        s = self.start("look.recipe.yaml", "shoot")
        page = self.browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(s.url)
        self.wait_tiles(page, [0])
        page.click(".tile[data-index='0']")
        page.wait_for_function("window.previewLoads.length > 0", timeout=120000)
        self.assertEqual(self.drawn(page, "#after"), ["picture"])
        self.assertIn(" ms", page.inner_text("#status"))
        page.click("#next-button")
        page.wait_for_function("document.getElementById('message').textContent.includes('b-broken.jpg')", timeout=120000)
        self.assertEqual(page.inner_text("#photo-name"), "b-broken.jpg")
        self.screenshot(page, "failed-photo")
        self.assertTrue(page.is_visible("#message"))
        # Nothing of a.jpg stays: not its picture, not its render time.
        self.assertEqual(self.drawn(page, "#after"), ["none"])
        self.assertEqual(self.drawn(page, "#before"), ["none"])
        self.assertNotIn(" ms", page.inner_text("#status"))
        self.assertFalse(page.is_visible("#loading"))
        page.wait_for_function("Array.from(document.querySelectorAll('#stages img')).every((i) => i.complete)", timeout=120000)
        self.assertNotIn("broken", self.drawn(page, "#stages img"))
        # Back to a.jpg: its picture and time again, the error gone.
        n = page.evaluate("window.previewLoads.length")
        page.click("#prev-button")
        self.wait_new_picture(page, n)
        self.assertEqual(self.drawn(page, "#after"), ["picture"])
        self.assertIn(" ms", page.inner_text("#status"))
        self.assertFalse(page.is_visible("#message"))

    def test_split_lines_up_when_the_recipe_changes_the_size(self):
        # The same size: one picture over the other, the split between them.
        s = self.start()
        page = self.open(s)
        page.wait_for_function("document.getElementById('before').naturalWidth > 0", timeout=120000)
        b, a = self.rect(page, "#before"), self.rect(page, "#after")
        for k in ("left", "top", "width", "height"):
            self.assertAlmostEqual(b[k], a[k], delta=1, msg=k)
        y = a["top"] + a["height"] / 2
        self.assertEqual(self.hit(page, a["left"] + a["width"] * 0.25, y), "before")
        self.assertEqual(self.hit(page, a["left"] + a["width"] * 0.75, y), "after")
        # A square crop of a 3:2 photo: the two cannot be laid one over the other.
        shutil.copy(os.path.join(ROOT, "Recipes/square-crop.recipe.yaml"), os.path.join(self.dir, "square.recipe.yaml"))
        s = self.start("photo.jpg", "square.recipe.yaml")
        page = self.open(s)
        page.wait_for_function("document.getElementById('before').naturalWidth > 0", timeout=120000)
        page.wait_for_timeout(200)
        self.assertEqual(page.evaluate("[document.getElementById('after').naturalWidth, document.getElementById('after').naturalHeight]"),
                         [320, 320])
        self.assertEqual(page.evaluate("[document.getElementById('before').naturalWidth, document.getElementById('before').naturalHeight]"),
                         [320, 213])
        self.screenshot(page, "square-crop-split")
        self.assert_side_by_side(page, 1.0)
        # A centre crop that keeps 3:2: at 360 px both pictures are 360×240, but the after is half the
        # photo's width (the frame's full size says so), so it is not laid over the whole photo either.
        with open(os.path.join(self.dir, "centre.recipe.yaml"), "w") as f:
            f.write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - crop: {x: 25%, y: 25%, width: 50%, height: 50%}\n")
        s = self.start("photo.jpg", "centre.recipe.yaml", size="360")
        page = self.open(s)
        page.wait_for_function("document.getElementById('before').naturalWidth > 0", timeout=120000)
        page.wait_for_timeout(200)
        self.assertEqual(page.evaluate("['before', 'after'].map((k) => [document.getElementById(k).naturalWidth, "
                                       "document.getElementById(k).naturalHeight])"), [[360, 240], [360, 240]])
        self.assert_side_by_side(page, 1.5)
        self.assertEqual(self.errors, [])

    def assert_side_by_side(self, page, after_aspect):
        """Before and after apart, each whole: every part of each is what a click there reaches, at its own shape."""
        b, a = self.rect(page, "#before"), self.rect(page, "#after")
        apart = b["right"] <= a["left"] + 0.5 or a["right"] <= b["left"] + 0.5
        self.assertTrue(apart, f"the after lies over a before it does not line up with: before {b}, after {a}")
        for name, r, aspect in (("before", b, 1.5), ("after", a, after_aspect)):
            self.assertAlmostEqual(r["width"] / r["height"], aspect, delta=0.02, msg=name)
            self.assertGreater(r["width"], 150, name)
            for fx, fy in ((0.05, 0.05), (0.95, 0.05), (0.5, 0.5), (0.05, 0.95), (0.95, 0.95)):
                self.assertEqual(self.hit(page, r["left"] + r["width"] * fx, r["top"] + r["height"] * fy), name, (name, fx, fy))

    def test_histogram_is_visible_when_ticked(self):
        shutil.copy(os.path.join(ROOT, "Recipes/square-crop.recipe.yaml"), os.path.join(self.dir, "square.recipe.yaml"))
        s = self.start("photo.jpg", "square.recipe.yaml")
        page = self.open(s, height=720)  # a laptop's screen: the sidebar scrolls
        page.wait_for_selector("#stages li[data-index='5']")
        page.check("#histogram-toggle")
        page.wait_for_function("window.previewClipping !== undefined", timeout=30000)
        def seen():
            h, side = self.rect(page, "#histogram"), self.rect(page, "aside")
            return h["height"] > 50 and h["top"] >= side["top"] - 0.5 and h["bottom"] <= min(side["bottom"], 720) + 0.5
        self.screenshot(page, "histogram")
        self.assertTrue(seen(), f"histogram at {self.rect(page, '#histogram')}, sidebar {self.rect(page, 'aside')}")
        # Drawn: the canvas has coloured bars.
        drawn = page.evaluate("() => { const c = document.getElementById('histogram'); const d = c.getContext('2d')"
                              ".getImageData(0, 0, c.width, c.height).data; let n = 0; for (let k = 3; k < d.length; k += 4) if (d[k]) n++; return n; }")
        self.assertGreater(drawn, 1000)
        # Still seen with the sidebar scrolled either way.
        page.evaluate("document.querySelector('aside').scrollTop = 0")
        self.assertTrue(seen())
        page.evaluate("document.querySelector('aside').scrollTop = 100000")
        self.assertTrue(seen())
        page.uncheck("#histogram-toggle")
        self.assertFalse(page.is_visible("#histogram"))

    def test_region_view_rerendered_on_save(self):
        import re
        s = self.start()
        page = self.open(s)
        page.check("#zoom-toggle")
        page.click("#after", position={"x": 160, "y": 100}, force=True)
        page.wait_for_function("document.getElementById('region-note').textContent.startsWith('1:1')", timeout=120000)
        first_src = page.get_attribute("#region-image", "src")
        shown = lambda: bytes(page.evaluate("async () => Array.from(new Uint8Array(await (await fetch("
                                            "document.getElementById('region-image').src)).arrayBuffer()))"))
        first = shown()
        note = page.inner_text("#region-note")
        w, h, x, y = map(int, re.search(r"(\d+)×(\d+) at \((\d+), (\d+)\)", note).groups())
        save_atomically(self.recipe, RECIPE.replace("saturation: 1.4", "saturation: 0.2").replace("amount: 0.5", "amount: 0"))
        page.wait_for_function(f"document.getElementById('region-image').src !== {first_src!r} && "
                               "document.getElementById('region-note').textContent.startsWith('1:1')", timeout=60000)
        now = shown()
        self.assertNotEqual(now, first)
        # What the page shows is the region of the saved recipe, as the server renders it now.
        status, body = s.get(f"/api/photo/0/region.jpg?x={x}&y={y}&w={w}&h={h}&")
        self.assertEqual(status, 200)
        self.assertEqual(now, body)
        self.assertIn(f"{w}×{h} at ({x}, {y})", page.inner_text("#region-note"))

    def test_bad_number_marks_the_field_and_keeps_the_slider(self):
        s = self.start()
        page = self.open(s)
        field = page.locator('.param[data-name="lift"] input[type=text]')
        slider = page.locator('.param[data-name="lift"] input[type=range]')
        self.assertEqual(slider.input_value(), "0.2")
        n = page.evaluate("window.previewLoads.length")
        field.fill("abc")
        field.press("Enter")
        page.wait_for_timeout(500)
        self.assertEqual(slider.input_value(), "0.2")  # not the middle of -10...10
        self.assertEqual(field.get_attribute("aria-invalid"), "true")
        error = page.locator('.param[data-name="lift"] .field-error')
        self.assertTrue(error.is_visible())
        self.assertIn("abc", error.inner_text())
        self.assertIn("number", error.inner_text())
        self.screenshot(page, "bad-number")
        self.assertFalse(page.is_visible("#diagnostics"))  # nothing was sent
        self.assertEqual(page.evaluate("window.previewLoads.length"), n)
        # A number: the error goes, the slider follows, a new picture comes.
        field.fill("1.5")
        field.press("Enter")
        self.wait_new_picture(page, n)
        self.assertEqual(slider.input_value(), "1.5")
        self.assertNotEqual(field.get_attribute("aria-invalid"), "true")
        self.assertFalse(error.is_visible())
        self.assertEqual(self.errors, [])

    def test_loading_indicator_and_no_stray_text_before_first_picture(self):
        s = self.start()
        page = self.browser.new_page(viewport={"width": 1280, "height": 800})
        held, releasing = [], []

        # The state and every picture are held back until the checks below are done: the page
        # as it is while it loads, first with nothing from the server, then with the state only.
        def loading(url):
            return "/api/state" in url or "/api/photo/" in url

        def hold(route):
            if releasing:
                route.continue_()
            else:
                held.append(route)

        def release(what):
            for r in [r for r in held if what in r.request.url]:
                held.remove(r)
                r.continue_()

        def still_loading(when):
            self.assertEqual(self.drawn(page, "#after") + self.drawn(page, "#before"), ["none", "none"], when)
            self.assertTrue(page.is_visible("#loading"), when)
            self.assertIn("rendering", page.inner_text("#loading"), when)

        page.route(loading, hold)
        page.goto(s.url)
        deadline = time.time() + 60
        while not any("/api/state" in r.request.url for r in held):
            self.assertLess(time.time(), deadline, "the page asked for no state")
            page.wait_for_timeout(50)
        self.screenshot(page, "loading")
        still_loading("before the state")
        release("/api/state")
        page.wait_for_selector("#stages li[data-index='3']", timeout=60000)
        still_loading("with the state, before the first frame")
        while not any("render.jpg" in r.request.url for r in held):
            self.assertLess(time.time(), deadline + 60, "the page asked for no render")
            page.wait_for_timeout(50)
        still_loading("with the first frame announced, its picture not yet loaded")
        releasing.append(True)
        release("")
        page.wait_for_function("window.previewLoads.length > 0", timeout=120000)
        page.wait_for_function("document.getElementById('before').naturalWidth > 0", timeout=120000)
        self.assertFalse(page.is_visible("#loading"))
        self.assertEqual(self.drawn(page, "#after") + self.drawn(page, "#before"), ["picture", "picture"])


def main():
    missing = [what for what, ok in [(CHROMIUM, os.path.exists(CHROMIUM)), (BIN, os.path.exists(BIN))] if not ok]
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing.append("the playwright Python package")
    if missing:
        print("browser tests skipped: missing " + ", ".join(missing) + " (.ci/setup --tests installs chromium and playwright)")
        print(f"0 passed, 0 failed, {unittest.defaultTestLoader.loadTestsFromTestCase(PreviewTests).countTestCases()} skipped")
        return 0
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"browser: {result.testsRun - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
