#!/usr/bin/env python3
"""A fake Spoonacular + TheMealDB server for Pantry's tests (stdlib only).

Binds 127.0.0.1 on the given port (0 = any free one) and prints "PORT <n>" on the
first line of stdout. Spoonacular lives at /, TheMealDB at /mealdb/api/json/v1/1/. With a
certificate and its key after the port (PEM files), it serves HTTPS (TLS 1.2 and later) instead.

Control endpoints (not counted):
  /_count                 -> {"total": n, "paths": {path: n}, "used": points, "tooManyAtOnce": n,
                              "abandoned": calls answered "slow" after their client hung up,
                              "inFlight": calls whose answer is not ready yet}
  /_reset                 -> clears counts and the mode
  /_mode?set=MODE         -> normal | malformed | error500 | slow | trickle | huge | gzipbomb | quota402 |
                             rate429 (huge: a 64 MiB body; gzipbomb: 256 KiB of gzip that inflates
                             to 256 MiB)
         &delay=SECONDS   -> how long "slow" waits before it answers, and "trickle" takes to send
                             its answer's body, a few bytes at a time (default 3)
         &quota=N         -> the day's points (default 10000)
         &quota_left=N    -> points left now (sets what is used to quota - N)
         &retry_after=N   -> Retry-After sent with 429 (default 7)
         &day_ends=T      -> the upstream's own midnight (seconds since 1970, its clock): from then
                             on its day's points are counted from 0 again (once)
         &clock=T&speed=S -> its clock (what its Date header says, and what day_ends is read by)
                             reads T now and runs S times as fast (default: the real clock)
Spoonacular charges as it documents: 1 point per call plus 0.01 per result returned (a detail
costs 1), with X-API-Quota-Request/Used/Left on every answer, and 402 once a call would not fit.
Helpers for the HTTP client tests (counted): /test/status/<code>, /test/headers,
/test/gzip, /test/slow?seconds=S.
"""

import gzip
import hashlib
import json
import os
import select
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

MEALDB = "/mealdb/api/json/v1/1/"
LOCK = threading.Lock()
STATE = {"counts": {}, "mode": "normal", "delay": 3.0, "quota": 10000.0, "used": 0.0, "retry_after": 7,
         "in_flight": 0, "too_many_at_once": 0, "abandoned": 0, "day_ends": None, "clock": None}
# Spoonacular's free plan allows 2 calls at once; a third is answered 429.
MAX_AT_ONCE = 2

PASTA = {
    "id": 716429,
    "title": "Pasta with Garlic, Scallions, Cauliflower & Breadcrumbs",
    "image": "https://img.spoonacular.com/recipes/716429-556x370.jpg",
    "imageType": "jpg",
    "servings": 2,
    "readyInMinutes": 45,
    "sourceUrl": "https://fullbellysisters.blogspot.com/2012/06/pasta-with-garlic-scallions-cauliflower.html",
    "sourceName": "Full Belly Sisters",
    "vegetarian": False,
    "vegan": False,
    "glutenFree": False,
    "dairyFree": False,
    "diets": [],
    "dishTypes": ["lunch", "main course", "main dish", "dinner"],
    "instructions": "<p>Cook the pasta.</p><p>Fry the garlic.</p>",
    "analyzedInstructions": [{"name": "", "steps": [
        {"number": 1, "step": "Bring a large pot of salted water to a boil and cook the pasta."},
        {"number": 2, "step": "Saute the garlic and scallions in butter, add cauliflower."},
        {"number": 3, "step": "Toss with the pasta and top with breadcrumbs."},
    ]}],
    "extendedIngredients": [
        {"id": 1001, "name": "butter", "amount": 1.0, "unit": "tbsp", "original": "1 tbsp butter",
         "aisle": "Milk, Eggs, Other Dairy", "image": "butter-sliced.jpg"},
        {"id": 10011135, "name": "cauliflower florets", "amount": 2.0, "unit": "cups",
         "original": "about 2 cups frozen cauliflower florets, thawed, cut into bite-sized pieces",
         "aisle": "Produce", "image": "cauliflower.jpg"},
        {"id": 11215, "name": "garlic", "amount": 5.0, "unit": "cloves", "original": "5-6 cloves garlic",
         "aisle": "Produce", "image": "garlic.png"},
        {"id": 20420, "name": "pasta", "amount": 6.0, "unit": "ounces", "original": "6-8 ounces pasta",
         "aisle": "Pasta and Rice", "image": "fusilli.jpg"},
    ],
}

TERIYAKI = {
    "idMeal": "52772", "strMeal": "Teriyaki Chicken Casserole", "strDrinkAlternate": None,
    "strCategory": "Chicken", "strArea": "Japanese",
    "strInstructions": "Preheat oven to 350\u00b0 F.\r\nSpray a 9x13-inch baking pan with non-stick spray.\r\n\r\n"
                       "Combine soy sauce, water, brown sugar and ginger in a small saucepan.\r\nBake 45 minutes.",
    "strMealThumb": "https://www.themealdb.com/images/media/meals/wvpsxx1468256321.jpg",
    "strTags": "Meat,Casserole", "strYoutube": "https://www.youtube.com/watch?v=4aZr5hZXP_s",
    "strSource": None, "strImageSource": None, "strCreativeCommonsConfirmed": None, "dateModified": None,
}
_TERIYAKI_ITEMS = [("soy sauce", "3/4 cup"), ("water", "1/2 cup"), ("brown sugar", "1/4 cup"),
                   ("ground ginger", "1/2 teaspoon"), ("minced garlic", "1/2 teaspoon"),
                   ("cornstarch", "4 Tablespoons"), ("chicken breasts", "2"), ("stir-fry vegetables", "1 (12 oz.)"),
                   ("brown rice", "3 cups")]
for _i in range(1, 21):
    if _i <= len(_TERIYAKI_ITEMS):
        TERIYAKI["strIngredient%d" % _i], TERIYAKI["strMeasure%d" % _i] = _TERIYAKI_ITEMS[_i - 1]
    else:
        # Real TheMealDB mixes all three empty forms.
        TERIYAKI["strIngredient%d" % _i] = [None, "", " "][_i % 3]
        TERIYAKI["strMeasure%d" % _i] = [" ", None, ""][_i % 3]

INGREDIENT_NAMES = ["apple", "apricot", "avocado", "bacon", "banana", "basil", "butter", "carrot",
                    "cauliflower", "cheddar", "chicken breast", "egg", "eggs", "egg yolk", "garlic", "tomato"]


def upstream_time():
    """The upstream's own clock: the real one, or the one /_mode?clock= set."""
    if STATE["clock"] is None:
        return time.time()
    reads, set_at, speed = STATE["clock"]
    return reads + (time.time() - set_at) * speed


_HOSTILE = {}


def hostile(mode):
    """The body of a hostile answer, made once: 64 MiB of JSON that never ends, or 256 MiB of
    spaces as gzip (about 256 KiB)."""
    with LOCK:
        if mode not in _HOSTILE:
            _HOSTILE[mode] = (b"[" + b" " * (64 << 20) if mode == "huge"
                              else gzip.compress(b" " * (256 << 20), compresslevel=1))
        return _HOSTILE[mode]


def roll_day():
    """Past the upstream's midnight its day starts again (the caller holds LOCK). Its clock is
    not the client's: Spoonacular's day may reset a few seconds after the client's midnight."""
    if STATE["day_ends"] is not None and upstream_time() >= STATE["day_ends"]:
        STATE["used"], STATE["day_ends"] = 0.0, None


def number(value, default):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def stable_id(text):
    return 100000 + int(hashlib.sha1(text.encode()).hexdigest(), 16) % 800000


def spoon_recipe(recipe_id):
    if recipe_id == PASTA["id"]:
        return PASTA
    r = dict(PASTA)
    r.update({"id": recipe_id, "title": "Fake recipe %d" % recipe_id,
              "image": "https://img.spoonacular.com/recipes/%d-556x370.jpg" % recipe_id,
              "readyInMinutes": 10 + recipe_id % 80, "vegetarian": recipe_id % 2 == 0,
              "glutenFree": recipe_id % 3 == 0, "diets": ["paleolithic"] if recipe_id % 5 == 0 else []})
    return r


def spoonacular(path, q):
    if "apiKey" not in q:
        return 401, {"status": "failure", "code": 401, "message": "You are not authorized."}
    n = number(q.get("number", ["10"])[0], 10)
    if path == "/recipes/findByIngredients":
        names = [s.strip() for s in q.get("ingredients", [""])[0].split(",") if s.strip()]
        base = stable_id(",".join(names))
        out = []
        for i in range(n):
            used = [{"id": 1, "name": s, "amount": 1.0, "unit": "", "unitLong": "", "unitShort": "",
                     "aisle": "Produce", "image": "x.jpg", "original": "1 " + s} for s in names]
            missed = [{"id": 2, "name": "salt", "amount": 1.0, "unit": "pinch", "unitLong": "pinch",
                       "unitShort": "pinch", "aisle": "Spices", "image": "salt.jpg", "original": "a pinch of salt"}] * (i % 3)
            out.append({"id": base + i, "title": "With %s #%d" % (" and ".join(names), i),
                        "image": "https://img.spoonacular.com/recipes/%d-312x231.jpg" % (base + i), "imageType": "jpg",
                        "likes": i, "usedIngredientCount": len(used), "missedIngredientCount": len(missed),
                        "usedIngredients": used, "missedIngredients": missed, "unusedIngredients": []})
        return 200, out
    if path == "/recipes/complexSearch":
        query = q.get("query", [""])[0]
        offset = number(q.get("offset", ["0"])[0], 0)
        base = stable_id(query)
        results = []
        for i in range(offset, min(offset + n, 25)):
            item = {"id": base + i, "title": "%s dish %d" % (query, i),
                    "image": "https://img.spoonacular.com/recipes/%d-312x231.jpg" % (base + i), "imageType": "jpg"}
            if q.get("addRecipeInformation", ["false"])[0] == "true":
                item.update({"readyInMinutes": 15 + 10 * i, "servings": 2, "sourceName": "Fake"})
            results.append(item)
        return 200, {"offset": offset, "number": n, "totalResults": 25, "results": results}
    if path == "/recipes/random":
        return 200, {"recipes": [spoon_recipe(700000 + i) for i in range(n)]}
    if path == "/food/ingredients/autocomplete":
        prefix = q.get("query", [""])[0].lower()
        return 200, [{"name": s, "image": s + ".png"} for s in INGREDIENT_NAMES if s.startswith(prefix)][:n]
    parts = path.strip("/").split("/")
    if len(parts) == 3 and parts[0] == "recipes" and parts[2] == "information":
        if not parts[1].isdigit():
            return 400, {"status": "failure", "code": 400, "message": "bad id"}
        if int(parts[1]) == 404:
            return 404, {"status": "failure", "code": 404, "message": "A recipe with the id 404 does not exist."}
        return 200, spoon_recipe(int(parts[1]))
    return 404, {"status": "failure", "code": 404, "message": "no such endpoint"}


def meal(meal_id):
    if meal_id == "52772":
        return TERIYAKI
    m = dict(TERIYAKI)
    m.update({"idMeal": meal_id, "strMeal": "Fake meal " + meal_id, "strCategory": "Vegetarian"})
    return m


def mealdb(name, q):
    if name == "random.php":
        return 200, {"meals": [meal(str(53000 + number(time.time_ns() % 1000, 0)))]}
    if name == "lookup.php":
        i = q.get("i", [""])[0]
        return 200, {"meals": [meal(i)] if i.isdigit() and i != "404" else None}
    if name == "search.php":
        s = q.get("s", [""])[0].lower()
        return 200, {"meals": [TERIYAKI] if s and s in TERIYAKI["strMeal"].lower() else None}
    if name == "filter.php":
        i = q.get("i", [""])[0].lower().replace("_", " ")
        # TheMealDB lists eggs as "Eggs": "egg" finds nothing there.
        hits = {"chicken breasts": ["52772", "52795"], "soy sauce": ["52772", "52806"], "garlic": ["52772"],
                "eggs": ["52772", "52795", "52806", "52807", "52808"]}
        ids = hits.get(i)
        return 200, {"meals": [{"idMeal": x, "strMeal": "Meal " + x,
                                "strMealThumb": "https://www.themealdb.com/images/media/meals/%s.jpg" % x}
                               for x in ids] if ids else None}
    if name == "list.php":
        return 200, {"meals": [{"idIngredient": str(k + 1), "strIngredient": s.title(), "strDescription": None,
                                "strType": None} for k, s in enumerate(INGREDIENT_NAMES)]}
    return 404, {"error": "no such endpoint"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def date_time_string(self, timestamp=None):
        # The Date header tells the upstream's clock, as a real server's does.
        return super().date_time_string(upstream_time() if timestamp is None else timestamp)

    def send(self, status, body, content_type="application/json", headers=(), trickle=0.0):
        # A call stops counting as "at once" when its answer is ready, before it is written:
        # the client may send its next call the moment it reads this one.
        if getattr(self, "in_flight", False):
            self.in_flight = False
            with LOCK:
                STATE["in_flight"] -= 1
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if trickle <= 0 or not body:
            self.wfile.write(body)
            return
        # The head at once, then the body in 20 pieces spread over `trickle` seconds.
        step = max(1, -(-len(body) // 20))
        for start in range(0, len(body), step):
            self.wfile.write(body[start:start + step])
            self.wfile.flush()
            time.sleep(trickle / 20)

    def do_GET(self):
        url = urlparse(self.path)
        q = parse_qs(url.query)
        if url.path.startswith("/_"):
            return self.control(url.path, q)
        with LOCK:
            STATE["counts"][url.path] = STATE["counts"].get(url.path, 0) + 1
            mode, delay, retry_after = STATE["mode"], STATE["delay"], STATE["retry_after"]
        if url.path.startswith("/test/"):
            return self.test_helpers(url.path, q)
        if url.path.startswith(MEALDB) or url.path.startswith("/images/"):
            return self.serve(url, q, mode, delay, retry_after)
        with LOCK:
            STATE["in_flight"] += 1
            too_many = STATE["in_flight"] > MAX_AT_ONCE
            if too_many:
                STATE["too_many_at_once"] += 1
        self.in_flight = True
        if too_many:
            return self.send(429, b'{"status":"failure","code":429}', headers=[("Retry-After", "1")])
        return self.serve(url, q, mode, delay, retry_after)

    def serve(self, url, q, mode, delay, retry_after):
        if mode == "slow":
            time.sleep(delay)
            # Answered after the client hung up (its timeout): charged all the same, bought nothing.
            if self.client_gone():
                with LOCK:
                    STATE["abandoned"] += 1
        if mode == "error500":
            return self.send(500, b"Internal Server Error", "text/plain")
        if mode == "quota402":
            return self.spent()
        if mode == "rate429":
            return self.send(429, b'{"status":"failure","code":429}', headers=[("Retry-After", str(retry_after))])
        if mode == "malformed":
            return self.send(200, b'{"recipes": [ {"id": 1, "title": ', headers=self.charge(1))
        if mode == "huge":
            return self.send(200, hostile(mode), headers=self.charge(1))
        if mode == "gzipbomb":
            return self.send(200, hostile(mode), headers=self.charge(1) + [("Content-Encoding", "gzip")])
        if url.path.startswith("/images/") and url.path.endswith(".svg"):
            return self.send(200, b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "image/svg+xml")
        if url.path.startswith("/images/"):
            return self.send(200, b"\x89PNG\r\n\x1a\nfake-image-" + url.path.encode(), "image/png")
        if url.path.startswith(MEALDB):
            status, payload = mealdb(url.path[len(MEALDB):], q)
            return self.send(status, json.dumps(payload).encode())
        status, payload = spoonacular(url.path, q)
        if status != 200:
            return self.send(status, json.dumps(payload).encode())
        results = payload if isinstance(payload, list) else payload.get("results", payload.get("recipes"))
        cost = 1 + 0.01 * len(results) if isinstance(results, list) else 1
        headers = self.charge(cost)
        if headers is None:
            return self.spent()
        return self.send(status, json.dumps(payload).encode(), headers=headers, trickle=delay if mode == "trickle" else 0)

    def client_gone(self):
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True
        except ValueError:  # a TLS socket cannot peek; such tests do not count abandoned calls
            return False

    @staticmethod
    def charge(cost):
        """Spends `cost` points if they fit today; the quota headers after it, or None."""
        with LOCK:
            roll_day()
            if STATE["used"] + cost > STATE["quota"] + 1e-9:
                return None
            STATE["used"] = round(STATE["used"] + cost, 2)
            used, left = STATE["used"], round(STATE["quota"] - STATE["used"], 2)
        return [("X-API-Quota-Request", "%g" % cost), ("X-API-Quota-Used", "%g" % used), ("X-API-Quota-Left", "%g" % left)]

    def spent(self):
        # As the stand-in the issue was measured with: the 402 says what the upstream's day has used.
        with LOCK:
            roll_day()
            used, left = STATE["used"], round(max(0.0, STATE["quota"] - STATE["used"]), 2)
        return self.send(402, json.dumps({"status": "failure", "code": 402,
                                          "message": "Your daily points limit has been reached."}).encode(),
                         headers=[("X-API-Quota-Used", "%g" % used), ("X-API-Quota-Left", "%g" % left)])

    def control(self, path, q):
        with LOCK:
            if path == "/_reset":
                STATE.update({"counts": {}, "mode": "normal", "delay": 3.0, "quota": 10000.0, "used": 0.0, "retry_after": 7,
                              "too_many_at_once": 0, "abandoned": 0, "day_ends": None, "clock": None})
            elif path == "/_mode":
                STATE["mode"] = q.get("set", [STATE["mode"]])[0]
                STATE["delay"] = float(q.get("delay", [STATE["delay"]])[0])
                if "quota" in q:
                    STATE["quota"] = float(q["quota"][0])
                if "quota_left" in q:
                    STATE["used"] = max(0.0, STATE["quota"] - float(q["quota_left"][0]))
                STATE["retry_after"] = number(q.get("retry_after", [STATE["retry_after"]])[0], 7)
                if "day_ends" in q:
                    STATE["day_ends"] = float(q["day_ends"][0])
                if "clock" in q:
                    STATE["clock"] = (float(q["clock"][0]), time.time(), float(q.get("speed", ["1"])[0]))
            elif path != "/_count":
                return self.send(404, b"{}")
            roll_day()
            body = {"total": sum(STATE["counts"].values()), "paths": STATE["counts"], "mode": STATE["mode"],
                    "used": STATE["used"], "tooManyAtOnce": STATE["too_many_at_once"], "abandoned": STATE["abandoned"],
                    "inFlight": STATE["in_flight"]}
        self.send(200, json.dumps(body).encode())

    def test_helpers(self, path, q):
        if path.startswith("/test/status/"):
            return self.send(number(path.rsplit("/", 1)[1], 500), b"status body", "text/plain")
        if path == "/test/headers":
            got = self.headers.get("X-Pantry-Test", "")
            return self.send(200, json.dumps({"x-pantry-test": got}).encode(),
                             headers=[("X-Custom-Header", "Custom Value"), ("Set-Cookie", "a=1")])
        if path == "/test/gzip":
            plain = b"pantry " * 1000
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                return self.send(200, gzip.compress(plain), "text/plain", headers=[("Content-Encoding", "gzip")])
            return self.send(200, plain, "text/plain")
        if path == "/test/slow":
            time.sleep(float(q.get("seconds", ["3"])[0]))
            return self.send(200, b"late", "text/plain")
        if path == "/test/redirect":
            return self.send(302, b"", "text/plain", headers=[("Location", "/test/status/200")])
        return self.send(404, b"", "text/plain")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the tests open hundreds of connections at once

    def handle_error(self, request, client_address):
        # Clients that time out hang up on purpose, and those that do not trust the certificate
        # refuse the handshake on purpose; anything else is worth printing.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ssl.SSLError)):
            super().handle_error(request, client_address)


def exit_with_parent():
    # When the test process dies without stopping us, we are re-parented: leave too.
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = Server(("127.0.0.1", port), Handler)
    if len(sys.argv) > 3:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        # The handshake happens in the request's thread (on its first read), not in the accepting one.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    threading.Thread(target=exit_with_parent, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
