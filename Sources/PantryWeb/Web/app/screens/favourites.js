// Seed 001: saved recipes (each with its picture and a way to remove it), a search inside them,
// and a suggestion drawn from them.
import { del, get, session } from "../api.js";
import { announce, cards, count, h, needsLogin, problem, recipeCard, recipeSource } from "../dom.js";
import { isOffline, offlineNotice, recall, remember } from "../offline.js";

export async function favouritesScreen() {
  if (!session.current) return [h("h1", {}, "Favourites"), needsLogin("your favourites")];
  const list = h("div", { "aria-live": "polite" });
  const notice = h("p", { class: "offline", id: "offline-notice", role: "status" });
  // The screen's state, the one place it is kept: the page is drawn from it, never read back.
  // `keptAt`: when the favourites shown were kept, while the API cannot be reached.
  /** @type {{ text: string, favourites: any[], keptAt: number | null, error: Error | null }} */
  let state = { text: "", favourites: [], keptAt: null, error: null };
  const show = async (text, after) => {
    const params = new URLSearchParams();
    if (text) params.set("q", text);
    if (after) params.set("after", after);
    try {
      const answer = await get(`/v1/me/favourites${params.size ? `?${params}` : ""}`);
      if (!text) remember("favourites", answer.result);
      state = { text, favourites: answer.result, keptAt: null, error: null };
    } catch (error) {
      const kept = isOffline(error) ? recall("favourites") : null;
      const words = (text ?? "").toLowerCase();
      state = kept ? { text, favourites: kept.value.filter((f) => f.title.toLowerCase().includes(words)), keptAt: kept.at, error: null }
        : { ...state, text, error };
    }
    render();
  };
  const render = () => {
    const { text, favourites, keptAt, error } = state;
    notice.textContent = keptAt !== null ? offlineNotice(keptAt, "your favourites") : "";
    if (error) { list.replaceChildren(problem(error)); return; }
    const offline = keptAt !== null;
    list.replaceChildren(favourites.length
      ? h("ul", { class: "cards", "aria-label": "Saved recipes" }, favourites.map((f, index) =>
        recipeCard({ id: f.recipeId, title: f.title, image: f.image, from: recipeSource(f.recipeId) }, h("button", {
          type: "button", class: "secondary remove", disabled: offline, "aria-label": `Remove ${f.title} from favourites`, onclick: async () => {
            try {
              const removed = await del(`/v1/me/favourites/${encodeURIComponent(f.recipeId)}`);
              announce(`${f.title} removed from favourites`);
              await show(text, removed.position);
              // The button is gone with its card: the focus goes to the next card's, else the search.
              const buttons = list.querySelectorAll("button.remove");
              (buttons[Math.min(index, buttons.length - 1)] ?? query).focus();
            } catch (error) { announce(error.message); }
          } }, "Remove"))))
      : h("p", {}, text ? "No saved recipe matches." : "Nothing saved yet: save recipes from their page."));
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
        h("p", { class: "meta" }, answer.basedOn.length === 1 ? `Because one of your favourites has ${answer.keyword} in it.`
          : `Because ${count(answer.basedOn.length, "favourite")} of yours have ${answer.keyword} in them.`),
        cards(answer.recipes, `More ${answer.keyword}`));
    }
  } catch (error) { if (!isOffline(error)) suggestion.replaceChildren(problem(error)); }
  return [h("h1", {}, "Favourites"), notice, form, list, suggestion];
}
