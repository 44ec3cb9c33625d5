"""Issue 12's and 32's rules that need real processes: deletion erases the personal fields from the
log, and every text the person wrote from every file, a backup and `pantry events`. What one
deployment's answers show (points that cannot be farmed, retries that cannot lie, public browsing,
accounts a person owns) is checked in process (Tests/PantryRouteTests: PointRouteTests, TrustRouteTests)."""
import json
import sqlite3
import time
from urllib.parse import quote

from pantry_processes import files_holding, forms, start_core_and_api

PASSWORD = "correct horse battery"
SHAKSHUKA = "catalog:shakshuka"  # olive oil, onion, bell pepper, garlic, cumin, ..., egg, parsley, salt


def test_deleting_an_account_erases_it_from_every_read_model_and_from_the_log(processes):
    api = start_core_and_api(processes)
    name, email = "zoë-deleted", "zoe.deleted@example.org"
    registered = api.post("/v1/accounts", {"username": name, "email": email, "password": PASSWORD})
    assert registered.status == 201, registered
    user_id, token = registered.json["userId"], registered.json["token"]
    _, other = api.register_and_log_in("stays")
    for cook in (token, other):
        api.start_cooking(SHAKSHUKA, cook)
    for body in [{"recipeId": SHAKSHUKA, "ingredient": "egg"}, {"recipeId": SHAKSHUKA, "ingredient": "onion"}]:
        assert api.post("/v1/me/owned-ingredients", body, token=token).status == 201
    assert api.put(f"/v1/me/favourites/{SHAKSHUKA}", token=token).status == 201
    assert api.post("/v1/me/cart", {"recipeId": SHAKSHUKA, "delta": 1}, token=token).status == 200
    assert api.post("/v1/me/groceries", {"ingredient": "Eggs"}, token=token).status == 201
    tip = api.post(f"/v1/recipes/{SHAKSHUKA}/experiences", {"text": "Mine is the best"}, token=token)
    assert tip.status == 201
    assert api.post("/v1/me/owned-ingredients", {"recipeId": SHAKSHUKA, "ingredient": "garlic"}, token=other).status == 201

    assert api.request("DELETE", "/v1/me", {"password": "wrong one"}, token=token).status == 403
    deleted = api.request("DELETE", "/v1/me", {"password": PASSWORD}, token=token)
    assert deleted.status == 204, deleted
    assert api.post("/v1/sessions", {"username": name, "password": PASSWORD}).status == 401
    assert api.post("/v1/sessions", {"email": email, "password": PASSWORD}).status == 401
    assert api.get("/v1/me", token=token).status == 401

    head = json.loads(processes.run("stats", "--json").stdout)["head"]
    top = api.get(f"/v1/leaderboard?limit=100&after={head}").json["result"]
    assert user_id not in [e["userId"] for e in top] and [e["username"] for e in top] == ["stays"]
    assert api.get(f"/v1/recipes/{SHAKSHUKA}/experiences?after={head}").json["result"] == []

    verify = processes.run("replay", "--verify", timeout=300)
    assert verify.returncode == 0, verify.stdout.decode() + verify.stderr.decode()
    assert verify.stdout.decode().count("same") == 5

    events = processes.run("events").stdout.decode()
    assert user_id in events and "UserDeleted" in events
    processes.stop_all()
    wanted = [email.encode(), "zoe.deleted".encode(), name.encode()]
    files = [p for p in processes.data.rglob("*") if p.is_file() and ".sqlite" in p.name]
    assert any(p.name == "events.sqlite" for p in files) and any(p.name == "user-keys.sqlite" for p in files)
    for path in files:
        content = path.read_bytes()
        for personal in wanted:
            assert personal not in content, f"{personal!r} found in {path}"


def test_after_deletion_no_file_of_the_running_deployment_10_s_later_nor_a_backup_or_events_output_holds_any_text_of_the_person(
        processes, tmp_path):
    api = start_core_and_api(processes)
    name, email = "ida-erased", "ida.erased@example.org"
    tip, item, key = "My secret: less cumin, more courage", "Insulin pens", "ida-idempotency-key-7f3a"
    registered = api.post("/v1/accounts", {"username": name, "email": email, "password": PASSWORD})
    assert registered.status == 201, registered
    user_id, token = registered.json["userId"], registered.json["token"]
    assert api.post("/v1/me/groceries", {"ingredient": item, "amount": 2}, token=token,
                    headers={"Idempotency-Key": key}).status == 201
    assert api.patch(f"/v1/me/groceries/{quote(item)}", {"checked": True}, token=token).status == 200
    assert api.post(f"/v1/recipes/{SHAKSHUKA}/experiences", {"text": tip}, token=token,
                    headers={"Idempotency-Key": key + "-tip"}).status == 201
    api.start_cooking(SHAKSHUKA, token)
    assert api.post("/v1/me/owned-ingredients", {"recipeId": SHAKSHUKA, "ingredient": "egg"}, token=token).status == 201
    head = json.loads(processes.run("stats", "--json").stdout)["head"]
    groceries = api.get(f"/v1/me/groceries?after={head}", token=token)
    assert item.lower() in json.dumps(groceries.json).lower(), "the person reads their own list, opened"
    tips = api.get(f"/v1/recipes/{SHAKSHUKA}/experiences?after={head}").json["result"]
    assert [t["text"] for t in tips] == [tip], "and everyone reads the tip, opened"
    with sqlite3.connect(f"file:{processes.data / 'user-keys.sqlite'}?mode=ro", uri=True) as keys:
        user_key = keys.execute("SELECT key FROM user_keys WHERE user_id = ?", (user_id,)).fetchone()[0]
    assert len(user_key) == 32

    deleted = api.request("DELETE", "/v1/me", {"password": PASSWORD}, token=token)
    assert deleted.status == 204, deleted
    deleted_at = time.monotonic()
    ledger = (processes.data / "erased-users.tsv").read_text()
    assert ledger.endswith(f"\t{user_id}\n"), "the deletion is listed outside the log"
    backup = tmp_path / "backup-after-deletion"
    taken = processes.run("backup", str(backup))
    assert taken.returncode == 0, taken.stderr.decode()
    assert b"erased-users.tsv" in taken.stdout
    events = processes.run("events")
    assert events.returncode == 0 and user_id.encode() in events.stdout
    written = set().union(*(forms(text) for text in [tip, item, item.lower(), "insulin pen", key, email, name]))
    # While everything still runs (docs/erasure.md's bound): the workers have emptied their WALs.
    time.sleep(max(0.0, deleted_at + 10 - time.monotonic()))
    assert files_holding(processes.data, written | {user_key}) == []
    processes.stop_all()

    assert [needle for needle in written if needle in events.stdout] == []
    assert files_holding(processes.data, written | {user_key}) == []
    assert files_holding(backup, written | {user_key}) == []
