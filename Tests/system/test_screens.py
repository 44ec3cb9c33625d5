"""What the app screens of the seeds render, over real HTTP against the real deployment: result
cards with servings and minutes, ready-time sections (seed 002), a featured recipe and "load more"
that never repeats (seed 004), and a favourite suggestion that comes with its recipes (seed 001)."""
import pytest

from pantry_processes import ok


@pytest.fixture(scope="module")
def api(shared_api):
    """One deployment for the file: each test has users of its own and stops nothing."""
    return shared_api


def test_search_in_ready_time_sections(api):
    plain = ok(api.get("/v1/recipes/search?query=soup&number=30"))
    assert "sections" not in plain
    found = ok(api.get("/v1/recipes/search?query=soup&number=30&sections=readyTime"))
    results = found["payload"]["searchPage"]["results"]
    assert results == plain["payload"]["searchPage"]["results"]
    assert all(r["servings"] and r["readyInMinutes"] and r["image"] for r in results), "what a card shows"
    sections = found["sections"]
    assert [s["title"] for s in sections[:4]] == ["Under 15 minutes", "15 to 30 minutes", "30 minutes to an hour", "Over an hour"]
    for section in sections:
        for summary in section["results"]:
            assert section.get("minMinutes", 0) <= summary["readyInMinutes"] <= section.get("maxMinutes", 10**6)
    assert sorted(r["id"] for s in sections for r in s["results"]) == sorted(r["id"] for r in results)
    assert api.get("/v1/recipes/search?query=soup&sections=calories").status == 422


def test_featured_is_the_same_all_day(api):
    today = ok(api.get("/v1/recipes/featured"))["payload"]["recipe"]
    assert ok(api.get("/v1/recipes/featured"))["payload"]["recipe"]["id"] == today["id"]
    days = {ok(api.get(f"/v1/recipes/featured?day=2026-12-{day:02d}"))["payload"]["recipe"]["id"] for day in range(1, 11)}
    assert len(days) > 1, "another day, another recipe"
    assert api.get("/v1/recipes/featured?day=2026-02-30").status == 422


def test_load_more_never_repeats_a_recipe(api):
    seen = []
    cursor = None
    for _ in range(10):
        page = ok(api.get("/v1/recipes/feed?count=50" + (f"&cursor={cursor}" if cursor else "")))
        seen += [r["id"] for r in page["payload"]["recipes"]]
        cursor = page.get("cursor")
        if cursor is None:
            break
    assert cursor is None, "the catalog ends"
    assert len(seen) == len(set(seen)) == 135, "every recipe of the bundled catalog once"
    other = ok(api.get("/v1/recipes/feed?count=50"))["payload"]["recipes"]
    assert [r["id"] for r in other] != seen[:50], "another session, another order"
    for bad in ("nonsense", "zz.zz.zz", "1.-1", "1." + "z" * 40):
        assert api.get(f"/v1/recipes/feed?cursor={bad}").status == 422, bad


def test_the_favourite_suggestion_comes_with_recipes(api):
    _, token = api.register_and_log_in("suggested")
    found = ok(api.get("/v1/recipes/search?query=soup&number=3"))["payload"]["searchPage"]["results"]
    position = 0
    for recipe in found[:2]:
        position = ok(api.put(f"/v1/me/favourites/{recipe['id']}", token=token), 201)["position"]
    suggestion = ok(api.get(f"/v1/me/favourite-suggestion?after={position}", token=token))["result"]
    assert suggestion["keyword"] == "soup" and sorted(suggestion["basedOn"]) == sorted(r["id"] for r in found[:2])
    assert suggestion["recipes"], suggestion
    assert not set(r["id"] for r in suggestion["recipes"]) & set(suggestion["basedOn"]), "nothing already saved"
    soups = {r["id"] for r in ok(api.get("/v1/recipes/search?query=soup&number=100"))["payload"]["searchPage"]["results"]}
    assert {r["id"] for r in suggestion["recipes"]} <= soups
    _, other = api.register_and_log_in("nothing-saved")
    assert ok(api.get("/v1/me/favourite-suggestion", token=other))["result"] is None


def test_featured_and_suggestions_follow_what_a_cook_saves_and_cooks(api):
    """Issue 33: "Featured today" was one recipe for everyone and the suggestion the first titles
    with its word. A cook who saves and cooks chicken dishes is featured a chicken dish, none of
    theirs, all day; the suggestion puts it first; a new cook sees what everyone sees."""
    day = "2026-11-27"
    everyone = ok(api.get(f"/v1/recipes/featured?day={day}"))["payload"]["recipe"]
    assert not any("chicken" in i["name"] for i in everyone["ingredients"]), "the day's pick for everyone has none"
    _, new_cook = api.register_and_log_in("new-cook")
    assert ok(api.get(f"/v1/recipes/featured?day={day}", token=new_cook))["payload"]["recipe"]["id"] == everyone["id"]

    _, token = api.register_and_log_in("chicken-cook")
    saved = ["catalog:chicken-fajitas", "catalog:chicken-caesar-wrap"]
    for recipe_id in saved:
        position = ok(api.put(f"/v1/me/favourites/{recipe_id}", token=token), 201)["position"]
    cooking = api.start_cooking("catalog:teriyaki-chicken", token)["position"]
    # Both workers have applied them (read-your-writes), so the featured read that asks them sees them.
    ok(api.get(f"/v1/me/favourites?after={position}", token=token))
    ok(api.get(f"/v1/me/cooking?after={cooking}", token=token))
    featured = ok(api.get(f"/v1/recipes/featured?day={day}", token=token))["payload"]["recipe"]
    assert any("chicken" in i["name"] for i in featured["ingredients"]), featured["title"]
    assert featured["id"] not in saved + ["catalog:teriyaki-chicken"]
    assert featured["readyInMinutes"] and featured["servings"] and len(featured["instructions"]) > 1, "complete"
    again = ok(api.get(f"/v1/recipes/featured?day={day}", token=token))["payload"]["recipe"]
    assert again["id"] == featured["id"], "the same all day"

    suggestion = ok(api.get("/v1/me/favourite-suggestion", token=token))["result"]
    assert suggestion["keyword"] == "chicken" and "chicken" in featured["title"].lower()
    assert suggestion["recipes"][0]["id"] == featured["id"], [r["title"] for r in suggestion["recipes"]]
    assert not {r["id"] for r in suggestion["recipes"]} & set(saved)


def test_start_cooking_is_its_own_act_and_puts_nothing_in_the_cart(api):
    _, token = api.register_and_log_in("cook-timer")
    recipe = api.catalog_recipe("egg")
    path = f"/v1/me/cooking/{recipe['id']}"
    # Without minutes, the recipe's own time; no cart line is needed, and none is made.
    started = ok(api.post(path, {}, token=token), 201)
    [timer] = ok(api.get(f"/v1/me/cooking?after={started['position']}", token=token))["result"]
    assert timer["recipeId"] == recipe["id"] and timer["title"] == recipe["title"]
    assert timer["minutes"] == recipe["readyInMinutes"]
    assert timer["endsAt"] - timer["startedAt"] == recipe["readyInMinutes"] * 60_000
    assert timer["pointsUntil"] == timer["endsAt"] + 3_600_000
    assert recipe["readyInMinutes"] * 60 - 5 <= timer["remainingSeconds"] <= recipe["readyInMinutes"] * 60
    assert ok(api.get(f"/v1/me/cart?after={started['position']}", token=token))["result"]["lines"] == []
    point = api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": recipe["ingredients"][0]["name"]}, token=token)
    assert point.status == 201, point
    # Started again with a time of one's own: the countdown restarts.
    again = ok(api.post(path, {"minutes": 1}, token=token), 201)
    [timer] = ok(api.get(f"/v1/me/cooking?after={again['position']}", token=token))["result"]
    assert timer["minutes"] == 1 and 55 <= timer["remainingSeconds"] <= 60
    for body, code in (({"minutes": 0}, "invalid_minutes"), ({"minutes": 1441}, "invalid_minutes"),
                       ({"minutes": "soon"}, "invalid_field"), ({"seconds": 5}, "invalid_field")):
        answer = api.post(path, body, token=token)
        assert answer.status == 422 and answer.json["code"] == code, (body, answer)
    # A recipe that does not exist is 404, and starts nothing.
    missing = api.post("/v1/me/cooking/catalog:no-such-recipe", {"minutes": 5}, token=token)
    assert missing.status == 404 and missing.json["code"] == "unknown_recipe", missing
    # The cart is the cook's own doing, and taking a line out does not stop the cooking.
    ok(api.post("/v1/me/cart", {"recipeId": recipe["id"], "delta": 1}, token=token))
    gone = ok(api.post("/v1/me/cart", {"recipeId": recipe["id"], "delta": -1}, token=token))
    assert ok(api.get(f"/v1/me/cart?after={gone['position']}", token=token))["result"]["lines"] == []
    assert [t["recipeId"] for t in ok(api.get(f"/v1/me/cooking?after={gone['position']}", token=token))["result"]] == [recipe["id"]]
