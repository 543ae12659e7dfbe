// Upload page: several files at once, each with a bar that follows the upload and then the
// ingestion pushed over the websocket.
(function () {
  "use strict";
  const section = document.getElementById("upload");
  const input = document.getElementById("file-input");
  const dropzone = document.getElementById("dropzone");
  const list = document.getElementById("upload-list");
  const maxBytes = Number(section.dataset.maxBytes);
  const csrf = section.querySelector("[name=csrfmiddlewaretoken]").value;
  const rows = new Map(); // contract id -> row element
  const early = new Map(); // contract id -> progress pushed before the upload reply arrived
  const TERMINAL = new Set(["INGESTED", "NEEDS_PASSWORD", "NEEDS_OCR", "PARSE_FAILED", "TOO_LARGE", "UNSUPPORTED_TYPE"]);
  const LABELS = {
    QUEUED: gettext("Queued"), INGESTING: gettext("Reading"), INGESTED: gettext("Ready"),
    NEEDS_PASSWORD: gettext("Needs password"), NEEDS_OCR: gettext("Needs OCR"),
    PARSE_FAILED: gettext("Could not read"), TOO_LARGE: gettext("Too large"),
    UNSUPPORTED_TYPE: gettext("Unsupported type"),
  };

  function megabytes(bytes) {
    return interpolate(gettext("%(size)s MB"), { size: (bytes / 1048576).toFixed(1) }, true);
  }

  function makeRow(file) {
    const row = document.createElement("li");
    row.className = "upload";
    row.innerHTML = '<div class="name"></div><div class="progress"><div class="bar"></div></div>' +
      '<div class="state muted"></div>';
    row.querySelector(".name").textContent = file.name;
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

  function showContract(row, contract) {
    const status = contract.status;
    row.dataset.status = status;
    const percent = 50 + (contract.progress || 0) / 2;
    if (status === "INGESTED") {
      const passages = contract.passages ?? contract.passage_count;
      const count = passages == null ? "" : " — " + interpolate(
        ngettext("%(count)s passage", "%(count)s passages", passages), { count: passages }, true);
      show(row, { percent: 100, state: `${LABELS[status]}${count}`,
        link: { href: contract.url || `/contracts/${contract.contract_id}/`, text: gettext("Open") } });
    } else if (TERMINAL.has(status)) {
      show(row, { percent: 100, state: contract.error ? contract.error.message : LABELS[status], error: true,
        link: { href: contract.url || `/contracts/${contract.contract_id}/`, text: gettext("Details") } });
    } else {
      show(row, { percent, state: LABELS[status] || status });
    }
  }

  function upload(file) {
    const row = makeRow(file);
    if (file.size > maxBytes) {
      const state = interpolate(gettext("The file is %(size)s; the limit is %(limit)s."),
        { size: megabytes(file.size), limit: megabytes(maxBytes) }, true);
      show(row, { percent: 100, state, error: true });
      return;
    }
    const form = new FormData();
    form.append("file", file);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", section.dataset.uploadUrl);
    xhr.setRequestHeader("X-CSRFToken", csrf);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) show(row, { percent: (e.loaded / e.total) * 50, state: gettext("Uploading…") });
    };
    xhr.onerror = () => show(row, {
      percent: 100, state: gettext("The upload failed: the server could not be reached."), error: true,
    });
    xhr.onload = () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
      if (xhr.status >= 400 || !body) {
        const message = body && body.error ? body.error.message
          : interpolate(gettext("The upload failed (HTTP %(status)s)."), { status: xhr.status }, true);
        show(row, { percent: 100, state: message, error: true });
        return;
      }
      rows.set(body.id, row);
      row.dataset.contractId = String(body.id);
      if (body.duplicate) {
        show(row, {
          percent: 100, state: gettext("Already in this matter"), link: { href: body.url, text: gettext("Open") },
        });
        return;
      }
      showContract(row, body);
      (early.get(body.id) || []).forEach((payload) => {
        if (!TERMINAL.has(row.dataset.status || "")) showContract(row, payload);
      });
      early.delete(body.id);
    };
    xhr.send(form);
  }

  function updateTable(payload) {
    const body = document.querySelector("#contracts tbody");
    let row = body.querySelector(`tr[data-contract-id="${payload.contract_id}"]`);
    if (!row) {
      body.querySelectorAll("tr.empty").forEach((empty) => empty.remove());
      row = document.createElement("tr");
      row.dataset.contractId = String(payload.contract_id);
      row.innerHTML = '<td><a></a></td><td><span class="status" data-role="status"></span></td>' +
        '<td data-role="pages"></td><td data-role="passages"></td><td class="muted"></td>';
      row.querySelector("td.muted").textContent = gettext("just now");
      const link = row.querySelector("a");
      link.href = `/contracts/${payload.contract_id}/`;
      link.textContent = payload.name;
      body.prepend(row);
    }
    const status = row.querySelector("[data-role=status]");
    status.textContent = LABELS[payload.status] || payload.status;
    status.className = `status status-${payload.status.toLowerCase()}`;
    if (payload.passages != null) row.querySelector("[data-role=passages]").textContent = payload.passages;
  }

  window.Clausewise.live.subscribe((event) => {
    if (event.type !== "document.progress") return;
    const row = rows.get(event.payload.contract_id);
    if (!row) {
      const list = early.get(event.payload.contract_id) || [];
      early.set(event.payload.contract_id, [...list, event.payload]);
    }
    if (row && !TERMINAL.has(row.dataset.status || "")) showContract(row, event.payload);
    updateTable(event.payload);
  });

  input.addEventListener("change", () => { Array.from(input.files).forEach(upload); input.value = ""; });
  ["dragenter", "dragover"].forEach((name) => dropzone.addEventListener(name, (e) => {
    e.preventDefault(); dropzone.classList.add("over");
  }));
  ["dragleave", "drop"].forEach((name) => dropzone.addEventListener(name, (e) => {
    e.preventDefault(); dropzone.classList.remove("over");
  }));
  dropzone.addEventListener("drop", (e) => Array.from(e.dataTransfer.files).forEach(upload));
})();
