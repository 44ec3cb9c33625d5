"""Pantry with no shared files: the core, every worker, the fetch worker and two API processes each
have their own data directory and meet only over `tcp://127.0.0.1`, with nginx in front of the two
APIs, serving HTTPS with a self-signed certificate. A logout on one API is honoured by the other
within a second, read-your-writes holds across them, and a worker started on an empty directory
catches up over the network to the state a replay of the log gives. Plain HTTP to nginx only
redirects; a client that does not trust the certificate, or an old protocol or cipher, gets no
connection."""
import json
import os
import shutil
import socket
import ssl
import subprocess
import time
import warnings

import pytest
import zmq

from pantry_processes import PROJECTIONS, APIClient, Processes, free_port, mixed_command, register, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ask(endpoint, request):
    """The first frame of a bus endpoint's answer to `request`, as JSON (pyzmq, an independent client)."""
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 10_000)
    socket.connect(endpoint)
    socket.send(json.dumps(request).encode())
    answer = json.loads(socket.recv_multipart()[0])
    socket.close()
    return answer


def head_of_log(endpoint):
    return ask(endpoint, {"read": "head"})["head"]


def worker_position(endpoint):
    return ask(endpoint, {"query": "status"})["position"]


def self_signed(directory, *names):
    """A certificate and key for `names`, made by ops/hosts/self-signed-cert: their paths."""
    made = subprocess.run([os.path.join(ROOT, "ops", "hosts", "self-signed-cert"), str(directory), *names],
                          capture_output=True, timeout=30)
    assert made.returncode == 0, made.stderr.decode()
    return str(directory / "cert.pem"), str(directory / "key.pem")


def handshake(port, context, server_hostname="127.0.0.1"):
    """The protocol and cipher of a TLS connection to `port`, or the error that prevented it."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with context.wrap_socket(raw, server_hostname=server_hostname) as connection:
                return connection.version(), connection.cipher()[0]
    except (ssl.SSLError, ConnectionError) as error:
        return error


def assert_modern_tls_only(port, certificate, directory):
    """HTTPS on `port` serves `certificate` (made for 127.0.0.1) with TLS 1.2 or 1.3 and a
    forward-secret AEAD cipher only: every other client fails the handshake."""
    trusting = ssl.create_default_context(cafile=certificate)
    assert handshake(port, trusting)[0] == "TLSv1.3"
    twelve = ssl.create_default_context(cafile=certificate)
    twelve.maximum_version = ssl.TLSVersion.TLSv1_2
    protocol, cipher = handshake(port, twelve)
    assert protocol == "TLSv1.2" and cipher.startswith("ECDHE-") and ("GCM" in cipher or "CHACHA20" in cipher), cipher
    # The system's trust anchors do not vouch for it, nor does another self-signed certificate.
    other, _ = self_signed(directory / "other-tls", "127.0.0.1")
    for context in (ssl.create_default_context(), ssl.create_default_context(cafile=other)):
        assert isinstance(handshake(port, context), ssl.SSLCertVerificationError)
    # Trusted, but asked for another name.
    assert isinstance(handshake(port, trusting, server_hostname="pantry.example.org"), ssl.SSLCertVerificationError)
    # TLS 1.1, and ciphers without forward secrecy or without AEAD, offered by a client that would
    # take them: refused by nginx (its alert), not by the client's own settings.
    old = ssl.create_default_context(cafile=certificate)
    old.set_ciphers("ALL:@SECLEVEL=0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # TLS 1.1 is deprecated: that is the point
        old.minimum_version = old.maximum_version = ssl.TLSVersion.TLSv1_1
    assert getattr(handshake(port, old), "reason", None) == "TLSV1_ALERT_PROTOCOL_VERSION"
    for weak in ("AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384"):
        client = ssl.create_default_context(cafile=certificate)
        client.maximum_version = ssl.TLSVersion.TLSv1_2
        client.set_ciphers(weak)
        assert getattr(handshake(port, client), "reason", None) == "SSLV3_ALERT_HANDSHAKE_FAILURE", weak


@pytest.fixture
def hosts(pantry_bin, tmp_path):
    """One `Processes` per host (its own data directory), the shared environment, and nginx."""
    endpoints = {"PANTRY_CORE_COMMANDS": free_port(), "PANTRY_CORE_EVENTS": free_port(), "PANTRY_CORE_LOG": free_port(),
                 "PANTRY_FETCH_ENDPOINT": free_port(),
                 **{f"PANTRY_{name.upper()}_QUERIES": free_port() for name in PROJECTIONS}}
    env = {name: f"tcp://127.0.0.1:{port}" for name, port in endpoints.items()}
    # Loopback only, and pyzmq asks the log service and the workers directly: the network is declared
    # trusted here; test_netns_hosts.py runs the hosts with CURVE keys.
    env["PANTRY_INSECURE_NETWORK"] = "true"
    # A deployment copies the token key to every API host; the rates are raised for the test's one client.
    env.update(PANTRY_TOKEN_KEY="k" * 48, PANTRY_LOGIN_RATE_PER_CLIENT="10000", PANTRY_LOGIN_RATE_OVERALL="10000")
    made = []

    def host(name):
        data = tmp_path / name
        data.mkdir()
        made.append(Processes(pantry_bin, data))
        return made[-1]

    nginx = []
    yield host, env, nginx
    for process in nginx:
        process.terminate()
        process.wait(timeout=10)
    for processes in reversed(made):
        processes.stop_all()


def test_api_processes_on_separate_directories_share_logouts_reads_and_the_log(hosts, tmp_path):
    host, env, nginx = hosts
    core = host("core")
    core.start("core", env=env)
    for name in PROJECTIONS:
        host(f"worker-{name}").start("worker", name, env=env)
    host("fetch").start("fetch", env=env)
    apis = []
    for n in (1, 2):
        port = free_port()
        host(f"api-{n}").start("api", "--port", str(port), "--password-cost", "10", env=env)
        apis.append(APIClient(port))
    for api in apis:
        wait_for(api.ready, timeout=60, what="both APIs to be ready")
        # Every readiness answer says the network is open, not one line at start (issue 45).
        assert api.get("/ready").json["network"] == "insecure"
    # No process but the core has the log or the keys.
    for directory in tmp_path.iterdir():
        if directory.name != "core" and directory.is_dir():
            assert not (directory / "events.sqlite").exists() and not (directory / "user-keys.sqlite").exists(), directory

    # nginx as a deployment runs it (ops/hosts/balancer), on loopback, with a self-signed certificate.
    certificate, key = self_signed(tmp_path / "tls", "127.0.0.1")
    port, http_port = free_port(), free_port()
    (tmp_path / "nginx").mkdir()
    balancer = {**os.environ, "PANTRY_DATA": str(tmp_path / "nginx"), "PANTRY_HOST": "127.0.0.1",
                "PANTRY_API_HOSTS": " ".join(f"127.0.0.1:{api.port}" for api in apis)}
    balancer.pop("PANTRY_TLS", None)
    # Without a certificate it does not start, and says why.
    refused = subprocess.run([os.path.join(ROOT, "ops", "hosts", "balancer")], env=balancer, capture_output=True, timeout=10)
    assert refused.returncode == 2 and b"PANTRY_TLS_CERT" in refused.stderr, refused
    nginx.append(subprocess.Popen([os.path.join(ROOT, "ops", "hosts", "balancer")], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env={
                                      **balancer, "PANTRY_PORT": str(port), "PANTRY_HTTP_PORT": str(http_port),
                                      "PANTRY_TLS_CERT": certificate, "PANTRY_TLS_KEY": key}))
    front = APIClient(port, tls=ssl.create_default_context(cafile=certificate))
    wait_for(front.ready, timeout=20, what="nginx to answer")

    # Register and log in through nginx (round robin: the two requests reach different APIs).
    registered = front.post("/v1/accounts", {"username": "hosted", "email": "hosted@example.org", "password": "correct horse battery"})
    assert registered.status == 201, registered
    assert registered.headers["strict-transport-security"] == "max-age=63072000"
    user_id = registered.json["userId"]
    # The other API may not have read the new account yet: it asks the log before it refuses.
    session = front.post("/v1/sessions", {"username": "hosted", "password": "correct horse battery"})
    assert session.status == 201, session
    token = session.json["token"]
    assert all(api.get("/v1/me", token=token).status == 200 for api in apis)

    # Plain HTTP is only ever a redirect to the same address over HTTPS, whatever the method: no
    # session is made, no token or body answered.
    plain = APIClient(http_port)
    for method, path, body in [("POST", "/v1/sessions", {"username": "hosted", "password": "correct horse battery"}),
                               ("GET", "/v1/me?after=1", None), ("GET", "/ready", None), ("DELETE", "/v1/sessions/current", None)]:
        answer = plain.request(method, path, body, token=token)
        assert answer.status == 308, (method, path, answer)
        assert answer.headers["location"] == f"https://127.0.0.1:{port}{path}", answer.headers
        assert b"token" not in answer.body and b"userId" not in answer.body and b"hosted" not in answer.body, answer.body
    assert front.get("/v1/me", token=token).status == 200, "the DELETE over plain HTTP logged the session out"
    assert_modern_tls_only(port, certificate, tmp_path)

    # The load test through HTTPS: the certificate given with --cacert, and refused without it.
    load = [core.bin, "loadtest", "--url", front.url, "--users", "20", "--clients", "2", "--requests", "200", "--seed", "32",
            "--output", str(tmp_path / "load.json"), "--plot", str(tmp_path / "load.svg")]
    untrusting = subprocess.run(load, env={**os.environ, **env}, capture_output=True, timeout=60)
    assert untrusting.returncode == 2 and b"certificate" in untrusting.stderr, untrusting.stderr.decode()
    loaded = subprocess.run(load + ["--cacert", certificate], env={**os.environ, **env}, capture_output=True, timeout=120)
    assert loaded.returncode == 0, loaded.stdout.decode() + loaded.stderr.decode()
    assert json.loads((tmp_path / "load.json").read_text())["check"]["passed"]

    # A command through API 1, read through API 2 with `after`.
    recipe = apis[0].catalog_recipe("egg")
    saved = apis[0].put(f"/v1/me/favourites/{recipe['id']}", token=token)
    assert saved.status in (200, 201), saved
    favourites = apis[1].get(f"/v1/me/favourites?after={saved.json['position']}", token=token)
    assert favourites.status == 200, favourites
    assert [f["recipeId"] for f in favourites.json["result"]] == [recipe["id"]]
    # A point earned through API 1 is counted at once through API 2, which asks the core's log service.
    apis[0].start_cooking(recipe["id"], token)
    earned = apis[0].post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": recipe["ingredients"][0]["name"]},
                          token=token)
    assert earned.status == 201, earned
    counted = apis[1].get(f"/v1/me/owned-ingredients/{recipe['id']}?after={earned.json['position']}", token=token)
    assert counted.status == 200 and counted.json["position"] >= earned.json["position"], counted
    assert len(counted.json["result"]["ingredients"]) == 1, counted

    # A logout on API 1 is refused by API 2 within a second.
    assert apis[0].delete("/v1/sessions/current", token=token).status == 204
    started = time.monotonic()
    wait_for(lambda: apis[1].get("/v1/me", token=token).status == 401, timeout=1.0, interval=0.02,
             what="API 2 to refuse the logged-out token")
    print(f"logout honoured by API 2 after {time.monotonic() - started:.3f} s")
    second_token = front.post("/v1/sessions", {"username": "hosted", "password": "correct horse battery"}).json["token"]
    # A restarted API learns it from the log.
    api3 = APIClient(free_port())
    host("api-3").start("api", "--port", str(api3.port), "--password-cost", "10", env=env)
    wait_for(api3.ready, timeout=60, what="a third API to be ready")
    assert api3.get("/v1/me", token=token).status == 401

    # More history, then a worker on an empty directory catches up over the network.
    commands = [register(n) for n in range(50)] + [mixed_command(n, 50) for n in range(30_000)]
    submitted = subprocess.run([core.bin, "submit", "--data", str(core.data)], env={**os.environ, **env},
                               input="\n".join(json.dumps(c) for c in commands).encode(), capture_output=True, timeout=300)
    # Some of the mixed commands are refused by the rules (exit status 1); every one is answered.
    outcomes = [json.loads(line) for line in submitted.stdout.decode().splitlines()]
    assert len(outcomes) == len(commands) and all(o["status"] in ("accepted", "rejected") for o in outcomes)
    assert submitted.returncode == (1 if any(o["status"] != "accepted" for o in outcomes) else 0), submitted.stderr.decode()[-2000:]
    head = head_of_log(env["PANTRY_CORE_LOG"])
    fresh = host("fresh-carts")
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    started = time.monotonic()
    # Named by flag rather than by the environment, the log service is read just the same.
    own = {name: value for name, value in env.items() if name != "PANTRY_CORE_LOG"}
    worker = fresh.start("worker", "--log-service", env["PANTRY_CORE_LOG"], "carts", env={**own, "PANTRY_CARTS_QUERIES": endpoint})
    wait_for(lambda: worker_position(endpoint) >= head, timeout=120, interval=0.2, what="the fresh worker to catch up")
    print(f"fresh worker caught up to {head} positions over tcp in {time.monotonic() - started:.2f} s")

    # The core dies and comes back: the other hosts' processes read the log again by themselves.
    core.running[0].kill()
    core.running[0].wait(timeout=10)
    time.sleep(4)  # longer than a log read's timeout: the followers find the log service gone
    core.start("core", env=env)
    cart = apis[1].post("/v1/me/cart", {"recipeId": recipe["id"], "delta": 2}, token=second_token)
    assert cart.status in (200, 201), cart
    lines = wait_for(lambda: (answer := apis[0].get(f"/v1/me/cart?after={cart.json['position']}", token=second_token))
                     .status == 200 and answer, timeout=10, what="API 1 to read the cart after the restart")
    assert lines.json["result"]["lines"][0]["count"] == 2
    head = head_of_log(env["PANTRY_CORE_LOG"])
    wait_for(lambda: worker_position(endpoint) >= head, timeout=30, interval=0.2, what="the fresh worker to follow the restarted core")
    worker.terminate()
    assert worker.wait(timeout=10) == 0
    # The checksum of its file equals a replay of the core's log.
    projections = core.data / "projections"
    projections.mkdir(exist_ok=True)
    for file in (fresh.data / "projections").glob("carts.sqlite*"):
        shutil.copy(file, projections / file.name)
    result = core.run("replay", "--verify", "carts")
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
    assert ": same at position" in result.stdout.decode(), result.stdout.decode()
    print(result.stdout.decode())
