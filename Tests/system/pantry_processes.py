"""Real `pantry` processes for system tests."""
import os
import signal
import subprocess
import time


class Processes:
    """Real `pantry` processes on one data directory; all are stopped at the end of the test."""

    def __init__(self, pantry_bin, data):
        self.bin = pantry_bin
        self.data = data
        self.running = []

    def start(self, *args, env=None):
        log = open(self.data / f"{args[0]}-{args[-1]}-{len(self.running)}.log", "wb")
        process = subprocess.Popen([self.bin, *args, "--data", str(self.data)], stdout=log, stderr=log,
                                   env={**os.environ, **(env or {})})
        self.running.append(process)
        return process

    def run(self, *args, input=b"", timeout=120):
        return subprocess.run([self.bin, *args, "--data", str(self.data)], input=input,
                              capture_output=True, timeout=timeout)

    def stop_all(self):
        for process in self.running:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.running:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def wait_for(predicate, timeout=20.0, interval=0.05, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")
