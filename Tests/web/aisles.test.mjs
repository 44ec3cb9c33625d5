// The grocery list's aisles (Sources/PantryWeb/Web/app/aisles.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { byAisle } from "../../Sources/PantryWeb/Web/app/aisles.js";

const item = (name, aisle, checked = false) => ({ item: name, aisle, checked });

test("items keep the list's order within their aisle and the aisles the order they first appear in", () => {
  const aisles = byAisle([item("egg", "Dairy"), item("apple", "Produce"), item("milk", "Dairy"), item("pear", "Produce")]);
  assert.deepEqual(aisles.map((a) => [a.name, a.items.map((i) => i.item)]),
    [["Dairy", ["egg", "milk"]], ["Produce", ["apple", "pear"]]]);
});

test("ticked items leave their aisle for the basket, and an aisle with none left is not shown", () => {
  const aisles = byAisle([item("egg", "Dairy", true), item("apple", "Produce"), item("milk", "Dairy", true)]);
  assert.deepEqual(aisles.map((a) => [a.name, a.items.map((i) => i.item)]),
    [["In the basket", ["egg", "milk"]], ["Produce", ["apple"]]]);
});

test("an empty list has no aisles", () => {
  assert.deepEqual(byAisle([]), []);
});
