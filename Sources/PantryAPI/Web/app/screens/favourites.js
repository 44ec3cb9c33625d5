// Seed 001: saved recipes, a search inside them, and a suggestion drawn from them.
import { get, session } from "../api.js";
import { cards, h, needsLogin, problem } from "../dom.js";

export async function favouritesScreen() {
  if (!session.current) return [h("h1", {}, "Favourites"), needsLogin("your favourites")];
  const list = h("div", { "aria-live": "polite" });
  const show = async (text) => {
    try {
      const answer = await get(`/v1/me/favourites${text ? `?q=${encodeURIComponent(text)}` : ""}`);
      list.replaceChildren(answer.result.length
        ? cards(answer.result.map((f) => ({ id: f.recipeId, title: f.title, image: f.image })), "Saved recipes")
        : h("p", {}, text ? "No saved recipe matches." : "Nothing saved yet: save recipes from their page."));
    } catch (error) { list.replaceChildren(problem(error)); }
  };
  const query = h("input", { type: "search", name: "q" });
  const form = h("form", { class: "inline", role: "search", "aria-label": "Search your favourites", onsubmit: (event) => {
    event.preventDefault();
    show(query.value.trim());
  } }, h("label", {}, "Search your favourites", query), h("button", { type: "submit" }, "Search"));
  await show("");

  const suggestion = h("section", { "aria-label": "Suggested for you" });
  try {
    const answer = (await get("/v1/me/favourite-suggestion")).result;
    if (answer) {
      suggestion.replaceChildren(h("h2", {}, `More ${answer.keyword}`),
        h("p", { class: "meta" }, `Because ${answer.basedOn.length} of your favourites are ${answer.keyword} recipes.`),
        cards(answer.recipes, `More ${answer.keyword}`));
    }
  } catch (error) { suggestion.replaceChildren(problem(error)); }
  return [h("h1", {}, "Favourites"), form, list, suggestion];
}
