"""`?after=` waits on whoever holds the read model (a worker, or the API's feed for the
leaderboard) and asks the log, never the feed, whether a position is written."""
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


def test_a_read_of_another_worker_after_a_command_sees_it(shared_api):
    api = shared_api
    # The favourites worker does not subscribe to points: the position is read from the log
    # when the query asks for it, instead of at the next heartbeat.
    _, token = api.register_and_log_in("crosser")
    saved = api.put(f"/v1/me/favourites/{SHAKSHUKA}", token=token)
    api.start_cooking(SHAKSHUKA, token)
    earned = api.post("/v1/me/owned-ingredients", {"recipeId": SHAKSHUKA, "ingredient": "onion"}, token=token)
    assert saved.status == 201 and earned.status == 201
    favourites = api.get(f"/v1/me/favourites?after={earned.json['position']}", token=token)
    assert favourites.status == 200, favourites
    assert favourites.json["position"] >= earned.json["position"]
    assert [f["recipeId"] for f in favourites.json["result"]] == [SHAKSHUKA]


def test_a_leaderboard_read_after_a_command_it_does_not_read_sees_it(shared_api):
    api = shared_api
    # The API's leaderboard reads no favourites: the position is read from the log, not awaited.
    _, token = api.register_and_log_in("saver")
    saved = api.put(f"/v1/me/favourites/{SHAKSHUKA}", token=token)
    assert saved.status == 201, saved
    for path in [f"/v1/leaderboard/me?after={saved.json['position']}", f"/v1/leaderboard?after={saved.json['position']}"]:
        answer = api.get(path, token=token)
        assert answer.status == 200 and answer.json["position"] >= saved.json["position"], (path, answer)


def test_a_users_counted_ingredients_are_read_at_once_after_the_point_and_only_by_that_user(shared_api):
    api = shared_api
    # The recipe page opens with "I have this" already counted: the read sees the point just earned.
    _, token = api.register_and_log_in("counter")
    _, other = api.register_and_log_in("onlooker")
    path = f"/v1/me/owned-ingredients/{SHAKSHUKA}"
    before = api.get(path, token=token)
    assert before.status == 200 and before.json["result"] == {"recipeId": SHAKSHUKA, "ingredients": []}, before
    api.start_cooking(SHAKSHUKA, token)
    for ingredient in ("Eggs", "onion"):
        earned = api.post("/v1/me/owned-ingredients", {"recipeId": SHAKSHUKA, "ingredient": ingredient}, token=token)
        assert earned.status == 201, earned
    counted = api.get(f"{path}?after={earned.json['position']}", token=token)
    assert counted.status == 200 and counted.json["position"] >= earned.json["position"], counted
    assert counted.json["result"]["ingredients"] == ["egg", "onion"], counted
    # The id is read as a command reads it, here as through the log service: spaces around it do not count.
    padded = api.get(f"/v1/me/owned-ingredients/%20{SHAKSHUKA}%20", token=token)
    assert padded.status == 200 and padded.json["result"] == counted.json["result"], padded
    # Another cook's read says nothing of them; no token, a bad id: refused, nothing read.
    assert api.get(f"{path}?after={earned.json['position']}", token=other).json["result"]["ingredients"] == []
    assert api.get(path).status == 401
    assert api.get(f"/v1/me/owned-ingredients/{'x' * 129}", token=token).status == 422
    assert api.get(f"{path}?after=nope", token=token).status == 422
    # The log answers at its head: a position it has not written yet is refused, not waited for.
    beyond = api.get(f"{path}?after={earned.json['position'] + 1_000}", token=token)
    assert beyond.status == 422 and beyond.json["code"] == "position_not_written", beyond
