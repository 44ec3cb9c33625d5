"""`pantry backup` of a deployment under load, `pantry restore` elsewhere: the restored log and
projections agree (`replay --verify`), and the workers catch up from their copies."""
import json
import subprocess

from pantry_processes import PROJECTIONS, Processes, start_core_and_api, wait_for


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
        done = restored.run("restore", str(backup))
        assert done.returncode == 0, done.stderr.decode()
        again = restored.run("restore", str(backup))
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
