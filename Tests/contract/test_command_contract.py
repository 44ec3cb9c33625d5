"""The schemas in schemas/ and the Swift code accept and refuse the same documents."""
import json
import subprocess

import pytest

from contract import command_errors, outcome_errors, recorded_event_errors

HASH = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"


def cmd(command_id, kind, **data):
    return {"commandId": command_id, "type": kind, "data": data}


def derived_id(prefix, kind, command_id):
    """The id the core derives from a command's id (Decider.inviteId): FNV-1a, 64 bits, in hex."""
    value = 0xCBF29CE484222325
    for byte in kind.encode() + b"\0" + command_id.encode():
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{prefix}-{value:016x}"


CODE_A, CODE_B = "a" * 64, "0123456789abcdef" * 4


PASTA = {"title": "Pasta with Garlic", "image": "https://img.spoonacular.com/recipes/716429-312x231.jpg",
         "ingredients": ["spaghetti", "garlic", "olive oil", "salt"]}
TERIYAKI = {"title": "Teriyaki Chicken Casserole 🍗", "ingredients": ["chicken thighs", "soy sauce", "rice"]}


VALID = [
    cmd("c1", "RegisterUser", userId="u1", username="anna.b", email="anna@example.org", passwordHash=HASH),
    cmd("c2", "RegisterUser", userId="u2", username="Bob_2", email="bob@example.org", passwordHash=HASH),
    cmd("c3", "SaveRecipe", userId="u1", recipeId="spoonacular:716429", recipe=PASTA),
    cmd("c4", "SaveRecipe", userId="u1", recipeId="mealdb:52772", recipe=TERIYAKI),
    cmd("c5", "RemoveSavedRecipe", userId="u1", recipeId="mealdb:52772"),
    cmd("c6", "AddGrocery", userId="u1", ingredient="Olive Oil", amount=2, unit="tbsp", recipeId="spoonacular:716429"),
    cmd("c7", "AddGrocery", userId="u1", ingredient="olive  oil", amount=1.5, unit="tbsp"),
    cmd("c8", "CheckGrocery", userId="u1", ingredient="OLIVE OIL", checked=True),
    cmd("c9", "AddGrocery", userId="u1", ingredient="crème fraîche"),
    cmd("c10", "RemoveGrocery", userId="u1", ingredient="crème fraîche"),
    # A point needs its recipe cooking: "Start cooking", its own act (no cart line).
    cmd("k2", "StartCooking", userId="u1", recipeId="spoonacular:716429", minutes=25),
    cmd("k4", "StartCooking", userId="u2", recipeId="spoonacular:716429", minutes=25),
    cmd("c11", "UseOwnedIngredient", userId="u1", recipeId="spoonacular:716429", ingredient="garlic"),
    cmd("c12", "UseOwnedIngredient", userId="u2", recipeId="spoonacular:716429", ingredient="Garlic"),
    cmd("c13", "AdjustCart", userId="u1", recipeId="spoonacular:716429", delta=3),
    cmd("c14", "AdjustCart", userId="u1", recipeId="spoonacular:716429", delta=-1),
    cmd("c15", "WriteExperience", userId="u2", recipeId="spoonacular:716429", text="Add the garlic late, it burns."),
    cmd("k6", "StartCooking", userId="u2", recipeId="r2", minutes=10, recipe={"title": "Salted water", "ingredients": ["salt", "water"]}),
    {**cmd("c16", "UseOwnedIngredient", userId="u2", recipeId="r2", ingredient="salts",
           recipe={"title": "Salted water", "ingredients": ["salt", "water"]}),
     "correlationId": "request-9", "causationId": "c15"},
    cmd("c17", "RegisterUser", userId="u3", username="ánna", email="anna3@example.org", passwordHash=HASH),
    cmd("c18", "ChangePassword", userId="u3", passwordHash=HASH),
    cmd("c19", "DeleteUser", userId="u3"),
    cmd("c20", "RevokeSession", userId="u1", tokenId="Zq3tokenId0", expiresAt=4102444800),
    # A household: its list and cart are shared, then it is handed over, a member removed, and dissolved.
    cmd("h1", "CreateHousehold", userId="u1"),
    cmd("h2", "InviteToHousehold", userId="u1", codeDigest=CODE_A),
    cmd("h3", "JoinHousehold", userId="u2", codeDigest=CODE_A),
    cmd("h4", "AddGrocery", userId="u2", ingredient="Basil", amount=1),
    cmd("h5", "CheckGrocery", userId="u1", ingredient="basil", checked=True),
    cmd("h6", "AdjustCart", userId="u2", recipeId="r2", delta=1),
    cmd("h7", "StartCooking", userId="u1", recipeId="r2", minutes=5),
    cmd("h8", "InviteToHousehold", userId="u1", codeDigest=CODE_B),
    cmd("h9", "RevokeHouseholdInvite", userId="u1", inviteId=derived_id("i", "invite", "h8")),
    cmd("h10", "HandOverHousehold", userId="u1", memberId="u2"),
    cmd("h11", "RemoveHouseholdMember", userId="u2", memberId="u1"),
    cmd("h12", "LeaveHousehold", userId="u2"),
]

# Each is refused by the JSON Schema and by `pantry submit`, whatever the state of the log.
INVALID = {
    "missing data": {"commandId": "x1", "type": "SaveRecipe"},
    "unknown top-level field": {**cmd("x2", "RemoveSavedRecipe", userId="u1", recipeId="r"), "extra": 1},
    "unknown data field": cmd("x3", "UseOwnedIngredient", userId="u1", recipeId="r", ingredient="salt", points=5),
    "wrong type delta": cmd("x4", "AdjustCart", userId="u1", recipeId="r", delta="2"),
    "zero delta": cmd("x5", "AdjustCart", userId="u1", recipeId="r", delta=0),
    "delta too large": cmd("x6", "AdjustCart", userId="u1", recipeId="r", delta=100),
    "client title on a cart line": cmd("x18", "AdjustCart", userId="u1", recipeId="r", title="t", delta=1),
    "empty ingredient": cmd("x7", "UseOwnedIngredient", userId="u1", recipeId="r", ingredient="   "),
    "short username": cmd("x8", "RegisterUser", userId="u9", username="ab", email="ab@example.org", passwordHash=HASH),
    "bad email": cmd("x9", "RegisterUser", userId="u9", username="abc", email="not-an-email", passwordHash=HASH),
    "plain password": cmd("x10", "RegisterUser", userId="u9", username="abc", email="abc@example.org", passwordHash="hunter2"),
    "javascript image": cmd("x11", "SaveRecipe", userId="u1", recipeId="r",
                            recipe={"title": "t", "image": "javascript:alert(1)", "ingredients": ["salt"]}),
    "recipe without ingredients": cmd("x19", "UseOwnedIngredient", userId="u1", recipeId="r", ingredient="salt",
                                      recipe={"title": "t", "ingredients": []}),
    "unknown recipe field": cmd("x20", "SaveRecipe", userId="u1", recipeId="r",
                                recipe={"title": "t", "ingredients": ["salt"], "points": 9}),
    "username with a space": cmd("x21", "RegisterUser", userId="u9", username="an na", email="an@example.org", passwordHash=HASH),
    "text too long": cmd("x12", "WriteExperience", userId="u1", recipeId="r", text="a" * 2001),
    "unknown type": cmd("x13", "DeleteEverything", userId="u1"),
    "null recipe": cmd("x14", "SaveRecipe", userId="u1", recipeId="r", recipe=None),
    "bad user id": cmd("x15", "RemoveGrocery", userId="u 1", ingredient="salt"),
    "empty command id": cmd("", "RemoveGrocery", userId="u1", ingredient="salt"),
    "control character": cmd("x17", "WriteExperience", userId="u1", recipeId="r", text="bell\u0007"),
    "invite code in the clear": cmd("x22", "JoinHousehold", userId="u1", codeDigest="7K3M9QX2W4RTZ8C6VB1N"),
    "household named by the client": cmd("x23", "CreateHousehold", userId="u1", householdId="h-mine"),
    "removing nobody": cmd("x24", "RemoveHouseholdMember", userId="u1"),
}


def test_valid_commands_match_the_schemas_and_are_accepted(submit):
    for doc in VALID:
        assert command_errors(doc) == [], doc
    outcomes = [json.loads(line) for line in submit([json.dumps(d) for d in VALID])]
    assert [o["status"] for o in outcomes] == ["accepted"] * len(VALID), outcomes
    for outcome in outcomes:
        assert outcome_errors(outcome) == []


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_commands_are_refused_by_both(name, submit):
    doc = INVALID[name]
    assert command_errors(doc), f"the schema accepted {name}"
    setup = [json.dumps(VALID[0])]
    outcomes = [json.loads(line) for line in submit(setup + [json.dumps(doc)])]
    assert outcomes[0]["status"] == "accepted"
    assert outcomes[1]["status"] == "rejected", outcomes[1]
    assert outcome_errors(outcomes[1]) == []


def test_events_written_by_swift_match_the_schemas(submit, pantry_bin):
    submit([json.dumps(d) for d in VALID])
    result = subprocess.run([pantry_bin, "events", "--data", str(submit.data)], capture_output=True, timeout=60)
    events = [json.loads(line) for line in result.stdout.decode().splitlines()]
    recorded_recipes = 3  # each recipe's facts, once, with the first command that brought them
    assert len(events) == len(VALID) + recorded_recipes
    assert [e["position"] for e in events] == list(range(1, len(VALID) + recorded_recipes + 1))
    for event in events:
        assert recorded_event_errors(event) == [], event
    assert {e["type"] for e in events} == {
        "UserRegistered", "RecipeRecorded", "RecipeSaved", "SavedRecipeRemoved", "GroceryAdded", "GroceryChecked",
        "GroceryRemoved", "PointEarned", "CartAdjusted", "CookingStarted", "ExperienceWritten", "PasswordChanged",
        "UserDeleted", "SessionRevoked", "HouseholdCreated", "HouseholdInviteCreated", "HouseholdInviteRevoked",
        "HouseholdJoined", "HouseholdLeft", "HouseholdHandedOver"}
    shared = [e for e in events if e["type"] in ("GroceryAdded", "GroceryChecked", "CartAdjusted", "CookingStarted")
              and "household" in e["data"]]
    # Cooking is the cook's own, in a household too.
    assert not [e for e in events if e["type"] == "CookingStarted" and "household" in e["data"]]
    assert len(shared) == 3 and {e["data"]["household"] for e in shared} == {derived_id("h", "household", "h1")}
    assert all("hunter2" not in json.dumps(e) for e in events)
    # Personal fields are sealed: no username or email of any account is readable in the log.
    text = result.stdout.decode()
    for personal in ["anna.b", "Bob_2", "anna@example.org", "bob@example.org", "ánna", HASH]:
        assert personal not in text


def test_a_command_id_used_by_another_command_is_refused(submit):
    """The core does for any client what the API does with an Idempotency-Key reused for another
    request (checked in process, TrustRouteTests): the id's second command is refused."""
    lines = [json.dumps(cmd("reg-z", "RegisterUser", userId="z1", username="zed", email="zed@example.org", passwordHash=HASH)),
             json.dumps(cmd("reg-z", "DeleteUser", userId="z1"))]
    outcomes = [json.loads(line) for line in submit(lines)]
    assert [o["status"] for o in outcomes] == ["accepted", "rejected"], outcomes
    assert outcomes[1]["code"] == "command_id_reused"
