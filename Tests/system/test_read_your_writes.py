"""`?after=` asks the log, never the feed, whether a position is written: with the core killed, a
written position is still answered. The other read-your-writes checks need no process of their
own and run in process (Tests/PantryRouteTests/ReadYourWritesRouteTests.swift)."""
import signal

import pytest

from pantry_processes import start_core_and_api

SHAKSHUKA = "catalog:shakshuka"


@pytest.fixture
def api(processes):
    return start_core_and_api(processes)


def test_a_written_position_is_never_called_unwritten_even_with_the_core_gone(api, processes):
    _, token = api.register_and_log_in("reader")
    api.start_cooking(SHAKSHUKA, token)
    earned = api.post("/v1/me/owned-ingredients", {"recipeId": SHAKSHUKA, "ingredient": "egg"}, token=token)
    assert earned.status == 201, earned
    core = processes.running[0]
    core.send_signal(signal.SIGKILL)
    core.wait(timeout=10)
    for path in [f"/v1/leaderboard/me?after={earned.json['position']}", f"/v1/me?after={earned.json['position']}"]:
        answer = api.get(path, token=token)
        assert answer.status == 200, (path, answer)
    beyond = api.get(f"/v1/leaderboard?after={earned.json['position'] + 1000}")
    assert beyond.status == 422 and beyond.json["code"] == "position_not_written", beyond
