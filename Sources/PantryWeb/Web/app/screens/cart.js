// Seed 002's cart: each recipe with its count (a stepper) and the totals: only what the cook put
// there. Cooking (its countdown, and the points) starts on the recipe's own page.
import { get, post, session } from "../api.js";
import { announce, count, drawnImage, h, imageSource, needsLogin, problem } from "../dom.js";
import { isOffline, offlineNotice, recall, remember } from "../offline.js";

export async function cartScreen() {
  if (!session.current) return [h("h1", {}, "Cart"), needsLogin("your cart")];
  const body = h("div", { "aria-live": "polite" });
  const notice = h("p", { class: "offline", id: "offline-notice", role: "status" });
  // The screen's state, the one place it is kept: the page is drawn from it, never read back.
  // `keptAt`: when the cart shown was kept, while the API cannot be reached (nothing can be changed).
  /** @type {{ cart: any, keptAt: number | null, error: Error | null }} */
  let state = { cart: null, keptAt: null, error: null };
  // `focus`: the control acted on, found again in the redrawn list (a redraw dropped it to <body>).
  const show = async (after, focus) => {
    try {
      const cart = (await get(`/v1/me/cart${after ? `?after=${after}` : ""}`)).result;
      remember("cart", cart);
      state = { cart, keptAt: null, error: null };
    } catch (error) {
      const kept = isOffline(error) ? recall("cart") : null;
      state = kept ? { cart: kept.value, keptAt: kept.at, error: null } : { ...state, error };
    }
    render(focus);
  };
  const render = (focus) => {
    const { cart, keptAt, error } = state;
    notice.textContent = keptAt !== null ? offlineNotice(keptAt, "your cart") : "";
    if (error) { body.replaceChildren(problem(error)); return; }
    const offline = keptAt !== null;
    if (!cart.lines.length) { body.replaceChildren(h("p", {}, "The cart is empty: add recipes from their page.")); return; }
    const change = (line, delta) => async () => {
      try {
        await show((await post("/v1/me/cart", { recipeId: line.recipeId, delta })).position,
          `button[aria-label="${CSS.escape(`One ${delta > 0 ? "more" : "fewer"} ${line.title}`)}"]`);
      } catch (error) { announce(error.message); }
    };
    body.replaceChildren(
      h("ul", { class: "list", "aria-label": "Recipes in the cart" }, cart.lines.map((line) => {
        return h("li", {},
          h("img", { src: imageSource(line.image ?? drawnImage(line.recipeId)), alt: "", width: 64, height: 48 }),
          h("a", { class: "grow", href: `#/recipe/${encodeURIComponent(line.recipeId)}` }, line.title),
          h("span", { class: "stepper", role: "group", "aria-label": `${line.title} in the cart` },
            h("button", { type: "button", class: "secondary", disabled: offline, "aria-label": `One fewer ${line.title}`, onclick: change(line, -1) }, "−"),
            h("output", {}, String(line.count)),
            h("button", { type: "button", class: "secondary", disabled: offline, "aria-label": `One more ${line.title}`, onclick: change(line, 1) }, "+")));
      })),
      h("p", {}, h("strong", {}, count(cart.totals.items, "item")), ` in ${count(cart.totals.lines, "recipe")}`));
    if (focus) body.querySelector(focus)?.focus();
  };
  await show();
  return [h("h1", {}, "Cart"), notice, body];
}
