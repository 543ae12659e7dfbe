// Contract page: follow ingestion, the streaming draft and verification outcomes live.
(function () {
  "use strict";
  const card = document.getElementById("contract");
  const id = Number(card.dataset.contractId);
  const working = new Set(["QUEUED", "INGESTING"]);
  const STATE_LABELS = {
    CONFIRMED: "Confirmed", PENDING: "Pending", REJECTED: "Rejected",
    NEEDS_HUMAN_REVIEW: "Needs human review",
  };

  function text(tag, className, value) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    node.textContent = value;
    return node;
  }

  function showVerification(payload) {
    const item = document.getElementById(`passage-${payload.passage}`);
    if (!item) return;
    const box = item.querySelector("[data-role=verification]");
    box.textContent = "";
    const engine = payload.engine === "anthropic" ? "Checked by Claude" : "Checked by the offline engine";
    const reason = payload.reason ? ` (${payload.reason})` : "";
    box.append(text("div", "small", `${engine}: ${STATE_LABELS[payload.outcome] || payload.outcome}${reason} — ${payload.rationale}`));
    if (payload.quote) box.append(text("blockquote", "small", `“${payload.quote}”`));
    if (payload.redline) box.append(text("div", "small", `Suggested wording: ${payload.redline}`));
    if (payload.question) box.append(text("div", "small", `Ask the counterparty: ${payload.question}`));
  }

  function showState(payload) {
    const item = document.getElementById(`passage-${payload.passage}`);
    const badge = item && item.querySelector(".state");
    if (badge) {
      badge.textContent = STATE_LABELS[payload.state] || payload.state;
      badge.className = `state state-${payload.state.toLowerCase()}`;
    }
    const status = document.getElementById("review-status");
    if (status && payload.review_status) status.textContent = payload.review_status.replace("_", " ");
  }

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
    } else if (event.type === "draft.status") {
      const label = document.getElementById("draft-status");
      if (label) label.textContent = payload.status;
      const stream = document.getElementById("draft-stream");
      if (stream && payload.status !== "STREAMING") stream.textContent = ""; // never keep a partial draft
    } else if (event.type === "draft.complete") {
      location.reload();
    } else if (event.type === "review.scanned") {
      location.reload();
    }
  });

  window.Clausewise.live.subscribeLive((live) => {
    if (live.type !== "draft.delta" || live.payload.contract_id !== id) return;
    const stream = document.getElementById("draft-stream");
    if (stream) stream.textContent += live.payload.delta;
  });

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
      alert(body && body.error ? body.error.message : "The password could not be sent.");
    });
  }
})();
