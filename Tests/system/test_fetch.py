"""`pantry fetch` as a real process behind real ZeroMQ, calling a local server that speaks the
Spoonacular format through the real libcurl client."""
import json
import pathlib
import subprocess
import sys
import urllib.request

import pytest
import zmq

from pantry_processes import wait_for

FAKE_UPSTREAM = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "fake_upstream.py"


@pytest.fixture
def upstream():
    server = subprocess.Popen([sys.executable, str(FAKE_UPSTREAM), "0"], stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline().split()[1])
    base = f"http://127.0.0.1:{port}"
    yield base
    server.terminate()
    server.wait(timeout=10)


def upstream_calls(base):
    with urllib.request.urlopen(f"{base}/_count", timeout=5) as response:
        return json.load(response)["total"]


class FetchWorker:
    def __init__(self, processes, upstream, quota):
        self.processes = processes
        self.env = {"PANTRY_SPOONACULAR_URL": upstream, "PANTRY_SPOONACULAR_KEY": "test-key",
                    "PANTRY_SPOONACULAR_DAILY_QUOTA": str(quota), "PANTRY_SPOONACULAR_RATE": "500",
                    "PANTRY_SPOONACULAR_BURST": "500", "PANTRY_FETCH_TIMEOUT": "2"}
        self.start()

    def start(self):
        self.process = self.processes.start("fetch", env=self.env)
        wait_for(lambda: (self.processes.data / "fetch.sock").exists(), what="the fetch socket")
        self.socket = zmq.Context.instance().socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.RCVTIMEO, 15_000)
        self.socket.connect(f"ipc://{self.processes.data / 'fetch.sock'}")

    def restart(self):
        self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=10)
        (self.processes.data / "fetch.sock").unlink(missing_ok=True)
        self.start()

    def ask(self, *requests):
        for request in requests:
            self.socket.send(request if isinstance(request, bytes) else json.dumps(request).encode())
        return [json.loads(self.socket.recv()) for _ in requests]


def search(query):
    return {"kind": "search", "query": query, "offset": 0, "number": 5}


def test_quota_is_never_exceeded_and_survives_a_restart(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=5)
    answers = fetch.ask(*[search(f"soup {n}") for n in range(40)])
    served = [a for a in answers if a["ok"]]
    refused = [a for a in answers if not a["ok"]]
    assert len(served) == 5 and upstream_calls(upstream) == 5
    assert all(a["error"]["error"] == "quotaExhausted" and a["error"]["retryAfterSeconds"] > 0 for a in refused)

    # The same questions again come from the cache and cost nothing.
    cached = [a for a in fetch.ask(*[search(f"soup {n}") for n in range(40)]) if a["ok"]]
    assert len(cached) == 5 and all(a["response"]["origin"] == "cache" for a in cached)
    assert upstream_calls(upstream) == 5

    fetch.restart()
    after_restart = fetch.ask(search("a new question"))[0]
    assert after_restart["ok"] is False and after_restart["error"]["error"] == "quotaExhausted"
    assert upstream_calls(upstream) == 5


def test_identical_concurrent_requests_make_one_upstream_call(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    answers = fetch.ask(*[{"kind": "detail", "id": "spoonacular:716429"}] * 100)
    assert all(a["ok"] for a in answers)
    assert upstream_calls(upstream) == 1


def test_bad_requests_get_a_clear_error_and_the_worker_keeps_serving(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    bad = [b"", b"not json", b"[]", json.dumps({"kind": "nope"}).encode(),
           json.dumps({"kind": "byIngredients", "ingredients": []}).encode(),
           json.dumps({"kind": "byIngredients", "ingredients": ["a", "b", "c", "d", "e", "f"]}).encode(),
           json.dumps({"kind": "random", "count": 100_000}).encode(),
           json.dumps({"kind": "image", "url": "file:///etc/passwd"}).encode()]
    for answer in fetch.ask(*bad):
        assert answer["ok"] is False and answer["error"]["error"] == "badRequest", answer
    assert fetch.ask({"kind": "random", "count": 2})[0]["ok"]


def test_a_failing_upstream_is_answered_from_the_cache_or_clearly_refused(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    question = {"kind": "autocomplete", "prefix": "tom", "number": 5}
    first = fetch.ask(question)[0]
    assert first["ok"] and first["response"]["origin"] == "upstream"
    urllib.request.urlopen(f"{upstream}/_mode?set=error500", timeout=5).read()
    cached = fetch.ask(question)[0]
    assert cached["ok"] and cached["response"]["origin"] in ("cache", "staleCache")
    assert cached["response"]["payload"] == first["response"]["payload"]
    down = fetch.ask({"kind": "random", "count": 3})[0]
    assert down["ok"] is False and down["error"]["error"] == "upstreamUnavailable"


def test_a_second_fetch_worker_on_the_same_data_directory_is_refused(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    second = processes.run("fetch", timeout=30)
    assert second.returncode != 0
    assert b"another pantry process of this role runs on this data directory" in second.stderr, second.stderr
    assert (processes.data / "fetch.sock").exists(), "the first worker's socket file is left alone"
    assert fetch.ask({"kind": "random", "count": 1})[0]["ok"], "and the first worker still answers"
