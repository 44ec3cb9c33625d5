"""The API answers the leaderboard from its own memory (`LeaderboardReadModel`): the same answers,
byte for byte in meaning, as the leaderboard worker gives from its file."""
import json

import zmq

from pantry_processes import start_core_and_api


def ask_worker(processes, question):
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 30_000)
    socket.connect(f"ipc://{processes.data / 'leaderboard-queries.sock'}")
    socket.send(json.dumps({**question, "wait": 5000}).encode())
    reply = json.loads(socket.recv())
    socket.close()
    return reply


def test_the_apis_leaderboard_answers_as_the_worker_does(processes):
    api = start_core_and_api(processes)
    recipe = api.catalog_recipe("egg")
    ingredients = [i["name"] for i in recipe["ingredients"]]
    users = [api.register_and_log_in(f"ranked{n}") for n in range(6)]
    position = 0
    # Ties on points (sharing a rank, listed by who got there first), users without points, a deletion.
    for n, (_, token) in enumerate(users):
        if n % 4:
            api.start_cooking(recipe["id"], token)
        for ingredient in ingredients[: n % 4]:
            earned = api.post("/v1/me/owned-ingredients", {"recipeId": recipe["id"], "ingredient": ingredient}, token=token)
            assert earned.status == 201, earned
            position = max(position, earned.json["position"])
    deleted = api.request("DELETE", "/v1/me", {"password": "correct horse battery"}, token=users[3][1])
    assert deleted.status == 204, deleted
    head = api.get(f"/v1/leaderboard?limit=100&after={position}").json["position"]
    questions = [({"query": "top", "limit": 100}, "/v1/leaderboard?limit=100"),
                 ({"query": "top", "limit": 2}, "/v1/leaderboard?limit=2")]
    for user_id, _ in users:
        questions += [({"query": "entry", "userId": user_id}, None),
                      ({"query": "around", "userId": user_id, "radius": 1}, f"/v1/leaderboard/around/{user_id}?radius=1")]
    for question, path in questions:
        worker = ask_worker(processes, {**question, "after": head})
        if path is None:  # an entry: the API answers it for the token's own user
            token = next(t for u, t in users if u == question["userId"])
            answer = api.get(f"/v1/leaderboard/me?after={head}", token=token)
        else:
            answer = api.get(f"{path}&after={head}")
        if "error" in worker:
            assert worker["error"]["code"] in ("not_found",) and answer.status in (401, 404), (question, worker, answer)
            continue
        assert answer.status == 200, (question, answer)
        assert answer.json["result"] == worker["result"], (question, answer.json, worker)
    top = api.get(f"/v1/leaderboard?limit=100&after={head}").json["result"]
    # Users 1, 2 and 5 have points (1, 2 and 1: ranks 1, 2, 2); 0 and 4 have none, 3 is deleted.
    assert [(e["userId"], e["points"], e["rank"]) for e in top] == [
        (users[2][0], 2, 1), (users[1][0], 1, 2), (users[5][0], 1, 2)], top
