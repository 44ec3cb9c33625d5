// A recipe: ingredients ("I have this" earns a point while it cooks), steps, servings, minutes and the credit;
// save it, put its ingredients on the grocery list, set how many are in the cart, read and write tips.
import { ApiError, get, post, put, recipePath, session } from "../api.js";
import { announce, h, imageSource, minutes, problem } from "../dom.js";

export async function recipeScreen(id) {
  let recipe;
  try {
    recipe = (await get(recipePath(id))).payload.recipe;
  } catch (error) {
    return [h("h1", {}, "Recipe"), problem(error)];
  }
  const loggedIn = Boolean(session.current);
  const facts = [minutes(recipe.readyInMinutes), recipe.servings ? `${recipe.servings} servings` : null].filter(Boolean);
  const credit = h("p", { class: "meta" }, "Source: ",
    recipe.sourceUrl ? h("a", { href: recipe.sourceUrl, rel: "noopener" }, recipe.sourceName) : recipe.sourceName,
    recipe.license ? [" · ", recipe.licenseUrl ? h("a", { href: recipe.licenseUrl, rel: "license noopener" }, recipe.license) : recipe.license] : null);

  const points = h("p", { id: "points", "aria-live": "polite" });
  const showRank = async (position) => {
    try {
      const me = await get(`/v1/me?after=${position}`);
      points.textContent = me.rank ? `You have ${me.points} points: rank ${me.rank}.` : "";
    } catch { /* the rank is a bonus on this screen */ }
  };

  // A point counts while the recipe cooks: the first "I have this" puts it in the cart when it is
  // not there and starts its timer for the recipe's minutes (30 when it does not say).
  const count = h("output", { "aria-live": "polite", id: "cart-count" }, "0");
  const startCooking = async () => {
    if (Number(count.textContent) === 0) {
      await post("/v1/me/cart", { recipeId: recipe.id, delta: 1 });
      count.textContent = "1";
    }
    await post(`/v1/me/cart/${encodeURIComponent(recipe.id)}/timer`, { minutes: Math.min(1440, Math.max(1, recipe.readyInMinutes || 30)) });
    announce("Cooking started: the timer is in your cart");
  };
  const usePoint = (ingredient) => post("/v1/me/owned-ingredients", { recipeId: recipe.id, ingredient: ingredient.name });

  const ingredientItems = recipe.ingredients.map((ingredient) => {
    const pick = h("input", { type: "checkbox", "aria-label": `Choose ${ingredient.name} for the grocery list` });
    const have = h("button", { type: "button", class: "secondary", disabled: !loggedIn, onclick: async () => {
      try {
        let answer;
        try {
          answer = await usePoint(ingredient);
        } catch (error) {
          if (!(error instanceof ApiError && error.code === "not_cooking")) throw error;
          await startCooking();
          answer = await usePoint(ingredient);
        }
        have.textContent = "Point earned";
        have.disabled = true;
        announce(`A point for ${ingredient.name}`);
        showRank(answer.position);
      } catch (error) {
        if (error instanceof ApiError && error.code === "already_used") { have.textContent = "Already counted"; have.disabled = true; return; }
        announce(error.message);
      }
    } }, "I have this");
    const item = h("li", {}, pick, h("span", { class: "grow" }, ingredient.original || ingredient.name), have);
    item.ingredient = ingredient;
    item.pick = pick;
    return item;
  });
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

  const step = (delta) => async () => {
    try {
      await post("/v1/me/cart", { recipeId: recipe.id, delta });
      count.textContent = String(Number(count.textContent) + delta);
      announce(`In the cart: ${count.textContent}`);
    } catch (error) { announce(error.message); }
  };
  if (loggedIn) {
    get("/v1/me/cart").then((cart) => {
      const line = cart.result.lines.find((l) => l.recipeId === recipe.id);
      count.textContent = String(line ? line.count : 0);
    }).catch(() => {});
  }

  const experiences = h("ul", { class: "list", "aria-label": "Tips from cooks" });
  const loadExperiences = async (after) => {
    try {
      const answer = await get(`${recipePath(recipe.id)}/experiences${after ? `?after=${after}` : ""}`);
      experiences.replaceChildren(...(answer.result.length ? answer.result.map((e) =>
        h("li", {}, h("span", { class: "grow" }, h("strong", {}, e.username), ": ", e.text))) : [h("li", {}, "No tips yet.")]));
    } catch (error) { experiences.replaceChildren(h("li", {}, error.message)); }
  };
  loadExperiences();
  const tip = h("textarea", { name: "text", required: true, maxlength: 2000 });
  const tipForm = h("form", { "aria-label": "Write a tip", onsubmit: async (event) => {
    event.preventDefault();
    try {
      const answer = await post(`${recipePath(recipe.id)}/experiences`, { text: tip.value });
      tip.value = "";
      announce("Thanks for the tip");
      loadExperiences(answer.position);
    } catch (error) { announce(error.message); }
  } }, h("label", {}, "Your tip", tip), h("button", { type: "submit" }, "Post tip"));

  const save = h("button", { type: "button", disabled: !loggedIn, onclick: async () => {
    try {
      await put(`/v1/me/favourites/${encodeURIComponent(recipe.id)}`);
      save.textContent = "Saved"; save.disabled = true; announce("Saved to favourites");
    } catch (error) {
      if (error.code === "already_saved") { save.textContent = "Saved"; save.disabled = true; return; }
      announce(error.message);
    }
  } }, "Save to favourites");

  return [
    h("article", { class: "detail" },
      h("h1", {}, recipe.title),
      h("div", { class: "columns" },
        h("div", {},
          recipe.image ? h("img", { class: "hero", src: imageSource(recipe.image), alt: recipe.title, width: 480, height: 360 }) : null,
          h("p", { class: "meta" }, facts.join(" · ")), credit,
          loggedIn ? null : h("p", {}, h("a", { href: "#/account" }, "Log in"), " to save it, earn points and fill your cart."),
          h("div", { class: "row" }, save,
            h("span", { class: "stepper", role: "group", "aria-label": "In the cart" },
              h("button", { type: "button", class: "secondary", disabled: !loggedIn, "aria-label": "One fewer in the cart", onclick: step(-1) }, "−"),
              count,
              h("button", { type: "button", class: "secondary", disabled: !loggedIn, "aria-label": "One more in the cart", onclick: step(1) }, "+"))),
          points),
        h("div", {},
          h("h2", {}, "Ingredients"),
          h("ul", { class: "list", "aria-label": "Ingredients" }, ingredientItems),
          h("div", { class: "row" },
            h("button", { type: "button", class: "secondary", disabled: !loggedIn, onclick: () => addToGroceries(true) }, "Add chosen to groceries"),
            h("button", { type: "button", class: "secondary", disabled: !loggedIn, onclick: () => addToGroceries(false) }, "Add all to groceries")))),
      h("h2", {}, "Steps"),
      h("ol", {}, recipe.instructions.map((text) => h("li", {}, text))),
      h("h2", {}, "Tips"),
      experiences,
      loggedIn ? tipForm : null),
  ];
}
