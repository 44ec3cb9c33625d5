"""A full disk under the core: commands fail cleanly (`storage_error`), nothing accepted is lost,
nothing failed is written, and once space is free every user's commands are accepted again, with
no restart. The disk is a small tmpfs the test mounts itself (the tests run as root)."""
import json
import subprocess
import time

import pytest

from pantry_processes import HASH, Processes, wait_for

FACTS = {"title": "Recipe", "ingredients": [f"ingredient {i}" for i in range(200)]}
USERS = 20


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk):
    """Writes a file until the disk is full; removing it frees the space again."""
    filler = disk / "filler"
    # Unbuffered: a buffered file's close would flush what did not fit, and fail.
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 65536)
        except OSError:
            pass
    return filler


def cooking(tag, recipes):
    """Each user's cart lines of `tag`'s first `recipes` recipes, with their timers started: what a
    point for them needs."""
    return [command for u in range(USERS) for r in range(recipes) for command in (
        {"commandId": f"cart-{tag}-{r}-{u}", "type": "AdjustCart",
         "data": {"userId": f"u{u}", "recipeId": f"{tag}-r{r}", "delta": 1, "recipe": FACTS}},
        {"commandId": f"cook-{tag}-{r}-{u}", "type": "StartCooking",
         "data": {"userId": f"u{u}", "recipeId": f"{tag}-r{r}", "minutes": 1440}})]


def use(tag, user, n):
    return {"commandId": f"{tag}-{n}-{user}", "type": "UseOwnedIngredient", "data": {
        "userId": f"u{user}", "recipeId": f"{tag}-r{n // 200}", "ingredient": f"ingredient {n % 200}", "recipe": FACTS}}


def test_a_full_disk_fails_commands_cleanly_and_the_core_recovers_without_a_restart(pantry_bin, small_disk):
    data = small_disk / "data"
    data.mkdir()
    processes = Processes(pantry_bin, data)
    try:
        # Hundreds of points a user: far past a person's pace, which is not what this tests.
        core = processes.start("core", env={"PANTRY_POINTS_PACE": "1000000000/0.001"})
        wait_for(lambda: (data / "core-commands.sock").exists(), what="the core's socket")

        def submit(commands):
            result = processes.run("submit", input="\n".join(json.dumps(c) for c in commands).encode())
            return [json.loads(line) for line in result.stdout.decode().splitlines()]

        registered = submit([{"commandId": f"reg-{u}", "type": "RegisterUser", "data": {
            "userId": f"u{u}", "username": f"user{u}", "email": f"u{u}@example.org", "passwordHash": HASH}}
            for u in range(USERS)])
        assert all(o["status"] == "accepted" for o in registered)
        assert all(o["status"] == "accepted" for o in submit(cooking("fill", 25)))

        accepted, failed = set(), set()
        # Ten rounds of every user's commands to each `pantry submit`: with one round each, filling
        # the disk took a minute with four tests at a time on two cores (a debug binary's start each).
        for first in range(0, 5_000, 10):
            outcomes = submit([use("fill", u, n) for n in range(first, first + 10) for u in range(USERS)])
            accepted |= {o["commandId"] for o in outcomes if o["status"] == "accepted"}
            failed |= {o["commandId"] for o in outcomes if o["status"] == "failed"}
            if failed:
                assert {o["code"] for o in outcomes if o["status"] == "failed"} == {"storage_error"}
                break
        assert failed, "the disk never filled"
        assert core.poll() is None, "the core stays up on a full disk"

        subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
        assert all(o["status"] == "accepted" for o in submit(cooking("after", 1)))
        after = submit([use("after", u, 0) for u in range(USERS)])
        assert [o["status"] for o in after] == ["accepted"] * USERS, after
        # The failed commands, sent again with the same ids, are decided afresh and accepted.
        retried = submit([use("fill", int(cid.rsplit("-", 1)[1]), int(cid.split("-")[1])) for cid in sorted(failed)])
        assert all(o["status"] == "accepted" and not o.get("duplicate") for o in retried), retried
        assert core.poll() is None

        logged = [json.loads(line) for line in processes.run("events").stdout.decode().splitlines()]
        ids = {e["metadata"]["commandId"] for e in logged}
        assert accepted <= ids, "every command answered accepted is in the log"
        assert [e["position"] for e in logged] == list(range(1, len(logged) + 1)), "positions stay dense"
        points = [e for e in logged if e["type"] == "PointEarned"]
        assert len({e["metadata"]["commandId"] for e in points}) == len(points), "nothing written twice"
    finally:
        processes.stop_all()


def test_a_worker_whose_disk_is_full_stays_up_and_catches_up_once_there_is_space(pantry_bin, small_disk, tmp_path):
    """The projections alone on the full disk (the log has room): the worker used to exit on
    SQLITE_FULL; now it keeps answering at what it has and catches up to the head afterwards."""
    data = tmp_path / "data"
    data.mkdir()
    (small_disk / "projections").mkdir()
    (data / "projections").symlink_to(small_disk / "projections")
    processes = Processes(pantry_bin, data)
    try:
        processes.start("core")
        wait_for(lambda: (data / "core-commands.sock").exists(), what="the core's socket")
        worker = processes.start("worker", "leaderboard")

        def position():
            report = json.loads(processes.run("status", "--json").stdout)
            return next(p.get("position") for p in report["processes"] if p["name"] == "leaderboard")

        def submit(commands):
            result = processes.run("submit", input="\n".join(json.dumps(c) for c in commands).encode())
            return [json.loads(line) for line in result.stdout.decode().splitlines()]

        assert all(o["status"] == "accepted" for o in submit([{"commandId": f"reg-{u}", "type": "RegisterUser", "data": {
            "userId": f"u{u}", "username": f"user{u}", "email": f"u{u}@example.org", "passwordHash": HASH}}
            for u in range(USERS)] + cooking("full", 1)))
        cooked = json.loads(processes.run("stats", "--json").stdout)["head"]
        wait_for(lambda: position() == cooked, what="the worker at the head")
        filler = fill(small_disk)
        for n in range(40):
            assert all(o["status"] == "accepted" for o in submit([use("full", u, n) for u in range(USERS)]))
        head = json.loads(processes.run("stats", "--json").stdout)["head"]
        log = next(data.glob("worker-leaderboard-*.log"))
        wait_for(lambda: b"could not write the projection" in log.read_bytes(), what="the worker to meet the full disk")
        time.sleep(1.5)
        # Smaller batches may still fit in the WAL's frames of a failed one, so how far it got varies.
        assert worker.poll() is None, "the worker stays up on a full disk"

        filler.unlink()
        wait_for(lambda: position() == head, timeout=30, what="the worker to catch up once there is space")
        assert worker.poll() is None
    finally:
        processes.stop_all()


def test_the_fetch_worker_on_a_full_disk_answers_and_caches_again_once_there_is_space(pantry_bin, small_disk):
    """The fetch worker's data directory (cache and quota) on the full disk: a call the quota cannot
    record is not made (it could overspend the quota), so new questions are answered from the
    catalog (`fallback`), cached answers still are, the worker stays up, and once there is space
    it calls the upstream and caches again."""
    import pathlib
    import sys
    import zmq

    fake = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "fake_upstream.py"
    upstream = subprocess.Popen([sys.executable, str(fake), "0"], stdout=subprocess.PIPE, text=True)
    data = small_disk / "fetch"
    data.mkdir()
    processes = Processes(pantry_bin, data)
    try:
        base = f"http://127.0.0.1:{upstream.stdout.readline().split()[1]}"
        worker = processes.start("fetch", env={"PANTRY_SPOONACULAR_URL": base, "PANTRY_SPOONACULAR_KEY": "k",
                                               "PANTRY_SPOONACULAR_RATE": "1000", "PANTRY_SPOONACULAR_BURST": "1000",
                                               "PANTRY_SPOONACULAR_DAILY_QUOTA": "100000"})
        wait_for(lambda: (data / "fetch.sock").exists(), what="the fetch worker's socket")
        socket = zmq.Context.instance().socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.RCVTIMEO, 30_000)
        socket.connect(f"ipc://{data / 'fetch.sock'}")

        def ask(request):
            socket.send(json.dumps(request).encode())
            return json.loads(socket.recv())

        assert ask({"kind": "detail", "id": "spoonacular:1001"})["ok"]
        filler = fill(small_disk)
        answers = [ask({"kind": "search", "query": f"full {n}", "number": 100}) for n in range(30)]
        assert all(a["ok"] and a["response"]["origin"] == "fallback" for a in answers), answers[:3]
        assert ask({"kind": "detail", "id": "spoonacular:1001"})["response"]["origin"] == "cache", "what was cached stays served"
        assert worker.poll() is None, "the fetch worker stays up on a full disk"
        log = next(data.glob("fetch-*.log")).read_bytes()
        assert b"database or disk is full" in log and b"quota store failed" in log, log.decode()[-3000:]

        filler.unlink()
        first = ask({"kind": "detail", "id": "spoonacular:2002"})
        assert first["ok"] and first["response"]["origin"] == "upstream", first
        assert ask({"kind": "detail", "id": "spoonacular:2002"})["response"]["origin"] == "cache", "cached again"
        assert worker.poll() is None
        socket.close()
    finally:
        processes.stop_all()
        upstream.terminate()
        upstream.wait(timeout=10)


def test_ready_fails_saying_why_while_the_disk_under_the_log_is_full_and_recovers_once_there_is_space(pantry_bin, small_disk):
    """Issue 45: `/ready` answered 200 while the disk was full and every write failed, so a
    balancer kept sending commands there. The core's heartbeat says why writes fail (seen every
    second, before any command fails) and `/ready` answers 503 with it, then 200 once there is room."""
    from pantry_processes import start_core_and_api

    subprocess.run(["mount", "-o", "remount,size=48m", str(small_disk)], check=True)
    data = small_disk / "data"
    data.mkdir()
    processes = Processes(pantry_bin, data)
    try:
        api = start_core_and_api(processes)
        _, token = api.register_and_log_in("cook")
        filler = fill(small_disk)

        def not_ready_because_full():
            answer = api.get("/ready", timeout=5)
            return answer if answer.status == 503 and "full" in answer.json["detail"] else None

        answer = wait_for(not_ready_because_full, timeout=10, what="/ready to say the disk is full")
        assert answer.json["code"] == "not_ready"
        assert "core: writes to the log fail: the disk holding the log is full" in answer.json["detail"], answer.json
        # A small append may still fit in blocks the WAL already has; a failing one says so.
        added = api.post("/v1/me/groceries", {"ingredient": "eggs"}, token=token, headers={"Idempotency-Key": "eggs-1"})
        assert added.status == 201 or (added.status == 503 and added.json["code"] == "storage_error"), added

        filler.unlink()
        wait_for(api.ready, timeout=10, what="/ready once there is space")
        assert api.post("/v1/me/groceries", {"ingredient": "eggs"}, token=token,
                        headers={"Idempotency-Key": "eggs-1"}).status == 201
    finally:
        processes.stop_all()
