// Reports page: sort the rule table by any column (numbers numerically), without a reload.
(() => {
  const table = document.querySelector("table.sortable");
  if (!table) return;
  const body = table.tBodies[0];
  const cellValue = (row, index, kind) => {
    const cell = row.cells[index];
    const raw = cell.dataset.value ?? cell.textContent.trim();
    return kind === "number" ? parseFloat(raw) || 0 : raw.toLowerCase();
  };
  table.querySelectorAll("th").forEach((th, index) => {
    th.tabIndex = 0;
    const sort = () => {
      const descending = th.getAttribute("aria-sort") !== "descending";
      table.querySelectorAll("th").forEach((other) => other.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      const kind = th.dataset.sort;
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = cellValue(a, index, kind);
        const y = cellValue(b, index, kind);
        const order = x < y ? -1 : x > y ? 1 : 0;
        return descending ? -order : order;
      });
      rows.forEach((row) => body.appendChild(row));
    };
    th.addEventListener("click", sort);
    th.addEventListener("keydown", (event) => { if (event.key === "Enter") sort(); });
  });
})();
