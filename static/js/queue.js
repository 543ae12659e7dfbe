// The lawyers' queue page: live items (fetched as server-rendered HTML, so the server keeps
// deciding who may see what), @mention toasts, and the keyboard (j/k move, c/a/r act).
(function () {
  "use strict";
  const queue = document.getElementById("queue");
  if (!queue) return;
  const me = queue.dataset.me;
  const text = queue.dataset;
  const toasts = document.getElementById("queue-toasts");
  const announced = new Set(); // comment ids already toasted (live notice and stored event)
  const mentionedItems = new Set(); // items whose badge stays on across live updates
  let selectedId = null;

  const items = () => Array.from(queue.querySelectorAll(".queue-item"));
  const itemById = (id) => document.getElementById(`item-${id}`);

  // ---- selection --------------------------------------------------------------------------
  function select(section, { focus = true } = {}) {
    items().forEach((el) => el.classList.toggle("selected", el === section));
    selectedId = section ? section.dataset.itemId : null;
    if (!section) return;
    history.replaceState(null, "", `#item-${selectedId}`);
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
    return target.closest("input, textarea, select, [contenteditable=''], [contenteditable=true]");
  }

  function decide(section, decision) {
    const form = section.querySelector(".decide-form");
    if (!form) return toast(text.msgClaimFirst, "error");
    const note = form.querySelector("[data-role=note]");
    const needsNote = form.dataset.noteRequired === decision;
    if (needsNote && !note.value.trim()) {
      form.dataset.pending = decision;
      note.focus();
      return toast(text.msgJustify);
    }
    form.requestSubmit(form.querySelector(`[data-action=${decision}]`));
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === "Escape") event.target.blur();
      if (event.key === "Enter" && event.target.matches("[data-role=note]")) {
        const form = event.target.form;
        if (form.dataset.pending) { // opened with a/r: Enter means that decision
          event.preventDefault();
          form.requestSubmit(form.querySelector(`[data-action=${form.dataset.pending}]`));
        }
      }
      return;
    }
    const section = selectedId && itemById(selectedId);
    const actions = {
      j: () => move(1),
      k: () => move(-1),
      c: () => section && section.querySelector("[data-action=claim]")?.form.requestSubmit(),
      a: () => section && decide(section, "accept"),
      r: () => section && decide(section, "reject"),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
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
    const next = items().find((el) => el !== section && before(section, el));
    queue.insertBefore(section, next || queue.querySelector(".queue-empty"));
    return section;
  }

  function merge(old, fresh) {
    // Replace the item part by part, but never the part the lawyer is typing in.
    const focused = document.activeElement;
    fresh.querySelectorAll("[data-part]").forEach((part) => {
      const current = old.querySelector(`[data-part="${part.dataset.part}"]`);
      if (!current) return;
      if (current.contains(focused) && focused !== document.body) return;
      current.replaceWith(part);
    });
    old.className = fresh.className + (old.classList.contains("selected") ? " selected" : "");
    Object.assign(old.dataset, fresh.dataset);
    const count = old.querySelector(".comment-count");
    if (count) count.textContent = old.querySelectorAll(".comment").length;
    return old;
  }

  async function refresh(itemId) {
    const response = await fetch(`/queue/${itemId}/`, { credentials: "same-origin" });
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
  select(fromHash || items()[0] || null, { focus: Boolean(fromHash) });
  const withError = queue.querySelector(".item-messages .error");
  if (withError) {
    const section = withError.closest(".queue-item");
    select(section);
    section.querySelector("[data-role=note], [data-role=comment]")?.focus();
  }
})();
