// The grocery list by aisle: tick what is bought (kept on the server, so it survives a reload),
// remove items, add by hand. Offline, the list as last seen, and ticks, adds and removals queued until
// Pantry is back.
import { del, get, patch, post, session } from "../api.js";
import { byAisle } from "../aisles.js";
import { amount, announce, h, needsLogin, problem } from "../dom.js";
import { isOffline, offlineNotice, queueChange, recall, remember, sendQueuedChanges, withQueuedChanges } from "../offline.js";
import { currentHousehold, householdPanel, memberName } from "./household.js";

export async function groceriesScreen() {
  if (!session.current) return [h("h1", {}, "Groceries"), needsLogin("your grocery list")];
  const list = h("div", { "aria-live": "polite" });
  const shared = h("div");
  const notice = h("p", { class: "offline", id: "offline-notice", role: "status" });
  const itemPath = (item) => `/v1/me/groceries/${encodeURIComponent(item.item)}`;
  // `focus`: the item whose box was ticked, found again in the redrawn list (a redraw dropped it to <body>).
  const show = async (after, focus) => {
    let items;
    let keptAt = null;
    let household = null;
    try {
      const sent = await sendQueuedChanges();
      const since = Math.max(after ?? 0, sent ?? 0);
      household = await currentHousehold(since);
      items = (await get(`/v1/me/groceries${since ? `?after=${since}` : ""}`)).result;
      remember("groceries", items);
      shared.replaceChildren(householdPanel(household, (position) => show(position)));
    } catch (error) {
      const kept = isOffline(error) ? recall("groceries") : null;
      if (!kept) { list.replaceChildren(problem(error)); return; }
      items = withQueuedChanges(kept.value);
      keptAt = kept.at;
    }
    notice.textContent = keptAt ? `${offlineNotice(keptAt, "your list")} Changes are kept and sent when it is back.` : "";
    const offline = keptAt !== null;
    if (!items.length) { list.replaceChildren(h("p", {}, "The list is empty.")); return; }
    list.replaceChildren(...byAisle(items).map((aisle) => h("section", {}, h("h2", {}, aisle.name),
      h("ul", { class: "list", "aria-label": aisle.name }, aisle.items.map((item) => {
        const toBuy = item.amounts.map(amount).join(" + ");
        const bought = item.bought.length ? `bought ${item.bought.map(amount).join(" + ")}` : "";
        // On a household's list: who added it and who ticked it.
        const addedBy = item.addedBy?.length ? `added by ${item.addedBy.map((id) => memberName(household, id)).join(", ")}` : "";
        const tickedBy = item.checked && item.checkedBy ? `ticked by ${memberName(household, item.checkedBy)}` : "";
        const box = h("input", { type: "checkbox", checked: item.checked, "data-item": item.item, onchange: async () => {
          if (offline) {
            queueChange({ kind: "tick", item: item.item, checked: box.checked });
            announce(`${item.ingredient} ${box.checked ? "ticked" : "unticked"} here: sent when Pantry is back`);
            show(undefined, item.item);
            return;
          }
          try {
            const answer = await patch(itemPath(item), { checked: box.checked });
            announce(`${item.ingredient} ${box.checked ? "ticked" : "unticked"}`);
            show(answer.position, item.item);
          } catch (error) {
            if (isOffline(error)) {
              queueChange({ kind: "tick", item: item.item, checked: box.checked });
              announce(`${item.ingredient} ${box.checked ? "ticked" : "unticked"} here: sent when Pantry is back`);
              show(undefined, item.item);
              return;
            }
            box.checked = !box.checked;
            announce(error.message);
          }
        } });
        return h("li", { class: item.checked ? "checked" : "" },
          h("label", { class: "check grow" }, box, h("span", { class: "name" }, item.ingredient),
            h("span", { class: "meta" }, [toBuy, bought, addedBy, tickedBy].filter(Boolean).join(" · "))),
          h("button", { type: "button", class: "secondary", disabled: item.queued, "aria-label": `Remove ${item.ingredient}`, onclick: async () => {
            const queue = () => {
              queueChange({ kind: "remove", item: item.item });
              announce(`${item.ingredient} removed here: sent when Pantry is back`);
              show();
            };
            if (offline) { queue(); return; }
            try { show((await del(itemPath(item))).position); } catch (error) { if (isOffline(error)) queue(); else announce(error.message); }
          } }, "Remove"));
      })))));
    if (focus) list.querySelector(`input[data-item="${CSS.escape(focus)}"]`)?.focus();
  };
  const name = h("input", { name: "ingredient", required: true });
  const howMuch = h("input", { name: "amount", type: "number", min: "0", step: "any", inputmode: "decimal" });
  const unit = h("input", { name: "unit", size: 6 });
  const form = h("form", { class: "inline", "aria-label": "Add to the list", onsubmit: async (event) => {
    event.preventDefault();
    const body = { ingredient: name.value.trim() };
    if (howMuch.value) body.amount = Number(howMuch.value);
    if (unit.value.trim()) body.unit = unit.value.trim();
    try {
      const answer = await post("/v1/me/groceries", body);
      form.reset();
      show(answer.position);
    } catch (error) {
      if (!isOffline(error)) { announce(error.message); return; }
      queueChange({ kind: "add", ...body });
      form.reset();
      announce(`${body.ingredient} added here: sent when Pantry is back`);
      show();
    }
  } }, h("label", {}, "Item", name), h("label", {}, "Amount", howMuch), h("label", {}, "Unit", unit),
  h("button", { type: "submit" }, "Add"));
  await show();
  return [h("h1", {}, "Groceries"), notice, shared, form, list];
}
