"""ops/bench-start: how long the core, a worker and the API take from their start to their first
answer, on logs of several sizes. Run through ops/bench-start."""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import zmq

TAIL = 99_999


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Bench:
    def __init__(self, bin_dir, data, users):
        self.bin = bin_dir
        self.data = data
        self.users = users
        self.context = zmq.Context()

    def fill(self, events):
        subprocess.run([f"{self.bin}/pantry-bench", "log", "--events", str(events), "--users", str(self.users),
                        "--data", self.data], check=True)

    def head(self):
        stats = subprocess.run([f"{self.bin}/pantry", "stats", "--json", "--data", self.data],
                               check=True, capture_output=True)
        return json.loads(stats.stdout)["head"]

    def timed_start(self, args, socket_name, request, answered, env=None):
        """Starts `pantry ARGS` (with `env` added to the environment), asks `request` on its socket
        until `answered(reply)`; returns (seconds, RSS in MiB at that moment, the process)."""
        path = os.path.join(self.data, socket_name)
        if os.path.exists(path):
            os.remove(path)
        log = open(os.path.join(self.data, f"{args[0]}.log"), "ab")
        started = time.monotonic()
        process = subprocess.Popen([f"{self.bin}/pantry", *args, "--data", self.data], stdout=log, stderr=log,
                                   env={**os.environ, **(env or {})})
        while not os.path.exists(path):
            if process.poll() is not None:
                raise SystemExit(f"bench-start: pantry {' '.join(args)} exited with {process.returncode}")
            time.sleep(0.002)
        socket = self.context.socket(zmq.DEALER)
        socket.connect(f"ipc://{path}")
        while True:
            socket.send(json.dumps(request).encode())
            if socket.poll(120_000):
                reply = json.loads(socket.recv())
                if answered(reply):
                    break
            else:
                raise SystemExit(f"bench-start: no answer from pantry {' '.join(args)}")
        seconds = time.monotonic() - started
        memory = rss_mib(process.pid)
        socket.close(linger=0)
        return seconds, memory, process

    def stop(self, process):
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)

    def core(self):
        probe = {"commandId": f"probe-{time.monotonic_ns()}", "type": "SaveRecipe",
                 "data": {"userId": "nobody", "recipeId": "nothing"}}
        seconds, memory, process = self.timed_start(["core"], "core-commands.sock", probe, lambda reply: "status" in reply)
        self.stop(process)
        return seconds, memory

    def api(self):
        """`pantry api` from its start until it answers the leaderboard from its own read models
        (503 `not_caught_up` while it reads the log), beside a running core (its feed); returns
        (seconds, RSS in MiB at that moment)."""
        core = subprocess.Popen([f"{self.bin}/pantry", "core", "--data", self.data],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not os.path.exists(os.path.join(self.data, "core-events.sock")):
            time.sleep(0.01)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        log = open(os.path.join(self.data, "api.log"), "ab")
        started = time.monotonic()
        process = subprocess.Popen([f"{self.bin}/pantry", "api", "--data", self.data, "--port", str(port)],
                                   stdout=log, stderr=log, env={**os.environ, "PANTRY_ACCESS_LOG": "off"})
        try:
            while True:
                if process.poll() is not None:
                    raise SystemExit(f"bench-start: pantry api exited with {process.returncode}")
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                    connection.request("GET", "/v1/leaderboard?limit=1")
                    if connection.getresponse().status == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.01)
            return time.monotonic() - started, rss_mib(process.pid)
        finally:
            self.stop(process)
            self.stop(core)

    def worker(self, head):
        query = {"query": "top", "limit": 10, "after": head, "wait": 10_000}
        return self.timed_start(["worker", "leaderboard"], "leaderboard-queries.sock", query,
                                lambda reply: reply.get("position", 0) >= head)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--events", type=int, action="append", help="log sizes (repeat); default 1000000 and 5000000")
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--directory", default=tempfile.gettempdir())
    options = parser.parse_args()
    sizes = options.events or [1_000_000, 5_000_000]
    rows = []
    for events in sizes:
        data = tempfile.mkdtemp(prefix="pantry-bench-start-", dir=options.directory)
        try:
            bench = Bench(options.bin, data, options.users)
            snapshot = os.path.join(data, "core.snapshot")
            # A snapshot TAIL events behind the head: the most a core folds at start, with a
            # snapshot every 100,000 events.
            bench.fill(events - TAIL)
            bench.core()
            shutil.move(snapshot, snapshot + ".behind")
            bench.fill(events)
            head = bench.head()
            whole, whole_rss = bench.core()
            shutil.move(snapshot + ".behind", snapshot)
            snap, snap_rss = bench.core()
            rows.append((f"core, folding the whole log", head, whole, whole_rss))
            rows.append((f"core, snapshot + {TAIL:,} events", head, snap, snap_rss))
            print(f"{head:,} events: core {whole:.2f} s folding the whole log, {snap:.2f} s from the snapshot", flush=True)

            fresh, fresh_rss, worker = bench.worker(head)
            bench.stop(worker)
            rows.append(("fresh leaderboard worker (replays all)", head, fresh, fresh_rss))
            bench.fill(head + TAIL + 1)
            behind = bench.head()
            restart, restart_rss, worker = bench.worker(behind)
            bench.stop(worker)
            rows.append((f"leaderboard worker, {behind - head:,} events behind", behind, restart, restart_rss))
            print(f"{head:,} events: fresh worker {fresh:.2f} s, restarted worker {restart:.2f} s", flush=True)
            api, api_rss = bench.api()
            rows.append((f"API, reading the log into its read models", behind, api, api_rss))
            print(f"{behind:,} events: API {api:.2f} s to its first leaderboard answer", flush=True)
        finally:
            shutil.rmtree(data, ignore_errors=True)
    print()
    print(f"| {'start':<44} | {'events':>9} | {'to first answer':>15} | {'RSS':>9} | target |")
    print(f"|{'---'}|{'---:'}|{'---:'}|{'---:'}|---|")
    for name, head, seconds, memory in rows:
        target = "" if name.startswith(("fresh", "API")) or "whole" in name else ("<= 2 s " + ("met" if seconds <= 2 else "MISSED"))
        print(f"| {name:<44} | {head:>9,} | {seconds:>13.2f} s | {memory:>5.0f} MiB | {target} |")


if __name__ == "__main__":
    main()
