// Every HTTP call of the casual-game pages: JSON in, JSON out, {error, detail} on failure.

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.detail) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.error) || "http_error";
  }
}

function csrfToken() {
  // Read on every call: logging in (POST /api/players) rotates the token.
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]*)/);
  return match ? decodeURIComponent(match[1]) : "";
}

async function call(method, url, body) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: { "Accept": "application/json", "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export function createGuest() {
  const suffix = Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, "0");
  return call("POST", "/api/players", { name: `Guest ${suffix}` });
}

export const casualHome = (game) => call("GET", `/api/casual/${game}`);
export const casualCreate = (game) => call("POST", `/api/casual/${game}/games`, {});
export const casualMove = (game, id, move, expected) =>
  call("POST", `/api/casual/${game}/games/${id}/moves`, { move, expected });
export const casualFinish = (game, id, expected) =>
  call("POST", `/api/casual/${game}/games/${id}/finish`, { expected });
