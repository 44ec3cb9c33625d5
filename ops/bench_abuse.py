"""ops/bench-abuse: an authenticated read (`GET /v1/leaderboard/me`) timed at rest and while the
deployment is abused, each abuse in its own phase. The abusers run in other processes, each
connection from its own loopback address (127.0.0.2 and up), as a distributed attack would come.
With --known-devices 50,200,1000: instead, log-in floods from that many addresses, each met by 20
returning cooks with a device token of an earlier log-in and 20 cooks without one (issue 45).
Run through ops/bench-abuse."""
import argparse
import http.client
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from bench_http import PROCESSES, free_port, request, wait_ready  # noqa: E402


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def timed_reads(port, token, count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        connection.request("GET", "/v1/leaderboard/me", headers={"Authorization": f"Bearer {token}"})
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
        latencies.append((time.perf_counter() - started) * 1000)
        time.sleep(0.01)
    connection.close()
    return latencies


def log_in_flood(port, first_address, clients, seconds, counts):
    """`clients` keep-alive connections, each from its own address, guessing a password."""
    import threading
    stop = time.monotonic() + seconds

    def client(n):
        address = f"127.0.{(first_address + n) // 250}.{2 + (first_address + n) % 250}"
        connection = None
        while time.monotonic() < stop:
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
                body = json.dumps({"username": "victim", "password": f"guess {n} {time.monotonic()}"})
                connection.request("POST", "/v1/sessions", body=body, headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                counts[response.status] = counts.get(response.status, 0) + 1
                if response.getheader("Connection") == "close":
                    connection.close()
                    connection = None
            except OSError:
                counts["error"] = counts.get("error", 0) + 1
                connection = None

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def flood_process(port, first_address, clients, seconds, queue):
    counts = {}
    log_in_flood(port, first_address, clients, seconds, counts)
    queue.put(counts)


def slowloris(port, connections, seconds):
    sockets = []
    for n in range(connections):
        s = socket.socket()
        s.bind((f"127.0.{n // 250}.{2 + n % 250}", 0))
        s.connect(("127.0.0.1", port))
        s.send(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        sockets.append(s)
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        for s in sockets:
            try:
                s.send(b"X")
            except OSError:
                pass
        time.sleep(1)
    open_left = 0
    for s in sockets:
        s.setblocking(False)
        try:
            open_left += s.recv(1) != b""
        except BlockingIOError:
            open_left += 1
        except OSError:
            pass
        s.close()
    return open_left


def quota_grief(port, seconds, counts):
    """One client asking for uncached searches as fast as it can."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.9.9", 0))
    stop, n = time.monotonic() + seconds, 0
    while time.monotonic() < stop:
        n += 1
        connection.request("GET", f"/v1/recipes/search?query=grief{n}")
        response = connection.getresponse()
        response.read()
        counts[response.status] = counts.get(response.status, 0) + 1


def log_in_from(address, port, username, password, device=None):
    """One log-in from `address`: its status and milliseconds."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(address, 0))
    headers = {"Content-Type": "application/json", **({"X-Pantry-Device": device} if device else {})}
    try:
        connection.request("POST", "/v1/sessions", body=json.dumps({"username": username, "password": password}), headers=headers)
        response = connection.getresponse()
        body = response.read()
        return response.status, (time.monotonic() - started) * 1000, json.loads(body or b"{}") if body.startswith(b"{") else {}
    except OSError:
        return "error", (time.monotonic() - started) * 1000, {}
    finally:
        connection.close()


def known_devices(port, sizes, seconds, json_path):
    """Per flood size: how many of 20 returning cooks (device token) and 20 cooks without one log
    in while that many addresses flood log-ins, and how long they took."""
    import concurrent.futures
    password = "a long enough password"
    cooks = {}
    for kind, third in (("known", 9), ("unknown", 10)):
        for n in range(20):
            name = f"{kind}{n}"
            address = f"127.0.{third}.{n + 1}"
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(address, 0))
            connection.request("POST", "/v1/accounts", body=json.dumps({"username": name, "email": f"{name}@example.org", "password": password}),
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            assert response.status == 201, response.read()
            connection.close()
            cooks[name] = (address, None)
    for n in range(20):
        address = cooks[f"known{n}"][0]
        status, _, body = log_in_from(address, port, f"known{n}", password)
        assert status == 201 and body.get("deviceToken"), (status, body)
        cooks[f"known{n}"] = (address, body["deviceToken"])
    results = []
    for size in sizes:
        time.sleep(3)  # the last phase's refusals and buckets settle
        queue = multiprocessing.Queue()
        per_process = 50
        flooders = [multiprocessing.Process(target=flood_process, args=(port, 20 + first, min(per_process, size - first), seconds, queue))
                    for first in range(0, size, per_process)]
        for process in flooders:
            process.start()
        time.sleep(min(3, seconds / 3))
        with concurrent.futures.ThreadPoolExecutor(max_workers=40) as pool:
            answers = list(pool.map(lambda name: (name, log_in_from(cooks[name][0], port, name, password, cooks[name][1])), cooks))
        for process in flooders:
            process.join()
        flood = {}
        for _ in flooders:
            for status, n in queue.get().items():
                flood[str(status)] = flood.get(str(status), 0) + n
        row = {"addresses": size, "floodSeconds": seconds, "flood": flood}
        for kind in ("known", "unknown"):
            # A refusal by its code too: 429 rate_limited, 503 busy, ...
            mine = [(status if status == 201 else f"{status} {body.get('code', '')}".strip(), ms)
                    for name, (status, ms, body) in answers if name.startswith(kind)]
            ok = sorted(ms for status, ms in mine if status == 201)
            row[kind] = {"loggedIn": len(ok), "of": len(mine),
                         "statuses": {str(s): sum(1 for status, _ in mine if status == s) for s in {status for status, _ in mine}},
                         "p50Ms": round(percentile(ok, 0.5), 1) if ok else None, "maxMs": round(ok[-1], 1) if ok else None}
        results.append(row)
        print(f"| {size:>5} addresses | known devices {row['known']['loggedIn']:>2} of 20 (p50 {row['known']['p50Ms']} ms, max {row['known']['maxMs']} ms) "
              f"| without a device token {row['unknown']['loggedIn']:>2} of 20 ({row['unknown']['statuses']}) | flood: {flood} |", flush=True)
    if json_path:
        with open(json_path, "w") as out:
            json.dump({"benchmark": "ops/bench-abuse --known-devices", "cpus": os.cpu_count(), "results": results}, out, indent=2)
            out.write("\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--known-devices", help="flood sizes, e.g. 50,200,1000: measure returning cooks' log-ins instead")
    parser.add_argument("--json", help="where --known-devices writes its figures")
    options = parser.parse_args()
    data = tempfile.mkdtemp(prefix="pantry-bench-abuse-")
    port = free_port()
    pantry = os.path.join(options.bin, "pantry")
    env = {**os.environ, "PANTRY_LOG_LEVEL": "warning"}
    log = open(os.path.join(data, "processes.log"), "wb")
    processes = [subprocess.Popen([pantry, *p.split(), "--data", data], env=env, stdout=log, stderr=subprocess.STDOUT)
                 for p in PROCESSES]
    processes.append(subprocess.Popen([pantry, "api", "--data", data, "--port", str(port)], env=env, stdout=log,
                                      stderr=subprocess.STDOUT))
    rows = []
    try:
        wait_ready(port, "/ready")
        if options.known_devices:
            known_devices(port, [int(n) for n in options.known_devices.split(",")], options.seconds, options.json)
            return
        for name in ("reader", "victim"):
            status, body = request(port, "POST", "/v1/accounts", {"username": name, "email": f"{name}@example.org",
                                                                  "password": "a long enough password"})
            assert status == 201, body
        token = json.loads(request(port, "POST", "/v1/sessions", {"username": "reader", "password": "a long enough password"})[1])["token"]
        timed_reads(port, token, 50)  # warm up

        rest = timed_reads(port, token, options.reads)
        rows.append(("at rest", rest, ""))

        queue = multiprocessing.Queue()
        flooders = [multiprocessing.Process(target=flood_process, args=(port, 50 * p, 50, options.seconds, queue))
                    for p in range(4)]
        for process in flooders:
            process.start()
        time.sleep(1)
        under_flood = timed_reads(port, token, options.reads)
        for process in flooders:
            process.join()
        counts = {}
        for _ in flooders:
            for status, n in queue.get().items():
                counts[status] = counts.get(status, 0) + n
        rows.append(("200-client log-in flood", under_flood, ", ".join(f"{n} x {s}" for s, n in sorted(counts.items(), key=str))))
        # The victim still logs in with the right password from an address it used before.
        status, _ = request(port, "POST", "/v1/sessions", {"username": "victim", "password": "a long enough password"})
        rows.append(("  the victim's own log-in after the flood", [], f"HTTP {status}"))

        import threading
        left = {}
        loris = threading.Thread(target=lambda: left.update(open=slowloris(port, 500, options.seconds + 15)))
        loris.start()
        time.sleep(1)
        under_loris = timed_reads(port, token, options.reads)
        loris.join()
        rows.append(("500 slowloris connections", under_loris, f"{left.get('open', '?')} of 500 still open after {options.seconds + 15:.0f} s"))

        grief = {}
        griefer = threading.Thread(target=quota_grief, args=(port, options.seconds, grief))
        griefer.start()
        time.sleep(0.5)
        under_grief = timed_reads(port, token, options.reads)
        griefer.join()
        rows.append(("one client griefing the upstream quota", under_grief, ", ".join(f"{n} x {s}" for s, n in sorted(grief.items()))))
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=15)
        subprocess.run(["rm", "-rf", data])

    rest_p99 = percentile(rest, 0.99)
    print(f"| {'situation':<42} | {'p50 ms':>7} | {'p99 ms':>7} | {'p99 / rest':>10} | what the abusers got |")
    print("|---|---:|---:|---:|---|")
    for name, latencies, note in rows:
        if not latencies:
            print(f"| {name:<42} | {'':>7} | {'':>7} | {'':>10} | {note} |")
            continue
        p99 = percentile(latencies, 0.99)
        ratio = p99 / rest_p99
        target = " (target <= 5x: " + ("met" if ratio <= 5 else "MISSED") + ")" if "flood" in name else ""
        print(f"| {name:<42} | {percentile(latencies, 0.5):7.2f} | {p99:7.2f} | {ratio:9.1f}x | {note}{target} |")


if __name__ == "__main__":
    main()
