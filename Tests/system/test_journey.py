"""The user journey of the seeds, over real HTTP against the real deployment (core, every worker,
fetch with its embedded catalog, api): register, log in, find recipes with what is at home, save,
make a grocery list, earn points, fill the cart, write a tip, and see the leaderboard. Every read
uses `?after=` with the position its command answered, so nothing here sleeps or polls."""
import time

from pantry_processes import ok


def test_the_whole_journey(shared_api):
    api = shared_api
    _, token = api.register_and_log_in("cook")
    get = lambda path: ok(api.get(path, token=token))

    # Find recipes with the ingredients at home, then open one.
    found = get("/v1/recipes/by-ingredients?ingredients=egg,tomato&number=5")
    assert found["payload"]["type"] == "summaries" and found["provider"] == "catalog"
    summaries = found["payload"]["summaries"]
    # Those using both first, then those using one; within each, fewest missing first.
    ranks = [(-s["usedIngredientCount"], s["missedIngredientCount"]) for s in summaries]
    assert summaries and summaries[0]["usedIngredientCount"] == 2 and ranks == sorted(ranks), ranks
    recipe = get(f"/v1/recipes/{summaries[0]['id']}")["payload"]["recipe"]
    assert recipe["ingredients"] and recipe["instructions"]
    assert get("/v1/recipes/search?query=soup&number=3")["payload"]["searchPage"]["results"]
    assert len(get("/v1/recipes/random?count=2")["payload"]["recipes"]) == 2
    assert "tomato" in get("/v1/ingredients/autocomplete?prefix=tom")["payload"]["suggestions"]

    # Save it and find it again.
    saved = ok(api.put(f"/v1/me/favourites/{recipe['id']}", token=token), 201)
    favourites = get(f"/v1/me/favourites?after={saved['position']}")
    assert [f["recipeId"] for f in favourites["result"]] == [recipe["id"]]
    assert favourites["position"] >= saved["position"]
    word = recipe["title"].split()[0]
    assert [f["recipeId"] for f in get(f"/v1/me/favourites?q={word}")["result"]] == [recipe["id"]]
    assert get("/v1/me/favourites?q=zzzz-nothing")["result"] == []
    assert get("/v1/me/favourite-suggestion")["result"]["basedOn"] == [recipe["id"]]

    # Groceries: the recipe's first two ingredients, one by hand twice (merged), check, uncheck, remove.
    for ingredient in recipe["ingredients"][:2]:
        body = {"ingredient": ingredient["name"], "recipeId": recipe["id"]}
        if ingredient.get("amount"):
            body["amount"] = ingredient["amount"]
        if ingredient.get("unit"):
            body["unit"] = ingredient["unit"]
        ok(api.post("/v1/me/groceries", body, token=token), 201)
    ok(api.post("/v1/me/groceries", {"ingredient": "Flour", "amount": 200, "unit": "g"}, token=token), 201)
    merged = ok(api.post("/v1/me/groceries", {"ingredient": " flour ", "amount": 100, "unit": "g"}, token=token), 201)
    groceries = get(f"/v1/me/groceries?after={merged['position']}")["result"]
    flour = [g for g in groceries if g["item"] == "flour"]
    assert len(groceries) == 3 and [g["amounts"] for g in flour] == [[{"amount": 300, "unit": "g"}]], groceries
    checked = ok(api.patch("/v1/me/groceries/flour", {"checked": True}, token=token))
    assert [g["checked"] for g in get(f"/v1/me/groceries?after={checked['position']}")["result"] if g["item"] == "flour"] == [True]
    unchecked = ok(api.patch("/v1/me/groceries/flour", {"checked": False}, token=token))
    assert [g["checked"] for g in get(f"/v1/me/groceries?after={unchecked['position']}")["result"] if g["item"] == "flour"] == [False]
    removed = ok(api.delete("/v1/me/groceries/flour", token=token))
    assert len(get(f"/v1/me/groceries?after={removed['position']}")["result"]) == 2

    # Points for cooking with what is at home: not before cooking, then one per ingredient, never twice.
    early = api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": recipe["ingredients"][0]["name"]},
                     token=token)
    assert early.status == 409 and early.json["code"] == "not_cooking", early
    api.start_cooking(recipe["id"], token)
    used = None
    for ingredient in recipe["ingredients"][:3]:
        used = ok(api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": ingredient["name"]},
                           token=token), 201)
    again = api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": recipe["ingredients"][0]["name"].upper()},
                     token=token)
    assert again.status == 409 and again.json["code"] == "already_used"
    me = get(f"/v1/me?after={used['position']}")
    assert me["points"] == 3 and me["rank"] == 1

    # The cart holds only what the cook put there (cooking put nothing): three, then one fewer.
    ok(api.post("/v1/me/cart", {"recipeId": recipe["id"], "delta": 3}, token=token))
    cart = ok(api.post("/v1/me/cart", {"recipeId": recipe["id"], "delta": -1}, token=token))
    lines = get(f"/v1/me/cart?after={cart['position']}")["result"]
    assert [(line["recipeId"], line["title"], line["count"]) for line in lines["lines"]] == [(recipe["id"], recipe["title"], 2)]
    assert lines["totals"] == {"lines": 1, "items": 2}
    assert [t["minutes"] for t in get(f"/v1/me/cooking?after={cart['position']}")["result"]] == [30]

    # A tip for others, shown with the author's name.
    tip = ok(api.post(f"/v1/recipes/{recipe['id']}/experiences", {"text": "  Less salt, more lemon.  "}, token=token), 201)
    experiences = get(f"/v1/recipes/{recipe['id']}/experiences?after={tip['position']}")["result"]
    assert [(e["username"], e["text"]) for e in experiences] == [("cook", "Less salt, more lemon.")]

    # The leaderboard, with a second cook who earns more.
    _, rival = api.register_and_log_in("rival")
    assert len(recipe["ingredients"]) >= 4
    api.start_cooking(recipe["id"], rival)
    for ingredient in recipe["ingredients"][:4]:
        last = ok(api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": ingredient["name"]},
                           token=rival), 201)
    top = get(f"/v1/leaderboard?limit=10&after={last['position']}")["result"]
    assert [(e["username"], e["points"], e["rank"]) for e in top] == [("rival", 4, 1), ("cook", 3, 2)]
    assert get("/v1/leaderboard/me")["result"]["rank"] == 2
    around = get("/v1/leaderboard/around-me?radius=1")["result"]
    assert [e["username"] for e in around] == ["rival", "cook"]


def test_private_lists_belong_to_the_token(shared_api):
    api = shared_api
    _, ana = api.register_and_log_in("ana")
    _, bob = api.register_and_log_in("bob")
    saved = ok(api.put("/v1/me/favourites/catalog:shakshuka", token=ana), 201)
    ok(api.post("/v1/me/groceries", {"ingredient": "Eggs"}, token=ana), 201)
    carted = ok(api.post("/v1/me/cart", {"recipeId": "catalog:shakshuka", "delta": 1}, token=ana))
    after = max(saved["position"], carted["position"])
    assert len(ok(api.get(f"/v1/me/favourites?after={after}", token=ana))["result"]) == 1
    assert ok(api.get(f"/v1/me/favourites?after={after}", token=bob))["result"] == []
    assert ok(api.get(f"/v1/me/groceries?after={after}", token=bob))["result"] == []
    assert ok(api.get(f"/v1/me/cart?after={after}", token=bob))["result"]["lines"] == []
    # A user id in the query is not a way in: it is ignored.
    assert ok(api.get(f"/v1/me/favourites?userId=ana&after={after}", token=bob))["result"] == []
    assert api.get("/v1/me/favourites").status == 401


def test_reads_refuse_bad_parameters_and_positions_not_written(shared_api):
    api = shared_api
    _, token = api.register_and_log_in("dora")
    for path, code in [
        ("/v1/leaderboard?limit=0", "invalid_query"),
        ("/v1/leaderboard?limit=ten", "invalid_query"),
        ("/v1/leaderboard?after=-1", "invalid_query"),
        ("/v1/leaderboard?after=99999999", "position_not_written"),
        ("/v1/recipes/by-ingredients?ingredients=a,b,c,d,e,f", "invalid_query"),
        ("/v1/recipes/by-ingredients", "invalid_query"),
        ("/v1/recipes/search?query=soup&diet=carnivore", "invalid_query"),
        ("/v1/recipes/not-an-id", "invalid_query"),
        ("/v1/images?url=file:///etc/passwd", "invalid_query"),
    ]:
        answer = api.get(path, token=token)
        assert answer.status == 422 and answer.json["code"] == code, (path, answer)
    assert api.get("/v1/recipes/catalog:no-such-recipe", token=token).status == 404


def test_ready_reports_every_worker_and_fails_without_one(api, processes):
    ready = ok(api.get("/ready"))
    assert set(ready["workers"]) == {"leaderboard", "carts", "favourites", "groceries", "experiences"}
    assert all(w["lag"] >= 0 for w in ready["workers"].values())
    carts = processes.running[3]
    carts.kill()
    carts.wait()
    answer = api.get("/ready")
    assert answer.status == 503 and "carts" in answer.json["detail"], answer


def test_with_the_fetch_worker_stopped_recipe_screens_answer_503_naming_it_within_a_second(api, processes):
    """Issue 33: a stopped fetch worker held every recipe screen 20-40 s while /ready said ready."""
    # Answers the API may give again without asking (ReusableAnswers) are not what this is about:
    # a recipe not asked for yet.
    found = ok(api.get("/v1/recipes/by-ingredients?ingredients=egg&number=5"))["payload"]["summaries"]
    recipe_id = found[-1]["id"]
    ready = ok(api.get("/ready"))
    assert ready["parts"]["fetch"] == "up" and ready["parts"]["core"] == "up" and ready["network"] == "ipc", ready
    fetch = processes.running[-1]
    fetch.terminate()
    fetch.wait()
    # The API's connection notices the closed socket within ZeroMQ's reconnect interval.
    time.sleep(0.5)
    for path in [f"/v1/recipes/{recipe_id}", "/v1/recipes/search?query=rice", "/v1/recipes/featured"]:
        started = time.monotonic()
        answer = api.get(path)
        took = time.monotonic() - started
        assert answer.status == 503 and answer.json["code"] == "fetch_unavailable", (path, answer)
        assert "fetch worker" in answer.json["detail"], answer
        assert took < 1, f"{path} took {took:.2f} s"
    started = time.monotonic()
    answer = api.get("/ready")
    assert answer.status == 503 and "fetch:" in answer.json["detail"], answer
    assert time.monotonic() - started < 1.5
