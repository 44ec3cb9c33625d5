"""`pantry loadtest` against a real deployment (core, workers, api): a short run ends
with the leaderboard equal to the points it earned, and writes its JSON result and SVG plot."""
import json
import subprocess
import xml.etree.ElementTree as ElementTree

from pantry_processes import start_core_and_api


def test_a_short_load_test_finds_every_point_it_earned(processes, tmp_path):
    api = start_core_and_api(processes)
    output, plot = tmp_path / "result.json", tmp_path / "latency.svg"
    run = subprocess.run([processes.bin, "loadtest", "--url", api.url, "--users", "50", "--clients", "4",
                          "--duration", "3", "--repeat-ratio", "0.1", "--seed", "7",
                          "--output", str(output), "--plot", str(plot)],
                         capture_output=True, timeout=90)
    assert run.returncode == 0, run.stdout.decode() + run.stderr.decode()
    assert b"check         PASSED" in run.stdout

    result = json.loads(output.read_text())
    assert result["passed"] and result["check"]["passed"]
    check = result["check"]
    assert check["users"] == 50 and check["mismatchedUsers"] == 0
    assert check["expectedTotal"] == check["actualTotal"] > 0
    drive = result["drive"]
    assert drive["kinds"].keys() == {"increment", "repeat", "cook", "top10", "myRank"}, drive["kinds"].keys()
    # Each user cooks before earning, and earns at most the pace's burst: no point refused as too fast.
    assert result["settings"]["pointsPerUser"] == 60
    assert 0 < drive["kinds"]["cook"]["requests"] <= drive["kinds"]["increment"]["requests"]
    assert drive["doubled"] == 0 and drive["indefinite"] == 0 and drive["errors"] == {}
    assert drive["kinds"]["increment"]["requests"] == check["expectedTotal"]
    for figures in drive["kinds"].values():
        latency = figures["latencyMs"]
        assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["p999"] <= latency["max"]
    assert result["settings"]["seed"] == 7
    assert result["lag"]["catchUpMilliseconds"] is not None

    svg = ElementTree.parse(plot).getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    # Five kinds, the throughput, and each second's p50 and p99.
    assert len(svg.findall("{http://www.w3.org/2000/svg}polyline")) == 8
    series = drive["latencySeries"]
    assert series and all(0 < s["p50Ms"] <= s["p99Ms"] for s in series)


def test_a_ramp_reports_each_step(processes, tmp_path):
    api = start_core_and_api(processes)
    output = tmp_path / "ramp.json"
    run = subprocess.run([processes.bin, "loadtest", "--url", api.url, "--users", "20", "--clients", "4",
                          "--ramp", "40,120", "--step-seconds", "3", "--seed", "5", "--output", str(output),
                          "--plot", str(tmp_path / "ramp.svg")], capture_output=True, timeout=90)
    assert run.returncode == 0, run.stdout.decode() + run.stderr.decode()
    result = json.loads(output.read_text())
    assert result["settings"]["ramp"] == [40, 120] and result["settings"]["stepSeconds"] == 3
    steps = result["steps"]
    assert [s["rate"] for s in steps] == [40, 120]
    # Each step answered about its rate (whole seconds inside it), and says how fast.
    assert 30 <= steps[0]["answeredPerSecond"] <= 50 and 90 <= steps[1]["answeredPerSecond"] <= 140, steps
    assert all(s["p50Ms"] and s["p50Ms"] <= s["p99Ms"] for s in steps)
    assert b"  step     rate/s   answered/s" in run.stdout
    for bad in (["--ramp", "40,x"], ["--ramp", "40", "--rate", "10"], ["--ramp", "0,10"]):
        refused = subprocess.run([processes.bin, "loadtest", "--url", api.url, *bad], capture_output=True, timeout=30)
        assert refused.returncode != 0 and b"--ramp" in refused.stderr, bad


def loadtest(processes, api, tmp_path, name, *extra):
    output = tmp_path / f"{name}.json"
    run = subprocess.run([processes.bin, "loadtest", "--url", api.url, "--users", "20", "--clients", "2",
                          "--duration", "2", "--seed", "11", "--output", str(output),
                          "--plot", str(tmp_path / f"{name}.svg"), *extra],
                         capture_output=True, timeout=90)
    return run, output


def test_thresholds_warm_up_cleanup_and_compare(processes, tmp_path):
    api = start_core_and_api(processes)
    run, first = loadtest(processes, api, tmp_path, "a", "--fail-on", "errors=0,p99<60s", "--warm-up", "1", "--cleanup")
    assert run.returncode == 0, run.stdout.decode() + run.stderr.decode()
    result = json.loads(first.read_text())
    assert result["startedAt"] and result["version"]
    assert [v["met"] for v in result["thresholds"]] == [True, True]
    assert result["cleanedUp"] == 20
    # Cleaned up: the test users are gone from the leaderboard.
    assert api.get("/v1/leaderboard?limit=100").json["result"] == []

    missed, second = loadtest(processes, api, tmp_path, "b", "--fail-on", "rps>100000000")
    assert missed.returncode == 3, missed.stdout.decode() + missed.stderr.decode()
    assert b"MISSED" in missed.stdout

    bad = subprocess.run([processes.bin, "loadtest", "--fail-on", "latency<3"], capture_output=True, timeout=30)
    assert bad.returncode != 0 and b"--fail-on" in bad.stderr

    compared = subprocess.run([processes.bin, "loadtest", "compare", str(first), str(second)], capture_output=True, timeout=30)
    assert compared.returncode == 0, compared.stderr.decode()
    table = compared.stdout.decode()
    assert "requests/s" in table and "B/A" in table and "increment p99 ms" in table


def test_the_load_test_registers_its_users_against_a_deployment_with_default_limits(processes, tmp_path):
    # The API's own log-in limits (2/s per address, 100/s overall) and its full scrypt cost.
    api = start_core_and_api(processes, env={"PANTRY_LOGIN_RATE_PER_CLIENT": "2", "PANTRY_LOGIN_RATE_OVERALL": "100"},
                             api_args=("--password-cost", "15"))
    run = subprocess.run([processes.bin, "loadtest", "--url", api.url, "--users", "60", "--clients", "8",
                          "--duration", "2", "--seed", "11", "--data", str(processes.data), "--cleanup",
                          "--output", str(tmp_path / "result.json"), "--plot", str(tmp_path / "result.svg")],
                         capture_output=True, timeout=120)
    assert run.returncode == 0, run.stdout.decode() + run.stderr.decode()
    assert b"register as the operator" in run.stderr and b"check         PASSED" in run.stdout
    assert json.loads((tmp_path / "result.json").read_text())["check"]["users"] == 60
    assert b"cleanup       60 users deleted" in run.stdout, "the operator removes its users past the limits too"

    # Without the key it registers like any client, and says how to give it the key when refused.
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    refused = subprocess.run([processes.bin, "loadtest", "--url", api.url, "--users", "60", "--clients", "8",
                              "--duration", "2", "--data", str(empty), "--output", str(tmp_path / "r.json"),
                              "--plot", str(tmp_path / "r.svg")], capture_output=True, timeout=120)
    assert refused.returncode == 2, refused.stderr.decode()
    assert b"429" in refused.stderr and b"api-token.key" in refused.stderr, refused.stderr.decode()
