"""Real `pantry` processes for system tests."""
import base64
import http.client
import json
import os
import signal
import socket
import subprocess
import time
from urllib.parse import quote

import zmq


class Processes:
    """Real `pantry` processes on one data directory; all are stopped at the end of the test."""

    def __init__(self, pantry_bin, data):
        self.bin = pantry_bin
        self.data = data
        self.running = []

    def start(self, *args, env=None):
        log = open(self.data / f"{args[0]}-{args[-1]}-{len(self.running)}.log", "wb")
        process = subprocess.Popen([self.bin, *args, "--data", str(self.data)], stdout=log, stderr=log,
                                   env={**os.environ, **(env or {})})
        self.running.append(process)
        return process

    def run(self, *args, input=b"", timeout=120):
        return subprocess.run([self.bin, *args, "--data", str(self.data)], input=input,
                              capture_output=True, timeout=timeout)

    def stop_all(self):
        for process in self.running:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.running:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def wait_for(predicate, timeout=20.0, interval=0.05, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")


HASH = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"
PROJECTIONS = ["leaderboard", "carts", "favourites", "groceries", "experiences"]


def register(n):
    return {"commandId": f"reg-{n}", "type": "RegisterUser",
            "data": {"userId": f"u{n}", "username": f"user{n}", "email": f"user{n}@example.org", "passwordHash": HASH}}


def recipe_facts(recipe):
    """The facts a trusted adapter sends with a command about a recipe the log may not hold yet."""
    return {"title": f"Soup number {recipe}", "ingredients": [f"ingredient {i}" for i in range(40)]}


def mixed_command(n, users):
    """A deterministic mix touching every projection; some are rejected by the rules, on purpose."""
    user = f"u{n % users}"
    recipe = f"r{n % 17}"
    kind = n % 6
    if kind == 0:
        # A point as a client earns it, in three of these slots: a cart line, cooking, the point.
        step = n // 6 % 3
        base = n - 6 * step
        user, recipe = f"u{base % users}", f"r{base % 17}"
        if step == 0:
            return {"commandId": f"m-{n}", "type": "AdjustCart",
                    "data": {"userId": user, "recipeId": recipe, "delta": 1, "recipe": recipe_facts(recipe)}}
        if step == 1:
            return {"commandId": f"m-{n}", "type": "StartCooking", "data": {"userId": user, "recipeId": recipe, "minutes": 60}}
        return {"commandId": f"m-{n}", "type": "UseOwnedIngredient",
                "data": {"userId": user, "recipeId": recipe, "ingredient": f"ingredient {base % 40}",
                         "recipe": recipe_facts(recipe)}}
    if kind == 1:
        return {"commandId": f"m-{n}", "type": "AdjustCart",
                "data": {"userId": user, "recipeId": recipe, "delta": 1 if n % 4 else -1, "recipe": recipe_facts(recipe)}}
    if kind == 2:
        return {"commandId": f"m-{n}", "type": "SaveRecipe",
                "data": {"userId": user, "recipeId": recipe, "recipe": recipe_facts(recipe)}}
    if kind == 3:
        return {"commandId": f"m-{n}", "type": "AddGrocery",
                "data": {"userId": user, "ingredient": f"Item {n % 9}", "amount": n % 5, "unit": "g"}}
    if kind == 4:
        return {"commandId": f"m-{n}", "type": "CheckGrocery",
                "data": {"userId": user, "ingredient": f"item {n % 9}", "checked": n % 2 == 0}}
    return {"commandId": f"m-{n}", "type": "WriteExperience",
            "data": {"userId": user, "recipeId": recipe, "text": f"Tip {n}: less salt"}}


def dealer(path, timeout_ms=10_000):
    """A pyzmq DEALER on one of a deployment's ipc sockets (`DATA/core-commands.sock`, a worker's
    queries), closed without lingering; receives wait at most `timeout_ms` (None: for ever)."""
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    if timeout_ms is not None:
        socket.setsockopt(zmq.RCVTIMEO, timeout_ms)
    socket.connect(f"ipc://{path}")
    return socket


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HTTPAnswer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"HTTPAnswer({self.status}, {self.body[:300]!r})"


class APIClient:
    """A tiny HTTP client (standard library only) for `pantry api`; HTTPS with `tls`, an SSLContext."""

    def __init__(self, port, tls=None):
        self.port = port
        self.tls = tls
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"

    def request(self, method, path, body=None, token=None, headers=None, raw=None, timeout=30):
        connection = (http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=self.tls) if self.tls
                      else http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout))
        all_headers = dict(headers or {})
        if token is not None:
            all_headers["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if data is not None:
            all_headers.setdefault("Content-Type", "application/json")
        try:
            connection.request(method, path, body=data, headers=all_headers)
            response = connection.getresponse()
            return HTTPAnswer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            connection.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, body, **kw)

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def ready(self):
        try:
            return self.get("/ready", timeout=2).status == 200
        except OSError:
            return False

    def register_and_log_in(self, username, password="correct horse battery"):
        registered = self.post("/v1/accounts", {"username": username, "email": f"{username}@example.org",
                                                "password": password})
        assert registered.status == 201, registered
        session = self.post("/v1/sessions", {"username": username, "password": password})
        assert session.status == 201, session
        return registered.json["userId"], session.json["token"]

    def start_cooking(self, recipe_id, token):
        """What a point needs: "Start cooking" the recipe (no cart line)."""
        started = self.post(f"/v1/me/cooking/{quote(recipe_id, safe='')}", {"minutes": 30}, token=token)
        assert started.status == 201, started
        return started.json

    def catalog_recipe(self, ingredient="egg"):
        """A real recipe of the deployment (the offline catalog) that has `ingredient`."""
        found = self.get(f"/v1/recipes/by-ingredients?ingredients={ingredient}&number=1")
        assert found.status == 200, found
        recipe = self.get(f"/v1/recipes/{found.json['payload']['summaries'][0]['id']}")
        assert recipe.status == 200, recipe
        return recipe.json["payload"]["recipe"]


def start_core_and_api(processes, env=None, api_args=(), fetch_env=None):
    """The whole deployment: `pantry core` (running[0]), `pantry api` on a free port (running[1]),
    every projection worker and the fetch worker (embedded catalog); returns the client once
    /ready answers 200, which needs the core and every worker."""
    processes.start("core")
    port = free_port()
    # The tests register many users from one address: the per-client log-in limit is raised.
    env = {"PANTRY_LOGIN_RATE_PER_CLIENT": "10000", "PANTRY_LOGIN_RATE_OVERALL": "10000", **(env or {})}
    processes.start("api", "--port", str(port), "--password-cost", "10", *api_args, env=env)
    for projection in PROJECTIONS:
        processes.start("worker", projection)
    processes.start("fetch", env=fetch_env)
    client = APIClient(port)
    wait_for(client.ready, timeout=60, what="the API to be ready")
    return client


def ok(answer, status=200):
    """The JSON of an answer that must have `status`."""
    assert answer.status == status, answer
    return answer.json


def forms(text):
    """A text as it could sit in a file: as typed, JSON-escaped (non-ASCII as \\u escapes too), base64."""
    return {text.encode(), json.dumps(text)[1:-1].encode(), json.dumps(text, ensure_ascii=False)[1:-1].encode(),
            base64.b64encode(text.encode())}


def files_holding(directory, needles):
    """(file, needle) for every file under `directory` (WAL and journals included) holding a needle."""
    found = []
    for path in directory.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            found += [(str(path), needle) for needle in needles if needle in content]
    return found
