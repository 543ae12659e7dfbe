// The Message Batches table: rows follow `model_batch.status` events; a batch of this matter
// (matter page) or of this contract's upload (contract page) that the page has not shown yet
// gets a row of its own.
(function () {
  "use strict";
  const section = document.getElementById("model-batches");
  if (!section || !window.Clausewise || !window.Clausewise.live) return;
  const statusLabels = JSON.parse(document.getElementById("model-batch-status-labels").textContent);
  const roundLabels = JSON.parse(document.getElementById("model-batch-round-labels").textContent);
  const body = section.querySelector("tbody");
  const roles = ["round", "status", "requests", "succeeded", "errored", "expired", "canceled", "estimated", "actual"];

  function money(value) {
    return value === null || value === undefined ? "—" : `$${Number(value).toFixed(4)}`;
  }

  function newRow(id) {
    const row = document.createElement("tr");
    row.dataset.modelBatchId = String(id);
    roles.forEach((role) => {
      const cell = document.createElement("td");
      if (role === "status") {
        const status = document.createElement("span");
        status.dataset.role = "status";
        const error = document.createElement("div");
        error.className = "error small";
        error.dataset.role = "error";
        error.hidden = true;
        cell.append(status, error);
      } else {
        cell.dataset.role = role;
      }
      row.append(cell);
    });
    body.append(row);
    return row;
  }

  function mine(batch) {
    if (section.dataset.intakeBatchId) return String(batch.intake_batch_id) === section.dataset.intakeBatchId;
    return String(batch.matter_id) === section.dataset.matterId;
  }

  function show(batch) {
    let row = body.querySelector(`tr[data-model-batch-id="${batch.id}"]`);
    if (!row) {
      if (!mine(batch)) return;
      row = newRow(batch.id);
    }
    const set = (role, text) => {
      const cell = row.querySelector(`[data-role="${role}"]`);
      if (cell) cell.textContent = text;
    };
    set("round", roundLabels[batch.round] || batch.round);
    set("requests", batch.requests);
    ["succeeded", "errored", "expired", "canceled"].forEach((name) => set(name, batch.counts[name]));
    set("estimated", money(batch.estimated_cost_usd));
    set("actual", money(batch.actual_cost_usd));
    const status = row.querySelector('[data-role="status"]');
    status.textContent = statusLabels[batch.status] || batch.status;
    status.className = `status status-${batch.status.toLowerCase()}`;
    const error = row.querySelector('[data-role="error"]');
    error.textContent = batch.error || "";
    error.hidden = !batch.error;
    section.hidden = false;
  }

  window.Clausewise.live.subscribe((event) => {
    if (event.type === "model_batch.status") show(event.payload);
  });
})();
