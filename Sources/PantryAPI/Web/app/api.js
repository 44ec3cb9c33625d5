// The Pantry HTTP API as the screens use it: the session's token on every call, an
// Idempotency-Key on every change (a retried tap never counts twice), problem documents as errors.

const tokenKey = "pantry.session";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || `the server answered ${status}`);
    this.status = status;
    this.code = problem?.code || "http_" + status;
  }
}

export const session = {
  get current() {
    try { return JSON.parse(localStorage.getItem(tokenKey)); } catch { return null; }
  },
  save(answer) {
    localStorage.setItem(tokenKey, JSON.stringify({ token: answer.token, userId: answer.userId, username: answer.username }));
  },
  clear() { localStorage.removeItem(tokenKey); },
};

function idempotencyKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}

export async function call(method, path, body) {
  const headers = {};
  const current = session.current;
  if (current?.token) headers.Authorization = `Bearer ${current.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["Idempotency-Key"] = idempotencyKey();
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
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

export const get = (path) => call("GET", path);
export const post = (path, body = {}) => call("POST", path, body);
export const put = (path, body) => call("PUT", path, body);
export const patch = (path, body) => call("PATCH", path, body);
export const del = (path, body) => call("DELETE", path, body);

export const recipePath = (id) => `/v1/recipes/${encodeURIComponent(id)}`;
