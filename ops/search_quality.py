"""The search-quality set's precision at 5 over the offline catalog (bundled and imported), asked of
a real `pantry fetch` over ZeroMQ. Usage: search_quality.py BIN_DIR [--json FILE]. ops/bench-fetch runs it."""
import json, os, pathlib, subprocess, sys, tempfile, time
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "system"))
from search_quality import report, score  # noqa: E402

bin_dir = sys.argv[1]
data = pathlib.Path(tempfile.mkdtemp())
source = ROOT / ".cache" / "catalog" / "recipes_en-us.json"
subprocess.run([f"{bin_dir}/pantry", "catalog", "import", "--source", str(source), "--data", str(data)],
               check=True, capture_output=True)
env = {**os.environ, "PANTRY_LOG_LEVEL": "warning", "PANTRY_PROVIDER": "catalog"}
env.pop("PANTRY_SPOONACULAR_KEY", None)
fetch = subprocess.Popen([f"{bin_dir}/pantry", "fetch", "--data", str(data)], env=env)
try:
    while not (data / "fetch.sock").exists():
        time.sleep(0.05)
    rows, mean = score(f"ipc://{data / 'fetch.sock'}", data / "catalog-import.json")
    print(report(rows, mean))
    if "--json" in sys.argv:
        pathlib.Path(sys.argv[sys.argv.index("--json") + 1]).write_text(
            json.dumps({"precisionAt5": round(mean, 4), "queries": rows}, indent=1, ensure_ascii=False) + "\n")
finally:
    fetch.terminate()
    fetch.wait()
    subprocess.run(["rm", "-rf", str(data)])
