// Due times are stored in UTC and written in the reader's time zone: the one chosen on their
// settings page (<html data-time-zone>, the server writes it already), else UTC with the
// browser's own clock beside: "due 2026-12-05 10:00 UTC (18:00 your time)". Elements carry
// the instant in data-due (ISO 8601); items that arrive live get it too.
(function () {
  "use strict";
  const chosen = document.documentElement.dataset.timeZone || "";
  const zone = chosen || "UTC";
  const written = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });

  // "2026-12-05 18:00" in the zone due times are written in, as the server writes them
  window.dueTime = (iso) => {
    const when = new Date(iso);
    if (!iso || Number.isNaN(when.getTime())) return "";
    const part = Object.fromEntries(written.formatToParts(when).map((p) => [p.type, p.value]));
    return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}`;
  };
  window.dueZone = zone;
  window.localTimeSuffix = () => "";

  const browser = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (chosen || !browser || browser === "UTC" || browser === "Etc/UTC") return;
  const lang = document.documentElement.lang || undefined;
  const shown = new Intl.DateTimeFormat(lang, {
    dateStyle: "short",
    timeStyle: "short",
    hourCycle: "h23", // as the UTC time beside it
  });
  const words = window.gettext ? window.gettext("%s your time") : "%s your time";

  function suffix(iso) {
    const when = new Date(iso);
    if (!iso || Number.isNaN(when.getTime())) return "";
    return " (" + words.replace("%s", shown.format(when)) + ")";
  }
  // for scripts that write a due time into the page themselves (the review page's live items)
  window.localTimeSuffix = suffix;

  function localise(element) {
    if (element.dataset.localised) return;
    const text = suffix(element.dataset.due);
    if (!text) return;
    const extra = document.createElement("span");
    extra.className = "local-time";
    extra.textContent = text;
    element.append(extra);
    element.dataset.localised = "1";
  }

  function all(root) {
    if (root.matches && root.matches("[data-due]")) localise(root);
    if (root.querySelectorAll) root.querySelectorAll("[data-due]").forEach(localise);
  }

  document.addEventListener("DOMContentLoaded", () => {
    all(document);
    new MutationObserver((changes) => {
      changes.forEach((change) => change.addedNodes.forEach(all));
    }).observe(document.body, { childList: true, subtree: true });
  });
})();
