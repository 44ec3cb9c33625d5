"""The grocery list's sums, over real HTTP against the real core, groceries worker and API, checked
against pint (a units library used here only as the oracle): random adds and checks in every
spelling of a unit sum as pint sums them. The shopping trip (aisle order, singular and plural,
bought stays bought) is checked in process (Tests/PantryRouteTests/GroceryListRouteTests.swift)."""
import random

import pint
import pytest


@pytest.fixture(scope="module")
def api(shared_api):
    """One deployment for the file: each test has users of its own and stops nothing."""
    return shared_api


UNITS = pint.UnitRegistry()
SPELLINGS = ["g", "grams", "kg", "oz", "lb", "ml", "l", "tsp", "tablespoons", "tbsp", "cup", "cups", None]


def accepted(answer, status=201):
    assert answer.status == status, answer
    return answer.json["position"]


def groceries(api, token, position):
    answer = api.get(f"/v1/me/groceries?after={position}", token=token)
    assert answer.status == 200, answer
    return {item["item"]: item for item in answer.json["result"]}


def in_base(amounts):
    """Sums amounts per quantity in grams, millilitres or a plain count, as pint reads them."""
    totals = {}
    for entry in amounts:
        if entry.get("unit") is None:
            totals["count"] = totals.get("count", 0) + entry["amount"]
            continue
        quantity = UNITS.Quantity(entry["amount"], entry["unit"])
        base = "gram" if quantity.check("[mass]") else "milliliter"
        totals[base] = totals.get(base, 0) + quantity.to(base).magnitude
    return totals


def test_random_adds_and_checks_sum_as_pint_does(api):
    _, token = api.register_and_log_in("oracle")
    rng = random.Random(20261125)
    names = {"sugar": ["sugar", "Sugar", "SUGARS"], "cherry tomato": ["cherry tomatoes", "Cherry Tomato"],
             "stock": ["stock", "Stocks"]}
    expected = {key: {"checked": False, "to_buy": {}, "bought": {}} for key in names}
    seen = set()
    position = 0
    for _ in range(60):
        key = rng.choice(list(names))
        item = expected[key]
        if key in seen and rng.random() < 0.25:
            position = accepted(api.patch(f"/v1/me/groceries/{rng.choice(names[key])}",
                                          {"checked": not item["checked"]}, token=token), 200)
            source, target = ("to_buy", "bought") if not item["checked"] else ("bought", "to_buy")
            for base, amount in item[source].items():
                item[target][base] = item[target].get(base, 0) + amount
            item[source] = {}
            item["checked"] = not item["checked"]
            continue
        amount = rng.choice([0.25, 0.5, 1, 2, 3, 125, 500])
        unit = rng.choice(SPELLINGS)
        body = {"ingredient": rng.choice(names[key]), "amount": amount}
        if unit:
            body["unit"] = unit
        position = accepted(api.post("/v1/me/groceries", body, token=token))
        seen.add(key)
        for base, value in in_base([{"amount": amount, "unit": unit}]).items():
            item["to_buy"][base] = item["to_buy"].get(base, 0) + value
        item["checked"] = False

    items = groceries(api, token, position)
    assert set(items) == seen
    for key in seen:
        for field, want in (("amounts", expected[key]["to_buy"]), ("bought", expected[key]["bought"])):
            got = in_base(items[key][field])
            assert set(got) == set(want), (key, field, items[key][field], want)
            for base, value in want.items():
                # Amounts are shown to three decimals of the unit shown (at worst a kilogram or a cup).
                assert got[base] == pytest.approx(value, rel=1e-6, abs=0.5), (key, field, base, items[key][field], want)
        assert items[key]["checked"] is expected[key]["checked"]
