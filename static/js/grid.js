// The portfolio grid: rows from /api/matters/<id>/grid/, columns the user chooses (kept in
// localStorage per user and matter), a filter over all shown columns and one per column, sort
// by any column (by the normalised value when there is one), rows refreshed live as documents
// finish, and export links that carry the chosen columns.
(function () {
  "use strict";
  const root = document.getElementById("portfolio");
  if (!root) return;
  const matterId = Number(root.dataset.matterId);
  const storeKey = `clausewise.grid.${root.dataset.userId}.${matterId}`;
  const table = document.getElementById("grid");
  const filterInput = document.getElementById("grid-filter");
  const columnList = document.getElementById("grid-column-list");
  const count = document.getElementById("grid-count");
  const STATE_RANK = { REJECTED: 0, NEEDS_HUMAN_REVIEW: 1, PENDING: 2, CONFIRMED: 3 };
  const SEVERITY_RANK = { critical: 0, high: 1, medium: 2, low: 3 };
  const STATE_LABEL = {
    REJECTED: gettext("Rejected"), NEEDS_HUMAN_REVIEW: gettext("Needs human review"),
    PENDING: gettext("Pending"), CONFIRMED: gettext("Confirmed"),
  };

  let columns = []; // [{key, label, kind}]
  let rows = new Map(); // contract id -> row
  const saved = load();
  let chosen = saved.columns || null; // null: every column
  let sort = saved.sort || { key: "name", dir: 1 };
  const columnFilters = {};

  function load() {
    try {
      return JSON.parse(localStorage.getItem(storeKey) || "{}") || {};
    } catch (error) {
      return {};
    }
  }

  function save() {
    localStorage.setItem(storeKey, JSON.stringify({ columns: chosen, sort }));
  }

  function shown() {
    if (!chosen) return columns;
    const byKey = new Map(columns.map((c) => [c.key, c]));
    return chosen.filter((key) => byKey.has(key)).map((key) => byKey.get(key));
  }

  // ---- cells ------------------------------------------------------------------------------
  const passageUrl = (row, index) => (index == null ? row.url : `${row.url}#passage-${index}`);

  function cellData(row, column) {
    if (column.kind === "fact") {
      const fact = row.facts[column.name || column.label];
      return fact
        ? { text: fact.display, sort: fact.sort, url: passageUrl(row, fact.passage_index), title: fact.words && fact.words !== fact.display ? fact.words : "" }
        : { text: "", sort: null };
    }
    if (column.kind === "category") {
      if (row.review_status == null) return { text: "", sort: null };
      const cell = row.categories[column.name || column.label];
      if (!cell) return { text: gettext("not found"), sort: 9e6, empty: true };
      const parts = [STATE_LABEL[cell.state] || cell.state || "", cell.severity_label || cell.severity || ""];
      if (cell.open_items) parts.push(interpolate(gettext("%(n)s open"), { n: cell.open_items }, true));
      return {
        text: parts.filter(Boolean).join(" · "),
        sort: (STATE_RANK[cell.state] ?? 5) * 10 + (SEVERITY_RANK[cell.severity] ?? 5),
        url: passageUrl(row, cell.passage_index),
        state: cell.state,
        severity: cell.severity,
      };
    }
    if (column.key === "status") return { text: row.status_label, sort: row.status_label };
    if (column.key === "review_status") {
      return { text: row.review_status_label || "", sort: row.review_status_label, url: row.comparison_url, state: row.review_status };
    }
    if (column.key === "open_items") return { text: String(row.open_items), sort: row.open_items };
    return { text: String(row[column.key] ?? ""), sort: row[column.key] };
  }

  // a cell's words and, for a date shown as a value, the contract's own ("3rd day of November")
  function rowText(row, column) {
    if (!column) return row.name.toLowerCase();
    const data = cellData(row, column);
    return `${data.text} ${data.title || ""}`.toLowerCase();
  }

  // ---- rendering --------------------------------------------------------------------------
  function renderHead() {
    const head = table.tHead;
    head.replaceChildren();
    const labels = head.insertRow();
    const filters = head.insertRow();
    filters.className = "grid-filters";
    const all = [{ key: "name", label: gettext("Contract"), kind: "name" }, ...shown()];
    all.forEach((column) => {
      const th = document.createElement("th");
      th.dataset.key = column.key;
      th.className = `col-${column.kind}`;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link sort";
      button.textContent = column.label;
      button.title = gettext("Sort");
      if (sort.key === column.key) {
        th.setAttribute("aria-sort", sort.dir > 0 ? "ascending" : "descending");
        button.textContent += sort.dir > 0 ? " ▲" : " ▼";
      }
      button.addEventListener("click", () => {
        sort = { key: column.key, dir: sort.key === column.key ? -sort.dir : 1 };
        save();
        renderHead();
        renderBody();
      });
      th.append(button);
      labels.append(th);
      const cell = document.createElement("th");
      const input = document.createElement("input");
      input.type = "search";
      input.className = "column-filter";
      input.dataset.key = column.key;
      input.value = columnFilters[column.key] || "";
      input.setAttribute("aria-label", interpolate(gettext("Filter %(column)s"), { column: column.label }, true));
      input.addEventListener("input", () => {
        columnFilters[column.key] = input.value.trim().toLowerCase();
        renderBody();
      });
      cell.append(input);
      filters.append(cell);
    });
    if (root.dataset.rerunUrl) {
      labels.append(document.createElement("th"));
      filters.append(document.createElement("th"));
    }
  }

  function compare(a, b) {
    const column = columns.find((c) => c.key === sort.key);
    const x = column ? cellData(a, column).sort : a.name;
    const y = column ? cellData(b, column).sort : b.name;
    const blank = (v) => v == null || v === "";
    if (blank(x) && blank(y)) return a.name.localeCompare(b.name);
    if (blank(x)) return 1; // blanks last, whichever the direction
    if (blank(y)) return -1;
    const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
    return order * sort.dir || a.name.localeCompare(b.name);
  }

  function visible(row, columnsShown) {
    const query = filterInput.value.trim().toLowerCase();
    const byKey = new Map(columnsShown.map((c) => [c.key, c]));
    for (const [key, wanted] of Object.entries(columnFilters)) {
      if (!wanted) continue;
      if (key !== "name" && !byKey.has(key)) continue;
      if (!rowText(row, byKey.get(key)).includes(wanted)) return false;
    }
    if (!query) return true;
    return [null, ...columnsShown].some((column) => rowText(row, column).includes(query));
  }

  function renderCell(tr, row, column) {
    const td = tr.insertCell();
    td.dataset.key = column.key;
    const data = cellData(row, column);
    if (data.state) td.dataset.state = data.state;
    if (data.severity) td.dataset.severity = data.severity;
    if (data.empty) td.classList.add("not-found");
    // The contract's own words and names: not for translation (nor for the Chinese pass).
    if (column.kind === "fact" || column.key === "playbook_version") td.setAttribute("translate", "no");
    if (data.url && data.text) {
      const link = document.createElement("a");
      link.href = data.url;
      link.textContent = data.text;
      if (data.title) link.title = data.title;
      td.append(link);
    } else {
      td.textContent = data.text;
    }
  }

  // A reviewer or admin re-runs one contract on the playbook in force (a plain form post).
  function renderRerun(tr, row) {
    const td = tr.insertCell();
    td.className = "grid-action";
    if (row.review_status == null) return;
    const form = document.createElement("form");
    form.method = "post";
    form.action = root.dataset.rerunUrl.replace("/0/", `/${row.contract_id}/`);
    const token = document.querySelector("input[name=csrfmiddlewaretoken]");
    const hidden = document.createElement("input");
    hidden.type = "hidden";
    hidden.name = "csrfmiddlewaretoken";
    hidden.value = token ? token.value : "";
    const button = document.createElement("button");
    button.type = "submit";
    button.className = "link";
    button.textContent = gettext("Re-run");
    form.append(hidden, button);
    td.append(form);
  }

  function renderBody() {
    const columnsShown = shown();
    const body = table.tBodies[0];
    const all = Array.from(rows.values()).sort(compare);
    const rowsShown = all.filter((row) => visible(row, columnsShown));
    body.replaceChildren();
    rowsShown.forEach((row) => {
      const tr = body.insertRow();
      tr.dataset.contractId = row.contract_id;
      tr.dataset.reviewStatus = row.review_status || "";
      const name = tr.insertCell();
      name.dataset.key = "name";
      name.setAttribute("translate", "no");
      const link = document.createElement("a");
      link.href = row.url;
      link.textContent = row.name;
      name.append(link);
      columnsShown.forEach((column) => renderCell(tr, row, column));
      if (root.dataset.rerunUrl) renderRerun(tr, row);
    });
    if (!all.length) {
      const td = body.insertRow().insertCell();
      td.colSpan = columnsShown.length + 1;
      td.className = "muted";
      td.textContent = gettext("No contracts yet.");
    }
    count.textContent = interpolate(gettext("%(shown)s of %(total)s contracts"), { shown: rowsShown.length, total: all.length }, true);
    updateExports(columnsShown);
  }

  function updateExports(columnsShown) {
    const keys = chosen ? columnsShown.map((c) => c.key).join(",") : "";
    ["xlsx", "csv"].forEach((fmt) => {
      const link = document.getElementById(`export-${fmt}`);
      const base = root.dataset[`${fmt}Url`];
      link.href = keys ? `${base}?columns=${encodeURIComponent(keys)}` : base;
    });
  }

  function renderChooser() {
    columnList.replaceChildren();
    const on = new Set(shown().map((c) => c.key));
    let group = null;
    columns.forEach((column) => {
      if (column.kind !== group) {
        group = column.kind;
        const heading = document.createElement("strong");
        heading.textContent = { field: gettext("Review"), fact: gettext("Key facts"), category: gettext("Categories") }[group];
        columnList.append(heading);
      }
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.value = column.key;
      box.checked = on.has(column.key);
      box.addEventListener("change", () => {
        const keys = new Set(shown().map((c) => c.key));
        if (box.checked) keys.add(column.key);
        else keys.delete(column.key);
        chosen = columns.map((c) => c.key).filter((key) => keys.has(key));
        save();
        renderHead();
        renderBody();
      });
      label.append(box, " ", column.label);
      columnList.append(label);
    });
  }

  function renderAll() {
    renderChooser();
    renderHead();
    renderBody();
  }

  // ---- data -------------------------------------------------------------------------------
  function newColumns(incoming) {
    const known = new Set(columns.map((c) => c.key));
    return incoming.filter((c) => !known.has(c.key));
  }

  async function fetchRows(contractIds) {
    const query = contractIds ? "?" + contractIds.map((id) => `contract=${id}`).join("&") : "";
    const response = await fetch(root.dataset.rowsUrl + query, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const data = await response.json();
    const firstLoad = columns.length === 0;
    const added = newColumns(data.columns);
    if (contractIds && added.length) return fetchRows(null); // a new column: read it all
    if (contractIds) contractIds.forEach((id) => rows.delete(id));
    else rows = new Map();
    data.rows.forEach((row) => rows.set(row.contract_id, row));
    if (!contractIds) columns = data.columns;
    // A column that appears later (a category found in a new document) shows, if some are chosen.
    if (chosen && !firstLoad) added.forEach((c) => chosen.includes(c.key) || chosen.push(c.key));
    if (added.length || !contractIds) renderAll();
    else renderBody();
    root.dataset.loaded = "true";
  }

  const pending = new Set();
  let timer = null;
  function refresh(contractId) {
    pending.add(contractId);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const ids = Array.from(pending);
      pending.clear();
      fetchRows(ids).catch(() => {});
    }, 400);
  }

  const ROW_EVENTS = new Set(["document.progress", "review.scanned", "review.status", "draft.complete", "passage.state", "verification.done", "queue.item.opened", "queue.item.claimed", "queue.item.decided"]);
  function onEvent(event) {
    if (event.matter_id !== matterId) return;
    if (event.type === "rerun.progress") return showProgress(event.payload);
    const id = event.payload && event.payload.contract_id;
    if (event.type === "document.deleted" && id) {
      rows.delete(id);
      return renderBody();
    }
    if (id && (ROW_EVENTS.has(event.type) || event.type.startsWith("queue."))) refresh(id);
  }

  function showProgress(progress) {
    const line = document.getElementById("rerun-progress");
    if (!line) return;
    line.hidden = false;
    const text = gettext("Re-run: %(finished)s of %(total)s contracts (%(done)s re-run, %(current)s already current, %(failed)s failed)");
    line.textContent = interpolate(text, progress, true);
    line.dataset.complete = progress.complete ? "true" : "false";
  }

  filterInput.addEventListener("input", renderBody);
  document.getElementById("grid-columns-all").addEventListener("click", () => {
    chosen = null;
    save();
    renderAll();
  });
  document.getElementById("grid-columns-reset").addEventListener("click", () => {
    chosen = null;
    sort = { key: "name", dir: 1 };
    localStorage.removeItem(storeKey);
    renderAll();
  });
  if (window.Clausewise && window.Clausewise.live) window.Clausewise.live.subscribe(onEvent);
  fetchRows(null).catch(() => {});
})();
