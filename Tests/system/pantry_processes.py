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


HASH = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"
PROJECTIONS = ["leaderboard", "carts", "favourites", "groceries", "experiences"]


def register(n):
    return {"commandId": f"reg-{n}", "type": "RegisterUser",
            "data": {"userId": f"u{n}", "username": f"user{n}", "email": f"user{n}@example.org", "passwordHash": HASH}}


def mixed_command(n, users):
    """A deterministic mix touching every projection; some are rejected by the rules, on purpose."""
    user = f"u{n % users}"
    recipe = f"r{n % 17}"
    kind = n % 6
    if kind == 0:
        return {"commandId": f"m-{n}", "type": "UseOwnedIngredient",
                "data": {"userId": user, "recipeId": recipe, "ingredient": f"ingredient {n % 40}"}}
    if kind == 1:
        return {"commandId": f"m-{n}", "type": "AdjustCart",
                "data": {"userId": user, "recipeId": recipe, "title": f"Recipe {recipe}", "delta": 1 if n % 4 else -1}}
    if kind == 2:
        return {"commandId": f"m-{n}", "type": "SaveRecipe",
                "data": {"userId": user, "recipeId": recipe, "title": f"Soup number {n % 17}"}}
    if kind == 3:
        return {"commandId": f"m-{n}", "type": "AddGrocery",
                "data": {"userId": user, "ingredient": f"Item {n % 9}", "amount": n % 5, "unit": "g"}}
    if kind == 4:
        return {"commandId": f"m-{n}", "type": "CheckGrocery",
                "data": {"userId": user, "ingredient": f"item {n % 9}", "checked": n % 2 == 0}}
    return {"commandId": f"m-{n}", "type": "WriteExperience",
            "data": {"userId": user, "recipeId": recipe, "text": f"Tip {n}: less salt"}}
