import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import uuid

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The system and security suites share the helpers that start real processes.
sys.path.insert(0, str(ROOT / "Tests" / "system"))
from pantry_processes import Processes, start_core_and_api  # noqa: E402


def pytest_configure(config):
    """Every test's `tmp_path` in one directory of this run, removed when the run ends: pytest's
    own keeps the last three runs' data directories (logs, keys, snapshots) in the system's
    temporary directory. A `--basetemp` given on the command line is left to whoever gave it."""
    if config.option.basetemp is None:
        config.option.basetemp = tempfile.mkdtemp(prefix="pantry-pytest-")
        config.pantry_basetemp = config.option.basetemp


def pytest_unconfigure(config):
    if getattr(config, "pantry_basetemp", None):
        shutil.rmtree(config.pantry_basetemp, ignore_errors=True)


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


@pytest.fixture(scope="module")
def module_processes(pantry_bin, tmp_path_factory):
    """Processes for every test of one file, stopped after its last test."""
    procs = Processes(pantry_bin, tmp_path_factory.mktemp("data"))
    yield procs
    procs.stop_all()


@pytest.fixture(scope="module")
def shared_api(module_processes):
    """One whole deployment for every test of a file whose tests cannot disturb each other: each
    registers users of its own and stops no process. A start costs seconds; a test that kills,
    restarts or reconfigures a process, or reads the whole log, takes `api` instead."""
    return start_core_and_api(module_processes)


@pytest.fixture
def api(processes):
    """The whole deployment (core, every worker, fetch, api) and an HTTP client of it. A test
    file that needs other settings defines its own `api`."""
    return start_core_and_api(processes)


@pytest.fixture(scope="session")
def postgres_server():
    """The address of a PostgreSQL server for the PostgreSQL log's tests: PANTRY_TEST_POSTGRES
    (ops/test starts one), or one started here with ops/postgres-cluster and stopped at the end.
    Never skipped: without PostgreSQL those tests fail."""
    given = os.environ.get("PANTRY_TEST_POSTGRES")
    if given:
        yield given
        return
    started = subprocess.run([str(ROOT / "ops" / "postgres-cluster"), "start", "--no-fsync"],
                             capture_output=True, text=True)
    assert started.returncode == 0, started.stderr
    url, directory = started.stdout.split()
    yield url
    subprocess.run([str(ROOT / "ops" / "postgres-cluster"), "stop", directory])


@pytest.fixture
def postgres_log(postgres_server):
    """The address of a new, empty database on the test server, for one test's log."""
    name = f"pytest_{uuid.uuid4().hex}"
    created = subprocess.run(["psql", "-q", postgres_server, "-c", f"CREATE DATABASE {name}"], capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    return postgres_server.rsplit("/", 1)[0] + "/" + name
