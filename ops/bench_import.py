"""ops/bench-import: how long `pantry catalog import` takes over the Wikibooks Cookbook, and how
long a fetch worker started on its output takes to serve the imported recipes (from its start to
the first search answering with one, through the API). Run through ops/bench-import."""
import argparse
import http.client
import json
import os
import platform
import subprocess
import tempfile
import time


def get(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        return answer.status, answer.read()
    except OSError:
        return None, b""
    finally:
        connection.close()


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise SystemExit(f"bench-import: no {what} within {timeout} s")


def one_run(pantry, source, query, expect):
    data = tempfile.mkdtemp(prefix="pantry-bench-import-")
    started = time.monotonic()
    importer = subprocess.Popen([pantry, "catalog", "import", "--source", source, "--data", data],
                                stdout=subprocess.PIPE, stderr=open(os.path.join(data, "import.log"), "w"), text=True)
    output = importer.stdout.read()
    _, status, usage = os.wait4(importer.pid, 0)  # this child's own peak RSS (KiB on Linux)
    import_seconds = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench-import: the import failed: see {data}/import.log")
    summary = json.loads(output.strip().splitlines()[-1])

    port = free_port()
    logs = open(os.path.join(data, "processes.log"), "ab")
    processes = [subprocess.Popen([pantry, "core", "--data", data], stdout=logs, stderr=logs),
                 subprocess.Popen([pantry, "api", "--data", data, "--port", str(port)], stdout=logs, stderr=logs)]
    try:
        until(lambda: get(port, "/health")[0] == 200, 60, "API")
        started = time.monotonic()
        processes.append(subprocess.Popen([pantry, "fetch", "--data", data], stdout=logs, stderr=logs))

        def served():
            status, body = get(port, f"/v1/recipes/search?query={query}&number=5")
            return status == 200 and expect in body.decode()
        until(served, 120, "imported recipe served")
        serve_seconds = time.monotonic() - started
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)
    return {"import_seconds": round(import_seconds, 3), "fetch_start_to_serving_seconds": round(serve_seconds, 3),
            # CPU time is the figure a shared machine disturbs least (wall time waits for the cores).
            "import_cpu_seconds": round(usage.ru_utime + usage.ru_stime, 3),
            "import_max_rss_mib": round(usage.ru_maxrss / 1024, 1),
            "recipes": summary["recipes"], "with_time": summary["withTime"], "with_servings": summary["withServings"],
            "rejected_lines": len(summary["rejected"])}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the folder holding pantry")
    parser.add_argument("--source", default=".cache/catalog/recipes_en-us.json")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--query", default="stroganoff")
    parser.add_argument("--expect", default="Stroganoff", help="text of an imported recipe the search must answer")
    parser.add_argument("--out", help="where to write the JSON")
    arguments = parser.parse_args()
    pantry = os.path.join(arguments.bin, "pantry")
    runs = [one_run(pantry, arguments.source, arguments.query, arguments.expect) for _ in range(arguments.runs)]
    result = {"bench": "import", "source": arguments.source, "runs": runs,
              "load_average": os.getloadavg(), "cpus": os.cpu_count(), "machine": platform.platform()}
    text = json.dumps(result, indent=2)
    print(text)
    if arguments.out:
        with open(arguments.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
