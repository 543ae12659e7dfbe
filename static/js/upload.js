// Matter page uploads: files, a zip or a whole folder (chosen or dropped) become one batch.
// The browser announces a batch's files first, so a page left mid-upload leaves a batch that
// says which files never arrived; leaving while files are sending asks first (beforeunload).
// Each file has a bar for its upload, then its ingestion pushed over the websocket. The contract
// table and the batches' progress are re-read from the server on live events, so they say the
// same words, in the same order, as after a reload.
(function () {
  "use strict";
  const section = document.getElementById("upload");
  const input = document.getElementById("file-input");
  const folderInput = document.getElementById("folder-input");
  const modelBatch = document.getElementById("use-model-batch");
  const dropzone = document.getElementById("dropzone");
  const list = document.getElementById("upload-list");
  const batchesPanel = document.getElementById("intake-batches");
  const tbody = document.querySelector("#contracts tbody");
  const maxBytes = Number(section.dataset.maxBytes);
  const maxZipBytes = Number(section.dataset.maxZipBytes);
  const csrf = section.querySelector("[name=csrfmiddlewaretoken]").value;
  const WORDS = JSON.parse(document.getElementById("status-words").textContent);
  const rows = new Map(); // contract id -> upload row element
  const early = new Map(); // contract id -> progress pushed before the upload reply arrived
  const TERMINAL = new Set(["INGESTED", "NEEDS_PASSWORD", "NEEDS_OCR", "PARSE_FAILED", "TOO_LARGE", "UNSUPPORTED_TYPE"]);
  const PARALLEL = 3;
  let sending = 0; // files whose bytes are still on their way

  function megabytes(bytes) {
    return interpolate(gettext("%(size)s MB"), { size: (bytes / 1048576).toFixed(1) }, true);
  }

  window.addEventListener("beforeunload", (event) => {
    if (sending > 0) { event.preventDefault(); event.returnValue = ""; }
  });

  function makeRow(name) {
    const row = document.createElement("li");
    row.className = "upload";
    row.innerHTML = '<div class="name"></div><div class="progress"><div class="bar"></div></div>' +
      '<div class="state muted"></div>';
    row.querySelector(".name").textContent = name;
    row.querySelector(".state").textContent = gettext("Waiting…");
    list.appendChild(row);
    return row;
  }

  function show(row, { percent, state, error, link }) {
    if (percent !== undefined) {
      row.querySelector(".bar").style.width = `${percent}%`;
      row.dataset.percent = String(Math.round(percent));
    }
    const label = row.querySelector(".state");
    if (state !== undefined) { label.textContent = state; }
    if (error) { row.classList.add("failed"); label.className = "state error"; }
    if (link) {
      const a = document.createElement("a");
      a.href = link.href; a.textContent = link.text;
      label.append(" · ", a);
    }
  }

  function stateWords(contract) {
    if (contract.stage === "ocr" && contract.pages) {
      return interpolate(gettext("Reading the scan: page %(page)s of %(pages)s"),
        { page: contract.page || 0, pages: contract.pages }, true);
    }
    return WORDS[contract.status] || contract.status;
  }

  function showContract(row, contract) {
    const status = contract.status;
    row.dataset.status = status;
    const percent = 50 + (contract.progress || 0) / 2;
    const href = contract.url || `/contracts/${contract.contract_id || contract.id}/`;
    if (status === "INGESTED") {
      const passages = contract.passages ?? contract.passage_count;
      const count = passages == null ? "" : " — " + interpolate(
        ngettext("%(count)s passage", "%(count)s passages", passages), { count: passages }, true);
      show(row, { percent: 100, state: `${WORDS[status]}${count}`, link: { href, text: gettext("Open") } });
    } else if (TERMINAL.has(status)) {
      show(row, { percent: 100, state: contract.error ? gettext(contract.error.message) : WORDS[status],
        error: true, link: { href, text: gettext("Details") } });
    } else {
      show(row, { percent, state: stateWords(contract) });
    }
  }

  function post(url, body, onProgress) {
    return new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", url);
      xhr.setRequestHeader("X-CSRFToken", csrf);
      if (onProgress) {
        xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
      }
      xhr.onerror = () => resolve({ status: 0, body: null });
      xhr.onload = () => {
        let parsed = null;
        try { parsed = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
        resolve({ status: xhr.status, body: parsed });
      };
      if (body instanceof FormData) xhr.send(body);
      else { xhr.setRequestHeader("Content-Type", "application/json"); xhr.send(JSON.stringify(body)); }
    });
  }

  function failure(reply) {
    if (reply.status === 0) return gettext("The upload failed: the server could not be reached.");
    if (reply.body && reply.body.error) return reply.body.error.message;
    return interpolate(gettext("The upload failed (HTTP %(status)s)."), { status: reply.status }, true);
  }

  async function announce(source, name, entries) {
    const reply = await post(section.dataset.intakeUrl, {
      kind: source, name, manifest: entries, use_model_batch: Boolean(modelBatch && modelBatch.checked),
    });
    refreshSoon();
    return reply.status === 201 ? reply.body.id : null;
  }

  async function sendFile(item, batchId) {
    const row = makeRow(item.path ? `${item.path}/${item.file.name}` : item.file.name);
    const form = new FormData();
    form.append("file", item.file);
    if (batchId) { form.append("batch", String(batchId)); form.append("path", item.path || ""); }
    sending += 1;
    const reply = await post(section.dataset.uploadUrl, form, (share) => {
      show(row, { percent: share * 50, state: gettext("Uploading…") });
    }).finally(() => { sending -= 1; });
    if (reply.status >= 400 || reply.status === 0 || !reply.body) {
      show(row, { percent: 100, state: failure(reply), error: true });
      return;
    }
    const body = reply.body;
    rows.set(body.id, row);
    row.dataset.contractId = String(body.id);
    if (body.duplicate) {
      show(row, { percent: 100, state: gettext("Already in this matter"), link: { href: body.url, text: gettext("Open") } });
      return;
    }
    showContract(row, body);
    (early.get(body.id) || []).forEach((payload) => {
      if (!TERMINAL.has(row.dataset.status || "")) showContract(row, payload);
    });
    early.delete(body.id);
  }

  async function sendZip(file) {
    const row = makeRow(file.name);
    if (file.size > maxZipBytes) {
      const state = interpolate(gettext("The zip is %(size)s; the limit is %(limit)s."),
        { size: megabytes(file.size), limit: megabytes(maxZipBytes) }, true);
      show(row, { percent: 100, state, error: true });
      return;
    }
    const batchId = await announce("zip", file.name, []);
    const form = new FormData();
    form.append("file", file);
    if (batchId) form.append("batch", String(batchId));
    if (modelBatch && modelBatch.checked) form.append("use_model_batch", "true");
    sending += 1;
    const reply = await post(section.dataset.intakeUrl, form, (share) => {
      show(row, { percent: share * 100, state: gettext("Uploading…") });
    }).finally(() => { sending -= 1; });
    if (reply.status !== 201) {
      show(row, { percent: 100, state: failure(reply), error: true });
    } else {
      show(row, { percent: 100, state: gettext("Received: unpacking and reading, see the progress below") });
    }
    refreshSoon();
  }

  async function sendAll(items, source, name) {
    const zips = items.filter((item) => /\.zip$/i.test(item.file.name) && !item.path);
    const tooLarge = items.filter((item) => !zips.includes(item) && item.file.size > maxBytes);
    const files = items.filter((item) => !zips.includes(item) && !tooLarge.includes(item));
    zips.forEach((item) => sendZip(item.file));
    tooLarge.forEach((item) => {
      const state = interpolate(gettext("The file is %(size)s; the limit is %(limit)s."),
        { size: megabytes(item.file.size), limit: megabytes(maxBytes) }, true);
      show(makeRow(item.file.name), { percent: 100, state, error: true });
    });
    if (!files.length) return;
    const entries = files.map((item) => ({ name: item.file.name, path: item.path || "" }));
    const batchId = await announce(source, name || files[0].file.name, entries);
    const queue = files.slice();
    sending += queue.length; // counted from now: leaving the page mid-way asks first
    async function worker() {
      while (queue.length) {
        const item = queue.shift();
        sending -= 1;
        await sendFile(item, batchId);
      }
    }
    await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
  }

  function folderOf(relativePath) {
    const parts = (relativePath || "").split("/");
    return parts.slice(0, -1).join("/");
  }

  // A dropped folder: walk its entries (webkitGetAsEntry), keeping each file's folder.
  function walk(entry, path, found) {
    return new Promise((resolve) => {
      if (entry.isFile) {
        entry.file((file) => { found.push({ file, path }); resolve(); }, () => resolve());
        return;
      }
      const reader = entry.createReader();
      const here = path ? `${path}/${entry.name}` : entry.name;
      const readBatch = () => reader.readEntries(async (entries) => {
        if (!entries.length) { resolve(); return; }
        for (const child of entries) await walk(child, here, found);
        readBatch();
      }, () => resolve());
      readBatch();
    });
  }

  async function dropped(dataTransfer) {
    const entries = Array.from(dataTransfer.items || [])
      .map((item) => (item.webkitGetAsEntry ? item.webkitGetAsEntry() : null)).filter(Boolean);
    if (!entries.some((entry) => entry.isDirectory)) {
      sendAll(Array.from(dataTransfer.files).map((file) => ({ file, path: "" })), "files");
      return;
    }
    const found = [];
    for (const entry of entries) await walk(entry, "", found);
    const folder = entries.find((entry) => entry.isDirectory);
    sendAll(found, "folder", folder ? folder.name : "");
  }

  // Live: the table and the batches are re-read (at most every REFRESH_MS) when something moves.
  const REFRESH_MS = 1000;
  let refreshTimer = null;
  let refreshAgain = false;

  async function refresh() {
    refreshTimer = null;
    const [rowsReply, batchesReply] = await Promise.all([
      fetch(section.dataset.rowsUrl, { credentials: "same-origin" }),
      fetch(section.dataset.batchesUrl, { credentials: "same-origin" }),
    ]).catch(() => [null, null]);
    if (rowsReply && rowsReply.ok) tbody.innerHTML = await rowsReply.text();
    if (batchesReply && batchesReply.ok) batchesPanel.innerHTML = await batchesReply.text();
    if (refreshAgain) { refreshAgain = false; refreshSoon(); }
  }

  function refreshSoon() {
    if (refreshTimer) { refreshAgain = true; return; }
    refreshTimer = setTimeout(refresh, REFRESH_MS);
  }

  window.Clausewise.live.subscribe((event) => {
    if (event.type === "intake.progress") { refreshSoon(); return; }
    if (event.type !== "document.progress") return;
    const row = rows.get(event.payload.contract_id);
    if (!row) {
      const waiting = early.get(event.payload.contract_id) || [];
      early.set(event.payload.contract_id, [...waiting, event.payload]);
    }
    if (row && !TERMINAL.has(row.dataset.status || "")) showContract(row, event.payload);
    refreshSoon();
  });

  // Files that never arrived: stop waiting for them (they stay listed as not finished).
  tbody.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-role=dismiss]");
    if (!button) return;
    button.disabled = true;
    await post(button.dataset.url, {});
    refreshSoon();
  });

  input.addEventListener("change", () => {
    sendAll(Array.from(input.files).map((file) => ({ file, path: "" })), "files");
    input.value = "";
  });
  // A hidden input cannot take the keyboard's focus: a real button opens it.
  document.getElementById("folder-button").addEventListener("click", () => folderInput.click());
  folderInput.addEventListener("change", () => {
    const files = Array.from(folderInput.files);
    const items = files.map((file) => ({ file, path: folderOf(file.webkitRelativePath) }));
    const top = files.length ? (files[0].webkitRelativePath || "").split("/")[0] : "";
    sendAll(items, "folder", top);
    folderInput.value = "";
  });
  ["dragenter", "dragover"].forEach((name) => dropzone.addEventListener(name, (e) => {
    e.preventDefault(); dropzone.classList.add("over");
  }));
  ["dragleave", "drop"].forEach((name) => dropzone.addEventListener(name, (e) => {
    e.preventDefault(); dropzone.classList.remove("over");
  }));
  dropzone.addEventListener("drop", (e) => { dropped(e.dataTransfer); });
})();
