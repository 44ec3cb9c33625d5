"""GET /v1/me/live: Server-Sent Events of the user's own changes, with real processes (issue 42): a resume on
a second API after a kill, a resume from before a restart, and a reader that stops reading. What one
deployment's streams answer is checked in process (Tests/PantryRouteTests/LiveRouteTests.swift)."""
import http.client
import json
import signal
import socket
import subprocess
import time

from pantry_processes import APIClient, free_port, ok, wait_for

LIVE_TYPES = {"GroceryAdded", "GroceryChecked", "GroceryRemoved", "CartAdjusted", "CookingStarted",
              "RecipeSaved", "SavedRecipeRemoved", "PointEarned"}


class LiveStream:
    """One SSE connection, read with a plain socket so that nothing buffers or reconnects for us."""

    def __init__(self, port, token, last_event_id=None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.connection.request("GET", "/v1/me/live", headers=headers)
        self.response = self.connection.getresponse()
        self.buffer = b""
        self.last_id = last_event_id

    def events(self, until, timeout=10.0):
        """Reads events until `until(events)` holds; returns them (dicts with id, event, data)."""
        events = []
        deadline = time.monotonic() + timeout
        while not until(events):
            assert time.monotonic() < deadline, f"timed out; got {events}"
            while b"\n\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n\n", 1)
                event = {"event": "message"}
                for line in raw.decode().split("\n"):
                    field, _, value = line.partition(": ")
                    if field in ("id", "event", "data"):
                        event[field] = value
                if "data" in event:
                    event["data"] = json.loads(event["data"])
                    if "id" in event:
                        self.last_id = int(event["id"])
                    events.append(event)
                if until(events):
                    return events
            chunk = self.response.read1(65536)
            if not chunk:
                return events
            self.buffer += chunk
        return events

    def close(self):
        self.connection.close()


def changes(events):
    return [e for e in events if e["event"] == "message"]


def start_second_api(processes, data_env=None):
    port = free_port()
    env = {"PANTRY_LOGIN_RATE_PER_CLIENT": "10000", "PANTRY_LOGIN_RATE_OVERALL": "10000", "PANTRY_ACCESS_LOG": "off",
           **(data_env or {})}
    process = processes.start("api", "--port", str(port), "--password-cost", "10", env=env)
    client = APIClient(port)
    wait_for(client.ready, timeout=60, what="the second API to be ready")
    return process, client


def user_changes_in_log(processes, user_id):
    """The user's live changes as the log holds them: (position, type)."""
    out = processes.run("events")
    assert out.returncode == 0, out.stderr
    found = []
    for line in out.stdout.decode().splitlines():
        event = json.loads(line)
        if event["type"] in LIVE_TYPES and event["metadata"]["userId"] == user_id:
            found.append((event["position"], event["type"]))
    return found


def test_a_stream_resumes_on_a_second_api_after_a_kill_9_with_no_gap_and_no_duplicate(api, processes):
    user_id, token = api.register_and_log_in("liveresume")
    recipe = api.catalog_recipe("egg")
    other_process, other = start_second_api(processes)
    stream = LiveStream(api.port, token)
    stream.events(lambda events: len(events) >= 1)
    for n in range(5):
        ok(api.post("/v1/me/groceries", {"ingredient": f"item {n}"}, token=token), 201)
    ok(api.post("/v1/me/cart", {"recipeId": recipe["id"], "delta": 1}, token=token))
    seen = changes(stream.events(lambda events: len(changes(events)) >= 6))
    # kill -9 of the API the stream is on; the changes go on through the other one.
    processes.running[1].send_signal(signal.SIGKILL)
    processes.running[1].wait()
    for n in range(5, 10):
        ok(other.post("/v1/me/groceries", {"ingredient": f"item {n}"}, token=token), 201)
    ok(other.patch("/v1/me/groceries/item%203", {"checked": True}, token=token))
    ok(other.post(f"/v1/me/cooking/{recipe['id']}", {"minutes": 10}, token=token), 201)
    resumed = LiveStream(other.port, token, last_event_id=stream.last_id)
    assert resumed.response.status == 200
    logged = user_changes_in_log(processes, user_id)
    rest = changes(resumed.events(lambda events: len(seen) + len(changes(events)) >= len(logged)))
    received = [(int(e["id"]), e["data"]["type"]) for e in seen + rest]
    assert received == logged, "every change of the user's, in log order, each exactly once"
    # Nothing more was owed: the next thing is a heartbeat or a new change, not a repeat.
    # A graceful stop ends the open stream with `restart` (its client resumes elsewhere) and
    # does not wait for it.
    other_process.send_signal(signal.SIGTERM)
    ended = resumed.events(lambda events: any(e["event"] == "end" for e in events))
    assert ended[-1]["event"] == "end" and ended[-1]["data"]["reason"] == "restart", ended
    assert other_process.wait(timeout=20) == 0
    resumed.close()


def test_a_resume_from_before_the_process_started_is_read_from_the_log(api, processes):
    """The API restarted (kill -9 and start again): its window is empty, the log holds the gap."""
    user_id, token = api.register_and_log_in("livebacklog")
    stream = LiveStream(api.port, token)
    start = stream.events(lambda events: len(events) >= 1)
    resume_at = int(start[0]["id"])
    stream.close()
    for n in range(4):
        ok(api.post("/v1/me/groceries", {"ingredient": f"thing {n}"}, token=token), 201)
    processes.running[1].send_signal(signal.SIGKILL)
    processes.running[1].wait()
    _, restarted = start_second_api(processes)
    # The window starts empty, so the first resume is served from the log.
    resumed = LiveStream(restarted.port, token, last_event_id=resume_at)
    logged = [entry for entry in user_changes_in_log(processes, user_id) if entry[0] > resume_at]
    got = changes(resumed.events(lambda events: len(changes(events)) >= len(logged)))
    assert [(int(e["id"]), e["data"]["type"]) for e in got] == logged and len(logged) == 4
    resumed.close()


def test_a_reader_that_stops_reading_is_closed_and_does_not_slow_the_others(api, processes):
    _, slow_token = api.register_and_log_in("liveslow")
    _, fast_token = api.register_and_log_in("livefast")
    # Heartbeats every half second: a stream whose writes are stuck misses three, and is closed.
    _, api = start_second_api(processes, {"PANTRY_LIVE_HEARTBEAT": "0.5"})
    # A raw socket with a tiny receive buffer that is never read.
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(("127.0.0.1", api.port))
    slow.sendall(f"GET /v1/me/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {slow_token}\r\n\r\n".encode())
    fast = LiveStream(api.port, fast_token)
    fast.events(lambda events: len(events) >= 1)
    long_name = "x" * 90
    started = time.monotonic()
    # About 200 KiB of changes: more than the kernel's and NIO's buffers take before writes wait.
    for n in range(900):
        ok(api.post("/v1/me/groceries", {"ingredient": f"{long_name} {n}"}, token=slow_token), 201)
        if n % 100 == 0:
            own = ok(api.post("/v1/me/groceries", {"ingredient": f"fast {n}"}, token=fast_token), 201)
            fast.events(lambda events: any(e.get("id") == str(own["position"]) for e in events), timeout=5)
    assert time.monotonic() - started < 60

    # Four heartbeats unread close it: on a quiet machine the changes above are sent in less
    # time than that, and reading at once made it an ordinary reader again ("never closed").
    time.sleep(2.5)
    # Had the server not closed it, reading now would only make it an ordinary reader, whose
    # heartbeats go on every half second: the end of the stream comes only from a close.
    slow.settimeout(10)
    deadline = time.monotonic() + 10
    try:
        while slow.recv(65536):
            assert time.monotonic() < deadline, "the slow stream was never closed"
    except ConnectionResetError:
        pass
    slow.close()
    fast.close()

    # A HEAD reads nothing either: it holds no stream, so no heartbeat closes its keep-alive
    # connection, which goes on serving (past four heartbeats it was closed before).
    head = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
    for _ in range(3):
        head.request("HEAD", "/v1/me/live", headers={"Authorization": f"Bearer {fast_token}"})
        answer = head.getresponse()
        answer.read()
        assert answer.status == 200 and answer.getheader("Content-Type") == "text/event-stream"
    time.sleep(3)
    head.request("GET", "/v1/me/groceries", headers={"Authorization": f"Bearer {fast_token}"})
    assert head.getresponse().status == 200
    head.close()

