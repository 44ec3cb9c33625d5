import sys
from pathlib import Path

import pytest

# The security suite drives real processes with the system tests' helpers.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "system"))
from pantry_processes import Processes  # noqa: E402


@pytest.fixture
def processes(pantry_bin, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    procs = Processes(pantry_bin, data)
    yield procs
    procs.stop_all()
