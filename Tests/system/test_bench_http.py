"""`ops/bench-http` in short, on the build under test: the benchmark behind the README's HTTP
figures starts from a log it made, waits for every worker to apply it, and measures each route it
was asked for with every answer a 2xx, and beside the increments the same route refused by the API
and by the core, every answer a refusal. A benchmark that no longer runs is found here, not on the
day its figures are wanted (a made log's `record-N` commands once made every run fail)."""
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
ROUTES = ["/health", "durable increments"]


def test_a_short_run_from_a_made_log_measures_each_route_with_no_errors(pantry_bin, tmp_path):
    bin_dir = os.path.dirname(pantry_bin)
    # Thresholds a debug build meets: this checks that --check reads them and that --json is written.
    thresholds = tmp_path / "thresholds.json"
    thresholds.write_text(json.dumps({"ratioToBare": {route: 0.0001 for route in ROUTES}}))
    figures = tmp_path / "figures.json"
    run = subprocess.run([sys.executable, str(ROOT / "ops" / "bench_http.py"), "--bin", bin_dir, "--seconds", "1",
                          "--users", "4", "--log-events", "3000", "--routes", ",".join(ROUTES),
                          "--check", str(thresholds), "--json", str(figures)],
                         capture_output=True, text=True, timeout=300)
    output = run.stdout
    assert run.returncode == 0, output + run.stderr
    assert "check: every route at or above its threshold" in output
    written = json.loads(figures.read_text())["routes"]
    assert set(written) == set(ROUTES) | {"usual-stack increments"}, written
    assert all(r["ratio"] > 0 and r["non2xx"] == 0 for r in written.values()), written
    assert written["durable increments"]["ratioToUsualStack"] > 0, written

    caught_up = re.search(r"every worker at the head \((\d+)\)", output)
    assert caught_up and int(caught_up.group(1)) >= 3000, output
    for route in ROUTES:
        name = re.escape(route)
        measured = re.search(rf"^{name}\s+(\d+)\s+(\d+)\s+([\d.]+)\s+>=[\d.]+\s+\S+\s+(\d+)", output, re.MULTILINE)
        assert measured, f"no line for {route}:\n{output}"
        bare, pantry, ratio, errors = measured.groups()
        assert int(bare) > 0 and int(pantry) > 0 and float(ratio) > 0, measured.group(0)
        assert int(errors) == 0, measured.group(0)
        assert re.search(rf"^  {name}\s+bare \d+; api \d+", output, re.MULTILINE), output
        half_rate = re.search(rf"^  {name}\s+\d+/s of \d+/s asked.*non-2xx (\d+)", output, re.MULTILINE)
        assert half_rate and half_rate.group(1) == "0", output
    assert "fsync probe beside it" in output

    # The peer, built the usual way, answered every increment with a 2xx, and Pantry's ratio to it is printed.
    usual = re.search(r"^usual-stack increments\s+(\d+)\s+(\d+)\s+([\d.]+)\s+peer\s+\S+\s+(\d+)", output, re.MULTILINE)
    assert usual and int(usual.group(2)) > 0 and usual.group(4) == "0", output
    assert re.search(r"durable increments to the usual stack .*: [\d.]+x \(target >= 2\)", output), output

    # Beside the increments, the same route stopped earlier: every request refused where it should be.
    for stage in ["refused by the API", "refused by the core"]:
        budget = re.search(rf"^  {stage}\s+([\d.]+)\s+api \d+.*; (\d+) of (\d+) refused\)", output, re.MULTILINE)
        assert budget and float(budget.group(1)) > 0 and budget.group(2) == budget.group(3), output
    assert re.search(r"^  refused by the core .*core \d+", output, re.MULTILINE), output
    assert re.search(r"may spend about -?\d+ µs on an increment", output), output


def test_the_check_names_each_route_below_its_threshold():
    sys.path.insert(0, str(ROOT / "ops"))
    from bench_http import check_thresholds
    results = {"/health": {"ratio": 0.8}, "top 10": {"ratio": 0.5}}
    assert check_thresholds(results, {"/health": 0.77, "top 10": 0.63, "my rank": 0.62}) == [
        "top 10: ratio 0.50 below its threshold 0.63", "my rank: not measured"]
    increments = {"durable increments": {"ratio": 0.3, "ratioToUsualStack": 1.4}}
    assert check_thresholds(increments, {"durable increments": 1.8}, field="ratioToUsualStack") == [
        "durable increments: ratioToUsualStack 1.40 below its threshold 1.80"]
    committed = json.loads((ROOT / "ops" / "thresholds" / "bench-http.json").read_text())["ratioToBare"]
    assert set(committed) == {"/health", "top 10", "my rank", "cached recipe search", "durable increments"}
