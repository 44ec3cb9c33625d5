"""Search by what the cook has, over the offline catalog (bundled and the 3,129 imported Wikibooks
recipes), asked of a real `pantry fetch` over ZeroMQ: the search-quality set
(Tests/Fixtures/search-quality.json) scored as precision at 5."""
import pathlib

import pytest

from pantry_processes import wait_for
from search_quality import report, score

SOURCE = pathlib.Path(__file__).resolve().parents[2] / ".cache" / "catalog" / "recipes_en-us.json"
# Measured 0.92 when the ranking was written, 0.93 with the main food's weight (0.68 before: chicken broth as chicken, no synonyms,
# no folding of plurals and accents, "quick breakfast" finding nothing).
BAR = 0.85


def test_the_search_quality_set_scores_a_precision_at_5_above_the_bar(processes):
    if not SOURCE.exists():
        pytest.fail(f"{SOURCE} is missing: ops/setup downloads it")
    assert processes.run("catalog", "import", "--source", str(SOURCE)).returncode == 0
    processes.start("fetch", env={"PANTRY_PROVIDER": "catalog"})
    wait_for(lambda: (processes.data / "fetch.sock").exists(), what="the fetch socket")
    rows, mean = score(f"ipc://{processes.data / 'fetch.sock'}", processes.data / "catalog-import.json")
    print(report(rows, mean))
    by_query = {str(r["query"]): r for r in rows}
    # The cases the review found, each on its own.
    for case in (["chicken", "rice", "garlic"], ["peppers"], "chilies", "jalapeño", "courgette", "quick breakfast", "cookies"):
        assert by_query[str(case)]["precision"] >= 0.4, by_query[str(case)]
    # The main food outweighs the seasoning and the side (issue 47): Gin Fried Rice, which has
    # chicken too, came third.
    chicken_first = by_query[str(["chicken", "rice", "garlic"])]["top"][:3]
    assert all("Chicken" in title for title in chicken_first), chicken_first
    assert mean >= BAR, f"precision at 5 {mean:.3f}"
