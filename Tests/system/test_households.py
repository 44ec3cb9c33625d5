"""Households with real processes: two members share one grocery list and cart, each sees the
other's change on their live stream, a non-member reads nothing, invites are single-use, a member
who leaves stops receiving at once, a deleted member's words leave the list, and a replay of it
all equals the workers (issue 42)."""
import json

from pantry_processes import ok, wait_for
from test_live import LiveStream, changes


def test_two_members_share_a_list_live_and_the_walls_hold(api, processes):
    alice_id, alice = api.register_and_log_in("hhalice")
    bob_id, bob = api.register_and_log_in("hhbob")
    _, carol = api.register_and_log_in("hhcarol")
    recipe = api.catalog_recipe("egg")

    created = ok(api.post("/v1/households", token=alice), 201)
    assert created["householdId"].startswith("h-")
    assert api.post("/v1/households", token=alice).json["code"] == "already_in_household"
    invite = ok(api.post("/v1/me/household/invites", token=alice), 201)
    assert len(invite["code"]) == 20 and invite["expiresInSeconds"] == 86400
    # Only the owner invites; a member who is not cannot.
    joined = ok(api.post("/v1/households/join", {"code": invite["code"].lower()}, token=bob))
    again = api.post("/v1/households/join", {"code": invite["code"]}, token=carol)
    assert (again.status, again.json["code"]) == (409, "invite_used")
    nothing = api.post("/v1/households/join", {"code": "0" * 20}, token=carol)
    assert (nothing.status, nothing.json["code"]) == (404, "no_such_invite")
    member_invite = api.post("/v1/me/household/invites", token=bob)
    assert (member_invite.status, member_invite.json["code"]) == (403, "not_household_owner")
    revoked = ok(api.post("/v1/me/household/invites", token=alice), 201)
    ok(api.delete(f"/v1/me/household/invites/{revoked['inviteId']}", token=alice))
    refused = api.post("/v1/households/join", {"code": revoked["code"]}, token=carol)
    assert (refused.status, refused.json["code"]) == (409, "invite_revoked")

    view = ok(api.get(f"/v1/me/household?after={joined['position']}", token=bob))
    assert [(m["username"], m["owner"]) for m in view["members"]] == [("hhalice", True), ("hhbob", False)]
    assert "invites" not in view, "only the owner sees the open invites"
    outsider = api.get("/v1/me/household", token=carol)
    assert (outsider.status, outsider.json["code"]) == (404, "not_in_household")

    # Bob's stream gets Alice's changes to the shared list and cart, saying they are hers.
    stream = LiveStream(api.port, bob)
    stream.events(lambda events: len(events) >= 1)
    ok(api.post("/v1/me/groceries", {"ingredient": "Carol's secret"}, token=carol), 201)
    added = ok(api.post("/v1/me/groceries", {"ingredient": "Eggs", "amount": 6}, token=alice), 201)
    got = changes(stream.events(lambda events: len(changes(events)) >= 1))
    assert got[0]["id"] == str(added["position"])
    assert got[0]["data"]["userId"] == alice_id and got[0]["data"]["household"] == created["householdId"]
    ticked = ok(api.patch("/v1/me/groceries/eggs", {"checked": True}, token=bob))
    listed = ok(api.get(f"/v1/me/groceries?after={ticked['position']}", token=alice))["result"]
    assert [(i["item"], i["addedBy"], i["checkedBy"]) for i in listed] == [("egg", [alice_id], bob_id)]
    ok(api.post("/v1/me/cart", {"recipeId": recipe["id"], "delta": 1}, token=alice))
    cart = ok(api.get("/v1/me/cart", token=bob))["result"]
    assert [line["recipeId"] for line in cart["lines"]] == [recipe["id"]], "the cart is shared"
    assert ok(api.get("/v1/me/cart", token=carol))["result"]["lines"] == []

    # Bob leaves: his stream ends at once, and Alice's next change never reaches him.
    left = ok(api.delete(f"/v1/me/household/members/{bob_id}", token=bob))
    ended = stream.events(lambda events: any(e["event"] == "end" for e in events), timeout=5)
    assert ended[-1]["data"]["reason"] == "left-household"
    assert ok(api.get(f"/v1/me/groceries?after={left['position']}", token=bob))["result"] == []
    assert ok(api.get("/v1/me/groceries", token=alice))["result"][0]["item"] == "egg", "his tick stays on her list"

    # A second member's words, then their deletion: only what they alone added leaves the list.
    invite = ok(api.post("/v1/me/household/invites", token=alice), 201)
    ok(api.post("/v1/households/join", {"code": invite["code"]}, token=carol))
    ok(api.post("/v1/me/groceries", {"ingredient": "insulin pens"}, token=carol), 201)
    ok(api.post("/v1/me/groceries", {"ingredient": "EGGS"}, token=carol), 201)
    deleted = api.delete("/v1/me", token=carol, body={"password": "correct horse battery"})
    assert deleted.status in (200, 204), deleted
    wait_for(lambda: [m["userId"] for m in ok(api.get("/v1/me/household", token=alice))["members"]] == [alice_id],
             timeout=10, what="the deleted member to leave the household")
    after = ok(api.get("/v1/me/household", token=alice))
    listed = ok(api.get(f"/v1/me/groceries?after={after['position']}", token=alice))["result"]
    assert [(i["item"], i["ingredient"], i["addedBy"]) for i in listed] == [("egg", "Eggs", [alice_id])]

    verify = processes.run("replay", "--verify", timeout=300)
    assert verify.returncode == 0, verify.stdout.decode() + verify.stderr.decode()
    events = [json.loads(line) for line in processes.run("events").stdout.decode().splitlines()]
    assert not any("insulin" in json.dumps(e) for e in events), "grocery names stay sealed in the log"
