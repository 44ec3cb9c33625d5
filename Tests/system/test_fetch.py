"""`pantry fetch` as a real process behind real ZeroMQ, calling a local server that speaks the
Spoonacular format through the real libcurl client."""
import calendar
import glob
import json
import pathlib
import random
import subprocess
import sys
import time
import urllib.request

import pytest
import zmq

from pantry_processes import wait_for

FAKE_UPSTREAM = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "fake_upstream.py"


@pytest.fixture
def upstream():
    server = subprocess.Popen([sys.executable, str(FAKE_UPSTREAM), "0"], stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline().split()[1])
    base = f"http://127.0.0.1:{port}"
    yield base
    server.terminate()
    server.wait(timeout=10)


def upstream_calls(base):
    with urllib.request.urlopen(f"{base}/_count", timeout=5) as response:
        return json.load(response)["total"]


def calls_in_flight(base):
    """Calls the stand-in has not answered yet: none once every call in the air has landed."""
    with urllib.request.urlopen(f"{base}/_count", timeout=5) as response:
        return json.load(response)["inFlight"]


class FetchWorker:
    def __init__(self, processes, upstream, quota, env=None):
        self.processes = processes
        self.env = {"PANTRY_SPOONACULAR_URL": upstream, "PANTRY_SPOONACULAR_KEY": "test-key",
                    "PANTRY_SPOONACULAR_DAILY_QUOTA": str(quota), "PANTRY_SPOONACULAR_RATE": "500",
                    "PANTRY_SPOONACULAR_BURST": "500", "PANTRY_FETCH_TIMEOUT": "2",
                    # The upstream's own answers, however loaded the machine: the fallback after
                    # 1 s is tested where it is meant.
                    "PANTRY_FETCH_FALLBACK_AFTER": "30", **(env or {})}
        self.start()

    def start(self):
        self.process = self.processes.start("fetch", env=self.env)
        # Popen returns once exec succeeded: a clock faked from the worker's start starts about here.
        self.started = time.time()
        wait_for(lambda: (self.processes.data / "fetch.sock").exists(), what="the fetch socket")
        self.socket = zmq.Context.instance().socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.RCVTIMEO, 15_000)
        self.socket.connect(f"ipc://{self.processes.data / 'fetch.sock'}")

    def restart(self):
        self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=10)
        (self.processes.data / "fetch.sock").unlink(missing_ok=True)
        self.start()

    def ask(self, *requests):
        for request in requests:
            self.socket.send(request if isinstance(request, bytes) else json.dumps(request).encode())
        return [json.loads(self.socket.recv()) for _ in requests]


def search(query):
    return {"kind": "search", "query": query, "offset": 0, "number": 5}


def test_quota_is_never_exceeded_and_survives_a_restart(processes, upstream):
    # 5 points buy four searches of 5 results (1.05 points each), not five.
    fetch = FetchWorker(processes, upstream, quota=5)
    answers = fetch.ask(*[search(f"soup {n}") for n in range(40)])
    served = [a for a in answers if a["ok"] and a["response"]["origin"] == "upstream"]
    refused = [a for a in answers if a not in served]
    assert len(served) == 4 and upstream_calls(upstream) == 4
    # The rest are answered from the catalog, saying when the quota resets.
    assert all(a["ok"] and a["response"]["origin"] == "fallback" and a["response"]["upstreamRetryAfterSeconds"] > 0
               for a in refused), refused[:3]

    # The same questions again come from the cache and cost nothing.
    cached = [a for a in fetch.ask(*[search(f"soup {n}") for n in range(40)]) if a["response"]["origin"] == "cache"]
    assert len(cached) == 4 and all(a["response"]["origin"] == "cache" for a in cached)
    assert upstream_calls(upstream) == 4

    fetch.restart()
    after_restart = fetch.ask(search("a new question")) + fetch.ask({"kind": "detail", "id": "spoonacular:31337"})
    assert after_restart[0]["ok"] and after_restart[0]["response"]["origin"] == "fallback"
    assert after_restart[1]["ok"] is False and after_restart[1]["error"]["error"] == "quotaExhausted"
    assert upstream_calls(upstream) == 4


def test_identical_concurrent_requests_make_one_upstream_call(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    answers = fetch.ask(*[{"kind": "detail", "id": "spoonacular:716429"}] * 100)
    assert all(a["ok"] for a in answers)
    assert upstream_calls(upstream) == 1


def test_bad_requests_get_a_clear_error_and_the_worker_keeps_serving(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    bad = [b"", b"not json", b"[]", json.dumps({"kind": "nope"}).encode(),
           json.dumps({"kind": "byIngredients", "ingredients": []}).encode(),
           json.dumps({"kind": "byIngredients", "ingredients": ["a", "b", "c", "d", "e", "f"]}).encode(),
           json.dumps({"kind": "random", "count": 100_000}).encode(),
           json.dumps({"kind": "image", "url": "file:///etc/passwd"}).encode()]
    for answer in fetch.ask(*bad):
        assert answer["ok"] is False and answer["error"]["error"] == "badRequest", answer
    assert fetch.ask({"kind": "random", "count": 2})[0]["ok"]


def test_a_failing_upstream_is_answered_from_the_cache_or_clearly_refused(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    question = {"kind": "autocomplete", "prefix": "tom", "number": 5}
    first = fetch.ask(question)[0]
    assert first["ok"] and first["response"]["origin"] == "upstream"
    urllib.request.urlopen(f"{upstream}/_mode?set=error500", timeout=5).read()
    cached = fetch.ask(question)[0]
    assert cached["ok"] and cached["response"]["origin"] in ("cache", "staleCache")
    assert cached["response"]["payload"] == first["response"]["payload"]
    # Nothing cached: random meals come from the catalog (no reset time: an outage has none), and a
    # recipe nobody has is clearly refused.
    # One at a time: the worker answers concurrent requests as each is done, in no set order.
    fallback, = fetch.ask({"kind": "random", "count": 3})
    down, = fetch.ask({"kind": "detail", "id": "spoonacular:424242"})
    assert fallback["ok"] and fallback["response"]["origin"] == "fallback", fallback
    assert "upstreamRetryAfterSeconds" not in fallback["response"] and len(fallback["response"]["payload"]["recipes"]) == 3
    assert down["ok"] is False and down["error"]["error"] == "upstreamUnavailable"


def test_a_second_fetch_worker_on_the_same_data_directory_is_refused(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    second = processes.run("fetch", timeout=30)
    assert second.returncode != 0
    assert b"another pantry process of this role runs on this data directory" in second.stderr, second.stderr
    assert (processes.data / "fetch.sock").exists(), "the first worker's socket file is left alone"
    assert fetch.ask({"kind": "random", "count": 1})[0]["ok"], "and the first worker still answers"


def persisted_used(processes):
    import sqlite3
    with sqlite3.connect(processes.data / "fetch.sqlite") as db:
        row = db.execute("SELECT used FROM limiter WHERE provider = 'spoonacular'").fetchone()
    return row[0] if row else 0


def set_mode(base, mode, options=""):
    urllib.request.urlopen(f"{base}/_mode?set={mode}{options}", timeout=5).read()


def test_a_kill_mid_burst_burns_only_the_calls_that_left(processes, upstream):
    fetch = FetchWorker(processes, upstream, quota=150)
    set_mode(upstream, "slow", "&delay=2")
    for n in range(40):
        fetch.socket.send(json.dumps({"kind": "detail", "id": f"spoonacular:{5000 + n}"}).encode())
    wait_for(lambda: upstream_calls(upstream) >= 2, what="two calls in the air")
    fetch.process.kill()
    fetch.process.wait(timeout=10)
    # At most the calls in the air (2 at once) are charged: not the 38 still waiting for a slot.
    assert upstream_calls(upstream) <= 2
    assert persisted_used(processes) <= 2
    set_mode(upstream, "normal")
    wait_for(lambda: calls_in_flight(upstream) == 0, what="the two killed calls to finish upstream")
    fetch.restart()
    assert fetch.ask({"kind": "detail", "id": "spoonacular:9999"})[0]["ok"]
    # Quiet again, the upstream's own count replaces the worst cases the kill left charged.
    assert persisted_used(processes) <= 3


def test_after_a_402_no_further_call_leaves(processes, upstream):
    set_mode(upstream, "normal", "&quota=5&quota_left=5")
    fetch = FetchWorker(processes, upstream, quota=150)
    answers = fetch.ask(*[{"kind": "detail", "id": f"spoonacular:{6000 + n}"} for n in range(30)])
    served = [a for a in answers if a["ok"]]
    assert len(served) == 5, "the upstream's own quota: 5 points"
    # One call learns of the spent quota (402); the ones already in the air may be answered 402
    # too, but none leaves after that.
    assert upstream_calls(upstream) <= 5 + 2
    refused = [a["error"] for a in answers if not a["ok"]]
    assert all(e["error"] == "quotaExhausted" for e in refused), [e for e in refused if e["error"] != "quotaExhausted"]
    before = upstream_calls(upstream)
    assert fetch.ask({"kind": "detail", "id": "spoonacular:7000"})[0]["error"]["error"] == "quotaExhausted"
    assert upstream_calls(upstream) == before


def test_too_many_calls_at_once_are_held_to_the_upstreams_limit(processes, upstream):
    set_mode(upstream, "slow", "&delay=0.5")
    fetch = FetchWorker(processes, upstream, quota=150)
    answers = fetch.ask(*[{"kind": "detail", "id": f"spoonacular:{8000 + n}"} for n in range(6)])
    assert all(a["ok"] for a in answers), answers
    with urllib.request.urlopen(f"{upstream}/_count", timeout=5) as response:
        counts = json.load(response)
    assert counts["total"] == 6 and counts["tooManyAtOnce"] == 0, "never more than 2 calls at once"


CATALOG_SOURCE = pathlib.Path(__file__).resolve().parents[2] / ".cache" / "catalog" / "recipes_en-us.json"


def as_the_api_asks(request, n):
    """A request as the API sends it: who asks (one of 50 addresses) and the 19 s it waits."""
    return {**request, "client": f"10.0.0.{n % 50}", "deadlineMs": 19_000}


def test_a_burst_right_after_a_restart_is_answered_well_within_the_apis_wait_without_a_failure(processes, upstream):
    # The 3,129 imported recipes: the fallback index over them takes a tenth of a second to build,
    # and every waiting request once built its own (350 new requests then ran into the 20 s deadline).
    # Its time is a benchmark's (1-3 s on a quiet machine, 3.6 s with three tests at a time beside
    # it); here, far from the API's 19 s, and the cache hits ahead of the rest.
    if not CATALOG_SOURCE.exists():
        pytest.fail(f"{CATALOG_SOURCE} is missing: ops/setup downloads it")
    imported = processes.run("catalog", "import", "--source", str(CATALOG_SOURCE))
    assert imported.returncode == 0 and json.loads(imported.stdout)["recipes"] >= 3000, imported.stderr
    fetch = FetchWorker(processes, upstream, quota=1000, env={"PANTRY_FETCH_TIMEOUT": "10"})
    cached = [{"kind": "detail", "id": f"spoonacular:{30000 + n}"} for n in range(100)]
    expired = [search(f"stew {n}") for n in range(50)]
    # 152.5 points, charged by the stand-in, fill the cache.
    set_mode(upstream, "normal", "&quota=1000")
    # The warm-up is the set-up, not the test: when a loaded machine answered some otherwise (once,
    # with three tests at a time), all are asked again: the cached ones come from the cache.
    for _ in range(3):
        warm = fetch.ask(*cached[:50]) + fetch.ask(*cached[50:]) + fetch.ask(*expired)
        missed = [a["response"]["origin"] if a["ok"] else a["error"] for a in warm
                  if not (a["ok"] and a["response"]["origin"] in ("upstream", "cache"))]
        if not missed:
            break
        print(f"warm-up: {len(missed)} answers not from the upstream, asked again: {missed[:3]}")
    assert not missed, missed[:3]
    fetch.socket.close()
    fetch.process.terminate()
    fetch.process.wait(timeout=10)
    import sqlite3
    with sqlite3.connect(processes.data / "fetch.sqlite") as db:
        changed = db.execute("UPDATE cache SET storedAt = storedAt - 2 * 86400 WHERE kind = 'search'").rowcount
    assert changed == 50
    (processes.data / "fetch.sock").unlink(missing_ok=True)

    fetch.env["PANTRY_FETCH_FALLBACK_AFTER"] = "1"  # the default
    fetch.start()
    # New questions of every kind a catalog can answer when the upstream cannot be asked.
    new = [search(f"chicken {n}") if n % 3 == 0 else
           {"kind": "byIngredients", "ingredients": ["egg", f"tomato {n}"], "number": 5} if n % 3 == 1 else
           {"kind": "autocomplete", "prefix": f"to{n}", "number": 5} for n in range(350)]
    burst = [as_the_api_asks(r, n) for n, r in enumerate(cached + expired + new)]
    random.Random(34).shuffle(burst)
    started = time.monotonic()
    for request in burst:
        fetch.socket.send(json.dumps(request).encode())
    answers, arrived = [], []
    for _ in burst:
        answers.append(json.loads(fetch.socket.recv()))
        arrived.append(time.monotonic() - started)
    elapsed = time.monotonic() - started
    # Cache hits not yet remembered waited 0.9-2.9 s behind the burst.
    cache_hits = [t for a, t in zip(answers, arrived) if a["ok"] and a["response"]["origin"] == "cache"]
    upstream_count = json.load(urllib.request.urlopen(f"{upstream}/_count", timeout=5))
    print(f"500 requests right after a restart: {elapsed:.2f} s, origins "
          f"{ {o: sum(1 for a in answers if a['ok'] and a['response']['origin'] == o) for o in ('cache', 'staleCache', 'upstream', 'fallback')} }, "
          f"failures {[a['error']['error'] for a in answers if not a['ok']][:5]}, upstream used {upstream_count['used']}, "
          f"last cache hit {max(cache_hits, default=0):.2f} s")
    assert all(a["ok"] for a in answers), [a["error"] for a in answers if not a["ok"]][:5]
    assert sum(1 for a in answers if a["ok"] and a["response"]["origin"] in ("cache", "staleCache", "upstream")) >= 150
    assert elapsed < 10, f"{elapsed:.2f} s"
    # Within a second, or in the burst's first half on a busy machine.
    assert len(cache_hits) == 100 and max(cache_hits) < max(1, elapsed / 2), \
        f"the last cache hit after {max(cache_hits):.2f} of {elapsed:.2f} s"


def test_against_a_5_s_upstream_under_a_tenth_of_the_charged_calls_are_abandoned(processes, upstream):
    # 20 clients asking one after another, as the API asks (19 s to wait): calls were made with
    # about 2 s to live, abandoned by libcurl and charged all the same (36 of 44, 82 %).
    # The budgets per client and overall raised: every call the quota allows is tried.
    fetch = FetchWorker(processes, upstream, quota=150, env={"PANTRY_FETCH_TIMEOUT": "10", "PANTRY_FETCH_CLIENT_BURST": "100",
                                                             "PANTRY_FETCH_OVERALL_PER_HOUR": "100000",
                                                             "PANTRY_FETCH_FALLBACK_AFTER": "1"})
    set_mode(upstream, "slow", "&delay=5")
    clients = []
    for c in range(20):
        socket = zmq.Context.instance().socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.RCVTIMEO, 25_000)
        socket.connect(f"ipc://{processes.data / 'fetch.sock'}")
        clients.append(socket)
    answers, late = [], []
    # Two rounds: the stand-in answers two calls at once, 5 s each, so each round is about 15 s;
    # a third (18 calls charged rather than 12) tolerated no more abandoned calls (one) than two do.
    for round in range(2):
        asked = time.monotonic()
        for c, socket in enumerate(clients):
            request = search(f"soup {c} {round}") if c % 2 else {"kind": "detail", "id": f"spoonacular:{50000 + 100 * round + c}"}
            socket.send(json.dumps(as_the_api_asks(request, c)).encode())
        for socket in clients:
            answers.append(json.loads(socket.recv()))
            late.append(time.monotonic() - asked)
    wait_for(lambda: calls_in_flight(upstream) == 0, timeout=15, what="the calls still in the air to land")
    for socket in clients:
        socket.close()
    counts = json.load(urllib.request.urlopen(f"{upstream}/_count", timeout=5))
    charged = counts["total"]
    fallbacks = [a for a in answers if a["ok"] and a["response"]["origin"] == "fallback"]
    print(f"5 s upstream, 20 clients x 2: {charged} calls charged, {counts['abandoned']} abandoned, "
          f"{counts['tooManyAtOnce']} over the two-at-once limit; {len(fallbacks)} fallbacks, "
          f"slowest answer {max(late):.1f} s")
    assert charged > 0
    assert counts["abandoned"] / charged < 0.1
    assert counts["tooManyAtOnce"] == 0
    # A search nothing cached answered is given the catalog's answer within about a second, marked.
    searches = [a for n, a in enumerate(answers) if (n % 20) % 2]
    assert sum(1 for a in searches if a["ok"] and a["response"]["origin"] == "fallback") >= len(searches) // 2


def test_a_trickling_answer_gets_the_fallback_at_its_promised_time(processes, upstream):
    # The head at once, the body over 8 s: it held the caller until the transfer ended (10 s at
    # the 10 s timeout), for a catalog answer that was due after 1 s.
    fetch = FetchWorker(processes, upstream, quota=150, env={"PANTRY_FETCH_TIMEOUT": "10", "PANTRY_FETCH_FALLBACK_AFTER": "1"})
    set_mode(upstream, "trickle", "&delay=8")
    asked = time.monotonic()
    answer, = fetch.ask(as_the_api_asks(search("broth 17"), 0))
    took = time.monotonic() - asked
    assert answer["ok"] and answer["response"]["origin"] == "fallback", answer
    assert took < 1.5, f"{took:.2f} s"
    assert upstream_calls(upstream) == 1, "the call was made, and is still trickling"


def test_250_concurrent_new_searches_are_each_answered_within_2_s(processes, upstream):
    # The free plan's pace (1 call/s, 2 at once) against a 5 s upstream: most callers are refused
    # a call at once, a few wait for theirs; each gets the catalog's answer by 1 s (it was p50
    # 3.6 s, and the last 15.6 s, waiting for calls the catalog had nothing to replace).
    fetch = FetchWorker(processes, upstream, quota=150, env={
        "PANTRY_FETCH_TIMEOUT": "10", "PANTRY_FETCH_FALLBACK_AFTER": "1",
        "PANTRY_SPOONACULAR_RATE": "1", "PANTRY_SPOONACULAR_BURST": "2"})
    set_mode(upstream, "slow", "&delay=5")
    started = time.monotonic()
    for n in range(250):
        fetch.socket.send(json.dumps(as_the_api_asks(search(f"broth {n}"), n)).encode())
    answers, arrived = [], []
    for _ in range(250):
        answers.append(json.loads(fetch.socket.recv()))
        arrived.append(time.monotonic() - started)
    arrived.sort()
    print(f"250 new searches at once: p50 {arrived[125]:.2f} s, p99 {arrived[247]:.2f} s, last {arrived[-1]:.2f} s")
    assert all(a["ok"] and a["response"]["origin"] == "fallback" for a in answers), [a for a in answers if not a["ok"]][:3]
    assert arrived[-1] < 2, f"the last answer after {arrived[-1]:.2f} s"


def test_a_call_holds_its_slot_until_it_ends_not_until_its_callers_deadline(processes, upstream):
    # Two callers wait 2 s for a 3 s upstream; a third, who waits 19 s for a recipe only the
    # upstream has (no fallback ends its wait), queues for a slot. The two transfers were cut at
    # their callers' 2 s, their slots freed, and the third call left while the upstream still
    # worked on both: three at once where the limit is 2.
    fetch = FetchWorker(processes, upstream, quota=150, env={
        "PANTRY_FETCH_TIMEOUT": "10", "PANTRY_FETCH_FALLBACK_AFTER": "1", "PANTRY_FETCH_CLIENT_BURST": "100",
        "PANTRY_FETCH_OVERALL_PER_HOUR": "100000"})
    set_mode(upstream, "slow", "&delay=3")
    for n in range(2):
        fetch.socket.send(json.dumps({**search(f"stew {n}"), "client": "10.0.0.1", "deadlineMs": 2_000}).encode())
    wait_for(lambda: upstream_calls(upstream) == 2, what="two calls in the air")
    fetch.socket.send(json.dumps(as_the_api_asks({"kind": "detail", "id": "spoonacular:4242"}, 2)).encode())
    answers = [json.loads(fetch.socket.recv()) for _ in range(3)]
    assert all(a["ok"] for a in answers), answers
    assert upstream_calls(upstream) == 3
    counts = json.load(urllib.request.urlopen(f"{upstream}/_count", timeout=5))
    assert counts["tooManyAtOnce"] == 0, f"{counts['tooManyAtOnce']} calls over the two-at-once limit"
    assert counts["abandoned"] == 0, "no transfer was cut before the upstream answered"


def test_the_catalogs_answers_say_they_are_the_catalogs(processes, upstream):
    # They said "upstream", as if the recipe service had been asked.
    fetch = FetchWorker(processes, upstream, quota=150, env={"PANTRY_PROVIDER": "catalog"})
    answers = fetch.ask(search("soup"))
    answers += fetch.ask({"kind": "autocomplete", "prefix": "tom", "number": 5})
    answers += fetch.ask({"kind": "detail", "id": "catalog:shakshuka"})
    assert all(a["ok"] and a["response"]["origin"] == "catalog" and a["response"]["provider"] == "catalog"
               for a in answers), answers
    assert upstream_calls(upstream) == 0


def test_no_upstreams_name_path_or_key_reaches_a_caller(processes, upstream):
    # "mealdb sent malformed JSON for lookup.php" was what a caller read.
    fetch = FetchWorker(processes, upstream, quota=150, env={"PANTRY_MEALDB_URL": f"{upstream}/mealdb/api/json/v1/1"})
    told = []
    for mode in ("malformed", "error500"):
        set_mode(upstream, mode)
        for request in ({"kind": "detail", "id": "mealdb:52999"}, {"kind": "detail", "id": "spoonacular:424242"}):
            told += fetch.ask(request)
    assert all(not a["ok"] and a["error"]["error"] == "upstreamUnavailable" for a in told), told
    for answer in told:
        text = json.dumps(answer["error"]).lower()
        assert not any(word in text for word in ("mealdb", "spoonacular", ".php", "/recipes", "apikey", "pantry_")), text
    assert upstream_calls(upstream) == 4
    # The worker's log keeps what the operator needs.
    log = b"".join(path.read_bytes() for path in processes.data.glob("fetch-*.log"))
    assert b"malformed upstream answer" in log and b"lookup.php" in log


def rss_mib(pid):
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1]) / 1024


# What the fetch worker may hold, however hostile its upstream (a debug build): 63 MiB at the start,
# 66 after 2,000 hostile answers, flat after the first 700. Before bodies were mapped apart from the
# heap it went from 126 to 160 MiB (to 172 in a full run beside other processes), and the second
# 500 grew by 17 MiB in a CI run. The growth over the second 500 is what tells a leak.
HOSTILE_RSS_BOUND_MIB = 128


def test_the_fetch_workers_memory_stays_bounded_over_1000_hostile_answers(processes, upstream):
    # Bodies of 64 MiB and gzip that inflates to 256 MiB: each transfer stops at the body limit,
    # and what it held is given back (the worker grew from 85 to 129 MiB over one run of them).
    fetch = FetchWorker(processes, upstream, quota=100_000)
    assert fetch.ask({"kind": "detail", "id": "spoonacular:1"})[0]["ok"]
    start = rss_mib(fetch.process.pid)
    samples = []
    for wave in range(20):
        set_mode(upstream, "gzipbomb" if wave % 2 else "huge")
        answers = fetch.ask(*[{"kind": "detail", "id": f"spoonacular:{100_000 + 50 * wave + n}"} for n in range(50)])
        assert all(not a["ok"] and a["error"]["error"] == "upstreamUnavailable" for a in answers), answers[:2]
        samples.append(rss_mib(fetch.process.pid))
    print(f"fetch worker RSS over 1,000 hostile answers: {start:.0f} MiB at the start, "
          f"{samples[9]:.0f} after 500, {samples[-1]:.0f} after 1,000, at most {max(samples):.0f}")
    assert upstream_calls(upstream) == 1001
    assert max(samples) < HOSTILE_RSS_BOUND_MIB, samples
    assert samples[-1] - samples[9] < 8, f"still growing over the second 500: {samples}"


# libfaketime moves the worker's wall clock (Foundation's Date, CLOCK_REALTIME: the UTC day and the
# quota's midnight) to just before midnight and runs it 10 times as fast, so the 60 s probe after a
# 402 takes 6 s. Its monotonic clock (ContinuousClock and curl: timeouts, latency) stays real.
FAKETIME_LIB = next(iter(sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1"))), None)
MIDNIGHT = calendar.timegm((2026, 11, 28, 0, 0, 0))
SPEED = 10
# The stand-in's day resets 20 s of the worker's clock (2 s real) after the worker's midnight.
UPSTREAM_LATE = 20


class WorkerClock:
    """The fetch worker's faked wall clock, started at 23:59:10 UTC as it was exec'd."""
    START = MIDNIGHT - 50

    def __init__(self, started):
        # libfaketime starts the clock as it is loaded, just after exec: on a loaded machine the
        # worker's clock may lag this one by tens of ms (tenths of its seconds), hence calls at
        # 00:00:02 below rather than the 00:00:00.1.
        self.started = started

    def real(self, fake):
        return self.started + (fake - self.START) / SPEED

    def sleep_until(self, fake):
        time.sleep(max(0.0, self.real(fake) - time.time()))


def midnight_worker(processes, upstream):
    assert FAKETIME_LIB, "libfaketime is missing: ops/setup installs the faketime package"
    env = {"LD_PRELOAD": FAKETIME_LIB, "FAKETIME": "@2026-11-27 23:59:10 x%d" % SPEED,
           "FAKETIME_DONT_FAKE_MONOTONIC": "1",
           # Set, so that libfaketime (0.9.10) replaces it with its shared clock's names rather than
           # adding it as it loads: a variable added then left pantry without its arguments (it
           # printed its help). `faketime` sets it up before the exec, but does not pass SIGTERM on.
           "FAKETIME_SHARED": "unset unset"}
    fetch = FetchWorker(processes, upstream, quota=150, env=env)
    fetch.clock = WorkerClock(fetch.started)
    assert time.time() < fetch.clock.real(MIDNIGHT - 10), "the worker was not ready well before its midnight"
    return fetch


def upstream_used(base):
    with urllib.request.urlopen(f"{base}/_count", timeout=5) as response:
        return json.load(response)["used"]


def persisted_day_and_used(processes):
    import sqlite3
    with sqlite3.connect(processes.data / "fetch.sqlite") as db:
        return db.execute("SELECT day, used FROM limiter WHERE provider = 'spoonacular'").fetchone()


def test_a_402_just_past_midnight_with_the_old_days_count_is_probed_again_rather_than_blocking_the_new_day(
        processes, upstream):
    fetch = midnight_worker(processes, upstream)
    # The upstream's day is spent (150 of 150) until its own midnight, 20 s after the worker's.
    set_mode(upstream, "normal", f"&quota=150&quota_left=0&day_ends={fetch.clock.real(MIDNIGHT + UPSTREAM_LATE)}")

    fetch.clock.sleep_until(MIDNIGHT + 2)
    spent, = fetch.ask(search("soup"))
    assert upstream_calls(upstream) == 1
    # The 402 says `X-API-Quota-Used: 150`, of the upstream's old day: a probe in a minute, not
    # "retry in 86,398 s" (the rest of the day).
    assert spent["ok"] and spent["response"]["origin"] == "fallback", spent
    assert 0 < spent["response"]["upstreamRetryAfterSeconds"] <= 60, spent
    blocked, = fetch.ask(search("stew"))
    assert blocked["response"]["origin"] == "fallback" and upstream_calls(upstream) == 1, "no call before the probe"

    fetch.clock.sleep_until(MIDNIGHT + 63)
    probe, = fetch.ask(search("broth"))
    assert probe["ok"] and probe["response"]["origin"] == "upstream", probe
    assert upstream_calls(upstream) == 2
    assert persisted_day_and_used(processes) == ("2026-11-28", upstream_used(upstream))


def test_a_200_just_past_midnight_with_the_old_days_count_does_not_become_the_new_days_count(processes, upstream):
    fetch = midnight_worker(processes, upstream)
    # 145.3 of 150 used on the upstream's day, which ends 20 s after the worker's.
    set_mode(upstream, "normal", f"&quota=150&quota_left=4.7&day_ends={fetch.clock.real(MIDNIGHT + UPSTREAM_LATE)}")

    fetch.clock.sleep_until(MIDNIGHT + 2)
    old_day, = fetch.ask(search("soup"))
    assert old_day["ok"] and old_day["response"]["origin"] == "upstream", old_day
    assert upstream_used(upstream) == 146.35, "answered with the upstream's old day's count"
    # The worker's new day holds only what it sent since its midnight (a search of 5: 1.05 at most).
    assert persisted_day_and_used(processes) == ("2026-11-28", 1.05)

    fetch.clock.sleep_until(MIDNIGHT + UPSTREAM_LATE + 10)
    new_day = fetch.ask(*[search(f"stew {n}") for n in range(6)])
    # Taken as the new day's, 146.35 would have left room for three of these.
    assert all(a["ok"] and a["response"]["origin"] == "upstream" for a in new_day), new_day
    assert upstream_used(upstream) == 6.3
    assert persisted_day_and_used(processes) == ("2026-11-28", 6.3), "the upstream's own count of the new day"


def test_a_402_before_the_upstreams_own_midnight_is_retried_at_its_reset(processes, upstream):
    # The worker's clock 5 s ahead of the upstream's: its call at 00:00:00.7 was the upstream's
    # 23:59:55.7, answered 402; it then blocked until 00:01:00.6 (a probe after a minute), while
    # the upstream reset at its midnight, the worker's 00:00:05, and every answer between was a fallback.
    fetch = midnight_worker(processes, upstream)
    worker_now = WorkerClock.START + (time.time() - fetch.clock.started) * SPEED
    set_mode(upstream, "normal", f"&quota=150&quota_left=0&clock={worker_now - 5}&speed={SPEED}&day_ends={MIDNIGHT}")

    fetch.clock.sleep_until(MIDNIGHT + 0.7)
    spent, = fetch.ask(search("soup"))
    assert spent["ok"] and spent["response"]["origin"] == "fallback", spent
    assert upstream_calls(upstream) == 1
    # A new question every second of the worker's clock (a tenth of a real one) until the upstream answers one.
    answered_at = None
    for n in range(1, 25):
        fetch.clock.sleep_until(MIDNIGHT + 0.7 + n)
        asked_at = MIDNIGHT + 0.7 + n
        answer, = fetch.ask(search(f"stew {n}"))
        assert answer["ok"], answer
        if answer["response"]["origin"] == "upstream":
            answered_at = asked_at
            break
    assert answered_at is not None, "no upstream answer within 19 s of the upstream's midnight"
    # The upstream's midnight is the worker's 00:00:05.
    assert answered_at - (MIDNIGHT + 5) < 10, f"answered {answered_at - MIDNIGHT - 5:.1f} s after the upstream's reset"
    assert upstream_calls(upstream) == 2, "the 402, then the call at the reset: none before it"
