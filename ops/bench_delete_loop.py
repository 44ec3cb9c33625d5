"""A client registering and deleting accounts in a loop against a running core (a pair every 50 ms,
each its own batch): the core's CPU time and the snapshots it wrote meanwhile. Runs on a copy of
--base, a data directory with a log (`pantry-bench log --events 300000 --users 100000 --data BASE`).
Usage: .venv/bin/python ops/bench_delete_loop.py --bin PANTRY --base BASE [--seconds 70] [--label L]"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time

HASH = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--base", required=True)
    parser.add_argument("--seconds", type=float, default=70)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pantry-delete-loop-") as scratch:
        data = os.path.join(scratch, "data")
        shutil.copytree(args.base, data)
        stderr_path = os.path.join(scratch, "core.stderr")
        env = dict(os.environ, PANTRY_DATA=data, PANTRY_LOG_LEVEL="info")

        def log():
            with open(stderr_path) as f:
                return f.read()

        with open(stderr_path, "w") as stderr:
            core = subprocess.Popen([args.bin, "core"], env=env, stderr=stderr, stdout=subprocess.DEVNULL)

        def cpu_seconds():
            with open(f"/proc/{core.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        while "core serving" not in log():
            time.sleep(0.1)
        time.sleep(8)  # the start's own snapshot and the read of the logged command ids
        cpu_before, snapshots_before = cpu_seconds(), log().count("wrote the core snapshot")
        submit = subprocess.Popen([args.bin, "submit"], env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        pairs, started = 0, time.monotonic()
        while time.monotonic() - started < args.seconds:
            user = f"loop{pairs}"
            for command in ({"commandId": f"reg-{user}", "type": "RegisterUser", "data": {
                                "userId": user, "username": user, "email": f"{user}@example.org", "passwordHash": HASH}},
                            {"commandId": f"del-{user}", "type": "DeleteUser", "data": {"userId": user}}):
                submit.stdin.write(json.dumps(command) + "\n")
                submit.stdin.flush()
            pairs += 1
            time.sleep(0.05)
        submit.stdin.close()
        submit.wait()
        time.sleep(1)
        cpu_after, snapshots_after = cpu_seconds(), log().count("wrote the core snapshot")
        core.terminate()
        core.wait()
    print(json.dumps({"label": args.label, "seconds": args.seconds, "deletions": pairs,
                      "core_cpu_seconds": round(cpu_after - cpu_before, 2),
                      "snapshots_written": snapshots_after - snapshots_before, "load": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
