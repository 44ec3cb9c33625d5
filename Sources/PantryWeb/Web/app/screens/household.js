// The household a grocery list is shared with: start one, invite with a code, join with one, see
// who is in it, leave. The list and the cart of a household are every member's.
import { ApiError, del, get, post, put, session } from "../api.js";
import { announce, h, problem } from "../dom.js";

/** The household as last read, for naming who made a change that arrives live. */
let lastRead = null;

/** The signed-in user's household, or null outside one. */
export async function currentHousehold(after) {
  try {
    lastRead = await get(`/v1/me/household${after ? `?after=${after}` : ""}`);
  } catch (error) {
    if (!(error instanceof ApiError && error.code === "not_in_household")) throw error;
    lastRead = null;
  }
  return lastRead;
}

/** A member's username as last read, or null. */
export function knownMemberName(userId) {
  return lastRead?.members.find((m) => m.userId === userId)?.username ?? null;
}

/** A member's name for "added by" and "ticked by" (a former member has none any more). */
export function memberName(household, userId) {
  if (!household || !userId) return null;
  if (userId === session.current?.userId) return "you";
  return household.members.find((m) => m.userId === userId)?.username ?? "a former member";
}

/** The panel above the list; `changed(position)` redraws the screen after a change of its own. */
export function householdPanel(household, changed) {
  const message = h("div", { "aria-live": "polite" });
  const act = (work) => async (event) => {
    event?.preventDefault();
    try { changed((await work()).position); } catch (error) { message.replaceChildren(problem(error)); }
  };
  if (!household) {
    const code = h("input", { name: "code", required: true, autocomplete: "off", spellcheck: "false", size: 24, "aria-label": "Invite code" });
    return h("section", { class: "household", "aria-label": "Household" },
      h("p", {}, "Share this list and the cart with the people you cook and shop with."),
      h("p", {}, h("button", { type: "button", onclick: act(() => post("/v1/households")) }, "Start a household")),
      h("form", { class: "inline", "aria-label": "Join a household", onsubmit: act(() => post("/v1/households/join", { code: code.value })) },
        h("label", {}, "Invite code", code), h("button", { type: "submit" }, "Join")),
      message);
  }
  const me = session.current?.userId;
  const owner = household.owner === me;
  const members = household.members.map((m) => h("li", {}, m.userId === me ? "you" : (m.username ?? "a member"),
    m.owner ? " (owner)" : "",
    owner && m.userId !== me
      ? [h("button", { type: "button", class: "secondary", "aria-label": `Make ${m.username} the owner`,
        onclick: act(() => put("/v1/me/household/owner", { userId: m.userId })) }, "Make owner"),
      h("button", { type: "button", class: "secondary", "aria-label": `Remove ${m.username}`,
        onclick: act(() => del(`/v1/me/household/members/${encodeURIComponent(m.userId)}`)) }, "Remove")]
      : null));
  const invite = owner ? h("button", { type: "button", onclick: async () => {
    try {
      const made = await post("/v1/me/household/invites");
      message.replaceChildren(h("p", {}, "Give this code to who you invite (good once, for a day): ",
        h("code", { class: "invite-code" }, made.code)));
      announce("Invite made");
    } catch (error) { message.replaceChildren(problem(error)); }
  } }, "Invite someone") : null;
  const leave = h("button", { type: "button", class: "secondary", onclick: act(() => del(`/v1/me/household/members/${encodeURIComponent(me)}`)) },
    "Leave the household");
  return h("section", { class: "household", "aria-label": "Household" },
    h("p", {}, "Shared with your household:"), h("ul", { class: "members" }, members),
    h("p", {}, invite, " ", leave), message);
}
