// Seed 002's cart: each recipe with its count (a stepper), the totals, and a cooking countdown.
import { get, post, session } from "../api.js";
import { announce, count, drawnImage, h, imageSource, needsLogin, problem } from "../dom.js";
import { isOffline, offlineNotice, recall, remember } from "../offline.js";

let ticking;

function left(seconds) {
  if (seconds <= 0) return "Done!";
  const m = Math.floor(seconds / 60);
  return `${m}:${String(seconds % 60).padStart(2, "0")} left`;
}

export async function cartScreen() {
  clearInterval(ticking);
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
    const clocks = [];
    const change = (line, delta) => async () => {
      try {
        await show((await post("/v1/me/cart", { recipeId: line.recipeId, delta })).position,
          `button[aria-label="${CSS.escape(`One ${delta > 0 ? "more" : "fewer"} ${line.title}`)}"]`);
      } catch (error) { announce(error.message); }
    };
    body.replaceChildren(
      h("ul", { class: "list", "aria-label": "Recipes in the cart" }, cart.lines.map((line) => {
        const clock = h("span", { class: "meta", role: "timer" });
        if (line.timer) clocks.push({ clock, endsAt: line.timer.endsAt });
        const timerButton = `button[data-timer="${CSS.escape(line.recipeId)}"]`;
        const start = h("button", { type: "button", class: "secondary", disabled: offline, "data-timer": line.recipeId, onclick: async () => {
          try {
            const answer = await post(`/v1/me/cart/${encodeURIComponent(line.recipeId)}/timer`, {});
            announce(`Cooking ${line.title}`);
            show(answer.position, timerButton);
          } catch (error) {
            if (error.code !== "minutes_required") { announce(error.message); return; }
            const asked = Number(prompt(`How many minutes does ${line.title} take?`, "30"));
            if (asked > 0) show((await post(`/v1/me/cart/${encodeURIComponent(line.recipeId)}/timer`, { minutes: asked })).position, timerButton);
          }
        } }, line.timer ? "Restart timer" : "Start cooking");
        return h("li", {},
          h("img", { src: imageSource(line.image ?? drawnImage(line.recipeId)), alt: "", width: 64, height: 48 }),
          h("a", { class: "grow", href: `#/recipe/${encodeURIComponent(line.recipeId)}` }, line.title),
          h("span", { class: "stepper", role: "group", "aria-label": `${line.title} in the cart` },
            h("button", { type: "button", class: "secondary", disabled: offline, "aria-label": `One fewer ${line.title}`, onclick: change(line, -1) }, "−"),
            h("output", {}, String(line.count)),
            h("button", { type: "button", class: "secondary", disabled: offline, "aria-label": `One more ${line.title}`, onclick: change(line, 1) }, "+")),
          start, clock);
      })),
      h("p", {}, h("strong", {}, count(cart.totals.items, "item")), ` in ${count(cart.totals.lines, "recipe")}`));
    if (focus) body.querySelector(focus)?.focus();
    const tick = () => {
      if (!document.body.contains(body)) { clearInterval(ticking); return; }
      for (const { clock, endsAt } of clocks) clock.textContent = left(Math.ceil((endsAt - Date.now()) / 1000));
    };
    clearInterval(ticking);
    tick();
    if (clocks.length) ticking = setInterval(tick, 1000);
  };
  await show();
  return [h("h1", {}, "Cart"), notice, body];
}
