// The redline editor (templates/reviews/_redline.html) on the queue and the review page:
// save a draft, accept it into the review, withdraw it; the clause's before and after is
// redrawn from the server's answer. Listens on the document, so items that arrive live work.
(() => {
  "use strict";
  if (window.clausewiseRedline) return;
  window.clausewiseRedline = true;

  function csrf(form) {
    return form.querySelector("[name=csrfmiddlewaretoken]").value;
  }

  async function call(url, form, body) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf(form) },
      body: body ? JSON.stringify(body) : null,
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = data.error || {};
      const fields = error.fields ? Object.values(error.fields).flat().join(" ") : "";
      throw new Error(fields || error.message || gettext("The redline could not be changed."));
    }
    return data;
  }

  function drawDiff(target, segments) {
    target.replaceChildren(...segments.map((segment) => {
      if (segment.op === "same") return document.createTextNode(segment.text);
      const mark = document.createElement(segment.op === "del" ? "del" : "ins");
      mark.textContent = segment.text;
      return mark;
    }));
  }

  function show(box, redline) {
    box.dataset.redlineId = redline.id;
    box.dataset.status = redline.status;
    box.className = `redline redline-${redline.status.toLowerCase()}`;
    box.querySelector("[data-role=status]").textContent = redline.status_label;
    box.querySelector("[data-role=source]").textContent = redline.source_label;
    box.querySelector("[data-role=accepted]").textContent = redline.accepted_label;
    const note = box.querySelector("[data-role=terms-note]");
    if (note) note.remove();  // the note is about the proposal; the saved words are a lawyer's
    drawDiff(box.querySelector("[data-role=diff]"), redline.diff);
    const withdraw = box.querySelector("[data-action=redline-withdraw]");
    if (withdraw) withdraw.hidden = redline.status === "WITHDRAWN";
    const textarea = box.querySelector("[data-role=replacement]");
    if (textarea) textarea.dataset.saved = redline.replacement;
    const comment = box.querySelector("[data-role=counterparty-comment]");
    if (comment) comment.dataset.saved = redline.counterparty_comment;
  }

  function edited(textarea) {
    return Boolean(textarea) && textarea.value !== (textarea.dataset.saved ?? textarea.defaultValue);
  }

  async function save(box, form) {
    const holder = box.closest("[data-redlines]");
    const replacement = box.querySelector("[data-role=replacement]").value;
    const comment = box.querySelector("[data-role=counterparty-comment]");
    const body = { passage: Number(box.dataset.passageId), category: box.dataset.category, replacement };
    if (comment) body.counterparty_comment = comment.value;
    return call(holder.dataset.saveUrl, form, body);
  }

  async function act(button) {
    const box = button.closest(".redline");
    const form = button.closest("form");
    const error = form.querySelector("[data-role=error]");
    const textarea = form.querySelector("[data-role=replacement]");
    const comment = form.querySelector("[data-role=counterparty-comment]");
    const action = button.dataset.action;
    error.hidden = true;
    form.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    try {
      let redline = null;
      const unsaved = !box.dataset.redlineId || edited(textarea) || edited(comment)
        || box.dataset.status === "WITHDRAWN";
      if (action === "redline-save" || (action === "redline-accept" && unsaved)) {
        redline = await save(box, form);
        show(box, redline);
      }
      if (action === "redline-accept" && box.dataset.status !== "ACCEPTED") {
        redline = await call(`/api/redlines/${box.dataset.redlineId}/accept/`, form);
      } else if (action === "redline-withdraw") {
        redline = await call(`/api/redlines/${box.dataset.redlineId}/withdraw/`, form);
      }
      if (redline) show(box, redline);
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    } finally {
      form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action^=redline-]");
    if (button && button.closest(".redline")) {
      event.preventDefault();
      act(button);
    }
  });
})();
