"""The search-quality set (Tests/Fixtures/search-quality.json) asked of a running fetch worker over
ZeroMQ, scored as precision at 5. Used by test_search_quality.py and ops/search_quality.py."""
import json
import pathlib
import re

import zmq

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "Tests" / "Fixtures" / "search-quality.json"
BUNDLED = ROOT / "Sources" / "PantryFetch" / "Resources" / "catalog.json"


def request(query):
    if query["kind"] == "byIngredients":
        return {"kind": "byIngredients", "ingredients": query["ingredients"], "number": 5}
    return {"kind": "search", "query": query["query"], "offset": 0, "number": 5}


def titles(answer):
    payload = answer["response"]["payload"]
    found = payload["summaries"] if "summaries" in payload else payload["searchPage"]["results"]
    return [r["title"] for r in found]


def score(endpoint, imported_file):
    """Per query: what was asked, the first five titles, the relevant among them, the precision;
    and the mean precision."""
    queries = json.loads(FIXTURE.read_text())["queries"]
    catalog = json.loads(BUNDLED.read_text()) + json.loads(pathlib.Path(imported_file).read_text())
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 30_000)
    socket.connect(endpoint)
    rows = []
    for query in queries:
        socket.send(json.dumps(request(query)).encode())
        answer = json.loads(socket.recv())
        assert answer["ok"], answer
        relevant = re.compile(query["relevant"], re.IGNORECASE)
        top = titles(answer)[:5]
        possible = min(5, len({r["title"] for r in catalog if relevant.search(r["title"])}))
        hits = [t for t in top if relevant.search(t)]
        rows.append({"query": query.get("ingredients") or query.get("query"), "kind": query["kind"],
                     "top": top, "relevant": len(hits), "precision": len(hits) / possible if possible else 1.0})
    socket.close()
    return rows, sum(r["precision"] for r in rows) / len(rows)


def report(rows, mean):
    lines = [f"{r['precision']:.2f}  {r['kind']:<13} {', '.join(r['query']) if isinstance(r['query'], list) else r['query']}"
             f"  ->  {' | '.join(r['top'])}" for r in rows]
    return "\n".join(lines + [f"search quality: precision at 5 {mean:.3f} over {len(rows)} queries"])
