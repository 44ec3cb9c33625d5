import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The system and security suites share the helpers that start real processes.
sys.path.insert(0, str(ROOT / "Tests" / "system"))
from pantry_processes import Processes, start_core_and_api  # noqa: E402


@pytest.fixture(scope="session")
def pantry_bin():
    path = pathlib.Path(os.environ.get("PANTRY_BIN", ROOT / ".build" / "debug" / "pantry"))
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first (swift build) or set PANTRY_BIN")
    return str(path)


@pytest.fixture
def processes(pantry_bin, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    procs = Processes(pantry_bin, data)
    yield procs
    procs.stop_all()


@pytest.fixture
def api(processes):
    """The whole deployment (core, every worker, fetch, api) and an HTTP client of it. A test
    file that needs other settings defines its own `api`."""
    return start_core_and_api(processes)
