"""What `pantry api` serves besides the API: the web app's files with a strict content policy, the
contract and its rendered documentation, and CORS only for the origins a deployment names."""
import pathlib

import pytest

from pantry_processes import start_core_and_api

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def api(processes):
    return start_core_and_api(processes, env={"PANTRY_CORS_ORIGINS": "https://app.example, http://localhost:3000"})


def test_the_app_the_contract_and_the_docs_are_served(api):
    page = api.get("/")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert b'<script type="module" src="/app/app.js">' in page.body
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe" not in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    # API answers carry the same two headers, and no page policy.
    board = api.get("/v1/leaderboard")
    assert board.status == 200 and board.headers["x-content-type-options"] == "nosniff"
    assert board.headers["referrer-policy"] == "same-origin" and "content-security-policy" not in board.headers
    # And so do problem documents (the web app's middleware, which set them, saw only what it returned).
    for refused in (api.get("/v1/me/cart"), api.get("/nothing.html")):
        assert refused.status in (401, 404) and refused.headers["x-content-type-options"] == "nosniff"
        assert refused.headers["referrer-policy"] == "same-origin"
    for path in ("/app/app.js", "/app/screens/recipe.js", "/sw.js"):
        script = api.get(path)
        assert script.status == 200 and "javascript" in script.headers["content-type"], path
    contract = api.get("/openapi.yaml")
    assert contract.status == 200 and contract.body == (ROOT / "schemas" / "openapi.yaml").read_bytes()
    assert contract.headers["content-type"] == "application/yaml"
    docs = api.get("/docs")
    assert docs.status == 200 and b'<redoc spec-url="/openapi.yaml">' in docs.body
    renderer = api.get("/docs/redoc.standalone.js")
    assert renderer.status == 200 and len(renderer.body) > 100_000, "ops/setup installs ReDoc"
    # Nothing outside the app's folder, and no listing.
    for path in ("/app/../../Package.swift", "/%2e%2e/%2e%2e/Package.swift", "/app/", "/nothing.html"):
        answer = api.get(path)
        assert answer.status in (400, 404) and b"swift-tools-version" not in answer.body, path


def test_cors_answers_only_the_configured_origins(api):
    headers = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST",
               "Access-Control-Request-Headers": "authorization, content-type"}
    preflight = api.request("OPTIONS", "/v1/me/cart", headers=headers)
    assert preflight.status == 204
    assert preflight.headers["access-control-allow-origin"] == "https://app.example"
    assert "Authorization" in preflight.headers["access-control-allow-headers"]
    read = api.get("/v1/leaderboard", headers={"Origin": "http://localhost:3000"})
    assert read.status == 200 and read.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert read.headers["vary"] == "Origin"
    stranger = api.get("/v1/leaderboard", headers={"Origin": "https://evil.example"})
    assert stranger.status == 200 and "access-control-allow-origin" not in stranger.headers
    refused = api.request("OPTIONS", "/v1/me/cart", headers={**headers, "Origin": "https://evil.example"})
    assert refused.status == 405 and "access-control-allow-origin" not in refused.headers


def test_cors_is_off_by_default(processes):
    api = start_core_and_api(processes)
    answer = api.get("/v1/leaderboard", headers={"Origin": "https://app.example"})
    assert answer.status == 200 and "access-control-allow-origin" not in answer.headers
