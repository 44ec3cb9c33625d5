// Building the page from data without ever parsing it as HTML: every text is a text node.

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

/** A short message read out by screen readers and shown at the bottom. */
export function announce(message) {
  clearTimeout(statusTimer);
  status().textContent = message;
  statusTimer = setTimeout(() => { status().textContent = ""; }, 4000);
}

/** A picture URL the page can load: our own paths as they are, others through the API's cache. */
export function imageSource(url) {
  if (!url) return null;
  return url.startsWith("/") ? url : `/v1/images?url=${encodeURIComponent(url)}`;
}

export function minutes(value) {
  if (!value) return null;
  return value < 60 ? `${value} min` : `${Math.floor(value / 60)} h${value % 60 ? ` ${value % 60} min` : ""}`;
}

export function amount(entry) {
  const number = Number.isInteger(entry.amount) ? entry.amount : Math.round(entry.amount * 100) / 100;
  return entry.unit ? `${number} ${entry.unit}` : String(number);
}

/** A result card: picture, title, time and servings, and what the search found. */
export function recipeCard(summary, extra = []) {
  const facts = [minutes(summary.readyInMinutes), summary.servings ? `${summary.servings} servings` : null];
  if (summary.usedIngredientCount !== undefined) {
    facts.push(`uses ${summary.usedIngredientCount} of yours`);
    if (summary.missedIngredientCount !== undefined) facts.push(`${summary.missedIngredientCount} missing`);
  }
  return h("li", { class: "card" },
    h("a", { href: `#/recipe/${encodeURIComponent(summary.id)}` },
      summary.image ? h("img", { src: imageSource(summary.image), alt: "", loading: "lazy", width: 480, height: 360 }) : null,
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

function retryIn(answer) {
  const seconds = answer.upstreamRetryAfterSeconds;
  if (!seconds) return null;
  return seconds < 120 ? ` Try again in ${seconds} s.` : ` Try again in ${Math.ceil(seconds / 3600)} h.`;
}

/** The message a failed call deserves on screen. */
export function problem(error) {
  return h("p", { class: "error", role: "alert" }, error.message);
}

export function needsLogin(what) {
  return h("p", {}, `Log in to see ${what}. `, h("a", { href: "#/account" }, "Log in or register"));
}
