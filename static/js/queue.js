// The lawyers' queue page: live items (fetched as server-rendered HTML, so the server keeps
// deciding who may see what), live filter counts, a selection for bulk claims and decisions,
// the undo countdown, @mention toasts, and the keyboard (j/k move, x select, c claim, a/r/n open
// the note for "clause acceptable" / "clause not acceptable" / "not this kind of clause", Enter
// records it).
(function () {
  "use strict";
  const queue = document.getElementById("queue");
  if (!queue) return;
  const me = queue.dataset.me;
  const text = queue.dataset;
  const toasts = document.getElementById("queue-toasts");
  const filters = document.getElementById("queue-filters");
  const bulk = document.getElementById("bulk-form");
  const announced = new Set(); // comment ids already toasted (live notice and stored event)
  const mentionedItems = new Set(); // items whose badge stays on across live updates
  const grouped = new URLSearchParams(location.search).get("group") === "contract";
  let selectedId = null;

  const items = () => Array.from(queue.querySelectorAll(".queue-item"));
  const itemById = (id) => document.getElementById(`item-${id}`);
  // The view's filters, as the server reads them (page and item are only for navigation).
  function viewQuery() {
    const params = new URLSearchParams(location.search);
    params.delete("page");
    params.delete("item");
    return params.toString();
  }

  // ---- the item under the cursor ----------------------------------------------------------
  // remember: write the item into the address (a reload comes back to it). Not for the first
  // item chosen on load: an address with a fragment before the page has loaded makes the
  // browser scroll to it, past the filters, under the sticky bar.
  function select(section, { focus = true, remember = true } = {}) {
    items().forEach((el) => el.classList.toggle("selected", el === section));
    selectedId = section ? section.dataset.itemId : null;
    if (!section) return;
    if (remember) history.replaceState(null, "", `${location.pathname}${location.search}#item-${selectedId}`);
    if (focus) {
      section.focus({ preventScroll: true });
      section.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  }

  function move(step) {
    const all = items();
    if (!all.length) return;
    const at = all.findIndex((el) => el.dataset.itemId === selectedId);
    const next = at < 0 ? 0 : Math.min(all.length - 1, Math.max(0, at + step));
    select(all[next]);
  }

  // ---- keyboard ---------------------------------------------------------------------------
  function typing(target) {
    return target.closest("input:not([type=checkbox]), textarea, select, [contenteditable=''], [contenteditable=true]");
  }

  // a / r / n never decide blind: they open the note, say what Enter will record, and wait.
  const noteNeeded = (form, decision) => (form.dataset.noteRequired || "").split(" ").includes(decision);
  const justifyText = (decision) => (decision === "not_this" ? text.msgJustifyNotThis : text.msgJustify);
  const noteText = { accept: "msgNoteAccept", reject: "msgNoteReject", not_this: "msgNoteNotThis" };

  function openNote(section, decision) {
    const form = section.querySelector(".decide-form");
    if (!form) return toast(text.msgClaimFirst, "error");
    const note = form.querySelector("[data-role=note]");
    form.dataset.pending = decision;
    form.querySelectorAll("[data-action=accept], [data-action=reject], [data-action=not_this]").forEach((button) => {
      button.classList.toggle("pending", button.dataset.action === decision);
    });
    note.focus();
    toast(noteNeeded(form, decision) ? justifyText(decision) : text[noteText[decision]]);
  }

  function submitPending(form) {
    const decision = form.dataset.pending;
    const note = form.querySelector("[data-role=note]");
    if (noteNeeded(form, decision) && !note.value.trim()) return toast(justifyText(decision), "error");
    form.requestSubmit(form.querySelector(`[data-action=${decision}]`));
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === "Escape") event.target.blur();
      if (event.key === "Enter" && event.target.matches("[data-role=note]")) {
        const form = event.target.form;
        event.preventDefault(); // Enter records only the decision the lawyer chose with a or r
        if (form.dataset.pending) submitPending(form);
        else toast(text.msgChoose);
      }
      return;
    }
    const section = selectedId && itemById(selectedId);
    const actions = {
      j: () => move(1),
      k: () => move(-1),
      x: () => section && toggle(section.querySelector(".select-item")),
      c: () => section && section.querySelector("[data-action=claim]")?.form.requestSubmit(),
      a: () => section && openNote(section, "accept"),
      r: () => section && openNote(section, "reject"),
      n: () => section && openNote(section, "not_this"),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  }

  // ---- selection for bulk actions ---------------------------------------------------------
  const boxes = () => Array.from(queue.querySelectorAll(".select-item"));

  function toggle(box) {
    if (!box) return;
    box.checked = !box.checked;
    countSelected();
  }

  function countSelected() {
    const all = boxes();
    const chosen = all.filter((box) => box.checked).length;
    const counter = document.getElementById("selected-count");
    if (counter) counter.textContent = chosen ? `${chosen} / ${all.length}` : "";
    const every = document.getElementById("select-all");
    if (every) every.checked = chosen > 0 && chosen === all.length;
    queue.querySelectorAll(".select-group").forEach((group) => {
      const mine = all.filter((box) => box.dataset.contractId === group.dataset.contractId);
      group.checked = mine.length > 0 && mine.every((box) => box.checked);
    });
  }

  document.addEventListener("change", (event) => {
    const target = event.target;
    if (target.id === "select-all") boxes().forEach((box) => { box.checked = target.checked; });
    if (target.classList.contains("select-group")) {
      boxes()
        .filter((box) => box.dataset.contractId === target.dataset.contractId)
        .forEach((box) => { box.checked = target.checked; });
    }
    if (target.matches(".select-item, #select-all, .select-group")) countSelected();
  });

  if (bulk) {
    bulk.addEventListener("submit", (event) => {
      if (!boxes().some((box) => box.checked)) {
        event.preventDefault();
        toast(text.msgSelectFirst, "error");
      }
    });
  }

  // ---- filters: applied as soon as they change, kept in the address -----------------------
  if (filters) {
    filters.addEventListener("change", (event) => {
      if (event.target.matches("select, input[type=checkbox]")) filters.requestSubmit();
    });
  }

  // Every form returns to this view, also forms of items that arrived live.
  document.addEventListener("submit", (event) => {
    const next = event.target.querySelector("input[name=next]");
    if (next) next.value = viewQuery();
  }, true);

  // ---- live counts ------------------------------------------------------------------------
  let countsTimer = null;
  function refreshCounts() {
    clearTimeout(countsTimer);
    countsTimer = setTimeout(async () => {
      const response = await fetch(`/queue/counts/?${viewQuery()}`, { credentials: "same-origin" });
      if (!response.ok) return;
      const counts = await response.json();
      document.querySelectorAll("[data-count]").forEach((el) => {
        if (counts[el.dataset.count] !== undefined) el.textContent = counts[el.dataset.count];
      });
      document.querySelectorAll("select[data-facet]").forEach((select) => {
        const byValue = new Map((counts[select.dataset.facet] || []).map((f) => [String(f.value), f.n]));
        Array.from(select.options).forEach((option) => {
          if (!option.value) return;
          const n = byValue.get(option.value) || 0;
          option.textContent = option.textContent.replace(/\(\d+\)$/, `(${n})`);
        });
      });
    }, 300);
  }

  // ---- live items -------------------------------------------------------------------------
  function sortKey(el) {
    return [Number(el.dataset.rank), Number(el.dataset.due), Number(el.dataset.itemId)];
  }

  function before(a, b) {
    const [x, y] = [sortKey(a), sortKey(b)];
    for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return x[i] < y[i];
    return false;
  }

  function place(section) {
    const end = queue.querySelector(".queue-empty");
    if (grouped) {
      const contract = section.querySelector(".select-item")?.dataset.contractId;
      const same = items().filter((el) => el !== section && el.querySelector(".select-item")?.dataset.contractId === contract);
      const next = same.find((el) => before(section, el));
      if (next) queue.insertBefore(section, next);
      else if (same.length) same[same.length - 1].after(section);
      else if (!section.isConnected) queue.insertBefore(section, end);
      return section;
    }
    const next = items().find((el) => el !== section && before(section, el));
    queue.insertBefore(section, next || end);
    return section;
  }

  function merge(old, fresh) {
    // Replace the item part by part, but never the part the lawyer is typing in; a selected
    // item stays selected.
    const focused = document.activeElement;
    const checked = old.querySelector(".select-item")?.checked;
    fresh.querySelectorAll("[data-part]").forEach((part) => {
      const current = old.querySelector(`[data-part="${part.dataset.part}"]`);
      if (!current) return;
      if (current.contains(focused) && focused !== document.body) return;
      current.replaceWith(part);
    });
    const box = old.querySelector(".select-item");
    if (box && checked) box.checked = true;
    old.className = fresh.className + (old.classList.contains("selected") ? " selected" : "");
    Object.assign(old.dataset, fresh.dataset);
    const count = old.querySelector(".comment-count");
    if (count) count.textContent = old.querySelectorAll(".comment").length;
    return old;
  }

  async function refresh(itemId) {
    const response = await fetch(`/queue/${itemId}/?${viewQuery()}`, { credentials: "same-origin" });
    const current = itemById(itemId);
    if (response.status === 404) {
      if (current) {
        if (String(itemId) === selectedId) move(1);
        current.remove();
        if (String(itemId) === selectedId) selectedId = null;
      }
    } else if (response.ok) {
      const holder = document.createElement("div");
      holder.innerHTML = await response.text();
      const fresh = holder.querySelector(".queue-item");
      const section = place(current ? merge(current, fresh) : fresh);
      if (mentionedItems.has(String(itemId))) showBadge(section);
    }
    queue.querySelector(".queue-empty").hidden = items().length > 0;
    countSelected();
  }

  // ---- undo countdown ---------------------------------------------------------------------
  function tickUndo() {
    const now = Date.now() / 1000;
    document.querySelectorAll(".undo-form[data-undo-until]").forEach((form) => {
      const left = Math.ceil(Number(form.dataset.undoUntil) - now);
      if (left <= 0) form.remove();
      else form.querySelector(".undo-left").textContent = `${left} s`;
    });
  }

  // ---- mentions ---------------------------------------------------------------------------
  function toast(message, kind = "info") {
    const el = document.createElement("div");
    el.className = `queue-toast ${kind}`;
    el.setAttribute("role", kind === "error" ? "alert" : "status");
    el.textContent = message;
    toasts.appendChild(el);
    setTimeout(() => el.remove(), 8000);
  }

  function showBadge(section) {
    const badge = section?.querySelector(".mention-badge");
    if (badge) badge.hidden = false;
  }

  function mentioned(itemId, commentId, by, claimPassed) {
    if (commentId !== null && announced.has(commentId)) return;
    announced.add(commentId);
    toast(`${by} ${claimPassed ? text.msgHanded : text.msgMentioned}`, "mention");
    mentionedItems.add(String(itemId));
    showBadge(itemById(itemId));
    const link = document.querySelector(".topbar a[href='/queue/']");
    if (link) link.dataset.mentions = String(Number(link.dataset.mentions || 0) + 1);
  }

  window.Clausewise.live.subscribe((event) => {
    const p = event.payload || {};
    if (event.type.startsWith("queue.item.")) refreshCounts();
    if (event.type.startsWith("queue.item.") || event.type === "queue.comment.added") {
      refresh(p.item_id).then(() => {
        // A stored comment event also carries mentions: a page that was offline catches up here.
        if (event.type === "queue.comment.added" && (p.mentions || []).includes(me) && p.author !== me) {
          mentioned(p.item_id, p.comment_id, p.author, false);
        }
      }).catch(() => {});
    }
  });

  window.Clausewise.live.subscribeLive((live) => {
    if (live.type !== "queue.mention") return;
    const p = live.payload;
    refresh(p.item_id).catch(() => {}).then(() => mentioned(p.item_id, p.comment_id, p.by, p.claim_passed));
  });

  // ---- start ------------------------------------------------------------------------------
  document.addEventListener("keydown", onKey);
  queue.addEventListener("click", (event) => {
    const section = event.target.closest(".queue-item");
    if (section) select(section, { focus: false });
  });
  const fromHash = location.hash.startsWith("#item-") && document.querySelector(location.hash);
  select(fromHash || items()[0] || null, { focus: Boolean(fromHash), remember: Boolean(fromHash) });
  const withError = queue.querySelector(".item-messages .error");
  if (withError) {
    const section = withError.closest(".queue-item");
    select(section);
    section.querySelector("[data-role=note], [data-role=comment]")?.focus();
  }
  countSelected();
  tickUndo();
  setInterval(tickUndo, 1000);
})();
