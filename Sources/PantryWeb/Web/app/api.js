// The Pantry HTTP API as the screens use it: the session's token on every call, an
// Idempotency-Key on every change (a retried tap never counts twice), problem documents as errors.

const tokenKey = "pantry.session";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || (status ? `the server answered ${status}.` : "Pantry cannot be reached."));
    this.status = status;
    this.code = problem?.code || "http_" + status;
  }
}

export const session = {
  get current() {
    try { return JSON.parse(localStorage.getItem(tokenKey)); } catch { return null; }
  },
  save(answer) {
    localStorage.setItem(tokenKey, JSON.stringify({ token: answer.token, userId: answer.userId, username: answer.username,
      expiresAt: answer.expiresAt }));
  },
  /** Resolves once what the service worker kept of this cook's browsing is deleted too. */
  clear() {
    localStorage.removeItem(tokenKey);
    // What was kept for offline use is this user's own: it goes with the session.
    for (const key of Object.keys(localStorage)) if (key.startsWith("pantry.offline.")) localStorage.removeItem(key);
    // So are the searches and recipes the service worker kept (sw.js, `browsingCache`).
    return globalThis.caches?.delete("pantry-browsing").catch(() => false) ?? Promise.resolve(false);
  },
};

// The positions of this page's own changes: the live stream brings them back too (live.js), and
// they are on the screen already. The last few hundred are enough to tell.
export const ownPositions = new Set();
// The newest position this page has heard of on the live stream: a read of the cook's own lists
// asks for it (`?after=`), so a screen redrawn for a change made elsewhere shows that change even
// when the worker that answers has not applied it yet.
let seenPosition = 0;
export const noteSeen = (position) => { seenPosition = Math.max(seenPosition, position); };

export function idempotencyKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}

// One Idempotency-Key per user action, not per click: a change whose answer never came keeps its
// key, and the same change asked again (the automatic retries, or the user's own) carries it, so
// the server answers what it did the first time instead of doing it twice. A new key per click
// made a "failed" registration that the core wrote later answer 409 username_taken on retry.
const pendingKeys = new Map();
const transient = (status) => status === 0 || status === 502 || status === 503 || status === 504;
const retryDelays = [300, 1000];
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `givenKey`: the action's key when the caller keeps it (a grocery tick queued offline). */
export async function call(method, path, body, givenKey) {
  const action = `${method} ${path} ${body === undefined ? "" : JSON.stringify(body)}`;
  let key;
  if (method !== "GET") {
    key = givenKey ?? pendingKeys.get(action) ?? idempotencyKey();
    pendingKeys.set(action, key);
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await send(method, path, body, key);
      pendingKeys.delete(action);
      return answer;
    } catch (error) {
      if (!(error instanceof ApiError) || !transient(error.status)) { pendingKeys.delete(action); throw error; }
      if (method === "GET" || attempt >= retryDelays.length) {
        // The server's detail speaks of Idempotency-Keys, which are this code's business, not the cook's.
        if (method !== "GET") error.message = "Not confirmed: Pantry is not answering right now. Try again: it will not count twice.";
        throw error;
      }
      await pause(retryDelays[attempt]);
    }
  }
}

async function send(method, path, body, key) {
  /** @type {Record<string, string>} */
  const headers = {};
  const current = session.current;
  if (current?.token) headers.Authorization = `Bearer ${current.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (key) headers["Idempotency-Key"] = key;
  if (method === "GET" && seenPosition && path.startsWith("/v1/me/") && !/[?&]after=/.test(path)) {
    path += `${path.includes("?") ? "&" : "?"}after=${seenPosition}`;
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { code: "offline", detail: "Pantry cannot be reached: you seem to be offline." });
  }
  if (response.status === 401 && current?.token && !path.startsWith("/v1/sessions")) {
    session.clear(); // the token expired or was revoked: log in again
  }
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { /* a proxy's HTML error page */ }
  if (!response.ok) throw new ApiError(response.status, json);
  if (method !== "GET") for (const position of json?.positions ?? []) {
    ownPositions.add(position);
    if (ownPositions.size > 500) ownPositions.delete(ownPositions.values().next().value);
  }
  return json;
}

/** A new token when this one has less than an hour left (tokens last 24 h; an expired one ended the
 *  cook's session mid-use). Offline it waits for the next try; a refused refresh ends the session. */
export async function refreshSessionIfDue(now = Date.now()) {
  const current = session.current;
  if (!current?.expiresAt || current.expiresAt * 1000 - now > 3600_000) return false;
  try {
    session.save(await call("POST", "/v1/sessions/current/refresh"));
    return true;
  } catch { return false; }
}

export const get = (path) => call("GET", path);
export const post = (path, body = {}) => call("POST", path, body);
export const put = (path, body) => call("PUT", path, body);
export const patch = (path, body) => call("PATCH", path, body);
export const del = (path, body) => call("DELETE", path, body);

export const recipePath = (id) => `/v1/recipes/${encodeURIComponent(id)}`;
