// The web app's point key against the cases the server's rule is tested with (PantryDomainTests).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { pointKey } from "../../Sources/PantryWeb/Web/app/ingredients.js";

const { cases } = JSON.parse(readFileSync(new URL("../Fixtures/ingredient-keys.json", import.meta.url), "utf8"));

test("the case file is not empty", () => {
  assert.ok(cases.length >= 10);
});

for (const { name, key } of cases) {
  test(`pointKey(${JSON.stringify(name)}) is ${JSON.stringify(key)}, as the server's rule says`, () => {
    assert.equal(pointKey(name), key);
  });
}
