"""Issue 19: Pantry across hosts, on the SQLite log and on the PostgreSQL log, every internal socket
CURVE with each host's key (issue 32). A core host, two worker hosts, two API hosts and nginx, each a
network namespace with only its own data directory (see netns_hosts.py); the load test runs
through nginx, over HTTPS with a self-signed certificate, while a worker host and an API host lose
power and come back. Its exact check passes, and every projection on every worker host rebuilds
from the log to the same checksum. Plain HTTP to nginx answers only a redirect, and a client that
does not trust the certificate gets no connection."""
import http.client
import json
import os
import secrets
import ssl
import subprocess
import threading
import time
import urllib.request

import pytest
import zmq

from netns_hosts import ROOT, Lan

PROJECTIONS = ["leaderboard", "carts", "favourites", "groceries", "experiences"]
CORE_PORTS = {"PANTRY_CORE_COMMANDS": 7001, "PANTRY_CORE_EVENTS": 7002, "PANTRY_CORE_LOG": 7003,
              "PANTRY_FETCH_ENDPOINT": 7004}


def answers(url, timeout=2, tls=None):
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=tls) as response:
            return response.status
    except OSError:
        return None


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def bus_environment(pantry_bin, core):
    return {"PANTRY_BIN": pantry_bin, "PANTRY_LOG_LEVEL": "info",
            **{name: f"tcp://{core.address}:{port}" for name, port in CORE_PORTS.items()}}


def queries(*hosts):
    """Each worker's query endpoint: a worker binds its own; an API asks every worker host."""
    return {f"PANTRY_{name.upper()}_QUERIES": " ".join(f"tcp://{host.address}:{7101 + n}" for host in hosts)
            for n, name in enumerate(PROJECTIONS)}


def make_keys(pantry_bin, lan, core, workers, apis):
    """Each host makes its own key pair with `pantry keys`; the public ones are shared."""
    core.make_key(pantry_bin, "core")
    for host in workers:
        host.make_key(pantry_bin, "worker")
    for host in apis:
        host.make_key(pantry_bin, "api")
    lan.share_keys(core, *workers, *apis)


@pytest.fixture
def lan(tmp_path):
    network = Lan(tmp_path)
    yield network
    network.close()


@pytest.mark.parametrize("log", ["sqlite", "postgres"])
def test_hosts_survive_losing_a_worker_host_and_an_api_host_under_load(lan, pantry_bin, tmp_path, log):
    core = lan.host("core")
    workers = [lan.host("workers1"), lan.host("workers2")]
    apis = [lan.host("api1"), lan.host("api2")]
    balancer = lan.host("balancer")

    common = bus_environment(pantry_bin, core)
    make_keys(pantry_bin, lan, core, workers, apis)

    token_key = secrets.token_hex(32)
    api_env = {**common, **queries(*workers), "PANTRY_TOKEN_KEY": token_key, "PANTRY_PASSWORD_COST": "10",
               "PANTRY_TRUSTED_PROXIES": balancer.address, "PANTRY_LOGIN_RATE_PER_CLIENT": "10000",
               "PANTRY_LOGIN_RATE_OVERALL": "10000"}

    core_env = dict(common)
    if log == "postgres":
        # The core host's own PostgreSQL, on its loopback: only the core talks to it.
        started = core.run(str(ROOT / "ops" / "postgres-cluster"), "start", "--no-fsync", timeout=120)
        assert started.returncode == 0, started.stderr.decode()
        address, cluster = started.stdout.decode().split()
        lan.on_close(lambda: subprocess.run([str(ROOT / "ops" / "postgres-cluster"), "stop", cluster], capture_output=True))
        core_env["PANTRY_LOG"] = address
    core.start("core.Procfile", core_env)
    for host in workers:
        host.start("workers.Procfile", {**common, **queries(host)})
    for host in apis:
        host.start("api.Procfile", api_env)
    # The balancer's certificate and key on its own host (hidden from the others), made for its address.
    tls_files = balancer.data.parent / "tls"
    made = subprocess.run([str(ROOT / "ops" / "hosts" / "self-signed-cert"), str(tls_files), balancer.address],
                          capture_output=True, timeout=30)
    assert made.returncode == 0, made.stderr.decode()
    certificate = str(tls_files / "cert.pem")
    balancer.start("balancer.Procfile", {"PANTRY_API_HOSTS": " ".join(f"{api.address}:8080" for api in apis),
                                         "PANTRY_TLS_CERT": certificate, "PANTRY_TLS_KEY": str(tls_files / "key.pem")})
    for api in apis:
        wait_until(lambda: answers(f"http://{api.address}:8080/ready") == 200, 90, f"{api.name} to be ready")
    url = f"https://{balancer.address}:8443"
    trusting = ssl.create_default_context(cafile=certificate)
    wait_until(lambda: answers(f"{url}/ready", tls=trusting) == 200, 30, "nginx")

    # HTTPS answers with HSTS; plain HTTP (8080) only redirects, a log-in included; a client that
    # does not trust the certificate fails the handshake.
    with urllib.request.urlopen(f"{url}/v1/leaderboard?limit=1", timeout=5, context=trusting) as response:
        assert response.status == 200
        assert response.headers["Strict-Transport-Security"] == "max-age=63072000"
    for method, path, body in [("POST", "/v1/sessions", b'{"username":"nobody","password":"correct horse battery"}'),
                               ("GET", "/v1/leaderboard?limit=1", None)]:
        plain = http.client.HTTPConnection(balancer.address, 8080, timeout=5)
        plain.request(method, path, body=body, headers={"Content-Type": "application/json"})
        redirect = plain.getresponse()
        answered = redirect.read()
        plain.close()
        assert redirect.status == 308 and redirect.getheader("Location") == f"{url}{path}", (redirect.status, redirect.getheaders())
        assert b"token" not in answered and b"problem" not in answered and b"result" not in answered, answered
    untrusting = http.client.HTTPSConnection(balancer.address, 8443, timeout=5, context=ssl.create_default_context())
    with pytest.raises(ssl.SSLCertVerificationError):
        untrusting.request("GET", "/health")
    untrusting.close()

    output = tmp_path / "load.json"
    # On the balancer's host, a trusted proxy's address: the only one besides loopback an operator
    # proof is taken from.
    load = subprocess.Popen(balancer.argv(pantry_bin, "loadtest", "--url", url, "--cacert", certificate, "--users", "300",
                                          "--clients", "16", "--duration", "22", "--seed", "19", "--output", str(output),
                                          "--plot", str(tmp_path / "load.svg")),
                            # The token key: its 300 users register as the operator's, not 16 at once
                            # from one address (one password check at a time per address).
                            env={**os.environ, "PANTRY_TOKEN_KEY": token_key},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    printed = bytearray()

    def read():
        while chunk := load.stdout.read1(4096):
            printed.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    # Users registered and the drive under way, then each host loses power and comes back: 14 s of
    # the 22 s drive, so the last API restarted still serves the drive's last 8 s.
    wait_until(lambda: b"drive" in printed or load.poll() is not None, 90, "the drive to start")
    time.sleep(4)
    workers[1].kill()
    time.sleep(1)
    # Every API asks the worker host that is left: reads keep being answered.
    for api in apis:
        assert all(answers(f"http://{api.address}:8080/v1/leaderboard?limit=3") == 200 for _ in range(10)), api.name
    time.sleep(2)
    workers[1].start("workers.Procfile", {**common, **queries(workers[1])})
    time.sleep(4)
    apis[1].kill()
    time.sleep(3)
    apis[1].start("api.Procfile", api_env)

    load.wait(timeout=240)
    reader.join(timeout=10)
    report = printed.decode(errors="replace")
    assert output.exists(), report
    result = json.loads(output.read_text())
    assert result["check"]["passed"], report
    assert result["drive"]["doubled"] == 0 and result["drive"]["indefinite"] == 0, report
    assert result["check"]["expectedTotal"] > 0

    # Every worker host, its projections rebuilt from the log over the network: the same checksums.
    for host in workers:
        verified = host.run(pantry_bin, "replay", "--verify", "--data", str(host.data), env=common, timeout=300)
        assert verified.returncode == 0, verified.stdout.decode() + verified.stderr.decode()
        assert verified.stdout.decode().count(": same at position") == len(PROJECTIONS), verified.stdout.decode()


def test_a_host_without_a_listed_key_gets_nothing_from_any_internal_socket(lan, pantry_bin):
    """A host on the same network, with a socket and no key, or a valid key nobody listed, is
    refused at the handshake by every internal socket: the core's commands, feed and log service,
    the fetch worker and every worker's queries. A listed key of another role (a worker's, stolen)
    is refused where that role has no business. The API host's key gets through, from the same host."""
    core, workers, api, attacker = (lan.host(name) for name in ("core", "workers", "api", "attacker"))
    common = bus_environment(pantry_bin, core)
    make_keys(pantry_bin, lan, core, [workers], [api])
    core.start("core.Procfile", common)
    workers.start("workers.Procfile", {**common, **queries(workers)})
    api.start("api.Procfile", {**common, **queries(workers), "PANTRY_PASSWORD_COST": "10"})
    wait_until(lambda: answers(f"http://{api.address}:8080/ready") == 200, 90, "the API to be ready over CURVE")
    # The keyed path works end to end: a command through the core, a read through a worker.
    registered = urllib.request.urlopen(urllib.request.Request(
        f"http://{api.address}:8080/v1/accounts", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"username": "walled", "email": "walled@example.org", "password": "correct horse battery"}).encode()),
        timeout=10)
    assert registered.status == 201
    assert answers(f"http://{api.address}:8080/v1/leaderboard?limit=1") == 200

    core_key, workers_key = core.key()["public-key"], workers.key()["public-key"]
    stranger = [key.decode() for key in zmq.curve_keypair()]
    stolen = workers.key(secret=True)
    api_own = api.key(secret=True)
    sockets = {"commands": (common["PANTRY_CORE_COMMANDS"], "dealer", '{"type":"ChangePassword"}', core_key),
               "feed": (common["PANTRY_CORE_EVENTS"], "sub", "", core_key),
               "log service": (common["PANTRY_CORE_LOG"], "dealer", '{"read":"range","after":0,"limit":100}', core_key),
               "fetch": (common["PANTRY_FETCH_ENDPOINT"], "dealer", '{"client":"someone-else"}', core_key),
               **{f"{name} queries": (endpoint, "dealer", '{"query":"status"}', workers_key)
                  for name, endpoint in ((n, e.split()[0]) for n, e in zip(PROJECTIONS, queries(workers).values()))}}
    probes = []
    for name, (endpoint, kind, request, server) in sockets.items():
        base = {"socket": name, "endpoint": endpoint, "kind": kind, "request": request}
        probes.append({**base, "as": "no key"})
        probes.append({**base, "as": "unlisted key", "keys": {"server": server, "public": stranger[0], "secret": stranger[1]}})
        if name not in ("feed", "log service"):
            probes.append({**base, "as": "a worker's key", "keys": {"server": server, "public": stolen["public-key"],
                                                                   "secret": stolen["secret-key"]}})
    control = {"socket": "log service", "endpoint": common["PANTRY_CORE_LOG"], "kind": "dealer", "request": '{"read":"head"}',
               "as": "the API's key", "keys": {"server": core_key, "public": api_own["public-key"], "secret": api_own["secret-key"]}}
    probed = attacker.run(str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "Tests" / "system" / "bus_probe.py"),
                          json.dumps(probes + [control]), timeout=120)
    assert probed.returncode == 0, probed.stderr.decode()
    results = json.loads(probed.stdout)
    *refused, allowed = results
    for result in results:
        print(f"{result['socket']:>24} {result['as']:>15}: {result['outcome']} ({result['value']}) after {result['seconds']} s, "
              f"received {result['received']}")
    for result in refused:
        # With no key the server's CURVE handshake fails before ZAP is asked; with a key, ZAP says 400.
        refusal = result["outcome"].startswith("failed") if result["as"] == "no key" else result["outcome"] == "refused by ZAP"
        assert refusal and result["received"] == [], result
        assert result["seconds"] < 1, result
    assert allowed["outcome"] == "succeeded" and allowed["received"] and '"head"' in allowed["received"][0][-1], allowed
    # The operators see it: each server logged the attacker's address.
    for host in (core, workers):
        wait_until(lambda: f"address={attacker.address}" in host.log.read_text(errors="replace")
                   and "refused a peer on the internal network" in host.log.read_text(errors="replace"), 5, f"{host.name}'s log")
