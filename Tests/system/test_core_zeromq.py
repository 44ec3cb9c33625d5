"""The core process over real ZeroMQ sockets, driven by pyzmq: a client in another language that
knows only what schemas/ documents."""
import fcntl
import json
import pathlib
import subprocess
import sys
import threading

import zmq

from pantry_processes import wait_for

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "contract"))
from contract import command_batch_errors, outcome_batch_errors, outcome_errors, recorded_event_errors  # noqa: E402

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
    largest = 0
    while len(seen) < events:
        # An event message: the topic, the last event's position, then 1 to 32 documents of that
        # type at consecutive positions (one send per run of a committed batch).
        topic, position, *bodies = feed.recv_multipart()
        if topic == b"heartbeat":
            assert len(bodies) == 1 and json.loads(bodies[0])["head"] == int(position)
            continue
        assert 1 <= len(bodies) <= 32
        largest = max(largest, len(bodies))
        for offset, body in enumerate(bodies):
            event = json.loads(body)
            assert topic.decode() == event["type"]
            assert event["position"] == int(position) - len(bodies) + 1 + offset
            assert recorded_event_errors(event) == []
            seen.append(event["position"])
    assert seen == list(range(1, events + 1))
    assert largest > 1, "2,000 pipelined commands were committed in batches, each run of points one message"


def test_bad_frames_get_an_error_reply_and_the_core_keeps_serving(processes):
    started_core(processes)
    commands = connect(processes, zmq.DEALER)
    bad = {
        b"": "malformed_json",
        b"not json": "malformed_json",
        b"\xff\xfe\x00": "invalid_utf8",
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


def test_submit_prints_each_lines_outcome_in_order_and_exits_1_when_any_was_refused(processes):
    """Through the real core, 2,000 lines in batch frames: a line that is not JSON is answered in its
    place, the others decided, every outcome printed in input order; the exit status says whether
    all were accepted."""
    started_core(processes)
    documents = [register(0), *cooking()] + [use(n) for n in range(2000)]
    lines = [json.dumps(d) for d in documents]
    lines.insert(30, "not json")
    result = processes.run("submit", input="\n".join(lines).encode() + b"\n")
    assert result.returncode == 1, result.stderr
    outcomes = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert len(outcomes) == len(lines)
    assert outcomes[30]["status"] == "rejected" and outcomes[30]["code"] == "malformed_json"
    rest = outcomes[:30] + outcomes[31:]
    assert [o["commandId"] for o in rest] == [d["commandId"] for d in documents]
    assert {o["status"] for o in rest} == {"accepted"}
    again = processes.run("submit", input="\n".join(json.dumps(d) for d in documents[-3:]).encode())
    assert again.returncode == 0, again.stderr
    assert [json.loads(line).get("duplicate") for line in again.stdout.decode().splitlines()] == [True] * 3


def test_submit_sends_the_lines_it_reads_together_as_batch_frames(processes):
    """`pantry submit` against a core that speaks schemas/zeromq.md, played by pyzmq to see the
    frames: 5,000 lines arrive in batch frames of hundreds (what each read of stdin brought, at most
    4,096 a frame), not one frame each,
    and each line still gets its own outcome, in order. A core that answers a batch with something
    else than its outcomes makes submit fail with a clear error, not print another command's answer."""
    lock = open(processes.data / "events.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running core holds
    core = zmq.Context.instance().socket(zmq.ROUTER)
    core.setsockopt(zmq.LINGER, 0)
    core.bind(f"ipc://{processes.data / 'core-commands.sock'}")
    # Small documents: submit sends what one read of its stdin brought, and a pipe brings 64 KiB.
    documents = [{"commandId": f"use-{n}", "type": "UseOwnedIngredient",
                  "data": {"userId": "u0", "recipeId": "r1", "ingredient": f"ingredient {n}"}} for n in range(5000)]
    frames = []

    def serve(answer, commands):
        """Answers as the core does: a batch frame with one frame for all, a single document alone."""
        while sum(len(f) if isinstance(f, list) else 1 for f in frames) < commands and core.poll(20_000):
            route, body = core.recv_multipart()
            frame = json.loads(body)
            frames.append(frame)
            reply = answer(frame if isinstance(frame, list) else [frame])
            if not isinstance(frame, list) and isinstance(reply, list):
                reply = reply[0]
            core.send_multipart([route, json.dumps(reply).encode()])

    def outcomes(batch):
        return [{"commandId": d["commandId"], "status": "rejected", "code": "already_used", "message": "x"}
                if d["commandId"] == "use-7" else {"commandId": d["commandId"], "status": "accepted", "positions": [1]}
                for d in batch]
    server = threading.Thread(target=serve, args=(outcomes, len(documents)))
    server.start()
    result = processes.run("submit", input="".join(json.dumps(d) + "\n" for d in documents).encode(), timeout=60)
    server.join()
    assert result.returncode == 1, result.stderr
    assert all(isinstance(f, list) and command_batch_errors(f) == [] and len(f) <= 4096 for f in frames)
    assert [d["commandId"] for f in frames for d in f] == [d["commandId"] for d in documents]
    assert len(frames) <= len(documents) // 100, f"{len(frames)} frames for {len(documents)} lines"
    printed = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [(o["commandId"], o["status"]) for o in printed] == [
        (d["commandId"], "rejected" if d["commandId"] == "use-7" else "accepted") for d in documents]

    frames.clear()
    refusing = threading.Thread(target=serve, args=(lambda batch: {"status": "rejected", "code": "invalid_field"}, 1))
    refusing.start()
    refused = subprocess.run([processes.bin, "submit", "--data", str(processes.data), "--timeout", "5"],
                             input=json.dumps(use(1)).encode(), capture_output=True, timeout=60)
    refusing.join()
    assert refused.returncode != 0 and refused.stdout == b""
    assert b"answered a batch of 1 commands with 0 outcomes" in refused.stderr, refused.stderr
    core.close()
    lock.close()


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


def test_a_batch_frame_is_answered_by_one_frame_of_its_outcomes_in_order(processes):
    """The batch frame (schemas/bus/command-batch.schema.json): commands in one JSON array, answered
    by one frame, the array of their outcomes in the same order, each what the command would get
    alone (a bad element is refused in its place, the others decided); single frames keep working
    on the same socket, and a frame that is not such an array gets one refusal."""
    started_core(processes)
    commands = connect(processes, zmq.DEALER)
    commands.send(json.dumps([register(0)] + cooking()).encode())
    assert {a["status"] for a in json.loads(commands.recv())} == {"accepted"}
    good = [use(1), use(1), {**use(2), "commandId": "use-1"}]
    assert command_batch_errors(good) == []
    documents = good + [{"commandId": "bad", "type": "AdjustCart", "data": {"delta": "many"}}, 7, use(3)]
    assert command_batch_errors(documents) != []
    commands.send(json.dumps(documents).encode())
    commands.send(json.dumps(use(4)).encode())
    answers = json.loads(commands.recv())
    assert isinstance(answers, list) and outcome_batch_errors(answers) == [], answers
    assert [(a.get("commandId"), a["status"], a.get("code")) for a in answers] == [
        ("use-1", "accepted", None), ("use-1", "accepted", None),
        ("use-1", "rejected", "command_id_reused"), ("bad", "rejected", "invalid_field"),
        (None, "rejected", "invalid_field"), ("use-3", "accepted", None)]
    assert answers[1]["duplicate"] is True and answers[1]["positions"] == answers[0]["positions"]
    single = json.loads(commands.recv())
    assert single["commandId"] == "use-4" and single["status"] == "accepted", single
    assert single["positions"][0] > answers[5]["positions"][-1]

    refused = {b"[]": "invalid_field", b"[1, ": "malformed_json", b" [1] x": "malformed_json",
               b"[" + b",".join([b"1"] * 4097) + b"]": "invalid_field"}
    for frame, code in refused.items():
        commands.send(frame)
        reply = json.loads(commands.recv())
        assert isinstance(reply, dict) and reply["status"] == "rejected" and reply["code"] == code, (frame[:20], reply)
        assert outcome_errors(reply) == []
    commands.send(b"[1, 2]")
    assert [(a["status"], a["code"]) for a in json.loads(commands.recv())] == [("rejected", "invalid_field")] * 2


def events_by_command(processes):
    """Every event in the log, as `pantry events` prints it: positions by command id, and all positions."""
    printed = processes.run("events")
    assert printed.returncode == 0, printed.stderr
    by_command, positions = {}, []
    for line in printed.stdout.decode().splitlines():
        event = json.loads(line)
        by_command.setdefault(event["metadata"]["commandId"], []).append(event["position"])
        positions.append(event["position"])
    return by_command, positions


def test_batches_cut_by_a_killed_core_resolve_each_command_exactly_once(processes):
    """Batch frames in flight when the core is SIGKILLed (some committed, some not, answers lost),
    and more queued by the client while it is down and delivered to the restarted core: sent
    again with the same command ids on another connection, every command is accepted once, one
    answered before the kill keeps its positions, and the log holds each command's events exactly
    once at dense positions."""
    core = processes.start("core", env=FAST)
    wait_for(lambda: (processes.data / "core-events.sock").exists(), what="the core's sockets")
    commands = connect(processes, zmq.DEALER)
    documents = [register(0)] + cooking() + [use(n) for n in range(2500)]
    batches = [documents[i:i + 50] for i in range(0, len(documents), 50)]
    answered = {}
    for batch in batches[:20]:
        commands.send(json.dumps(batch).encode())
    for outcome in json.loads(commands.recv()):  # the core is committing: kill it amid the rest
        answered[outcome["commandId"]] = outcome
    core.kill()
    core.wait()
    (processes.data / "core-events.sock").unlink()
    for batch in batches[20:40]:
        commands.send(json.dumps(batch).encode())
    committed_at_kill, _ = events_by_command(processes)
    assert 50 <= len(committed_at_kill) < len(documents), len(committed_at_kill)

    processes.start("core", env=FAST)
    wait_for(lambda: (processes.data / "core-events.sock").exists(), what="the restarted core")
    again = connect(processes, zmq.DEALER)
    again.setsockopt(zmq.RCVTIMEO, 60_000)  # 2,500 commands behind what the first connection queued
    for batch in batches:
        again.send(json.dumps(batch).encode())
    outcomes = [outcome for _ in batches for outcome in json.loads(again.recv())]
    assert [o["commandId"] for o in outcomes] == [d["commandId"] for d in documents]
    assert all(o["status"] == "accepted" for o in outcomes), [o for o in outcomes if o["status"] != "accepted"][:3]
    for outcome in outcomes:
        if outcome["commandId"] in committed_at_kill:
            assert outcome.get("duplicate") is True, outcome
        if outcome["commandId"] in answered:
            assert outcome["positions"] == answered[outcome["commandId"]]["positions"]
    # What the first connection still had queued reached the restarted core too: the same outcomes.
    first = {o["commandId"]: o for o in outcomes}
    commands.setsockopt(zmq.RCVTIMEO, 2000)
    while True:
        try:
            late = json.loads(commands.recv())
        except zmq.Again:
            break
        assert all(o["status"] == "accepted" and o["positions"] == first[o["commandId"]]["positions"] for o in late)

    by_command, positions = events_by_command(processes)
    assert positions == list(range(1, len(positions) + 1))
    assert {o["commandId"]: o["positions"] for o in outcomes} == by_command
