// The document beside the passage list: a PDF rendered page by page with pdf.js (pages render
// as they scroll into view), or the text of a DOCX/TXT, with flagged passages highlighted in
// place and coloured by state. Talks to contract.js through DOM events (see there).
const viewer = document.getElementById("document");
const data = JSON.parse(document.getElementById("viewer-data").textContent);
const labels = JSON.parse(document.getElementById("review-labels").textContent) || {};
const format = (template, values) => String(template).replace(/%\((\w+)\)s/g, (_, key) => values[key]);
const flagged = new Map(data.flagged.map((p) => [p.index, p]));

// pypdf and pdf.js break text differently: compare letters and digits only, lower-cased.
const IGNORED = /[^\p{L}\p{N}]/gu;
const normalise = (value) => value.normalize("NFKC").toLowerCase().replace(IGNORED, "");

function stateClass(state) {
  return `hl-${String(state || "pending").toLowerCase()}`;
}

function paint(node, passage) {
  node.classList.add("hl", stateClass(passage.state));
  node.dataset.passage = String(passage.index);
}

function repaint(index, state) {
  viewer.querySelectorAll(`[data-passage="${index}"]`).forEach((node) => {
    [...node.classList].filter((c) => c.startsWith("hl-")).forEach((c) => node.classList.remove(c));
    node.classList.add(stateClass(state));
  });
}

function flash(nodes) {
  nodes.forEach((node) => {
    node.classList.remove("flash");
    void node.offsetWidth;
    node.classList.add("flash");
  });
}

function scrollIntoPane(node) {
  const pane = viewer.getBoundingClientRect();
  const box = node.getBoundingClientRect();
  viewer.scrollTop += box.top - pane.top - (viewer.clientHeight - Math.min(box.height, viewer.clientHeight)) / 2;
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

function highlightPage(pageNumber, box, spans, strings) {
  const index = pageIndex(strings);
  const missing = [];
  let cursor = 0;
  for (const passage of flagged.values()) {
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

// ---- the PDF ------------------------------------------------------------------------------------
const pages = new Map(); // page number -> {box, rendered: Promise | null}
let pdf = null;
let pdfjs = null;
let scale = 1;

async function openPdf() {
  pdfjs = await import(viewer.dataset.pdfjs);
  pdfjs.GlobalWorkerOptions.workerSrc = viewer.dataset.worker;
  pdf = await pdfjs.getDocument({ url: viewer.dataset.url, withCredentials: true }).promise;
  const first = await pdf.getPage(1);
  const natural = first.getViewport({ scale: 1 });
  scale = Math.min(2, Math.max(0.5, (viewer.clientWidth - 32) / natural.width));
  const size = first.getViewport({ scale });
  document.getElementById("viewer-status").remove();
  const observer = new IntersectionObserver(onVisible, { root: viewer, rootMargin: "800px 0px" });
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const box = document.createElement("div");
    box.className = "pdf-page";
    box.dataset.page = String(number);
    box.style.width = `${size.width}px`;
    box.style.height = `${size.height}px`;
    box.setAttribute("aria-label", format(labels.page, { page: number }));
    viewer.append(box);
    pages.set(number, { box, rendered: null });
    observer.observe(box);
  }
}

function onVisible(entries) {
  entries.filter((entry) => entry.isIntersecting).forEach((entry) => {
    renderPage(Number(entry.target.dataset.page));
  });
}

function renderPage(number) {
  const entry = pages.get(number);
  if (!entry) return Promise.resolve();
  if (!entry.rendered) entry.rendered = drawPage(number, entry.box).catch((error) => {
    entry.box.textContent = format(labels.pdfFailed, { error: error.message || error });
  });
  return entry.rendered;
}

async function drawPage(number, box) {
  const page = await pdf.getPage(number);
  const viewport = page.getViewport({ scale });
  const ratio = window.devicePixelRatio || 1;
  const canvas = document.createElement("canvas");
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${viewport.width}px`;
  canvas.style.height = `${viewport.height}px`;
  box.style.width = `${viewport.width}px`;
  box.style.height = `${viewport.height}px`;
  box.style.setProperty("--scale-factor", String(viewport.scale));
  box.append(canvas);
  const transform = ratio === 1 ? null : [ratio, 0, 0, ratio, 0, 0];
  await page.render({ canvasContext: canvas.getContext("2d"), viewport, transform }).promise;
  const layer = document.createElement("div");
  layer.className = "textLayer";
  box.append(layer);
  const text = new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container: layer, viewport });
  await text.render();
  highlightPage(number, box, text.textDivs, text.textContentItemsStr);
  box.dataset.rendered = "1";
}

async function showInPdf(index, pageNumber) {
  const passage = flagged.get(index);
  const number = passage ? passage.page : pageNumber;
  const entry = pages.get(number);
  if (!entry) return;
  scrollIntoPane(entry.box);
  await renderPage(number);
  const targets = [...viewer.querySelectorAll(`[data-passage="${index}"]`)];
  if (!targets.length) return;
  scrollIntoPane(targets[0]);
  flash(targets);
}

// ---- text documents (DOCX, TXT) -----------------------------------------------------------------
function showText() {
  const doc = document.createElement("pre");
  doc.className = "text-doc";
  let at = 0;
  for (const [index, start, end] of data.spans) {
    if (start > at) doc.append(data.text.slice(at, start));
    const node = document.createElement("span");
    node.textContent = data.text.slice(Math.max(start, at), end);
    node.id = `doc-passage-${index}`;
    if (flagged.has(index)) paint(node, flagged.get(index));
    doc.append(node);
    at = Math.max(at, end);
  }
  doc.append(data.text.slice(at));
  viewer.append(doc);
}

function showInText(index) {
  const node = document.getElementById(`doc-passage-${index}`);
  if (!node) return;
  scrollIntoPane(node);
  flash([node]);
}

// ---- wiring -------------------------------------------------------------------------------------
document.addEventListener("clausewise:passage-state", (e) => {
  const passage = flagged.get(e.detail.index);
  if (passage) passage.state = e.detail.state;
  repaint(e.detail.index, e.detail.state);
});

document.addEventListener("clausewise:show-passage", (e) => {
  if (data.isPdf) showInPdf(e.detail.index, e.detail.page);
  else showInText(e.detail.index);
});

viewer.addEventListener("click", (e) => {
  const node = e.target.closest("[data-passage]");
  if (node) {
    document.dispatchEvent(new CustomEvent("clausewise:highlight-click",
      { detail: { index: Number(node.dataset.passage) } }));
  }
});

if (data.isPdf) {
  openPdf().then(() => { viewer.dataset.ready = "1"; }).catch((error) => {
    const status = document.getElementById("viewer-status");
    if (status) {
      status.textContent = format(labels.pdfFailed, { error: error.message || error });
      status.className = "error";
      status.setAttribute("role", "alert");
    }
  });
} else {
  showText();
  viewer.dataset.ready = "1";
}
