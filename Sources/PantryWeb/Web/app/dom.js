// Building the page from data without ever parsing it as HTML: every text is a text node.
import { count, drawnImage, imageSource, minutes, retryIn } from "./format.js";

// The screens take the text helpers from here with the elements they go in.
export { amount, count, drawnImage, imageSource, minutes, recipeSource, webLink } from "./format.js";

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "value") element.value = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

const status = () => document.getElementById("status");
let statusTimer;

/** A short message read out by screen readers and shown at the bottom (it takes no taps). */
export function announce(message) {
  clearTimeout(statusTimer);
  status().textContent = message;
  statusTimer = setTimeout(() => { status().textContent = ""; }, 4000);
}

/** A result card: picture, title, time and servings, and what the search found. */
export function recipeCard(summary, extra = []) {
  const facts = [minutes(summary.readyInMinutes), summary.servings ? count(summary.servings, "serving") : null, summary.from];
  if (summary.usedIngredientCount !== undefined) {
    facts.push(`uses ${summary.usedIngredientCount} of yours`);
    if (summary.missedIngredientCount !== undefined) facts.push(`${summary.missedIngredientCount} missing`);
  }
  return h("li", { class: "card" },
    h("a", { href: `#/recipe/${encodeURIComponent(summary.id)}` },
      h("img", { src: imageSource(summary.image ?? drawnImage(summary.id)), alt: "", loading: "lazy", width: 480, height: 360 }),
      h("div", { class: "body" },
        h("h3", {}, summary.title),
        h("p", { class: "meta" }, facts.filter(Boolean).join(" · ")))),
    extra);
}

/** Cards for `summaries`, under a note when `answer` is not the live service's (see `originNote`). */
export function cards(summaries, label, answer = {}) {
  if (!summaries.length) {
    // An empty fallback is the offline catalog's "none", not the recipe service's.
    return answer.origin === "fallback"
      ? h("p", { class: "notice", role: "status" }, "The recipe service could not be asked and the offline catalog has nothing for this.",
        retryIn(answer))
      : h("p", {}, "Nothing found.");
  }
  const list = h("ul", { class: "cards", "aria-label": label }, summaries.map((summary) => recipeCard(summary)));
  const note = originNote(answer);
  if (!note) return list;
  // One node, whoever places it (replaceChildren would print an array as text).
  const both = document.createDocumentFragment();
  both.append(note, list);
  return both;
}

/** A line saying where an answer came from when not live from the recipe service, else null. */
export function originNote(answer = {}) {
  if (answer.origin === "fallback") {
    return h("p", { class: "notice", role: "status" }, "The recipe service could not be asked: these come from the offline catalog.", retryIn(answer));
  }
  if (answer.origin === "staleCache") {
    return h("p", { class: "notice", role: "status" }, "The recipe service could not be asked: these were saved earlier.", retryIn(answer));
  }
  return null;
}

/** The message a failed call deserves on screen. */
export function problem(error) {
  return h("p", { class: "error", role: "alert" }, error.message);
}

export function needsLogin(what) {
  return h("p", {}, `Log in to see ${what}. `, h("a", { href: "#/account" }, "Log in or register"));
}
