// What the screens print, tested without a page (Sources/PantryWeb/Web/app/format.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { amount, count, drawnImage, imageSource, minutes, recipeSource, retryIn, webLink } from "../../Sources/PantryWeb/Web/app/format.js";

test("minutes read as a cook says them, none as nothing", () => {
  assert.equal(minutes(45), "45 min");
  assert.equal(minutes(60), "1 h");
  assert.equal(minutes(90), "1 h 30 min");
  assert.equal(minutes(0), null);
  assert.equal(minutes(undefined), null);
});

test("a count takes the plural past one, or the plural it is given", () => {
  assert.equal(count(1, "point"), "1 point");
  assert.equal(count(0, "point"), "0 points");
  assert.equal(count(2, "serving"), "2 servings");
  assert.equal(count(3, "loaf", "loaves"), "3 loaves");
});

test("a summed amount reads in the kitchen's measures and fractions", () => {
  assert.equal(amount({ amount: 266.16, unit: "ml" }), "1⅛ cups", "1 cup + 2 tbsp");
  assert.equal(amount({ amount: 2.46446, unit: "ml" }), "½ tsp");
  assert.equal(amount({ amount: 250, unit: "ml" }), "250 ml", "a whole number stays as it was written");
  assert.equal(amount({ amount: 113.4, unit: "g" }), "¼ lb");
  assert.equal(amount({ amount: 3, unit: "clove" }), "3 cloves");
  assert.equal(amount({ amount: 2, unit: "loaf" }), "2 loaves");
  assert.equal(amount({ amount: 2, unit: "pinch" }), "2 pinches");
  assert.equal(amount({ amount: 1.5, unit: null }), "1½");
  assert.equal(amount({ amount: 0.3333, unit: "cup" }), "⅓ cup");
  assert.equal(amount({ amount: 1.43, unit: "" }), "1.43");
});

test("our own pictures are loaded as they are, others through the API's cache", () => {
  assert.equal(imageSource("/v1/recipes/x/image"), "/v1/recipes/x/image");
  assert.equal(imageSource("https://example.org/a b.jpg"), "/v1/images?url=https%3A%2F%2Fexample.org%2Fa%20b.jpg");
  assert.equal(imageSource(""), null);
  assert.equal(imageSource(null), null);
  assert.equal(drawnImage("mealdb:52772"), "/v1/recipes/mealdb%3A52772/image");
});

test("a source or licence is a link only when it is an absolute http(s) URL", () => {
  assert.equal(webLink("https://en.wikibooks.org/wiki/Cookbook:Shakshouka"), true);
  assert.equal(webLink("HTTP://example.org/a"), true);
  for (const url of ["javascript:alert(1)", "JavaScript://example.org/%0Aalert(1)", "data:text/html,<b>x</b>", "//example.org/a",
                     "/v1/recipes/x", "https:///x", "https:// x", " https://example.org", "Pantry catalog", "", null, undefined, 7]) {
    assert.equal(webLink(url), false, String(url));
  }
});

test("a recipe's source is named by its id's provider, and no other word is taken for one", () => {
  assert.equal(recipeSource("mealdb:52772"), "TheMealDB");
  assert.equal(recipeSource("catalog:pancakes"), "Wikibooks Cookbook");
  assert.equal(recipeSource("spoonacular:1"), "Spoonacular");
  assert.equal(recipeSource("elsewhere:1"), null);
  assert.equal(recipeSource("constructor:1"), null);
  assert.equal(recipeSource("__proto__:1"), null);
});

test("the retry hint is in seconds under two minutes, else in hours, and absent without a time", () => {
  assert.equal(retryIn({ upstreamRetryAfterSeconds: 30 }), " Try again in 30 s.");
  assert.equal(retryIn({ upstreamRetryAfterSeconds: 7200 }), " Try again in 2 h.");
  assert.equal(retryIn({ upstreamRetryAfterSeconds: 3601 }), " Try again in 2 h.");
  assert.equal(retryIn({}), null);
});
