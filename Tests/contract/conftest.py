import json
import subprocess

import pytest


@pytest.fixture
def submit(pantry_bin, tmp_path):
    """Feeds JSON lines to `pantry submit` on a fresh log and returns the outcome lines."""
    data = tmp_path / "data"

    def run(lines):
        payload = b"".join((l if isinstance(l, bytes) else l.encode()) + b"\n" for l in lines)
        result = subprocess.run([pantry_bin, "submit", "--data", str(data)], input=payload,
                                capture_output=True, timeout=60)
        outcomes = [line for line in result.stdout.decode().splitlines() if line]
        # 1 when a command was rejected or failed, every outcome printed all the same.
        refused = any(json.loads(line)["status"] != "accepted" for line in outcomes)
        assert result.returncode == (1 if refused else 0), result.stderr.decode()
        return outcomes

    run.data = data
    return run
