"""Issue 14: the API holds under abuse. Real processes on loopback; an attacker's address is
127.0.0.2 (the whole 127/8 reaches the API), the owner's 127.0.0.1."""
import concurrent.futures
import http.client
import json
import os
import stat
import subprocess
import time
import urllib.request

from pantry_processes import APIClient, free_port, start_core_and_api, wait_for

PASSWORD = "correct horse battery"


def post_from(address, port, path, body, forwarded_for=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
    headers = {"Content-Type": "application/json", **({"X-Forwarded-For": forwarded_for} if forwarded_for else {})}
    try:
        connection.request("POST", path, body=json.dumps(body).encode(), headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(response.read() or b"{}")
    finally:
        connection.close()


def test_a_stranger_cannot_lock_the_owner_out(processes):
    api = start_core_and_api(processes)
    api.register_and_log_in("owner")
    for _ in range(8):
        status, headers, body = post_from("127.0.0.2", api.port, "/v1/sessions", {"username": "OWNER", "password": "guess"})
        assert status in (401, 429), body
    # The attacker is slowed down ...
    status, headers, body = post_from("127.0.0.2", api.port, "/v1/sessions", {"username": "owner", "password": PASSWORD})
    assert status == 429 and body["code"] == "too_many_attempts" and int(headers["retry-after"]) >= 1
    # ... the owner, from their own address, is not.
    status, _, body = post_from("127.0.0.1", api.port, "/v1/sessions", {"username": "owner", "password": PASSWORD})
    assert status == 201, body


def test_log_ins_and_registrations_are_rate_limited_per_client_before_any_hashing(processes):
    # 0.1/s, a burst of 1: of 30 log-ins at once one is checked, the rest are refused (each refusal
    # held a second, the tarpit, in which a tenth of a token comes back).
    api = start_core_and_api(processes, env={"PANTRY_LOGIN_RATE_PER_CLIENT": "0.1", "PANTRY_LOGIN_RATE_OVERALL": "1000"})
    with concurrent.futures.ThreadPoolExecutor(max_workers=30) as pool:
        answers = list(pool.map(lambda n: post_from("127.0.0.3", api.port, "/v1/sessions",
                                                    {"username": f"spray{n}", "password": "x" * 8}), range(30)))
    limited = [a for a in answers if a[0] == 429]
    assert len(limited) >= 28, [a[0] for a in answers]
    assert all(a[2]["code"] == "rate_limited" and int(a[1]["retry-after"]) >= 1 for a in limited)
    with concurrent.futures.ThreadPoolExecutor(max_workers=5) as pool:
        registrations = list(pool.map(lambda n: post_from("127.0.0.3", api.port, "/v1/accounts",
                                                          {"username": f"spray{n}", "email": f"s{n}@example.org",
                                                           "password": PASSWORD}), range(5)))
    assert all(a[0] == 429 for a in registrations), "registrations share the client's budget"
    # Another client is not affected.
    status, _, _ = post_from("127.0.0.4", api.port, "/v1/sessions", {"username": "nobody", "password": "x" * 8})
    assert status == 401


def test_behind_a_trusted_proxy_limits_are_per_forwarded_client_and_nobody_else_can_forge_it(processes):
    # A budget of one attempt (refilled at one every 10 s): a client's first is answered, the next refused.
    api = start_core_and_api(processes, env={"PANTRY_LOGIN_RATE_PER_CLIENT": "0.1", "PANTRY_LOGIN_RATE_OVERALL": "1000",
                                             "PANTRY_TRUSTED_PROXIES": "127.0.0.5"})

    def code(source, forwarded_for):
        return post_from(source, api.port, "/v1/sessions", {"username": "nobody", "password": "x" * 8}, forwarded_for)[2]["code"]

    # The proxy's clients each have their own budget: the second's is whole although the first spent theirs.
    assert code("127.0.0.5", "203.0.113.7") == "invalid_credentials"
    assert code("127.0.0.5", "203.0.113.7") == "rate_limited"
    assert code("127.0.0.5", "198.51.100.1, 203.0.113.8") == "invalid_credentials"
    # A client that is not the proxy names another address in vain: its own budget is spent.
    assert code("127.0.0.6", "203.0.113.9") == "invalid_credentials"
    assert code("127.0.0.6", "203.0.113.10") == "rate_limited"


def test_a_flood_of_n_connections_gets_at_most_about_n_refusals_a_second(processes):
    """A refused log-in is held a second (the tarpit), without holding a thread: a client with N
    keep-alive connections sending back to back is refused about N times a second, not thousands
    of times (answered at once, 200 such clients made ~16,000 refusals/s on 2 cores). Meanwhile
    other requests are answered at once."""
    api = start_core_and_api(processes, env={"PANTRY_LOGIN_RATE_PER_CLIENT": "0.1", "PANTRY_LOGIN_RATE_OVERALL": "1000"})
    connections, seconds = 20, 3.0
    stop = time.monotonic() + seconds
    body = json.dumps({"username": "victim", "password": "guess"}).encode()

    def flood(_):
        statuses = []
        connection = http.client.HTTPConnection("127.0.0.1", api.port, timeout=30, source_address=("127.0.0.8", 0))
        try:
            while time.monotonic() < stop:
                started = time.monotonic()
                connection.request("POST", "/v1/sessions", body=body, headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                statuses.append((response.status, time.monotonic() - started))
        finally:
            connection.close()
        return statuses

    with concurrent.futures.ThreadPoolExecutor(max_workers=connections) as pool:
        running = [pool.submit(flood, n) for n in range(connections)]
        time.sleep(1)
        started = time.monotonic()
        health = api.get("/health")
        health_seconds = time.monotonic() - started
        answers = [answer for f in running for answer in f.result()]
    refused = [elapsed for status, elapsed in answers if status == 429]
    # Each connection: at most one refusal a second, plus the one in flight when the time ran out.
    assert len(refused) <= connections * (seconds + 1), f"{len(refused)} refusals from {connections} connections in {seconds} s"
    assert min(refused) >= 0.45 and sum(refused) / len(refused) >= 0.8, "a refusal is held a second on average"
    assert len(answers) - len(refused) <= 2, "one token, and a tenth of one a second"
    assert health.status == 200 and health_seconds < 0.5, "the held refusals hold no thread"


def test_a_log_in_flood_answers_busy_at_once_and_reads_keep_flowing(processes):
    api = start_core_and_api(processes, api_args=("--password-cost", "14"))
    _, token = api.register_and_log_in("reader")

    def wrong(n):
        started = time.monotonic()
        status, _, body = post_from(f"127.0.1.{n % 250 + 1}", api.port, "/v1/sessions",
                                    {"username": f"ghost{n}", "password": "wrong password"})
        return status, body.get("code"), time.monotonic() - started

    with concurrent.futures.ThreadPoolExecutor(max_workers=100) as pool:
        flood = [pool.submit(wrong, n) for n in range(200)]
        time.sleep(0.2)
        reads = []
        for _ in range(10):
            started = time.monotonic()
            answer = api.get("/v1/leaderboard/me", token=token)
            reads.append((answer.status, time.monotonic() - started))
        results = [f.result() for f in flood]
    busy = [r for r in results if r[0] == 503]
    assert busy and all(code == "busy" for _, code, _ in busy), "a full hashing queue answers 503 busy"
    assert all(status in (401, 503) for status, _, _ in results)
    assert max(seconds for status, _, seconds in busy) < 2, "busy is answered at once, not after waiting"
    assert all(status == 200 for status, _ in reads)
    assert max(seconds for _, seconds in reads) < 2, f"reads stalled behind the flood: {reads}"


def send_from(address, port, method, path, body, token=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    try:
        connection.request(method, path, body=json.dumps(body).encode(), headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}").get("code")
    finally:
        connection.close()


def test_password_checks_outside_log_in_are_throttled_like_log_ins(processes):
    # The default per-client limit (2/s, burst 20): the flood below comes from one address.
    api = start_core_and_api(processes, env={"PANTRY_LOGIN_RATE_PER_CLIENT": "2"})
    _, token = api.register_and_log_in("victim")

    # A stolen token guessing the password from many addresses, by changing it or deleting the
    # account: five free guesses, then one more at doubling intervals; the rest refused unhashed.
    def guess(n):
        if n % 2:
            return send_from(f"127.0.2.{n + 1}", api.port, "DELETE", "/v1/me", {"password": f"guess {n}"}, token)
        return send_from(f"127.0.2.{n + 1}", api.port, "PUT", "/v1/me/password",
                         {"currentPassword": f"guess {n}", "newPassword": "attacker password"}, token)

    with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
        guesses = list(pool.map(guess, range(60)))
    hashed = [g for g in guesses if g == (403, "wrong_password")]
    assert 5 <= len(hashed) <= 8, guesses
    assert all(g in ((403, "wrong_password"), (429, "too_many_attempts")) for g in guesses), guesses

    # A flood of password checks from one address, beside honest log-ins from fresh addresses.
    status, _, body = post_from("127.0.0.21", api.port, "/v1/accounts",
                                {"username": "flooder", "email": "flooder@example.org", "password": PASSWORD})
    assert status == 201, body
    flooder = body["token"]
    routes = [("PUT", "/v1/me/password", {"currentPassword": "wrong password", "newPassword": "whatever password"}),
              ("DELETE", "/v1/me", {"password": "wrong password"})]
    honest = [f"honest{n}" for n in range(20)]
    for n, name in enumerate(honest):
        assert post_from(f"127.0.4.{n + 1}", api.port, "/v1/accounts",
                         {"username": name, "email": f"{name}@example.org", "password": PASSWORD})[0] == 201
    with concurrent.futures.ThreadPoolExecutor(max_workers=60) as pool:
        flood = [pool.submit(send_from, "127.0.0.20", api.port, *routes[n % 2], flooder) for n in range(200)]
        time.sleep(0.3)
        log_ins = list(pool.map(lambda n: post_from(f"127.0.3.{n + 1}", api.port, "/v1/sessions",
                                                    {"username": honest[n], "password": PASSWORD})[0], range(20)))
        answers = [f.result() for f in flood]
    checked = [a for a in answers if a[0] == 403]
    assert len(checked) <= 25, f"{len(checked)} of the flood's password checks were hashed"
    assert all(a[0] in (403, 429, 503) for a in answers), answers
    assert {code for status, code in answers if status == 429} <= {"rate_limited", "too_many_attempts"}
    assert log_ins.count(201) >= 19, log_ins


def test_a_log_in_flood_from_many_addresses_leaves_honest_log_ins_a_place(processes):
    # The default limits; 50 addresses, two connections each, send wrong log-ins for 8 s.
    api = start_core_and_api(processes, env={"PANTRY_LOGIN_RATE_PER_CLIENT": "2", "PANTRY_LOGIN_RATE_OVERALL": "100"},
                             api_args=("--password-cost", "14"))
    honest = [f"cook{n}" for n in range(9)]
    for n, name in enumerate(honest):
        assert post_from(f"127.0.8.{n + 1}", api.port, "/v1/accounts",
                         {"username": name, "email": f"{name}@example.org", "password": PASSWORD})[0] == 201
    stop = time.monotonic() + 8

    def flood(n):
        answers = []
        while time.monotonic() < stop:
            answers.append(post_from(f"127.0.7.{n % 50 + 1}", api.port, "/v1/sessions",
                                     {"username": f"ghost{n}", "password": "wrong password"})[0])
        return answers

    with concurrent.futures.ThreadPoolExecutor(max_workers=110) as pool:
        flooding = [pool.submit(flood, n) for n in range(100)]
        time.sleep(1.5)
        log_ins = list(pool.map(lambda n: post_from(f"127.0.9.{n + 1}", api.port, "/v1/sessions",
                                                    {"username": honest[n], "password": PASSWORD})[0], range(9)))
        flooded = [status for f in flooding for status in f.result()]
    assert 401 in flooded and set(flooded) <= {401, 429, 503}, set(flooded)
    assert log_ins.count(201) >= 8, log_ins


def test_a_200_address_log_in_flood_leaves_honest_log_ins_from_known_devices_through(processes):
    """Issue 45: 200 addresses flooding log-ins left 8 of 20 honest log-ins, mostly refused by the
    overall limiter. A device token from an earlier log-in (OWASP's device cookie) takes a lane of
    its own: production limits and password cost, 200 addresses for 8 s, 20 returning cooks."""
    api = start_core_and_api(processes, env={"PANTRY_LOGIN_RATE_PER_CLIENT": "2", "PANTRY_LOGIN_RATE_OVERALL": "100"},
                             api_args=("--password-cost", "14"))
    cooks = [f"known{n}" for n in range(20)]
    devices = []
    for n, name in enumerate(cooks):
        address = f"127.0.8.{n + 1}"
        assert post_from(address, api.port, "/v1/accounts",
                         {"username": name, "email": f"{name}@example.org", "password": PASSWORD})[0] == 201
        status, headers, body = post_from(address, api.port, "/v1/sessions", {"username": name, "password": PASSWORD})
        assert status == 201 and body["deviceToken"] and "HttpOnly" in headers["set-cookie"], (status, headers, body)
        devices.append(body["deviceToken"])
    stop = time.monotonic() + 8

    def flood(n):
        answers = []
        while time.monotonic() < stop:
            answers.append(post_from(f"127.0.{7 - n // 250}.{n % 250 + 1}", api.port, "/v1/sessions",
                                     {"username": f"ghost{n}", "password": "wrong password"})[0])
        return answers

    def returning(n):
        connection = http.client.HTTPConnection("127.0.0.1", api.port, timeout=30, source_address=(f"127.0.9.{n + 1}", 0))
        try:
            connection.request("POST", "/v1/sessions", body=json.dumps({"username": cooks[n], "password": PASSWORD}).encode(),
                               headers={"Content-Type": "application/json", "X-Pantry-Device": devices[n]})
            response = connection.getresponse()
            response.read()
            return response.status
        finally:
            connection.close()

    with concurrent.futures.ThreadPoolExecutor(max_workers=230) as pool:
        flooding = [pool.submit(flood, n) for n in range(200)]
        time.sleep(1.5)
        log_ins = list(pool.map(returning, range(20)))
        flooded = [status for f in flooding for status in f.result()]
    assert 429 in flooded and set(flooded) <= {401, 429, 503}, set(flooded)
    assert log_ins.count(201) >= 19, log_ins


def test_the_data_directory_and_its_files_are_owner_only_whatever_the_umask(pantry_bin, tmp_path):
    data = tmp_path / "data"
    port = free_port()
    # With mail: the outbox (mail-outbox.sqlite) and a message waiting in it are owner-only too.
    env = {**os.environ, "PANTRY_LOG_LEVEL": "warning", "PANTRY_SMTP_URL": "smtp://127.0.0.1:9"}
    started = [subprocess.Popen([pantry_bin, *args, "--data", str(data)], env=env, preexec_fn=lambda: os.umask(0o022),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for args in [["core"], ["worker", "leaderboard"], ["fetch"], ["api", "--port", str(port)]]]
    try:
        api = APIClient(port)
        wait_for(lambda: api.get("/health").status == 200 if _up(port) else False, what="the API")
        assert api.post("/v1/accounts", {"username": "perm", "email": "perm@example.org", "password": PASSWORD}).status == 201
        assert api.post("/v1/password-resets", {"email": "perm@example.org"}).status == 202
        assert (data / "mail-outbox.sqlite").exists()
        assert stat.S_IMODE(os.stat(data).st_mode) == 0o700
        for path in data.rglob("*"):
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            assert mode & 0o077 == 0, f"{path} is {oct(mode)}"
    finally:
        for process in started:
            process.terminate()
            process.wait(timeout=10)


def _up(port):
    try:
        http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
        return True
    except OSError:
        return False


def closed_within(sock, seconds):
    """True when the server closes `sock` within `seconds` (reading gives EOF or a reset)."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_slowloris_idle_and_excess_connections_are_closed(processes):
    import socket
    api = start_core_and_api(processes, env={"PANTRY_HEADER_TIMEOUT": "2", "PANTRY_IDLE_TIMEOUT": "3",
                                             "PANTRY_MAX_CONNECTIONS": "40"})
    # Slowloris: a head trickled a byte at a time never completes, and is cut off.
    slow = socket.create_connection(("127.0.0.1", api.port))
    started = time.monotonic()
    closed = False
    for byte in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
        try:
            slow.send(bytes([byte]))
        except OSError:
            closed = True
            break
        if closed_within(slow, 0.3):
            closed = True
            break
    assert closed, "a trickled head is cut off"
    assert time.monotonic() - started < 6, "after the header timeout (2 s here), not when the client gives up"
    # A keep-alive connection left idle is closed.
    idle = socket.create_connection(("127.0.0.1", api.port))
    idle.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert idle.recv(4096).startswith(b"HTTP/1.1 200")
    assert closed_within(idle, 6), "an idle connection is closed"
    # More connections than the cap: the excess are closed on arrival, and the API still answers.
    # Which ten are refused depends on the order the event loops take them, so the whole crowd is
    # counted, well before its header timeout (2 s) closes the rest.
    crowd = [socket.create_connection(("127.0.0.1", api.port)) for _ in range(50)]
    time.sleep(0.5)
    refused = sum(closed_within(s, 0.01) for s in crowd)
    assert refused >= 10, f"at most 40 open at once, but {50 - refused} of 50 are"
    for s in crowd:
        s.close()

    def healthy():
        # Until the server has seen the crowd's closes, a new connection may still be over the cap.
        try:
            return api.get("/health").status == 200
        except OSError:
            return False
    wait_for(healthy, what="the API after the crowd left")


def test_idle_connections_from_a_few_addresses_leave_other_clients_served(processes):
    import select
    import socket
    # The kept connections outlive the test: under a load of 12, opening 4,100 took past the 10 s
    # header timeout, which closed 52 of the kept ones and looked like a cap below 256.
    api = start_core_and_api(processes, env={"PANTRY_HEADER_TIMEOUT": "120"})
    idle = []
    try:
        for n in range(4100):
            sock = socket.socket()
            sock.bind((f"127.0.5.{n % 4 + 1}", 0))
            sock.connect(("127.0.0.1", api.port))
            idle.append(sock)
        answers = [get_from(f"127.0.6.{n + 1}", api.port, "/health")[0] for n in range(130)]
        assert answers == [200] * 130, answers
        # Each idle address keeps at most its 256; the server closed the rest on arrival.
        poller = select.epoll()
        for sock in idle:
            poller.register(sock.fileno(), select.EPOLLIN | select.EPOLLRDHUP)
        deadline, closed = time.monotonic() + 5, set()
        while len(closed) < 4100 - 4 * 256 and time.monotonic() < deadline:
            closed.update(fd for fd, _ in poller.poll(0.5))
        poller.close()
        assert 4100 - 4 * 256 <= len(closed) < 4100 - 4 * 200, len(closed)
    finally:
        for sock in idle:
            sock.close()


def test_idle_connections_from_20_addresses_each_under_its_cap_leave_a_normal_client_served(processes):
    """Issue 45: 20 addresses x 215 idle connections, each address under its cap of 256, took the
    4,096 slots, and a normal client got 0 answers of 50. Near the cap each new connection now
    closes an idle one of the address holding the most, first one that never completed a request."""
    import socket
    # Held open the whole test (a flood renews them faster than the 10 s header timeout closes them).
    api = start_core_and_api(processes, env={"PANTRY_HEADER_TIMEOUT": "120"})
    idle = []
    try:
        for n in range(20 * 215):
            sock = socket.socket()
            sock.bind((f"127.0.10.{n % 20 + 1}", 0))
            sock.connect(("127.0.0.1", api.port))
            idle.append(sock)
        time.sleep(0.5)  # every one of them counted
        answers = []
        for n in range(50):
            try:
                answers.append(get_from("127.0.11.1", api.port, "/health")[0])
            except OSError as error:
                answers.append(repr(error))
        print(f"\n20 x 215 idle connections: a normal client got {answers.count(200)} of 50 answers")
        assert answers.count(200) >= 48, answers
    finally:
        for sock in idle:
            sock.close()


def test_a_connection_past_the_per_address_cap_is_answered_with_retry_after(processes):
    # It was closed on arrival: a burst from one address lost its requests to resets, with no
    # status to tell a limit from a crash.
    import socket
    api = start_core_and_api(processes)
    idle = []
    try:
        for _ in range(256):
            sock = socket.socket()
            sock.bind(("127.0.7.1", 0))
            sock.connect(("127.0.0.1", api.port))
            idle.append(sock)
        time.sleep(0.5)  # every one of them counted
        connection = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10, source_address=("127.0.7.1", 0))
        try:
            connection.request("GET", "/health")
            response = connection.getresponse()
            status, retry_after, problem = response.status, response.getheader("Retry-After"), json.loads(response.read())
        finally:
            connection.close()
        assert status == 429 and retry_after == "1" and problem["code"] == "too_many_connections", (status, problem)
        assert get_from("127.0.7.2", api.port, "/health")[0] == 200, "another address is served"
    finally:
        for sock in idle:
            sock.close()


def test_errors_do_not_name_internal_sockets(processes):
    api = start_core_and_api(processes)
    _, token = api.register_and_log_in("sockets")
    core = processes.running[0]
    core.kill()
    core.wait(timeout=10)
    answer = api.put("/v1/me/favourites/catalog:shakshuka", token=token)
    assert answer.status == 503
    assert b"ipc://" not in answer.body and b".sock" not in answer.body
    # The core may have written the command before it stopped answering: the answer says so, and
    # that only a retry with the same key is safe.
    assert "may have been written" in answer.json["detail"] and "same Idempotency-Key" in answer.json["detail"]


def get_from(address, port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


def test_one_client_cannot_spend_everyones_upstream_quota(processes):
    import pathlib
    import sys
    fake = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "fake_upstream.py"
    upstream = subprocess.Popen([sys.executable, str(fake), "0"], stdout=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{upstream.stdout.readline().split()[1]}"
        api = start_core_and_api(processes, fetch_env={
            "PANTRY_SPOONACULAR_URL": base, "PANTRY_SPOONACULAR_KEY": "k", "PANTRY_SPOONACULAR_RATE": "1000",
            "PANTRY_SPOONACULAR_BURST": "1000", "PANTRY_FETCH_CLIENT_BURST": "5", "PANTRY_FETCH_CLIENT_PER_HOUR": "1"})
        junk = [get_from("127.0.0.5", api.port, f"/v1/recipes/search?query=junk{n}") for n in range(10)]
        assert [status for status, _ in junk[:5]] == [200] * 5
        # Past its share the client is answered from the catalog, and cannot cause an upstream call.
        calls = json.loads(urllib.request.urlopen(f"{base}/_count", timeout=5).read())["total"]
        assert calls == 5
        fallback = junk[5:]
        assert all(status == 200 and body["origin"] == "fallback" and body["upstreamRetryAfterSeconds"] > 0
                   for status, body in fallback), fallback
        status, body = get_from("127.0.0.5", api.port, "/v1/recipes/spoonacular:424242")
        assert status == 429 and body["code"] == "upstream_budget_exhausted", body
        # Another user still reaches the upstream, and the first one's cached answers are still served.
        assert get_from("127.0.0.6", api.port, "/v1/recipes/search?query=soup")[0] == 200
        assert get_from("127.0.0.5", api.port, "/v1/recipes/search?query=junk0")[0] == 200
    finally:
        upstream.terminate()
        upstream.wait(timeout=10)


def test_upstream_budgets_are_per_account_and_overall(processes):
    import pathlib
    import sys
    fake = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "fake_upstream.py"
    upstream = subprocess.Popen([sys.executable, str(fake), "0"], stdout=subprocess.PIPE, text=True)

    def search(address, query, token=None):
        connection = http.client.HTTPConnection("127.0.0.1", api.port, timeout=30, source_address=(address, 0))
        try:
            connection.request("GET", f"/v1/recipes/search?query={query}",
                               headers={"Authorization": f"Bearer {token}"} if token else {})
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    try:
        base = f"http://127.0.0.1:{upstream.stdout.readline().split()[1]}"
        api = start_core_and_api(processes, fetch_env={
            "PANTRY_SPOONACULAR_URL": base, "PANTRY_SPOONACULAR_KEY": "k", "PANTRY_SPOONACULAR_RATE": "1000",
            "PANTRY_SPOONACULAR_BURST": "1000", "PANTRY_FETCH_CLIENT_BURST": "3", "PANTRY_FETCH_CLIENT_PER_HOUR": "1",
            "PANTRY_FETCH_OVERALL_PER_HOUR": "60"})
        _, token = api.register_and_log_in("spender")

        def calls():
            return json.loads(urllib.request.urlopen(f"{base}/_count", timeout=5).read())["total"]

        # A signed-in user's share is the account's, from whatever address it asks.
        mine = [search(f"127.0.10.{n % 2 + 1}", f"mine{n}", token) for n in range(5)]
        assert calls() == 3 and all(status == 200 for status, _ in mine), mine
        assert [body["origin"] for _, body in mine[3:]] == ["fallback", "fallback"]
        # Everyone's share (60 an hour, 6 at once): ten fresh addresses get 3 more calls between them.
        theirs = [search(f"127.0.11.{n + 1}", f"theirs{n}") for n in range(10)]
        assert calls() == 6, theirs
        assert all(status == 200 for status, _ in theirs)
        assert [body["origin"] for _, body in theirs].count("fallback") == 7
        # A newcomer refused for everyone's share is told so, not that it asked too much.
        status, body = get_from("127.0.11.99", api.port, "/v1/recipes/spoonacular:424242")
        assert status == 429 and body["code"] == "upstream_budget_exhausted", body
        assert "you have asked" not in body["detail"] and "all clients together" in body["detail"], body
    finally:
        upstream.terminate()
        upstream.wait(timeout=10)


def test_requests_the_parser_refuses_and_unserved_methods_get_problem_documents(processes):
    """Errors raised before routing are problem documents too (they were an empty 400, or a 500
    with an error log for bad bytes in a chunked body), and nothing is logged as an error."""
    import socket
    api = start_core_and_api(processes)

    def raw(request):
        with socket.create_connection(("127.0.0.1", api.port), timeout=5) as s:
            s.sendall(request)
            answer = b""
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        return int(head.split()[1]), head.decode(), json.loads(body)

    cases = [
        (b"GARBAGE\r\n\r\n", 400, "malformed_request"),
        (b"GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: bogus\r\n\r\n", 400, "malformed_request"),
        (b"POST /v1/accounts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
         400, "malformed_request"),
        (b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n", 431, "headers_too_large"),
        (b"TRACE /health HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"),
    ]
    for request, status, code in cases:
        got, head, problem = raw(request)
        assert (got, problem["code"]) == (status, code), (request[:40], head, problem)
        assert "application/problem+json" in head and problem["status"] == status
    assert api.get("/health").status == 200
    logs = b"".join(path.read_bytes() for path in processes.data.glob("api-*.log"))
    assert b" error " not in logs, logs.decode()[-2000:]


def test_images_are_relayed_only_from_the_providers_hosts_at_their_ports_and_never_as_svg(processes):
    """The allow-list is of host and port (the upstream's host at another port is another
    service), and an SVG, a document that can carry scripts, is never relayed from our origin."""
    import pathlib
    import sys
    fake = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "fake_upstream.py"
    upstream = subprocess.Popen([sys.executable, str(fake), "0"], stdout=subprocess.PIPE, text=True)
    try:
        port = int(upstream.stdout.readline().split()[1])
        base = f"http://127.0.0.1:{port}"
        api = start_core_and_api(processes, fetch_env={"PANTRY_SPOONACULAR_URL": base, "PANTRY_SPOONACULAR_KEY": "k"})
        png = api.get(f"/v1/images?url={base}/images/pasta.png")
        assert png.status == 200 and png.headers["content-type"] == "image/png", png
        other_port = api.get(f"/v1/images?url=http://127.0.0.1:{port + 1 if port < 65535 else port - 1}/images/pasta.png")
        assert other_port.status == 404 and other_port.json["code"] == "not_found", other_port
        svg = api.get(f"/v1/images?url={base}/images/evil.svg")
        assert svg.status == 422 and svg.json["code"] == "invalid_query", svg
        assert b"<script" not in svg.body
    finally:
        upstream.terminate()
        upstream.wait(timeout=10)
