"""Read-your-writes latency of a grocery add: POST /v1/me/groceries, then GET /v1/me/groceries?after=P,
for the binary in PANTRY_BIN (a whole deployment started for it); prints one JSON line with the
p50/p90 ms of the pair and of the GET alone. Usage (from the repository):
PANTRY_BIN=.build/debug/pantry .venv/bin/python ops/bench_grocery_ryw.py [N]"""
import json
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "Tests" / "system"))
from pantry_processes import Processes, start_core_and_api  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
data = pathlib.Path(tempfile.mkdtemp()) / "data"
data.mkdir()
p = Processes(os.environ["PANTRY_BIN"], data)
try:
    api = start_core_and_api(p)
    _, token = api.register_and_log_in("bench-cook")
    pairs, reads = [], []
    for i in range(n):
        t0 = time.perf_counter()
        a = api.post("/v1/me/groceries", {"ingredient": f"item {i % 50}", "amount": 1}, token=token)
        assert a.status == 201, a
        t1 = time.perf_counter()
        r = api.get(f"/v1/me/groceries?after={a.json['position']}", token=token)
        assert r.status == 200, r
        t2 = time.perf_counter()
        pairs.append((t2 - t0) * 1000); reads.append((t2 - t1) * 1000)
    q = lambda xs, f: sorted(xs)[int(len(xs) * f)]
    print(json.dumps({"binary": os.environ["PANTRY_BIN"], "n": n,
                      "pairP50": round(q(pairs, .5), 2), "pairP90": round(q(pairs, .9), 2),
                      "readAfterP50": round(q(reads, .5), 2), "readAfterP90": round(q(reads, .9), 2)}))
finally:
    p.stop_all()
