"""The API sends the commands waiting together to the core as one batch frame. Over HTTP, with
the core SIGKILLed under a stream of them: every request that did not get its answer, retried with
the same Idempotency-Key once the core is back, is counted exactly once."""
import concurrent.futures
import json
import threading

from pantry_processes import start_core_and_api, wait_for


def test_increments_cut_by_a_killed_core_count_once_when_retried_with_their_keys(processes, monkeypatch):
    # Hundreds of points per user: far past a person's pace, which is not what this tests.
    monkeypatch.setenv("PANTRY_POINTS_PACE", "1000000000/0.001")
    api = start_core_and_api(processes, api_args=("--core-timeout", "2"))
    core = processes.running[0]
    users = [api.register_and_log_in(f"batcher{n}") for n in range(6)]
    found = api.get("/v1/recipes/by-ingredients?ingredients=egg&number=30")
    assert found.status == 200, found
    points = []
    for summary in found.json["payload"]["summaries"]:
        recipe = api.get(f"/v1/recipes/{summary['id']}").json["payload"]["recipe"]
        names = sorted({i["name"] for i in recipe["ingredients"]})
        points += [(recipe["id"], name) for name in names]
    for _, token in users:
        for recipe in {recipe for recipe, _ in points}:
            api.start_cooking(recipe, token)
    # 360 of them: enough for a kill mid-stream; every one left after the kill waits out the API's
    # 2 s core timeout, and the whole list (900 and more) made this test take 78 s.
    work = [(user, token, recipe, ingredient, f"k-{n}-{m}")
            for m, (recipe, ingredient) in enumerate(points) for n, (user, token) in enumerate(users)][:360]
    assert len(work) == 360, len(work)

    answered = threading.Event()
    done = []
    lock = threading.Lock()

    def increment(item):
        _, token, recipe, ingredient, key = item
        try:
            answer = api.post("/v1/me/owned-ingredients", {"recipeId": recipe, "ingredient": ingredient},
                              token=token, headers={"Idempotency-Key": key}, timeout=30)
        except OSError:
            return item, None
        with lock:
            done.append(answer.status)
            if len(done) == 100:
                answered.set()
        return item, answer

    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        futures = [pool.submit(increment, item) for item in work]
        assert answered.wait(120), "the first 100 increments were answered"
        core.kill()
        core.wait()
        (processes.data / "core-events.sock").unlink()
        results = [f.result() for f in futures]
    lost = [item for item, answer in results if answer is None or answer.status == 503]
    assert lost, "the kill cut some increments"
    # Two names of one recipe may be one ingredient (plurals): the second is refused, 4xx.
    assert all(answer is None or answer.status in (201, 503) or 400 <= answer.status < 500 for _, answer in results)
    final = {item[4]: answer for item, answer in results}

    processes.start("core")
    wait_for(api.ready, timeout=60, what="the API ready with the restarted core")
    for item in lost:
        again = increment(item)[1]
        assert again is not None and again.status != 503, again
        final[item[4]] = again

    printed = processes.run("events")
    assert printed.returncode == 0, printed.stderr
    events = [json.loads(line) for line in printed.stdout.decode().splitlines()]
    assert [e["position"] for e in events] == list(range(1, len(events) + 1))
    earned = [(e["data"]["userId"], e["data"]["recipeId"], e["data"]["ingredient"]) for e in events if e["type"] == "PointEarned"]
    assert len(earned) == len(set(earned))
    # The log keeps a client's Idempotency-Key only keyed per user (issue 32), so the points are
    # matched by what they are: each accepted increment once, and nothing else.
    accepted = sorted((user, recipe) for user, _, recipe, _, key in work if final[key].status == 201)
    assert len(accepted) > len(work) / 2
    assert sorted((user, recipe) for user, recipe, _ in earned) == accepted
    # An answer given before the kill still holds: its position is a point of that user in the log.
    by_position = {e["position"]: e for e in events}
    for (user, _, recipe, _, key), answer in results:
        if answer is not None and answer.status == 201:
            assert any(by_position[p]["type"] == "PointEarned" and by_position[p]["data"]["userId"] == user
                       and by_position[p]["data"]["recipeId"] == recipe for p in answer.json["positions"]), (key, answer)
