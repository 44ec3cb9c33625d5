// @ts-check
// Live updates: the signed-in cook's changes made elsewhere (another phone, another tab) as the
// server writes them, from GET /v1/me/live (Server-Sent Events read with fetch, since EventSource
// cannot send the token). Each change's id is its log position: a dropped connection resumes with
// Last-Event-ID and misses nothing, whichever API process answers.
import { noteSeen, session } from "./api.js";
import { knownMemberName } from "./screens/household.js";

/** @typedef {{position: number, type: string, [field: string]: unknown}} Change */

let lastEventId = 0;
let running = null;

/** Follows the stream while a session lasts; `onChange` gets each change, this page's own included. */
export function followLive(/** @type {(change: Change) => void} */ onChange) {
  if (running || !session.current || !globalThis.ReadableStream) return;
  running = run(onChange).finally(() => { running = null; });
}

async function run(/** @type {(change: Change) => void} */ onChange) {
  let delay = 1000;
  while (session.current) {
    const token = session.current.token;
    const headers = { Authorization: `Bearer ${token}`, Accept: "text/event-stream" };
    if (lastEventId) headers["Last-Event-ID"] = String(lastEventId);
    let ended = null;
    try {
      const response = await fetch("/v1/me/live", { headers, cache: "no-store" });
      if (response.status === 401) return; // logged out or expired: api.js ends the session on its next call
      if (response.ok && response.body) {
        delay = 1000;
        ended = await read(response.body, onChange);
      }
    } catch { /* offline or the API restarting: try again */ }
    if (ended === "revoked" || ended === "expired") return;
    // Left a household: the next stream carries only this cook's own changes; the list is theirs again.
    if (ended === "left-household") window.dispatchEvent(new CustomEvent("pantry:reload"));
    if (ended === "reset") window.dispatchEvent(new CustomEvent("pantry:reload"));
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 30_000);
  }
}

/** Reads SSE events until the stream ends; the reason an `end` event gave, or null. */
async function read(/** @type {ReadableStream<Uint8Array>} */ body, /** @type {(change: Change) => void} */ onChange) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return null;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (event.id) lastEventId = Math.max(lastEventId, Number(event.id));
      if (event.type === "end") return JSON.parse(event.data).reason;
      if (event.type === "reset") return "reset";
      if (event.type === "message" && event.data) {
        const change = JSON.parse(event.data);
        noteSeen(change.position);
        onChange(change);
      }
    }
  }
}

export function parse(/** @type {string} */ text) {
  const event = { type: "message", id: "", data: "" };
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue; // a comment, or a field with no value
    const field = line.slice(0, colon), value = line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event.type = value;
    else if (field === "id") event.id = value;
    else if (field === "data") event.data += (event.data ? "\n" : "") + value;
  }
  return event;
}

/** The screens a change is shown on (their routes). */
export function screensShowing(/** @type {string} */ type) {
  if (type.startsWith("Grocery") || type.startsWith("Household")) return ["/groceries"];
  if (type === "CartAdjusted") return ["/cart", "/recipe/"];
  if (type === "CookingStarted") return ["/recipe/"];
  if (type === "RecipeSaved" || type === "SavedRecipeRemoved") return ["/favourites", "/recipe/"];
  if (type === "PointEarned") return ["/leaderboard", "/account", "/recipe/"];
  return [];
}

/** What a cook is told of a change made elsewhere. */
export function describe(/** @type {Change} */ change) {
  const what = {
    GroceryAdded: `${change.ingredient} added to the grocery list`,
    GroceryChecked: `${change.item} ${change.checked ? "ticked" : "unticked"}`,
    GroceryRemoved: `${change.item} removed from the grocery list`,
    CartAdjusted: `${change.title} in the cart: ${change.count}`,
    CookingStarted: `${change.title ?? "a recipe"}: cooking, ${change.minutes} minutes`,
    RecipeSaved: `${change.title} saved`,
    SavedRecipeRemoved: "a favourite removed",
    PointEarned: `a point for ${change.ingredient}`,
    HouseholdJoined: "someone joined the household",
    HouseholdLeft: change.dissolved ? "the household was closed" : "someone left the household",
    HouseholdHandedOver: "the household has a new owner",
    HouseholdInviteCreated: "an invite was made",
    HouseholdInviteRevoked: "an invite was revoked",
    HouseholdCreated: "a household was started",
  }[change.type] ?? "a change";
  // A household member's change says who made it (their name is on the household's member list).
  const by = change.household && change.userId !== session.current?.userId ? (knownMemberName(String(change.userId)) ?? "Another member") : "On another device";
  return `${by}: ${what}.`;
}
