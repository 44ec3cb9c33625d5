"""`ops/run`'s Procfile under honcho, as an operator runs it: a process that dies is started again
(`ops/keep-running`) while the others keep serving, and a stop still stops them all."""
import os
import pathlib
import signal
import subprocess

from pantry_processes import APIClient, free_port, wait_for

ROOT = pathlib.Path(__file__).resolve().parents[2]
ROLES = {"core", "worker leaderboard", "worker carts", "worker favourites", "worker groceries",
         "worker experiences", "fetch", "api"}


def pantry_processes(pantry_bin, data):
    """{role: pid} of the `pantry` processes (not their wrappers) running on `data`."""
    found = {}
    for proc in pathlib.Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().decode().split("\0")
        except (OSError, ValueError):
            continue
        if argv[0] == pantry_bin and str(data) in argv:
            found[" ".join(argv[1:3]) if argv[1] == "worker" else argv[1]] = int(proc.name)
    return found


def restarted(pantry_bin, data, role, old_pid):
    pid = pantry_processes(pantry_bin, data).get(role)
    return pid if pid not in (None, old_pid) else None


def test_a_process_killed_under_the_procfile_is_started_again_and_the_others_keep_serving(pantry_bin, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    port = free_port()
    env = {**os.environ, "PANTRY_BIN": pantry_bin, "PANTRY_DATA": str(data), "PANTRY_PORT": str(port)}
    with open(tmp_path / "honcho.log", "wb") as log:
        honcho = subprocess.Popen([str(ROOT / ".venv" / "bin" / "honcho"), "start", "-f", "Procfile"], cwd=ROOT,
                                  env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    api = APIClient(port)
    try:
        wait_for(api.ready, timeout=90, what="every process ready")
        before = pantry_processes(pantry_bin, data)
        assert set(before) == ROLES, before
        _, token = api.register_and_log_in("ravi")

        # A worker killed outright comes back; no other process was stopped.
        os.kill(before["worker carts"], signal.SIGKILL)
        carts = wait_for(lambda: restarted(pantry_bin, data, "worker carts", before["worker carts"]),
                         timeout=30, what="the carts worker started again")
        assert honcho.poll() is None
        now = pantry_processes(pantry_bin, data)
        assert {role: pid for role, pid in now.items() if role != "worker carts"} == \
               {role: pid for role, pid in before.items() if role != "worker carts"}
        added = api.post("/v1/me/cart", {"recipeId": "catalog:shakshuka", "delta": 1}, token=token,
                         headers={"Idempotency-Key": "cart-after-restart"})
        assert added.status == 200, added
        cart = api.get(f"/v1/me/cart?after={added.json['position']}", token=token)
        assert cart.status == 200 and len(cart.json["result"]["lines"]) == 1, cart

        # So does the core, the single writer; the command it was asked while down is answered after.
        os.kill(before["core"], signal.SIGKILL)
        wait_for(lambda: restarted(pantry_bin, data, "core", before["core"]), timeout=30, what="the core started again")
        wait_for(api.ready, timeout=30, what="the API to see the core again")
        saved = api.put("/v1/me/favourites/catalog:shakshuka", token=token, headers={"Idempotency-Key": "fav-after-restart"})
        assert saved.status == 201, saved
        assert pantry_processes(pantry_bin, data)["worker carts"] == carts
        assert honcho.poll() is None
    finally:
        # Stopping honcho stops every process, restarting none.
        honcho.send_signal(signal.SIGTERM)
        honcho.wait(timeout=30)
    wait_for(lambda: not pantry_processes(pantry_bin, data), timeout=10, what="every process stopped")
    assert "starting it again" in (tmp_path / "honcho.log").read_text()
