"""Contract tests for the embedded offline recipe catalog.

Run with: python3 -m pytest -q Tests/contract/test_catalog.py
Only the standard library and pytest are used.
"""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOG_PATH = ROOT / "Sources" / "PantryFetch" / "Resources" / "catalog.json"
WEB = ROOT / "Sources" / "PantryWeb" / "Web"
PICTURE = re.compile(r"/app/pictures/[a-z0-9-]+\.svg")

DIETS = {
    "gluten free", "ketogenic", "vegetarian", "lacto ovo vegetarian", "vegan",
    "pescatarian", "paleo", "primal", "whole 30", "dairy free",
}
DISH_TYPES = {
    "breakfast", "main course", "side dish", "dessert", "soup", "salad", "snack",
    "appetizer", "bread", "sauce", "drink",
}
KEYS = {
    "id", "title", "image", "servings", "readyInMinutes", "ingredients", "instructions",
    "sourceName", "sourceUrl", "diets", "dishTypes",
}
INGREDIENT_KEYS = {"name", "amount", "unit", "original"}
UNITS = {
    "g", "kg", "ml", "l", "tbsp", "tsp", "cup", "clove", "pinch", "slice", "can",
    "sprig", "bunch", "handful", "stalk", "sheet", "piece",
}

MEAT = {
    "chicken breast", "chicken thigh", "whole chicken", "chicken wing", "ground beef",
    "beef steak", "beef chuck", "beef bone", "pork shoulder", "pork chop", "pork belly",
    "bacon", "ham", "chorizo", "sausage", "lamb shoulder", "ground lamb", "lamb chop",
    "chicken stock", "beef stock", "pancetta", "prosciutto", "ground pork", "duck breast",
    "turkey breast", "gelatin",
}
FISH = {
    "salmon fillet", "white fish fillet", "cod", "tuna steak", "canned tuna", "shrimp",
    "mussel", "clam", "squid", "anchovy", "fish sauce", "fish stock", "smoked salmon",
    "sardine", "crab meat", "oyster sauce", "worcestershire sauce", "red curry paste",
    "dried shrimp",
}
DAIRY = {
    "milk", "butter", "cheddar cheese", "parmesan", "mozzarella", "feta", "cream",
    "sour cream", "yogurt", "greek yogurt", "cream cheese", "ricotta", "buttermilk", "ghee",
    "condensed milk", "evaporated milk", "mascarpone", "gruyere", "paneer", "halloumi",
    "goat cheese", "pecorino", "queso fresco", "creme fraiche", "blue cheese", "ice cream",
    "dark chocolate", "milk chocolate", "white chocolate", "chocolate chip", "pesto",
    "naan", "puff pastry",
}
EGG = {"egg", "egg yolk", "egg white", "mayonnaise", "egg noodle", "coleslaw"}
HONEY = {"honey"}
GLUTEN = {
    "flour", "bread flour", "wholemeal flour", "bread", "sourdough bread", "baguette",
    "breadcrumb", "panko", "pasta", "spaghetti", "penne", "macaroni", "linguine",
    "fettuccine", "lasagne sheet", "egg noodle", "udon noodle", "ramen noodle",
    "soy sauce", "dark soy sauce", "couscous", "bulgur", "barley", "farro", "semolina",
    "oats", "oat milk", "flour tortilla", "pita bread", "naan", "burger bun", "puff pastry",
    "filo pastry", "spring roll wrapper", "ladyfinger", "digestive biscuit", "beer",
    "miso", "hoisin sauce", "oyster sauce", "worcestershire sauce", "barbecue sauce",
    "malt vinegar", "pizza dough",
}

SLUG = re.compile(r"^catalog:[a-z0-9]+(-[a-z0-9]+)*$")


@pytest.fixture(scope="module")
def catalog():
    with CATALOG_PATH.open(encoding="utf-8") as fh:
        data = json.load(fh)
    assert isinstance(data, list)
    return data


def names(recipe):
    return {ing["name"] for ing in recipe["ingredients"]}


def with_diet(catalog, diet):
    return [r for r in catalog if diet in r["diets"]]


def test_count(catalog):
    assert len(catalog) >= 100


def test_unique_ids_and_titles(catalog):
    ids = Counter(r["id"] for r in catalog)
    titles = Counter(r["title"] for r in catalog)
    assert [k for k, v in ids.items() if v > 1] == []
    assert [k for k, v in titles.items() if v > 1] == []


def test_recipe_shape(catalog):
    for r in catalog:
        assert set(r) == KEYS, r.get("id")
        assert isinstance(r["id"], str) and SLUG.match(r["id"]), r["id"]
        assert isinstance(r["title"], str) and r["title"].strip() == r["title"] and r["title"]
        # None (the API draws one), or a picture the web app ships (its files under app/pictures/).
        assert r["image"] is None or (PICTURE.fullmatch(r["image"]) and (WEB / r["image"].lstrip("/")).is_file()), r["id"]
        assert type(r["servings"]) is int and 1 <= r["servings"] <= 12, r["id"]
        assert type(r["readyInMinutes"]) is int and 5 <= r["readyInMinutes"] <= 240, r["id"]
        assert r["sourceName"] == "Pantry catalog"
        assert r["sourceUrl"] is None
        assert isinstance(r["diets"], list) and len(set(r["diets"])) == len(r["diets"])
        assert isinstance(r["dishTypes"], list) and r["dishTypes"], r["id"]
        assert len(set(r["dishTypes"])) == len(r["dishTypes"])


def test_ingredients_shape(catalog):
    for r in catalog:
        ings = r["ingredients"]
        assert isinstance(ings, list) and 4 <= len(ings) <= 15, r["id"]
        for ing in ings:
            assert set(ing) == INGREDIENT_KEYS, (r["id"], ing)
            name = ing["name"]
            assert isinstance(name, str) and name and name == name.lower().strip(), (r["id"], name)
            assert name.isascii(), (r["id"], name)
            amount = ing["amount"]
            assert amount is None or (type(amount) in (int, float) and amount > 0), (r["id"], ing)
            assert ing["unit"] is None or ing["unit"] in UNITS, (r["id"], ing)
            assert isinstance(ing["original"], str) and ing["original"].strip(), (r["id"], ing)


def test_instructions_shape(catalog):
    for r in catalog:
        steps = r["instructions"]
        assert isinstance(steps, list) and 3 <= len(steps) <= 10, r["id"]
        for step in steps:
            assert isinstance(step, str) and len(step) >= 15, (r["id"], step)
            assert step[0].isupper() and step.endswith("."), (r["id"], step)


def test_diet_vocabulary(catalog):
    for r in catalog:
        assert set(r["diets"]) <= DIETS, (r["id"], r["diets"])


def test_dish_type_vocabulary(catalog):
    for r in catalog:
        assert set(r["dishTypes"]) <= DISH_TYPES, (r["id"], r["dishTypes"])


def test_ready_time_spread(catalog):
    quick = [r for r in catalog if r["readyInMinutes"] <= 20]
    medium = [r for r in catalog if 21 <= r["readyInMinutes"] <= 45]
    long_ = [r for r in catalog if r["readyInMinutes"] > 45]
    assert len(quick) >= 25
    assert len(medium) >= 25
    assert len(long_) >= 25


def test_diet_minimums(catalog):
    assert len(with_diet(catalog, "vegan")) >= 20
    assert len(with_diet(catalog, "vegetarian")) >= 35
    assert len(with_diet(catalog, "gluten free")) >= 30


def test_dish_type_coverage(catalog):
    covered = {d for r in catalog for d in r["dishTypes"]}
    for dish in ("breakfast", "main course", "side dish", "dessert", "soup", "salad",
                 "bread", "drink"):
        assert dish in covered, dish


def test_vegan_implies_vegetarian_and_dairy_free(catalog):
    for r in with_diet(catalog, "vegan"):
        assert "vegetarian" in r["diets"], r["id"]
        assert "dairy free" in r["diets"], r["id"]


def test_vegan_has_no_animal_products(catalog):
    banned = MEAT | FISH | DAIRY | EGG | HONEY
    for r in with_diet(catalog, "vegan"):
        assert not names(r) & banned, (r["id"], names(r) & banned)


def test_vegetarian_has_no_meat_or_fish(catalog):
    for diet in ("vegetarian", "lacto ovo vegetarian"):
        for r in with_diet(catalog, diet):
            assert not names(r) & (MEAT | FISH), (r["id"], names(r) & (MEAT | FISH))


def test_pescatarian_has_no_meat(catalog):
    for r in with_diet(catalog, "pescatarian"):
        assert not names(r) & MEAT, (r["id"], names(r) & MEAT)


def test_gluten_free_has_no_gluten(catalog):
    for r in with_diet(catalog, "gluten free"):
        assert not names(r) & GLUTEN, (r["id"], names(r) & GLUTEN)


def test_dairy_free_has_no_dairy(catalog):
    for r in with_diet(catalog, "dairy free"):
        assert not names(r) & DAIRY, (r["id"], names(r) & DAIRY)


def test_paleo_and_whole30_exclusions(catalog):
    banned = DAIRY | GLUTEN | {
        "rice", "arborio rice", "glutinous rice", "quinoa", "cornmeal", "corn tortilla",
        "chickpea", "lentil", "black bean", "kidney bean", "cannellini bean", "tofu",
        "peanut", "peanut butter", "sugar", "brown sugar", "tamari",
    }
    for diet in ("paleo", "whole 30"):
        for r in with_diet(catalog, diet):
            assert not names(r) & banned, (r["id"], diet, names(r) & banned)
    for r in with_diet(catalog, "whole 30"):
        assert not names(r) & {"honey", "maple syrup"}, r["id"]


def test_ketogenic_has_no_high_carb_staples(catalog):
    banned = GLUTEN | {
        "rice", "potato", "sweet potato", "sugar", "brown sugar", "honey", "maple syrup",
        "banana", "mango", "chickpea", "lentil", "black bean", "milk", "tomato",
    }
    for r in with_diet(catalog, "ketogenic"):
        assert not names(r) & banned, (r["id"], names(r) & banned)


def test_ingredient_names_are_shared(catalog):
    counts = Counter(n for r in catalog for n in names(r))
    for common in ("egg", "onion", "garlic", "tomato", "potato", "rice", "chicken breast",
                   "milk", "butter", "flour"):
        assert counts[common] >= 3, (common, counts[common])
