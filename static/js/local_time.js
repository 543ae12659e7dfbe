// Due times are stored and shown in UTC (one clock for the whole firm); beside each, the
// reader's own clock: "due 2026-12-05 10:00 UTC (18:00 your time)". Elements carry the
// instant in data-due (ISO 8601); items that arrive live get it too.
(function () {
  "use strict";
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  window.localTimeSuffix = () => "";
  if (!zone || zone === "UTC" || zone === "Etc/UTC") return;
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
