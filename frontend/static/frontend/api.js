// Every HTTP call of the pages: no DOM, no game logic. Errors are thrown as ApiError
// with .code (the server's "error" field) and .status.

export class ApiError extends Error {
  constructor(code, detail, status, retryAfter = null) {
    super(detail || code);
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;  // seconds, from a 429's Retry-After
  }
}

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

// A 429 is retried after its Retry-After (a few times), listeners (wait.js) told the
// wait, null once over; a wait of hours (analyses all taken) is the page's to say.
const RETRIES_AFTER_429 = 4;
const LONGEST_WAIT_429 = 120;
const waitListeners = new Set();
export function onRateLimitWait(listener) {
  waitListeners.add(listener);
  return () => waitListeners.delete(listener);
}
function tellWait(seconds) {
  for (const listener of waitListeners) listener(seconds);
}

async function request(method, url, body) {
  for (let retry = 0; ; retry += 1) {
    try {
      const data = await requestOnce(method, url, body);
      if (retry > 0) tellWait(null);
      return data;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 429 || retry >= RETRIES_AFTER_429
        || err.retryAfter > LONGEST_WAIT_429) {
        if (retry > 0) tellWait(null);
        throw err;
      }
      const seconds = Math.max(1, err.retryAfter || 5);
      tellWait(seconds);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
  }
}

async function requestOnce(method, url, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken();
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    throw new ApiError("network", String(err), 0);
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const retryAfter = Number(response.headers.get("Retry-After")) || null;
    throw new ApiError((data && data.error) || "http_" + response.status, data && data.detail, response.status,
      retryAfter);
  }
  return data;
}

export const getJSON = (url) => request("GET", url);
export const postJSON = (url, body) => request("POST", url, body === undefined ? {} : body);
export const patchJSON = (url, body) => request("PATCH", url, body);
export const deleteJSON = (url) => request("DELETE", url);

// A JSON Lines document (the archive of a closed day): one parsed object per line.
export async function getJSONLines(url) {
  let response;
  try {
    response = await fetch(url, { headers: { Accept: "application/jsonl, application/json" }, credentials: "same-origin" });
  } catch (err) {
    throw new ApiError("network", String(err), 0);
  }
  const text = await response.text();
  if (!response.ok) {
    let data = null;
    try { data = JSON.parse(text); } catch { /* not an error object: the status says it */ }
    throw new ApiError((data && data.error) || "http_" + response.status, data && data.detail, response.status);
  }
  try {
    return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
  } catch (err) {
    throw new ApiError("bad_response", String(err), response.status);
  }
}
