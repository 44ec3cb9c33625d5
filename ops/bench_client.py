"""ops/bench-client: what PantryClient (the apps' Swift client, through URLSession) costs against the
load test's libcurl client, in one run on one deployment: requests/s and p50/p99 of the top 10 and
of a durable increment ("I have this", a new point each), one task or thread per user. The two
clients take turns, in alternating order each round, so that a noisy machine weighs on both.
Run through ops/bench-client."""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_http import RECIPES, Deployment, prepare  # noqa: E402


def run(command):
    """The client's figures, and the CPU it spent per answered request (user and system): on a
    machine the client shares with the server, a client's CPU is taken from the server."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["errors"]:
        print(f"{result['client']}: {result['errors']} errors; the first: {done.stderr.strip()[:600]}", flush=True)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {**result, "clientCpuUsPerRequest": cpu * 1e6 / max(result["requests"], 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="where pantry and pantry-bench are")
    parser.add_argument("--cook-bench", required=True, help="the cook-bench executable (Examples/cook)")
    parser.add_argument("--cook-bench-ahc", help="cook-bench built with AsyncHTTPClient's transport (Examples/cook-bench-ahc)")
    parser.add_argument("--users", type=int, default=16, help="users, each one task (PantryClient) or thread (libcurl)")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    deployment = Deployment(args.bin, False, None)
    work = tempfile.mkdtemp(prefix="pantry-bench-client-")
    results = []
    try:
        clients = 2 + bool(args.cook_bench_ahc)
        # Every run has users of its own, so that each increment is a point not earned yet.
        tokens = prepare(deployment, args.users * clients * args.rounds)
        runs = 0

        def users_of_next_run():
            nonlocal runs
            first = runs * args.users
            runs += 1
            return first
        url = f"http://127.0.0.1:{deployment.port}"
        for round_ in range(args.rounds):
            for mode in ("top", "increments"):
                swift = [[bench, url, str(args.users), str(args.seconds), mode, "FIRST", str(RECIPES)]
                         for bench in (args.cook_bench, args.cook_bench_ahc) if bench]
                curl = [os.path.join(args.bin, "pantry-bench"), "client-baseline", "--url", url, "--tokens", "FILE",
                        "--seconds", str(args.seconds), "--mode", mode, "--recipes", str(RECIPES)]
                for command in (swift + [curl] if round_ % 2 == 0 else [curl] + swift[::-1]):
                    first = users_of_next_run() if mode == "increments" else 0
                    if "FIRST" in command:
                        command = [str(first) if part == "FIRST" else part for part in command]
                    else:
                        tokens_file = os.path.join(work, f"tokens-{first}")
                        with open(tokens_file, "w") as f:
                            f.write("\n".join(tokens[first:first + args.users]) + "\n")
                        command = [tokens_file if part == "FILE" else part for part in command]
                    result = {**run(command), "round": round_}
                    print(f"round {round_} {mode:<10} {result['client']:<16} {result['perSecond']:8.0f}/s  "
                          f"p50 {result['p50']:6.2f} ms  p99 {result['p99']:6.2f} ms  client CPU {result['clientCpuUsPerRequest']:5.0f} µs/request  "
                          f"errors {result['errors']}", flush=True)
                    results.append(result)
                    time.sleep(1)
        summary = {}
        clients = sorted({r["client"] for r in results})
        for mode in ("top", "increments"):
            of = {client: [r for r in results if r["mode"] == mode and r["client"] == client] for client in clients}
            rate = {c: statistics.median(r["perSecond"] for r in rs) for c, rs in of.items()}
            p99 = {c: statistics.median(r["p99"] for r in rs) for c, rs in of.items()}
            cpu = {c: statistics.median(r["clientCpuUsPerRequest"] for r in rs) for c, rs in of.items()}
            summary[mode] = {"perSecond": rate, "p99": p99, "clientCpuUsPerRequest": cpu,
                             "rateRatio": {c: rate[c] / rate["libcurl"] for c in clients if c != "libcurl"},
                             "p99Ratio": {c: p99[c] / p99["libcurl"] for c in clients if c != "libcurl"}}
            for c in clients:
                ratios = "" if c == "libcurl" else (f"; against libcurl: requests/s {summary[mode]['rateRatio'][c]:.2f}x, "
                                                    f"p99 {summary[mode]['p99Ratio'][c]:.2f}x")
                print(f"{mode}: {c} {rate[c]:.0f}/s, p99 {p99[c]:.2f} ms, client CPU {cpu[c]:.0f} µs per request "
                      f"(medians of {args.rounds}){ratios}", flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "users": args.users,
                           "seconds": args.seconds, "runs": results, "summary": summary}, f, indent=2)
    finally:
        deployment.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
