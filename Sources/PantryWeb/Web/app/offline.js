// The cook's own lists as last seen, kept on this device for when Pantry cannot be reached (in a
// shop, the grocery list is the main offline use), and grocery changes made meanwhile (ticks, adds,
// removals), each with its
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

/** The grocery changes made offline, oldest first: `{kind: "tick", item, checked}`,
 *  `{kind: "add", ingredient, amount?, unit?}` or `{kind: "remove", item}`, each with its key. */
export function queuedChanges() {
  return (recall("grocery-changes")?.value ?? []).filter((change) => change.kind);
}

/** A change made offline, with its own Idempotency-Key, sent in order when Pantry answers again.
 *  A tick replaces an earlier tick of the same item (only the last one matters). */
export function queueChange(change) {
  const kept = change.kind === "tick"
    ? queuedChanges().filter((queued) => !(queued.kind === "tick" && queued.item === change.item))
    : queuedChanges();
  remember("grocery-changes", [...kept, { ...change, key: idempotencyKey() }]);
}

/** The kept list with the queued changes applied, so the screen shows what will be sent. */
export function withQueuedChanges(items) {
  let shown = items.map((item) => ({ ...item }));
  for (const change of queuedChanges()) {
    if (change.kind === "tick") shown = shown.map((item) => item.item === change.item ? { ...item, checked: change.checked } : item);
    else if (change.kind === "remove") shown = shown.filter((item) => item.item !== change.item);
    else if (change.kind === "add") {
      const amounts = change.amount === undefined ? [] : [{ amount: change.amount, unit: change.unit }];
      shown.push({ item: change.ingredient.toLowerCase(), ingredient: change.ingredient, aisle: "Not sent yet", checked: false,
        amounts, bought: [], unmeasuredAdds: amounts.length ? 0 : 1, recipeIds: [], queued: true });
    }
  }
  return shown;
}

const request = (change) => {
  if (change.kind === "tick") return ["PATCH", `/v1/me/groceries/${encodeURIComponent(change.item)}`, { checked: change.checked }];
  if (change.kind === "remove") return ["DELETE", `/v1/me/groceries/${encodeURIComponent(change.item)}`, undefined];
  const body = { ingredient: change.ingredient };
  if (change.amount !== undefined) body.amount = change.amount;
  if (change.unit) body.unit = change.unit;
  return ["POST", "/v1/me/groceries", body];
};

/** Sends the queued changes in order, each with its key (one that reached the server before is
 *  not done twice); stops at the first that cannot be sent. When two members' changes cross, the
 *  log's order settles it. Returns the position of the last one sent. */
export async function sendQueuedChanges() {
  let position;
  for (const change of queuedChanges()) {
    const [method, path, body] = request(change);
    try {
      position = (await call(method, path, body, change.key)).position;
    } catch (error) {
      if (isOffline(error) || error.status >= 500) return position;
      // Refused for good (the item was removed meanwhile, or ticked already): nothing to send again.
    }
    remember("grocery-changes", queuedChanges().filter((queued) => queued.key !== change.key));
  }
  return position;
}
