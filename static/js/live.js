// Live events: one websocket per page, reconnecting with backoff. After every (re)connect, and
// every data-catch-up-ms while connected, the client reads /api/events/?after=<seq>, so nothing
// is lost: not while it was away, nor a push that never came (Redis away, the event stored).
(function () {
  "use strict";
  const handlers = [];
  const liveHandlers = []; // ephemeral pushes (streamed draft text), not stored
  let lastSeq = Number(document.body.dataset.lastSeq || 0);
  let socket = null;
  let attempt = 0;
  let heartbeat = null;
  let catchUpTimer = null;
  const catchUpMs = Math.max(1000, Number(document.body.dataset.catchUpMs || 30000));
  // Pushes that arrive while a catch-up read is running wait for it: delivered first, a newer
  // push would move lastSeq past the older events the read is about to return.
  let held = null;

  function deliver(event) {
    if (event.seq <= lastSeq) return;
    lastSeq = event.seq;
    handlers.forEach((fn) => fn(event));
  }

  function receive(event) {
    if (held) held.push(event);
    else deliver(event);
  }

  async function catchUp() {
    const outer = held === null;
    if (outer) held = [];
    try {
      for (;;) {
        const response = await fetch(`/api/events/?after=${lastSeq}`, { credentials: "same-origin" });
        if (!response.ok) return;
        const events = await response.json();
        events.forEach(deliver);
        if (events.length < 500) return;
      }
    } finally {
      if (outer) {
        const waiting = held.sort((a, b) => a.seq - b.seq);
        held = null;
        waiting.forEach(deliver);
      }
    }
  }

  function setState(state) {
    document.body.dataset.live = state;
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/events/`);
    socket.onopen = () => {
      attempt = 0;
      if (notice) {
        notice.remove();
        notice = null;
      }
      setState("connected");
      catchUp().catch(() => {});
      heartbeat = setInterval(() => socket.send(JSON.stringify({ type: "ping" })), 25000);
      catchUpTimer = setInterval(() => catchUp().catch(() => {}), catchUpMs);
    };
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.type === "event") receive(data.event);
      if (data.type === "live") liveHandlers.forEach((fn) => fn(data.live));
    };
    socket.onclose = (close) => {
      clearInterval(heartbeat);
      clearInterval(catchUpTimer);
      setState("disconnected");
      if (close.code === 4401) return; // signed out: do not hammer the server
      if (close.code === TOO_MANY_SOCKETS) {
        tooManyWindows();
        return;
      }
      const delay = Math.min(30000, 500 * 2 ** attempt) * (0.5 + Math.random() / 2);
      attempt += 1;
      setTimeout(connect, delay);
    };
  }

  // The user has REALTIME_MAX_SOCKETS_PER_USER windows open already: say so, and try again
  // only when this window is looked at again or after a long while, never in a loop.
  const TOO_MANY_SOCKETS = 4429;
  const TOO_MANY_RETRY_MS = 120000;
  let notice = null;
  let retry = null;

  function tooManyWindows() {
    setState("too-many");
    if (!notice) {
      notice = document.createElement("p");
      notice.id = "live-notice";
      notice.className = "banner";
      notice.setAttribute("role", "status");
      notice.textContent = gettext(
        "Too many open windows: this one gets no live updates. Close some Clausewise windows or tabs; this one reconnects when you come back to it."
      );
      (document.querySelector("main") || document.body).prepend(notice);
    }
    clearTimeout(retry);
    retry = setTimeout(retryConnect, TOO_MANY_RETRY_MS);
  }

  function retryConnect() {
    if (document.body.dataset.live !== "too-many") return;
    clearTimeout(retry);
    setState("disconnected");
    connect();
  }

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") retryConnect();
  });

  window.Clausewise = window.Clausewise || {};
  window.Clausewise.live = {
    subscribe(fn) { handlers.push(fn); },
    subscribeLive(fn) { liveHandlers.push(fn); },
    catchUp,
  };
  connect();
})();
