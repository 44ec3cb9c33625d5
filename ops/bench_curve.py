"""The cost of CURVE on the command path: one `pantry core` per mode with its command socket on
loopback tcp, plain (`--insecure-network`) and with CURVE keys (the core's from `pantry keys`, the
client's listed as an API host's), driven by a pyzmq DEALER: sequential round trips (latency) and
pipelined requests (throughput). The command is rejected (`unknown_command`) without touching the
log, so the figure is the socket path alone. Prints one JSON document.

    .venv/bin/python ops/bench_curve.py PANTRY_BIN [--round-trips N] [--pipelined N]"""
import argparse
import json
import os
import socket as sockets
import statistics
import subprocess
import tempfile
import time

import zmq


def free_port():
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def measure(pantry, mode, round_trips, pipelined):
    with tempfile.TemporaryDirectory() as data:
        ports = [free_port() for _ in range(3)]
        env = {**os.environ, "PANTRY_LOG_LEVEL": "warning", "PANTRY_CORE_COMMANDS": f"tcp://127.0.0.1:{ports[0]}",
               "PANTRY_CORE_EVENTS": f"tcp://127.0.0.1:{ports[1]}", "PANTRY_CORE_LOG": f"tcp://127.0.0.1:{ports[2]}"}
        client = zmq.Context.instance().socket(zmq.DEALER)
        client.linger = 0
        if mode == "plain":
            env["PANTRY_INSECURE_NETWORK"] = "true"
        else:
            subprocess.run([pantry, "keys", "--data", data, "--role", "core", "--host", "127.0.0.1", "--name", "core"],
                           check=True, capture_output=True)
            public, secret = zmq.curve_keypair()
            with open(os.path.join(data, "keys", "api.public"), "w") as file:
                file.write(f"name = api\nrole = api\nhosts =\npublic-key = {public.decode()}\n")
            core_key = next(line.split(" = ", 1)[1].strip() for line in open(os.path.join(data, "keys", "core.public"))
                            if line.startswith("public-key"))
            client.curve_serverkey, client.curve_publickey, client.curve_secretkey = core_key.encode(), public, secret
        core = subprocess.Popen([pantry, "core", "--data", data], env=env)
        try:
            client.connect(env["PANTRY_CORE_COMMANDS"])
            request = json.dumps({"commandId": "bench", "type": "NoSuchCommand", "data": {}}).encode()
            client.rcvtimeo = 30_000
            client.send(request)
            client.recv()  # the core is up and the handshake done
            latencies = []
            for _ in range(round_trips):
                started = time.perf_counter()
                client.send(request)
                client.recv()
                latencies.append((time.perf_counter() - started) * 1e6)
            started = time.perf_counter()
            for _ in range(pipelined):
                client.send(request)
            for _ in range(pipelined):
                client.recv()
            seconds = time.perf_counter() - started
        finally:
            core.terminate()
            core.wait(timeout=30)
            client.close()
        latencies.sort()
        return {"mode": mode, "roundTrips": round_trips, "p50Microseconds": round(statistics.median(latencies), 1),
                "p99Microseconds": round(latencies[int(len(latencies) * 0.99)], 1),
                "pipelined": pipelined, "requestsPerSecond": round(pipelined / seconds)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pantry")
    parser.add_argument("--round-trips", type=int, default=5000)
    parser.add_argument("--pipelined", type=int, default=50000)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    # Alternated, so that the machine's load falls on both modes alike.
    runs = [measure(arguments.pantry, mode, arguments.round_trips, arguments.pipelined)
            for _ in range(arguments.runs) for mode in ("plain", "curve")]
    print(json.dumps({"runs": runs}, indent=1))


if __name__ == "__main__":
    main()
