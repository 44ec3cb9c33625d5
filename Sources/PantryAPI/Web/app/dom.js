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

/** A short message read out by screen readers and shown at the bottom (it takes no taps). */
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

/** The picture the API draws for any recipe, where the recipe has none of its own. */
export function drawnImage(id) {
  return `/v1/recipes/${encodeURIComponent(id)}/image`;
}

export function minutes(value) {
  if (!value) return null;
  return value < 60 ? `${value} min` : `${Math.floor(value / 60)} h${value % 60 ? ` ${value % 60} min` : ""}`;
}

/** "1 point", "2 points"; `many` when the plural is not the word and an s. */
export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

const fractions = [[0, ""], [1 / 8, "⅛"], [1 / 4, "¼"], [1 / 3, "⅓"], [3 / 8, "⅜"], [1 / 2, "½"], [5 / 8, "⅝"], [2 / 3, "⅔"], [3 / 4, "¾"], [7 / 8, "⅞"]];

/** 1.125 as "1⅛", when it is within 0.5% of a fraction a cook measures; else null. */
function vulgar(value) {
  const whole = Math.floor(value);
  for (const [fraction, glyph] of [...fractions, [1, ""]]) {
    if (Math.abs(value - whole - fraction) <= 0.005 * value) {
      const units = fraction === 1 ? whole + 1 : whole;
      return units === 0 ? glyph : `${units}${glyph}`;
    }
  }
  return null;
}

// The grocery list sums amounts of different units in millilitres or grams; a sum that is not a
// whole number came from a cook's measures, and reads in them ("266.16 ml" was 1 cup + 2 tbsp: "1⅛ cups").
const kitchenMeasures = {
  ml: [[236.5882365, "cup", "cups"], [14.78676478125, "tbsp", "tbsp"], [4.92892159375, "tsp", "tsp"]],
  g: [[453.59237, "lb", "lb"], [28.349523125, "oz", "oz"]],
};
const countUnit = (unit, n) => n <= 1 || /^(g|kg|mg|ml|l|cl|dl|tsp|tbsp|oz|lb|fl oz)$/.test(unit) ? unit
  : unit.endsWith("f") ? `${unit.slice(0, -1)}ves` : /(ch|sh|s|x)$/.test(unit) ? `${unit}es` : `${unit}s`;

/** An amount as a cook writes it: "1⅛ cups", "3 cloves", "½ tsp", never "266.16 ml". */
export function amount(entry) {
  const value = entry.amount;
  if (!Number.isInteger(value)) {
    for (const [size, one, many] of kitchenMeasures[entry.unit] ?? []) {
      const inMeasure = value / size >= 0.12 ? vulgar(value / size) : null;
      if (inMeasure) return `${inMeasure} ${value / size > 1 ? many : one}`;
    }
  }
  const number = entry.unit === "ml" || entry.unit === "g" ? String(Math.round(value))
    : vulgar(value) ?? String(Math.round(value * 100) / 100);
  return entry.unit ? `${number} ${countUnit(entry.unit, value)}` : number;
}

/** A result card: picture, title, time and servings, and what the search found. */
/** Where a recipe comes from, by its id's provider ("mealdb:52772"): two recipes of one title tell apart. */
export function recipeSource(id) {
  return { catalog: "Wikibooks Cookbook", mealdb: "TheMealDB", spoonacular: "Spoonacular" }[String(id).split(":")[0]] ?? null;
}

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
