// recipe preview: the page. Plain JS, no build step, no CDN. Every request carries the run's
// token from this page's URL. The server pushes "state" (stages, params, diagnostics) and
// "frame" (a new render) messages over the websocket; pictures are fetched by URL.
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const api = (path, extra = "") => `${path}?token=${encodeURIComponent(token)}${extra}`;
const $ = (id) => document.getElementById(id);
const view = { photo: 0, grid: false, upTo: null, state: null, frame: null, socket: null, split: 0.5, region: null };
// For tests and the benchmark: every picture shown, with when it finished loading.
window.previewLoads = [];

function setStatus(text) { $("status").textContent = text; }
function showMessage(text) { const m = $("message"); m.textContent = text || ""; m.hidden = !text; }

async function post(path, extra = "") {
  const r = await fetch(api(path, extra), { method: "POST" });
  const body = await r.text();
  if (!r.ok) throw new Error(body.trim());
  return body ? JSON.parse(body) : null;
}

// ---- the live channel
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${api("/ws")}`);
  view.socket = socket;
  socket.onopen = () => { setStatus(view.frame || view.grid ? "connected" : "rendering…"); sendView(); };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") applyState(message);
    else if (message.type === "frame") applyFrame(message);
    else if (message.type === "failure" && message.photo === view.photo && !view.grid) showFailure(message.message);
  };
  socket.onclose = () => { setStatus("disconnected: is recipe preview still running? retrying…"); setTimeout(connect, 1000); };
}
function sendView() {
  if (view.socket && view.socket.readyState === WebSocket.OPEN) view.socket.send(view.grid ? "view -1" : `view ${view.photo}`);
}

// ---- state: stages, params, diagnostics
function applyState(state) {
  const first = !view.state;
  const old = view.state;
  view.state = state;
  $("recipe-name").textContent = state.recipe;
  const diagnostics = $("diagnostics");
  diagnostics.textContent = state.diagnostics || "";
  diagnostics.hidden = !state.diagnostics;
  showMessage(state.notice);
  if (first) {
    view.grid = state.folder;
    $("grid-button").hidden = !state.folder;
    $("prev-button").hidden = $("next-button").hidden = state.photos.length < 2;
    if (state.folder) buildGrid();
    showMode();
  } else if (view.grid && old.generation !== state.generation && !state.diagnostics) {
    refreshGrid();
  }
  // No picture yet: while the recipe has errors none is coming (the diagnostics say why); once
  // they are fixed one is.
  if (!view.grid && !view.frame && !$("viewer").classList.contains("failed")) $("viewer").classList.toggle("loading", !state.diagnostics);
  // While the recipe has errors, the stages and params of the last good state stay.
  if (first || !state.diagnostics) {
    drawParams(state.params);
    drawStages(state.stages);
  }
}

function showMode() {
  $("grid").hidden = !view.grid;
  $("single").hidden = view.grid;
  const photo = view.state.photos[view.photo];
  $("photo-name").textContent = view.grid ? `${view.state.photos.length} photos` : (photo ? photo.name : "");
  if (!view.grid) {
    clearPictures("loading");
    setStatus("rendering…");
    $("region").hidden = true;
    view.region = null;
    $("before").src = api(`/api/photo/${view.photo}/before.jpg`);
    view.upTo = null;
  } else setStatus("");
  drawStages(view.state.stages);
  sendView();
}

function drawParams(params) {
  const box = $("params");
  $("write-params").disabled = !params.some((p) => p.value !== null);
  if (!params.length) { box.innerHTML = '<p class="empty">The recipe declares no <code>params:</code>.</p>'; return; }
  const names = params.map((p) => p.name).join(",");
  if (box.dataset.names !== names) {
    box.dataset.names = names;
    box.innerHTML = "";
    for (const p of params) {
      const div = document.createElement("div");
      div.className = "param";
      div.dataset.name = p.name;
      div.innerHTML = `<label><span></span><input type="text" spellcheck="false"></label>` +
        `<div class="field-error" role="alert" hidden></div>` +
        (p.min !== undefined ? `<input type="range">` : "") + `<div class="doc"></div>`;
      div.querySelector("span").textContent = p.name + (p.unit ? ` (${p.unit})` : "");
      div.querySelector(".doc").textContent = (p.doc || "") + (p.usedBy ? ` — ${p.usedBy}` : "");
      const range = div.querySelector("input[type=range]");
      const field = div.querySelector("input[type=text]");
      if (range) {
        range.min = p.min; range.max = p.max;
        range.step = p.step || ((p.max - p.min) / 1000);
        range.addEventListener("input", () => { field.value = range.value; fieldError(div, null); sendParam(p.name, range.value); });
      }
      field.addEventListener("change", () => {
        const text = field.value.trim();
        // A slider given a non-number jumps to its middle: such a value is refused here, not sent.
        if (range && text !== "" && !numberPattern.test(text)) { fieldError(div, `“${text}” is not a number`); return; }
        fieldError(div, null);
        if (range) range.value = text === "" ? currentParam(p.name).default : parseFloat(text);
        sendParam(p.name, text);
      });
      box.appendChild(div);
    }
  }
  for (const p of params) {
    const div = box.querySelector(`.param[data-name="${CSS.escape(p.name)}"]`);
    const value = p.value !== null ? p.value : p.default;
    div.classList.toggle("changed", p.value !== null);
    const field = div.querySelector("input[type=text]");
    const range = div.querySelector("input[type=range]");
    if (document.activeElement !== field) { field.value = value; fieldError(div, null); }
    if (range && document.activeElement !== range) range.value = value;
  }
}

// A number, perhaps with a unit after it (`1.5`, `-2`, `.5`, `1e3`, `90deg`); the server checks the rest.
const numberPattern = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[A-Za-z%]*$/;
function currentParam(name) { return view.state.params.find((q) => q.name === name) || { default: "" }; }
function fieldError(div, text) {
  const error = div.querySelector(".field-error");
  error.textContent = text || "";
  error.hidden = !text;
  div.querySelector("input[type=text]").setAttribute("aria-invalid", text ? "true" : "false");
}

// Slider moves are sent at most once per frame; the server supersedes older renders anyway.
const pendingParams = {};
let paramTimer = null;
function sendParam(name, value) {
  pendingParams[name] = value;
  if (paramTimer) return;
  paramTimer = requestAnimationFrame(async () => {
    paramTimer = null;
    const query = Object.entries(pendingParams).map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("");
    for (const k of Object.keys(pendingParams)) delete pendingParams[k];
    try { await post("/api/params", query); } catch (e) { showMessage(e.message); }
  });
}

$("write-params").addEventListener("click", async () => {
  try {
    const result = await post("/api/write-params");
    $("write-result").textContent = result.written.length ? `written: ${result.written.join(", ")}` : "nothing to write";
  } catch (e) { $("write-result").textContent = e.message; }
});

function drawStages(stages) {
  const list = $("stages");
  list.innerHTML = "";
  const g = view.state.generation;
  const rows = [{ index: 0, op: "original", id: null, enabled: true, off: false, line: null }].concat(stages);
  for (const s of rows) {
    const li = document.createElement("li");
    li.dataset.index = s.index;
    li.classList.toggle("off", s.off);
    li.classList.toggle("disabled", !s.enabled);
    li.classList.toggle("selected", view.upTo === s.index);
    // The grid shows many photos: the strip lists the stages (their toggles apply to every tile)
    // without thumbnails, which are of one photo.
    li.classList.toggle("bare", view.grid);
    if (!view.grid) {
      const img = document.createElement("img");
      img.alt = `after stage ${s.index}`;
      img.loading = "lazy";
      img.addEventListener("error", () => img.classList.add("failed"));
      img.src = api(`/api/photo/${view.photo}/stage-${s.index}.jpg`, `&g=${g}`);
      li.append(img);
    }
    const label = document.createElement("div");
    label.innerHTML = `<div class="op"></div><div class="line"></div>`;
    label.querySelector(".op").textContent = (s.index ? `${s.index}. ` : "") + (s.op || "?") + (s.id ? ` (${s.id})` : "");
    label.querySelector(".line").textContent = s.line ? `line ${s.line}` + (s.enabled ? "" : ", enabled: false in the file") : "before the recipe";
    li.append(label);
    if (s.index > 0) {
      const toggle = document.createElement("input");
      toggle.type = "checkbox";
      toggle.checked = !s.off;
      toggle.disabled = !s.enabled;
      toggle.title = "on/off here (the file is not changed)";
      toggle.className = "stage-toggle";
      toggle.addEventListener("click", async (event) => {
        event.stopPropagation();
        try { await post(`/api/stage/${s.index}`, `&on=${toggle.checked ? 1 : 0}`); } catch (e) { showMessage(e.message); }
      });
      li.append(toggle);
    } else li.append(document.createElement("span"));
    li.addEventListener("click", () => selectStage(view.upTo === s.index ? null : s.index));
    list.appendChild(li);
  }
  $("all-stages").hidden = view.upTo === null;
}

function selectStage(index) {
  view.upTo = index;
  for (const li of $("stages").children) li.classList.toggle("selected", Number(li.dataset.index) === index);
  $("all-stages").hidden = index === null;
  showAfter();
}
$("all-stages").addEventListener("click", () => selectStage(null));

// ---- pictures
function applyFrame(frame) {
  if (frame.photo !== view.photo || view.grid) return;
  const old = view.frame;
  view.frame = frame;
  $("viewer").classList.remove("failed");
  if (!view.state || !view.state.diagnostics) showMessage(frame.warnings.length ? frame.warnings.join("\n") : null);
  setStatus(`render ${frame.milliseconds} ms · ${frame.width}×${frame.height}`);
  showAfter();
  // An open 1:1 view shows the same region of the new render.
  if (view.region && !$("region").hidden && (!old || old.generation !== frame.generation)) showRegion();
}

// Before a photo's first picture, or when it cannot be rendered: nothing of the last photo stays
// (its picture, its render time); `why` is "loading" (the indicator shows) or "failed".
function clearPictures(why) {
  for (const id of ["before", "after"]) { $(id).removeAttribute("src"); $(id).classList.add("pending"); }
  $("clipping").hidden = true;
  $("viewer").classList.toggle("loading", why === "loading");
  $("viewer").classList.toggle("failed", why === "failed");
}
function showFailure(message) {
  view.frame = null;
  clearPictures("failed");
  setStatus("no picture");
  showMessage(message);
}

function showAfter() {
  const g = view.frame ? view.frame.generation : 0;
  const url = view.upTo === null ? api(`/api/photo/${view.photo}/render.jpg`, `&g=${g}`)
    : api(`/api/photo/${view.photo}/upto-${view.upTo}.jpg`, `&g=${view.state.generation}`);
  if ($("after").getAttribute("src") !== url) $("after").src = url;
}

$("after").addEventListener("load", () => {
  $("after").classList.remove("pending");
  $("viewer").classList.remove("loading");
  $("clipping").hidden = !$("clipping-toggle").checked;
  window.previewLoads.push({ src: $("after").getAttribute("src"), at: performance.timeOrigin + performance.now() });
  layoutSplit();
  if (!$("histogram-panel").hidden || $("clipping-toggle").checked) analyse();
});
$("after").addEventListener("error", async () => {
  if (!$("after").getAttribute("src")) return;
  const r = await fetch($("after").src);
  if (!r.ok) showMessage(await r.text());
});
$("before").addEventListener("load", () => { $("before").classList.remove("pending"); layoutSplit(); });
$("before").addEventListener("error", () => $("before").classList.add("pending"));

// The split lays the after over the before only when they are the same picture's pixels: a
// recipe that changes the size or shape (a crop, a straighten, a resize) is shown side by side,
// each whole, since a before of another shape cannot line up with it.
function sameFrame() {
  const b = $("before"), a = $("after");
  if (b.naturalWidth && a.naturalWidth && (b.naturalWidth !== a.naturalWidth || b.naturalHeight !== a.naturalHeight)) return false;
  const f = view.frame;
  if (view.upTo !== null || !f || !f.sourceWidth) return true;
  return f.fullWidth === f.sourceWidth && f.fullHeight === f.sourceHeight;
}

function layoutSplit() {
  const side = !sameFrame();
  $("viewer").classList.toggle("side", side);
  const rect = $("after").getBoundingClientRect();
  const box = $("viewer").getBoundingClientRect();
  const x = side ? box.width / 2 : rect.left - box.left + rect.width * view.split;
  $("after-clip").style.clipPath = side ? "none" : `inset(0 0 0 ${x}px)`;
  $("divider").style.left = `${x}px`;
  const c = $("clipping");
  c.style.left = `${rect.left - box.left}px`; c.style.top = `${rect.top - box.top}px`;
  c.style.width = `${rect.width}px`; c.style.height = `${rect.height}px`;
}
$("split").addEventListener("input", () => { view.split = $("split").value / 100; layoutSplit(); });
window.addEventListener("resize", layoutSplit);

// ---- histogram and clipping (from the render shown, 8-bit sRGB)
function analyse() {
  const img = $("after");
  if (!img.naturalWidth) return;
  const w = img.naturalWidth, h = img.naturalHeight;
  const work = document.createElement("canvas");
  work.width = w; work.height = h;
  const ctx = work.getContext("2d", { willReadFrequently: true });
  ctx.drawImage(img, 0, 0);
  const data = ctx.getImageData(0, 0, w, h).data;
  const bins = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  const clip = $("clipping");
  const showClip = $("clipping-toggle").checked;
  clip.hidden = !showClip;
  clip.width = w; clip.height = h;
  const cctx = clip.getContext("2d");
  const overlay = cctx.createImageData(w, h);
  let high = 0, low = 0;
  for (let i = 0; i < data.length; i += 4) {
    const r = data[i], g = data[i + 1], b = data[i + 2];
    bins[0][r]++; bins[1][g]++; bins[2][b]++;
    if (r >= 255 || g >= 255 || b >= 255) { high++; overlay.data[i] = 255; overlay.data[i + 3] = 200; }
    else if (r <= 0 && g <= 0 && b <= 0) { low++; overlay.data[i + 2] = 255; overlay.data[i + 1] = 90; overlay.data[i + 3] = 200; }
  }
  if (showClip) cctx.putImageData(overlay, 0, 0);
  const hist = $("histogram").getContext("2d");
  hist.clearRect(0, 0, 256, 100);
  hist.globalCompositeOperation = "lighter";
  const peak = Math.max(...bins.map((b) => Math.max(...b.slice(1, 255)))) || 1;
  ["#ff4040", "#40ff40", "#4080ff"].forEach((colour, c) => {
    hist.fillStyle = colour;
    for (let x = 0; x < 256; x++) { const v = Math.min(100, (bins[c][x] / peak) * 100); hist.fillRect(x, 100 - v, 1, v); }
  });
  hist.globalCompositeOperation = "source-over";
  const pct = (n) => ((100 * n) / (w * h)).toFixed(2);
  $("clip-counts").textContent = `clipped highlights ${pct(high)}% · crushed shadows ${pct(low)}%`;
  window.previewClipping = { high, low, pixels: w * h };
}
$("histogram-toggle").addEventListener("change", () => { $("histogram-panel").hidden = !$("histogram-toggle").checked; analyse(); });
$("clipping-toggle").addEventListener("change", () => { $("clipping").hidden = !$("clipping-toggle").checked; analyse(); });

// ---- 1:1 region at full resolution
$("zoom-toggle").addEventListener("change", () => $("viewer").classList.toggle("zoom", $("zoom-toggle").checked));
$("viewer").addEventListener("click", (event) => {
  if (!$("zoom-toggle").checked || !view.frame) return;
  const rect = $("after").getBoundingClientRect();
  const fx = (event.clientX - rect.left) / rect.width, fy = (event.clientY - rect.top) / rect.height;
  if (fx < 0 || fx > 1 || fy < 0 || fy > 1) return;
  view.region = { photo: view.photo, fx, fy, asked: 0 };
  showRegion();
});
// Renders the region the page last asked for from the current frame (again after each new frame:
// a save, a slider); an answer older than the last question is dropped.
async function showRegion() {
  const region = view.region, frame = view.frame;
  if (!region || !frame || region.photo !== view.photo) return;
  const asked = ++region.asked;
  const fullW = frame.fullWidth || frame.width, fullH = frame.fullHeight || frame.height;
  const w = Math.min(fullW, 800), h = Math.min(fullH, 500);
  const x = Math.max(0, Math.min(fullW - w, Math.round(region.fx * fullW - w / 2)));
  const y = Math.max(0, Math.min(fullH - h, Math.round(region.fy * fullH - h / 2)));
  $("region").hidden = false;
  $("region-note").textContent = `rendering ${w}×${h} at (${x}, ${y}) of ${fullW}×${fullH}…`;
  const r = await fetch(api(`/api/photo/${region.photo}/region.jpg`, `&x=${x}&y=${y}&w=${w}&h=${h}`));
  if (view.region !== region || region.asked !== asked) return;
  if (!r.ok) { $("region-note").textContent = await r.text(); return; }
  const blob = await r.blob();
  if (view.region !== region || region.asked !== asked) return;
  const old = $("region-image").src;
  $("region-image").src = URL.createObjectURL(blob);
  if (old.startsWith("blob:")) URL.revokeObjectURL(old);
  $("region-note").textContent = `1:1, ${w}×${h} at (${x}, ${y}) of ${fullW}×${fullH}, ${r.headers.get("X-Render-Milliseconds")} ms: ${r.headers.get("X-Render-Note") || ""}`;
}
$("region-close").addEventListener("click", () => { $("region").hidden = true; view.region = null; });

// ---- folder mode: a grid of thumbnails, rendered lazily as they come into view
const tileObserver = new IntersectionObserver((entries) => {
  for (const entry of entries) if (entry.isIntersecting) loadTile(entry.target);
}, { rootMargin: "200px" });

function buildGrid() {
  const grid = $("grid");
  grid.innerHTML = "";
  for (const photo of view.state.photos) {
    const tile = document.createElement("figure");
    tile.className = "tile";
    tile.dataset.index = photo.index;
    tile.innerHTML = `<img alt=""><figcaption></figcaption>`;
    tile.querySelector("figcaption").textContent = photo.name;
    tile.addEventListener("click", () => { view.photo = photo.index; view.grid = false; view.frame = null; showMode(); });
    grid.appendChild(tile);
    tileObserver.observe(tile);
  }
}
function refreshGrid() {
  for (const tile of $("grid").children) {
    tile.dataset.loaded = "";
    const r = tile.getBoundingClientRect();
    if (r.bottom > -200 && r.top < innerHeight + 200) loadTile(tile);
  }
}
async function loadTile(tile) {
  const g = view.state.generation;
  if (tile.dataset.loaded === String(g)) return;
  tile.dataset.loaded = String(g);
  const r = await fetch(api(`/api/photo/${tile.dataset.index}/thumb.jpg`, `&g=${g}`));
  if (view.state.generation !== g && r.status === 503) return;
  const old = tile.querySelector(".error");
  if (old) old.remove();
  if (r.ok) {
    const img = tile.querySelector("img");
    img.hidden = false;
    img.src = URL.createObjectURL(await r.blob());
  } else {
    tile.querySelector("img").hidden = true;
    const e = document.createElement("div");
    e.className = "error";
    e.textContent = (await r.text()).trim();
    tile.prepend(e);
  }
}
$("grid-button").addEventListener("click", () => { view.grid = true; showMode(); refreshGrid(); });
function step(by) {
  const n = view.state.photos.length;
  view.photo = (view.photo + by + n) % n; view.grid = false; view.frame = null; showMode();
}
$("prev-button").addEventListener("click", () => step(-1));
$("next-button").addEventListener("click", () => step(1));

fetch(api("/api/state")).then((r) => r.json()).then((state) => { applyState(state); connect(); });
