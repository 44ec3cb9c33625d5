"""The log in PostgreSQL (`PANTRY_LOG=postgres://...`): a SQLite log migrated into it serves the
same state, a killed writer leaves nothing partial in it, and it has one writer at a time."""
import json
import signal
import subprocess
import threading

import zmq

from pantry_processes import dealer, mixed_command, register, start_core_and_api, wait_for, ok
from test_workers import Core, assert_replay_matches, status, wait_caught_up

USERS = 40


def psql(url, sql):
    answer = subprocess.run(["psql", "-qAt", url, "-c", sql], capture_output=True, text=True)
    assert answer.returncode == 0, answer.stderr
    return answer.stdout.strip()


class RunningCore(Core):
    """A client of the core that already runs on the data directory (`Core` starts one)."""

    def __init__(self, processes):
        self.socket = dealer(processes.data / "core-commands.sock", timeout_ms=30_000)


def leaderboard_top(processes):
    socket = dealer(processes.data / "leaderboard-queries.sock")
    socket.send(json.dumps({"query": "top", "limit": 100}).encode())
    answer = json.loads(socket.recv())["result"]
    socket.close()
    return answer


def test_a_sqlite_log_migrated_into_postgres_serves_the_same_state(processes, postgres_log, monkeypatch):
    # Real traffic on the SQLite log: accounts and points over HTTP, a mix of every command over ZeroMQ.
    api = start_core_and_api(processes)
    recipe = api.catalog_recipe("egg")
    accounts = [api.register_and_log_in(f"cook{n}") for n in range(3)]
    for n, (_, token) in enumerate(accounts):
        api.start_cooking(recipe["id"], token)
        for i, ingredient in enumerate(recipe["ingredients"][: n + 2]):
            ok(api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": ingredient["name"]},
                        token=token, headers={"Idempotency-Key": f"use-{n}-{i}"}), 201)
    core = RunningCore(processes)
    assert all(o["status"] == "accepted" for o in core.submit([register(n) for n in range(USERS)]))
    first_outcomes = core.submit([mixed_command(n, USERS) for n in range(3_000)])
    wait_caught_up(processes)
    board_before = ok(api.get("/v1/leaderboard?limit=100"))["result"]
    top_before = leaderboard_top(processes)
    stats_before = json.loads(processes.run("stats", "--json").stdout)
    processes.stop_all()
    processes.running.clear()

    migrated = processes.run("migrate-log", "--to", postgres_log, "--batch", "1000")
    assert migrated.returncode == 0, migrated.stderr.decode()
    report = json.loads(migrated.stdout)
    assert report["verified"] and report["head"] == stats_before["head"] and report["events"] == stats_before["events"]
    assert b"copied" in migrated.stderr  # progress
    assert int(psql(postgres_log, "SELECT count(*) FROM events")) == stats_before["events"]

    # Every process on the PostgreSQL log, with its data directory as it was (snapshot, projections).
    monkeypatch.setenv("PANTRY_LOG", postgres_log)
    api = start_core_and_api(processes)
    assert json.loads(processes.run("stats", "--json").stdout) == stats_before
    wait_for(lambda: ok(api.get("/v1/leaderboard?limit=100"))["result"] == board_before, what="the same leaderboard")
    # The accounts come from the PostgreSQL log: an old account logs in and earns one more point.
    session = ok(api.post("/v1/sessions", {"username": "cook0", "password": "correct horse battery"}), 201)
    ingredient = recipe["ingredients"][-1]["name"]
    ok(api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": ingredient},
                token=session["token"]), 201)
    # Idempotency crossed over: a command sent again answers as the first time and appends nothing.
    core = RunningCore(processes)
    head = status(processes)["head"]
    accepted = [n for n in range(300) if first_outcomes[n]["status"] == "accepted"]
    again = core.submit([mixed_command(n, USERS) for n in accepted])
    assert again == [{**first_outcomes[n], "duplicate": True} for n in accepted] and len(accepted) > 100
    assert status(processes)["head"] == head
    core.submit([mixed_command(n, USERS) for n in range(3_000, 4_000)])

    report = wait_caught_up(processes)
    assert report["head"] > stats_before["head"]
    assert_replay_matches(processes)
    top = leaderboard_top(processes)
    earned = json.loads(processes.run("stats", "--json").stdout)["byType"]["PointEarned"]
    assert sum(e["points"] for e in top) == earned
    assert sum(e["points"] for e in top) > sum(e["points"] for e in top_before)

    # The two logs differ now: verifying says so, with a failing status.
    monkeypatch.delenv("PANTRY_LOG")
    processes.stop_all()
    differs = processes.run("migrate-log", "--to", postgres_log, "--verify-only")
    assert differs.returncode == 1, differs.stderr.decode()
    assert b"the logs differ" in differs.stderr


def test_migrating_into_a_log_that_holds_events_is_refused(processes, postgres_log):
    assert processes.run("submit", input=(json.dumps(register(1)) + "\n").encode()).returncode == 0
    first = processes.run("migrate-log", "--to", postgres_log)
    assert first.returncode == 0, first.stderr.decode()
    second = processes.run("migrate-log", "--to", postgres_log)
    assert second.returncode != 0 and b"already holds 1 events" in second.stderr


def test_a_second_core_on_the_same_postgres_log_is_refused(processes, postgres_log, tmp_path, monkeypatch):
    monkeypatch.setenv("PANTRY_LOG", postgres_log)
    core = Core(processes)
    assert core.submit([register(1)])[0]["status"] == "accepted"
    other = tmp_path / "other-host"
    other.mkdir()
    second = subprocess.run([processes.bin, "core", "--data", str(other)], capture_output=True, timeout=60)
    assert second.returncode != 0
    assert b"advisory lock" in second.stderr
    assert core.submit([register(2)])[0]["status"] == "accepted"


def test_a_core_killed_mid_append_leaves_nothing_partial_in_postgres(processes, postgres_log, monkeypatch):
    """SIGKILL while commands stream in, three times: positions stay dense from 1, every command
    answered "accepted" is in the log once, and the restarted core goes on from there."""
    monkeypatch.setenv("PANTRY_LOG", postgres_log)
    # Thousands of points a second for one user: far past a person's pace, which is not what this tests.
    monkeypatch.setenv("PANTRY_POINTS_PACE", "1000000000/0.001")
    acknowledged = {}
    n = 0
    for round in range(3):
        core_process = processes.start("core")
        wait_for(lambda: (processes.data / "core-commands.sock").exists(), what="the core")
        socket = dealer(processes.data / "core-commands.sock", timeout_ms=5_000)
        if round == 0:
            socket.send(json.dumps(register(0)).encode())
            assert json.loads(socket.recv())["status"] == "accepted"
        stop = threading.Event()

        def send(start):
            m = start
            while not stop.is_set():
                if m % 40 == 0:  # each recipe cooked before its first point
                    recipe = {"userId": "u0", "recipeId": f"r{m // 40}"}
                    for cooking in [{"commandId": f"cart-{m}", "type": "AdjustCart", "data": {**recipe, "delta": 1, "recipe": {
                                        "title": "Soup", "ingredients": [f"ingredient {i}" for i in range(40)]}}},
                                    {"commandId": f"cook-{m}", "type": "StartCooking", "data": {**recipe, "minutes": 1440}}]:
                        try:
                            socket.send(json.dumps(cooking).encode(), zmq.NOBLOCK)
                        except zmq.Again:
                            pass
                command = {"commandId": f"use-{m}", "type": "UseOwnedIngredient",
                           "data": {"userId": "u0", "recipeId": f"r{m // 40}", "ingredient": f"ingredient {m % 40}",
                                    "recipe": {"title": "Soup", "ingredients": [f"ingredient {i}" for i in range(40)]}}}
                try:
                    socket.send(json.dumps(command).encode(), zmq.NOBLOCK)
                except zmq.Again:
                    pass
                m += 1
                if m % 200 == 0:
                    stop.wait(0.005)

        sender = threading.Thread(target=send, args=(n,))
        sender.start()
        received = 0
        try:
            while received < 1_500:
                outcome = json.loads(socket.recv())
                if outcome["status"] == "accepted":
                    acknowledged[outcome["commandId"]] = outcome["positions"]
                received += 1
        finally:
            core_process.send_signal(signal.SIGKILL)
            core_process.wait()
            stop.set()
            sender.join()
            socket.close()
        n += 1_000_000

        positions = [int(p) for p in psql(postgres_log, "SELECT position FROM events ORDER BY position").split()]
        assert positions == list(range(1, len(positions) + 1)), "positions are dense"
        logged = dict(line.split("|", 1) for line in psql(
            postgres_log, "SELECT command_id, string_agg(position::text, ',' ORDER BY position) FROM events GROUP BY command_id").split("\n"))
        for command_id, answered in acknowledged.items():
            assert command_id in logged, f"{command_id} was acknowledged but is not in the log"
            assert [int(p) for p in logged[command_id].split(",")][-len(answered):] == answered
        uses = psql(postgres_log, "SELECT count(*), count(DISTINCT command_id) FROM events WHERE type = 'PointEarned'")
        total, distinct = uses.split("|")
        assert total == distinct, "no command was applied twice"
    assert len(acknowledged) >= 3 * 1_000
