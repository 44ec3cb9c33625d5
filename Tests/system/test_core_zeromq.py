"""The core process over real ZeroMQ sockets, driven by pyzmq: a client in another language that
knows only what schemas/ documents."""
import json
import pathlib
import sys

import zmq

from pantry_processes import wait_for

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "contract"))
from contract import outcome_errors, recorded_event_errors  # noqa: E402

HASH = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"


def register(n):
    return {"commandId": f"reg-{n}", "type": "RegisterUser",
            "data": {"userId": f"u{n}", "username": f"user{n}", "email": f"user{n}@example.org", "passwordHash": HASH}}


# Thousands of points a second for one user: far past a person's pace, which is not what these test.
FAST = {"PANTRY_POINTS_PACE": "1000000000/0.001"}


def cooking(recipes=range(13), user=0):
    """The cart lines of `use`'s recipes with their timers started: what its points need."""
    return [command for r in recipes for command in (
        {"commandId": f"cart-{r}", "type": "AdjustCart", "data": {"userId": f"u{user}", "recipeId": f"r{r}", "delta": 1,
                                                                  "recipe": use(r, user)["data"]["recipe"]}},
        {"commandId": f"cook-{r}", "type": "StartCooking", "data": {"userId": f"u{user}", "recipeId": f"r{r}", "minutes": 1440}})]


def use(n, user=0):
    return {"commandId": f"use-{n}", "type": "UseOwnedIngredient",
            "data": {"userId": f"u{user}", "recipeId": f"r{n % 13}", "ingredient": f"ingredient {n // 13}",
                     "recipe": {"title": f"Recipe {n % 13}", "ingredients": [f"ingredient {i}" for i in range(200)]}}}


def connect(processes, kind):
    socket = zmq.Context.instance().socket(kind)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 10_000)
    name = "core-commands.sock" if kind in (zmq.DEALER, zmq.REQ) else "core-events.sock"
    socket.connect(f"ipc://{processes.data / name}")
    return socket


def started_core(processes):
    processes.start("core", env=FAST)
    wait_for(lambda: (processes.data / "core-events.sock").exists(), what="the core's sockets")


def test_a_pyzmq_subscriber_sees_every_event_in_order(processes):
    started_core(processes)
    feed = connect(processes, zmq.SUB)
    feed.setsockopt(zmq.SUBSCRIBE, b"")
    # The first heartbeat proves the subscription is live (ZeroMQ's slow joiner).
    wait_for(lambda: feed.recv_multipart()[0] == b"heartbeat", what="a heartbeat")

    commands = connect(processes, zmq.DEALER)
    documents = [register(0)] + cooking() + [use(n) for n in range(2000)]
    for doc in documents:
        commands.send(json.dumps(doc).encode())
    outcomes = [json.loads(commands.recv()) for _ in documents]
    assert all(o["status"] == "accepted" for o in outcomes)
    assert all(outcome_errors(o) == [] for o in outcomes)

    events = len(documents) + 13  # each of the 13 recipes is recorded once, with its cart line
    seen = []
    while len(seen) < events:
        topic, position, body = feed.recv_multipart()
        if topic == b"heartbeat":
            assert json.loads(body)["head"] == int(position)
            continue
        event = json.loads(body)
        assert topic.decode() == event["type"]
        assert int(position) == event["position"]
        assert recorded_event_errors(event) == []
        seen.append(event["position"])
    assert seen == list(range(1, events + 1))


def test_bad_frames_get_an_error_reply_and_the_core_keeps_serving(processes):
    started_core(processes)
    commands = connect(processes, zmq.DEALER)
    bad = {
        b"": "malformed_json",
        b"not json": "malformed_json",
        b"\xff\xfe\x00": "invalid_utf8",
        b"[1, 2]": "invalid_field",
        json.dumps({"commandId": "x", "type": "AdjustCart", "data": {"delta": "many"}}).encode(): "invalid_field",
        json.dumps({"commandId": "y", "type": "Nope", "data": {}}).encode(): "unknown_command",
        b'{"commandId":"z","pad":"' + b"x" * 200_000 + b'"}': "too_large",
    }
    for body, code in bad.items():
        commands.send(body)
        reply = json.loads(commands.recv())
        assert reply["status"] == "rejected" and reply["code"] == code, (body[:40], reply)
        assert outcome_errors(reply) == []

    # A REQ client with its empty delimiter is answered too, and the core still decides commands.
    req = connect(processes, zmq.REQ)
    req.send(json.dumps(register(1)).encode())
    assert json.loads(req.recv())["status"] == "accepted"
    commands.send(json.dumps(register(1)).encode())
    assert json.loads(commands.recv()) == {"commandId": "reg-1", "status": "accepted", "positions": [1], "duplicate": True}


def test_submit_goes_through_a_running_core(processes):
    started_core(processes)
    lines = "\n".join(json.dumps(d) for d in [register(0), *cooking([1]), use(1), use(1)]).encode() + b"\n"
    result = processes.run("submit", input=lines)
    assert result.returncode == 0, result.stderr
    outcomes = [json.loads(l) for l in result.stdout.decode().splitlines()]
    assert [o["status"] for o in outcomes] == ["accepted"] * 5
    assert outcomes[4].get("duplicate") is True


def test_a_restarted_core_starts_from_its_snapshot_and_decides_as_before(processes):
    """With a snapshot every 500 events, a killed core restarts from the snapshot plus the log
    after it: retries are still duplicates, points are still earned once, and a command id reused
    for another command is still refused."""
    def submit(documents):
        commands = connect(processes, zmq.DEALER)
        for document in documents:
            commands.send(json.dumps(document).encode())
        replies = [json.loads(commands.recv()) for _ in documents]
        commands.close()
        return replies

    core = processes.start("core", "--snapshot-every", "500", env=FAST)
    wait_for(lambda: (processes.data / "core-events.sock").exists(), what="the core's sockets")
    first = submit([register(0)] + cooking() + [use(n) for n in range(1200)])
    assert all(o["status"] == "accepted" for o in first)
    wait_for(lambda: (processes.data / "core.snapshot").exists(), what="a snapshot")
    core.kill()
    core.wait()
    (processes.data / "core-events.sock").unlink()

    processes.start("core", "--snapshot-every", "500", env=FAST)
    wait_for(lambda: (processes.data / "core-events.sock").exists(), what="the restarted core")
    head = max(p for o in first for p in o["positions"])
    log = (processes.data / "core-500-1.log").read_text()
    loaded = next(line for line in log.splitlines() if "loaded the log" in line)
    assert "snapshot=0" not in loaded and f"events={head}" in loaded, loaded
    again = submit([use(5), use(7), {**use(9), "data": {**use(9)["data"], "ingredient": "ingredient 150"}},
                    {**use(1300), "commandId": "use-1300"}, {**use(5), "commandId": "use-again-5"}])
    assert [o.get("duplicate") for o in again[:2]] == [True, True]
    assert again[2]["code"] == "command_id_reused"
    assert again[3]["status"] == "accepted"
    assert again[4]["code"] == "already_used", again[4]
