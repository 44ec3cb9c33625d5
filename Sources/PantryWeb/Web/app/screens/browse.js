// Seed 004: the day's featured meal, then ten at a time with "Load more", never the same twice.
import { get } from "../api.js";
import { cards, h, problem, recipeCard } from "../dom.js";

export async function browseScreen() {
  const featured = h("section", { "aria-label": "Featured" });
  try {
    const recipe = (await get("/v1/recipes/featured")).payload.recipe;
    featured.replaceChildren(h("h2", {}, "Featured today"),
      h("ul", { class: "cards", "aria-label": "Featured today" }, recipeCard({ ...recipe })));
  } catch (error) { featured.replaceChildren(problem(error)); }

  const list = h("ul", { class: "cards", "aria-label": "More recipes" });
  let cursor = null;
  const more = h("button", { type: "button", onclick: () => load() }, "Load more");
  const load = async () => {
    more.disabled = true;
    try {
      const answer = await get(`/v1/recipes/feed?count=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      list.append(...answer.payload.recipes.map((recipe) => recipeCard(recipe)));
      cursor = answer.cursor ?? null;
      more.hidden = !cursor;
    } catch (error) { list.after(problem(error)); }
    more.disabled = false;
  };
  await load();
  return [h("h1", {}, "Browse"), featured, h("h2", {}, "More to cook"), list, h("p", {}, more)];
}
