// Contract page: follow ingestion live and reload once the document is read.
(function () {
  "use strict";
  const card = document.getElementById("contract");
  const id = Number(card.dataset.contractId);
  const working = new Set(["QUEUED", "INGESTING"]);

  window.Clausewise.live.subscribe((event) => {
    if (event.type !== "document.progress" || event.payload.contract_id !== id) return;
    const bar = document.getElementById("contract-progress");
    if (bar) bar.style.width = `${event.payload.progress}%`;
    if (working.has(card.dataset.status) && !working.has(event.payload.status)) location.reload();
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
