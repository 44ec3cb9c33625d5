"""`ops/bench-scale` in short (20,000 events, 2,000 users) on the build under test: every process it
times becomes ready from its snapshot (the core's, the API's, each worker's file, and a worker on a
new host from the snapshot the log service serves), the replays' checksums match the live files,
and the JSON holds every field docs/benchmarks/scale.md names. Seconds, not minutes; no speed is
asserted (a loaded CI machine), only that each figure is there and says what it claims."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROJECTIONS = ["leaderboard", "carts", "favourites", "groceries", "experiences"]
EVENTS, USERS = 20_000, 2_000


def documented_fields():
    """The fields scale.md says every run's JSON holds (its "The JSON" paragraph, in backticks)."""
    text = (ROOT / "docs" / "benchmarks" / "scale.md").read_text()
    listed = re.search(r"^The JSON \(one object per run\) holds:(.*?);\s*each timed figure", text, re.MULTILINE | re.DOTALL)
    assert listed, "docs/benchmarks/scale.md no longer says which fields the JSON holds"
    # Fields inside a figure are named in parentheses and checked below.
    names = re.findall(r"`([^`]+)`", re.sub(r"\([^)]*\)", "", listed.group(1)))
    return [n.replace("NAME", p) for n in names for p in (PROJECTIONS if "NAME" in n else ["NAME"])]


def test_a_small_bench_scale_run_starts_every_process_from_its_snapshot_and_its_replays_match(pantry_bin, tmp_path):
    bin_dir = os.path.dirname(pantry_bin)
    if not os.path.exists(os.path.join(bin_dir, "pantry-bench")):
        pytest.fail(f"{bin_dir}/pantry-bench does not exist: build every product (swift build --build-tests)")
    figures = tmp_path / "scale.json"
    # The processes' ipc:// sockets live in the working directory: a short path (a socket's is at most 107 bytes).
    work = tempfile.mkdtemp(prefix="scale-", dir="/tmp")
    try:
        run = subprocess.run([sys.executable, str(ROOT / "ops" / "bench_scale.py"), "--bin", bin_dir,
                              "--events", str(EVENTS), "--users", str(USERS), "--cache", str(tmp_path / "cache"),
                              "--directory", work, "--json", str(figures)],
                             capture_output=True, text=True, timeout=600,
                             # A core snapshot every 100,000 events (the default) would be none at this size.
                             env={**os.environ, "PANTRY_SNAPSHOT_EVERY": "5000"})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    written = json.loads(figures.read_text())
    assert written["cores"] >= 1 and len(written["runs"]) == 1
    figure = written["runs"][0]
    missing = [name for name in documented_fields() if name not in figure]
    assert not missing, f"fields docs/benchmarks/scale.md names that the JSON lacks: {missing}"
    assert figure["events"] == EVENTS and figure["users"] == USERS and figure["head"] >= EVENTS

    # Every timed start has seconds (and RSS where a process was measured).
    timed = [v for v in figure.values() if isinstance(v, dict) and "seconds" in v]
    assert len(timed) >= 20 and all(v["seconds"] > 0 for v in timed), figure
    head = figure["head"]
    # Ready from its snapshot, as each one's own log line says, not by folding the log.
    assert 0 < figure["core, from its snapshot"]["snapshot position"] <= head, figure["core, from its snapshot"]
    assert figure["API, from its snapshot"]["restored from the snapshot"] is True
    for name in PROJECTIONS:
        assert figure[f"{name} worker, from its file"]["file checkpoint"] == head, name
        fetched = figure[f"{name} worker on a new host, from the log service's snapshot"]
        assert fetched["snapshot position"] == head and fetched["snapshot bytes"] > 0, (name, fetched)
    # The replays' checksums match: the new hosts' files, and the leaderboard after backup and restore.
    assert figure["new-host workers equal a replay"] == {name: True for name in PROJECTIONS}
    assert "replay --verify leaderboard after restore" in figure
    # Every projection was replayed, at a rate, beside the log's raw read.
    assert figure["read events/s"] > 0 and all(figure[f"replay {p} events/s"] > 0 for p in PROJECTIONS)
    assert figure["slowest replay"]["projection"] in PROJECTIONS and figure["API RSS MiB per million users"] > 0
