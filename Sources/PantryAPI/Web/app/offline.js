// The cook's own lists as last seen, kept on this device for when Pantry cannot be reached (in a
// shop, the grocery list is the main offline use), and grocery ticks made meanwhile, each with its
// Idempotency-Key, sent when Pantry answers again. The service worker keeps no personal data, so
// this is kept per user in localStorage and cleared with the session (api.js).
import { ApiError, call, idempotencyKey, session } from "./api.js";

const key = (name) => `pantry.offline.${session.current?.userId}.${name}`;

export function remember(name, value) {
  try { localStorage.setItem(key(name), JSON.stringify({ at: Date.now(), value })); } catch { /* full: online only */ }
}

/** `{at, value}` as last remembered, or null. */
export function recall(name) {
  try { return JSON.parse(localStorage.getItem(key(name))); } catch { return null; }
}

export const isOffline = (error) => error instanceof ApiError && error.status === 0;

/** "Offline: as of 14:05." */
export function offlineNotice(at, what) {
  const time = new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return `Offline: ${what} as of ${time}, when Pantry last answered.`;
}

export function queuedTicks() {
  return recall("ticks")?.value ?? [];
}

/** A tick made offline, with its own key, replacing an earlier one of the same item. */
export function queueTick(item, checked) {
  remember("ticks", [...queuedTicks().filter((tick) => tick.item !== item), { item, checked, key: idempotencyKey() }]);
}

/** The kept list with the queued ticks applied. */
export function withQueuedTicks(items) {
  const ticks = new Map(queuedTicks().map((tick) => [tick.item, tick.checked]));
  return items.map((item) => ticks.has(item.item) ? { ...item, checked: ticks.get(item.item) } : item);
}

/** Sends the queued ticks, each with its key (a tick that reached the server before is not done twice);
 *  stops at the first that cannot be sent. Returns the position of the last one sent. */
export async function sendQueuedTicks() {
  let position;
  for (const tick of queuedTicks()) {
    try {
      position = (await call("PATCH", `/v1/me/groceries/${encodeURIComponent(tick.item)}`, { checked: tick.checked }, tick.key)).position;
    } catch (error) {
      if (isOffline(error) || error.status >= 500) return position;
      // Refused for good (the item was removed meanwhile): nothing to send again.
    }
    remember("ticks", queuedTicks().filter((queued) => queued.key !== tick.key));
  }
  return position;
}
