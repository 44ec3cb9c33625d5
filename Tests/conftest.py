import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def pantry_bin():
    path = pathlib.Path(os.environ.get("PANTRY_BIN", ROOT / ".build" / "debug" / "pantry"))
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first (swift build) or set PANTRY_BIN")
    return str(path)
