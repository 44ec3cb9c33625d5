// The grocery list by aisle: tick what is bought (kept on the server, so it survives a reload),
// remove items, add by hand.
import { del, get, patch, post, session } from "../api.js";
import { amount, announce, h, needsLogin, problem } from "../dom.js";

export async function groceriesScreen() {
  if (!session.current) return [h("h1", {}, "Groceries"), needsLogin("your grocery list")];
  const list = h("div", { "aria-live": "polite" });
  const itemPath = (item) => `/v1/me/groceries/${encodeURIComponent(item.item)}`;
  const show = async (after) => {
    let items;
    try {
      items = (await get(`/v1/me/groceries${after ? `?after=${after}` : ""}`)).result;
    } catch (error) { list.replaceChildren(problem(error)); return; }
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
        const box = h("input", { type: "checkbox", checked: item.checked, onchange: async () => {
          try {
            const answer = await patch(itemPath(item), { checked: box.checked });
            announce(`${item.ingredient} ${box.checked ? "ticked" : "unticked"}`);
            show(answer.position);
          } catch (error) { box.checked = !box.checked; announce(error.message); }
        } });
        return h("li", { class: item.checked ? "checked" : "" },
          h("label", { class: "check grow" }, box, h("span", { class: "name" }, item.ingredient),
            h("span", { class: "meta" }, [toBuy, bought].filter(Boolean).join(" · "))),
          h("button", { type: "button", class: "secondary", "aria-label": `Remove ${item.ingredient}`, onclick: async () => {
            try { show((await del(itemPath(item))).position); } catch (error) { announce(error.message); }
          } }, "Remove"));
      })))));
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
  return [h("h1", {}, "Groceries"), form, list];
}
