// The grocery list by aisle: tick what is bought (kept on the server, so it survives a reload),
// remove items, add by hand. Offline, the list as last seen, and ticks queued until Pantry is back.
import { del, get, patch, post, session } from "../api.js";
import { amount, announce, h, needsLogin, problem } from "../dom.js";
import { isOffline, offlineNotice, queueTick, recall, remember, sendQueuedTicks, withQueuedTicks } from "../offline.js";

export async function groceriesScreen() {
  if (!session.current) return [h("h1", {}, "Groceries"), needsLogin("your grocery list")];
  const list = h("div", { "aria-live": "polite" });
  const notice = h("p", { class: "offline", id: "offline-notice", role: "status" });
  const itemPath = (item) => `/v1/me/groceries/${encodeURIComponent(item.item)}`;
  // `focus`: the item whose box was ticked, found again in the redrawn list (a redraw dropped it to <body>).
  const show = async (after, focus) => {
    let items;
    let keptAt = null;
    try {
      const sent = await sendQueuedTicks();
      const since = Math.max(after ?? 0, sent ?? 0);
      items = (await get(`/v1/me/groceries${since ? `?after=${since}` : ""}`)).result;
      remember("groceries", items);
    } catch (error) {
      const kept = isOffline(error) ? recall("groceries") : null;
      if (!kept) { list.replaceChildren(problem(error)); return; }
      items = withQueuedTicks(kept.value);
      keptAt = kept.at;
    }
    notice.textContent = keptAt ? `${offlineNotice(keptAt, "your list")} Ticks are kept and sent when it is back.` : "";
    const offline = keptAt !== null;
    if (!items.length) { list.replaceChildren(h("p", {}, "The list is empty.")); return; }
    const aisles = [];
    for (const item of items) {
      const group = item.checked ? "In the basket" : item.aisle;
      let aisle = aisles.find((a) => a.name === group);
      if (!aisle) aisles.push(aisle = { name: group, items: [] });
      aisle.items.push(item);
    }
    list.replaceChildren(...aisles.map((aisle) => h("section", {}, h("h2", {}, aisle.name),
      h("ul", { class: "list", "aria-label": aisle.name }, aisle.items.map((item) => {
        const toBuy = item.amounts.map(amount).join(" + ");
        const bought = item.bought.length ? `bought ${item.bought.map(amount).join(" + ")}` : "";
        const box = h("input", { type: "checkbox", checked: item.checked, "data-item": item.item, onchange: async () => {
          if (offline) {
            queueTick(item.item, box.checked);
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
              queueTick(item.item, box.checked);
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
            h("span", { class: "meta" }, [toBuy, bought].filter(Boolean).join(" · "))),
          h("button", { type: "button", class: "secondary", disabled: offline, "aria-label": `Remove ${item.ingredient}`, onclick: async () => {
            try { show((await del(itemPath(item))).position); } catch (error) { announce(error.message); }
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
    } catch (error) { announce(error.message); }
  } }, h("label", {}, "Item", name), h("label", {}, "Amount", howMuch), h("label", {}, "Unit", unit),
  h("button", { type: "submit" }, "Add"));
  await show();
  return [h("h1", {}, "Groceries"), notice, form, list];
}
