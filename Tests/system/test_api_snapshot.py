"""The API starts from its snapshot (accounts, revoked tokens and leaderboard standings at a log
position, checked against the log), so its first leaderboard read is answered at once rather than
after a fold of every point ever earned; a damaged or other-version snapshot is ignored with a log
line, never trusted."""
import hashlib
import json
import pathlib
import signal
import struct
import subprocess

from pantry_processes import APIClient, free_port, wait_for

EVENTS = 30_000  # folded in about 1 s by a debug build, which answers 503 meanwhile: a first 200 is the snapshot's
USERS = 5_000
TOP = "/v1/leaderboard?limit=100"


def fill(processes, events):
    bench = pathlib.Path(processes.bin).parent / "pantry-bench"
    subprocess.run([str(bench), "log", "--events", str(events), "--users", str(USERS), "--data", str(processes.data)],
                   check=True, capture_output=True, timeout=600)


def start_api(processes):
    """`pantry api` reading the log file itself (no core: nothing is written meanwhile)."""
    port = free_port()
    process = processes.start("api", "--port", str(port), "--password-cost", "10")
    return process, APIClient(port)


def first_answer(client, path):
    """The answer to the first request the API accepts."""
    def attempt():
        try:
            return client.get(path, timeout=30)
        except OSError:
            return None
    return wait_for(attempt, timeout=60, interval=0.005, what="the API to accept a connection")


def first_registration(client, username):
    """(user, token) of the first registration the API accepts while the core starts."""
    def registered():
        try:
            return client.register_and_log_in(username)
        except (OSError, AssertionError):
            return None
    return wait_for(registered, timeout=60, what="a registration")


def leaderboard_when_loaded(client, path=TOP):
    def attempt():
        try:
            answer = client.get(path, timeout=30)
        except OSError:
            return None
        return answer if answer.status == 200 else None
    return wait_for(attempt, timeout=300, interval=0.05, what="the API's leaderboard")


def stop(process):
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0


def api_log(processes):
    return "".join(p.read_text(errors="replace") for p in processes.data.glob("api-*.log"))


def test_an_api_started_beside_its_snapshot_answers_its_first_leaderboard_read_and_then_the_same_as_a_fold(processes):
    fill(processes, EVENTS)
    api, client = start_api(processes)
    folded = leaderboard_when_loaded(client)
    stop(api)
    snapshot = processes.data / "api.snapshot"
    assert snapshot.exists(), "the API writes its snapshot when it stops"

    api, client = start_api(processes)
    answer = first_answer(client, TOP)
    assert answer.status == 200, answer
    assert answer.json == folded.json
    stop(api)

    # Events written while the API was down are read after the snapshot's position: the answer
    # at the new head is the one a fold of the whole log gives.
    fill(processes, EVENTS + 5_000)
    head = json.loads(processes.run("stats", "--json").stdout)["head"]
    assert head >= EVENTS + 5_000
    api, client = start_api(processes)
    assert first_answer(client, TOP).status == 200
    from_snapshot = leaderboard_when_loaded(client, f"{TOP}&after={head}")
    stop(api)
    snapshot.unlink()
    api, client = start_api(processes)
    from_fold = leaderboard_when_loaded(client, f"{TOP}&after={head}")
    assert from_snapshot.json == from_fold.json and from_fold.json["position"] == head
    assert from_snapshot.json["position"] > folded.json["position"], "the tail was read after the snapshot"


def test_a_damaged_or_other_version_api_snapshot_is_ignored_with_a_log_line_and_the_log_is_folded(processes):
    fill(processes, 20_000)
    api, client = start_api(processes)
    folded = leaderboard_when_loaded(client)
    stop(api)
    snapshot = processes.data / "api.snapshot"
    good = snapshot.read_bytes()
    magic = b"PANTRY-API-SNAPSHOT\n"
    assert good.startswith(magic)

    damaged = bytearray(good)
    damaged[len(good) // 2] ^= 0x01
    body = good[: -32]
    other_version = magic + struct.pack("<I", 1) + body[len(magic) + 4:]
    other_version += hashlib.sha256(other_version).digest()
    for content, reason in [(bytes(damaged), "checksum does not match"), (other_version, "another version"),
                            (good[:100], "ignoring the API snapshot")]:
        snapshot.write_bytes(content)
        api, client = start_api(processes)
        assert leaderboard_when_loaded(client).json == folded.json
        stop(api)
        log = api_log(processes)
        assert "ignoring the API snapshot" in log and reason in log, reason
        for path in processes.data.glob("api-*.log"):
            path.unlink()


def test_a_token_revoked_before_the_snapshot_stays_refused_when_the_api_starts_from_it(processes):
    processes.start("core")
    api, client = start_api(processes)

    _, token = first_registration(client, "alice")
    _, kept = client.register_and_log_in("bob")
    assert client.delete("/v1/sessions/current", token=token).status == 204
    stop(api)
    assert (processes.data / "api.snapshot").exists()

    api, client = start_api(processes)
    assert "restored from the API snapshot" in wait_for(
        lambda: "restored from the API snapshot" in api_log(processes) and api_log(processes), what="the restore")

    def judged(token):
        try:
            answer = client.get("/v1/me", token=token)
        except OSError:
            return None
        return answer if answer.status != 503 else None
    assert wait_for(lambda: judged(token)).status == 401
    assert wait_for(lambda: judged(kept)).status == 200


def test_the_api_writes_its_snapshot_every_snapshot_every_positions_as_configured(processes):
    """`snapshot-every` is read by the API as by the core: with 1,000, an API that has folded a
    20,000-event log writes `api.snapshot` while it runs; with the default (100,000) it waits for
    its stop."""
    fill(processes, 20_000)
    snapshot = processes.data / "api.snapshot"
    process, client = start_api(processes)
    leaderboard_when_loaded(client)
    assert not snapshot.exists(), "the default waits for 100,000 positions or the stop"
    stop(process)
    assert snapshot.exists()
    snapshot.unlink()

    port = free_port()
    process = processes.start("api", "--port", str(port), "--password-cost", "10", env={"PANTRY_SNAPSHOT_EVERY": "1000"})
    leaderboard_when_loaded(APIClient(port))
    wait_for(snapshot.exists, timeout=30, what="the API's snapshot, written while it runs")
    assert process.poll() is None
    stop(process)


def test_after_a_start_from_the_snapshot_accounts_are_read_back_when_first_needed_and_a_deleted_one_stays_gone(processes):
    """The snapshot keeps no account's name, email or password hash, only where its events are:
    log-in by username or email works for an account registered before it, a wrong password still
    fails, an account deleted before it or after the start cannot log in, and a name on the
    leaderboard is read back from the registration."""
    processes.start("core")
    api, client = start_api(processes)

    alice, _ = first_registration(client, "alice")
    _, bob_token = client.register_and_log_in("bob")
    _, carol_token = client.register_and_log_in("carol")
    assert client.delete("/v1/me", body={"password": "correct horse battery"}, token=bob_token).status == 204
    stop(api)
    snapshot = (processes.data / "api.snapshot").read_bytes()
    for personal in [b"alice", b"carol", b"bob@example.org", b"scrypt"]:
        assert personal not in snapshot, personal

    api, client = start_api(processes)
    wait_for(lambda: "restored from the API snapshot" in api_log(processes), what="the restore")
    board = leaderboard_when_loaded(client, "/v1/leaderboard/around/" + alice + "?radius=0")
    assert [entry["username"] for entry in board.json["result"]] == ["alice"]

    def log_in(body):
        answer = client.post("/v1/sessions", body)
        assert answer.status != 503, answer
        return answer
    assert log_in({"username": "alice", "password": "correct horse battery"}).status == 201
    assert log_in({"email": "CAROL@example.org", "password": "correct horse battery"}).json["username"] == "carol"
    assert log_in({"username": "alice", "password": "wrong horse battery"}).status == 401
    assert log_in({"username": "bob", "password": "correct horse battery"}).status == 401
    assert client.delete("/v1/me", body={"password": "correct horse battery"}, token=carol_token).status == 204
    assert log_in({"username": "carol", "password": "correct horse battery"}).status == 401
