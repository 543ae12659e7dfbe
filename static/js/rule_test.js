// Live test box of the playbook editor: runs the rules as edited on pasted text and marks the
// spans that fired.
(function () {
  "use strict";
  const box = document.getElementById("test-box");
  const source = document.getElementById("source");
  const text = document.getElementById("test-text");
  const output = document.getElementById("test-output");
  const list = document.getElementById("test-hits");
  const status = document.getElementById("test-status");
  const csrf = document.querySelector("#playbook-form [name=csrfmiddlewaretoken]").value;
  let timer = null;
  let sequence = 0;

  function render(value, hits) {
    output.textContent = "";
    const spans = hits.map((h) => [h.start, h.end, h]).sort((a, b) => a[0] - b[0]);
    let at = 0;
    for (const [start, end, hit] of spans) {
      if (start < at) continue; // overlapping matches: the first one is shown
      output.append(document.createTextNode(value.slice(at, start)));
      const mark = document.createElement("mark");
      mark.textContent = value.slice(start, end);
      mark.title = `${hit.rule_id} (${hit.category}, ${hit.action})`;
      mark.dataset.rule = hit.rule_id;
      output.append(mark);
      at = end;
    }
    output.append(document.createTextNode(value.slice(at)));
    list.textContent = "";
    hits.forEach((hit) => {
      const item = document.createElement("li");
      item.textContent = `${hit.rule_id} · ${hit.category} · ${hit.action} · “${hit.match}”`;
      list.append(item);
    });
    status.textContent = hits.length
      ? interpolate(ngettext("%(count)s rule hit", "%(count)s rule hits", hits.length), { count: hits.length }, true)
      : gettext("No rule fires on this text.");
  }

  async function run() {
    const mine = ++sequence;
    const value = text.value;
    const response = await fetch(box.dataset.url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ source: source.value, text: value }),
    });
    if (mine !== sequence) return; // a newer run is on its way
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const problems = body && body.error ? (body.error.problems || [body.error.message]) : [gettext("The test failed.")];
      status.textContent = problems.join(" · ");
      output.textContent = "";
      list.textContent = "";
      return;
    }
    render(value, body.hits);
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => run().catch(() => { status.textContent = gettext("The server could not be reached."); }), 300);
  }
  text.addEventListener("input", schedule);
  source.addEventListener("input", schedule);
})();
