// @ts-check
// What the screens print, as text: no page, no network, so `node --test Tests/web` runs them.

/** A picture URL the page can load: our own paths as they are, others through the API's cache.
 *  @param {string | null | undefined} url
 *  @returns {string | null} */
export function imageSource(url) {
  if (!url) return null;
  return url.startsWith("/") ? url : `/v1/images?url=${encodeURIComponent(url)}`;
}

/** Whether `url` may be a link on a page: an absolute http(s) URL, never `javascript:` or `data:`.
 *  @param {unknown} url
 *  @returns {url is string} */
export function webLink(url) {
  return typeof url === "string" && /^https?:\/\/[^/\s]/i.test(url);
}

/** The picture the API draws for any recipe, where the recipe has none of its own.
 *  @param {string} id */
export function drawnImage(id) {
  return `/v1/recipes/${encodeURIComponent(id)}/image`;
}

/** "45 min", "1 h 30 min"; null for none.
 *  @param {number | null | undefined} value
 *  @returns {string | null} */
export function minutes(value) {
  if (!value) return null;
  return value < 60 ? `${value} min` : `${Math.floor(value / 60)} h${value % 60 ? ` ${value % 60} min` : ""}`;
}

/** "1 point", "2 points"; `many` when the plural is not the word and an s.
 *  @param {number} n
 *  @param {string} one */
export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** @type {[number, string][]} */
const fractions = [[0, ""], [1 / 8, "⅛"], [1 / 4, "¼"], [1 / 3, "⅓"], [3 / 8, "⅜"], [1 / 2, "½"], [5 / 8, "⅝"], [2 / 3, "⅔"], [3 / 4, "¾"], [7 / 8, "⅞"]];

/** 1.125 as "1⅛", when it is within 0.5% of a fraction a cook measures; else null.
 *  @param {number} value
 *  @returns {string | null} */
function vulgar(value) {
  const whole = Math.floor(value);
  for (const [fraction, glyph] of [...fractions, /** @type {[number, string]} */ ([1, ""])]) {
    if (Math.abs(value - whole - fraction) <= 0.005 * value) {
      const units = fraction === 1 ? whole + 1 : whole;
      return units === 0 ? glyph : `${units}${glyph}`;
    }
  }
  return null;
}

// The grocery list sums amounts of different units in millilitres or grams; a sum that is not a
// whole number came from a cook's measures, and reads in them ("266.16 ml" was 1 cup + 2 tbsp: "1⅛ cups").
/** @type {Record<string, [number, string, string][]>} */
const kitchenMeasures = {
  ml: [[236.5882365, "cup", "cups"], [14.78676478125, "tbsp", "tbsp"], [4.92892159375, "tsp", "tsp"]],
  g: [[453.59237, "lb", "lb"], [28.349523125, "oz", "oz"]],
};
/** @param {string} unit @param {number} n */
const countUnit = (unit, n) => n <= 1 || /^(g|kg|mg|ml|l|cl|dl|tsp|tbsp|oz|lb|fl oz)$/.test(unit) ? unit
  : unit.endsWith("f") ? `${unit.slice(0, -1)}ves` : /(ch|sh|s|x)$/.test(unit) ? `${unit}es` : `${unit}s`;

/** An amount as a cook writes it: "1⅛ cups", "3 cloves", "½ tsp", never "266.16 ml".
 *  @param {{ amount: number, unit?: string | null }} entry */
export function amount(entry) {
  const value = entry.amount;
  if (!Number.isInteger(value)) {
    for (const [size, one, many] of kitchenMeasures[entry.unit ?? ""] ?? []) {
      const inMeasure = value / size >= 0.12 ? vulgar(value / size) : null;
      if (inMeasure) return `${inMeasure} ${value / size > 1 ? many : one}`;
    }
  }
  const number = entry.unit === "ml" || entry.unit === "g" ? String(Math.round(value))
    : vulgar(value) ?? String(Math.round(value * 100) / 100);
  return entry.unit ? `${number} ${countUnit(entry.unit, value)}` : number;
}

/** Where a recipe comes from, by its id's provider ("mealdb:52772"): two recipes of one title tell apart.
 *  @param {string} id
 *  @returns {string | null} */
export function recipeSource(id) {
  return providers.get(String(id).split(":")[0]) ?? null;
}
// A map, not an object: an id such as "constructor:1" names no provider.
const providers = new Map([["catalog", "Wikibooks Cookbook"], ["mealdb", "TheMealDB"], ["spoonacular", "Spoonacular"]]);

/** " Try again in 30 s." after a note on an answer the recipe service did not give; null when it said no time.
 *  @param {{ upstreamRetryAfterSeconds?: number }} answer
 *  @returns {string | null} */
export function retryIn(answer) {
  const seconds = answer.upstreamRetryAfterSeconds;
  if (!seconds) return null;
  return seconds < 120 ? ` Try again in ${seconds} s.` : ` Try again in ${Math.ceil(seconds / 3600)} h.`;
}
