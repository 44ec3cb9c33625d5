"""`ops/bench-live` in short, on the build under test: streams held by `pantry-bench live-streams`,
grocery changes sent beside them, and every change delivered once to its stream, with the figures
written. A benchmark that no longer runs is found here, not on the day its figures are wanted."""
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_a_short_run_delivers_every_change_to_its_stream_and_writes_the_figures(pantry_bin, tmp_path):
    figures = tmp_path / "live.json"
    run = subprocess.run([sys.executable, str(ROOT / "ops" / "bench_live.py"), "--bin", os.path.dirname(pantry_bin),
                          "--streams", "40", "--rate", "50", "--seconds", "2", "--wrk-seconds", "1", "--wrk-users", "4",
                          "--rounds", "1", "--settle-seconds", "0.5", "--json", str(figures)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    [result] = json.loads(figures.read_text())["results"]
    assert "error" not in result, result
    assert result["commands_accepted"] == 100 and result["command_errors"] == 0, result
    assert result["delivered"] == 100 and result["missing"] == 0, result
    assert result["increments_per_s_with_streams"] > 0 and result["increments_per_s_without_streams"] > 0, result
    alternated = result["increments_alternated"]
    assert len(alternated["with"]) == 1 and len(alternated["without"]) == 2, alternated
    assert "40 open in" in run.stderr, run.stderr
