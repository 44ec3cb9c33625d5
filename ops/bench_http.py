"""ops/bench-http: each hot Pantry route under wrk beside a bare Hummingbird route, alternated in
one run on this machine, printing every route's ratio to the bare one, and the durable increments'
ratio to the same route built the usual way (`pantry-bench http-usual`); then read-your-writes
(`?after=` the position just written against the same read without it); then where a durable
increment's CPU goes. Run through ops/bench-http."""
import argparse
import http.client
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

PROCESSES = ["core", "worker leaderboard", "worker carts", "worker favourites", "worker groceries",
             "worker experiences", "fetch"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, token=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    all_headers = dict(headers or {})
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    if data is not None:
        all_headers["Content-Type"] = "application/json"
    connection.request(method, path, body=data, headers=all_headers)
    response = connection.getresponse()
    return response.status, response.read()


def wait_ready(port, path, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", path)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit(f"bench-http: {path} on port {port} did not answer 200 within {timeout} s")


class Deployment:
    """The Procfile's processes on a fresh data directory, started directly or through honcho.

    Every process, wrk and the bare route each run in a session of their own, as honcho starts the
    Procfile's (and systemd would give each service its own cgroup). With the kernel's autogroups
    (`kernel.sched_autogroup_enabled`) the cores are shared between sessions first: processes
    started directly in this script's session, wrk's too, took more of the cores from wrk than
    the same processes under honcho, so honcho looked 5-9% slower (12 alternated starts) although
    every process cost the same CPU per request and made the same system calls."""

    def __init__(self, bin_dir, honcho, root, history=None, env=None):
        self.data = tempfile.mkdtemp(prefix="pantry-bench-http-")
        if history:
            subprocess.run(["cp", "-a", f"{history}/.", self.data], check=True)
        self.port = free_port()
        self.bin = os.path.join(bin_dir, "pantry")
        env = {**os.environ, "PANTRY_LOG_LEVEL": os.environ.get("PANTRY_LOG_LEVEL", "info"),
               "PANTRY_PASSWORD_COST": "10", "PANTRY_LOGIN_RATE_PER_CLIENT": "100000",
               "PANTRY_LOGIN_RATE_OVERALL": "100000", "PANTRY_BIN": self.bin, "PANTRY_DATA": self.data,
               "PANTRY_PORT": str(self.port),
               # Thousands of points a second from a few users: the pace of a person is not what is measured.
               "PANTRY_POINTS_PACE": "1000000000/0.001",
               # wrk is many clients on one address: the paced runs open 280-380 connections, and
               # the default cap of 256 per address refused the rest, which then only reconnected.
               "PANTRY_MAX_CONNECTIONS_PER_ADDRESS": "4096", **(env or {})}
        self.log = open(os.path.join(self.data, "processes.log"), "wb")
        if honcho:
            self.processes = [subprocess.Popen([os.path.join(root, ".venv/bin/honcho"), "start", "-f",
                                                os.path.join(root, "Procfile")], env=env, stdout=self.log,
                                               stderr=subprocess.STDOUT)]
        else:
            self.processes = [subprocess.Popen([self.bin, *p.split(), "--data", self.data], env=env, stdout=self.log,
                                               stderr=subprocess.STDOUT, start_new_session=True) for p in PROCESSES]
            self.processes.append(subprocess.Popen([self.bin, "api", "--data", self.data, "--port", str(self.port)],
                                                   env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                                   start_new_session=True))
        wait_ready(self.port, "/ready")
        if history:
            self.wait_caught_up()

    def wait_caught_up(self, timeout=1800):
        """Until every worker has applied the whole log: a worker catching up would share the cores."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            status, body = request(self.port, "GET", "/ready")
            readiness = json.loads(body) if status == 200 else {}
            lags = [worker["lag"] for worker in readiness.get("workers", {}).values()]
            if lags and max(lags) == 0:
                print(f"  every worker at the head ({readiness['head']}) {time.monotonic() - started:.0f} s after the start",
                      flush=True)
                return
            time.sleep(2)
        sys.exit(f"bench-http: the workers did not catch up with the log within {timeout} s")

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        subprocess.run(["rm", "-rf", self.data])


class UsualStack:
    """`pantry-bench http-usual` on a fresh directory: the points route built the usual way
    (Hummingbird + GRDB, WAL, synchronous=FULL, one transaction per request, tokens in memory), with
    `users` registered, so the increments' script runs against it unchanged but for the tokens."""

    def __init__(self, bin_dir, users):
        self.data = tempfile.mkdtemp(prefix="pantry-bench-usual-")
        self.port = free_port()
        self.process = subprocess.Popen([os.path.join(bin_dir, "pantry-bench"), "http-usual", "--port", str(self.port),
                                         "--data", self.data], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        wait_ready(self.port, "/health")
        self.tokens = []
        for n in range(users):
            status, body = request(self.port, "POST", "/v1/accounts",
                                   {"username": f"bench{n}", "email": f"bench{n}@example.org", "password": "bench password"})
            assert status == 201, body
            self.tokens.append(json.loads(body)["token"])

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        subprocess.run(["rm", "-rf", self.data])


RECIPES, INGREDIENTS = 100, 200


def prepare(deployment, users):
    """Users with tokens, and recipes recorded in the log (through the core) with 200 ingredients
    each, in every user's cart with its timer started, so that every increment the benchmark sends
    is a new point."""
    tokens, ids = [], []
    for n in range(users):
        status, body = request(deployment.port, "POST", "/v1/accounts",
                               {"username": f"bench{n}", "email": f"bench{n}@example.org", "password": "bench password"})
        assert status == 201, body
        tokens.append(json.loads(body)["token"])
        ids.append(json.loads(body)["userId"])
    facts = {"title": "Bench recipe", "ingredients": [f"ingredient {i}" for i in range(INGREDIENTS)]}
    lines = [json.dumps(command) for u, user in enumerate(ids) for r in range(RECIPES) for command in (
        {"commandId": f"bench-http-cart-{u}-{r}", "type": "AdjustCart",
         "data": {"userId": user, "recipeId": f"bench-recipe-{r}", "delta": 1, "recipe": facts}},
        {"commandId": f"bench-http-cook-{u}-{r}", "type": "StartCooking",
         "data": {"userId": user, "recipeId": f"bench-recipe-{r}", "minutes": 1440}})]
    submitted = subprocess.run([deployment.bin, "submit", "--data", deployment.data], input="\n".join(lines).encode(),
                               capture_output=True, timeout=60)
    assert submitted.returncode == 0 and b'"rejected"' not in submitted.stdout, submitted.stdout[:500]
    return tokens


LUA_GET = """
local tokens = {%s}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "%s", {["Authorization"] = "Bearer " .. tokens[(n %% #tokens) + 1]})
end
"""

# Every request a new (user, recipe, ingredient): the thread's own slice of the users, so the two
# threads never send the same point.
LUA_INCREMENT = """
local tokens = {%s}
local recipes, ingredients = %d, %d
local counter = 0
local threads = 0
setup = function(thread) thread:set("first", threads); threads = threads + 1 end
init = function(args) counter = %d end
request = function()
  local slot = counter
  counter = counter + 1
  local half = math.floor(#tokens / 2)
  local user = first * half + (slot %% half)
  local round = math.floor(slot / half)
  local recipe = round %% recipes
  local ingredient = 1 + math.floor(round / recipes) %% (ingredients - 1)
  local body = string.format('{"recipeId":"bench-recipe-%%d","ingredient":"ingredient %%d"}', recipe, ingredient)
  return wrk.format("POST", "/v1/me/owned-ingredients",
    {["Authorization"] = "Bearer " .. tokens[user + 1], ["Content-Type"] = "application/json",
     ["Idempotency-Key"] = string.format("b%%d-%%d-%%d", first, slot, math.random(1, 1000000000))}, body)
end
"""


TICK = os.sysconf("SC_CLK_TCK")


def process_tree(root_pids):
    """Every live process under `root_pids` (these included), by a short name from its command line."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, pending = {}, list(root_pids)
    while pending:
        pid = pending.pop()
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        if not argv:
            continue
        program = os.path.basename(argv[0])
        if program == "pantry" and len(argv) > 1:
            name = argv[2] if argv[1] == "worker" and len(argv) > 2 else argv[1]
        elif "honcho" in " ".join(argv[:2]):
            name = "honcho"
        else:
            name = program
        found[pid] = name
        pending += children.get(pid, [])
    return found


def cpu_seconds(pids):
    """user + system CPU seconds of each process so far."""
    seconds = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            seconds[pid] = (int(fields[11]) + int(fields[12])) / TICK
        except (OSError, IndexError, ValueError):
            pass
    return seconds


def cpu_per_request(tree, before, after, requests):
    """Microseconds of CPU per request, per process name, the busiest first."""
    by_name = {}
    for pid, name in tree.items():
        if pid in before and pid in after:
            by_name[name] = by_name.get(name, 0) + after[pid] - before[pid]
    used = sorted(((seconds * 1e6 / max(requests, 1), name) for name, seconds in by_name.items()), reverse=True)
    return ", ".join(f"{name} {micro:.0f}" for micro, name in used if micro >= 0.5)


def children_cpu_seconds():
    """CPU of the children waited for so far: around a `wrk` call, what wrk itself spent."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(url, seconds, connections, script, tree):
    """`wrk` against `url`, with the CPU per request of each process of `tree` (by name) and wrk's own."""
    before, wrk_before = cpu_seconds(tree), children_cpu_seconds()
    rate, p99, errors, requests = wrk(url, seconds, connections, script)
    wrk_cpu = (children_cpu_seconds() - wrk_before) * 1e6 / requests
    return rate, p99, errors, requests, cpu_per_request(tree, before, cpu_seconds(tree), requests), wrk_cpu


def wrk(url, seconds, connections, script=None):
    args = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if script:
        args += ["-s", script]
    output = subprocess.run(args + [url], capture_output=True, text=True, timeout=seconds + 60,
                            start_new_session=True).stdout
    socket_errors = re.search(r"Socket errors: .*", output)
    if socket_errors:  # connections refused or cut: the rate and latencies are not the route's alone
        print(f"  wrk against {url}: {socket_errors.group(0)}", flush=True)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    p99 = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", output)
    scale = {"us": 0.001, "ms": 1, "s": 1000}
    return rate, (float(p99.group(1)) * scale[p99.group(2)] if p99 else None), int(non2xx.group(1)) if non2xx else 0, requests


PACE_MS = 10


class FsyncProbe:
    """Times a 4 KiB write and fdatasync of a file of its own every 10 ms, on a thread, in `directory`:
    what any fsync on that file system waited meanwhile, the log's included, whatever Pantry did."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "fsync-probe")
        self.timings = []
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while self.running:
                os.pwrite(fd, b"x" * 4096, 0)
                began = time.perf_counter()
                os.fdatasync(fd)
                self.timings.append((time.perf_counter() - began) * 1000)
                time.sleep(0.01)
        finally:
            os.close(fd)
            os.unlink(self.path)

    def stop(self):
        self.running = False
        self.thread.join()
        t = sorted(self.timings)
        stalls = sum(1 for x in t if x > 20)
        return (f"fsync probe beside it: p50 {t[len(t) // 2]:.2f} ms, p99 {t[int(len(t) * 0.99)]:.2f} ms, "
                f"max {t[-1]:.0f} ms, {stalls} of {len(t)} over 20 ms")


def half_rate(work, name, url, script, rate, requests, seconds, quoted, increments, data):
    """The route again at half of `rate`, paced by wrk's `delay()`; its p99 against the 10 ms target.
    For durable increments, an fsync probe runs beside it: the log's commits wait on the disk."""
    asked = rate / 2
    connections = max(2, round(asked * (PACE_MS + 1) / 1000))
    paced = os.path.join(work, "paced.lua")
    with open(paced, "w") as f:
        if increments:  # past every slot the run at full rate used, so each request is still a new point
            f.write(LUA_INCREMENT % (quoted, RECIPES, INGREDIENTS, requests))
        elif script:
            f.write(open(script).read())
        f.write(f"\ndelay = function() return {PACE_MS} end\n")
    probe = FsyncProbe(data) if increments else None
    achieved, p99, errors, _ = wrk(url, seconds, connections, paced)
    verdict = "" if p99 is not None and p99 <= 10 else "  (missed)"
    line = (f"  {name:22} {achieved:8.0f}/s of {asked:.0f}/s asked, {connections} connections: p99 "
            f"{p99 if p99 is not None else float('nan'):.2f} ms (target <= 10), non-2xx {errors}{verdict}")
    return line + (f"\n  {'':22} {probe.stop()}" if probe else "")


BUDGET_BODIES = [
    ("refused by the API", "a recipeId that is a number: no command is sent",
     """'{"recipeId":%d,"ingredient":"ingredient %d"}'"""),
    # Refused by the core's field rules, before the recipe's ingredients are matched: the bench's
    # recipes have 200 each, and matching one that is not there was a third of the core's CPU.
    ("refused by the core", "a blank ingredient: decided, nothing written",
     """'{"recipeId":"bench-recipe-%d","ingredient":" %.0s"}'"""),
]


def increment_budget(work, url, bare_url, quoted, seconds, connections, tree, accepted):
    """The increments' route and clients again with two bodies that stop earlier, each beside the bare
    route: what the HTTP path, the hop to the core and the append each cost, and the CPU that all of
    Pantry's processes may spend on an increment for 0.35 of the bare route on this machine."""
    lines = []
    wrk_on_bare = []
    for name, why, body in BUDGET_BODIES:
        script = os.path.join(work, "budget.lua")
        with open(script, "w") as f:
            f.write(LUA_INCREMENT.replace("""'{"recipeId":"bench-recipe-%%d","ingredient":"ingredient %%d"}'""",
                                          body.replace("%", "%%")) % (quoted, RECIPES, INGREDIENTS, 0))
        bare_rate, _, _, _, _, wrk_cpu = measured(bare_url, seconds, connections, None, {})
        wrk_on_bare.append(wrk_cpu)
        rate, _, refusals, requests, cpu, wrk_cpu = measured(url, seconds, connections, script, tree)
        lines.append(f"  {name:22} {rate / bare_rate:5.2f}  {cpu}, wrk {wrk_cpu:.0f} ({why}; {refusals} of {requests} refused)")
    ratio, cpu, wrk_cpu, bare_server = accepted
    lines.append(f"  {'accepted':22} {ratio:5.2f}  {cpu}, wrk {wrk_cpu:.0f} (the durable increments above)")
    # CPU-bound on the cores wrk shares: the rate is the cores over CPU per request, wrk's included.
    budget = (bare_server + statistics.mean(wrk_on_bare)) / 0.35 - wrk_cpu
    lines.append(f"  at 0.35 of the bare route (bare {bare_server:.0f} + wrk {statistics.mean(wrk_on_bare):.0f} µs a request), "
                 f"every Pantry process together may spend about {budget:.0f} µs on an increment")
    return lines


def read_your_writes(port, token, samples):
    """Median ms of a leaderboard read right after an increment, with and without `?after=`."""
    timings = {"with after": [], "without after": []}
    for n in range(samples):
        status, body = request(port, "POST", "/v1/me/owned-ingredients",
                               {"recipeId": f"bench-recipe-{n % RECIPES}", "ingredient": f"ingredient {150 + n // RECIPES}"},
                               token=token)
        assert status == 201, body
        position = json.loads(body)["position"]
        for label, path in [("with after", f"/v1/leaderboard/me?after={position}"), ("without after", "/v1/leaderboard/me")]:
            began = time.perf_counter()
            status, _ = request(port, "GET", path, token=token)
            timings[label].append((time.perf_counter() - began) * 1000)
            assert status == 200
    return {label: statistics.median(values) for label, values in timings.items()}


def check_thresholds(results, thresholds, field="ratio"):
    """The routes whose ratio (to the bare route, or `field`) fell below its threshold (NIO's
    Benchmarks/Thresholds idea: today's figures less the noise, kept in the repository, so a
    regression fails a run)."""
    misses = []
    for route, minimum in thresholds.items():
        measured = results.get(route)
        if measured is None or field not in measured:
            misses.append(f"{route}: not measured")
        elif measured[field] < minimum:
            misses.append(f"{route}: {'ratio' if field == 'ratio' else field} {measured[field]:.2f} below its threshold {minimum:.2f}")
    return misses


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="the release build's bin directory")
    parser.add_argument("--seconds", type=int, default=10, help="seconds of wrk per measurement")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--log-events", type=int, default=0,
                        help="start each deployment from a log of this many events (pantry-bench log: 10,000 users, "
                             "mostly points), as a deployment that has served a while has, rather than an empty one")
    parser.add_argument("--honcho", action="store_true", help="also start the deployment the way ops/run does")
    parser.add_argument("--json", help="write each route's figures to this file as JSON")
    parser.add_argument("--check", help="a JSON file of route -> lowest ratio to the bare route (ops/thresholds/bench-http.json); "
                                        "exit 1 when a route falls below it")
    parser.add_argument("--routes", help="only these routes, comma-separated names as printed (e.g. 'cached recipe search'); "
                                         "read-your-writes runs only when every route does")
    args = parser.parse_args()
    started_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    bare_port = free_port()
    bare = subprocess.Popen([os.path.join(args.bin, "pantry-bench"), "http-bare", "--port", str(bare_port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_ready(bare_port, "/bare")
    work = tempfile.mkdtemp(prefix="pantry-bench-http-lua-")
    results = {}
    try:
        history = None
        if args.log_events:
            history = os.path.join(work, "history")
            started = time.monotonic()
            made = subprocess.run([os.path.join(args.bin, "pantry-bench"), "log", "--events", str(args.log_events),
                                   "--data", history], capture_output=True, text=True)
            if made.returncode != 0:
                sys.exit(f"bench-http: pantry-bench log failed: {made.stderr.strip()[-2000:]}")
            print(f"== a log of {args.log_events} events made in {time.monotonic() - started:.0f} s; "
                  "each deployment starts from a copy of it", flush=True)
        for honcho in ([False, True] if args.honcho else [False]):
            deployment = Deployment(args.bin, honcho, root, history)
            usual = None
            try:
                tokens = prepare(deployment, args.users)
                quoted = ",".join(f'"{t}"' for t in tokens)
                scripts = {}
                for name, path in [("top10", "/v1/leaderboard?limit=10"), ("myRank", "/v1/leaderboard/me")]:
                    scripts[name] = os.path.join(work, f"{name}.lua")
                    with open(scripts[name], "w") as f:
                        f.write(LUA_GET % (quoted, path))
                scripts["increments"] = os.path.join(work, "increments.lua")
                with open(scripts["increments"], "w") as f:
                    f.write(LUA_INCREMENT % (quoted, RECIPES, INGREDIENTS, 0))
                base = f"http://127.0.0.1:{deployment.port}"
                if not args.routes or "durable increments" in {name.strip() for name in args.routes.split(",")}:
                    usual = UsualStack(args.bin, args.users)
                    scripts["usual"] = os.path.join(work, "usual.lua")
                    with open(scripts["usual"], "w") as f:
                        f.write(LUA_INCREMENT % (",".join(f'"{t}"' for t in usual.tokens), RECIPES, INGREDIENTS, 0))
                routes = [("/health", f"{base}/health", None, 0.9),
                          ("top 10", base, scripts["top10"], 0.7),
                          ("my rank", base, scripts["myRank"], 0.6),
                          ("cached recipe search", f"{base}/v1/recipes/search?query=soup", None, 0.6),
                          ("durable increments", base, scripts["increments"], 0.30)]
                if args.routes:
                    wanted = {name.strip() for name in args.routes.split(",")}
                    unknown = wanted - {name for name, *_ in routes}
                    if unknown:
                        sys.exit(f"bench-http: no route named {', '.join(sorted(unknown))}")
                    routes = [route for route in routes if route[0] in wanted]
                mode = "through honcho (ops/run's way)" if honcho else "started directly"
                print(f"== Pantry {mode}; wrk -t2 -c{args.connections} -d{args.seconds}s, bare route measured before each")
                print(f"{'route':24} {'bare /s':>10} {'Pantry /s':>10} {'ratio':>7} {'target':>7} {'p99 ms':>8} {'non-2xx':>8}")
                request(deployment.port, "GET", "/v1/recipes/search?query=soup")  # into the fetch cache
                cpu_lines = []
                half_lines = []
                accepted = None
                for name, url, script, target in routes:
                    bare_before = cpu_seconds([bare.pid])
                    bare_rate, _, _, bare_requests = wrk(f"http://127.0.0.1:{bare_port}/bare", args.seconds, args.connections)
                    bare_cpu = (cpu_seconds([bare.pid])[bare.pid] - bare_before[bare.pid]) * 1e6 / bare_requests
                    tree = process_tree([p.pid for p in deployment.processes])
                    rate, p99, errors, requests, cpu, wrk_cpu = measured(url, args.seconds, args.connections, script, tree)
                    ratio = rate / bare_rate
                    if not honcho:
                        results[name] = {"bareRequestsPerSecond": round(bare_rate), "requestsPerSecond": round(rate),
                                         "ratio": round(ratio, 3), "target": target, "p99Ms": p99, "non2xx": errors}
                    print(f"{name:24} {bare_rate:10.0f} {rate:10.0f} {ratio:7.2f} {'>=' + str(target):>7} "
                          f"{p99 if p99 is not None else float('nan'):8.2f} {errors:8d}{'' if ratio >= target else '  (missed)'}")
                    cpu_lines.append(f"  {name:22} bare {bare_cpu:.0f}; {cpu}")
                    if script == scripts["increments"]:
                        accepted = (ratio, cpu, wrk_cpu, bare_cpu)
                    if script == scripts["increments"] and usual:
                        # The peer right after, beside the bare route again: Pantry's ratio to it is
                        # the quotient of the two ratios to the bare route, which cancels most noise.
                        usual_bare, _, _, _ = wrk(f"http://127.0.0.1:{bare_port}/bare", args.seconds, args.connections)
                        usual_rate, usual_p99, usual_errors, _, usual_cpu, _ = measured(
                            f"http://127.0.0.1:{usual.port}", args.seconds, args.connections, scripts["usual"],
                            {usual.process.pid: "usual"})
                        usual_ratio = usual_rate / usual_bare
                        to_usual = ratio / usual_ratio
                        print(f"{'usual-stack increments':24} {usual_bare:10.0f} {usual_rate:10.0f} {usual_ratio:7.2f} {'peer':>7} "
                              f"{usual_p99 if usual_p99 is not None else float('nan'):8.2f} {usual_errors:8d}")
                        print(f"  durable increments to the usual stack (Hummingbird + GRDB, synchronous=FULL, a "
                              f"transaction per request): {to_usual:.2f}x (target >= 2){'' if to_usual >= 2 else '  (missed)'}")
                        cpu_lines.append(f"  {'usual-stack increments':22} {usual_cpu}")
                        if not honcho:
                            results["usual-stack increments"] = {
                                "bareRequestsPerSecond": round(usual_bare), "requestsPerSecond": round(usual_rate),
                                "ratio": round(usual_ratio, 3), "p99Ms": usual_p99, "non2xx": usual_errors}
                            results[name]["ratioToUsualStack"] = round(to_usual, 3)
                    half_lines.append(half_rate(work, name, url, script, rate, requests, args.seconds, quoted,
                                                script == scripts["increments"], deployment.data))
                print("CPU per request, microseconds (user + system, from /proc), by process:")
                print("\n".join(cpu_lines))
                print(f"At half the rate above, each connection waiting {PACE_MS} ms after each answer (Debian's wrk has no "
                      "fixed rate, so a slow answer also slows the rate):")
                print("\n".join(half_lines))
                if accepted:
                    print("Where a durable increment's CPU goes: the same route and clients, each beside the bare route "
                          "(ratio; CPU per request in microseconds, by process):")
                    print("\n".join(increment_budget(work, f"{base}/v1/me/owned-ingredients", f"http://127.0.0.1:{bare_port}/bare",
                                                   quoted, args.seconds, args.connections,
                                                   process_tree([p.pid for p in deployment.processes]), accepted)))
                if args.routes:
                    continue
                medians = read_your_writes(deployment.port, tokens[-1], 200)
                print(f"read-your-writes: leaderboard/me right after an increment: p50 {medians['with after']:.2f} ms with "
                      f"?after=, {medians['without after']:.2f} ms without; ratio "
                      f"{medians['with after'] / medians['without after']:.2f} (target <= 2)")
                sys.stdout.flush()
            finally:
                deployment.stop()
                if usual:
                    usual.stop()
    finally:
        bare.terminate()
        bare.wait(timeout=10)
        subprocess.run(["rm", "-rf", work])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"startedAt": started_at, "seconds": args.seconds, "connections": args.connections,
                       "users": args.users, "logEvents": args.log_events, "routes": results}, f, indent=2)
    if args.check:
        with open(args.check) as f:
            thresholds = json.load(f)
        misses = check_thresholds(results, thresholds["ratioToBare"])
        misses += check_thresholds(results, thresholds.get("ratioToUsualStack", {}), field="ratioToUsualStack")
        for miss in misses:
            print(f"check: {miss}")
        if misses:
            sys.exit(1)
        print(f"check: every route at or above its threshold ({args.check})")


if __name__ == "__main__":
    main()
