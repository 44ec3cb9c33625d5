"""`pantry replay NAME` while every process runs: the rebuild is swapped into the running worker,
no other process stops, queries are answered throughout without going back, the writes made
meanwhile are in the result, and it equals a replay (`--verify`). One replay of a projection at a
time. A worker killed as it swaps keeps a whole file, the old state or the new one."""
import fcntl
import json
import pathlib
import signal
import sqlite3
import subprocess
import threading
import time

import jsonschema
import zmq

from pantry_processes import Processes, start_core_and_api, wait_for
from test_workers import assert_replay_matches

SCHEMAS = pathlib.Path(__file__).resolve().parents[2] / "schemas" / "bus"


def ask(processes, worker, question, timeout=30_000, endpoint=None):
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, timeout)
    socket.connect(endpoint or f"ipc://{processes.data / f'{worker}-queries.sock'}")
    try:
        socket.send(json.dumps(question).encode())
        return json.loads(socket.recv())
    finally:
        socket.close()


def earn_points(api, users):
    """Every user earns 1-3 points on a real recipe they cook (cooking puts nothing in their cart)."""
    recipe = api.catalog_recipe("egg")
    ingredients = [i["name"] for i in recipe["ingredients"]]
    for n, (_, token) in enumerate(users):
        api.start_cooking(recipe["id"], token)
        for ingredient in ingredients[: 1 + n % 3]:
            earned = api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": ingredient}, token=token)
            assert earned.status == 201, earned
    return recipe


def leftovers(processes):
    return sorted(p.name for p in (processes.data / "projections").iterdir() if ".rebuild" in p.name)


def test_a_projection_is_swapped_into_its_running_worker_without_stopping_any_process(processes):
    api = start_core_and_api(processes)
    pids = [p.pid for p in processes.running]
    users = [api.register_and_log_in(f"cook{n}") for n in range(4)]
    recipe = earn_points(api, users)

    # While the replay runs: one thread puts the recipe in carts, another asks both workers and the API.
    stop = threading.Event()
    added = {user_id: 0 for user_id, _ in users}
    written = []
    failures = []
    positions = {"leaderboard": [], "carts": []}

    def write():
        n = 0
        while not stop.is_set() and n < 4 * 90:  # a cart line counts to 99 at most
            user_id, token = users[n % 4]
            answer = api.post("/v1/me/cart", {"recipeId": recipe["id"], "delta": 1}, token=token)
            if answer.status == 200:
                added[user_id] += 1
                written.append(answer.json["position"])
            else:
                failures.append(answer)
            n += 1

    def read():
        while not stop.is_set():
            for worker, question in (("leaderboard", {"query": "top", "limit": 10}),
                                     ("carts", {"query": "cart", "userId": users[0][0]})):
                answer = ask(processes, worker, question)
                if "result" in answer:
                    positions[worker].append(answer["position"])
                else:
                    failures.append(answer)
            # Read-your-writes across the swap: parked until the worker has applied the last write.
            after = written[-1] if written else 0
            cart = api.get(f"/v1/me/cart?after={after}", token=users[1][1])
            if cart.status != 200 or cart.json["position"] < after:
                failures.append((after, cart))

    threads = [threading.Thread(target=write), threading.Thread(target=read)]
    for thread in threads:
        thread.start()
    try:
        wait_for(lambda: len(written) >= 5, what="writes before the replay")
        replay = processes.run("replay", "leaderboard", "carts", timeout=300)
        during = len(written)
        wait_for(lambda: len(written) >= during + 5 or len(written) >= 4 * 90, what="writes after the replay")
    finally:
        stop.set()
        for thread in threads:
            thread.join()

    output = replay.stdout.decode() + replay.stderr.decode()
    assert replay.returncode == 0, output
    assert replay.stdout.decode().count("swapped into the running worker") == 2, output
    assert not failures, failures[:5]
    # No process stopped, none was restarted.
    assert [p.pid for p in processes.running] == pids
    assert all(p.poll() is None for p in processes.running)
    # Queries were answered throughout, and no answer went back to an earlier position.
    for worker, seen in positions.items():
        assert len(seen) > 3, (worker, seen)
        assert seen == sorted(seen), (worker, seen)
    for worker in ("leaderboard", "carts"):
        assert "swapped in a rebuild" in (processes.data / f"worker-{worker}-{2 + ['leaderboard', 'carts'].index(worker)}.log").read_text()
    # Every write made before, during and after the replay is in the swapped-in carts.
    last = max(written)
    for user_id, token in users:
        cart = api.get(f"/v1/me/cart?after={last}", token=token)
        assert cart.status == 200, cart
        lines = {line["recipeId"]: line["count"] for line in cart.json["result"]["lines"]}
        assert lines == ({recipe["id"]: added[user_id]} if added[user_id] else {}), (user_id, lines, added)
    # The running workers' files equal a replay of the log at their positions; nothing is left.
    assert_replay_matches(processes)
    assert leftovers(processes) == []
    # The rebuild was consumed: asking again (anyone who may query may ask) changes nothing.
    again = ask(processes, "carts", {"query": "swap"})
    jsonschema.validate(again, json.loads((SCHEMAS / "query-answer.schema.json").read_text()))
    assert again["error"]["code"] == "not_found", again


def test_a_damaged_projection_is_repaired_by_a_replay_while_its_worker_runs(processes):
    api = start_core_and_api(processes)
    users = [api.register_and_log_in(f"cook{n}") for n in range(5)]
    earn_points(api, users)
    right = ask(processes, "leaderboard", {"query": "top", "limit": 10})["result"]
    assert len(right) == 5 and right[0]["points"] > 1, right
    # Damaged behind the worker's back (a bug, a bad restore); its position does not move.
    with sqlite3.connect(processes.data / "projections" / "leaderboard.sqlite", timeout=10) as db:
        db.execute("UPDATE leaderboard_users SET points = 0")
    assert b"DIFFERENT" in processes.run("replay", "--verify", "leaderboard").stdout
    # An answer the worker keeps at its position: the damaged one.
    damaged = ask(processes, "leaderboard", {"query": "top", "limit": 9})
    assert damaged["result"] == [], damaged

    replay = processes.run("replay", "leaderboard")
    assert replay.returncode == 0 and b"swapped into the running worker" in replay.stdout, replay
    # Repaired, the kept answer forgotten, at the same position.
    repaired = ask(processes, "leaderboard", {"query": "top", "limit": 9})
    assert repaired["result"] == right[:9] and repaired["position"] == damaged["position"], repaired
    assert_replay_matches(processes, ["leaderboard"])


def test_a_worker_on_another_host_is_replayed_through_the_log_service_while_it_runs(processes, tmp_path):
    api = start_core_and_api(processes)
    users = [api.register_and_log_in(f"cook{n}") for n in range(5)]
    earn_points(api, users)
    log_service = f"ipc://{processes.data}/core-log.sock"
    head = ask(processes, None, {"read": "head"}, endpoint=log_service)["head"]
    # A worker with a directory of its own that reads the log only through the core's log service.
    host = Processes(processes.bin, tmp_path / "host")
    host.data.mkdir()
    worker = host.start("worker", "--log-service", log_service, "leaderboard",
                        env={"PANTRY_CORE_EVENTS": f"ipc://{processes.data}/core-events.sock"})
    try:
        question = {"query": "top", "limit": 10, "after": head, "wait": 10_000}
        before = ask(host, "leaderboard", question)
        assert len(before["result"]) == 5, before

        replay = host.run("replay", "--log-service", log_service, "leaderboard")
        assert replay.returncode == 0 and b"swapped into the running worker" in replay.stdout, replay
        assert worker.poll() is None
        assert ask(host, "leaderboard", question)["result"] == before["result"]
        verify = host.run("replay", "--verify", "--log-service", log_service, "leaderboard")
        assert verify.returncode == 0 and b": same at position" in verify.stdout, verify
    finally:
        host.stop_all()


def test_a_second_replay_of_a_projection_is_refused_while_one_runs(processes):
    processes.start("core")
    wait_for(lambda: (processes.data / "core-log.sock").exists() and (processes.data / "events.sqlite").exists(),
             timeout=60, what="the core to serve")
    (processes.data / "projections").mkdir(exist_ok=True)
    # What a replay of the leaderboard holds while it runs.
    with open(processes.data / "projections" / "leaderboard.replay.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for args in (["leaderboard"], ["--verify", "leaderboard"]):
            refused = processes.run("replay", *args)
            assert refused.returncode == 1, refused
            assert b"another replay of leaderboard is running" in refused.stderr, refused.stderr
            assert b"USAGE" not in refused.stderr
        # Another projection is not held up.
        other = processes.run("replay", "carts")
        assert other.returncode == 0, other.stderr
    # Once it ended, the replay runs; with no worker running it renames the rebuild over the file.
    alone = processes.run("replay", "leaderboard")
    assert alone.returncode == 0, alone.stderr
    assert b"swapped in with the worker stopped" in alone.stdout, alone.stdout
    assert leftovers(processes) == []


def test_a_worker_killed_as_it_swaps_in_a_rebuild_keeps_a_whole_file(processes, pantry_bin):
    api = start_core_and_api(processes)
    users = [api.register_and_log_in(f"cook{n}") for n in range(6)]
    earn_points(api, users)
    worker = processes.running[2]
    log = processes.data / "worker-leaderboard-2.log"
    replay = subprocess.Popen([pantry_bin, "replay", "leaderboard", "--data", str(processes.data)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Killed at the line the worker writes as it starts the swap.
    deadline = time.monotonic() + 120
    while b"swapping in a rebuild" not in log.read_bytes():
        assert time.monotonic() < deadline and replay.poll() is None, "the worker never started the swap"
        time.sleep(0.001)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    # The replay sees the worker gone within seconds, not at its two-minute timeout.
    out, err = replay.communicate(timeout=30)
    finished = {0: "swapped in with the worker stopped", 1: "took the rebuild and stopped before it answered"}
    assert replay.returncode in finished and finished[replay.returncode].encode() in out + err \
        or replay.returncode == 0 and b"swapped into the running worker" in out, (replay.returncode, out, err)
    # Started again, it serves from a whole file, the old state or the new one, equal to a replay.
    processes.start("worker", "leaderboard")
    def serves():
        try:
            return "result" in ask(processes, "leaderboard", {"query": "top", "limit": 10}, timeout=2_000)
        except zmq.Again:
            return False
    wait_for(serves, timeout=60, what="the worker to serve again")
    assert_replay_matches(processes, ["leaderboard"])
    assert leftovers(processes) == []
