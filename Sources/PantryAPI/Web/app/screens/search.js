// Seeds 000 and 002: find recipes with what is at home (1-5 ingredients, with autocomplete), fewest
// missing first; or by keyword, with a diet and sections by how long a recipe takes.
import { get } from "../api.js";
import { cards, h, originNote, problem } from "../dom.js";

const diets = ["vegetarian", "vegan", "gluten free", "dairy free", "ketogenic", "pescatarian", "paleo", "primal", "whole 30"];

export function searchScreen() {
  const suggestions = h("datalist", { id: "ingredient-suggestions" });
  let typing;
  const suggest = (event) => {
    clearTimeout(typing);
    const prefix = event.target.value.trim();
    if (prefix.length < 2) return;
    typing = setTimeout(async () => {
      try {
        const answer = await get(`/v1/ingredients/autocomplete?prefix=${encodeURIComponent(prefix)}&number=10`);
        suggestions.replaceChildren(...answer.payload.suggestions.map((name) => h("option", { value: name })));
      } catch { /* suggestions are a help, not a need */ }
    }, 200);
  };
  const inputs = [1, 2, 3, 4, 5].map((n) =>
    h("label", {}, `Ingredient ${n}`,
      h("input", { name: "ingredient", list: "ingredient-suggestions", autocomplete: "off", oninput: suggest })));
  const found = h("section", { "aria-live": "polite", "aria-label": "Recipes using your ingredients" });
  const byIngredients = h("form", { class: "inline", "aria-label": "Search by ingredients", onsubmit: async (event) => {
    event.preventDefault();
    const names = [...byIngredients.querySelectorAll("input")].map((input) => input.value.trim()).filter(Boolean);
    if (!names.length) { found.replaceChildren(h("p", { class: "error" }, "Type at least one ingredient.")); return; }
    found.replaceChildren(h("p", {}, "Searching…"));
    try {
      const answer = await get(`/v1/recipes/by-ingredients?ingredients=${encodeURIComponent(names.join(","))}&number=20`);
      found.replaceChildren(h("h2", {}, "Recipes using what you have"), cards(answer.payload.summaries, "Recipes using what you have", answer));
    } catch (error) { found.replaceChildren(problem(error)); }
  } }, inputs, suggestions, h("button", { type: "submit" }, "Find recipes"));

  const keyword = h("input", { name: "query", required: true });
  const diet = h("select", { name: "diet" }, h("option", { value: "" }, "Any diet"), diets.map((name) => h("option", { value: name }, name)));
  const sectioned = h("input", { type: "checkbox", name: "sections", checked: true });
  const results = h("section", { "aria-live": "polite", "aria-label": "Keyword results" });
  const byKeyword = h("form", { class: "inline", "aria-label": "Search by keyword", onsubmit: async (event) => {
    event.preventDefault();
    const query = keyword.value.trim();
    if (!query) return;
    const params = new URLSearchParams({ query, number: "24" });
    if (diet.value) params.set("diet", diet.value);
    if (sectioned.checked) params.set("sections", "readyTime");
    results.replaceChildren(h("p", {}, "Searching…"));
    try {
      const answer = await get(`/v1/recipes/search?${params}`);
      if (answer.sections) {
        results.replaceChildren(originNote(answer), ...answer.sections.filter((s) => s.results.length).map((section) =>
          h("section", {}, h("h2", {}, section.title), cards(section.results, section.title))));
        if (!answer.payload.searchPage.results.length) results.replaceChildren(cards([], "Results", answer));
      } else {
        results.replaceChildren(h("h2", {}, "Results"), cards(answer.payload.searchPage.results, "Results", answer));
      }
    } catch (error) { results.replaceChildren(problem(error)); }
  } },
  h("label", {}, "Keyword", keyword), h("label", {}, "Diet", diet),
  h("label", { class: "check" }, sectioned, "Group by time"), h("button", { type: "submit" }, "Search"));

  return [h("h1", {}, "Find recipes"),
    h("h2", {}, "With what you have"), byIngredients, found,
    h("h2", {}, "By keyword"), byKeyword, results];
}
