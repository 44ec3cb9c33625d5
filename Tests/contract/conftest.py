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
        assert result.returncode == 0, result.stderr.decode()
        return [line for line in result.stdout.decode().splitlines() if line]

    run.data = data
    return run
