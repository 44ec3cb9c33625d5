"""ops/bench-scale: every process's start to ready on big logs, from its snapshot and without one, a
fresh worker's catch-up, the replay of each projection beside the log's raw read speed, backup and
restore, each with the RSS of the process measured. Run through ops/bench-scale."""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from bench_start import Bench

PROJECTIONS = ["leaderboard", "carts", "favourites", "groceries", "experiences"]
# (events, users): the sizes; --huge adds the last.
SIZES = [(1_000_000, 100_000), (10_000_000, 1_000_000)]
HUGE = (50_000_000, 1_000_000)


def timed(args):
    """Runs ARGS to the end; returns (seconds, its stdout)."""
    started = time.monotonic()
    result = subprocess.run(args, capture_output=True)
    if result.returncode != 0:
        raise SystemExit(f"bench-scale: {' '.join(map(str, args))} failed: {result.stderr.decode(errors='replace')[-2000:]}")
    return time.monotonic() - started, result.stdout.decode()


def peak_rss_mib(args):
    """Runs ARGS under GNU time; returns (seconds, peak RSS in MiB, stdout)."""
    started = time.monotonic()
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *args], capture_output=True)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        raise SystemExit(f"bench-scale: {' '.join(map(str, args))} failed: {result.stderr.decode(errors='replace')[-2000:]}")
    return seconds, int(result.stderr.decode().strip().splitlines()[-1]) / 1024, result.stdout.decode()


class Scale(Bench):
    def worker_ready(self, name, head):
        """`pantry worker NAME` from its start until it answers at `head`; (seconds, RSS, process)."""
        query = {"query": "status", "after": head, "wait": 10_000}
        return self.timed_start(["worker", name], f"{name}-queries.sock", query,
                                lambda reply: reply.get("position", 0) >= head)

    def api_twice(self):
        """The API folding the log (no snapshot), then the API from the snapshot the first wrote
        when it stopped: each (seconds to its first 200 leaderboard answer, RSS)."""
        snapshot = os.path.join(self.data, "api.snapshot")
        if os.path.exists(snapshot):
            os.remove(snapshot)
        folded = self.api()
        if not os.path.exists(snapshot):
            raise SystemExit("bench-scale: the API wrote no snapshot when it stopped")
        return folded, self.api()


class LogTail:
    """What a process wrote to its log file in `directory` since this was made: the proof that it
    started from its snapshot (a log line) rather than folding the log."""

    def __init__(self, directory, name):
        self.path = os.path.join(directory, f"{name}.log")
        self.offset = os.path.getsize(self.path) if os.path.exists(self.path) else 0

    def text(self):
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            return f.read().decode(errors="replace")

    def number(self, line, key):
        """The value of `key=N` on the last line holding `line`, or None."""
        found = [m for l in self.text().splitlines() if line in l for m in re.findall(rf"\b{key}=(\d+)", l)]
        return int(found[-1]) if found else None


def wait_for_file(path, predicate, timeout, what):
    """Until `path` exists and, unless `predicate` is None, its text satisfies it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path) and predicate is None:
            return
        if os.path.exists(path):
            try:
                with open(path) as f:
                    if predicate(f.read()):
                        return
            except (OSError, ValueError):
                pass
        time.sleep(0.05)
    raise SystemExit(f"bench-scale: timed out waiting for {what}")


def new_host_workers(options, bench, work, users, head, row, figures):
    """Each worker on a new host (an empty directory, the log read only through the core's log
    service) from the snapshot its peer on the core's host left, then `pantry replay --verify` of the
    files they made: (seconds of the replay, its RSS)."""
    core = subprocess.Popen([f"{options.bin}/pantry", "core", "--data", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_file(os.path.join(work, "core-log.sock"), None, 120, "the core's log service")
        for name in PROJECTIONS:
            # The peer on the core's host leaves a copy at the head (one a second here, 300 s by default).
            peer = subprocess.Popen([f"{options.bin}/pantry", "worker", name, "--data", work],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env={**os.environ, "PANTRY_WORKER_SNAPSHOT_SECONDS": "1"})
            wait_for_file(os.path.join(work, "snapshots", f"{name}.json"), lambda text: json.loads(text)["position"] >= head,
                          600, f"the {name} worker's snapshot")
            bench.stop(peer)
            host = os.path.join(work, f"host-{name}")
            os.makedirs(host)
            tail = LogTail(host, "worker")
            query = {"query": "status", "after": head, "wait": 10_000}
            seconds, rss, worker = Bench(options.bin, host, users).timed_start(
                ["worker", "--log-service", f"ipc://{work}/core-log.sock", name], f"{name}-queries.sock", query,
                lambda reply: reply.get("position", 0) >= head, env={"PANTRY_CORE_EVENTS": f"ipc://{work}/core-events.sock"})
            bench.stop(worker)
            what = f"{name} worker on a new host, from the log service's snapshot"
            # Issue 35's "fresh worker on an empty directory at the head".
            row(what, seconds, rss, "<= 10 s")
            figures[what]["snapshot position"] = tail.number("projection fetched from the log service", "position")
            figures[what]["snapshot bytes"] = tail.number("projection fetched from the log service", "bytes")
            # Its file replaces the one here, for the replay below to compare with.
            projections = os.path.join(work, "projections")
            for file in os.listdir(projections):
                if file.startswith(f"{name}.sqlite"):
                    os.remove(os.path.join(projections, file))
            for file in os.listdir(os.path.join(host, "projections")):
                if file.startswith(f"{name}.sqlite"):
                    shutil.copy(os.path.join(host, "projections", file), projections)
    finally:
        bench.stop(core)
    seconds, rss, out = peak_rss_mib([f"{options.bin}/pantry", "replay", "--verify", *PROJECTIONS, "--data", work])
    figures["new-host workers equal a replay"] = {name: f"{name}: same at position {head}" in out for name in PROJECTIONS}
    return seconds, rss


def link_log(cache, work):
    """The cached log in a working directory, hard-linked: nothing here writes to it."""
    for name in os.listdir(cache):
        if name.startswith(("events.sqlite", "user-keys.sqlite")) and not name.endswith("-shm"):
            os.link(os.path.join(cache, name), os.path.join(work, name))


def run_size(options, events, users):
    rows, figures = [], {"events": events, "users": users}

    def row(what, seconds, rss=None, target=""):
        rows.append((what, seconds, rss, target))
        figures[what] = {"seconds": round(seconds, 3), **({"rss_mib": round(rss, 1)} if rss is not None else {})}
        print(f"  {what}: {seconds:.2f} s" + (f", {rss:.0f} MiB" if rss is not None else ""), flush=True)

    cache = os.path.join(options.cache, f"{events}-{users}")
    os.makedirs(cache, exist_ok=True)
    seconds, out = timed([f"{options.bin}/pantry-bench", "log", "--events", str(events), "--users", str(users), "--data", cache])
    print(f"{events:,} events, {users:,} users: {out.strip()} ({seconds:.1f} s)", flush=True)
    figures["log bytes"] = os.path.getsize(os.path.join(cache, "events.sqlite"))
    work = tempfile.mkdtemp(prefix="pantry-bench-scale-", dir=options.directory)
    try:
        link_log(cache, work)
        bench = Scale(options.bin, work, users)
        head = bench.head()
        figures["head"] = head

        _, rss, out = peak_rss_mib([f"{options.bin}/pantry-bench", "replay", "--data", work, "--directory", work,
                                    "--json", os.path.join(work, "replay.json")])
        with open(os.path.join(work, "replay.json")) as f:
            replay = json.load(f)
        read = replay["read events/s"]
        figures["read events/s"] = read
        slowest = min(PROJECTIONS, key=lambda p: replay[f"replay {p} events/s"])
        for name in PROJECTIONS:
            rate = replay[f"replay {name} events/s"]
            figures[f"replay {name} events/s"] = rate
            print(f"  replay {name}: {rate:,.0f} events/s ({rate / read:.2f} of reading {read:,.0f}/s)", flush=True)
        slow = replay[f"replay {slowest} events/s"]
        figures["slowest replay"] = {"projection": slowest, "events/s": slow, "ratio to read": slow / read,
                                     "target met": slow >= 1_000_000 and slow >= 0.5 * read, "peak rss_mib": rss}

        whole, whole_rss = bench.core()
        row("core, folding the whole log", whole, whole_rss)
        tail = LogTail(work, "core")
        snap, snap_rss = bench.core()
        row("core, from its snapshot", snap, snap_rss, "<= 2 s")
        figures["core, from its snapshot"]["snapshot position"] = tail.number("loaded the log", "snapshot")

        for name in PROJECTIONS:
            seconds, rss, worker = bench.worker_ready(name, head)
            bench.stop(worker)
            # The first worker on a log has no snapshot to start from anywhere: it folds it all.
            row(f"first {name} worker, folding the whole log", seconds, rss)
            tail = LogTail(work, "worker")
            seconds, rss, worker = bench.worker_ready(name, head)
            bench.stop(worker)
            row(f"{name} worker, from its file", seconds, rss, "<= 2 s")
            figures[f"{name} worker, from its file"]["file checkpoint"] = tail.number("worker serving", "checkpoint")

        tail = LogTail(work, "api")
        (folded, folded_rss), (snapped, snapped_rss) = bench.api_twice()
        row("API, folding the log", folded, folded_rss)
        row("API, from its snapshot", snapped, snapped_rss, "<= 2 s")
        figures["API, from its snapshot"]["restored from the snapshot"] = \
            tail.text().count("read models restored from the API snapshot") == 1
        figures["API RSS MiB per million users"] = snapped_rss / users * 1_000_000

        seconds, rss = new_host_workers(options, bench, work, users, head, row, figures)
        row("replay --verify of the new-host workers' files", seconds, rss)

        backup = os.path.join(work, "backup")
        seconds, rss, _ = peak_rss_mib([f"{options.bin}/pantry", "backup", backup, "--data", work])
        row("backup", seconds, rss)
        restored = os.path.join(work, "restored")
        seconds, rss, _ = peak_rss_mib([f"{options.bin}/pantry", "restore", backup, "--no-erasures", "--data", restored])
        row("restore", seconds, rss)
        seconds, rss, out = peak_rss_mib([f"{options.bin}/pantry", "replay", "leaderboard", "--verify", "--data", restored])
        if "same" not in out:
            raise SystemExit(f"bench-scale: replay --verify after restore: {out}")
        row("replay --verify leaderboard after restore", seconds, rss)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows, figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--events", type=int, action="append",
                        help="log sizes (repeat); default 1000000 (100,000 users) and 10000000 (1,000,000 users)")
    parser.add_argument("--users", type=int, help="users for every size (default: the issue's pairing)")
    parser.add_argument("--huge", action="store_true", help="also 50,000,000 events")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "pantry-bench-scale"),
                        help="where built logs are kept and reused by the next run")
    parser.add_argument("--directory", default=tempfile.gettempdir())
    parser.add_argument("--json", default="bench-scale.json")
    options = parser.parse_args()
    pairs = dict(SIZES + [HUGE])
    sizes = [(e, options.users or pairs.get(e, 100_000)) for e in options.events] if options.events else SIZES
    if options.huge:
        sizes.append(HUGE)
    results = []
    for events, users in sizes:
        rows, figures = run_size(options, events, users)
        results.append(figures)
        print()
        print(f"| {events:,} events, {users:,} users | seconds | RSS | target |")
        print("|---|---:|---:|---|")
        for what, seconds, rss, target in rows:
            verdict = ""
            if target:
                limit = float(target.split()[1])
                verdict = f"{target} " + ("met" if seconds <= limit else "MISSED")
            print(f"| {what} | {seconds:.2f} | {'' if rss is None else f'{rss:.0f} MiB'} | {verdict} |")
        slowest = figures["slowest replay"]
        print(f"| slowest replay ({slowest['projection']}) | {slowest['events/s']:,.0f} events/s, "
              f"{slowest['ratio to read']:.2f} of reading {figures['read events/s']:,.0f}/s | | "
              f">= 1,000,000/s and >= 0.5 of reading: {'met' if slowest['target met'] else 'MISSED'} |")
        print(f"API RSS per million users: {figures['API RSS MiB per million users']:.0f} MiB")
        print()
    with open(options.json, "w") as f:
        json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   "cores": os.cpu_count(), "runs": results}, f, indent=1)
    print(f"wrote {options.json}")


if __name__ == "__main__":
    main()
