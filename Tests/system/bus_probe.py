"""An attacker's (or an operator's) probe of the internal sockets, run on one host: for each probe
given as JSON in argv[1] (endpoint, socket kind "dealer" or "sub", a request to send, CURVE keys or
none) a pyzmq socket connects, and its monitor says how the handshake ended (libzmq reports a
refused one at once: ZMQ_EVENT_HANDSHAKE_FAILED_AUTH for a key ZAP refused, _PROTOCOL for a socket
with no key at all), then whatever arrives within 0.3 s is counted. One probe at a time, so each is timed alone. Prints a JSON list."""
import json
import sys
import time

import zmq
from zmq.utils.monitor import recv_monitor_message

OUTCOMES = {zmq.EVENT_HANDSHAKE_SUCCEEDED: "succeeded", zmq.EVENT_HANDSHAKE_FAILED_AUTH: "refused by ZAP",
            zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL: "failed: mechanism mismatch",
            zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL: "failed: closed by the server"}


def start(context, probe):
    socket = context.socket(zmq.SUB if probe["kind"] == "sub" else zmq.DEALER)
    socket.linger = 0
    if probe.get("keys"):
        socket.curve_serverkey = probe["keys"]["server"].encode()
        socket.curve_publickey = probe["keys"]["public"].encode()
        socket.curve_secretkey = probe["keys"]["secret"].encode()
    monitor = socket.get_monitor_socket(sum(OUTCOMES))
    socket.connect(probe["endpoint"])
    if probe["kind"] == "sub":
        socket.subscribe(b"")
    else:
        socket.send(probe["request"].encode())
    return socket, monitor


def main():
    context = zmq.Context()
    results = []
    for probe in json.loads(sys.argv[1]):
        began = time.monotonic()
        socket, monitor = start(context, probe)
        outcome, value = "no handshake within 5 s", None
        deadline = began + 5
        while time.monotonic() < deadline and monitor.poll(max(1, int((deadline - time.monotonic()) * 1000))):
            event = recv_monitor_message(monitor)
            if event["event"] in OUTCOMES:
                outcome, value = OUTCOMES[event["event"]], event["value"]
                break
        seconds = time.monotonic() - began
        received = []
        while socket.poll(300):
            received.append([frame.decode(errors="replace")[:200] for frame in socket.recv_multipart()])
        results.append({**{k: v for k, v in probe.items() if k != "keys"}, "outcome": outcome, "value": value,
                        "seconds": round(seconds, 3), "received": received})
        socket.close()
        monitor.close()
    context.term()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
