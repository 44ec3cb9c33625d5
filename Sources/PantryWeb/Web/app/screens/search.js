// Seeds 000 and 002: one search with a choice. By ingredients: 1-5 things at home (with
// autocomplete), fewest missing first. By name: a word of the title, with a diet and sections by how
// long a recipe takes. Issue 33 found both forms on one screen, the second 6,000 px down on a phone
// once the first had answered. The choice and the search are in the URL (#/?by=name&q=soup), so
// back returns to them and a recipe's back button finds its results again.
import { get } from "../api.js";
import { cards, h, originNote, problem } from "../dom.js";

const diets = ["vegetarian", "vegan", "gluten free", "dairy free", "ketogenic", "pescatarian", "paleo", "primal", "whole 30"];

const modes = {
  ingredients: { label: "By ingredients", field: "Ingredients you have", hint: "Up to 5, separated by commas: egg, tomato",
    button: "Find recipes", results: "Recipes using your ingredients" },
  name: { label: "By name", field: "Recipe name or word", hint: "A word of its name, or a kind of dish: soup, curry, dessert",
    button: "Search", results: "Recipes by name" },
};

/** The address of a search: the choice, and what was asked when there is something. */
function address(by, query, diet, grouped) {
  const params = new URLSearchParams({ by });
  if (query) params.set("q", query);
  if (by === "name" && diet) params.set("diet", diet);
  if (by === "name" && !grouped) params.set("group", "no");
  return `#/?${params}`;
}

export function searchScreen(params = new URLSearchParams()) {
  let mode = params.get("by") === "name" ? "name" : "ingredients";
  // What each choice last had typed, so switching back and forth loses nothing.
  const typed = { ingredients: "", name: "" };
  typed[mode] = params.get("q") ?? "";

  const suggestions = h("datalist", { id: "ingredient-suggestions" });
  let typingTimer;
  const suggest = () => {
    clearTimeout(typingTimer);
    if (mode !== "ingredients") return;
    // Suggest the last name being typed; each option carries the names before it, so the list
    // completes the whole field ("egg, tom" offers "egg, tomato").
    const parts = field.value.split(",");
    const prefix = parts.pop().trim();
    if (prefix.length < 2) return;
    const before = parts.map((part) => part.trim()).filter(Boolean).map((part) => `${part}, `).join("");
    typingTimer = setTimeout(async () => {
      try {
        const answer = await get(`/v1/ingredients/autocomplete?prefix=${encodeURIComponent(prefix)}&number=10`);
        suggestions.replaceChildren(...answer.payload.suggestions.map((name) => h("option", { value: before + name })));
      } catch { /* suggestions are a help, not a need */ }
    }, 200);
  };

  const field = h("input", { id: "search-field", name: "q", type: "text", enterkeyhint: "search", required: true, autocomplete: "off",
    "aria-describedby": "search-hint", value: typed[mode], oninput: suggest });
  const fieldName = h("span", {});
  const hint = h("p", { id: "search-hint", class: "hint" });
  const diet = h("select", { name: "diet" }, h("option", { value: "" }, "Any diet"), diets.map((name) => h("option", { value: name }, name)));
  diet.value = diets.includes(params.get("diet")) ? params.get("diet") : "";
  const grouped = h("input", { type: "checkbox", name: "group", checked: params.get("group") !== "no" });
  const filters = h("div", { class: "row" }, h("label", {}, "Diet", diet), h("label", { class: "check" }, grouped, "Group by time"));
  const submit = h("button", { type: "submit" });
  const results = { ingredients: h("section", { "aria-live": "polite", "aria-label": modes.ingredients.results }),
    name: h("section", { "aria-live": "polite", "aria-label": modes.name.results }) };

  const choices = Object.entries(modes).map(([key, { label }]) =>
    h("label", {}, h("input", { type: "radio", name: "by", value: key, checked: key === mode, onchange: () => choose(key) }), h("span", {}, label)));

  // Shows one choice's field, filters and results; the focus stays where it is (on the choice).
  const show = () => {
    const chosen = modes[mode];
    fieldName.textContent = chosen.field;
    hint.textContent = chosen.hint;
    field.value = typed[mode];
    if (mode === "ingredients") field.setAttribute("list", "ingredient-suggestions"); else field.removeAttribute("list");
    filters.hidden = mode !== "name";
    submit.textContent = chosen.button;
    results.ingredients.hidden = mode !== "ingredients";
    results.name.hidden = mode !== "name";
  };
  const remember = (url) => { if (location.hash !== url) history.pushState(null, "", url); };
  const choose = (key) => {
    typed[mode] = field.value;
    mode = key;
    show();
    remember(address(mode, typed[mode].trim(), diet.value, grouped.checked));
  };

  const byIngredients = async (text) => {
    const found = results.ingredients;
    const names = text.split(",").map((name) => name.trim()).filter(Boolean);
    if (!names.length) { found.replaceChildren(h("p", { class: "error" }, "Type at least one ingredient.")); return; }
    if (names.length > 5) { found.replaceChildren(h("p", { class: "error" }, `At most 5 ingredients: this has ${names.length}.`)); return; }
    found.replaceChildren(h("p", {}, "Searching…"));
    try {
      const answer = await get(`/v1/recipes/by-ingredients?ingredients=${encodeURIComponent(names.join(","))}&number=20`);
      found.replaceChildren(h("h2", {}, "Recipes using what you have"), cards(answer.payload.summaries, "Recipes using what you have", answer));
    } catch (error) { found.replaceChildren(problem(error)); }
  };
  const byName = async (query) => {
    const found = results.name;
    const search = new URLSearchParams({ query, number: "24" });
    if (diet.value) search.set("diet", diet.value);
    if (grouped.checked) search.set("sections", "readyTime");
    found.replaceChildren(h("p", {}, "Searching…"));
    try {
      const answer = await get(`/v1/recipes/search?${search}`);
      if (answer.sections) {
        // Without a note, nothing: replaceChildren would print a null as "null".
        found.replaceChildren(...[originNote(answer)].filter(Boolean), ...answer.sections.filter((s) => s.results.length).map((section) =>
          h("section", {}, h("h2", {}, section.title), cards(section.results, section.title))));
        if (!answer.payload.searchPage.results.length) found.replaceChildren(cards([], "Results", answer));
      } else {
        found.replaceChildren(h("h2", {}, "Results"), cards(answer.payload.searchPage.results, "Results", answer));
      }
    } catch (error) { found.replaceChildren(problem(error)); }
  };
  const run = () => {
    const text = field.value.trim();
    if (mode === "ingredients") byIngredients(text);
    else if (text) byName(text);
  };

  const form = h("form", { class: "search", role: "search", "aria-label": "Find recipes", onsubmit: (event) => {
    event.preventDefault();
    typed[mode] = field.value;
    remember(address(mode, field.value.trim(), diet.value, grouped.checked));
    run();
  } },
  h("fieldset", { class: "segments" }, h("legend", { class: "visually-hidden" }, "Search"), choices),
  // The hint between the label and the field, so the button stays beside the field at 360 px.
  h("div", { class: "field" }, h("label", { for: "search-field" }, fieldName), hint, h("div", { class: "row" }, field, submit)),
  suggestions, filters);

  show();
  if (typed[mode].trim()) run();
  return [h("h1", {}, "Find recipes"), form, results.ingredients, results.name];
}
