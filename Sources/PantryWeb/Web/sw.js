// Pantry offline: the app's own files and every recipe looked at (its details, picture and tips)
// are kept, and served from here when the network cannot be reached. Personal data (/v1/me) is
// never kept here (the app keeps the user's own lists in localStorage, cleared at log-out: offline.js). The network always comes first, so nothing shown online is stale.
// The cache's name and the list of the app's files are filled in by the server (ServiceWorker.swift):
// "pantry-" and a digest of the files, so any change to them is a new cache and activating it
// deletes the old; and "/" with every file under /app/. What a cook browsed (searches, recipes,
// pictures) is kept apart from the app's files, in `browsingCache`, which the page deletes at
// log-out (api.js, `session.clear`): the searches of the last cook stayed for whoever used the
// browser next (issue 45).
const cacheName = "pantry-dev";
const browsingCache = "pantry-browsing";
const shell = ["/"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(cacheName).then((cache) => cache.addAll(shell)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== cacheName && name !== browsingCache).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

function kept(request) {
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return false;
  if (url.pathname.startsWith("/v1/me") || url.pathname.startsWith("/v1/sessions")) return false;
  // A signed-in cook's featured recipe follows what they save and cook: theirs, so never kept.
  if (url.pathname === "/v1/recipes/featured" && request.headers.has("Authorization")) return false;
  return shell.includes(url.pathname) || url.pathname.startsWith("/v1/recipes/") || url.pathname === "/v1/images";
}

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET" || !kept(event.request)) return;
  event.respondWith((async () => {
    const cache = await caches.open(shell.includes(new URL(event.request.url).pathname) ? cacheName : browsingCache);
    try {
      const response = await fetch(event.request);
      if (response.ok) cache.put(event.request, response.clone());
      return response;
    } catch (error) {
      const cached = await cache.match(event.request, { ignoreVary: true });
      if (cached) return cached;
      throw error;
    }
  })());
});
