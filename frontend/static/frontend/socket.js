// The daily game's asks over a WebSocket (/ws/attempts/<id>, challenges/consumers.py),
// with the HTTP ask as the fallback whenever the socket is not open: the caller gets the
// same view or the same ApiError either way. No DOM, no game logic.
//
// One ask at a time (the page is busy meanwhile). A socket that drops is opened again
// after a pause that grows; until then asks go over HTTP. If it drops while an ask is on
// its way, nobody knows whether the ask was stored: the stored game decides (``reload``)
// — stored, its view is the answer; not stored, the ask goes over HTTP.
import { ApiError } from "./api.js";

const STATUS = {
  not_authenticated: 401, bad_token: 401, not_found: 404, stale_move: 409, game_over: 409,
  day_closed: 409, rate_limited: 429, unavailable: 503,
};
// Refusals of the socket itself, not of the ask: the HTTP ask is asked instead (its own
// limits and waits apply there, and its answer is the one the page knows).
const OVER_HTTP = new Set(["rate_limited", "too_large", "unavailable"]);
const RETRY_MS = [500, 1000, 2000, 5000, 10000, 30000];

class Lost extends Error {}

export function createAskChannel({ http, reload, url = socketUrl }) {
  let ws = null;
  let ready = false;
  let attemptId = null;
  let pending = null;     // {resolve, reject} of the ask on its way
  let failures = 0;
  let retryTimer = null;
  let closed = false;     // close() was called: no more sockets
  let refused = false;    // the server refused this page's credential: HTTP says why

  function open(id) {
    if (closed || refused) return;
    clearTimeout(retryTimer);
    attemptId = id;
    let socket;
    try {
      socket = new WebSocket(url(id));
    } catch (_) {
      return again();
    }
    ws = socket;
    ready = false;
    socket.onmessage = (event) => {
      if (socket !== ws) return;
      let data;
      try { data = JSON.parse(event.data); } catch (_) { return; }
      if (!ready) {
        if (data.ready) {
          ready = true;
          failures = 0;
        } else if (data.error === "not_authenticated" || data.error === "bad_token" || data.error === "not_found") {
          refused = true;  // the HTTP ask meets the same refusal and the page says it
        }
        return;
      }
      if (!pending) return;  // a notice before a close (signed_out, idle): the close follows
      const { resolve, reject } = pending;
      pending = null;
      if (data.error) reject(new ApiError(data.error, data.detail, STATUS[data.error] || 400, data.retry_after || null));
      else resolve(data);
    };
    socket.onclose = () => {
      if (socket !== ws) return;
      ws = null;
      ready = false;
      if (pending) {
        pending.reject(new Lost());
        pending = null;
      }
      again();
    };
  }

  function again() {
    if (closed || refused || attemptId === null) return;
    const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
    failures += 1;
    retryTimer = setTimeout(() => open(attemptId), wait);
  }

  function overSocket(view, rank) {
    return new Promise((resolve, reject) => {
      pending = { resolve, reject };
      try {
        ws.send(JSON.stringify({ move: view.move, rank }));
      } catch (_) {
        pending = null;
        reject(new Lost());
      }
    });
  }

  return {
    // The game to hold a socket for (again after a new attempt); nothing if it is over.
    follow(view) {
      if (!view || view.over || typeof WebSocket === "undefined") return this.close();
      closed = false;
      if (view.id !== attemptId || !ws) open(view.id);
    },
    close() {
      closed = true;
      clearTimeout(retryTimer);
      if (ws) {
        const socket = ws;
        ws = null;
        socket.close(1000);
      }
    },
    get open() {
      return Boolean(ws && ready);
    },
    async ask(view, rank) {
      if (ws && ready && !pending && view.id === attemptId) {
        try {
          return await overSocket(view, rank);
        } catch (err) {
          if (err instanceof ApiError && !OVER_HTTP.has(err.code)) throw err;
          if (!(err instanceof ApiError)) {
            // Dropped with the ask on its way: stored or not, the stored game says.
            const now = await reload(view);
            if (now.move > view.move) return { ...now, events: [] };
          }
        }
      }
      return http(view, rank);
    },
  };
}

function socketUrl(id) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}/ws/attempts/${id}`;
}
