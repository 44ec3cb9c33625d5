// A recipe: ingredients ("I have this" earns a point while it cooks: "Start cooking" first), steps, servings,
// minutes and the credit; save it, put its ingredients on the grocery list, set how many are in the cart
// (only what the cook puts there: cooking is its own act), read and write tips.
import { ApiError, del, get, post, put, recipePath, session } from "../api.js";
import { announce, count as counted, h, imageSource, minutes, problem, webLink } from "../dom.js";
import { isOffline, offlineNotice, recall, remember } from "../offline.js";
import { pointKey } from "../ingredients.js";

/** A button that stays focusable when its work is done (a disabled one drops the focus to <body>). */
function done(button, text) {
  button.textContent = text;
  button.setAttribute("aria-disabled", "true");
}

let ticking;

/** A countdown's words: minutes and seconds left, or done. */
function left(seconds) {
  if (seconds <= 0) return "Done! Points still count for an hour.";
  const m = Math.floor(seconds / 60);
  return `${m}:${String(seconds % 60).padStart(2, "0")} left`;
}

export async function recipeScreen(id) {
  let recipe;
  try {
    recipe = (await get(recipePath(id))).payload.recipe;
  } catch (error) {
    return [h("h1", {}, "Recipe"), problem(error)];
  }
  const loggedIn = Boolean(session.current);
  // What the screen shows, kept here and drawn from; never read back from the page.
  const state = {
    cartCount: loggedIn ? null : 0, // null until the cart has said: shown as "…", not a 0 it may not be
    timer: null, // this recipe's cooking timer, while it cooks
    saved: false,
    counted: new Map(), // an ingredient's point key → what its button says ("Point earned", "Already counted")
    offlineSince: null, // when what is shown was last known, once the API could not be reached
  };
  const facts = [minutes(recipe.readyInMinutes), recipe.servings ? counted(recipe.servings, "serving") : null].filter(Boolean);
  const credit = h("p", { class: "meta" }, "Source: ",
    // The API passes only http(s) links; checked here too, so no other scheme is ever a link.
    webLink(recipe.sourceUrl) ? h("a", { href: recipe.sourceUrl, rel: "noopener" }, recipe.sourceName) : recipe.sourceName,
    recipe.license ? [" · ", webLink(recipe.licenseUrl) ? h("a", { href: recipe.licenseUrl, rel: "license noopener" }, recipe.license) : recipe.license] : null);

  const points = h("p", { id: "points", "aria-live": "polite" });
  const showRank = async (position) => {
    try {
      const me = await get(`/v1/me?after=${position}`);
      points.textContent = me.rank ? `You have ${counted(me.points, "point")}: rank ${me.rank}.` : "";
    } catch { /* the rank is a bonus on this screen */ }
  };

  const ingredientItems = recipe.ingredients.map((ingredient) => {
    const pick = h("input", { type: "checkbox", "aria-label": `Choose ${ingredient.name} for the grocery list` });
    const key = pointKey(ingredient.name);
    const have = h("button", { type: "button", class: "secondary", disabled: !loggedIn, onclick: async () => {
      if (state.counted.has(key)) return;
      try {
        const answer = await usePoint(ingredient);
        countIngredient(key, "Point earned");
        announce(`A point for ${ingredient.name}`);
        showRank(answer.position);
      } catch (error) {
        if (error instanceof ApiError && error.code === "already_used") { countIngredient(key, "Already counted"); return; }
        if (error instanceof ApiError && error.code === "not_cooking") { announce("Start cooking first: points count while it cooks."); return; }
        announce(error.message);
      }
    } }, "I have this");
    const item = h("li", {}, pick, h("span", { class: "grow" }, ingredient.original || ingredient.name), have);
    item.ingredient = ingredient;
    item.pick = pick;
    item.have = have;
    item.key = key;
    return item;
  });
  const drawCounted = () => {
    for (const item of ingredientItems) {
      if (state.counted.has(item.key)) done(item.have, state.counted.get(item.key));
    }
  };
  const countIngredient = (key, words) => { state.counted.set(key, words); drawCounted(); };
  // Counted already, as the points say on opening: the button says so and does nothing.
  if (loggedIn) {
    get(`/v1/me/owned-ingredients/${encodeURIComponent(recipe.id)}`).then((answer) => {
      for (const key of answer.result.ingredients) if (!state.counted.has(key)) state.counted.set(key, "Already counted");
      drawCounted();
    }).catch(() => { /* "I have this" still answers already_used */ });
  }
  const addToGroceries = async (onlyPicked) => {
    const chosen = ingredientItems.filter((item) => !onlyPicked || item.pick.checked);
    if (!chosen.length) { announce("Choose an ingredient first."); return; }
    try {
      for (const { ingredient } of chosen) {
        const body = { ingredient: ingredient.name, recipeId: recipe.id };
        if (ingredient.amount !== undefined) { body.amount = ingredient.amount; if (ingredient.unit) body.unit = ingredient.unit; }
        await post("/v1/me/groceries", body);
      }
      announce(`${chosen.length} added to the grocery list`);
    } catch (error) { announce(error.message); }
  };

  const count = h("output", { "aria-live": "polite", id: "cart-count" });
  const drawCart = () => { count.textContent = state.cartCount === null ? "…" : String(state.cartCount); };
  drawCart();
  const cartCountIn = (cart) => cart?.lines.find((l) => l.recipeId === recipe.id)?.count ?? 0;
  const showCart = async (after) => {
    const cart = (await get(`/v1/me/cart${after ? `?after=${after}` : ""}`)).result;
    remember("cart", cart);
    state.cartCount = cartCountIn(cart);
    drawCart();
  };
  // "Start cooking": its own act, apart from the cart. A point counts while the recipe cooks (and an
  // hour after the timer rings); the timer runs for the recipe's minutes (30 when it does not say).
  const clock = h("span", { class: "meta", role: "timer", id: "cooking-timer" });
  const drawTimer = () => {
    clearInterval(ticking);
    const timer = state.timer;
    cook.textContent = timer ? "Restart timer" : "Start cooking";
    if (!timer) { clock.textContent = ""; return; }
    const tick = () => {
      if (!document.body.contains(clock)) { clearInterval(ticking); return; }
      clock.textContent = `Cooking: ${left(Math.ceil((timer.endsAt - Date.now()) / 1000))}`;
    };
    tick();
    ticking = setInterval(tick, 1000);
  };
  const showCooking = async (after) => {
    const timers = (await get(`/v1/me/cooking${after ? `?after=${after}` : ""}`)).result;
    state.timer = timers.find((t) => t.recipeId === recipe.id) ?? null;
    drawTimer();
  };
  const cook = h("button", { type: "button", id: "start-cooking", disabled: !loggedIn, onclick: async () => {
    try {
      const answer = await post(`/v1/me/cooking/${encodeURIComponent(recipe.id)}`, { minutes: Math.min(1440, Math.max(1, recipe.readyInMinutes || 30)) });
      announce("Cooking: now \u201cI have this\u201d earns points");
      await showCooking(answer.position);
    } catch (error) { announce(error.message); }
  } }, "Start cooking");
  const usePoint = (ingredient) => post("/v1/me/owned-ingredients", { recipeId: recipe.id, ingredient: ingredient.name });
  const step = (delta) => async () => {
    try {
      await showCart((await post("/v1/me/cart", { recipeId: recipe.id, delta })).position);
      announce(`In the cart: ${state.cartCount}`);
    } catch (error) { announce(error.message); }
  };
  // Offline (the recipe from the service worker's copy): what was last known, and no buttons that would fail.
  const offlineNote = h("p", { class: "offline", id: "offline-notice", role: "status" });
  const drawOffline = () => {
    if (state.offlineSince === null) return;
    offlineNote.textContent = `${offlineNotice(state.offlineSince, "saved and in the cart")} Changes wait until Pantry is back.`;
    for (const button of article.querySelectorAll("button")) button.disabled = true;
  };
  const wentOffline = (error) => {
    if (!isOffline(error) || state.offlineSince !== null) return;
    state.offlineSince = Math.min(recall("cart")?.at ?? Date.now(), recall("favourites")?.at ?? Date.now());
    drawOffline();
  };
  if (loggedIn) {
    showCooking().catch(() => { /* the button still starts it */ });
    showCart().catch((error) => {
      if (isOffline(error)) { state.cartCount = cartCountIn(recall("cart")?.value); drawCart(); }
      wentOffline(error);
    });
  }

  const experiences = h("ul", { class: "list", "aria-label": "Tips from cooks" });
  const tipItem = (e) => h("li", {}, h("span", { class: "grow tip-text" }, h("strong", {}, e.username), ": ", e.text));
  // Every tip is reachable: a page that says `next` ends with a button for the next one.
  const moreTips = (next) => {
    if (!next) return;
    const item = h("li", {}, h("button", { type: "button", onclick: async () => {
      try {
        const answer = await get(`${recipePath(recipe.id)}/experiences?cursor=${encodeURIComponent(next)}`);
        item.replaceWith(...answer.result.map(tipItem));
        moreTips(answer.next);
      } catch (error) { announce(error.message); }
    } }, "More tips"));
    experiences.append(item);
  };
  const loadExperiences = async (after) => {
    try {
      const answer = await get(`${recipePath(recipe.id)}/experiences${after ? `?after=${after}` : ""}`);
      experiences.replaceChildren(...(answer.result.length ? answer.result.map(tipItem) : [h("li", {}, "No tips yet.")]));
      moreTips(answer.next);
    } catch (error) { experiences.replaceChildren(h("li", {}, error.message)); }
  };
  loadExperiences();
  const tip = h("textarea", { name: "text", required: true, maxlength: 2000 });
  // Said beside the form, not in the toast at the bottom, which covered the tip just posted.
  const thanks = h("p", { class: "meta", role: "status" });
  const tipForm = h("form", { "aria-label": "Write a tip", onsubmit: async (event) => {
    event.preventDefault();
    try {
      const answer = await post(`${recipePath(recipe.id)}/experiences`, { text: tip.value });
      tip.value = "";
      thanks.textContent = "Thanks for the tip";
      loadExperiences(answer.position);
    } catch (error) { thanks.textContent = ""; announce(error.message); }
  } }, h("label", {}, "Your tip", tip), h("button", { type: "submit" }, "Post tip"), thanks);

  // Saved or not, as the favourites say on opening; the one button saves and removes.
  const savedState = h("span", { id: "saved-state", class: "meta" });
  const favouritePath = `/v1/me/favourites/${encodeURIComponent(recipe.id)}`;
  const showSaved = (saved) => {
    state.saved = saved;
    save.textContent = saved ? "Remove from favourites" : "Save to favourites";
    savedState.textContent = saved ? "Saved" : "";
  };
  const save = h("button", { type: "button", disabled: !loggedIn, onclick: async () => {
    const saved = state.saved;
    try {
      await (saved ? del(favouritePath) : put(favouritePath));
      showSaved(!saved);
      announce(saved ? "Removed from favourites" : "Saved to favourites");
    } catch (error) {
      if (error.code === "already_saved") { showSaved(true); return; }
      if (error.code === "not_saved" && saved) { showSaved(false); return; }
      announce(error.message);
    }
  } }, "Save to favourites");
  if (loggedIn) {
    get(`/v1/me/favourites?q=${encodeURIComponent(recipe.title.slice(0, 256))}`)
      .then((answer) => showSaved(answer.result.some((f) => f.recipeId === recipe.id)))
      .catch((error) => {
        if (isOffline(error)) showSaved((recall("favourites")?.value ?? []).some((f) => f.recipeId === recipe.id));
        wentOffline(error);
      });
  }

  const article = h("article", { class: "detail" },
      h("h1", {}, recipe.title), offlineNote,
      h("div", { class: "columns" },
        h("div", {},
          // A photograph only: the picture the API draws (/v1/recipes/ID/image) shows the ingredients listed beside it.
          recipe.image && !recipe.image.startsWith("/v1/recipes/") ? h("img", { class: "hero", src: imageSource(recipe.image), alt: recipe.title, width: 480, height: 360 }) : null,
          h("p", { class: "meta" }, facts.join(" · ")), credit,
          loggedIn ? null : h("p", {}, h("a", { href: "#/account" }, "Log in"), " to save it, cook it for points and fill your cart."),
          h("div", { class: "row" }, cook, clock),
          h("div", { class: "row" }, save, savedState,
            h("span", { class: "stepper", role: "group", "aria-label": "In the cart" },
              h("button", { type: "button", class: "secondary", disabled: !loggedIn, "aria-label": "One fewer in the cart", onclick: step(-1) }, "−"),
              count,
              h("button", { type: "button", class: "secondary", disabled: !loggedIn, "aria-label": "One more in the cart", onclick: step(1) }, "+"))),
          points),
        h("div", {},
          h("h2", {}, "Ingredients"),
          h("ul", { class: "list ingredients", "aria-label": "Ingredients" }, ingredientItems),
          h("div", { class: "row" },
            h("button", { type: "button", class: "secondary", disabled: !loggedIn, onclick: () => addToGroceries(true) }, "Add chosen to groceries"),
            h("button", { type: "button", class: "secondary", disabled: !loggedIn, onclick: () => addToGroceries(false) }, "Add all to groceries")))),
      h("h2", {}, "Steps"),
      h("ol", {}, recipe.instructions.map((text) => h("li", {}, text))),
      h("h2", {}, "Tips"),
      experiences,
      loggedIn ? tipForm : null);
  return [article];
}
