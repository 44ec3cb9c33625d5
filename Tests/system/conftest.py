import pytest

from pantry_processes import Processes


@pytest.fixture
def processes(pantry_bin, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    procs = Processes(pantry_bin, data)
    yield procs
    procs.stop_all()
