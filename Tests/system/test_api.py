"""`pantry api` as a real process in front of a real `pantry core`: what needs the processes or the
clock (log-in throttling and refresh in real seconds, a restart, the processes' own logs, a core
that stops). Every other answer of the API is checked in process, in Swift (Tests/PantryRouteTests)."""
import json
import os
import signal
import stat
import time

import pytest

from pantry_processes import start_core_and_api, wait_for

TOKEN_KEY = "a test token key of at least thirty-two bytes"
PASSWORD = "Sesame-0pen sesame"


@pytest.fixture
def api(processes):
    return start_core_and_api(processes, env={"PANTRY_TOKEN_KEY": TOKEN_KEY}, api_args=("--core-timeout", "2"))


def is_problem(answer, status, code=None):
    assert answer.status == status, answer
    assert answer.headers["content-type"] == "application/problem+json", answer.headers
    document = answer.json
    assert document["status"] == status
    assert document["type"] == f"https://pantry.example/problems/{document['code']}"
    assert document["title"] and document["detail"]
    if code is not None:
        assert document["code"] == code, document
    return document


# Accounts and sessions

def test_repeated_failed_logins_are_slowed_down(shared_api):
    api = shared_api
    api.register_and_log_in("emil", PASSWORD)
    for _ in range(5):
        is_problem(api.post("/v1/sessions", {"username": "emil", "password": "wrong password"}), 401)
    # Even the right password has to wait now, and another account is not affected.
    throttled = api.post("/v1/sessions", {"username": "emil", "password": PASSWORD})
    is_problem(throttled, 429, "too_many_attempts")
    assert throttled.headers["retry-after"] == "1"
    api.register_and_log_in("fred", PASSWORD)
    time.sleep(1.1)
    is_problem(api.post("/v1/sessions", {"username": "emil", "password": "wrong again"}), 401)
    started = time.monotonic()
    again = api.post("/v1/sessions", {"username": "emil", "password": PASSWORD})
    held = time.monotonic() - started
    is_problem(again, 429, "too_many_attempts")
    # The wait is now 2 s: the refusal is held 0.5-1.5 of them (the tarpit) and names the rest.
    retry_after = int(again.headers["retry-after"])
    assert held >= 0.45 and retry_after in (1, 2) and held + retry_after >= 1.95, (held, retry_after)
    time.sleep(max(0, 2.1 - held))
    assert api.post("/v1/sessions", {"username": "emil", "password": PASSWORD}).status == 201
    # A success clears the record.
    is_problem(api.post("/v1/sessions", {"username": "emil", "password": "wrong"}), 401)
    assert api.post("/v1/sessions", {"username": "emil", "password": PASSWORD}).status == 201


# Security

def test_a_session_refreshed_before_it_expires_gets_a_later_token_and_the_old_one_ends(shared_api):
    """Issue 33, point 7: tokens last 24 h and nothing renewed them; the web app refreshes an hour ahead."""
    api = shared_api
    user_id, _ = api.register_and_log_in("renewing-cook")
    first = api.post("/v1/sessions", {"username": "renewing-cook", "password": "correct horse battery"}).json
    token = first["token"]
    time.sleep(1.1)  # expiry is in whole seconds: the new one must be later
    renewed = api.post("/v1/sessions/current/refresh", token=token)
    assert renewed.status == 201 and renewed.json["userId"] == user_id and renewed.json["username"] == "renewing-cook", renewed
    assert renewed.json["expiresAt"] > first["expiresAt"]
    assert renewed.headers["cache-control"] == "no-store"
    assert api.get("/v1/me", token=renewed.json["token"]).status == 200
    is_problem(api.get("/v1/me", token=token), 401, "invalid_token")
    is_problem(api.post("/v1/sessions/current/refresh", token=token), 401, "invalid_token")
    is_problem(api.post("/v1/sessions/current/refresh"), 401, "invalid_token")


def test_the_key_file_and_revocations_survive_a_restart(processes):
    api = start_core_and_api(processes)
    key_file = processes.data / "api-token.key"
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    _, token = api.register_and_log_in("mia")
    _, revoked = api.register_and_log_in("ned")
    assert api.delete("/v1/sessions/current", token=revoked).status == 204
    api_process = processes.running[1]
    api_process.send_signal(signal.SIGTERM)
    assert api_process.wait(timeout=10) == 0
    processes.start("api", "--port", str(api.port))
    wait_for(api.ready, what="the restarted API")
    assert api.get("/v1/me", token=token).status == 200
    is_problem(api.get("/v1/me", token=revoked), 401, "invalid_token")


def test_passwords_and_tokens_never_reach_a_log(api, processes):
    password = "Unique-Password-4242-never-logged"
    _, token = api.register_and_log_in("olga", password)
    api.post("/v1/sessions", {"username": "olga", "password": password + "x"})
    api.put("/v1/me/favourites/catalog:shakshuka", token=token)
    log = processes.run("events").stdout.decode()
    registered = [json.loads(line) for line in log.splitlines() if '"UserRegistered"' in line]
    assert set(registered[0]["data"]) == {"userId", "sealed"}, "personal fields are sealed in the log"
    processes.stop_all()
    logs = [processes.run("events").stdout] + [path.read_bytes() for path in processes.data.glob("*.log")]
    access = (processes.data / "access.log").read_bytes()
    assert b" POST /v1/sessions 201 " in access and b" POST /v1/sessions 401 " in access, "one line per request"
    for text in logs:
        assert password.encode() not in text
        assert token.encode() not in text
        assert token.split(".")[1].encode() not in text


# Operations

def test_a_core_that_does_not_answer_gives_503_and_recovery_follows(api, processes):
    _, token = api.register_and_log_in("pia")
    core = processes.running[0]
    core.send_signal(signal.SIGTERM)
    core.wait(timeout=10)
    started = time.monotonic()
    answer = api.put("/v1/me/favourites/catalog:shakshuka", token=token, headers={"Idempotency-Key": "k-503"})
    assert time.monotonic() - started < 10
    is_problem(answer, 503, "core_unavailable")
    assert answer.headers["retry-after"] == "1"
    wait_for(lambda: api.get("/ready").status == 503, timeout=10, what="/ready to notice")
    is_problem(api.get("/ready"), 503, "not_ready")
    assert api.get("/health").json == {"status": "ok"}

    processes.start("core")
    wait_for(api.ready, what="the API to see the core again")
    retried = api.put("/v1/me/favourites/catalog:shakshuka", token=token, headers={"Idempotency-Key": "k-503"})
    assert retried.status == 201, retried


