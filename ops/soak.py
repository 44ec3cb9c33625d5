"""ops/soak: the Procfile's processes under the load test's mix plus every other command type for
--minutes, sampling every process's RSS and every SQLite file's size each 10 s into a CSV and an
SVG plot. Fails if a WAL passes 128 MB (the writers' journal_size_limit), if a process's RSS grows
more than 20% after the first minute, or if the load test's exact check fails. Run through ops/soak."""
import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

WAL_LIMIT = 128 << 20  # the writers' journal_size_limit (BackgroundCheckpointer.journalSizeLimit)
RSS_GROWTH_LIMIT = 1.2
ROLES = ["core", "worker leaderboard", "worker carts", "worker favourites", "worker groceries",
         "worker experiences", "fetch"]


# The points one soak user may earn, and the pace the soak's core is given to allow them.
SOAK_POINTS_PER_USER = 1_000_000

def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def call(url, method="GET", body=None, token=None):
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def other_commands(base, stop, counts):
    """Favourites, groceries, cart lines and experiences from a few users, alongside the load test."""
    tokens = []
    for n in range(20):
        status, body = call(f"{base}/v1/accounts", "POST", {"username": f"soak{n}", "email": f"soak{n}@example.org",
                                                            "password": "soak password"})
        if status == 201:
            tokens.append(json.loads(body)["token"])
    recipes = [r["id"] for r in json.loads(call(f"{base}/v1/recipes/random?count=50")[1])["payload"]["recipes"]]
    n = 0
    while not stop.is_set():
        token, recipe = tokens[n % len(tokens)], recipes[n % len(recipes)]
        kind = n % 6
        if kind == 0:
            call(f"{base}/v1/me/favourites/{recipe}", "PUT", token=token)
        elif kind == 1:
            call(f"{base}/v1/me/favourites/{recipe}", "DELETE", token=token)
        elif kind == 2:
            call(f"{base}/v1/me/groceries", "POST", {"ingredient": f"item {n % 30}", "amount": 1, "unit": "g"}, token=token)
        elif kind == 3:
            call(f"{base}/v1/me/groceries/item%20{n % 30}", "PATCH", {"checked": n % 12 < 6}, token=token)
        elif kind == 4:
            call(f"{base}/v1/me/cart", "POST", {"recipeId": recipe, "delta": 1 if n % 24 < 18 else -1}, token=token)
        else:
            call(f"{base}/v1/recipes/{recipe}/experiences", "POST", {"text": f"soak tip {n}"}, token=token)
        counts["other"] += 1
        n += 1
        time.sleep(0.01)


def plot(samples, series, path, title):
    width, height, pad = 900, 360, 50
    end = max(s["t"] for s in samples) or 1
    top = max(max(s[k] for s in samples) for k in series) or 1
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
               "#ff7f0e", "#393b79", "#637939", "#8c6d31", "#843c39"]
    lines = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 20 * len(series)}">',
             f'<text x="{pad}" y="20" font-size="14">{title} (max {top / 1024:.1f} MiB)</text>']
    for i, key in enumerate(series):
        points = " ".join(f"{pad + s['t'] / end * (width - 2 * pad):.1f},{height - pad - s[key] / top * (height - 2 * pad):.1f}"
                          for s in samples)
        lines.append(f'<polyline fill="none" stroke="{colours[i % len(colours)]}" stroke-width="1.5" points="{points}"/>')
        lines.append(f'<text x="{pad}" y="{height + 15 * i}" font-size="11" fill="{colours[i % len(colours)]}">{key}</text>')
    lines.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--out", default="ops/out")
    args = parser.parse_args()
    # A soak stopped by SIGTERM stops what it started, as one stopped by Ctrl-C does (both used to
    # leave every process and the load test running).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("soak: stopped by SIGTERM"))
    os.makedirs(args.out, exist_ok=True)
    data = os.path.abspath(os.path.join(args.out, f"soak-data-{int(time.time())}"))
    os.makedirs(data)
    port = 18000 + os.getpid() % 1000
    # Millions of points from a few thousand users: far past a person's pace (a burst of 60), so the
    # deployment is given a pace it does not reach, and the load test told it (--points-per-user).
    env = {**os.environ, "PANTRY_LOG_LEVEL": "warning", "PANTRY_PASSWORD_COST": "10", "PANTRY_LOGIN_RATE_PER_CLIENT": "100000",
               "PANTRY_LOGIN_RATE_OVERALL": "100000", "PANTRY_POINTS_PACE": f"{SOAK_POINTS_PER_USER}/0.001"}
    log = open(os.path.join(data, "processes.log"), "wb")
    pantry = os.path.join(args.bin, "pantry")
    processes = {role: subprocess.Popen([pantry, *role.split(), "--data", data], env=env, stdout=log, stderr=log)
                 for role in ROLES}
    processes["api"] = subprocess.Popen([pantry, "api", "--data", data, "--port", str(port)], env=env, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if call(f"{base}/ready")[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.1)
    stop = threading.Event()
    counts = {"other": 0}
    loadtest = subprocess.Popen([pantry, "loadtest", "--url", base, "--users", str(args.users), "--clients", str(args.clients),
                                 "--duration", str(int(args.minutes * 60)), "--seed", "2026",
                                 "--points-per-user", str(SOAK_POINTS_PER_USER),
                                 "--output", os.path.join(args.out, "soak-loadtest.json"),
                                 "--plot", os.path.join(args.out, "soak-loadtest.svg")],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    driver = threading.Thread(target=other_commands, args=(base, stop, counts), daemon=True)
    driver.start()
    samples, started, failures = [], time.monotonic(), []
    finished = False
    try:
        while loadtest.poll() is None:
            sample = {"t": time.monotonic() - started}
            stats = subprocess.run([pantry, "stats", "--data", data, "--json"], capture_output=True)
            sample["head"] = json.loads(stats.stdout)["head"] if stats.returncode == 0 else 0
            for role, process in processes.items():
                sample[f"rss {role}"] = rss_kib(process.pid) or 0
            for name in sorted(os.listdir(data)) + [f"projections/{p}" for p in sorted(os.listdir(os.path.join(data, "projections")))
                                                    if os.path.isdir(os.path.join(data, "projections"))]:
                if ".sqlite" in name and not name.endswith("-shm"):
                    sample[f"file {name}"] = os.path.getsize(os.path.join(data, name)) // 1024
            samples.append(sample)
            time.sleep(10)
        output = loadtest.stdout.read()
        finished = True
    finally:
        stop.set()
        for process in [loadtest, *processes.values()]:
            process.terminate()
        for process in [loadtest, *processes.values()]:
            process.wait(timeout=30)
        if not finished:
            subprocess.run(["rm", "-rf", data])
    head = json.loads(subprocess.run([pantry, "stats", "--data", data, "--json"], capture_output=True).stdout)["head"]
    keys = sorted({k for s in samples for k in s if k not in ("t", "head")})
    for s in samples:
        for k in keys:
            s.setdefault(k, 0)
    with open(os.path.join(args.out, "soak.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["t", "head"] + keys)
        writer.writeheader()
        writer.writerows(samples)
    plot(samples, [k for k in keys if k.startswith("rss")], os.path.join(args.out, "soak-rss.svg"), "RSS of each process (KiB)")
    plot(samples, [k for k in keys if k.startswith("file")], os.path.join(args.out, "soak-files.svg"), "SQLite files (KiB)")

    # The load starts once the users are registered (one event each); memory is judged from a
    # minute into it, not from a minute into registering.
    driving = next((s["t"] for s in samples if s["head"] > args.users + 1000), samples[-1]["t"])
    for key in keys:
        peak = max(s[key] for s in samples)
        if key.startswith("file") and key.endswith("-wal") and peak * 1024 > WAL_LIMIT:
            failures.append(f"{key} reached {peak / 1024:.1f} MiB (limit {WAL_LIMIT >> 20} MiB)")
        if key.startswith("rss"):
            after_minute = [s[key] for s in samples if s["t"] >= driving + 60]
            if len(after_minute) >= 2 and after_minute[-1] > after_minute[0] * RSS_GROWTH_LIMIT:
                failures.append(f"{key} grew from {after_minute[0] / 1024:.1f} to {after_minute[-1] / 1024:.1f} MiB after the first minute of load")
    print(f"soak: {args.minutes} min, load from {driving:.0f} s, {head} events in the log, {counts['other']} other commands; "
          f"samples in {args.out}/soak.csv, plots soak-rss.svg and soak-files.svg")
    for key in keys:
        values = [s[key] for s in samples]
        print(f"  {key:42} first {values[0] / 1024:8.1f} MiB   max {max(values) / 1024:8.1f} MiB   last {values[-1] / 1024:8.1f} MiB")
    check = [line for line in output.splitlines() if line.startswith("check")]
    print("  load test:", check[0] if check else "no check line")
    if loadtest.returncode != 0:
        failures.append(f"the load test exited {loadtest.returncode}")
    subprocess.run(["rm", "-rf", data])
    if failures:
        print("soak: FAILED\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("soak: passed")


if __name__ == "__main__":
    main()
