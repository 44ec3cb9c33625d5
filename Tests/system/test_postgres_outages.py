"""The PostgreSQL log survives its server. Under a light load of ZeroMQ commands (singles and batch
frames) and HTTP, each fault an operator meets (the server killed and started again, a fast
restart, the core's sessions terminated, the primary killed and a standby promoted) leaves the
core running: commands fail `storage_unavailable` meanwhile, never silence; they are accepted
again within seconds; every command answered `accepted` is in the log once; every resend of one
that was not resolves to one outcome; and a replay equals the live state. A core whose server is
gone stops on SIGTERM within 2 s."""
import json
import pathlib
import signal
import subprocess
import threading
import time

import pytest

from pantry_processes import dealer, register, start_core_and_api, wait_for, ok
from test_workers import assert_replay_matches, wait_caught_up

CLUSTER = pathlib.Path(__file__).resolve().parents[2] / "ops" / "postgres-cluster"


def cluster(*args):
    done = subprocess.run([str(CLUSTER), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def psql(url, sql):
    answer = subprocess.run(["psql", "-qAt", url, "-c", sql], capture_output=True, text=True, timeout=30)
    assert answer.returncode == 0, answer.stderr
    return answer.stdout.strip()


class Server:
    """A PostgreSQL server of this test's own (ops/postgres-cluster), to kill and restart."""

    def __init__(self, *start_args):
        self.url, self.directory = cluster("start", "--no-fsync", *start_args)
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])
        self.frozen = []

    def postmaster(self):
        return int((pathlib.Path(self.directory) / "data" / "postmaster.pid").read_text().split()[0])

    def kill(self):
        """SIGKILL of the server and every one of its processes, as when its host goes down. The
        postmaster alone is not enough: a session's backend outlives it until it next waits, and
        answered a command sent just after (201 where the test expected 503, two tests at a time)."""
        pid = self.postmaster()
        children = pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        subprocess.run(["kill", "-9", str(pid)], check=True)
        # One may have ended meanwhile.
        subprocess.run(["kill", "-9", *children], capture_output=True)

    def freeze(self):
        """SIGSTOP of the server and every one of its processes: connections stay open, and
        nothing answers (a server that hangs, or a network that drops everything)."""
        pid = self.postmaster()
        children = pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        self.frozen = [pid, *map(int, children)]
        for process in self.frozen:
            subprocess.run(["kill", "-STOP", str(process)], check=True)

    def stop(self):
        for process in self.frozen:
            subprocess.run(["kill", "-CONT", str(process)])
        cluster("stop", self.directory)


@pytest.fixture
def servers():
    started = []
    yield lambda *args: started.append(Server(*args)) or started[-1]
    for server in started:
        server.stop()


class Load:
    """Registrations on the core's command socket at `rate` a second, one of every five alone and
    four in a batch frame, each answer kept with the time it came (one thread owns the socket)."""

    def __init__(self, data, rate=100):
        self.socket = dealer(data / "core-commands.sock", timeout_ms=None)
        self.rate = rate
        self.sending = True
        self.stopped = False
        self.next = 1_000
        self.sent = {}
        self.answers = []  # (time, outcome)
        self.last = {}
        self.resends = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def send(self, documents):
        frame = json.dumps(documents[0]) if len(documents) == 1 else json.dumps(documents)
        self.socket.send(frame.encode())

    def run(self):
        due = time.monotonic()
        while not self.stopped:
            now = time.monotonic()
            if self.sending and now >= due:
                documents = [register(n) for n in range(self.next, self.next + 5)]
                self.next += 5
                for document in documents:
                    self.sent[document["commandId"]] = document
                self.send(documents[:1])
                self.send(documents[1:])
                due += 5 / self.rate
            with self.lock:
                resends, self.resends = self.resends, []
            for document in resends:
                self.send([document])
            if self.socket.poll(5):
                answer = json.loads(self.socket.recv())
                with self.lock:
                    for outcome in answer if isinstance(answer, list) else [answer]:
                        self.answers.append((time.monotonic(), outcome))
                        self.last[outcome["commandId"]] = outcome
        self.socket.close()

    def unresolved(self):
        with self.lock:
            return [i for i in self.sent if self.last.get(i, {}).get("status") != "accepted"]

    def resend_until_resolved(self, timeout=30):
        """Every command not answered `accepted` (failed, or never answered) sent again with its
        id until it is: a registration that was written answers `accepted` (a duplicate), one that
        was not is decided again; written twice, it would be rejected (the name is taken)."""
        deadline = time.monotonic() + timeout
        while (left := self.unresolved()) and time.monotonic() < deadline:
            with self.lock:
                rejected = [self.last[i] for i in left if self.last.get(i, {}).get("status") == "rejected"]
                assert not rejected, rejected[:3]
                self.resends += [self.sent[i] for i in left]
            time.sleep(0.5)
        assert not self.unresolved(), f"{len(self.unresolved())} commands never resolved"

    def close(self):
        self.stopped = True
        self.thread.join()

    def outage(self, after):
        """From the first failed answer after `after` to the first new acceptance after it."""
        with self.lock:
            answers = list(self.answers)
        failed = [t for t, o in answers if t >= after and o["status"] == "failed"]
        if not failed:
            return None, answers
        accepted = [t for t, o in answers if t > failed[0] and o["status"] == "accepted" and not o.get("duplicate")]
        return (accepted[0] - failed[0] if accepted else None), answers


def assert_exactly_once(url, load):
    """Every registration answered `accepted` is in the log once, at the positions answered."""
    rows = psql(url, "SELECT command_id, string_agg(position::text, ',' ORDER BY position) FROM events "
                     "WHERE type = 'UserRegistered' GROUP BY command_id")
    logged = dict(line.split("|") for line in rows.splitlines())
    with load.lock:
        accepted = {i: o for i, o in load.last.items() if o["status"] == "accepted"}
    assert set(accepted) == set(load.sent)
    assert set(load.sent) <= set(logged)
    for command_id, outcome in accepted.items():
        assert logged[command_id] == ",".join(map(str, outcome["positions"])), command_id
    positions = [int(p) for p in psql(url, "SELECT position FROM events ORDER BY position").split()]
    assert positions == list(range(1, len(positions) + 1)), "positions are dense"


class Groceries:
    """Grocery items added over HTTP by one account, each with an Idempotency-Key, one at a time."""

    def __init__(self, api):
        self.api = api
        _, self.token = api.register_and_log_in("grocer")
        self.answers = {}
        self.stopped = False
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def add(self, n):
        try:
            return self.api.post("/v1/me/groceries", {"ingredient": f"item {n}"}, token=self.token,
                                 headers={"Idempotency-Key": f"item-{n}"}, timeout=10)
        except OSError:
            return None

    def run(self):
        n = 0
        while not self.stopped and n < 900:
            self.answers[n] = self.add(n)
            n += 1
            time.sleep(0.05)

    def close(self, url):
        self.stopped = True
        self.thread.join()
        for n, answer in self.answers.items():
            deadline = time.monotonic() + 20
            while answer is None or answer.status != 201:
                assert answer is None or answer.status == 503, answer
                if answer is not None:
                    assert answer.json["code"] in ("storage_unavailable", "core_unavailable"), answer
                    assert "retry-after" in answer.headers
                assert time.monotonic() < deadline, f"item {n} never added"
                time.sleep(0.2)
                answer = self.add(n)
        added = int(psql(url, "SELECT count(*) FROM events WHERE type = 'GroceryAdded'"))
        assert added == len(self.answers), "each item added once"


def restart_after_kill(server):
    server.kill()
    time.sleep(1)
    cluster("restart", server.directory)


def fast_restart(server):
    cluster("restart", server.directory)


def terminate_sessions(server):
    psql(server.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE datname = current_database() AND pid <> pg_backend_pid()")


@pytest.mark.parametrize("fault", [restart_after_kill, fast_restart, terminate_sessions],
                         ids=["kill-9-and-restart", "pg_ctl-restart-fast", "pg_terminate_backend"])
def test_the_core_survives_its_postgres_server(processes, servers, monkeypatch, fault):
    server = servers()
    monkeypatch.setenv("PANTRY_LOG", server.url)
    api = start_core_and_api(processes)
    core = processes.running[0]
    groceries = Groceries(api)
    load = Load(processes.data)
    try:
        wait_for(lambda: sum(o["status"] == "accepted" for _, o in load.answers) > 50, what="the load")
        struck = time.monotonic()
        fault(server)
        back = time.monotonic()
        try:
            wait_for(lambda: any(t > back and o["status"] == "accepted" and not o.get("duplicate")
                                 for t, o in list(load.answers)), timeout=10, what="commands accepted again")
        except AssertionError as error:
            since = [(round(t - back, 2), o["status"], o.get("code")) for t, o in list(load.answers) if t > back - 1]
            log = (processes.data / "core-core-0.log").read_text()
            raise AssertionError(f"{error}; answers from 1 s before: {since[:5]} ... {since[-5:]} ({len(since)}); "
                                 f"the core's log ends:\n{log[-3000:]}") from None
        time.sleep(1)
        load.sending = False
        load.resend_until_resolved()
    finally:
        load.close()
        groceries.stopped = True
    groceries.close(server.url)
    assert core.poll() is None, "the core was not restarted"
    outage, answers = load.outage(struck)
    codes = {o.get("code") for _, o in answers if o["status"] == "failed"}
    assert codes <= {"storage_unavailable"}, codes
    print(f"\n{fault.__name__}: outage seen by clients {outage if outage is None else round(outage, 3)} s, "
          f"{sum(o['status'] == 'failed' for _, o in answers)} failed answers, fault took {back - struck:.2f} s")
    assert outage is None or outage < 10
    assert_exactly_once(server.url, load)
    log = (processes.data / "core-core-0.log").read_text()
    assert "lost the PostgreSQL log's session" in log or "cannot be reached" in log
    wait_caught_up(processes)
    assert_replay_matches(processes)


def test_the_core_writes_to_a_promoted_standby(processes, servers, monkeypatch):
    """Primary and synchronous standby; kill -9 of the primary, promotion of the standby: the
    core finds the new primary (PANTRY_LOG names both hosts), and nothing acknowledged is lost."""
    primary = servers()
    standby = servers("--standby-of", primary.directory, "--synchronous")
    monkeypatch.setenv("PANTRY_LOG", f"postgres://postgres@127.0.0.1:{primary.port},127.0.0.1:{standby.port}/postgres"
                                     "?target_session_attrs=read-write")
    api = start_core_and_api(processes)
    core = processes.running[0]
    load = Load(processes.data)
    try:
        wait_for(lambda: sum(o["status"] == "accepted" for _, o in load.answers) > 50, what="the load")
        killed = time.monotonic()
        primary.kill()
        time.sleep(0.5)
        cluster("promote", standby.directory)
        promoted = time.monotonic()

        def written():
            answers = list(load.answers)
            failed = next((t for t, o in answers if t > killed and o["status"] == "failed"), None)
            return failed and next((t for t, o in answers if t > failed and o["status"] == "accepted"
                                    and not o.get("duplicate")), None)
        first = wait_for(written, timeout=15, what="a write to the new primary")
        print(f"\nfailover: first write to the new primary {first - killed:.2f} s after the kill "
              f"({first - promoted:.2f} s after the promotion)")
        assert first - killed < 15
        time.sleep(1)
        load.sending = False
        load.resend_until_resolved()
    finally:
        load.close()
    assert core.poll() is None
    assert psql(standby.url, "SELECT pg_is_in_recovery()") == "f"
    assert_exactly_once(standby.url, load)
    ok(api.get("/health"))
    wait_caught_up(processes)
    assert_replay_matches(processes)


@pytest.mark.parametrize("fault", ["killed", "frozen"])
def test_sigterm_stops_a_core_whose_server_is_gone_within_2_s(processes, servers, monkeypatch, fault):
    server = servers()
    monkeypatch.setenv("PANTRY_LOG", server.url)
    core = processes.start("core")
    wait_for(lambda: (processes.data / "core-commands.sock").exists(), what="the core")
    socket = dealer(processes.data / "core-commands.sock")
    socket.send(json.dumps(register(1)).encode())
    assert json.loads(socket.recv())["status"] == "accepted"
    server.kill() if fault == "killed" else server.freeze()
    # A command under way: frozen, the core waits on the server for it (its deadline is 5 s).
    socket.send(json.dumps(register(2)).encode())
    time.sleep(0.5)
    stopping = time.monotonic()
    core.send_signal(signal.SIGTERM)
    status = core.wait(timeout=10)
    took = time.monotonic() - stopping
    socket.close()
    print(f"\n{fault}: stopped {took:.2f} s after SIGTERM")
    assert status == 0
    assert took < 2, took
    assert "core stopped" in (processes.data / "core-core-0.log").read_text()


def test_ready_says_the_log_is_unavailable_while_its_postgres_server_is_away(processes, servers, monkeypatch):
    """Issue 44/45: `/ready` answered 200 while every command failed `storage_unavailable`. Now it
    answers 503 saying so, from the core's heartbeat, and 200 once the server is back (the core
    asks the log every second, so no command has to succeed first)."""
    server = servers()
    monkeypatch.setenv("PANTRY_LOG", server.url)
    api = start_core_and_api(processes)
    _, token = api.register_and_log_in("cook")
    server.kill()
    added = api.post("/v1/me/groceries", {"ingredient": "eggs"}, token=token, headers={"Idempotency-Key": "eggs-1"})
    assert added.status == 503 and added.json["code"] == "storage_unavailable", added

    def says_unavailable():
        answer = api.get("/ready", timeout=5)
        return answer if answer.status == 503 and "storage_unavailable" in answer.json["detail"] else None

    answer = wait_for(says_unavailable, timeout=10, what="/ready to say the log is unavailable")
    assert "core: writes to the log fail: storage_unavailable" in answer.json["detail"], answer.json
    cluster("restart", server.directory)
    wait_for(api.ready, timeout=20, what="/ready once the server is back")
    assert api.post("/v1/me/groceries", {"ingredient": "eggs"}, token=token,
                    headers={"Idempotency-Key": "eggs-1"}).status == 201
