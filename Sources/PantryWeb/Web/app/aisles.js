// @ts-check
// The grocery list in the order a shop is walked: pure, so `node --test Tests/web` runs it.

/** The list's items grouped by aisle, each aisle where its first item stands in the list (the
 *  server gives it in aisle order), the ticked items together under "In the basket".
 *  @template {{ checked: boolean, aisle: string }} Item
 *  @param {Item[]} items
 *  @returns {{ name: string, items: Item[] }[]} */
export function byAisle(items) {
  /** @type {{ name: string, items: Item[] }[]} */
  const aisles = [];
  for (const item of items) {
    const group = item.checked ? "In the basket" : item.aisle;
    let aisle = aisles.find((a) => a.name === group);
    if (!aisle) aisles.push(aisle = { name: group, items: [] });
    aisle.items.push(item);
  }
  return aisles;
}
