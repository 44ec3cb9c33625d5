"""The operator proof (`X-Pantry-Operator`) is bound to its use (issue 45: one proof worked for 10
minutes, from any address, any number of times, and registered accounts past every per-address
limit): each proof is taken once, from loopback or a trusted proxy's address only, and every
outcome is counted and logged."""
import base64
import hashlib
import hmac
import secrets
import string
import time

from pantry_processes import start_core_and_api

TOKEN_KEY = "operator-proof-test-key-" + "k" * 24
PASSWORD = "correct horse battery"


def proof(key=TOKEN_KEY, lifetime=60):
    """A proof as `pantry loadtest` signs one: `<expiry>.<nonce>.<base64url HMAC-SHA256>`."""
    nonce = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(22))
    signed = f"{int(time.time()) + lifetime}.{nonce}"
    mac = hmac.new(key.encode(), f"pantry-operator.{signed}".encode(), hashlib.sha256).digest()
    return f"{signed}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def register(api, username, operator, headers=None):
    return api.post("/v1/accounts", {"username": username, "email": f"{username}@example.org", "password": PASSWORD},
                    headers={"X-Pantry-Operator": operator, **(headers or {})})


def counted(api, outcome):
    line = f'pantry_operator_proofs_total{{outcome="{outcome}"}} '
    found = [text for text in api.get("/metrics").body.decode().splitlines() if text.startswith(line)]
    return int(float(found[0][len(line):])) if found else 0


def test_an_operator_proof_used_twice_is_refused_the_second_time(processes):
    # 127.0.0.1 is a trusted proxy: a request it forwards comes from the address it names.
    api = start_core_and_api(processes, env={"PANTRY_TOKEN_KEY": TOKEN_KEY, "PANTRY_TRUSTED_PROXIES": "127.0.0.1"})
    once = proof()
    assert register(api, "op-first", once).status == 201
    again = register(api, "op-again", once)
    assert again.status == 403 and again.json["code"] == "invalid_operator_proof" and "used already" in again.json["detail"], again
    assert api.post("/v1/sessions", {"username": "op-again", "password": PASSWORD}).status == 401, "nothing was registered"
    assert register(api, "op-fresh", proof()).status == 201, "a fresh proof is taken"

    elsewhere = register(api, "op-elsewhere", proof(), headers={"X-Forwarded-For": "203.0.113.7"})
    assert elsewhere.status == 403 and "loopback" in elsewhere.json["detail"], elsewhere
    for bad in (proof(key="another key that is long enough to be one"), proof(lifetime=-1), "60." + "a" * 22 + ".x"):
        refused = register(api, "op-forged", bad)
        assert refused.status == 403 and refused.json["code"] == "invalid_operator_proof", refused

    assert [counted(api, outcome) for outcome in ("accepted", "reused", "address_not_allowed", "invalid")] == [2, 1, 1, 3]
    log = next(processes.data.glob("api-*.log")).read_text()
    assert "operator proof refused" in log and "203.0.113.7" in log and "reused" in log, log[-2000:]
