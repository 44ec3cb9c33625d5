"""Pantry with no shared files: the core, every worker, the fetch worker and two API processes each
have their own data directory and meet only over `tcp://127.0.0.1`, with nginx in front of the two
APIs. A logout on one API is honoured by the other within a second, read-your-writes holds across
them, and a worker started on an empty directory catches up over the network to the state a
replay of the log gives."""
import json
import os
import shutil
import subprocess
import time

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


@pytest.fixture
def hosts(pantry_bin, tmp_path):
    """One `Processes` per host (its own data directory), the shared environment, and nginx."""
    endpoints = {"PANTRY_CORE_COMMANDS": free_port(), "PANTRY_CORE_EVENTS": free_port(), "PANTRY_CORE_LOG": free_port(),
                 "PANTRY_FETCH_ENDPOINT": free_port(),
                 **{f"PANTRY_{name.upper()}_QUERIES": free_port() for name in PROJECTIONS}}
    env = {name: f"tcp://127.0.0.1:{port}" for name, port in endpoints.items()}
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
    # No process but the core has the log or the keys.
    for directory in tmp_path.iterdir():
        if directory.name != "core" and directory.is_dir():
            assert not (directory / "events.sqlite").exists() and not (directory / "user-keys.sqlite").exists(), directory

    # nginx as a deployment runs it (ops/hosts/balancer), on loopback.
    port = free_port()
    (tmp_path / "nginx").mkdir()
    nginx.append(subprocess.Popen([os.path.join(ROOT, "ops", "hosts", "balancer")], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env={
                                      **os.environ, "PANTRY_DATA": str(tmp_path / "nginx"), "PANTRY_HOST": "127.0.0.1",
                                      "PANTRY_PORT": str(port), "PANTRY_API_HOSTS": " ".join(f"127.0.0.1:{api.port}" for api in apis)}))
    front = APIClient(port)
    wait_for(front.ready, timeout=20, what="nginx to answer")

    # Register and log in through nginx (round robin: the two requests reach different APIs).
    registered = front.post("/v1/accounts", {"username": "hosted", "email": "hosted@example.org", "password": "correct horse battery"})
    assert registered.status == 201, registered
    user_id = registered.json["userId"]
    # The other API may not have read the new account yet: it asks the log before it refuses.
    session = front.post("/v1/sessions", {"username": "hosted", "password": "correct horse battery"})
    assert session.status == 201, session
    token = session.json["token"]
    assert all(api.get("/v1/me", token=token).status == 200 for api in apis)

    # A command through API 1, read through API 2 with `after`.
    recipe = apis[0].catalog_recipe("egg")
    saved = apis[0].put(f"/v1/me/favourites/{recipe['id']}", token=token)
    assert saved.status in (200, 201), saved
    favourites = apis[1].get(f"/v1/me/favourites?after={saved.json['position']}", token=token)
    assert favourites.status == 200, favourites
    assert [f["recipeId"] for f in favourites.json["result"]] == [recipe["id"]]

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
