"""ops/bench-live: live streams on one API process, measured in one run on this machine.

For each stream count: that many users each hold one `GET /v1/me/live` stream (held by
`pantry-bench live-streams`, one NIO thread in a process of its own); grocery changes for those users
arrive at `--rate` commands/s, paced from due times; each change's delivery is timed from the
moment its 201 reached the sender (same process, same clock) to the moment its event reached the
stream. Also: the API's RSS per idle stream, the API's CPU per delivered event (against the same
load with no streams open), and the durable increments (wrk, as ops/bench-http sends them) with the
streams open against without them, alternated (`--rounds`). Run through ops/bench-live."""
import argparse
import asyncio
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_http import (INGREDIENTS, LUA_INCREMENT, RECIPES, Deployment, cpu_seconds, prepare, request,  # noqa: E402
                        wrk)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def api_pid(deployment):
    return deployment.processes[-1].pid


def register(deployment, count, prefix):
    tokens = []
    for n in range(count):
        status, body = request(deployment.port, "POST", "/v1/accounts",
                               {"username": f"{prefix}{n}", "email": f"{prefix}{n}@example.org", "password": "bench password"})
        assert status == 201, body
        tokens.append(json.loads(body)["token"])
    return tokens


class Streams:
    """One live stream per token, held by `pantry-bench live-streams` (one NIO thread; Python's
    asyncio opened 9,926 of 10,000 in 300 s, and its arrival times carried its own loop's delay),
    which stamps each change's arrival on CLOCK_MONOTONIC, the clock of `time.monotonic()` here."""

    def __init__(self, deployment, tokens, work):
        self.deployment, self.tokens, self.work = deployment, tokens, work
        self.arrived = {}
        self.process = None

    def open(self, timeout=600):
        tokens_file = os.path.join(self.work, f"tokens-{len(self.tokens)}")
        self.output = os.path.join(self.work, f"arrivals-{len(self.tokens)}.json")
        with open(tokens_file, "w") as f:
            f.write("\n".join(self.tokens) + "\n")
        holder = os.path.join(os.path.dirname(self.deployment.bin), "pantry-bench")
        self.process = subprocess.Popen([holder, "live-streams", "--port", str(self.deployment.port), "--tokens", tokens_file,
                                         "--output", self.output], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else b""
        if not line.startswith(b"opened"):
            self.process.kill()
            raise RuntimeError(f"the streams did not open within {timeout} s: {line!r}")

    def close(self):
        """Stops the holder and reads when each change arrived."""
        self.process.stdin.close()
        self.process.wait(timeout=120)
        with open(self.output) as f:
            self.arrived = {int(position): at for position, at in json.load(f).items()}


async def load(port, tokens, rate, seconds, connections=32):
    """Grocery adds at `rate`/s from due times, over `connections` kept-alive connections; the
    (position, answered-at, sent-at) of each accepted one."""
    accepted, errors = [], 0
    queue = asyncio.Queue()
    start = time.monotonic()
    total = int(rate * seconds)

    async def sender():
        nonlocal errors
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while True:
            n = await queue.get()
            if n is None:
                writer.close()
                return
            body = json.dumps({"ingredient": f"bench item {n}"}).encode()
            token = tokens[n % len(tokens)]
            sent = time.monotonic()
            writer.write(b"POST /v1/me/groceries HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                         + f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
            answer = await reader.readexactly(length)
            if b" 201 " in head.split(b"\r\n", 1)[0]:
                accepted.append((json.loads(answer)["position"], time.monotonic(), sent))
            else:
                errors += 1

    workers = [asyncio.create_task(sender()) for _ in range(connections)]
    for n in range(total):
        due = start + n / rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        queue.put_nowait(n)
    for _ in workers:
        queue.put_nowait(None)
    await asyncio.gather(*workers)
    return accepted, errors, time.monotonic() - start


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else None


class Increments:
    """wrk's durable increments as ops/bench-http sends them, each run from new points."""

    def __init__(self, directory, tokens):
        self.directory, self.quoted, self.runs = directory, ",".join(f'"{t}"' for t in tokens), 0

    def __call__(self, deployment, seconds):
        """(rate, p99 ms, non-2xx, the API's CPU µs per increment)."""
        self.runs += 1
        script = os.path.join(self.directory, f"increments-{self.runs}.lua")
        with open(script, "w") as f:
            f.write(LUA_INCREMENT % (self.quoted, RECIPES, INGREDIENTS, self.runs * 1_000_000))
        pid = api_pid(deployment)
        cpu_before = cpu_seconds([pid])[pid]
        rate, p99, errors, requests = wrk(f"http://127.0.0.1:{deployment.port}", seconds, 64, script)
        return rate, p99, errors, (cpu_seconds([pid])[pid] - cpu_before) * 1e6 / max(requests, 1)


def alternate_increments(deployment, tokens, increments, wrk_seconds, rounds, settle, work):
    """wrk's increments without the streams, then with them open, `rounds` times, and once more
    without: on this shared machine two runs without streams in one bench differed by 22%
    (2026-12-07), as much as the gap measured, so single runs cannot tell the streams' cost."""
    without, with_open = [increments(deployment, wrk_seconds)], []
    for n in range(rounds):
        streams = Streams(deployment, tokens, work)
        streams.open()
        time.sleep(settle)
        with_open.append(increments(deployment, wrk_seconds))
        streams.close()
        time.sleep(settle)
        without.append(increments(deployment, wrk_seconds))
        print(f"  increments, round {n + 1} of {rounds}: {without[-2][0]:.0f}/s without, {with_open[-1][0]:.0f}/s with "
              f"the streams open, {without[-1][0]:.0f}/s without", flush=True)
    # Each run with the streams against the runs without on either side of it.
    pairs = [w[0] / statistics.mean([before[0], after[0]]) for w, before, after in zip(with_open, without, without[1:])]
    median_without, median_with = statistics.median(r[0] for r in without), statistics.median(r[0] for r in with_open)
    def rows(runs):
        return [{"rate": r, "p99_ms": p, "non2xx": e, "api_cpu_us": c} for r, p, e, c in runs]

    return {
        "without": rows(without),
        "with": rows(with_open),
        "median_without": median_without,
        "median_with": median_with,
        "ratio_of_medians": median_with / median_without,
        "ratio_per_round": pairs,
        "median_ratio_per_round": statistics.median(pairs),
        "api_cpu_us_per_increment": {"without": statistics.median(r[3] for r in without),
                                     "with": statistics.median(r[3] for r in with_open)},
    }


def measure(deployment, count, rate, seconds, increments, wrk_seconds, rounds, settle, work):
    pid = api_pid(deployment)
    tokens = register(deployment, count, f"live{count}-")
    # Every token used once first: the first request of a token pays for its signature check.
    asyncio.run(load(deployment.port, tokens, rate, len(tokens) / rate))
    # The same load with no stream open: the API's CPU without deliveries, for the difference.
    cpu_before = cpu_seconds([pid])[pid]
    _, errors_without, _ = asyncio.run(load(deployment.port, tokens, rate, seconds))
    cpu_without = cpu_seconds([pid])[pid] - cpu_before

    async def with_streams():
        streams = Streams(deployment, tokens, work)
        rss_before = rss_kib(pid)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, streams.open)
        await asyncio.sleep(settle)
        rss_idle = rss_kib(pid)
        cpu_start = cpu_seconds([pid])[pid]
        accepted, errors, took = await load(deployment.port, tokens, rate, seconds)
        await asyncio.sleep(2)  # the last deliveries
        cpu_with = cpu_seconds([pid])[pid] - cpu_start
        streams.close()
        return rss_before, rss_idle, accepted, errors, took, cpu_with, streams

    rss_before, rss_idle, accepted, errors, took, cpu_with, streams = asyncio.run(with_streams())
    latencies = [(streams.arrived[p] - answered) * 1000 for p, answered, _ in accepted if p in streams.arrived]
    from_send = [(streams.arrived[p] - sent) * 1000 for p, _, sent in accepted if p in streams.arrived]
    delivered = len(latencies)
    time.sleep(settle)
    alternated = alternate_increments(deployment, tokens, increments, wrk_seconds, rounds, settle, work)
    result = {
        "streams": count, "rate": rate, "seconds": seconds, "commands_accepted": len(accepted), "command_errors": errors,
        "achieved_rate": len(accepted) / took, "delivered": delivered, "missing": len(accepted) - delivered,
        "delivery_ms_after_answer": {"p50": percentile(latencies, 50), "p99": percentile(latencies, 99), "max": max(latencies, default=None)},
        "delivery_ms_after_send": {"p50": percentile(from_send, 50), "p99": percentile(from_send, 99), "max": max(from_send, default=None)},
        "rss_kib_per_idle_stream": (rss_idle - rss_before) / count,
        "api_cpu_us_per_delivered_event": (cpu_with - cpu_without) * 1e6 / max(delivered, 1),
        "increments_per_s_without_streams": alternated["median_without"], "increments_per_s_with_streams": alternated["median_with"],
        "increments_ratio_with_over_without": alternated["ratio_of_medians"],
        "increments_alternated": alternated,
        "load_errors_without_streams": errors_without,
    }
    d, s = result["delivery_ms_after_answer"], result["delivery_ms_after_send"]
    print(f"== {count} streams, {rate}/s for {seconds} s: {len(accepted)} accepted ({result['achieved_rate']:.0f}/s), "
          f"{delivered} delivered, {result['missing']} missing", flush=True)
    print(f"  delivery after the 201: p50 {d['p50']:.1f} ms, p99 {d['p99']:.1f} ms, max {d['max']:.1f} ms; "
          f"after the send: p50 {s['p50']:.1f}, p99 {s['p99']:.1f}, max {s['max']:.1f} ms", flush=True)
    print(f"  API memory {result['rss_kib_per_idle_stream']:.1f} KiB per idle stream; "
          f"CPU {result['api_cpu_us_per_delivered_event']:.0f} µs per delivered event", flush=True)
    cpu = alternated["api_cpu_us_per_increment"]
    print(f"  durable increments, medians of {rounds} runs with the streams open and {rounds + 1} without: "
          f"{alternated['median_with']:.0f}/s against {alternated['median_without']:.0f}/s: "
          f"{alternated['ratio_of_medians']:.2f} (per round: {', '.join(f'{r:.2f}' for r in alternated['ratio_per_round'])}); "
          f"API CPU per increment {cpu['with']:.0f} µs with, {cpu['without']:.0f} µs without", flush=True)
    return result


def measure_idle(deployment, count, work):
    """Only the API's RSS per idle stream: the streams opened after every token was used once,
    read 3 s later, as `measure` reads it (a quick figure, without the loads and wrk)."""
    pid = api_pid(deployment)
    tokens = register(deployment, count, f"idle{count}-")
    for token in tokens:
        request(deployment.port, "GET", "/v1/me/groceries", token=token)
    streams = Streams(deployment, tokens, work)
    rss_before = rss_kib(pid)
    streams.open()
    time.sleep(3)
    rss_idle = rss_kib(pid)
    streams.close()
    result = {"streams": count, "rss_kib_per_idle_stream": (rss_idle - rss_before) / count}
    print(f"== {count} streams: API memory {result['rss_kib_per_idle_stream']:.1f} KiB per idle stream", flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--streams", default="1000,10000", help="stream counts, comma-separated")
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--wrk-seconds", type=int, default=10)
    parser.add_argument("--wrk-users", type=int, default=200, help="users whose points wrk's increments earn")
    parser.add_argument("--rounds", type=int, default=3, help="increments with the streams open, alternated with runs without")
    parser.add_argument("--settle-seconds", type=float, default=3, help="the pause after streams open or close, before wrk")
    parser.add_argument("--json")
    parser.add_argument("--idle-only", action="store_true", help="only the memory per idle stream (a fresh deployment per count)")
    args = parser.parse_args()
    counts = [int(c) for c in args.streams.split(",")]
    started_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    # Streams count against the connection limits (at most half of them); all from one address here.
    connections = str(max(4096, 2 * max(counts) + 1000))
    env = {"PANTRY_MAX_CONNECTIONS": connections, "PANTRY_MAX_CONNECTIONS_PER_ADDRESS": connections}
    work = tempfile.mkdtemp(prefix="pantry-bench-live-")
    results = []
    try:
        if args.idle_only:
            for count in counts:
                deployment = Deployment(args.bin, False, None, env=env)
                try:
                    results.append(measure_idle(deployment, count, work))
                finally:
                    deployment.stop()
        else:
            run_all(args, counts, env, work, results)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"started": started_at, "machine": f"{os.cpu_count()} cores", "results": results}, f, indent=2)


def run_all(args, counts, env, work, results):
    """Every figure of every count, on one deployment."""
    deployment = Deployment(args.bin, False, None, env=env)
    try:
        increments = Increments(work, prepare(deployment, args.wrk_users))
        for count in counts:
            try:
                results.append(measure(deployment, count, args.rate, args.seconds, increments, args.wrk_seconds, args.rounds, args.settle_seconds, work))
            except Exception as error:  # a count that could not be measured is said, and the others kept
                print(f"== {count} streams: not measured: {error}", flush=True)
                results.append({"streams": count, "error": str(error)})
    finally:
        deployment.stop()


if __name__ == "__main__":
    main()
