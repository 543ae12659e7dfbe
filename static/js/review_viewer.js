// The document beside the passage list: a PDF rendered page by page with pdf.js (pages render
// as they scroll into view, with zoom, fit width, page jump and search), or the text of a
// DOCX/TXT, with flagged passages highlighted in place and coloured by state. Highlights are
// read per run of pages from the server as pages render, so a long contract costs what is seen.
// Talks to contract.js through DOM events (see there).
const viewer = document.getElementById("document");
const data = JSON.parse(document.getElementById("viewer-data").textContent);
const labels = JSON.parse(document.getElementById("review-labels").textContent) || {};
const format = (template, values) => String(template).replace(/%\((\w+)\)s/g, (_, key) => values[key]);
const flagged = new Map(); // index -> {index, page, start, end, state, text}, as far as read
let selected = null; // the passage index the reader selected

// pypdf and pdf.js break text differently: compare letters and digits only, lower-cased.
const IGNORED = /[^\p{L}\p{N}]/gu;
const normalise = (value) => value.normalize("NFKC").toLowerCase().replace(IGNORED, "");

function stateClass(state) {
  return `hl-${String(state || "pending").toLowerCase()}`;
}

function paint(node, passage) {
  node.classList.add("hl", stateClass(passage.state));
  node.dataset.passage = String(passage.index);
  node.classList.toggle("hl-selected", passage.index === selected);
}

function repaint(index, state) {
  viewer.querySelectorAll(`[data-passage="${index}"]`).forEach((node) => {
    [...node.classList].filter((c) => c.startsWith("hl-") && c !== "hl-selected")
      .forEach((c) => node.classList.remove(c));
    node.classList.add(stateClass(state));
  });
}

function markSelected(index) {
  selected = index;
  viewer.querySelectorAll(".hl-selected").forEach((node) => node.classList.remove("hl-selected"));
  viewer.querySelectorAll(`[data-passage="${index}"]`).forEach((node) => node.classList.add("hl-selected"));
}

function flash(nodes) {
  nodes.forEach((node) => {
    node.classList.remove("flash");
    void node.offsetWidth;
    node.classList.add("flash");
  });
}

function scrollIntoPane(node, align = "center") {
  const pane = viewer.getBoundingClientRect();
  const box = node.getBoundingClientRect();
  const offset = align === "top" ? 8 : (viewer.clientHeight - Math.min(box.height, viewer.clientHeight)) / 2;
  viewer.scrollTop += box.top - pane.top - offset;
}

// ---- matching a passage to the text layer of its page -------------------------------------------

// Normalised page text, and for each of its characters the text-layer span it came from.
function pageIndex(strings) {
  const chars = [];
  const owners = [];
  strings.forEach((value, span) => {
    for (const char of normalise(value)) {
      chars.push(char);
      owners.push(span);
    }
  });
  return { text: chars.join(""), owners };
}

// The part of a passage that lies on a page (a passage may run over a page break).
function partOnPage(passage, pageNumber) {
  const span = data.pageSpans[pageNumber - 1];
  if (!span) return passage.page === pageNumber ? passage.text : "";
  const [start, end] = span;
  if (passage.end <= start || passage.start >= end) return "";
  const from = Math.max(passage.start, start) - passage.start;
  return passage.text.slice(from, Math.min(passage.end, end) - passage.start);
}

const PROBE = 32;

// [first, last] character of the normalised page text covering `needle`, or null.
function locate(haystack, needle, from) {
  let at = haystack.indexOf(needle, from);
  if (at < 0) at = haystack.indexOf(needle);
  if (at >= 0) return [at, at + needle.length - 1];
  if (needle.length <= PROBE * 2) return null;
  const head = haystack.indexOf(needle.slice(0, PROBE), from);
  const tail = head >= 0 ? haystack.indexOf(needle.slice(-PROBE), head) : -1;
  if (head >= 0 && tail >= 0 && tail - head < needle.length * 1.5) return [head, tail + PROBE - 1];
  if (head >= 0) return [head, Math.min(haystack.length, head + needle.length) - 1];
  const alone = haystack.indexOf(needle.slice(-PROBE));
  if (alone >= 0) return [Math.max(0, alone + PROBE - needle.length), alone + PROBE - 1];
  return null;
}

function highlightPage(pageNumber, box, spans, index, passages) {
  const missing = [];
  let cursor = 0;
  for (const passage of passages) {
    const needle = normalise(partOnPage(passage, pageNumber));
    if (!needle) continue;
    const range = locate(index.text, needle, cursor);
    if (!range) { missing.push(passage); continue; }
    cursor = range[1] + 1;
    for (let span = index.owners[range[0]]; span <= index.owners[range[1]]; span += 1) {
      if (!spans[span].dataset.passage) paint(spans[span], passage);
    }
  }
  missing.forEach((passage, n) => markPage(box, passage, n));
}

// No match in the text layer: mark the page itself, so the passage still has a place.
function markPage(box, passage, n) {
  box.classList.add("page-flagged");
  const marker = document.createElement("button");
  marker.type = "button";
  marker.className = "page-marker";
  marker.style.top = `${n * 1.9}rem`;
  marker.textContent = format(labels.notLocated, { index: passage.index });
  paint(marker, passage);
  box.append(marker);
}

// ---- highlights, read from the server by runs of pages -------------------------------------------
const RUN = 10;
const runs = new Map(); // first page of a run -> Promise of its flagged passages

function highlightsFor(pageNumber) {
  const first = Math.floor((pageNumber - 1) / RUN) * RUN + 1;
  if (!runs.has(first)) {
    const query = new URLSearchParams({ first, last: first + RUN - 1 });
    runs.set(first, fetch(`${viewer.dataset.highlightsUrl}?${query}`, { credentials: "same-origin" })
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then((body) => body.flagged.map((row) => {
        const known = flagged.get(row.index);
        if (known) return known; // a live state change may have reached it already
        flagged.set(row.index, row);
        return row;
      }))
      .catch((error) => { runs.delete(first); throw error; }));
  }
  return runs.get(first).then((rows) => rows.filter((row) => partOnPage(row, pageNumber)));
}

// ---- the PDF ------------------------------------------------------------------------------------
const pages = new Map(); // page number -> {box, rendered: Promise | null, generation, text}
const ZOOM_STEPS = [0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3];
let pdf = null;
let pdfjs = null;
let natural = null; // the first page's size at scale 1
let scale = 1;
let observer = null;

function fitWidthScale() {
  return Math.min(3, Math.max(0.5, (viewer.clientWidth - 32) / natural.width));
}

async function openPdf() {
  pdfjs = await import(viewer.dataset.pdfjs);
  pdfjs.GlobalWorkerOptions.workerSrc = viewer.dataset.worker;
  pdf = await pdfjs.getDocument({ url: viewer.dataset.url, withCredentials: true }).promise;
  const first = await pdf.getPage(1);
  natural = first.getViewport({ scale: 1 });
  scale = fitWidthScale();
  document.getElementById("viewer-status").remove();
  observer = new IntersectionObserver(onVisible, { root: viewer, rootMargin: "800px 0px" });
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const box = document.createElement("div");
    box.className = "pdf-page";
    box.dataset.page = String(number);
    box.setAttribute("role", "group"); // a div may carry a name only with a role
    box.setAttribute("aria-label", format(labels.page, { page: number }));
    viewer.append(box);
    pages.set(number, { box, rendered: null, generation: 0, size: null });
  }
  layOut();
  showZoom();
}

// Size every page box for the current scale (pages not drawn yet take the first page's size).
function layOut() {
  for (const entry of pages.values()) {
    const size = entry.size || natural;
    entry.box.style.width = `${size.width * scale}px`;
    entry.box.style.height = `${size.height * scale}px`;
    observer.unobserve(entry.box);
    observer.observe(entry.box); // observing again reports the boxes in view now
  }
}

function onVisible(entries) {
  entries.filter((entry) => entry.isIntersecting).forEach((entry) => {
    renderPage(Number(entry.target.dataset.page));
  });
  showCurrentPage();
}

function renderPage(number) {
  const entry = pages.get(number);
  if (!entry) return Promise.resolve();
  if (!entry.rendered) {
    entry.rendered = drawPage(number, entry).catch((error) => {
      entry.box.textContent = format(labels.pdfFailed, { error: error.message || error });
    });
  }
  return entry.rendered;
}

async function drawPage(number, entry) {
  const generation = entry.generation;
  const page = await pdf.getPage(number);
  const unscaled = page.getViewport({ scale: 1 });
  entry.size = { width: unscaled.width, height: unscaled.height };
  const viewport = page.getViewport({ scale });
  const ratio = window.devicePixelRatio || 1;
  const canvas = document.createElement("canvas");
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${viewport.width}px`;
  canvas.style.height = `${viewport.height}px`;
  const transform = ratio === 1 ? null : [ratio, 0, 0, ratio, 0, 0];
  await page.render({ canvasContext: canvas.getContext("2d"), viewport, transform }).promise;
  const layer = document.createElement("div");
  layer.className = "textLayer";
  const text = new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container: layer, viewport });
  await text.render();
  const passages = await highlightsFor(number).catch(() => []);
  if (generation !== entry.generation) return; // zoomed meanwhile: a newer drawing comes
  const { box } = entry;
  box.style.width = `${viewport.width}px`;
  box.style.height = `${viewport.height}px`;
  box.style.setProperty("--scale-factor", String(viewport.scale));
  box.replaceChildren(canvas, layer);
  entry.text = { spans: text.textDivs, index: pageIndex(text.textContentItemsStr) };
  highlightPage(number, box, entry.text.spans, entry.text.index, passages);
  box.dataset.rendered = "1";
}

async function showInPdf(index, pageNumber) {
  const known = flagged.get(index);
  const first = known ? known.page : pageNumber;
  if (!pages.has(first)) return;
  scrollIntoPane(pages.get(first).box, "top");
  // A passage may start at the foot of its page and be found on the next one.
  for (const number of [first, first + 1]) {
    if (!pages.has(number)) break;
    await renderPage(number);
    const targets = [...pages.get(number).box.querySelectorAll(`[data-passage="${index}"]`)];
    if (targets.length) {
      scrollIntoPane(targets[0]);
      flash(targets);
      return;
    }
  }
}

// ---- zoom, fit width, page jump -------------------------------------------------------------------
function currentPage() {
  const top = viewer.getBoundingClientRect().top + viewer.clientHeight / 3;
  for (const [number, entry] of pages) {
    const box = entry.box.getBoundingClientRect();
    if (box.bottom > top) return number;
  }
  return pages.size;
}

function showCurrentPage() {
  const input = document.getElementById("page-input");
  if (input && document.activeElement !== input) input.value = String(currentPage());
}

function showZoom() {
  document.getElementById("zoom-level").textContent = `${Math.round(scale * 100)}%`;
  viewer.dataset.scale = scale.toFixed(3);
}

function setScale(next) {
  next = Math.min(3, Math.max(0.5, next));
  if (!pdf || Math.abs(next - scale) < 0.001) return;
  const page = currentPage();
  const box = pages.get(page).box;
  const within = (viewer.scrollTop - box.offsetTop) / Math.max(1, box.offsetHeight);
  scale = next;
  for (const entry of pages.values()) {
    entry.generation += 1;
    entry.rendered = null;
    entry.text = null;
    entry.box.replaceChildren();
    entry.box.classList.remove("page-flagged");
    delete entry.box.dataset.rendered;
  }
  layOut();
  viewer.scrollTop = box.offsetTop + within * box.offsetHeight;
  showZoom();
  if (search.hits.length) showHit(search.at);
}

function zoom(direction) {
  if (direction === "fit") return setScale(fitWidthScale());
  const steps = direction === "in" ? ZOOM_STEPS : [...ZOOM_STEPS].reverse();
  const next = steps.find((step) => (direction === "in" ? step > scale + 0.001 : step < scale - 0.001));
  if (next) setScale(next);
}

function jumpToPage(number) {
  const entry = pages.get(number);
  if (!entry) return;
  scrollIntoPane(entry.box, "top");
  renderPage(number);
}

// ---- search -------------------------------------------------------------------------------------
// Each page's text is read once (pdf.js getTextContent); a hit is (page, n-th match on it), found
// again in the page's text layer once drawn, whose strings are the same items.
const search = { query: "", hits: [], at: 0 };
const pageTexts = new Map();

async function pageText(number) {
  if (!pageTexts.has(number)) {
    pageTexts.set(number, pdf.getPage(number).then((page) => page.getTextContent())
      .then((content) => normalise(content.items.filter((item) => "str" in item).map((item) => item.str).join(""))));
  }
  return pageTexts.get(number);
}

function occurrences(haystack, needle) {
  const found = [];
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) found.push(at);
  return found;
}

function searchStatus(message) {
  document.getElementById("search-status").textContent = message;
}

async function runSearch(query) {
  const needle = normalise(query);
  search.query = needle;
  search.hits = [];
  search.at = 0;
  clearHits();
  if (!needle) { searchStatus(""); return; }
  searchStatus(gettext("Searching…"));
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const found = occurrences(await pageText(number), needle);
    if (search.query !== needle) return; // a newer search started
    found.forEach((_, n) => search.hits.push({ page: number, n }));
  }
  if (!search.hits.length) { searchStatus(gettext("No match")); return; }
  await showHit(0);
}

function clearHits() {
  viewer.querySelectorAll(".search-hit").forEach((node) => node.classList.remove("search-hit"));
}

async function showHit(at) {
  if (!search.hits.length) return;
  search.at = (at + search.hits.length) % search.hits.length;
  const hit = search.hits[search.at];
  searchStatus(interpolate(gettext("%(at)s of %(count)s"), { at: search.at + 1, count: search.hits.length }, true));
  jumpToPage(hit.page);
  await renderPage(hit.page);
  const entry = pages.get(hit.page);
  if (!entry.text) return;
  clearHits();
  const starts = occurrences(entry.text.index.text, search.query);
  const start = starts[Math.min(hit.n, starts.length - 1)];
  if (start === undefined) return;
  const { owners } = entry.text.index;
  const last = owners[start + search.query.length - 1];
  for (let span = owners[start]; span <= last; span += 1) entry.text.spans[span].classList.add("search-hit");
  scrollIntoPane(entry.text.spans[owners[start]]);
}

function wireTools() {
  const tools = document.getElementById("viewer-tools");
  if (!tools) return;
  tools.querySelectorAll("[data-zoom]").forEach((button) => {
    button.addEventListener("click", () => zoom(button.dataset.zoom));
  });
  document.getElementById("page-jump").addEventListener("submit", (e) => {
    e.preventDefault();
    jumpToPage(Number(e.target.elements.page.value));
  });
  const form = document.getElementById("pdf-search");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const query = form.elements.q.value;
    if (normalise(query) === search.query && search.hits.length) showHit(search.at + 1);
    else runSearch(query);
  });
  tools.querySelectorAll("[data-search]").forEach((button) => {
    button.addEventListener("click", () => showHit(search.at + (button.dataset.search === "next" ? 1 : -1)));
  });
  viewer.addEventListener("scroll", () => requestAnimationFrame(showCurrentPage), { passive: true });
}

// ---- text documents (DOCX, TXT) -----------------------------------------------------------------
async function showText() {
  const response = await fetch(viewer.dataset.textUrl, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const doc = await response.json();
  const pre = document.createElement("pre");
  pre.className = "text-doc";
  let at = 0;
  for (const [index, start, end] of doc.spans) {
    if (start > at) pre.append(doc.text.slice(at, start));
    const node = document.createElement("span");
    node.textContent = doc.text.slice(Math.max(start, at), end);
    node.id = `doc-passage-${index}`;
    const state = doc.flagged[String(index)];
    if (state !== undefined) {
      const passage = flagged.get(index) || { index, state };
      flagged.set(index, passage);
      paint(node, passage);
    }
    pre.append(node);
    at = Math.max(at, end);
  }
  pre.append(doc.text.slice(at));
  document.getElementById("viewer-status").remove();
  viewer.append(pre);
}

function showInText(index) {
  const node = document.getElementById(`doc-passage-${index}`);
  if (!node) return;
  scrollIntoPane(node);
  flash([node]);
}

// ---- wiring -------------------------------------------------------------------------------------
function show(index, page) {
  if (viewer.dataset.ready !== "1") return;
  if (data.isPdf) showInPdf(index, page);
  else showInText(index);
}

document.addEventListener("clausewise:passage-state", (e) => {
  const passage = flagged.get(e.detail.index);
  if (passage) passage.state = e.detail.state;
  repaint(e.detail.index, e.detail.state);
});

document.addEventListener("clausewise:passage-selected", (e) => markSelected(e.detail.index));
document.addEventListener("clausewise:show-passage", (e) => show(e.detail.index, e.detail.page));

viewer.addEventListener("click", (e) => {
  const node = e.target.closest("[data-passage]");
  if (node) {
    markSelected(Number(node.dataset.passage));
    document.dispatchEvent(new CustomEvent("clausewise:highlight-click",
      { detail: { index: Number(node.dataset.passage) } }));
  }
});

function failed(error) {
  const status = document.getElementById("viewer-status");
  if (status) {
    status.textContent = format(labels.pdfFailed, { error: error.message || error });
    status.className = "error";
    status.setAttribute("role", "alert");
  }
}

// A passage selected before the viewer was ready (a deep link): show it now.
function ready() {
  viewer.dataset.ready = "1";
  const early = window.Clausewise && window.Clausewise.selected;
  if (early) {
    markSelected(early.index);
    if (early.show) show(early.index, early.page);
  }
}

if (data.isPdf) {
  wireTools();
  openPdf().then(ready).catch(failed);
} else {
  showText().then(ready).catch(failed);
}
