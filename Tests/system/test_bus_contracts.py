"""A client written from `schemas/` alone, in Python with pyzmq: every message the processes send on
their ZeroMQ sockets (heartbeats, query answers, fetch answers) is valid against the schemas in
`schemas/bus/`, what those schemas allow is accepted, and what they refuse is refused."""
import json
import pathlib

import jsonschema
import pytest
import zmq
from referencing import Registry, Resource

from pantry_processes import PROJECTIONS, start_core_and_api

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUS = ROOT / "schemas" / "bus"


def schema(name):
    document = json.loads((BUS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    return document


def validator(name, subschema=None):
    document = schema(name)
    if subschema is not None:
        document = {**document["$defs"]["results"][subschema], "$defs": document.get("$defs", {})}
    return jsonschema.Draft202012Validator(document)


def dealer(path):
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 30_000)
    socket.connect(f"ipc://{path}")
    return socket


def ask(socket, document):
    socket.send(json.dumps(document).encode() if not isinstance(document, bytes) else document)
    return json.loads(socket.recv())


@pytest.fixture
def deployment(processes):
    api = start_core_and_api(processes)
    user_id, token = api.register_and_log_in("contract-cook")
    recipe = api.catalog_recipe("egg")
    steps = [
        api.put(f"/v1/me/favourites/{recipe['id']}", token=token),
        api.post("/v1/me/groceries", {"ingredient": "Flour", "amount": 500, "unit": "g", "recipeId": recipe["id"]}, token=token),
        api.post("/v1/me/cart", {"recipeId": recipe["id"], "delta": 2}, token=token),
        api.post(f"/v1/me/cooking/{recipe['id']}", {"minutes": 30}, token=token),
        api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": recipe["ingredients"][0]["name"]}, token=token),
        api.post(f"/v1/recipes/{recipe['id']}/experiences", {"text": "Lovely."}, token=token),
    ]
    assert all(step.status in (200, 201) for step in steps), steps
    return processes, user_id, recipe, max(step.json["position"] for step in steps)


def test_every_query_answer_follows_the_schema(deployment):
    processes, user_id, recipe, position = deployment
    query = validator("query")
    answer = validator("query-answer")
    asked = {
        "leaderboard": [{"query": "top", "limit": 10}, {"query": "entry", "userId": user_id},
                        {"query": "around", "userId": user_id, "radius": 2}],
        "carts": [{"query": "cart", "userId": user_id}, {"query": "cooking", "userId": user_id}],
        "favourites": [{"query": "list", "userId": user_id}, {"query": "search", "userId": user_id, "text": recipe["title"][:3]},
                       {"query": "suggestion", "userId": user_id}],
        "groceries": [{"query": "list", "userId": user_id}],
        "experiences": [{"query": "list", "recipeId": recipe["id"], "limit": 5}],
    }
    for worker in PROJECTIONS:
        socket = dealer(processes.data / f"{worker}-queries.sock")
        for question in asked[worker] + [{"query": "status"}]:
            question = {**question, "after": position, "wait": 5000}
            query.validate(question)
            reply = ask(socket, question)
            answer.validate(reply)
            assert "result" in reply, (worker, question, reply)
            name = "status" if question["query"] == "status" else f"{worker}.{question['query']}"
            validator("query-answer", name).validate(reply["result"])
        # What the schema refuses, the worker refuses: an unknown field, a wrong type.
        for bad in ({"query": "top", "limt": 5}, {"query": "top", "limit": "5"}, {"after": 1}):
            assert not query.is_valid(bad)
            reply = ask(socket, bad)
            answer.validate(reply)
            assert reply["error"]["code"] == "bad_query", (worker, bad, reply)
        socket.close()
    # What the person cooks is answered apart from the cart, as the schema says.
    cooking = ask(dealer(processes.data / "carts-queries.sock"), {"query": "cooking", "userId": user_id})
    assert [t["minutes"] for t in cooking["result"]] == [30]
    assert ask(dealer(processes.data / "carts-queries.sock"), {"query": "cart", "userId": user_id})["result"]["totals"]["items"] == 2


def test_heartbeats_follow_the_schema(deployment):
    processes, *_ = deployment
    heartbeat = validator("heartbeat")
    socket = zmq.Context.instance().socket(zmq.SUB)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 5_000)
    socket.setsockopt(zmq.SUBSCRIBE, b"heartbeat")
    socket.connect(f"ipc://{processes.data / 'core-events.sock'}")
    for _ in range(3):
        topic, position, body = socket.recv_multipart()
        document = json.loads(body)
        heartbeat.validate(document)
        assert topic == b"heartbeat" and int(position) == document["head"]
    socket.close()


def test_every_fetch_request_kind_is_answered_as_the_schema_says(deployment):
    processes, _, recipe, _ = deployment
    request = validator("fetch-request")
    answer = validator("fetch-answer")
    socket = dealer(processes.data / "fetch.sock")
    good = [
        {"kind": "byIngredients", "ingredients": ["egg", "tomato"], "number": 3},
        {"kind": "search", "query": "soup", "diet": "vegetarian", "maxReadyTime": 60, "offset": 0, "number": 3, "deadlineMs": 5000},
        {"kind": "detail", "id": recipe["id"]},
        {"kind": "random", "count": 2},
        {"kind": "autocomplete", "prefix": "tom", "number": 5},
        {"kind": "featured", "day": "2026-11-25"},
        {"kind": "liked", "ids": [recipe["id"], "mealdb:52772"], "day": "2026-11-25", "number": 5},
        {"kind": "feed", "seed": 18446744073709551615, "offset": 10, "count": 3, "client": "contract"},
        {"kind": "detail", "id": "catalog:no-such-recipe"},
    ]
    for document in good:
        request.validate(document)
        reply = ask(socket, document)
        answer.validate(reply)
        # Asked again, most kinds are answered from the worker's memo, by its socket thread.
        again = ask(socket, document)
        answer.validate(again)
        if document["kind"] != "random":
            assert again == reply, (again, reply)
    assert ask(socket, good[-1])["error"] == {"error": "notFound"}
    for bad in ({"kind": "byIngredients", "ingredients": []}, {"kind": "random", "count": 1000},
                {"kind": "featured", "day": "tomorrow"}, {"kind": "nope"}, {"kind": "search"},
                {"kind": "liked", "ids": [], "day": "2026-11-25"}, {"kind": "liked", "ids": ["x"], "day": "2026-11-25"},
                {"kind": "liked", "ids": [recipe["id"]], "day": "2026-11-25", "number": 101},
                {"kind": "random", "count": 2, "colour": "red"}, {"kind": "detail", "id": recipe["id"], "query": "x"}):
        assert not request.is_valid(bad), bad
        reply = ask(socket, bad)
        answer.validate(reply)
        assert reply["ok"] is False and reply["error"]["error"] == "badRequest", (bad, reply)
    socket.close()


def test_an_integer_written_with_a_zero_fraction_is_the_integer(deployment):
    """`delta: -1.0` is an integer to JSON Schema, so the core takes it as -1."""
    processes, user_id, recipe, _ = deployment
    command = {"commandId": "contract-delta-1", "type": "AdjustCart",
               "data": {"userId": user_id, "recipeId": recipe["id"], "delta": -1.0}}
    document = json.loads((ROOT / "schemas" / "commands" / "AdjustCart.schema.json").read_text())
    defs = json.loads((ROOT / "schemas" / "commands" / "defs.schema.json").read_text())
    registry = Registry().with_resource(defs["$id"], Resource.from_contents(defs))
    jsonschema.Draft202012Validator(document, registry=registry).validate(command)
    core = dealer(processes.data / "core-commands.sock")
    outcome = ask(core, command)
    assert outcome["status"] == "accepted", outcome
    cart = ask(dealer(processes.data / "carts-queries.sock"),
               {"query": "cart", "userId": user_id, "after": outcome["positions"][-1]})
    assert cart["result"]["lines"][0]["count"] == 1
    # The same id again is the same outcome: resending after a lost answer is safe.
    again = ask(core, command)
    assert again["status"] == "accepted" and again.get("duplicate") is True and again["positions"] == outcome["positions"]


def test_the_log_service_answers_range_reads_as_the_schemas_say(deployment):
    """What a worker on another host reads instead of the log's file: every read kind, bounded
    answers whose event frames are recorded-event documents with personal fields opened, and
    clear refusals of what the request schema refuses."""
    processes, user_id, _, position = deployment
    request, answer = validator("log-request"), validator("log-answer")
    envelope = jsonschema.Draft202012Validator(json.loads((ROOT / "schemas" / "recorded-event.schema.json").read_text()))
    socket = dealer(processes.data / "core-log.sock")

    def read(document):
        request.validate(document)
        socket.send(json.dumps(document).encode())
        header, *frames = socket.recv_multipart()
        header = json.loads(header)
        answer.validate(header)
        assert header["events"] == len(frames), header
        events = [json.loads(frame) for frame in frames]
        for event in events:
            envelope.validate(event)
        return header, events

    header, _ = read({"read": "head"})
    head = header["head"]
    assert head >= position
    header, events = read({"read": "range", "after": 0, "limit": 1_000_000})
    assert [e["position"] for e in events] == list(range(1, head + 1)) and header["through"] == head
    # The account's personal fields come opened, so the reader needs no key file.
    registered = next(e for e in events if e["type"] == "UserRegistered" and e["data"]["userId"] == user_id)
    assert "sealed" not in registered["data"] and registered["data"]["opened"]["username"] == "contract-cook"
    # So do a grocery item's names and a tip's text (sealed since issue 32), beside the clear fields.
    grocery = next(e for e in events if e["type"] == "GroceryAdded" and e["data"]["userId"] == user_id)
    assert grocery["data"]["opened"]["ingredient"] == "Flour" and grocery["data"]["amount"] == 500
    tip = next(e for e in events if e["type"] == "ExperienceWritten" and e["data"]["userId"] == user_id)
    assert tip["data"]["opened"] == {"text": "Lovely."} and "sealed" not in tip["data"]
    header, events = read({"read": "types", "after": 0, "through": head + 100, "types": ["CartAdjusted", "CookingStarted"]})
    assert {e["type"] for e in events} == {"CartAdjusted", "CookingStarted"} and header["through"] == head
    header, events = read({"read": "positions", "positions": [head, 1, head + 5]})
    assert [e["position"] for e in events] == [1, head]
    for bad in ({"read": "range", "after": 0}, {"read": "range", "after": -1, "limit": 5},
                {"read": "range", "after": 0, "limit": 5, "extra": 1}, {"read": "everything"},
                {"read": "positions", "positions": list(range(1, 10_002))},
                {"read": "snapshot", "projection": "../events", "position": 0, "offset": 0},
                {"read": "snapshot", "projection": "carts", "position": 0}):
        assert not request.is_valid(bad), bad
        socket.send(json.dumps(bad).encode())
        frames = socket.recv_multipart()
        assert len(frames) == 1, bad
        reply = json.loads(frames[0])
        answer.validate(reply)
        assert reply["error"]["code"] == "bad_request", (bad, reply)
    socket.send(b"not json")
    assert json.loads(socket.recv())["error"]["code"] == "bad_request"
    # No worker here left a snapshot (they do every 300 s by default): a snapshot read is refused alone.
    snapshot = {"read": "snapshot", "projection": "carts", "position": 0, "offset": 0}
    request.validate(snapshot)
    socket.send(json.dumps(snapshot).encode())
    frames = socket.recv_multipart()
    assert len(frames) == 1
    validator("snapshot-answer").validate(json.loads(frames[0]))
    assert json.loads(frames[0])["error"]["code"] == "not_found"
    socket.close()


def test_the_log_service_answers_counted_reads_as_the_schemas_say(deployment):
    """The API's "already counted" asked of the log service on another host: one frame of the
    user's point keys for the recipe, at a head that covers the point; ids a command would refuse
    are refused, nothing read."""
    processes, user_id, recipe, position = deployment
    request, answer = validator("log-request"), validator("counted-answer")
    socket = dealer(processes.data / "core-log.sock")

    def counted(document):
        socket.send(json.dumps(document).encode())
        frames = socket.recv_multipart()
        assert len(frames) == 1, frames
        reply = json.loads(frames[0])
        answer.validate(reply)
        return reply

    asked = {"read": "counted", "userId": user_id, "recipeId": recipe["id"]}
    request.validate(asked)
    reply = counted(asked)
    assert reply["head"] >= position and len(reply["ingredients"]) == 1, reply
    other = {"read": "counted", "userId": "nobody", "recipeId": recipe["id"]}
    assert counted(other)["ingredients"] == []
    for bad in ({"read": "counted", "userId": user_id}, {"read": "counted", "userId": "u/../x", "recipeId": "r"},
                {"read": "counted", "userId": user_id, "recipeId": "r" * 129},
                {"read": "counted", "userId": user_id, "recipeId": " \u0007"},
                {"read": "counted", "userId": user_id, "recipeId": "r", "limit": 5}):
        assert not request.is_valid(bad), bad
        assert counted(bad)["error"]["code"] == "bad_request", bad
    socket.close()
