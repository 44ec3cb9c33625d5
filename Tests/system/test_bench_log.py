"""`pantry-bench log` keeps its logs in a cache for ops/bench-scale: asked again for a size the
log already has, it leaves the log as it is (a second run once grew 10,000,000 events to 12,000,000)."""
import pathlib
import re
import subprocess


def fill(bench, data, events):
    out = subprocess.run([str(bench), "log", "--events", str(events), "--users", "500", "--data", str(data)],
                         check=True, capture_output=True, text=True, timeout=600).stdout
    before, after = map(int, re.search(r"log: (\d+) -> (\d+) events", out).groups())
    return before, after


def test_a_second_fill_to_the_same_size_appends_nothing(tmp_path, pantry_bin):
    bench = pathlib.Path(pantry_bin).parent / "pantry-bench"
    before, head = fill(bench, tmp_path, 5_000)
    assert before == 0 and head >= 5_000
    assert fill(bench, tmp_path, 5_000) == (head, head)
    assert fill(bench, tmp_path, 4_000) == (head, head), "a smaller size is no reason to append either"
