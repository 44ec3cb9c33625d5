"""Refresh is single-use (issue 45: one token refreshed six times at once gave five live sessions,
across API processes too): the core decides the old token's revocation, and only the refresh whose
revocation it accepted gets a new token; the others are 401."""
from concurrent.futures import ThreadPoolExecutor

from pantry_processes import APIClient, free_port, start_core_and_api, wait_for


def refresh_at_once(clients, token):
    with ThreadPoolExecutor(len(clients)) as pool:
        return list(pool.map(lambda api: api.post("/v1/sessions/current/refresh", token=token), clients))


def test_six_concurrent_refreshes_of_one_token_give_one_session_also_across_two_api_processes(processes):
    first = start_core_and_api(processes)
    port = free_port()
    processes.start("api", "--port", str(port), "--password-cost", "10",
                    env={"PANTRY_LOGIN_RATE_PER_CLIENT": "10000", "PANTRY_LOGIN_RATE_OVERALL": "10000"})
    second = APIClient(port)
    wait_for(second.ready, timeout=60, what="the second API to be ready")

    for clients in ([first] * 6, [first, second] * 3):
        _, token = first.register_and_log_in(f"refresher{len(set(map(id, clients)))}")
        answers = refresh_at_once(clients, token)
        assert sorted(a.status for a in answers) == [201] + [401] * 5, answers
        assert all(a.json["code"] == "invalid_token" for a in answers if a.status == 401)
        renewed = next(a.json["token"] for a in answers if a.status == 201)
        # The new token works on both processes; the old one on neither, once each has it revoked.
        for api in (first, second):
            assert api.get("/v1/me", token=renewed).status == 200
            wait_for(lambda: api.get("/v1/me", token=token).status == 401, timeout=5, what="the old token refused")
        assert first.post("/v1/sessions/current/refresh", token=token).status == 401, "never again"
        # Logging out the new session still works after the refresh race.
        assert second.delete("/v1/sessions/current", token=renewed).status == 204
