// Contract review page: ingestion, the streaming draft, the passage list (filters, counts),
// verification outcomes, lawyers' decisions and the review's status, all live.
// The document viewer (review_viewer.js) talks to this script through DOM events:
//   clausewise:passage-state {index, state}  this script -> viewer (recolour a highlight)
//   clausewise:show-passage  {index, page}   this script -> viewer (scroll the document)
//   clausewise:highlight-click {index}       viewer -> this script (scroll the list)
(function () {
  "use strict";
  const card = document.getElementById("contract");
  const id = Number(card.dataset.contractId);
  const working = new Set(["QUEUED", "INGESTING"]);
  const labelsNode = document.getElementById("review-labels");
  const L = labelsNode ? JSON.parse(labelsNode.textContent) || {} : {};
  const stateLabel = (state) => (L.states && L.states[state]) || state;
  const format = (template, values) => String(template).replace(/%\((\w+)\)s/g, (_, key) => values[key]);

  function text(tag, className, value) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    node.textContent = value;
    return node;
  }

  function passageItem(index) {
    return document.getElementById(`passage-${index}`);
  }

  // ---- verification outcomes and lawyers' decisions -------------------------------------
  function showVerification(payload) {
    const item = passageItem(payload.passage);
    if (!item) return;
    const box = item.querySelector("[data-role=verification]");
    box.textContent = "";
    const engine = payload.engine === "anthropic" ? L.checkedByClaude : L.checkedOffline;
    const reason = payload.reason ? ` (${(L.reasons && L.reasons[payload.reason]) || payload.reason})` : "";
    box.append(text("div", "small", `${engine}: ${stateLabel(payload.outcome)}${reason} — ${payload.rationale}`));
    if (payload.quote) box.append(text("blockquote", "small", `“${payload.quote}”`));
    if (payload.redline) box.append(text("div", "small", `${L.suggestedWording}: ${payload.redline}`));
    if (payload.question) box.append(text("div", "small question", `${L.askCounterparty}: ${payload.question}`));
  }

  function utc(iso) {
    return iso ? iso.slice(0, 16).replace("T", " ") : "";
  }

  function showQueueItem(type, payload) {
    const item = passageItem(payload.passage);
    const box = item && item.querySelector("[data-role=decision]");
    if (!box) return;
    const who = payload.claimed_by || "";
    if (type === "queue.item.decided" || type === "queue.item.note_edited") {
      const decided = format(payload.decision === "accept" ? L.acceptedBy : L.rejectedBy, { who });
      box.textContent = payload.note ? `${decided} — ${payload.note}` : decided;
    } else if (type === "queue.item.claimed") {
      box.textContent = `${format(L.claimedBy, { who })} · ${format(L.due, { due: utc(payload.due_at) })}`;
    } else if (type === "queue.item.opened") {
      box.textContent = `${L.waiting} · ${format(L.due, { due: utc(payload.due_at) })}`;
    } else if (type === "queue.item.escalated") {
      const owner = who ? format(L.claimedBy, { who }) : L.waiting;
      const sla = document.createElement("span");
      sla.className = "sla escalated";
      sla.dataset.role = "sla";
      sla.textContent = format(L.escalated, { due: utc(payload.due_at) });
      box.replaceChildren(`${owner} · `, sla);
    }
  }

  // ---- states, counts and the review's status ------------------------------------------
  function showState(payload) {
    const item = passageItem(payload.passage);
    if (item) {
      item.dataset.state = payload.state;
      let badge = item.querySelector(".meta .state");
      if (!badge) {
        badge = text("span", "", "");
        item.querySelector(".meta").append(badge);
      }
      badge.textContent = stateLabel(payload.state);
      badge.className = `state state-${payload.state.toLowerCase()}`;
    }
    document.dispatchEvent(new CustomEvent("clausewise:passage-state",
      { detail: { index: payload.passage, state: payload.state } }));
    if (payload.review_status) showReviewStatus(payload.review_status);
    updateCounts();
    applyFilters();
  }

  function showReviewStatus(status) {
    const section = document.getElementById("review");
    if (!section) return;
    section.dataset.reviewStatus = status;
    const badge = document.getElementById("review-status");
    badge.textContent = (L.reviewStatuses && L.reviewStatuses[status]) || status;
    badge.className = `status status-${status.toLowerCase()}`;
    document.getElementById("review-banner").hidden = status !== "BLOCKED";
    document.getElementById("review-complete").hidden = status !== "COMPLETE";
  }

  function updateCounts() {
    const counts = {};
    document.querySelectorAll("#passages > li").forEach((item) => {
      if (item.dataset.state) counts[item.dataset.state] = (counts[item.dataset.state] || 0) + 1;
    });
    document.querySelectorAll("[data-count]").forEach((node) => {
      node.textContent = String(counts[node.dataset.count] || 0);
    });
  }

  // ---- filters (client-side, instant) ----------------------------------------------------
  const filters = document.getElementById("filters");

  function matches(item, wanted) {
    if (wanted.state === "FLAGGED" && !item.classList.contains("flagged")) return false;
    if (wanted.state && wanted.state !== "FLAGGED" && item.dataset.state !== wanted.state) return false;
    if (wanted.category && !item.dataset.categories.split("|").includes(wanted.category)) return false;
    if (wanted.severity && item.dataset.severity !== wanted.severity) return false;
    return true;
  }

  function applyFilters() {
    if (!filters) return;
    const wanted = {
      state: filters.elements.state.value,
      category: filters.elements.category.value,
      severity: filters.elements.severity.value,
    };
    const items = document.querySelectorAll("#passages > li");
    let shown = 0;
    items.forEach((item) => {
      item.hidden = !matches(item, wanted);
      if (!item.hidden) shown += 1;
    });
    document.getElementById("visible-count").textContent =
      format(L.visible, { shown, total: items.length });
  }

  if (filters) {
    filters.addEventListener("change", applyFilters);
    filters.addEventListener("submit", (e) => e.preventDefault());
    applyFilters();
  }

  // ---- list <-> document --------------------------------------------------------------------
  function flash(node) {
    node.classList.remove("flash");
    void node.offsetWidth; // restart the animation
    node.classList.add("flash");
  }

  const list = document.getElementById("passages");
  if (list) {
    list.addEventListener("click", (e) => {
      const item = e.target.closest("#passages > li");
      if (!item || e.target.closest("a, button") || String(window.getSelection())) return;
      list.querySelectorAll("li.active").forEach((node) => node.classList.remove("active"));
      item.classList.add("active");
      document.dispatchEvent(new CustomEvent("clausewise:show-passage",
        { detail: { index: Number(item.dataset.index), page: Number(item.dataset.page) } }));
    });
  }

  // A draft issue's "#12" link: show the passage in the list and in the document.
  document.addEventListener("click", (e) => {
    const link = e.target.closest("a[href^='#passage-']");
    const item = link && passageItem(link.getAttribute("href").slice("#passage-".length));
    if (!item || !list) return;
    e.preventDefault();
    document.dispatchEvent(new CustomEvent("clausewise:highlight-click", { detail: { index: Number(item.dataset.index) } }));
    document.getElementById("review-layout").scrollIntoView({ block: "start" });
    document.dispatchEvent(new CustomEvent("clausewise:show-passage",
      { detail: { index: Number(item.dataset.index), page: Number(item.dataset.page) } }));
  });

  document.addEventListener("clausewise:highlight-click", (e) => {
    const item = passageItem(e.detail.index);
    if (!item) return;
    if (item.hidden && filters) { filters.reset(); applyFilters(); }
    list.querySelectorAll("li.active").forEach((node) => node.classList.remove("active"));
    item.classList.add("active");
    list.scrollTop += item.getBoundingClientRect().top - list.getBoundingClientRect().top - 8;
    flash(item);
  });

  // ---- the draft ------------------------------------------------------------------------------
  function showDraft(payload) {
    const box = document.getElementById("draft");
    if (!box) { location.reload(); return; }
    const status = document.getElementById("draft-status");
    if (status) status.textContent = (L.draftStatuses && L.draftStatuses[payload.status]) || payload.status;
    box.querySelectorAll("#draft-stream, .summary, .facts, .flags, table.issues").forEach((node) => node.remove());
    box.append(text("p", "summary", payload.summary || ""));
    const facts = Object.entries(payload.key_facts || {}).filter(([, value]) => value);
    if (facts.length) {
      const dl = document.createElement("dl");
      dl.className = "facts";
      facts.forEach(([name, value]) => dl.append(text("dt", "", name), text("dd", "", String(value))));
      box.append(dl);
    }
    if ((payload.flags || []).length) {
      const ul = document.createElement("ul");
      ul.className = "flags";
      payload.flags.forEach((flag) => ul.append(text("li", "error small", `${flag.message} “${flag.text}”`)));
      box.append(ul);
    }
    if ((payload.issues || []).length) box.append(issuesTable(payload.issues));
  }

  function issuesTable(issues) {
    const table = document.createElement("table");
    table.className = "issues";
    const head = document.createElement("tr");
    [L.passage, L.risk, L.issue, L.recommendation].forEach((name) => head.append(text("th", "", name)));
    table.createTHead().append(head);
    const body = table.createTBody();
    issues.forEach((issue) => {
      const row = body.insertRow();
      const link = text("a", "", `#${issue.passage}`);
      link.href = `#passage-${issue.passage}`;
      row.insertCell().append(link);
      [issue.risk, issue.title, issue.recommendation].forEach((value) => row.append(text("td", "", value || "")));
    });
    return table;
  }

  // ---- live events ------------------------------------------------------------------------------
  // The bar's first width comes as data: the page's CSP refuses inline style attributes.
  const progressBar = document.getElementById("contract-progress");
  if (progressBar) progressBar.style.width = `${Number(progressBar.dataset.progress) || 0}%`;

  window.Clausewise.live.subscribe((event) => {
    const payload = event.payload || {};
    if (payload.contract_id !== id) return;
    if (event.type === "document.progress") {
      const bar = document.getElementById("contract-progress");
      if (bar) bar.style.width = `${payload.progress}%`;
      if (working.has(card.dataset.status) && !working.has(payload.status)) location.reload();
    } else if (event.type === "verification.done") {
      showVerification(payload);
    } else if (event.type === "passage.state") {
      showState(payload);
    } else if (event.type === "review.status") {
      showReviewStatus(payload.status);
    } else if (event.type.startsWith("queue.item.")) {
      showQueueItem(event.type, payload);
    } else if (event.type === "draft.status") {
      const label = document.getElementById("draft-status");
      if (label) label.textContent = (L.draftStatuses && L.draftStatuses[payload.status]) || payload.status;
      const stream = document.getElementById("draft-stream");
      if (stream && payload.status !== "STREAMING") stream.textContent = ""; // never keep a partial draft
    } else if (event.type === "draft.complete") {
      showDraft(payload);
    } else if (event.type === "review.scanned") {
      location.reload();
    }
  });

  window.Clausewise.live.subscribeLive((live) => {
    if (live.type !== "draft.delta" || live.payload.contract_id !== id) return;
    const stream = document.getElementById("draft-stream");
    if (stream) stream.textContent += live.payload.delta;
  });

  // ---- password form ----------------------------------------------------------------------------
  const form = document.getElementById("password-form");
  if (form) {
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const response = await fetch(card.dataset.passwordUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": form.querySelector("[name=csrfmiddlewaretoken]").value },
        body: JSON.stringify({ password: form.password.value }),
      });
      if (response.ok) { location.reload(); return; }
      const body = await response.json().catch(() => null);
      alert(body && body.error ? body.error.message : L.passwordFailed);
    });
  }
})();
