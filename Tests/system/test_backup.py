"""`pantry backup` of a deployment under load, `pantry restore` elsewhere: the restored log and
projections agree (`replay --verify`), and the workers catch up from their copies. A backup taken
before someone's deletion, restored, does not bring them back (issue 32)."""
import json
import sqlite3
import subprocess

from pantry_processes import PROJECTIONS, Processes, files_holding, forms, start_core_and_api, wait_for

PASSWORD = "correct horse battery"
SHAKSHUKA = "catalog:shakshuka"


def test_a_backup_under_load_restores_to_an_equal_deployment(processes, pantry_bin, tmp_path):
    api = start_core_and_api(processes)
    load = subprocess.Popen([pantry_bin, "loadtest", "--url", api.url, "--users", "40", "--clients", "4",
                             "--duration", "6", "--seed", "3", "--output", str(tmp_path / "load.json"),
                             "--plot", str(tmp_path / "load.svg")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wait_for(lambda: json.loads(processes.run("stats", "--json").stdout)["head"] > 300, timeout=60, what="some load")
    backup = tmp_path / "backup"
    taken = processes.run("backup", str(backup))
    assert taken.returncode == 0, taken.stderr.decode()
    assert b"events.sqlite" in taken.stdout and b"user-keys.sqlite" in taken.stdout
    assert load.wait(timeout=120) == 0, "the load test's own check passes: the backup did not disturb it"
    refused = processes.run("backup", str(backup))
    assert refused.returncode != 0 and b"not empty" in refused.stderr

    restored = Processes(pantry_bin, tmp_path / "restored")
    (tmp_path / "restored").mkdir()
    try:
        # Nobody was deleted here: the backup's own ledger is the newest.
        done = restored.run("restore", str(backup), "--no-erasures")
        assert done.returncode == 0, done.stderr.decode()
        again = restored.run("restore", str(backup), "--no-erasures")
        assert again.returncode != 0, "never over an existing log"
        head = json.loads(restored.run("stats", "--json").stdout)["head"]
        assert head > 300
        verify = restored.run("replay", "--verify", timeout=300)
        assert verify.returncode == 0, verify.stdout.decode() + verify.stderr.decode()
        assert verify.stdout.decode().count(": same at position") == len(PROJECTIONS)
        # Started on the restored directory, the workers catch up to its head from their checkpoints.
        restored.start("core")
        for name in PROJECTIONS:
            restored.start("worker", name)

        def caught_up():
            report = json.loads(restored.run("status", "--json").stdout)
            return all(p.get("position") == head for p in report["processes"] if p["name"] in PROJECTIONS)
        wait_for(caught_up, timeout=60, what="the restored workers")
        points = json.loads(restored.run("stats", "--json").stdout)["byType"]["PointEarned"]
        after = restored.run("replay", "--verify", "leaderboard", timeout=300)
        assert after.returncode == 0 and points > 0
    finally:
        restored.stop_all()


def test_a_backup_restored_after_a_deletion_does_not_bring_the_person_back(processes, pantry_bin, tmp_path):
    api = start_core_and_api(processes)
    tip, item = "Bram's tip: toast the cumin first", "Insulin pens"
    registered = api.post("/v1/accounts", {"username": "bram-gone", "email": "bram.gone@example.org", "password": PASSWORD})
    assert registered.status == 201, registered
    user_id, token = registered.json["userId"], registered.json["token"]
    _, other = api.register_and_log_in("stays-on")
    assert api.post("/v1/me/groceries", {"ingredient": item}, token=token).status == 201
    assert api.post(f"/v1/recipes/{SHAKSHUKA}/experiences", {"text": tip}, token=token).status == 201
    for who in (token, other):
        api.start_cooking(SHAKSHUKA, who)
    for who, ingredient in [(token, "egg"), (token, "onion"), (other, "garlic")]:
        assert api.post("/v1/me/owned-ingredients", {"recipeId": SHAKSHUKA, "ingredient": ingredient}, token=who).status == 201
    head = json.loads(processes.run("stats", "--json").stdout)["head"]
    # The workers have applied everything: the backup's projections hold the person too.
    assert [t["text"] for t in api.get(f"/v1/recipes/{SHAKSHUKA}/experiences?after={head}").json["result"]] == [tip]
    before = tmp_path / "before-deletion"
    assert processes.run("backup", str(before)).returncode == 0
    with sqlite3.connect(f"file:{before / 'user-keys.sqlite'}?mode=ro", uri=True) as keys:
        user_key = keys.execute("SELECT key FROM user_keys WHERE user_id = ?", (user_id,)).fetchone()[0]

    assert api.request("DELETE", "/v1/me", {"password": PASSWORD}, token=token).status == 204
    processes.stop_all()

    restored = Processes(pantry_bin, tmp_path / "restored")
    (tmp_path / "restored").mkdir()
    try:
        bad = tmp_path / "not-a-ledger.tsv"
        bad.write_text("yesterday someone\n")
        refused = restored.run("restore", str(before), "--erasures", str(bad))
        assert refused.returncode != 0 and b"not an erasure ledger" in refused.stderr
        assert not (tmp_path / "restored" / "events.sqlite").exists(), "a bad ledger changes nothing"

        done = restored.run("restore", str(before), "--erasures", str(processes.data / "erased-users.tsv"))
        assert done.returncode == 0, done.stderr.decode()
        assert b"erased-users.tsv of " in done.stdout and b"keeps 1 people erased" in done.stdout, done.stdout.decode()
        assert b"1 erased people kept erased (1 deleted again" in done.stdout, done.stdout.decode()
        assert user_id in (tmp_path / "restored" / "erased-users.tsv").read_text()
        verify = restored.run("replay", "--verify", timeout=300)
        assert verify.returncode == 0, verify.stdout.decode() + verify.stderr.decode()

        api = start_core_and_api(restored)
        assert api.post("/v1/sessions", {"username": "bram-gone", "password": PASSWORD}).status == 401
        assert api.post("/v1/sessions", {"email": "bram.gone@example.org", "password": PASSWORD}).status == 401
        assert api.get("/v1/me", token=token).status == 401
        assert api.post("/v1/sessions", {"username": "stays-on", "password": PASSWORD}).status == 201
        head = json.loads(restored.run("stats", "--json").stdout)["head"]
        top = api.get(f"/v1/leaderboard?limit=100&after={head}").json["result"]
        assert [e["username"] for e in top] == ["stays-on"]
        assert api.get(f"/v1/recipes/{SHAKSHUKA}/experiences?after={head}").json["result"] == []
        restored.stop_all()
        written = set().union(*(forms(text) for text in [tip, item, "insulin pen", "bram.gone@example.org", "bram-gone"]))
        assert files_holding(tmp_path / "restored", written | {user_key}) == [], "no text, and no key in any file or WAL"
    finally:
        restored.stop_all()
