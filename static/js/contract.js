// Contract review page: ingestion, the streaming draft, the passage list (a window fetched as
// it scrolls; filters and counts from the server), verification outcomes, lawyers' decisions
// and the review's status, all live.
// The document viewer (review_viewer.js) talks to this script through DOM events:
//   clausewise:passage-state {index, state}     this script -> viewer (recolour a highlight)
//   clausewise:show-passage  {index, page}      this script -> viewer (scroll the document)
//   clausewise:passage-selected {index}         this script -> viewer (mark the selection)
//   clausewise:highlight-click {index}          viewer -> this script (find it in the list)
// and window.Clausewise.selected, the selection made before the viewer had started.
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
  // The offline citation check's findings in the reader's language (reasons.citation_labels).
  function citationSaid(payload) {
    const words = L.citation && L.citation.findings;
    const findings = payload.citations || [];
    if (!words || !findings.length || findings.some((f) => !words[f.wording])) return payload.rationale;
    return [L.citation.check, ...findings.map((f) => format(words[f.wording], f))].join(" ");
  }

  function showVerification(payload) {
    const item = passageItem(payload.passage);
    if (!item) return;
    const box = item.querySelector("[data-role=verification]");
    box.textContent = "";
    const engine = payload.engine === "anthropic" ? L.checkedByClaude : L.checkedOffline;
    const reason = payload.reason ? ` (${(L.reasons && L.reasons[payload.reason]) || payload.reason})` : "";
    // The same choice as the page's rationale_shown: our own sentences in the reader's language.
    const rationale = {
      reason: "",
      match: (L.offlineMatch && L.offlineMatch[payload.outcome]) || payload.rationale,
      citation: citationSaid(payload),
    }[payload.rationale_kind] ?? payload.rationale;
    box.append(text("div", "small", `${engine}: ${stateLabel(payload.outcome)}${reason}${rationale ? ` — ${rationale}` : ""}`));
    if (payload.quote) box.append(text("blockquote", "small", `“${payload.quote}”`));
    if (payload.redline) box.append(text("div", "small", `${L.suggestedWording}: ${payload.redline}`));
    if (payload.question) box.append(text("div", "small question", `${L.askCounterparty}: ${payload.question}`));
  }

  // "due 2026-12-05 18:00 Asia/Shanghai", in the zone the server writes (local_time.js), with
  // the browser's clock beside when the reader chose none
  function dueText(template, iso) {
    const when = window.dueTime ? window.dueTime(iso) : (iso || "").slice(0, 16).replace("T", " ");
    const local = window.localTimeSuffix ? window.localTimeSuffix(iso) : "";
    return format(template, { due: when, zone: window.dueZone || "UTC" }) + local;
  }

  function showQueueItem(type, payload) {
    const item = passageItem(payload.passage);
    const box = item && item.querySelector("[data-role=decision]");
    if (!box) return;
    const who = payload.claimed_by || "";
    if (type === "queue.item.decided" || type === "queue.item.note_edited") {
      const said = { accept: L.acceptedBy, not_this: L.notThisBy }[payload.decision] || L.rejectedBy;
      const decided = format(said, { who });
      box.textContent = payload.note ? `${decided} — ${payload.note}` : decided;
    } else if (type === "queue.item.claimed") {
      box.textContent = `${format(L.claimedBy, { who })} · ${dueText(L.due, payload.due_at)}`;
    } else if (type === "queue.item.released") {
      box.textContent = `${L.released} · ${dueText(L.due, payload.due_at)}`;
    } else if (type === "queue.item.opened") {
      box.textContent = `${L.waiting} · ${dueText(L.due, payload.due_at)}`;
    } else if (type === "queue.item.severity_set") {
      // the party acted for changed: the item's severity, so its due time, was worked out again
      const owner = who ? format(L.claimedBy, { who }) : L.waiting;
      box.textContent = `${owner} · ${dueText(L.due, payload.due_at)}`;
    } else if (type === "queue.item.escalated") {
      const owner = who ? format(L.claimedBy, { who }) : L.waiting;
      const sla = document.createElement("span");
      sla.className = "sla escalated";
      sla.dataset.role = "sla";
      sla.textContent = dueText(L.escalated, payload.due_at);
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
    refreshCounts();
    hideUnmatched();
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

  // ---- the passage list: one window at a time, fetched as it scrolls ------------------------
  // The server holds the contract; the page holds a run of passages (filtered on the server) and
  // asks for the next run when the reader nears either end, or for the run around a passage it
  // jumps to. Counts per state come from the server too, read again after every live change.
  const filters = document.getElementById("filters");
  const list = document.getElementById("passages");
  const scroller = document.getElementById("passage-scroll");
  const earlier = document.getElementById("load-earlier");
  const later = document.getElementById("load-later");
  let loading = null;
  let generation = 0; // a filter change or a jump makes older answers stale

  function wantedFilters() {
    if (!filters) return { state: "", category: "", severity: "" };
    return {
      state: filters.elements.state.value,
      category: filters.elements.category.value,
      severity: filters.elements.severity.value,
    };
  }

  function matches(item, wanted) {
    if (wanted.state === "FLAGGED" && !item.classList.contains("flagged")) return false;
    if (wanted.state && wanted.state !== "FLAGGED" && item.dataset.state !== wanted.state) return false;
    if (wanted.category && !item.dataset.categories.split("|").includes(wanted.category)) return false;
    if (wanted.severity && item.dataset.severity !== wanted.severity) return false;
    return true;
  }

  function items() {
    return [...list.querySelectorAll(":scope > li")];
  }

  // A loaded passage whose state changed live may no longer match the filter: hide it.
  function hideUnmatched() {
    if (!list) return;
    const wanted = wantedFilters();
    items().forEach((item) => { item.hidden = !matches(item, wanted); });
    showVisibleCount();
  }

  function showVisibleCount() {
    const shown = items().filter((item) => !item.hidden).length;
    document.getElementById("visible-count").textContent =
      format(L.visible, { shown, total: Number(list.dataset.total) || 0 });
  }

  async function fetchWindow(params) {
    const query = new URLSearchParams({ ...wantedFilters(), ...params });
    const response = await fetch(`${list.dataset.url}?${query}`, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  }

  function showCounts(counts) {
    document.querySelectorAll("[data-count]").forEach((node) => {
      node.textContent = String(counts[node.dataset.count] || 0);
    });
  }

  function fragment(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content;
  }

  function setEnds(hasBefore, hasAfter) {
    list.dataset.hasBefore = hasBefore ? "1" : "";
    list.dataset.hasAfter = hasAfter ? "1" : "";
    earlier.hidden = !hasBefore;
    later.hidden = !hasAfter;
  }

  // Replace the whole window (a filter change or a jump to a passage that is not loaded).
  async function loadWindow(params) {
    const mine = ++generation;
    const data = await fetchWindow(params);
    if (mine !== generation) return false;
    list.replaceChildren(fragment(data.html));
    list.dataset.total = String(data.total);
    setEnds(data.hasBefore, data.hasAfter);
    showCounts(data.counts);
    showVisibleCount();
    scroller.scrollTop = 0;
    document.dispatchEvent(new CustomEvent("clausewise:passages-loaded"));
    return true;
  }

  async function extend(direction) {
    if (loading || !list) return;
    const all = items();
    if (!all.length) return;
    const mine = generation;
    const params = direction === "later"
      ? { after: all[all.length - 1].dataset.index }
      : { before: all[0].dataset.index };
    loading = fetchWindow(params);
    try {
      const data = await loading;
      if (mine !== generation) return;
      if (direction === "later") {
        list.append(fragment(data.html));
        setEnds(list.dataset.hasBefore, data.hasAfter);
      } else {
        const height = scroller.scrollHeight;
        list.prepend(fragment(data.html));
        scroller.scrollTop += scroller.scrollHeight - height; // keep what the reader looks at
        setEnds(data.hasBefore, list.dataset.hasAfter);
      }
      list.dataset.total = String(data.total);
      showCounts(data.counts);
      hideUnmatched();
      document.dispatchEvent(new CustomEvent("clausewise:passages-loaded"));
    } finally {
      loading = null;
    }
    // Still at an end (a short window, a tall pane): keep going.
    const button = direction === "later" ? later : earlier;
    if (!button.hidden && nearlyVisible(button)) extend(direction);
  }

  function nearlyVisible(node) {
    const pane = scroller.getBoundingClientRect();
    const box = node.getBoundingClientRect();
    return box.top < pane.bottom + 400 && box.bottom > pane.top - 400;
  }

  let countsTimer = null;
  function refreshCounts() {
    if (!list) return;
    clearTimeout(countsTimer);
    countsTimer = setTimeout(async () => {
      const data = await fetchWindow({ limit: 0 }).catch(() => null);
      if (!data) return;
      list.dataset.total = String(data.total);
      showCounts(data.counts);
      showVisibleCount();
    }, 250);
  }

  if (list) {
    const observer = new IntersectionObserver((entries) => {
      entries.filter((entry) => entry.isIntersecting && !entry.target.hidden)
        .forEach((entry) => extend(entry.target === later ? "later" : "earlier"));
    }, { root: scroller, rootMargin: "400px 0px" });
    observer.observe(later);
    observer.observe(earlier);
    later.addEventListener("click", () => extend("later"));
    earlier.addEventListener("click", () => extend("earlier"));
    showVisibleCount();
  }

  if (filters) {
    filters.addEventListener("change", () => { loadWindow({}).catch(() => {}); });
    filters.addEventListener("submit", (e) => e.preventDefault());
  }

  // ---- list <-> document --------------------------------------------------------------------
  function flash(node) {
    node.classList.remove("flash");
    void node.offsetWidth; // restart the animation
    node.classList.add("flash");
  }

  function markSelected(item) {
    list.querySelectorAll("li.active").forEach((node) => {
      node.classList.remove("active");
      node.removeAttribute("aria-current");
    });
    item.classList.add("active");
    item.setAttribute("aria-current", "true");
    history.replaceState(null, "", `${location.pathname}${location.search}#passage-${item.dataset.index}`);
  }

  function scrollListTo(item) {
    scroller.scrollTop += item.getBoundingClientRect().top - scroller.getBoundingClientRect().top - 8;
  }

  // Bring passage `index` into the list (fetching its window if it is not loaded), select it
  // and, unless the document asked, show it in the document.
  async function goToPassage(index, { fromDocument = false } = {}) {
    if (!list) return;
    let item = passageItem(index);
    if (!item || item.hidden) {
      if (filters) filters.reset();
      if (!(await loadWindow({ around: index }))) return;
      item = passageItem(index);
    }
    if (!item) return;
    markSelected(item);
    scrollListTo(item);
    flash(item);
    // The viewer (a module, started after this script) reads it when it is ready.
    window.Clausewise.selected = { index, page: Number(item.dataset.page), show: !fromDocument };
    document.dispatchEvent(new CustomEvent("clausewise:passage-selected", { detail: { index } }));
    if (!fromDocument) {
      document.dispatchEvent(new CustomEvent("clausewise:show-passage",
        { detail: { index, page: Number(item.dataset.page) } }));
    }
  }

  if (list) {
    list.addEventListener("click", (e) => {
      const item = e.target.closest("#passages > li");
      if (!item || e.target.closest("a, button") || String(window.getSelection())) return;
      goToPassage(Number(item.dataset.index));
    });
  }

  // A "#12" link (the draft's issue table, a passage's page link): show it in list and document.
  document.addEventListener("click", (e) => {
    const link = e.target.closest("a[href^='#passage-']");
    const index = link && Number(link.getAttribute("href").slice("#passage-".length));
    if (!Number.isInteger(index) || !list) return;
    e.preventDefault();
    if (!link.closest("#review-layout")) {
      document.getElementById("review-layout").scrollIntoView({ block: "start" });
    }
    goToPassage(index);
  });

  document.addEventListener("clausewise:highlight-click", (e) => {
    goToPassage(e.detail.index, { fromDocument: true });
  });

  // A deep link: /contracts/<id>/#passage-<index> or ?passage=<index>.
  function deepLinked() {
    const hash = /^#passage-(\d+)$/.exec(location.hash);
    if (hash) return Number(hash[1]);
    return list && list.dataset.selected !== undefined ? Number(list.dataset.selected) : null;
  }

  const linked = deepLinked();
  if (linked !== null && list) {
    window.scrollTo(0, 0); // the browser jumped to the anchor; the panes scroll instead
    goToPassage(linked).catch(() => {});
  }
  window.addEventListener("hashchange", () => {
    const index = deepLinked();
    if (index !== null) goToPassage(index).catch(() => {});
  });

  // ---- the redlines section: fetched after the document, as the reader nears it ---------------
  const redlines = document.getElementById("review-redlines");
  async function loadRedlines() {
    redlines.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(redlines.dataset.url, { credentials: "same-origin" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const html = await response.text();
      redlines.replaceChildren(fragment(html));
      redlines.dataset.loaded = "1"; // review.css hides it when no clause came
    } catch (error) {
      const message = text("p", "error small", format(L.redlinesFailed, { error: error.message }));
      message.setAttribute("role", "alert");
      const retry = text("button", "", L.tryAgain);
      retry.type = "button";
      retry.addEventListener("click", loadRedlines);
      redlines.replaceChildren(message, retry);
    } finally {
      redlines.removeAttribute("aria-busy");
    }
  }
  if (redlines && redlines.dataset.url) {
    const near = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      near.disconnect();
      loadRedlines();
    }, { rootMargin: "800px 0px" });
    near.observe(redlines);
  }

  // ---- the draft ------------------------------------------------------------------------------
  function showDraft(payload) {
    const box = document.getElementById("draft");
    if (!box) { location.reload(); return; }
    const status = document.getElementById("draft-status");
    if (status) status.textContent = (L.draftStatuses && L.draftStatuses[payload.status]) || payload.status;
    box.querySelectorAll("#draft-stream, .summary, .facts, .flags, .issues-fold").forEach((node) => node.remove());
    box.append(text("p", "summary", payload.summary || ""));
    const facts = Object.entries(payload.key_facts || {}).filter(([, value]) => value);
    if (facts.length) {
      const dl = document.createElement("dl");
      dl.className = "facts";
      // A normalised fact comes as {display, ...}; an older draft's as plain text. What we
      // computed (a counted date, "perpetual") is said in the reader's language, as the page
      // does (key_facts.fact_shown); the contract's own words stay as written.
      const lang = document.documentElement.lang || undefined;
      const ours = (value) => {
        if (value.value === "perpetual") return L.perpetual || value.display;
        if (value.computed && /^\d{4}-\d\d-\d\d$/.test(value.value || "")) {
          const day = new Date(`${value.value}T00:00:00Z`);
          const date = new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone: "UTC" }).format(day);
          return value.estimated ? (L.aboutDate || "about %(date)s").replace("%(date)s", date) : date;
        }
        return value.display;
      };
      const shown = (value) => {
        if (!value || typeof value !== "object" || !("display" in value)) return String(value);
        let words = ours(value);
        const derived = value.derived_from && L.derived && L.derived[value.derived_from];
        if (derived) words = derived.replace("%(value)s", words);
        return value.guessed ? (L.unsure || "%(value)s (unsure)").replace("%(value)s", words) : words;
      };
      // an unsure fact names its close competing value, linked to the passage it was read from
      const described = (value) => {
        const dd = text("dd", "", shown(value));
        const other = value && value.unsure && !value.guessed && value.candidate;
        if (!other || !Number.isInteger(other.passage_index)) return dd;
        const link = text("a", "fact-candidate", (L.candidateAt || "%(date)s, passage #%(index)s")
          .replace("%(date)s", other.display || other.value).replace("%(index)s", other.passage_index));
        link.href = `?passage=${other.passage_index}#passage-${other.passage_index}`;
        const [before, after] = (L.unsureAlso || "%(value)s (unsure: also %(candidate)s)")
          .replace("%(value)s", shown(value)).split("%(candidate)s");
        dd.replaceChildren(before, link, after || "");
        return dd;
      };
      const named = (name) => (L.factNames && L.factNames[name]) || name;
      facts.forEach(([name, value]) => dl.append(text("dt", "", named(name)), described(value)));
      box.append(dl);
    }
    if ((payload.flags || []).length) {
      const ul = document.createElement("ul");
      ul.className = "flags";
      payload.flags.forEach((flag) => ul.append(text("li", "error small", `${flag.message} “${flag.text}”`)));
      box.append(ul);
    }
    if ((payload.issues || []).length) box.append(issuesFold(payload.issues));
  }

  // Folded away, like the page's own: the document comes first.
  function issuesFold(issues) {
    const fold = document.createElement("details");
    fold.className = "issues-fold";
    fold.id = "issues-fold";
    const count = issues.length;
    fold.append(text("summary", "", interpolate(
      ngettext("%(count)s issue in the draft", "%(count)s issues in the draft", count), { count }, true)));
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
    fold.append(table);
    return fold;
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
      if (bar) {
        bar.style.width = `${payload.progress}%`;
        bar.parentElement.setAttribute("aria-valuenow", String(payload.progress));
      }
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
