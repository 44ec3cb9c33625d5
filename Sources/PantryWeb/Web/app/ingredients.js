// @ts-check
// The rules the app shares with the server, written once there and checked against the same cases
// here (Tests/Fixtures/ingredient-keys.json, read by PantryDomainTests and Tests/web).

/** A word made singular as the server makes it (`IngredientName.singular`): a simple English
 *  plural removed from a word of more than three characters.
 *  @param {string} word
 *  @returns {string} */
function singular(word) {
  if ([...word].length <= 3) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (["oes", "ches", "shes", "sses"].some((end) => word.endsWith(end))) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

/** The name the points rule gives an ingredient (`IngredientName.words` joined, in PantryDomain):
 *  lowercase words of letters and digits, each made singular, so "Cherry Tomatoes" is
 *  "cherry tomato". The API lists a recipe's counted ingredients by this name.
 *  @param {string} name
 *  @returns {string} */
export function pointKey(name) {
  return name.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).map(singular).join(" ");
}
