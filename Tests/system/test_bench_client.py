"""`ops/bench-client` in short, on the build under test: PantryClient (Examples/cook's cook-bench,
built by ops/check-client-app) and the load test's libcurl client each read the top 10 and earn
points on one deployment, every request answered with a 2xx, and the comparison written."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
COOK_BENCH = ROOT / ".build-cook" / "debug" / "cook-bench"


def test_a_short_run_compares_both_clients_with_every_request_answered(pantry_bin, tmp_path):
    if not COOK_BENCH.exists():
        pytest.fail(f"{COOK_BENCH} is missing: ops/check-client-app builds it")
    figures = tmp_path / "client.json"
    run = subprocess.run([sys.executable, str(ROOT / "ops" / "bench_client.py"), "--bin", os.path.dirname(pantry_bin),
                          "--cook-bench", str(COOK_BENCH), "--users", "4", "--seconds", "1", "--rounds", "1",
                          "--json", str(figures)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    written = json.loads(figures.read_text())
    assert {(r["client"], r["mode"]) for r in written["runs"]} == {
        (client, mode) for client in ("PantryClient", "libcurl") for mode in ("top", "increments")}, written
    assert all(r["requests"] > 0 and r["errors"] == 0 for r in written["runs"]), written["runs"]
    assert all(written["summary"][mode]["rateRatio"]["PantryClient"] > 0 for mode in ("top", "increments")), written["summary"]
