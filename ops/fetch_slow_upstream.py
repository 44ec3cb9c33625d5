"""Cache hits through the fetch worker, and through HTTP (`pantry api` in front of it), while 100
uncached requests wait on a 5 s upstream, beside cache hits at rest, in one run (ops/bench-fetch
runs it). The upstream is Tests/Fixtures/fake_upstream.py."""
import http.client, json, socket, subprocess, sys, time, os, tempfile, statistics, urllib.request
import zmq
bin_dir = sys.argv[1]
data = tempfile.mkdtemp()
up = subprocess.Popen([sys.executable, "Tests/Fixtures/fake_upstream.py", "0"], stdout=subprocess.PIPE, text=True)
port = int(up.stdout.readline().split()[1])
base = f"http://127.0.0.1:{port}"
env = {**os.environ, "PANTRY_SPOONACULAR_URL": base, "PANTRY_SPOONACULAR_KEY": "k", "PANTRY_SPOONACULAR_RATE": "1000",
       "PANTRY_SPOONACULAR_BURST": "1000", "PANTRY_LOG_LEVEL": "warning", "PANTRY_FETCH_TIMEOUT": "20"}
fetch = subprocess.Popen([f"{bin_dir}/pantry", "fetch", "--data", data], env=env)
while not os.path.exists(f"{data}/fetch.sock"): time.sleep(0.05)
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); http_port = s.getsockname()[1]
api = subprocess.Popen([f"{bin_dir}/pantry", "api", "--data", data, "--port", str(http_port), "--access-log", "off"], env=env)
def api_up():
    try:
        c = http.client.HTTPConnection("127.0.0.1", http_port, timeout=2); c.request("GET", "/health"); return c.getresponse().status == 200
    except OSError:
        return False
while not api_up(): time.sleep(0.05)
web = http.client.HTTPConnection("127.0.0.1", http_port, timeout=60)
ctx = zmq.Context()
def sock():
    s = ctx.socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 0); s.setsockopt(zmq.RCVTIMEO, 60000); s.connect(f"ipc://{data}/fetch.sock"); return s
hit = sock()
cached = {"kind": "detail", "id": "spoonacular:716429"}
hit.send(json.dumps(cached).encode()); assert json.loads(hit.recv())["ok"]
def sample(n=200):
    out = []
    for _ in range(n):
        t = time.perf_counter(); hit.send(json.dumps(cached).encode()); r = json.loads(hit.recv()); out.append((time.perf_counter()-t)*1000)
        assert r["ok"] and r["response"]["origin"] == "cache"
    out.sort(); return out[len(out)//2], out[int(len(out)*0.99)-1], out[-1]
def sample_http(n=500):
    out = []
    for _ in range(n):
        t = time.perf_counter(); web.request("GET", "/v1/recipes/spoonacular:716429"); r = web.getresponse(); body = json.loads(r.read())
        out.append((time.perf_counter()-t)*1000)
        assert r.status == 200 and body["origin"] == "cache", body
    out.sort(); return out[len(out)//2], out[int(len(out)*0.99)-1], out[-1]
rest = sample()
rest_http = sample_http()
urllib.request.urlopen(f"{base}/_mode?set=slow&delay=5").read()
slow = sock()
for n in range(100):
    slow.send(json.dumps({"kind": "detail", "id": f"spoonacular:{20000+n}"}).encode())
time.sleep(0.5)
busy = sample()
busy_http = sample_http()
print(f"cache hit at rest: p50 {rest[0]:.2f} ms, p99 {rest[1]:.2f} ms, max {rest[2]:.2f} ms")
print(f"cache hit with 100 uncached requests waiting on a 5 s upstream: p50 {busy[0]:.2f} ms, p99 {busy[1]:.2f} ms, max {busy[2]:.2f} ms")
print(f"HTTP cache hit at rest: p50 {rest_http[0]:.2f} ms, p99 {rest_http[1]:.2f} ms, max {rest_http[2]:.2f} ms")
print(f"HTTP cache hit with 100 uncached requests waiting: p50 {busy_http[0]:.2f} ms, p99 {busy_http[1]:.2f} ms, max {busy_http[2]:.2f} ms"
      f" (target p99 <= 5 ms: {'met' if busy_http[1] <= 5 else 'MISSED'}; ratio to rest {busy_http[1] / rest_http[1]:.2f})")
api.terminate(); fetch.terminate(); up.terminate(); api.wait(); fetch.wait(); subprocess.run(["rm","-rf",data])
