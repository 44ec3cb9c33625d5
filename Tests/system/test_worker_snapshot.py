"""A worker on a new host (an empty data directory) starts from a recent snapshot of its projection,
served in chunks by the core's log service, instead of folding the whole log; a snapshot that fails
a check is refused and the worker folds from zero. Real processes: the core, a worker on the core's
host that leaves the copies, and fresh workers that read the log only through the log service."""
import hashlib
import json
import shutil
import signal
import pathlib
import sqlite3

import jsonschema
import zmq

from pantry_processes import HASH, Processes, mixed_command, register, wait_for

ROOT = pathlib.Path(__file__).resolve().parents[2]
USERS = 40
# Points are earned at the benchmarks' pace: the history holds many of them.
ENV = {"PANTRY_POINTS_PACE": "1000000/0.001", "PANTRY_WORKER_SNAPSHOT_SECONDS": "1"}


def ask(endpoint, document, timeout=30_000):
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, timeout)
    socket.connect(endpoint)
    try:
        socket.send(json.dumps(document).encode())
        return json.loads(socket.recv())
    finally:
        socket.close()


def submit(processes, commands):
    result = processes.run("submit", input="\n".join(json.dumps(c) for c in commands).encode(), timeout=300)
    outcomes = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert len(outcomes) == len(commands), result.stderr.decode()[-2000:]
    return max(p for o in outcomes for p in o.get("positions", [0]))


def head(processes):
    return ask(f"ipc://{processes.data}/core-log.sock", {"read": "head"})["head"]


def start_core(processes):
    """The core, once it serves: a `pantry submit` before that would write the log itself and hold
    the writer's lock the core needs."""
    core = processes.start("core", env=ENV)
    wait_for(lambda: (processes.data / "core-commands.sock").exists() and (processes.data / "core-log.sock").exists(),
             timeout=60, what="the core to serve")
    head(processes)
    return core


def manifest(processes):
    path = processes.data / "snapshots" / "leaderboard.json"
    return json.loads(path.read_text()) if path.exists() else None


def stop(process):
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0


def history_with_a_snapshot(processes, extra=600):
    """The core, a leaderboard worker on its host that leaves a snapshot at the head, then `extra`
    more commands after the worker stopped: returns (snapshot's position, head)."""
    start_core(processes)
    local = processes.start("worker", "leaderboard", env=ENV)
    submit(processes, [register(n) for n in range(USERS)] + [mixed_command(n, USERS) for n in range(6_000)])
    first = head(processes)
    wait_for(lambda: (m := manifest(processes)) and m["position"] == first, timeout=60, what="a snapshot at the head")
    stop(local)
    submit(processes, [mixed_command(n, USERS) for n in range(6_000, 6_000 + extra)])
    return first, head(processes)


def fresh_worker(processes, tmp_path, name):
    """A leaderboard worker on an empty directory that reads the log only through the log service."""
    host = Processes(processes.bin, tmp_path / name)
    host.data.mkdir()
    endpoint = f"ipc://{host.data}/leaderboard-queries.sock"
    host.start("worker", "--log-service", f"ipc://{processes.data}/core-log.sock", "leaderboard",
               env={**ENV, "PANTRY_CORE_EVENTS": f"ipc://{processes.data}/core-events.sock"})
    return host, endpoint


def log_of(host):
    return "\n".join(path.read_text() for path in host.data.glob("worker-*.log"))


def top(endpoint, at):
    answer = ask(endpoint, {"query": "top", "limit": 100, "after": at, "wait": 10_000})
    assert "result" in answer, answer
    return answer["result"]


def verified_by_a_replay(processes, host):
    """The fresh worker's file equals a replay of the whole log (`replay --verify` on a copy)."""
    projections = processes.data / "projections"
    for file in projections.glob("leaderboard.sqlite*"):
        file.unlink()
    for file in (host.data / "projections").glob("leaderboard.sqlite*"):
        shutil.copy(file, projections / file.name)
    result = processes.run("replay", "--verify", "leaderboard")
    assert result.returncode == 0 and ": same at position" in result.stdout.decode(), result.stdout.decode() + result.stderr.decode()


def downloaded(processes, chunk_check):
    """The newest snapshot of the leaderboard read from the log service with pyzmq alone, each
    header checked by `chunk_check`: (the first header, the bytes)."""
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 30_000)
    socket.connect(f"ipc://{processes.data}/core-log.sock")
    first, data = None, b""
    try:
        while first is None or len(data) < first["size"]:
            socket.send(json.dumps({"read": "snapshot", "projection": "leaderboard",
                                    "position": first["position"] if first else 0, "offset": len(data)}).encode())
            header, piece = socket.recv_multipart()
            header = json.loads(header)
            chunk_check(header)
            assert header["offset"] == len(data) and header["bytes"] == len(piece) > 0, header
            first = first or header
            data += piece
    finally:
        socket.close()
    return first, data


def test_a_worker_on_an_empty_directory_starts_from_the_log_services_snapshot_and_answers_as_a_replay(processes, tmp_path):
    snapshot, last = history_with_a_snapshot(processes)
    assert 0 < snapshot < last
    # What the service sends is what the schema says, and the bytes are the copy the manifest describes.
    schema = json.loads((ROOT / "schemas" / "bus" / "snapshot-answer.schema.json").read_text())
    jsonschema.Draft202012Validator({**schema["$defs"]["manifest"]}).validate(manifest(processes))
    header, data = downloaded(processes, jsonschema.Draft202012Validator(schema).validate)
    assert header["position"] == snapshot and hashlib.sha256(data).hexdigest() == header["sha256"] == manifest(processes)["sha256"]
    host, endpoint = fresh_worker(processes, tmp_path, "new-host")
    try:
        answer = top(endpoint, last)
        status = ask(endpoint, {"query": "status", "after": last})
        # It did not fold from zero: it fetched the copy at `snapshot` and read only what came after.
        assert f"projection fetched from the log service" in log_of(host) and f"position={snapshot}" in log_of(host), log_of(host)
        assert 0 < status["result"]["eventsReadFromLog"] <= last - snapshot, status
        # The worker on the core's host, restarted, folds its own file to the head: the same answers.
        local = processes.start("worker", "leaderboard", env=ENV)
        # The same standings as the worker that folded; the top lists only cooks with points.
        assert top(f"ipc://{processes.data}/leaderboard-queries.sock", last) == answer
        assert len(answer) >= USERS // 2 and all(entry["points"] > 0 for entry in answer), answer
        stop(local)
    finally:
        host.stop_all()
    verified_by_a_replay(processes, host)


def corrupt_file(snapshots, m):
    path = snapshots / f"leaderboard-{m['position']}.sqlite"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def truncate_file(snapshots, m):
    path = snapshots / f"leaderboard-{m['position']}.sqlite"
    path.write_bytes(path.read_bytes()[: m["size"] // 2])


def edit_manifest(**changes):
    def edit(snapshots, m):
        (snapshots / "leaderboard.json").write_text(json.dumps({**m, **changes}))
    return edit


def moved_beyond_the_log(snapshots, m):
    """The manifest and its file claim a position the log has not reached."""
    position = m["position"] + 100_000
    (snapshots / f"leaderboard-{m['position']}.sqlite").rename(snapshots / f"leaderboard-{position}.sqlite")
    edit_manifest(position=position)(snapshots, m)


def another_checkpoint_inside(snapshots, m):
    """A file whose own checkpoint is not the manifest's, with a manifest that matches its bytes."""
    path = snapshots / f"leaderboard-{m['position']}.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE checkpoint SET position = position - 1")
    db.close()
    data = path.read_bytes()
    edit_manifest(size=len(data), sha256=hashlib.sha256(data).hexdigest())(snapshots, m)


def test_a_corrupt_partial_old_or_future_snapshot_is_refused_with_a_log_line_and_the_worker_folds_from_zero(processes, tmp_path):
    snapshot, last = history_with_a_snapshot(processes, extra=60)
    snapshots = processes.data / "snapshots"
    original = {p.name: p.read_bytes() for p in snapshots.iterdir()}
    m = manifest(processes)
    cases = {
        "a flipped byte": (corrupt_file, "SHA-256"),
        "half the file": (truncate_file, "does not continue"),
        "another layout": (edit_manifest(layout=m["layout"] + 1), "layout"),
        "a position beyond the log": (moved_beyond_the_log, "not within the log"),
        "a file whose checkpoint is not the manifest's": (another_checkpoint_inside, "the manifest says"),
    }
    reference = None
    for n, (what, (damage, reason)) in enumerate(cases.items()):
        for path in snapshots.iterdir():
            path.unlink()
        for name, content in original.items():
            (snapshots / name).write_bytes(content)
        damage(snapshots, m)
        host, endpoint = fresh_worker(processes, tmp_path, f"host-{n}")
        try:
            answer = top(endpoint, last)
            status = ask(endpoint, {"query": "status"})
        finally:
            host.stop_all()
        log = log_of(host)
        assert "snapshot refused; folding the log from 0" in log and reason in log, (what, log)
        assert "projection fetched" not in log, what
        # It folded the whole log, and nothing of the refused copy was left behind.
        assert status["result"]["eventsReadFromLog"] > last - snapshot, (what, status)
        assert not list((host.data / "projections").glob("*.fetching")), what
        reference = reference or answer
        assert answer == reference and len(answer) >= USERS // 2, what


def test_a_snapshot_left_for_the_log_service_never_holds_a_person_deleted_before_it(processes, tmp_path):
    start_core(processes)
    local = processes.start("worker", "leaderboard", env=ENV)
    erased = {"commandId": "reg-erased", "type": "RegisterUser",
              "data": {"userId": "u-erased", "username": "erasable-cook", "email": "erasable@example.org", "passwordHash": HASH}}
    registered = submit(processes, [erased] + [register(n) for n in range(USERS)])
    wait_for(lambda: (m := manifest(processes)) and m["position"] >= registered, timeout=60, what="a snapshot with the user")
    snapshots = processes.data / "snapshots"
    assert any(b"erasable-cook" in p.read_bytes() for p in snapshots.glob("leaderboard-*.sqlite"))
    deleted = submit(processes, [{"commandId": "del-erased", "type": "DeleteUser", "data": {"userId": "u-erased"}}])
    ask(f"ipc://{processes.data}/leaderboard-queries.sock", {"query": "status", "after": deleted, "wait": 10_000})
    # From the moment the worker applied the deletion, no copy older than it is kept or served.
    m = manifest(processes)
    assert m is None or m["position"] >= deleted, m
    assert not any(b"erasable-cook" in p.read_bytes() for p in snapshots.iterdir() if p.is_file())
    wait_for(lambda: (m := manifest(processes)) and m["position"] >= deleted, timeout=60, what="a snapshot after the deletion")
    assert not any(b"erasable-cook" in p.read_bytes() for p in snapshots.iterdir() if p.is_file())
    stop(local)
    host, endpoint = fresh_worker(processes, tmp_path, "new-host")
    try:
        names = [entry["username"] for entry in top(endpoint, deleted)]
        assert "projection fetched from the log service" in log_of(host)
    finally:
        host.stop_all()
    assert "erasable-cook" not in names
    assert not any(b"erasable-cook" in p.read_bytes() for p in (host.data / "projections").rglob("*") if p.is_file())
